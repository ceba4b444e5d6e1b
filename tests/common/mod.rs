//! Helpers shared by the integration tests: hex literals and value strategies.

// Each test binary uses only some of these.
#![allow(dead_code)]

use metalayer::b2nd::B2ndV1;
use metalayer::caterva::CatervaV0;
use proptest::prelude::*;

/// The bytes a hex string (no separators) spells.
pub fn unhex(hex: &str) -> Vec<u8> {
    assert!(hex.len().is_multiple_of(2), "odd hex length");
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

/// Any valid `B2ndV1`: ndim 0..=16, any integers, any printable dtype of up to 40 characters.
pub fn b2nd_v1() -> impl Strategy<Value = B2ndV1> {
    (0usize..=16).prop_flat_map(|ndim| {
        (
            prop::collection::vec(any::<i64>(), ndim),
            prop::collection::vec(any::<i32>(), ndim),
            prop::collection::vec(any::<i32>(), ndim),
            0u8..=0x7f,
            "\\PC{0,40}",
        )
            .prop_map(|(shape, chunkshape, blockshape, dtype_format, dtype)| B2ndV1 {
                shape,
                chunkshape,
                blockshape,
                dtype_format,
                dtype,
            })
    })
}

/// Any valid `CatervaV0`: ndim 0..=8, any integers.
pub fn caterva_v0() -> impl Strategy<Value = CatervaV0> {
    (0usize..=8).prop_flat_map(|ndim| {
        (
            prop::collection::vec(any::<i64>(), ndim),
            prop::collection::vec(any::<i32>(), ndim),
            prop::collection::vec(any::<i32>(), ndim),
        )
            .prop_map(|(shape, chunkshape, blockshape)| CatervaV0 {
                shape,
                chunkshape,
                blockshape,
            })
    })
}
