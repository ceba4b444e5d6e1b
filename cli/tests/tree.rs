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
        assert_eq!(node["format"], 2, "{path}: the version of the JSON's shape");
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

/// The frame each `a/NNNNN.b2nd` member of the large zip holds, and the frame each key of the
/// large EmbedStore holds: python-blosc2 4.14.1's 259-byte `small`, a (3,) array of `<i2`.
const SMALL: &str = "files/blosc2-4-stores/dictstore.b2d/small.b2nd";

/// The peak RSS the README promises `--tree` stays under, in KiB.
const RSS_LIMIT_KIB: u64 = 256 << 10;

/// What one run of the command printed, counted as it came, and its peak RSS.
#[derive(Debug)]
struct Measured {
    code: i32,
    lines: u64,
    /// Bytes of stdout that are control characters other than the newline: C0, DEL, and C1
    /// (U+0080 to U+009F in UTF-8).
    control: u64,
    /// `ru_maxrss` of the child, as python's `resource.getrusage(RUSAGE_CHILDREN)` reads it
    /// once the child is waited for (KiB on Linux).
    maxrss_kib: u64,
    stderr: String,
}

/// Runs the command with `args` under python3, which counts its stdout's lines and control
/// bytes as they stream and reads its peak RSS after waiting for it; nothing is held.
fn measured(args: &[&std::ffi::OsStr]) -> Measured {
    const SCRIPT: &str = r#"
import re, resource, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
bad = re.compile(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")
lines = control = 0
last = b""
while True:
    block = p.stdout.read(1 << 16)
    if not block:
        break
    lines += block.count(b"\n")
    control += len(bad.findall(last + block)) - len(bad.findall(last))
    last = block[-1:]
err = p.stderr.read()
code = p.wait()
print(code, lines, control, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.stdout.write(err.decode("utf-8", "replace"))
"#;
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(SCRIPT)
        .arg(env!("CARGO_BIN_EXE_metalayer"))
        .args(args)
        .output()
        .expect("python3 runs the command and reads its peak RSS");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (first, rest) = text.split_once('\n').expect("the counts");
    let n: Vec<i64> = first.split(' ').map(|w| w.parse().expect("a number")).collect();
    Measured {
        code: n[0] as i32,
        lines: n[1] as u64,
        control: n[2] as u64,
        maxrss_kib: n[3] as u64,
        stderr: rest.to_owned(),
    }
}

/// An EmbedStore (a frame marked `b2embed`, python-blosc2's `{"version": 1}`) of `keys` keys
/// `/k000000`, `/k000001`, ...: its data, one chunk held uncompressed (as python-blosc2 writes
/// small chunks, see `common::chunk`), is `keys` copies of [`SMALL`] one after the other; its
/// chunk offsets are one chunk after the data (c-blosc2's place for them: `header_len +
/// cbytes`); its `estore_metadata` vlmetalayer is `{"embed_map": {key: {"offset", "length"}},
/// "current_offset"}` in msgpack, as the msgpack spec encodes a map32 of fixstr keys.
fn embed_store(keys: usize) -> Vec<u8> {
    let small = common::read_fixture(SMALL);
    let data: Vec<u8> = small.iter().copied().cycle().take(small.len() * keys).collect();
    let mut map = vec![0x82, 0xa9];
    map.extend_from_slice(b"embed_map");
    map.push(0xdf);
    map.extend_from_slice(&(keys as u32).to_be_bytes());
    for i in 0..keys {
        let key = format!("/k{i:06}");
        map.push(0xa0 + key.len() as u8);
        map.extend_from_slice(key.as_bytes());
        map.extend_from_slice(b"\x82\xa6offset\xce");
        map.extend_from_slice(&((i * small.len()) as u32).to_be_bytes());
        map.extend_from_slice(b"\xa6length\xcd");
        map.extend_from_slice(&(small.len() as u16).to_be_bytes());
    }
    map.extend_from_slice(b"\xaecurrent_offset\xce");
    map.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let frame = common::frame_with_metalayers(
        &[("b2embed", b"\x81\xa7version\x01")],
        &[("estore_metadata", common::chunk(&map))],
    );
    let header_len = i32::from_be_bytes(frame[11..15].try_into().unwrap()) as usize;
    let data_chunk = common::chunk(&data);
    let mut out = frame[..header_len].to_vec();
    out.extend_from_slice(&data_chunk);
    out.extend_from_slice(&common::chunk(&0i64.to_le_bytes()));
    out.extend_from_slice(&frame[header_len..]);
    // frame_len, nbytes, cbytes and chunksize (frame_header_v2: after markers 0xcf, 0xd3, 0xd3,
    // and the 0xd2 of chunksize), for one chunk of the data.
    let frame_len = out.len() as u64;
    out[16..24].copy_from_slice(&frame_len.to_be_bytes());
    out[30..38].copy_from_slice(&(data.len() as i64).to_be_bytes());
    out[39..47].copy_from_slice(&(data_chunk.len() as i64).to_be_bytes());
    out[58..62].copy_from_slice(&(data.len() as i32).to_be_bytes());
    out
}

#[test]
fn an_embed_store_built_here_reads_as_python_blosc2_lays_it_out() {
    let dir = common::scratch("tree-embed-small");
    let path = common::write(&dir, "embed.b2e", &embed_store(3));
    let nodes = jsonl(&run(&["inspect", "--tree", "--jsonl", &path]));
    let kinds: Vec<(&str, &str, Option<&str>)> = nodes
        .iter()
        .map(|n| {
            (
                n["name"].as_str().unwrap(),
                n["kind"].as_str().unwrap(),
                n["key"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            (path.as_str(), "EmbedStore", None),
            ("k000000", "NDArray", Some("/k000000")),
            ("k000001", "NDArray", Some("/k000001")),
            ("k000002", "NDArray", Some("/k000002")),
        ]
    );
    // `small` as python-blosc2 reads it (expected.json): (3,) of <i2.
    assert_eq!(nodes[3]["shape"], serde_json::json!([3]));
    assert_eq!(nodes[3]["dtype"], "<i2");
}

/// `--tree` and `--tree --json` over an EmbedStore of 100,000 keys: every key is a line (a
/// node), and the peak RSS stays under the README's 256 MiB.
#[cfg(target_os = "linux")]
#[test]
fn a_tree_of_100000_keys_stays_bounded() {
    const KEYS: u64 = 100_000;
    let dir = common::scratch("tree-embed-100000");
    let path = common::write(&dir, "embed.b2e", &embed_store(KEYS as usize));
    for (args, lines) in [
        (&["inspect", "--tree"][..], KEYS + 1),
        (&["inspect", "--tree", "--json"][..], 0),
    ] {
        let mut all: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
        all.push(std::ffi::OsStr::new(&path));
        let m = measured(&all);
        eprintln!("{args:?} over {KEYS} keys: peak RSS {} KiB", m.maxrss_kib);
        assert_eq!((m.code, m.control), (0, 0), "{args:?}: {}", m.stderr);
        if lines > 0 {
            assert_eq!(m.lines, lines, "{args:?}");
        }
        assert!(m.maxrss_kib < RSS_LIMIT_KIB, "{args:?}: {} KiB", m.maxrss_kib);
    }
}

/// `--tree` and `--tree --json` over a `.b2z` of 65,534 members, written by python's zipfile as
/// python-blosc2's DictStore writes them (`tests/fixtures/many_members.py`): the peak RSS stays
/// under 256 MiB, and every member is a line.
#[cfg(target_os = "linux")]
#[test]
fn a_tree_of_65534_members_stays_bounded() {
    const ENTRIES: u64 = 65_534;
    let zip = common::scratch("tree-zip-65534").join("store.b2z");
    let status = std::process::Command::new("python3")
        .arg(common::fixture("many_members.py"))
        .arg(&zip)
        .arg(ENTRIES.to_string())
        .arg(common::fixture(SMALL))
        .arg(common::fixture("files/blosc2-4-stores/dictstore.b2d/embed.b2e"))
        .status()
        .expect("python3 writes the zip");
    assert!(status.success());
    // The store, its members, and the directory `a/` they are in.
    let nodes = ENTRIES + 2;
    for (args, lines) in [
        (&["inspect", "--tree"][..], nodes),
        (&["inspect", "--tree", "--json"][..], 0),
    ] {
        let mut all: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
        all.push(zip.as_os_str());
        let m = measured(&all);
        eprintln!("{args:?} over {ENTRIES} members: peak RSS {} KiB", m.maxrss_kib);
        assert_eq!((m.code, m.control), (0, 0), "{args:?}: {}", m.stderr);
        if lines > 0 {
            assert_eq!(m.lines, lines, "{args:?}");
        }
        assert!(m.maxrss_kib < RSS_LIMIT_KIB, "{args:?}: {} KiB", m.maxrss_kib);
    }
}

/// A member named by 65,535 bytes (the most a zip's name field holds) and a file whose name
/// holds DEL and other control characters: no panic, and no control byte in any output.
#[test]
fn long_names_and_control_bytes_in_names() {
    let dir = common::scratch("tree-names");
    let long = "n".repeat(65_535);
    let zip = dir.join("long.b2z");
    let status = std::process::Command::new("python3")
        .arg("-c")
        .arg(
            "import sys, zipfile\n\
             z = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_STORED)\n\
             z.writestr(sys.argv[2], open(sys.argv[3], 'rb').read())\n\
             z.writestr('g/d\\x7fe\\x1b[31m.b2nd', open(sys.argv[3], 'rb').read())\n\
             z.close()",
        )
        .arg(&zip)
        .arg(&long)
        .arg(common::fixture(SMALL))
        .status()
        .expect("python3 writes the zip");
    assert!(status.success());
    let plain = dir.join("plain");
    std::fs::create_dir(&plain).unwrap();
    std::fs::write(plain.join("a\u{7f}b\u{1b}.b2nd"), common::read_fixture(SMALL)).unwrap();
    for path in [zip.as_path(), plain.as_path()] {
        for format in [None, Some("--json"), Some("--jsonl")] {
            let mut args = vec!["inspect", "--tree"];
            args.extend(format);
            let path = path.to_str().unwrap();
            args.push(path);
            let out = run(&args);
            assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
            let bad = |bytes: &[u8]| {
                bytes.iter().any(|&b| (b < 0x20 && b != b'\n') || b == 0x7f)
                    || bytes.windows(2).any(|w| w[0] == 0xc2 && (0x80..=0x9f).contains(&w[1]))
            };
            assert!(!bad(&out.stdout), "{args:?}: {}", stdout(&out));
            assert!(!bad(&out.stderr), "{args:?}: {}", stderr(&out));
            if path.ends_with("long.b2z") {
                assert!(stdout(&out).contains(&long), "{args:?}");
            }
        }
    }
}

/// An EmbedStore whose `embed_map` claims one key more than it holds: its frames cannot be
/// placed, and `--tree` says so (exit 1, the path, and the vlmetalayer's byte), never silently.
#[test]
fn an_embed_map_that_does_not_read_is_an_error() {
    let dir = common::scratch("tree-embed-lying");
    let mut bytes = embed_store(3);
    // The map32's count, right after "embed_map" (0xa9 and its 9 bytes) in the msgpack, which
    // the chunk holds uncompressed: 3 becomes 4.
    let at = bytes
        .windows(14)
        .position(|w| w == b"\xa9embed_map\xdf\x00\x00\x00")
        .expect("the map's count")
        + 14;
    assert_eq!(bytes[at], 3);
    bytes[at] = 4;
    let path = common::write(&dir, "embed.b2e", &bytes);
    for format in [None, Some("--jsonl")] {
        let mut args = vec!["inspect", "--tree"];
        args.extend(format);
        args.push(&path);
        let out = run(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains(&path) && err.contains("estore_metadata") && err.contains("byte"),
            "{err}"
        );
    }
}
