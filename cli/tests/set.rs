//! `metalayer set`: edits checked with `inspect`, dry runs that change nothing, the report of
//! many files, failures and usage errors.

mod common;

use std::path::{Path, PathBuf};

use common::{fixture, json, run, scratch, stderr, stdout};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// Copies fixture frames (files or sparse-frame directories) into `dir`.
fn copies(dir: &Path, rels: &[&str]) -> Vec<PathBuf> {
    rels.iter()
        .map(|rel| {
            let from = fixture(rel);
            let to = dir.join(from.file_name().expect("a name"));
            if from.is_dir() {
                std::fs::create_dir_all(&to).expect("dir");
                for entry in std::fs::read_dir(&from).expect("dir") {
                    let entry = entry.expect("entry");
                    std::fs::copy(entry.path(), to.join(entry.file_name())).expect("copy");
                }
            } else {
                std::fs::copy(&from, &to).expect("copy");
            }
            to
        })
        .collect()
}

/// The SHA-256 of every file under `dir`, by path.
fn checksums(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut sums = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let digest = Sha256::digest(std::fs::read(&path).expect("read"));
                sums.push((path, format!("{digest:x}")));
            }
        }
    }
    sums.sort();
    sums
}

/// `inspect --json`'s report of one frame.
fn inspect(path: &Path) -> Value {
    let out = run(&[Path::new("inspect"), Path::new("--json"), path]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    json(&out)[0].clone()
}

/// The msgpack value `inspect` shows for the vlmetalayer `name`.
fn vlmeta(report: &Value, name: &str) -> Option<Value> {
    let all = report["vlmetalayers"].as_array()?;
    all.iter().find(|m| m["name"] == name).map(|m| m["msgpack"].clone())
}

/// Runs `set` with `options` on `files`.
fn run_set(options: &[&str], files: &[PathBuf]) -> std::process::Output {
    let mut args: Vec<String> = vec!["set".to_owned()];
    args.extend(options.iter().map(|o| (*o).to_owned()));
    args.extend(files.iter().map(|f| f.display().to_string()));
    run(&args)
}

const FILES: [&str; 3] = [
    "files/blosc2-4/meta_user.b2nd",
    "files/blosc2-2-vlmeta/updated_deleted.b2nd",
    "files/blosc2-4-vlmeta/sparse_mixed.b2nd",
];

#[test]
fn dry_run_changes_nothing_and_shows_before_and_after() {
    let dir = scratch("set-dry-run");
    let mut files = copies(&dir, &FILES);
    // A store's member too.
    let zip = copies(&dir, &["files/blosc2-4-stores/dictstore.b2z"]).remove(0);
    files.push(zip.join("big.b2nd"));
    let before = checksums(&dir);
    let out = run_set(
        &[
            "--dry-run",
            "--vlmeta",
            r#"a={"unit":"K","scale":0.5}"#,
            "--vlmeta",
            "b=null",
        ],
        &files,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(checksums(&dir), before);
    let text = stdout(&out);
    // python-blosc2 stored "a" = 1 and "b" = "a longer value " * 4 in updated_deleted.b2nd.
    let long = "a longer value ".repeat(4);
    let expected = format!(
        "{0}: would change (dry run)\n  vlmeta a: (absent) -> {{\"unit\":\"K\",\"scale\":0.5}}\n  vlmeta b: (absent) -> null\n\
         {1}: would change (dry run)\n  vlmeta a: 1 -> {{\"unit\":\"K\",\"scale\":0.5}}\n  vlmeta b: \"{long}\" -> null\n\
         {2}: would change (dry run)\n  vlmeta a: (absent) -> {{\"unit\":\"K\",\"scale\":0.5}}\n  vlmeta b: (absent) -> null\n\
         {3}: would change (dry run)\n  vlmeta a: (absent) -> {{\"unit\":\"K\",\"scale\":0.5}}\n  vlmeta b: (absent) -> null\n",
        files[0].display(),
        files[1].display(),
        files[2].display(),
        files[3].display()
    );
    assert_eq!(text, expected);
}

#[test]
fn edits_every_file_and_reports_each() {
    let dir = scratch("set-many");
    let files = copies(&dir, &FILES[1..]);
    let out = run_set(
        &[
            "--vlmeta",
            r#"calibration={"gain":1.5,"run":12}"#,
            "--delete-vlmeta",
            "int",
        ],
        &files,
    );
    // updated_deleted.b2nd has no "int": it fails, and is left as it was; the other is edited.
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "metalayer: {}: the frame has no vlmetalayer \"int\" to delete\n",
            files[0].display()
        )
    );
    assert_eq!(
        std::fs::read(&files[0]).expect("read"),
        std::fs::read(fixture(FILES[1])).expect("read")
    );
    assert!(
        stdout(&out).starts_with(&format!("{}: changed\n", files[1].display())),
        "{}",
        stdout(&out)
    );
    let report = inspect(&files[1]);
    assert_eq!(vlmeta(&report, "calibration"), Some(json!({"gain": 1.5, "run": 12})));
    assert_eq!(vlmeta(&report, "int"), None);
    // The sparse frame's chunks are the fixture's.
    for chunk in ["00000000.chunk", "00000001.chunk"] {
        let ours = std::fs::read(files[1].join(chunk)).expect("read");
        assert_eq!(ours, std::fs::read(fixture(FILES[2]).join(chunk)).expect("read"));
    }
}

#[test]
fn metalayers_are_typed_by_their_layout() {
    let dir = scratch("set-typed");
    let files = copies(
        &dir,
        &["files/blosc2-4/dtype_i4le.b2nd", "files/blosc2-4/meta_user.b2nd"],
    );
    let b2nd = inspect(&files[0])["metalayers"][0]["fields"].clone();
    let mut fields = b2nd.clone();
    fields["dtype"] = json!("<u4");
    let arg = format!("b2nd={fields}");
    let out = run(&[Path::new("set"), Path::new("--meta"), Path::new(&arg), &files[0]]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(inspect(&files[0])["metalayers"][0]["fields"], fields);
    // Before and after, as the layout shows them.
    assert_eq!(
        stdout(&out),
        format!("{}: changed\n  meta b2nd: {b2nd} -> {fields}\n", files[0].display())
    );
    // A user metalayer without a layout is plain msgpack; another length is refused.
    let out = run(&[Path::new("set"), Path::new("--meta"), Path::new("scale=300"), &files[1]]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("metalayer \"scale\" (content at byte 0xdd): the new value is 3 bytes, the stored one 1"),
        "{}",
        stderr(&out)
    );
    let out = run(&[Path::new("set"), Path::new("--meta"), Path::new("scale=9"), &files[1]]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(inspect(&files[1])["metalayers"][2]["msgpack"], json!(9));
}

#[test]
fn usage_errors_exit_2() {
    let path = fixture(FILES[0]).display().to_string();
    for args in [
        vec!["set", path.as_str()],
        vec!["set", "--vlmeta", "a=1", "--delete-vlmeta", "a", path.as_str()],
        vec!["set", "--vlmeta", "a", path.as_str()],
        vec!["set", "--vlmeta", "a={", path.as_str()],
        vec!["set", "--vlmeta", "a=1"],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stdout(&out).is_empty(), "{args:?}");
    }
}

#[test]
fn a_store_member_is_edited_and_the_others_kept() {
    let dir = scratch("set-store");
    let zip = copies(&dir, &["files/blosc2-4-stores/dictstore.b2z"]).remove(0);
    let member = zip.join("dir/deeper/f8.b2nd");
    let out = run(&[
        Path::new("set"),
        Path::new("--vlmeta"),
        Path::new("unit=\"m\""),
        &member,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!("{}: changed\n  vlmeta unit: (absent) -> \"m\"\n", member.display())
    );
    let reports = |path: &Path| -> Vec<Value> {
        let out = run(&[Path::new("inspect"), Path::new("--json"), path]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let mut all = json(&out).as_array().expect("reports").clone();
        for report in &mut all {
            let path = report["path"].as_str().expect("path").to_owned();
            report["path"] = Value::String(path.rsplit_once(".b2z/").expect("a member").1.to_owned());
        }
        all
    };
    let (before, after) = (reports(&fixture("files/blosc2-4-stores/dictstore.b2z")), reports(&zip));
    assert_eq!(before.len(), after.len());
    for (b, a) in before.iter().zip(&after) {
        if b["path"] == "dir/deeper/f8.b2nd" {
            assert_eq!(vlmeta(a, "unit"), Some(json!("m")));
            assert_eq!(a["metalayers"], b["metalayers"]);
        } else {
            assert_eq!(a, b);
        }
    }
    // A member the zip does not hold.
    let out = run(&[
        Path::new("set"),
        Path::new("--vlmeta"),
        Path::new("k=1"),
        &zip.join("nope.b2nd"),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).ends_with("the zip has no member \"nope.b2nd\"\n"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn schema_types_the_values_of_its_metalayer_name() {
    let dir = scratch("set-schema");
    let files = copies(&dir, &["files/blosc2-4/meta_user.b2nd"]);
    let value = r#"caterva={"shape":[4],"chunkshape":[2],"blockshape":[1]}"#;
    let out = run_set(&["--schema", "caterva_v0", "--vlmeta", value], &files);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // caterva_v0's bytes, by hand: 0x95, version 0, ndim 1, then 0x91 d3 + i64 4, 0x91 d2 + i32
    // 2, 0x91 d2 + i32 1; standard msgpack reads them as this array.
    let out = run(&[Path::new("inspect"), Path::new("--json"), Path::new("--hex"), &files[0]]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let stored = json(&out)[0]["vlmetalayers"][0].clone();
    assert_eq!(stored["name"], "caterva");
    assert_eq!(stored["hex"], "95000191d3000000000000000491d20000000291d200000001");
    // Without the schema the object is plain msgpack: a map.
    let out = run_set(&["--vlmeta", value], &files);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        vlmeta(&inspect(&files[0]), "caterva"),
        Some(json!({"shape": [4], "chunkshape": [2], "blockshape": [1]}))
    );
}
