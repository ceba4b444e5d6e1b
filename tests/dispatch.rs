//! `#[metalayer(dispatch)]` over a user's layout versions that part only after a string of any
//! length: python-blosc2-style maps whose `version` follows a name (`tests/schemas/dispatch/
//! store_v1.toml`, `store_v2.toml`), and two readings that differ in their value's type
//! (`reading_number_v0`, `reading_text_v0`). Every expected byte is written out by hand from the
//! msgpack specification and the schema files.

use metalayer::DispatchError;
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/schemas/dispatch/store_v1.toml")]
#[derive(Debug, Clone, PartialEq)]
struct StoreV1 {
    name: String,
    size: u64,
}

#[metalayer(schema_path = "tests/schemas/dispatch/store_v2.toml")]
#[derive(Debug, Clone, PartialEq)]
struct StoreV2 {
    name: String,
    chunks: Vec<u64>,
}

/// Both versions of the `store` metalayer.
#[metalayer(dispatch)]
#[derive(Debug, Clone, PartialEq)]
enum Store {
    #[metalayer(schema_path = "tests/schemas/dispatch/store_v1.toml")]
    V1(StoreV1),
    #[metalayer(schema_path = "tests/schemas/dispatch/store_v2.toml")]
    V2(StoreV2),
}

/// `{"name": "ab", "version": 1, "size": 5}`.
#[rustfmt::skip]
const STORE_V1: [u8; 24] = [
    0x83,                                                 // fixmap of 3
    0xa4, b'n', b'a', b'm', b'e',                         // "name"
    0xa2, b'a', b'b',                                     // "ab"
    0xa7, b'v', b'e', b'r', b's', b'i', b'o', b'n',       // "version" (0x09..=0x10)
    0x01,                                                 // 1, at 0x11
    0xa4, b's', b'i', b'z', b'e',                         // "size"
    0x05,                                                 // 5, at 0x17
];

/// `{"name": "ab", "version": 2, "chunks": [300, 7]}`.
#[rustfmt::skip]
const STORE_V2: [u8; 30] = [
    0x83,
    0xa4, b'n', b'a', b'm', b'e',
    0xa2, b'a', b'b',
    0xa7, b'v', b'e', b'r', b's', b'i', b'o', b'n',
    0x02,                                                 // 2, at 0x11
    0xa6, b'c', b'h', b'u', b'n', b'k', b's',             // "chunks"
    0x92, 0xcd, 0x01, 0x2c, 0x07,                         // [300 (uint16), 7]
];

fn v1() -> StoreV1 {
    StoreV1 {
        name: "ab".into(),
        size: 5,
    }
}

fn v2() -> StoreV2 {
    StoreV2 {
        name: "ab".into(),
        chunks: vec![300, 7],
    }
}

#[test]
fn both_versions_decode_to_their_variant() {
    assert_eq!(Store::decode("store", &STORE_V1), Ok(Store::V1(v1())));
    assert_eq!(Store::decode("store", &STORE_V2), Ok(Store::V2(v2())));
    let decoded = Store::decode("store", &STORE_V2).unwrap();
    assert_eq!((decoded.schema(), decoded.metalayer()), ("store_v2", "store"));
}

#[test]
fn both_versions_encode_in_their_own_layout() {
    let one = Store::V1(v1());
    let two = Store::V2(v2());
    assert_eq!(one.encode().unwrap(), STORE_V1);
    assert_eq!(two.encode().unwrap(), STORE_V2);
    assert_eq!((one.encoded_len(), two.encoded_len()), (24, 30));
    let mut buf = [0u8; 32];
    let n = two.encode_into(&mut buf).unwrap();
    assert_eq!(&buf[..n], STORE_V2);
    // The enum writes what the variant's own type writes.
    assert_eq!(v1().encode().unwrap(), one.encode().unwrap());
    assert!(one.encode_into(&mut [0u8; 23]).is_err());
}

#[test]
fn each_strict_decoder_refuses_the_other_version() {
    assert_eq!(
        StoreV1::decode(&STORE_V2).unwrap_err().to_string(),
        "store_v1: at byte 0x11 in version: expected constant 1, found 2"
    );
    assert_eq!(
        StoreV2::decode(&STORE_V1).unwrap_err().to_string(),
        "store_v2: at byte 0x11 in version: expected constant 2, found 1"
    );
}

#[test]
fn an_unknown_version_is_reported_with_what_each_version_expects() {
    let mut v3 = STORE_V1;
    v3[0x11] = 0x03;
    let err = Store::decode("store", &v3).unwrap_err();
    assert_eq!(
        err.to_string(),
        "no store layout fits: at byte 0x11 in version: store_v1 expects 0x01, store_v2 expects 0x02; found 0x03"
    );
    // The probes pass over the name whole: step 15 (the header, 5 bytes of key, the name, 8
    // bytes of key) stands at byte 0x11 here.
    assert!(matches!(
        err,
        DispatchError::NoLayoutFits {
            metalayer: "store",
            offset: 0x11,
            step: 15,
            found: Some(0x03),
            ..
        }
    ));
    // A longer name moves the version's byte, and the error with it: "abcdef" is 4 bytes more.
    let long = Store::V1(StoreV1 {
        name: "abcdef".into(),
        size: 5,
    });
    let mut bytes = long.encode().unwrap();
    assert_eq!(bytes[0x15], 0x01);
    bytes[0x15] = 0x07;
    assert_eq!(
        Store::decode("store", &bytes).unwrap_err().to_string(),
        "no store layout fits: at byte 0x15 in version: store_v1 expects 0x01, store_v2 expects 0x02; found 0x07"
    );
}

#[test]
fn past_the_parting_the_chosen_decoder_says_what_is_wrong() {
    // Version 1 with size -1 (a negative fixint): version 1's decoder reads up to the size.
    let mut bad = STORE_V1;
    bad[0x17] = 0xff;
    let err = Store::decode("store", &bad).unwrap_err();
    assert!(matches!(err, DispatchError::Decode(_)));
    assert_eq!(
        err.to_string(),
        "store_v1: at byte 0x17 in size: expected a value in 0..=18446744073709551615, found -1"
    );
    // Cut inside the name ("a" of "ab"): both fit as far as it goes; the first version reports it.
    assert_eq!(
        Store::decode("store", &STORE_V1[..8]).unwrap_err().to_string(),
        "store_v1: at byte 0x07 in name: expected 2 more bytes, found 1"
    );
    // A header no version has.
    assert_eq!(
        Store::decode("store", &[0x84]).unwrap_err().to_string(),
        "no store layout fits: at byte 0x00 store_v1 expects 0x83, store_v2 expects 0x83; found 0x84"
    );
    assert_eq!(
        Store::decode("units", &STORE_V1).unwrap_err().to_string(),
        r#"no known layout for the metalayer name "units"; known names: store"#
    );
}

#[metalayer(schema_path = "tests/schemas/dispatch/reading_number_v0.toml")]
#[derive(Debug, Clone, PartialEq)]
struct Number<'a> {
    label: &'a str,
    value: i64,
}

#[metalayer(schema_path = "tests/schemas/dispatch/reading_text_v0.toml")]
#[derive(Debug, Clone, PartialEq)]
struct Text<'a> {
    label: &'a str,
    value: &'a str,
}

/// A reading of either kind, borrowed from its bytes.
#[metalayer(dispatch)]
#[derive(Debug, Clone, PartialEq)]
enum Reading<'a> {
    #[metalayer(schema_path = "tests/schemas/dispatch/reading_number_v0.toml")]
    Number(Number<'a>),
    #[metalayer(schema_path = "tests/schemas/dispatch/reading_text_v0.toml")]
    Text(Text<'a>),
}

#[test]
fn readings_part_at_the_value_after_the_label() {
    // ["temp", -3] and ["temp", "hi"].
    let number = [0x92, 0xa4, b't', b'e', b'm', b'p', 0xfd];
    let text = [0x92, 0xa4, b't', b'e', b'm', b'p', 0xa2, b'h', b'i'];
    assert_eq!(
        Reading::decode("reading", &number),
        Ok(Reading::Number(Number {
            label: "temp",
            value: -3
        }))
    );
    let decoded = Reading::decode("reading", &text).unwrap();
    assert_eq!(
        decoded,
        Reading::Text(Text {
            label: "temp",
            value: "hi"
        })
    );
    assert_eq!(decoded.encode().unwrap(), text);
    assert_eq!(Reading::decode("reading", &number).unwrap().encode().unwrap(), number);
    // nil is neither: an integer starts with a fixint or 0xcc..=0xd3, a string with a fixstr
    // marker or 0xd9..=0xdb.
    let nil = [0x92, 0xa4, b't', b'e', b'm', b'p', 0xc0];
    assert_eq!(
        Reading::decode("reading", &nil).unwrap_err().to_string(),
        "no reading layout fits: at byte 0x06 in value: reading_number_v0 expects 0x00..=0x7f or 0xcc..=0xd3 or 0xe0..=0xff, \
         reading_text_v0 expects 0xa0..=0xbf or 0xd9..=0xdb; found 0xc0"
    );
}
