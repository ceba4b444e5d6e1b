//! The layout model: one checked schema as a tree of value types, the single description that
//! code generation, the decoders' errors, the documentation and the command-line tool are all
//! derived from.

use core::ops::Range;

pub use metalayer_runtime::wire::{Family, Wire};

/// How a value's marker is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// The schema names the wire type: what c-blosc2 writes (`0xd3` for every int64, `0xdb` for
    /// a 3-byte string).
    Fixed(Wire),
    /// The marker follows from the value, as standard msgpack writers choose it: the smallest
    /// wire type of the family for the value or length.
    Canonical {
        /// Decoding accepts any wire type of the family, not only the smallest (encoding still
        /// writes the smallest).
        lenient: bool,
    },
}

impl Encoding {
    /// The fixed wire type, if the schema names one.
    ///
    /// ```
    /// use metalayer_layout::{Encoding, Wire};
    ///
    /// assert_eq!(Encoding::Fixed(Wire::Int64).wire(), Some(Wire::Int64));
    /// assert_eq!(Encoding::Canonical { lenient: false }.wire(), None);
    /// ```
    pub const fn wire(self) -> Option<Wire> {
        match self {
            Encoding::Fixed(w) => Some(w),
            Encoding::Canonical { .. } => None,
        }
    }
}

/// Where the number of elements of an array or the pairs of a map comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Count {
    /// The value's own msgpack header: any number the header can state.
    Header,
    /// Always this many.
    Fixed(usize),
    /// An earlier integer entry of the same record, by index; its value must equal the header's.
    Entry(usize),
}

/// An integer value's constraints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntType {
    /// Its encoding.
    pub encoding: Encoding,
    /// The smallest allowed value (the wire type's, or the schema's `min`).
    pub min: i128,
    /// The largest allowed value.
    pub max: i128,
    /// Named values; when there are any, the value must be one of them.
    pub values: Vec<(String, i128)>,
}

/// A string value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StrType {
    /// Its encoding.
    pub encoding: Encoding,
    /// Raw bytes in a str container, with no UTF-8 requirement (the frame header's flags).
    pub raw: bool,
    /// The one length in bytes the string has, when the schema fixes it (`len = 8`).
    pub len: Option<usize>,
}

/// A byte string value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BinType {
    /// Its encoding.
    pub encoding: Encoding,
    /// The one length in bytes it has, when the schema fixes it (`len = 32` for a SHA-256
    /// digest).
    pub len: Option<usize>,
}

/// An ext value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtType {
    /// Its encoding.
    pub encoding: Encoding,
    /// The type byte, when the schema fixes it; otherwise it is part of the value.
    pub ext_type: Option<i8>,
    /// msgpack's timestamp (ext type -1): the data is a time, in the form of its wire type
    /// (fixext4, fixext8 or ext8 of 12 bytes), or, canonical, in the smallest form for the time.
    pub timestamp: bool,
}

impl ExtType {
    /// The names of the timestamp wire types, canonical first: `timestamp`, then the forms
    /// `timestamp32`, `timestamp64` and `timestamp96` with their ext wire types (the runtime's
    /// [`TIMESTAMP_FORMS`](metalayer_runtime::TIMESTAMP_FORMS)).
    ///
    /// ```
    /// use metalayer_layout::{ExtType, Wire};
    ///
    /// assert_eq!(ExtType::TIMESTAMP_WIRES[2], ("timestamp64", Some(Wire::FixExt8)));
    /// ```
    pub const TIMESTAMP_WIRES: [(&'static str, Option<Wire>); 4] = metalayer_runtime::TIMESTAMP_FORMS;

    /// The wire type's name as written in schemas: a timestamp's (`timestamp64`), or else an
    /// ext's (`fixext8`, `ext`).
    ///
    /// ```
    /// use metalayer_layout::{Encoding, ExtType, Wire};
    ///
    /// let t = ExtType { encoding: Encoding::Fixed(Wire::FixExt8), ext_type: Some(-1), timestamp: true };
    /// assert_eq!(t.wire_name(), "timestamp64");
    /// let e = ExtType { timestamp: false, ..t };
    /// assert_eq!(e.wire_name(), "fixext8");
    /// ```
    pub fn wire_name(&self) -> &'static str {
        if self.timestamp {
            let fixed = self.encoding.wire();
            return Self::TIMESTAMP_WIRES
                .iter()
                .find(|(_, w)| *w == fixed)
                .map_or("timestamp", |(n, _)| n);
        }
        match self.encoding {
            Encoding::Fixed(w) => w.name(),
            Encoding::Canonical { .. } => Family::Ext.name(),
        }
    }
}

/// An array of elements of one type.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayType {
    /// The header's encoding.
    pub header: Encoding,
    /// Where the count comes from.
    pub count: Count,
    /// The elements' type.
    pub element: Box<Node>,
    /// Why the schema lets a fixarray header pass 0x9f (c-blosc2 writes `0x90 + 16`).
    pub header_overflow: Option<String>,
}

impl ArrayType {
    /// The elements' wire type when the array is read in one piece: a fixarray counted by an
    /// earlier entry, of integers of one fixed wire type (not a negative fixint) whose range is
    /// the wire type's whole range, without named values, like b2nd's `shape`. Such an array is
    /// read without first checking that the input has room for every element: its errors are
    /// those of reading the elements one by one.
    ///
    /// ```
    /// use metalayer_layout::{Type, Wire, builtin};
    ///
    /// let layout = builtin("b2nd_v1").unwrap().layout().unwrap();
    /// let shape = &layout.root_record().unwrap().entries[2].node;
    /// let Type::Array(a) = &shape.ty else { panic!() };
    /// assert_eq!(a.packed_ints(), Some(Wire::Int64));
    /// ```
    pub fn packed_ints(&self) -> Option<Wire> {
        if !matches!(
            (self.header, &self.count),
            (Encoding::Fixed(Wire::FixArray), Count::Entry(_))
        ) {
            return None;
        }
        match &self.element.ty {
            Type::Int(t) if t.values.is_empty() => match t.encoding {
                Encoding::Fixed(w) if w != Wire::NegFixInt && w.int_range() == Some((t.min, t.max)) => Some(w),
                _ => None,
            },
            _ => None,
        }
    }
}

/// A map of keys to values of one type each, in stored order.
#[derive(Debug, Clone, PartialEq)]
pub struct MapType {
    /// The header's encoding.
    pub header: Encoding,
    /// Where the number of pairs comes from.
    pub count: Count,
    /// The keys' type.
    pub key: Box<Node>,
    /// The values' type.
    pub value: Box<Node>,
}

/// A record: a fixed sequence of entries, stored as an array or as a map with fixed string keys
/// in a fixed order.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// [`Family::Array`] or [`Family::Map`].
    pub form: Family,
    /// The header's encoding.
    pub header: Encoding,
    /// The entries, in wire order.
    pub entries: Vec<Entry>,
    /// How many entries are always present; the rest are optional trailing entries.
    pub required: usize,
}

impl Record {
    /// The entry of that name.
    ///
    /// ```
    /// let layout = metalayer_layout::builtin("caterva_v0").unwrap().layout().unwrap();
    /// let root = layout.root_record().unwrap();
    /// assert_eq!(root.entry("ndim").unwrap().name, "ndim");
    /// assert!(root.entry("dtype").is_none());
    /// ```
    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// Whether a header may state `n` entries present: the required ones at least, all at
    /// most, and not up to only one of two entries that go together (`together_with`).
    ///
    /// ```
    /// let text = "[schema]\nmetalayer = \"m\"\ndescription = \"d\"\nsource = \"s\"\nlanguage = 3\n\
    ///     [container]\nwire = \"array\"\n\
    ///     [[entry]]\nname = \"a\"\nwire = \"int\"\n\
    ///     [[entry]]\nname = \"b\"\nwire = \"int\"\noptional = true\n\
    ///     [[entry]]\nname = \"c\"\nwire = \"str\"\noptional = true\ntogether_with = \"b\"\n";
    /// let layout = metalayer_layout::parse("m_v1", text).unwrap();
    /// let root = layout.root_record().unwrap();
    /// let allowed: Vec<usize> = (0..=4).filter(|&n| root.allows_present(n)).collect();
    /// assert_eq!(allowed, [1, 3]);
    /// ```
    pub fn allows_present(&self, n: usize) -> bool {
        (self.required..=self.entries.len()).contains(&n) && self.together().all(|(i, j)| n <= i || n > j)
    }

    /// The pairs of optional entries that go together, by index: `(earlier, later)`.
    ///
    /// ```
    /// let layout = metalayer_layout::builtin("b2nd_v1").unwrap().layout().unwrap();
    /// assert_eq!(layout.root_record().unwrap().together().count(), 0);
    /// ```
    pub fn together(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.entries
            .iter()
            .enumerate()
            .filter_map(|(j, e)| e.together_with.map(|i| (i, j)))
    }

    /// The entries the user provides as struct fields (not constants or counts).
    ///
    /// ```
    /// let layout = metalayer_layout::builtin("b2nd_v1").unwrap().layout().unwrap();
    /// let names: Vec<_> = layout.root_record().unwrap().fields().map(|e| e.name.as_str()).collect();
    /// assert_eq!(names, ["shape", "chunkshape", "blockshape", "dtype_format", "dtype"]);
    /// ```
    pub fn fields(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().filter(|e| e.is_field())
    }
}

/// A constant of any scalar type.
#[derive(Debug, Clone, PartialEq)]
pub enum Const {
    /// `nil`.
    Nil,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i128),
    /// A float.
    Float(f64),
    /// A string's or byte string's bytes.
    Bytes(Vec<u8>),
}

/// The type of a value: one node kind per msgpack family, nested to any depth.
#[derive(Debug, Clone, PartialEq)]
pub enum Type {
    /// `nil`.
    Nil,
    /// A boolean.
    Bool,
    /// An integer.
    Int(IntType),
    /// A float: [`Wire::Float32`] or [`Wire::Float64`].
    Float(Wire),
    /// A string.
    Str(StrType),
    /// A byte string.
    Bin(BinType),
    /// An ext.
    Ext(ExtType),
    /// An array of elements of one type.
    Array(ArrayType),
    /// A map of keys to values.
    Map(MapType),
    /// A record, written in place (the top-level record).
    Record(Record),
    /// A named record type of the schema ([`Layout::types`]), bound to its own struct.
    Ref(usize),
}

impl Type {
    /// A string's or byte string's encoding, family and fixed length (`len`), for the code
    /// that treats both alike; `None` for other types.
    ///
    /// ```
    /// use metalayer_layout::{BinType, Encoding, Family, Type, Wire};
    ///
    /// let digest = Type::Bin(BinType { encoding: Encoding::Fixed(Wire::Bin8), len: Some(32) });
    /// assert_eq!(digest.bytes_layout(), Some((Encoding::Fixed(Wire::Bin8), Family::Bin, Some(32))));
    /// assert_eq!(Type::Nil.bytes_layout(), None);
    /// ```
    pub fn bytes_layout(&self) -> Option<(Encoding, Family, Option<usize>)> {
        match self {
            Type::Str(t) => Some((t.encoding, Family::Str, t.len)),
            Type::Bin(t) => Some((t.encoding, Family::Bin, t.len)),
            _ => None,
        }
    }
}

/// A value's type, with where the schema states it.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The type.
    pub ty: Type,
    /// The byte range in the schema file it is stated in.
    pub span: Range<usize>,
    /// The file it is stated in: an index into [`Layout::files`].
    pub file: usize,
}

/// What an entry's value is: the user's, a constant, or a count.
#[derive(Debug, Clone, PartialEq)]
pub enum Role {
    /// A value the user provides as a struct field.
    Field,
    /// A constant: written on encode, checked on decode.
    Const(Const),
    /// The number of elements of one or more arrays or maps of the same record (by index),
    /// derived on encode and checked on decode.
    Count {
        /// The counted entries, in entry order.
        of: Vec<usize>,
    },
}

/// One entry of a record.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The entry's name, which is also the Rust field's name.
    pub name: String,
    /// A map record's key (the schema's `key`, or the name).
    pub key: Option<String>,
    /// Its value's type.
    pub node: Node,
    /// Where its value comes from.
    pub role: Role,
    /// Whether it is an optional trailing entry, held in an `Option`.
    pub optional: bool,
    /// The earlier optional entry (by index) this optional entry goes together with
    /// (`together_with`): both are present or both absent, and so is every entry between them.
    pub together_with: Option<usize>,
    /// The schema's one-line description.
    pub doc: Option<String>,
    /// The byte range of the entry's table in its schema file.
    pub span: Range<usize>,
}

impl Entry {
    /// Whether the user supplies this entry's value as a struct field (constants and counts are
    /// derived instead).
    ///
    /// ```
    /// let layout = metalayer_layout::builtin("b2nd_v1").unwrap().layout().unwrap();
    /// assert!(!layout.root_record().unwrap().entries[0].is_field()); // version
    /// ```
    pub fn is_field(&self) -> bool {
        matches!(self.role, Role::Field)
    }

    /// The wire type's name as written in schemas (`int64`, `str32`, `fixarray`, `int`).
    ///
    /// ```
    /// let layout = metalayer_layout::builtin("b2nd_v1").unwrap().layout().unwrap();
    /// assert_eq!(layout.root_record().unwrap().entries[2].wire_name(&layout), "fixarray");
    /// ```
    pub fn wire_name(&self, layout: &Layout) -> String {
        self.node.wire_name(layout)
    }
}

impl Node {
    /// The wire type's name as written in schemas: a fixed wire type's name, a family's name
    /// for a canonical encoding, a record type's name.
    ///
    /// ```
    /// let layout = metalayer_layout::builtin("b2nd_v1").unwrap().layout().unwrap();
    /// assert_eq!(layout.root.wire_name(&layout), "fixarray");
    /// ```
    pub fn wire_name(&self, layout: &Layout) -> String {
        let enc = |e: &Encoding, family: Family| match e {
            Encoding::Fixed(w) => w.name().to_string(),
            Encoding::Canonical { .. } => family.name().to_string(),
        };
        match &self.ty {
            Type::Nil => "nil".into(),
            Type::Bool => "bool".into(),
            Type::Int(t) => enc(&t.encoding, Family::Int),
            Type::Float(w) => w.name().into(),
            Type::Str(t) => enc(&t.encoding, Family::Str),
            Type::Bin(t) => enc(&t.encoding, Family::Bin),
            Type::Ext(t) => t.wire_name().into(),
            Type::Array(a) => enc(&a.header, Family::Array),
            Type::Map(m) => enc(&m.header, Family::Map),
            Type::Record(r) => enc(&r.header, r.form),
            Type::Ref(i) => layout.types.get(*i).map_or_else(String::new, |t| t.name.clone()),
        }
    }

    /// The fewest bytes a value of this type takes (a canonical integer 1, an array of a
    /// counted length 1 for its header). Decoders use it to refuse a count that the rest of
    /// the input cannot hold before allocating for it.
    ///
    /// ```
    /// let layout = metalayer_layout::builtin("b2nd_v1").unwrap().layout().unwrap();
    /// assert_eq!(layout.root.min_size(&layout), 12);
    /// ```
    pub fn min_size(&self, layout: &Layout) -> usize {
        let header = |e: &Encoding| match e {
            Encoding::Fixed(w) => w.header_size(),
            Encoding::Canonical { .. } => 1,
        };
        match &self.ty {
            Type::Nil | Type::Bool => 1,
            Type::Int(t) => header(&t.encoding),
            Type::Float(w) => w.header_size(),
            Type::Str(t) => header(&t.encoding) + t.len.unwrap_or(0),
            Type::Bin(t) => header(&t.encoding) + t.len.unwrap_or(0),
            Type::Ext(t) => match t.encoding {
                Encoding::Fixed(w) => w.header_size() + w.fixext_len().unwrap_or(0),
                Encoding::Canonical { .. } => 3,
            },
            Type::Array(a) => {
                header(&a.header)
                    + match a.count {
                        Count::Fixed(n) => n.saturating_mul(a.element.min_size(layout)),
                        _ => 0,
                    }
            }
            Type::Map(m) => {
                header(&m.header)
                    + match m.count {
                        Count::Fixed(n) => n.saturating_mul(m.key.min_size(layout) + m.value.min_size(layout)),
                        _ => 0,
                    }
            }
            Type::Record(r) => record_min_size(r, layout),
            Type::Ref(i) => layout.types.get(*i).map_or(1, |t| record_min_size(&t.record, layout)),
        }
    }
}

fn record_min_size(r: &Record, layout: &Layout) -> usize {
    let header = match r.header {
        Encoding::Fixed(w) => w.header_size(),
        Encoding::Canonical { .. } => 1,
    };
    let mut size = header;
    for e in &r.entries[..r.required] {
        size += e.key.as_deref().map_or(0, metalayer_runtime::key_size) + e.node.min_size(layout);
    }
    size
}

/// A named record type: a sub-layout written once and used wherever the schema names it.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordType {
    /// Its name in the schema (`[types.operand]`).
    pub name: String,
    /// The record.
    pub record: Record,
    /// The file it is defined in: an index into [`Layout::files`].
    pub file: usize,
    /// Its table's byte range in that file.
    pub span: Range<usize>,
}

/// How many levels of nested values (records in records, arrays of arrays, maps of maps) the
/// walks over a layout follow: [`Layout::parting`] and [`probes`](crate::probes) stop following
/// record types nested deeper, and [`Size::eval_value`](crate::Size::eval_value) gives up on
/// values nested deeper. The checker refuses a schema whose values nest deeper (a record is a
/// level, and an array or a map one more than its elements), or that has a cycle, so the bound
/// only matters for a model built by hand.
///
/// It bounds walks over a layout, not what is read from a file: the value engine reading
/// metalayers (`metalayer::value`) has its own budget for that.
///
/// ```
/// assert_eq!(metalayer_layout::NESTING_LIMIT, 64);
/// ```
pub const NESTING_LIMIT: usize = 64;

/// A schema file read to build a layout: the schema itself, or one it extends or includes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaFile {
    /// The schema's name (its file stem), or the file's path as the schema names it.
    pub name: String,
    /// The file's path on disk, when it was read from one (built-ins have none).
    pub path: Option<String>,
}

/// A checked layout: one metalayer version.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// The schema's name: its file stem (`b2nd_v1`).
    pub schema: String,
    /// The metalayer's name as stored in a frame (`b2nd`).
    pub metalayer: String,
    /// A one-line description.
    pub description: String,
    /// Where the layout is documented or implemented.
    pub source: String,
    /// The top-level value: a record for most layouts, any type for a single value.
    pub root: Node,
    /// The named record types the layout uses, from this file and the files it includes.
    pub types: Vec<RecordType>,
    /// The files read: the schema first, then those it extends or includes.
    pub files: Vec<SchemaFile>,
}

impl Layout {
    /// The name errors give the top-level value when it is not a record: the metalayer's name
    /// (`in LazyArray`), as a record's entries are named by theirs. `None` for a record, whose
    /// own header is named "the container".
    ///
    /// ```
    /// let lazy = metalayer_layout::builtin("lazyarray_v0").unwrap().layout().unwrap();
    /// assert_eq!(lazy.value_name(), Some("LazyArray"));
    /// let b2nd = metalayer_layout::builtin("b2nd_v1").unwrap().layout().unwrap();
    /// assert_eq!(b2nd.value_name(), None);
    /// ```
    pub fn value_name(&self) -> Option<&str> {
        match self.root_record() {
            Some(_) => None,
            None => Some(&self.metalayer),
        }
    }

    /// The top-level record, if the top-level value is one.
    ///
    /// ```
    /// let layout = metalayer_layout::builtin("b2nd_v1").unwrap().layout().unwrap();
    /// assert_eq!(layout.root_record().unwrap().entries.len(), 7);
    /// ```
    pub fn root_record(&self) -> Option<&Record> {
        match &self.root.ty {
            Type::Record(r) => Some(r),
            Type::Ref(i) => self.types.get(*i).map(|t| &t.record),
            _ => None,
        }
    }

    /// The named record type of that name.
    ///
    /// ```
    /// let layout = metalayer_layout::builtin("b2nd_v1").unwrap().layout().unwrap();
    /// assert!(layout.record_type("operand").is_none());
    /// ```
    pub fn record_type(&self, name: &str) -> Option<&RecordType> {
        self.types.iter().find(|t| t.name == name)
    }
}
