//! The writer generated encoders use, and the checks they run before writing anything.

use crate::error::{EncodeError, EncodeErrorKind, Int, Path};
use crate::name::Name;

/// A writer over exactly the bytes of one encoding.
///
/// Generated encoders check every value first, compute the length, then create the encoder:
/// a value that does not fit the schema is refused before a byte is written.
///
/// ```
/// use metalayer_runtime::Encoder;
///
/// let mut buf = [0u8; 4];
/// let mut e = Encoder::new(&mut buf, 3, "x")?;
/// e.byte(0x92);
/// e.bytes(&[1, 2]);
/// assert_eq!(e.finish(), 3);
/// assert_eq!(buf, [0x92, 1, 2, 0]);
/// # Ok::<(), metalayer_runtime::EncodeError>(())
/// ```
#[derive(Debug)]
pub struct Encoder<'b> {
    buf: &'b mut [u8],
    pos: usize,
}

impl<'b> Encoder<'b> {
    /// An encoder over the first `needed` bytes of `buf`, or an error when `buf` is shorter.
    ///
    /// ```
    /// use metalayer_runtime::Encoder;
    ///
    /// let err = Encoder::new(&mut [0u8; 2], 53, "b2nd_v1").unwrap_err();
    /// assert_eq!(err.to_string(), "b2nd_v1: expected a buffer of at least 53 bytes, found 2");
    /// ```
    #[inline]
    pub fn new(buf: &'b mut [u8], needed: usize, schema: &'static str) -> Result<Self, EncodeError> {
        let available = buf.len();
        match buf.get_mut(..needed) {
            Some(buf) => Ok(Encoder { buf, pos: 0 }),
            None => Err(EncodeError::new(
                schema,
                Path::CONTAINER,
                EncodeErrorKind::BufferTooSmall { needed, available },
            )),
        }
    }

    /// Writes one byte.
    ///
    /// ```
    /// let mut buf = [0u8; 1];
    /// let mut e = metalayer_runtime::Encoder::new(&mut buf, 1, "x")?;
    /// e.byte(0x90);
    /// assert_eq!(buf, [0x90]);
    /// # Ok::<(), metalayer_runtime::EncodeError>(())
    /// ```
    #[inline]
    pub fn byte(&mut self, b: u8) {
        self.buf[self.pos] = b;
        self.pos += 1;
    }

    /// Writes a run of bytes.
    ///
    /// ```
    /// let mut buf = [0u8; 3];
    /// let mut e = metalayer_runtime::Encoder::new(&mut buf, 3, "x")?;
    /// e.bytes(b"|u1");
    /// assert_eq!(&buf, b"|u1");
    /// # Ok::<(), metalayer_runtime::EncodeError>(())
    /// ```
    #[inline]
    pub fn bytes(&mut self, bytes: &[u8]) {
        self.buf[self.pos..self.pos + bytes.len()].copy_from_slice(bytes);
        self.pos += bytes.len();
    }

    /// Writes the elements of an array entry, each `marker` and its `N` payload bytes, with one
    /// bounds check for the whole array.
    ///
    /// ```
    /// use metalayer_runtime::Encoder;
    ///
    /// let mut buf = [0u8; 10];
    /// let mut e = Encoder::new(&mut buf, 10, "x")?;
    /// e.int_array(0xd2, [7i32, 256].iter().map(|v| v.to_be_bytes()));
    /// assert_eq!(e.finish(), 10);
    /// assert_eq!(buf, [0xd2, 0, 0, 0, 7, 0xd2, 0, 0, 1, 0]);
    /// # Ok::<(), metalayer_runtime::EncodeError>(())
    /// ```
    // Always inlined: the array entries of one field and wire type share one instance (each
    // passes `be_payload` for its types, not a closure of its own), and without this the
    // optimizer calls that shared instance instead of writing each array in place.
    #[inline(always)]
    pub fn int_array<const N: usize>(&mut self, marker: u8, payloads: impl ExactSizeIterator<Item = [u8; N]>) {
        let size = payloads.len() * (1 + N);
        let out = &mut self.buf[self.pos..self.pos + size];
        for (chunk, payload) in out.chunks_exact_mut(1 + N).zip(payloads) {
            chunk[0] = marker;
            chunk[1..].copy_from_slice(&payload);
        }
        self.pos += size;
    }

    /// The number of bytes written.
    ///
    /// ```
    /// let mut buf = [0u8; 1];
    /// let e = metalayer_runtime::Encoder::new(&mut buf, 1, "x")?;
    /// assert_eq!(e.finish(), 0);
    /// # Ok::<(), metalayer_runtime::EncodeError>(())
    /// ```
    #[inline]
    pub fn finish(self) -> usize {
        self.pos
    }
}

/// Checks that an array or map nested in an entry, at `path`, has the length its count entry
/// holds: the length of `reference`, the first entry it counts.
///
/// ```
/// use metalayer_runtime::{Path, check_counted};
///
/// let err = check_counted("x", Path::element(&"blocks", 1), "ndim", "shape", 2, 3).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "x: in blocks[1]: expected 2 elements (the length of shape, both counted by ndim), found 3"
/// );
/// ```
#[inline]
pub fn check_counted(
    schema: &'static str,
    path: Path,
    count_entry: &'static str,
    reference: &'static str,
    expected: usize,
    found: usize,
) -> Result<(), EncodeError> {
    if expected != found {
        let kind = EncodeErrorKind::LengthMismatch {
            count_entry: Name::new(count_entry),
            reference: Name::new(reference),
            expected,
            found,
        };
        return Err(EncodeError::new(schema, path, kind));
    }
    Ok(())
}

/// Checks that an array counted by `count_entry` has the length of the first array counted by it.
///
/// ```
/// let err = metalayer_runtime::check_same_len("b2nd_v1", "ndim", "shape", 2, &"chunkshape", 3).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "b2nd_v1: in chunkshape: expected 2 elements (the length of shape, both counted by ndim), found 3"
/// );
/// ```
#[inline]
pub fn check_same_len(
    schema: &'static str,
    count_entry: &'static str,
    reference: &'static str,
    expected: usize,
    entry: &'static &'static str,
    found: usize,
) -> Result<(), EncodeError> {
    if expected != found {
        return Err(EncodeError::new(
            schema,
            Path::entry(entry),
            EncodeErrorKind::LengthMismatch {
                count_entry: Name::new(count_entry),
                reference: Name::new(reference),
                expected,
                found,
            },
        ));
    }
    Ok(())
}

/// Checks that an array's length lies in its count's `min..=max`.
///
/// ```
/// let err = metalayer_runtime::check_count("b2nd_v1", "ndim", &"shape", 17, 0, 16).unwrap_err();
/// assert_eq!(err.to_string(), "b2nd_v1: in shape: expected a length in 0..=16 (stored in ndim), found 17");
/// ```
#[inline]
pub fn check_count(
    schema: &'static str,
    count_entry: &'static str,
    entry: &'static &'static str,
    found: usize,
    min: usize,
    max: usize,
) -> Result<(), EncodeError> {
    if found < min || found > max {
        return Err(EncodeError::new(
            schema,
            Path::entry(entry),
            EncodeErrorKind::CountOutOfRange {
                count_entry: Name::new(count_entry),
                min,
                max,
                found,
            },
        ));
    }
    Ok(())
}

/// Checks that an integer field, or one element of an array field, lies in `min..=max`.
///
/// ```
/// use metalayer_runtime::{check_range, Path};
///
/// let err = check_range("b2nd_v1", Path::entry(&"dtype_format"), 200, 0, 127).unwrap_err();
/// assert_eq!(err.to_string(), "b2nd_v1: in dtype_format: expected a value in 0..=127, found 200");
/// ```
#[inline]
pub fn check_range(schema: &'static str, path: Path, found: i128, min: i128, max: i128) -> Result<(), EncodeError> {
    if found < min || found > max {
        return Err(EncodeError::new(
            schema,
            path,
            EncodeErrorKind::OutOfRange {
                min: Int::new(min),
                max: Int::new(max),
                found: Int::new(found),
            },
        ));
    }
    Ok(())
}

/// Checks that a string fits its wire type's length prefix.
///
/// ```
/// let long = "x".repeat(256);
/// let err = metalayer_runtime::check_str_len("s", &"name", "str8", &long, 255).unwrap_err();
/// assert_eq!(err.to_string(), "s: in name: expected at most 255 bytes for str8, found 256");
/// ```
#[inline]
pub fn check_str_len(
    schema: &'static str,
    entry: &'static &'static str,
    wire: &'static str,
    text: &str,
    max: u64,
) -> Result<(), EncodeError> {
    if text.len() as u64 > max {
        return Err(EncodeError::new(
            schema,
            Path::entry(entry),
            EncodeErrorKind::StringTooLong {
                wire,
                max,
                found: text.len(),
            },
        ));
    }
    Ok(())
}

/// Checks that a length or count lies in `min..=max` for `wire` (a byte string, array or map
/// too long for its header, a fixext's data of another length, a fixed count).
///
/// ```
/// use metalayer_runtime::{check_len, Path};
///
/// let err = check_len("x", Path::entry(&"flags"), "fixext16", 16, 16, 3).unwrap_err();
/// assert_eq!(err.to_string(), "x: in flags: expected a length of 16 for fixext16, found 3");
/// ```
#[inline]
pub fn check_len(
    schema: &'static str,
    path: Path,
    wire: &'static str,
    min: u64,
    max: u64,
    found: usize,
) -> Result<(), EncodeError> {
    let found = found as u64;
    if found < min || found > max {
        return Err(EncodeError::new(
            schema,
            path,
            EncodeErrorKind::Length { wire, min, max, found },
        ));
    }
    Ok(())
}

/// Checks that an integer is one of the schema's named values.
///
/// ```
/// use metalayer_runtime::{check_named, Path};
///
/// let err = check_named("x", Path::entry(&"dtype_format"), 2, &[0], "numpy = 0").unwrap_err();
/// assert_eq!(err.to_string(), "x: in dtype_format: expected one of numpy = 0, found 2");
/// ```
#[inline]
pub fn check_named(
    schema: &'static str,
    path: Path,
    found: i128,
    values: &[i128],
    names: &'static str,
) -> Result<(), EncodeError> {
    if !values.contains(&found) {
        return Err(EncodeError::new(
            schema,
            path,
            EncodeErrorKind::NotNamed {
                names: Name::new(names),
                found: Int::new(found),
            },
        ));
    }
    Ok(())
}

/// Checks that an optional entry is absent when an optional entry before it, `absent`, is.
///
/// ```
/// use metalayer_runtime::{check_optional, Path};
///
/// let err = check_optional("x", Path::entry(&"dtype"), true, Some("dtype_format")).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "x: in dtype: expected this optional entry to be absent, as dtype_format, which comes before it, is: only trailing entries can be left out"
/// );
/// ```
#[inline]
pub fn check_optional(
    schema: &'static str,
    path: Path,
    present: bool,
    absent_before: Option<&'static str>,
) -> Result<(), EncodeError> {
    match (present, absent_before) {
        (true, Some(absent)) => Err(EncodeError::new(
            schema,
            path,
            EncodeErrorKind::OptionalGap {
                absent: Name::new(absent),
            },
        )),
        _ => Ok(()),
    }
}

/// Checks that two optional entries that go together (`together_with`), `first` and `last`,
/// are both present or both absent; the error is reported at `path`, the later entry's.
///
/// ```
/// use metalayer_runtime::{check_together, Path};
///
/// let err = check_together("x", Path::entry(&"dtype"), ("dtype_format", true), ("dtype", false)).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "x: in dtype: expected dtype_format and dtype both present or both absent, found only dtype_format"
/// );
/// assert!(check_together("x", Path::entry(&"dtype"), ("dtype_format", false), ("dtype", false)).is_ok());
/// ```
#[inline]
pub fn check_together(
    schema: &'static str,
    path: Path,
    (first, first_present): (&'static str, bool),
    (last, last_present): (&'static str, bool),
) -> Result<(), EncodeError> {
    if first_present == last_present {
        return Ok(());
    }
    let present = if first_present { first } else { last };
    Err(EncodeError::new(
        schema,
        path,
        EncodeErrorKind::Together {
            first: Name::new(first),
            last: Name::new(last),
            present: Name::new(present),
        },
    ))
}
