//! Errors of decoding and encoding, with the byte offset, the entry and what was expected.

use core::fmt;

/// Where in a layout an error happened: the container, an entry, or one element of an array entry.
/// Layouts with other kinds of entries may add places, so a `match` needs a `_` arm.
///
/// ```
/// use metalayer_runtime::Path;
///
/// assert_eq!(Path::Element("shape", 1).to_string(), "shape[1]");
/// assert_eq!(Path::Entry("dtype").to_string(), "dtype");
/// assert_eq!(Path::Container.to_string(), "the container");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Path {
    /// The top-level container marker.
    Container,
    /// A whole entry, by its schema name.
    Entry(&'static str),
    /// One element of an array entry.
    Element(&'static str, usize),
    /// Past the last entry (trailing bytes).
    End,
}

impl Path {
    /// The entry name, if the path names one.
    ///
    /// ```
    /// use metalayer_runtime::Path;
    ///
    /// assert_eq!(Path::Element("shape", 3).entry(), Some("shape"));
    /// assert_eq!(Path::Container.entry(), None);
    /// ```
    pub const fn entry(&self) -> Option<&'static str> {
        match self {
            Path::Entry(name) | Path::Element(name, _) => Some(name),
            Path::Container | Path::End => None,
        }
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Container => f.write_str("the container"),
            Path::Entry(name) => f.write_str(name),
            Path::Element(name, index) => write!(f, "{name}[{index}]"),
            Path::End => f.write_str("the end"),
        }
    }
}

/// An integer of any wire type (int64 or uint64), as errors report it: the schema's bounds and
/// constants, and the values found. Kept to 16 bytes so that errors stay small.
///
/// ```
/// use metalayer_runtime::Int;
///
/// assert_eq!(Int::new(-5).get(), -5);
/// assert_eq!(Int::new(u64::MAX.into()).to_string(), "18446744073709551615");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Int {
    negative: bool,
    magnitude: u64,
}

impl Int {
    /// The value `v`, saturated to the range of int64 and uint64 together.
    ///
    /// ```
    /// assert_eq!(metalayer_runtime::Int::new(i128::MAX).get(), u64::MAX as i128);
    /// ```
    pub const fn new(v: i128) -> Self {
        let magnitude = v.unsigned_abs();
        let magnitude = if magnitude > u64::MAX as u128 {
            u64::MAX
        } else {
            magnitude as u64
        };
        Int {
            negative: v < 0,
            magnitude,
        }
    }

    /// The value.
    ///
    /// ```
    /// assert_eq!(metalayer_runtime::Int::new(16).get(), 16);
    /// ```
    pub const fn get(self) -> i128 {
        if self.negative {
            -(self.magnitude as i128)
        } else {
            self.magnitude as i128
        }
    }
}

impl From<i128> for Int {
    fn from(v: i128) -> Self {
        Int::new(v)
    }
}

impl fmt::Display for Int {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.get(), f)
    }
}

impl fmt::Debug for Int {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.get(), f)
    }
}

/// What went wrong while decoding, with what was expected and what was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// A marker byte differs from the one the schema states.
    Marker {
        /// The wire type whose marker was expected (`int64`, `str32`, `fixarray`).
        wire: &'static str,
        /// The marker byte the schema states.
        expected: u8,
        /// The byte in the input.
        found: u8,
    },
    /// An array header byte differs from `0x90 + count`.
    ArrayHeader {
        /// The entry that holds the element count.
        count_entry: &'static str,
        /// The count read from that entry.
        count: usize,
        /// `0x90 + count`.
        expected: u8,
        /// The byte in the input.
        found: u8,
    },
    /// A byte that should be a positive fixint (0x00..=0x7f) is not one.
    NotFixint {
        /// The byte in the input.
        found: u8,
    },
    /// The input ends before the entry does.
    Truncated {
        /// Bytes the entry still needs.
        needed: usize,
        /// Bytes left in the input.
        available: usize,
    },
    /// A constant entry holds another value.
    Constant {
        /// The value the schema states.
        expected: Int,
        /// The value in the input.
        found: Int,
    },
    /// An integer lies outside the schema's `min..=max`.
    OutOfRange {
        /// The smallest allowed value.
        min: Int,
        /// The largest allowed value.
        max: Int,
        /// The value in the input.
        found: Int,
    },
    /// A string is not valid UTF-8; the error's offset is that of the first invalid byte.
    InvalidUtf8 {
        /// How many bytes of the string are valid.
        valid_up_to: usize,
    },
    /// An array or string has more elements than the field's fixed capacity.
    Capacity {
        /// The capacity of the field's type.
        capacity: usize,
        /// The length in the input.
        found: usize,
    },
    /// A string is longer than the field's fixed capacity.
    StrCapacity {
        /// The capacity of the field's type, in bytes.
        capacity: usize,
        /// The string's length in the input, in bytes.
        found: usize,
    },
    /// An array has another length than the field's fixed-size array type.
    FixedLength {
        /// The length of the field's array type.
        expected: usize,
        /// The count in the input.
        found: usize,
    },
    /// Bytes follow the last entry.
    TrailingBytes {
        /// How many bytes follow.
        count: usize,
    },
}

/// A decoding error: the schema, the byte offset, the entry path and what was wrong.
///
/// ```
/// use metalayer_runtime::{DecodeError, DecodeErrorKind, Path};
///
/// let err = DecodeError::new(
///     "b2nd_v1",
///     0x0d,
///     Path::Element("shape", 1),
///     DecodeErrorKind::Marker { wire: "int64", expected: 0xd3, found: 0xd2 },
/// );
/// assert_eq!(
///     err.to_string(),
///     "b2nd_v1: at byte 0x0d in shape[1]: expected int64 marker 0xd3, found 0xd2"
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeError {
    schema: &'static str,
    offset: usize,
    path: Path,
    kind: DecodeErrorKind,
}

struct PathPhrase<'a>(&'a Path);

impl fmt::Display for PathPhrase<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Path::End => f.write_str("after the last entry"),
            path => write!(f, "in {path}"),
        }
    }
}

impl DecodeError {
    /// Builds an error; generated code and the runtime's decoder call this.
    ///
    /// ```
    /// use metalayer_runtime::{DecodeError, DecodeErrorKind, Path};
    ///
    /// let err = DecodeError::new("b2nd_v1", 53, Path::End, DecodeErrorKind::TrailingBytes { count: 2 });
    /// assert_eq!(err.offset(), 53);
    /// ```
    pub const fn new(schema: &'static str, offset: usize, path: Path, kind: DecodeErrorKind) -> Self {
        DecodeError {
            schema,
            offset,
            path,
            kind,
        }
    }

    /// The schema whose decoder failed (`b2nd_v1`).
    ///
    /// ```
    /// # use metalayer_runtime::{DecodeError, DecodeErrorKind, Path};
    /// let err = DecodeError::new("b2nd_v1", 0, Path::Container, DecodeErrorKind::Truncated { needed: 1, available: 0 });
    /// assert_eq!(err.schema(), "b2nd_v1");
    /// ```
    pub const fn schema(&self) -> &'static str {
        self.schema
    }

    /// The byte offset in the input where the problem is.
    ///
    /// ```
    /// # use metalayer_runtime::{DecodeError, DecodeErrorKind, Path};
    /// let err = DecodeError::new("b2nd_v1", 7, Path::Entry("ndim"), DecodeErrorKind::NotFixint { found: 0xd0 });
    /// assert_eq!(err.offset(), 7);
    /// ```
    pub const fn offset(&self) -> usize {
        self.offset
    }

    /// The entry, or element of an entry, being read.
    ///
    /// ```
    /// # use metalayer_runtime::{DecodeError, DecodeErrorKind, Path};
    /// let err = DecodeError::new("b2nd_v1", 2, Path::Entry("ndim"), DecodeErrorKind::NotFixint { found: 0xd0 });
    /// assert_eq!(err.path(), Path::Entry("ndim"));
    /// ```
    pub const fn path(&self) -> Path {
        self.path
    }

    /// What was expected and what was found.
    ///
    /// ```
    /// # use metalayer_runtime::{DecodeError, DecodeErrorKind, Path};
    /// let err = DecodeError::new("b2nd_v1", 2, Path::Entry("ndim"), DecodeErrorKind::NotFixint { found: 0xd0 });
    /// assert!(matches!(err.kind(), DecodeErrorKind::NotFixint { found: 0xd0 }));
    /// ```
    pub const fn kind(&self) -> DecodeErrorKind {
        self.kind
    }
}

/// What was wrong with the values handed to an encoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodeErrorKind {
    /// Arrays counted by the same entry have different lengths.
    LengthMismatch {
        /// The entry both arrays are counted by.
        count_entry: &'static str,
        /// The first array counted by that entry, whose length sets the count.
        reference: &'static str,
        /// The length of `reference`.
        expected: usize,
        /// The length of this array.
        found: usize,
    },
    /// A count (the length of an array) lies outside the schema's `min..=max`.
    CountOutOfRange {
        /// The entry the length is stored in.
        count_entry: &'static str,
        /// The smallest allowed count.
        min: usize,
        /// The largest allowed count.
        max: usize,
        /// The array's length.
        found: usize,
    },
    /// An integer field lies outside the schema's `min..=max` or its wire type's range.
    OutOfRange {
        /// The smallest allowed value.
        min: Int,
        /// The largest allowed value.
        max: Int,
        /// The field's value.
        found: Int,
    },
    /// A string is longer than its wire type's length prefix can state.
    StringTooLong {
        /// The string wire type (`str8`, `str16`, `str32`).
        wire: &'static str,
        /// The longest string the wire type holds.
        max: u64,
        /// The string's length in bytes.
        found: usize,
    },
    /// The output buffer is smaller than the encoding.
    BufferTooSmall {
        /// The encoded length.
        needed: usize,
        /// The buffer's length.
        available: usize,
    },
}

/// An encoding error: the schema, the entry and what was wrong. Nothing was written when it is
/// returned.
///
/// ```
/// use metalayer_runtime::{EncodeError, EncodeErrorKind, Path};
///
/// let err = EncodeError::new(
///     "b2nd_v1",
///     Path::Entry("chunkshape"),
///     EncodeErrorKind::LengthMismatch { count_entry: "ndim", reference: "shape", expected: 2, found: 3 },
/// );
/// assert_eq!(
///     err.to_string(),
///     "b2nd_v1: in chunkshape: expected 2 elements (the length of shape, both counted by ndim), found 3"
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EncodeError {
    schema: &'static str,
    path: Path,
    kind: EncodeErrorKind,
}

impl EncodeError {
    /// Builds an error; generated code calls this.
    ///
    /// ```
    /// use metalayer_runtime::{EncodeError, EncodeErrorKind, Path};
    ///
    /// let err = EncodeError::new("b2nd_v1", Path::Container, EncodeErrorKind::BufferTooSmall { needed: 53, available: 8 });
    /// assert_eq!(err.to_string(), "b2nd_v1: expected a buffer of at least 53 bytes, found 8");
    /// ```
    pub const fn new(schema: &'static str, path: Path, kind: EncodeErrorKind) -> Self {
        EncodeError { schema, path, kind }
    }

    /// The schema whose encoder refused the values.
    ///
    /// ```
    /// # use metalayer_runtime::{EncodeError, EncodeErrorKind, Path};
    /// let err = EncodeError::new("b2nd_v1", Path::Entry("dtype"), EncodeErrorKind::StringTooLong { wire: "str8", max: 255, found: 300 });
    /// assert_eq!(err.schema(), "b2nd_v1");
    /// ```
    pub const fn schema(&self) -> &'static str {
        self.schema
    }

    /// The entry whose value was refused.
    ///
    /// ```
    /// # use metalayer_runtime::{EncodeError, EncodeErrorKind, Path};
    /// let err = EncodeError::new("b2nd_v1", Path::Entry("dtype"), EncodeErrorKind::StringTooLong { wire: "str8", max: 255, found: 300 });
    /// assert_eq!(err.path(), Path::Entry("dtype"));
    /// ```
    pub const fn path(&self) -> Path {
        self.path
    }

    /// What was wrong.
    ///
    /// ```
    /// # use metalayer_runtime::{EncodeError, EncodeErrorKind, Path};
    /// let err = EncodeError::new("b2nd_v1", Path::Entry("dtype"), EncodeErrorKind::StringTooLong { wire: "str8", max: 255, found: 300 });
    /// assert!(matches!(err.kind(), EncodeErrorKind::StringTooLong { found: 300, .. }));
    /// ```
    pub const fn kind(&self) -> EncodeErrorKind {
        self.kind
    }
}

impl fmt::Display for DecodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DecodeErrorKind::Marker { wire, expected, found } => {
                write!(f, "expected {wire} marker {expected:#04x}, found {found:#04x}")
            }
            DecodeErrorKind::ArrayHeader {
                count_entry,
                count,
                expected,
                found,
            } => write!(
                f,
                "expected array header {expected:#04x} (0x90 + {count_entry} {count}), found {found:#04x}"
            ),
            DecodeErrorKind::NotFixint { found } => {
                write!(f, "expected positive fixint 0x00..=0x7f, found {found:#04x}")
            }
            DecodeErrorKind::Truncated { needed, available } => {
                let s = if needed == 1 { "" } else { "s" };
                write!(f, "expected {needed} more byte{s}, found {available}")
            }
            DecodeErrorKind::Constant { expected, found } => write!(f, "expected constant {expected}, found {found}"),
            DecodeErrorKind::OutOfRange { min, max, found } => {
                write!(f, "expected a value in {min}..={max}, found {found}")
            }
            DecodeErrorKind::InvalidUtf8 { valid_up_to } => write!(
                f,
                "expected UTF-8 text, found an invalid sequence after {}",
                Count(valid_up_to, "valid byte")
            ),
            DecodeErrorKind::Capacity { capacity, found } => write!(
                f,
                "expected at most {} (the field's capacity), found {found}",
                Count(capacity, "element")
            ),
            DecodeErrorKind::StrCapacity { capacity, found } => write!(
                f,
                "expected at most {} (the field's capacity), found {found}",
                Count(capacity, "byte")
            ),
            DecodeErrorKind::FixedLength { expected, found } => write!(
                f,
                "expected exactly {} (the field's array length), found {found}",
                Count(expected, "element")
            ),
            DecodeErrorKind::TrailingBytes { count } => {
                write!(f, "expected end of input, found {}", Count(count, "trailing byte"))
            }
        }
    }
}

impl core::error::Error for DecodeErrorKind {}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: at byte {:#04x} {}: {}",
            self.schema,
            self.offset,
            PathPhrase(&self.path),
            self.kind
        )
    }
}

impl core::error::Error for DecodeError {}

impl fmt::Display for EncodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            EncodeErrorKind::LengthMismatch {
                count_entry,
                reference,
                expected,
                found,
            } => write!(
                f,
                "expected {} (the length of {reference}, both counted by {count_entry}), found {found}",
                Count(expected, "element")
            ),
            EncodeErrorKind::CountOutOfRange {
                count_entry,
                min,
                max,
                found,
            } => write!(
                f,
                "expected a length in {min}..={max} (stored in {count_entry}), found {found}"
            ),
            EncodeErrorKind::OutOfRange { min, max, found } => {
                write!(f, "expected a value in {min}..={max}, found {found}")
            }
            EncodeErrorKind::StringTooLong { wire, max, found } => {
                let s = if max == 1 { "" } else { "s" };
                write!(f, "expected at most {max} byte{s} for {wire}, found {found}")
            }
            EncodeErrorKind::BufferTooSmall { needed, available } => write!(
                f,
                "expected a buffer of at least {}, found {available}",
                Count(needed, "byte")
            ),
        }
    }
}

impl core::error::Error for EncodeErrorKind {}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            // The buffer is the caller's, not a place in the layout.
            EncodeErrorKind::BufferTooSmall { .. } => write!(f, "{}: {}", self.schema, self.kind),
            _ => write!(f, "{}: in {}: {}", self.schema, self.path, self.kind),
        }
    }
}

impl core::error::Error for EncodeError {}

/// `1 byte`, `2 bytes`: a count and its noun, in the singular or the plural.
struct Count(usize, &'static str);

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = if self.0 == 1 { "" } else { "s" };
        write!(f, "{} {}{s}", self.0, self.1)
    }
}
