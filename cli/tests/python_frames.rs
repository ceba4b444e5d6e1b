//! `metalayer inspect --jsonl` over every frame python-blosc2 wrote with a header record in
//! `expected.json`, against what the fixture generator recorded there: the header's fields as
//! python-blosc2 reports them (`schunk.cparams`, `nbytes`, `cbytes`, ...), and each vlmetalayer's
//! chunk length, decompressed bytes and value, decoded by python's `msgpack` package (and, for
//! frames and complex numbers stored in values, by python-blosc2 itself).
#![cfg(feature = "inspect")]

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{FIXTURES, expected, run, unhex};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The records of frames with a header record, and `inspect`'s report of each, by path.
fn reports() -> Vec<(Value, Value)> {
    let records: Vec<Value> = expected().into_iter().filter(|r| r.get("header").is_some()).collect();
    assert!(records.len() >= 59, "{} frames with a header record", records.len());
    let paths: Vec<PathBuf> = records
        .iter()
        .map(|r| Path::new(FIXTURES).join(r["path"].as_str().expect("path")))
        .collect();
    let mut args = vec![PathBuf::from("inspect"), PathBuf::from("--jsonl")];
    args.extend(paths.iter().cloned());
    let out = run(&args);
    let stdout = String::from_utf8(out.stdout).expect("UTF-8");
    let mut by_path: BTreeMap<String, Value> = stdout
        .lines()
        .map(|line| {
            let report: Value = serde_json::from_str(line).expect("a JSON line");
            (report["path"].as_str().expect("path").to_owned(), report)
        })
        .collect();
    records
        .into_iter()
        .zip(&paths)
        .map(|(record, path)| {
            let report = by_path
                .remove(&path.display().to_string())
                .unwrap_or_else(|| panic!("no report for {}", path.display()));
            (record, report)
        })
        .collect()
}

/// A value in the generator's tagged form of python's `msgpack` decoding, in the command's JSON
/// form: `{"$bytes": hex}` is `{"bin": hex}`, `{"$float": "nan"}` the string `"NaN"`,
/// `{"$ext": t, "hex": h, "payload": p}` is `{"ext": t, "data": h, "value": p}`, a `$map` of
/// integer keys an object keyed by their decimal text.
fn commands_form(value: &Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(commands_form).collect()),
        Value::Object(map) => {
            if let Some(hex) = map.get("$bytes") {
                return json!({ "bin": hex });
            }
            if let Some(Value::String(f)) = map.get("$float") {
                return Value::String(
                    match f.as_str() {
                        "nan" => "NaN",
                        other => other,
                    }
                    .to_owned(),
                );
            }
            if let Some(ty) = map.get("$ext") {
                let mut ext = Map::new();
                ext.insert("ext".to_owned(), ty.clone());
                ext.insert("data".to_owned(), map["hex"].clone());
                if let Some(payload) = map.get("payload") {
                    ext.insert("value".to_owned(), commands_form(payload));
                }
                return Value::Object(ext);
            }
            if let Some(Value::Array(pairs)) = map.get("$map") {
                let mut object = Map::new();
                for pair in pairs {
                    let key = match &pair[0] {
                        Value::String(s) => s.clone(),
                        Value::Number(n) => n.to_string(),
                        other => panic!("a map key the test does not convert: {other}"),
                    };
                    object.insert(key, commands_form(&pair[1]));
                }
                return Value::Object(object);
            }
            Value::Object(map.iter().map(|(k, v)| (k.clone(), commands_form(v))).collect())
        }
        scalar => scalar.clone(),
    }
}

/// Our value with the keys the generator does not record taken out of ext objects: a frame's
/// report (checked against python-blosc2's own reading apart) and a complex number's parts.
fn without_readings(value: &Value, frames: &mut Vec<Value>) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(|v| without_readings(v, frames)).collect()),
        Value::Object(map) if map.contains_key("ext") && map.contains_key("data") => {
            let mut ext = map.clone();
            if let Some(frame) = ext.remove("frame") {
                frames.push(frame);
            }
            if ext["ext"] == 44 {
                ext.remove("value");
            }
            if let Some(inner) = ext.get_mut("value") {
                *inner = without_readings(inner, frames);
            }
            Value::Object(ext)
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), without_readings(v, frames)))
                .collect(),
        ),
        scalar => scalar.clone(),
    }
}

#[test]
fn header_fields_are_python_blosc2s() {
    let mut checked = 0;
    for (record, report) in reports() {
        let what = record["path"].as_str().unwrap_or_default();
        let want = &record["header"];
        let got = &report["header"];
        assert!(report.get("error").is_none(), "{what}: {report}");
        for key in [
            "header_len",
            "frame_len",
            "nbytes",
            "cbytes",
            "typesize",
            "blocksize",
            "chunksize",
            "codec",
            "codec_meta",
            "clevel",
            "use_dict",
            "splitmode",
            "filters",
            "filters_meta",
            "nthreads_compress",
            "nthreads_decompress",
            "has_vlmetalayers",
        ] {
            assert_eq!(got[key], want[key], "{what}: {key}");
        }
        // The header states the number of chunks unless they vary in size (chunksize 0).
        match got["nchunks"].as_i64() {
            Some(n) => assert_eq!(Value::from(n), want["nchunks"], "{what}: nchunks"),
            None => assert_eq!(want["chunksize"], 0, "{what}: nchunks left out"),
        }
        let kind = if want["contiguous"] == true {
            "contiguous"
        } else {
            "sparse"
        };
        assert_eq!(got["frame_type"], kind, "{what}");
        let (nbytes, cbytes) = (want["nbytes"].as_f64(), want["cbytes"].as_f64());
        match (nbytes, cbytes) {
            (Some(n), Some(c)) if c > 0.0 => assert_eq!(got["ratio"].as_f64(), Some(n / c), "{what}"),
            _ => assert_eq!(got["ratio"], Value::Null, "{what}"),
        }
        let trailer = &record["trailer"];
        assert_eq!(report["trailer"]["offset"], trailer["offset"], "{what}");
        assert_eq!(report["trailer"]["trailer_len"], trailer["trailer_len"], "{what}");
        checked += 1;
    }
    assert_eq!(checked, 59);
}

#[test]
fn vlmetalayers_are_what_python_reads() {
    let (mut values, mut summaries, mut frames_checked, mut complexes) = (0, 0, 0, 0);
    for (record, report) in reports() {
        let what = record["path"].as_str().unwrap_or_default();
        let want = record["vlmetalayers"].as_array().cloned().unwrap_or_default();
        let got = report["vlmetalayers"].as_array().cloned().expect("vlmetalayers");
        let names = |items: &[Value]| -> Vec<Value> { items.iter().map(|m| m["name"].clone()).collect() };
        assert_eq!(names(&got), names(&want), "{what}");
        for (g, w) in got.iter().zip(&want) {
            let what = format!("{what} {}", w["name"]);
            assert_eq!(g["chunk_len"], w["chunk_len"], "{what}");
            assert_eq!(g["len"], w["raw_len"], "{what}");
            let hex = g["hex"].as_str().unwrap_or_else(|| panic!("{what}: {g}"));
            match w["raw_hex"].as_str() {
                Some(raw) => assert_eq!(hex, raw, "{what}"),
                None => assert_eq!(sha256_hex(&unhex(hex)), w["raw_sha256"], "{what}"),
            }
            if let Some(summary) = w["summary"].as_object() {
                check_summary(&what, &g["msgpack"], summary);
                summaries += 1;
            } else if w["msgpack_error"].is_null() {
                let mut frames = Vec::new();
                let ours = without_readings(&g["msgpack"], &mut frames);
                assert_eq!(ours, commands_form(&w["msgpack"]), "{what}");
                values += 1;
                frames_checked += check_frames(&what, &frames, &w["blosc2"]);
                complexes += check_complex(&what, &g["msgpack"], &w["blosc2"]);
            } else {
                assert!(
                    g.get("msgpack").is_none(),
                    "{what}: python's msgpack did not read it: {g}"
                );
            }
        }
    }
    println!("{values} values, {summaries} summaries, {frames_checked} nested frames, {complexes} complex numbers");
    assert!(
        values >= 200 && summaries >= 10,
        "{values} values, {summaries} summaries"
    );
    assert!(frames_checked >= 7, "{frames_checked} nested frames");
    assert!(complexes >= 3, "{complexes} complex numbers");
}

/// A large value, recorded by its type, length and SHA-256.
fn check_summary(what: &str, ours: &Value, summary: &Map<String, Value>) {
    let (len, sha) = match summary["type"].as_str() {
        Some("str") => {
            let s = ours.as_str().unwrap_or_else(|| panic!("{what}: a string"));
            (s.chars().count(), sha256_hex(s.as_bytes()))
        }
        Some("bytes") => {
            let bytes = unhex(ours["bin"].as_str().unwrap_or_else(|| panic!("{what}: bytes")));
            (bytes.len(), sha256_hex(&bytes))
        }
        other => panic!("{what}: a summary of type {other:?}"),
    };
    assert_eq!(Some(len as u64), summary["len"].as_u64(), "{what}");
    assert_eq!(Value::String(sha), summary["sha256"], "{what}");
}

/// The frames stored in a value (ext 42), as python-blosc2 opened them: an NDArray's shape,
/// chunks, blocks, dtype, metalayer names and vlmeta; an SChunk's sizes. Returns how many.
fn check_frames(what: &str, frames: &[Value], blosc2: &Value) -> usize {
    let mut opened = Vec::new();
    collect_opened(blosc2, &mut opened);
    assert_eq!(frames.len(), opened.len(), "{what}: {blosc2}");
    for (frame, (tag, py)) in frames.iter().zip(&opened) {
        assert!(frame.get("error").is_none(), "{what}: {frame}");
        let mut names: Vec<String> = frame["metalayers"]
            .as_array()
            .expect("metalayers")
            .iter()
            .map(|m| m["name"].as_str().unwrap_or_default().to_owned())
            .collect();
        names.sort();
        match tag.as_str() {
            "$NDArray" => {
                let b2nd = &frame["metalayers"][0]["fields"];
                assert_eq!(b2nd["shape"], py["shape"], "{what}");
                assert_eq!(b2nd["chunkshape"], py["chunks"], "{what}");
                assert_eq!(b2nd["blockshape"], py["blocks"], "{what}");
                assert_eq!(b2nd["dtype"], py["dtype"], "{what}");
                assert_eq!(json!(names), py["meta"], "{what}");
                let vlmeta: Map<String, Value> = frame["vlmetalayers"]
                    .as_array()
                    .expect("vlmetalayers")
                    .iter()
                    .map(|m| (m["name"].as_str().unwrap_or_default().to_owned(), m["msgpack"].clone()))
                    .collect();
                assert_eq!(Value::Object(vlmeta), py["vlmeta"], "{what}");
            }
            "$SChunk" => {
                let header = &frame["header"];
                assert_eq!(header["typesize"], py["typesize"], "{what}");
                assert_eq!(header["chunksize"], py["chunksize"], "{what}");
                assert_eq!(header["nbytes"], py["nbytes"], "{what}");
                assert_eq!(json!(names), py["meta"], "{what}");
            }
            // Containers: python-blosc2 reads their items; here the frame's own metalayer names
            // the container.
            "$ObjectArray" => assert_eq!(names, ["vlarray"], "{what}"),
            "$BatchArray" => assert_eq!(names, ["batcharray"], "{what}"),
            "$EmbedStore" => assert_eq!(names, ["b2embed"], "{what}"),
            other => panic!("{what}: a frame python-blosc2 opened as {other}"),
        }
    }
    frames.len()
}

/// The objects python-blosc2 opened from frames, in order of appearance.
fn collect_opened(value: &Value, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Array(items) => items.iter().for_each(|v| collect_opened(v, out)),
        Value::Object(map) => {
            for tag in ["$NDArray", "$SChunk", "$ObjectArray", "$BatchArray", "$EmbedStore"] {
                if let Some(inner) = map.get(tag) {
                    out.push((tag.to_owned(), inner.clone()));
                    return;
                }
            }
            map.values().for_each(|v| collect_opened(v, out));
        }
        _ => {}
    }
}

/// A complex number (ext 44) against python-blosc2's: `[real, imaginary]`.
fn check_complex(what: &str, ours: &Value, blosc2: &Value) -> usize {
    let Some(parts) = blosc2.get("$complex") else {
        return 0;
    };
    assert_eq!(ours["ext"], 44, "{what}");
    assert_eq!(ours["value"], commands_form(parts), "{what}");
    1
}
