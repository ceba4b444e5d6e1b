//! `decode`, `encode` and `diagram` with a schema read from a file (and a file it includes),
//! in a directory of the test's own.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

mod common;

use common::{BIN, stderr, stdout, unhex};

/// A map record with floats, a bool, nested arrays, a count, an array of records of a type
/// from another file, and an optional trailing entry.
const SCHEMA: &str = r#"[schema]
metalayer = "sample"
description = "A map record of floats, a bool, nested arrays, records and an optional label"
source = "metalayer-cli tests"
include = ["common/point.toml"]

[container]
wire = "map"

[[entry]]
name = "version"
wire = "fixint"
const = 1

[[entry]]
name = "scale"
wire = "float64"

[[entry]]
name = "ratio"
wire = "float32"

[[entry]]
name = "enabled"
wire = "bool"

[[entry]]
name = "grid"
wire = "array"
element = { wire = "array", element = { wire = "int" } }

[[entry]]
name = "npoints"
wire = "fixint"
max = 15
length_of = ["points"]

[[entry]]
name = "points"
wire = "fixarray"
marker = 0x90
count = "npoints"
element = { type = "point" }

[[entry]]
name = "label"
wire = "str"
optional = true
"#;

/// The record type, in a file the schema includes by a path relative to its own directory.
const POINT: &str = r#"[schema]

[types.point]
wire = "fixarray"

[[types.point.entry]]
name = "x"
wire = "int"

[[types.point.entry]]
name = "y"
wire = "int16"
"#;

/// Every entry, the constant and the count included: what `decode --json` prints as "fields".
const FIELDS: &str = r#"{"version":1,"scale":0.5,"ratio":0.1,"enabled":true,"grid":[[1,2],[3]],"npoints":2,"points":[{"x":-1,"y":300},{"x":70000,"y":-2}],"label":"hi"}"#;

/// The bytes of FIELDS: python's msgpack for the map, with the fixed-width float32 and int16
/// packed by hand (`msgpack.packb` writes a float64 and the smallest integer instead):
///
/// ```sh
/// python3 -c 'import msgpack, struct; p = msgpack.packb; print((b"\x88" + p("version") + p(1)
///   + p("scale") + p(0.5) + p("ratio") + b"\xca" + struct.pack(">f", 0.1) + p("enabled")
///   + p(True) + p("grid") + p([[1, 2], [3]]) + p("npoints") + p(2) + p("points") + b"\x92"
///   + b"\x92" + p(-1) + b"\xd1" + struct.pack(">h", 300) + b"\x92" + p(70000) + b"\xd1"
///   + struct.pack(">h", -2) + p("label") + p("hi")).hex())'
/// ```
const BYTES: &str = "88a776657273696f6e01a57363616c65cb3fe0000000000000a5726174696fca3dcccccda7656e61626c6564c3a467726964929201029103a76e706f696e747302a6706f696e74739292ffd1012c92ce00011170d1fffea56c6162656ca26869";

/// The same without the label: the same python line with `b"\x87"` first and the last two
/// parts left out.
const BYTES_NO_LABEL: &str = "87a776657273696f6e01a57363616c65cb3fe0000000000000a5726174696fca3dcccccda7656e61626c6564c3a467726964929201029103a76e706f696e747302a6706f696e74739292ffd1012c92ce00011170d1fffe";

/// A directory holding `sample_v0.toml` and `common/point.toml`.
struct Schema {
    _dir: tempfile::TempDir,
    path: PathBuf,
    point: PathBuf,
}

fn schema() -> Schema {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::create_dir(dir.path().join("common")).expect("common/");
    let point = dir.path().join("common").join("point.toml");
    std::fs::write(&point, POINT).expect("point.toml");
    let path = dir.path().join("sample_v0.toml");
    std::fs::write(&path, SCHEMA).expect("sample_v0.toml");
    Schema { _dir: dir, path, point }
}

fn arg(path: &Path) -> String {
    path.display().to_string()
}

fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        // Includes are found next to the schema, not in the working directory.
        .current_dir(std::env::temp_dir())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // A command that fails before reading its input closes the pipe early.
    match child.stdin.take().expect("stdin").write_all(stdin) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => panic!("stdin not written: {e}"),
        _ => {}
    }
    child.wait_with_output().expect("the binary ends")
}

fn fields(out: &Output) -> String {
    let report: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", stdout(out)));
    report["fields"].to_string()
}

#[test]
fn encode_writes_the_msgpack_bytes() {
    let s = schema();
    let out = run(&["encode", "--schema", &arg(&s.path), FIELDS], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), format!("{BYTES}\n"));

    // The constant and the count may be left out; an absent label is a missing key or null.
    let given =
        r#"{"scale":0.5,"ratio":0.1,"enabled":true,"grid":[[1,2],[3]],"points":[{"x":-1,"y":300},{"x":70000,"y":-2}]}"#;
    let out = run(&["encode", "--schema", &arg(&s.path), "-"], given.as_bytes());
    assert_eq!(stdout(&out), format!("{BYTES_NO_LABEL}\n"), "{}", stderr(&out));
    let null_label = format!("{},\"label\":null}}", &given[..given.len() - 1]);
    let out = run(&["encode", "--schema", &arg(&s.path), &null_label], b"");
    assert_eq!(stdout(&out), format!("{BYTES_NO_LABEL}\n"), "{}", stderr(&out));
}

#[test]
fn decode_prints_every_entry_and_encode_gives_the_bytes_back() {
    let s = schema();
    let out = run(
        &["decode", "--schema", &arg(&s.path), "--hex", "--json", "-"],
        BYTES.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report["schema"], "sample_v0");
    assert_eq!(fields(&out), FIELDS);

    // What decode prints encodes to the same bytes, and decodes to the same JSON again.
    let out = run(&["encode", "--schema", &arg(&s.path), "-o", "-", &fields(&out)], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(out.stdout, unhex(BYTES));
    let again = run(&["decode", "--schema", &arg(&s.path), "--json", "-"], &out.stdout);
    assert_eq!(fields(&again), FIELDS);

    let out = run(
        &["decode", "--schema", &arg(&s.path), "--hex", "--json", "-"],
        BYTES_NO_LABEL.as_bytes(),
    );
    assert_eq!(fields(&out), FIELDS.replace(r#","label":"hi""#, ""));

    let out = run(&["decode", "--schema", &arg(&s.path), "--hex", "-"], BYTES.as_bytes());
    assert_eq!(
        stdout(&out),
        r#"sample_v0  96 bytes
  version:  1
  scale:    0.5
  ratio:    0.1
  enabled:  true
  grid:     [[1, 2], [3]]
  npoints:  2
  points:   [{"x": -1, "y": 300}, {"x": 70000, "y": -2}]
  label:    "hi"
"#
    );
}

#[cfg(feature = "diagram")]
#[test]
fn diagram_of_a_schema_file() {
    let s = schema();
    let out = run(&["diagram", &arg(&s.path)], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    for entry in ["scale", "ratio", "enabled", "grid", "npoints", "points", "label"] {
        assert!(text.contains(entry), "{entry} missing from\n{text}");
    }
}

/// Every command that reads a schema reports a bad one as `path:line:column: message`, with
/// the line underlined, and exits with status 1.
#[test]
fn a_bad_schema_file_names_its_line_and_column() {
    let s = schema();
    let bad = SCHEMA.replace("wire = \"float32\"", "wire = \"float16\"");
    std::fs::write(&s.path, &bad).expect("write");
    let line = bad.lines().position(|l| l.contains("float16")).expect("the line") + 1;
    let shown = arg(&s.path);
    let mut commands: Vec<Vec<&str>> = vec![
        vec!["decode", "--schema", &shown, "--hex", "-"],
        vec!["encode", "--schema", &shown, FIELDS],
    ];
    if cfg!(feature = "diagram") {
        commands.push(vec!["diagram", &shown]);
    }
    for args in commands {
        let out = run(&args, BYTES.as_bytes());
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(stdout(&out), "", "{args:?}");
        let err = stderr(&out);
        assert!(
            err.starts_with(&format!(
                "{shown}:{line}:8: unknown wire type `float16`; expected one of: "
            )),
            "{args:?}: {err}"
        );
        assert!(err.contains("wire = \"float16\"\n"), "{err}");
    }

    // A problem in an included file names that file.
    std::fs::write(&s.path, SCHEMA).expect("write");
    std::fs::write(&s.point, POINT.replace("int16", "int17")).expect("write");
    let out = run(&["encode", "--schema", &shown, FIELDS], b"");
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!("{}:12:8: unknown wire type `int17`", arg(&s.point))),
        "{err}"
    );

    // An include that is not there.
    std::fs::remove_file(&s.point).expect("remove");
    let out = run(&["encode", "--schema", &shown, FIELDS], b"");
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!(
            "{shown}:5:12: cannot include `common/point.toml`: schema file `{}` not found\n",
            arg(&s.point)
        )),
        "{err}"
    );
}

#[test]
fn bad_json_and_values_out_of_range() {
    let s = schema();
    let shown = arg(&s.path);
    let out = run(&["encode", "--schema", &shown, "{\"scale\": 0.5,"], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("metalayer: the entries are not valid JSON: "),
        "{}",
        stderr(&out)
    );
    for (from, to, message) in [
        (
            r#""y":-2"#,
            r#""y":40000"#,
            "sample_v0: in points[1].y: expected a value in -32768..=32767, found 40000",
        ),
        (
            r#""enabled":true"#,
            r#""enabled":"yes""#,
            "sample_v0: in enabled: expected true or false, found the string \"yes\"",
        ),
        (
            r#""ratio":0.1"#,
            r#""ratio":1e39"#,
            "sample_v0: in ratio: expected a number within float32's range, found 1e39",
        ),
        (
            r#""npoints":2"#,
            r#""npoints":3"#,
            "sample_v0: in npoints: given 3, but points has 2 elements",
        ),
        (
            r#""version":1"#,
            r#""version":2"#,
            "sample_v0: in version: expected constant 1, found 2",
        ),
        (
            r#""label":"hi""#,
            r#""label":"hi","extra":1"#,
            "sample_v0: unknown entry `extra`; the entries are version, scale, ratio, enabled, grid, npoints, points, label",
        ),
    ] {
        let json = FIELDS.replace(from, to);
        let out = run(&["encode", "--schema", &shown, &json], b"");
        assert_eq!(out.status.code(), Some(1), "{json}");
        assert_eq!(stdout(&out), "");
        assert_eq!(stderr(&out), format!("metalayer: {message}\n"));
    }
}

#[test]
fn truncated_input_to_decode() {
    let s = schema();
    let shown = arg(&s.path);
    // Cut inside the second point's y (0xd1 and one of its two bytes).
    let cut = &BYTES[..BYTES.find("d1fffe").expect("the second y") + 4];
    let out = run(&["decode", "--schema", &shown, "--hex", "-"], cut.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    assert_eq!(
        stderr(&out),
        "metalayer: <stdin>: sample_v0: at byte 0x55 in points[1].y: expected 2 more bytes, found 1\n"
    );
    // Cut in the first point: the two points cannot fit in what is left, refused before they
    // are read.
    let cut = &BYTES[..BYTES.find("9292ffd1").expect("the points") + 20];
    let out = run(&["decode", "--schema", &shown, "--hex", "-"], cut.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "metalayer: <stdin>: sample_v0: at byte 0x49 in points: expected 10 more bytes, found 9\n"
    );
}

/// A schema whose value is not a record: decode prints it under "value" rather than "fields".
#[test]
fn a_schema_whose_value_is_a_list() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("list_v0.toml");
    let text = "[schema]\nmetalayer = \"list\"\ndescription = \"floats\"\nsource = \"tests\"\n\n[value]\nwire = \"array\"\nelement = { wire = \"float32\" }\n";
    std::fs::write(&path, text).expect("list_v0.toml");
    let shown = arg(&path);
    // python3 -c 'import struct; print((b"\x92\xca" + struct.pack(">f", 0.1) + b"\xca"
    //   + struct.pack(">f", float("nan"))).hex())'
    let bytes = "92ca3dcccccdca7fc00000";
    let out = run(&["encode", "--schema", &shown, r#"[0.1, "NaN"]"#], b"");
    assert_eq!(stdout(&out), format!("{bytes}\n"), "{}", stderr(&out));
    let out = run(
        &["decode", "--schema", &shown, "--hex", "--json", "-"],
        bytes.as_bytes(),
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(report.to_string(), r#"{"schema":"list_v0","value":[0.1,"NaN"]}"#);
    let out = run(&["decode", "--schema", &shown, "--hex", "-"], bytes.as_bytes());
    assert_eq!(stdout(&out), "list_v0  11 bytes\n  value:  [0.1, \"NaN\"]\n");
    if cfg!(feature = "diagram") {
        let out = run(&["diagram", &shown], b"");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
}
