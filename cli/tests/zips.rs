//! `.b2z` stores as python's `zipfile` writes them for python-blosc2's DictStore, at the count
//! where its records change: 65,535 entries (a plain end record whose count is 0xffff, no zip64
//! records) and 65,536 (the zip64 end record and its locator). Such zips (about 24 MB) are too
//! large to commit: `tests/fixtures/many_members.py` writes each once per run, with `python3`,
//! which must be on the machine (the tests fail without it; they are never skipped). Each
//! member is a copy of `small.b2nd`, a member frame of python-blosc2 4.x's DictStore;
//! `embed.b2e` comes last, as DictStore writes it. Most of the time (some 30 s for the two, on
//! two cores) goes to `inspect` reporting every member, in the debug build.
#![cfg(feature = "inspect")]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use common::{fixture, run, scratch, stderr, stdout};
use serde_json::{Value, json};

/// The frame each `a/NNNNN.b2nd` member holds, and the store's EmbedStore.
const FRAME: &str = "files/blosc2-4-stores/dictstore.b2d/small.b2nd";
const EMBED: &str = "files/blosc2-4-stores/dictstore.b2d/embed.b2e";
/// The member both tests edit.
const EDITED: &str = "a/00007.b2nd";

fn python3() -> Command {
    Command::new("python3")
}

/// The zip of `entries` entries, written by `tests/fixtures/many_members.py` into the test's
/// own scratch directory `name` (each test writes the one it uses, once, and the tests run at
/// once). How long python took is printed.
fn python_zip(name: &str, entries: usize) -> PathBuf {
    let out = scratch(name).join("store.b2z");
    let script = fixture("many_members.py");
    let start = Instant::now();
    let status = python3()
        .arg(&script)
        .arg(&out)
        .arg(entries.to_string())
        .arg(fixture(FRAME))
        .arg(fixture(EMBED))
        .status()
        .unwrap_or_else(|e| panic!("python3 is needed to write the zips ({}): {e}", script.display()));
    assert!(
        status.success(),
        "{} failed writing {}",
        script.display(),
        out.display()
    );
    eprintln!(
        "{entries} entries written by python in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    out
}

/// Where the end record and the record before it say what python wrote: the end record's
/// count, and whether the 20 bytes before it are the zip64 locator.
fn end_records(bytes: &[u8]) -> (u16, bool) {
    let eocd = bytes.len() - 22;
    assert_eq!(&bytes[eocd..eocd + 4], b"PK\x05\x06");
    let count = u16::from_le_bytes([bytes[eocd + 10], bytes[eocd + 11]]);
    (count, &bytes[eocd - 20..eocd - 16] == b"PK\x06\x07")
}

/// `inspect --jsonl` of `zip`, its lines checked to be the members in name order: `entries - 1`
/// copies of [`FRAME`], then `embed.b2e`. Every member's report but `edited`'s is the frame's own
/// (after its path), which is returned parsed. How long `inspect` took is printed.
fn inspect_all(zip: &Path, entries: usize, edited: Option<&str>) -> Option<Value> {
    let start = Instant::now();
    let out = run(&[Path::new("inspect"), Path::new("--jsonl"), zip]);
    eprintln!("inspect of {entries} entries: {:.1} s", start.elapsed().as_secs_f64());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The frame's report as a file, without its path.
    let alone = run(&[Path::new("inspect"), Path::new("--jsonl"), &fixture(FRAME)]);
    let alone = stdout(&alone);
    let (_, frame_report) = alone.trim_end().split_once("\",\"header\":").expect("a report");
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), entries, "one report per member");
    let zip = zip.display().to_string();
    let mut found = None;
    for (i, line) in lines.iter().enumerate() {
        let name = if i + 1 == entries {
            "embed.b2e".to_owned()
        } else {
            format!("a/{i:05}.b2nd")
        };
        let head = format!("{{\"format\":2,\"path\":{}", json!(format!("{zip}/{name}")));
        assert!(line.starts_with(&head), "line {i}: {line}");
        let (_, report) = line.split_once("\",\"header\":").expect("a report");
        if Some(name.as_str()) == edited {
            found = Some(serde_json::from_str(line).expect("JSON"));
        } else if name != "embed.b2e" {
            assert_eq!(report, frame_report, "{name}");
        }
    }
    found
}

/// Whether python's `zipfile` reads every member of `zip` with its CRC-32 right.
fn python_testzip(zip: &Path) -> String {
    let out = python3()
        .args([
            "-c",
            "import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).testzip())",
        ])
        .arg(zip)
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out)
}

#[test]
fn a_zip_of_65535_entries_without_zip64_records_is_read_and_edited() {
    let zip = python_zip("zips-65535", 65_535);
    let before = std::fs::read(&zip).expect("read");
    // What python wrote: 65,535 in the end record's count field, no zip64 locator before it.
    assert_eq!(end_records(&before), (0xffff, false));
    let member = zip.join(EDITED);
    let start = Instant::now();
    let out = run(&[Path::new("set"), Path::new("--vlmeta"), Path::new("k=1"), &member]);
    eprintln!("set on one member of 65535: {:.1} s", start.elapsed().as_secs_f64());
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!("{}: changed\n  vlmeta k: (absent) -> 1\n", member.display())
    );
    // python's zipfile: every CRC-32 right, the count field as it was.
    assert_eq!(python_testzip(&zip), "None\n");
    let after = std::fs::read(&zip).expect("read");
    assert_eq!(end_records(&after), (0xffff, false));
    // Every member listed, the edited one with its new vlmetalayer, the others as they were.
    let edited = inspect_all(&zip, 65_535, Some(EDITED)).expect("the edited member");
    let vlmeta = edited["vlmetalayers"].as_array().expect("vlmetalayers");
    assert_eq!(vlmeta.len(), 1);
    assert_eq!((&vlmeta[0]["name"], &vlmeta[0]["msgpack"]), (&json!("k"), &json!(1)));
    let original = run(&[Path::new("inspect"), Path::new("--json"), &fixture(FRAME)]);
    let original: Value = serde_json::from_slice(&original.stdout).expect("JSON");
    assert_eq!(edited["metalayers"], original[0]["metalayers"]);
}

#[test]
fn a_zip64_store_of_65536_entries_is_read_and_not_edited() {
    let zip = python_zip("zips-65536", 65_536);
    let before = std::fs::read(&zip).expect("read");
    // What python wrote: the count saturated, the zip64 locator before the end record.
    assert_eq!(end_records(&before), (0xffff, true));
    assert_eq!(inspect_all(&zip, 65_536, None), None);
    let member = zip.join(EDITED);
    // Refused as an edit and as a dry run alike, naming the zip.
    for dry_run in [false, true] {
        let mut args = vec![Path::new("set"), Path::new("--vlmeta"), Path::new("k=1"), &member];
        if dry_run {
            args.insert(1, Path::new("--dry-run"));
        }
        let out = run(&args);
        assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
        assert_eq!(
            stderr(&out),
            format!(
                "metalayer: {}: {}: a zip64 store is not rewritten; its members are read only\n",
                member.display(),
                zip.display()
            )
        );
        assert!(std::fs::read(&zip).expect("read") == before, "the zip changed");
    }
}
