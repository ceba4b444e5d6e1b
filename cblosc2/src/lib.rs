//! Safe wrappers over c-blosc2's `b2nd` metalayer functions, `b2nd_serialize_meta` and
//! `b2nd_deserialize_meta`, for differential tests and benchmarks against `metalayer`; and
//! [`Schunk`], a frame opened by c-blosc2's own reader (its metalayers, vlmetalayers and
//! chunks), to check frames this project writes.
//!
//! c-blosc2 comes from the `blosc2-src` crate, which vendors c-blosc2 2.15.3.dev and compiles it
//! with `cc` into a static library; [`ffi`] declares the two functions and `free`.
//!
//! ```
//! use metalayer::b2nd::B2ndV1;
//! use metalayer::prelude::*;
//!
//! let c_bytes = metalayer_cblosc2::serialize(&[10, 20], &[5, 20], &[5, 5], c"<f8", 0)?;
//! let ours = B2ndV1 {
//!     shape: vec![10, 20],
//!     chunkshape: vec![5, 20],
//!     blockshape: vec![5, 5],
//!     dtype_format: 0,
//!     dtype: "<f8".into(),
//! };
//! assert_eq!(ours.encode()?, c_bytes);
//!
//! let meta = metalayer_cblosc2::deserialize(&c_bytes)?;
//! assert_eq!(meta.shape, [10, 20]);
//! assert_eq!(meta.dtype, "<f8");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Safety of the decoding side
//!
//! **c-blosc2's reader does no bounds checking at all.** `b2nd_deserialize_meta` trusts the
//! `ndim` byte and the dtype's length prefix: it reads past the end of a short or malformed input
//! and writes `ndim` elements (up to 127) into the caller's arrays. It must only ever be fed a
//! well-formed `b2nd_v1` metalayer, whose `ndim` is at most 16.
//!
//! The safe functions [`deserialize`] and [`deserialize_into`] therefore first decode the input
//! strictly with this project's `b2nd_v1` decoder (without allocating) and return
//! [`CError::Invalid`] for anything it rejects. [`deserialize_into_unchecked`] skips that check
//! so that benchmarks time c-blosc2 alone; it is `unsafe` and its caller must guarantee a
//! well-formed input.
//!
//! # Dimensions
//!
//! The vendored c-blosc2 has `B2ND_MAX_DIM` 8, while the `b2nd_v1` layout allows 16 dimensions
//! (c-blosc2's limit since 2.21.3). The two metalayer functions do not use `B2ND_MAX_DIM`: they
//! read or write `ndim` elements of caller-sized arrays. These wrappers accept up to [`MAX_DIM`]
//! (16) dimensions and always give c-blosc2 room for 16 elements.
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

mod schunk;

pub use schunk::Schunk;

use std::error::Error;
use std::ffi::{CStr, c_char};
use std::fmt;
use std::ptr;

use arrayvec::ArrayVec;
use metalayer::prelude::*;

// Links the static c-blosc2 library that blosc2-src builds; its own bindings are not used.
use blosc2_src as _;

/// Raw declarations of the c-blosc2 functions, as in the vendored `include/b2nd.h`.
///
/// Calling them directly is for benchmarks that want to time c-blosc2 without the copies of the
/// safe wrappers. Neither needs `blosc2_init()`: they only use `malloc`, `memcpy` and byte
/// swapping.
///
/// ```
/// use std::ptr;
/// use metalayer_cblosc2::ffi;
///
/// let (shape, chunkshape, blockshape) = ([4i64], [2i32], [1i32]);
/// let mut smeta: *mut u8 = ptr::null_mut();
/// // SAFETY: each array holds ndim = 1 element, the dtype is NUL-terminated and `smeta` is a
/// // valid out pointer.
/// let len = unsafe {
///     ffi::b2nd_serialize_meta(
///         1, shape.as_ptr(), chunkshape.as_ptr(), blockshape.as_ptr(), c"<i4".as_ptr(), 0, &mut smeta,
///     )
/// };
/// assert_eq!(len, 12 + 19 + 3);
/// // SAFETY: on success c-blosc2 allocated `len` bytes with `malloc`; they are freed once here.
/// unsafe {
///     assert_eq!(*smeta, 0x97);
///     ffi::free(smeta.cast());
/// }
/// ```
pub mod ffi {
    use std::ffi::{c_char, c_int};

    unsafe extern "C" {
        /// Encodes a `b2nd` metalayer (layout `b2nd_v1`) into a buffer that it allocates with
        /// `malloc` and stores in `*smeta`; the caller frees it with [`free`]. Returns the
        /// number of bytes written, or a negative c-blosc2 error code (a negative
        /// `dtype_format` gives -1 and leaves `*smeta` untouched).
        ///
        /// # Safety
        ///
        /// `shape`, `chunkshape` and `blockshape` point to at least `ndim` elements each (`ndim`
        /// is not checked); `dtype` is a NUL-terminated string or null (which means `"|u1"`);
        /// `smeta` is valid for a write.
        pub fn b2nd_serialize_meta(
            ndim: i8,
            shape: *const i64,
            chunkshape: *const i32,
            blockshape: *const i32,
            dtype: *const c_char,
            dtype_format: i8,
            smeta: *mut *mut u8,
        ) -> c_int;

        /// Decodes a `b2nd` metalayer: stores `ndim`, writes `ndim` elements into each of
        /// `shape`, `chunkshape` and `blockshape`, and, when bytes remain after the block shape,
        /// `dtype_format` and a NUL-terminated copy of the dtype allocated with `malloc` in
        /// `*dtype` (the caller frees it with [`free`]). Without remaining bytes (a `caterva`
        /// metalayer) it stores a null dtype and `dtype_format` 0. Returns the number of bytes
        /// read. If `dtype` or `dtype_format` is null it stops after the block shape.
        ///
        /// # Safety
        ///
        /// Nothing is bounds-checked: `smeta` must hold a well-formed `b2nd_v1` or `caterva_v0`
        /// metalayer of `smeta_len` bytes whose `ndim` is at most the number of elements the
        /// three arrays can hold. Marker bytes are skipped unread.
        pub fn b2nd_deserialize_meta(
            smeta: *const u8,
            smeta_len: i32,
            ndim: *mut i8,
            shape: *mut i64,
            chunkshape: *mut i32,
            blockshape: *mut i32,
            dtype: *mut *mut c_char,
            dtype_format: *mut i8,
        ) -> c_int;
    }

    /// The C library's `free`, for the buffers the two functions above allocate.
    pub use libc::free;
}

/// The most dimensions the wrappers accept, and the number of elements of the arrays they hand
/// to c-blosc2: the `b2nd_v1` layout's limit.
pub const MAX_DIM: usize = 16;

/// Why a wrapper failed.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CError {
    /// `shape`, `chunkshape` and `blockshape` have different lengths, or more than [`MAX_DIM`].
    Dims {
        /// The length of `shape`.
        shape: usize,
        /// The length of `chunkshape`.
        chunkshape: usize,
        /// The length of `blockshape`.
        blockshape: usize,
    },
    /// The metalayer would be, or is, longer than `i32::MAX` bytes, which c-blosc2's lengths
    /// cannot express.
    TooLong(usize),
    /// c-blosc2 returned a negative error code.
    Status(i32),
    /// The input is not a well-formed `b2nd_v1` metalayer, so c-blosc2 was not called.
    Invalid(metalayer::DecodeError),
    /// c-blosc2 returned no dtype: the input ended after the block shape.
    NoDtype,
    /// c-blosc2 read a different number of bytes than the input holds.
    Length {
        /// The number of bytes c-blosc2 read.
        read: usize,
        /// The length of the input.
        len: usize,
    },
    /// c-blosc2 returned a dtype that is not UTF-8.
    NotUtf8,
    /// c-blosc2 could not open this frame file or directory (`blosc2_schunk_open` returned
    /// null).
    Open(String),
    /// A name that cannot be given to c-blosc2 (it holds a NUL byte).
    Missing(String),
}

impl fmt::Display for CError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CError::Dims {
                shape,
                chunkshape,
                blockshape,
            } => write!(
                f,
                "shape, chunkshape and blockshape must have the same length, at most {MAX_DIM}: \
                 found {shape}, {chunkshape} and {blockshape}"
            ),
            CError::TooLong(len) => write!(f, "a metalayer of {len} bytes is longer than c-blosc2 accepts"),
            CError::Status(code) => write!(f, "c-blosc2 returned error code {code}"),
            CError::Invalid(e) => write!(f, "not a well-formed b2nd_v1 metalayer: {e}"),
            CError::NoDtype => f.write_str("c-blosc2 returned no dtype"),
            CError::Length { read, len } => write!(f, "c-blosc2 read {read} of {len} bytes"),
            CError::NotUtf8 => f.write_str("c-blosc2 returned a dtype that is not UTF-8"),
            CError::Open(path) => write!(f, "c-blosc2 cannot open {path}"),
            CError::Missing(name) => write!(f, "{name:?} holds a NUL byte"),
        }
    }
}

impl Error for CError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            CError::Invalid(e) => Some(e),
            _ => None,
        }
    }
}

/// A buffer that c-blosc2 allocated with `malloc`; freed on drop, also when a closure panics.
struct Malloced<T>(*mut T);

impl<T> Drop for Malloced<T> {
    fn drop(&mut self) {
        // SAFETY: the pointer is null or was allocated by c-blosc2 with `malloc`, and only this
        // guard frees it.
        unsafe { ffi::free(self.0.cast()) }
    }
}

/// Checks that the three lengths agree and fit, and returns them as c-blosc2's `ndim`.
fn ndim_of(shape: &[i64], chunkshape: &[i32], blockshape: &[i32]) -> Result<i8, CError> {
    let n = shape.len();
    if n > MAX_DIM || chunkshape.len() != n || blockshape.len() != n {
        return Err(CError::Dims {
            shape: n,
            chunkshape: chunkshape.len(),
            blockshape: blockshape.len(),
        });
    }
    Ok(n as i8)
}

/// Encodes with c-blosc2's `b2nd_serialize_meta` and returns a copy of its bytes.
///
/// `dtype_format` must be in 0..=127: c-blosc2 rejects a negative one with error code -1.
///
/// ```
/// use metalayer_cblosc2::{CError, serialize};
///
/// let bytes = serialize(&[400, 3], &[110, 3], &[57, 3], c"|u1", 0)?;
/// assert_eq!(bytes.len(), 12 + 19 * 2 + 3);
/// assert_eq!(&bytes[..4], [0x97, 0x00, 0x02, 0x92]);
///
/// assert!(matches!(serialize(&[1, 2], &[1], &[1, 2], c"|u1", 0), Err(CError::Dims { .. })));
/// assert_eq!(serialize(&[], &[], &[], c"|u1", -1), Err(CError::Status(-1)));
/// # Ok::<(), CError>(())
/// ```
pub fn serialize(
    shape: &[i64],
    chunkshape: &[i32],
    blockshape: &[i32],
    dtype: &CStr,
    dtype_format: i8,
) -> Result<Vec<u8>, CError> {
    serialize_with(shape, chunkshape, blockshape, dtype, dtype_format, <[u8]>::to_vec)
}

/// Encodes with c-blosc2's `b2nd_serialize_meta`, passes c-blosc2's own buffer to `f`, frees it
/// and returns what `f` returns: [`serialize`] without the copy.
///
/// ```
/// use metalayer_cblosc2::serialize_with;
///
/// // c-blosc2 writes the array header 0x90 + ndim, which is 0xa0 for 16 dimensions.
/// let header = serialize_with(&[1; 16], &[1; 16], &[1; 16], c"<f8", 0, |bytes| bytes[3])?;
/// assert_eq!(header, 0xa0);
/// # Ok::<(), metalayer_cblosc2::CError>(())
/// ```
pub fn serialize_with<R>(
    shape: &[i64],
    chunkshape: &[i32],
    blockshape: &[i32],
    dtype: &CStr,
    dtype_format: i8,
    f: impl FnOnce(&[u8]) -> R,
) -> Result<R, CError> {
    let ndim = ndim_of(shape, chunkshape, blockshape)?;
    let dtype_len = dtype.count_bytes();
    let len = metalayer::b2nd::B2ndV1::encoded_len_for(shape.len(), dtype_len);
    if i32::try_from(len).is_err() {
        return Err(CError::TooLong(len));
    }
    let mut smeta: *mut u8 = ptr::null_mut();
    // SAFETY: each array holds `ndim` elements, all that c-blosc2 reads of them; `dtype` is
    // NUL-terminated; `smeta` is a valid out pointer; the length fits in an `i32`, so c-blosc2's
    // length arithmetic does not overflow.
    let status = unsafe {
        ffi::b2nd_serialize_meta(
            ndim,
            shape.as_ptr(),
            chunkshape.as_ptr(),
            blockshape.as_ptr(),
            dtype.as_ptr(),
            dtype_format,
            &mut smeta,
        )
    };
    // c-blosc2 may have allocated the buffer even when it reports an error.
    let buf = Malloced(smeta);
    if status < 0 || buf.0.is_null() {
        return Err(CError::Status(status));
    }
    // SAFETY: on success c-blosc2 returns the number of bytes it wrote into the buffer it
    // allocated, which `buf` keeps alive until after `f`.
    let bytes = unsafe { std::slice::from_raw_parts(buf.0, status as usize) };
    Ok(f(bytes))
}

/// What c-blosc2's `b2nd_deserialize_meta` decodes, in fixed arrays that can be reused from one
/// call to the next; the elements past `ndim` are left as they were.
///
/// ```
/// use metalayer_cblosc2::CMeta;
///
/// let meta = CMeta::default();
/// assert_eq!((meta.ndim, meta.shape.len()), (0, metalayer_cblosc2::MAX_DIM));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct CMeta {
    /// The number of dimensions.
    pub ndim: i8,
    /// The array's shape, in the first `ndim` elements.
    pub shape: [i64; MAX_DIM],
    /// The chunk shape, in the first `ndim` elements.
    pub chunkshape: [i32; MAX_DIM],
    /// The block shape, in the first `ndim` elements.
    pub blockshape: [i32; MAX_DIM],
    /// The dtype's format: 0 is NumPy.
    pub dtype_format: i8,
}

impl CMeta {
    /// `ndim` as a length, clamped to 0..=[`MAX_DIM`].
    ///
    /// ```
    /// let mut meta = metalayer_cblosc2::CMeta::default();
    /// meta.ndim = 3;
    /// assert_eq!(meta.dims(), 3);
    /// meta.ndim = -1;
    /// assert_eq!(meta.dims(), 0);
    /// ```
    pub fn dims(&self) -> usize {
        usize::try_from(self.ndim).unwrap_or(0).min(MAX_DIM)
    }
}

/// What c-blosc2's `b2nd_deserialize_meta` decodes, owned.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Meta {
    /// The array's shape; its length is `ndim`.
    pub shape: Vec<i64>,
    /// The chunk shape.
    pub chunkshape: Vec<i32>,
    /// The block shape.
    pub blockshape: Vec<i32>,
    /// The dtype's format: 0 is NumPy.
    pub dtype_format: i8,
    /// The dtype as c-blosc2 returns it: a NUL-terminated string, so a dtype that contains a NUL
    /// byte ends at the first one.
    pub dtype: String,
}

/// The `b2nd_v1` layout with fixed-capacity and borrowed fields: decoding it checks an input
/// strictly without allocating.
#[metalayer(schema = "b2nd_v1")]
struct Checked<'a> {
    shape: ArrayVec<i64, MAX_DIM>,
    chunkshape: ArrayVec<i32, MAX_DIM>,
    blockshape: ArrayVec<i32, MAX_DIM>,
    dtype_format: u8,
    dtype: &'a str,
}

/// Checks that `bytes` is a well-formed `b2nd_v1` metalayer that c-blosc2 can read safely.
fn check(bytes: &[u8]) -> Result<(), CError> {
    Checked::decode(bytes).map_err(CError::Invalid)?;
    if i32::try_from(bytes.len()).is_err() {
        return Err(CError::TooLong(bytes.len()));
    }
    Ok(())
}

/// Decodes with c-blosc2 into `out` and returns the dtype c-blosc2 allocated.
///
/// # Safety
///
/// As [`deserialize_into_unchecked`].
unsafe fn call_deserialize(bytes: &[u8], out: &mut CMeta) -> Result<Malloced<c_char>, CError> {
    let len = i32::try_from(bytes.len()).map_err(|_| CError::TooLong(bytes.len()))?;
    let mut dtype: *mut c_char = ptr::null_mut();
    // SAFETY: the caller guarantees a well-formed input of `len` bytes with `ndim` at most 16, so
    // c-blosc2 reads only within `bytes` and writes at most 16 elements into each array of `out`;
    // the other pointers are valid for writes.
    let read = unsafe {
        ffi::b2nd_deserialize_meta(
            bytes.as_ptr(),
            len,
            &mut out.ndim,
            out.shape.as_mut_ptr(),
            out.chunkshape.as_mut_ptr(),
            out.blockshape.as_mut_ptr(),
            &mut dtype,
            &mut out.dtype_format,
        )
    };
    let dtype = Malloced(dtype);
    if read < 0 {
        return Err(CError::Status(read));
    }
    if read as usize != bytes.len() {
        return Err(CError::Length {
            read: read as usize,
            len: bytes.len(),
        });
    }
    if dtype.0.is_null() {
        return Err(CError::NoDtype);
    }
    Ok(dtype)
}

/// Decodes with c-blosc2's `b2nd_deserialize_meta` into `out`, after checking that `bytes` is a
/// well-formed `b2nd_v1` metalayer; the dtype c-blosc2 allocates is freed (use [`deserialize`]
/// to get it).
///
/// ```
/// use metalayer_cblosc2::{CError, CMeta, deserialize_into, serialize};
///
/// let bytes = serialize(&[400, 3], &[110, 3], &[57, 3], c"|u1", 0)?;
/// let mut meta = CMeta::default();
/// deserialize_into(&bytes, &mut meta)?;
/// assert_eq!(meta.ndim, 2);
/// assert_eq!(meta.shape[..2], [400, 3]);
/// assert_eq!(meta.blockshape[..2], [57, 3]);
///
/// // A truncated input never reaches c-blosc2.
/// assert!(matches!(deserialize_into(&bytes[..20], &mut meta), Err(CError::Invalid(_))));
/// # Ok::<(), CError>(())
/// ```
pub fn deserialize_into(bytes: &[u8], out: &mut CMeta) -> Result<(), CError> {
    check(bytes)?;
    // SAFETY: `check` accepted `bytes` as a well-formed `b2nd_v1` metalayer.
    unsafe { call_deserialize(bytes, out) }.map(drop)
}

/// [`deserialize_into`] without the check of the input: c-blosc2 alone, for benchmarks.
///
/// Still returns an error when c-blosc2 reads a different number of bytes than `bytes` holds, or
/// returns no dtype; the dtype c-blosc2 allocates is freed.
///
/// ```
/// use metalayer_cblosc2::{CMeta, deserialize_into_unchecked, serialize};
///
/// let bytes = serialize(&[7], &[7], &[7], c"<i8", 0)?;
/// let mut meta = CMeta::default();
/// // SAFETY: c-blosc2 wrote these bytes: a well-formed b2nd_v1 metalayer with ndim 1.
/// unsafe { deserialize_into_unchecked(&bytes, &mut meta)? };
/// assert_eq!((meta.ndim, meta.shape[0]), (1, 7));
/// # Ok::<(), metalayer_cblosc2::CError>(())
/// ```
///
/// # Safety
///
/// c-blosc2 checks nothing: `bytes` must be a well-formed `b2nd_v1` metalayer (one that
/// `metalayer::b2nd::B2ndV1::decode` accepts), or at least hold the bytes its `ndim` byte
/// (at most 16) and its dtype length prefix promise. A `caterva_v0` metalayer is also safe; it
/// gives [`CError::NoDtype`].
pub unsafe fn deserialize_into_unchecked(bytes: &[u8], out: &mut CMeta) -> Result<(), CError> {
    // SAFETY: forwarded from this function's contract.
    unsafe { call_deserialize(bytes, out) }.map(drop)
}

/// Decodes with c-blosc2's `b2nd_deserialize_meta`, after checking that `bytes` is a well-formed
/// `b2nd_v1` metalayer, and frees what c-blosc2 allocated.
///
/// ```
/// use metalayer_cblosc2::{CError, deserialize, serialize};
///
/// let bytes = serialize(&[10, 20], &[5, 20], &[5, 5], c"<U12", 0)?;
/// let meta = deserialize(&bytes)?;
/// assert_eq!(meta.shape, [10, 20]);
/// assert_eq!(meta.chunkshape, [5, 20]);
/// assert_eq!(meta.blockshape, [5, 5]);
/// assert_eq!((meta.dtype_format, meta.dtype.as_str()), (0, "<U12"));
///
/// // 17 dimensions would overflow c-blosc2's arrays: refused before calling it.
/// let mut bad = bytes.clone();
/// bad[2] = 17;
/// assert!(matches!(deserialize(&bad), Err(CError::Invalid(_))));
/// # Ok::<(), CError>(())
/// ```
pub fn deserialize(bytes: &[u8]) -> Result<Meta, CError> {
    check(bytes)?;
    let mut c = CMeta::default();
    // SAFETY: `check` accepted `bytes` as a well-formed `b2nd_v1` metalayer.
    let dtype = unsafe { call_deserialize(bytes, &mut c) }?;
    // SAFETY: `call_deserialize` returned a non-null, NUL-terminated string that `dtype` owns.
    let dtype = unsafe { CStr::from_ptr(dtype.0) }
        .to_str()
        .map_err(|_| CError::NotUtf8)?
        .to_owned();
    let n = c.dims();
    Ok(Meta {
        shape: c.shape[..n].to_vec(),
        chunkshape: c.chunkshape[..n].to_vec(),
        blockshape: c.blockshape[..n].to_vec(),
        dtype_format: c.dtype_format,
        dtype,
    })
}
