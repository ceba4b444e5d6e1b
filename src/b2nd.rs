//! Ready-made types for the `b2nd` metalayer, one per built-in schema.

use alloc::string::String;
use alloc::vec::Vec;

use crate::metalayer;

/// The 7-entry `b2nd` layout that every c-blosc2 release writes (schema `b2nd_v1`):
/// `[version = 0, ndim, shape, chunkshape, blockshape, dtype_format, dtype]`, with `ndim` in
/// 0..=16 and the dtype in NumPy's `dtype.str` form when `dtype_format` is 0.
///
/// Its encoded length is `12 + 19 * ndim + dtype.len()` bytes.
///
/// ```
/// use metalayer::b2nd::B2ndV1;
/// use metalayer::prelude::*;
///
/// // c-blosc2's bytes for a (400, 3) array of "|u1" (commit f7beca08, test data of its plugins).
/// let hex = "97000292d30000000000000190d3000000000000000392d20000006ed20000000392d200000039d20000000300db000000037c7531";
/// let bytes: Vec<u8> = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
/// let meta = B2ndV1::decode(&bytes)?;
/// assert_eq!(meta.shape, [400, 3]);
/// assert_eq!(meta.chunkshape, [110, 3]);
/// assert_eq!(meta.blockshape, [57, 3]);
/// assert_eq!(meta.dtype, "|u1");
/// assert_eq!(meta.encode()?, bytes);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[metalayer(schema = "b2nd_v1")]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct B2ndV1 {
    /// The array's shape.
    pub shape: Vec<i64>,
    /// The shape of each chunk.
    pub chunkshape: Vec<i32>,
    /// The shape of each block.
    pub blockshape: Vec<i32>,
    /// The dtype's format: 0 is NumPy.
    pub dtype_format: u8,
    /// The dtype, such as `"<i4"`.
    pub dtype: String,
}

/// The 6-entry `b2nd` layout that c-blosc2 wrote for a few days in February 2023 (schema
/// `b2nd_v0`): like [`B2ndV1`] without `dtype_format`, and the dtype as NumPy's repr (`"uint8"`).
/// No release wrote it.
///
/// ```
/// use metalayer::b2nd::B2ndV0;
/// use metalayer::prelude::*;
///
/// // c-blosc2's bytes at commit 1e65a17e.
/// let hex = "96000292d30000000000000190d3000000000000000392d20000006ed20000000392d200000039d200000003db0000000575696e7438";
/// let bytes: Vec<u8> = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
/// let meta = B2ndV0::decode(&bytes)?;
/// assert_eq!(meta.dtype, "uint8");
/// assert_eq!(meta.encode()?, bytes);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[metalayer(schema = "b2nd_v0")]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct B2ndV0 {
    /// The array's shape.
    pub shape: Vec<i64>,
    /// The shape of each chunk.
    pub chunkshape: Vec<i32>,
    /// The shape of each block.
    pub blockshape: Vec<i32>,
    /// The dtype as NumPy's repr, such as `"uint8"`.
    pub dtype: String,
}
