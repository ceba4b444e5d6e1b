//! `metalayer set` processes racing on one file: several processes started at once, each adding
//! its own vlmetalayer, round after round, on a contiguous frame, a sparse frame and two members
//! of one `.b2z` store. Every process must exit 0 and find its change in the result; c-blosc2
//! (`blosc2_schunk_open`, `_open_offset`) must open the result and read every change and the
//! source's chunks; this project's reader must read it; python's `zipfile` must find the zip's
//! CRC-32s right; and nothing may be left beside the file.
//!
//! The rounds are `METALAYER_RACE_ROUNDS` (default 20); the benchmarks' soak runs 300 and has
//! python-blosc2 read every result (`bench/scripts/soak.sh`). `METALAYER_KEEP_ROUNDS=DIR` keeps
//! each round's result there, for such readers.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use metalayer_cblosc2::Schunk;
use serde_json::Value;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/files");

/// How many `set` processes race in a round.
const PROCESSES: usize = 4;

fn rounds() -> usize {
    std::env::var("METALAYER_RACE_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(20)
}

/// The `metalayer` command: `METALAYER_BIN` when set (the soak times a release build), else built
/// by cargo for this workspace (its path from cargo's own report).
fn metalayer() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        if let Some(bin) = std::env::var_os("METALAYER_BIN") {
            return PathBuf::from(bin);
        }
        let out = Command::new(env!("CARGO"))
            .args([
                "build",
                "-q",
                "-p",
                "metalayer-cli",
                "--bin",
                "metalayer",
                "--message-format=json",
            ])
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
            .stderr(Stdio::inherit())
            .output()
            .expect("cargo runs");
        assert!(out.status.success(), "cargo build -p metalayer-cli failed");
        let text = String::from_utf8(out.stdout).expect("UTF-8");
        text.lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter_map(|m| m["executable"].as_str().map(PathBuf::from))
            .next_back()
            .expect("cargo names the metalayer executable")
    })
}

/// A fresh directory of the test's own (created exclusively, under a random name), removed on
/// drop.
fn scratch(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("metalayer-races-{name}-"))
        .tempdir()
        .expect("scratch dir")
}

/// Copies a fixture file or sparse-frame directory to `to`.
fn copy(from: &Path, to: &Path) {
    if from.is_dir() {
        std::fs::create_dir_all(to).expect("dir");
        for entry in std::fs::read_dir(from).expect("dir") {
            let entry = entry.expect("entry");
            std::fs::copy(entry.path(), to.join(entry.file_name())).expect("copy");
        }
    } else {
        std::fs::copy(from, to).expect("copy");
    }
}

/// The names under `dir`, recursively, relative to it.
fn listing(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("dir") {
            let path = entry.expect("entry").path();
            names.push(path.strip_prefix(dir).expect("inside").display().to_string());
            if path.is_dir() {
                stack.push(path);
            }
        }
    }
    names.sort();
    names
}

/// Keeps a copy of a round's result under `METALAYER_KEEP_ROUNDS`, when it is set.
fn keep(test: &str, round: usize, result: &Path) {
    let Some(dir) = std::env::var_os("METALAYER_KEEP_ROUNDS") else {
        return;
    };
    let to = Path::new(&dir).join(format!("{test}-{round:04}"));
    std::fs::create_dir_all(&to).expect("the kept rounds' directory");
    copy(result, &to.join(result.file_name().expect("a name")));
}

/// An unsigned integer as msgpack packs it (the msgpack specification's smallest form).
fn msgpack_uint(n: u64) -> Vec<u8> {
    match n {
        0..=0x7f => vec![n as u8],
        0x80..=0xff => vec![0xcc, n as u8],
        0x100..=0xffff => {
            let mut v = vec![0xcd];
            v.extend_from_slice(&(n as u16).to_be_bytes());
            v
        }
        _ => {
            let mut v = vec![0xce];
            v.extend_from_slice(&(n as u32).to_be_bytes());
            v
        }
    }
}

/// Starts every `set` of the round at once, then waits for each; each must exit 0.
fn race(round: usize, targets: &[PathBuf]) {
    let children: Vec<_> = targets
        .iter()
        .enumerate()
        .map(|(i, target)| {
            let child = Command::new(metalayer())
                .arg("set")
                .arg("--vlmeta")
                .arg(format!("p{i}={}", round * 10 + i))
                .arg(target)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("metalayer starts");
            (i, child)
        })
        .collect();
    for (i, child) in children {
        let out = child.wait_with_output().expect("metalayer runs");
        assert!(
            out.status.success(),
            "round {round}, process {i}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The changes a frame must hold after a round: each process's key and value.
fn expected(round: usize, processes: &[usize]) -> BTreeMap<String, Vec<u8>> {
    processes
        .iter()
        .map(|&i| (format!("p{i}"), msgpack_uint((round * 10 + i) as u64)))
        .collect()
}

/// c-blosc2 opens the frame, and reads in it the changes and the chunks of `source`; this
/// project's reader reads the same vlmetalayers.
fn check_frame(
    what: &str,
    opened: Schunk,
    source: &Schunk,
    ours: metalayer::frame::Frame,
    want: &BTreeMap<String, Vec<u8>>,
) {
    let mut names = opened.vlmeta_names();
    names.sort();
    assert_eq!(
        names,
        want.keys().cloned().collect::<Vec<_>>(),
        "{what}: c-blosc2's vlmeta names"
    );
    for (name, value) in want {
        assert_eq!(
            &opened.vlmeta(name).expect("c-blosc2 reads it"),
            value,
            "{what}: {name}"
        );
    }
    assert_eq!(opened.nchunks(), source.nchunks(), "{what}");
    for n in 0..source.nchunks() {
        assert_eq!(
            opened.chunk(n).expect("chunk"),
            source.chunk(n).expect("chunk"),
            "{what}: chunk {n}"
        );
    }
    let mut ours: Vec<(String, Vec<u8>)> = ours
        .vlmetalayers
        .iter()
        .map(|m| {
            let value = metalayer::vlmeta::decompress(&m.content, 1 << 20).expect("decompresses");
            (m.name.clone(), value)
        })
        .collect();
    ours.sort();
    assert_eq!(ours, want.clone().into_iter().collect::<Vec<_>>(), "{what}: our reader");
}

#[test]
fn racing_edits_of_a_contiguous_frame_are_all_kept() {
    let scratch = scratch("frame");
    let dir = scratch.path();
    let source = Path::new(FIXTURES).join("blosc2-4-stores/dictstore.b2d/big.b2nd");
    let original = Schunk::open(&source).expect("c-blosc2 opens the fixture");
    assert!(original.nchunks() > 0);
    let path = dir.join("big.b2nd");
    for round in 0..rounds() {
        copy(&source, &path);
        race(round, &vec![path.clone(); PROCESSES]);
        let want = expected(round, &(0..PROCESSES).collect::<Vec<_>>());
        let what = format!("round {round}");
        let opened = Schunk::open(&path).expect("c-blosc2 opens the result");
        let ours = metalayer::frame::Frame::open(&path).expect("our reader reads it");
        check_frame(&what, opened, &original, ours, &want);
        assert_eq!(listing(dir), ["big.b2nd"], "{what}");
        keep("frame", round, &path);
    }
}

#[test]
fn racing_edits_of_a_sparse_frame_are_all_kept() {
    let scratch = scratch("sparse");
    let dir = scratch.path();
    let source = Path::new(FIXTURES).join("blosc2-4-vlmeta/sparse_mixed.b2nd");
    let original = Schunk::open(&source).expect("c-blosc2 opens the fixture");
    let kept = metalayer::frame::Frame::open(&source).expect("read");
    let path = dir.join("sparse_mixed.b2nd");
    let files = {
        copy(&source, &path);
        listing(dir)
    };
    for round in 0..rounds() {
        std::fs::remove_dir_all(&path).expect("clean");
        copy(&source, &path);
        race(round, &vec![path.clone(); PROCESSES]);
        let mut want = expected(round, &(0..PROCESSES).collect::<Vec<_>>());
        // The fixture's own vlmetalayers stay, as they were.
        for m in &kept.vlmetalayers {
            want.insert(
                m.name.clone(),
                metalayer::vlmeta::decompress(&m.content, 1 << 20).expect("decompresses"),
            );
        }
        let what = format!("round {round}");
        let opened = Schunk::open(&path).expect("c-blosc2 opens the result");
        let ours = metalayer::frame::Frame::open(&path).expect("our reader reads it");
        check_frame(&what, opened, &original, ours, &want);
        assert_eq!(listing(dir), files, "{what}");
        keep("sparse", round, &path);
    }
}

/// python's zipfile's reading of a zip: each member's data offset and size, and the first
/// member whose CRC-32 is wrong (`testzip`).
fn python_zip(path: &Path) -> (BTreeMap<String, (u64, u64)>, Value) {
    let script = r#"
import json, struct, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, open(sys.argv[1], "rb") as f:
    members = {}
    for info in z.infolist():
        f.seek(info.header_offset)
        local = f.read(30)
        name_len, extra_len = struct.unpack("<HH", local[26:30])
        members[info.filename] = [info.header_offset + 30 + name_len + extra_len, info.file_size]
    print(json.dumps({"members": members, "bad": z.testzip()}))
"#;
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(path)
        .output()
        .expect("python3 runs (the tests need it, as .ci/run says)");
    assert!(
        out.status.success(),
        "python3: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let members = report["members"]
        .as_object()
        .expect("members")
        .iter()
        .map(|(name, place)| {
            let at = |i: usize| place[i].as_u64().expect("a number");
            (name.clone(), (at(0), at(1)))
        })
        .collect();
    (members, report["bad"].clone())
}

#[test]
fn racing_edits_of_two_members_of_one_store_are_all_kept() {
    let scratch = scratch("store");
    let dir = scratch.path();
    let source = Path::new(FIXTURES).join("blosc2-4-stores/dictstore.b2z");
    let (places, _) = python_zip(&source);
    let members = ["big.b2nd", "dir/deeper/f8.b2nd"];
    let originals: Vec<Schunk> = members
        .iter()
        .map(|m| Schunk::open_offset(&source, places[*m].0).expect("c-blosc2 opens the member"))
        .collect();
    let path = dir.join("dictstore.b2z");
    for round in 0..rounds() {
        copy(&source, &path);
        // Even processes edit the first member, odd ones the second.
        let targets: Vec<PathBuf> = (0..PROCESSES).map(|i| path.join(members[i % 2])).collect();
        race(round, &targets);
        let what = format!("round {round}");
        let (places, bad) = python_zip(&path);
        assert_eq!(bad, Value::Null, "{what}: python's zipfile finds a bad CRC-32");
        assert_eq!(
            places.keys().collect::<Vec<_>>(),
            python_zip(&source).0.keys().collect::<Vec<_>>(),
            "{what}: the members"
        );
        for (k, member) in members.iter().enumerate() {
            let processes: Vec<usize> = (0..PROCESSES).filter(|i| i % 2 == k).collect();
            let want = expected(round, &processes);
            let (offset, size) = places[*member];
            let opened = Schunk::open_offset(&path, offset).expect("c-blosc2 opens the member");
            let ours = metalayer::frame::FrameBytes::open_at(&path, offset, size)
                .and_then(|b| b.frame().map(|f| f.to_owned()))
                .expect("our reader reads it");
            check_frame(&format!("{what}, {member}"), opened, &originals[k], ours, &want);
        }
        assert_eq!(listing(dir), ["dictstore.b2z"], "{what}");
        keep("store", round, &path);
    }
}
