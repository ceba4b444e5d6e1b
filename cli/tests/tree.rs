//! `metalayer inspect --tree` over every fixture store, `.b2z` and `.b2d`, against python-blosc2's
//! reading of it recorded in `expected.json`: the store's class, and each node's kind, shape,
//! dtype, chunks, codec and compression ratio (nbytes / cbytes, python's `cratio`).
#![cfg(feature = "inspect")]

mod common;

use std::collections::BTreeMap;

use common::{expected_stores, fixture, jsonl, run, stderr, stdout};
use serde_json::Value;

/// The tree's nodes of `path` (`--tree --jsonl`), by python-blosc2's key; the root under `""`.
fn tree(path: &str) -> BTreeMap<String, Value> {
    let out = run(&["inspect", "--tree", "--jsonl", path]);
    assert_eq!(out.status.code(), Some(0), "{path}: {}", stderr(&out));
    assert_eq!(stderr(&out), "", "{path}");
    let mut nodes = BTreeMap::new();
    for node in jsonl(&out) {
        let key = if node["depth"] == 0 {
            String::new()
        } else {
            match node["key"].as_str() {
                Some(key) => key.to_owned(),
                // The store's own embed.b2e, and the directories of the keys it holds: no key.
                None => format!("({})", node["path"].as_str().expect("path")),
            }
        };
        assert!(nodes.insert(key.clone(), node).is_none(), "{path}: {key} twice");
    }
    nodes
}

#[test]
fn trees_are_what_python_blosc2_reads() {
    let (mut stores, mut frames, mut groups, mut held) = (0, 0, 0, 0);
    for store in expected_stores() {
        let rel = store["path"].as_str().expect("path");
        let path = fixture(rel).display().to_string();
        let nodes = tree(&path);
        let what = |key: &str| format!("{rel} {key}");
        assert_eq!(nodes[""]["kind"], store["class"], "{rel}");
        assert_eq!(nodes[""]["path"], path, "{rel}");
        for node in store["nodes"].as_array().expect("nodes") {
            let key = node["key"].as_str().expect("key");
            let ours = nodes.get(key).unwrap_or_else(|| panic!("{}: no node", what(key)));
            assert_eq!(ours["kind"], node["kind"], "{}", what(key));
            if node["kind"] == "TreeStore" {
                assert!(ours.get("codec").is_none(), "{}", what(key));
                groups += 1;
                continue;
            }
            if node["embedded"].is_null() {
                let member = node["member"].as_str().expect("member");
                assert_eq!(ours["path"], format!("{path}/{member}"), "{}", what(key));
            } else {
                // Held by the store's EmbedStore, under its key.
                assert_eq!(ours["path"], format!("{path}/embed.b2e{key}"), "{}", what(key));
                held += 1;
            }
            for field in ["shape", "dtype", "chunks"] {
                assert_eq!(ours.get(field), node.get(field), "{} {field}", what(key));
            }
            assert_eq!(ours["codec"], node["codec"], "{}", what(key));
            if node["cbytes"].as_u64() > Some(0) {
                assert_eq!(ours["cratio"].as_f64(), node["cratio"].as_f64(), "{}", what(key));
            } else {
                // python-blosc2 says 0.0 for no compressed byte; the ratio has no value.
                assert_eq!(ours["cratio"], Value::Null, "{}", what(key));
            }
            frames += 1;
        }
        stores += 1;
    }
    assert_eq!(stores, 10);
    // The nodes stored as files, in .b2z and .b2d: 2 × (3 + 3 + 13 + 7 + 3), and the embedded; the groups: /g,
    // /g/h, /g/h/i of both TreeStores, /_cols, /_indexes, /_indexes/x of the CTable, 2 × 9.
    // Of those frames, held by embed.b2e: 2 × (2 + 3 + 3), 3.12.2's DictStore and TreeStore and
    // 4.14.1's TreeStore.
    assert_eq!((frames, groups, held), (58 + 16, 18, 16));
}

#[test]
fn text_tree_of_a_store() {
    let path = fixture("files/blosc2-4-stores/treestore.b2z").display().to_string();
    let out = run(&["inspect", "--tree", &path]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Names indented by their directories, the kind, then b2nd's shape, dtype and chunks in
    // columns, the codec and nbytes / cbytes: 18000 / 417 = 43.17 (python-blosc2's cratio 43.165...); the
    // embed.b2e frame's header (expected.json): 1752 / 1160 = 1.51. The frames embed.b2e holds
    // under their keys (python-blosc2's nodes /g/h/z: 16 / 48, /g/x: 3 / 35, /top: 16 / 48), the
    // directories of the keys plain groups; the TreeStore's vlmeta frames (`__vlmeta__`) hold
    // no compressed byte: no ratio.
    let want = format!(
        "{path}/  TreeStore
  embed.b2e         EmbedStore                                ZSTD  ratio 1.51
    __vlmeta__      SChunk                                    ZSTD  ratio -
    g/              group
      __vlmeta__    SChunk                                    ZSTD  ratio -
      h/            group
        __vlmeta__  SChunk                                    ZSTD  ratio -
        z           NDArray     (4,)     <f4  chunks (4,)     ZSTD  ratio 0.33
      x             NDArray     (3,)     |u1  chunks (3,)     ZSTD  ratio 0.09
    top             NDArray     (2,)     <i8  chunks (2,)     ZSTD  ratio 0.33
  g/                TreeStore
    h/              TreeStore
      i/            TreeStore
        deep.b2nd   NDArray     (9000,)  <u2  chunks (9000,)  ZSTD  ratio 43.17
      y.b2nd        NDArray     (4000,)  <i4  chunks (4000,)  ZSTD  ratio 42.22
  top_big.b2nd      NDArray     (2100,)  <i8  chunks (2100,)  ZSTD  ratio 43.41
"
    );
    assert_eq!(stdout(&out), want);
}

/// The kind of every frame python-blosc2 wrote through its own classes (the `*-own` fixtures),
/// against the class the generator recorded it was written by (`"object"`: `LazyExpr.save ...`,
/// `Proxy of ...`, `BatchArray, sparse`...). A store's `embed.b2e` opens as an `EmbedStore`; a
/// CTable's `_meta.b2f` and a TreeStore group's `__vlmeta__.b2f` are plain SChunks.
#[test]
fn frame_kinds_are_the_classes_that_wrote_them() {
    let mut checked = 0;
    for dir in ["files/blosc2-2-own", "files/blosc2-3-own", "files/blosc2-4-own"] {
        let root = fixture(dir).display().to_string();
        let out = run(&["inspect", "--tree", "--jsonl", &root]);
        assert_eq!(out.status.code(), Some(0), "{dir}: {}", stderr(&out));
        let kinds: BTreeMap<String, Value> = jsonl(&out)
            .into_iter()
            .map(|n| (n["path"].as_str().expect("path").to_owned(), n["kind"].clone()))
            .collect();
        for record in common::expected() {
            let rel = record["path"].as_str().expect("path");
            if !rel.starts_with(&format!("{dir}/")) {
                continue;
            }
            let object = record["object"].as_str().expect("object");
            let class = if object.ends_with("embed.b2e") {
                "EmbedStore"
            } else if object.starts_with("CTable _meta") || object.starts_with("TreeStore group vlmeta") {
                "SChunk"
            } else {
                object.split([' ', '.', ',']).next().unwrap_or_default()
            };
            let path = fixture(rel).display().to_string();
            assert_eq!(kinds.get(&path), Some(&Value::from(class)), "{rel}: {object}");
            checked += 1;
        }
    }
    // 2.7.1: 4 frames, 3.12.2: 20, 4.14.1: 30.
    assert_eq!(checked, 4 + 20 + 30);
}
