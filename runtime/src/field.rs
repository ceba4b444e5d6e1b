//! The Rust types a field may have: owned, fixed-size, fixed-capacity and borrowed.

use crate::error::DecodeErrorKind;

/// A field type that holds an array entry: `Vec<T>`, `[T; N]`, or with the `arrayvec` feature
/// `arrayvec::ArrayVec<T, N>`.
///
/// ```
/// use metalayer_runtime::ArrayField;
///
/// assert_eq!(ArrayField::elements(&vec![1i64, 2]), &[1, 2]);
/// assert_eq!(ArrayField::elements(&[3i32; 2]), &[3, 3]);
///
/// // Elements may be anything the element's wire type binds to, arrays included.
/// let nested: Vec<Vec<String>> = vec![vec!["a".into()]];
/// assert_eq!(ArrayField::elements(&nested)[0], ["a"]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold an array or map entry",
    label = "the schema gives this field an array or map wire type",
    note = "use `Vec<T>`, `[T; N]`, or `arrayvec::ArrayVec<T, N>` with the `arrayvec` feature (for a map, of `(K, V)` pairs)"
)]
pub trait ArrayField: Sized {
    /// The type of one element.
    type Element;

    /// The fewest elements the type holds (`N` for `[T; N]`): the build fails when a schema
    /// allows no count the type can hold.
    ///
    /// ```
    /// use metalayer_runtime::ArrayField;
    ///
    /// assert_eq!((<[u8; 3] as ArrayField>::MIN_COUNT, <[u8; 3] as ArrayField>::MAX_COUNT), (3, 3));
    /// assert_eq!(<Vec<u8> as ArrayField>::MAX_COUNT, usize::MAX);
    /// ```
    const MIN_COUNT: usize = 0;
    /// The most elements the type holds (`N` for `[T; N]` and `ArrayVec<T, N>`).
    const MAX_COUNT: usize = usize::MAX;

    /// The elements to encode.
    fn elements(&self) -> &[Self::Element];

    /// Whether the type holds `count` elements, before any is read; if not, what the error
    /// reports ([`DecodeErrorKind::FixedLength`] or [`DecodeErrorKind::Capacity`]).
    ///
    /// ```
    /// use metalayer_runtime::{ArrayField, DecodeErrorKind};
    ///
    /// assert!(<Vec<i64> as ArrayField>::check_count(16).is_ok());
    /// assert_eq!(
    ///     <[i32; 2] as ArrayField>::check_count(3),
    ///     Err(DecodeErrorKind::FixedLength { expected: 2, found: 3 })
    /// );
    /// ```
    fn check_count(count: usize) -> Result<(), DecodeErrorKind>;

    /// The value a decoder starts from before it fills the field: empty, or zeros for `[T; N]`.
    /// It allocates nothing.
    ///
    /// ```
    /// use metalayer_runtime::ArrayField;
    ///
    /// assert_eq!(<[i32; 2] as ArrayField>::empty(), [0, 0]);
    /// assert!(<Vec<i64> as ArrayField>::empty().is_empty());
    /// ```
    fn empty() -> Self;

    /// Fills the field, which is [`empty`](Self::empty), with `elements`, whose number
    /// [`check_count`](Self::check_count) accepted. The decoder has read and checked them all
    /// before, so an owned field allocates once, and only for elements the input holds.
    ///
    /// ```
    /// use metalayer_runtime::ArrayField;
    ///
    /// let mut v: [i32; 2] = ArrayField::empty();
    /// ArrayField::fill(&mut v, [3, 4].into_iter());
    /// assert_eq!(v, [3, 4]);
    /// ```
    fn fill(&mut self, elements: impl ExactSizeIterator<Item = Self::Element>);

    /// Makes room for `count` elements, which [`check_count`](Self::check_count) accepted and
    /// the input was found to hold, before they are [`set`](Self::set) one by one.
    ///
    /// ```
    /// use metalayer_runtime::ArrayField;
    ///
    /// let mut v: Vec<String> = ArrayField::empty();
    /// ArrayField::reserve(&mut v, 2);
    /// assert!(v.capacity() >= 2);
    /// ```
    #[inline]
    fn reserve(&mut self, count: usize) {
        let _ = count;
    }

    /// Sets element `index`; a decoder calls it for 0, 1, 2, ... in order, after
    /// [`reserve`](Self::reserve).
    ///
    /// ```
    /// use metalayer_runtime::ArrayField;
    ///
    /// let mut v: [String; 2] = ArrayField::empty();
    /// ArrayField::set(&mut v, 1, "b".to_string());
    /// assert_eq!(v, ["", "b"]);
    /// ```
    fn set(&mut self, index: usize, value: Self::Element);
}

#[cfg(feature = "alloc")]
impl<T> ArrayField for alloc::vec::Vec<T> {
    type Element = T;

    #[inline]
    fn elements(&self) -> &[T] {
        self
    }

    #[inline]
    fn check_count(_count: usize) -> Result<(), DecodeErrorKind> {
        Ok(())
    }

    #[inline]
    fn empty() -> Self {
        alloc::vec::Vec::new()
    }

    #[inline(always)]
    fn fill(&mut self, elements: impl ExactSizeIterator<Item = T>) {
        let mut out = alloc::vec::Vec::with_capacity(elements.len());
        for v in elements {
            out.push(v);
        }
        *self = out;
    }

    #[inline]
    fn reserve(&mut self, count: usize) {
        self.reserve_exact(count);
    }

    #[inline]
    fn set(&mut self, _index: usize, value: T) {
        self.push(value);
    }
}

impl<T: Default, const N: usize> ArrayField for [T; N] {
    type Element = T;
    const MIN_COUNT: usize = N;
    const MAX_COUNT: usize = N;

    #[inline]
    fn elements(&self) -> &[T] {
        self
    }

    #[inline]
    fn check_count(count: usize) -> Result<(), DecodeErrorKind> {
        match count == N {
            true => Ok(()),
            false => Err(DecodeErrorKind::FixedLength {
                expected: N,
                found: count,
            }),
        }
    }

    #[inline]
    fn empty() -> Self {
        core::array::from_fn(|_| T::default())
    }

    #[inline(always)]
    fn fill(&mut self, elements: impl ExactSizeIterator<Item = T>) {
        for (slot, v) in self.iter_mut().zip(elements) {
            *slot = v;
        }
    }

    #[inline]
    fn set(&mut self, index: usize, value: T) {
        if let Some(slot) = self.get_mut(index) {
            *slot = value;
        }
    }
}

#[cfg(feature = "arrayvec")]
impl<T, const N: usize> ArrayField for arrayvec::ArrayVec<T, N> {
    type Element = T;
    const MAX_COUNT: usize = N;

    #[inline]
    fn elements(&self) -> &[T] {
        self
    }

    #[inline]
    fn check_count(count: usize) -> Result<(), DecodeErrorKind> {
        match count <= N {
            true => Ok(()),
            false => Err(DecodeErrorKind::Capacity {
                capacity: N,
                found: count,
            }),
        }
    }

    #[inline]
    fn empty() -> Self {
        arrayvec::ArrayVec::new()
    }

    #[inline(always)]
    fn fill(&mut self, elements: impl ExactSizeIterator<Item = T>) {
        for v in elements {
            // Cannot fail: `check_count` kept the number of elements within N.
            let _ = self.try_push(v);
        }
    }

    #[inline]
    fn set(&mut self, _index: usize, value: T) {
        // Cannot fail: `check_count` kept the number of elements within N.
        let _ = self.try_push(value);
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
    /// The most bytes of text the type holds: `N` for `ArrayString<N>`, else unbounded.
    /// Generated code checks at compile time that a string of fixed length (`len`) fits.
    ///
    /// ```
    /// use metalayer_runtime::StrField;
    ///
    /// assert_eq!(<String as StrField>::MAX_LEN, usize::MAX);
    /// ```
    const MAX_LEN: usize = usize::MAX;

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

    /// The value a decoder starts from before it sets the field: the empty string, without
    /// allocating.
    ///
    /// ```
    /// use metalayer_runtime::StrField;
    ///
    /// assert_eq!(<String as StrField>::empty(), "");
    /// ```
    fn empty() -> Self;
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

    #[inline]
    fn empty() -> Self {
        ""
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

    #[inline]
    fn empty() -> Self {
        alloc::string::String::new()
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

    #[inline]
    fn empty() -> Self {
        alloc::boxed::Box::default()
    }
}

#[cfg(feature = "arrayvec")]
impl<'de, const N: usize> StrField<'de> for arrayvec::ArrayString<N> {
    const MAX_LEN: usize = N;

    #[inline]
    fn text(&self) -> &str {
        self
    }

    #[inline]
    fn from_text(text: &'de str) -> Result<Self, usize> {
        arrayvec::ArrayString::from(text).map_err(|_| N)
    }

    #[inline]
    fn empty() -> Self {
        arrayvec::ArrayString::new()
    }
}
