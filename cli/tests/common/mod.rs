//! What the command's integration tests share: running the built binary, reading its output,
//! the fixtures and scratch directories. Each test binary uses a part of it.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

pub const BIN: &str = env!("CARGO_BIN_EXE_metalayer");

/// The repository's `tests/fixtures` (made by python-blosc2 and caterva; see their README),
/// through a link that `cargo package` replaces by the files.
pub const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

pub fn fixture(rel: &str) -> PathBuf {
    Path::new(FIXTURES).join(rel)
}

pub fn read_fixture(rel: &str) -> Vec<u8> {
    std::fs::read(fixture(rel)).expect("fixture")
}

/// expected.json: what python-blosc2 and caterva report for every fixture.
pub fn expected() -> Vec<Value> {
    let text = std::fs::read_to_string(fixture("expected.json")).expect("expected.json");
    match serde_json::from_str(&text).expect("expected.json parses") {
        Value::Array(files) => files,
        other => panic!("expected.json is not an array: {other}"),
    }
}

pub fn run<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Output {
    Command::new(BIN).args(args).output().expect("the binary runs")
}

/// Runs the binary with `stdin` written to its standard input.
pub fn run_stdin<S: AsRef<std::ffi::OsStr>>(args: &[S], stdin: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // A command that stops reading early (a header that does not read, or nothing after
    // `frame_len`) closes the pipe: a broken pipe here is expected.
    match child.stdin.take().expect("stdin").write_all(stdin) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => panic!("stdin not written: {e}"),
        _ => {}
    }
    child.wait_with_output().expect("the binary ends")
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8")
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).expect("stderr is UTF-8")
}

pub fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", stdout(out)))
}

/// Each line of stdout parsed as JSON.
pub fn jsonl(out: &Output) -> Vec<Value> {
    stdout(out)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
        .collect()
}

/// A scratch directory of the test's own under the target directory, emptied first.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("metalayer-cli").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// The bytes of lowercase or uppercase hex text without separators.
pub fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex"))
        .collect()
}
