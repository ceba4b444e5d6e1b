//! The length and offset `const fn`s generated from each built-in schema agree with `encode`
//! for every allowed ndim.

use metalayer::b2nd::{B2ndV0, B2ndV1};
use metalayer::caterva::CatervaV0;
use metalayer::prelude::*;

fn shapes(ndim: usize) -> (Vec<i64>, Vec<i32>, Vec<i32>) {
    let shape = (0..ndim as i64).map(|i| 0x0101_0101_0101 * (i + 1)).collect();
    let chunkshape = (0..ndim as i32).map(|i| 0x0202_0202 + i).collect();
    let blockshape = (0..ndim as i32).map(|i| 0x0303_0303 + i).collect();
    (shape, chunkshape, blockshape)
}

#[test]
fn b2nd_v1_formulas_match_encode_for_every_ndim() {
    assert_eq!(B2ndV1::LENGTH_FORMULA, "12 + 19*ndim + len(dtype)");
    for ndim in 0..=16 {
        for dtype in ["", "|u1", "<i4", "[('a', '<i4'), ('b', '<f8')]"] {
            let (shape, chunkshape, blockshape) = shapes(ndim);
            let v = B2ndV1 {
                shape,
                chunkshape,
                blockshape,
                dtype_format: 0,
                dtype: dtype.into(),
            };
            let bytes = v.encode().unwrap();
            let n = dtype.len();
            assert_eq!(B2ndV1::encoded_len_for(ndim, n), bytes.len());
            assert_eq!(bytes[B2ndV1::version_offset(ndim, n)], 0x00);
            assert_eq!(bytes[B2ndV1::ndim_offset(ndim, n)], ndim as u8);
            for (entry, offset) in [
                ("shape", B2ndV1::shape_offset(ndim, n)),
                ("chunkshape", B2ndV1::chunkshape_offset(ndim, n)),
                ("blockshape", B2ndV1::blockshape_offset(ndim, n)),
            ] {
                assert_eq!(bytes[offset], 0x90 + ndim as u8, "{entry} header, ndim {ndim}");
            }
            for i in 0..ndim {
                let at = B2ndV1::shape_element_offset(ndim, n, i);
                assert_eq!(bytes[at], 0xd3);
                assert_eq!(
                    i64::from_be_bytes(bytes[at + 1..at + 9].try_into().unwrap()),
                    v.shape[i]
                );
                let at = B2ndV1::chunkshape_element_offset(ndim, n, i);
                assert_eq!(bytes[at], 0xd2);
                assert_eq!(
                    i32::from_be_bytes(bytes[at + 1..at + 5].try_into().unwrap()),
                    v.chunkshape[i]
                );
                let at = B2ndV1::blockshape_element_offset(ndim, n, i);
                assert_eq!(
                    i32::from_be_bytes(bytes[at + 1..at + 5].try_into().unwrap()),
                    v.blockshape[i]
                );
            }
            assert_eq!(bytes[B2ndV1::dtype_format_offset(ndim, n)], 0);
            let at = B2ndV1::dtype_offset(ndim, n);
            assert_eq!(bytes[at], 0xdb);
            assert_eq!(&bytes[at + 5..], dtype.as_bytes());
        }
    }
}

#[test]
fn b2nd_v0_formulas_match_encode_for_every_ndim() {
    assert_eq!(B2ndV0::LENGTH_FORMULA, "11 + 19*ndim + len(dtype)");
    for ndim in 0..=8 {
        let (shape, chunkshape, blockshape) = shapes(ndim);
        let v = B2ndV0 {
            shape,
            chunkshape,
            blockshape,
            dtype: "uint8".into(),
        };
        let bytes = v.encode().unwrap();
        assert_eq!(B2ndV0::encoded_len_for(ndim, 5), bytes.len());
        let at = B2ndV0::dtype_offset(ndim, 5);
        assert_eq!((bytes[at], &bytes[at + 5..]), (0xdb, &b"uint8"[..]));
        for i in 0..ndim {
            let at = B2ndV0::blockshape_element_offset(ndim, 5, i);
            assert_eq!(
                i32::from_be_bytes(bytes[at + 1..at + 5].try_into().unwrap()),
                v.blockshape[i]
            );
        }
    }
}

#[test]
fn caterva_v0_formulas_match_encode_for_every_ndim() {
    assert_eq!(CatervaV0::LENGTH_FORMULA, "6 + 19*ndim");
    for ndim in 0..=8 {
        let (shape, chunkshape, blockshape) = shapes(ndim);
        let v = CatervaV0 {
            shape,
            chunkshape,
            blockshape,
        };
        let bytes = v.encode().unwrap();
        assert_eq!(CatervaV0::encoded_len_for(ndim), bytes.len());
        assert_eq!(bytes[CatervaV0::blockshape_offset(ndim)], 0x90 + ndim as u8);
        for i in 0..ndim {
            let at = CatervaV0::shape_element_offset(ndim, i);
            assert_eq!(
                i64::from_be_bytes(bytes[at + 1..at + 9].try_into().unwrap()),
                v.shape[i]
            );
            let at = CatervaV0::chunkshape_element_offset(ndim, i);
            assert_eq!(
                i32::from_be_bytes(bytes[at + 1..at + 5].try_into().unwrap()),
                v.chunkshape[i]
            );
        }
    }
}

/// The hand-derived example: shape[i]'s value at 5 + 9*i in b2nd_v1 (after its 0xd3).
#[test]
fn shape_value_offsets_by_hand() {
    for i in 0..16 {
        assert_eq!(B2ndV1::shape_element_offset(16, 3, i) + 1, 5 + 9 * i);
    }
}
