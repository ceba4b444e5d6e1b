//! `metalayer inspect --jsonl` over every frame python-blosc2 wrote with a header record in
//! `expected.json`, against what the fixture generator recorded there: the header's fields as
//! python-blosc2 reports them (`schunk.cparams`, `nbytes`, `cbytes`, `cratio`, ...), each of
//! python-blosc2's own metalayers typed by a built-in layout with the value python's `msgpack`
//! read, and each vlmetalayer's chunk length, decompressed bytes and value, decoded by python's
//! `msgpack` package (and, for frames and complex numbers stored in values, by python-blosc2
//! itself). The frames are those of python-blosc2 4.14.1, 3.12.2 and 2.7.1, the member files of
//! their `.b2d` stores, and the members of their `.b2z` stores, cut out of the zip files at the
//! offsets python's `zipfile` gave.
#![cfg(feature = "inspect")]

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{FIXTURES, PYTHON_BLOSC2_NAMES, expected, expected_stores, same_value, scratch, stderr, unhex};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The records of frames with a header record, and `inspect`'s report of each, by path.
fn reports() -> Vec<(Value, Value)> {
    let records: Vec<Value> = expected().into_iter().filter(|r| r.get("header").is_some()).collect();
    assert_eq!(records.len(), 124, "frames with a header record");
    let paths: Vec<PathBuf> = records
        .iter()
        .map(|r| Path::new(FIXTURES).join(r["path"].as_str().expect("path")))
        .collect();
    inspected(records, paths)
}

/// `inspect --jsonl --hex` over `paths`, which must read cleanly (exit status 0, nothing on
/// stderr), each report beside the record of its path: the bytes of each value are compared
/// with python-blosc2's. Without `--hex`, the reports are the same but for those bytes.
fn inspected(records: Vec<Value>, paths: Vec<PathBuf>) -> Vec<(Value, Value)> {
    let (_, out) = common::run_with_and_without_hex(&paths);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
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
            (Some(n), Some(c)) if c > 0.0 => {
                assert_eq!(got["ratio"].as_f64(), Some(n / c), "{what}");
                // python-blosc2's own cratio, where the generator recorded it.
                if let Some(cratio) = want.get("cratio") {
                    assert_eq!(got["ratio"].as_f64(), cratio.as_f64(), "{what}: cratio");
                }
            }
            _ => assert_eq!(got["ratio"], Value::Null, "{what}"),
        }
        let trailer = &record["trailer"];
        assert_eq!(report["trailer"]["offset"], trailer["offset"], "{what}");
        assert_eq!(report["trailer"]["trailer_len"], trailer["trailer_len"], "{what}");
        checked += 1;
    }
    assert_eq!(checked, 124);
}

/// Checks a frame's report against its record: its metalayers' names and lengths, python-blosc2's
/// own ones typed by a built-in layout with python's value, the others (user metalayers) shown as
/// python's msgpack value; its vlmetalayers' names, lengths and bytes. Returns the schemas of the
/// typed metalayers.
fn check_frame(what: &str, report: &Value, record: &Value) -> Vec<String> {
    assert!(report.get("error").is_none(), "{what}: {report}");
    let got = report["metalayers"].as_array().expect("metalayers");
    let want = record["metalayers"].as_array().expect("metalayers");
    assert_eq!(got.len(), want.len(), "{what}");
    let mut schemas = Vec::new();
    for (g, w) in got.iter().zip(want) {
        let name = w["name"].as_str().expect("name");
        let what = format!("{what} {name}");
        assert_eq!(g["name"], w["name"], "{what}");
        assert_eq!(
            g["len"],
            Value::from(w["hex"].as_str().expect("hex").len() / 2),
            "{what}"
        );
        assert!(g.get("warning").is_none() && g.get("error").is_none(), "{what}: {g}");
        if name == "b2nd" {
            assert_eq!(g["schema"], "b2nd_v1", "{what}");
            let array = &record["array"];
            for (field, key) in [("shape", "shape"), ("chunkshape", "chunks"), ("blockshape", "blocks")] {
                assert_eq!(g["fields"][field], array[key], "{what}");
            }
            assert_eq!(g["fields"]["dtype"], array["dtype"], "{what}");
        } else if PYTHON_BLOSC2_NAMES.contains(&name) {
            let schema = g["schema"]
                .as_str()
                .unwrap_or_else(|| panic!("{what}: no built-in layout read it: {g}"));
            let value = g.get("fields").unwrap_or(&g["value"]);
            assert!(
                same_value(value, &w["msgpack"]),
                "{what}: {schema} reads {value}, python read {}",
                w["msgpack"]
            );
            schemas.push(schema.to_owned());
        } else {
            assert_eq!(g["hex"], w["hex"], "{what}");
            assert_eq!(g["msgpack"], commands_form(&w["msgpack"]), "{what}");
        }
    }
    let got = report["vlmetalayers"].as_array().expect("vlmetalayers");
    let want = record["vlmetalayers"].as_array().expect("vlmetalayers");
    let names = |items: &[Value]| -> Vec<Value> { items.iter().map(|m| m["name"].clone()).collect() };
    assert_eq!(names(got), names(want), "{what}");
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g["chunk_len"], w["chunk_len"], "{what} {}", w["name"]);
        assert_eq!(g["len"], w["raw_len"], "{what} {}", w["name"]);
        if let Some(raw) = w["raw_hex"].as_str() {
            assert_eq!(g["hex"], raw, "{what} {}", w["name"]);
        }
    }
    schemas
}

#[test]
fn python_blosc2_metalayers_are_typed_by_built_in_layouts() {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (record, report) in reports() {
        let what = record["path"].as_str().unwrap_or_default();
        for schema in check_frame(what, &report, &record) {
            *seen.entry(schema).or_default() += 1;
        }
    }
    let counts: Vec<(&str, usize)> = seen.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    // Each shape python-blosc2 4.14.1, 3.12.2 and 2.7.1 wrote into these frames, with how often.
    assert_eq!(
        counts,
        [
            ("b2dict_v1", 2),
            ("b2embed_v1", 4),
            ("b2o_v1", 6),
            ("b2tree_v1", 4),
            ("batcharray_v1", 10),
            ("ctable_varlen_scalar_v1", 5),
            ("lazyarray_v0", 6),
            ("listarray_scalar_v1", 1),
            ("listarray_string_v1", 2),
            ("proxy_source_caterva2_v0", 1),
            ("proxy_source_custom_v0", 2),
            ("proxy_source_dataset_v0", 1),
            ("proxy_source_local_v0", 4),
            ("proxy_source_memory_v0", 2),
            ("proxy_source_untagged_caterva2_auth_v0", 1),
            ("proxy_source_untagged_caterva2_v0", 1),
            ("proxy_source_untagged_local_v0", 4),
            ("proxy_source_untagged_memory_v0", 4),
            ("vlarray_v1", 3),
        ]
    );
}

/// Each `.b2d` store inspected as the directory it is: the command walks it and finds exactly
/// its member files, which read as python-blosc2 read them.
#[test]
fn directory_stores_inspect_member_by_member() {
    let frames: BTreeMap<String, Value> = expected()
        .into_iter()
        .map(|r| (r["path"].as_str().expect("path").to_owned(), r))
        .collect();
    let (mut stores, mut embedded) = (0, 0);
    for store in expected_stores().into_iter().filter(|s| s["store"] == "directory") {
        let rel = store["path"].as_str().expect("path");
        let members = store["members"].as_array().expect("members");
        let (held, reports) = store_lines(&Path::new(FIXTURES).join(rel), rel);
        embedded += check_embedded(&Path::new(FIXTURES).join(rel).display().to_string(), &held, &store);
        // The walk's order is the members' (file names compared component by component).
        assert_eq!(reports.len(), members.len(), "{rel}");
        for (report, member) in reports.iter().zip(members) {
            let path = member["path"].as_str().expect("path");
            assert_eq!(
                report["path"],
                Path::new(FIXTURES).join(path).display().to_string(),
                "{rel}"
            );
            let record = &frames[path];
            assert_eq!(record["member_of"], rel, "{path}");
            check_frame(path, report, record);
            // The store's node of this member: python-blosc2's view of it through the store.
            let name = member["name"].as_str().expect("name");
            let node = store["nodes"]
                .as_array()
                .expect("nodes")
                .iter()
                .find(|n| n["member"] == name);
            if let Some(node) = node {
                check_node(path, report, node);
            }
        }
        stores += 1;
    }
    assert_eq!(stores, 5);
    // Embedded in embed.b2e: 3.12.2's DictStore 2, its TreeStore 3, 4.14.1's TreeStore 3.
    assert_eq!(embedded, 2 + 3 + 3);
}

/// `inspect --jsonl` of the store `path` (named `rel` in messages), which must read cleanly:
/// the lines of the frames its embed stores hold, and the other lines.
fn store_lines(path: &Path, rel: &str) -> (Vec<Value>, Vec<Value>) {
    let (_, out) = common::run_with_and_without_hex(&[path]);
    assert_eq!(out.status.code(), Some(0), "{rel}: {}", stderr(&out));
    assert_eq!(stderr(&out), "", "{rel}");
    String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a JSON line"))
        .partition(common::held_by_embed_store)
}

/// The frames an EmbedStore holds, reported after it as `store/embed.b2e/key`, against the
/// store's nodes python-blosc2 read out of embed.b2e (`"embedded"`: where in its data); the
/// keys it holds that python-blosc2 shows as no node (a TreeStore's `__vlmeta__`) are frames too.
/// Returns how many nodes were checked.
fn check_embedded(store_path: &str, held: &[Value], store: &Value) -> usize {
    let nodes: Vec<&Value> = store["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .filter(|n| !n["embedded"].is_null())
        .collect();
    let mut checked = 0;
    for report in held {
        let path = report["path"].as_str().expect("path");
        let key = path
            .strip_prefix(&format!("{store_path}/embed.b2e"))
            .unwrap_or_else(|| panic!("{path}: not in {store_path}/embed.b2e"));
        assert!(report.get("error").is_none(), "{path}: {report}");
        match nodes.iter().find(|n| n["key"] == key) {
            Some(node) => {
                assert_eq!(report["header"]["frame_len"], node["embedded"]["length"], "{path}");
                check_node(path, report, node);
                checked += 1;
            }
            None => assert!(key.ends_with("__vlmeta__"), "{path}: python-blosc2 has no node {key}"),
        }
    }
    assert_eq!(checked, nodes.len(), "{store_path}");
    checked
}

/// A store's node (as python-blosc2 opened it through the store) against the report of the
/// frame it is stored in.
fn check_node(what: &str, report: &Value, node: &Value) {
    let header = &report["header"];
    if let Some(codec) = node.get("codec") {
        assert_eq!(&header["codec"], codec, "{what}");
        assert_eq!(header["clevel"], node["clevel"], "{what}");
        assert_eq!(header["nbytes"], node["nbytes"], "{what}");
        assert_eq!(header["cbytes"], node["cbytes"], "{what}");
        if node["cbytes"].as_u64() > Some(0) {
            assert_eq!(header["ratio"].as_f64(), node["cratio"].as_f64(), "{what}");
        }
    }
    if node["kind"] == "NDArray" {
        let b2nd = &report["metalayers"][0];
        assert_eq!(b2nd["name"], "b2nd", "{what}");
        assert_eq!(b2nd["fields"]["shape"], node["shape"], "{what}");
        assert_eq!(b2nd["fields"]["chunkshape"], node["chunks"], "{what}");
        assert_eq!(b2nd["fields"]["blockshape"], node["blocks"], "{what}");
        assert_eq!(b2nd["fields"]["dtype"], node["dtype"], "{what}");
    }
}

/// The members of each `.b2z` store, cut out of the zip file at the offsets python's `zipfile`
/// gave (the command does not read zip files), inspected as frames: each is the frame python-blosc2
/// opened at that offset, whose record is the member's own or that of the `.b2d` file with the
/// same bytes.
#[test]
fn zip_store_members_inspect_cleanly() {
    let frames: BTreeMap<String, Value> = expected()
        .into_iter()
        .map(|r| (r["path"].as_str().expect("path").to_owned(), r))
        .collect();
    let dir = scratch("zip-members");
    let (mut records, mut paths, mut nodes) = (Vec::new(), Vec::new(), Vec::new());
    for store in expected_stores().into_iter().filter(|s| s["store"] == "zip") {
        let rel = store["path"].as_str().expect("path");
        let zip = std::fs::read(Path::new(FIXTURES).join(rel)).expect("the zip file");
        for (i, member) in store["members"].as_array().expect("members").iter().enumerate() {
            let name = member["name"].as_str().expect("name");
            let (offset, size) = (
                member["offset"].as_u64().expect("offset") as usize,
                member["size"].as_u64().expect("size") as usize,
            );
            assert_eq!(member["compress_type"], "stored", "{rel} {name}");
            let bytes = &zip[offset..offset + size];
            assert_eq!(sha256_hex(bytes), member["sha256"], "{rel} {name}");
            let record = match member["same_frame_as"].as_str() {
                Some(twin) => {
                    let twin_bytes = std::fs::read(Path::new(FIXTURES).join(twin)).expect("the twin");
                    assert_eq!(bytes, &twin_bytes[..], "{rel} {name}: {twin}");
                    frames[twin].clone()
                }
                None => member["frame"].clone(),
            };
            let path = dir.join(format!("{}-{i}.frame", rel.replace('/', "_")));
            std::fs::write(&path, bytes).expect("write");
            let mut record = record;
            record["path"] = Value::from(format!("{rel}!{name}"));
            nodes.push(
                store["nodes"]
                    .as_array()
                    .expect("nodes")
                    .iter()
                    .find(|n| n["member"] == name)
                    .cloned(),
            );
            records.push(record);
            paths.push(path);
        }
    }
    assert_eq!(records.len(), 34);
    let mut full = 0;
    for ((record, report), node) in inspected(records, paths).into_iter().zip(nodes) {
        let what = record["path"].as_str().unwrap_or_default();
        check_frame(what, &report, &record);
        assert_eq!(report["header"]["header_len"], record["header"]["header_len"], "{what}");
        assert_eq!(report["header"]["frame_len"], record["header"]["frame_len"], "{what}");
        if let Some(node) = node {
            check_node(what, &report, &node);
        }
        full += 1;
    }
    assert_eq!(full, 34);
}

/// Each `.b2z` store inspected as the zip file it is: the command reads its central directory and
/// reports every member's frame in place, named `store.b2z/member`, in name order, exit status 0;
/// each is the frame python-blosc2 opened at the offset python's `zipfile` gave, and its node
/// (python-blosc2's reading through the store) matches.
#[test]
fn zip_stores_inspect_in_place() {
    let frames: BTreeMap<String, Value> = expected()
        .into_iter()
        .map(|r| (r["path"].as_str().expect("path").to_owned(), r))
        .collect();
    let (mut stores, mut members_checked, mut nodes_checked, mut embedded) = (0, 0, 0, 0);
    for store in expected_stores().into_iter().filter(|s| s["store"] == "zip") {
        let rel = store["path"].as_str().expect("path");
        let zip = Path::new(FIXTURES).join(rel);
        let (held, reports) = store_lines(&zip, rel);
        embedded += check_embedded(&zip.display().to_string(), &held, &store);
        let mut members: Vec<&Value> = store["members"].as_array().expect("members").iter().collect();
        // Name order, component by component, as the walk of the `.b2d` twin orders its files.
        members.sort_by(|a, b| {
            let key = |m: &Value| {
                m["name"]
                    .as_str()
                    .expect("name")
                    .split('/')
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            };
            key(a).cmp(&key(b))
        });
        assert_eq!(reports.len(), members.len(), "{rel}");
        for (report, member) in reports.iter().zip(members) {
            let name = member["name"].as_str().expect("name");
            assert_eq!(report["path"], format!("{}/{name}", zip.display()), "{rel}");
            let what = format!("{rel}/{name}");
            let record = match member["same_frame_as"].as_str() {
                Some(twin) => frames[twin].clone(),
                None => member["frame"].clone(),
            };
            check_frame(&what, report, &record);
            assert_eq!(report["header"]["frame_len"], member["size"], "{what}");
            assert_eq!(report["header"]["header_len"], record["header"]["header_len"], "{what}");
            members_checked += 1;
            let node = store["nodes"]
                .as_array()
                .expect("nodes")
                .iter()
                .find(|n| n["member"] == name);
            if let Some(node) = node {
                check_node(&what, report, node);
                nodes_checked += 1;
            }
        }
        stores += 1;
    }
    assert_eq!((stores, members_checked), (5, 34));
    // The members python-blosc2 names as a node: 3 + 3 (3.12.2), 13 + 7 + 3 (4.14.1).
    assert_eq!(nodes_checked, 29);
    assert_eq!(embedded, 2 + 3 + 3);
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
