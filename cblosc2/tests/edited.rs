//! c-blosc2 (the vendored 2.15) opens every frame `metalayer set` edited
//! (`tests/fixtures/edits/frames/`, cases in `tests/fixtures/edits/cases.json`): it reads the
//! metalayers and vlmetalayers the case sets, with the bytes python's msgpack packs for them
//! (`readings.json`'s `packed`) and, for `b2nd`, the bytes its own `b2nd_serialize_meta` writes;
//! the others as in the source; and the very chunks of the source. A member of a `.b2z` store is
//! opened at its offset in the zip (`blosc2_schunk_open_offset`).

use std::ffi::CString;
use std::path::Path;

use metalayer_cblosc2::Schunk;
use serde_json::Value;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures");

fn load(rel: &str) -> Value {
    let text = std::fs::read_to_string(Path::new(FIXTURES).join(rel)).expect(rel);
    serde_json::from_str(&text).expect(rel)
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}

/// c-blosc2's own bytes for a `b2nd` value given as its entries.
fn b2nd_bytes(fields: &Value) -> Vec<u8> {
    let ints = |key: &str| -> Vec<i64> {
        fields[key]
            .as_array()
            .expect(key)
            .iter()
            .map(|v| v.as_i64().expect("int"))
            .collect()
    };
    let narrow = |v: Vec<i64>| -> Vec<i32> { v.into_iter().map(|x| i32::try_from(x).expect("i32")).collect() };
    let dtype = CString::new(fields["dtype"].as_str().expect("dtype")).expect("no NUL");
    let format = i8::try_from(fields["dtype_format"].as_i64().expect("format")).expect("i8");
    let (shape, chunks, blocks) = (ints("shape"), narrow(ints("chunkshape")), narrow(ints("blockshape")));
    metalayer_cblosc2::serialize(&shape, &chunks, &blocks, &dtype, format).expect("c-blosc2 serializes")
}

/// The vlmetalayers' names after the case: kept, replaced in place, added after, deleted.
fn names_after(source: &[String], case: &Value) -> Vec<String> {
    let mut names = source.to_vec();
    for name in case["vlmeta"].as_object().expect("vlmeta").keys() {
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    let deleted: Vec<&str> = case["delete"]
        .as_array()
        .expect("delete")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    names.retain(|n| !deleted.contains(&n.as_str()));
    names
}

#[test]
fn c_blosc2_reads_every_edited_fixture() {
    let cases = load("edits/cases.json");
    let readings = load("edits/readings.json");
    let mut chunks = 0;
    for case in cases.as_array().expect("cases") {
        let name = case["name"].as_str().expect("name");
        let packed = &readings[name]["packed"];
        let source_path = Path::new(FIXTURES).join(case["source"].as_str().expect("source"));
        let edited_path = Path::new(FIXTURES).join("edits/frames").join(name);
        let (source, edited) = if case.get("member").is_some() {
            // A store's member, where python's zipfile says its data lies.
            let zip = &readings[name]["readings"]["blosc2-4"];
            let at = |which: &str| zip[which]["zip"]["offset"].as_u64().expect("offset");
            (
                Schunk::open_offset(&source_path, at("source")),
                Schunk::open_offset(&edited_path, at("edited")),
            )
        } else {
            (Schunk::open(&source_path), Schunk::open(&edited_path))
        };
        let (source, edited) = (source.expect(name), edited.expect(name));

        // Metalayers: the source's, the ones the case sets with their new bytes.
        let (before, after) = (source.metalayers(), edited.metalayers());
        assert_eq!(after.len(), before.len(), "{name}");
        for ((meta, old), (meta_after, new)) in before.iter().zip(&after) {
            assert_eq!(meta, meta_after, "{name}");
            let expected = match &case["meta"][meta.as_str()] {
                Value::Null => old.clone(),
                fields if meta == "b2nd" => b2nd_bytes(fields),
                _ => unhex(packed[meta.as_str()].as_str().expect("packed")),
            };
            assert_eq!(new, &expected, "{name}: metalayer {meta}");
        }

        // vlmetalayers: in c-blosc2's order, decompressed by c-blosc2.
        let names = edited.vlmeta_names();
        assert_eq!(names, names_after(&source.vlmeta_names(), case), "{name}");
        for key in &names {
            let value = edited.vlmeta(key).expect(key);
            let expected = match packed[key.as_str()].as_str() {
                Some(hex) => unhex(hex),
                None => source.vlmeta(key).expect(key),
            };
            assert_eq!(value, expected, "{name}: vlmetalayer {key}");
        }

        // The chunks, decompressed: the source's.
        assert_eq!(edited.nchunks(), source.nchunks(), "{name}");
        assert!(source.nchunks() > 0, "{name}");
        for n in 0..source.nchunks() {
            assert_eq!(
                edited.chunk(n).expect(name),
                source.chunk(n).expect(name),
                "{name}: chunk {n}"
            );
            chunks += 1;
        }
    }
    assert!(chunks >= 8, "{chunks}");
}
