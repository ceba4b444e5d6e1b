//! Golden vectors for every built-in schema, from three independent sources:
//! - bytes written by python-blosc2 4.x and 2.x and caterva 0.7.3 (`tests/fixtures/`, made by
//!   `tests/fixtures/generate.py`), with the values msgpack and python-blosc2 decode from them;
//! - c-blosc2's historical bytes for every layout the b2nd metalayer went through (the test data
//!   file `plugins/test_data/example_day_month_temp.b2nd` in c-blosc2's history);
//! - vectors derived by hand from the format documents.
//!
//! Decoding gives the expected values and encoding gives the same bytes back.

mod common;

use common::unhex;
use metalayer::b2nd::{B2ndV0, B2ndV1};
use metalayer::caterva::CatervaV0;
use metalayer::prelude::*;
use serde_json::Value;

/// expected.json's frame records (its store records, with a `"store"` key, left out).
fn fixtures() -> Vec<Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/expected.json");
    let records: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    records.into_iter().filter(|r| r.get("store").is_none()).collect()
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array().unwrap().iter().map(|x| x.as_i64().unwrap()).collect()
}

fn ints32(v: &Value) -> Vec<i32> {
    ints(v).into_iter().map(|x| i32::try_from(x).unwrap()).collect()
}

/// Every b2nd and caterva metalayer python-blosc2 and caterva wrote decodes to what msgpack and
/// the producer's own array attributes say, and re-encodes byte for byte.
#[test]
fn real_files_decode_and_reencode() {
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    let mut ndims_v1 = std::collections::BTreeSet::new();
    for fixture in fixtures() {
        let path = fixture["path"].as_str().unwrap();
        let array = &fixture["array"];
        for ml in fixture["metalayers"].as_array().unwrap() {
            let name = ml["name"].as_str().unwrap();
            let bytes = unhex(ml["hex"].as_str().unwrap());
            let msgpack = &ml["msgpack"];
            match name {
                "b2nd" => {
                    let meta = B2ndV1::decode(&bytes).unwrap_or_else(|e| panic!("{path}: {e}"));
                    // The array attributes are decoded by c-blosc2 inside python-blosc2.
                    assert_eq!(meta.shape, ints(&array["shape"]), "{path}");
                    assert_eq!(meta.chunkshape, ints32(&array["chunks"]), "{path}");
                    assert_eq!(meta.blockshape, ints32(&array["blocks"]), "{path}");
                    assert_eq!(meta.dtype, array["dtype"].as_str().unwrap(), "{path}");
                    if msgpack.is_null() {
                        // msgpack rejects 0x90 + 16 = 0xa0 as an array header; nothing else.
                        assert_eq!(meta.shape.len(), 16, "{path}: msgpack failed: {}", ml["msgpack_error"]);
                    } else {
                        let m = msgpack.as_array().unwrap();
                        assert_eq!(m.len(), 7, "{path}");
                        assert_eq!(m[0].as_i64(), Some(0), "{path}: version");
                        assert_eq!(m[1].as_u64(), Some(meta.shape.len() as u64), "{path}: ndim");
                        assert_eq!(meta.shape, ints(&m[2]), "{path}");
                        assert_eq!(meta.chunkshape, ints32(&m[3]), "{path}");
                        assert_eq!(meta.blockshape, ints32(&m[4]), "{path}");
                        assert_eq!(m[5].as_u64(), Some(u64::from(meta.dtype_format)), "{path}");
                        assert_eq!(meta.dtype, m[6].as_str().unwrap(), "{path}");
                    }
                    assert_eq!(meta.encode().unwrap(), bytes, "{path}: re-encoding");
                    assert_eq!(meta.encoded_len(), bytes.len(), "{path}");
                    ndims_v1.insert(meta.shape.len());
                }
                "caterva" => {
                    let meta = CatervaV0::decode(&bytes).unwrap_or_else(|e| panic!("{path}: {e}"));
                    assert_eq!(meta.shape, ints(&array["shape"]), "{path}");
                    assert_eq!(meta.chunkshape, ints32(&array["chunks"]), "{path}");
                    assert_eq!(meta.blockshape, ints32(&array["blocks"]), "{path}");
                    let m = msgpack.as_array().unwrap();
                    assert_eq!(m.len(), 5, "{path}");
                    assert_eq!(meta.shape, ints(&m[2]), "{path}");
                    assert_eq!(meta.chunkshape, ints32(&m[3]), "{path}");
                    assert_eq!(meta.blockshape, ints32(&m[4]), "{path}");
                    assert_eq!(meta.encode().unwrap(), bytes, "{path}: re-encoding");
                }
                _ => continue,
            }
            *seen
                .entry(fixture["producer"].as_str().unwrap().to_string())
                .or_default() += 1;
        }
    }
    // caterva 0.7.3 and python-blosc2 2.7.1, 3.12.2 and 4.14.1.
    assert_eq!(seen.len(), 4, "four producers: {seen:?}");
    // python-blosc2 4.x writes every ndim c-blosc2 allows, 16 included.
    assert_eq!(ndims_v1, (0..=16).collect(), "b2nd_v1 ndims covered");
}

// c-blosc2's own bytes, as the metalayer content of `plugins/test_data/example_day_month_temp.b2nd`
// at the commit named; decoded: shape [400, 3], chunkshape [110, 3], blockshape [57, 3].
const CBLOSC2_CATERVA_B6E2E566: &str =
    "95000292d30000000000000190d3000000000000000392d20000006ed20000000392d200000039d200000003";
const CBLOSC2_B2ND_6_ENTRIES_1E65A17E: &str =
    "96000292d30000000000000190d3000000000000000392d20000006ed20000000392d200000039d200000003db0000000575696e7438";
const CBLOSC2_B2ND_BROKEN_8123F7EA: &str =
    "96000292d30000000000000190d3000000000000000392d20000006ed20000000392d200000039d20000000300db000000037c7531";
const CBLOSC2_B2ND_7_ENTRIES_F7BECA08: &str =
    "97000292d30000000000000190d3000000000000000392d20000006ed20000000392d200000039d20000000300db000000037c7531";

#[test]
fn cblosc2_caterva_layout() {
    let bytes = unhex(CBLOSC2_CATERVA_B6E2E566);
    let meta = CatervaV0::decode(&bytes).unwrap();
    assert_eq!(
        meta,
        CatervaV0 {
            shape: vec![400, 3],
            chunkshape: vec![110, 3],
            blockshape: vec![57, 3]
        }
    );
    assert_eq!(meta.encode().unwrap(), bytes);
    // Commit 3304bcd0 stored these same bytes under the name "b2nd": the 7-entry decoder
    // refuses them at the container marker.
    assert_eq!(
        B2ndV1::decode(&bytes).unwrap_err().to_string(),
        "b2nd_v1: at byte 0x00 in the container: expected fixarray marker 0x97, found 0x95"
    );
}

#[test]
fn cblosc2_b2nd_six_entries() {
    let bytes = unhex(CBLOSC2_B2ND_6_ENTRIES_1E65A17E);
    let meta = B2ndV0::decode(&bytes).unwrap();
    assert_eq!(
        meta,
        B2ndV0 {
            shape: vec![400, 3],
            chunkshape: vec![110, 3],
            blockshape: vec![57, 3],
            dtype: "uint8".into()
        }
    );
    assert_eq!(meta.encode().unwrap(), bytes);
}

#[test]
fn cblosc2_b2nd_seven_entries() {
    let bytes = unhex(CBLOSC2_B2ND_7_ENTRIES_F7BECA08);
    let meta = B2ndV1::decode(&bytes).unwrap();
    assert_eq!(
        meta,
        B2ndV1 {
            shape: vec![400, 3],
            chunkshape: vec![110, 3],
            blockshape: vec![57, 3],
            dtype_format: 0,
            dtype: "|u1".into()
        }
    );
    assert_eq!(meta.encode().unwrap(), bytes);
}

/// The top marker says 6 entries but 7 follow: neither 6-entry nor 7-entry decoding accepts it.
#[test]
fn cblosc2_broken_six_with_seven_entries_is_refused() {
    let bytes = unhex(CBLOSC2_B2ND_BROKEN_8123F7EA);
    assert_eq!(
        B2ndV1::decode(&bytes).unwrap_err().to_string(),
        "b2nd_v1: at byte 0x00 in the container: expected fixarray marker 0x97, found 0x96"
    );
    // Byte 0x2c (44 = 6 + 19 * 2, just after blockshape) is the sixth entry's fixint 0x00 where b2nd_v0 expects the str32 marker.
    assert_eq!(
        B2ndV0::decode(&bytes).unwrap_err().to_string(),
        "b2nd_v0: at byte 0x2c in dtype: expected str32 marker 0xdb, found 0x00"
    );
}

/// Vectors written out by hand from the format documents (seed 002 for b2nd, seed 000 for
/// caterva): fixarray headers, `0xd3` + 8 bytes per shape element, `0xd2` + 4 bytes per
/// chunk and block element, `0xdb` + u32 length for the dtype.
#[test]
fn hand_derived_vectors() {
    // ndim 0: 97 | 00 | 00 | 90 | 90 | 90 | 00 | db 00000003 "<f8"
    let ndim0 = [
        0x97, 0x00, 0x00, 0x90, 0x90, 0x90, 0x00, 0xdb, 0, 0, 0, 3, b'<', b'f', b'8',
    ];
    let meta = B2ndV1::decode(&ndim0).unwrap();
    assert_eq!(
        meta,
        B2ndV1 {
            dtype: "<f8".into(),
            ..Default::default()
        }
    );
    assert_eq!(meta.encode().unwrap(), ndim0);

    // ndim 1, shape [-1] (no check on signs: c-blosc2 stores whatever int64 it is given),
    // chunkshape [7], blockshape [0x01020304], dtype_format 1, dtype "" (empty str32).
    #[rustfmt::skip]
    let ndim1 = [
        0x97, 0x00, 0x01,
        0x91, 0xd3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0x91, 0xd2, 0x00, 0x00, 0x00, 0x07,
        0x91, 0xd2, 0x01, 0x02, 0x03, 0x04,
        0x01,
        0xdb, 0x00, 0x00, 0x00, 0x00,
    ];
    let meta = B2ndV1::decode(&ndim1).unwrap();
    assert_eq!(
        meta,
        B2ndV1 {
            shape: vec![-1],
            chunkshape: vec![7],
            blockshape: vec![0x0102_0304],
            dtype_format: 1,
            dtype: String::new()
        }
    );
    assert_eq!(meta.encode().unwrap(), ndim1);

    // caterva ndim 1: 95 00 01 91 d3 <8> 91 d2 <4> 91 d2 <4>
    #[rustfmt::skip]
    let caterva = [
        0x95, 0x00, 0x01,
        0x91, 0xd3, 0, 0, 0, 0, 0, 0, 0, 10,
        0x91, 0xd2, 0, 0, 0, 5,
        0x91, 0xd2, 0, 0, 0, 2,
    ];
    let meta = CatervaV0::decode(&caterva).unwrap();
    assert_eq!(
        meta,
        CatervaV0 {
            shape: vec![10],
            chunkshape: vec![5],
            blockshape: vec![2]
        }
    );
    assert_eq!(meta.encode().unwrap(), caterva);
}

/// ndim 0, 1, 8, 15 and 16 for b2nd_v1, built by hand: the array header is 0x90 + ndim,
/// including c-blosc2's 0xa0 at 16.
#[test]
fn b2nd_v1_boundary_ndims() {
    for ndim in [0usize, 1, 8, 15, 16] {
        let mut bytes = vec![0x97, 0x00, ndim as u8];
        bytes.push(0x90 + ndim as u8);
        for i in 0..ndim {
            bytes.push(0xd3);
            bytes.extend_from_slice(&(1000 + i as i64).to_be_bytes());
        }
        for _ in 0..2 {
            bytes.push(0x90 + ndim as u8);
            for i in 0..ndim {
                bytes.push(0xd2);
                bytes.extend_from_slice(&(1 + i as i32).to_be_bytes());
            }
        }
        bytes.extend_from_slice(&[0x00, 0xdb, 0, 0, 0, 3]);
        bytes.extend_from_slice(b"<i4");
        assert_eq!(bytes.len(), 12 + 19 * ndim + 3);

        let meta = B2ndV1::decode(&bytes).unwrap();
        assert_eq!(meta.shape, (0..ndim as i64).map(|i| 1000 + i).collect::<Vec<_>>());
        assert_eq!(meta.chunkshape, (0..ndim as i32).map(|i| 1 + i).collect::<Vec<_>>());
        assert_eq!(meta.blockshape, meta.chunkshape);
        assert_eq!(meta.encode().unwrap(), bytes, "ndim {ndim}");
    }
    // ndim 17 is over B2ND_MAX_DIM: the decoder stops at ndim, the encoder refuses it.
    let err = B2ndV1::decode(&[0x97, 0x00, 17]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "b2nd_v1: at byte 0x02 in ndim: expected a value in 0..=16, found 17"
    );
    let meta = B2ndV1 {
        shape: vec![1; 17],
        chunkshape: vec![1; 17],
        blockshape: vec![1; 17],
        ..Default::default()
    };
    assert_eq!(
        meta.encode().unwrap_err().to_string(),
        "b2nd_v1: in shape: expected a length in 0..=16 (stored in ndim), found 17"
    );
}

/// The struct from the project's front page, unchanged, round-trips python-blosc2's bytes.
#[test]
fn front_page_struct_round_trips_python_blosc2() {
    #[metalayer(schema = "b2nd_v1")]
    #[derive(Debug, Clone, PartialEq)]
    pub struct ArrayMeta {
        pub shape: Vec<i64>,
        pub chunkshape: Vec<i32>,
        pub blockshape: Vec<i32>,
        pub dtype_format: u8,
        pub dtype: String,
    }

    let mut count = 0;
    for fixture in fixtures() {
        for ml in fixture["metalayers"].as_array().unwrap() {
            if ml["name"] == "b2nd" {
                let bytes = unhex(ml["hex"].as_str().unwrap());
                let meta = ArrayMeta::decode(&bytes).unwrap();
                assert_eq!(meta.encode().unwrap(), bytes);
                let mut buf = vec![0u8; meta.encoded_len() + 5];
                assert_eq!(meta.encode_into(&mut buf).unwrap(), bytes.len());
                assert_eq!(&buf[..bytes.len()], bytes);
                count += 1;
            }
        }
    }
    assert!(count > 80, "{count} b2nd metalayers");
}

/// `Known` picks each historical layout from its bytes alone, and refuses the broken ones.
#[test]
fn known_dispatches_every_historical_layout() {
    use metalayer::{DispatchError, Known};
    let caterva = unhex(CBLOSC2_CATERVA_B6E2E566);
    assert_eq!(Known::decode("caterva", &caterva).unwrap().schema(), "caterva_v0");
    // Commit 3304bcd0: the caterva layout under the name b2nd.
    let known = Known::decode("b2nd", &caterva).unwrap();
    assert!(matches!(known, Known::B2ndCaterva(_)));
    assert_eq!(known.metalayer(), "b2nd");
    assert_eq!(
        Known::decode("b2nd", &unhex(CBLOSC2_B2ND_6_ENTRIES_1E65A17E))
            .unwrap()
            .schema(),
        "b2nd_v0"
    );
    assert_eq!(
        Known::decode("b2nd", &unhex(CBLOSC2_B2ND_7_ENTRIES_F7BECA08))
            .unwrap()
            .schema(),
        "b2nd_v1"
    );
    // 0x96 selects the 6-entry layout, whose strict decoder then finds the seventh entry.
    let err = Known::decode("b2nd", &unhex(CBLOSC2_B2ND_BROKEN_8123F7EA)).unwrap_err();
    assert!(matches!(err, DispatchError::Decode(_)));
    assert_eq!(
        err.to_string(),
        "b2nd_v0: at byte 0x2c in dtype: expected str32 marker 0xdb, found 0x00"
    );
    // An empty input fits every prefix as far as it goes: the first layout reports it short.
    assert_eq!(
        Known::decode("b2nd", &[]).unwrap_err().to_string(),
        "b2nd_v1: at byte 0x00 in the container: expected 1 more byte, found 0"
    );
    assert_eq!(
        Known::decode("b2nd", &[0x98]).unwrap_err().to_string(),
        "no b2nd layout fits: at byte 0x00 b2nd_v1 expects 0x97, b2nd_v0 expects 0x96, caterva_v0 expects 0x95; found 0x98"
    );
}
