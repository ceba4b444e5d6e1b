//! Named record types whose header is canonical (`wire = "map"`, `wire = "array"`) and whose
//! trailing entries are optional, bound to their own structs. Expected bytes are derived by hand
//! from the msgpack specification: a fixmap is `0x80 + n`, a fixarray `0x90 + n`, a fixstr
//! `0xa0 + len`, a positive fixint its value and a negative fixint `0xe0 + (v + 32)`.

use metalayer::prelude::*;

#[metalayer(schema_path = "tests/schemas/record_types_v0.toml", layout = "opt")]
#[derive(Debug, Clone, PartialEq)]
struct Opt {
    a: i64,
    b: Option<i64>,
    c: Option<String>,
}

#[metalayer(schema_path = "tests/schemas/record_types_v0.toml", layout = "pair")]
#[derive(Debug, Clone, PartialEq)]
struct Pair {
    x: i64,
    inner: Opt,
}

#[metalayer(schema_path = "tests/schemas/record_types_v0.toml")]
#[derive(Debug, Clone, PartialEq)]
struct Outer {
    inner: Opt,
    pair: Pair,
}

fn opt(a: i64, b: Option<i64>, c: Option<&str>) -> Opt {
    Opt {
        a,
        b,
        c: c.map(String::from),
    }
}

#[test]
fn optional_entries_of_a_record_type_set_its_header() {
    let cases: [(Outer, &[u8]); 3] = [
        (
            Outer {
                inner: opt(1, None, None),
                pair: Pair {
                    x: 2,
                    inner: opt(3, Some(-5), None),
                },
            },
            // 92; 81 "a" 1; 92 2 (82 "a" 3 "b" -5)
            &[
                0x92, 0x81, 0xa1, b'a', 0x01, 0x92, 0x02, 0x82, 0xa1, b'a', 0x03, 0xa1, b'b', 0xfb,
            ],
        ),
        (
            Outer {
                inner: opt(-1, Some(300), Some("hi")),
                pair: Pair {
                    x: 0,
                    inner: opt(0, None, None),
                },
            },
            // 92; 83 "a" -1 "b" (cd 01 2c) "c" "hi"; 92 0 (81 "a" 0)
            &[
                0x92, 0x83, 0xa1, b'a', 0xff, 0xa1, b'b', 0xcd, 0x01, 0x2c, 0xa1, b'c', 0xa2, b'h', b'i', 0x92, 0x00,
                0x81, 0xa1, b'a', 0x00,
            ],
        ),
        (
            Outer {
                inner: opt(7, Some(8), None),
                pair: Pair {
                    x: 9,
                    inner: opt(10, Some(11), Some("")),
                },
            },
            // 92; 82 "a" 7 "b" 8; 92 9 (83 "a" 10 "b" 11 "c" "")
            &[
                0x92, 0x82, 0xa1, b'a', 0x07, 0xa1, b'b', 0x08, 0x92, 0x09, 0x83, 0xa1, b'a', 0x0a, 0xa1, b'b', 0x0b,
                0xa1, b'c', 0xa0,
            ],
        ),
    ];
    for (value, bytes) in cases {
        assert_eq!(value.encode().unwrap(), bytes, "{value:?}");
        assert_eq!(value.encoded_len(), bytes.len(), "{value:?}");
        assert_eq!(Outer::decode(bytes).unwrap(), value);
    }
}

#[test]
fn a_gap_among_optional_entries_is_refused_with_its_path() {
    let value = Outer {
        inner: opt(1, None, None),
        pair: Pair {
            x: 2,
            inner: opt(3, None, Some("c")),
        },
    };
    let err = value.encode().unwrap_err().to_string();
    assert!(err.contains("pair.inner.c"), "{err}");
    assert!(err.contains("b"), "{err}");
}

#[test]
fn a_header_outside_the_entry_range_is_refused() {
    // 84: four entries where the record has at most three.
    let bytes = [0x92, 0x84, 0xa1, b'a', 0x01];
    let err = Outer::decode(&bytes).unwrap_err();
    assert_eq!(err.offset(), 1);
    assert!(err.to_string().contains("expected 1..=3 entries, found 4"), "{err}");
}
