//! The cookbook of `schemas/README.md`: every recipe's schema checks, and reads and writes back,
//! byte for byte, what python's `msgpack.packb` wrote for the recipe's value
//! (`tests/fixtures/language3.json`, "cookbook", made by `tests/fixtures/language3.py`).

mod common;

use common::unhex;
use metalayer::value;
use metalayer_layout::{Layout, length_formula, parse};
use serde_json::Value;

/// The `toml` blocks of each `###` recipe of the README's "Cookbook" section, in order.
fn recipes() -> Vec<(String, Vec<String>)> {
    let readme = include_str!("../schemas/README.md");
    let start = readme.find("\n## Cookbook\n").expect("a Cookbook section");
    let section = &readme[start + 1..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut block: Option<String> = None;
    for line in section.lines() {
        if let Some(heading) = line.strip_prefix("### ") {
            out.push((heading.to_owned(), Vec::new()));
        } else if line == "```toml" {
            block = Some(String::new());
        } else if line == "```" {
            if let (Some(text), Some((_, blocks))) = (block.take(), out.last_mut()) {
                blocks.push(text);
            }
        } else if let Some(text) = block.as_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    out
}

fn layout(text: &str) -> Layout {
    let metalayer = text
        .lines()
        .find_map(|l| l.strip_prefix("metalayer = \""))
        .and_then(|l| l.strip_suffix('"'))
        .expect("a metalayer name");
    parse(&format!("{metalayer}_v1"), text).unwrap_or_else(|e| panic!("{metalayer}: {e:?}"))
}

#[test]
fn every_recipe_reads_and_writes_python_s_bytes() {
    let fixture: Value = serde_json::from_str(include_str!("fixtures/language3.json")).expect("json");
    let vectors = fixture["cookbook"].as_array().expect("cookbook");
    let recipes = recipes();
    assert_eq!(recipes.len(), 6);
    let mut used = vec![0usize; recipes.len()];
    for v in vectors {
        let name = v["recipe"].as_str().expect("recipe");
        let k = recipes
            .iter()
            .position(|(h, _)| h == name)
            .unwrap_or_else(|| panic!("no recipe {name}"));
        let text = &recipes[k].1[used[k]];
        used[k] += 1;
        let layout = layout(text);
        let bytes = unhex(v["hex"].as_str().expect("hex"));
        let json = value::to_json_value(&layout, &bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(json, v["json"], "{name}");
        assert_eq!(value::encode(&layout, &json).expect("encodes"), bytes, "{name}");
    }
    // Every block of every recipe was read.
    assert_eq!(used, recipes.iter().map(|(_, b)| b.len()).collect::<Vec<_>>());
}

#[test]
fn the_digest_is_always_42_bytes_and_the_versions_part() {
    let recipes = recipes();
    let block = |heading: &str, i: usize| {
        let (_, blocks) = recipes.iter().find(|(h, _)| h == heading).expect("recipe");
        layout(&blocks[i])
    };
    assert_eq!(length_formula(&block("A fixed-length digest", 0)).to_string(), "42");
    let (v1, v2) = (block("Versions under one name", 0), block("Versions under one name", 1));
    // They part at the version's byte: 0x83 or 0x82 header, the key "version" (8 bytes), then
    // 0x01 or 0x02 at offset 9.
    let parting = v1.parting(&v2).expect("the versions part");
    assert_eq!(parting.offset, Some(9), "{parting:?}");
    let fixture: Value = serde_json::from_str(include_str!("fixtures/language3.json")).expect("json");
    let v2_bytes = fixture["cookbook"]
        .as_array()
        .expect("cookbook")
        .iter()
        .rev()
        .find(|v| v["recipe"] == "Versions under one name")
        .map(|v| unhex(v["hex"].as_str().expect("hex")))
        .expect("version 2");
    assert!(value::to_json_value(&v1, &v2_bytes).is_err());
}
