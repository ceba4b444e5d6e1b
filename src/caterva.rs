//! The ready-made type for the `caterva` metalayer.

use alloc::vec::Vec;

use crate::metalayer;

/// The 5-entry caterva layout (schema `caterva_v0`): `[version = 0, ndim, shape, chunkshape,
/// blockshape]` with `ndim` in 0..=8 and no dtype. caterva writes it under the name `caterva`;
/// early c-blosc2 briefly wrote it under the name `b2nd`.
///
/// Its encoded length is `6 + 19 * ndim` bytes.
///
/// ```
/// use metalayer::caterva::CatervaV0;
/// use metalayer::prelude::*;
///
/// // c-blosc2's bytes at commit b6e2e566.
/// let hex = "95000292d30000000000000190d3000000000000000392d20000006ed20000000392d200000039d200000003";
/// let bytes: Vec<u8> = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
/// let meta = CatervaV0::decode(&bytes)?;
/// assert_eq!(meta, CatervaV0 { shape: vec![400, 3], chunkshape: vec![110, 3], blockshape: vec![57, 3] });
/// assert_eq!(meta.encode()?, bytes);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[metalayer(schema = "caterva_v0")]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct CatervaV0 {
    /// The array's shape.
    pub shape: Vec<i64>,
    /// The shape of each chunk.
    pub chunkshape: Vec<i32>,
    /// The shape of each block.
    pub blockshape: Vec<i32>,
}
