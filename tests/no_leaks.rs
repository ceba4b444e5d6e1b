//! Memory stays flat when registries and layouts come and go: 100,000 registries, each with a
//! user layout parsed from schema text made at run time, each used to encode and decode values
//! and to make errors whose paths name its entries and the input's keys. Every name differs
//! from one iteration to the next, so anything kept per name (an interned string, a leaked
//! layout) grows the process by megabytes.
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

/// A schema whose every name (schema, metalayer, entries, named values, constant) holds `i`.
pub fn schema_text(i: usize) -> String {
    format!(
        r#"
[schema]
metalayer = "leak{i}"
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

/// One registry, its layout, values and errors; returns the bytes of text made, so that
/// nothing is optimized away.
pub fn round(i: usize) -> usize {
    let schema = format!("leak_v{i}");
    let layout = metalayer_layout::parse(&schema, &schema_text(i)).unwrap_or_else(|e| panic!("{e}"));
    let layout = Arc::new(layout);
    let registry = Registry::new(vec![(Arc::clone(&layout), format!("{schema}.toml"))]).unwrap();
    let mut made = 0;

    // Keys of the input that differ every time.
    let value = json!({
        format!("mode_{i}"): format!("second_{i}"),
        format!("shape_{i}"): [i, 2, 3],
        format!("extra_{i}"): { format!("key_{i}"): i, format!("other_{i}"): 1 },
    });
    let bytes = encode(&layout, &value).unwrap();
    let Selected::Decoded(typed) = registry.select(&format!("leak{i}"), &bytes) else {
        panic!("leak{i} does not read its own bytes");
    };
    made += serde_json::to_string(&typed).unwrap().len();

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
    made
}

#[test]
fn registries_and_values_leave_nothing_behind() {
    // The messages the loop makes: checked once against their expected text.
    let layout = metalayer_layout::parse("leak_v7", &schema_text(7)).unwrap();
    let bad = json!({ "mode_7": 7, "shape_7": [], "extra_7": {} });
    assert_eq!(
        encode(&layout, &bad).unwrap_err().to_string(),
        "leak_v7: in mode_7: expected one of first_7 = 0, second_7 = 1, found 7"
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
