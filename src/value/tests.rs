//! Every node kind decoded and encoded through small schemas. The expected bytes come from
//! python's `msgpack` package (1.2.4) for what standard msgpack writes, with the fixed wire
//! types packed by hand with `struct`, as each comment shows.

#[allow(unused_imports)]
use crate::std_prelude::*;

use metalayer_layout::{Layout, Type};
use serde_json::{Value, json};

use super::json::{hex, parse_hex};
use super::{DEPTH_LIMIT, DecodeFailure, Typed, encode, to_json_value as decode_all};

/// The value at the start of `input`, and the bytes it takes.
fn decode(layout: &Layout, input: &[u8]) -> Result<(Value, usize), DecodeFailure> {
    let (value, used) = Typed::prefix(layout, input)?;
    Ok((serde_json::to_value(value).unwrap_or_default(), used))
}

const HEAD: &str = "[schema]\nmetalayer = \"t\"\ndescription = \"a test layout\"\nsource = \"tests\"\n";

fn layout(name: &str, body: &str) -> Layout {
    let text = format!("{HEAD}{body}");
    match metalayer_layout::parse(name, &text) {
        Ok(layout) => layout,
        Err(errors) => panic!("{name} does not check:\n{errors}"),
    }
}

fn bytes(hex_text: &str) -> Vec<u8> {
    parse_hex(hex_text).unwrap_or_else(|e| panic!("{e}"))
}

fn encoded(layout: &Layout, value: &Value) -> String {
    encode(layout, value)
        .map(|b| hex(&b))
        .unwrap_or_else(|e| format!("error: {e}"))
}

fn decoded(layout: &Layout, hex_text: &str) -> Value {
    decode_all(layout, &bytes(hex_text)).unwrap_or_else(|e| Value::String(format!("error: {e}")))
}

fn decode_error(layout: &Layout, hex_text: &str) -> String {
    decode_all(layout, &bytes(hex_text))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default()
}

fn encode_error(layout: &Layout, value: &Value) -> String {
    encode(layout, value).err().map(|e| e.to_string()).unwrap_or_default()
}

/// `value` encodes to `hex_text`, which decodes to `value`, printed the same.
fn round_trip(layout: &Layout, value: &Value, hex_text: &str) {
    assert_eq!(encoded(layout, value), hex_text, "{}", layout.schema);
    let back = decoded(layout, hex_text);
    assert_eq!(back.to_string(), value.to_string(), "{}", layout.schema);
}

fn scalars() -> Layout {
    let mut body = String::from("[container]\nwire = \"array\"\n");
    for (name, wire, extra) in [
        ("nothing", "nil", ""),
        ("flag", "bool", ""),
        ("yes", "bool", "const = true\n"),
        ("u8", "uint8", ""),
        ("u16", "uint16", ""),
        ("u32", "uint32", ""),
        ("u64", "uint64", ""),
        ("i8", "int8", ""),
        ("i16", "int16", ""),
        ("i32", "int32", ""),
        ("i64", "int64", ""),
        ("neg", "negfixint", ""),
        ("pos", "fixint", ""),
        ("c", "int", ""),
        ("f32", "float32", ""),
        ("f64", "float64", ""),
    ] {
        body.push_str(&format!("[[entry]]\nname = \"{name}\"\nwire = \"{wire}\"\n{extra}"));
    }
    layout("scalars_v0", &body)
}

/// ```sh
/// python3 -c 'import msgpack, struct; p = msgpack.packb; print((b"\xdc\x00\x10" + b"\xc0" +
///   p(False) + p(True) + b"\xcc" + struct.pack(">B", 255) + b"\xcd" + struct.pack(">H", 65535)
///   + b"\xce" + struct.pack(">I", 4294967295) + b"\xcf" + struct.pack(">Q", 2**64 - 1) +
///   b"\xd0" + struct.pack(">b", -128) + b"\xd1" + struct.pack(">h", -32768) + b"\xd2" +
///   struct.pack(">i", -2**31) + b"\xd3" + struct.pack(">q", -2**63) + p(-32) + p(127) + p(-33)
///   + b"\xca" + struct.pack(">f", -1.5) + p(1e-300)).hex())'
/// ```
const SCALARS: &str = "dc0010c0c2c3ccffcdffffceffffffffcfffffffffffffffffd080d18000d280000000d38000000000000000e07fd0dfcabfc00000cb01a56e1fc2f8f359";

#[test]
fn every_scalar_and_every_integer_wire() {
    let layout = scalars();
    let value = json!({
        "nothing": null, "flag": false, "yes": true,
        "u8": 255, "u16": 65535, "u32": 4294967295u32, "u64": 18446744073709551615u64,
        "i8": -128, "i16": -32768, "i32": -2147483648i64, "i64": -9223372036854775808i64,
        "neg": -32, "pos": 127, "c": -33, "f32": -1.5, "f64": 1e-300
    });
    round_trip(&layout, &value, SCALARS);
    // Constants (nil, true) may be left out.
    let mut without = value.clone();
    if let Some(map) = without.as_object_mut() {
        map.remove("nothing");
        map.remove("yes");
    }
    assert_eq!(encoded(&layout, &without), SCALARS);

    // The used length, and what follows left alone.
    let mut longer = bytes(SCALARS);
    longer.push(0xc0);
    let (_, used) = decode(&layout, &longer).unwrap_or_default();
    assert_eq!(used, longer.len() - 1);
    assert_eq!(
        decode_error(&layout, &format!("{SCALARS}c0")),
        "scalars_v0: at byte 0x3e after the last entry: expected end of input, found 1 trailing byte"
    );
}

#[test]
fn scalar_errors() {
    let layout = scalars();
    let with = |key: &str, v: Value| {
        let mut value = json!({
            "flag": false, "u8": 255, "u16": 65535, "u32": 4294967295u32, "u64": 18446744073709551615u64,
            "i8": -128, "i16": -32768, "i32": -2147483648i64, "i64": -9223372036854775808i64,
            "neg": -32, "pos": 127, "c": -33, "f32": -1.5, "f64": 1e-300
        });
        value[key] = v;
        value
    };
    assert_eq!(
        encode_error(&layout, &with("u8", json!(256))),
        "scalars_v0: in u8: expected a value in 0..=255, found 256"
    );
    assert_eq!(
        encode_error(&layout, &with("neg", json!(0))),
        "scalars_v0: in neg: expected a value in -32..=-1, found 0"
    );
    // Past uint64, JSON numbers are floats: not integers.
    let big: Value = serde_json::from_str("18446744073709551616").unwrap_or_default();
    assert_eq!(
        encode_error(&layout, &with("u64", big)),
        "scalars_v0: in u64: expected an integer (uint64), found the number 1.8446744073709552e+19"
    );
    assert_eq!(
        encode_error(&layout, &with("flag", json!(1))),
        "scalars_v0: in flag: expected true or false, found the number 1"
    );
    assert_eq!(
        encode_error(&layout, &with("f32", json!(1e300))),
        "scalars_v0: in f32: expected a number within float32's range, found 1e300"
    );
    assert_eq!(
        encode_error(&layout, &with("f64", json!("1.5"))),
        "scalars_v0: in f64: expected a number (float64), \"NaN\", \"inf\" or \"-inf\", found the string \"1.5\""
    );
    assert_eq!(
        encode_error(&layout, &with("yes", json!(false))),
        "scalars_v0: in yes: expected constant true, found false"
    );
    assert_eq!(
        encode_error(&layout, &with("nothing", json!(0))),
        "scalars_v0: in nothing: expected constant null, found 0"
    );

    // Decoding: a constant, a marker, the input's end.
    let not_true = SCALARS.replacen("c0c2c3", "c0c2c2", 1);
    assert_eq!(
        decode_error(&layout, &not_true),
        "scalars_v0: at byte 0x05 in yes: expected constant 1, found 0"
    );
    let not_nil = SCALARS.replacen("c0c2c3", "c2c2c3", 1);
    assert_eq!(
        decode_error(&layout, &not_nil),
        "scalars_v0: at byte 0x03 in nothing: expected nil marker 0xc0, found 0xc2"
    );
    assert_eq!(
        decode_error(&layout, &SCALARS[..SCALARS.len() - 4]),
        "scalars_v0: at byte 0x36 in f64: expected 8 more bytes, found 6"
    );
}

#[test]
fn floats_follow_the_conventions() {
    let layout = layout(
        "floats_v0",
        "[value]\nwire = \"fixarray\"\nelement = { wire = \"float32\" }\n",
    );
    // python3 -c 'import struct; print((b"\x97" + b"".join(b"\xca" + struct.pack(">f", x) for x
    // in [float("nan"), float("inf"), float("-inf"), 0.1, -0.0, 3.4028235e38, 1e-45])).hex())'
    let hex_text = "97ca7fc00000ca7f800000caff800000ca3dcccccdca80000000ca7f7fffffca00000001";
    let value: Value = serde_json::from_str(r#"["NaN","inf","-inf",0.1,-0.0,3.4028235e38,1e-45]"#).unwrap_or_default();
    round_trip(&layout, &value, hex_text);
    assert_eq!(
        decoded(&layout, hex_text).to_string(),
        r#"["NaN","inf","-inf",0.1,-0.0,3.4028235e+38,1e-45]"#
    );
    // An integer is a float's value too.
    assert_eq!(encoded(&layout, &json!([1])), "91ca3f800000");
}

fn byte_strings() -> Layout {
    layout(
        "bytes_v0",
        r#"
[container]
wire = "map"

[[entry]]
name = "fixed"
wire = "fixstr"

[[entry]]
name = "s8"
wire = "str8"

[[entry]]
name = "s"
wire = "str"

[[entry]]
name = "magic"
wire = "str"
const = "MX"

[[entry]]
name = "raw"
wire = "str"
raw = true

[[entry]]
name = "raw8"
wire = "str8"
raw = true

[[entry]]
name = "b"
wire = "bin"

[[entry]]
name = "b16"
wire = "bin16"

[[entry]]
name = "e"
wire = "ext"

[[entry]]
name = "e3"
wire = "ext"

[[entry]]
name = "fx"
wire = "fixext1"
ext_type = 5
"#,
    )
}

/// The bytes, written by hand where python's `msgpack` cannot write them: a str8 for a short
/// string, str that is not UTF-8, an ext of a negative type (`ExtType` takes 0..=127).
///
/// ```sh
/// python3 -c 'import msgpack; p = msgpack.packb; print((b"\x8b" + p("fixed") + p("abc") +
///   p("s8") + b"\xd9\x00" + p("s") + p("x" * 32) + p("magic") + p("MX") + p("raw") +
///   b"\xa2\xff\x00" + p("raw8") + b"\xd9\x01\x80" + p("b") + p(b"\x01\x02") + p("b16") +
///   b"\xc5\x00\x00" + p("e") + p(msgpack.ExtType(127, b"\x01\x02\x03\x04")) + p("e3") +
///   b"\xc7\x03\x80abc" + p("fx") + p(msgpack.ExtType(5, b"\xaa"))).hex())'
/// ```
const BYTE_STRINGS: &str = "8ba56669786564a3616263a27338d900a173d9207878787878787878787878787878787878787878787878787878787878787878a56d61676963a24d58a3726177a2ff00a472617738d90180a162c4020102a3623136c50000a165d67f01020304a26533c70380616263a26678d405aa";

#[test]
fn strings_bytes_and_exts() {
    let layout = byte_strings();
    let value = json!({
        "fixed": "abc", "s8": "", "s": "x".repeat(32), "magic": "MX",
        "raw": "ff00", "raw8": "80", "b": "0102", "b16": "",
        "e": {"type": 127, "hex": "01020304"}, "e3": {"type": -128, "hex": "616263"},
        "fx": {"type": 5, "hex": "aa"}
    });
    round_trip(&layout, &value, BYTE_STRINGS);
    // A fixed ext type may be left out; hex in either case.
    let mut short = value.clone();
    short["fx"] = json!({"hex": "AA"});
    assert_eq!(encoded(&layout, &short), BYTE_STRINGS);

    let with = |key: &str, v: Value| {
        let mut changed = value.clone();
        changed[key] = v;
        encode_error(&layout, &changed)
    };
    assert_eq!(
        with("fixed", json!("x".repeat(32))),
        "bytes_v0: in fixed: expected at most 31 bytes for fixstr, found 32"
    );
    assert_eq!(
        with("raw", json!("f")),
        "bytes_v0: in raw: expected a hex string (str, raw): odd number of hex digits (1)"
    );
    assert_eq!(
        with("b", json!([1, 2])),
        "bytes_v0: in b: expected a hex string (bin), found an array"
    );
    assert_eq!(
        with("fx", json!({"type": 6, "hex": "aa"})),
        "bytes_v0: in fx: expected ext type 5, found 6"
    );
    assert_eq!(
        with("fx", json!({"hex": "aabb"})),
        "bytes_v0: in fx: expected a length of 1 for fixext1, found 2"
    );
    assert_eq!(
        with("e", json!({"hex": "aa"})),
        "bytes_v0: in e: missing `type` in an ext value"
    );
    assert_eq!(
        with("e", json!({"type": 200, "hex": "aa"})),
        "bytes_v0: in e: expected an ext type in -128..=127, found the number 200"
    );
    assert_eq!(
        with("magic", json!("MY")),
        "bytes_v0: in magic: expected constant \"MX\", found \"MY\""
    );

    // Non-UTF-8 in a str that is not raw; another ext type; another constant.
    let not_utf8 = BYTE_STRINGS.replacen("a3616263", "a361ff63", 1);
    assert_eq!(
        decode_error(&layout, &not_utf8),
        "bytes_v0: at byte 0x09 in fixed: expected UTF-8 text, found an invalid sequence after 1 valid byte"
    );
    let other_type = BYTE_STRINGS.replacen("d405aa", "d406aa", 1);
    assert_eq!(
        decode_error(&layout, &other_type),
        // At the ext's header, as generated decoders report it.
        "bytes_v0: at byte 0x6d in fx: expected ext type 5, found 6"
    );
    let other_magic = BYTE_STRINGS.replacen("a24d58", "a24d59", 1);
    assert_eq!(
        decode_error(&layout, &other_magic),
        "bytes_v0: at byte 0x3a in magic: expected constant \"MX\", found another value"
    );
    let other_key = BYTE_STRINGS.replacen("a56d61676963", "a56d61676963".replace("63", "64").as_str(), 1);
    assert_eq!(
        decode_error(&layout, &other_key),
        "bytes_v0: at byte 0x34 in magic: expected key \"magic\", found another key"
    );
}

fn sequences() -> Layout {
    layout(
        "seq_v0",
        r#"
[container]
wire = "fixarray"
marker = 0x97

[[entry]]
name = "n"
wire = "fixint"
max = 15
length_of = ["a", "b"]

[[entry]]
name = "a"
wire = "array"
count = "n"
element = { wire = "int" }

[[entry]]
name = "b"
wire = "fixarray"
marker = 0x90
count = "n"
element = { wire = "int8" }

[[entry]]
name = "fixed"
wire = "array"
count = 3
element = { wire = "bool" }

[[entry]]
name = "m"
wire = "map"
key_type = { wire = "str" }
value_type = { wire = "int" }

[[entry]]
name = "pairs"
wire = "map"
key_type = { wire = "int" }
value_type = { wire = "str" }

[[entry]]
name = "nested"
wire = "array"
element = { wire = "array", element = { wire = "str" } }
"#,
    )
}

/// ```sh
/// python3 -c 'import msgpack; p = msgpack.packb; print((b"\x97" + p(2) + p([1, 300]) +
///   b"\x92\xd0\xff\xd0\x02" + p([True, False, True]) + p({"k": 1, "j": -1}) + p({1: "a", -1:
///   "b"}) + p([["x"], []])).hex())'
/// ```
const SEQUENCES: &str = "97029201cd012c92d0ffd00293c3c2c382a16b01a16aff8201a161ffa1629291a17890";

#[test]
fn arrays_maps_and_counts() {
    let layout = sequences();
    let value = json!({
        "n": 2, "a": [1, 300], "b": [-1, 2], "fixed": [true, false, true],
        "m": {"k": 1, "j": -1}, "pairs": [[1, "a"], [-1, "b"]], "nested": [["x"], []]
    });
    round_trip(&layout, &value, SEQUENCES);
    let mut no_count = value.clone();
    if let Some(map) = no_count.as_object_mut() {
        map.remove("n");
    }
    assert_eq!(encoded(&layout, &no_count), SEQUENCES);

    let with = |key: &str, v: Value| {
        let mut changed = no_count.clone();
        changed[key] = v;
        encode_error(&layout, &changed)
    };
    assert_eq!(
        with("b", json!([1])),
        "seq_v0: in b: expected 2 elements (the length of a, both counted by n), found 1"
    );
    assert_eq!(
        with("a", json!(vec![0; 16])),
        "seq_v0: in a: expected a length in 0..=15 (stored in n), found 16"
    );
    assert_eq!(with("n", json!(3)), "seq_v0: in n: given 3, but a, b have 2 elements");
    assert_eq!(
        with("fixed", json!([true])),
        "seq_v0: in fixed: expected a length of 3 for array, found 1"
    );
    assert_eq!(
        with("m", json!([["k", 1]])),
        "seq_v0: in m: expected an object, found an array"
    );
    assert_eq!(
        with("pairs", json!([[1, "a", 2]])),
        "seq_v0: in pairs[0]: expected a [key, value] pair, found an array"
    );
    assert_eq!(
        with("nested", json!([["x", 1]])),
        "seq_v0: in nested[0][1]: expected a string, found the number 1"
    );
    assert_eq!(
        with("b", json!([1, 200])),
        "seq_v0: in b[1]: expected a value in -128..=127, found 200"
    );

    // Decoding: headers against the count, a hostile count, a duplicate key.
    let b_header = SEQUENCES.replacen("92d0ff", "93d0ff", 1);
    assert_eq!(
        decode_error(&layout, &b_header),
        "seq_v0: at byte 0x07 in b: expected array header 0x92 (0x90 + n 2), found 0x93"
    );
    let a_header = SEQUENCES.replacen("029201", "029301", 1);
    assert_eq!(
        decode_error(&layout, &a_header),
        "seq_v0: at byte 0x02 in a: expected a count of 2 (n), found 3"
    );
    let fixed = SEQUENCES.replacen("93c3c2c3", "92c3c2c3", 1);
    assert_eq!(
        decode_error(&layout, &fixed),
        "seq_v0: at byte 0x0c in fixed: expected a count of 3, found 2"
    );
    let duplicate = SEQUENCES.replacen("82a16b01a16aff", "82a16b01a16bff", 1);
    assert_eq!(
        decode_error(&layout, &duplicate),
        "seq_v0: at byte 0x14 in m: expected distinct keys, found \"k\" again"
    );
    let list = self::layout("list_v0", "[value]\nwire = \"array\"\nelement = { wire = \"int\" }\n");
    assert_eq!(
        decode_error(&list, "ddffffffff01"),
        // A value that is not a record is named by its metalayer, "t".
        "list_v0: at byte 0x05 in t: expected 4294967295 more bytes, found 1"
    );
    // Two elements take at least two bytes: refused before anything is read or allocated.
    assert_eq!(
        decode_error(&list, "9201"),
        "list_v0: at byte 0x01 in t: expected 2 more bytes, found 1"
    );
    assert_eq!(
        decode_error(&list, "9201cd01"),
        "list_v0: at byte 0x03 in t[1]: expected 2 more bytes, found 1"
    );
}

fn optional() -> Layout {
    layout(
        "opt_v0",
        r#"
[container]
wire = "map"

[[entry]]
name = "id"
wire = "int"

[[entry]]
name = "meta"
type = "meta"

[[entry]]
name = "extra"
wire = "int"
optional = true

[[entry]]
name = "note"
wire = "str"
optional = true

[types.meta]
wire = "fixmap"

[[types.meta.entry]]
name = "kind"
wire = "str"

[[types.meta.entry]]
name = "level"
wire = "fixint"
values = { low = 0, high = 1 }
"#,
    )
}

#[test]
fn optional_entries_named_records_and_named_values() {
    let layout = optional();
    // python3 -c 'import msgpack; print(msgpack.packb({"id": 7, "meta": {"kind": "t",
    // "level": 1}, "extra": 300, "note": "n"}).hex())'
    let all = "84a2696407a46d65746182a46b696e64a174a56c6576656c01a56578747261cd012ca46e6f7465a16e";
    // python3 -c 'import msgpack; print(msgpack.packb({"id": 7, "meta": {"kind": "t",
    // "level": 1}}).hex())'
    let two = "82a2696407a46d65746182a46b696e64a174a56c6576656c01";
    let value = json!({"id": 7, "meta": {"kind": "t", "level": 1}, "extra": 300, "note": "n"});
    round_trip(&layout, &value, all);
    round_trip(&layout, &json!({"id": 7, "meta": {"kind": "t", "level": 1}}), two);
    // Absent is a missing key or null; a named value may be given by its name.
    let nulls = json!({"id": 7, "meta": {"kind": "t", "level": "high"}, "extra": null, "note": null});
    assert_eq!(encoded(&layout, &nulls), two);

    assert_eq!(
        encode_error(
            &layout,
            &json!({"id": 7, "meta": {"kind": "t", "level": 1}, "note": "n"})
        ),
        "opt_v0: in note: expected this optional entry to be absent, as extra, which comes before it, is: only trailing entries can be left out"
    );
    assert_eq!(
        encode_error(&layout, &json!({"id": 7, "meta": {"kind": "t", "level": 2}})),
        "opt_v0: in meta.level: expected one of low = 0, high = 1, found 2"
    );
    assert_eq!(
        encode_error(&layout, &json!({"id": 7, "meta": {"kind": "t", "level": "max"}})),
        "opt_v0: in meta.level: expected an integer (fixint) or one of the names low, high, found the string \"max\""
    );
    assert_eq!(
        encode_error(&layout, &json!({"id": 7, "meta": {"kind": "t"}})),
        "opt_v0: in meta: missing entry `level`"
    );
    assert_eq!(
        encode_error(&layout, &json!({"id": 7, "meta": {"kind": "t", "level": 0, "x": 1}})),
        "opt_v0: in meta: unknown entry `x`; the entries are kind, level"
    );

    assert_eq!(
        decode_error(&layout, &two.replacen("01", "02", 1)),
        "opt_v0: at byte 0x18 in meta.level: expected one of low = 0, high = 1, found 2"
    );
    assert_eq!(
        decode_error(&layout, &two.replacen("82", "85", 1)),
        "opt_v0: at byte 0x00 in the container: expected 2..=4 entries, found 5"
    );
    assert_eq!(
        decode_error(&layout, &two.replacen("82a46b", "83a46b", 1)),
        "opt_v0: at byte 0x0a in meta: expected fixmap marker 0x82, found 0x83"
    );
}

#[test]
fn canonical_encodings_are_strict_unless_lenient() {
    let strict = layout("int_v0", "[value]\nwire = \"int\"\n");
    let lenient = layout("lenient_v0", "[value]\nwire = \"int\"\nlenient = true\n");
    let wide = "d30000000000000003";
    assert_eq!(
        decode_error(&strict, wide),
        "int_v0: at byte 0x00 in t: expected the smallest encoding fixint, found int64"
    );
    assert_eq!(decoded(&lenient, wide), json!(3));
    // Encoding always writes the smallest.
    assert_eq!(encoded(&lenient, &json!(3)), "03");
    assert_eq!(
        decode_error(&strict, "a1"),
        "int_v0: at byte 0x00 in t: expected int (0x00..=0x7f, 0xcc..=0xd3, 0xe0..=0xff), found 0xa1 (fixstr)"
    );
}

/// A schema body whose value is record type `t0`, each `t<i>` holding a `t<i + 1>` as its entry
/// `next`, `levels` records in all, the last holding an integer.
fn chain_of_records(levels: usize) -> String {
    let mut body = String::from("[value]\ntype = \"t0\"\n");
    for i in 0..levels {
        let inner = if i + 1 < levels {
            format!("type = \"t{}\"", i + 1)
        } else {
            "wire = \"int\"".to_owned()
        };
        body.push_str(&format!(
            "[types.t{i}]\nwire = \"fixarray\"\n[[types.t{i}.entry]]\nname = \"next\"\n{inner}\n"
        ));
    }
    body
}

#[test]
fn nesting_deeper_than_the_limit_is_refused() {
    // The deepest chain of records a schema may state (the checker refuses one more level)...
    let mut deep = layout("deep_v0", &chain_of_records(DEPTH_LIMIT));
    // ... made two levels deeper on the model, as a layout built by hand can be: the innermost
    // record holds one more, which holds one more, which holds the integer.
    let innermost = format!("t{}", DEPTH_LIMIT - 1);
    let mut at = deep.types.iter().position(|t| t.name == innermost).unwrap_or_default();
    for extra in 0..2 {
        let mut inner = deep.types[at].clone();
        inner.name = format!("t{}", DEPTH_LIMIT + extra);
        let index = deep.types.len();
        deep.types[at].record.entries[0].node.ty = Type::Ref(index);
        deep.types.push(inner);
        at = index;
    }
    let levels = DEPTH_LIMIT + 2;
    // The same layout with 64 levels reads its value: the two refusals below are the budget's.
    let input = format!("{}00", "91".repeat(levels));
    let err = decode_error(&deep, &input);
    assert!(
        err.starts_with(&format!("deep_v0: at byte {DEPTH_LIMIT:#04x} in …")),
        "{err}"
    );
    assert!(err.ends_with("expected at most 64 levels of nesting"), "{err}");
    let mut value = json!(0);
    for _ in 0..levels {
        value = json!({ "next": value });
    }
    let err = encode_error(&deep, &value);
    assert!(err.ends_with("expected at most 64 levels of nesting"), "{err}");
}

#[test]
fn the_deepest_schema_is_read_whole() {
    let deep = layout("deep_v0", &chain_of_records(DEPTH_LIMIT));
    // 64 one-element arrays, then the integer 0.
    let input = bytes(&format!("{}00", "91".repeat(DEPTH_LIMIT)));
    let (value, used) = decode(&deep, &input).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(used, DEPTH_LIMIT + 1);
    let mut expected = json!(0);
    for _ in 0..DEPTH_LIMIT {
        expected = json!({ "next": expected });
    }
    assert_eq!(value, expected);
}

/// JSON packed as plain msgpack, against python's `msgpack.packb(value, use_bin_type=True)`
/// (msgpack 1.2.4), whose output each hex string is.
#[test]
fn pack_writes_what_python_msgpack_writes() {
    let cases: &[(&str, &str)] = &[
        ("null", "c0"),
        ("true", "c3"),
        ("false", "c2"),
        ("0", "00"),
        ("-1", "ff"),
        ("-32", "e0"),
        ("-33", "d0df"),
        ("127", "7f"),
        ("128", "cc80"),
        ("255", "ccff"),
        ("256", "cd0100"),
        ("65535", "cdffff"),
        ("65536", "ce00010000"),
        ("4294967296", "cf0000000100000000"),
        ("-2147483649", "d3ffffffff7fffffff"),
        ("18446744073709551615", "cfffffffffffffffff"),
        ("-9223372036854775808", "d38000000000000000"),
        ("0.5", "cb3fe0000000000000"),
        ("-0.0", "cb8000000000000000"),
        ("1e300", "cb7e37e43c8800759c"),
        ("\"\"", "a0"),
        ("\"é\"", "a2c3a9"),
        ("[]", "90"),
        ("[1, [2, [3]]]", "920192029103"),
        (
            "[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]",
            "dc0010000102030405060708090a0b0c0d0e0f",
        ),
        ("{}", "80"),
        (r#"{"a": null, "b": [true]}"#, "82a161c0a16291c3"),
        // python: msgpack.packb(b"\x00\xff", use_bin_type=True), msgpack.packb(ExtType(5, b"\xaa" * 3))
        (r#"{"bin": "00ff"}"#, "c40200ff"),
        (r#"{"ext": 5, "data": "aaaaaa"}"#, "c70305aaaaaa"),
    ];
    for (json, hex) in cases {
        let value: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(
            crate::value::json::hex(&crate::value::pack(&value).unwrap()),
            *hex,
            "{json}"
        );
    }
    // Strings at the fixstr and str8 boundary, and str16: python gives bf + 31 bytes, d9 20 +
    // 32 bytes, da 01 00 + 256 bytes.
    for (len, head) in [(31, "bf"), (32, "d920"), (256, "da0100")] {
        let value = serde_json::Value::String("a".repeat(len));
        let bytes = crate::value::pack(&value).unwrap();
        assert_eq!(crate::value::json::hex(&bytes[..head.len() / 2]), head);
        assert_eq!(bytes.len(), head.len() / 2 + len);
    }
    // A JSON number past uint64 is not an integer serde_json holds: it is a float64, 2^64
    // (0x43f0000000000000).
    let value: serde_json::Value = serde_json::from_str("[18446744073709551616]").unwrap();
    assert_eq!(
        crate::value::json::hex(&crate::value::pack(&value).unwrap()),
        "91cb43f0000000000000"
    );
}
