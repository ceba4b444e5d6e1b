//! Memory stays flat when registries and layouts come and go: 100,000 registries, each with a
//! user layout parsed from schema text made at run time, each used to encode and decode values
//! and to make errors that name its schema, its named values and the input's keys. Every name
//! differs from one round to the next, so anything kept per name (an interned string, a leaked
//! layout) grows the process by megabytes. Every hundredth round also reads and writes a
//! record layout of many entries (counts, named values, constants), whose names differ too.
//!
//! Reads the resident set size from `/proc/self/statm`; elsewhere the test only runs the loop.

use std::sync::Arc;

use metalayer::report::{Registry, Selected};
use metalayer::value::{Typed, encode, pack};
use serde_json::json;

const ITERATIONS: usize = 100_000;
const WARM_UP: usize = 2_000;
const MAX_GROWTH: u64 = 10 << 20;

/// The resident set size in bytes: `/proc/self/statm`'s second field, in pages of the size
/// `/proc/self/smaps` gives (4 KiB where it does not say).
fn rss() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * page_size())
}

fn page_size() -> u64 {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap_or_default();
    smaps
        .lines()
        .find_map(|line| line.strip_prefix("KernelPageSize:"))
        .and_then(|rest| rest.trim().strip_suffix("kB"))
        .and_then(|kb| kb.trim().parse::<u64>().ok())
        .map_or(4096, |kb| kb * 1024)
}

/// A small schema whose names (metalayer, named values) hold `i`: a map of strings to one of
/// two named integers.
fn small_schema(i: usize) -> String {
    format!(
        r#"
[schema]
metalayer = "leak{i}"
description = "a layout made at run time"
source = "tests/no_leaks.rs"

[value]
wire = "map"
key_type = {{ wire = "str" }}
value_type = {{ wire = "int", values = {{ first_{i} = 0, second_{i} = 1 }} }}
"#
    )
}

/// A record schema whose every name (metalayer, entries, named values) holds `i`.
fn schema_text(i: usize) -> String {
    format!(
        r#"
[schema]
metalayer = "record{i}"
description = "a layout made at run time"
source = "tests/no_leaks.rs"
language = 3

[container]
wire = "fixmap"

[[entry]]
name = "version_{i}"
wire = "int"
const = 1

[[entry]]
name = "mode_{i}"
wire = "int"
values = {{ first_{i} = 0, second_{i} = 1 }}

[[entry]]
name = "n_{i}"
wire = "int"
min = 0
max = 8
length_of = ["shape_{i}"]

[[entry]]
name = "shape_{i}"
wire = "array"
count = "n_{i}"
element = {{ wire = "int" }}

[[entry]]
name = "extra_{i}"
wire = "map"
key_type = {{ wire = "str" }}
value_type = {{ wire = "int" }}
"#
    )
}

/// The record layout's values and errors; returns the bytes of text made.
fn record_round(i: usize, registry_layouts: &mut Vec<(Arc<metalayer_layout::Layout>, String)>) -> Vec<u8> {
    let schema = format!("record_v{i}");
    let layout = metalayer_layout::parse(&schema, &schema_text(i)).unwrap_or_else(|e| panic!("{e}"));
    let layout = Arc::new(layout);
    registry_layouts.push((Arc::clone(&layout), format!("{schema}.toml")));
    let mut made = 0;

    // Keys of the input that differ every time.
    let value = json!({
        format!("mode_{i}"): format!("second_{i}"),
        format!("shape_{i}"): [i, 2, 3],
        format!("extra_{i}"): { format!("key_{i}"): i, format!("other_{i}"): 1 },
    });
    let bytes = encode(&layout, &value).unwrap();
    made += serde_json::to_string(&Typed::new(&layout, &bytes).unwrap())
        .unwrap()
        .len();

    // Errors with paths: bytes cut short, an element of the wrong type, a value none of the
    // named ones, a map value of the wrong type, an input's key in plain msgpack.
    let cut = Typed::new(&layout, &bytes[..bytes.len() - 1]).unwrap_err().to_string();
    assert!(cut.contains(&format!("extra_{i}")), "{cut}");
    made += cut.len();
    let errors = [
        json!({ format!("mode_{i}"): 0, format!("shape_{i}"): [1, "x"], format!("extra_{i}"): {} }),
        json!({ format!("mode_{i}"): 7, format!("shape_{i}"): [], format!("extra_{i}"): {} }),
        json!({ format!("mode_{i}"): 0, format!("shape_{i}"): [], format!("extra_{i}"): { format!("k{i}"): "v" } }),
        json!({ format!("mode_{i}"): 0, format!("shape_{i}"): [], format!("unknown_{i}"): 1 }),
    ];
    for bad in &errors {
        made += encode(&layout, bad).unwrap_err().to_string().len();
    }
    let plain = pack(&json!({ format!("input_key_{i}"): [{ format!("inner_{i}"): { "bin": "0g" } }] })).unwrap_err();
    assert!(
        plain.to_string().contains(&format!("input_key_{i}[0].inner_{i}")),
        "{plain}"
    );
    made += plain.to_string().len();
    made += format!("{:?}", plain).len();

    // A value read with none of the named values: the byte after the key `mode_{i}`.
    let key = format!("mode_{i}");
    let at = bytes.windows(key.len()).position(|w| w == key.as_bytes()).unwrap() + key.len();
    let mut named = bytes.clone();
    named[at] = 0x07;
    let err = Typed::new(&layout, &named).unwrap_err().to_string();
    assert!(err.contains(&format!("second_{i} = 1, found 7")), "{err}");
    made += err.len();
    assert!(made > 0);
    bytes
}

/// One registry, its layouts, values and errors; returns the bytes of text made, so that
/// nothing is optimized away.
fn round(i: usize) -> usize {
    let schema = format!("leak_v{i}");
    let layout = metalayer_layout::parse(&schema, &small_schema(i)).unwrap_or_else(|e| panic!("{e}"));
    let layout = Arc::new(layout);
    let mut layouts = vec![(Arc::clone(&layout), format!("{schema}.toml"))];
    let record = i.is_multiple_of(100).then(|| record_round(i, &mut layouts));
    let registry = Registry::new(layouts).unwrap();
    let mut made = 0;
    if let Some(bytes) = record {
        let Selected::Decoded(typed) = registry.select(&format!("record{i}"), &bytes) else {
            panic!("record{i} does not read its own bytes");
        };
        made += serde_json::to_string(&typed).unwrap().len();
    }

    // Keys of the input that differ every round, and named values of the layout's.
    let value = json!({ format!("key_{i}"): format!("second_{i}"), format!("other_{i}"): 0 });
    let bytes = encode(&layout, &value).unwrap();
    let Selected::Decoded(typed) = registry.select(&format!("leak{i}"), &bytes) else {
        panic!("leak{i} does not read its own bytes");
    };
    made += serde_json::to_string(&typed).unwrap().len();

    // Errors with paths: bytes cut short, a value none of the named ones (encoded and
    // decoded), a value of the wrong type, an input's key in plain msgpack.
    let cut = Typed::new(&layout, &bytes[..bytes.len() - 1]).unwrap_err().to_string();
    assert!(
        cut.starts_with(&format!("leak_v{i}: ")) && cut.contains(&format!("leak{i}[1]")),
        "{cut}"
    );
    made += cut.len();
    let named = encode(&layout, &json!({ format!("key_{i}"): 7 }))
        .unwrap_err()
        .to_string();
    assert!(named.contains(&format!("second_{i} = 1, found 7")), "{named}");
    made += named.len();
    let mut seven = bytes.clone();
    *seven.last_mut().unwrap() = 0x07;
    made += Typed::new(&layout, &seven).unwrap_err().to_string().len();
    made += encode(&layout, &json!({ format!("key_{i}"): [] }))
        .unwrap_err()
        .to_string()
        .len();
    let plain = pack(&json!({ format!("input_key_{i}"): [{ format!("inner_{i}"): { "bin": "0g" } }] })).unwrap_err();
    assert!(
        plain.to_string().contains(&format!("input_key_{i}[0].inner_{i}")),
        "{plain}"
    );
    made += plain.to_string().len() + format!("{plain:?}").len();
    made
}

#[test]
fn registries_and_values_leave_nothing_behind() {
    // The messages the loop makes: checked once against their expected text.
    let layout = metalayer_layout::parse("record_v7", &schema_text(7)).unwrap();
    let bad = json!({ "mode_7": 7, "shape_7": [], "extra_7": {} });
    assert_eq!(
        encode(&layout, &bad).unwrap_err().to_string(),
        "record_v7: in mode_7: expected one of first_7 = 0, second_7 = 1, found 7"
    );
    let layout = metalayer_layout::parse("leak_v7", &small_schema(7)).unwrap();
    assert_eq!(
        Typed::new(&layout, b"\x81\xa1k\x02").unwrap_err().to_string(),
        "leak_v7: at byte 0x03 in leak7[0]: expected one of first_7 = 0, second_7 = 1, found 2"
    );

    let mut made = 0;
    for i in 0..WARM_UP {
        made += round(i);
    }
    let before = rss();
    for i in WARM_UP..ITERATIONS {
        made += round(i);
    }
    let after = rss();
    assert!(made > 0);
    match (before, after) {
        (Some(before), Some(after)) => {
            let growth = after.saturating_sub(before);
            eprintln!(
                "RSS after {WARM_UP} rounds: {} KiB; after {ITERATIONS}: {} KiB; growth {} KiB",
                before >> 10,
                after >> 10,
                growth >> 10
            );
            assert!(
                growth < MAX_GROWTH,
                "RSS grew by {} KiB over {} rounds",
                growth >> 10,
                ITERATIONS - WARM_UP
            );
        }
        _ => eprintln!("no /proc/self/statm: the loop ran, its memory was not measured"),
    }
}
