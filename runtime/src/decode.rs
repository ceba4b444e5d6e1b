//! The cursor generated decoders read with: every read is bounds-checked and every mismatch
//! becomes a [`DecodeError`] carrying the offset and the entry.

use crate::error::{DecodeError, DecodeErrorKind, Int, Path};
use crate::name::Name;
use crate::value::{IntValue, WireInt};

/// A strict reader over one metalayer's bytes.
///
/// Generated code drives it entry by entry; it is public so that hand-written code (and tests)
/// can decode the same way.
///
/// ```
/// use metalayer_runtime::{Decoder, Path};
///
/// let bytes = [0x92, 0xd3, 0, 0, 0, 0, 0, 0, 0x01, 0x90, 0x90];
/// let mut d = Decoder::new(&bytes, "example");
/// d.container(0x92)?;
/// let v = i64::from_be_bytes(d.int::<8>(0xd3, "int64", &Path::entry(&"a"))?);
/// d.array_header(0, "a", &Path::entry(&"b"))?;
/// assert_eq!(v, 400);
/// assert_eq!(d.position(), 11);
/// # Ok::<(), metalayer_runtime::DecodeError>(())
/// ```
#[derive(Debug)]
pub struct Decoder<'de> {
    input: &'de [u8],
    pos: usize,
    schema: &'static str,
}

impl<'de> Decoder<'de> {
    /// A decoder at the start of `input`, reporting errors under `schema`'s name.
    ///
    /// ```
    /// let d = metalayer_runtime::Decoder::new(&[0x90], "empty");
    /// assert_eq!(d.position(), 0);
    /// ```
    #[inline]
    pub const fn new(input: &'de [u8], schema: &'static str) -> Self {
        Decoder { input, pos: 0, schema }
    }

    /// The offset of the next byte to read.
    ///
    /// ```
    /// let mut d = metalayer_runtime::Decoder::new(&[0x90], "empty");
    /// d.container(0x90)?;
    /// assert_eq!(d.position(), 1);
    /// # Ok::<(), metalayer_runtime::DecodeError>(())
    /// ```
    #[inline]
    pub const fn position(&self) -> usize {
        self.pos
    }

    /// Moves past `n` bytes the caller has checked are there.
    #[inline]
    pub(crate) fn advance(&mut self, n: usize) {
        self.pos += n;
    }

    /// The whole input.
    #[inline]
    pub(crate) const fn input(&self) -> &'de [u8] {
        self.input
    }

    /// The schema errors are reported under.
    ///
    /// ```
    /// assert_eq!(metalayer_runtime::Decoder::new(&[], "b2nd_v1").schema(), "b2nd_v1");
    /// ```
    #[inline]
    pub const fn schema(&self) -> &'static str {
        self.schema
    }

    /// How many bytes are left.
    ///
    /// ```
    /// let d = metalayer_runtime::Decoder::new(&[1, 2, 3], "x");
    /// assert_eq!(d.remaining(), 3);
    /// ```
    #[inline]
    pub const fn remaining(&self) -> usize {
        self.input.len() - self.pos
    }

    /// An error at `offset` in `path`.
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, DecodeErrorKind, Path};
    ///
    /// let d = Decoder::new(&[], "b2nd_v1");
    /// let err = d.error_at(3, Path::entry(&"ndim"), DecodeErrorKind::NotFixint { found: 0xff });
    /// assert_eq!(err.to_string(), "b2nd_v1: at byte 0x03 in ndim: expected positive fixint 0x00..=0x7f, found 0xff");
    /// ```
    #[inline]
    pub fn error_at(&self, offset: usize, path: Path, kind: DecodeErrorKind) -> DecodeError {
        // Only values leave for the out-of-line constructor, never `self`: the decoder's
        // position can then stay in a register on the paths that do not fail.
        error(self.schema, offset, &path, kind)
    }

    /// [`error_at`](Self::error_at) for a path the caller keeps: the path is copied out of line,
    /// on the error's path only.
    #[inline]
    pub(crate) fn fail(&self, offset: usize, path: &Path, kind: DecodeErrorKind) -> DecodeError {
        error(self.schema, offset, path, kind)
    }

    #[inline]
    fn truncated(&self, needed: usize, path: &Path) -> DecodeError {
        truncated(self.schema, self.pos, needed, self.remaining(), path)
    }

    /// Checks that `needed` bytes are left, without consuming them.
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// let d = Decoder::new(&[1, 2], "x");
    /// assert!(d.require(2, &Path::entry(&"a")).is_ok());
    /// assert!(d.require(3, &Path::entry(&"a")).is_err());
    /// ```
    #[inline]
    pub fn require(&self, needed: usize, path: &Path) -> Result<(), DecodeError> {
        if self.remaining() < needed {
            return Err(self.truncated(needed, path));
        }
        Ok(())
    }

    /// Reads one byte.
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// let mut d = Decoder::new(&[7], "x");
    /// assert_eq!(d.byte(&Path::entry(&"a"))?, 7);
    /// assert!(d.byte(&Path::entry(&"a")).is_err());
    /// # Ok::<(), metalayer_runtime::DecodeError>(())
    /// ```
    #[inline]
    pub fn byte(&mut self, path: &Path) -> Result<u8, DecodeError> {
        match self.input.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(self.truncated(1, path)),
        }
    }

    /// Reads `N` bytes.
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// let mut d = Decoder::new(&[0, 0, 1, 0x90], "x");
    /// assert_eq!(u32::from_be_bytes(d.take::<4>(&Path::entry(&"a"))?), 400);
    /// # Ok::<(), metalayer_runtime::DecodeError>(())
    /// ```
    #[inline]
    pub fn take<const N: usize>(&mut self, path: &Path) -> Result<[u8; N], DecodeError> {
        match self.input.get(self.pos..).and_then(|rest| rest.first_chunk::<N>()) {
            Some(bytes) => {
                self.pos += N;
                Ok(*bytes)
            }
            None => Err(self.truncated(N, path)),
        }
    }

    /// Reads the marker byte and checks that it is `expected`.
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// let mut d = Decoder::new(&[0xd2], "b2nd_v1");
    /// let err = d.marker(0xd3, "int64", &Path::element(&"shape", 0)).unwrap_err();
    /// assert_eq!(err.to_string(), "b2nd_v1: at byte 0x00 in shape[0]: expected int64 marker 0xd3, found 0xd2");
    /// ```
    #[inline]
    pub fn marker(&mut self, expected: u8, wire: &'static str, path: &Path) -> Result<(), DecodeError> {
        let at = self.pos;
        let found = self.byte(path)?;
        if found != expected {
            return Err(self.fail(at, path, DecodeErrorKind::Marker { wire, expected, found }));
        }
        Ok(())
    }

    /// Reads the top-level container marker.
    ///
    /// ```
    /// let mut d = metalayer_runtime::Decoder::new(&[0x96], "b2nd_v1");
    /// let err = d.container(0x97).unwrap_err();
    /// assert_eq!(err.to_string(), "b2nd_v1: at byte 0x00 in the container: expected fixarray marker 0x97, found 0x96");
    /// ```
    #[inline]
    pub fn container(&mut self, expected: u8) -> Result<(), DecodeError> {
        self.marker(expected, "fixarray", &Path::CONTAINER)
    }

    /// Reads a positive fixint (a byte in 0x00..=0x7f, which is its own value).
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// let mut d = Decoder::new(&[0x05, 0x80], "x");
    /// assert_eq!(d.fixint(&Path::entry(&"ndim"))?, 5);
    /// assert!(d.fixint(&Path::entry(&"ndim")).is_err());
    /// # Ok::<(), metalayer_runtime::DecodeError>(())
    /// ```
    #[inline]
    pub fn fixint(&mut self, path: &Path) -> Result<u8, DecodeError> {
        let at = self.pos;
        let found = self.byte(path)?;
        if found > 0x7f {
            return Err(self.fail(at, path, DecodeErrorKind::NotFixint { found }));
        }
        Ok(found)
    }

    /// Reads a marker byte, checks it, then reads the `N` big-endian payload bytes.
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// let mut d = Decoder::new(&[0xd2, 0, 0, 0, 0x6e], "x");
    /// assert_eq!(i32::from_be_bytes(d.int::<4>(0xd2, "int32", &Path::element(&"chunkshape", 0))?), 110);
    /// # Ok::<(), metalayer_runtime::DecodeError>(())
    /// ```
    #[inline(always)]
    pub fn int<const N: usize>(&mut self, marker: u8, wire: &'static str, path: &Path) -> Result<[u8; N], DecodeError> {
        let rest = self.input.get(self.pos..).unwrap_or_default();
        match rest.split_first() {
            Some((&found, payload)) if found == marker => match payload.first_chunk::<N>() {
                Some(bytes) => {
                    self.pos += 1 + N;
                    Ok(*bytes)
                }
                None => Err(truncated(self.schema, self.pos + 1, N, payload.len(), path)),
            },
            Some((&found, _)) => Err(error(
                self.schema,
                self.pos,
                path,
                DecodeErrorKind::Marker {
                    wire,
                    expected: marker,
                    found,
                },
            )),
            None => Err(self.truncated(1, path)),
        }
    }

    /// The error [`array`](Self::array) reports: the first element that does not read.
    #[cold]
    #[inline(never)]
    fn array_error<const N: usize>(
        &self,
        count: usize,
        marker: u8,
        wire: &'static str,
        entry: &'static &'static str,
    ) -> DecodeError {
        let mut d = Decoder { ..*self };
        for i in 0..count {
            if let Err(e) = d.int::<N>(marker, wire, &Path::element(entry, i)) {
                return e;
            }
        }
        // Unreachable when called on a failed read; still an error that names the entry.
        truncated(
            self.schema,
            self.pos,
            count.saturating_mul(1 + N),
            self.remaining(),
            &Path::entry(entry),
        )
    }

    /// Reads a whole array entry into `field`: the header `0x90 + count`, then `count` elements,
    /// each a `marker` byte and the `N` big-endian payload bytes of a `W`. One bounds check covers
    /// all the elements, and their markers are checked together; on an error it names the same
    /// byte, entry and element as reading them one by one would.
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// let bytes = [0x92, 0xd2, 0, 0, 0, 7, 0xd2, 0, 0, 1, 0];
    /// let mut chunkshape: Vec<i64> = Vec::new();
    /// let mut d = Decoder::new(&bytes, "x");
    /// d.array::<_, i32, 4>(&mut chunkshape, 2, "ndim", 0xd2, "int32", &"chunkshape")?;
    /// assert_eq!(chunkshape, [7, 256]);
    ///
    /// let mut d = Decoder::new(&bytes[..9], "x");
    /// let err = d.array::<_, i32, 4>(&mut chunkshape, 2, "ndim", 0xd2, "int32", &"chunkshape").unwrap_err();
    /// assert_eq!(err.to_string(), "x: at byte 0x07 in chunkshape[1]: expected 4 more bytes, found 2");
    /// # Ok::<(), metalayer_runtime::DecodeError>(())
    /// ```
    // Generated code calls it, with a wire integer type (`WireInt`, hidden too) for `W`.
    #[doc(hidden)]
    #[inline(always)]
    pub fn array<F, W, const N: usize>(
        &mut self,
        field: &mut F,
        count: usize,
        count_entry: &'static str,
        marker: u8,
        wire: &'static str,
        entry: &'static &'static str,
    ) -> Result<(), DecodeError>
    where
        F: crate::ArrayField,
        F::Element: IntValue,
        W: WireInt<N>,
    {
        let at = self.pos;
        self.array_header(count, count_entry, &Path::entry(entry))?;
        if let Err(kind) = F::check_count(count) {
            return Err(self.fail(at, &Path::entry(entry), kind));
        }
        let rest = self.input.get(self.pos..).unwrap_or_default();
        let Some(bytes) = rest.get(..count * (1 + N)) else {
            return Err(self.array_error::<N>(count, marker, wire, entry));
        };
        let mut bad = 0u8;
        field.fill(bytes.chunks_exact(1 + N).map(|c| {
            bad |= c[0] ^ marker;
            let payload = W::from_be(c[1..].first_chunk::<N>().copied().unwrap_or([0; N]));
            F::Element::from_i128(payload.to_i128())
        }));
        if bad != 0 {
            return Err(self.array_error::<N>(count, marker, wire, entry));
        }
        self.pos += bytes.len();
        Ok(())
    }

    /// [`array`](Self::array) for an array of positive fixints: the header, then `count` bytes,
    /// each in 0x00..=0x7f.
    ///
    /// ```
    /// use metalayer_runtime::Decoder;
    ///
    /// let mut flags: [u8; 2] = [0; 2];
    /// Decoder::new(&[0x92, 1, 2], "x").fixint_array_into(&mut flags, 2, "n", &"flags")?;
    /// assert_eq!(flags, [1, 2]);
    /// # Ok::<(), metalayer_runtime::DecodeError>(())
    /// ```
    #[inline(always)]
    pub fn fixint_array_into<F>(
        &mut self,
        field: &mut F,
        count: usize,
        count_entry: &'static str,
        entry: &'static &'static str,
    ) -> Result<(), DecodeError>
    where
        F: crate::ArrayField,
        F::Element: crate::IntValue,
    {
        let at = self.pos;
        self.array_header(count, count_entry, &Path::entry(entry))?;
        if let Err(kind) = F::check_count(count) {
            return Err(self.fail(at, &Path::entry(entry), kind));
        }
        let bytes = self.fixint_array(count, entry)?;
        field.fill(bytes.iter().map(|&b| crate::IntValue::from_i128(i128::from(b))));
        Ok(())
    }

    /// Reads the `count` elements of an array of positive fixints: `count` bytes, each in
    /// 0x00..=0x7f.
    #[inline]
    fn fixint_array(&mut self, count: usize, entry: &'static &'static str) -> Result<&'de [u8], DecodeError> {
        let rest = self.input.get(self.pos..).unwrap_or_default();
        match rest.get(..count) {
            Some(bytes) if bytes.iter().fold(0, |acc, &b| acc | b) <= 0x7f => {
                self.pos += count;
                Ok(bytes)
            }
            _ => {
                let mut d = Decoder { ..*self };
                for i in 0..count {
                    d.fixint(&Path::element(entry, i))?;
                }
                Err(self.truncated(count, &Path::entry(entry)))
            }
        }
    }

    /// Checks that the input ends here: the last step of decoding a whole input.
    ///
    /// ```
    /// use metalayer_runtime::Decoder;
    ///
    /// let mut d = Decoder::new(&[0x90, 0x00], "x");
    /// d.container(0x90)?;
    /// let err = d.end().unwrap_err();
    /// assert_eq!(err.to_string(), "x: at byte 0x01 after the last entry: expected end of input, found 1 trailing byte");
    /// # Ok::<(), metalayer_runtime::DecodeError>(())
    /// ```
    #[inline]
    pub fn end(&self) -> Result<(), DecodeError> {
        match self.remaining() {
            0 => Ok(()),
            count => Err(self.fail(self.pos, &Path::END, DecodeErrorKind::TrailingBytes { count })),
        }
    }

    /// Reads an array header and checks that it is `0x90 + count` (c-blosc2's arithmetic, which
    /// gives 0xa0 for 16 elements).
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// let mut d = Decoder::new(&[0x93], "b2nd_v1");
    /// let err = d.array_header(2, "ndim", &Path::entry(&"shape")).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "b2nd_v1: at byte 0x00 in shape: expected array header 0x92 (0x90 + ndim 2), found 0x93"
    /// );
    /// ```
    #[inline]
    pub fn array_header(&mut self, count: usize, count_entry: &'static str, path: &Path) -> Result<(), DecodeError> {
        let at = self.pos;
        let found = self.byte(path)?;
        // The generated code checks `count` against the schema's max, which the schema checker
        // keeps at or below 0x6f, so the sum stays a byte.
        let expected = 0x90u8.wrapping_add(count as u8);
        if found != expected || count > 0x6f {
            return Err(self.fail(
                at,
                path,
                DecodeErrorKind::ArrayHeader {
                    count_entry: Name::new(count_entry),
                    count,
                    expected,
                    found,
                },
            ));
        }
        Ok(())
    }

    /// Reads a string: its marker, a big-endian length of `N` bytes, and that many bytes of UTF-8.
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// let bytes = [0xdb, 0, 0, 0, 3, b'<', b'i', b'4'];
    /// let mut d = Decoder::new(&bytes, "x");
    /// assert_eq!(d.str::<4>(0xdb, "str32", &Path::entry(&"dtype"))?, "<i4");
    ///
    /// let hostile = [0xdb, 0xff, 0xff, 0xff, 0xff, b'x'];
    /// let err = Decoder::new(&hostile, "b2nd_v1").str::<4>(0xdb, "str32", &Path::entry(&"dtype")).unwrap_err();
    /// assert_eq!(err.to_string(), "b2nd_v1: at byte 0x05 in dtype: expected 4294967295 more bytes, found 1");
    /// # Ok::<(), metalayer_runtime::DecodeError>(())
    /// ```
    #[inline(always)]
    pub fn str<const N: usize>(
        &mut self,
        marker: u8,
        wire: &'static str,
        path: &Path,
    ) -> Result<&'de str, DecodeError> {
        self.marker(marker, wire, path)?;
        let prefix = self.take::<N>(path)?;
        let mut len: u64 = 0;
        for b in prefix {
            len = (len << 8) | u64::from(b);
        }
        let len = usize::try_from(len).unwrap_or(usize::MAX);
        self.require(len, path)?;
        let start = self.pos;
        let bytes = &self.input[start..start + len];
        match core::str::from_utf8(bytes) {
            Ok(text) => {
                self.pos += len;
                Ok(text)
            }
            Err(e) => {
                let valid_up_to = e.valid_up_to();
                Err(self.fail(start + valid_up_to, path, DecodeErrorKind::InvalidUtf8 { valid_up_to }))
            }
        }
    }

    /// Fails unless `found` equals the schema's constant; `at` is the entry's offset.
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// let d = Decoder::new(&[1], "b2nd_v1");
    /// let err = d.constant(0, 1, 0, &Path::entry(&"version")).unwrap_err();
    /// assert_eq!(err.to_string(), "b2nd_v1: at byte 0x00 in version: expected constant 0, found 1");
    /// ```
    #[inline]
    pub fn constant(&self, at: usize, found: i128, expected: i128, path: &Path) -> Result<(), DecodeError> {
        if found != expected {
            return Err(self.fail(
                at,
                path,
                DecodeErrorKind::Constant {
                    expected: Int::new(expected),
                    found: Int::new(found),
                },
            ));
        }
        Ok(())
    }

    /// Fails unless `min <= found <= max`; `at` is the entry's offset.
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// let d = Decoder::new(&[17], "b2nd_v1");
    /// let err = d.range(0, 17, 0, 16, &Path::entry(&"ndim")).unwrap_err();
    /// assert_eq!(err.to_string(), "b2nd_v1: at byte 0x00 in ndim: expected a value in 0..=16, found 17");
    /// ```
    #[inline]
    pub fn range(&self, at: usize, found: i128, min: i128, max: i128, path: &Path) -> Result<(), DecodeError> {
        if found < min || found > max {
            return Err(self.fail(
                at,
                path,
                DecodeErrorKind::OutOfRange {
                    min: Int::new(min),
                    max: Int::new(max),
                    found: Int::new(found),
                },
            ));
        }
        Ok(())
    }
}

/// Builds an error out of line, from values only.
#[cold]
#[inline(never)]
fn error(schema: &'static str, offset: usize, path: &Path, kind: DecodeErrorKind) -> DecodeError {
    DecodeError::new(schema, offset, path.clone(), kind)
}

/// The error of an input that ends `available` bytes after `offset`, where `needed` are.
#[cold]
#[inline(never)]
fn truncated(schema: &'static str, offset: usize, needed: usize, available: usize, path: &Path) -> DecodeError {
    DecodeError::new(
        schema,
        offset,
        path.clone(),
        DecodeErrorKind::Truncated { needed, available },
    )
}
