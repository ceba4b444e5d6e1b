//! A schema that nests every kind of value (`tests/schemas/nested_v0.toml`): a map record of
//! floats, a bool, a canonical integer, an array of strings, an array of arrays, an array16 of
//! records of a named type, bin, ext, a homogeneous map and two optional trailing entries.
//!
//! The expected bytes come from python's `msgpack` 1.2 (`msgpack.packb(v, use_bin_type=True)`
//! for each key and value; the float32 and the array16 header, which `packb` does not choose for
//! these values, written with `struct.pack`), by this script:
//!
//! ```python
//! import msgpack, struct
//! P = lambda v: msgpack.packb(v, use_bin_type=True)
//! def build(n_optional):
//!     entries = [
//!         ("version", P(1)), ("scale", P(1.5)), ("ratio", b"\xca" + struct.pack(">f", 0.25)),
//!         ("enabled", P(True)), ("level", P(300)), ("tags", P(["a", "bc"])), ("grid", P([[1, -2], [300]])),
//!         ("operands", b"\xdc" + struct.pack(">H", 2) + b"".join(P(o) for o in [
//!             {"k": "x", "codec": 5, "shape": [10, 20]}, {"k": "yz", "codec": 0, "shape": []}])),
//!         ("blob", P(b"\x00\xff")), ("stamp", P(msgpack.ExtType(42, b"\x01\x02\x03"))),
//!         ("attrs", P({"a": -5, "b": 70000})), ("note", P("hi")), ("origin", P([0.5, -2.0])),
//!     ]
//!     entries = entries[: 11 + n_optional]
//!     return (bytes([0x80 + len(entries)]) + b"".join(P(k) + v for k, v in entries)).hex()
//! ```
//!
//! rmpv, an independent msgpack implementation, reads every encoding back to the values.

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};

use common::unhex;
use metalayer::prelude::*;
use metalayer::{DecodeErrorKind, EncodeErrorKind, Ext};
use proptest::prelude::*;

#[metalayer(schema_path = "tests/schemas/nested_v0.toml")]
#[derive(Debug, Clone, PartialEq)]
struct Nested {
    scale: f64,
    ratio: f32,
    enabled: bool,
    level: i32,
    tags: Vec<String>,
    grid: Vec<Vec<i64>>,
    operands: Vec<Operand>,
    blob: Vec<u8>,
    stamp: Ext<Vec<u8>>,
    attrs: Vec<(String, i64)>,
    note: Option<String>,
    origin: Option<[f64; 2]>,
}

#[metalayer(schema_path = "tests/schemas/nested_v0.toml", layout = "operand")]
#[derive(Debug, Clone, PartialEq)]
struct Operand {
    kind: String,
    codec: u8,
    shape: Vec<u64>,
}

/// The same layout borrowing every string and byte string from the input.
#[metalayer(schema_path = "tests/schemas/nested_v0.toml")]
#[derive(Debug, Clone, PartialEq)]
struct NestedBorrowed<'a> {
    scale: f64,
    ratio: f32,
    enabled: bool,
    level: i64,
    tags: Vec<&'a str>,
    grid: Vec<Vec<i64>>,
    operands: Vec<OperandBorrowed<'a>>,
    blob: &'a [u8],
    stamp: Ext<&'a [u8]>,
    attrs: Vec<(&'a str, i64)>,
    note: Option<&'a str>,
    origin: Option<Vec<f64>>,
}

#[metalayer(schema_path = "tests/schemas/nested_v0.toml", layout = "operand")]
#[derive(Debug, Clone, PartialEq)]
struct OperandBorrowed<'a> {
    kind: &'a str,
    codec: i8,
    shape: Vec<u64>,
}

const ALL: &str = "8da776657273696f6e01a57363616c65cb3ff8000000000000a5726174696fca3e800000a7656e61626c6564c3a56c6576656ccd012ca47461677392a161a26263a467726964929201fe91cd012ca86f706572616e6473dc000283a16ba178a5636f64656305a57368617065920a1483a16ba2797aa5636f64656300a5736861706590a4626c6f62c40200ffa57374616d70c7032a010203a5617474727382a161fba162ce00011170a46e6f7465a26869a66f726967696e92cb3fe0000000000000cbc000000000000000";
const ONE_OPTIONAL: &str = "8ca776657273696f6e01a57363616c65cb3ff8000000000000a5726174696fca3e800000a7656e61626c6564c3a56c6576656ccd012ca47461677392a161a26263a467726964929201fe91cd012ca86f706572616e6473dc000283a16ba178a5636f64656305a57368617065920a1483a16ba2797aa5636f64656300a5736861706590a4626c6f62c40200ffa57374616d70c7032a010203a5617474727382a161fba162ce00011170a46e6f7465a26869";
const NO_OPTIONAL: &str = "8ba776657273696f6e01a57363616c65cb3ff8000000000000a5726174696fca3e800000a7656e61626c6564c3a56c6576656ccd012ca47461677392a161a26263a467726964929201fe91cd012ca86f706572616e6473dc000283a16ba178a5636f64656305a57368617065920a1483a16ba2797aa5636f64656300a5736861706590a4626c6f62c40200ffa57374616d70c7032a010203a5617474727382a161fba162ce00011170";

fn sample() -> Nested {
    Nested {
        scale: 1.5,
        ratio: 0.25,
        enabled: true,
        level: 300,
        tags: vec!["a".into(), "bc".into()],
        grid: vec![vec![1, -2], vec![300]],
        operands: vec![
            Operand {
                kind: "x".into(),
                codec: 5,
                shape: vec![10, 20],
            },
            Operand {
                kind: "yz".into(),
                codec: 0,
                shape: vec![],
            },
        ],
        blob: vec![0x00, 0xff],
        stamp: Ext {
            ty: 42,
            data: vec![1, 2, 3],
        },
        attrs: vec![("a".into(), -5), ("b".into(), 70000)],
        note: Some("hi".into()),
        origin: Some([0.5, -2.0]),
    }
}

#[test]
fn python_bytes_decode_to_the_values_and_encode_back() {
    let cases = [
        (ALL, sample()),
        (
            ONE_OPTIONAL,
            Nested {
                origin: None,
                ..sample()
            },
        ),
        (
            NO_OPTIONAL,
            Nested {
                note: None,
                origin: None,
                ..sample()
            },
        ),
    ];
    for (hex, value) in cases {
        let bytes = unhex(hex);
        assert_eq!(Nested::decode(&bytes).unwrap(), value);
        assert_eq!(value.encoded_len(), bytes.len());
        assert_eq!(value.encode().unwrap(), bytes, "{value:?}");
        let borrowed = NestedBorrowed::decode(&bytes).unwrap();
        assert_eq!(borrowed.tags, ["a", "bc"]);
        assert_eq!(borrowed.operands[1].kind, "yz");
        assert_eq!(borrowed.encode().unwrap(), bytes);
    }
}

#[test]
fn rmpv_reads_the_encoding_as_the_values() {
    use rmpv::Value as V;
    let bytes = sample().encode().unwrap();
    let value = rmpv::decode::read_value(&mut &bytes[..]).unwrap();
    let s = |t: &str| V::from(t);
    let expected = V::Map(vec![
        (s("version"), V::from(1)),
        (s("scale"), V::F64(1.5)),
        (s("ratio"), V::F32(0.25)),
        (s("enabled"), V::Boolean(true)),
        (s("level"), V::from(300)),
        (s("tags"), V::Array(vec![s("a"), s("bc")])),
        (
            s("grid"),
            V::Array(vec![
                V::Array(vec![V::from(1), V::from(-2)]),
                V::Array(vec![V::from(300)]),
            ]),
        ),
        (
            s("operands"),
            V::Array(vec![
                V::Map(vec![
                    (s("k"), s("x")),
                    (s("codec"), V::from(5)),
                    (s("shape"), V::Array(vec![V::from(10), V::from(20)])),
                ]),
                V::Map(vec![
                    (s("k"), s("yz")),
                    (s("codec"), V::from(0)),
                    (s("shape"), V::Array(vec![])),
                ]),
            ]),
        ),
        (s("blob"), V::Binary(vec![0, 0xff])),
        (s("stamp"), V::Ext(42, vec![1, 2, 3])),
        (
            s("attrs"),
            V::Map(vec![(s("a"), V::from(-5)), (s("b"), V::from(70000))]),
        ),
        (s("note"), s("hi")),
        (s("origin"), V::Array(vec![V::F64(0.5), V::F64(-2.0)])),
    ]);
    assert_eq!(value, expected);
}

#[test]
fn errors_name_the_nested_place() {
    let mut bytes = unhex(ALL);
    // The second operand's codec: 0x00 at the offset after "yz" and the "codec" key.
    let codec = bytes.windows(6).rposition(|w| w == b"\xa5codec").unwrap() + 6;
    bytes[codec] = 0x03;
    let err = Nested::decode(&bytes).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "nested_v0: at byte {codec:#04x} in operands[1].codec: expected one of blosclz = 0, lz4 = 1, zstd = 5, found 3"
        )
    );

    // An integer written wider than the smallest encoding.
    let mut wide = unhex(ALL);
    let level = wide.windows(6).position(|w| w == b"\xa5level").unwrap() + 6;
    wide.splice(level..level + 3, [0xce, 0, 0, 1, 0x2c]);
    let err = Nested::decode(&wide).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("nested_v0: at byte {level:#04x} in level: expected the smallest encoding uint16, found uint32")
    );

    // A key out of order.
    let mut key = unhex(ALL);
    let at = key.windows(6).position(|w| w == b"\xa5scale").unwrap();
    key[at + 1] = b'S';
    let err = Nested::decode(&key).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("nested_v0: at byte {at:#04x} in scale: expected key \"scale\", found another key")
    );

    // An array element of an array element.
    let mut grid = unhex(ALL);
    let at = grid.windows(3).position(|w| w == [0x91, 0xcd, 0x01]).unwrap() + 1;
    grid[at] = 0xc3;
    let err = Nested::decode(&grid).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "nested_v0: at byte {at:#04x} in grid[1][0]: expected int (0x00..=0x7f, 0xcc..=0xd3, 0xe0..=0xff), found 0xc3 (bool)"
        )
    );
}

#[test]
fn encode_refuses_what_the_schema_does_not_allow() {
    let gap = Nested { note: None, ..sample() };
    let err = gap.encode().unwrap_err();
    assert_eq!(err.path().to_string(), "origin");
    assert!(
        matches!(err.kind(), EncodeErrorKind::OptionalGap { absent } if absent == "note"),
        "{err}"
    );

    let mut out_of_range = sample();
    out_of_range.level = 100_001;
    let err = out_of_range.encode().unwrap_err();
    assert_eq!(err.path().to_string(), "level");

    let mut not_named = sample();
    not_named.operands[1].codec = 2;
    let err = not_named.encode().unwrap_err();
    assert_eq!(err.path().to_string(), "operands[1].codec");
    assert!(matches!(err.kind(), EncodeErrorKind::NotNamed { .. }), "{err}");
}

#[test]
fn a_field_type_narrower_than_a_canonical_value_is_a_decode_error() {
    #[metalayer(schema_path = "tests/schemas/nested_v0.toml", layout = "operand")]
    #[derive(Debug)]
    struct Narrow {
        kind: String,
        codec: u8,
        shape: Vec<u8>,
    }
    // {"k": "x", "codec": 1, "shape": [300]}
    let bytes = unhex("83a16ba178a5636f64656301a5736861706591cd012c");
    let mut d = metalayer::__private::Decoder::new(&bytes, "nested_v0");
    let err = <Narrow as metalayer::Record>::decode_record(&mut d).unwrap_err();
    assert_eq!(
        err.to_string(),
        "nested_v0: at byte 0x13 in shape[0]: expected a value in 0..=255, found 300"
    );
    assert!(matches!(err.kind(), DecodeErrorKind::OutOfRange { .. }));
}

// ---------------------------------------------------------------------------------------------
// Round trips of generated values
// ---------------------------------------------------------------------------------------------

fn operand() -> impl Strategy<Value = Operand> {
    (
        "[a-z]{0,40}",
        prop::sample::select(vec![0u8, 1, 5]),
        prop::collection::vec(any::<u64>(), 0..20),
    )
        .prop_map(|(kind, codec, shape)| Operand { kind, codec, shape })
}

fn nested() -> impl Strategy<Value = Nested> {
    (
        (
            any::<f64>(),
            any::<f32>(),
            any::<bool>(),
            -1000i32..=100_000,
            prop::collection::vec("\\PC{0,40}", 0..20),
            prop::collection::vec(prop::collection::vec(any::<i64>(), 0..5), 0..5),
        ),
        (
            prop::collection::vec(operand(), 0..4),
            prop::collection::vec(any::<u8>(), 0..300),
            (any::<i8>(), prop::collection::vec(any::<u8>(), 0..40)),
            prop::collection::vec(("[a-z]{1,8}", any::<i64>()), 0..20),
            prop::option::of("\\PC{0,300}"),
            prop::option::of(any::<[f64; 2]>()),
        ),
    )
        .prop_map(
            |((scale, ratio, enabled, level, tags, grid), (operands, blob, (ty, data), attrs, note, origin))| Nested {
                scale,
                ratio,
                enabled,
                level,
                tags,
                grid,
                operands,
                blob,
                stamp: Ext { ty, data },
                attrs,
                origin: origin.filter(|_| note.is_some()),
                note,
            },
        )
}

/// Floats compared by their bits, so that NaN equals itself.
fn same(a: &Nested, b: &Nested) -> bool {
    let bits = |n: &Nested| {
        (
            n.scale.to_bits(),
            n.ratio.to_bits(),
            n.origin.map(|o| o.map(f64::to_bits)),
        )
    };
    bits(a) == bits(b)
        && a.enabled == b.enabled
        && a.level == b.level
        && a.tags == b.tags
        && a.grid == b.grid
        && a.operands == b.operands
        && a.blob == b.blob
        && a.stamp == b.stamp
        && a.attrs == b.attrs
        && a.note == b.note
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn values_round_trip_and_rmpv_reads_them(value in nested()) {
        let bytes = value.encode().unwrap();
        prop_assert_eq!(bytes.len(), value.encoded_len());
        let back = Nested::decode(&bytes).unwrap();
        prop_assert!(same(&back, &value), "{:?} != {:?}", back, value);
        prop_assert_eq!(back.encode().unwrap(), bytes.clone());
        let borrowed = NestedBorrowed::decode(&bytes).unwrap();
        prop_assert_eq!(borrowed.encode().unwrap(), bytes.clone());
        // An independent reader agrees on the structure and the canonical integers.
        let read = rmpv::decode::read_value(&mut &bytes[..]).unwrap();
        let map = read.as_map().unwrap();
        prop_assert_eq!(map.len(), 11 + usize::from(value.note.is_some()) + usize::from(value.origin.is_some()));
        prop_assert_eq!(map[4].1.as_i64(), Some(i64::from(value.level)));
        let mut again = Vec::new();
        rmpv::encode::write_value(&mut again, &read).unwrap();
        // rmpv writes the smallest forms too, except for the array16 the schema fixes.
        if value.operands.len() > 15 {
            prop_assert_ne!(again, bytes);
        } else {
            prop_assert_eq!(again.len() + 2, bytes.len());
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Every malformed input
// ---------------------------------------------------------------------------------------------

/// Every truncation, every other byte value at every offset, every inserted byte and every
/// deleted byte of the python bytes: no panic; a refusal names an offset in the input, an entry
/// of the schema and the byte found when it names one; an accepted input encodes back to itself.
#[test]
fn every_malformed_input_is_refused_with_its_offset_or_reencodes_to_itself() {
    let original = unhex(ALL);
    let entries = [
        "version", "scale", "ratio", "enabled", "level", "tags", "grid", "operands", "blob", "stamp", "attrs", "note",
        "origin",
    ];
    let (mut ok, mut err) = (0usize, 0usize);
    let mut check = |what: &str, input: &[u8]| {
        let outcome = catch_unwind(AssertUnwindSafe(|| Nested::decode(input)))
            .unwrap_or_else(|_| panic!("{what}: the decoder panicked"));
        match outcome {
            Ok(value) => {
                ok += 1;
                assert_eq!(
                    value.encode().unwrap(),
                    input,
                    "{what}: accepted, but encodes otherwise"
                );
            }
            Err(e) => {
                err += 1;
                let at = e.offset();
                assert!(at <= input.len(), "{what}: {e}");
                if let Some(entry) = e.path().entry_name() {
                    assert!(entries.contains(&entry) || e.path().is_end(), "{what}: {e}");
                }
                let byte = input.get(at).copied();
                match e.kind().clone() {
                    DecodeErrorKind::Family { found, .. } | DecodeErrorKind::Marker { found, .. } => {
                        assert_eq!(byte, Some(found), "{what}: {e}");
                    }
                    DecodeErrorKind::Truncated { needed, available } => {
                        assert!(at + available == input.len() && needed > available, "{what}: {e}");
                    }
                    DecodeErrorKind::TrailingBytes { count } => {
                        assert_eq!(at + count, input.len(), "{what}: {e}");
                    }
                    _ => assert!(at < input.len(), "{what}: {e}"),
                }
                assert!(
                    e.to_string().starts_with(&format!("nested_v0: at byte {at:#04x} ")),
                    "{what}: {e}"
                );
            }
        }
    };
    let len = original.len();
    for n in 0..len {
        check(&format!("truncated to {n}"), &original[..n]);
    }
    let mut buf = original.clone();
    for at in 0..len {
        for v in 0..=255u8 {
            if v != original[at] {
                buf[at] = v;
                check(&format!("byte {at:#x} set to {v:#x}"), &buf);
            }
        }
        buf[at] = original[at];
    }
    for at in 0..=len {
        for v in 0..=255u8 {
            let mut b = original.clone();
            b.insert(at, v);
            check(&format!("{v:#x} inserted at {at:#x}"), &b);
        }
    }
    for at in 0..len {
        let mut b = original.clone();
        b.remove(at);
        check(&format!("byte {at:#x} deleted"), &b);
    }
    eprintln!("{len} bytes: {ok} mutations accepted, {err} refused");
    assert!(ok > 0 && err > ok);
}
