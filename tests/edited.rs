//! The frames `metalayer set` edited (`tests/fixtures/edits/frames/`, made by
//! `tests/fixtures/edits/verify.py` from the cases of `cases.json`): the library makes them
//! again byte for byte, and python-blosc2 2.x and 4.x (4.x only for a member of a `.b2z`
//! store, whose zip python's zipfile checks too) read in them the new metalayers and
//! vlmetalayers, and the chunks of the frames they were made from (`readings.json`).

use std::path::{Path, PathBuf};

use metalayer::frame::edit::Edit;
use serde_json::{Map, Value};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

fn load(rel: &str) -> Value {
    let text = std::fs::read_to_string(Path::new(FIXTURES).join(rel)).expect(rel);
    serde_json::from_str(&text).expect(rel)
}

fn cases() -> Vec<Value> {
    let cases = load("edits/cases.json").as_array().expect("an array").clone();
    assert_eq!(cases.len(), 9);
    cases
}

fn object(value: &Value) -> &Map<String, Value> {
    value.as_object().expect("an object")
}

/// The file that holds a frame's header and trailer: the frame file, or a sparse frame's
/// `chunks.b2frame`.
fn frame_file(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join("chunks.b2frame")
    } else {
        path.to_path_buf()
    }
}

/// The case's edit, as `metalayer set` makes it: `b2nd` typed by its built-in layout, the
/// other values plain msgpack.
fn edit_of(case: &Value) -> Edit {
    let b2nd = metalayer_layout::builtin_layout("b2nd_v1").expect("b2nd_v1");
    let mut edit = Edit::new();
    for (name, value) in object(&case["meta"]) {
        let layout = (name == "b2nd").then_some(&b2nd);
        edit = edit.meta_json(name.clone(), layout, value).expect("encodes");
    }
    for (name, value) in object(&case["vlmeta"]) {
        edit = edit.vlmeta_json(name.clone(), None, value).expect("encodes");
    }
    for name in case["delete"].as_array().expect("an array") {
        edit = edit.delete_vlmeta(name.as_str().expect("a name"));
    }
    edit
}

/// The bytes of a member of a store, where python's zipfile says its data lies.
fn member_bytes(zip: &Path, place: &Value) -> Vec<u8> {
    let bytes = std::fs::read(zip).expect("zip");
    let offset = place["offset"].as_u64().expect("offset") as usize;
    let size = place["size"].as_u64().expect("size") as usize;
    bytes[offset..offset + size].to_vec()
}

#[test]
fn the_edited_fixtures_are_what_the_library_makes() {
    let readings = load("edits/readings.json");
    for case in cases() {
        let name = case["name"].as_str().expect("name");
        let source = Path::new(FIXTURES).join(case["source"].as_str().expect("source"));
        let edited = Path::new(FIXTURES).join("edits/frames").join(name);
        // A file's frame (a sparse frame's chunks.b2frame), or a store member's.
        let (before, after) = if case.get("member").is_some() {
            let reading = &readings[name]["readings"]["blosc2-4"];
            (
                member_bytes(&source, &reading["source"]["zip"]),
                member_bytes(&edited, &reading["edited"]["zip"]),
            )
        } else {
            let read = |p: &Path| std::fs::read(frame_file(p)).expect("frame");
            (read(&source), read(&edited))
        };
        let made = edit_of(&case).apply(&before).expect(name);
        assert_eq!(made.frame, after, "{name}");
        if source.is_dir() {
            // A sparse frame's chunk files are the source's.
            for entry in std::fs::read_dir(&source).expect("dir") {
                let entry = entry.expect("entry");
                if entry.file_name() == "chunks.b2frame" {
                    continue;
                }
                let theirs = std::fs::read(edited.join(entry.file_name())).expect("chunk");
                assert_eq!(theirs, std::fs::read(entry.path()).expect("chunk"), "{name}");
            }
        }
    }
}

/// The metalayers python-blosc2 should read after the edit: the source's, the changed ones'
/// values replaced (`b2nd` as python-blosc2 lists it: its entries' values in order).
fn expected_meta(source: &Value, case: &Value) -> Value {
    let mut meta = source.as_array().expect("meta").clone();
    for (name, value) in object(&case["meta"]) {
        let value = match value {
            Value::Object(fields) if name == "b2nd" => Value::Array(fields.values().cloned().collect()),
            other => other.clone(),
        };
        let slot = meta
            .iter_mut()
            .find(|m| m[0] == name.as_str())
            .expect("a metalayer the source holds");
        slot[1] = value;
    }
    Value::Array(meta)
}

/// The vlmetalayers after the edit: replaced where they are, added after the others, deleted.
fn expected_vlmeta(source: &Value, case: &Value) -> Value {
    let mut vlmeta = source.as_array().expect("vlmeta").clone();
    for (name, value) in object(&case["vlmeta"]) {
        match vlmeta.iter_mut().find(|m| m[0] == name.as_str()) {
            Some(slot) => slot[1] = value.clone(),
            None => vlmeta.push(Value::Array(vec![Value::String(name.clone()), value.clone()])),
        }
    }
    for name in case["delete"].as_array().expect("an array") {
        vlmeta.retain(|m| &m[0] != name);
    }
    Value::Array(vlmeta)
}

#[test]
fn python_blosc2_2_and_4_read_every_edited_fixture() {
    let readings = load("edits/readings.json");
    let mut checked = 0;
    for case in cases() {
        let name = case["name"].as_str().expect("name");
        let by_release = object(&readings[name]["readings"]);
        let releases: Vec<&str> = by_release.keys().map(String::as_str).collect();
        // python-blosc2 2.x has no stores.
        let expected: &[&str] = if case.get("member").is_some() {
            &["blosc2-4"]
        } else {
            &["blosc2-2", "blosc2-4"]
        };
        assert_eq!(releases, expected, "{name}");
        for (release, reading) in by_release {
            let (source, edited) = (&reading["source"], &reading["edited"]);
            let what = format!("{name}, python-blosc2 {}", edited["release"]);
            assert_eq!(edited["meta"], expected_meta(&source["meta"], &case), "{what}");
            assert_eq!(edited["vlmeta"], expected_vlmeta(&source["vlmeta"], &case), "{what}");
            assert_eq!(edited["chunks"], source["chunks"], "{what}");
            assert!(!source["chunks"].as_array().expect("chunks").is_empty(), "{what}");
            assert!(release.starts_with("blosc2-"));
            if case.get("member").is_some() {
                // python's zipfile checked the CRC-32 of every member of both zips.
                assert_eq!(edited["zip"]["testzip"], "ok", "{what}");
                assert_eq!(source["zip"]["testzip"], "ok", "{what}");
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 17);
}
