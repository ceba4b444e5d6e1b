//! `metalayer::tree` and `metalayer::Kind` against python-blosc2's own reading of the fixtures,
//! recorded in `tests/fixtures/expected.json` by the generator: each store's class, each node's
//! kind, shape, dtype, chunks, codec and ratio, the stores' and groups' vlmeta; the class that
//! wrote each frame of the `*-own` fixtures; and walks that go on past what cannot be read.
#![cfg(feature = "tree")]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use metalayer::Kind;
use metalayer::frame::FrameBytes;
use metalayer::tree::{Node, Tree, TreeError};
use serde_json::Value;

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(rel)
}

fn expected() -> Vec<Value> {
    let text = std::fs::read_to_string(fixture("expected.json")).expect("expected.json");
    serde_json::from_str::<Vec<Value>>(&text).expect("JSON")
}

/// msgpack's encoding (the msgpack spec) of the few values the fixtures' vlmeta hold: strings
/// of up to 255 bytes and integers 0 to 127.
fn msgpack(value: &Value) -> Vec<u8> {
    match value {
        Value::String(s) if s.len() < 32 => [&[0xa0 | s.len() as u8][..], s.as_bytes()].concat(),
        Value::String(s) if s.len() < 256 => [&[0xd9, s.len() as u8][..], s.as_bytes()].concat(),
        Value::Number(n) if n.as_u64().is_some_and(|n| n < 128) => vec![n.as_u64().unwrap_or(0) as u8],
        other => panic!("no encoding here for {other}"),
    }
}

/// The vlmeta a frame holds: each name with its msgpack, decompressed.
fn vlmeta_of(bytes: &FrameBytes) -> BTreeMap<String, Vec<u8>> {
    let frame = bytes.frame().expect("the frame reads");
    frame
        .vlmetalayers
        .iter()
        .map(|m| {
            let chunk = bytes.content(m).expect("its content");
            let value = metalayer::vlmeta::decompress(&chunk, 1 << 20).expect("it decompresses");
            (m.name.to_owned(), value)
        })
        .collect()
}

fn assert_vlmeta(node: &Node, want: &Value, what: &str) {
    let want: BTreeMap<String, Vec<u8>> = want
        .as_object()
        .expect("vlmeta")
        .iter()
        .map(|(k, v)| (k.clone(), msgpack(v)))
        .collect();
    let ours = node.group_vlmeta().map(vlmeta_of).unwrap_or_default();
    assert_eq!(ours, want, "{what}: vlmeta");
}

#[test]
fn stores_are_what_python_blosc2_reads() {
    let (mut stores, mut frames, mut groups) = (0, 0, 0);
    for store in expected().into_iter().filter(|r| r.get("store").is_some()) {
        let rel = store["path"].as_str().expect("path");
        let mut nodes = Tree::new(fixture(rel));
        let root = nodes.next().expect("the root");
        assert_eq!(root.kind().to_string(), store["class"], "{rel}");
        assert_eq!((root.depth(), root.key()), (0, None), "{rel}");
        if let Some(vlmeta) = store.get("vlmeta") {
            assert_vlmeta(&root, vlmeta, rel);
        }
        let mut by_key = BTreeMap::new();
        for node in nodes {
            assert!(
                node.errors().is_empty(),
                "{rel}: {}: {:?}",
                node.path().display(),
                node.errors()
            );
            if let Some(key) = node.key() {
                assert!(by_key.insert(key.to_owned(), node).is_none(), "{rel}: a key twice");
            }
        }
        for want in store["nodes"].as_array().expect("nodes") {
            let key = want["key"].as_str().expect("key");
            let what = format!("{rel} {key}");
            let ours = by_key.get(key).unwrap_or_else(|| panic!("{what}: no node"));
            assert_eq!(ours.kind().to_string(), want["kind"], "{what}");
            if want["kind"] == "TreeStore" {
                assert!(!ours.is_frame() && ours.codec().is_none(), "{what}");
                if let Some(vlmeta) = want.get("vlmeta") {
                    assert_vlmeta(ours, vlmeta, &what);
                }
                groups += 1;
                continue;
            }
            let json = |v: Option<&[i64]>| v.map(|v| Value::from(v.to_vec()));
            assert_eq!(json(ours.shape()).as_ref(), want.get("shape"), "{what}");
            assert_eq!(ours.dtype().map(Value::from).as_ref(), want.get("dtype"), "{what}");
            let chunks = ours.chunks().map(|c| Value::from(c.to_vec()));
            assert_eq!(chunks.as_ref(), want.get("chunks"), "{what}");
            let blocks = ours.array().map(|a| Value::from(a.blocks().to_vec()));
            assert_eq!(blocks.as_ref(), want.get("blocks"), "{what}");
            assert_eq!(
                ours.codec().map(|c| c.to_string()).as_deref(),
                want["codec"].as_str(),
                "{what}"
            );
            assert_eq!(
                ours.header().map(|h| h.clevel().into()),
                want["clevel"].as_u64(),
                "{what}"
            );
            if want["cbytes"].as_u64() > Some(0) {
                assert_eq!(ours.ratio(), want["cratio"].as_f64(), "{what}");
            } else {
                assert_eq!(ours.ratio(), None, "{what}");
            }
            let path = match (want["member"].as_str(), want["embedded"].is_null()) {
                (Some(member), _) => fixture(rel).join(member),
                (None, false) => PathBuf::from(format!("{}/embed.b2e{key}", fixture(rel).display())),
                (None, true) => panic!("{what}: neither a member nor embedded"),
            };
            assert_eq!(ours.path(), path, "{what}");
            frames += 1;
        }
        stores += 1;
    }
    assert_eq!((stores, frames, groups), (10, 74, 18));
}

/// The class python-blosc2 wrote each frame of the `*-own` fixtures with, as the generator
/// recorded it (`"object"`: `LazyExpr.save ...`, `Proxy of ...`, `BatchArray, sparse`...): a
/// store's `embed.b2e` is an `EmbedStore`, a CTable's `_meta.b2f` and a TreeStore group's
/// `__vlmeta__.b2f` are plain SChunks.
#[test]
fn kinds_are_the_classes_that_wrote_the_frames() {
    let mut checked = 0;
    for record in expected() {
        let rel = record["path"].as_str().expect("path");
        if !["files/blosc2-2-own/", "files/blosc2-3-own/", "files/blosc2-4-own/"]
            .iter()
            .any(|dir| rel.starts_with(dir))
        {
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
        let node = Tree::new(fixture(rel)).next().expect("a node");
        assert_eq!(node.kind().to_string(), class, "{rel}: {object}");
        assert!(node.is_frame(), "{rel}");
        // Kind::of_frame over the metalayers says the same.
        assert_eq!(Kind::of_frame(&node.meta()), node.kind(), "{rel}");
        checked += 1;
    }
    assert_eq!(checked, 4 + 20 + 30);
}

/// Every fixture frame whose array python-blosc2 read (`"array"`: shape, chunks, blocks,
/// dtype): the node's, from `Known`'s accessors, are the same.
#[test]
fn arrays_are_what_python_blosc2_reads() {
    let mut checked = 0;
    for record in expected() {
        let Some(array) = record.get("array").filter(|a| a.get("shape").is_some()) else {
            continue;
        };
        let rel = record["path"].as_str().expect("path");
        let node = Tree::new(fixture(rel)).next().expect("a node");
        let Some(known) = node.array() else {
            panic!("{rel}: no array");
        };
        assert_eq!(Value::from(known.shape().to_vec()), array["shape"], "{rel}");
        assert_eq!(known.ndim(), array["shape"].as_array().map_or(0, Vec::len), "{rel}");
        if let Some(chunks) = array.get("chunks") {
            assert_eq!(&Value::from(known.chunks().to_vec()), chunks, "{rel}");
        }
        if let Some(blocks) = array.get("blocks") {
            assert_eq!(&Value::from(known.blocks().to_vec()), blocks, "{rel}");
        }
        if let (Some(dtype), Some(ours)) = (array.get("dtype"), known.dtype()) {
            assert_eq!(dtype, ours, "{rel}");
        }
        checked += 1;
    }
    assert!(checked > 50, "{checked}");
}

/// A directory with a frame that does not read between two that do: the bad one's node has its
/// error, and the walk goes on; a directory with no frame is no node; other files are left out.
#[test]
fn a_walk_goes_on_past_what_does_not_read() {
    let dir = tempfile::tempdir().expect("a directory");
    let good = std::fs::read(fixture("files/blosc2-4-stores/dictstore.b2d/small.b2nd")).expect("small");
    std::fs::write(dir.path().join("a.b2nd"), &good).expect("write");
    let mut bad = good.clone();
    bad.truncate(60);
    std::fs::write(dir.path().join("b.b2nd"), &bad).expect("write");
    std::fs::write(dir.path().join("c.txt"), b"not a frame").expect("write");
    std::fs::create_dir(dir.path().join("empty")).expect("mkdir");
    std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
    std::fs::write(dir.path().join("sub/d.b2nd"), &good).expect("write");
    let nodes: Vec<Node> = Tree::new(dir.path()).collect();
    let names: Vec<(String, usize, Kind, usize)> = nodes
        .iter()
        .map(|n| {
            (
                n.name().to_string_lossy().into_owned(),
                n.depth(),
                n.kind(),
                n.errors().len(),
            )
        })
        .collect();
    let root = dir.path().to_string_lossy().into_owned();
    assert_eq!(
        names,
        [
            (root, 0, Kind::Directory, 0),
            ("a.b2nd".to_owned(), 1, Kind::NDArray, 0),
            ("b.b2nd".to_owned(), 1, Kind::Unknown, 1),
            ("sub".to_owned(), 1, Kind::Directory, 0),
            ("d.b2nd".to_owned(), 2, Kind::NDArray, 0),
        ]
    );
    assert!(
        matches!(nodes[2].errors()[0], TreeError::Frame(_)),
        "{:?}",
        nodes[2].errors()
    );
    assert!(nodes[2].is_frame() && nodes[2].codec().is_none());
}

/// A symbolic link back to a directory above it, followed: an error of its node, and the walk
/// ends.
#[cfg(unix)]
#[test]
fn a_loop_of_links_is_an_error_of_its_node() {
    let dir = tempfile::tempdir().expect("a directory");
    let good = std::fs::read(fixture("files/blosc2-4-stores/dictstore.b2d/small.b2nd")).expect("small");
    std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
    std::fs::write(dir.path().join("sub/x.b2nd"), &good).expect("write");
    std::os::unix::fs::symlink(dir.path(), dir.path().join("sub/up")).expect("symlink");
    // Not followed: the link is left out.
    assert_eq!(Tree::new(dir.path()).count(), 3);
    let nodes: Vec<Node> = Tree::new(dir.path()).follow_links(true).collect();
    let up = nodes.iter().find(|n| n.name() == "up").expect("the link's node");
    assert!(
        matches!(&up.errors()[0], TreeError::Loop { ancestor, .. } if ancestor == dir.path()),
        "{:?}",
        up.errors()
    );
    assert_eq!(nodes.len(), 4);
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// A TreeStore group's vlmeta kept as a `__vlmeta__.b2f` member of its directory (python-blosc2
/// 4.14.1 wrote `treestore_group_vlmeta.b2f` so: its vlmetalayer `title` is "group vlmeta",
/// expected.json's chunk `...ac67726f757020766c6d657461`): the group's node holds it.
#[test]
fn a_group_vlmeta_member_belongs_to_its_group() {
    let dir = tempfile::tempdir().expect("a directory");
    let store = dir.path().join("treestore.b2d");
    copy_dir(&fixture("files/blosc2-4-stores/treestore.b2d"), &store);
    std::fs::copy(
        fixture("files/blosc2-4-own/treestore_group_vlmeta.b2f"),
        store.join("g/h/i/__vlmeta__.b2f"),
    )
    .expect("copy");
    let group = Tree::new(&store)
        .find(|n| n.key() == Some("/g/h/i"))
        .expect("the group");
    assert_eq!(group.kind(), Kind::TreeStore);
    let want = serde_json::json!({"title": "group vlmeta"});
    assert_vlmeta(&group, &want, "/g/h/i");
}
