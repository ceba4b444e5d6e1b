//! `metalayer inspect` on vlmetalayers: frames stored in values, nested to the depth limit; chunks
//! that lie about their size; trailers that cannot be read; vlmetalayers named like built-in
//! layouts, and decoded with `--schemas`.
//!
//! Frames are built by `common::frame` (see there) from `blosc2-4/meta_user.b2nd`'s header and
//! a trailer written byte by byte from the msgpack spec.
#![cfg(feature = "inspect")]

mod common;

use common::{chunk, ext42, frame, json, read_fixture, run, scratch, stderr, write};

#[test]
fn built_frames_read_as_built() {
    let dir = scratch("plain");
    // fixstr "kelvin", and fixarray [1, nil, true].
    let path = write(
        &dir,
        "two.b2nd",
        &frame(&[("units", chunk(b"\xa6kelvin")), ("list", chunk(b"\x93\x01\xc0\xc3"))]),
    );
    let out = run(&["inspect", "--json", &path]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = &json(&out)[0];
    assert_eq!(report["header"]["has_vlmetalayers"], true);
    let vl = &report["vlmetalayers"];
    assert_eq!(vl[0]["name"], "units");
    assert_eq!(vl[0]["chunk_len"], 32 + 7);
    assert_eq!(vl[0]["len"], 7);
    // Each byte once: the value, without its bytes but with --hex.
    assert!(vl[0].get("hex").is_none(), "{}", vl[0]);
    assert_eq!(vl[0]["msgpack"], "kelvin");
    let out = run(&["inspect", "--json", "--hex", &path]);
    assert_eq!(json(&out)[0]["vlmetalayers"][0]["hex"], "a66b656c76696e");
    assert_eq!(vl[1]["msgpack"], serde_json::json!([1, null, true]));

    let out = run(&["inspect", &path]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with(&format!("{path}: 5 metalayers, 2 vlmetalayers\n")),
        "{text}"
    );
    assert!(
        text.contains("\n  vlmeta units  7 bytes (39 stored)  msgpack\n             value:  \"kelvin\"\n"),
        "{text}"
    );
}

#[test]
fn frames_in_values_are_inspected_to_the_depth_limit() {
    let dir = scratch("nested");
    // Level 40 holds a string; each level above holds the one below in an ext 42 "inner".
    // Levels count as JSON nests them: a frame's vlmetalayer value is three levels below the
    // frame (its report, the array, the item), the frame in its ext 42 one more. The frame at
    // level k is 4k levels down, and the limit of 64 levels stops level 16.
    let mut inner = frame(&[("leaf", chunk(b"\xa4deep"))]);
    for _ in 0..40 {
        inner = frame(&[("inner", chunk(&ext42(&inner)))]);
    }
    let path = write(&dir, "nested.b2nd", &inner);
    let out = run(&["inspect", "--json", &path]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let mut at = json(&out)[0].clone();
    for level in 1..16 {
        let value = &at["vlmetalayers"][0]["msgpack"];
        assert_eq!(value["ext"], 42, "level {level}");
        let nested = &value["frame"];
        assert_eq!(nested["metalayers"][0]["name"], "b2nd", "level {level}");
        assert_eq!(nested["header"]["header_len"], 240, "level {level}");
        at = nested.clone();
    }
    // The frame at level 16 is not inspected: its bytes are kept, with why.
    let value = &at["vlmetalayers"][0]["msgpack"];
    assert!(value.get("frame").is_none(), "{value}");
    let why = "not inspected: nested deeper than 64 levels (arrays, maps, ext payloads and frames count together)";
    assert_eq!(value["error"], why);
    assert!(
        value["data"]
            .as_str()
            .unwrap_or_default()
            .starts_with("9ea862326672616d6500")
    );
    // The error says where it is, through every level.
    let err = stderr(&out);
    let place = "vlmetalayer \"inner\" (chunk at file byte 0x";
    assert!(err.starts_with(&format!("metalayer: {path}: {place}")), "{err}");
    assert_eq!(err.matches("frame at byte 0x00 of the value").count(), 16, "{err}");
    assert!(err.trim_end().ends_with(why), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");

    // Text shows each nested frame below the value that holds it, indented.
    let out = run(&["inspect", &path]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(r#"value:  {"frame": "#), "{text}");
    assert!(
        text.contains("\n             frame at byte 0x00 of the value: 5 metalayers, 1 vlmetalayer\n"),
        "{text}"
    );
    assert_eq!(
        text.matches("of the value: 5 metalayers, 1 vlmetalayer").count(),
        15,
        "{text}"
    );
}

#[test]
fn a_chunk_that_lies_about_its_size_is_an_error_for_its_vlmetalayer() {
    let dir = scratch("lying");
    let mut lying = chunk(b"\xa6kelvin");
    // nbytes 0x7fffffff: more than the 64 MiB a vlmetalayer may decompress to.
    lying[4..8].copy_from_slice(&0x7fff_ffffu32.to_le_bytes());
    let path = write(&dir, "lying.b2nd", &frame(&[("good", chunk(b"\x01")), ("bad", lying)]));
    let out = run(&["inspect", "--json", &path]);
    assert_eq!(out.status.code(), Some(1));
    let report = &json(&out)[0];
    assert_eq!(report["vlmetalayers"][0]["msgpack"], 1);
    let bad = &report["vlmetalayers"][1];
    assert_eq!(bad["name"], "bad");
    assert_eq!(bad["chunk_len"], 39);
    assert!(bad.get("hex").is_none() && bad.get("len").is_none(), "{bad}");
    let error = bad["error"].as_str().unwrap_or_default();
    assert!(error.contains("2147483647"), "{error}");
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!(
            "metalayer: {path}: vlmetalayer \"bad\" (chunk at file byte 0x"
        )),
        "{err}"
    );
    assert!(err.contains(error), "{err}");
}

#[test]
fn a_trailer_that_cannot_be_read_leaves_the_metalayers() {
    let dir = scratch("trailer");
    let original = read_fixture("files/blosc2-4/meta_user.b2nd");
    // The header (240 bytes) is whole; frame_len says 315.
    let path = write(&dir, "cut.b2nd", &original[..300]);
    let out = run(&["inspect", "--json", &path]);
    assert_eq!(out.status.code(), Some(1));
    let report = &json(&out)[0];
    assert_eq!(report["metalayers"].as_array().map(Vec::len), Some(5));
    assert!(report.get("header").is_none() && report.get("vlmetalayers").is_none());
    let error = report["error"].as_str().unwrap_or_default();
    assert_eq!(
        error,
        "the trailer: at byte 0x10: frame_len 315 runs past the end of the file (300 bytes)"
    );
    assert_eq!(stderr(&out), format!("metalayer: {path}: {error}\n"));

    let out = run(&["inspect", &path]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with(&format!("{path}: 5 metalayers; the trailer could not be read\n  b2nd ")),
        "{text}"
    );
}

#[test]
fn vlmetalayers_use_only_the_schemas_given() {
    let dir = scratch("schemas");
    // A vlmetalayer named like a built-in layout holds a plain string: shown as msgpack.
    let path = write(
        &dir,
        "named.b2nd",
        &frame(&[("b2nd", chunk(b"\xa3abc")), ("point", chunk(b"\x92\x01\x02"))]),
    );
    let out = run(&["inspect", "--json", &path]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = &json(&out)[0];
    assert_eq!(report["vlmetalayers"][0]["msgpack"], "abc");
    assert_eq!(report["vlmetalayers"][1]["msgpack"], serde_json::json!([1, 2]));

    // With a schema for "point", its value is decoded by it.
    let schemas = dir.join("schemas");
    std::fs::create_dir_all(&schemas).expect("mkdir");
    std::fs::write(
        schemas.join("point_v1.toml"),
        r#"[schema]
metalayer = "point"
description = "Two integers"
source = "cli/tests/vlmeta.rs"

[container]
wire = "array"

[[entry]]
name = "x"
wire = "int"

[[entry]]
name = "y"
wire = "int"
"#,
    )
    .expect("write schema");
    let schemas = schemas.display().to_string();
    let out = run(&["inspect", "--json", "--schemas", &schemas, &path]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let point = &json(&out)[0]["vlmetalayers"][1];
    assert_eq!(point["schema"], "point_v1");
    assert_eq!(point["fields"], serde_json::json!({"x": 1, "y": 2}));

    // A value the schema of its name does not read is an error.
    let bad = write(&dir, "bad.b2nd", &frame(&[("point", chunk(b"\x93\x01\x02\x03"))]));
    let out = run(&["inspect", "--json", "--schemas", &schemas, &bad]);
    assert_eq!(out.status.code(), Some(1));
    let point = &json(&out)[0]["vlmetalayers"][0];
    assert_eq!(point["hex"], "93010203");
    // Two entries take the header fixarray(2), 0x92, the layout's first byte.
    let error = point["error"].as_str().unwrap_or_default();
    assert_eq!(
        error,
        "no point layout fits: at byte 0x00 point_v1 expects 0x92; found 0x93"
    );
    assert!(
        stderr(&out).contains("vlmetalayer \"point\" (chunk at file byte 0x"),
        "{}",
        stderr(&out)
    );
}
