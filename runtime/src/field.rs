//! The Rust types a field may have: owned, fixed-size, fixed-capacity and borrowed.

use crate::decode::Decoder;
use crate::error::{DecodeError, DecodeErrorKind, Path};

/// A field type that holds an array entry: `Vec<T>`, `[T; N]`, or with the `arrayvec` feature
/// `arrayvec::ArrayVec<T, N>`.
///
/// ```
/// use metalayer_runtime::ArrayField;
///
/// assert_eq!(ArrayField::elements(&vec![1i64, 2]), &[1, 2]);
/// assert_eq!(ArrayField::elements(&[3i32; 2]), &[3, 3]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold an array entry of `{T}`",
    note = "use `Vec<{T}>`, `[{T}; N]`, or `arrayvec::ArrayVec<{T}, N>` with the `arrayvec` feature"
)]
pub trait ArrayField<T: Copy>: Sized {
    /// The elements to encode.
    fn elements(&self) -> &[T];

    /// Decodes `count` elements with `read`, after the array header at `at`. `wire_size` is the
    /// encoded size of one element: an owned field allocates no more elements than the input can
    /// still hold.
    ///
    /// ```
    /// use metalayer_runtime::{ArrayField, Decoder, Path};
    ///
    /// let bytes = [0xd2, 0, 0, 0, 3, 0xd2, 0, 0, 0, 4];
    /// let mut d = Decoder::new(&bytes, "x");
    /// let v: [i32; 2] = ArrayField::decode_elements(&mut d, 0, 2, 5, "chunkshape", |d, i| {
    ///     d.int::<4>(0xd2, "int32", Path::Element("chunkshape", i)).map(i32::from_be_bytes)
    /// })?;
    /// assert_eq!(v, [3, 4]);
    /// # Ok::<(), metalayer_runtime::DecodeError>(())
    /// ```
    fn decode_elements<'de, F>(
        d: &mut Decoder<'de>,
        at: usize,
        count: usize,
        wire_size: usize,
        entry: &'static str,
        read: F,
    ) -> Result<Self, DecodeError>
    where
        F: FnMut(&mut Decoder<'de>, usize) -> Result<T, DecodeError>;
}

#[cfg(feature = "alloc")]
impl<T: Copy> ArrayField<T> for alloc::vec::Vec<T> {
    #[inline]
    fn elements(&self) -> &[T] {
        self
    }

    #[inline]
    fn decode_elements<'de, F>(
        d: &mut Decoder<'de>,
        _at: usize,
        count: usize,
        wire_size: usize,
        _entry: &'static str,
        mut read: F,
    ) -> Result<Self, DecodeError>
    where
        F: FnMut(&mut Decoder<'de>, usize) -> Result<T, DecodeError>,
    {
        // Never reserve more elements than the rest of the input could encode: a hostile count
        // then costs at most the input's length.
        let mut out = alloc::vec::Vec::with_capacity(count.min(d.remaining() / wire_size.max(1)));
        for i in 0..count {
            out.push(read(d, i)?);
        }
        Ok(out)
    }
}

impl<T: Copy + Default, const N: usize> ArrayField<T> for [T; N] {
    #[inline]
    fn elements(&self) -> &[T] {
        self
    }

    #[inline]
    fn decode_elements<'de, F>(
        d: &mut Decoder<'de>,
        at: usize,
        count: usize,
        _wire_size: usize,
        entry: &'static str,
        mut read: F,
    ) -> Result<Self, DecodeError>
    where
        F: FnMut(&mut Decoder<'de>, usize) -> Result<T, DecodeError>,
    {
        if count != N {
            return Err(d.error_at(
                at,
                Path::Entry(entry),
                DecodeErrorKind::FixedLength {
                    expected: N,
                    found: count,
                },
            ));
        }
        let mut out = [T::default(); N];
        for (i, slot) in out.iter_mut().enumerate() {
            *slot = read(d, i)?;
        }
        Ok(out)
    }
}

#[cfg(feature = "arrayvec")]
impl<T: Copy, const N: usize> ArrayField<T> for arrayvec::ArrayVec<T, N> {
    #[inline]
    fn elements(&self) -> &[T] {
        self
    }

    #[inline]
    fn decode_elements<'de, F>(
        d: &mut Decoder<'de>,
        at: usize,
        count: usize,
        _wire_size: usize,
        entry: &'static str,
        mut read: F,
    ) -> Result<Self, DecodeError>
    where
        F: FnMut(&mut Decoder<'de>, usize) -> Result<T, DecodeError>,
    {
        if count > N {
            return Err(d.error_at(
                at,
                Path::Entry(entry),
                DecodeErrorKind::Capacity {
                    capacity: N,
                    found: count,
                },
            ));
        }
        let mut out = arrayvec::ArrayVec::new();
        for i in 0..count {
            // Cannot fail: count <= N was checked above.
            let _ = out.try_push(read(d, i)?);
        }
        Ok(out)
    }
}

/// A field type that holds a string entry: `String`, `Box<str>`, `&'de str` (borrowed from the
/// input, no copy), or with the `arrayvec` feature `arrayvec::ArrayString<N>`.
///
/// ```
/// use metalayer_runtime::StrField;
///
/// let s: &str = StrField::from_text("<i4").unwrap();
/// assert_eq!(StrField::text(&s), "<i4");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold a string entry",
    note = "use `String`, `Box<str>`, `&'a str`, or `arrayvec::ArrayString<N>` with the `arrayvec` feature"
)]
pub trait StrField<'de>: Sized {
    /// The text to encode.
    fn text(&self) -> &str;

    /// The field's value for decoded `text`, or `Err(capacity)` when it does not fit.
    ///
    /// ```
    /// use metalayer_runtime::StrField;
    ///
    /// let s: String = StrField::from_text("|u1").unwrap();
    /// assert_eq!(s, "|u1");
    /// ```
    fn from_text(text: &'de str) -> Result<Self, usize>;
}

impl<'de> StrField<'de> for &'de str {
    #[inline]
    fn text(&self) -> &str {
        self
    }

    #[inline]
    fn from_text(text: &'de str) -> Result<Self, usize> {
        Ok(text)
    }
}

#[cfg(feature = "alloc")]
impl<'de> StrField<'de> for alloc::string::String {
    #[inline]
    fn text(&self) -> &str {
        self
    }

    #[inline]
    fn from_text(text: &'de str) -> Result<Self, usize> {
        Ok(text.into())
    }
}

#[cfg(feature = "alloc")]
impl<'de> StrField<'de> for alloc::boxed::Box<str> {
    #[inline]
    fn text(&self) -> &str {
        self
    }

    #[inline]
    fn from_text(text: &'de str) -> Result<Self, usize> {
        Ok(text.into())
    }
}

#[cfg(feature = "arrayvec")]
impl<'de, const N: usize> StrField<'de> for arrayvec::ArrayString<N> {
    #[inline]
    fn text(&self) -> &str {
        self
    }

    #[inline]
    fn from_text(text: &'de str) -> Result<Self, usize> {
        arrayvec::ArrayString::from(text).map_err(|_| N)
    }
}
