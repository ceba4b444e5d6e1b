//! Every msgpack wire type of the schema language, encoded and decoded by the code that
//! `#[metalayer(...)]` generates, against bytes that come from elsewhere:
//!
//! - **fixed wire types** (the schema names the marker; `tests/schemas/wire_*_v0.toml`): the
//!   bytes are written out literally below, each with a comment deriving it from the msgpack
//!   specification (<https://github.com/msgpack/msgpack/blob/master/spec.md>): the marker, then
//!   the big-endian payload, length or count;
//! - **canonical wire types** (the marker follows from the value; `wire_canonical_v0.toml` and
//!   its `lenient` twin): the bytes python's `msgpack.packb` 1.2.4 writes at every boundary,
//!   from `tests/fixtures/canonical.json` (written by `tests/fixtures/canonical.py`). Vectors
//!   too long to store whole are rebuilt from their rule and checked against the file's length
//!   and SHA-256. The non-smallest forms of each value are built from the specification's
//!   marker table, in this file.
//!
//! No expected value is produced by the code under test. Each decoder error is checked for its
//! byte offset, its entry path and its kind.

mod common;

use std::fmt::Debug;
use std::sync::OnceLock;

use metalayer::prelude::*;
use metalayer::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind, Ext, Int, IntValue, Path};
use metalayer_runtime::wire::{Family, Wire};

// ==================================================================================== helpers

/// The bytes a hex string spells; spaces and newlines are ignored.
fn hx(hex: &str) -> Vec<u8> {
    let compact: String = hex.split_whitespace().collect();
    common::unhex(&compact)
}

/// Hex with `#` comments to the end of each line.
fn hxc(text: &str) -> Vec<u8> {
    hx(&text
        .lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join(" "))
}

/// The concatenation of `parts`.
fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// Compares two byte strings and, when they differ, reports the first differing offset with a
/// few bytes around it (the long vectors would flood the output otherwise).
#[track_caller]
fn same_bytes(got: &[u8], want: &[u8], what: &str) {
    if got == want {
        return;
    }
    let at = got
        .iter()
        .zip(want)
        .position(|(a, b)| a != b)
        .unwrap_or(got.len().min(want.len()));
    let show = |b: &[u8]| {
        let lo = at.saturating_sub(8);
        let hi = (at + 8).min(b.len());
        b.get(lo..hi).map(hex_of).unwrap_or_default()
    };
    panic!(
        "{what}: {} bytes, expected {}; first difference at byte {at:#x}: got ..{}.., expected ..{}..",
        got.len(),
        want.len(),
        show(got),
        show(want)
    );
}

fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `value` encodes to exactly `bytes` (with `encoded_len` agreeing) and `bytes` decode to it.
#[track_caller]
fn roundtrip<'a, T>(value: &T, bytes: &'a [u8])
where
    T: Decode<'a> + PartialEq + Debug,
{
    let what = T::SCHEMA;
    same_bytes(&value.encode().unwrap(), bytes, what);
    assert_eq!(value.encoded_len(), bytes.len(), "{what}: encoded_len");
    let decoded = T::decode(bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(decoded == *value, "{what}: decoded another value");
    common::engine_agrees::<T>(bytes, Some(bytes.to_vec()));
}

/// Decoding `bytes` fails at `offset`, in `path`, with `kind`.
#[track_caller]
fn decode_err<'a, T: Decode<'a>>(bytes: &'a [u8], offset: usize, path: Path, kind: DecodeErrorKind) -> DecodeError {
    let Err(err) = T::decode(bytes) else {
        panic!(
            "{}: decoded a value, expected an error at byte {offset:#x} in {path}",
            T::SCHEMA
        );
    };
    assert_eq!(
        (err.offset(), err.path(), err.kind()),
        (offset, &path, &kind),
        "{}: the error was `{err}`",
        T::SCHEMA
    );
    common::engine_agrees::<T>(bytes, None);
    err
}

/// Encoding `value` fails in `path` with `kind`.
#[track_caller]
fn encode_err<T: Metalayer>(value: &T, path: Path, kind: EncodeErrorKind) -> EncodeError {
    let err = value.encode().expect_err("encoded a value the schema refuses");
    assert_eq!(
        (err.path(), err.kind()),
        (&path, &kind),
        "{}: the error was `{err}`",
        T::SCHEMA
    );
    err
}

/// `bytes` with the byte at `at` replaced by `b`.
fn with_byte(bytes: &[u8], at: usize, b: u8) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at] = b;
    out
}

/// `n` bytes of `i % 256`, the content the fixtures use for bin and ext data.
fn counting(n: usize) -> Vec<u8> {
    (0..n).map(|i| i as u8).collect()
}

/// A record's bytes as its header and one segment per entry (a map record's segments hold the
/// key too), so that one entry can be replaced and each entry's offset is known.
#[derive(Clone)]
struct Segments {
    header: Vec<u8>,
    entries: Vec<Vec<u8>>,
}

impl Segments {
    fn new(header: &str, entries: &[&str]) -> Self {
        Segments {
            header: hx(header),
            entries: entries.iter().map(|e| hx(e)).collect(),
        }
    }

    /// The same record with entry `i` written as `bytes`.
    fn with(&self, i: usize, bytes: &[u8]) -> Self {
        let mut out = self.clone();
        out.entries[i] = bytes.to_vec();
        out
    }

    /// The same record with entry `i` written as the hex `bytes`.
    fn with_hex(&self, i: usize, bytes: &str) -> Self {
        self.with(i, &hx(bytes))
    }

    /// Where entry `i` starts.
    fn at(&self, i: usize) -> usize {
        self.header.len() + self.entries[..i].iter().map(Vec::len).sum::<usize>()
    }

    fn bytes(&self) -> Vec<u8> {
        let mut out = self.header.clone();
        for e in &self.entries {
            out.extend_from_slice(e);
        }
        out
    }
}

fn entry(name: &'static &'static str) -> Path {
    Path::entry(name)
}

fn int(v: i128) -> Int {
    Int::new(v)
}

fn marker(wire: &'static str, expected: u8, found: u8) -> DecodeErrorKind {
    DecodeErrorKind::Marker { wire, expected, found }
}

fn count(count_entry: &'static str, expected: u64, found: u64) -> DecodeErrorKind {
    DecodeErrorKind::Count {
        count_entry: count_entry.into(),
        expected,
        found,
    }
}

fn not_smallest(expected: Wire, found: Wire) -> DecodeErrorKind {
    DecodeErrorKind::NotSmallest { expected, found }
}

/// A record header that states `found` entries where the record has exactly `n`.
fn entries(n: usize, found: u64) -> DecodeErrorKind {
    DecodeErrorKind::Entries { min: n, max: n, found }
}

fn length(wire: &'static str, min: u64, max: u64, found: u64) -> EncodeErrorKind {
    EncodeErrorKind::Length { wire, min, max, found }
}

// =============================================================================== integers

#[metalayer(schema_path = "tests/schemas/wire_ints_v0.toml")]
#[derive(Debug, Clone, PartialEq)]
struct Ints {
    fixint: u8,
    negfixint: i8,
    uint8: u8,
    uint16: u16,
    uint32: u32,
    uint64: u64,
    int8: i8,
    int16: i16,
    int32: i32,
    int64: i64,
}

/// Where each entry of `wire_ints` starts, in every encoding of it (the widths are fixed).
const INT_OFFSETS: [(&&str, usize); 10] = [
    (&"fixint", 1),
    (&"negfixint", 2),
    (&"uint8", 3),
    (&"uint16", 5),
    (&"uint32", 8),
    (&"uint64", 13),
    (&"int8", 22),
    (&"int16", 24),
    (&"int32", 27),
    (&"int64", 32),
];

#[test]
fn fixed_integers_at_their_minimum() {
    let value = Ints {
        fixint: 0,
        negfixint: -32,
        uint8: 0,
        uint16: 0,
        uint32: 0,
        uint64: 0,
        int8: i8::MIN,
        int16: i16::MIN,
        int32: i32::MIN,
        int64: i64::MIN,
    };
    let bytes = hxc("
        9a                          # fixarray: 0x90 + 10 entries
        00                          # positive fixint 0: the byte is the value
        e0                          # negative fixint -32: 0b111_00000, two's complement
        cc 00                       # uint8 0
        cd 00 00                    # uint16 0, big-endian
        ce 00 00 00 00              # uint32 0
        cf 00 00 00 00 00 00 00 00  # uint64 0
        d0 80                       # int8 -128 = 0x80 in two's complement
        d1 80 00                    # int16 -32768
        d2 80 00 00 00              # int32 -2^31
        d3 80 00 00 00 00 00 00 00  # int64 -2^63
    ");
    assert_eq!(bytes.len(), 41);
    roundtrip(&value, &bytes);
}

#[test]
fn fixed_integers_at_their_maximum() {
    let value = Ints {
        fixint: 127,
        negfixint: -1,
        uint8: u8::MAX,
        uint16: u16::MAX,
        uint32: u32::MAX,
        uint64: u64::MAX,
        int8: i8::MAX,
        int16: i16::MAX,
        int32: i32::MAX,
        int64: i64::MAX,
    };
    let bytes = hxc("
        9a                          # fixarray of 10
        7f                          # positive fixint 127, the largest
        ff                          # negative fixint -1 = 0xff
        cc ff                       # uint8 255
        cd ff ff                    # uint16 65535
        ce ff ff ff ff              # uint32 2^32-1
        cf ff ff ff ff ff ff ff ff  # uint64 2^64-1
        d0 7f                       # int8 127
        d1 7f ff                    # int16 32767
        d2 7f ff ff ff              # int32 2^31-1
        d3 7f ff ff ff ff ff ff ff  # int64 2^63-1
    ");
    roundtrip(&value, &bytes);
}

fn ints_middle() -> (Ints, Vec<u8>) {
    let value = Ints {
        fixint: 42,
        negfixint: -5,
        uint8: 200,
        uint16: 0x1234,
        uint32: 0xdead_beef,
        uint64: 0x0123_4567_89ab_cdef,
        int8: -2,
        int16: -300,
        int32: 100_000,
        int64: -1,
    };
    let bytes = hxc("
        9a                          # fixarray of 10
        2a                          # fixint 42 = 0x2a
        fb                          # negfixint -5 = 0x100 - 5
        cc c8                       # uint8 200 = 0xc8
        cd 12 34                    # uint16 0x1234
        ce de ad be ef              # uint32 0xdeadbeef
        cf 01 23 45 67 89 ab cd ef  # uint64 0x0123456789abcdef
        d0 fe                       # int8 -2 = 0x100 - 2
        d1 fe d4                    # int16 -300 = 0x10000 - 300 = 0xfed4
        d2 00 01 86 a0              # int32 100000 = 0x186a0
        d3 ff ff ff ff ff ff ff ff  # int64 -1: all ones
    ");
    (value, bytes)
}

#[test]
fn fixed_integers_in_the_middle_of_their_range() {
    let (value, bytes) = ints_middle();
    roundtrip(&value, &bytes);
}

#[test]
fn fixed_integers_keep_their_width_for_small_values() {
    // A fixed wire type is written whatever the value: 1 is never shortened to a fixint.
    let value = Ints {
        fixint: 1,
        negfixint: -1,
        uint8: 1,
        uint16: 1,
        uint32: 1,
        uint64: 1,
        int8: 1,
        int16: 1,
        int32: 1,
        int64: 1,
    };
    let bytes = hxc("
        9a 01 ff
        cc 01
        cd 00 01
        ce 00 00 00 01
        cf 00 00 00 00 00 00 00 01
        d0 01
        d1 00 01
        d2 00 00 00 01
        d3 00 00 00 00 00 00 00 01
    ");
    roundtrip(&value, &bytes);
}

#[test]
fn fixed_integers_refuse_every_other_integer_marker() {
    let (_, bytes) = ints_middle();
    // The marker of each fixed-width integer wire type, from the specification.
    let markers: [(&str, u8); 8] = [
        ("uint8", 0xcc),
        ("uint16", 0xcd),
        ("uint32", 0xce),
        ("uint64", 0xcf),
        ("int8", 0xd0),
        ("int16", 0xd1),
        ("int32", 0xd2),
        ("int64", 0xd3),
    ];
    let mut checked = 0;
    for &(name, at) in &INT_OFFSETS[2..] {
        let own = markers.iter().find(|m| m.0 == *name).unwrap().1;
        for &(_, other) in markers.iter().filter(|m| m.1 != own) {
            let bad = with_byte(&bytes, at, other);
            decode_err::<Ints>(&bad, at, entry(name), marker(name, own, other));
            checked += 1;
        }
        // A positive fixint where the fixed wire type is stated.
        decode_err::<Ints>(&with_byte(&bytes, at, 0x05), at, entry(name), marker(name, own, 0x05));
    }
    assert_eq!(checked, 8 * 7);

    // A positive fixint entry refuses every byte above 0x7f.
    for found in [0x80, 0xcc, 0xd0, 0xe0, 0xff] {
        decode_err::<Ints>(
            &with_byte(&bytes, 1, found),
            1,
            entry(&"fixint"),
            DecodeErrorKind::NotFixint { found },
        );
    }
    // A negative fixint entry refuses every byte below 0xe0.
    for found in [0x00, 0x7f, 0xcc, 0xd0, 0xdf] {
        decode_err::<Ints>(
            &with_byte(&bytes, 2, found),
            2,
            entry(&"negfixint"),
            marker("negfixint", 0xe0, found),
        );
    }
    let err = decode_err::<Ints>(
        &with_byte(&bytes, 24, 0xd2),
        24,
        entry(&"int16"),
        marker("int16", 0xd1, 0xd2),
    );
    assert_eq!(
        err.to_string(),
        "wire_ints_v0: at byte 0x18 in int16: expected int16 marker 0xd1, found 0xd2"
    );
}

#[test]
fn fixed_integers_refuse_a_truncated_payload() {
    let (_, bytes) = ints_middle();
    // The input ends 3 bytes into int64's 8-byte payload, which starts at 33.
    decode_err::<Ints>(
        &bytes[..36],
        33,
        entry(&"int64"),
        DecodeErrorKind::Truncated {
            needed: 8,
            available: 3,
        },
    );
    // Every shorter input is an error, never a panic.
    for n in 0..bytes.len() {
        assert!(Ints::decode(&bytes[..n]).is_err(), "{n} bytes decoded");
    }
    // And a byte more is trailing.
    let mut long = bytes.clone();
    long.push(0xc0);
    decode_err::<Ints>(&long, 41, Path::END, DecodeErrorKind::TrailingBytes { count: 1 });
}

#[test]
fn fixints_out_of_their_range_are_not_encoded() {
    let (value, _) = ints_middle();
    encode_err(
        &Ints {
            fixint: 128,
            ..value.clone()
        },
        entry(&"fixint"),
        EncodeErrorKind::OutOfRange {
            min: int(0),
            max: int(127),
            found: int(128),
        },
    );
    for found in [0, 1, 127, -33, -128] {
        encode_err(
            &Ints {
                negfixint: found,
                ..value.clone()
            },
            entry(&"negfixint"),
            EncodeErrorKind::OutOfRange {
                min: int(-32),
                max: int(-1),
                found: int(found.into()),
            },
        );
    }
}

// ======================================================================== nil, bool, floats

#[metalayer(schema_path = "tests/schemas/wire_scalars_v0.toml")]
#[derive(Debug, Clone, Copy)]
struct Scalars {
    flag: bool,
    single: f32,
    double: f64,
}

/// Equal bit for bit (NaN payloads and the sign of zero included).
impl PartialEq for Scalars {
    fn eq(&self, other: &Self) -> bool {
        self.flag == other.flag
            && self.single.to_bits() == other.single.to_bits()
            && self.double.to_bits() == other.double.to_bits()
    }
}

#[test]
fn nil_and_bool() {
    let value = |flag| Scalars {
        flag,
        single: 0.0,
        double: 0.0,
    };
    // 94: fixarray of 4; c0: nil; c2 false / c3 true; then float32 and float64 zero.
    roundtrip(&value(false), &hx("94 c0 c2 ca00000000 cb0000000000000000"));
    roundtrip(&value(true), &hx("94 c0 c3 ca00000000 cb0000000000000000"));

    let bytes = hx("94 c0 c3 ca00000000 cb0000000000000000");
    for found in [0xc2, 0xc3, 0x00, 0x90, 0xa0] {
        decode_err::<Scalars>(
            &with_byte(&bytes, 1, found),
            1,
            entry(&"none"),
            DecodeErrorKind::Marker {
                wire: "nil",
                expected: 0xc0,
                found,
            },
        );
    }
    for found in [0xc0, 0x00, 0x01, 0xa0] {
        decode_err::<Scalars>(
            &with_byte(&bytes, 2, found),
            2,
            entry(&"flag"),
            DecodeErrorKind::Family {
                expected: Family::Bool,
                found,
            },
        );
    }
}

#[test]
fn floats_keep_every_bit_pattern() {
    // (what, float32 bits, float64 bits): the encoding is 0xca + the 4 bits big-endian and
    // 0xcb + the 8 bits big-endian, so the expected bytes are the bits written out.
    #[rustfmt::skip]
    let cases: &[(&str, &str, &str)] = &[
        ("zero",               "00000000", "0000000000000000"),
        ("negative zero",      "80000000", "8000000000000000"),
        ("1.5",                "3fc00000", "3ff8000000000000"),
        ("-2.5",               "c0200000", "c004000000000000"),
        ("infinity",           "7f800000", "7ff0000000000000"),
        ("-infinity",          "ff800000", "fff0000000000000"),
        ("quiet NaN",          "7fc00000", "7ff8000000000000"),
        ("NaN with a payload", "7fc00001", "7ff8000000000001"),
        ("signalling NaN",     "7f800001", "7ff0000000000001"),
        ("negative NaN",       "ffc00000", "fff8000000000000"),
        ("all-ones NaN",       "ffffffff", "ffffffffffffffff"),
        ("largest finite",     "7f7fffff", "7fefffffffffffff"),
        ("smallest subnormal", "00000001", "0000000000000001"),
        ("smallest normal",    "00800000", "0010000000000000"),
    ];
    for &(what, b32, b64) in cases {
        let value = Scalars {
            flag: false,
            single: f32::from_bits(u32::from_str_radix(b32, 16).unwrap()),
            double: f64::from_bits(u64::from_str_radix(b64, 16).unwrap()),
        };
        let bytes = hx(&format!("94 c0 c2 ca{b32} cb{b64}"));
        same_bytes(&value.encode().unwrap(), &bytes, what);
        let decoded = Scalars::decode(&bytes).unwrap();
        assert_eq!(
            (decoded.single.to_bits(), decoded.double.to_bits()),
            (value.single.to_bits(), value.double.to_bits()),
            "{what}"
        );
    }
    assert!(
        Scalars::decode(&hx("94 c0 c2 ca7fc00001 cb0000000000000000"))
            .unwrap()
            .single
            .is_nan()
    );
    assert!(
        Scalars::decode(&hx("94 c0 c2 ca80000000 cb8000000000000000"))
            .unwrap()
            .double
            .is_sign_negative()
    );
}

#[test]
fn floats_match_python_msgpack() {
    // python's packb(x) (float64) and packb(x, use_single_float=True) (float32).
    let floats = canonical()["floats"].as_array().unwrap();
    assert_eq!(floats.len(), 21);
    for v in floats {
        let bytes = hx(v["hex"].as_str().unwrap());
        let bits = v["bits"].as_str().unwrap();
        let mut value = Scalars {
            flag: true,
            single: 0.0,
            double: 0.0,
        };
        let (record, slot) = match v["type"].as_str().unwrap() {
            "float32" => {
                value.single = f32::from_bits(u32::from_str_radix(bits, 16).unwrap());
                (cat(&[&hx("94 c0 c3"), &bytes, &hx("cb0000000000000000")]), 3..8)
            }
            _ => {
                value.double = f64::from_bits(u64::from_str_radix(bits, 16).unwrap());
                (cat(&[&hx("94 c0 c3 ca00000000"), &bytes]), 8..17)
            }
        };
        // The value the JSON states agrees with its bits.
        match v["value"].as_f64() {
            Some(x) if v["type"] == "float32" => assert_eq!((x as f32).to_bits(), value.single.to_bits(), "{v}"),
            Some(x) => assert_eq!(x.to_bits(), value.double.to_bits(), "{v}"),
            None => assert!(value.single.is_nan() || value.double.is_nan() || v["value"]["$float"] != "nan"),
        }
        same_bytes(&value.encode().unwrap(), &record, &v.to_string());
        assert_eq!(&value.encode().unwrap()[slot], &bytes[..]);
        assert!(Scalars::decode(&record).unwrap() == value, "{v}");
    }
}

#[test]
fn floats_refuse_the_other_width() {
    let bytes = hx("94 c0 c2 ca3fc00000 cb3ff8000000000000");
    decode_err::<Scalars>(
        &with_byte(&bytes, 3, 0xcb),
        3,
        entry(&"single"),
        marker("float32", 0xca, 0xcb),
    );
    decode_err::<Scalars>(
        &with_byte(&bytes, 8, 0xca),
        8,
        entry(&"double"),
        marker("float64", 0xcb, 0xca),
    );
    // An integer where a float is stated.
    decode_err::<Scalars>(
        &with_byte(&bytes, 8, 0xd3),
        8,
        entry(&"double"),
        marker("float64", 0xcb, 0xd3),
    );
}

// ================================================================================ strings

#[metalayer(schema_path = "tests/schemas/wire_strs_v0.toml")]
#[derive(Debug, Clone, PartialEq)]
struct Strs<'a> {
    fixstr: String,
    str8: Box<str>,
    str16: String,
    str32: &'a str,
    raw_fixstr: Vec<u8>,
    raw_str8: &'a [u8],
}

/// `wire_strs` with every string empty: dc 00 06 is an array16 record of 6 entries.
fn strs_empty() -> Segments {
    Segments::new(
        "dc 00 06",
        &[
            "a0",             // fixstr: 0xa0 + length 0
            "d9 00",          // str8: 1-byte length 0
            "da 00 00",       // str16: 2-byte length 0
            "db 00 00 00 00", // str32: 4-byte length 0
            "a0",             // raw fixstr
            "d9 00",          // raw str8
        ],
    )
}

#[test]
fn strings_of_every_fixed_wire_type() {
    let value = Strs {
        fixstr: "hi".into(),
        str8: "é".into(),
        str16: String::new(),
        str32: "b2nd",
        raw_fixstr: vec![0xff, 0xfe, 0x00, 0x80],
        raw_str8: &[0xc3, 0x28],
    };
    let bytes = hxc("
        dc 00 06                    # array16 record, 6 entries
        a2 68 69                    # fixstr 0xa0 + 2, \"hi\"
        d9 02 c3 a9                 # str8, length 2: \"é\" is U+00E9 = c3 a9 in UTF-8
        da 00 00                    # str16, length 0: a fixed wire type even when empty
        db 00 00 00 04 62 32 6e 64  # str32, length 4, \"b2nd\"
        a4 ff fe 00 80              # raw fixstr of 4 bytes that are not UTF-8
        d9 02 c3 28                 # raw str8: c3 28 is an invalid UTF-8 sequence
    ");
    roundtrip(&value, &bytes);
    roundtrip(
        &Strs {
            fixstr: String::new(),
            str8: "".into(),
            str16: String::new(),
            str32: "",
            raw_fixstr: vec![],
            raw_str8: &[],
        },
        &strs_empty().bytes(),
    );
}

#[test]
fn string_lengths_at_each_wire_types_boundaries() {
    // (entry, length, header): the header is the marker then the length, big-endian, in the
    // wire type's width; a fixstr's length is in its marker, 0xa0 + length.
    #[rustfmt::skip]
    let cases: &[(usize, usize, &str)] = &[
        (0, 0, "a0"), (0, 1, "a1"), (0, 31, "bf"),
        (1, 0, "d9 00"), (1, 1, "d9 01"), (1, 31, "d9 1f"), (1, 32, "d9 20"), (1, 255, "d9 ff"),
        (2, 0, "da 00 00"), (2, 255, "da 00 ff"), (2, 256, "da 01 00"), (2, 65535, "da ff ff"),
        (3, 0, "db 00 00 00 00"), (3, 65535, "db 00 00 ff ff"), (3, 65536, "db 00 01 00 00"),
        (3, 70000, "db 00 01 11 70"),
        (4, 0, "a0"), (4, 31, "bf"),
        (5, 0, "d9 00"), (5, 255, "d9 ff"),
    ];
    for &(slot, len, header) in cases {
        // Text of `len` bytes, "abcd...yzab..."; raw bytes that are mostly not UTF-8.
        let text: String = (0..len).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        let raw: Vec<u8> = (0..len).map(|i| 0x80 | (i as u8)).collect();
        let content: &[u8] = if slot >= 4 { &raw } else { text.as_bytes() };
        let mut value = Strs {
            fixstr: String::new(),
            str8: "".into(),
            str16: String::new(),
            str32: "",
            raw_fixstr: vec![],
            raw_str8: &[],
        };
        match slot {
            0 => value.fixstr = text.clone(),
            1 => value.str8 = text.as_str().into(),
            2 => value.str16 = text.clone(),
            3 => value.str32 = &text,
            4 => value.raw_fixstr = raw.clone(),
            _ => value.raw_str8 = &raw,
        }
        let bytes = strs_empty().with(slot, &cat(&[&hx(header), content])).bytes();
        roundtrip(&value, &bytes);
    }
}

#[test]
fn strings_too_long_for_their_wire_type_are_not_encoded() {
    let long = |n: usize| "x".repeat(n);
    let (l32, l256, l65536) = (long(32), long(256), long(65536));
    let empty = Strs {
        fixstr: String::new(),
        str8: "".into(),
        str16: String::new(),
        str32: "",
        raw_fixstr: vec![],
        raw_str8: &[],
    };
    let too_long = |wire, max, found| EncodeErrorKind::StringTooLong { wire, max, found };
    encode_err(
        &Strs {
            fixstr: l32.clone(),
            ..empty.clone()
        },
        entry(&"fixstr"),
        too_long("fixstr", 31, 32),
    );
    encode_err(
        &Strs {
            str8: l256.as_str().into(),
            ..empty.clone()
        },
        entry(&"str8"),
        too_long("str8", 255, 256),
    );
    encode_err(
        &Strs {
            str16: l65536.clone(),
            ..empty.clone()
        },
        entry(&"str16"),
        too_long("str16", 65535, 65536),
    );
    // Raw strings are byte strings: the error is a length.
    encode_err(
        &Strs {
            raw_fixstr: l32.clone().into_bytes(),
            ..empty.clone()
        },
        entry(&"raw_fixstr"),
        length("fixstr", 0, 31, 32),
    );
    encode_err(
        &Strs {
            raw_str8: l256.as_bytes(),
            ..empty.clone()
        },
        entry(&"raw_str8"),
        length("str8", 0, 255, 256),
    );
}

#[test]
fn strings_refuse_another_str_marker() {
    let base = strs_empty();
    // (entry, name, replacement, wire, marker stated, marker found)
    #[rustfmt::skip]
    let cases: &[(usize, &'static &'static str, &str, &str, u8, u8)] = &[
        (0, &"fixstr", "d9 01 61", "fixstr", 0xa0, 0xd9),       // "a" as str8
        (0, &"fixstr", "c4 01 61", "fixstr", 0xa0, 0xc4),       // a bin
        (1, &"str8", "a1 61", "str8", 0xd9, 0xa1),              // "a" as fixstr
        (1, &"str8", "da 00 01 61", "str8", 0xd9, 0xda),        // as str16
        (2, &"str16", "d9 01 61", "str16", 0xda, 0xd9),
        (2, &"str16", "db 00 00 00 01 61", "str16", 0xda, 0xdb),
        (3, &"str32", "da 00 01 61", "str32", 0xdb, 0xda),
        (3, &"str32", "a1 61", "str32", 0xdb, 0xa1),
        (4, &"raw_fixstr", "c4 01 ff", "fixstr", 0xa0, 0xc4),
        (4, &"raw_fixstr", "d9 01 ff", "fixstr", 0xa0, 0xd9),
        (5, &"raw_str8", "a1 ff", "str8", 0xd9, 0xa1),
        (5, &"raw_str8", "c4 01 ff", "str8", 0xd9, 0xc4),
    ];
    for &(slot, name, replacement, wire, expected, found) in cases {
        let bad = base.with_hex(slot, replacement);
        decode_err::<Strs>(
            &bad.bytes(),
            bad.at(slot),
            entry(name),
            DecodeErrorKind::Marker { wire, expected, found },
        );
    }
}

#[test]
fn strings_that_are_not_utf8_are_refused_unless_raw() {
    let base = strs_empty();
    // (entry, name, bytes, valid UTF-8 bytes before the first invalid one, header size)
    #[rustfmt::skip]
    let cases: &[(usize, &'static &'static str, &str, usize, usize)] = &[
        (0, &"fixstr", "a2 61 ff", 1, 1),                   // "a", then 0xff, never UTF-8
        (1, &"str8", "d9 02 c3 28", 0, 2),                  // c3 needs a continuation byte
        (1, &"str8", "d9 02 c0 80", 0, 2),                  // an overlong encoding of U+0000
        (2, &"str16", "da 00 03 61 62 c3", 2, 3),           // a sequence cut short
        (3, &"str32", "db 00 00 00 03 ed a0 80", 0, 5),     // U+D800, a surrogate
    ];
    for &(slot, name, bytes, valid_up_to, header) in cases {
        let bad = base.with_hex(slot, bytes);
        let err = decode_err::<Strs>(
            &bad.bytes(),
            bad.at(slot) + header + valid_up_to,
            entry(name),
            DecodeErrorKind::InvalidUtf8 { valid_up_to },
        );
        assert!(err.to_string().starts_with("wire_strs_v0: at byte "), "{err}");
    }
    // The same bytes in the raw entries are values.
    let good = base.with_hex(4, "a2 61 ff").with_hex(5, "d9 02 c3 28").bytes();
    let value = Strs::decode(&good).unwrap();
    assert_eq!(
        (&value.raw_fixstr[..], value.raw_str8),
        (&[0x61, 0xff][..], &[0xc3, 0x28][..])
    );
    same_bytes(&value.encode().unwrap(), &good, "raw strings");
}

#[test]
fn strings_cut_short_are_refused() {
    // str32 states 5 bytes; 2 follow. The missing bytes start at 14 = 3 (header) + 1 + 2 + 3
    // (the empty fixstr, str8, str16) + 5 (str32's marker and length).
    let bytes = cat(&[&strs_empty().bytes()[..9], &hx("db 00 00 00 05 61 62")]);
    decode_err::<Strs>(
        &bytes,
        14,
        entry(&"str32"),
        DecodeErrorKind::Truncated {
            needed: 5,
            available: 2,
        },
    );
    // A hostile length is refused without allocating it.
    let bytes = cat(&[&strs_empty().bytes()[..9], &hx("db ff ff ff ff 61")]);
    decode_err::<Strs>(
        &bytes,
        14,
        entry(&"str32"),
        DecodeErrorKind::Truncated {
            needed: 0xffff_ffff,
            available: 1,
        },
    );
}

// =========================================================================== byte strings

#[metalayer(schema_path = "tests/schemas/wire_bins_v0.toml")]
#[derive(Debug, Clone, PartialEq)]
struct Bins<'a> {
    bin8: Vec<u8>,
    bin16: Box<[u8]>,
    bin32: &'a [u8],
}

/// The same layout in fixed-size and fixed-capacity fields.
#[metalayer(schema_path = "tests/schemas/wire_bins_v0.toml")]
#[derive(Debug, Clone, PartialEq)]
struct BinsFixed {
    bin8: [u8; 2],
    bin16: arrayvec::ArrayVec<u8, 4>,
    bin32: [u8; 3],
}

/// `wire_bins` with every byte string empty: dd 00 00 00 03 is an array32 record of 3.
fn bins_empty() -> Segments {
    Segments::new("dd 00 00 00 03", &["c4 00", "c5 00 00", "c6 00 00 00 00"])
}

#[test]
fn byte_strings_of_every_fixed_wire_type() {
    let value = Bins {
        bin8: vec![0x00, 0xff],
        bin16: Box::new([]),
        bin32: &[1, 2, 3],
    };
    let bytes = hxc("
        dd 00 00 00 03              # array32 record, 3 entries
        c4 02 00 ff                 # bin8, length 2
        c5 00 00                    # bin16, length 0
        c6 00 00 00 03 01 02 03     # bin32, length 3
    ");
    roundtrip(&value, &bytes);
    let fixed = BinsFixed {
        bin8: [0x00, 0xff],
        bin16: arrayvec::ArrayVec::new(),
        bin32: [1, 2, 3],
    };
    roundtrip(&fixed, &bytes);
}

#[test]
fn byte_string_lengths_at_each_wire_types_boundaries() {
    #[rustfmt::skip]
    let cases: &[(usize, usize, &str)] = &[
        (0, 0, "c4 00"), (0, 1, "c4 01"), (0, 255, "c4 ff"),
        (1, 0, "c5 00 00"), (1, 255, "c5 00 ff"), (1, 256, "c5 01 00"), (1, 65535, "c5 ff ff"),
        (2, 0, "c6 00 00 00 00"), (2, 65535, "c6 00 00 ff ff"), (2, 65536, "c6 00 01 00 00"),
    ];
    for &(slot, len, header) in cases {
        let data = counting(len);
        let mut value = Bins {
            bin8: vec![],
            bin16: Box::new([]),
            bin32: &[],
        };
        match slot {
            0 => value.bin8 = data.clone(),
            1 => value.bin16 = data.clone().into(),
            _ => value.bin32 = &data,
        }
        let bytes = bins_empty().with(slot, &cat(&[&hx(header), &data])).bytes();
        roundtrip(&value, &bytes);
    }
}

#[test]
fn byte_strings_refuse_another_marker_and_length() {
    let base = bins_empty();
    #[rustfmt::skip]
    let cases: &[(usize, &'static &'static str, &str, &str, u8, u8)] = &[
        (0, &"bin8", "c5 00 00", "bin8", 0xc4, 0xc5),
        (0, &"bin8", "a0", "bin8", 0xc4, 0xa0),              // a str
        (1, &"bin16", "c4 00", "bin16", 0xc5, 0xc4),
        (1, &"bin16", "c6 00 00 00 00", "bin16", 0xc5, 0xc6),
        (2, &"bin32", "c5 00 00", "bin32", 0xc6, 0xc5),
        (2, &"bin32", "db 00 00 00 00", "bin32", 0xc6, 0xdb), // a str32
    ];
    for &(slot, name, replacement, wire, expected, found) in cases {
        let bad = base.with_hex(slot, replacement);
        decode_err::<Bins>(
            &bad.bytes(),
            bad.at(slot),
            entry(name),
            DecodeErrorKind::Marker { wire, expected, found },
        );
    }
    // Fixed-size and fixed-capacity fields refuse other lengths, at the value's offset, in
    // bytes.
    let ok = base.with_hex(0, "c4 02 00 ff").with_hex(2, "c6 00 00 00 03 01 02 03");
    assert!(BinsFixed::decode(&ok.bytes()).is_ok());
    let bad = ok.with_hex(0, "c4 03 00 ff 01");
    decode_err::<BinsFixed>(
        &bad.bytes(),
        5,
        entry(&"bin8"),
        DecodeErrorKind::FixedBytes { expected: 2, found: 3 },
    );
    let bad = ok.with_hex(1, "c5 00 05 01 02 03 04 05");
    decode_err::<BinsFixed>(
        &bad.bytes(),
        9,
        entry(&"bin16"),
        DecodeErrorKind::StrCapacity { capacity: 4, found: 5 },
    );

    let empty = Bins {
        bin8: vec![],
        bin16: Box::new([]),
        bin32: &[],
    };
    encode_err(
        &Bins {
            bin8: counting(256),
            ..empty.clone()
        },
        entry(&"bin8"),
        length("bin8", 0, 255, 256),
    );
    encode_err(
        &Bins {
            bin16: counting(65536).into(),
            ..empty.clone()
        },
        entry(&"bin16"),
        length("bin16", 0, 65535, 65536),
    );
}

// ====================================================================== canonical.json

/// `tests/fixtures/canonical.json`, python's `msgpack.packb` 1.2.4 at every boundary.
fn canonical() -> &'static serde_json::Value {
    static DOC: OnceLock<serde_json::Value> = OnceLock::new();
    DOC.get_or_init(|| {
        let doc: serde_json::Value = serde_json::from_str(include_str!("fixtures/canonical.json")).unwrap();
        assert_eq!(doc["msgpack"], "1.2.4");
        doc
    })
}

/// The whole encoding of one vector: its `header_hex`, then `content` (the vector's value,
/// rebuilt from the rule the fixture documents), checked against `total_len` and against
/// `hex`, or, for a vector too long to store, against its SHA-256.
fn vector_bytes(v: &serde_json::Value, content: &[u8]) -> Vec<u8> {
    let bytes = cat(&[&hx(v["header_hex"].as_str().unwrap()), content]);
    assert_eq!(bytes.len() as u64, v["total_len"].as_u64().unwrap(), "{v}");
    match v["hex"].as_str() {
        Some(whole) => assert_eq!(hex_of(&bytes), whole, "{v}"),
        None => assert_eq!(hex_of(&sha256(&bytes)), v["sha256"].as_str().unwrap(), "rebuilt {v}"),
    }
    bytes
}

/// The wire type a vector names (the fixture's names are the schema language's).
fn wire_named(name: &str) -> Wire {
    match name {
        "fixint" => Wire::PosFixInt,
        "negfixint" => Wire::NegFixInt,
        "uint8" => Wire::UInt8,
        "uint16" => Wire::UInt16,
        "uint32" => Wire::UInt32,
        "uint64" => Wire::UInt64,
        "int8" => Wire::Int8,
        "int16" => Wire::Int16,
        "int32" => Wire::Int32,
        "int64" => Wire::Int64,
        "fixstr" => Wire::FixStr,
        "str8" => Wire::Str8,
        "str16" => Wire::Str16,
        "str32" => Wire::Str32,
        "bin8" => Wire::Bin8,
        "bin16" => Wire::Bin16,
        "bin32" => Wire::Bin32,
        "fixarray" => Wire::FixArray,
        "array16" => Wire::Array16,
        "array32" => Wire::Array32,
        "fixmap" => Wire::FixMap,
        "map16" => Wire::Map16,
        "map32" => Wire::Map32,
        "fixext1" => Wire::FixExt1,
        "fixext2" => Wire::FixExt2,
        "fixext4" => Wire::FixExt4,
        "fixext8" => Wire::FixExt8,
        "fixext16" => Wire::FixExt16,
        "ext8" => Wire::Ext8,
        "ext16" => Wire::Ext16,
        "ext32" => Wire::Ext32,
        other => panic!("no wire type {other}"),
    }
}

/// SHA-256 (FIPS 180-4), to check the long vectors rebuilt here against the fixture.
fn sha256(data: &[u8]) -> [u8; 32] {
    #[rustfmt::skip]
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    ];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&(data.len() as u64 * 8).to_be_bytes());
    for block in msg.chunks_exact(64) {
        let mut w = [0u32; 64];
        for (wi, word) in w.iter_mut().zip(block.chunks_exact(4)) {
            *wi = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16].wrapping_add(s0).wrapping_add(w[i - 7]).wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for (k, wi) in K.iter().zip(w) {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh.wrapping_add(s1).wrapping_add(ch).wrapping_add(*k).wrapping_add(wi);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            (hh, g, f, e, d, c, b, a) = (g, f, e, d.wrapping_add(t1), c, b, a, t1.wrapping_add(t2));
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 32];
    for (o, x) in out.chunks_exact_mut(4).zip(h) {
        o.copy_from_slice(&x.to_be_bytes());
    }
    out
}

#[test]
fn sha256_matches_the_standards_examples() {
    // FIPS 180-4's examples (NIST's "SHA256.pdf"): "abc", the empty string, and 2 blocks.
    assert_eq!(
        hex_of(&sha256(b"abc")),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    assert_eq!(
        hex_of(&sha256(b"")),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert_eq!(
        hex_of(&sha256(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    );
}

// ================================================================================= arrays

#[metalayer(schema_path = "tests/schemas/wire_arrays_v0.toml")]
#[derive(Debug, Clone, PartialEq)]
struct Arrays {
    by_fixint: Vec<u8>,
    by_fix: Vec<i16>,
    by_16: Vec<String>,
    by_32: Vec<bool>,
    hdr_fix: Vec<()>,
    hdr_16: Vec<f64>,
    hdr_32: Vec<Vec<u8>>,
    cnt_fix: [i64; 3],
    cnt_16: [u16; 2],
    cnt_32: Vec<String>,
    by_map: Vec<(i64, bool)>,
}

fn arrays_typical() -> (Arrays, Segments) {
    let value = Arrays {
        by_fixint: vec![5, 127],
        by_fix: vec![-1, 256],
        by_16: vec!["x".into(), String::new()],
        by_32: vec![true, false],
        hdr_fix: vec![(), (), ()],
        hdr_16: vec![1.5],
        hdr_32: vec![vec![1, 255], vec![]],
        cnt_fix: [1, -1, 300],
        cnt_16: [0, 65535],
        cnt_32: vec!["ok".into()],
        by_map: vec![(1, true), (-1, false)],
    };
    #[rustfmt::skip]
    let bytes = Segments::new(
        "9c",                                  // canonical array record of 12 entries: 0x90 + 12
        &[
            "cc 02",                           // n: uint8 2, the length of the 4 arrays and the map
            "92 05 7f",                        // by_fixint: 0x90 + n, fixints 5 and 127
            "92 d1 ff ff d1 01 00",            // by_fix: 0x90 + n, int16 -1 and 256
            "dc 00 02 a1 78 a0",               // by_16: array16 of n, "x" and "" (canonical strs)
            "dd 00 00 00 02 c3 c2",            // by_32: array32 of n, true and false
            "93 c0 c0 c0",                     // hdr_fix: fixarray of 3 nils
            "dc 00 01 cb 3f f8 00 00 00 00 00 00", // hdr_16: array16 of 1, float64 1.5
            "dd 00 00 00 02 92 cc 01 cc ff 90", // hdr_32: array32 of [uint8 1, uint8 255] and []
            "93 01 ff cd 01 2c",               // cnt_fix: 3 canonical ints 1, -1, 300
            "dc 00 02 cd 00 00 cd ff ff",      // cnt_16: array16 of 2, uint16 0 and 65535
            "dd 00 00 00 01 d9 02 6f 6b",      // cnt_32: array32 of 1, str8 "ok"
            "82 01 c3 ff c2",                  // by_map: 0x80 + n, 1: true, -1: false
        ],
    );
    (value, bytes)
}

/// The same layout with every array at its smallest: n = 0.
fn arrays_empty() -> (Arrays, Segments) {
    let value = Arrays {
        by_fixint: vec![],
        by_fix: vec![],
        by_16: vec![],
        by_32: vec![],
        hdr_fix: vec![],
        hdr_16: vec![],
        hdr_32: vec![],
        cnt_fix: [0; 3],
        cnt_16: [0; 2],
        cnt_32: vec![String::new()],
        by_map: vec![],
    };
    #[rustfmt::skip]
    let bytes = Segments::new("9c", &[
        "cc 00", "90", "90", "dc 00 00", "dd 00 00 00 00",
        "90", "dc 00 00", "dd 00 00 00 00",
        "93 00 00 00", "dc 00 02 cd 00 00 cd 00 00", "dd 00 00 00 01 d9 00",
        "80",
    ]);
    (value, bytes)
}

#[test]
fn arrays_counted_by_header_entry_and_schema() {
    let (value, bytes) = arrays_typical();
    roundtrip(&value, &bytes.bytes());
    let (value, bytes) = arrays_empty();
    roundtrip(&value, &bytes.bytes());
}

#[test]
fn arrays_at_each_wire_types_boundaries() {
    // n = 15, the most a fixarray header states: 0x9f, array16 00 0f, array32 00 00 00 0f.
    let (empty, base) = arrays_empty();
    let value = Arrays {
        by_fixint: (0..15).collect(),
        by_fix: (0..15).map(|i| i * 1000 - 7000).collect(),
        by_16: vec![String::new(); 15],
        by_32: (0..15).map(|i| i % 2 == 0).collect(),
        by_map: (0..15).map(|i| (i - 7, i % 3 == 0)).collect(),
        ..empty.clone()
    };
    let by_fix: String = (0..15)
        .map(|i| format!("d1{:04x}", (i * 1000 - 7000) as i16 as u16))
        .collect();
    let by_32: String = (0..15).map(|i| if i % 2 == 0 { "c3" } else { "c2" }).collect();
    // -7..=7 are fixints, 0xf9..=0xff below zero; true (c3) for every third.
    let by_map: String = (0..15i64)
        .map(|i| format!("{:02x}{}", (i - 7) as u8, if i % 3 == 0 { "c3" } else { "c2" }))
        .collect();
    let bytes = base
        .with_hex(0, "cc 0f")
        .with_hex(1, "9f 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e")
        .with(2, &cat(&[&[0x9f], &hx(&by_fix)]))
        .with(3, &cat(&[&hx("dc 00 0f"), &[0xa0; 15]]))
        .with(4, &cat(&[&hx("dd 00 00 00 0f"), &hx(&by_32)]))
        .with(11, &cat(&[&[0x8f], &hx(&by_map)]));
    roundtrip(&value, &bytes.bytes());

    // Arrays counted by their headers, at the limits of each header.
    // hdr_fix: 15 nils, 0x90 + 15.
    let value = Arrays {
        hdr_fix: vec![(); 15],
        ..empty.clone()
    };
    roundtrip(&value, &base.with(5, &cat(&[&[0x9f], &[0xc0; 15]])).bytes());
    // hdr_16: 256 and 65535 float64 elements (cb + 8 bytes each), the count in 2 bytes.
    for (n, header) in [(256, "dc 01 00"), (65535, "dc ff ff")] {
        let value = Arrays {
            hdr_16: (0..n).map(f64::from).collect(),
            ..empty.clone()
        };
        let elements: Vec<u8> = (0..n)
            .flat_map(|i| cat(&[&[0xcb], &f64::from(i).to_be_bytes()]))
            .collect();
        roundtrip(&value, &base.with(6, &cat(&[&hx(header), &elements])).bytes());
    }
    // hdr_32: 65536 empty fixarrays (0x90 each), the count in 4 bytes; and one of 15 uint8s.
    let value = Arrays {
        hdr_32: vec![vec![]; 65536],
        ..empty.clone()
    };
    roundtrip(
        &value,
        &base.with(7, &cat(&[&hx("dd 00 01 00 00"), &[0x90; 65536]])).bytes(),
    );
    let value = Arrays {
        hdr_32: vec![(0..15).collect()],
        ..empty.clone()
    };
    let inner: Vec<u8> = (0..15).flat_map(|i| [0xcc, i]).collect();
    roundtrip(&value, &base.with(7, &cat(&[&hx("dd 00 00 00 01 9f"), &inner])).bytes());
}

#[test]
fn arrays_refuse_headers_that_contradict_their_count() {
    let (_, base) = arrays_typical();
    let header = |expected, found| DecodeErrorKind::ArrayHeader {
        count_entry: "n".into(),
        count: 2,
        expected,
        found,
    };
    // (entry, replacement, path, kind); the error is at the array's header.
    #[rustfmt::skip]
    let cases: Vec<(usize, &str, &'static &'static str, DecodeErrorKind)> = vec![
        // Another count than n = 2, or than the schema's fixed count.
        (1, "93 05 7f 00", &"by_fixint", header(0x92, 0x93)),
        (2, "91 d1 ff ff", &"by_fix", header(0x92, 0x91)),
        (3, "dc 00 03 a1 78 a0 a0", &"by_16", count("n", 2, 3)),
        (4, "dd 00 00 00 01 c3", &"by_32", count("n", 2, 1)),
        (8, "92 01 ff", &"cnt_fix", count("", 3, 2)),
        (9, "dc 00 03 cd 00 00 cd ff ff cd 00 00", &"cnt_16", count("", 2, 3)),
        (10, "dd 00 00 00 00", &"cnt_32", count("", 1, 0)),
        (11, "83 01 c3 ff c2 02 c3", &"by_map", count("n", 2, 3)),
        // Another array wire type than the schema's.
        (1, "dc 00 02 05 7f", &"by_fixint", header(0x92, 0xdc)),
        (3, "92 a1 78 a0", &"by_16", marker("array16", 0xdc, 0x92)),
        (4, "dc 00 02 c3 c2", &"by_32", marker("array32", 0xdd, 0xdc)),
        (5, "dc 00 03 c0 c0 c0", &"hdr_fix", marker("fixarray", 0x90, 0xdc)),
        (6, "91 cb 3f f8 00 00 00 00 00 00", &"hdr_16", marker("array16", 0xdc, 0x91)),
        (7, "dc 00 02 92 cc 01 cc ff 90", &"hdr_32", marker("array32", 0xdd, 0xdc)),
        (8, "dc 00 03 01 ff cd 01 2c", &"cnt_fix", marker("fixarray", 0x90, 0xdc)),
        (11, "de 00 02 01 c3 ff c2", &"by_map", marker("fixmap", 0x80, 0xde)),
        (11, "92 01 c3", &"by_map", marker("fixmap", 0x80, 0x92)),
    ];
    for (slot, replacement, name, kind) in cases {
        let bad = base.with_hex(slot, replacement);
        decode_err::<Arrays>(&bad.bytes(), bad.at(slot), entry(name), kind);
    }
    // n above its max (15), at n's offset.
    let bad = base.with_hex(0, "cc 10");
    decode_err::<Arrays>(
        &bad.bytes(),
        1,
        entry(&"n"),
        DecodeErrorKind::OutOfRange {
            min: int(0),
            max: int(15),
            found: int(16),
        },
    );
    // A hostile array32 count is refused before anything is allocated for it.
    let bad = base.with_hex(7, "dd ff ff ff ff 90");
    let err = Arrays::decode(&bad.bytes()).unwrap_err();
    assert_eq!((err.offset(), err.path()), (bad.at(7) + 5, &entry(&"hdr_32")), "{err}");
}

#[test]
fn array_elements_are_refused_where_they_are() {
    let (_, base) = arrays_typical();
    let at = |name, i| Path::element(name, i);
    // (entry, replacement, offset within the entry, path, kind)
    #[rustfmt::skip]
    let cases: Vec<(usize, &str, usize, Path, DecodeErrorKind)> = vec![
        (1, "92 05 cc", 2, at(&"by_fixint", 1), DecodeErrorKind::NotFixint { found: 0xcc }),
        (2, "92 d1 ff ff d0 01 00", 4, at(&"by_fix", 1), marker("int16", 0xd1, 0xd0)),
        (3, "dc 00 02 d9 01 78 a0", 3, at(&"by_16", 0), not_smallest(Wire::FixStr, Wire::Str8)),
        (4, "dd 00 00 00 02 c3 01", 6, at(&"by_32", 1), DecodeErrorKind::Family { expected: Family::Bool, found: 0x01 }),
        (5, "93 c0 c2 c0", 2, at(&"hdr_fix", 1), marker("nil", 0xc0, 0xc2)),
        (6, "dc 00 01 ca 3f c0 00 00", 3, at(&"hdr_16", 0), marker("float64", 0xcb, 0xca)),
        (7, "dd 00 00 00 02 92 cc 01 d0 ff 90", 8, at(&"hdr_32", 0).index(1), marker("uint8", 0xcc, 0xd0)),
        (7, "dd 00 00 00 02 92 cc 01 cc ff dc 00 00", 10, at(&"hdr_32", 1), marker("fixarray", 0x90, 0xdc)),
        (8, "93 01 d0 ff cd 01 2c", 2, at(&"cnt_fix", 1), not_smallest(Wire::NegFixInt, Wire::Int8)),
        (10, "dd 00 00 00 01 a2 6f 6b", 5, at(&"cnt_32", 0), marker("str8", 0xd9, 0xa2)),
    ];
    for (slot, replacement, within, path, kind) in cases {
        let bad = base.with_hex(slot, replacement);
        decode_err::<Arrays>(&bad.bytes(), bad.at(slot) + within, path, kind);
    }
    let err = Arrays::decode(&base.with_hex(7, "dd 00 00 00 02 92 cc 01 d0 ff 90").bytes()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "wire_arrays_v0: at byte 0x32 in hdr_32[0][1]: expected uint8 marker 0xcc, found 0xd0"
    );
}

#[test]
fn arrays_that_contradict_their_count_are_not_encoded() {
    let (value, _) = arrays_typical();
    encode_err(
        &Arrays {
            by_fix: vec![1, 2, 3],
            ..value.clone()
        },
        entry(&"by_fix"),
        EncodeErrorKind::LengthMismatch {
            count_entry: "n".into(),
            reference: "by_fixint".into(),
            expected: 2,
            found: 3,
        },
    );
    encode_err(
        &Arrays {
            by_map: vec![(0, true)],
            ..value.clone()
        },
        entry(&"by_map"),
        EncodeErrorKind::LengthMismatch {
            count_entry: "n".into(),
            reference: "by_fixint".into(),
            expected: 2,
            found: 1,
        },
    );
    encode_err(
        &Arrays {
            by_fixint: vec![0; 16],
            by_fix: vec![0; 16],
            by_16: vec![String::new(); 16],
            by_32: vec![false; 16],
            by_map: vec![(0, false); 16],
            ..value.clone()
        },
        entry(&"by_fixint"),
        EncodeErrorKind::CountOutOfRange {
            count_entry: "n".into(),
            min: 0,
            max: 15,
            found: 16,
        },
    );
    encode_err(
        &Arrays {
            hdr_fix: vec![(); 16],
            ..value.clone()
        },
        entry(&"hdr_fix"),
        length("fixarray", 0, 15, 16),
    );
    encode_err(
        &Arrays {
            hdr_16: vec![0.0; 65536],
            ..value.clone()
        },
        entry(&"hdr_16"),
        length("array16", 0, 65535, 65536),
    );
    encode_err(
        &Arrays {
            hdr_32: vec![vec![], vec![0; 16]],
            ..value.clone()
        },
        Path::element(&"hdr_32", 1),
        length("fixarray", 0, 15, 16),
    );
    encode_err(
        &Arrays {
            cnt_32: vec![String::new(), String::new()],
            ..value.clone()
        },
        entry(&"cnt_32"),
        length("array32", 1, 1, 2),
    );
    encode_err(
        &Arrays {
            by_fixint: vec![5, 128],
            ..value.clone()
        },
        Path::element(&"by_fixint", 1),
        EncodeErrorKind::OutOfRange {
            min: int(0),
            max: int(127),
            found: int(128),
        },
    );
}

// =================================================================================== maps

#[metalayer(schema_path = "tests/schemas/wire_maps_v0.toml")]
#[derive(Debug, Clone, PartialEq)]
struct Maps<'a> {
    m_fix: Vec<(String, i64)>,
    m_16: Vec<(u32, &'a str)>,
    m_32: Vec<(String, bool)>,
    m_cnt: [(i8, ()); 2],
    r_fixmap: Point,
    r_map16: Named<'a>,
    r_map32: Tagged,
    r_arr16: Pair16,
    r_arr32: Pair32,
}

#[metalayer(schema_path = "tests/schemas/wire_maps_v0.toml", layout = "point")]
#[derive(Debug, Clone, PartialEq)]
struct Point {
    x: i64,
    y: i64,
}

#[metalayer(schema_path = "tests/schemas/wire_maps_v0.toml", layout = "named")]
#[derive(Debug, Clone, PartialEq)]
struct Named<'a> {
    name: &'a str,
    on: bool,
}

#[metalayer(schema_path = "tests/schemas/wire_maps_v0.toml", layout = "tagged")]
#[derive(Debug, Clone, PartialEq)]
struct Tagged {
    v: f64,
    w: String,
}

#[metalayer(schema_path = "tests/schemas/wire_maps_v0.toml", layout = "pair16")]
#[derive(Debug, Clone, PartialEq)]
struct Pair16 {
    a: i8,
    b: u16,
}

#[metalayer(schema_path = "tests/schemas/wire_maps_v0.toml", layout = "pair32")]
#[derive(Debug, Clone, PartialEq)]
struct Pair32 {
    a: i8,
    b: Vec<u8>,
}

fn maps_typical() -> (Maps<'static>, Segments) {
    let value = Maps {
        m_fix: vec![("k".into(), 1), ("l".into(), -1)],
        m_16: vec![(65536, "hi")],
        m_32: vec![(String::new(), true)],
        m_cnt: [(0, ()), (-128, ())],
        r_fixmap: Point { x: 10, y: -32 },
        r_map16: Named { name: "abc", on: true },
        r_map32: Tagged {
            v: std::f64::consts::PI,
            w: "ok".into(),
        },
        r_arr16: Pair16 { a: -5, b: 256 },
        r_arr32: Pair32 { a: -1, b: vec![7] },
    };
    // Each entry is its key, a fixstr of one letter (a1 61 = "a"...), then its value.
    #[rustfmt::skip]
    let bytes = Segments::new(
        "de 00 09",                                          // map16 record of 9 entries
        &[
            "a1 61 82 a1 6b 01 a1 6c ff",                    // fixmap of 2: "k": 1, "l": -1
            "a1 62 de 00 01 ce 00 01 00 00 a2 68 69",        // map16 of 1: uint32 65536: fixstr "hi"
            "a1 63 df 00 00 00 01 a0 c3",                    // map32 of 1: fixstr "": true
            "a1 64 82 00 c0 d0 80 c0",                       // fixmap of 2 (fixed): 0: nil, -128 (int8): nil
            "a1 65 82 a1 78 0a a1 79 e0",                    // fixmap record: "x": 10, "y": -32
            "a1 66 de 00 02 a4 6e 61 6d 65 a3 61 62 63 a2 6f 6e c3", // map16 record: "name": "abc", "on": true
            "a1 67 df 00 00 00 02 a1 76 cb 40 09 21 fb 54 44 2d 18 a3 74 61 67 a2 6f 6b",
                                                             // map32 record: "v": float64 pi, "tag": "ok"
            "a1 68 dc 00 02 d0 fb cd 01 00",                 // array16 record: int8 -5, uint16 256
            "a1 69 dd 00 00 00 02 ff c4 01 07",              // array32 record: negfixint -1, bin8 [7]
        ],
    );
    (value, bytes)
}

#[test]
fn maps_and_records_stored_as_maps() {
    let (value, bytes) = maps_typical();
    roundtrip(&value, &bytes.bytes());
    let value = Maps {
        r_map32: Tagged {
            v: -0.5,
            w: String::new(),
        },
        ..value
    };
    // float64 -0.5: sign 1, exponent 0x3fe, so bf e0 00...; "" is a0.
    let bytes = bytes.with_hex(
        6,
        "a1 67 df 00 00 00 02 a1 76 cb bf e0 00 00 00 00 00 00 a3 74 61 67 a0",
    );
    roundtrip(&value, &bytes.bytes());
}

#[test]
fn maps_at_each_wire_types_boundaries() {
    let (typical, base) = maps_typical();
    // fixmap: 0 and 15 pairs ("a": 0, "b": 1, ...), 0x80 + count.
    for n in [0u8, 1, 15] {
        let value = Maps {
            m_fix: (0..n)
                .map(|i| (char::from(b'a' + i).to_string(), i64::from(i)))
                .collect(),
            ..typical.clone()
        };
        let pairs: Vec<u8> = (0..n).flat_map(|i| [0xa1, b'a' + i, i]).collect();
        roundtrip(
            &value,
            &base.with(0, &cat(&[&hx("a1 61"), &[0x80 + n], &pairs])).bytes(),
        );
    }
    // map16: 0, 256 and 65535 pairs of uint32 keys (ce + 4 bytes) and "" (a0).
    for (n, header) in [(0u32, "de 00 00"), (256, "de 01 00"), (65535, "de ff ff")] {
        let value = Maps {
            m_16: (0..n).map(|i| (i, "")).collect(),
            ..typical.clone()
        };
        let pairs: Vec<u8> = (0..n)
            .flat_map(|i| cat(&[&[0xce], &i.to_be_bytes(), &[0xa0]]))
            .collect();
        roundtrip(
            &value,
            &base.with(1, &cat(&[&hx("a1 62"), &hx(header), &pairs])).bytes(),
        );
    }
    // map32: 0 and 65536 pairs of "" (a0) and false (c2), the count in 4 bytes.
    for (n, header) in [(0usize, "df 00 00 00 00"), (65536, "df 00 01 00 00")] {
        let value = Maps {
            m_32: vec![(String::new(), false); n],
            ..typical.clone()
        };
        let pairs: Vec<u8> = [0xa0, 0xc2].repeat(n);
        roundtrip(
            &value,
            &base.with(2, &cat(&[&hx("a1 63"), &hx(header), &pairs])).bytes(),
        );
    }
}

#[test]
fn maps_and_map_records_refuse_other_headers_and_keys() {
    let (_, base) = maps_typical();
    let e = |name: &'static &'static str| entry(name);
    let child = |name, inner| Path::entry(name).child(inner);
    let key = |expected: &'static str| DecodeErrorKind::Key {
        expected: expected.into(),
    };
    let range = DecodeErrorKind::OutOfRange {
        min: int(-128),
        max: int(127),
        found: int(200),
    };
    // (entry, replacement, offset within the entry, path, kind); an entry's value starts at 2,
    // after its key.
    #[rustfmt::skip]
    let cases: Vec<(usize, &str, usize, Path, DecodeErrorKind)> = vec![
        // Homogeneous maps: another header, key or value wire type, or count.
        (0, "a1 61 de 00 02 a1 6b 01 a1 6c ff", 2, e(&"m_fix"), marker("fixmap", 0x80, 0xde)),
        (0, "a1 61 92 a1 6b 01", 2, e(&"m_fix"), marker("fixmap", 0x80, 0x92)),
        (1, "a1 62 df 00 00 00 01 ce 00 01 00 00 a2 68 69", 2, e(&"m_16"), marker("map16", 0xde, 0xdf)),
        (1, "a1 62 de 00 01 cf 00 00 00 00 00 01 00 00 a2 68 69", 5, Path::element(&"m_16", 0), marker("uint32", 0xce, 0xcf)),
        (1, "a1 62 de 00 01 ce 00 01 00 00 d9 02 68 69", 10, Path::element(&"m_16", 0), marker("fixstr", 0xa0, 0xd9)),
        (2, "a1 63 de 00 01 a0 c3", 2, e(&"m_32"), marker("map32", 0xdf, 0xde)),
        (3, "a1 64 81 00 c0", 2, e(&"m_cnt"), count("", 2, 1)),
        (3, "a1 64 83 00 c0 01 c0 02 c0", 2, e(&"m_cnt"), count("", 2, 3)),
        // A canonical key the field type (i8) cannot hold.
        (3, "a1 64 82 cc c8 c0 00 c0", 3, Path::element(&"m_cnt", 0), range),
        // Records: another header, another number of entries, another key.
        (4, "a1 65 83 a1 78 0a a1 79 e0 a1 7a 00", 2, e(&"r_fixmap"), marker("fixmap", 0x82, 0x83)),
        (4, "a1 65 82 a1 7a 0a a1 79 e0", 3, child(&"r_fixmap", &"x"), key("x")),
        (4, "a1 65 82 d9 01 78 0a a1 79 e0", 3, child(&"r_fixmap", &"x"), not_smallest(Wire::FixStr, Wire::Str8)),
        (4, "a1 65 82 a1 78 0a a1 79 d0 e0", 8, child(&"r_fixmap", &"y"), not_smallest(Wire::NegFixInt, Wire::Int8)),
        (5, "a1 66 de 00 03 a4 6e 61 6d 65 a3 61 62 63 a2 6f 6e c3", 2, e(&"r_map16"), entries(2, 3)),
        (5, "a1 66 82 a4 6e 61 6d 65 a3 61 62 63 a2 6f 6e c3", 2, e(&"r_map16"), marker("map16", 0xde, 0x82)),
        (6, "a1 67 df 00 00 00 03 a1 76 cb 40 09 21 fb 54 44 2d 18 a3 74 61 67 a2 6f 6b", 2, e(&"r_map32"), entries(2, 3)),
        (6, "a1 67 df 00 00 00 01 a1 76 cb 40 09 21 fb 54 44 2d 18", 2, e(&"r_map32"), entries(2, 1)),
        (6, "a1 67 df 00 00 00 02 a1 76 cb 40 09 21 fb 54 44 2d 18 a1 77 a2 6f 6b", 18, child(&"r_map32", &"w"), key("tag")),
        (7, "a1 68 dc 00 01 d0 fb", 2, e(&"r_arr16"), entries(2, 1)),
        (8, "a1 69 dc 00 02 ff c4 01 07", 2, e(&"r_arr32"), marker("array32", 0xdd, 0xdc)),
        (8, "a1 69 dd 00 00 00 02 ff c5 00 01 07", 8, child(&"r_arr32", &"b"), marker("bin8", 0xc4, 0xc5)),
        // The record's own keys: another letter, or the right one in a longer str.
        (0, "a1 7a 82 a1 6b 01 a1 6c ff", 0, e(&"m_fix"), key("a")),
        (2, "d9 01 63 df 00 00 00 01 a0 c3", 0, e(&"m_32"), not_smallest(Wire::FixStr, Wire::Str8)),
    ];
    for (slot, replacement, within, path, kind) in cases {
        let bad = base.with_hex(slot, replacement);
        decode_err::<Maps>(&bad.bytes(), bad.at(slot) + within, path, kind);
    }
    // The top-level map16 header.
    let mut bad = base.clone();
    bad.header = hx("de 00 08");
    decode_err::<Maps>(&bad.bytes(), 0, Path::CONTAINER, entries(9, 8));
    bad.header = hx("89");
    decode_err::<Maps>(&bad.bytes(), 0, Path::CONTAINER, marker("map16", 0xde, 0x89));
}

#[test]
fn maps_too_long_for_their_wire_type_are_not_encoded() {
    let (value, _) = maps_typical();
    encode_err(
        &Maps {
            m_fix: vec![(String::new(), 0); 16],
            ..value.clone()
        },
        entry(&"m_fix"),
        length("fixmap", 0, 15, 16),
    );
    encode_err(
        &Maps {
            m_16: vec![(0, ""); 65536],
            ..value.clone()
        },
        entry(&"m_16"),
        length("map16", 0, 65535, 65536),
    );
    encode_err(
        &Maps {
            m_16: vec![(0, "a string of 32 bytes, past fixstr")],
            ..value.clone()
        },
        Path::element(&"m_16", 0),
        length("fixstr", 0, 31, 33),
    );
}

// =================================================================================== exts

#[metalayer(schema_path = "tests/schemas/wire_exts_v0.toml")]
#[derive(Debug, Clone, PartialEq)]
struct Exts<'a> {
    c1: [u8; 1],
    c2: [u8; 2],
    c4: [u8; 4],
    c8: Vec<u8>,
    c16: [u8; 16],
    c_e8: Vec<u8>,
    c_e16: Box<[u8]>,
    c_e32: &'a [u8],
    f1: Ext<[u8; 1]>,
    f2: Ext<Vec<u8>>,
    f4: Ext<[u8; 4]>,
    f8: Ext<Vec<u8>>,
    f16: Ext<&'a [u8]>,
    f_e8: Ext<Vec<u8>>,
    f_e16: Ext<Vec<u8>>,
    f_e32: Ext<&'a [u8]>,
}

fn exts_typical() -> (Exts<'static>, Segments) {
    const SIXTEEN: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
    let value = Exts {
        c1: [0xaa],
        c2: [1, 2],
        c4: [1, 2, 3, 4],
        c8: (1..=8).collect(),
        c16: SIXTEEN,
        c_e8: b"abc".to_vec(),
        c_e16: Box::new([0xff]),
        c_e32: &[],
        f1: Ext { ty: 42, data: [0] },
        f2: Ext {
            ty: -2,
            data: vec![1, 2],
        },
        f4: Ext {
            ty: 0,
            data: [0xde, 0xad, 0xbe, 0xef],
        },
        f8: Ext {
            ty: 127,
            data: vec![0; 8],
        },
        f16: Ext {
            ty: -128,
            data: &SIXTEEN,
        },
        f_e8: Ext { ty: 43, data: vec![] },
        f_e16: Ext {
            ty: 44,
            data: vec![1, 2],
        },
        f_e32: Ext { ty: -42, data: b"abc" },
    };
    // Each entry is its one-letter key (a1 61 = "a" ... a1 70 = "p"), then the ext: a fixext is
    // its marker, the type byte (signed: -1 = ff, -128 = 80) and the data; an ext8/16/32 is its
    // marker, the data length in 1, 2 or 4 bytes, the type byte and the data.
    #[rustfmt::skip]
    let bytes = Segments::new(
        "df 00 00 00 10",                                 // map32 record of 16 entries
        &[
            "a1 61 d4 01 aa",                             // c1: fixext1, type 1 (the schema's)
            "a1 62 d5 02 01 02",                          // c2: fixext2, type 2
            "a1 63 d6 ff 01 02 03 04",                    // c4: fixext4, type -1
            "a1 64 d7 7f 01 02 03 04 05 06 07 08",        // c8: fixext8, type 127
            "a1 65 d8 80 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f", // c16: fixext16, type -128
            "a1 66 c7 03 05 61 62 63",                    // c_e8: ext8, 3 bytes, type 5
            "a1 67 c8 00 01 06 ff",                       // c_e16: ext16, 1 byte, type 6
            "a1 68 c9 00 00 00 00 07",                    // c_e32: ext32, 0 bytes, type 7
            "a1 69 d4 2a 00",                             // f1: fixext1, type 42
            "a1 6a d5 fe 01 02",                          // f2: fixext2, type -2
            "a1 6b d6 00 de ad be ef",                    // f4: fixext4, type 0
            "a1 6c d7 7f 00 00 00 00 00 00 00 00",        // f8: fixext8, type 127
            "a1 6d d8 80 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f", // f16: fixext16, type -128
            "a1 6e c7 00 2b",                             // f_e8: ext8, 0 bytes, type 43
            "a1 6f c8 00 02 2c 01 02",                    // f_e16: ext16, 2 bytes, type 44
            "a1 70 c9 00 00 00 03 d6 61 62 63",           // f_e32: ext32, 3 bytes, type -42 = 0xd6
        ],
    );
    (value, bytes)
}

#[test]
fn exts_of_every_fixed_wire_type_with_constant_and_field_types() {
    let (value, bytes) = exts_typical();
    roundtrip(&value, &bytes.bytes());
}

#[test]
fn ext_lengths_at_each_wire_types_boundaries() {
    let (typical, base) = exts_typical();
    // (entry, length, key and header): ext8/16/32 with the schema's type (5, 6, 7) and with
    // the field's (type 9).
    #[rustfmt::skip]
    let cases: &[(usize, usize, &str)] = &[
        (5, 0, "a1 66 c7 00 05"), (5, 1, "a1 66 c7 01 05"), (5, 255, "a1 66 c7 ff 05"),
        (6, 0, "a1 67 c8 00 00 06"), (6, 256, "a1 67 c8 01 00 06"), (6, 65535, "a1 67 c8 ff ff 06"),
        (7, 65535, "a1 68 c9 00 00 ff ff 07"), (7, 65536, "a1 68 c9 00 01 00 00 07"),
        (13, 255, "a1 6e c7 ff 09"),
        (14, 0, "a1 6f c8 00 00 09"), (14, 65535, "a1 6f c8 ff ff 09"),
        (15, 0, "a1 70 c9 00 00 00 00 09"), (15, 65536, "a1 70 c9 00 01 00 00 09"),
    ];
    for &(slot, len, header) in cases {
        let data = counting(len);
        let mut value = typical.clone();
        match slot {
            5 => value.c_e8 = data.clone(),
            6 => value.c_e16 = data.clone().into(),
            7 => value.c_e32 = &data,
            13 => {
                value.f_e8 = Ext {
                    ty: 9,
                    data: data.clone(),
                }
            }
            14 => {
                value.f_e16 = Ext {
                    ty: 9,
                    data: data.clone(),
                }
            }
            _ => value.f_e32 = Ext { ty: 9, data: &data },
        }
        roundtrip(&value, &base.with(slot, &cat(&[&hx(header), &data])).bytes());
    }
}

#[test]
fn exts_refuse_another_marker_or_type() {
    let (_, base) = exts_typical();
    let e = |name: &'static &'static str| entry(name);
    let ext_type = |expected, found| DecodeErrorKind::ExtType { expected, found };
    // (entry, replacement, path, kind): the error is at the ext's marker, after the key.
    #[rustfmt::skip]
    let cases: Vec<(usize, &str, Path, DecodeErrorKind)> = vec![
        (0, "a1 61 d4 02 aa", e(&"c1"), ext_type(1, 2)),
        (2, "a1 63 d6 fe 01 02 03 04", e(&"c4"), ext_type(-1, -2)),
        (2, "a1 63 d6 01 01 02 03 04", e(&"c4"), ext_type(-1, 1)),
        (4, "a1 65 d8 7f 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f", e(&"c16"), ext_type(-128, 127)),
        (5, "a1 66 c7 03 06 61 62 63", e(&"c_e8"), ext_type(5, 6)),
        (7, "a1 68 c9 00 00 00 00 87", e(&"c_e32"), ext_type(7, -121)),
        (0, "a1 61 d5 01 aa bb", e(&"c1"), marker("fixext1", 0xd4, 0xd5)),
        (2, "a1 63 d5 ff 01 02", e(&"c4"), marker("fixext4", 0xd6, 0xd5)),
        (2, "a1 63 c7 04 ff 01 02 03 04", e(&"c4"), marker("fixext4", 0xd6, 0xc7)),
        (5, "a1 66 c8 00 03 05 61 62 63", e(&"c_e8"), marker("ext8", 0xc7, 0xc8)),
        (7, "a1 68 c8 00 00 07", e(&"c_e32"), marker("ext32", 0xc9, 0xc8)),
        (8, "a1 69 d5 2a 00 00", e(&"f1"), marker("fixext1", 0xd4, 0xd5)),
        (12, "a1 6d c7 10 80 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f", e(&"f16"), marker("fixext16", 0xd8, 0xc7)),
        (13, "a1 6e d4 2b 00", e(&"f_e8"), marker("ext8", 0xc7, 0xd4)),
        (14, "a1 6f c9 00 00 00 02 2c 01 02", e(&"f_e16"), marker("ext16", 0xc8, 0xc9)),
        (15, "a1 70 c4 03 61 62 63", e(&"f_e32"), marker("ext32", 0xc9, 0xc4)),
    ];
    for (slot, replacement, path, kind) in cases {
        let bad = base.with_hex(slot, replacement);
        decode_err::<Exts>(&bad.bytes(), bad.at(slot) + 2, path, kind);
    }
}

#[test]
fn exts_of_another_length_are_not_encoded() {
    let (value, _) = exts_typical();
    encode_err(
        &Exts {
            c8: vec![0; 7],
            ..value.clone()
        },
        entry(&"c8"),
        length("fixext8", 8, 8, 7),
    );
    encode_err(
        &Exts {
            c8: vec![0; 9],
            ..value.clone()
        },
        entry(&"c8"),
        length("fixext8", 8, 8, 9),
    );
    encode_err(
        &Exts {
            f2: Ext {
                ty: 1,
                data: vec![0; 3],
            },
            ..value.clone()
        },
        entry(&"f2"),
        length("fixext2", 2, 2, 3),
    );
    encode_err(
        &Exts {
            f8: Ext { ty: 1, data: vec![] },
            ..value.clone()
        },
        entry(&"f8"),
        length("fixext8", 8, 8, 0),
    );
    encode_err(
        &Exts {
            c_e8: vec![0; 256],
            ..value.clone()
        },
        entry(&"c_e8"),
        length("ext8", 0, 255, 256),
    );
    encode_err(
        &Exts {
            f_e16: Ext {
                ty: 1,
                data: vec![0; 65536],
            },
            ..value.clone()
        },
        entry(&"f_e16"),
        length("ext16", 0, 65535, 65536),
    );
}

// ============================================================================== constants

#[metalayer(schema_path = "tests/schemas/wire_consts_v0.toml")]
#[derive(Debug, Clone, PartialEq)]
struct Consts {
    tail: u8,
}

/// Every constant of `wire_consts`, in entry order, with its encoding.
#[rustfmt::skip]
const CONSTS: [(&&str, &str); 29] = [
    (&"k_nil", "c0"),                           // nil
    (&"k_true", "c3"),                          // true
    (&"k_false", "c2"),                         // false
    (&"k_fixint", "07"),                        // positive fixint 7
    (&"k_negfixint", "f9"),                     // negative fixint -7 = 0x100 - 7
    (&"k_uint8", "cc c8"),                      // uint8 200
    (&"k_uint16", "cd be ef"),                  // uint16 0xbeef
    (&"k_uint32", "ce de ad be ef"),            // uint32 0xdeadbeef
    (&"k_uint64", "cf 7f ff ff ff ff ff ff ff"),// uint64 2^63-1, TOML's largest integer
    (&"k_int8", "d0 9c"),                       // int8 -100 = 0x100 - 100
    (&"k_int16", "d1 fc 18"),                   // int16 -1000 = 0x10000 - 1000
    (&"k_int32", "d2 ff fe 79 60"),             // int32 -100000 = 2^32 - 100000
    (&"k_int64", "d3 80 00 00 00 00 00 00 00"), // int64 -2^63
    (&"k_int", "cd 01 2c"),                     // canonical int 300: uint16
    (&"k_int_neg", "d0 df"),                    // canonical int -33: int8
    (&"k_float32", "ca 3f c0 00 00"),           // float32 1.5: sign 0, exponent 127, mantissa .1
    (&"k_float64", "cb ff f0 00 00 00 00 00 00"), // float64 -inf
    (&"k_nan", "cb 7f f8 00 00 00 00 00 00"),   // float64 nan: the quiet NaN, as python writes it
    (&"k_negzero", "ca 80 00 00 00"),           // float32 -0.0: only the sign bit
    (&"k_fixstr", "a8 62 32 66 72 61 6d 65 00"),// fixstr "b2frame\0": 0xa0 + 8, the NUL included
    (&"k_str8", "d9 02 c3 a9"),                 // str8 "é"
    (&"k_str16", "da 00 00"),                   // str16 ""
    (&"k_str32", "db 00 00 00 04 62 32 6e 64"), // str32 "b2nd"
    (&"k_str", "a1 78"),                        // canonical str "x": fixstr
    (&"k_bin8", "c4 02 de ad"),                 // bin8 de ad
    (&"k_bin16", "c5 00 00"),                   // bin16 of nothing
    (&"k_bin32", "c6 00 00 00 01 00"),          // bin32 of one zero byte
    (&"k_bin", "c4 03 01 02 03"),               // canonical bin: bin8
    (&"tail", "05"),                            // the one field, a fixint
];

fn consts_bytes() -> Segments {
    // array16 record of 29 = 0x1d entries.
    Segments::new("dc 00 1d", &CONSTS.map(|c| c.1))
}

#[test]
fn constants_of_every_scalar_wire_type() {
    roundtrip(&Consts { tail: 5 }, &consts_bytes().bytes());
    assert_eq!(consts_bytes().bytes().len(), 3 + 122);
}

#[test]
fn constants_that_differ_are_refused() {
    let base = consts_bytes();
    let slot = |name: &str| CONSTS.iter().position(|c| *c.0 == name).unwrap();
    let constant = |expected: i128, found: i128| DecodeErrorKind::Constant {
        expected: int(expected),
        found: int(found),
    };
    let bytes_of = |expected: &'static [u8]| DecodeErrorKind::ConstantBytes {
        expected: expected.into(),
    };
    // (entry, replacement, kind); the error is at the entry's first byte.
    #[rustfmt::skip]
    let cases: Vec<(&'static &'static str, &str, DecodeErrorKind)> = vec![
        (&"k_nil", "c2", DecodeErrorKind::Marker { wire: "nil", expected: 0xc0, found: 0xc2 }),
        (&"k_true", "c2", constant(1, 0)),
        (&"k_false", "c3", constant(0, 1)),
        (&"k_fixint", "08", constant(7, 8)),
        (&"k_fixint", "f9", DecodeErrorKind::NotFixint { found: 0xf9 }),
        (&"k_negfixint", "fa", constant(-7, -6)),
        (&"k_uint8", "cc c9", constant(200, 201)),
        (&"k_uint8", "d0 c8", DecodeErrorKind::Marker { wire: "uint8", expected: 0xcc, found: 0xd0 }),
        (&"k_uint16", "cd be ee", constant(0xbeef, 0xbeee)),
        (&"k_uint32", "ce de ad be ee", constant(0xdead_beef, 0xdead_beee)),
        (&"k_uint64", "cf 7f ff ff ff ff ff ff fe", constant(i64::MAX.into(), (i64::MAX - 1).into())),
        (&"k_int8", "d0 9d", constant(-100, -99)),
        (&"k_int16", "d1 fc 19", constant(-1000, -999)),
        (&"k_int32", "d2 ff fe 79 61", constant(-100_000, -99_999)),
        (&"k_int64", "d3 80 00 00 00 00 00 00 01", constant(i64::MIN.into(), (i64::MIN + 1).into())),
        (&"k_int64", "cf 80 00 00 00 00 00 00 00", DecodeErrorKind::Marker { wire: "int64", expected: 0xd3, found: 0xcf }),
        (&"k_int", "cd 01 2d", constant(300, 301)),
        (&"k_int", "ce 00 00 01 2c", DecodeErrorKind::NotSmallest { expected: Wire::UInt16, found: Wire::UInt32 }),
        (&"k_int_neg", "d1 ff df", DecodeErrorKind::NotSmallest { expected: Wire::Int8, found: Wire::Int16 }),
        (&"k_float32", "ca 3f c0 00 01", bytes_of(&[0x3f, 0xc0, 0x00, 0x00])),
        (&"k_float32", "cb 3f f8 00 00 00 00 00 00", DecodeErrorKind::Marker { wire: "float32", expected: 0xca, found: 0xcb }),
        (&"k_float64", "cb 7f f0 00 00 00 00 00 00", bytes_of(&[0xff, 0xf0, 0, 0, 0, 0, 0, 0])),
        (&"k_nan", "cb 7f f8 00 00 00 00 00 01", bytes_of(&[0x7f, 0xf8, 0, 0, 0, 0, 0, 0])),
        (&"k_nan", "cb ff f8 00 00 00 00 00 00", bytes_of(&[0x7f, 0xf8, 0, 0, 0, 0, 0, 0])),
        (&"k_negzero", "ca 00 00 00 00", bytes_of(&[0x80, 0, 0, 0])),
        (&"k_fixstr", "a7 62 32 66 72 61 6d 65", bytes_of(b"b2frame\0")),
        (&"k_fixstr", "a8 62 32 66 72 61 6d 65 01", bytes_of(b"b2frame\0")),
        (&"k_fixstr", "d9 08 62 32 66 72 61 6d 65 00", DecodeErrorKind::Marker { wire: "fixstr", expected: 0xa0, found: 0xd9 }),
        (&"k_str8", "d9 02 c3 a8", bytes_of("é".as_bytes())),
        (&"k_str16", "da 00 01 20", bytes_of(b"")),
        (&"k_str32", "db 00 00 00 04 62 32 6e 65", bytes_of(b"b2nd")),
        (&"k_str", "a1 79", bytes_of(b"x")),
        (&"k_str", "d9 01 78", DecodeErrorKind::NotSmallest { expected: Wire::FixStr, found: Wire::Str8 }),
        (&"k_bin8", "c4 02 de ae", bytes_of(&[0xde, 0xad])),
        (&"k_bin16", "c5 00 01 00", bytes_of(&[])),
        (&"k_bin32", "c6 00 00 00 00", bytes_of(&[0])),
        (&"k_bin", "c4 02 01 02", bytes_of(&[1, 2, 3])),
        (&"k_bin", "c5 00 03 01 02 03", DecodeErrorKind::NotSmallest { expected: Wire::Bin8, found: Wire::Bin16 }),
    ];
    for (name, replacement, kind) in cases {
        let i = slot(name);
        let bad = base.with_hex(i, replacement);
        decode_err::<Consts>(&bad.bytes(), bad.at(i), entry(name), kind);
    }
    let bad = base.with_hex(slot("k_fixstr"), "a8 62 32 66 72 61 6d 65 01");
    assert_eq!(
        Consts::decode(&bad.bytes()).unwrap_err().to_string(),
        "wire_consts_v0: at byte 0x4f in k_fixstr: expected constant \"b2frame\\0\", found another value"
    );
}

// ====================================================================== canonical families

/// An integer type covering the canonical range, -2^63..=2^64-1, which no Rust integer type
/// does: a field type of the user's own.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Wide(i128);

impl IntValue for Wide {
    const MIN: i128 = i64::MIN as i128;
    const MAX: i128 = u64::MAX as i128;
    fn to_i128(self) -> i128 {
        self.0
    }
    fn from_i128(v: i128) -> Self {
        Wide(v)
    }
}

/// Strict: only the smallest encoding of each value is read.
#[metalayer(schema_path = "tests/schemas/wire_canonical_v0.toml")]
#[derive(Debug, Clone, PartialEq)]
struct Canonical {
    int: Wide,
    str: String,
    bin: Vec<u8>,
    arr: Vec<()>,
    map: Vec<(u32, ())>,
    ext: Ext<Vec<u8>>,
}

/// Lenient: any encoding of the family is read; the smallest is written.
#[metalayer(schema_path = "tests/schemas/wire_canonical_lenient_v0.toml")]
#[derive(Debug, Clone, PartialEq)]
struct CanonicalLenient {
    int: Wide,
    str: String,
    bin: Vec<u8>,
    arr: Vec<()>,
    map: Vec<(u32, ())>,
    ext: Ext<Vec<u8>>,
}

impl From<&Canonical> for CanonicalLenient {
    fn from(c: &Canonical) -> Self {
        let c = c.clone();
        CanonicalLenient {
            int: c.int,
            str: c.str,
            bin: c.bin,
            arr: c.arr,
            map: c.map,
            ext: c.ext,
        }
    }
}

const CANONICAL_NAMES: [&&str; 6] = [&"int", &"str", &"bin", &"arr", &"map", &"ext"];

/// Every entry at a small value, and its smallest encoding.
fn canonical_base() -> (Canonical, Segments) {
    let value = Canonical {
        int: Wide(0),
        str: String::new(),
        bin: vec![],
        arr: vec![],
        map: vec![],
        ext: Ext { ty: 42, data: vec![] },
    };
    #[rustfmt::skip]
    let bytes = Segments::new(
        "96",                                   // array record of 6 entries: the fixarray 0x96
        &[
            "00",                               // int 0: fixint
            "a0",                               // str "": fixstr of 0
            "c4 00",                            // bin of 0 bytes: bin8 (bin has no fix form)
            "90",                               // array of 0: fixarray
            "80",                               // map of 0: fixmap
            "c7 00 2a",                         // ext of 0 bytes, type 42: ext8 (no fixext0)
        ],
    );
    (value, bytes)
}

/// One value in entry `slot`: it encodes to `smallest` in both schemas and decodes from it.
/// Each of `others`, the same value in a larger wire type of its family, is refused by the
/// strict schema (at the entry's offset, naming the smallest wire type and the one found) and
/// read by the lenient one, which writes the smallest again.
#[track_caller]
fn check_canonical(slot: usize, value: &Canonical, smallest: (Wire, &[u8]), others: &[(Wire, Vec<u8>)]) {
    let (_, base) = canonical_base();
    let expected = base.with(slot, smallest.1).bytes();
    roundtrip(value, &expected);
    let lenient = CanonicalLenient::from(value);
    roundtrip(&lenient, &expected);
    for (wire, other) in others {
        assert_ne!(*wire, smallest.0);
        let input = base.with(slot, other).bytes();
        decode_err::<Canonical>(
            &input,
            base.at(slot),
            entry(CANONICAL_NAMES[slot]),
            not_smallest(smallest.0, *wire),
        );
        let read = CanonicalLenient::decode(&input).unwrap_or_else(|e| panic!("lenient {wire:?}: {e}"));
        assert!(read == lenient, "lenient {wire:?}: decoded another value");
        same_bytes(
            &read.encode().unwrap(),
            &expected,
            &format!("lenient {wire:?} re-encoded"),
        );
    }
}

/// Every encoding of the integer `v`, from the specification's table: a positive fixint
/// (0..=127) or negative fixint (-32..=-1) is the byte itself; otherwise the marker and `v` in
/// the wire type's width, big-endian (two's complement for int8..int64).
fn int_forms(v: i128) -> Vec<(Wire, Vec<u8>)> {
    let mut out = Vec::new();
    if (0..=127).contains(&v) {
        out.push((Wire::PosFixInt, vec![v as u8]));
    }
    if (-32..=-1).contains(&v) {
        out.push((Wire::NegFixInt, vec![v as u8]));
    }
    #[rustfmt::skip]
    let fixed = [
        (Wire::UInt8, 0xcc, 1, false), (Wire::UInt16, 0xcd, 2, false),
        (Wire::UInt32, 0xce, 4, false), (Wire::UInt64, 0xcf, 8, false),
        (Wire::Int8, 0xd0, 1, true), (Wire::Int16, 0xd1, 2, true),
        (Wire::Int32, 0xd2, 4, true), (Wire::Int64, 0xd3, 8, true),
    ];
    for (wire, marker, width, signed) in fixed {
        let bits = 8 * width;
        let (lo, hi) = match signed {
            true => (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1),
            false => (0, (1i128 << bits) - 1),
        };
        if (lo..=hi).contains(&v) {
            out.push((wire, cat(&[&[marker], &v.to_be_bytes()[16 - width as usize..]])));
        }
    }
    out
}

/// The smallest encoding of `v` by msgpack's rule: fixints, then uint8..64 for positive values
/// and int8..64 for negative ones (the keys of the fixture's maps).
fn smallest_int(v: i128) -> Vec<u8> {
    let forms = int_forms(v);
    let preferred = [
        Wire::PosFixInt,
        Wire::NegFixInt,
        Wire::UInt8,
        Wire::UInt16,
        Wire::UInt32,
        Wire::UInt64,
        Wire::Int8,
        Wire::Int16,
        Wire::Int32,
        Wire::Int64,
    ];
    let wire = preferred.into_iter().find(|w| forms.iter().any(|f| f.0 == *w)).unwrap();
    forms.into_iter().find(|f| f.0 == wire).unwrap().1
}

/// Every header of `family` that states the length or count `n`, from the specification: a
/// fix form holds it in its marker (0xa0 / 0x90 / 0x80 + n), the others after their marker in
/// 1, 2 or 4 bytes.
fn len_forms(family: Family, n: usize) -> Vec<(Wire, Vec<u8>)> {
    /// A wire type, its marker, and the most a fix form's marker holds or the width of the
    /// length that follows the marker.
    type Header = (Wire, u8, usize);
    #[rustfmt::skip]
    let (fix, wide): (Option<Header>, &[Header]) = match family {
        Family::Str => (Some((Wire::FixStr, 0xa0, 31)), &[(Wire::Str8, 0xd9, 1), (Wire::Str16, 0xda, 2), (Wire::Str32, 0xdb, 4)]),
        Family::Bin => (None, &[(Wire::Bin8, 0xc4, 1), (Wire::Bin16, 0xc5, 2), (Wire::Bin32, 0xc6, 4)]),
        Family::Array => (Some((Wire::FixArray, 0x90, 15)), &[(Wire::Array16, 0xdc, 2), (Wire::Array32, 0xdd, 4)]),
        Family::Map => (Some((Wire::FixMap, 0x80, 15)), &[(Wire::Map16, 0xde, 2), (Wire::Map32, 0xdf, 4)]),
        _ => unreachable!(),
    };
    let mut out = Vec::new();
    if let Some((wire, marker, max)) = fix
        && n <= max
    {
        out.push((wire, vec![marker + n as u8]));
    }
    for &(wire, marker, width) in wide {
        if (n as u64) < (1u64 << (8 * width)) {
            out.push((wire, cat(&[&[marker], &(n as u64).to_be_bytes()[8 - width..]])));
        }
    }
    out
}

/// Every encoding of an ext of type `ty` with `n` bytes of data, up to the type byte: fixext1..16
/// (d4..d8, then the type) for exactly 1, 2, 4, 8, 16 bytes; ext8/16/32 (c7..c9, the length in
/// 1, 2 or 4 bytes, then the type) for any length they state.
fn ext_forms(ty: i8, n: usize) -> Vec<(Wire, Vec<u8>)> {
    let mut out = Vec::new();
    #[rustfmt::skip]
    let fixext = [(Wire::FixExt1, 0xd4, 1), (Wire::FixExt2, 0xd5, 2), (Wire::FixExt4, 0xd6, 4), (Wire::FixExt8, 0xd7, 8), (Wire::FixExt16, 0xd8, 16)];
    for (wire, marker, len) in fixext {
        if n == len {
            out.push((wire, vec![marker, ty as u8]));
        }
    }
    for (wire, marker, width) in [(Wire::Ext8, 0xc7, 1), (Wire::Ext16, 0xc8, 2), (Wire::Ext32, 0xc9, 4)] {
        if (n as u64) < (1u64 << (8 * width)) {
            out.push((
                wire,
                cat(&[&[marker], &(n as u64).to_be_bytes()[8 - width..], &[ty as u8]]),
            ));
        }
    }
    out
}

/// Splits the forms of a value into python's (which must be among them, with the fixture's
/// wire type) and the others, each followed by `content`.
fn split_forms(forms: Vec<(Wire, Vec<u8>)>, v: &serde_json::Value, content: &[u8]) -> (Wire, Vec<(Wire, Vec<u8>)>) {
    let smallest = wire_named(v["wire"].as_str().unwrap());
    let header = hx(v["header_hex"].as_str().unwrap());
    let ours = forms
        .iter()
        .find(|f| f.0 == smallest)
        .unwrap_or_else(|| panic!("no {smallest:?} form: {v}"));
    assert_eq!(ours.1, header, "the specification's {smallest:?} header for {v}");
    let others = forms
        .into_iter()
        .filter(|f| f.0 != smallest)
        .map(|(w, h)| (w, cat(&[&h, content])))
        .collect();
    (smallest, others)
}

fn json_int(v: &serde_json::Value) -> i128 {
    v.as_i64()
        .map(i128::from)
        .or(v.as_u64().map(i128::from))
        .unwrap_or_else(|| panic!("not an integer: {v}"))
}

#[test]
fn canonical_integers_at_every_boundary() {
    let ints = canonical()["ints"].as_array().unwrap();
    assert_eq!(ints.len(), 23);
    let (base, _) = canonical_base();
    let mut refused = 0;
    for v in ints {
        let n = json_int(&v["value"]);
        let bytes = vector_bytes(v, &[]);
        let (smallest, others) = split_forms(int_forms(n), v, &[]);
        refused += others.len();
        let value = Canonical {
            int: Wide(n),
            ..base.clone()
        };
        check_canonical(0, &value, (smallest, &bytes), &others);
    }
    // The 23 values have 72 encodings besides their smallest (0 has 8, every fixed-width
    // type; 2^64-1 has none), each refused by the strict schema and read by the lenient one.
    assert_eq!(refused, 72);
}

#[test]
fn canonical_strings_at_every_boundary() {
    let strs = canonical()["strs"].as_array().unwrap();
    assert_eq!(strs.len(), 9);
    let (base, _) = canonical_base();
    for v in strs {
        let len = v["len"].as_u64().unwrap() as usize;
        let unit = v["content"].as_str().unwrap();
        let text = unit.repeat(len / unit.len());
        let bytes = vector_bytes(v, text.as_bytes());
        let (smallest, others) = split_forms(len_forms(Family::Str, len), v, text.as_bytes());
        let value = Canonical {
            str: text,
            ..base.clone()
        };
        check_canonical(1, &value, (smallest, &bytes), &others);
    }
}

#[test]
fn canonical_byte_strings_at_every_boundary() {
    let bins = canonical()["bins"].as_array().unwrap();
    assert_eq!(bins.len(), 8);
    let (base, _) = canonical_base();
    for v in bins {
        let data = counting(v["len"].as_u64().unwrap() as usize);
        let bytes = vector_bytes(v, &data);
        let (smallest, others) = split_forms(len_forms(Family::Bin, data.len()), v, &data);
        let value = Canonical {
            bin: data,
            ..base.clone()
        };
        check_canonical(2, &value, (smallest, &bytes), &others);
    }
}

#[test]
fn canonical_arrays_at_every_boundary() {
    let arrays = canonical()["arrays"].as_array().unwrap();
    assert_eq!(arrays.len(), 6);
    let (base, _) = canonical_base();
    for v in arrays {
        let n = v["len"].as_u64().unwrap() as usize;
        // n nils, c0 each.
        let elements = vec![0xc0; n];
        let bytes = vector_bytes(v, &elements);
        let (smallest, others) = split_forms(len_forms(Family::Array, n), v, &elements);
        let value = Canonical {
            arr: vec![(); n],
            ..base.clone()
        };
        check_canonical(3, &value, (smallest, &bytes), &others);
    }
}

#[test]
fn canonical_maps_at_every_boundary() {
    let maps = canonical()["maps"].as_array().unwrap();
    assert_eq!(maps.len(), 6);
    let (base, _) = canonical_base();
    for v in maps {
        let n = v["len"].as_u64().unwrap() as u32;
        // The keys 0..n in their smallest encodings, each with the value nil.
        let pairs: Vec<u8> = (0..n).flat_map(|i| cat(&[&smallest_int(i.into()), &[0xc0]])).collect();
        let bytes = vector_bytes(v, &pairs);
        let (smallest, others) = split_forms(len_forms(Family::Map, n as usize), v, &pairs);
        let value = Canonical {
            map: (0..n).map(|i| (i, ())).collect(),
            ..base.clone()
        };
        check_canonical(4, &value, (smallest, &bytes), &others);
    }
}

#[test]
fn canonical_exts_at_every_boundary() {
    let exts = canonical()["exts"].as_array().unwrap();
    assert_eq!(exts.len(), 14);
    let (base, _) = canonical_base();
    for v in exts {
        let ty = i8::try_from(v["type"].as_i64().unwrap()).unwrap();
        let data = counting(v["len"].as_u64().unwrap() as usize);
        let bytes = vector_bytes(v, &data);
        let (smallest, others) = split_forms(ext_forms(ty, data.len()), v, &data);
        let value = Canonical {
            ext: Ext { ty, data },
            ..base.clone()
        };
        check_canonical(5, &value, (smallest, &bytes), &others);
    }
}

#[test]
fn non_smallest_forms_written_by_hand() {
    let (base, _) = canonical_base();
    let int = |v: i128| Canonical {
        int: Wide(v),
        ..base.clone()
    };
    let forms = |list: &[(Wire, &str)]| list.iter().map(|(w, h)| (*w, hx(h))).collect::<Vec<_>>();
    use Wire::*;
    // 3 is the fixint 03; the same value in every wider integer wire type.
    #[rustfmt::skip]
    check_canonical(0, &int(3), (PosFixInt, &hx("03")), &forms(&[
        (UInt8, "cc 03"), (UInt16, "cd 00 03"), (UInt32, "ce 00 00 00 03"), (UInt64, "cf 00 00 00 00 00 00 00 03"),
        (Int8, "d0 03"), (Int16, "d1 00 03"), (Int32, "d2 00 00 00 03"), (Int64, "d3 00 00 00 00 00 00 00 03"),
    ]));
    // -1 is the negative fixint ff; in int8..int64 it is all ones.
    #[rustfmt::skip]
    check_canonical(0, &int(-1), (NegFixInt, &hx("ff")), &forms(&[
        (Int8, "d0 ff"), (Int16, "d1 ff ff"), (Int32, "d2 ff ff ff ff"), (Int64, "d3 ff ff ff ff ff ff ff ff"),
    ]));
    // 200 needs a uint8; an int8 cannot hold it, an int16 can.
    check_canonical(
        0,
        &int(200),
        (UInt8, &hx("cc c8")),
        &forms(&[
            (UInt16, "cd 00 c8"),
            (Int16, "d1 00 c8"),
            (UInt64, "cf 00 00 00 00 00 00 00 c8"),
        ]),
    );
    // 2^63-1 fits int64 too, but a positive value's smallest form is unsigned.
    check_canonical(
        0,
        &int(i64::MAX.into()),
        (UInt64, &hx("cf 7f ff ff ff ff ff ff ff")),
        &forms(&[(Int64, "d3 7f ff ff ff ff ff ff ff")]),
    );
    // -33 is past the negative fixints: int8 df; int16 ff df.
    check_canonical(
        0,
        &int(-33),
        (Int8, &hx("d0 df")),
        &forms(&[(Int16, "d1 ff df"), (Int32, "d2 ff ff ff df")]),
    );
    // "abc": fixstr a3; str8 d9 03; str16 da 00 03; str32 db 00 00 00 03.
    let abc = Canonical {
        str: "abc".into(),
        ..base.clone()
    };
    #[rustfmt::skip]
    check_canonical(1, &abc, (FixStr, &hx("a3 61 62 63")), &forms(&[
        (Str8, "d9 03 61 62 63"), (Str16, "da 00 03 61 62 63"), (Str32, "db 00 00 00 03 61 62 63"),
    ]));
    let one = Canonical {
        bin: vec![1],
        ..base.clone()
    };
    check_canonical(
        2,
        &one,
        (Bin8, &hx("c4 01 01")),
        &forms(&[(Bin16, "c5 00 01 01"), (Bin32, "c6 00 00 00 01 01")]),
    );
    let two = Canonical {
        arr: vec![(), ()],
        ..base.clone()
    };
    check_canonical(
        3,
        &two,
        (FixArray, &hx("92 c0 c0")),
        &forms(&[(Array16, "dc 00 02 c0 c0"), (Array32, "dd 00 00 00 02 c0 c0")]),
    );
    let map = Canonical {
        map: vec![(1, ())],
        ..base.clone()
    };
    check_canonical(
        4,
        &map,
        (FixMap, &hx("81 01 c0")),
        &forms(&[(Map16, "de 00 01 01 c0"), (Map32, "df 00 00 00 01 01 c0")]),
    );
    let four = Canonical {
        ext: Ext {
            ty: 5,
            data: vec![1, 2, 3, 4],
        },
        ..base.clone()
    };
    #[rustfmt::skip]
    check_canonical(5, &four, (FixExt4, &hx("d6 05 01 02 03 04")), &forms(&[
        (Ext8, "c7 04 05 01 02 03 04"), (Ext16, "c8 00 04 05 01 02 03 04"), (Ext32, "c9 00 00 00 04 05 01 02 03 04"),
    ]));
    let negative = Canonical {
        ext: Ext { ty: -3, data: vec![] },
        ..base.clone()
    };
    check_canonical(
        5,
        &negative,
        (Ext8, &hx("c7 00 fd")),
        &forms(&[(Ext16, "c8 00 00 fd"), (Ext32, "c9 00 00 00 00 fd")]),
    );
}

#[test]
fn non_smallest_elements_keys_and_headers() {
    let (value, base) = canonical_base();
    let lenient = CanonicalLenient::from(&value);
    let expected = base.bytes();
    // The record's own header: 6 entries as array16 and array32 instead of the fixarray 96.
    for (found, header) in [(Wire::Array16, "dc 00 06"), (Wire::Array32, "dd 00 00 00 06")] {
        let mut input = base.clone();
        input.header = hx(header);
        decode_err::<Canonical>(
            &input.bytes(),
            0,
            Path::CONTAINER,
            DecodeErrorKind::NotSmallest {
                expected: Wire::FixArray,
                found,
            },
        );
        assert_eq!(CanonicalLenient::decode(&input.bytes()).unwrap(), lenient);
        same_bytes(&lenient.encode().unwrap(), &expected, header);
    }
    // A map's key 1 as uint8 (cc 01): refused where the key is, read by the lenient key type.
    let input = base.with_hex(4, "81 cc 01 c0");
    decode_err::<Canonical>(
        &input.bytes(),
        base.at(4) + 1,
        Path::element(&"map", 0),
        not_smallest(Wire::PosFixInt, Wire::UInt8),
    );
    let read = CanonicalLenient::decode(&input.bytes()).unwrap();
    assert_eq!(read.map, [(1, ())]);
    same_bytes(
        &read.encode().unwrap(),
        &base.with_hex(4, "81 01 c0").bytes(),
        "lenient key",
    );
    // Another family where a canonical value is stated.
    let input = base.with_hex(0, "a1 61");
    decode_err::<Canonical>(
        &input.bytes(),
        1,
        entry(&"int"),
        DecodeErrorKind::Family {
            expected: Family::Int,
            found: 0xa1,
        },
    );
    let input = base.with_hex(2, "a0");
    decode_err::<CanonicalLenient>(
        &input.bytes(),
        3,
        entry(&"bin"),
        DecodeErrorKind::Family {
            expected: Family::Bin,
            found: 0xa0,
        },
    );
}

#[test]
fn canonical_values_outside_msgpack_are_not_encoded() {
    let (value, _) = canonical_base();
    for found in [i128::from(u64::MAX) + 1, i128::from(i64::MIN) - 1] {
        encode_err(
            &Canonical {
                int: Wide(found),
                ..value.clone()
            },
            entry(&"int"),
            EncodeErrorKind::OutOfRange {
                min: int(i64::MIN.into()),
                max: int(u64::MAX.into()),
                found: int(found),
            },
        );
    }
}

// ======================================================================= record headers

#[test]
fn record_headers_of_every_container_wire_type() {
    let marker = |wire, expected, found| DecodeErrorKind::Marker { wire, expected, found };
    let entries = |n, found| DecodeErrorKind::Entries { min: n, max: n, found };
    // fixarray (wire_ints): the header is the one byte 0x90 + 10.
    let (_, ints) = ints_middle();
    for found in [0x9b, 0x99, 0xdc] {
        decode_err::<Ints>(
            &with_byte(&ints, 0, found),
            0,
            Path::CONTAINER,
            marker("fixarray", 0x9a, found),
        );
    }
    // array16 (wire_strs): dc, then the count in 2 bytes.
    let mut strs = strs_empty();
    strs.header = hx("dc 00 07");
    decode_err::<Strs>(&strs.bytes(), 0, Path::CONTAINER, entries(6, 7));
    strs.header = hx("96");
    decode_err::<Strs>(&strs.bytes(), 0, Path::CONTAINER, marker("array16", 0xdc, 0x96));
    // array32 (wire_bins): dd, then the count in 4 bytes.
    let mut bins = bins_empty();
    bins.header = hx("dd 00 00 00 02");
    decode_err::<Bins>(&bins.bytes(), 0, Path::CONTAINER, entries(3, 2));
    bins.header = hx("dc 00 03");
    decode_err::<Bins>(&bins.bytes(), 0, Path::CONTAINER, marker("array32", 0xdd, 0xdc));
    // array, canonical (wire_arrays): the smallest header for 12 entries, 0x9c.
    let (_, mut arrays) = arrays_typical();
    arrays.header = hx("9b");
    decode_err::<Arrays>(&arrays.bytes(), 0, Path::CONTAINER, entries(12, 11));
    arrays.header = hx("dc 00 0c");
    decode_err::<Arrays>(
        &arrays.bytes(),
        0,
        Path::CONTAINER,
        not_smallest(Wire::FixArray, Wire::Array16),
    );
    arrays.header = hx("8c");
    decode_err::<Arrays>(
        &arrays.bytes(),
        0,
        Path::CONTAINER,
        DecodeErrorKind::Family {
            expected: Family::Array,
            found: 0x8c,
        },
    );
    // map32 (wire_exts): df, then the count in 4 bytes.
    let (_, mut exts) = exts_typical();
    exts.header = hx("df 00 00 00 0f");
    decode_err::<Exts>(&exts.bytes(), 0, Path::CONTAINER, entries(16, 15));
    exts.header = hx("de 00 10");
    decode_err::<Exts>(&exts.bytes(), 0, Path::CONTAINER, marker("map32", 0xdf, 0xde));
    // A hostile count is an error about the count, not an allocation.
    exts.header = hx("df ff ff ff ff");
    decode_err::<Exts>(&exts.bytes(), 0, Path::CONTAINER, entries(16, 0xffff_ffff));
}

#[test]
fn more_elements_and_strings_refused_where_they_are() {
    // A fixed str8 element longer than its length prefix.
    let (value, base) = arrays_typical();
    encode_err(
        &Arrays {
            cnt_32: vec!["y".repeat(256)],
            ..value
        },
        Path::element(&"cnt_32", 0),
        length("str8", 0, 255, 256),
    );
    // A canonical str element that is not UTF-8: at the invalid byte.
    let bad = base.with_hex(3, "dc 00 02 a1 78 a1 ff");
    decode_err::<Arrays>(
        &bad.bytes(),
        bad.at(3) + 6,
        Path::element(&"by_16", 1),
        DecodeErrorKind::InvalidUtf8 { valid_up_to: 0 },
    );
    // A canonical str entry that is not UTF-8, strict and lenient alike.
    let (_, canonical) = canonical_base();
    let bad = canonical.with_hex(1, "a2 61 ff");
    let kind = DecodeErrorKind::InvalidUtf8 { valid_up_to: 1 };
    decode_err::<Canonical>(&bad.bytes(), 4, entry(&"str"), kind.clone());
    decode_err::<CanonicalLenient>(&bad.bytes(), 4, entry(&"str"), kind);
    // A map32 of 2^32-1 pairs in a few bytes: refused before anything is allocated.
    let (_, maps) = maps_typical();
    let bad = maps.with_hex(2, "a1 63 df ff ff ff ff a0 c3");
    let err = Maps::decode(&bad.bytes()).unwrap_err();
    assert_eq!((err.path(), err.offset()), (&entry(&"m_32"), bad.at(2) + 7), "{err}");
    assert!(matches!(err.kind(), DecodeErrorKind::Truncated { .. }), "{err}");
}
