//! Runs the built `metalayer` binary over the real fixtures and over broken inputs.

mod common;

use common::{expected, fixture, json, run, run_stdin, scratch, stderr, stdout, unhex};
use serde_json::Value;

const FIELD_NAMES: [&str; 7] = [
    "version",
    "ndim",
    "shape",
    "chunkshape",
    "blockshape",
    "dtype_format",
    "dtype",
];

/// Each metalayer's bytes, as python-blosc2 recorded them, are in the JSON only with `--hex`;
/// without it, each is shown once, as the value it decodes to.
#[cfg(feature = "inspect")]
#[test]
fn inspect_json_matches_every_fixture() {
    inspect_json_matches_fixtures(false);
    inspect_json_matches_fixtures(true);
}

#[cfg(feature = "inspect")]
fn inspect_json_matches_fixtures(with_hex: bool) {
    use common::{PYTHON_BLOSC2_NAMES, same_value};

    let files = expected();
    assert_eq!(files.len(), 228);
    let paths: Vec<String> = files
        .iter()
        .map(|f| fixture(f["path"].as_str().expect("path")).display().to_string())
        .collect();
    let mut args = vec!["inspect", "--json"];
    if with_hex {
        args.push("--hex");
    }
    args.extend(paths.iter().map(String::as_str));
    let out = run(&args);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stderr(&out), "");
    let reports = json(&out);
    // The frames EmbedStores hold follow theirs: checked in python_frames.rs.
    let reports: Vec<&Value> = reports
        .as_array()
        .expect("an array")
        .iter()
        .filter(|r| !common::held_by_embed_store(r))
        .collect();
    assert_eq!(reports.len(), files.len());

    let mut checked_fields = 0;
    let mut checked_msgpack = 0;
    let mut checked_typed = 0;
    for ((file, report), path) in files.iter().zip(reports).zip(&paths) {
        let ctx = file["path"].as_str().unwrap_or_default();
        let top: Vec<&str> = report.as_object().expect("object").keys().map(String::as_str).collect();
        assert_eq!(top[..2], ["format", "path"], "{ctx}");
        assert_eq!(report["format"], 2, "{ctx}");
        assert_eq!(report["path"], Value::String(path.clone()), "{ctx}");
        let got = report["metalayers"].as_array().expect("metalayers");
        let want = file["metalayers"].as_array().expect("metalayers");
        assert_eq!(got.len(), want.len(), "{ctx}");
        for (g, w) in got.iter().zip(want) {
            let name = w["name"].as_str().expect("name");
            let hex = w["hex"].as_str().expect("hex");
            assert_eq!(g["name"], w["name"], "{ctx}");
            assert_eq!(g["len"], Value::from(hex.len() / 2), "{ctx} {name}");
            let mut keys: Vec<&str> = g.as_object().expect("object").keys().map(String::as_str).collect();
            // With --hex, the bytes python-blosc2 wrote come third, whatever they decode to.
            if with_hex {
                assert_eq!(keys.get(2), Some(&"hex"), "{ctx} {name}");
                assert_eq!(g["hex"], w["hex"], "{ctx} {name}");
                keys.remove(2);
            }
            if name == "b2nd" || name == "caterva" {
                assert_eq!(keys, ["name", "len", "schema", "fields"], "{ctx} {name}");
                let schema = if name == "b2nd" { "b2nd_v1" } else { "caterva_v0" };
                assert_eq!(g["schema"], schema, "{ctx}");
                let fields = g["fields"].as_object().expect("fields");
                let field_names: Vec<&str> = fields.keys().map(String::as_str).collect();
                let n = if name == "b2nd" { 7 } else { 5 };
                assert_eq!(field_names, FIELD_NAMES[..n], "{ctx}");
                let values: Vec<Value> = fields.values().cloned().collect();
                if w["msgpack"].is_null() {
                    // 16 dimensions: standard msgpack cannot read it; compare with the array.
                    let array = &file["array"];
                    assert_eq!(fields["ndim"], array["ndim"], "{ctx}");
                    assert_eq!(fields["ndim"], 16, "{ctx}");
                    assert_eq!(fields["shape"], array["shape"], "{ctx}");
                    assert_eq!(fields["chunkshape"], array["chunks"], "{ctx}");
                    assert_eq!(fields["blockshape"], array["blocks"], "{ctx}");
                    assert_eq!(fields["dtype"], array["dtype"], "{ctx}");
                    assert_eq!(fields["version"], 0, "{ctx}");
                    assert_eq!(fields["dtype_format"], 0, "{ctx}");
                } else {
                    assert_eq!(Value::Array(values), w["msgpack"], "{ctx}");
                }
                checked_fields += 1;
            } else if PYTHON_BLOSC2_NAMES.contains(&name) {
                // python-blosc2's own metalayers: typed by their built-in layouts, with the
                // value python-blosc2's msgpack.unpackb gave the generator.
                let value_key = if g.get("fields").is_some() { "fields" } else { "value" };
                assert_eq!(keys, ["name", "len", "schema", value_key], "{ctx} {name}");
                assert!(!w["msgpack"].is_null(), "{ctx} {name}");
                assert!(same_value(&g[value_key], &w["msgpack"]), "{ctx} {name}: {g}");
                checked_typed += 1;
            } else {
                assert_eq!(keys, ["name", "len", "msgpack"], "{ctx} {name}");
                assert!(
                    !w["msgpack"].is_null(),
                    "{ctx} {name}: the fixtures' user metalayers are msgpack"
                );
                assert_eq!(g["msgpack"], w["msgpack"], "{ctx} {name}");
                checked_msgpack += 1;
            }
        }
    }
    assert_eq!(checked_fields, 178);
    assert!(checked_msgpack >= 12, "{checked_msgpack}");
    // LazyArray 6, b2dict 2, b2embed 4, b2o 6, b2tree 4, batcharray 10, ctable_varlen_scalar 5,
    // listarray 3, proxy-source 20, vlarray 3.
    assert_eq!(checked_typed, 63);
}

#[cfg(feature = "inspect")]
#[test]
fn big_dimensions_are_exact_integers() {
    let out = run(&[
        "inspect",
        "--json",
        &fixture("files/blosc2-4/big_2pow53p1.b2nd").display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).contains("\"shape\": [9007199254740993]"),
        "{}",
        stdout(&out)
    );
}

#[cfg(feature = "inspect")]
#[test]
fn inspect_text_is_aligned() {
    let path = fixture("files/blosc2-4/meta_user.b2nd").display().to_string();
    let out = run(&["inspect", &path]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    // The header: 240 + 35 bytes for the header and trailer (python-blosc2 wrote no chunk data:
    // cbytes 0), ZSTD (5) at clevel 5 with SHUFFLE, python-blosc2's defaults; shape 3 x 4 in
    // 2 x 2 chunks of 1 x 2 blocks of float64: nbytes 4 * 4 * 8 = 128 over the padded shape,
    // chunksize 2 * 2 * 8 = 32, blocksize 1 * 2 * 8 = 16, 128 / 32 = 4 chunks.
    let want = format!(
        "{path}: 5 metalayers, 0 vlmetalayers
  frame:  contiguous, format 2, 315 bytes (header 240, trailer 35)
  codec:  ZSTD, clevel 5, filters SHUFFLE, AUTO_SPLIT
  data:   nbytes 128, cbytes 0, typesize 8, blocksize 16, chunksize 32, 4 chunks
  b2nd   53 bytes  b2nd_v1
      version:       0
      ndim:          2
      shape:         [3, 4]
      chunkshape:    [2, 2]
      blockshape:    [1, 2]
      dtype_format:  0
      dtype:         \"<f8\"
  units   7 bytes  msgpack
      value:  \"kelvin\"
  scale   1 byte   msgpack
      value:  3
  tags    4 bytes  msgpack
      value:  [1, 2, 3]
  m       4 bytes  msgpack
      value:  {{\"a\": 1}}
"
    );
    assert_eq!(text, want);

    // With --hex, each value's bytes follow it: the msgpack spec's fixstr a6 "kelvin",
    // positive fixint 03, fixarray 93 of 1, 2, 3, fixmap 81 of fixstr a1 "a" and 1; and the
    // b2nd metalayer's bytes as python-blosc2 recorded them.
    let out = run(&["inspect", "--hex", &path]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    for line in [
        "      value:  \"kelvin\"\n      hex:    a66b656c76696e\n",
        "      value:  3\n      hex:    03\n",
        "      value:  [1, 2, 3]\n      hex:    93010203\n",
        "      value:  {\"a\": 1}\n      hex:    81a16101\n",
    ] {
        assert!(text.contains(line), "{line:?} in {text}");
    }
    let b2nd_hex = expected()
        .iter()
        .find(|f| f["path"] == "files/blosc2-4/meta_user.b2nd")
        .and_then(|f| f["metalayers"][0]["hex"].as_str().map(str::to_owned))
        .expect("the fixture's b2nd bytes");
    assert!(
        text.contains(&format!(
            "      dtype:         \"<f8\"\n      hex:           {b2nd_hex}\n"
        )),
        "{text}"
    );
}

#[cfg(feature = "inspect")]
#[test]
fn inspect_sparse_and_caterva_text() {
    let sparse = fixture("files/blosc2-4/sparse_ndim16.b2nd").display().to_string();
    let cat = fixture("files/caterva-0.7/meta_user.cat").display().to_string();
    let out = run(&["inspect", &sparse, &cat]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains(&format!(
            "{sparse}: 1 metalayer, 0 vlmetalayers  (sparse frame)\n  frame:  sparse, "
        )),
        "{text}"
    );
    assert!(text.contains("      ndim:          16\n"), "{text}");
    assert!(text.contains("  caterva  44 bytes  caterva_v0\n"), "{text}");
    assert!(
        text.contains(&format!("\n\n{cat}: 5 metalayers, 0 vlmetalayers\n")),
        "{text}"
    );
}

#[cfg(feature = "inspect")]
#[test]
fn truncated_file_names_path_and_offset() {
    let dir = scratch("truncated");
    let original = std::fs::read(fixture("files/blosc2-4/dtype_i4le.b2nd")).expect("fixture");
    for (len, message) in [
        (
            120,
            "at byte 0x0b: header_len 165 runs past the end of the file (120 bytes)",
        ),
        (
            20,
            "frame_header_v2: at byte 0x10 in frame_len: expected 8 more bytes, found 4",
        ),
        (0, "at byte 0x00: expected frame magic"),
    ] {
        let path = dir.join(format!("cut{len}.b2nd"));
        std::fs::write(&path, &original[..len]).expect("write");
        let shown = path.display().to_string();
        let out = run(&["inspect", &shown]);
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(stdout(&out), "");
        let err = stderr(&out);
        assert!(err.starts_with(&format!("metalayer: {shown}: {message}")), "{err}");
        assert!(!err.contains("panicked"), "{err}");

        let out = run(&["inspect", "--json", &shown]);
        assert_eq!(out.status.code(), Some(1));
        let report = json(&out);
        assert_eq!(report[0]["path"], shown.as_str());
        assert!(report[0]["error"].as_str().unwrap_or_default().starts_with(message));
        assert!(report[0].get("metalayers").is_none());
    }
}

#[cfg(feature = "inspect")]
#[test]
fn good_path_still_reported_beside_a_bad_one() {
    let dir = scratch("two_paths");
    let bad = dir.join("bad.b2nd");
    std::fs::write(&bad, b"not a frame").expect("write");
    let bad = bad.display().to_string();
    let good = fixture("files/blosc2-2/ndim02.b2nd").display().to_string();

    let out = run(&["inspect", &bad, &good]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).starts_with(&format!("{good}: 1 metalayer, 0 vlmetalayers\n")),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains(&format!("{bad}: at byte 0x00")),
        "{}",
        stderr(&out)
    );

    let out = run(&["inspect", "--json", &good, &bad]);
    assert_eq!(out.status.code(), Some(1));
    let reports = json(&out);
    assert_eq!(reports[0]["path"], good.as_str());
    assert_eq!(reports[0]["metalayers"][0]["schema"], "b2nd_v1");
    assert_eq!(reports[1]["path"], bad.as_str());
    assert!(reports[1]["error"].is_string());
}

#[cfg(feature = "inspect")]
#[test]
fn python_blosc2_metalayers_of_other_shapes_are_msgpack_with_a_warning() {
    use common::{frame_with_metalayers, write};

    let dir = scratch("other-shapes");
    let b2nd = unhex(
        expected()
            .iter()
            .find(|f| f["path"] == "files/blosc2-4/dtype_i4le.b2nd")
            .expect("in expected.json")["metalayers"][0]["hex"]
            .as_str()
            .expect("hex"),
    );
    // A proxy-source no release writes, {"source_kind": "s3", "bucket": "b", "key": "k"}, and a
    // b2embed of format version 2, {"version": 2}: python-blosc2's names, shapes no built-in
    // layout reads.
    let proxy: &[u8] = b"\x83\xabsource_kind\xa2s3\xa6bucket\xa1b\xa3key\xa1k";
    let embed: &[u8] = b"\x81\xa7version\x02";
    let frame = frame_with_metalayers(&[("b2nd", &b2nd), ("proxy-source", proxy), ("b2embed", embed)], &[]);
    let path = write(&dir, "other_shapes.b2nd", &frame);

    let out = run(&["inspect", "--json", &path]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = json(&out);
    let metalayers = &report[0]["metalayers"];
    assert_eq!(metalayers[0]["schema"], "b2nd_v1");
    for (i, name, value) in [
        (
            1,
            "proxy-source",
            serde_json::json!({"source_kind": "s3", "bucket": "b", "key": "k"}),
        ),
        (2, "b2embed", serde_json::json!({"version": 2})),
    ] {
        let m = &metalayers[i];
        let keys: Vec<&str> = m.as_object().expect("object").keys().map(String::as_str).collect();
        assert_eq!(keys, ["name", "len", "msgpack", "warning"], "{m}");
        assert_eq!(m["name"], name);
        assert_eq!(m["msgpack"], value);
        let warning = m["warning"].as_str().expect("a warning");
        assert!(
            warning.starts_with(&format!(
                "python-blosc2's \"{name}\" in a shape no built-in layout reads, shown as msgpack: "
            )),
            "{warning}"
        );
    }
    // The closest layout says where the value leaves it: b2embed_v1's version is the constant 1.
    assert!(
        metalayers[2]["warning"]
            .as_str()
            .is_some_and(|w| w.ends_with("b2embed_v1: at byte 0x09 in version: expected constant 1, found 2")),
        "{}",
        metalayers[2]
    );
    // Warnings on stderr name the file and the metalayer; the run does not fail.
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(
        lines[0].starts_with(&format!(
            "metalayer: warning: {path}: metalayer \"proxy-source\" (content at file byte "
        )),
        "{err}"
    );
    assert!(
        lines[1].starts_with(&format!("metalayer: warning: {path}: metalayer \"b2embed\" ")),
        "{err}"
    );

    let out = run(&["inspect", &path]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("  proxy-source  31 bytes  msgpack\n"), "{text}");
    assert!(
        text.contains("      value:    {\"source_kind\": \"s3\", \"bucket\": \"b\", \"key\": \"k\"}\n"),
        "{text}"
    );
    assert!(
        text.contains("      warning:  python-blosc2's \"proxy-source\" in a shape no built-in layout reads"),
        "{text}"
    );

    // c-blosc2's b2nd stays strict, and so does a python-blosc2 name whose bytes are not one
    // msgpack value.
    let mut bad_b2nd = b2nd.clone();
    bad_b2nd[0] = 0x98;
    for (name, metalayers) in [
        ("bad_b2nd.b2nd", vec![("b2nd", &bad_b2nd[..]), ("b2embed", embed)]),
        (
            "not_msgpack.b2nd",
            vec![("b2nd", &b2nd[..]), ("proxy-source", &b"\x83\xc1"[..])],
        ),
    ] {
        let path = write(&dir, name, &frame_with_metalayers(&metalayers, &[]));
        let out = run(&["inspect", "--json", &path]);
        assert_eq!(out.status.code(), Some(1), "{name}: {}", stderr(&out));
        assert!(
            stderr(&out).starts_with(&format!("metalayer: {path}: metalayer ")),
            "{name}: {}",
            stderr(&out)
        );
        let report = json(&out);
        let failed = report[0]["metalayers"]
            .as_array()
            .expect("metalayers")
            .iter()
            .filter(|m| m.get("error").is_some())
            .count();
        assert_eq!(failed, 1, "{name}: {report}");
    }
}

#[cfg(feature = "inspect")]
#[test]
fn undecodable_b2nd_reports_offset_and_entry() {
    let dir = scratch("undecodable");
    let mut bytes = std::fs::read(fixture("files/blosc2-4/dtype_i4le.b2nd")).expect("fixture");
    bytes[0x70 + 0x0d] = 0xd2;
    let path = dir.join("bad_marker.b2nd");
    std::fs::write(&path, &bytes).expect("write");
    let shown = path.display().to_string();
    let message = "b2nd_v1: at byte 0x0d in shape[1]: expected int64 marker 0xd3, found 0xd2";

    let out = run(&["inspect", &shown]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!("metalayer: {shown}: metalayer \"b2nd\" (content at file byte 0x70): {message}\n")
    );
    assert!(
        stdout(&out).contains("  b2nd  53 bytes  undecodable\n"),
        "{}",
        stdout(&out)
    );

    let out = run(&["inspect", "--json", &shown]);
    assert_eq!(out.status.code(), Some(1));
    let entry = &json(&out)[0]["metalayers"][0];
    assert_eq!(entry["error"], message);
    assert_eq!(entry["len"], 53);
    assert!(entry.get("fields").is_none());
}

#[cfg(feature = "inspect")]
#[test]
fn user_metalayer_that_is_not_msgpack() {
    let dir = scratch("not_msgpack");
    let mut bytes = std::fs::read(fixture("files/blosc2-4/meta_user.b2nd")).expect("fixture");
    // "units" holds a6 "kelvin"; a7 claims 7 bytes where 6 follow.
    let at = bytes.windows(7).position(|w| w == b"\xa6kelvin").expect("units");
    bytes[at] = 0xa7;
    let path = dir.join("raw_units.b2nd");
    std::fs::write(&path, &bytes).expect("write");
    let shown = path.display().to_string();

    let out = run(&["inspect", "--json", &shown]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let units = &json(&out)[0]["metalayers"][1];
    let keys: Vec<&str> = units.as_object().expect("object").keys().map(String::as_str).collect();
    assert_eq!(keys, ["name", "len", "hex"]);
    assert_eq!(units["hex"], "a76b656c76696e");

    let out = run(&["inspect", &shown]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout(&out).contains("  units   7 bytes  raw\n      hex:  a76b656c76696e\n"),
        "{}",
        stdout(&out)
    );
}

#[cfg(feature = "inspect")]
#[test]
fn missing_path() {
    // A directory that is not a sparse frame is walked: see tests/walk.rs.
    let missing = fixture("no-such-file.b2nd").display().to_string();
    let out = run(&["inspect", &missing]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains(&format!("metalayer: cannot read {missing}: ")), "{err}");
}

#[test]
fn encode_decode_round_trip() {
    let entries = r#"{"shape":[10,20],"chunkshape":[5,20],"blockshape":[5,5],"dtype_format":0,"dtype":"<f8"}"#;
    let out = run(&["encode", "--schema", "b2nd_v1", entries]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let hex = stdout(&out);
    assert_eq!(
        hex,
        "97000292d3000000000000000ad3000000000000001492d200000005d20000001492d200000005d20000000500db000000033c6638\n"
    );

    // Raw bytes on stdin, layout chosen from the bytes alone.
    let bytes = unhex(hex.trim());
    let out = run_stdin(&["decode", "--json", "-"], &bytes);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let decoded = json(&out);
    assert_eq!(decoded["schema"], "b2nd_v1");
    let mut want: Value = serde_json::from_str(entries).expect("json");
    let want_map = want.as_object_mut().expect("object");
    want_map.insert("version".into(), 0.into());
    want_map.insert("ndim".into(), 2.into());
    let fields = decoded["fields"].as_object().expect("fields");
    assert_eq!(
        fields.keys().collect::<Vec<_>>(),
        FIELD_NAMES.iter().collect::<Vec<_>>()
    );
    assert_eq!(Value::Object(fields.clone()), want);

    // The decoded fields, constants and lengths included, encode to the same bytes.
    let again = run(&["encode", "--schema", "b2nd_v1", &decoded["fields"].to_string()]);
    assert_eq!(stdout(&again), hex, "{}", stderr(&again));

    // -o writes the raw bytes; decode reads a file, and --hex reads what encode printed.
    let dir = scratch("round_trip");
    let file = dir.join("meta.bin");
    let out = run(&[
        "encode",
        "--schema",
        "b2nd_v1",
        "-o",
        &file.display().to_string(),
        entries,
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "");
    assert_eq!(std::fs::read(&file).expect("written"), bytes);
    let out = run(&["decode", "--schema", "b2nd_v1", &file.display().to_string()]);
    assert_eq!(
        stdout(&out),
        "b2nd_v1  53 bytes
  version:       0
  ndim:          2
  shape:         [10, 20]
  chunkshape:    [5, 20]
  blockshape:    [5, 5]
  dtype_format:  0
  dtype:         \"<f8\"
"
    );
    let out = run_stdin(&["decode", "--hex", "--json", "-"], hex.as_bytes());
    assert_eq!(json(&out)["fields"], Value::Object(fields.clone()));
}

#[test]
fn round_trip_every_schema() {
    for (schema, entries) in [
        (
            "caterva_v0",
            r#"{"shape":[5000000000],"chunkshape":[1000],"blockshape":[100]}"#,
        ),
        (
            "b2nd_v0",
            r#"{"shape":[400,3],"chunkshape":[110,3],"blockshape":[57,3],"dtype":"uint8"}"#,
        ),
        (
            "b2nd_v1",
            r#"{"shape":[],"chunkshape":[],"blockshape":[],"dtype_format":0,"dtype":"|b1"}"#,
        ),
    ] {
        let out = run(&["encode", "--schema", schema, "-o", "-", entries]);
        assert_eq!(out.status.code(), Some(0), "{schema}: {}", stderr(&out));
        let decoded = json(&run_stdin(&["decode", "--json", "-"], &out.stdout));
        assert_eq!(decoded["schema"], schema);
        let decoded_with = json(&run_stdin(&["decode", "--schema", schema, "--json", "-"], &out.stdout));
        assert_eq!(decoded, decoded_with);
        let want: Value = serde_json::from_str(entries).expect("json");
        for (k, v) in want.as_object().expect("object") {
            assert_eq!(&decoded["fields"][k], v, "{schema} {k}");
        }
    }
}

#[test]
fn decode_every_fixture_metalayer_from_its_hex() {
    for file in expected() {
        for m in file["metalayers"].as_array().expect("metalayers") {
            let name = m["name"].as_str().expect("name");
            if name != "b2nd" && name != "caterva" {
                continue;
            }
            let hex = m["hex"].as_str().expect("hex");
            let out = run_stdin(&["decode", "--hex", "--json", "-"], hex.as_bytes());
            assert_eq!(out.status.code(), Some(0), "{}: {}", file["path"], stderr(&out));
            let decoded = json(&out);
            let schema = if name == "b2nd" { "b2nd_v1" } else { "caterva_v0" };
            assert_eq!(decoded["schema"], schema);
            let back = run(&["encode", "--schema", schema, &decoded["fields"].to_string()]);
            assert_eq!(stdout(&back).trim(), hex, "{}: {}", file["path"], stderr(&back));
        }
    }
}

#[test]
fn decode_errors() {
    let out = run_stdin(&["decode", "-"], &[0x94]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out)
            .starts_with("metalayer: <stdin>: no built-in layout fits: b2nd_v1 expects 0x97 at byte 0x00, found 0x94")
    );

    // A caterva layout read as b2nd_v1, and trailing bytes.
    let caterva = unhex("95000191d3000000000000000491d20000000291d200000001");
    let out = run_stdin(&["decode", "--schema", "b2nd_v1", "-"], &caterva);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "metalayer: <stdin>: b2nd_v1: at byte 0x00 in the container: expected fixarray marker 0x97, found 0x95\n"
    );
    let mut long = caterva.clone();
    long.push(0);
    let out = run_stdin(&["decode", "-"], &long);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "metalayer: <stdin>: caterva_v0: at byte 0x19 after the last entry: expected end of input, found 1 trailing byte\n"
    );
    let out = run_stdin(&["decode", "--hex", "-"], b"95 0g");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("not hex"), "{}", stderr(&out));
    let missing = fixture("no-such-file.bin").display().to_string();
    let out = run(&["decode", &missing]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with(&format!("metalayer: cannot read {missing}: ")));
}

#[test]
fn encode_errors() {
    let cases = [
        (
            r#"{"shape":[10,20],"chunkshape":[5],"blockshape":[5,5],"dtype_format":0,"dtype":"<f8"}"#,
            "b2nd_v1: in chunkshape: expected 2 elements (the length of shape, both counted by ndim), found 1",
        ),
        (
            r#"{"ndim":3,"shape":[10,20],"chunkshape":[5,20],"blockshape":[5,5],"dtype_format":0,"dtype":"<f8"}"#,
            "b2nd_v1: in ndim: given 3, but shape, chunkshape, blockshape have 2 elements",
        ),
        (
            r#"{"version":1,"shape":[10],"chunkshape":[5],"blockshape":[5],"dtype_format":0,"dtype":"<f8"}"#,
            "b2nd_v1: in version: expected constant 0, found 1",
        ),
        (
            r#"{"shape":[10],"chunkshape":[2147483648],"blockshape":[5],"dtype_format":0,"dtype":"<f8"}"#,
            "b2nd_v1: in chunkshape[0]: expected a value in -2147483648..=2147483647, found 2147483648",
        ),
        (
            r#"{"shape":[10],"chunkshape":[5],"blockshape":[5],"dtype_format":200,"dtype":"<f8"}"#,
            "b2nd_v1: in dtype_format: expected a value in 0..=127, found 200",
        ),
        (
            r#"{"shape":[10],"chunkshape":[5],"blockshape":[5],"dtype_format":0}"#,
            "b2nd_v1: missing entry `dtype`",
        ),
        (
            r#"{"shape":[10],"chunkshape":[5],"blockshape":[5],"dtype_format":0,"dtype":"<f8","typo":1}"#,
            "b2nd_v1: unknown entry `typo`; the entries are version, ndim, shape, chunkshape, blockshape, dtype_format, dtype",
        ),
        (
            r#"{"shape":"10","chunkshape":[5],"blockshape":[5],"dtype_format":0,"dtype":"<f8"}"#,
            "b2nd_v1: in shape: expected an array of int64, found the string \"10\"",
        ),
        (
            r#"{"shape":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],"chunkshape":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],"blockshape":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],"dtype_format":0,"dtype":"<f8"}"#,
            "b2nd_v1: in shape: expected a length in 0..=16 (stored in ndim), found 17",
        ),
    ];
    for (entries, message) in cases {
        let out = run(&["encode", "--schema", "b2nd_v1", entries]);
        assert_eq!(out.status.code(), Some(1), "{entries}");
        assert_eq!(stdout(&out), "", "{entries}");
        assert_eq!(stderr(&out), format!("metalayer: {message}\n"), "{entries}");
    }
    let out = run(&["encode", "--schema", "caterva_v0", "{not json"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("metalayer: the entries are not valid JSON: "),
        "{}",
        stderr(&out)
    );
}

#[test]
fn schemas_lists_the_builtins() {
    let out = run(&["schemas"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    // c-blosc2's three, python-blosc2's twenty-two, then the frame header and trailer.
    assert_eq!(lines.len(), 27, "{text}");
    assert!(lines[25].starts_with("frame_header_v2 "), "{text}");
    assert!(lines[0].starts_with("caterva_v0   "), "{text}");
    assert!(
        lines[0].contains(" caterva ") && lines[0].contains("caterva, 5 entries"),
        "{text}"
    );
    assert!(
        lines[1].starts_with("b2nd_v0   ") && lines[1].contains("b2nd, 6 entries"),
        "{text}"
    );
    assert!(
        lines[2].starts_with("b2nd_v1   ") && lines[2].contains("b2nd, 7 entries"),
        "{text}"
    );
    assert!(
        lines[3].starts_with("b2o_v1   ") && lines[3].contains(" b2o "),
        "{text}"
    );

    let out = run(&["schemas", "--json"]);
    let list = json(&out);
    let names: Vec<&str> = list
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names[..3], ["caterva_v0", "b2nd_v0", "b2nd_v1"]);
    assert_eq!(names.len(), 27);
    assert!(names.contains(&"proxy_source_local_v0"));
    assert!(names.contains(&"proxy_source_untagged_local_v0"));
    assert_eq!(list[2]["metalayer"], "b2nd");
    assert!(
        list[2]["description"]
            .as_str()
            .unwrap_or_default()
            .contains("dtype_format")
    );
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &[][..],
        &["bogus"],
        &["inspect"],
        &["inspect", "--yaml", "x"],
        &["decode", "--schema", "b2nd_v9", "x"],
        &["decode"],
        &["encode", "{}"],
        &["encode", "--schema", "b2nd_v1"],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(stdout(&out), "", "{args:?}");
        let err = stderr(&out);
        assert!(
            err.starts_with("error: ") || err.contains("Usage: metalayer"),
            "{args:?}: {err}"
        );
    }
    let out = run(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("decode"));
    #[cfg(feature = "inspect")]
    assert!(stdout(&out).contains("inspect"));
}

#[cfg(feature = "inspect")]
#[test]
fn broken_pipe_is_quiet() {
    use std::io::Read;
    use std::process::{Command, Stdio};

    use common::BIN;

    let files = expected();
    let paths: Vec<String> = files
        .iter()
        .map(|f| fixture(f["path"].as_str().expect("path")).display().to_string())
        .collect();
    let mut child = Command::new(BIN)
        .arg("inspect")
        // Enough output to fill any pipe buffer.
        .args(paths.iter().cycle().take(paths.len() * 20))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut first = [0u8; 16];
    child
        .stdout
        .take()
        .expect("stdout")
        .read_exact(&mut first)
        .expect("some output");
    // The reader is gone now.
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("stderr");
    let status = child.wait().expect("the binary ends");
    assert_eq!(status.code(), Some(0), "{err}");
    assert_eq!(err, "");
}

#[cfg(feature = "diagram")]
/// `metalayer diagram b2nd_v1` shows the seed 002 document's shape and dtype blocks (quoted
/// from c-blosc2's README_B2ND_METALAYER.rst, indentation removed).
#[test]
fn diagram_prints_the_b2nd_v1_layout() {
    let out = std::process::Command::new(common::BIN)
        .args(["diagram", "b2nd_v1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    for line in [
        "| 9X| v | nd| 9X| shape          | 9X| chunkshape     | 9X| blockshape     |",
        "| d3| first_dim  | d3| second_dim | ... | d3| nth_dim    |",
        "| d2| first_dim  | d2| second_dim | ... | d2| nth_dim    |",
        "| XX| db| dtype_len  | dtype_string |",
        "  |   +--[msgpack] str32",
    ] {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }
    assert!(text.contains("12 + 19*ndim + len(dtype)"));
    assert!(text.contains("shape[i]       int64     4 + 9*i"));

    let out = std::process::Command::new(common::BIN)
        .args(["diagram", "no_such_schema"])
        .output()
        .unwrap();
    // A schema argument that is neither a built-in name nor a file is a usage error, as for
    // decode and encode.
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a built-in schema"));
}
