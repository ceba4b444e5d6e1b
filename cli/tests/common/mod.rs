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

/// Every record of expected.json: frames and stores.
fn records() -> Vec<Value> {
    let text = std::fs::read_to_string(fixture("expected.json")).expect("expected.json");
    match serde_json::from_str(&text).expect("expected.json parses") {
        Value::Array(files) => files,
        other => panic!("expected.json is not an array: {other}"),
    }
}

/// expected.json's frame records: what python-blosc2 and caterva report for every fixture
/// frame (a file, a sparse-frame directory, or a member file of a `.b2d` store).
pub fn expected() -> Vec<Value> {
    records().into_iter().filter(|r| r.get("store").is_none()).collect()
}

/// expected.json's store records (`"store": "zip"` or `"directory"`): a `.b2z` or `.b2d`
/// store's members and the nodes python-blosc2 reads through it.
pub fn expected_stores() -> Vec<Value> {
    records().into_iter().filter(|r| r.get("store").is_some()).collect()
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

/// Writes `bytes` to `dir/name`; returns the path as text.
pub fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write");
    path.display().to_string()
}

/// A Blosc2 chunk holding `data` uncompressed, its 32-byte header shaped as python-blosc2's are
/// (see `expected.json`, `bin8_0`: `05 01 07 01`, nbytes, blocksize and cbytes as
/// little-endian u32, then `00000000 00010500 00000000 00000000`).
pub fn chunk(data: &[u8]) -> Vec<u8> {
    let mut c = chunk_header(data.len());
    c.extend_from_slice(data);
    c
}

/// The header of [`chunk`] for `len` bytes of data.
pub fn chunk_header(len: usize) -> Vec<u8> {
    let n = len as u32;
    let mut c = vec![0x05, 0x01, 0x07, 0x01];
    c.extend_from_slice(&n.to_le_bytes());
    c.extend_from_slice(&n.to_le_bytes());
    c.extend_from_slice(&(n + 32).to_le_bytes());
    c.extend_from_slice(&[0, 0, 0, 0, 0, 0x01, 0x05, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    c
}

/// A frame with meta_user's header (240 bytes, five metalayers) and these vlmetalayers, each a
/// chunk as stored.
pub fn frame(vlmetalayers: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let lens: Vec<(&str, usize)> = vlmetalayers.iter().map(|(name, c)| (*name, c.len())).collect();
    let pieces = frame_pieces(&lens);
    let mut frame = pieces[0].clone();
    for ((_, content), piece) in vlmetalayers.iter().zip(&pieces[1..]) {
        frame.extend_from_slice(content);
        frame.extend_from_slice(piece);
    }
    frame
}

/// The bytes of [`frame`] around its vlmetalayers' contents, given their names and lengths:
/// content `i` goes between piece `i` and piece `i + 1`. A frame of any size is written piece
/// by piece, without copying what it holds.
pub fn frame_pieces(vlmetalayers: &[(&str, usize)]) -> Vec<Vec<u8>> {
    static HEADER: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    let header = HEADER.get_or_init(|| read_fixture("files/blosc2-4/meta_user.b2nd")[..240].to_vec());
    let mut head = header.clone();
    head[0x44] = if vlmetalayers.is_empty() { 0xc2 } else { 0xc3 };
    // 94 01: fixarray(4), version 1; 93 cd <size> de <n>: the section, its size, a map16.
    let mut t = vec![0x94, 0x01, 0x93, 0xcd, 0, 0, 0xde];
    t.extend_from_slice(&(vlmetalayers.len() as u16).to_be_bytes());
    let names_len: usize = vlmetalayers.iter().map(|(name, _)| 1 + name.len() + 5).sum();
    // Contents start after the map's pairs, 0xdc and its u16 count.
    let mut offset = t.len() + names_len + 3;
    for (name, len) in vlmetalayers {
        t.push(0xa0 + name.len() as u8);
        t.extend_from_slice(name.as_bytes());
        t.push(0xd2);
        t.extend_from_slice(&(offset as i32).to_be_bytes());
        offset += 5 + len;
    }
    let size = (t.len() - 3) as u16;
    t[4..6].copy_from_slice(&size.to_be_bytes());
    t.push(0xdc);
    t.extend_from_slice(&(vlmetalayers.len() as u16).to_be_bytes());
    // The trailer: what is written so far, each content after its c6 and length, then
    // ce <trailer_len> and the fingerprint (d8 00 and 16 zeros).
    let trailer_len = offset + 23;
    let frame_len = (240 + trailer_len) as u64;
    head[16..24].copy_from_slice(&frame_len.to_be_bytes());
    head.extend_from_slice(&t);
    let mut pieces = vec![head];
    for (_, len) in vlmetalayers {
        let last = pieces.len() - 1;
        pieces[last].push(0xc6);
        pieces[last].extend_from_slice(&(*len as u32).to_be_bytes());
        pieces.push(Vec::new());
    }
    let last = pieces.len() - 1;
    pieces[last].push(0xce);
    pieces[last].extend_from_slice(&(trailer_len as u32).to_be_bytes());
    pieces[last].extend_from_slice(&[0xd8, 0x00]);
    pieces[last].extend_from_slice(&[0; 16]);
    pieces
}

/// A frame of no chunks with these metalayers in its header and these vlmetalayers (each a
/// chunk as stored) in its trailer: meta_user's fixed header fields, its metalayer section
/// written anew.
pub fn frame_with_metalayers(metalayers: &[(&str, &[u8])], vlmetalayers: &[(&str, Vec<u8>)]) -> Vec<u8> {
    // The fixed fields up to the section (0x57), then 93 cd <size> de <n>: fixarray(3), the
    // section's size counted from the 0x93, a map16 of name to int32 offset.
    let mut head = read_fixture("files/blosc2-4/meta_user.b2nd")[..0x57].to_vec();
    let pairs: usize = metalayers.iter().map(|(name, _)| 1 + name.len() + 5).sum();
    let size = 1 + 3 + 3 + pairs;
    head.extend_from_slice(&[0x93, 0xcd]);
    head.extend_from_slice(&(size as u16).to_be_bytes());
    head.push(0xde);
    head.extend_from_slice(&(metalayers.len() as u16).to_be_bytes());
    let mut offset = 0x57 + size + 3;
    for (name, content) in metalayers {
        head.push(0xa0 + name.len() as u8);
        head.extend_from_slice(name.as_bytes());
        head.push(0xd2);
        head.extend_from_slice(&(offset as i32).to_be_bytes());
        offset += 5 + content.len();
    }
    head.push(0xdc);
    head.extend_from_slice(&(metalayers.len() as u16).to_be_bytes());
    for (_, content) in metalayers {
        head.push(0xc6);
        head.extend_from_slice(&(content.len() as u32).to_be_bytes());
        head.extend_from_slice(content);
    }
    let header_len = head.len();
    head[11..15].copy_from_slice(&(header_len as i32).to_be_bytes());
    // The trailer of `frame`, after this header.
    let lens: Vec<(&str, usize)> = vlmetalayers.iter().map(|(name, c)| (*name, c.len())).collect();
    let pieces = frame_pieces(&lens);
    let mut frame = head;
    frame[0x44] = pieces[0][0x44];
    frame.extend_from_slice(&pieces[0][240..]);
    for ((_, content), piece) in vlmetalayers.iter().zip(&pieces[1..]) {
        frame.extend_from_slice(content);
        frame.extend_from_slice(piece);
    }
    let frame_len = frame.len() as u64;
    frame[16..24].copy_from_slice(&frame_len.to_be_bytes());
    frame
}

/// msgpack ext32 of type 42 holding `data`: `c9 <len u32> 2a data`.
pub fn ext42(data: &[u8]) -> Vec<u8> {
    let mut v = ext32_header(42, data.len());
    v.extend_from_slice(data);
    v
}

/// The header of a msgpack ext32 of type `ty` holding `len` bytes: `c9 <len u32> <ty>`.
pub fn ext32_header(ty: i8, len: usize) -> Vec<u8> {
    let mut v = vec![0xc9];
    v.extend_from_slice(&(len as u32).to_be_bytes());
    v.push(ty as u8);
    v
}

/// Whether a report is of a frame held by an EmbedStore (`…/embed.b2e/key`), which `inspect`
/// reports after the EmbedStore's own.
pub fn held_by_embed_store(report: &Value) -> bool {
    report["path"].as_str().is_some_and(|p| p.contains(".b2e/"))
}

/// The metalayer names python-blosc2 stores its own records under.
pub const PYTHON_BLOSC2_NAMES: &[&str] = &[
    "b2o",
    "LazyArray",
    "proxy-source",
    "batcharray",
    "vlarray",
    "listarray",
    "b2embed",
    "b2dict",
    "b2tree",
    "ctable_varlen_scalar",
];

/// Whether a typed value is python's: a record's fields are a JSON object of the schema's entry
/// names, which python's msgpack reads as a map (the same object) or, for an array-form record
/// such as a tuple, as an array of the same values in order.
pub fn same_value(ours: &Value, python: &Value) -> bool {
    match (ours, python) {
        (Value::Object(fields), Value::Array(items)) => {
            fields.len() == items.len() && fields.values().zip(items).all(|(a, b)| same_value(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|((ka, va), (kb, vb))| ka == kb && same_value(va, vb))
        }
        (Value::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_value(x, y)),
        _ => ours == python,
    }
}

/// An `inspect --hex` report as format 2 writes it without `--hex`: each value once. An item
/// (`{"name", "len", ...}`) that decodes (`"schema"` or `"msgpack"`) loses its `"hex"`, and an
/// ext that decodes (`"value"` or `"frame"`) its `"data"`; bytes that decode to nothing keep
/// their hex.
pub fn without_hex(value: &Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(without_hex).collect()),
        Value::Object(map) => {
            let item = map.contains_key("name")
                && map.contains_key("len")
                && (map.contains_key("schema") || map.contains_key("msgpack"));
            let ext = map.contains_key("ext") && (map.contains_key("value") || map.contains_key("frame"));
            map.iter()
                .filter(|(k, _)| !(item && k.as_str() == "hex" || ext && k.as_str() == "data"))
                .map(|(k, v)| (k.clone(), without_hex(v)))
                .collect::<serde_json::Map<_, _>>()
                .into()
        }
        other => other.clone(),
    }
}

/// Runs the binary with `args` and with `args` and `--hex`, both `--jsonl`, and checks that
/// the first writes what the second does, each value once ([`without_hex`]); returns the
/// outputs, the one with `--hex` second.
pub fn run_with_and_without_hex<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> (Output, Output) {
    let plain = Command::new(BIN)
        .arg("inspect")
        .arg("--jsonl")
        .args(args)
        .output()
        .expect("the binary runs");
    let hex = Command::new(BIN)
        .args(["inspect", "--jsonl", "--hex"])
        .args(args)
        .output()
        .expect("the binary runs");
    assert_eq!(plain.status.code(), hex.status.code());
    assert_eq!(stderr(&plain), stderr(&hex));
    let lines = |out: &Output| -> Vec<Value> {
        stdout(out)
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect()
    };
    let (p, h) = (lines(&plain), lines(&hex));
    assert_eq!(p.len(), h.len());
    for (p, h) in p.iter().zip(&h) {
        assert_eq!(p, &without_hex(h), "{}", p["path"]);
    }
    (plain, hex)
}
