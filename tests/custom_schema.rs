//! A schema that exists only under `tests/schemas/`, used through `schema_path`: a new layout
//! needs one schema file and no change to the library.

use metalayer::prelude::*;
use metalayer::{DecodeErrorKind, EncodeErrorKind, Int, Path};

#[metalayer(schema_path = "tests/schemas/sensor_v0.toml")]
#[derive(Debug, Clone, PartialEq)]
struct Sensor {
    kind: u16,
    readings: Vec<u32>,
    flags: [u8; 2],
    label: Box<str>,
    note: String,
    offset: i16,
    big: u64,
    temp: i32,
}

/// Written out by hand from msgpack's marker table.
#[rustfmt::skip]
const SENSOR: [u8; 52] = [
    0x9a,                                   // fixarray of 10
    0xd0, 0xfb,                             // magic: int8 -5
    0xcd, 0x01, 0x2c,                       // kind: uint16 300
    0xcc, 0x02,                             // n: uint8 2
    0x92, 0xce, 0x00, 0x00, 0x00, 0x01,     // readings: [1,
          0xce, 0xff, 0xff, 0xff, 0xff,     //            4294967295]
    0x92, 0x7f, 0x00,                       // flags: [127, 0] as fixints
    0xd9, 0x02, b'o', b'k',                 // label: str8 "ok"
    0xda, 0x00, 0x03, b'a', b'b', b'c',     // note: str16 "abc"
    0xd1, 0x80, 0x00,                       // offset: int16 -32768
    0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // big: uint64 max
    0xd2, 0x7f, 0xff, 0xff, 0xff,           // temp: int32 max
    // 0xc0 is not part of the layout: decode_prefix stops before it.
    0xc0, 0xc0, 0xc0,
];

fn sensor() -> Sensor {
    Sensor {
        kind: 300,
        readings: vec![1, u32::MAX],
        flags: [127, 0],
        label: "ok".into(),
        note: "abc".into(),
        offset: i16::MIN,
        big: u64::MAX,
        temp: i32::MAX,
    }
}

#[test]
fn custom_schema_encodes_hand_derived_bytes() {
    assert_eq!(Sensor::NAME, "sensor");
    assert_eq!(Sensor::SCHEMA, "sensor_v0");
    let bytes = sensor().encode().unwrap();
    assert_eq!(bytes, SENSOR[..49]);
    assert_eq!(sensor().encoded_len(), 49);
}

#[test]
fn custom_schema_decodes_hand_derived_bytes() {
    assert_eq!(Sensor::decode(&SENSOR[..49]).unwrap(), sensor());
    let (value, used) = Sensor::decode_prefix(&SENSOR).unwrap();
    assert_eq!((value, used), (sensor(), 49));
    let err = Sensor::decode(&SENSOR).unwrap_err();
    assert_eq!(
        err.to_string(),
        "sensor_v0: at byte 0x31 after the last entry: expected end of input, found 3 trailing bytes"
    );
}

#[test]
fn custom_schema_checks_constants_ranges_and_counts() {
    let mut bytes = SENSOR[..49].to_vec();
    bytes[2] = 0xfa;
    assert_eq!(
        Sensor::decode(&bytes).unwrap_err().to_string(),
        "sensor_v0: at byte 0x01 in magic: expected constant -5, found -6"
    );

    let mut bytes = SENSOR[..49].to_vec();
    bytes[4..6].copy_from_slice(&0u16.to_be_bytes());
    let err = Sensor::decode(&bytes).unwrap_err();
    assert_eq!(
        err.kind(),
        &DecodeErrorKind::OutOfRange {
            min: Int::new(1),
            max: Int::new(1000),
            found: Int::new(0)
        }
    );
    assert_eq!((err.offset(), err.path()), (3, &Path::entry(&"kind")));

    // A fixint element above 0x7f.
    let mut bytes = SENSOR[..49].to_vec();
    bytes[20] = 0x80;
    assert_eq!(
        Sensor::decode(&bytes).unwrap_err().to_string(),
        "sensor_v0: at byte 0x14 in flags[0]: expected positive fixint 0x00..=0x7f, found 0x80"
    );

    // n = 3 does not fit `flags: [u8; 2]`, and the readings header says 2.
    let mut bytes = SENSOR[..49].to_vec();
    bytes[7] = 3;
    assert_eq!(
        Sensor::decode(&bytes).unwrap_err().to_string(),
        "sensor_v0: at byte 0x08 in readings: expected array header 0x93 (0x90 + n 3), found 0x92"
    );

    let mut value = sensor();
    value.readings.push(5);
    assert_eq!(
        value.encode().unwrap_err().to_string(),
        "sensor_v0: in flags: expected 3 elements (the length of readings, both counted by n), found 2"
    );
    let mut value = sensor();
    value.flags[0] = 200;
    assert_eq!(value.encode().unwrap_err().path(), &Path::element(&"flags", 0));
    let mut value = sensor();
    value.kind = 1001;
    assert_eq!(
        value.encode().unwrap_err().kind(),
        &EncodeErrorKind::OutOfRange {
            min: Int::new(1),
            max: Int::new(1000),
            found: Int::new(1001)
        }
    );
    let mut value = sensor();
    value.label = "x".repeat(256).into();
    assert_eq!(
        value.encode().unwrap_err().to_string(),
        "sensor_v0: in label: expected at most 255 bytes for str8, found 256"
    );
    let mut value = sensor();
    value.readings.clear();
    assert_eq!(
        value.encode().unwrap_err().to_string(),
        "sensor_v0: in readings: expected a length in 1..=4 (stored in n), found 0"
    );
}
