//! A layout's value, read from its bytes by walking the layout model with the runtime's reads:
//! the errors are the ones generated decoders report, byte for byte.

#[allow(unused_imports)]
use crate::std_prelude::*;

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::fmt;

use metalayer_layout::encoding;
use metalayer_layout::{Const, Count, Encoding, Entry, Layout, Node, Record, Role, Type};
use metalayer_runtime::wire::{Family, Wire};
use metalayer_runtime::{DecodeError, DecodeErrorKind, Decoder, Name, Path};
use serde::ser::{self, Serialize, SerializeMap, SerializeSeq, Serializer};

use super::DEPTH_LIMIT;
use super::discard::Discard;
use super::json::{self, Hex};
use super::place::Place;

/// Why bytes do not decode with a layout.
///
/// ```
/// let layout = metalayer::report::builtin("caterva_v0").unwrap();
/// let err = metalayer::value::Typed::new(&layout, &[0x94]).unwrap_err();
/// assert_eq!(err.to_string(), "caterva_v0: at byte 0x00 in the container: expected fixarray marker 0x95, found 0x94");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeFailure {
    /// The bytes break the layout; the message is the one generated decoders give.
    Wire(DecodeError),
    /// A map whose keys are JSON object keys holds one key twice, which a JSON object cannot.
    DuplicateKey {
        /// The schema's name.
        schema: Name,
        /// The offset of the second occurrence.
        offset: usize,
        /// The map.
        path: Path,
        /// The key, as its JSON text.
        key: String,
    },
}

impl From<DecodeError> for DecodeFailure {
    fn from(e: DecodeError) -> Self {
        DecodeFailure::Wire(e)
    }
}

impl fmt::Display for DecodeFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeFailure::Wire(e) => fmt::Display::fmt(e, f),
            DecodeFailure::DuplicateKey {
                schema,
                offset,
                path,
                key,
            } => write!(
                f,
                "{schema}: at byte {offset:#04x} in {path}: expected distinct keys, found {key} again"
            ),
        }
    }
}

impl std::error::Error for DecodeFailure {}

impl DecodeFailure {
    /// The offset of the byte the error is at.
    ///
    /// ```
    /// use metalayer::value::Typed;
    ///
    /// let layout = metalayer::report::builtin("caterva_v0").unwrap();
    /// assert_eq!(Typed::new(&layout, &[0x95, 0x01]).unwrap_err().offset(), 1);
    /// ```
    pub fn offset(&self) -> usize {
        match self {
            DecodeFailure::Wire(e) => e.offset(),
            DecodeFailure::DuplicateKey { offset, .. } => *offset,
        }
    }

    /// The entry path of the error (`shape[1]`).
    pub fn path(&self) -> &Path {
        match self {
            DecodeFailure::Wire(e) => e.path(),
            DecodeFailure::DuplicateKey { path, .. } => path,
        }
    }
}

/// A value of a layout, checked: its bytes hold exactly one value of the layout. It serializes
/// (with [`metalayer::serde::Serialize`]) to the value's JSON form, read from the bytes as it is written,
/// without building the value.
///
/// ```
/// use metalayer::value::Typed;
///
/// let layout = metalayer::report::builtin("caterva_v0").unwrap();
/// let bytes = [
///     0x95, 0x00, 0x01, 0x91, 0xd3, 0, 0, 0, 0, 0, 0, 0, 4,
///     0x91, 0xd2, 0, 0, 0, 2, 0x91, 0xd2, 0, 0, 0, 1,
/// ];
/// let value = Typed::new(&layout, &bytes)?;
/// assert_eq!(
///     metalayer::serde_json::to_value(&value)?,
///     metalayer::serde_json::json!({"version": 0, "ndim": 1, "shape": [4], "chunkshape": [2], "blockshape": [1]})
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Typed<'a> {
    layout: &'a Layout,
    bytes: &'a [u8],
}

/// Decodes all of `bytes` as one value of `layout`, as a [`metalayer::serde_json::Value`].
///
/// ```
/// let layout = metalayer::report::builtin("caterva_v0").unwrap();
/// let err = metalayer::value::to_json_value(&layout, &[0x95, 0x00, 0x01, 0x91, 0xd3]).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "caterva_v0: at byte 0x05 in shape[0]: expected 8 more bytes, found 0"
/// );
/// ```
pub fn to_json_value(layout: &Layout, bytes: &[u8]) -> Result<serde_json::Value, DecodeFailure> {
    let value = Typed::new(layout, bytes)?;
    // A checked view decodes again without an error.
    serde_json::to_value(value).map_err(|_| value.failure())
}

impl<'a> Typed<'a> {
    /// Checks that `bytes` hold exactly one value of `layout`: bytes after it are an error, as
    /// they are for generated decoders.
    pub fn new(layout: &'a Layout, bytes: &'a [u8]) -> Result<Typed<'a>, DecodeFailure> {
        let (value, used) = Typed::prefix(layout, bytes)?;
        if used < bytes.len() {
            // What `Decoder::end` reports.
            let kind = DecodeErrorKind::TrailingBytes {
                count: bytes.len() - used,
            };
            return Err(DecodeError::new(Name::copy_of(layout.schema.as_str()), used, Path::END, kind).into());
        }
        Ok(value)
    }

    /// Checks the one value of `layout` at the start of `bytes`, and returns it with the number
    /// of bytes it takes; the bytes after it are left alone.
    ///
    /// ```
    /// use metalayer::value::Typed;
    ///
    /// let layout = metalayer::report::builtin("lazyarray_v0").unwrap();
    /// let (value, used) = Typed::prefix(&layout, &[0x00, 0xc0])?;
    /// assert_eq!((metalayer::serde_json::to_string(&value)?, used), ("0".to_owned(), 1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn prefix(layout: &'a Layout, bytes: &'a [u8]) -> Result<(Typed<'a>, usize), DecodeFailure> {
        let reader = Reader::new(layout, bytes);
        let result = reader.root().serialize(Discard);
        let used = reader.d.borrow().position();
        match (result, reader.failure.into_inner()) {
            (_, Some(failure)) => Err(failure),
            (_, None) => Ok((
                Typed {
                    layout,
                    bytes: &bytes[..used],
                },
                used,
            )),
        }
    }

    /// The layout.
    pub fn layout(&self) -> &'a Layout {
        self.layout
    }

    /// The value's bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Whether the value is a record, whose entries [`fields`](Self::fields) gives.
    pub fn is_record(&self) -> bool {
        self.layout.root_record().is_some()
    }

    /// Calls `each` with the name and value of each entry present of a record, in wire order;
    /// returns `Ok(false)` without calling it when the value is not a record.
    ///
    /// ```
    /// use metalayer::value::Typed;
    ///
    /// let layout = metalayer::report::builtin("caterva_v0").unwrap();
    /// let bytes = [
    ///     0x95, 0x00, 0x01, 0x91, 0xd3, 0, 0, 0, 0, 0, 0, 0, 4,
    ///     0x91, 0xd2, 0, 0, 0, 2, 0x91, 0xd2, 0, 0, 0, 1,
    /// ];
    /// let mut lines = Vec::new();
    /// Typed::new(&layout, &bytes)?.fields(|name, value| {
    ///     lines.push(format!("{name} = {}", metalayer::serde_json::to_string(value)?));
    ///     Ok::<(), metalayer::serde_json::Error>(())
    /// })?;
    /// assert_eq!(lines, ["version = 0", "ndim = 1", "shape = [4]", "chunkshape = [2]", "blockshape = [1]"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn fields<E: ser::Error>(
        &self,
        mut each: impl FnMut(&str, &Field<'_, 'a>) -> Result<(), E>,
    ) -> Result<bool, E> {
        let Some(record) = self.layout.root_record() else {
            return Ok(false);
        };
        let reader = Reader::new(self.layout, self.bytes);
        let root = reader.root();
        let present = root.record_header(record, Place::CONTAINER, 0)?;
        root.record_entries(record, present, Place::CONTAINER, 0, |entry, view| {
            each(&entry.name, &Field(view))
        })?;
        Ok(true)
    }

    /// The error a checked value cannot give; kept for the conversions that need one.
    fn failure(&self) -> DecodeFailure {
        let kind = DecodeErrorKind::TrailingBytes { count: 0 };
        DecodeError::new(Name::copy_of(self.layout.schema.as_str()), 0, Path::END, kind).into()
    }
}

impl Serialize for Typed<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Reader::new(self.layout, self.bytes).root().serialize(serializer)
    }
}

/// The value of one entry of a [`Typed`] record, from [`Typed::fields`].
///
/// ```
/// let layout = metalayer::report::builtin("caterva_v0").unwrap();
/// let bytes = [0x95, 0x00, 0x00, 0x90, 0x90, 0x90];
/// let mut names = Vec::new();
/// metalayer::value::Typed::new(&layout, &bytes)?.fields(|name, field| {
///     names.push(format!("{name}={}", metalayer::serde_json::to_string(field)?));
///     Ok::<(), metalayer::serde_json::Error>(())
/// })?;
/// assert_eq!(names, ["version=0", "ndim=0", "shape=[]", "chunkshape=[]", "blockshape=[]"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Field<'r, 'a>(View<'r, 'a>);

impl Serialize for Field<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

/// The role of map keys, array elements and top-level values.
static FIELD: Role = Role::Field;

/// Big-endian bytes as an unsigned number.
fn be(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0, |v, &b| (v << 8) | u64::from(b))
}

/// One walk over a value's bytes: the decoder, and the first failure met.
struct Reader<'a> {
    layout: &'a Layout,
    d: RefCell<Decoder<'a>>,
    failure: RefCell<Option<DecodeFailure>>,
    /// The last integer read, for the counts of a record's later entries.
    last_int: Cell<Option<i128>>,
}

impl<'a> Reader<'a> {
    fn new(layout: &'a Layout, input: &'a [u8]) -> Reader<'a> {
        Reader {
            layout,
            // The errors are made again with the layout's names (see `read`).
            d: RefCell::new(Decoder::new(input, "")),
            failure: RefCell::new(None),
            last_int: Cell::new(None),
        }
    }

    fn root(&self) -> View<'_, 'a> {
        let path = match self.layout.value_name() {
            Some(name) => Place::entry(name),
            None => Place::CONTAINER,
        };
        View {
            r: self,
            node: &self.layout.root,
            role: &FIELD,
            path,
            depth: 0,
            siblings: None,
            entry: false,
        }
    }

    /// Keeps the first failure, and stops the walk with a serializer's error.
    fn fail<E: ser::Error>(&self, failure: impl Into<DecodeFailure>) -> E {
        let mut slot = self.failure.borrow_mut();
        let failure = slot.get_or_insert(failure.into());
        E::custom(&*failure)
    }

    /// Runs one read of the decoder at `place`. The read is given the container as its path,
    /// and a nameless schema: its error, if any, is made again here with the layout's schema
    /// name and the place's path, copied (the walk itself copies no name).
    fn read<T, E: ser::Error>(
        &self,
        place: Place<'a>,
        f: impl FnOnce(&mut Decoder<'a>, &Path) -> Result<T, DecodeError>,
    ) -> Result<T, E> {
        let result = f(&mut self.d.borrow_mut(), &Path::CONTAINER);
        result.map_err(|e| {
            let path = e.path().clone().within(place.to_path());
            let e = DecodeError::new(self.schema(), e.offset(), path, e.kind().clone());
            self.fail(e)
        })
    }

    /// The schema's name, for an error.
    fn schema(&self) -> Name {
        Name::copy_of(self.layout.schema.as_str())
    }
}

/// The entries of the record being read and the counts read so far, for the arrays and maps
/// whose count is an earlier entry.
#[derive(Clone, Copy)]
struct Siblings<'r, 'a> {
    entries: &'a [Entry],
    counts: &'r [Cell<Option<usize>>],
}

impl<'a> Siblings<'_, 'a> {
    /// The count held by entry `index`, and its name for messages.
    fn count(self, index: usize) -> (usize, &'a str) {
        let value = self.counts.get(index).and_then(Cell::get).unwrap_or(0);
        let name = self.entries.get(index).map_or("", |e| e.name.as_str());
        (value, name)
    }
}

/// A str's or bin's bytes as JSON shows them.
enum Text<'a> {
    Str(&'a str),
    Hex(&'a [u8]),
}

impl Serialize for Text<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Text::Str(s) => serializer.serialize_str(s),
            Text::Hex(bytes) => serializer.collect_str(&Hex(bytes)),
        }
    }
}

/// One value of the walk: a node at the decoder's position.
#[derive(Clone, Copy)]
struct View<'r, 'a> {
    r: &'r Reader<'a>,
    node: &'a Node,
    role: &'a Role,
    path: Place<'a>,
    depth: usize,
    /// The entries of the record the node is in, and their counts so far: for the arrays and
    /// maps counted by one of them, the entry's own and those nested in it.
    siblings: Option<Siblings<'r, 'a>>,
    /// Whether the node is an entry's own (not nested in it), which generated code reads in one
    /// piece when it is an array of packed integers.
    entry: bool,
}

impl<'r, 'a> View<'r, 'a> {
    fn at(&self, node: &'a Node, path: Place<'a>) -> View<'r, 'a> {
        View {
            r: self.r,
            node,
            role: &FIELD,
            path,
            depth: self.depth + 1,
            siblings: self.siblings,
            entry: false,
        }
    }

    fn position(&self) -> usize {
        self.r.d.borrow().position()
    }

    /// Refuses to go deeper than [`DEPTH_LIMIT`] levels of arrays, maps and records.
    fn depth<E: ser::Error>(&self, path: Place<'a>) -> Result<(), E> {
        if self.depth >= DEPTH_LIMIT {
            let kind = DecodeErrorKind::Depth { limit: DEPTH_LIMIT };
            return self.r.read(path, |d, p| Err(d.error_at(d.position(), p.clone(), kind)));
        }
        Ok(())
    }

    /// Reads the header of a str or bin and returns its length.
    fn header<E: ser::Error>(&self, encoding: Encoding, family: Family, path: Place<'a>) -> Result<usize, E> {
        self.r.read(path, |d, p| match encoding {
            Encoding::Fixed(w) => d.header(w, p),
            Encoding::Canonical { lenient } => d.any_header(family, !lenient, p),
        })
    }

    /// Reads a str or bin of `node`, a constant's bytes checked.
    fn text<E: ser::Error>(&self, node: &Node, path: Place<'a>) -> Result<Text<'a>, E> {
        let at = self.position();
        let raw = !matches!(&node.ty, Type::Str(t) if !t.raw);
        let Some((encoding, family, fixed)) = node.ty.bytes_layout() else {
            unreachable!("text is read for str and bin nodes")
        };
        let len = self.header(encoding, family, path)?;
        if let Some(k) = fixed {
            self.r.read(path, |d, p| d.length(at, k, len, p))?;
        }
        let start = self.position();
        let bytes = self.r.read(path, |d, p| d.bytes(len, p))?;
        if let Role::Const(Const::Bytes(expected)) = self.role {
            self.r.read(path, |d, p| constant_bytes(d, at, bytes, expected, p))?;
        }
        if raw {
            Ok(Text::Hex(bytes))
        } else {
            Ok(Text::Str(self.r.read(path, |d, p| d.utf8(bytes, start, p))?))
        }
    }

    /// Reads the header of an array or map and checks its count against the schema's.
    fn count<E: ser::Error>(
        &self,
        encoding: Encoding,
        family: Family,
        count: &Count,
        path: Place<'a>,
    ) -> Result<usize, E> {
        let at = self.position();
        let expected = match (count, self.siblings) {
            (Count::Entry(c), Some(s)) => Some(s.count(*c)),
            (Count::Fixed(n), _) => Some((*n, "")),
            _ => None,
        };
        if let (Encoding::Fixed(Wire::FixArray), Count::Entry(_), Some((n, name))) = (encoding, count, expected) {
            // c-blosc2 writes `0x90 + count`, 0xa0 for 16 elements; the schema says so.
            self.r
                .read(path, |d, p| d.array_header(n, "", p).map_err(|e| named(e, name)))?;
            return Ok(n);
        }
        let found = self.header(encoding, family, path)?;
        if let Some((n, name)) = expected {
            self.r
                .read(path, |d, p| d.count(at, n, found, "", p).map_err(|e| named(e, name)))?;
        }
        Ok(found)
    }

    /// Reads a record's header: how many entries are present.
    fn record_header<E: ser::Error>(&self, r: &Record, path: Place<'a>, depth: usize) -> Result<usize, E> {
        View { depth, ..*self }.depth(path)?;
        let at = self.position();
        let total = r.entries.len();
        self.r
            .read(path, |d, p| match r.header {
                // One marker states every entry: the schema names it, as generated code checks it.
                Encoding::Fixed(w) if w.marker().is_none() && r.required == total => {
                    d.marker(w.markers().0.wrapping_add(total as u8), w.name(), p)?;
                    Ok(total)
                }
                Encoding::Fixed(w) => {
                    let n = d.header(w, p)?;
                    d.entries(at, n, r.required, total, p)?;
                    Ok(n)
                }
                Encoding::Canonical { lenient } => {
                    let n = d.any_header(r.form, !lenient, p)?;
                    d.entries(at, n, r.required, total, p)?;
                    Ok(n)
                }
            })
            .and_then(|n| {
                for (i, j) in r.together() {
                    let (first, last) = (&r.entries[i].name, &r.entries[j].name);
                    self.r.read(path, |d, p| {
                        d.together(at, n, (i, ""), (j, ""), p).map_err(|e| match e.kind() {
                            DecodeErrorKind::Together { found, .. } => {
                                let kind = DecodeErrorKind::Together {
                                    first: Name::copy_of(first.as_str()),
                                    last: Name::copy_of(last.as_str()),
                                    found: *found,
                                };
                                DecodeError::new("", e.offset(), e.path().clone(), kind)
                            }
                            _ => e,
                        })
                    })?;
                }
                Ok(n)
            })
    }

    /// Reads the `present` entries of a record, keys included, handing each value to `each`.
    fn record_entries<E: ser::Error>(
        &self,
        r: &'a Record,
        present: usize,
        path: Place<'a>,
        depth: usize,
        mut each: impl FnMut(&'a Entry, View<'_, 'a>) -> Result<(), E>,
    ) -> Result<(), E> {
        let counts: Vec<Cell<Option<usize>>> = vec![Cell::new(None); r.entries.len()];
        for (i, entry) in r.entries.iter().enumerate().take(present) {
            let entry_path = path.child(&entry.name);
            if let Some(key) = &entry.key {
                self.r.read(entry_path, |d, p| {
                    // What `Decoder::key` reads and checks.
                    let at = d.position();
                    let len = d.any_header(Family::Str, true, p)?;
                    if d.bytes(len, p)? != key.as_bytes() {
                        let kind = DecodeErrorKind::Key {
                            expected: Name::copy_of(key.as_str()),
                        };
                        return Err(d.error_at(at, p.clone(), kind));
                    }
                    Ok(())
                })?;
            }
            let view = View {
                r: self.r,
                node: &entry.node,
                role: &entry.role,
                path: entry_path,
                depth: depth + 1,
                siblings: Some(Siblings {
                    entries: &r.entries,
                    counts: &counts,
                }),
                entry: true,
            };
            self.r.last_int.set(None);
            each(entry, view)?;
            if let Role::Count { .. } = entry.role {
                // A count's min is at least 0 and its max fits its wire type.
                counts[i].set(self.r.last_int.get().and_then(|v| usize::try_from(v).ok()));
            }
        }
        Ok(())
    }

    fn record<S: Serializer>(&self, r: &'a Record, serializer: S) -> Result<S::Ok, S::Error> {
        let present = self.record_header(r, self.path, self.depth)?;
        let mut map = serializer.serialize_map(Some(present))?;
        self.record_entries(r, present, self.path, self.depth, |entry, view| {
            map.serialize_entry(entry.name.as_str(), &view)
        })?;
        map.end()
    }

    fn int<S: Serializer>(&self, t: &metalayer_layout::IntType, serializer: S) -> Result<S::Ok, S::Error> {
        let (at, path) = (self.position(), self.path);
        let value = self.r.read(path, |d, p| {
            Ok(match t.encoding {
                Encoding::Fixed(Wire::PosFixInt) => i128::from(d.fixint(p)?),
                Encoding::Fixed(Wire::NegFixInt) => i128::from(d.neg_fixint(p)?),
                Encoding::Fixed(w) => {
                    d.marker(w.marker().unwrap_or(0), w.name(), p)?;
                    let raw = be(d.bytes(w.width(), p)?);
                    if w.is_signed() {
                        // Sign-extend the payload of its width.
                        let shift = 64 - 8 * w.width() as u32;
                        i128::from(((raw << shift) as i64) >> shift)
                    } else {
                        i128::from(raw)
                    }
                }
                Encoding::Canonical { lenient } => d.any_int(!lenient, p)?,
            })
        })?;
        self.r.read(path, |d, p| {
            if let Role::Const(Const::Int(expected)) = self.role {
                d.constant(at, value, *expected, p)
            } else {
                d.range(at, value, t.min, t.max, p)?;
                if !t.values.is_empty() {
                    let values: Vec<i128> = t.values.iter().map(|(_, v)| *v).collect();
                    d.named(at, value, &values, "", p)
                        .map_err(|e| named(e, &super::named_values(t)))?;
                }
                Ok(())
            }
        })?;
        self.r.last_int.set(Some(value));
        json::serialize_int(value, serializer)
    }

    fn array<S: Serializer>(&self, a: &'a metalayer_layout::ArrayType, serializer: S) -> Result<S::Ok, S::Error> {
        self.depth(self.path)?;
        let len = self.count(a.header, Family::Array, &a.count, self.path)?;
        if a.packed_ints().is_none() || !self.entry {
            // Generated decoders check the room for every element first, but for arrays read
            // in one piece, whose errors are those of reading element by element.
            let min = a.element.min_size(self.r.layout);
            self.r.read(self.path, |d, p| d.fits(len, min, p))?;
        }
        let mut seq = serializer.serialize_seq(Some(len))?;
        for i in 0..len {
            seq.serialize_element(&self.at(&a.element, self.path.index(i)))?;
        }
        seq.end()
    }

    fn map<S: Serializer>(&self, m: &'a metalayer_layout::MapType, serializer: S) -> Result<S::Ok, S::Error> {
        let path = self.path;
        self.depth(path)?;
        let len = self.count(m.header, Family::Map, &m.count, path)?;
        let min = m.key.min_size(self.r.layout) + m.value.min_size(self.r.layout);
        self.r.read(path, |d, p| d.fits(len, min, p))?;
        if super::keys_are_text(&m.key) {
            let mut map = serializer.serialize_map(Some(len))?;
            let mut seen: HashSet<&'a [u8]> = HashSet::new();
            for i in 0..len {
                let key_at = self.position();
                let key = self.at(&m.key, path.index(i)).text(&m.key, path.index(i))?;
                let raw = match key {
                    Text::Str(s) => s.as_bytes(),
                    Text::Hex(b) => b,
                };
                if !seen.insert(raw) {
                    let shown = match key {
                        Text::Str(s) => serde_json::Value::String(s.to_owned()).to_string(),
                        Text::Hex(b) => format!("\"{}\"", Hex(b)),
                    };
                    return Err(self.r.fail(DecodeFailure::DuplicateKey {
                        schema: self.r.schema(),
                        offset: key_at,
                        path: path.to_path(),
                        key: shown,
                    }));
                }
                map.serialize_key(&key)?;
                map.serialize_value(&self.at(&m.value, path.index(i)))?;
            }
            map.end()
        } else {
            let mut pairs = serializer.serialize_seq(Some(len))?;
            for i in 0..len {
                pairs.serialize_element(&Pair {
                    key: self.at(&m.key, path.index(i)),
                    value: self.at(&m.value, path.index(i)),
                })?;
            }
            pairs.end()
        }
    }
}

/// A `[key, value]` pair of a map whose keys are not strings.
struct Pair<'r, 'a> {
    key: View<'r, 'a>,
    value: View<'r, 'a>,
}

impl Serialize for Pair<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(2))?;
        seq.serialize_element(&self.key)?;
        seq.serialize_element(&self.value)?;
        seq.end()
    }
}

impl Serialize for View<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (r, path) = (self.r, self.path);
        let at = self.position();
        match &self.node.ty {
            Type::Nil => {
                r.read(path, |d, p| d.nil(p))?;
                serializer.serialize_unit()
            }
            Type::Bool => {
                let value = r.read(path, |d, p| d.bool(p))?;
                if let Role::Const(Const::Bool(expected)) = self.role {
                    r.read(path, |d, p| d.constant(at, i128::from(value), i128::from(*expected), p))?;
                }
                serializer.serialize_bool(value)
            }
            Type::Int(t) => self.int(t, serializer),
            Type::Float(w) => {
                let payload = r.read(path, |d, p| {
                    d.marker(w.marker().unwrap_or(0), w.name(), p)?;
                    d.bytes(w.width(), p)
                })?;
                if let Role::Const(c @ Const::Float(_)) = self.role {
                    let expected = encoding::const_payload(self.node, c);
                    r.read(path, |d, p| constant_bytes(d, at, payload, &expected, p))?;
                }
                let bits = be(payload);
                if *w == Wire::Float32 {
                    json::serialize_f32(f32::from_bits(bits as u32), serializer)
                } else {
                    json::serialize_f64(f64::from_bits(bits), serializer)
                }
            }
            Type::Str(_) | Type::Bin(_) => self.text(self.node, path)?.serialize(serializer),
            Type::Ext(t) if t.timestamp => {
                let smallest = !matches!(t.encoding, Encoding::Canonical { lenient: true });
                let time = r.read(path, |d, p| d.timestamp(t.encoding.wire(), smallest, p))?;
                serializer.serialize_str(&super::timestamp_text(time))
            }
            Type::Ext(t) => {
                let (ty, len) = r.read(path, |d, p| match t.encoding {
                    Encoding::Fixed(w) => d.ext_header(w, p),
                    Encoding::Canonical { lenient } => d.any_ext_header(!lenient, p),
                })?;
                if let Some(expected) = t.ext_type {
                    r.read(path, |d, p| d.ext_type(at, ty, expected, p))?;
                }
                let data = r.read(path, |d, p| d.bytes(len, p))?;
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("type", &ty)?;
                map.serialize_entry("hex", &Hex(data))?;
                map.end()
            }
            Type::Array(a) => self.array(a, serializer),
            Type::Map(m) => self.map(m, serializer),
            Type::Record(rec) => self.record(rec, serializer),
            Type::Ref(i) => match r.layout.types.get(*i) {
                Some(t) => self.record(&t.record, serializer),
                // A checked layout's references all resolve.
                None => unreachable!("record type {i} is not in the layout"),
            },
        }
    }
}

/// What `Decoder::constant_bytes` checks, of a constant that is the layout's.
fn constant_bytes(d: &Decoder<'_>, at: usize, found: &[u8], expected: &[u8], path: &Path) -> Result<(), DecodeError> {
    if found != expected {
        let kind = DecodeErrorKind::ConstantBytes {
            expected: Name::copy_of(expected),
        };
        return Err(d.error_at(at, path.clone(), kind));
    }
    Ok(())
}

/// An error of the runtime's checks, made with an empty name for the entry that holds a
/// count or for the named values, given `name` instead: the layout's, copied.
fn named(e: DecodeError, name: &str) -> DecodeError {
    let name = || Name::copy_of(name);
    let kind = match e.kind().clone() {
        DecodeErrorKind::ArrayHeader {
            count, expected, found, ..
        } => DecodeErrorKind::ArrayHeader {
            count_entry: name(),
            count,
            expected,
            found,
        },
        DecodeErrorKind::Count { expected, found, .. } => DecodeErrorKind::Count {
            count_entry: name(),
            expected,
            found,
        },
        DecodeErrorKind::NotNamed { found, .. } => DecodeErrorKind::NotNamed { names: name(), found },
        _ => return e,
    };
    DecodeError::new("", e.offset(), e.path().clone(), kind)
}
