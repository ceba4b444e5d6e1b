//! The msgpack wire types: every marker byte, width and limit, written once. The schema checker,
//! the code generator, the generated code and the frame reader all take them from here.

/// The msgpack type families a wire type belongs to.
///
/// ```
/// use metalayer_runtime::wire::{Family, Wire};
///
/// assert_eq!(Wire::Int32.family(), Family::Int);
/// assert_eq!(Family::Str.name(), "str");
/// ```
/// msgpack's families are fixed by its specification, so the enum is exhaustive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// `nil`.
    Nil,
    /// `true` and `false`.
    Bool,
    /// Integers: fixints, int8..int64, uint8..uint64.
    Int,
    /// float32 and float64.
    Float,
    /// UTF-8 strings (or raw bytes in a str container).
    Str,
    /// Byte strings.
    Bin,
    /// Arrays.
    Array,
    /// Maps.
    Map,
    /// Extension types: a type byte and data.
    Ext,
}

impl Family {
    /// Every family.
    pub const ALL: [Family; 9] = [
        Family::Nil,
        Family::Bool,
        Family::Int,
        Family::Float,
        Family::Str,
        Family::Bin,
        Family::Array,
        Family::Map,
        Family::Ext,
    ];

    /// The family's name, which is also the schema-file name of its canonical wire type
    /// (`int`, `str`, `array`).
    ///
    /// ```
    /// assert_eq!(metalayer_runtime::wire::Family::Map.name(), "map");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Family::Nil => "nil",
            Family::Bool => "bool",
            Family::Int => "int",
            Family::Float => "float",
            Family::Str => "str",
            Family::Bin => "bin",
            Family::Array => "array",
            Family::Map => "map",
            Family::Ext => "ext",
        }
    }

    /// The family of a schema-file name.
    ///
    /// ```
    /// use metalayer_runtime::wire::Family;
    ///
    /// assert_eq!(Family::from_name("bin"), Some(Family::Bin));
    /// assert_eq!(Family::from_name("blob"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The wire types of the family, smallest first.
    ///
    /// ```
    /// use metalayer_runtime::wire::{Family, Wire};
    ///
    /// assert_eq!(Family::Array.wires(), [Wire::FixArray, Wire::Array16, Wire::Array32]);
    /// ```
    pub const fn wires(self) -> &'static [Wire] {
        match self {
            Family::Nil => &[Wire::Nil],
            Family::Bool => &[Wire::Bool],
            Family::Int => &[
                Wire::PosFixInt,
                Wire::NegFixInt,
                Wire::UInt8,
                Wire::UInt16,
                Wire::UInt32,
                Wire::UInt64,
                Wire::Int8,
                Wire::Int16,
                Wire::Int32,
                Wire::Int64,
            ],
            Family::Float => &[Wire::Float32, Wire::Float64],
            Family::Str => &[Wire::FixStr, Wire::Str8, Wire::Str16, Wire::Str32],
            Family::Bin => &[Wire::Bin8, Wire::Bin16, Wire::Bin32],
            Family::Array => &[Wire::FixArray, Wire::Array16, Wire::Array32],
            Family::Map => &[Wire::FixMap, Wire::Map16, Wire::Map32],
            Family::Ext => &[
                Wire::FixExt1,
                Wire::FixExt2,
                Wire::FixExt4,
                Wire::FixExt8,
                Wire::FixExt16,
                Wire::Ext8,
                Wire::Ext16,
                Wire::Ext32,
            ],
        }
    }
}

/// One msgpack wire type: what its marker byte is, what follows, and what it can hold.
///
/// ```
/// use metalayer_runtime::wire::Wire;
///
/// assert_eq!(Wire::from_name("str32"), Some(Wire::Str32));
/// assert_eq!(Wire::Str32.markers(), (0xdb, 0xdb));
/// assert_eq!(Wire::Str32.width(), 4);
/// assert_eq!(Wire::of_marker(0xa3), Some(Wire::FixStr));
/// ```
/// msgpack's wire types are fixed by its specification, so the enum is exhaustive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Wire {
    /// `0xc0`.
    Nil,
    /// `0xc2` false, `0xc3` true.
    Bool,
    /// `0x00..=0x7f`: the byte is the value.
    PosFixInt,
    /// `0xe0..=0xff`: the byte is the value, -32..=-1.
    NegFixInt,
    /// `0xcc` + 1 byte.
    UInt8,
    /// `0xcd` + 2 bytes.
    UInt16,
    /// `0xce` + 4 bytes.
    UInt32,
    /// `0xcf` + 8 bytes.
    UInt64,
    /// `0xd0` + 1 byte.
    Int8,
    /// `0xd1` + 2 bytes.
    Int16,
    /// `0xd2` + 4 bytes.
    Int32,
    /// `0xd3` + 8 bytes.
    Int64,
    /// `0xca` + 4 bytes, IEEE 754 single precision.
    Float32,
    /// `0xcb` + 8 bytes, IEEE 754 double precision.
    Float64,
    /// `0xa0 + len`, len 0..=31, then the bytes.
    FixStr,
    /// `0xd9` + 1-byte length.
    Str8,
    /// `0xda` + 2-byte length.
    Str16,
    /// `0xdb` + 4-byte length.
    Str32,
    /// `0xc4` + 1-byte length.
    Bin8,
    /// `0xc5` + 2-byte length.
    Bin16,
    /// `0xc6` + 4-byte length.
    Bin32,
    /// `0x90 + count`, count 0..=15.
    FixArray,
    /// `0xdc` + 2-byte count.
    Array16,
    /// `0xdd` + 4-byte count.
    Array32,
    /// `0x80 + count`, count 0..=15.
    FixMap,
    /// `0xde` + 2-byte count.
    Map16,
    /// `0xdf` + 4-byte count.
    Map32,
    /// `0xd4`, type byte, 1 byte of data.
    FixExt1,
    /// `0xd5`, type byte, 2 bytes of data.
    FixExt2,
    /// `0xd6`, type byte, 4 bytes of data.
    FixExt4,
    /// `0xd7`, type byte, 8 bytes of data.
    FixExt8,
    /// `0xd8`, type byte, 16 bytes of data.
    FixExt16,
    /// `0xc7`, 1-byte length, type byte, data.
    Ext8,
    /// `0xc8`, 2-byte length, type byte, data.
    Ext16,
    /// `0xc9`, 4-byte length, type byte, data.
    Ext32,
}

/// Marker bytes by name, for code that writes or matches single bytes.
pub mod marker {
    /// `nil`.
    pub const NIL: u8 = 0xc0;
    /// `false`.
    pub const FALSE: u8 = 0xc2;
    /// `true`.
    pub const TRUE: u8 = 0xc3;
    /// The first fixmap marker, `0x80 + count`.
    pub const FIXMAP: u8 = 0x80;
    /// The first fixarray marker, `0x90 + count`.
    pub const FIXARRAY: u8 = 0x90;
    /// The first fixstr marker, `0xa0 + len`.
    pub const FIXSTR: u8 = 0xa0;
    /// The first negative fixint, -32.
    pub const NEGFIXINT: u8 = 0xe0;
    /// bin8.
    pub const BIN8: u8 = 0xc4;
    /// bin16.
    pub const BIN16: u8 = 0xc5;
    /// bin32.
    pub const BIN32: u8 = 0xc6;
    /// ext8.
    pub const EXT8: u8 = 0xc7;
    /// ext16.
    pub const EXT16: u8 = 0xc8;
    /// ext32.
    pub const EXT32: u8 = 0xc9;
    /// float32.
    pub const FLOAT32: u8 = 0xca;
    /// float64.
    pub const FLOAT64: u8 = 0xcb;
    /// uint8.
    pub const UINT8: u8 = 0xcc;
    /// uint16.
    pub const UINT16: u8 = 0xcd;
    /// uint32.
    pub const UINT32: u8 = 0xce;
    /// uint64.
    pub const UINT64: u8 = 0xcf;
    /// int8.
    pub const INT8: u8 = 0xd0;
    /// int16.
    pub const INT16: u8 = 0xd1;
    /// int32.
    pub const INT32: u8 = 0xd2;
    /// int64.
    pub const INT64: u8 = 0xd3;
    /// fixext1.
    pub const FIXEXT1: u8 = 0xd4;
    /// fixext2.
    pub const FIXEXT2: u8 = 0xd5;
    /// fixext4.
    pub const FIXEXT4: u8 = 0xd6;
    /// fixext8.
    pub const FIXEXT8: u8 = 0xd7;
    /// fixext16.
    pub const FIXEXT16: u8 = 0xd8;
    /// str8.
    pub const STR8: u8 = 0xd9;
    /// str16.
    pub const STR16: u8 = 0xda;
    /// str32.
    pub const STR32: u8 = 0xdb;
    /// array16.
    pub const ARRAY16: u8 = 0xdc;
    /// array32.
    pub const ARRAY32: u8 = 0xdd;
    /// map16.
    pub const MAP16: u8 = 0xde;
    /// map32.
    pub const MAP32: u8 = 0xdf;
}

impl Wire {
    /// Every wire type.
    pub const ALL: [Wire; 35] = [
        Wire::Nil,
        Wire::Bool,
        Wire::PosFixInt,
        Wire::NegFixInt,
        Wire::UInt8,
        Wire::UInt16,
        Wire::UInt32,
        Wire::UInt64,
        Wire::Int8,
        Wire::Int16,
        Wire::Int32,
        Wire::Int64,
        Wire::Float32,
        Wire::Float64,
        Wire::FixStr,
        Wire::Str8,
        Wire::Str16,
        Wire::Str32,
        Wire::Bin8,
        Wire::Bin16,
        Wire::Bin32,
        Wire::FixArray,
        Wire::Array16,
        Wire::Array32,
        Wire::FixMap,
        Wire::Map16,
        Wire::Map32,
        Wire::FixExt1,
        Wire::FixExt2,
        Wire::FixExt4,
        Wire::FixExt8,
        Wire::FixExt16,
        Wire::Ext8,
        Wire::Ext16,
        Wire::Ext32,
    ];

    /// The name used in schema files and messages (`int64`, `fixstr`).
    ///
    /// ```
    /// assert_eq!(metalayer_runtime::wire::Wire::PosFixInt.name(), "fixint");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            Wire::Nil => "nil",
            Wire::Bool => "bool",
            Wire::PosFixInt => "fixint",
            Wire::NegFixInt => "negfixint",
            Wire::UInt8 => "uint8",
            Wire::UInt16 => "uint16",
            Wire::UInt32 => "uint32",
            Wire::UInt64 => "uint64",
            Wire::Int8 => "int8",
            Wire::Int16 => "int16",
            Wire::Int32 => "int32",
            Wire::Int64 => "int64",
            Wire::Float32 => "float32",
            Wire::Float64 => "float64",
            Wire::FixStr => "fixstr",
            Wire::Str8 => "str8",
            Wire::Str16 => "str16",
            Wire::Str32 => "str32",
            Wire::Bin8 => "bin8",
            Wire::Bin16 => "bin16",
            Wire::Bin32 => "bin32",
            Wire::FixArray => "fixarray",
            Wire::Array16 => "array16",
            Wire::Array32 => "array32",
            Wire::FixMap => "fixmap",
            Wire::Map16 => "map16",
            Wire::Map32 => "map32",
            Wire::FixExt1 => "fixext1",
            Wire::FixExt2 => "fixext2",
            Wire::FixExt4 => "fixext4",
            Wire::FixExt8 => "fixext8",
            Wire::FixExt16 => "fixext16",
            Wire::Ext8 => "ext8",
            Wire::Ext16 => "ext16",
            Wire::Ext32 => "ext32",
        }
    }

    /// The wire type of a schema-file name.
    ///
    /// ```
    /// use metalayer_runtime::wire::Wire;
    ///
    /// assert_eq!(Wire::from_name("map16"), Some(Wire::Map16));
    /// assert_eq!(Wire::from_name("int"), None); // a family: the canonical encoding
    /// ```
    pub fn from_name(name: &str) -> Option<Wire> {
        Wire::ALL.into_iter().find(|w| w.name() == name)
    }

    /// The family the wire type belongs to.
    ///
    /// ```
    /// use metalayer_runtime::wire::{Family, Wire};
    ///
    /// assert_eq!(Wire::FixExt16.family(), Family::Ext);
    /// ```
    pub const fn family(self) -> Family {
        match self {
            Wire::Nil => Family::Nil,
            Wire::Bool => Family::Bool,
            Wire::PosFixInt
            | Wire::NegFixInt
            | Wire::UInt8
            | Wire::UInt16
            | Wire::UInt32
            | Wire::UInt64
            | Wire::Int8
            | Wire::Int16
            | Wire::Int32
            | Wire::Int64 => Family::Int,
            Wire::Float32 | Wire::Float64 => Family::Float,
            Wire::FixStr | Wire::Str8 | Wire::Str16 | Wire::Str32 => Family::Str,
            Wire::Bin8 | Wire::Bin16 | Wire::Bin32 => Family::Bin,
            Wire::FixArray | Wire::Array16 | Wire::Array32 => Family::Array,
            Wire::FixMap | Wire::Map16 | Wire::Map32 => Family::Map,
            Wire::FixExt1
            | Wire::FixExt2
            | Wire::FixExt4
            | Wire::FixExt8
            | Wire::FixExt16
            | Wire::Ext8
            | Wire::Ext16
            | Wire::Ext32 => Family::Ext,
        }
    }

    /// The marker bytes of the wire type, as an inclusive range: one byte for most, a range for
    /// the types whose marker carries a value or length (`0xa0..=0xbf` for fixstr), both
    /// booleans for bool.
    ///
    /// ```
    /// use metalayer_runtime::wire::Wire;
    ///
    /// assert_eq!(Wire::FixArray.markers(), (0x90, 0x9f));
    /// assert_eq!(Wire::Int64.markers(), (0xd3, 0xd3));
    /// ```
    pub const fn markers(self) -> (u8, u8) {
        use marker::*;
        match self {
            Wire::Nil => (NIL, NIL),
            Wire::Bool => (FALSE, TRUE),
            Wire::PosFixInt => (0x00, 0x7f),
            Wire::NegFixInt => (NEGFIXINT, 0xff),
            Wire::FixStr => (FIXSTR, 0xbf),
            Wire::FixArray => (FIXARRAY, 0x9f),
            Wire::FixMap => (FIXMAP, 0x8f),
            other => match other.marker() {
                Some(m) => (m, m),
                None => (0, 0),
            },
        }
    }

    /// The one marker byte of a wire type that has one; `None` for the types whose marker
    /// carries a value or a length (fixints, fixstr, fixarray, fixmap) and for bool.
    ///
    /// ```
    /// use metalayer_runtime::wire::Wire;
    ///
    /// assert_eq!(Wire::Bin32.marker(), Some(0xc6));
    /// assert_eq!(Wire::FixStr.marker(), None);
    /// ```
    pub const fn marker(self) -> Option<u8> {
        use marker::*;
        Some(match self {
            Wire::Nil => NIL,
            Wire::UInt8 => UINT8,
            Wire::UInt16 => UINT16,
            Wire::UInt32 => UINT32,
            Wire::UInt64 => UINT64,
            Wire::Int8 => INT8,
            Wire::Int16 => INT16,
            Wire::Int32 => INT32,
            Wire::Int64 => INT64,
            Wire::Float32 => FLOAT32,
            Wire::Float64 => FLOAT64,
            Wire::Str8 => STR8,
            Wire::Str16 => STR16,
            Wire::Str32 => STR32,
            Wire::Bin8 => BIN8,
            Wire::Bin16 => BIN16,
            Wire::Bin32 => BIN32,
            Wire::Array16 => ARRAY16,
            Wire::Array32 => ARRAY32,
            Wire::Map16 => MAP16,
            Wire::Map32 => MAP32,
            Wire::FixExt1 => FIXEXT1,
            Wire::FixExt2 => FIXEXT2,
            Wire::FixExt4 => FIXEXT4,
            Wire::FixExt8 => FIXEXT8,
            Wire::FixExt16 => FIXEXT16,
            Wire::Ext8 => EXT8,
            Wire::Ext16 => EXT16,
            Wire::Ext32 => EXT32,
            Wire::Bool | Wire::PosFixInt | Wire::NegFixInt | Wire::FixStr | Wire::FixArray | Wire::FixMap => {
                return None;
            }
        })
    }

    /// The number of bytes after the marker that are not content: an integer's or float's
    /// payload, a length or count prefix (str8..32, bin8..32, array16/32, map16/32, ext8..32).
    /// 0 for the types whose marker says it all.
    ///
    /// ```
    /// use metalayer_runtime::wire::Wire;
    ///
    /// assert_eq!(Wire::Int64.width(), 8);
    /// assert_eq!(Wire::Array16.width(), 2);
    /// assert_eq!(Wire::FixStr.width(), 0);
    /// ```
    pub const fn width(self) -> usize {
        match self {
            Wire::UInt8 | Wire::Int8 | Wire::Str8 | Wire::Bin8 | Wire::Ext8 => 1,
            Wire::UInt16 | Wire::Int16 | Wire::Str16 | Wire::Bin16 | Wire::Array16 | Wire::Map16 | Wire::Ext16 => 2,
            Wire::UInt32
            | Wire::Int32
            | Wire::Float32
            | Wire::Str32
            | Wire::Bin32
            | Wire::Array32
            | Wire::Map32
            | Wire::Ext32 => 4,
            Wire::UInt64 | Wire::Int64 | Wire::Float64 => 8,
            _ => 0,
        }
    }

    /// The size of the marker and the bytes that follow it before any content: the whole value
    /// for an integer, float, bool or nil; the header for a str, bin, array, map or ext (the
    /// ext's type byte included).
    ///
    /// ```
    /// use metalayer_runtime::wire::Wire;
    ///
    /// assert_eq!(Wire::Int32.header_size(), 5);
    /// assert_eq!(Wire::Ext8.header_size(), 3);
    /// assert_eq!(Wire::FixExt16.header_size(), 2);
    /// ```
    pub const fn header_size(self) -> usize {
        match self.family() {
            Family::Ext => 2 + self.width(),
            _ => 1 + self.width(),
        }
    }

    /// The fixed data length of a fixext (1, 2, 4, 8, 16).
    ///
    /// ```
    /// assert_eq!(metalayer_runtime::wire::Wire::FixExt8.fixext_len(), Some(8));
    /// ```
    pub const fn fixext_len(self) -> Option<usize> {
        match self {
            Wire::FixExt1 => Some(1),
            Wire::FixExt2 => Some(2),
            Wire::FixExt4 => Some(4),
            Wire::FixExt8 => Some(8),
            Wire::FixExt16 => Some(16),
            _ => None,
        }
    }

    /// The largest length or count the header can state (a str's or bin's bytes, an array's
    /// elements, a map's pairs, an ext's data bytes); `None` for the other families.
    ///
    /// ```
    /// use metalayer_runtime::wire::Wire;
    ///
    /// assert_eq!(Wire::FixStr.max_len(), Some(31));
    /// assert_eq!(Wire::FixArray.max_len(), Some(15));
    /// assert_eq!(Wire::Map16.max_len(), Some(65535));
    /// assert_eq!(Wire::Int8.max_len(), None);
    /// ```
    pub const fn max_len(self) -> Option<u64> {
        Some(match self {
            Wire::FixStr => 31,
            Wire::FixArray | Wire::FixMap => 15,
            Wire::FixExt1 | Wire::FixExt2 | Wire::FixExt4 | Wire::FixExt8 | Wire::FixExt16 => match self.fixext_len() {
                Some(n) => n as u64,
                None => 0,
            },
            Wire::Str8 | Wire::Bin8 | Wire::Ext8 => u8::MAX as u64,
            Wire::Str16 | Wire::Bin16 | Wire::Array16 | Wire::Map16 | Wire::Ext16 => u16::MAX as u64,
            Wire::Str32 | Wire::Bin32 | Wire::Array32 | Wire::Map32 | Wire::Ext32 => u32::MAX as u64,
            _ => return None,
        })
    }

    /// The values an integer wire type holds; `None` for the other families.
    ///
    /// ```
    /// use metalayer_runtime::wire::Wire;
    ///
    /// assert_eq!(Wire::NegFixInt.int_range(), Some((-32, -1)));
    /// assert_eq!(Wire::UInt16.int_range(), Some((0, 65535)));
    /// ```
    pub const fn int_range(self) -> Option<(i128, i128)> {
        Some(match self {
            Wire::PosFixInt => (0, 0x7f),
            Wire::NegFixInt => (-32, -1),
            Wire::UInt8 => (0, u8::MAX as i128),
            Wire::UInt16 => (0, u16::MAX as i128),
            Wire::UInt32 => (0, u32::MAX as i128),
            Wire::UInt64 => (0, u64::MAX as i128),
            Wire::Int8 => (i8::MIN as i128, i8::MAX as i128),
            Wire::Int16 => (i16::MIN as i128, i16::MAX as i128),
            Wire::Int32 => (i32::MIN as i128, i32::MAX as i128),
            Wire::Int64 => (i64::MIN as i128, i64::MAX as i128),
            _ => return None,
        })
    }

    /// Whether an integer wire type is signed on the wire (int8..int64 and negative fixints).
    ///
    /// ```
    /// assert!(metalayer_runtime::wire::Wire::Int8.is_signed());
    /// assert!(!metalayer_runtime::wire::Wire::UInt8.is_signed());
    /// ```
    pub const fn is_signed(self) -> bool {
        matches!(
            self,
            Wire::NegFixInt | Wire::Int8 | Wire::Int16 | Wire::Int32 | Wire::Int64
        )
    }

    /// The wire type a marker byte starts; `None` for `0xc1`, which msgpack never uses.
    ///
    /// ```
    /// use metalayer_runtime::wire::Wire;
    ///
    /// assert_eq!(Wire::of_marker(0x05), Some(Wire::PosFixInt));
    /// assert_eq!(Wire::of_marker(0xc3), Some(Wire::Bool));
    /// assert_eq!(Wire::of_marker(0xc1), None);
    /// ```
    pub const fn of_marker(byte: u8) -> Option<Wire> {
        Some(match byte {
            0x00..=0x7f => Wire::PosFixInt,
            0x80..=0x8f => Wire::FixMap,
            0x90..=0x9f => Wire::FixArray,
            0xa0..=0xbf => Wire::FixStr,
            0xc0 => Wire::Nil,
            0xc1 => return None,
            0xc2 | 0xc3 => Wire::Bool,
            0xc4 => Wire::Bin8,
            0xc5 => Wire::Bin16,
            0xc6 => Wire::Bin32,
            0xc7 => Wire::Ext8,
            0xc8 => Wire::Ext16,
            0xc9 => Wire::Ext32,
            0xca => Wire::Float32,
            0xcb => Wire::Float64,
            0xcc => Wire::UInt8,
            0xcd => Wire::UInt16,
            0xce => Wire::UInt32,
            0xcf => Wire::UInt64,
            0xd0 => Wire::Int8,
            0xd1 => Wire::Int16,
            0xd2 => Wire::Int32,
            0xd3 => Wire::Int64,
            0xd4 => Wire::FixExt1,
            0xd5 => Wire::FixExt2,
            0xd6 => Wire::FixExt4,
            0xd7 => Wire::FixExt8,
            0xd8 => Wire::FixExt16,
            0xd9 => Wire::Str8,
            0xda => Wire::Str16,
            0xdb => Wire::Str32,
            0xdc => Wire::Array16,
            0xdd => Wire::Array32,
            0xde => Wire::Map16,
            0xdf => Wire::Map32,
            0xe0..=0xff => Wire::NegFixInt,
        })
    }

    /// The smallest integer wire type for `v`, as standard msgpack writers choose it (python's
    /// `msgpack.packb`, rmp): fixints, then uint8..uint64 for positive values and int8..int64
    /// for negative ones. `None` outside int64 ∪ uint64.
    ///
    /// ```
    /// use metalayer_runtime::wire::Wire;
    ///
    /// assert_eq!(Wire::smallest_int(3), Some(Wire::PosFixInt));
    /// assert_eq!(Wire::smallest_int(300), Some(Wire::UInt16));
    /// assert_eq!(Wire::smallest_int(-5), Some(Wire::NegFixInt));
    /// assert_eq!(Wire::smallest_int(-33), Some(Wire::Int8));
    /// ```
    pub const fn smallest_int(v: i128) -> Option<Wire> {
        Some(if v >= 0 {
            if v <= 0x7f {
                Wire::PosFixInt
            } else if v <= u8::MAX as i128 {
                Wire::UInt8
            } else if v <= u16::MAX as i128 {
                Wire::UInt16
            } else if v <= u32::MAX as i128 {
                Wire::UInt32
            } else if v <= u64::MAX as i128 {
                Wire::UInt64
            } else {
                return None;
            }
        } else if v >= -32 {
            Wire::NegFixInt
        } else if v >= i8::MIN as i128 {
            Wire::Int8
        } else if v >= i16::MIN as i128 {
            Wire::Int16
        } else if v >= i32::MIN as i128 {
            Wire::Int32
        } else if v >= i64::MIN as i128 {
            Wire::Int64
        } else {
            return None;
        })
    }

    /// The smallest wire type of `family` whose header states `len` (bytes of a str, bin or ext;
    /// elements of an array; pairs of a map). `None` when no wire type of the family can, or for
    /// a family without lengths.
    ///
    /// ```
    /// use metalayer_runtime::wire::{Family, Wire};
    ///
    /// assert_eq!(Wire::smallest_len(Family::Str, 31), Some(Wire::FixStr));
    /// assert_eq!(Wire::smallest_len(Family::Str, 32), Some(Wire::Str8));
    /// assert_eq!(Wire::smallest_len(Family::Bin, 3), Some(Wire::Bin8));
    /// assert_eq!(Wire::smallest_len(Family::Array, 16), Some(Wire::Array16));
    /// assert_eq!(Wire::smallest_len(Family::Ext, 16), Some(Wire::FixExt16));
    /// assert_eq!(Wire::smallest_len(Family::Ext, 3), Some(Wire::Ext8));
    /// ```
    pub const fn smallest_len(family: Family, len: u64) -> Option<Wire> {
        let wires = family.wires();
        let mut i = 0;
        while i < wires.len() {
            let w = wires[i];
            let fits = match (w.fixext_len(), w.max_len()) {
                (Some(n), _) => len == n as u64,
                (None, Some(max)) => len <= max,
                (None, None) => false,
            };
            if fits {
                return Some(w);
            }
            i += 1;
        }
        None
    }

    /// The header size of the smallest wire type of `family` for `len` (see
    /// [`smallest_len`](Self::smallest_len)); the largest wire type's when none fits, which the
    /// encoder refuses before writing.
    ///
    /// ```
    /// use metalayer_runtime::wire::{Family, Wire};
    ///
    /// assert_eq!(Wire::smallest_header_size(Family::Str, 3), 1);
    /// assert_eq!(Wire::smallest_header_size(Family::Map, 70_000), 5);
    /// ```
    pub const fn smallest_header_size(family: Family, len: u64) -> usize {
        match Wire::smallest_len(family, len) {
            Some(w) => w.header_size(),
            None => {
                let wires = family.wires();
                wires[wires.len() - 1].header_size()
            }
        }
    }

    /// The size of the smallest integer encoding of `v` (1, 2, 3, 5 or 9).
    ///
    /// ```
    /// assert_eq!(metalayer_runtime::wire::Wire::smallest_int_size(300), 3);
    /// ```
    pub const fn smallest_int_size(v: i128) -> usize {
        match Wire::smallest_int(v) {
            Some(w) => w.header_size(),
            None => 9,
        }
    }
}
