//! The traits a field's type implements for each kind of entry: integers, floats, booleans,
//! byte strings and records bound to their own struct. Generated code names the trait, never
//! the type's spelling, so type aliases, newtypes and a user's own types work.

use crate::decode::Decoder;
use crate::encode::Encoder;
use crate::error::{DecodeError, DecodeErrorKind, EncodeError};

/// A field type that holds an integer entry: every Rust integer, or a user's type that
/// implements it. Its range, `MIN..=MAX`, must cover the entry's range for a fixed-width entry
/// (the build fails otherwise); for a canonical entry it bounds the values decoded.
///
/// ```
/// use metalayer_runtime::IntValue;
///
/// assert_eq!(<u8 as IntValue>::MAX, 255);
/// assert_eq!(i64::from_i128(-3).to_i128(), -3);
///
/// /// A user's own type.
/// #[derive(Clone, Copy)]
/// struct Level(u8);
/// impl IntValue for Level {
///     const MIN: i128 = 0;
///     const MAX: i128 = 9;
///     fn to_i128(self) -> i128 { self.0.into() }
///     fn from_i128(v: i128) -> Self { Level(v as u8) }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold an integer entry",
    label = "the schema gives this field an integer wire type",
    note = "use a Rust integer type (`u8`, `i32`, `i64`, ...) or implement `IntValue` for the type"
)]
pub trait IntValue: Copy {
    /// The smallest value the type holds.
    const MIN: i128;
    /// The largest value the type holds.
    const MAX: i128;
    /// The value, for the encoder.
    fn to_i128(self) -> i128;
    /// The type's value for `v`, which lies in `MIN..=MAX` (the decoder has checked).
    fn from_i128(v: i128) -> Self;
}

macro_rules! int_value {
    ($($t:ty),*) => {$(
        impl IntValue for $t {
            const MIN: i128 = <$t>::MIN as i128;
            const MAX: i128 = <$t>::MAX as i128;
            #[inline(always)]
            fn to_i128(self) -> i128 {
                self as i128
            }
            #[inline(always)]
            fn from_i128(v: i128) -> Self {
                v as $t
            }
        }
    )*};
}

int_value!(u8, u16, u32, u64, i8, i16, i32, i64);

/// The integer an int wire type of `N` payload bytes holds (`u8` for uint8 ... `i64` for
/// int64), read and written as its big-endian bytes. Generated code names it for an array of
/// such integers, so that the runtime's array code is compiled once per field and wire type
/// rather than once per entry.
///
/// ```
/// use metalayer_runtime::WireInt;
///
/// assert_eq!(<i32 as WireInt<4>>::from_be(*b"\xff\xff\xff\xfe"), -2);
/// assert_eq!(WireInt::<2>::to_be(0xbeef_u16), [0xbe, 0xef]);
/// ```
pub trait WireInt<const N: usize>: IntValue {
    /// The integer of the payload `bytes`.
    fn from_be(bytes: [u8; N]) -> Self;
    /// The payload bytes of the integer.
    fn to_be(self) -> [u8; N];
}

macro_rules! wire_int {
    ($($t:ty => $n:literal),*) => {$(
        impl WireInt<$n> for $t {
            #[inline(always)]
            fn from_be(bytes: [u8; $n]) -> Self {
                <$t>::from_be_bytes(bytes)
            }
            #[inline(always)]
            fn to_be(self) -> [u8; $n] {
                self.to_be_bytes()
            }
        }
    )*};
}

wire_int!(u8 => 1, u16 => 2, u32 => 4, u64 => 8, i8 => 1, i16 => 2, i32 => 4, i64 => 8);

/// The payload bytes of `element` as a `W`, converted as `as` converts integers (the encoder has
/// checked that it fits): what [`Encoder::int_array`](crate::Encoder::int_array) writes for each
/// element of an array of integers. As a function rather than a closure at each array entry, it
/// compiles the array code once per field and wire type.
///
/// ```
/// use metalayer_runtime::be_payload;
///
/// assert_eq!(be_payload::<i64, i32, 4>(&256), [0, 0, 1, 0]);
/// let payloads: Vec<[u8; 2]> = [1u8, 2].iter().map(be_payload::<u8, u16, 2>).collect();
/// assert_eq!(payloads, [[0, 1], [0, 2]]);
/// ```
#[inline(always)]
pub fn be_payload<E: IntValue, W: WireInt<N>, const N: usize>(element: &E) -> [u8; N] {
    W::from_i128(element.to_i128()).to_be()
}

/// A field type that holds a float entry: `f32` for float32, `f64` for float64 (a float64
/// entry in an `f32` would lose precision, and a float32 entry written from an `f64` too, so
/// the widths must match).
///
/// ```
/// use metalayer_runtime::FloatValue;
///
/// assert_eq!(<f32 as FloatValue>::BITS, 32);
/// assert_eq!(f64::from_bits_be(1.5f64.to_bits_be()), 1.5);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold a float entry",
    label = "the schema gives this field a float wire type",
    note = "use `f32` for float32 and `f64` for float64"
)]
pub trait FloatValue: Copy {
    /// 32 or 64: the wire type the field fits.
    const BITS: u32;
    /// The IEEE 754 bits, zero-extended to 64.
    fn to_bits_be(self) -> u64;
    /// The value of the bits.
    fn from_bits_be(bits: u64) -> Self;
}

impl FloatValue for f32 {
    const BITS: u32 = 32;
    #[inline]
    fn to_bits_be(self) -> u64 {
        u64::from(self.to_bits())
    }
    #[inline]
    fn from_bits_be(bits: u64) -> Self {
        f32::from_bits(bits as u32)
    }
}

impl FloatValue for f64 {
    const BITS: u32 = 64;
    #[inline]
    fn to_bits_be(self) -> u64 {
        self.to_bits()
    }
    #[inline]
    fn from_bits_be(bits: u64) -> Self {
        f64::from_bits(bits)
    }
}

/// A field type that holds a bool entry.
///
/// ```
/// use metalayer_runtime::BoolValue;
///
/// assert!(bool::from_bool(true).to_bool());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold a bool entry",
    label = "the schema gives this field the bool wire type",
    note = "use `bool` or implement `BoolValue` for the type"
)]
pub trait BoolValue: Copy {
    /// The value, for the encoder.
    fn to_bool(self) -> bool;
    /// The type's value for `v`.
    fn from_bool(v: bool) -> Self;
}

impl BoolValue for bool {
    #[inline]
    fn to_bool(self) -> bool {
        self
    }
    #[inline]
    fn from_bool(v: bool) -> Self {
        v
    }
}

/// A field type that holds a byte-string entry (bin, a raw str, an ext's data): `&'de [u8]`
/// (borrowed from the input), `Vec<u8>`, `Box<[u8]>`, `[u8; N]` (exactly N bytes), or with
/// the `arrayvec` feature `arrayvec::ArrayVec<u8, N>`.
///
/// ```
/// use metalayer_runtime::BinField;
///
/// let v: Vec<u8> = BinField::from_bytes(b"ab").unwrap();
/// assert_eq!(BinField::bytes(&v), b"ab");
/// assert!(<[u8; 3] as BinField>::from_bytes(b"ab").is_err());
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold a byte-string entry",
    label = "the schema gives this field a bin, raw str or ext wire type",
    note = "use `Vec<u8>`, `Box<[u8]>`, `&'a [u8]`, `[u8; N]`, or `arrayvec::ArrayVec<u8, N>` with the `arrayvec` feature"
)]
pub trait BinField<'de>: Sized {
    /// The fewest bytes the type holds: `N` for `[u8; N]`, else 0. Generated code checks at
    /// compile time that a byte string of fixed length (`len`) fits the type.
    ///
    /// ```
    /// use metalayer_runtime::BinField;
    ///
    /// assert_eq!((<[u8; 32] as BinField>::MIN_LEN, <[u8; 32] as BinField>::MAX_LEN), (32, 32));
    /// assert_eq!(<Vec<u8> as BinField>::MAX_LEN, usize::MAX);
    /// ```
    const MIN_LEN: usize = 0;
    /// The most bytes the type holds: `N` for `[u8; N]` and `ArrayVec<u8, N>`, else unbounded.
    const MAX_LEN: usize = usize::MAX;
    /// The bytes to encode.
    fn bytes(&self) -> &[u8];
    /// The field's value for decoded `bytes`, or what the error reports when they do not fit.
    fn from_bytes(bytes: &'de [u8]) -> Result<Self, DecodeErrorKind>;
}

impl<'de> BinField<'de> for &'de [u8] {
    #[inline]
    fn bytes(&self) -> &[u8] {
        self
    }
    #[inline]
    fn from_bytes(bytes: &'de [u8]) -> Result<Self, DecodeErrorKind> {
        Ok(bytes)
    }
}

#[cfg(feature = "alloc")]
impl<'de> BinField<'de> for alloc::vec::Vec<u8> {
    #[inline]
    fn bytes(&self) -> &[u8] {
        self
    }
    #[inline]
    fn from_bytes(bytes: &'de [u8]) -> Result<Self, DecodeErrorKind> {
        Ok(bytes.into())
    }
}

#[cfg(feature = "alloc")]
impl<'de> BinField<'de> for alloc::boxed::Box<[u8]> {
    #[inline]
    fn bytes(&self) -> &[u8] {
        self
    }
    #[inline]
    fn from_bytes(bytes: &'de [u8]) -> Result<Self, DecodeErrorKind> {
        Ok(bytes.into())
    }
}

impl<'de, const N: usize> BinField<'de> for [u8; N] {
    const MIN_LEN: usize = N;
    const MAX_LEN: usize = N;

    #[inline]
    fn bytes(&self) -> &[u8] {
        self
    }
    #[inline]
    fn from_bytes(bytes: &'de [u8]) -> Result<Self, DecodeErrorKind> {
        bytes.try_into().map_err(|_| DecodeErrorKind::FixedBytes {
            expected: N,
            found: bytes.len(),
        })
    }
}

#[cfg(feature = "arrayvec")]
impl<'de, const N: usize> BinField<'de> for arrayvec::ArrayVec<u8, N> {
    const MAX_LEN: usize = N;

    #[inline]
    fn bytes(&self) -> &[u8] {
        self
    }
    #[inline]
    fn from_bytes(bytes: &'de [u8]) -> Result<Self, DecodeErrorKind> {
        arrayvec::ArrayVec::try_from(bytes).map_err(|_| DecodeErrorKind::StrCapacity {
            capacity: N,
            found: bytes.len(),
        })
    }
}

/// An ext value whose type byte is a field rather than a constant of the schema.
///
/// ```
/// let e = metalayer_runtime::Ext { ty: 42, data: vec![1u8, 2] };
/// assert_eq!(e.ty, 42);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Ext<B> {
    /// The ext type byte.
    pub ty: i8,
    /// The data.
    pub data: B,
}

/// A struct bound to a record sub-layout of a schema (`#[metalayer(schema = "...", layout =
/// "...")]`), so that another struct's field can hold it. The generated code implements it;
/// paths in its errors are relative to the record, and the caller puts them in place.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold a record entry",
    label = "the schema gives this field a record type",
    note = "put `#[metalayer(schema = \"...\", layout = \"...\")]` on the struct, naming the schema's record type"
)]
pub trait Record<'de>: Sized {
    /// The schema and record type the struct is bound to, as `schema::type`.
    const LAYOUT: &'static str;
    /// The fewest bytes the record takes, which bounds what an array of them can claim.
    const MIN_SIZE: usize;
    /// Decodes the record at the decoder's position.
    fn decode_record(d: &mut Decoder<'de>) -> Result<Self, DecodeError>;
    /// Checks the values against the schema before anything is written.
    fn check_record(&self, schema: &'static str) -> Result<(), EncodeError>;
    /// The encoded size of a record that [`check_record`](Self::check_record) accepted.
    fn record_len(&self) -> usize;
    /// Writes the record.
    fn encode_record(&self, e: &mut Encoder<'_>);
}

/// A field type that holds an ext entry whose type byte is part of the value (not a constant
/// of the schema): [`Ext<B>`] with any [`BinField`] `B` for the data.
///
/// ```
/// use metalayer_runtime::{Ext, ExtField};
///
/// let e: Ext<&[u8]> = ExtField::from_parts(42, b"\x01\x02").unwrap();
/// assert_eq!((e.ext_type(), e.data()), (42, &b"\x01\x02"[..]));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold an ext entry with its type byte",
    label = "the schema gives this field an ext wire type without a constant `ext_type`",
    note = "use `metalayer::Ext<Vec<u8>>` or `metalayer::Ext<&'a [u8]>`; with `ext_type` set in the schema, a byte-string type holds the data alone"
)]
pub trait ExtField<'de>: Sized {
    /// The ext type byte.
    fn ext_type(&self) -> i8;
    /// The data.
    fn data(&self) -> &[u8];
    /// The field's value for a decoded type byte and data, or what the error reports.
    fn from_parts(ty: i8, data: &'de [u8]) -> Result<Self, DecodeErrorKind>;
}

impl<'de, B: BinField<'de>> ExtField<'de> for Ext<B> {
    #[inline]
    fn ext_type(&self) -> i8 {
        self.ty
    }
    #[inline]
    fn data(&self) -> &[u8] {
        self.data.bytes()
    }
    #[inline]
    fn from_parts(ty: i8, data: &'de [u8]) -> Result<Self, DecodeErrorKind> {
        Ok(Ext {
            ty,
            data: B::from_bytes(data)?,
        })
    }
}

/// One pair of a map entry, as an element of the [`ArrayField`](crate::ArrayField) that holds
/// the map: `(K, V)`. Pairs keep the order they are stored in, so a decoded map re-encodes to
/// the same bytes.
///
/// ```
/// use metalayer_runtime::Pair;
///
/// let p: (String, i64) = Pair::new("scale".to_string(), 3);
/// assert_eq!((p.key().as_str(), *p.value()), ("scale", 3));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold one pair of a map entry",
    label = "the schema gives this field a map wire type",
    note = "hold a map as `Vec<(K, V)>` (or another array type of `(K, V)` pairs), in stored order"
)]
pub trait Pair: Sized {
    /// The key's type.
    type Key;
    /// The value's type.
    type Value;
    /// A pair of `key` and `value`.
    fn new(key: Self::Key, value: Self::Value) -> Self;
    /// The key.
    fn key(&self) -> &Self::Key;
    /// The value.
    fn value(&self) -> &Self::Value;
}

impl<K, V> Pair for (K, V) {
    type Key = K;
    type Value = V;
    #[inline]
    fn new(key: K, value: V) -> Self {
        (key, value)
    }
    #[inline]
    fn key(&self) -> &K {
        &self.0
    }
    #[inline]
    fn value(&self) -> &V {
        &self.1
    }
}

/// A field type that holds an optional trailing entry: `Option<T>`, `None` when the record's
/// header says the entry is absent.
///
/// ```
/// use metalayer_runtime::OptionField;
///
/// let v: Option<u8> = OptionField::some(3);
/// assert_eq!(v.get(), Some(&3));
/// assert_eq!(<Option<u8> as OptionField>::none().get(), None);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold an optional entry",
    label = "the schema marks this entry `optional = true`",
    note = "wrap the entry's type in `Option<...>`"
)]
pub trait OptionField: Sized {
    /// The present value's type.
    type Inner;
    /// A present value.
    fn some(v: Self::Inner) -> Self;
    /// An absent value.
    fn none() -> Self;
    /// The value, if present.
    fn get(&self) -> Option<&Self::Inner>;
}

impl<T> OptionField for Option<T> {
    type Inner = T;
    #[inline]
    fn some(v: T) -> Self {
        Some(v)
    }
    #[inline]
    fn none() -> Self {
        None
    }
    #[inline]
    fn get(&self) -> Option<&T> {
        self.as_ref()
    }
}
