//! Language 3 of the schema language against bytes python's `msgpack.packb` wrote
//! (`tests/fixtures/language3.json`, made by `tests/fixtures/language3.py`): strings and byte
//! strings of fixed length and timestamps decode and re-encode exactly, in generated code and in
//! the run-time engine, which agree on every input and every refusal.

mod common;

use arrayvec::ArrayString;
use common::{engine_agrees, engine_layout, unhex};
use metalayer::prelude::*;
use metalayer::{Timestamp, value};
use serde_json::Value;

#[metalayer(schema_path = "tests/schemas/digest_v1.toml")]
#[derive(Debug, PartialEq)]
struct Digest {
    sha256: [u8; 32],
}

#[metalayer(schema_path = "tests/schemas/digest_v1.toml")]
#[derive(Debug, PartialEq)]
struct DigestVec {
    sha256: Vec<u8>,
}

#[metalayer(schema_path = "tests/schemas/when_v1.toml")]
#[derive(Debug, PartialEq)]
struct When(Timestamp);

/// A single value held by a struct's one named field.
#[metalayer(schema_path = "tests/schemas/when_v1.toml")]
#[derive(Debug, PartialEq)]
struct Created {
    at: Timestamp,
}

#[metalayer(schema_path = "tests/schemas/stamp_v1.toml")]
#[derive(Debug, PartialEq)]
struct Stamp {
    id: ArrayString<8>,
    created: Timestamp,
}

#[metalayer(schema_path = "tests/schemas/typed_v1.toml")]
#[derive(Debug, PartialEq)]
struct Typed {
    shape: Vec<i64>,
    dtype_format: Option<u8>,
    dtype: Option<String>,
}

#[metalayer(schema_path = "tests/schemas/grid_v1.toml")]
#[derive(Debug, PartialEq)]
struct Grid {
    shape: Vec<u32>,
    corners: Vec<Vec<u32>>,
}

/// One vector of the fixture.
struct Vector {
    name: String,
    schema: String,
    bytes: Vec<u8>,
    json: Value,
}

fn vectors() -> Vec<Vector> {
    let text = include_str!("fixtures/language3.json");
    let doc: Value = serde_json::from_str(text).expect("language3.json");
    doc["vectors"]
        .as_array()
        .expect("vectors")
        .iter()
        .map(|v| Vector {
            name: v["name"].as_str().expect("name").to_owned(),
            schema: v["schema"].as_str().expect("schema").to_owned(),
            bytes: unhex(v["hex"].as_str().expect("hex")),
            json: v["json"].clone(),
        })
        .collect()
}

/// Generated code decodes python's bytes and encodes them back exactly; the engine reads the
/// JSON python's value stands for, and writes the same bytes from it.
fn round_trip<T: DecodeOwned>(v: &Vector) -> T {
    let value = T::decode(&v.bytes).unwrap_or_else(|e| panic!("{}: {e}", v.name));
    assert_eq!(value.encode().expect("encodes"), v.bytes, "{}", v.name);
    assert_eq!(value.encoded_len(), v.bytes.len(), "{}", v.name);
    let layout = engine_layout(&v.schema);
    let json = value::to_json_value(layout, &v.bytes).unwrap_or_else(|e| panic!("{}: {e}", v.name));
    assert_eq!(json, v.json, "{}", v.name);
    assert_eq!(value::encode(layout, &json).expect("encodes"), v.bytes, "{}", v.name);
    engine_agrees::<T>(&v.bytes, None);
    value
}

/// The vector named `name`.
fn find<'v>(all: &'v [Vector], name: &str) -> &'v Vector {
    all.iter()
        .find(|v| v.name == name)
        .unwrap_or_else(|| panic!("no vector {name}"))
}

/// Generated code refuses the bytes with `expected`, and the engine with the same error.
fn refused<T: DecodeOwned>(bytes: &[u8], expected: &str) {
    assert_eq!(T::decode(bytes).err().map(|e| e.to_string()).as_deref(), Some(expected));
    engine_agrees::<T>(bytes, None);
}

/// Generated code refuses to encode `value` with `expected`, and the engine `json`, the same
/// value, with the same error.
fn encode_refused<T: Metalayer>(value: &T, json: Value, expected: &str) {
    assert_eq!(value.encode().unwrap_err().to_string(), expected);
    let layout = engine_layout(T::SCHEMA);
    assert_eq!(value::encode(layout, &json).unwrap_err().to_string(), expected);
}

#[test]
fn python_s_digest_decodes_and_a_short_one_is_refused() {
    let all = vectors();
    let digest = all.iter().find(|v| v.name == "digest").expect("digest");
    let value: Digest = round_trip(digest);
    assert_eq!(value.sha256[..4], [0x02, 0xf9, 0x80, 0xcb]);
    let _: DigestVec = round_trip(digest);

    // 31 bytes: the schema's length is checked before the field type's, at the bin header
    // (byte 0x11: 0x82, "version" 8 bytes, 0x01, "sha256" 7 bytes).
    let short = all.iter().find(|v| v.name == "digest, 31 bytes").expect("short");
    let expected = "digest_v1: at byte 0x11 in sha256: expected a length of 32 bytes, found 31";
    assert_eq!(Digest::decode(&short.bytes).unwrap_err().to_string(), expected);
    assert_eq!(DigestVec::decode(&short.bytes).unwrap_err().to_string(), expected);
    let layout = engine_layout("digest_v1");
    assert_eq!(
        value::to_json_value(layout, &short.bytes).unwrap_err().to_string(),
        expected
    );
    engine_agrees::<Digest>(&short.bytes, None);

    // Encoding refuses a digest of another length, in generated code and in the engine.
    let err = DigestVec { sha256: vec![0; 31] }.encode().unwrap_err();
    assert_eq!(
        err.to_string(),
        "digest_v1: in sha256: expected a length of 32 for bin, found 31"
    );
    let json = serde_json::json!({"version": 1, "sha256": "00".repeat(31)});
    assert_eq!(value::encode(layout, &json).unwrap_err().to_string(), err.to_string());
}

#[test]
fn python_s_timestamps_decode_and_re_encode_exactly() {
    let all = vectors();
    let times: Vec<&Vector> = all.iter().filter(|v| v.schema == "when_v1").collect();
    assert_eq!(times.len(), 7);
    for v in times {
        let When(t) = round_trip(v);
        // The time python packed, read back from the JSON fixture's RFC 3339 text.
        let text = v.json.as_str().expect("text");
        assert_eq!(value::parse_timestamp(text), Ok(t), "{}", v.name);
    }
    // The same bytes through a struct with one named field.
    let nanos = all.iter().find(|v| v.name == "nanoseconds").expect("nanoseconds");
    let created: Created = round_trip(nanos);
    assert_eq!(created.at.nanoseconds, 123_456_789);
    let record = all.iter().find(|v| v.name == "record").expect("record");
    let stamp: Stamp = round_trip(record);
    assert_eq!(
        stamp.created,
        Timestamp {
            seconds: 1_700_000_000,
            nanoseconds: 500_000_000
        }
    );
}

#[test]
fn timestamps_in_other_forms_are_refused_unless_lenient() {
    // One second in the 64-bit form: python writes d6 ff 00000001 for it.
    let long = unhex("d7ff0000000000000001");
    let err = When::decode(&long).unwrap_err();
    assert_eq!(
        err.to_string(),
        "when_v1: at byte 0x00 in when: expected the smallest encoding fixext4, found fixext8"
    );
    engine_agrees::<When>(&long, None);
    // Nanoseconds past 999999999: 1000000000 = 0x3b9aca00 in the upper 30 bits of the 64-bit
    // form is 0x3b9aca00 << 34 = ee6b2800 00000000; then a 5-byte ext -1.
    let nanos = unhex("d7ffee6b280000000001");
    assert_eq!(
        When::decode(&nanos).unwrap_err().to_string(),
        "when_v1: at byte 0x02 in when: expected nanoseconds in 0..=999999999, found 1000000000"
    );
    engine_agrees::<When>(&nanos, None);
    let five = unhex("c705ff0000000001");
    assert_eq!(
        When::decode(&five).unwrap_err().to_string(),
        "when_v1: at byte 0x00 in when: expected a timestamp of 4, 8 or 12 bytes in its form, found 5 bytes"
    );
    engine_agrees::<When>(&five, None);
    let other_type = unhex("d6010000000001");
    engine_agrees::<When>(&other_type[..6], None);

    // A schema of the 64-bit form reads it, refuses python's 32-bit form for a whole second,
    // and refuses to encode a time the form does not hold.
    let head = "[schema]\nmetalayer = \"w\"\ndescription = \"d\"\nsource = \"s\"\nlanguage = 3\n";
    let fixed = metalayer_layout::parse("w64_v1", &format!("{head}[value]\nwire = \"timestamp64\"\n")).unwrap();
    assert_eq!(value::to_json_value(&fixed, &long).unwrap(), "1970-01-01T00:00:01Z");
    assert_eq!(
        value::to_json_value(&fixed, &unhex("d6ff00000001"))
            .unwrap_err()
            .to_string(),
        "w64_v1: at byte 0x00 in w: expected fixext8 marker 0xd7, found 0xd6"
    );
    assert_eq!(
        value::encode(&fixed, &Value::from("1969-12-31T23:59:59Z"))
            .unwrap_err()
            .to_string(),
        "w64_v1: in w: expected a time that timestamp64 holds, found -1 s + 0 ns"
    );
    // Lenient: any of the three forms is read; the smallest is written.
    let lenient = metalayer_layout::parse(
        "wl_v1",
        &format!("{head}[value]\nwire = \"timestamp\"\nlenient = true\n"),
    )
    .unwrap();
    let json = value::to_json_value(&lenient, &long).unwrap();
    assert_eq!(value::encode(&lenient, &json).unwrap(), unhex("d6ff00000001"));
}

#[test]
fn entries_that_go_together_are_both_present_or_both_absent() {
    let all = vectors();
    let both: Typed = round_trip(find(&all, "dtype"));
    assert_eq!((both.dtype_format, both.dtype.as_deref()), (Some(0), Some("<i4")));
    let neither: Typed = round_trip(find(&all, "no dtype"));
    assert_eq!((neither.dtype_format, neither.dtype), (None, None));

    // python's [0, 1, [5], 0]: four entries end between dtype_format and dtype.
    refused::<Typed>(
        &find(&all, "dtype_format alone").bytes,
        "typed_v1: at byte 0x00 in the container: expected dtype_format and dtype both present or both absent, found 4 entries, which end between them",
    );

    // Encoding one without the other is refused, by generated code and by the engine alike.
    let value = Typed {
        shape: vec![5],
        dtype_format: Some(0),
        dtype: None,
    };
    encode_refused(
        &value,
        serde_json::json!({"shape": [5], "dtype_format": 0}),
        "typed_v1: in dtype: expected dtype_format and dtype both present or both absent, found only dtype_format",
    );
}

#[test]
fn nested_arrays_are_counted_by_an_earlier_entry() {
    let all = vectors();
    let grid: Grid = round_trip(find(&all, "corners"));
    assert_eq!(grid.corners, [[0, 0], [2, 3]]);

    // python's [0, 2, [3, 4], [[0, 0], [2]]]: the second corner's header (0x91, at byte 0x0a:
    // 94 00 02 92 03 04 92 92 00 00 91) states 1 element where ndim is 2.
    refused::<Grid>(
        &find(&all, "a short corner").bytes,
        "grid_v1: at byte 0x0a in corners[1]: expected a count of 2 (ndim), found 1",
    );
    let value = Grid {
        shape: vec![3, 4],
        corners: vec![vec![0, 0], vec![2]],
    };
    encode_refused(
        &value,
        serde_json::json!({"shape": [3, 4], "corners": [[0, 0], [2]]}),
        "grid_v1: in corners[1]: expected 2 elements (the length of shape, both counted by ndim), found 1",
    );
}

#[test]
fn the_engine_reads_every_vector_as_python_s_value() {
    // Each vector python wrote a value for: the engine's JSON is that value (byte strings as
    // hex, timestamps as RFC 3339 text made by python's datetime), and encodes back exactly.
    let all = vectors();
    let shown: Vec<&Vector> = all.iter().filter(|v| !v.json.is_null()).collect();
    assert_eq!(shown.len(), 13);
    for v in shown {
        let layout = engine_layout(&v.schema);
        let json = value::to_json_value(layout, &v.bytes).unwrap_or_else(|e| panic!("{}: {e}", v.name));
        assert_eq!(json, v.json, "{}", v.name);
        assert_eq!(value::encode(layout, &json).expect("encodes"), v.bytes, "{}", v.name);
    }
}
