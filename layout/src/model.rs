//! The layout model: one checked schema, the single description that code generation, the
//! decoders' errors and the documentation are all derived from.

use core::ops::Range;

/// An integer wire type: a positive fixint, or a marker byte followed by a big-endian payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntWire {
    /// Positive fixint: one byte, 0x00..=0x7f, which is its own value.
    FixInt,
    /// `0xd0` + 1 byte.
    Int8,
    /// `0xd1` + 2 bytes.
    Int16,
    /// `0xd2` + 4 bytes.
    Int32,
    /// `0xd3` + 8 bytes.
    Int64,
    /// `0xcc` + 1 byte.
    UInt8,
    /// `0xcd` + 2 bytes.
    UInt16,
    /// `0xce` + 4 bytes.
    UInt32,
    /// `0xcf` + 8 bytes.
    UInt64,
}

impl IntWire {
    /// Every integer wire type.
    pub const ALL: [IntWire; 9] = [
        IntWire::FixInt,
        IntWire::Int8,
        IntWire::Int16,
        IntWire::Int32,
        IntWire::Int64,
        IntWire::UInt8,
        IntWire::UInt16,
        IntWire::UInt32,
        IntWire::UInt64,
    ];

    /// The name used in schema files (`int64`).
    ///
    /// ```
    /// assert_eq!(metalayer_layout::IntWire::Int64.name(), "int64");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            IntWire::FixInt => "fixint",
            IntWire::Int8 => "int8",
            IntWire::Int16 => "int16",
            IntWire::Int32 => "int32",
            IntWire::Int64 => "int64",
            IntWire::UInt8 => "uint8",
            IntWire::UInt16 => "uint16",
            IntWire::UInt32 => "uint32",
            IntWire::UInt64 => "uint64",
        }
    }

    /// The wire type of a schema-file name.
    ///
    /// ```
    /// use metalayer_layout::IntWire;
    ///
    /// assert_eq!(IntWire::from_name("uint16"), Some(IntWire::UInt16));
    /// assert_eq!(IntWire::from_name("i64"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<IntWire> {
        IntWire::ALL.into_iter().find(|w| w.name() == name)
    }

    /// The marker byte, or `None` for a fixint, whose byte is its value.
    ///
    /// ```
    /// use metalayer_layout::IntWire;
    ///
    /// assert_eq!(IntWire::Int32.marker(), Some(0xd2));
    /// assert_eq!(IntWire::FixInt.marker(), None);
    /// ```
    pub const fn marker(self) -> Option<u8> {
        match self {
            IntWire::FixInt => None,
            IntWire::Int8 => Some(0xd0),
            IntWire::Int16 => Some(0xd1),
            IntWire::Int32 => Some(0xd2),
            IntWire::Int64 => Some(0xd3),
            IntWire::UInt8 => Some(0xcc),
            IntWire::UInt16 => Some(0xcd),
            IntWire::UInt32 => Some(0xce),
            IntWire::UInt64 => Some(0xcf),
        }
    }

    /// The payload width in bytes after the marker (0 for a fixint).
    ///
    /// ```
    /// assert_eq!(metalayer_layout::IntWire::Int64.width(), 8);
    /// ```
    pub const fn width(self) -> usize {
        match self {
            IntWire::FixInt => 0,
            IntWire::Int8 | IntWire::UInt8 => 1,
            IntWire::Int16 | IntWire::UInt16 => 2,
            IntWire::Int32 | IntWire::UInt32 => 4,
            IntWire::Int64 | IntWire::UInt64 => 8,
        }
    }

    /// The encoded size: marker and payload (1 for a fixint).
    ///
    /// ```
    /// assert_eq!(metalayer_layout::IntWire::Int32.size(), 5);
    /// assert_eq!(metalayer_layout::IntWire::FixInt.size(), 1);
    /// ```
    pub const fn size(self) -> usize {
        match self {
            IntWire::FixInt => 1,
            other => 1 + other.width(),
        }
    }

    /// The values the wire type holds.
    ///
    /// ```
    /// assert_eq!(metalayer_layout::IntWire::FixInt.range(), (0, 127));
    /// ```
    pub const fn range(self) -> (i128, i128) {
        match self {
            IntWire::FixInt => (0, 0x7f),
            IntWire::Int8 => (i8::MIN as i128, i8::MAX as i128),
            IntWire::Int16 => (i16::MIN as i128, i16::MAX as i128),
            IntWire::Int32 => (i32::MIN as i128, i32::MAX as i128),
            IntWire::Int64 => (i64::MIN as i128, i64::MAX as i128),
            IntWire::UInt8 => (0, u8::MAX as i128),
            IntWire::UInt16 => (0, u16::MAX as i128),
            IntWire::UInt32 => (0, u32::MAX as i128),
            IntWire::UInt64 => (0, u64::MAX as i128),
        }
    }

    /// The Rust integer of the wire type's width (`u8` for a fixint).
    ///
    /// ```
    /// assert_eq!(metalayer_layout::IntWire::Int64.rust_type(), "i64");
    /// ```
    pub const fn rust_type(self) -> &'static str {
        match self {
            IntWire::FixInt | IntWire::UInt8 => "u8",
            IntWire::Int8 => "i8",
            IntWire::Int16 => "i16",
            IntWire::Int32 => "i32",
            IntWire::Int64 => "i64",
            IntWire::UInt16 => "u16",
            IntWire::UInt32 => "u32",
            IntWire::UInt64 => "u64",
        }
    }
}

/// A string wire type: marker, big-endian length prefix, UTF-8 bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StrWire {
    /// `0xd9` + 1-byte length.
    Str8,
    /// `0xda` + 2-byte length.
    Str16,
    /// `0xdb` + 4-byte length.
    Str32,
}

impl StrWire {
    /// Every string wire type.
    pub const ALL: [StrWire; 3] = [StrWire::Str8, StrWire::Str16, StrWire::Str32];

    /// The name used in schema files (`str32`).
    ///
    /// ```
    /// assert_eq!(metalayer_layout::StrWire::Str32.name(), "str32");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            StrWire::Str8 => "str8",
            StrWire::Str16 => "str16",
            StrWire::Str32 => "str32",
        }
    }

    /// The wire type of a schema-file name.
    ///
    /// ```
    /// assert_eq!(metalayer_layout::StrWire::from_name("str8"), Some(metalayer_layout::StrWire::Str8));
    /// ```
    pub fn from_name(name: &str) -> Option<StrWire> {
        StrWire::ALL.into_iter().find(|w| w.name() == name)
    }

    /// The marker byte.
    ///
    /// ```
    /// assert_eq!(metalayer_layout::StrWire::Str32.marker(), 0xdb);
    /// ```
    pub const fn marker(self) -> u8 {
        match self {
            StrWire::Str8 => 0xd9,
            StrWire::Str16 => 0xda,
            StrWire::Str32 => 0xdb,
        }
    }

    /// The width of the length prefix in bytes.
    ///
    /// ```
    /// assert_eq!(metalayer_layout::StrWire::Str32.width(), 4);
    /// ```
    pub const fn width(self) -> usize {
        match self {
            StrWire::Str8 => 1,
            StrWire::Str16 => 2,
            StrWire::Str32 => 4,
        }
    }

    /// The longest string, in bytes, the length prefix can state.
    ///
    /// ```
    /// assert_eq!(metalayer_layout::StrWire::Str8.max_len(), 255);
    /// ```
    pub const fn max_len(self) -> u64 {
        match self {
            StrWire::Str8 => u8::MAX as u64,
            StrWire::Str16 => u16::MAX as u64,
            StrWire::Str32 => u32::MAX as u64,
        }
    }
}

/// What an integer entry's value is: given by the user, a constant, or an array length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IntRole {
    /// A value the user provides, in `min..=max` (the wire type's range unless the schema narrows it).
    Value {
        /// The smallest allowed value.
        min: i128,
        /// The largest allowed value.
        max: i128,
    },
    /// A constant, written on encode and checked on decode.
    Const {
        /// The constant.
        value: i128,
    },
    /// The length of one or more arrays, derived on encode and checked on decode.
    Count {
        /// The smallest allowed length.
        min: usize,
        /// The largest allowed length.
        max: usize,
        /// Indices of the arrays it counts, in entry order.
        arrays: Vec<usize>,
    },
}

/// What an entry holds on the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryKind {
    /// An integer.
    Int {
        /// Its wire type.
        wire: IntWire,
        /// Where its value comes from.
        role: IntRole,
    },
    /// A string.
    Str {
        /// Its wire type.
        wire: StrWire,
    },
    /// An array: header byte `0x90 + count`, then `count` integers of one wire type.
    Array {
        /// The elements' wire type.
        element: IntWire,
        /// Index of the integer entry that holds the count.
        count: usize,
        /// Why the schema lets the header leave the fixarray range (0x90..=0x9f), if it does.
        header_overflow: Option<String>,
    },
}

/// One entry of a layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The entry's name, which is also the Rust field's name.
    pub name: String,
    /// What it holds.
    pub kind: EntryKind,
    /// The schema's one-line description of the entry, if any.
    pub doc: Option<String>,
    /// The byte range of the entry's table in the schema file.
    pub span: Range<usize>,
}

impl Entry {
    /// Whether the user supplies this entry's value as a struct field (constants and counts are
    /// derived instead).
    ///
    /// ```
    /// let layout = metalayer_layout::builtin_layout("b2nd_v1").unwrap();
    /// let fields: Vec<_> = layout.entries.iter().filter(|e| e.is_field()).map(|e| e.name.as_str()).collect();
    /// assert_eq!(fields, ["shape", "chunkshape", "blockshape", "dtype_format", "dtype"]);
    /// ```
    pub fn is_field(&self) -> bool {
        !matches!(
            self.kind,
            EntryKind::Int {
                role: IntRole::Const { .. } | IntRole::Count { .. },
                ..
            }
        )
    }

    /// The wire type's name as written in schemas (`int64`, `str32`, `array`).
    ///
    /// ```
    /// let layout = metalayer_layout::builtin_layout("b2nd_v1").unwrap();
    /// assert_eq!(layout.entries[2].wire_name(), "array");
    /// ```
    pub fn wire_name(&self) -> &'static str {
        match &self.kind {
            EntryKind::Int { wire, .. } => wire.name(),
            EntryKind::Str { wire } => wire.name(),
            EntryKind::Array { .. } => "array",
        }
    }
}

/// A checked layout: the container and the ordered entries of one metalayer version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The schema's name: its file stem (`b2nd_v1`).
    pub schema: String,
    /// The metalayer's name as stored in a frame (`b2nd`).
    pub metalayer: String,
    /// A one-line description.
    pub description: String,
    /// Where the layout is documented or implemented.
    pub source: String,
    /// The top-level fixarray marker, `0x90 + entries.len()`.
    pub container_marker: u8,
    /// The entries, in wire order.
    pub entries: Vec<Entry>,
}

impl Layout {
    /// The entry of that name.
    ///
    /// ```
    /// let layout = metalayer_layout::builtin_layout("caterva_v0").unwrap();
    /// assert_eq!(layout.entry("ndim").unwrap().name, "ndim");
    /// assert!(layout.entry("dtype").is_none());
    /// ```
    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }

    /// The bytes the layout accepts at each offset of its fixed prefix: from the container
    /// marker up to and including the header of the first entry whose size depends on a value
    /// (an array's header byte, a string's length prefix). Dispatch tells layouts apart with it.
    ///
    /// ```
    /// let layout = metalayer_layout::builtin_layout("b2nd_v1").unwrap();
    /// // container 0x97, version 0, ndim 0..=16, shape header 0x90..=0xa0
    /// assert_eq!(layout.fixed_prefix(), [(0x97, 0x97), (0, 0), (0, 16), (0x90, 0xa0)]);
    /// ```
    pub fn fixed_prefix(&self) -> Vec<(u8, u8)> {
        let byte = |v: i128| v.clamp(0, 0xff) as u8;
        let mut prefix = vec![(self.container_marker, self.container_marker)];
        for entry in &self.entries {
            match &entry.kind {
                EntryKind::Int { wire, role } => match wire.marker() {
                    None => prefix.push(match role {
                        IntRole::Const { value } => (byte(*value), byte(*value)),
                        IntRole::Value { min, max } => (byte(*min), byte(*max)),
                        IntRole::Count { min, max, .. } => (byte(*min as i128), byte(*max as i128)),
                    }),
                    Some(marker) => {
                        prefix.push((marker, marker));
                        match role {
                            IntRole::Const { value } => {
                                let bytes = value.to_be_bytes();
                                prefix.extend(bytes[16 - wire.width()..].iter().map(|&b| (b, b)));
                            }
                            _ => prefix.extend(core::iter::repeat_n((0, 0xff), wire.width())),
                        }
                    }
                },
                EntryKind::Str { wire } => {
                    prefix.push((wire.marker(), wire.marker()));
                    prefix.extend(core::iter::repeat_n((0, 0xff), wire.width()));
                    break;
                }
                EntryKind::Array { count, .. } => {
                    let (min, max) = match &self.entries[*count].kind {
                        EntryKind::Int {
                            role: IntRole::Count { min, max, .. },
                            ..
                        } => (*min, *max),
                        _ => (0, 0x6f),
                    };
                    prefix.push((byte(0x90 + min as i128), byte(0x90 + max as i128)));
                    break;
                }
            }
        }
        prefix
    }
}
