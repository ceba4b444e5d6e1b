//! Property tests: every valid value round-trips, every input that decodes re-encodes to
//! exactly itself (strict decoding is injective), and every supported field type agrees.

mod common;

use arrayvec::{ArrayString, ArrayVec};
use common::{b2nd_v1, caterva_v0};
use metalayer::b2nd::{B2ndV0, B2ndV1};
use metalayer::caterva::CatervaV0;
use metalayer::prelude::*;
use proptest::prelude::*;

#[metalayer(schema = "b2nd_v1")]
#[derive(Debug, PartialEq)]
struct Borrowed<'a> {
    shape: ArrayVec<i64, 16>,
    chunkshape: ArrayVec<i32, 16>,
    blockshape: ArrayVec<i32, 16>,
    dtype_format: u8,
    dtype: &'a str,
}

#[metalayer(schema = "b2nd_v1")]
#[derive(Debug, PartialEq)]
struct Fixed {
    shape: [i64; 3],
    chunkshape: [i32; 3],
    blockshape: ArrayVec<i32, 8>,
    dtype_format: u8,
    dtype: ArrayString<8>,
}

#[metalayer(schema = "b2nd_v1")]
#[derive(Debug, PartialEq)]
struct Boxed {
    shape: Vec<i64>,
    chunkshape: Vec<i32>,
    blockshape: Vec<i32>,
    dtype_format: u8,
    dtype: Box<str>,
}

proptest! {
    #[test]
    fn b2nd_v1_round_trips(v in b2nd_v1()) {
        let bytes = v.encode().unwrap();
        prop_assert_eq!(bytes.len(), 12 + 19 * v.shape.len() + v.dtype.len());
        prop_assert_eq!(bytes.len(), v.encoded_len());
        prop_assert_eq!(&B2ndV1::decode(&bytes).unwrap(), &v);

        // Every field type reads the same bytes to the same values.
        let borrowed = Borrowed::decode(&bytes).unwrap();
        prop_assert_eq!(borrowed.shape.as_slice(), v.shape.as_slice());
        prop_assert_eq!(borrowed.dtype, v.dtype.as_str());
        prop_assert_eq!(borrowed.encode().unwrap(), bytes.clone());
        let boxed = Boxed::decode(&bytes).unwrap();
        prop_assert_eq!(&*boxed.dtype, v.dtype.as_str());
        prop_assert_eq!(boxed.encode().unwrap(), bytes.clone());
        match Fixed::decode(&bytes) {
            Ok(fixed) => {
                prop_assert_eq!(fixed.shape.as_slice(), v.shape.as_slice());
                prop_assert_eq!(fixed.encode().unwrap(), bytes.clone());
            }
            Err(e) => prop_assert!(v.shape.len() != 3 || v.dtype.len() > 8, "{}", e),
        }
    }

    #[test]
    fn caterva_v0_round_trips(v in caterva_v0()) {
        let bytes = v.encode().unwrap();
        prop_assert_eq!(bytes.len(), 6 + 19 * v.shape.len());
        prop_assert_eq!(&CatervaV0::decode(&bytes).unwrap(), &v);
    }

    #[test]
    fn b2nd_v0_round_trips(v in caterva_v0(), dtype in "\\PC{0,20}") {
        let v = B2ndV0 { shape: v.shape, chunkshape: v.chunkshape, blockshape: v.blockshape, dtype };
        let bytes = v.encode().unwrap();
        prop_assert_eq!(&B2ndV0::decode(&bytes).unwrap(), &v);
    }

    /// Any input that decodes re-encodes to exactly itself: mutate valid encodings and check.
    #[test]
    fn decoded_inputs_re_encode_exactly(v in b2nd_v1(), at in any::<prop::sample::Index>(), byte in any::<u8>(), cut in any::<prop::sample::Index>()) {
        let mut bytes = v.encode().unwrap();
        let i = at.index(bytes.len());
        bytes[i] = byte;
        for input in [&bytes[..], &bytes[..cut.index(bytes.len() + 1)]] {
            if let Ok(decoded) = B2ndV1::decode(input) {
                prop_assert_eq!(decoded.encode().unwrap(), input.to_vec());
            }
            if let Ok((decoded, used)) = B2ndV1::decode_prefix(input) {
                prop_assert_eq!(decoded.encode().unwrap(), input[..used].to_vec());
            }
            if let Ok(decoded) = CatervaV0::decode(input) {
                prop_assert_eq!(decoded.encode().unwrap(), input.to_vec());
            }
        }
    }

    /// Arbitrary bytes never panic, and whatever decodes re-encodes to itself.
    #[test]
    fn arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..120)) {
        if let Ok(v) = B2ndV1::decode(&bytes) {
            prop_assert_eq!(v.encode().unwrap(), bytes.clone());
        }
        if let Ok(v) = B2ndV0::decode(&bytes) {
            prop_assert_eq!(v.encode().unwrap(), bytes.clone());
        }
        if let Ok(v) = CatervaV0::decode(&bytes) {
            prop_assert_eq!(v.encode().unwrap(), bytes.clone());
        }
    }
}

#[test]
fn fixed_types_report_capacity_and_length() {
    let v = B2ndV1 {
        shape: vec![1, 2],
        chunkshape: vec![1, 2],
        blockshape: vec![1, 2],
        dtype_format: 0,
        dtype: "<i4".into(),
    };
    let bytes = v.encode().unwrap();
    assert_eq!(
        Fixed::decode(&bytes).unwrap_err().to_string(),
        "b2nd_v1: at byte 0x03 in shape: expected exactly 3 elements (the field's array length), found 2"
    );
    let v = B2ndV1 {
        shape: vec![1; 9],
        chunkshape: vec![1; 9],
        blockshape: vec![1; 9],
        ..v
    };
    let bytes = v.encode().unwrap();
    #[metalayer(schema = "b2nd_v1")]
    struct Small<'a> {
        shape: Vec<i64>,
        chunkshape: Vec<i32>,
        blockshape: ArrayVec<i32, 8>,
        dtype_format: u8,
        dtype: &'a str,
    }
    let offset = 3 + 1 + 9 * 9 + 1 + 9 * 5;
    assert_eq!(
        Small::decode(&bytes).err().unwrap().to_string(),
        format!(
            "b2nd_v1: at byte {offset:#04x} in blockshape: expected at most 8 elements (the field's capacity), found 9"
        )
    );
    let v = B2ndV1 {
        shape: vec![1; 3],
        chunkshape: vec![1; 3],
        blockshape: vec![1; 3],
        dtype_format: 0,
        dtype: "123456789".into(),
    };
    let bytes = v.encode().unwrap();
    assert_eq!(
        Fixed::decode(&bytes).unwrap_err().to_string(),
        // 12 + 19 * 3 + 9 = 78 bytes, of which the dtype entry is the last 1 + 4 + 9.
        "b2nd_v1: at byte 0x40 in dtype: expected at most 8 bytes (the field's capacity), found 9"
    );
}

#[test]
fn encode_into_checks_the_buffer_and_writes_nothing_on_error() {
    let v = B2ndV1 {
        shape: vec![5],
        chunkshape: vec![5],
        blockshape: vec![5],
        dtype_format: 0,
        dtype: "|b1".into(),
    };
    let mut small = [0xaau8; 33];
    assert_eq!(
        v.encode_into(&mut small).unwrap_err().to_string(),
        "b2nd_v1: expected a buffer of at least 34 bytes, found 33"
    );
    assert!(small.iter().all(|&b| b == 0xaa));
    let bad = B2ndV1 {
        dtype_format: 128,
        ..v.clone()
    };
    let mut buf = [0xaau8; 64];
    assert_eq!(
        bad.encode_into(&mut buf).unwrap_err().to_string(),
        "b2nd_v1: in dtype_format: expected a value in 0..=127, found 128"
    );
    assert!(buf.iter().all(|&b| b == 0xaa));
    assert_eq!(v.encode_into(&mut buf).unwrap(), 34);
}
