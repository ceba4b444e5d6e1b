//! Runtime support for the code that `#[metalayer(schema = "...")]` generates: the [`Metalayer`]
//! and [`Decode`] traits, the strict [`Decoder`] and the [`Encoder`], the field-type traits, and
//! errors that name the byte offset, the entry, what was expected and what was found.
//!
//! Users depend on the `metalayer` crate, which re-exports all of this; depend on this crate
//! directly only to write code that is generic over metalayer types.
//!
//! It is `no_std`; the `alloc` feature (on by default) adds `Vec`, `String` and `Box<str>`
//! field types and [`Metalayer::encode`].
//!
//! ```
//! use metalayer_runtime::{Decoder, Path};
//!
//! // The caterva layout starts with a fixarray of 5, version 0 and ndim.
//! let mut d = Decoder::new(&[0x95, 0x00, 0x02], "caterva_v0");
//! d.container(0x95)?;
//! assert_eq!(d.fixint(&Path::entry(&"version"))?, 0);
//! assert_eq!(d.fixint(&Path::entry(&"ndim"))?, 2);
//! # Ok::<(), metalayer_runtime::DecodeError>(())
//! ```
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod decode;
mod dispatch;
mod encode;
mod error;
mod fallback;
mod field;
mod name;
mod read;
mod timestamp;
mod value;
pub mod wire;
mod write;

pub use decode::Decoder;
pub use dispatch::{
    Candidate, CandidateOf, DispatchError, DispatchErrorOf, Fit, METALAYER_NAME_MAX_LEN, MetalayerName, Probe, ProbeOf,
    select,
};
pub use encode::Encoder;
pub use error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind, Int, PATH_DEPTH, Path};
pub use field::{ArrayField, StrField};
pub use name::Name;
pub use timestamp::{NANOS_MAX, TIMESTAMP_EXT_TYPE, TIMESTAMP_FORMS, Timestamp, TimestampField};
pub use value::{BinField, BoolValue, Ext, ExtField, FloatValue, IntValue, OptionField, Pair, Record};

// What the code `#[metalayer]` generates calls, and what the workspace's other crates share with
// it: public so that they can, hidden because no user calls them and they may change with the
// generator.
#[doc(hidden)]
pub use dispatch::{DecodeFn, dispatch, str_eq};
#[doc(hidden)]
pub use encode::{
    check_count, check_counted, check_len, check_named, check_optional, check_range, check_same_len, check_str_len,
    check_together,
};
#[doc(hidden)]
pub use timestamp::check_timestamp;
#[doc(hidden)]
pub use value::{WireInt, be_payload};
#[doc(hidden)]
pub use write::key_size;

#[cfg(feature = "arrayvec")]
pub use arrayvec;

/// A value with a fixed metalayer byte layout: its names and its encoder.
///
/// `#[metalayer(schema = "...")]` implements it from the schema; see the `metalayer` crate.
///
/// ```
/// use metalayer_runtime::{Encoder, EncodeError, EncodeErrorKind, Int, Metalayer, Path};
///
/// /// A hand-written layout: a fixarray of 1 holding a positive fixint.
/// struct Tiny(u8);
///
/// impl Metalayer for Tiny {
///     const NAME: &'static str = "tiny";
///     const SCHEMA: &'static str = "tiny_v0";
///     fn encoded_len(&self) -> usize { 2 }
///     fn encode_into(&self, buf: &mut [u8]) -> Result<usize, EncodeError> {
///         if self.0 > 0x7f {
///             let (min, max, found) = (Int::new(0), Int::new(0x7f), Int::new(self.0.into()));
///             let kind = EncodeErrorKind::OutOfRange { min, max, found };
///             return Err(EncodeError::new(Self::SCHEMA, Path::entry(&"value"), kind));
///         }
///         let mut e = Encoder::new(buf, 2, Self::SCHEMA)?;
///         e.byte(0x91);
///         e.byte(self.0);
///         Ok(e.finish())
///     }
/// }
///
/// assert_eq!(Tiny(5).encode()?, [0x91, 0x05]);
/// assert!(Tiny(0x80).encode().is_err());
/// # Ok::<(), EncodeError>(())
/// ```
pub trait Metalayer {
    /// The metalayer's name as stored in a Blosc2 frame (`b2nd`, `caterva`).
    const NAME: &'static str;
    /// The schema the layout comes from (`b2nd_v1`).
    const SCHEMA: &'static str;

    /// The exact length of the encoding of a value that encodes without error.
    ///
    /// ```
    /// # use metalayer_runtime::{Encoder, EncodeError, Metalayer};
    /// # struct Tiny(u8);
    /// # impl Metalayer for Tiny {
    /// #     const NAME: &'static str = "tiny";
    /// #     const SCHEMA: &'static str = "tiny_v0";
    /// #     fn encoded_len(&self) -> usize { 2 }
    /// #     fn encode_into(&self, buf: &mut [u8]) -> Result<usize, EncodeError> { unreachable!() }
    /// # }
    /// assert_eq!(Tiny(5).encoded_len(), 2);
    /// ```
    fn encoded_len(&self) -> usize;

    /// Encodes into the front of `buf` and returns the number of bytes written. Values that
    /// contradict the schema (arrays of one count with different lengths, a count over its
    /// maximum, a string too long for its length prefix) and a short buffer are errors, and then
    /// nothing is written.
    ///
    /// ```
    /// # use metalayer_runtime::{Encoder, EncodeError, Metalayer};
    /// # struct Tiny(u8);
    /// # impl Metalayer for Tiny {
    /// #     const NAME: &'static str = "tiny";
    /// #     const SCHEMA: &'static str = "tiny_v0";
    /// #     fn encoded_len(&self) -> usize { 2 }
    /// #     fn encode_into(&self, buf: &mut [u8]) -> Result<usize, EncodeError> {
    /// #         let mut e = Encoder::new(buf, 2, Self::SCHEMA)?; e.byte(0x91); e.byte(self.0); Ok(e.finish())
    /// #     }
    /// # }
    /// let mut buf = [0u8; 16];
    /// let n = Tiny(5).encode_into(&mut buf)?;
    /// assert_eq!(&buf[..n], [0x91, 0x05]);
    /// assert!(Tiny(5).encode_into(&mut [0u8; 1]).is_err());
    /// # Ok::<(), EncodeError>(())
    /// ```
    fn encode_into(&self, buf: &mut [u8]) -> Result<usize, EncodeError>;

    /// Encodes into a new `Vec` of exactly [`encoded_len`](Self::encoded_len) bytes.
    ///
    /// ```
    /// # use metalayer_runtime::{Encoder, EncodeError, Metalayer};
    /// # struct Tiny(u8);
    /// # impl Metalayer for Tiny {
    /// #     const NAME: &'static str = "tiny";
    /// #     const SCHEMA: &'static str = "tiny_v0";
    /// #     fn encoded_len(&self) -> usize { 2 }
    /// #     fn encode_into(&self, buf: &mut [u8]) -> Result<usize, EncodeError> {
    /// #         let mut e = Encoder::new(buf, 2, Self::SCHEMA)?; e.byte(0x91); e.byte(self.0); Ok(e.finish())
    /// #     }
    /// # }
    /// assert_eq!(Tiny(7).encode()?, vec![0x91, 0x07]);
    /// # Ok::<(), EncodeError>(())
    /// ```
    #[cfg(feature = "alloc")]
    fn encode(&self) -> Result<alloc::vec::Vec<u8>, EncodeError> {
        encode_to_vec(self.encoded_len(), |buf| self.encode_into(buf))
    }
}

/// Encodes with `write` into a new `Vec` of `len` bytes, which `write` fills from the front,
/// returning the number of bytes written; the `Vec` keeps those. [`Metalayer::encode`] and the
/// `encode` of a `#[metalayer(dispatch)]` enum are this over their `encoded_len` and
/// `encode_into`. Not a public API.
///
/// ```
/// let bytes = metalayer_runtime::encode_to_vec(3, |buf| {
///     buf[..2].copy_from_slice(&[0x91, 0x05]);
///     Ok(2)
/// })?;
/// assert_eq!(bytes, [0x91, 0x05]);
/// # Ok::<(), metalayer_runtime::EncodeError>(())
/// ```
#[cfg(feature = "alloc")]
#[doc(hidden)]
pub fn encode_to_vec(
    len: usize,
    write: impl FnOnce(&mut [u8]) -> Result<usize, EncodeError>,
) -> Result<alloc::vec::Vec<u8>, EncodeError> {
    // `with_capacity` and `resize` rather than `vec![0; len]`: malloc and a short memset are
    // cheaper than calloc for buffers this small.
    #[allow(clippy::slow_vector_initialization, reason = "calloc measured slower here")]
    let mut out = alloc::vec::Vec::with_capacity(len);
    out.resize(len, 0u8);
    let written = write(&mut out)?;
    out.truncate(written);
    Ok(out)
}

/// What the `encode` of a dispatch enum returns a `Vec` of. Not a public API.
#[cfg(feature = "alloc")]
#[doc(hidden)]
pub mod __alloc {
    pub use alloc::vec::Vec;
}

/// A value decoded strictly from a metalayer's bytes; `'de` is the input's lifetime, which
/// borrowed fields (`&'de str`) keep.
///
/// ```
/// use metalayer_runtime::{Decode, DecodeError, Decoder, EncodeError, Encoder, Metalayer, Path};
///
/// #[derive(Debug)]
/// struct Tiny(u8);
/// # impl Metalayer for Tiny {
/// #     const NAME: &'static str = "tiny";
/// #     const SCHEMA: &'static str = "tiny_v0";
/// #     fn encoded_len(&self) -> usize { 2 }
/// #     fn encode_into(&self, buf: &mut [u8]) -> Result<usize, EncodeError> { unreachable!() }
/// # }
/// impl<'de> Decode<'de> for Tiny {
///     fn decode_prefix(input: &'de [u8]) -> Result<(Self, usize), DecodeError> {
///         let mut d = Decoder::new(input, Self::SCHEMA);
///         d.container(0x91)?;
///         let v = d.fixint(&Path::entry(&"value"))?;
///         Ok((Tiny(v), d.position()))
///     }
/// }
///
/// assert_eq!(Tiny::decode(&[0x91, 0x05])?.0, 5);
/// assert_eq!(
///     Tiny::decode(&[0x91, 0x05, 0x00]).unwrap_err().to_string(),
///     "tiny_v0: at byte 0x02 after the last entry: expected end of input, found 1 trailing byte"
/// );
/// # Ok::<(), DecodeError>(())
/// ```
pub trait Decode<'de>: Metalayer + Sized {
    /// Decodes a value from the front of `input` and returns it with the number of bytes read.
    ///
    /// ```
    /// # use metalayer_runtime::{Decode, DecodeError, Decoder, EncodeError, Metalayer, Path};
    /// # struct Tiny(u8);
    /// # impl Metalayer for Tiny {
    /// #     const NAME: &'static str = "tiny";
    /// #     const SCHEMA: &'static str = "tiny_v0";
    /// #     fn encoded_len(&self) -> usize { 2 }
    /// #     fn encode_into(&self, buf: &mut [u8]) -> Result<usize, EncodeError> { unreachable!() }
    /// # }
    /// # impl<'de> Decode<'de> for Tiny {
    /// #     fn decode_prefix(input: &'de [u8]) -> Result<(Self, usize), DecodeError> {
    /// #         let mut d = Decoder::new(input, Self::SCHEMA);
    /// #         d.container(0x91)?;
    /// #         let v = d.fixint(&Path::entry(&"value"))?;
    /// #         Ok((Tiny(v), d.position()))
    /// #     }
    /// # }
    /// let (tiny, used) = Tiny::decode_prefix(&[0x91, 0x05, 0xff])?;
    /// assert_eq!((tiny.0, used), (5, 2));
    /// # Ok::<(), DecodeError>(())
    /// ```
    fn decode_prefix(input: &'de [u8]) -> Result<(Self, usize), DecodeError>;

    /// Decodes a value that must fill all of `input`: trailing bytes are an error.
    ///
    /// ```
    /// # use metalayer_runtime::{Decode, DecodeError, Decoder, EncodeError, Metalayer, Path};
    /// # struct Tiny(u8);
    /// # impl Metalayer for Tiny {
    /// #     const NAME: &'static str = "tiny";
    /// #     const SCHEMA: &'static str = "tiny_v0";
    /// #     fn encoded_len(&self) -> usize { 2 }
    /// #     fn encode_into(&self, buf: &mut [u8]) -> Result<usize, EncodeError> { unreachable!() }
    /// # }
    /// # impl<'de> Decode<'de> for Tiny {
    /// #     fn decode_prefix(input: &'de [u8]) -> Result<(Self, usize), DecodeError> {
    /// #         let mut d = Decoder::new(input, Self::SCHEMA);
    /// #         d.container(0x91)?;
    /// #         let v = d.fixint(&Path::entry(&"value"))?;
    /// #         Ok((Tiny(v), d.position()))
    /// #     }
    /// # }
    /// assert!(Tiny::decode(&[0x91, 0x05]).is_ok());
    /// assert!(Tiny::decode(&[0x91]).is_err());
    /// ```
    #[inline]
    fn decode(input: &'de [u8]) -> Result<Self, DecodeError> {
        let (value, used) = Self::decode_prefix(input)?;
        if used != input.len() {
            return Err(DecodeError::new(
                Self::SCHEMA,
                used,
                Path::END,
                DecodeErrorKind::TrailingBytes {
                    count: input.len() - used,
                },
            ));
        }
        Ok(value)
    }
}

/// A [`Decode`] type that borrows nothing from its input.
///
/// ```
/// fn load<T: metalayer_runtime::DecodeOwned>(bytes: Vec<u8>) -> Result<T, metalayer_runtime::DecodeError> {
///     T::decode(&bytes)
/// }
/// ```
pub trait DecodeOwned: for<'de> Decode<'de> {}

impl<T: for<'de> Decode<'de>> DecodeOwned for T {}
