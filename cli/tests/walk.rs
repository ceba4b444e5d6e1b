//! `metalayer inspect` over many paths: directories walked, `-` for stdin, `--jsonl`, paths that
//! are not UTF-8, and the exit status when some paths fail.
#![cfg(feature = "inspect")]

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::{BIN, expected, expected_stores, fixture, json, jsonl, read_fixture, run, run_stdin, stderr, stdout};
use serde_json::Value;

/// The metalayer names python reported for the fixture at `rel`.
fn expected_names(rel: &str) -> Vec<String> {
    let files = expected();
    let file = files.iter().find(|f| f["path"] == rel).expect("in expected.json");
    file["metalayers"]
        .as_array()
        .expect("metalayers")
        .iter()
        .map(|m| m["name"].as_str().expect("name").to_owned())
        .collect()
}

fn names(report: &Value) -> Vec<String> {
    report["metalayers"]
        .as_array()
        .expect("metalayers")
        .iter()
        .map(|m| m["name"].as_str().expect("name").to_owned())
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, bytes).expect("write");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), to.join(entry.file_name())).expect("copy");
    }
}

/// The first 120 bytes of dtype_i4le.b2nd, whose header_len is 165: the magic, then a header
/// cut short.
fn broken_frame() -> Vec<u8> {
    read_fixture("files/blosc2-4/dtype_i4le.b2nd")[..120].to_vec()
}

const BROKEN: &str = "at byte 0x0b: header_len 165 runs past the end of the file (120 bytes)";

/// A tree with frames under odd names, a sparse frame, files that are not frames and a broken
/// frame in the middle. Created in reverse order, so that the order of the output is the
/// command's and not the file system's.
struct Tree {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Tree {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().to_path_buf();
        write(&root.join("tiny"), b"\x9e\xa8");
        write(
            &root.join("e/f/deep.b2frame"),
            &read_fixture("files/blosc2-4/meta_user.b2nd"),
        );
        write(
            &root.join("d_notes.txt"),
            b"not a frame, and long enough to hold a magic",
        );
        write(&root.join("c_broken.bin"), &broken_frame());
        let sparse = root.join("b_sparse.b2nd");
        copy_dir(&fixture("files/blosc2-4/sparse_meta.b2nd"), &sparse);
        // A frame inside a sparse frame is not walked into.
        write(
            &sparse.join("inner.b2nd"),
            &read_fixture("files/blosc2-4/dtype_i4le.b2nd"),
        );
        write(&root.join("a/two"), &read_fixture("files/caterva-0.7/meta_user.cat"));
        write(
            &root.join("a/one.data"),
            &read_fixture("files/blosc2-4/dtype_i4le.b2nd"),
        );
        Tree { _dir: dir, root }
    }

    fn path(&self, rel: &str) -> String {
        self.root.join(rel).display().to_string()
    }

    /// The frames of the walk, in order.
    fn walked(&self) -> [String; 5] {
        [
            self.path("a/one.data"),
            self.path("a/two"),
            self.path("b_sparse.b2nd"),
            self.path("c_broken.bin"),
            self.path("e/f/deep.b2frame"),
        ]
    }
}

#[test]
fn walk_reports_every_frame_in_name_order_and_goes_on_after_a_broken_one() {
    let tree = Tree::new();
    let root = tree.root.display().to_string();
    let walked = tree.walked();

    let out = run(&["inspect", "--jsonl", &root]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!("metalayer: {}: {BROKEN}\n", walked[3]),
        "only the broken frame is reported; files that are not frames are skipped silently"
    );
    let lines = jsonl(&out);
    assert_eq!(lines.len(), 5, "{}", stdout(&out));
    let paths: Vec<&str> = lines.iter().map(|l| l["path"].as_str().expect("path")).collect();
    assert_eq!(paths, walked);
    assert_eq!(names(&lines[0]), expected_names("files/blosc2-4/dtype_i4le.b2nd"));
    assert_eq!(lines[0]["metalayers"][0]["schema"], "b2nd_v1");
    assert_eq!(names(&lines[1]), expected_names("files/caterva-0.7/meta_user.cat"));
    assert_eq!(lines[1]["metalayers"][0]["schema"], "caterva_v0");
    assert_eq!(names(&lines[2]), expected_names("files/blosc2-4/sparse_meta.b2nd"));
    let keys: Vec<&str> = lines[3]
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["format", "path", "error"]);
    assert_eq!(lines[3]["error"], BROKEN);
    assert_eq!(names(&lines[4]), expected_names("files/blosc2-4/meta_user.b2nd"));
    for line in &lines {
        assert!(line.get("path_bytes").is_none(), "{line}");
    }

    // --json: the same objects in one array.
    let out = run(&["inspect", "--json", &root]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json(&out), Value::Array(lines));

    // Text: the same frames, the sparse one marked.
    let out = run(&["inspect", &root]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let headers: Vec<&str> = text.lines().filter(|l| !l.starts_with(' ') && !l.is_empty()).collect();
    assert_eq!(
        headers,
        [
            format!("{}: 1 metalayer, 0 vlmetalayers", walked[0]),
            format!("{}: 5 metalayers, 0 vlmetalayers", walked[1]),
            format!("{}: 5 metalayers, 0 vlmetalayers  (sparse frame)", walked[2]),
            format!("{}: 5 metalayers, 0 vlmetalayers", walked[4]),
        ]
    );
}

#[test]
fn paths_given_explicitly() {
    let tree = Tree::new();
    let notes = tree.path("d_notes.txt");
    let sparse = tree.path("b_sparse.b2nd");
    let one = tree.path("a/one.data");

    // A file given by name is inspected even when it is not a frame.
    let out = run(&["inspect", "--jsonl", &notes, &sparse, &one]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!(
            "metalayer: {notes}: at byte 0x00: expected frame magic 0x9e 0xa8 \"b2frame\\0\", found 0x6e 0x6f 0x74 0x20 0x61 0x20 0x66 0x72 0x61 0x6d\n"
        )
    );
    let lines = jsonl(&out);
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["path"], notes.as_str());
    assert!(lines[0]["error"].as_str().expect("error").starts_with("at byte 0x00"));
    // A sparse frame given directly is one frame.
    assert_eq!(lines[1]["path"], sparse.as_str());
    assert_eq!(names(&lines[1]), expected_names("files/blosc2-4/sparse_meta.b2nd"));
    assert_eq!(lines[2]["path"], one.as_str());

    let out = run(&["inspect", &one]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).starts_with(&format!("{one}: 1 metalayer, 0 vlmetalayers\n")));
}

#[test]
fn directory_without_frames() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(&dir.path().join("x/readme.txt"), b"hello");
    let path = dir.path().display().to_string();
    // An empty result is an error of the run, on stderr, never silence.
    let message = format!("{path}: no Blosc2 frame found under this directory");
    let out = run(&["inspect", &path]);
    assert_eq!(
        (out.status.code(), stdout(&out), stderr(&out)),
        (Some(1), String::new(), format!("metalayer: {message}\n"))
    );
    let out = run(&["inspect", "--json", &path]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        json(&out),
        serde_json::json!([{ "format": 2, "path": path, "error": message }])
    );
    let out = run(&["inspect", "--jsonl", &path]);
    assert_eq!(out.status.code(), Some(1));
    // A directory that holds a frame beside it is not reported.
    let frames = tempfile::tempdir().expect("tempdir");
    std::fs::copy(fixture("files/blosc2-4/meta_user.b2nd"), frames.path().join("a.b2nd")).expect("copy");
    let out = run(&["inspect", "--jsonl", &path, &frames.path().display().to_string()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out).lines().count(), 2, "{}", stdout(&out));
    let out = run(&["inspect", &frames.path().display().to_string()]);
    assert_eq!((out.status.code(), stderr(&out)), (Some(0), String::new()));
}

/// The walk of every fixture finds exactly the frames python-blosc2 and caterva wrote, in
/// file-name order, whatever their extension (.b2nd, .b2frame, .b2f, .b2b, .cat, sparse
/// directories), and the members of the `.b2z` stores, each under `store.b2z/member`, the
/// frame of the same bytes as its `.b2d` twin.
#[test]
fn jsonl_over_every_fixture() {
    let files = expected();
    let by_path: std::collections::BTreeMap<String, Value> = files
        .iter()
        .map(|f| (f["path"].as_str().expect("path").to_owned(), f.clone()))
        .collect();
    let mut want: Vec<(PathBuf, Value)> = files
        .iter()
        .map(|f| (fixture(f["path"].as_str().expect("path")), f.clone()))
        .collect();
    for store in expected_stores().into_iter().filter(|s| s["store"] == "zip") {
        for member in store["members"].as_array().expect("members") {
            let name = member["name"].as_str().expect("name");
            let path = fixture(&format!("{}/{name}", store["path"].as_str().expect("path")));
            let twin = member["same_frame_as"].as_str().expect("a .b2d twin");
            want.push((path, by_path[twin].clone()));
        }
    }
    // Pre-order with each directory's entries sorted by name is the order of paths compared
    // component by component; a store's members come in that order too.
    want.sort_by(|a, b| a.0.cmp(&b.0));
    let want_paths: Vec<String> = want.iter().map(|(p, _)| p.display().to_string()).collect();

    let root = fixture("files").display().to_string();
    let out = run(&["inspect", "--jsonl", &root]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.ends_with('\n'));
    let all = jsonl(&out);
    // The frames EmbedStores hold, each after its EmbedStore (python_frames.rs checks them), as
    // many as the keys of their estore_metadata (expected.json): 2 + 6 (3.12.2's DictStore and
    // TreeStore) + 6 (4.14.1's TreeStore) in the .b2d stores and as many in their .b2z twins,
    // and 2 in each of the own embedstore.b2e of 3.12.2 and 4.14.1.
    let held = all.iter().filter(|l| common::held_by_embed_store(l)).count();
    assert_eq!(held, 2 * (2 + 6 + 6) + 2 + 2);
    let lines: Vec<Value> = all
        .iter()
        .filter(|l| !common::held_by_embed_store(l))
        .cloned()
        .collect();
    // 228 frames, and the 34 members of 5 zip stores.
    assert_eq!(lines.len(), 228 + 34);
    let paths: Vec<&str> = lines.iter().map(|l| l["path"].as_str().expect("path")).collect();
    assert_eq!(paths, want_paths);
    for (line, (path, file)) in lines.iter().zip(&want) {
        let want_names: Vec<&str> = file["metalayers"]
            .as_array()
            .expect("metalayers")
            .iter()
            .map(|m| m["name"].as_str().expect("name"))
            .collect();
        assert_eq!(names(line), want_names, "{}", path.display());
        // Compact: one line, no pretty spacing.
        assert!(!line.to_string().contains('\n'));
    }
    // Each line is the compact form of the --json element.
    let out = run(&["inspect", "--json", &root]);
    assert_eq!(json(&out), Value::Array(all.clone()));
    for (line, element) in text.lines().zip(json(&out).as_array().expect("array")) {
        assert_eq!(line, serde_json::to_string(element).expect("json"));
    }
}

#[cfg(unix)]
#[test]
fn paths_that_are_not_utf8_keep_their_bytes() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    let dir = tempfile::tempdir().expect("tempdir");
    // "café" in Latin-1: 0xe9 is not UTF-8 on its own.
    let name = OsStr::from_bytes(b"caf\xe9.b2nd");
    let good = dir.path().join(name);
    write(&good, &read_fixture("files/blosc2-4/dtype_i4le.b2nd"));
    let bad = dir.path().join(OsStr::from_bytes(b"z\xff"));
    write(&bad, &broken_frame());
    let utf8 = dir.path().join("é.b2nd");
    write(&utf8, &read_fixture("files/blosc2-4/dtype_i4le.b2nd"));
    let root = dir
        .path()
        .to_str()
        .expect("the temporary directory is UTF-8")
        .to_owned();

    let out = run(&["inspect", "--jsonl", &root]);
    assert_eq!(out.status.code(), Some(1));
    let lines = jsonl(&out);
    assert_eq!(lines.len(), 3, "{}", stdout(&out));
    // Sorted by bytes: "caf\xe9", "z\xff", "\xc3\xa9" (é).
    assert_eq!(lines[0]["path"], format!("{root}/caf\u{fffd}.b2nd"));
    assert_eq!(
        lines[0]["path_bytes"],
        format!("{}2f636166e92e62326e64", hex(root.as_bytes()))
    );
    assert_eq!(lines[0]["metalayers"][0]["name"], "b2nd");
    let keys: Vec<&str> = lines[1]
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["format", "path", "path_bytes", "error"]);
    assert_eq!(lines[1]["path"], format!("{root}/z\u{fffd}"));
    assert_eq!(lines[1]["path_bytes"], format!("{}2f7aff", hex(root.as_bytes())));
    assert_eq!(lines[1]["error"], BROKEN);
    assert_eq!(lines[2]["path"], format!("{root}/é.b2nd"));
    assert!(lines[2].get("path_bytes").is_none());

    // Given directly, the same; text shows the lossy path.
    let out = run(&[OsStr::new("inspect"), OsStr::new("--json"), good.as_os_str()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json(&out)[0]["path_bytes"], lines[0]["path_bytes"]);
    let out = run(&[OsStr::new("inspect"), good.as_os_str(), bad.as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).starts_with(&format!("{root}/caf\u{fffd}.b2nd: 1 metalayer, 0 vlmetalayers\n")),
        "{}",
        stdout(&out)
    );
    assert_eq!(stderr(&out), format!("metalayer: {root}/z\u{fffd}: {BROKEN}\n"));
}

#[test]
fn dash_reads_one_frame_from_stdin() {
    let frame = read_fixture("files/blosc2-4/meta_user.b2nd");
    let out = run_stdin(&["inspect", "-"], &frame);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("<stdin>: 5 metalayers, 0 vlmetalayers\n") && text.contains("\n  b2nd   53 bytes  b2nd_v1\n"),
        "{text}"
    );

    let out = run_stdin(&["inspect", "--jsonl", "-"], &frame);
    let lines = jsonl(&out);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["path"], "-");
    assert_eq!(names(&lines[0]), expected_names("files/blosc2-4/meta_user.b2nd"));

    // Beside other paths, in argument order.
    let cat = fixture("files/caterva-0.7/meta_user.cat").display().to_string();
    let out = run_stdin(&["inspect", "--json", &cat, "-"], &frame);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let reports = json(&out);
    assert_eq!(reports[0]["path"], cat.as_str());
    assert_eq!(reports[1]["path"], "-");

    // A header cut short, and no frame at all.
    let out = run_stdin(&["inspect", "--jsonl", "-"], &broken_frame());
    assert_eq!(out.status.code(), Some(1));
    let message = "at byte 0x0b: header_len 165 runs past the end of the input (120 bytes)";
    assert_eq!(stderr(&out), format!("metalayer: <stdin>: {message}\n"));
    assert_eq!(
        jsonl(&out),
        [serde_json::json!({"format": 2, "path": "-", "error": message})]
    );
    let out = run_stdin(&["inspect", "-"], b"");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        "metalayer: <stdin>: at byte 0x00: expected frame magic 0x9e 0xa8 \"b2frame\\0\", found the end of the input (0 bytes)\n"
    );

    // Stdin can be read once only.
    let out = run_stdin(&["inspect", "-", "-"], &frame);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), "");
    assert!(
        stderr(&out).starts_with("error: - (stdin) may be given only once"),
        "{}",
        stderr(&out)
    );
}

/// A pipe given by name (`/dev/stdin` here, `<(...)` in a shell) is read as a stream.
#[cfg(target_os = "linux")]
#[test]
fn pipe_given_by_name() {
    let frame = read_fixture("files/caterva-0.7/meta_user.cat");
    let out = run_stdin(&["inspect", "/dev/stdin"], &frame);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("/dev/stdin: 5 metalayers, 0 vlmetalayers\n"), "{text}");
    assert!(text.contains("\n  caterva  44 bytes  caterva_v0\n"), "{text}");
}

/// Each --jsonl line is written as soon as its frame is read: the first file's line arrives
/// while the command still waits for the frame on stdin.
#[test]
fn jsonl_lines_come_as_frames_are_read() {
    let file = fixture("files/blosc2-4/dtype_i4le.b2nd").display().to_string();
    let mut child = Command::new(BIN)
        .args(["inspect", "--jsonl", &file, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout"));
    let (send, receive) = mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let read = lines.read_line(&mut line).map(|_| line);
        let _ = send.send(read.map(|line| (line, lines)));
    });
    let first = receive.recv_timeout(Duration::from_secs(30));
    let (first, mut lines) = match first {
        Ok(Ok(read)) => read,
        other => {
            let _ = child.kill();
            panic!("no line before stdin was written: {other:?}");
        }
    };
    let first: Value = serde_json::from_str(&first).expect("JSON");
    assert_eq!(first["path"], file.as_str());

    let mut stdin = stdin;
    stdin
        .write_all(&read_fixture("files/caterva-0.7/meta_user.cat"))
        .expect("stdin");
    drop(stdin);
    let mut rest = String::new();
    lines.read_to_string(&mut rest).expect("stdout");
    let status = child.wait().expect("the binary ends");
    assert_eq!(status.code(), Some(0));
    let second: Value = serde_json::from_str(rest.trim_end()).expect("one more line");
    assert_eq!(second["path"], "-");
    assert_eq!(second["metalayers"][0]["schema"], "caterva_v0");
}

#[cfg(unix)]
#[test]
fn symbolic_links_in_a_walk() {
    use std::os::unix::fs::symlink;

    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        &root.join("real/a.b2nd"),
        &read_fixture("files/blosc2-4/dtype_i4le.b2nd"),
    );
    symlink(root.join("real/a.b2nd"), root.join("link.b2nd")).expect("symlink");
    let shown = root.display().to_string();

    // Not followed by default.
    let out = run(&["inspect", "--jsonl", &shown]);
    assert_eq!(out.status.code(), Some(0));
    let paths: Vec<String> = jsonl(&out)
        .iter()
        .map(|l| l["path"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(paths, [format!("{shown}/real/a.b2nd")]);

    // Followed with -L.
    let out = run(&["inspect", "--jsonl", "-L", &shown]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let paths: Vec<String> = jsonl(&out)
        .iter()
        .map(|l| l["path"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(paths, [format!("{shown}/link.b2nd"), format!("{shown}/real/a.b2nd")]);

    // A link given by name is followed without -L.
    let link = format!("{shown}/link.b2nd");
    let out = run(&["inspect", "--jsonl", &link]);
    assert_eq!(out.status.code(), Some(0));

    // A dangling link and a loop cannot be read: reported, and the walk goes on.
    symlink(root.join("gone"), root.join("dangling")).expect("symlink");
    symlink(root.join("real"), root.join("real/loop")).expect("symlink");
    let out = run(&["inspect", "--jsonl", "--follow", &shown]);
    assert_eq!(out.status.code(), Some(1));
    let lines = jsonl(&out);
    let paths: Vec<&str> = lines.iter().map(|l| l["path"].as_str().expect("path")).collect();
    assert_eq!(
        paths,
        [
            format!("{shown}/dangling"),
            format!("{shown}/link.b2nd"),
            format!("{shown}/real/a.b2nd"),
            format!("{shown}/real/loop"),
        ]
    );
    let dangling = lines[0]["error"].as_str().expect("error");
    assert!(
        dangling.starts_with(&format!("cannot read {shown}/dangling: ")),
        "{dangling}"
    );
    assert_eq!(
        lines[3]["error"],
        format!("{shown}/real/loop: a symbolic link loop: it leads back to {shown}/real")
    );
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 2, "{err}");
    assert!(
        err.starts_with(&format!("metalayer: cannot read {shown}/dangling: ")),
        "{err}"
    );
    // Without -L, neither link is looked at.
    let out = run(&["inspect", "--jsonl", &shown]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// A directory that cannot be listed is reported and the walk goes on. Permissions do not stop
/// a privileged user, so the check runs only where they do.
#[cfg(unix)]
#[test]
fn unreadable_directory() {
    use std::os::unix::fs::PermissionsExt;

    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        &root.join("a_locked/x.b2nd"),
        &read_fixture("files/blosc2-4/dtype_i4le.b2nd"),
    );
    write(&root.join("b.b2nd"), &read_fixture("files/blosc2-4/dtype_i4le.b2nd"));
    let locked = root.join("a_locked");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    let privileged = std::fs::read_dir(&locked).is_ok();
    let out = run(&["inspect", "--jsonl", &root.display().to_string()]);
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    if privileged {
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(jsonl(&out).len(), 2);
        return;
    }
    assert_eq!(out.status.code(), Some(1));
    let lines = jsonl(&out);
    assert_eq!(lines.len(), 2, "{}", stdout(&out));
    assert_eq!(lines[0]["path"], locked.display().to_string());
    let error = lines[0]["error"].as_str().expect("error");
    assert!(
        error.starts_with(&format!("cannot read {}: ", locked.display())),
        "{error}"
    );
    assert_eq!(lines[1]["path"], root.join("b.b2nd").display().to_string());
}

#[test]
fn exit_statuses() {
    let good = fixture("files/blosc2-4/dtype_i4le.b2nd").display().to_string();
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("bad.b2nd");
    write(&bad, &broken_frame());
    let bad = bad.display().to_string();
    for (args, status) in [
        (vec!["inspect", &good], 0),
        (vec!["inspect", "--jsonl", &good], 0),
        (vec!["inspect", "-L", "--json", &good], 0),
        (vec!["inspect", "--jsonl", &good, &bad], 1),
        (vec!["inspect", &bad, &good], 1),
        (vec!["inspect", "--json", "--jsonl", &good], 2),
        (vec!["inspect", "--jsonl"], 2),
        (vec!["inspect", "--recursive", &good], 2),
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(status), "{args:?}: {}", stderr(&out));
        if status == 2 {
            assert_eq!(stdout(&out), "", "{args:?}");
            assert!(stderr(&out).starts_with("error: "), "{args:?}: {}", stderr(&out));
        }
    }
}

/// `inspect --jsonl ... | head -1` stops quietly, with status 0.
#[test]
fn jsonl_broken_pipe_is_quiet() {
    let root = fixture("files").display().to_string();
    let mut child = Command::new(BIN)
        .args(["inspect", "--jsonl"])
        // Enough output to fill any pipe buffer.
        .args(std::iter::repeat_n(&root, 20))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("a line");
    assert!(first.starts_with("{\"format\":2,\"path\":"), "{first}");
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("stderr");
    let status = child.wait().expect("the binary ends");
    assert_eq!(status.code(), Some(0), "{err}");
    assert_eq!(err, "");
}
