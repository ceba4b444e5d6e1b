//! `inspect --schemas DIR`: user metalayers decoded with schema files written into a temporary
//! directory, on frames python-blosc2 wrote (tests/fixtures/user_schema, with the values
//! python-blosc2 reads back in its expected.json).
#![cfg(feature = "inspect")]

mod common;

use std::path::{Path, PathBuf};

use common::run;
use serde_json::Value;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/user_schema");

/// python-blosc2's `meta={"sample": {...}}` as `msgpack.packb` writes it: a map of the smallest
/// encodings, floats as float64, and a trailing label that one of the two frames leaves out.
const SAMPLE: &str = r#"[schema]
metalayer = "sample"
description = "A map of floats, a bool, nested arrays and an optional label"
source = "tests/fixtures/user_schema/generate.py"

[container]
wire = "map"

[[entry]]
name = "version"
wire = "int"
const = 1

[[entry]]
name = "scale"
wire = "float64"

[[entry]]
name = "offset"
wire = "float64"

[[entry]]
name = "enabled"
wire = "bool"

[[entry]]
name = "grid"
wire = "array"
element = { wire = "array", element = { wire = "int" } }

[[entry]]
name = "label"
wire = "str"
optional = true
"#;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).expect("a schema file");
    }
    dir
}

fn frame(name: &str) -> PathBuf {
    Path::new(FIXTURES).join(name)
}

/// expected.json's frame records (its store records left out).
fn expected() -> Vec<Value> {
    let text = std::fs::read_to_string(Path::new(FIXTURES).join("expected.json")).expect("expected.json");
    serde_json::from_str::<Value>(&text)
        .expect("JSON")
        .as_array()
        .expect("a list")
        .iter()
        .filter(|r| r.get("store").is_none())
        .cloned()
        .collect()
}

/// The `sample` metalayer of a frame's report.
fn sample_of(line: &Value) -> &Value {
    line["metalayers"]
        .as_array()
        .expect("metalayers")
        .iter()
        .find(|m| m["name"] == "sample")
        .expect("the sample metalayer")
}

fn arg(path: &Path) -> String {
    path.display().to_string()
}

#[test]
fn inspect_decodes_user_metalayers_with_the_schemas_of_a_directory() {
    let dir = dir_with(&[("sample_v0.toml", SAMPLE)]);
    let records = expected();
    let paths: Vec<String> = records
        .iter()
        .map(|r| arg(&frame(r["path"].as_str().expect("path"))))
        .collect();
    let mut args = vec!["inspect", "--jsonl", "--schemas"];
    let schemas = arg(dir.path());
    args.push(&schemas);
    args.extend(paths.iter().map(String::as_str));
    let out = run(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let lines: Vec<Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 2);
    for (line, record) in lines.iter().zip(&records) {
        let sample = sample_of(line);
        assert_eq!(sample["schema"], "sample_v0", "{line}");
        assert_eq!(sample["len"], record["sample_hex"].as_str().map_or(0, |h| h.len() / 2));
        // What python-blosc2 read back, the optional label present or not.
        assert_eq!(sample["fields"], record["sample"], "{line}");
        assert!(sample.get("hex").is_none());

        // The same bytes through decode and back through encode, with the schema file.
        let hex = record["sample_hex"].as_str().expect("hex");
        let schema = arg(&dir.path().join("sample_v0.toml"));
        let bytes_file = dir.path().join("bytes.hex");
        std::fs::write(&bytes_file, hex).expect("write the hex");
        let decoded = run(&["decode", "--schema", &schema, "--hex", "--json", &arg(&bytes_file)]);
        assert_eq!(decoded.status.code(), Some(0), "{}", text(&decoded.stderr));
        let report: Value = serde_json::from_slice(&decoded.stdout).expect("JSON");
        assert_eq!(report["fields"], record["sample"]);
        let encoded = run(&["encode", "--schema", &schema, &report["fields"].to_string()]);
        assert_eq!(text(&encoded.stdout), format!("{hex}\n"), "{}", text(&encoded.stderr));
    }

    // Without the directory, the metalayer is shown as msgpack.
    let out = run(&["inspect", "--jsonl", &paths[0]]);
    let line: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let sample = sample_of(&line);
    assert!(sample.get("schema").is_none());
    assert_eq!(sample["msgpack"], records[0]["sample"]);
}

#[test]
fn a_directory_may_be_given_twice_and_schemas_may_share_a_name() {
    // A second layout of `sample`: a three-entry map, told apart by its header.
    let other = "[schema]\nmetalayer = \"sample\"\ndescription = \"d\"\nsource = \"s\"\n[container]\nwire = \"fixmap\"\nmarker = 0x81\n[[entry]]\nname = \"version\"\nwire = \"int\"\nconst = 2\n";
    let a = dir_with(&[("sample_v0.toml", SAMPLE)]);
    let b = dir_with(&[("sample_v2.toml", other)]);
    let out = run(&[
        "inspect",
        "--json",
        "--schemas",
        &arg(a.path()),
        "--schemas",
        &arg(b.path()),
        &arg(&frame("sample_short.b2nd")),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let metalayers = report[0]["metalayers"].as_array().expect("metalayers");
    let sample = metalayers.iter().find(|m| m["name"] == "sample").expect("sample");
    assert_eq!(sample["schema"], "sample_v0");
}

#[test]
fn schemas_that_cannot_be_told_apart_are_refused_before_anything_is_read() {
    // The same layout under two names: every input of one is an input of the other.
    let dir = dir_with(&[("sample_v0.toml", SAMPLE), ("sample_v1.toml", SAMPLE)]);
    let out = run(&[
        "inspect",
        "--schemas",
        &arg(dir.path()),
        &arg(&frame("sample_full.b2nd")),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "");
    assert_eq!(
        text(&out.stderr),
        format!(
            "metalayer: {}: `sample_v0` and `sample_v1` cannot be told apart from their bytes: they accept the same bytes throughout\n",
            dir.path().join("sample_v0.toml").display()
        )
    );

    // Two layouts that differ only in a value's type where both can start with the same byte:
    // an int and a uint8 label, where a canonical int's 0xcc is a uint8's marker.
    let int_label = SAMPLE.replace("name = \"label\"\nwire = \"str\"", "name = \"label\"\nwire = \"int\"");
    let uint8_label = SAMPLE.replace("name = \"label\"\nwire = \"str\"", "name = \"label\"\nwire = \"uint8\"");
    let int_label = int_label.replace("optional = true\n", "");
    let uint8_label = uint8_label.replace("optional = true\n", "");
    let dir = dir_with(&[("a_v0.toml", &int_label), ("b_v0.toml", &uint8_label)]);
    let out = run(&[
        "inspect",
        "--schemas",
        &arg(dir.path()),
        &arg(&frame("sample_full.b2nd")),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("`a_v0` and `b_v0` cannot be told apart from their bytes: they accept the same bytes up to a byte after a value of variable length (entry `label` of both), where they would need to differ"),
        "{err}"
    );
}

#[test]
fn a_schema_that_does_not_check_is_reported_at_its_line_and_column() {
    let bad = SAMPLE.replace(
        "wire = \"float64\"\n\n[[entry]]\nname = \"offset\"",
        "wire = \"float16\"\n\n[[entry]]\nname = \"offset\"",
    );
    let dir = dir_with(&[("sample_v0.toml", &bad)]);
    let out = run(&[
        "inspect",
        "--schemas",
        &arg(dir.path()),
        &arg(&frame("sample_full.b2nd")),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "");
    let err = text(&out.stderr);
    // Line 16: `wire = "float16"` of `scale`, the value at column 8.
    let place = format!("{}:16:8:", dir.path().join("sample_v0.toml").display());
    assert!(err.starts_with(&place), "{err}");

    let out = run(&[
        "inspect",
        "--schemas",
        "/nonexistent/schemas",
        &arg(&frame("sample_full.b2nd")),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("cannot read `/nonexistent/schemas`: "),
        "{}",
        text(&out.stderr)
    );
}

/// Two versions of a map in python-blosc2's style, `{"name": str, "version": N, ...}`: the
/// version's byte comes after a name of any length. The same files as the root crate's
/// tests/schemas/dispatch/store_v1.toml and store_v2.toml, over which a dispatch enum builds.
const STORE_V1: &str = "[schema]\nmetalayer = \"store\"\ndescription = \"d\"\nsource = \"s\"\n[container]\nwire = \"fixmap\"\nmarker = 0x83\n[[entry]]\nname = \"name\"\nwire = \"str\"\n[[entry]]\nname = \"version\"\nwire = \"int\"\nconst = 1\n[[entry]]\nname = \"size\"\nwire = \"int\"\nmin = 0\n";
const STORE_V2: &str = "[schema]\nmetalayer = \"store\"\ndescription = \"d\"\nsource = \"s\"\n[container]\nwire = \"fixmap\"\nmarker = 0x83\n[[entry]]\nname = \"name\"\nwire = \"str\"\n[[entry]]\nname = \"version\"\nwire = \"int\"\nconst = 2\n[[entry]]\nname = \"chunks\"\nwire = \"array\"\nelement = { wire = \"int\", min = 0 }\n";

#[test]
fn versions_that_part_after_a_string_are_accepted_and_decoded() {
    let dir = dir_with(&[("store_v1.toml", STORE_V1), ("store_v2.toml", STORE_V2)]);
    let out = run(&[
        "inspect",
        "--schemas",
        &arg(dir.path()),
        &arg(&frame("sample_full.b2nd")),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // Each version's bytes decode with its own schema file: {"name": "ab", "version": 2,
    // "chunks": [300, 7]} is 83, a4 "name", a2 "ab", a7 "version", 02, a6 "chunks", 92 cd 01 2c 07.
    let v2 = "83a46e616d65a26162a776657273696f6e02a66368756e6b7392cd012c07";
    let bytes_file = dir.path().join("v2.hex");
    std::fs::write(&bytes_file, v2).expect("write the hex");
    let schema = arg(&dir.path().join("store_v2.toml"));
    let decoded = run(&["decode", "--schema", &schema, "--hex", "--json", &arg(&bytes_file)]);
    assert_eq!(decoded.status.code(), Some(0), "{}", text(&decoded.stderr));
    let schema = arg(&dir.path().join("store_v1.toml"));
    let refused = run(&["decode", "--schema", &schema, "--hex", "--json", &arg(&bytes_file)]);
    assert_ne!(refused.status.code(), Some(0));
    assert!(
        text(&refused.stderr).contains("store_v1: at byte 0x11 in version: expected constant 1, found 2"),
        "{}",
        text(&refused.stderr)
    );
}

#[test]
fn a_file_of_types_alone_beside_the_schemas_is_no_schema() {
    // Types for schemas to include, with no [schema] table: not a schema of the directory.
    let common = "[types.point]\nwire = \"fixarray\"\n[[types.point.entry]]\nname = \"x\"\nwire = \"int\"\n";
    let dir = dir_with(&[("sample_v0.toml", SAMPLE), ("common.toml", common)]);
    let record = &expected()[0];
    let path = arg(&frame(record["path"].as_str().expect("path")));
    let schemas = arg(dir.path());
    let out = run(&["inspect", "--jsonl", "--schemas", &schemas, &path]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
    let line: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let sample = sample_of(&line);
    assert_eq!(sample["schema"], "sample_v0", "{line}");
    assert_eq!(sample["fields"], record["sample"]);
}
