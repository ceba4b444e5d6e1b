//! The exact text of every error: each variant of `DecodeErrorKind`, `EncodeErrorKind`,
//! `DispatchError` and `metalayer::frame::FrameError`, triggered through the public API by
//! crafted bytes, real values or real files. Every expected offset is counted by hand from the
//! byte layout written out beside it.

use arrayvec::{ArrayString, ArrayVec};
use metalayer::b2nd::{B2ndV0, B2ndV1};
use metalayer::caterva::CatervaV0;
use metalayer::frame::{FrameErrorKind, parse_header, read_metalayers};
use metalayer::prelude::*;
use metalayer::{DecodeErrorKind, DispatchError, EncodeErrorKind, Known, Path};

// ---------------------------------------------------------------------------------------------
// The bytes
// ---------------------------------------------------------------------------------------------

/// b2nd_v1 for shape [10, 20], chunkshape [5, 20], blockshape [5, 5], dtype_format 0, "<f8".
#[rustfmt::skip]
const V1: [u8; 0x35] = [
    0x97,                                                   // 0x00 fixarray of 7
    0x00,                                                   // 0x01 version
    0x02,                                                   // 0x02 ndim
    0x92,                                                   // 0x03 shape: array of 2
    0xd3, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0a,   // 0x04 shape[0] = 10
    0xd3, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14,   // 0x0d shape[1] = 20
    0x92,                                                   // 0x16 chunkshape: array of 2
    0xd2, 0x00, 0x00, 0x00, 0x05,                           // 0x17 chunkshape[0] = 5
    0xd2, 0x00, 0x00, 0x00, 0x14,                           // 0x1c chunkshape[1] = 20
    0x92,                                                   // 0x21 blockshape: array of 2
    0xd2, 0x00, 0x00, 0x00, 0x05,                           // 0x22 blockshape[0] = 5
    0xd2, 0x00, 0x00, 0x00, 0x05,                           // 0x27 blockshape[1] = 5
    0x00,                                                   // 0x2c dtype_format
    0xdb, 0x00, 0x00, 0x00, 0x03,                           // 0x2d dtype: str32 of 3
    b'<', b'f', b'8',                                       // 0x32 "<f8", ending at 0x35
];

fn v1_value() -> B2ndV1 {
    B2ndV1 {
        shape: vec![10, 20],
        chunkshape: vec![5, 20],
        blockshape: vec![5, 5],
        dtype_format: 0,
        dtype: "<f8".into(),
    }
}

/// `V1` with the changes `edit` makes.
fn v1_with(edit: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut bytes = V1.to_vec();
    edit(&mut bytes);
    bytes
}

/// The Display text of `B2ndV1::decode`, which must fail.
fn v1_err(bytes: &[u8]) -> String {
    match B2ndV1::decode(bytes) {
        Ok(v) => panic!("decoded {v:?}"),
        Err(e) => e.to_string(),
    }
}

#[metalayer(schema_path = "tests/schemas/sensor_v0.toml")]
#[derive(Debug, Clone, PartialEq)]
struct Sensor {
    kind: u16,
    readings: Vec<u32>,
    flags: Vec<u8>,
    label: String,
    note: String,
    offset: i16,
    big: u64,
    temp: i32,
}

/// The layout of `tests/schemas/sensor_v0.toml`, written out from msgpack's marker table.
#[rustfmt::skip]
const SENSOR: [u8; 0x31] = [
    0x9a,                                   // 0x00 fixarray of 10
    0xd0, 0xfb,                             // 0x01 magic: int8 -5
    0xcd, 0x01, 0x2c,                       // 0x03 kind: uint16 300
    0xcc, 0x02,                             // 0x06 n: uint8 2
    0x92,                                   // 0x08 readings: array of 2
    0xce, 0x00, 0x00, 0x00, 0x01,           // 0x09 readings[0]: uint32 1
    0xce, 0xff, 0xff, 0xff, 0xff,           // 0x0e readings[1]: uint32 4294967295
    0x92,                                   // 0x13 flags: array of 2
    0x7f, 0x00,                             // 0x14 flags[0] = 127, 0x15 flags[1] = 0
    0xd9, 0x02, b'o', b'k',                 // 0x16 label: str8 "ok"
    0xda, 0x00, 0x03, b'a', b'b', b'c',     // 0x1a note: str16 "abc"
    0xd1, 0x80, 0x00,                       // 0x20 offset: int16 -32768
    0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // 0x23 big: uint64 max
    0xd2, 0x7f, 0xff, 0xff, 0xff,           // 0x2c temp: int32 max, ending at 0x31
];

fn sensor_value() -> Sensor {
    Sensor {
        kind: 300,
        readings: vec![1, u32::MAX],
        flags: vec![127, 0],
        label: "ok".into(),
        note: "abc".into(),
        offset: i16::MIN,
        big: u64::MAX,
        temp: i32::MAX,
    }
}

fn sensor_err(edit: impl FnOnce(&mut Vec<u8>)) -> String {
    let mut bytes = SENSOR.to_vec();
    edit(&mut bytes);
    match Sensor::decode(&bytes) {
        Ok(v) => panic!("decoded {v:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn the_crafted_bytes_are_valid() {
    assert_eq!(B2ndV1::decode(&V1).unwrap(), v1_value());
    assert_eq!(v1_value().encode().unwrap(), V1);
    assert_eq!(Sensor::decode(&SENSOR).unwrap(), sensor_value());
    assert_eq!(sensor_value().encode().unwrap(), SENSOR);
}

// ---------------------------------------------------------------------------------------------
// DecodeErrorKind
// ---------------------------------------------------------------------------------------------

#[test]
fn decode_marker() {
    assert_eq!(
        v1_err(&v1_with(|b| b[0x00] = 0x96)),
        "b2nd_v1: at byte 0x00 in the container: expected fixarray marker 0x97, found 0x96"
    );
    assert_eq!(
        v1_err(&v1_with(|b| b[0x0d] = 0xd2)),
        "b2nd_v1: at byte 0x0d in shape[1]: expected int64 marker 0xd3, found 0xd2"
    );
    assert_eq!(
        v1_err(&v1_with(|b| b[0x27] = 0xd3)),
        "b2nd_v1: at byte 0x27 in blockshape[1]: expected int32 marker 0xd2, found 0xd3"
    );
    assert_eq!(
        v1_err(&v1_with(|b| b[0x2d] = 0xd9)),
        "b2nd_v1: at byte 0x2d in dtype: expected str32 marker 0xdb, found 0xd9"
    );
    assert_eq!(
        sensor_err(|b| b[0x03] = 0xcc),
        "sensor_v0: at byte 0x03 in kind: expected uint16 marker 0xcd, found 0xcc"
    );
    assert_eq!(
        sensor_err(|b| b[0x1a] = 0xd9),
        "sensor_v0: at byte 0x1a in note: expected str16 marker 0xda, found 0xd9"
    );
    let err = B2ndV1::decode(&v1_with(|b| b[0x0d] = 0xd2)).unwrap_err();
    assert_eq!(
        (err.schema(), err.offset(), err.path()),
        ("b2nd_v1", 0x0d, &Path::element(&"shape", 1))
    );
    assert_eq!(
        err.kind(),
        &DecodeErrorKind::Marker {
            wire: "int64",
            expected: 0xd3,
            found: 0xd2
        }
    );
}

#[test]
fn decode_array_header() {
    assert_eq!(
        v1_err(&v1_with(|b| b[0x16] = 0x93)),
        "b2nd_v1: at byte 0x16 in chunkshape: expected array header 0x92 (0x90 + ndim 2), found 0x93"
    );
    // An ndim of 3 over arrays of 2: the shape header is the first to disagree.
    assert_eq!(
        v1_err(&v1_with(|b| b[0x02] = 0x03)),
        "b2nd_v1: at byte 0x03 in shape: expected array header 0x93 (0x90 + ndim 3), found 0x92"
    );
    assert_eq!(
        sensor_err(|b| b[0x13] = 0xdc),
        "sensor_v0: at byte 0x13 in flags: expected array header 0x92 (0x90 + n 2), found 0xdc"
    );
}

#[test]
fn decode_not_fixint() {
    assert_eq!(
        v1_err(&v1_with(|b| b[0x01] = 0x80)),
        "b2nd_v1: at byte 0x01 in version: expected positive fixint 0x00..=0x7f, found 0x80"
    );
    assert_eq!(
        v1_err(&v1_with(|b| b[0x2c] = 0xcc)),
        "b2nd_v1: at byte 0x2c in dtype_format: expected positive fixint 0x00..=0x7f, found 0xcc"
    );
    assert_eq!(
        sensor_err(|b| b[0x15] = 0xff),
        "sensor_v0: at byte 0x15 in flags[1]: expected positive fixint 0x00..=0x7f, found 0xff"
    );
}

#[test]
fn decode_truncated() {
    // Nothing at all: the container marker is missing.
    assert_eq!(
        v1_err(&[]),
        "b2nd_v1: at byte 0x00 in the container: expected 1 more byte, found 0"
    );
    // Cut at 0x10: shape[1]'s marker is at 0x0d, its 8 payload bytes from 0x0e, 2 of them left.
    assert_eq!(
        v1_err(&V1[..0x10]),
        "b2nd_v1: at byte 0x0e in shape[1]: expected 8 more bytes, found 2"
    );
    // Cut at 0x30: the str32 length runs 0x2e..0x32, 2 bytes of it left.
    assert_eq!(
        v1_err(&V1[..0x30]),
        "b2nd_v1: at byte 0x2e in dtype: expected 4 more bytes, found 2"
    );
    // Cut at 0x34: the 3 text bytes run 0x32..0x35, 2 of them left.
    assert_eq!(
        v1_err(&V1[..0x34]),
        "b2nd_v1: at byte 0x32 in dtype: expected 3 more bytes, found 2"
    );
    // A str32 length of 0xffffffff with one byte after it (at 0x32).
    assert_eq!(
        v1_err(&v1_with(|b| {
            b[0x2e..0x32].copy_from_slice(&[0xff; 4]);
            b.truncate(0x33);
        })),
        "b2nd_v1: at byte 0x32 in dtype: expected 4294967295 more bytes, found 1"
    );
    // str8 "ok" cut after its length byte: the text would start at 0x18.
    assert_eq!(
        sensor_err(|b| b.truncate(0x18)),
        "sensor_v0: at byte 0x18 in label: expected 2 more bytes, found 0"
    );
}

#[test]
fn decode_constant() {
    assert_eq!(
        v1_err(&v1_with(|b| b[0x01] = 0x01)),
        "b2nd_v1: at byte 0x01 in version: expected constant 0, found 1"
    );
    // int8 magic -5 (0xfb) as 5: the error is at the entry's marker, 0x01.
    assert_eq!(
        sensor_err(|b| b[0x02] = 0x05),
        "sensor_v0: at byte 0x01 in magic: expected constant -5, found 5"
    );
}

#[test]
fn decode_out_of_range() {
    assert_eq!(
        v1_err(&v1_with(|b| b[0x02] = 0x11)),
        "b2nd_v1: at byte 0x02 in ndim: expected a value in 0..=16, found 17"
    );
    assert_eq!(
        CatervaV0::decode(&[0x95, 0x00, 0x09]).unwrap_err().to_string(),
        "caterva_v0: at byte 0x02 in ndim: expected a value in 0..=8, found 9"
    );
    // uint16 kind 0 (0x03..0x06) under min 1; uint8 n 5 (0x06..0x08) over max 4.
    assert_eq!(
        sensor_err(|b| b[0x04..0x06].copy_from_slice(&[0, 0])),
        "sensor_v0: at byte 0x03 in kind: expected a value in 1..=1000, found 0"
    );
    assert_eq!(
        sensor_err(|b| b[0x07] = 0x05),
        "sensor_v0: at byte 0x06 in n: expected a value in 1..=4, found 5"
    );
}

#[test]
fn decode_invalid_utf8() {
    // "<\xff8": one valid byte, then 0xff at 0x33.
    assert_eq!(
        v1_err(&v1_with(|b| b[0x33] = 0xff)),
        "b2nd_v1: at byte 0x33 in dtype: expected UTF-8 text, found an invalid sequence after 1 valid byte"
    );
    // "ab\xe2" in note (text at 0x1d..0x20): a 3-byte sequence cut by the string's end.
    assert_eq!(
        sensor_err(|b| b[0x1f] = 0xe2),
        "sensor_v0: at byte 0x1f in note: expected UTF-8 text, found an invalid sequence after 2 valid bytes"
    );
}

#[test]
fn decode_capacity() {
    #[metalayer(schema = "b2nd_v1")]
    #[derive(Debug)]
    struct OneBlockDim<'a> {
        shape: Vec<i64>,
        chunkshape: Vec<i32>,
        blockshape: ArrayVec<i32, 1>,
        dtype_format: u8,
        dtype: &'a str,
    }
    // The blockshape header is at 0x21.
    assert_eq!(
        OneBlockDim::decode(&V1).unwrap_err().to_string(),
        "b2nd_v1: at byte 0x21 in blockshape: expected at most 1 element (the field's capacity), found 2"
    );
}

#[test]
fn decode_str_capacity() {
    #[metalayer(schema = "b2nd_v1")]
    #[derive(Debug)]
    struct ShortDtype {
        shape: Vec<i64>,
        chunkshape: Vec<i32>,
        blockshape: Vec<i32>,
        dtype_format: u8,
        dtype: ArrayString<2>,
    }
    // The dtype entry starts at its marker, 0x2d.
    assert_eq!(
        ShortDtype::decode(&V1).unwrap_err().to_string(),
        "b2nd_v1: at byte 0x2d in dtype: expected at most 2 bytes (the field's capacity), found 3"
    );
}

#[test]
fn decode_fixed_length() {
    #[metalayer(schema = "b2nd_v1")]
    #[derive(Debug)]
    struct ThreeDims<'a> {
        shape: [i64; 3],
        chunkshape: [i32; 3],
        blockshape: [i32; 3],
        dtype_format: u8,
        dtype: &'a str,
    }
    assert_eq!(
        ThreeDims::decode(&V1).unwrap_err().to_string(),
        "b2nd_v1: at byte 0x03 in shape: expected exactly 3 elements (the field's array length), found 2"
    );
}

#[test]
fn decode_trailing_bytes() {
    assert_eq!(
        v1_err(&v1_with(|b| b.extend_from_slice(&[0xc0, 0xc0]))),
        "b2nd_v1: at byte 0x35 after the last entry: expected end of input, found 2 trailing bytes"
    );
    // decode_prefix stops at 0x35 and leaves them.
    let mut bytes = V1.to_vec();
    bytes.extend_from_slice(&[0xc0, 0xc0]);
    let (value, used) = B2ndV1::decode_prefix(&bytes).unwrap();
    assert_eq!((value, used), (v1_value(), 0x35));
}

#[test]
fn decode_errors_of_the_other_built_in_layouts() {
    // b2nd_v0 at c-blosc2 commit 1e65a17e: shape [400, 3], chunkshape [110, 3], blockshape
    // [57, 3], dtype "uint8". 0x2c is the str32 marker (6 + 19 * 2 = 44).
    let mut v0 = B2ndV0 {
        shape: vec![400, 3],
        chunkshape: vec![110, 3],
        blockshape: vec![57, 3],
        dtype: "uint8".into(),
    }
    .encode()
    .unwrap();
    assert_eq!(&v0[0x2c..0x31], [0xdb, 0, 0, 0, 5]);
    v0[0x2c] = 0x00;
    assert_eq!(
        B2ndV0::decode(&v0).unwrap_err().to_string(),
        "b2nd_v0: at byte 0x2c in dtype: expected str32 marker 0xdb, found 0x00"
    );
    // caterva_v0 ndim 1: 95 00 01 | 91 d3 <8> | 91 d2 <4> | 91 d2 <4>; blockshape's header at 0x13.
    #[rustfmt::skip]
    let caterva = [
        0x95, 0x00, 0x01,
        0x91, 0xd3, 0, 0, 0, 0, 0, 0, 0, 10,
        0x91, 0xd2, 0, 0, 0, 5,
        0x92, 0xd2, 0, 0, 0, 2,
    ];
    assert_eq!(
        CatervaV0::decode(&caterva).unwrap_err().to_string(),
        "caterva_v0: at byte 0x13 in blockshape: expected array header 0x91 (0x90 + ndim 1), found 0x92"
    );
}

// ---------------------------------------------------------------------------------------------
// EncodeErrorKind
// ---------------------------------------------------------------------------------------------

#[test]
fn encode_length_mismatch() {
    let v = B2ndV1 {
        chunkshape: vec![5, 20, 1],
        ..v1_value()
    };
    assert_eq!(
        v.encode().unwrap_err().to_string(),
        "b2nd_v1: in chunkshape: expected 2 elements (the length of shape, both counted by ndim), found 3"
    );
    let v = B2ndV1 {
        blockshape: vec![5],
        ..v1_value()
    };
    let err = v.encode().unwrap_err();
    assert_eq!(
        err.to_string(),
        "b2nd_v1: in blockshape: expected 2 elements (the length of shape, both counted by ndim), found 1"
    );
    assert_eq!(
        err.kind(),
        &EncodeErrorKind::LengthMismatch {
            count_entry: "ndim".into(),
            reference: "shape".into(),
            expected: 2,
            found: 1
        }
    );
    let mut s = sensor_value();
    s.flags.push(1);
    assert_eq!(
        s.encode().unwrap_err().to_string(),
        "sensor_v0: in flags: expected 2 elements (the length of readings, both counted by n), found 3"
    );
}

#[test]
fn encode_count_out_of_range() {
    let v = B2ndV1 {
        shape: vec![1; 17],
        chunkshape: vec![1; 17],
        blockshape: vec![1; 17],
        ..v1_value()
    };
    assert_eq!(
        v.encode().unwrap_err().to_string(),
        "b2nd_v1: in shape: expected a length in 0..=16 (stored in ndim), found 17"
    );
    let v = CatervaV0 {
        shape: vec![1; 9],
        chunkshape: vec![1; 9],
        blockshape: vec![1; 9],
    };
    assert_eq!(
        v.encode().unwrap_err().to_string(),
        "caterva_v0: in shape: expected a length in 0..=8 (stored in ndim), found 9"
    );
    let mut s = sensor_value();
    s.readings.clear();
    s.flags.clear();
    assert_eq!(
        s.encode().unwrap_err().to_string(),
        "sensor_v0: in readings: expected a length in 1..=4 (stored in n), found 0"
    );
}

#[test]
fn encode_out_of_range() {
    let v = B2ndV1 {
        dtype_format: 128,
        ..v1_value()
    };
    assert_eq!(
        v.encode().unwrap_err().to_string(),
        "b2nd_v1: in dtype_format: expected a value in 0..=127, found 128"
    );
    let mut s = sensor_value();
    s.kind = 1001;
    assert_eq!(
        s.encode().unwrap_err().to_string(),
        "sensor_v0: in kind: expected a value in 1..=1000, found 1001"
    );
    let mut s = sensor_value();
    s.flags[1] = 200;
    assert_eq!(
        s.encode().unwrap_err().to_string(),
        "sensor_v0: in flags[1]: expected a value in 0..=127, found 200"
    );
}

#[test]
fn encode_string_too_long() {
    let mut s = sensor_value();
    s.label = "x".repeat(256);
    assert_eq!(
        s.encode().unwrap_err().to_string(),
        "sensor_v0: in label: expected at most 255 bytes for str8, found 256"
    );
    let mut s = sensor_value();
    s.note = "y".repeat(65536);
    assert_eq!(
        s.encode().unwrap_err().to_string(),
        "sensor_v0: in note: expected at most 65535 bytes for str16, found 65536"
    );
}

#[test]
fn encode_buffer_too_small() {
    let mut buf = [0u8; 0x34];
    assert_eq!(
        v1_value().encode_into(&mut buf).unwrap_err().to_string(),
        "b2nd_v1: expected a buffer of at least 53 bytes, found 52"
    );
    assert_eq!(buf, [0; 0x34], "nothing written");
    let mut empty = [];
    assert_eq!(
        sensor_value().encode_into(&mut empty).unwrap_err().to_string(),
        "sensor_v0: expected a buffer of at least 49 bytes, found 0"
    );
}

// ---------------------------------------------------------------------------------------------
// DispatchError
// ---------------------------------------------------------------------------------------------

#[test]
fn dispatch_unknown_name() {
    let err = Known::decode("units", &[0xa6]).unwrap_err();
    assert!(matches!(err, DispatchError::UnknownName { name, .. } if name.as_str() == "units"));
    assert_eq!(
        err.to_string(),
        r#"no known layout for the metalayer name "units"; known names: b2nd caterva"#
    );
    // A name longer than any c-blosc2 stores is shown cut.
    let long = "a-very-long-metalayer-name-past-31-bytes";
    assert_eq!(
        Known::decode(long, &[0xa6]).unwrap_err().to_string(),
        r#"no known layout for the metalayer name "a-very-long-metalayer-name-past"...; known names: b2nd caterva"#
    );
}

#[test]
fn dispatch_no_layout_fits() {
    let err = Known::decode("b2nd", &[0x94, 0x00]).unwrap_err();
    assert!(matches!(
        err,
        DispatchError::NoLayoutFits {
            metalayer: "b2nd",
            offset: 0,
            found: Some(0x94),
            ..
        }
    ));
    assert_eq!(
        err.to_string(),
        "no b2nd layout fits: at byte 0x00 b2nd_v1 expects 0x97, b2nd_v0 expects 0x96, caterva_v0 expects 0x95; found 0x94"
    );
    // Under the name caterva only caterva_v0 is listed.
    assert_eq!(
        Known::decode("caterva", &V1).unwrap_err().to_string(),
        "no caterva layout fits: at byte 0x00 caterva_v0 expects 0x95; found 0x97"
    );
}

#[test]
fn dispatch_decode() {
    // 0x97 picks b2nd_v1, whose decoder finds shape[1]'s marker wrong.
    let err = Known::decode("b2nd", &v1_with(|b| b[0x0d] = 0xd2)).unwrap_err();
    assert!(matches!(err, DispatchError::Decode(_)));
    assert_eq!(
        err.to_string(),
        "b2nd_v1: at byte 0x0d in shape[1]: expected int64 marker 0xd3, found 0xd2"
    );
    // The message is the decoder error's: it is not repeated as the source.
    assert!(std::error::Error::source(&err).is_none());
}

/// When the bytes fit no layout's fixed prefix but single one layout out (the only one that fits
/// their start that far), that layout's decoder says what is wrong, at the right offset. The
/// error used to name offset 0 whatever the byte at fault, as in "at byte 0x00 caterva_v0
/// expects 0x95; found 0x95".
#[test]
fn dispatch_reports_where_the_layout_the_bytes_single_out_fails() {
    assert_eq!(
        Known::decode("caterva", &[0x95, 0x00, 0x09]).unwrap_err().to_string(),
        "caterva_v0: at byte 0x02 in ndim: expected a value in 0..=8, found 9"
    );
    assert_eq!(
        Known::decode("b2nd", &v1_with(|b| b[0x01] = 0x01))
            .unwrap_err()
            .to_string(),
        "b2nd_v1: at byte 0x01 in version: expected constant 0, found 1"
    );
    assert_eq!(
        Known::decode("b2nd", &v1_with(|b| b[0x02] = 0x11))
            .unwrap_err()
            .to_string(),
        "b2nd_v1: at byte 0x02 in ndim: expected a value in 0..=16, found 17"
    );
    // 0x96 singles out b2nd_v0, whose ndim stops at 8; its array header would be at 0x03.
    assert_eq!(
        Known::decode("b2nd", &[0x96, 0x00, 0x09, 0x99])
            .unwrap_err()
            .to_string(),
        "b2nd_v0: at byte 0x02 in ndim: expected a value in 0..=8, found 9"
    );
    assert_eq!(
        Known::decode("b2nd", &[0x95, 0x00, 0x02, 0x93])
            .unwrap_err()
            .to_string(),
        "caterva_v0: at byte 0x03 in shape: expected array header 0x92 (0x90 + ndim 2), found 0x93"
    );
}

// ---------------------------------------------------------------------------------------------
// FrameError
// ---------------------------------------------------------------------------------------------

/// A frame header holding one metalayer, "ab", with content [0x01, 0x02]; header_len and
/// frame_len are both 0x70 = 112.
fn frame() -> Vec<u8> {
    let mut f = Vec::new();
    f.extend_from_slice(b"\x9e\xa8b2frame\0"); // 0x00 magic
    f.push(0xd2); // 0x0a header_len marker
    f.extend_from_slice(&[0x00, 0x00, 0x00, 0x70]); // 0x0b header_len
    f.push(0xcf); // 0x0f frame_len marker
    f.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0x70]); // 0x10 frame_len
    // 0x18..0x57 the rest of the fixed header: flags, nbytes, cbytes, typesize, blocksize,
    // chunksize, the thread counts, has_vlmetalayers, the filters.
    f.extend_from_slice(&[0xa4, 0x12, 0x00, 0x05, 0x02]); // 0x18 fixstr of 4 flag bytes
    f.extend_from_slice(&[0xd3, 0, 0, 0, 0, 0, 0, 0, 0]); // 0x1d nbytes
    f.extend_from_slice(&[0xd3, 0, 0, 0, 0, 0, 0, 0, 0]); // 0x26 cbytes
    f.extend_from_slice(&[0xd2, 0, 0, 0, 1, 0xd2, 0, 0, 0, 0, 0xd2, 0, 0, 0, 0]); // 0x2f typesize...
    f.extend_from_slice(&[0xd1, 0, 1, 0xd1, 0, 1]); // 0x3e thread counts
    f.push(0xc2); // 0x44 has_vlmetalayers
    f.extend_from_slice(&[0xd8, 0x06]); // 0x45 fixext16, 6 filters
    f.extend_from_slice(&[0; 16]); // 0x47 filters, codec, filters_meta...
    assert_eq!(f.len(), 0x57);
    f.extend_from_slice(&[0x93, 0xcd, 0x00, 0x0f]); // 0x57 fixarray of 3, 0x58 uint16 index size
    f.extend_from_slice(&[0xde, 0x00, 0x01]); // 0x5b map16 of 1
    f.extend_from_slice(&[0xa2, b'a', b'b']); // 0x5e fixstr "ab"
    f.extend_from_slice(&[0xd2, 0x00, 0x00, 0x00, 0x69]); // 0x61 its content at 0x69
    f.extend_from_slice(&[0xdc, 0x00, 0x01]); // 0x66 array16 of 1; contents start at 0x69
    f.extend_from_slice(&[0xc6, 0x00, 0x00, 0x00, 0x02]); // 0x69 bin32 of 2
    f.extend_from_slice(&[0x01, 0x02]); // 0x6e the content, ending at 0x70
    assert_eq!(f.len(), 0x70);
    f
}

fn frame_err(edit: impl FnOnce(&mut Vec<u8>)) -> String {
    let mut bytes = frame();
    edit(&mut bytes);
    match parse_header(&bytes) {
        Ok(m) => panic!("parsed {m:?}"),
        Err(e) => e.to_string(),
    }
}

fn put_i32(bytes: &mut [u8], at: usize, v: i32) {
    bytes[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

#[test]
fn the_crafted_frame_is_valid() {
    let m = parse_header(&frame()).unwrap();
    assert_eq!(m.len(), 1);
    assert_eq!(
        (m[0].name.as_str(), m[0].offset, &m[0].content[..]),
        ("ab", 0x6e, &[1u8, 2][..])
    );
    assert_eq!(metalayer::frame::header_len(&frame()).unwrap(), 0x70);
}

#[test]
fn frame_io() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/no-such-file.b2nd");
    let err = read_metalayers(path).unwrap_err();
    assert!(matches!(err.kind(), FrameErrorKind::Io { .. }));
    assert_eq!(err.to_string(), format!("cannot read {path}"));
    // Why is the source.
    #[cfg(unix)]
    assert_eq!(
        std::error::Error::source(&err).unwrap().to_string(),
        "No such file or directory (os error 2)"
    );
}

#[test]
fn frame_not_sparse_frame() {
    // A directory of the repository that holds no chunks.b2frame.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files");
    let err = read_metalayers(dir).unwrap_err();
    assert!(matches!(err.kind(), FrameErrorKind::NotSparseFrame { .. }));
    assert_eq!(
        err.to_string(),
        format!("{dir} is a directory without a chunks.b2frame file, so not a sparse frame")
    );
}

#[test]
fn frame_truncated() {
    let f = frame();
    assert_eq!(
        parse_header(&f[..3]).unwrap_err().to_string(),
        r#"at byte 0x00: expected frame magic 0x9e 0xa8 "b2frame\0", found the end of the input (3 bytes)"#
    );
    // 12 bytes: header_len's 4 bytes start at 0x0b, one of them is there.
    assert_eq!(
        parse_header(&f[..12]).unwrap_err().to_string(),
        "frame_header_v2: at byte 0x0b in header_len: expected 4 more bytes, found 1"
    );
    assert_eq!(
        parse_header(&f[..15]).unwrap_err().to_string(),
        "frame_header_v2: at byte 0x0f in frame_len: expected 1 more byte, found 0"
    );
}

#[test]
fn frame_bad_magic() {
    // Byte 7 is the 'm' of "b2frame".
    assert_eq!(
        frame_err(|b| b[7] = b'M'),
        r#"at byte 0x00: expected frame magic 0x9e 0xa8 "b2frame\0", found 0x9e 0xa8 0x62 0x32 0x66 0x72 0x61 0x4d 0x65 0x00"#
    );
}

#[test]
fn frame_unexpected_byte() {
    assert_eq!(
        frame_err(|b| b[0x0a] = 0xd3),
        "frame_header_v2: at byte 0x0a in header_len: expected int32 marker 0xd2, found 0xd3"
    );
    assert_eq!(
        frame_err(|b| b[0x57] = 0x92),
        "frame_header_v2: at byte 0x57 in metalayers: expected fixarray marker 0x93, found 0x92"
    );
    assert_eq!(
        frame_err(|b| b[0x5e] = 0xc0),
        "frame_header_v2: at byte 0x5e in metalayers.offsets[0]: expected fixstr marker 0xa0..=0xbf, found 0xc0"
    );
    assert_eq!(
        frame_err(|b| b[0x61] = 0xce),
        "frame_header_v2: at byte 0x61 in metalayers.offsets[0]: expected int32 marker 0xd2, found 0xce"
    );
    assert_eq!(
        frame_err(|b| b[0x66] = 0xdd),
        "frame_header_v2: at byte 0x66 in metalayers.contents: expected array16 marker 0xdc, found 0xdd"
    );
    assert_eq!(
        frame_err(|b| b[0x69] = 0xc4),
        "frame_header_v2: at byte 0x69 in metalayers.contents[0]: expected bin32 marker 0xc6, found 0xc4"
    );
}

#[test]
fn frame_header_len_values() {
    assert_eq!(
        frame_err(|b| put_i32(b, 0x0b, -2)),
        "frame_header_v2: at byte 0x0a in header_len: expected a value in 97..=2147483647, found -2"
    );
    assert_eq!(
        frame_err(|b| put_i32(b, 0x0b, 96)),
        "frame_header_v2: at byte 0x0a in header_len: expected a value in 97..=2147483647, found 96"
    );
    // 64 MiB + 1.
    assert_eq!(
        frame_err(|b| put_i32(b, 0x0b, 0x0400_0001)),
        "at byte 0x0b: header_len 67108865 exceeds the limit of 67108864 bytes"
    );
    assert_eq!(
        frame_err(|b| b[0x17] = 0x6f),
        "at byte 0x10: frame_len 111 is smaller than header_len 112"
    );
}

#[test]
fn frame_header_len_exceeds_input_and_file() {
    let f = frame();
    assert_eq!(
        parse_header(&f[..100]).unwrap_err().to_string(),
        "at byte 0x0b: header_len 112 runs past the end of the input (100 bytes)"
    );
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join(format!("error-text-{}-short.b2nd", std::process::id()));
    std::fs::write(&path, &f[..100]).unwrap();
    let err = read_metalayers(&path);
    let _ = std::fs::remove_file(&path);
    let err = err.unwrap_err();
    assert!(matches!(
        err.kind(),
        FrameErrorKind::PastInput {
            len: 112,
            input_len: 100,
            file: true
        }
    ));
    assert_eq!(
        err.to_string(),
        "at byte 0x0b: header_len 112 runs past the end of the file (100 bytes)"
    );
}

#[test]
fn frame_past_header_end() {
    // header_len 0x68 = 104 ends inside the u16 count after 0xdc (0x67..0x69).
    assert_eq!(
        frame_err(|b| put_i32(b, 0x0b, 0x68)),
        "frame_header_v2: at byte 0x67 in metalayers.contents: expected 2 more bytes, found 1 (the header ends at header_len 104)"
    );
    // header_len 0x6c = 108 ends inside the content's length (0x6a..0x6e): the one content
    // needs at least 5 bytes from 0x69, where 3 are left, which the decoder checks before it
    // reads the content.
    assert_eq!(
        frame_err(|b| put_i32(b, 0x0b, 0x6c)),
        "frame_header_v2: at byte 0x69 in metalayers.contents: expected 5 more bytes, found 3 (the header ends at header_len 108)"
    );
}

#[test]
fn frame_too_many_metalayers() {
    assert_eq!(
        frame_err(|b| b[0x5d] = 17),
        "at byte 0x5c: the header's map holds 17 metalayers, at most 16 are allowed"
    );
}

#[test]
fn frame_name_not_utf8() {
    // "\xc3b": a 2-byte sequence whose second byte is not a continuation byte.
    assert_eq!(
        frame_err(|b| b[0x5f] = 0xc3),
        "frame_header_v2: at byte 0x5f in metalayers.offsets[0]: expected UTF-8 text, found an invalid sequence after 0 valid bytes"
    );
}

#[test]
fn frame_content_offsets() {
    assert_eq!(
        frame_err(|b| put_i32(b, 0x62, -1)),
        r#"at byte 0x62: metalayer "ab" content offset -1 is negative"#
    );
    assert_eq!(
        frame_err(|b| put_i32(b, 0x62, 0x70)),
        r#"at byte 0x62: metalayer "ab" content offset 112 lies outside the header, which ends at byte 0x70 (header_len 112)"#
    );
    // 0x66 = 102 is the 0xdc marker, before the contents (from 0x69).
    assert_eq!(
        frame_err(|b| put_i32(b, 0x62, 0x66)),
        r#"at byte 0x62: metalayer "ab" content offset 102 points before the content section, which starts at byte 0x69"#
    );
}

#[test]
fn frame_content_lengths() {
    assert_eq!(
        frame_err(|b| put_i32(b, 0x6a, -1)),
        "at byte 0x6a in metalayers.contents[0]: content length 4294967295 runs past the end of the header (header_len 112)"
    );
    // 3 bytes from 0x6e end at 0x71, past 0x70.
    assert_eq!(
        frame_err(|b| put_i32(b, 0x6a, 3)),
        "at byte 0x6a in metalayers.contents[0]: content length 3 runs past the end of the header (header_len 112)"
    );
}

#[test]
fn frame_count_mismatch() {
    assert_eq!(
        frame_err(|b| b[0x68] = 0x02),
        "at byte 0x67: the header's content array holds 2 metalayers, the map 1"
    );
}
