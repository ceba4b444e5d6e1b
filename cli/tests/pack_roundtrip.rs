//! `set` takes a value in the form `inspect --json` shows it: for every vlmetalayer of the
//! python-blosc2 fixtures, the value format 2 shows (without its bytes) packs back to the very
//! bytes python-blosc2 stored, which `inspect --hex` gives beside it. Values that format 2 shows
//! by what they hold (python-blosc2's exts 43 to 46) are packed from it; a frame held in a value
//! (ext 42) is shown as `"frame"` and must be given by its bytes.
#![cfg(feature = "inspect")]

mod common;

use common::{fixture, jsonl, run, stderr};
use serde_json::Value;

fn vlmetalayers(args: &[&str]) -> Vec<(String, Value)> {
    let out = run(args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    let mut items = Vec::new();
    for frame in jsonl(&out) {
        let path = frame["path"].as_str().expect("path").to_owned();
        for item in frame["vlmetalayers"].as_array().expect("vlmetalayers") {
            items.push((format!("{path}: {}", item["name"]), item.clone()));
        }
    }
    items
}

/// The fixtures' values JSON cannot hold as they are: maps with integer keys, and NaN and the
/// infinities.
const NOT_JSON: &[&str] = &["int_keys", "mixed_keys", "float_nan", "float_inf", "float_neginf"];

#[test]
fn format_2_values_pack_to_the_bytes_python_blosc2_stored() {
    let (mut packed, mut ext_values, mut frames) = (0, 0, 0);
    for dir in ["files/blosc2-2-vlmeta", "files/blosc2-4-vlmeta"] {
        let dir = fixture(dir).display().to_string();
        let shown = vlmetalayers(&["inspect", "--jsonl", &dir]);
        let bytes = vlmetalayers(&["inspect", "--jsonl", "--hex", &dir]);
        assert_eq!(shown.len(), bytes.len(), "{dir}");
        for ((what, value), (_, with_hex)) in shown.iter().zip(&bytes) {
            let (Some(msgpack), Some(hex)) = (value.get("msgpack"), with_hex["hex"].as_str()) else {
                continue;
            };
            let text = msgpack.to_string();
            if text.contains(r#""frame":"#) {
                // A frame held in a value is written once, as its report: not a value to pack.
                let err = metalayer::value::pack(msgpack).expect_err(what);
                assert!(err.to_string().contains("given by its bytes"), "{what}: {err}");
                frames += 1;
                continue;
            }
            if text.contains(r#""ext":4"#) && text.contains(r#""value":"#) {
                ext_values += 1;
            }
            let again = metalayer::value::pack(msgpack).unwrap_or_else(|e| panic!("{what}: {e}"));
            if metalayer::value::json::hex(&again) != hex {
                // What JSON cannot hold: a map's keys that are not strings, shown by their text,
                // and floats that are not finite, shown as strings.
                let name = with_hex["name"].as_str().unwrap_or_default();
                assert!(
                    NOT_JSON.contains(&name),
                    "{what}: {text} packs to {}, not {hex}",
                    metalayer::value::json::hex(&again)
                );
                continue;
            }
            packed += 1;
        }
    }
    assert!(packed >= 50, "{packed} values packed");
    assert!(
        ext_values >= 3,
        "{ext_values} values held python-blosc2's exts 43 to 46"
    );
    assert!(frames >= 1, "{frames} values held frames");
}
