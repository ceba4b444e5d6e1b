//! Errors of decoding and encoding, with the byte offset, the entry and what was expected.

use core::fmt;

use crate::name::Name;
use crate::wire::{Family, Wire};
#[cfg(feature = "alloc")]
use alloc::sync::Arc;

/// How many levels of nesting a [`Path`] names; deeper paths keep their innermost levels.
pub const PATH_DEPTH: usize = 3;

const NO_INDEX: u32 = u32::MAX;
const NO_NAME: &&str = &"";

/// Where in a layout an error happened: the container, an entry, an element of an entry, an
/// entry of a record inside another (`operands[3].shape[1]`), or past the end.
///
/// Generated code names entries with literals, `&'static &'static str` (`&"shape"`): one
/// pointer each, so that errors stay small. A layout read at run time names them with copies
/// ([`Name::copy_of`], feature `alloc`), which the path shares among its clones and frees with
/// them ([`child_name`](Self::child_name)).
///
/// ```
/// use metalayer_runtime::Path;
///
/// assert_eq!(Path::element(&"shape", 1).to_string(), "shape[1]");
/// assert_eq!(Path::entry(&"dtype").to_string(), "dtype");
/// assert_eq!(Path::CONTAINER.to_string(), "the container");
/// assert_eq!(Path::entry(&"operands").index(3).child(&"shape").index(1).to_string(), "operands[3].shape[1]");
/// assert_eq!(Path::element(&"a", 1).index(2).to_string(), "a[1][2]");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Path {
    /// Per level, the entry's name; empty for an element of an element (`[2]` in `a[1][2]`).
    names: Names,
    /// Per level, the element's index, or `NO_INDEX`.
    indices: [u32; PATH_DEPTH],
    len: u8,
    end: bool,
    /// Outer levels were dropped to fit [`PATH_DEPTH`].
    elided: bool,
}

/// A path's names: literals, three pointers; or, once a name is not `'static`, one shared
/// allocation holding them all.
#[derive(Clone)]
enum Names {
    Static([&'static &'static str; PATH_DEPTH]),
    #[cfg(feature = "alloc")]
    Shared(Arc<[Name; PATH_DEPTH]>),
}

/// A name to put in a path.
enum Level {
    Static(&'static &'static str),
    #[cfg(feature = "alloc")]
    Shared(Name),
}

impl Names {
    #[inline]
    fn get(&self, i: usize) -> &str {
        match self {
            Names::Static(names) => names[i],
            #[cfg(feature = "alloc")]
            Names::Shared(names) => names[i].get(),
        }
    }

    /// Sets name `i`: in place for literals, so that a path of literals stays a value the
    /// compiler builds at no cost.
    #[inline]
    fn set(&mut self, i: usize, name: Level) {
        match (&mut *self, name) {
            (Names::Static(names), Level::Static(name)) => names[i] = name,
            #[cfg(feature = "alloc")]
            (_, name) => self.set_shared(i, name),
        }
    }

    /// [`set`](Self::set) where a name is shared: out of line, as errors of layouts read at
    /// run time make it.
    #[cfg(feature = "alloc")]
    #[cold]
    #[inline(never)]
    fn set_shared(&mut self, i: usize, name: Level) {
        match (&mut *self, name) {
            (Names::Static(names), Level::Static(name)) => names[i] = name,
            (Names::Static(names), Level::Shared(name)) => {
                let mut shared = names.map(|n| Name::new(*n));
                shared[i] = name;
                *self = Names::Shared(Arc::new(shared));
            }
            (Names::Shared(names), name) => {
                Arc::make_mut(names)[i] = match name {
                    Level::Static(name) => Name::new(*name),
                    Level::Shared(name) => name,
                }
            }
        }
    }

    #[inline]
    fn rotate_left(&mut self) {
        match self {
            Names::Static(names) => names.rotate_left(1),
            #[cfg(feature = "alloc")]
            Names::Shared(names) => Arc::make_mut(names).rotate_left(1),
        }
    }

    fn level(&self, i: usize) -> Level {
        match self {
            Names::Static(names) => Level::Static(names[i]),
            #[cfg(feature = "alloc")]
            Names::Shared(names) => Level::Shared(names[i].clone()),
        }
    }
}

/// An element's index as a path holds it: past `u32::MAX - 1`, that.
#[inline]
const fn clamp_index(index: usize) -> u32 {
    if index >= NO_INDEX as usize {
        NO_INDEX - 1
    } else {
        index as u32
    }
}

impl PartialEq for Names {
    fn eq(&self, other: &Self) -> bool {
        (0..PATH_DEPTH).all(|i| self.get(i) == other.get(i))
    }
}

impl Eq for Names {}

impl core::hash::Hash for Names {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        for i in 0..PATH_DEPTH {
            self.get(i).hash(state);
        }
    }
}

impl fmt::Debug for Names {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries((0..PATH_DEPTH).map(|i| self.get(i))).finish()
    }
}

impl Path {
    /// The top-level container (its marker or header).
    pub const CONTAINER: Path = Path {
        names: Names::Static([NO_NAME; PATH_DEPTH]),
        indices: [NO_INDEX; PATH_DEPTH],
        len: 0,
        end: false,
        elided: false,
    };

    /// Past the last entry (trailing bytes).
    pub const END: Path = Path {
        names: Names::Static([NO_NAME; PATH_DEPTH]),
        indices: [NO_INDEX; PATH_DEPTH],
        len: 0,
        end: true,
        elided: false,
    };

    /// A whole entry of the top-level record, by its schema name.
    ///
    /// ```
    /// assert_eq!(metalayer_runtime::Path::entry(&"ndim").to_string(), "ndim");
    /// ```
    #[inline]
    pub const fn entry(name: &'static &'static str) -> Path {
        let mut names = [NO_NAME; PATH_DEPTH];
        names[0] = name;
        Path {
            names: Names::Static(names),
            indices: [NO_INDEX; PATH_DEPTH],
            len: 1,
            end: false,
            elided: false,
        }
    }

    /// One element of an array entry of the top-level record.
    ///
    /// ```
    /// assert_eq!(metalayer_runtime::Path::element(&"shape", 0).to_string(), "shape[0]");
    /// ```
    #[inline]
    pub const fn element(name: &'static &'static str, index: usize) -> Path {
        let mut path = Path::entry(name);
        path.indices[0] = clamp_index(index);
        path
    }

    /// This path's entry `name`, one level down (an entry of a record held here).
    ///
    /// ```
    /// use metalayer_runtime::Path;
    ///
    /// assert_eq!(Path::entry(&"meta").child(&"kind").to_string(), "meta.kind");
    /// ```
    #[inline]
    pub fn child(self, name: &'static &'static str) -> Path {
        self.push(Level::Static(name), NO_INDEX)
    }

    /// [`child`](Self::child) for a name that is not `'static`, such as a layout's read at run
    /// time: the path holds it, shared by its clones.
    ///
    /// ```
    /// use metalayer_runtime::{Name, Path};
    ///
    /// let entry = String::from("chunkshape");
    /// let path = Path::CONTAINER.child_name(Name::copy_of(entry.as_str())).index(1);
    /// drop(entry);
    /// assert_eq!(path, Path::element(&"chunkshape", 1));
    /// assert_eq!(path.to_string(), "chunkshape[1]");
    /// ```
    #[cfg(feature = "alloc")]
    pub fn child_name(self, name: Name) -> Path {
        self.push(Level::Shared(name), NO_INDEX)
    }

    /// This path's element `index` (an element of the array held here).
    ///
    /// ```
    /// use metalayer_runtime::Path;
    ///
    /// assert_eq!(Path::entry(&"tags").index(2).to_string(), "tags[2]");
    /// ```
    #[inline]
    pub fn index(self, index: usize) -> Path {
        let index = clamp_index(index);
        if self.len > 0 && self.indices[self.len as usize - 1] == NO_INDEX {
            let mut out = self;
            out.indices[out.len as usize - 1] = index;
            return out;
        }
        self.push(Level::Static(NO_NAME), index)
    }

    #[inline]
    fn push(self, name: Level, index: u32) -> Path {
        let mut out = self;
        out.end = false;
        if (out.len as usize) < PATH_DEPTH {
            out.names.set(out.len as usize, name);
            out.indices[out.len as usize] = index;
            out.len += 1;
        } else {
            // Keep the innermost levels: they say what was being read.
            out.names.rotate_left();
            out.indices.rotate_left(1);
            out.names.set(PATH_DEPTH - 1, name);
            out.indices[PATH_DEPTH - 1] = index;
            out.elided = true;
        }
        out
    }

    /// This path, seen from `outer`: a record decoded at `outer` reports its errors relative to
    /// itself, and its caller puts them in place with this.
    ///
    /// ```
    /// use metalayer_runtime::Path;
    ///
    /// let inner = Path::element(&"shape", 1);
    /// assert_eq!(inner.within(Path::entry(&"operands").index(3)).to_string(), "operands[3].shape[1]");
    /// assert_eq!(Path::CONTAINER.within(Path::element(&"operands", 0)).to_string(), "operands[0]");
    /// ```
    pub fn within(self, outer: Path) -> Path {
        if self.end {
            return self;
        }
        let mut out = outer;
        out.elided |= self.elided;
        for i in 0..self.len as usize {
            let index = self.indices[i];
            // A level that is only an index continues the outer path's last level.
            out = if self.names.get(i).is_empty() && index != NO_INDEX {
                out.index(index as usize)
            } else {
                let pushed = out.push(self.names.level(i), NO_INDEX);
                if index == NO_INDEX {
                    pushed
                } else {
                    pushed.index(index as usize)
                }
            };
        }
        out
    }

    /// The outermost entry name, if the path names one.
    ///
    /// ```
    /// use metalayer_runtime::Path;
    ///
    /// assert_eq!(Path::element(&"shape", 3).entry_name(), Some("shape"));
    /// assert_eq!(Path::CONTAINER.entry_name(), None);
    /// ```
    pub fn entry_name(&self) -> Option<&str> {
        if self.len == 0 || self.names.get(0).is_empty() {
            None
        } else {
            Some(self.names.get(0))
        }
    }

    /// How many levels the path names (0 for the container and the end). Each level is an entry
    /// or an element, as [`level`](Self::level) returns it.
    ///
    /// ```
    /// use metalayer_runtime::Path;
    ///
    /// assert_eq!(Path::entry(&"meta").child(&"kind").depth(), 2);
    /// assert_eq!(Path::CONTAINER.depth(), 0);
    /// ```
    pub const fn depth(&self) -> usize {
        self.len as usize
    }

    /// Level `i` of the path, outermost first: the entry's name (empty for an element of an
    /// element, `[2]` in `a[1][2]`) and the element's index, if the level names one. A path that
    /// was too deep keeps its innermost [`PATH_DEPTH`] levels.
    ///
    /// ```
    /// use metalayer_runtime::Path;
    ///
    /// let path = Path::entry(&"metalayers").child(&"contents").index(3);
    /// assert_eq!(path.level(0), Some(("metalayers", None)));
    /// assert_eq!(path.level(1), Some(("contents", Some(3))));
    /// assert_eq!(path.level(2), None);
    /// assert_eq!(Path::element(&"a", 1).index(2).level(1), Some(("", Some(2))));
    /// ```
    pub fn level(&self, i: usize) -> Option<(&str, Option<usize>)> {
        if i >= self.len as usize {
            return None;
        }
        let index = self.indices[i];
        let index = if index == NO_INDEX { None } else { Some(index as usize) };
        Some((self.names.get(i), index))
    }

    /// Whether the path is exactly these levels (names and indices, outermost first) and no
    /// outer level was dropped.
    ///
    /// ```
    /// use metalayer_runtime::Path;
    ///
    /// let path = Path::entry(&"metalayers").child(&"contents");
    /// assert!(path.is(&[("metalayers", None), ("contents", None)]));
    /// assert!(!path.index(0).is(&[("metalayers", None), ("contents", None)]));
    /// ```
    pub fn is(&self, levels: &[(&str, Option<usize>)]) -> bool {
        !self.end
            && !self.elided
            && levels.len() == self.depth()
            && levels
                .iter()
                .enumerate()
                .all(|(i, level)| self.level(i) == Some(*level))
    }

    /// Whether the path is the top-level container.
    ///
    /// ```
    /// assert!(metalayer_runtime::Path::CONTAINER.is_container());
    /// ```
    pub const fn is_container(&self) -> bool {
        self.len == 0 && !self.end
    }

    /// Whether the path is past the last entry.
    ///
    /// ```
    /// assert!(metalayer_runtime::Path::END.is_end());
    /// ```
    pub const fn is_end(&self) -> bool {
        self.end
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.end {
            return f.write_str("the end");
        }
        if self.len == 0 {
            return f.write_str("the container");
        }
        if self.elided {
            f.write_str("…")?;
        }
        for i in 0..self.len as usize {
            let (name, index) = (self.names.get(i), self.indices[i]);
            if !name.is_empty() {
                if i > 0 || self.elided {
                    f.write_str(".")?;
                }
                f.write_str(name)?;
            }
            if index != NO_INDEX {
                write!(f, "[{index}]")?;
            }
        }
        Ok(())
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
#[derive(Debug, Clone, PartialEq, Eq)]
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
        count_entry: Name,
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
    /// A string or byte string is longer than the field's fixed capacity.
    StrCapacity {
        /// The capacity of the field's type, in bytes.
        capacity: usize,
        /// The string's length in the input, in bytes.
        found: usize,
    },
    /// A byte string has another length than the field's fixed-size byte array (`[u8; 32]`).
    ///
    /// ```
    /// use metalayer_runtime::DecodeErrorKind;
    ///
    /// let kind = DecodeErrorKind::FixedBytes { expected: 32, found: 31 };
    /// assert_eq!(kind.to_string(), "expected exactly 32 bytes (the field's array length), found 31");
    /// ```
    FixedBytes {
        /// The length of the field's array type, in bytes.
        expected: usize,
        /// The length in the input, in bytes.
        found: usize,
    },
    /// A string or byte string has another length than the one the schema fixes (`len`).
    ///
    /// ```
    /// use metalayer_runtime::DecodeErrorKind;
    ///
    /// let kind = DecodeErrorKind::Length { expected: 32, found: 31 };
    /// assert_eq!(kind.to_string(), "expected a length of 32 bytes, found 31");
    /// ```
    Length {
        /// The length the schema states, in bytes.
        expected: u64,
        /// The length in the header, in bytes.
        found: u64,
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
    /// A byte that starts another msgpack family than the one the schema states (a canonical
    /// entry accepts any wire type of its family).
    Family {
        /// The family the schema states.
        expected: Family,
        /// The byte in the input.
        found: u8,
    },
    /// A canonical entry is not in its smallest encoding, which standard msgpack writers use
    /// and this schema requires.
    NotSmallest {
        /// The smallest wire type for the value.
        expected: Wire,
        /// The wire type in the input.
        found: Wire,
    },
    /// A header (an array's or map's count, a str's, bin's or ext's length) differs from the
    /// count an earlier entry holds, or from the fixed count the schema states.
    Count {
        /// The entry that holds the count; empty for a fixed count.
        count_entry: Name,
        /// The count expected.
        expected: u64,
        /// The count in the header.
        found: u64,
    },
    /// A record's header states a number of entries the schema does not allow (optional
    /// trailing entries make a range).
    ///
    /// ```
    /// use metalayer_runtime::DecodeErrorKind;
    ///
    /// let kind = DecodeErrorKind::Entries { min: 16, max: 16, found: 15 };
    /// assert_eq!(kind.to_string(), "expected 16 entries, found 15");
    /// let kind = DecodeErrorKind::Entries { min: 1, max: 1, found: 2 };
    /// assert_eq!(kind.to_string(), "expected 1 entry, found 2");
    /// ```
    Entries {
        /// The fewest entries.
        min: usize,
        /// The most entries.
        max: usize,
        /// The number in the header.
        found: u64,
    },
    /// A map record's key differs from the schema's key for that entry.
    Key {
        /// The key the schema states.
        expected: Name,
    },
    /// A constant string, byte string, float or boolean entry holds another value.
    ConstantBytes {
        /// The constant, as the schema states it (its bytes; a float's and a bool's encoding).
        expected: Name<[u8]>,
    },
    /// An integer is none of the schema's named values.
    NotNamed {
        /// The named values, as `name = value` pairs.
        names: Name,
        /// The value in the input.
        found: Int,
    },
    /// An ext's type byte differs from the schema's.
    ExtType {
        /// The type the schema states.
        expected: i8,
        /// The type in the input.
        found: i8,
    },
    /// A record's header counts entries up to one of two optional entries that go together
    /// (`together_with`) but not the other.
    ///
    /// ```
    /// use metalayer_runtime::DecodeErrorKind;
    ///
    /// let kind = DecodeErrorKind::Together { first: "dtype_format".into(), last: "dtype".into(), found: 6 };
    /// assert_eq!(
    ///     kind.to_string(),
    ///     "expected dtype_format and dtype both present or both absent, found 6 entries, which end between them"
    /// );
    /// ```
    Together {
        /// The earlier entry.
        first: Name,
        /// The later entry.
        last: Name,
        /// The number of entries the header states.
        found: usize,
    },
    /// A timestamp's data is not 4, 8 or 12 bytes long, or not as long as the form the schema
    /// fixes.
    ///
    /// ```
    /// use metalayer_runtime::DecodeErrorKind;
    ///
    /// let kind = DecodeErrorKind::TimestampLength { found: 5 };
    /// assert_eq!(kind.to_string(), "expected a timestamp of 4, 8 or 12 bytes in its form, found 5 bytes");
    /// ```
    TimestampLength {
        /// The data's length.
        found: usize,
    },
    /// A timestamp's nanoseconds are past 999999999.
    ///
    /// ```
    /// use metalayer_runtime::DecodeErrorKind;
    ///
    /// let kind = DecodeErrorKind::Nanoseconds { found: 1_000_000_000 };
    /// assert_eq!(kind.to_string(), "expected nanoseconds in 0..=999999999, found 1000000000");
    /// ```
    Nanoseconds {
        /// The nanoseconds in the input.
        found: u32,
    },
    /// A record nested in the value is too deep for the decoder's limit.
    Depth {
        /// The limit.
        limit: usize,
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
///     Path::element(&"shape", 1),
///     DecodeErrorKind::Marker { wire: "int64", expected: 0xd3, found: 0xd2 },
/// );
/// assert_eq!(
///     err.to_string(),
///     "b2nd_v1: at byte 0x0d in shape[1]: expected int64 marker 0xd3, found 0xd2"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    schema: Name,
    offset: usize,
    path: Path,
    kind: DecodeErrorKind,
}

struct PathPhrase<'a>(&'a Path);

impl fmt::Display for PathPhrase<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            path if path.is_end() => f.write_str("after the last entry"),
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
    /// let err = DecodeError::new("b2nd_v1", 53, Path::END, DecodeErrorKind::TrailingBytes { count: 2 });
    /// assert_eq!(err.offset(), 53);
    /// ```
    pub fn new(schema: impl Into<Name>, offset: usize, path: Path, kind: DecodeErrorKind) -> Self {
        DecodeError {
            schema: schema.into(),
            offset,
            path,
            kind,
        }
    }

    /// The schema whose decoder failed (`b2nd_v1`).
    ///
    /// ```
    /// # use metalayer_runtime::{DecodeError, DecodeErrorKind, Path};
    /// let err = DecodeError::new("b2nd_v1", 0, Path::CONTAINER, DecodeErrorKind::Truncated { needed: 1, available: 0 });
    /// assert_eq!(err.schema(), "b2nd_v1");
    /// ```
    pub fn schema(&self) -> &str {
        self.schema.get()
    }

    /// The byte offset in the input where the problem is.
    ///
    /// ```
    /// # use metalayer_runtime::{DecodeError, DecodeErrorKind, Path};
    /// let err = DecodeError::new("b2nd_v1", 7, Path::entry(&"ndim"), DecodeErrorKind::NotFixint { found: 0xd0 });
    /// assert_eq!(err.offset(), 7);
    /// ```
    pub const fn offset(&self) -> usize {
        self.offset
    }

    /// The entry, or element of an entry, being read.
    ///
    /// ```
    /// # use metalayer_runtime::{DecodeError, DecodeErrorKind, Path};
    /// let err = DecodeError::new("b2nd_v1", 2, Path::entry(&"ndim"), DecodeErrorKind::NotFixint { found: 0xd0 });
    /// assert_eq!(err.path(), &Path::entry(&"ndim"));
    /// ```
    pub const fn path(&self) -> &Path {
        &self.path
    }

    /// What was expected and what was found.
    ///
    /// ```
    /// # use metalayer_runtime::{DecodeError, DecodeErrorKind, Path};
    /// let err = DecodeError::new("b2nd_v1", 2, Path::entry(&"ndim"), DecodeErrorKind::NotFixint { found: 0xd0 });
    /// assert!(matches!(err.kind(), DecodeErrorKind::NotFixint { found: 0xd0 }));
    /// ```
    pub const fn kind(&self) -> &DecodeErrorKind {
        &self.kind
    }

    /// The same error with its path seen from `outer`: a nested record reports paths relative
    /// to itself, and the code that decoded it at `outer` puts them in place.
    ///
    /// ```
    /// # use metalayer_runtime::{DecodeError, DecodeErrorKind, Path};
    /// let err = DecodeError::new("b2o_v0", 9, Path::entry(&"kind"), DecodeErrorKind::NotFixint { found: 0xd0 });
    /// let err = err.within(Path::element(&"operands", 2));
    /// assert_eq!(err.path().to_string(), "operands[2].kind");
    /// assert_eq!(err.offset(), 9);
    /// ```
    #[must_use]
    pub fn within(self, outer: Path) -> Self {
        DecodeError {
            path: self.path.within(outer),
            ..self
        }
    }
}

/// What was wrong with the values handed to an encoder.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodeErrorKind {
    /// Arrays counted by the same entry have different lengths.
    LengthMismatch {
        /// The entry both arrays are counted by.
        count_entry: Name,
        /// The first array counted by that entry, whose length sets the count.
        reference: Name,
        /// The length of `reference`.
        expected: usize,
        /// The length of this array.
        found: usize,
    },
    /// A count (the length of an array) lies outside the schema's `min..=max`.
    CountOutOfRange {
        /// The entry the length is stored in.
        count_entry: Name,
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
    /// A byte string, array or map is longer than its wire type's header can state, or a
    /// fixed-length value (a fixext's data, a fixed count) has another length.
    Length {
        /// The wire type (`bin8`, `fixarray`, `fixext16`).
        wire: &'static str,
        /// The smallest allowed length.
        min: u64,
        /// The largest allowed length.
        max: u64,
        /// The value's length.
        found: u64,
    },
    /// A time does not fit the timestamp form the schema fixes, or its nanoseconds are past
    /// 999999999.
    Timestamp {
        /// The form: `timestamp32`, `timestamp64` or `timestamp96`.
        form: &'static str,
        /// The time's seconds.
        seconds: i64,
        /// The time's nanoseconds.
        nanoseconds: u32,
    },
    /// Of two optional entries that go together (`together_with`), one is present and the
    /// other absent.
    ///
    /// ```
    /// use metalayer_runtime::EncodeErrorKind;
    ///
    /// let kind = EncodeErrorKind::Together {
    ///     first: "dtype_format".into(),
    ///     last: "dtype".into(),
    ///     present: "dtype_format".into(),
    /// };
    /// assert_eq!(
    ///     kind.to_string(),
    ///     "expected dtype_format and dtype both present or both absent, found only dtype_format"
    /// );
    /// ```
    Together {
        /// The earlier entry.
        first: Name,
        /// The later entry.
        last: Name,
        /// The one that is present.
        present: Name,
    },
    /// An optional entry is present while an optional entry before it is absent: the header
    /// counts entries, so only trailing entries can be left out.
    OptionalGap {
        /// The absent entry.
        absent: Name,
    },
    /// An integer is none of the schema's named values.
    NotNamed {
        /// The named values, as `name = value` pairs.
        names: Name,
        /// The value.
        found: Int,
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
///     Path::entry(&"chunkshape"),
///     EncodeErrorKind::LengthMismatch { count_entry: "ndim".into(), reference: "shape".into(), expected: 2, found: 3 },
/// );
/// assert_eq!(
///     err.to_string(),
///     "b2nd_v1: in chunkshape: expected 2 elements (the length of shape, both counted by ndim), found 3"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EncodeError {
    schema: Name,
    path: Path,
    kind: EncodeErrorKind,
}

impl EncodeError {
    /// Builds an error; generated code calls this.
    ///
    /// ```
    /// use metalayer_runtime::{EncodeError, EncodeErrorKind, Path};
    ///
    /// let err = EncodeError::new("b2nd_v1", Path::CONTAINER, EncodeErrorKind::BufferTooSmall { needed: 53, available: 8 });
    /// assert_eq!(err.to_string(), "b2nd_v1: expected a buffer of at least 53 bytes, found 8");
    /// ```
    pub fn new(schema: impl Into<Name>, path: Path, kind: EncodeErrorKind) -> Self {
        EncodeError {
            schema: schema.into(),
            path,
            kind,
        }
    }

    /// The schema whose encoder refused the values.
    ///
    /// ```
    /// # use metalayer_runtime::{EncodeError, EncodeErrorKind, Path};
    /// let err = EncodeError::new("b2nd_v1", Path::entry(&"dtype"), EncodeErrorKind::StringTooLong { wire: "str8", max: 255, found: 300 });
    /// assert_eq!(err.schema(), "b2nd_v1");
    /// ```
    pub fn schema(&self) -> &str {
        self.schema.get()
    }

    /// The entry whose value was refused.
    ///
    /// ```
    /// # use metalayer_runtime::{EncodeError, EncodeErrorKind, Path};
    /// let err = EncodeError::new("b2nd_v1", Path::entry(&"dtype"), EncodeErrorKind::StringTooLong { wire: "str8", max: 255, found: 300 });
    /// assert_eq!(err.path(), &Path::entry(&"dtype"));
    /// ```
    pub const fn path(&self) -> &Path {
        &self.path
    }

    /// What was wrong.
    ///
    /// ```
    /// # use metalayer_runtime::{EncodeError, EncodeErrorKind, Path};
    /// let err = EncodeError::new("b2nd_v1", Path::entry(&"dtype"), EncodeErrorKind::StringTooLong { wire: "str8", max: 255, found: 300 });
    /// assert!(matches!(err.kind(), EncodeErrorKind::StringTooLong { found: 300, .. }));
    /// ```
    pub const fn kind(&self) -> &EncodeErrorKind {
        &self.kind
    }

    /// The same error with its path seen from `outer` (see [`DecodeError::within`]).
    ///
    /// ```
    /// # use metalayer_runtime::{EncodeError, EncodeErrorKind, Path};
    /// let err = EncodeError::new("x", Path::entry(&"name"), EncodeErrorKind::StringTooLong { wire: "fixstr", max: 31, found: 40 });
    /// assert_eq!(err.within(Path::entry(&"meta")).path().to_string(), "meta.name");
    /// ```
    #[must_use]
    pub fn within(self, outer: Path) -> Self {
        EncodeError {
            path: self.path.within(outer),
            ..self
        }
    }
}

impl fmt::Display for DecodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
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
                let s = if *needed == 1 { "" } else { "s" };
                write!(f, "expected {needed} more byte{s}, found {available}")
            }
            DecodeErrorKind::Constant { expected, found } => write!(f, "expected constant {expected}, found {found}"),
            DecodeErrorKind::OutOfRange { min, max, found } => {
                write!(f, "expected a value in {min}..={max}, found {found}")
            }
            DecodeErrorKind::InvalidUtf8 { valid_up_to } => write!(
                f,
                "expected UTF-8 text, found an invalid sequence after {}",
                Count(*valid_up_to, "valid byte", "valid bytes")
            ),
            DecodeErrorKind::Capacity { capacity, found } => write!(
                f,
                "expected at most {} (the field's capacity), found {found}",
                Count(*capacity, "element", "elements")
            ),
            DecodeErrorKind::StrCapacity { capacity, found } => write!(
                f,
                "expected at most {} (the field's capacity), found {found}",
                Count(*capacity, "byte", "bytes")
            ),
            DecodeErrorKind::FixedBytes { expected, found } => write!(
                f,
                "expected exactly {} (the field's array length), found {found}",
                Count(*expected, "byte", "bytes")
            ),
            DecodeErrorKind::Length { expected, found } => write!(
                f,
                "expected a length of {}, found {found}",
                Count(*expected as usize, "byte", "bytes")
            ),
            DecodeErrorKind::FixedLength { expected, found } => write!(
                f,
                "expected exactly {} (the field's array length), found {found}",
                Count(*expected, "element", "elements")
            ),
            DecodeErrorKind::TrailingBytes { count } => {
                write!(
                    f,
                    "expected end of input, found {}",
                    Count(*count, "trailing byte", "trailing bytes")
                )
            }
            DecodeErrorKind::Family { expected, found } => {
                write!(
                    f,
                    "expected {} ({}), found {found:#04x}",
                    expected.name(),
                    FamilyMarkers(*expected)
                )?;
                match Wire::of_marker(*found) {
                    Some(w) => write!(f, " ({})", w.name()),
                    None => f.write_str(" (never used)"),
                }
            }
            DecodeErrorKind::NotSmallest { expected, found } => write!(
                f,
                "expected the smallest encoding {}, found {}",
                expected.name(),
                found.name()
            ),
            DecodeErrorKind::Count {
                count_entry,
                expected,
                found,
            } => {
                if count_entry.is_empty() {
                    write!(f, "expected a count of {expected}, found {found}")
                } else {
                    write!(f, "expected a count of {expected} ({count_entry}), found {found}")
                }
            }
            DecodeErrorKind::Entries { min, max, found } => {
                if min == max {
                    write!(f, "expected {}, found {found}", Count(*min, "entry", "entries"))
                } else {
                    write!(f, "expected {min}..={max} entries, found {found}")
                }
            }
            DecodeErrorKind::Key { expected } => write!(f, "expected key {:?}, found another key", expected),
            DecodeErrorKind::ConstantBytes { expected } => {
                f.write_str("expected constant \"")?;
                for chunk in expected.utf8_chunks() {
                    for c in chunk.valid().chars() {
                        write!(f, "{}", c.escape_debug())?;
                    }
                    for b in chunk.invalid() {
                        write!(f, "\\x{b:02x}")?;
                    }
                }
                f.write_str("\", found another value")
            }
            DecodeErrorKind::NotNamed { names, found } => {
                write!(f, "expected one of {names}, found {found}")
            }
            DecodeErrorKind::ExtType { expected, found } => {
                write!(f, "expected ext type {expected}, found {found}")
            }
            DecodeErrorKind::Together { first, last, found } => write!(
                f,
                "expected {first} and {last} both present or both absent, found {}, which end between them",
                Count(*found, "entry", "entries")
            ),
            DecodeErrorKind::TimestampLength { found } => write!(
                f,
                "expected a timestamp of 4, 8 or 12 bytes in its form, found {}",
                Count(*found, "byte", "bytes")
            ),
            DecodeErrorKind::Nanoseconds { found } => {
                write!(f, "expected nanoseconds in 0..=999999999, found {found}")
            }
            DecodeErrorKind::Depth { limit } => write!(f, "expected at most {limit} levels of nesting"),
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
        match self {
            EncodeErrorKind::LengthMismatch {
                count_entry,
                reference,
                expected,
                found,
            } => write!(
                f,
                "expected {} (the length of {reference}, both counted by {count_entry}), found {found}",
                Count(*expected, "element", "elements")
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
                let s = if *max == 1 { "" } else { "s" };
                write!(f, "expected at most {max} byte{s} for {wire}, found {found}")
            }
            EncodeErrorKind::Length { wire, min, max, found } => {
                if min == max {
                    write!(f, "expected a length of {max} for {wire}, found {found}")
                } else {
                    write!(f, "expected a length in {min}..={max} for {wire}, found {found}")
                }
            }
            EncodeErrorKind::Timestamp {
                form,
                seconds,
                nanoseconds,
            } => write!(
                f,
                "expected a time that {form} holds, found {seconds} s + {nanoseconds} ns"
            ),
            EncodeErrorKind::Together { first, last, present } => write!(
                f,
                "expected {first} and {last} both present or both absent, found only {present}"
            ),
            EncodeErrorKind::OptionalGap { absent } => write!(
                f,
                "expected this optional entry to be absent, as {absent}, which comes before it, is: only trailing entries can be left out"
            ),
            EncodeErrorKind::NotNamed { names, found } => write!(f, "expected one of {names}, found {found}"),
            EncodeErrorKind::BufferTooSmall { needed, available } => write!(
                f,
                "expected a buffer of at least {}, found {available}",
                Count(*needed, "byte", "bytes")
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

/// The marker bytes of a family, for messages: `0x00..=0x7f, 0xcc..=0xd3, 0xe0..=0xff`.
struct FamilyMarkers(Family);

impl fmt::Display for FamilyMarkers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut ranges: [(u8, u8); 8] = [(0, 0); 8];
        let mut n = 0;
        for w in self.0.wires() {
            let (lo, hi) = w.markers();
            if n > 0 && ranges[n - 1].1.wrapping_add(1) == lo {
                ranges[n - 1].1 = hi;
            } else if n < ranges.len() {
                ranges[n] = (lo, hi);
                n += 1;
            }
        }
        ranges[..n].sort_unstable();
        for (i, (lo, hi)) in ranges[..n].iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            if lo == hi {
                write!(f, "{lo:#04x}")?;
            } else {
                write!(f, "{lo:#04x}..={hi:#04x}")?;
            }
        }
        Ok(())
    }
}

/// `1 byte`, `2 bytes`: a count and its noun, in the singular or the plural.
/// A number of things, with the noun's singular and plural.
struct Count(usize, &'static str, &'static str);

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let noun = if self.0 == 1 { self.1 } else { self.2 };
        write!(f, "{} {noun}", self.0)
    }
}
