//! `metalayer::frame` against the real fixture files, and against corrupted copies of them.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use metalayer::frame::{FrameErrorKind, MAX_HEADER_LEN, PREFIX_LEN, header_len, parse_header, read_metalayers};
use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn fixture(rel: &str) -> Vec<u8> {
    fs::read(fixtures().join(rel)).unwrap()
}

fn hex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex length");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// A fresh directory under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("metalayer-frame-test-{}-{n}-{tag}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.0.join(name);
        fs::write(&path, bytes).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn put_i32(bytes: &mut [u8], at: usize, value: i32) {
    bytes[at..at + 4].copy_from_slice(&value.to_be_bytes());
}

/// The Display text of `parse_header` on `bytes`, which must fail.
fn parse_err(bytes: &[u8]) -> String {
    match parse_header(bytes) {
        Ok(m) => panic!("expected an error, parsed {} metalayers", m.len()),
        Err(e) => e.to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// Every fixture
// ---------------------------------------------------------------------------------------------

#[test]
fn every_fixture_matches_expected_json() {
    let root = fixtures();
    let expected: Value = serde_json::from_str(&fs::read_to_string(root.join("expected.json")).unwrap()).unwrap();
    // The frame records: store records (`"store"`) describe .b2z and .b2d stores.
    let entries: Vec<&Value> = expected
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r.get("store").is_none())
        .collect();
    assert!(entries.len() >= 100, "expected.json lists {} files", entries.len());
    let (mut contiguous, mut sparse, mut user) = (0, 0, 0);
    // The store records (`"store"`: .b2z and .b2d stores) are not frames.
    for entry in entries.iter().filter(|e| e.get("store").is_none()) {
        let rel = entry["path"].as_str().unwrap();
        let path = root.join(rel);
        let got = read_metalayers(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let want = entry["metalayers"].as_array().unwrap();
        let got_names: Vec<&str> = got.iter().map(|m| m.name.as_str()).collect();
        let want_names: Vec<&str> = want.iter().map(|m| m["name"].as_str().unwrap()).collect();
        assert_eq!(got_names, want_names, "{rel}: names");
        for (g, w) in got.iter().zip(want) {
            assert_eq!(
                g.content,
                hex(w["hex"].as_str().unwrap()),
                "{rel}: content of {:?}",
                g.name
            );
        }

        // The offsets point at the contents in the frame file, and the in-memory parser agrees.
        let frame_file = fs::read(root.join(entry["frame_file"].as_str().unwrap())).unwrap();
        for m in &got {
            let start = usize::try_from(m.offset).unwrap();
            assert_eq!(
                frame_file[start..start + m.content.len()],
                m.content,
                "{rel}: offset of {:?}",
                m.name
            );
            assert_eq!(frame_file[start - 5], 0xc6, "{rel}: marker of {:?}", m.name);
        }
        assert_eq!(parse_header(&frame_file).unwrap(), got, "{rel}: parse_header");
        let len = header_len(&frame_file[..PREFIX_LEN]).unwrap();
        assert_eq!(
            parse_header(&frame_file[..len]).unwrap(),
            got,
            "{rel}: exactly header_len bytes"
        );

        match entry["frame"].as_str().unwrap() {
            "contiguous" => contiguous += 1,
            "sparse" => {
                assert!(path.is_dir(), "{rel}");
                sparse += 1;
            }
            other => panic!("{rel}: frame {other:?}"),
        }
        if got.len() > 1 {
            user += 1;
        }
    }
    assert!(contiguous > 0 && sparse > 0 && user > 0, "{contiguous} {sparse} {user}");
}

#[test]
fn a_file_cut_at_header_len_is_enough() {
    let tmp = TempDir::new("cut");
    for rel in [
        "files/blosc2-4/meta_user.b2nd",
        "files/caterva-0.7/ndim8.cat",
        "files/blosc2-4/ndim16.b2nd",
    ] {
        let file = fixture(rel);
        let len = header_len(&file).unwrap();
        let cut = tmp.file("cut.b2nd", &file[..len]);
        assert_eq!(
            read_metalayers(&cut).unwrap(),
            read_metalayers(fixtures().join(rel)).unwrap(),
            "{rel}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Truncations and arbitrary corruption: errors, never panics
// ---------------------------------------------------------------------------------------------

const SOME_HEADERS: [&str; 5] = [
    "files/blosc2-4/meta_user.b2nd",
    "files/blosc2-2/sparse_meta.b2nd/chunks.b2frame",
    "files/caterva-0.7/meta_user.cat",
    "files/blosc2-4/ndim16_meta.b2nd",
    "files/blosc2-4/ndim00.b2nd",
];

#[test]
fn every_truncation_is_an_error() {
    for rel in SOME_HEADERS {
        let file = fixture(rel);
        let len = header_len(&file).unwrap();
        for n in 0..len {
            // The input is cut short...
            let err = parse_header(&file[..n]).unwrap_err();
            assert!(
                matches!(
                    err.kind(),
                    FrameErrorKind::Truncated { .. }
                        | FrameErrorKind::Decode { end: None, .. }
                        | FrameErrorKind::PastInput { .. }
                ),
                "{rel}[..{n}]: {err}"
            );
            // ... or header_len claims fewer bytes than the metalayers need.
            if n >= PREFIX_LEN {
                let mut short = file[..n].to_vec();
                put_i32(&mut short, 11, i32::try_from(n).unwrap());
                assert!(parse_header(&short).is_err(), "{rel} with header_len {n}");
            }
        }
    }
}

#[test]
fn every_truncated_file_is_an_error() {
    let tmp = TempDir::new("trunc");
    let file = fixture("files/blosc2-4/meta_user.b2nd");
    let len = header_len(&file).unwrap();
    for n in 0..len {
        let path = tmp.file("t.b2nd", &file[..n]);
        let err = read_metalayers(&path).unwrap_err();
        let ok = if n < PREFIX_LEN {
            matches!(
                err.kind(),
                FrameErrorKind::Truncated { .. } | FrameErrorKind::Decode { end: None, .. }
            )
        } else {
            err.to_string() == format!("at byte 0x0b: header_len 240 runs past the end of the file ({n} bytes)")
        };
        assert!(ok, "cut at {n}: {err}");
    }
}

#[test]
fn no_single_byte_change_panics() {
    for rel in SOME_HEADERS {
        let file = fixture(rel);
        let len = header_len(&file).unwrap();
        let mut bytes = file[..len].to_vec();
        for at in 0..len {
            let orig = bytes[at];
            for value in 0..=255u8 {
                bytes[at] = value;
                let _ = parse_header(&bytes);
            }
            bytes[at] = orig;
        }
        assert_eq!(bytes, file[..len]);
    }
}

#[test]
fn random_corruption_never_panics() {
    // A small xorshift generator: deterministic, no dependency.
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for rel in SOME_HEADERS {
        let file = fixture(rel);
        let len = header_len(&file).unwrap();
        for _ in 0..2000 {
            let mut bytes = file[..len].to_vec();
            for _ in 0..1 + next() % 6 {
                let at = usize::try_from(next() % len as u64).unwrap();
                bytes[at] = u8::try_from(next() & 0xff).unwrap();
            }
            let cut = usize::try_from(next() % (len as u64 + 1)).unwrap();
            let _ = parse_header(&bytes);
            let _ = parse_header(&bytes[..cut]);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Each error, with its exact text
// ---------------------------------------------------------------------------------------------

/// `blosc2-4/meta_user.b2nd`: header_len 240 (0xf0), 5 metalayers; the map runs 0x5e..0x8f,
/// `0xdc` at 0x8f, contents from 0x92: b2nd at 0x92, ..., m at 0xe7 (content 0xec..0xf0).
fn meta_user() -> Vec<u8> {
    let file = fixture("files/blosc2-4/meta_user.b2nd");
    assert_eq!(header_len(&file).unwrap(), 240);
    file
}

fn corrupt(edit: impl FnOnce(&mut Vec<u8>)) -> String {
    let mut bytes = meta_user();
    edit(&mut bytes);
    parse_err(&bytes)
}

#[test]
fn error_bad_magic() {
    assert_eq!(
        corrupt(|b| b[2] = b'c'),
        r#"at byte 0x00: expected frame magic 0x9e 0xa8 "b2frame\0", found 0x9e 0xa8 0x63 0x32 0x66 0x72 0x61 0x6d 0x65 0x00"#
    );
    let err = parse_header(b"PK\x03\x04 not a frame").unwrap_err();
    assert!(matches!(err.kind(), FrameErrorKind::BadMagic { .. }));
}

#[test]
fn error_truncated_prefix() {
    let file = meta_user();
    assert_eq!(
        parse_err(&file[..5]),
        r#"at byte 0x00: expected frame magic 0x9e 0xa8 "b2frame\0", found the end of the input (5 bytes)"#
    );
    assert_eq!(
        parse_err(&file[..10]),
        "frame_header_v2: at byte 0x0a in header_len: expected 1 more byte, found 0"
    );
    assert_eq!(
        parse_err(&file[..20]),
        "frame_header_v2: at byte 0x10 in frame_len: expected 8 more bytes, found 4"
    );
    assert_eq!(
        parse_err(&[]),
        r#"at byte 0x00: expected frame magic 0x9e 0xa8 "b2frame\0", found the end of the input (0 bytes)"#
    );
}

#[test]
fn error_header_len_exceeds_input() {
    let file = meta_user();
    assert_eq!(
        parse_err(&file[..PREFIX_LEN]),
        "at byte 0x0b: header_len 240 runs past the end of the input (24 bytes)"
    );
    assert_eq!(
        parse_err(&file[..239]),
        "at byte 0x0b: header_len 240 runs past the end of the input (239 bytes)"
    );
}

#[test]
fn error_markers_of_the_fixed_part() {
    assert_eq!(
        corrupt(|b| b[10] = 0xd3),
        "frame_header_v2: at byte 0x0a in header_len: expected int32 marker 0xd2, found 0xd3"
    );
    assert_eq!(
        corrupt(|b| b[15] = 0xce),
        "frame_header_v2: at byte 0x0f in frame_len: expected uint64 marker 0xcf, found 0xce"
    );
    assert_eq!(
        corrupt(|b| b[87] = 0x92),
        "frame_header_v2: at byte 0x57 in metalayers: expected fixarray marker 0x93, found 0x92"
    );
    assert_eq!(
        corrupt(|b| b[88] = 0xcc),
        "frame_header_v2: at byte 0x58 in metalayers.size: expected uint16 marker 0xcd, found 0xcc"
    );
    assert_eq!(
        corrupt(|b| b[0x5b] = 0x80),
        "frame_header_v2: at byte 0x5b in metalayers.offsets: expected map16 marker 0xde, found 0x80"
    );
    // The index size itself is not checked (c-blosc2 does not use it).
    let mut bytes = meta_user();
    bytes[89..91].copy_from_slice(&[0xff, 0xff]);
    assert_eq!(parse_header(&bytes).unwrap().len(), 5);
}

#[test]
fn error_header_len_values() {
    assert_eq!(
        corrupt(|b| put_i32(b, 11, -1)),
        "frame_header_v2: at byte 0x0a in header_len: expected a value in 97..=2147483647, found -1"
    );
    assert_eq!(
        corrupt(|b| put_i32(b, 11, 96)),
        "frame_header_v2: at byte 0x0a in header_len: expected a value in 97..=2147483647, found 96"
    );
    assert_eq!(
        corrupt(|b| put_i32(b, 11, i32::MAX)),
        format!("at byte 0x0b: header_len 2147483647 exceeds the limit of {MAX_HEADER_LEN} bytes")
    );
    assert_eq!(
        corrupt(|b| b[16..24].copy_from_slice(&100u64.to_be_bytes())),
        "at byte 0x10: frame_len 100 is smaller than header_len 240"
    );
}

#[test]
fn error_header_ends_inside_the_layout() {
    // header_len 100 ends inside the first map entry's offset (0x64..0x68): the map's 5 pairs
    // need at least 30 bytes from 0x5e, where 6 are left, which the decoder checks before it
    // reads the pairs.
    assert_eq!(
        corrupt(|b| put_i32(b, 11, 100)),
        "frame_header_v2: at byte 0x5e in metalayers.offsets: expected 30 more bytes, found 6 (the header ends at header_len 100)"
    );
    // header_len 0x65 with one metalayer: the pair fits the first check, and the decoder stops
    // inside its offset.
    assert_eq!(
        corrupt(|b| {
            put_i32(b, 11, 0x65);
            b[92..94].copy_from_slice(&1u16.to_be_bytes());
        }),
        "frame_header_v2: at byte 0x64 in metalayers.offsets[0]: expected 4 more bytes, found 1 (the header ends at header_len 101)"
    );
    // header_len 0x90 ends inside the 0xdc count.
    assert_eq!(
        corrupt(|b| put_i32(b, 11, 0x90)),
        "frame_header_v2: at byte 0x90 in metalayers.contents: expected 2 more bytes, found 0 (the header ends at header_len 144)"
    );
    // header_len 0xe9 ends inside the length of "m" (0xe8..0xec).
    assert_eq!(
        corrupt(|b| put_i32(b, 11, 0xe9)),
        "frame_header_v2: at byte 0xe8 in metalayers.contents[4]: expected 4 more bytes, found 1 (the header ends at header_len 233)"
    );
}

#[test]
fn error_too_many_metalayers() {
    assert_eq!(
        corrupt(|b| b[92..94].copy_from_slice(&17u16.to_be_bytes())),
        "at byte 0x5c: the header's map holds 17 metalayers, at most 16 are allowed"
    );
    assert_eq!(
        corrupt(|b| b[92..94].copy_from_slice(&[0xff, 0xff])),
        "at byte 0x5c: the header's map holds 65535 metalayers, at most 16 are allowed"
    );
}

#[test]
fn error_names() {
    assert_eq!(
        corrupt(|b| b[94] = 0xd9),
        "frame_header_v2: at byte 0x5e in metalayers.offsets[0]: expected fixstr marker 0xa0..=0xbf, found 0xd9"
    );
    assert_eq!(
        corrupt(|b| b[95] = 0xff),
        "frame_header_v2: at byte 0x5f in metalayers.offsets[0]: expected UTF-8 text, found an invalid sequence after 0 valid bytes"
    );
    // A name length that runs past header_len: the last metalayer's marker (0x88) claims 31 bytes
    // and header_len is cut to 0x98.
    assert_eq!(
        corrupt(|b| {
            b[0x88] = 0xbf;
            put_i32(b, 11, 0x98);
        }),
        "frame_header_v2: at byte 0x89 in metalayers.offsets[4]: expected 31 more bytes, found 15 (the header ends at header_len 152)"
    );
}

#[test]
fn error_offsets() {
    assert_eq!(
        corrupt(|b| b[0x63] = 0xd3),
        "frame_header_v2: at byte 0x63 in metalayers.offsets[0]: expected int32 marker 0xd2, found 0xd3"
    );
    assert_eq!(
        corrupt(|b| put_i32(b, 0x64, -1)),
        r#"at byte 0x64: metalayer "b2nd" content offset -1 is negative"#
    );
    assert_eq!(
        corrupt(|b| put_i32(b, 0x64, 9999)),
        r#"at byte 0x64: metalayer "b2nd" content offset 9999 lies outside the header, which ends at byte 0xf0 (header_len 240)"#
    );
    assert_eq!(
        corrupt(|b| put_i32(b, 0x64, 240)),
        r#"at byte 0x64: metalayer "b2nd" content offset 240 lies outside the header, which ends at byte 0xf0 (header_len 240)"#
    );
    assert_eq!(
        corrupt(|b| put_i32(b, 0x64, 91)),
        r#"at byte 0x64: metalayer "b2nd" content offset 91 points before the content section, which starts at byte 0x92"#
    );
    // "units" (offset stored at 0x6f) pointing one byte past its 0xc6.
    assert_eq!(
        corrupt(|b| put_i32(b, 0x6f, 0xcd)),
        r#"at byte 0x6f: metalayer "units" content offset 205 points at byte 0xcd, which holds 0x00, not the 0xc6 (bin32) marker of a content"#
    );
}

#[test]
fn error_contents() {
    assert_eq!(
        corrupt(|b| b[0x92] = 0xc4),
        "frame_header_v2: at byte 0x92 in metalayers.contents[0]: expected bin32 marker 0xc6, found 0xc4"
    );
    assert_eq!(
        corrupt(|b| put_i32(b, 0x93, -1)),
        "at byte 0x93 in metalayers.contents[0]: content length 4294967295 runs past the end of the header (header_len 240)"
    );
    assert_eq!(
        corrupt(|b| put_i32(b, 0xe8, 5)),
        "at byte 0xe8 in metalayers.contents[4]: content length 5 runs past the end of the header (header_len 240)"
    );
    assert_eq!(
        corrupt(|b| put_i32(b, 0xe8, i32::MAX)),
        "at byte 0xe8 in metalayers.contents[4]: content length 2147483647 runs past the end of the header (header_len 240)"
    );
}

#[test]
fn error_content_array() {
    assert_eq!(
        corrupt(|b| b[0x8f] = 0xdd),
        "frame_header_v2: at byte 0x8f in metalayers.contents: expected array16 marker 0xdc, found 0xdd"
    );
    assert_eq!(
        corrupt(|b| b[0x90..0x92].copy_from_slice(&4u16.to_be_bytes())),
        "at byte 0x90: the header's content array holds 4 metalayers, the map 5"
    );
    // More contents than the rest of the header can hold: refused before any is read.
    assert_eq!(
        corrupt(|b| b[0x90..0x92].copy_from_slice(&[0xff, 0xff])),
        "at byte 0x90: the header's content array holds 65535 metalayers, the map 5"
    );
    // One more than there are: the decoder looks for it where the header ends.
    assert_eq!(
        corrupt(|b| b[0x90..0x92].copy_from_slice(&6u16.to_be_bytes())),
        "frame_header_v2: at byte 0xf0 in metalayers.contents[5]: expected 1 more byte, found 0 (the header ends at header_len 240)"
    );
}

#[test]
fn contents_are_found_through_the_offsets() {
    // Swapping two offsets swaps the contents: the map's offsets are authoritative.
    let mut bytes = meta_user();
    let units = bytes[0x6f..0x73].to_vec();
    let scale = bytes[0x7a..0x7e].to_vec();
    bytes[0x6f..0x73].copy_from_slice(&scale);
    bytes[0x7a..0x7e].copy_from_slice(&units);
    let m = parse_header(&bytes).unwrap();
    assert_eq!((m[1].name.as_str(), m[1].content.as_slice()), ("units", &[0x03][..]));
    assert_eq!(
        (m[2].name.as_str(), m[2].content.as_slice()),
        ("scale", &b"\xa6kelvin"[..])
    );
}

// ---------------------------------------------------------------------------------------------
// Files and directories
// ---------------------------------------------------------------------------------------------

#[test]
fn header_len_beyond_the_file_is_refused() {
    let tmp = TempDir::new("beyond");
    let mut bytes = meta_user();
    assert_eq!(bytes.len(), 315);
    put_i32(&mut bytes, 11, 500);
    bytes[16..24].copy_from_slice(&1000u64.to_be_bytes());
    let path = tmp.file("beyond.b2nd", &bytes);
    let err = read_metalayers(&path).unwrap_err();
    assert!(matches!(
        err.kind(),
        FrameErrorKind::PastInput {
            len: 500,
            input_len: 315,
            file: true
        }
    ));
    assert_eq!(
        err.to_string(),
        "at byte 0x0b: header_len 500 runs past the end of the file (315 bytes)"
    );
    assert_eq!(
        parse_err(&bytes),
        "at byte 0x0b: header_len 500 runs past the end of the input (315 bytes)"
    );
}

#[test]
fn a_directory_without_chunks_b2frame() {
    let tmp = TempDir::new("nochunks");
    let err = read_metalayers(&tmp.0).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{} is a directory without a chunks.b2frame file, so not a sparse frame",
            tmp.0.display()
        )
    );
    // A chunks.b2frame that is itself a directory is no better.
    fs::create_dir(tmp.0.join("chunks.b2frame")).unwrap();
    let err = read_metalayers(&tmp.0).unwrap_err();
    assert!(matches!(err.kind(), FrameErrorKind::NotSparseFrame { path } if *path == tmp.0));
}

#[test]
fn a_sparse_directory_with_a_corrupt_header() {
    let tmp = TempDir::new("sparse");
    let mut bytes = fixture("files/blosc2-4/sparse_meta.b2nd/chunks.b2frame");
    bytes[0x5b] = 0x80;
    tmp.file("chunks.b2frame", &bytes);
    assert_eq!(
        read_metalayers(&tmp.0).unwrap_err().to_string(),
        "frame_header_v2: at byte 0x5b in metalayers.offsets: expected map16 marker 0xde, found 0x80"
    );
}

#[test]
fn io_errors_name_the_path() {
    let tmp = TempDir::new("io");
    let missing = tmp.0.join("missing.b2nd");
    let err = read_metalayers(&missing).unwrap_err();
    assert_eq!(err.to_string(), format!("cannot read {}", missing.display()));
    let FrameErrorKind::Io { path, source } = err.kind() else {
        panic!("{err:?}")
    };
    assert_eq!(path, &missing);
    assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
    assert!(std::error::Error::source(&err).is_some());

    // An empty file is a truncated frame, not an io error.
    let empty = tmp.file("empty.b2nd", &[]);
    assert_eq!(
        read_metalayers(&empty).unwrap_err().to_string(),
        r#"at byte 0x00: expected frame magic 0x9e 0xa8 "b2frame\0", found the end of the input (0 bytes)"#
    );
}

#[test]
fn a_huge_frame_is_read_only_up_to_its_header() {
    let tmp = TempDir::new("huge");
    let original = meta_user();
    let path = tmp.file("huge.b2nd", &original);
    {
        let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
        // 8 MiB of real junk...
        let junk: Vec<u8> = (0..8u32 << 20)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
            .collect();
        f.write_all(&junk).unwrap();
        // ... then, where the file system allows sparse files, 64 GiB more of holes: reading the
        // whole file would take far longer than the bound below.
        let len = f.metadata().unwrap().len();
        let _ = f.set_len(len + (64 << 30));
    }
    let file_len = fs::metadata(&path).unwrap().len();
    assert!(file_len > 8 << 20);
    let start = Instant::now();
    let got = read_metalayers(&path).unwrap();
    let elapsed = start.elapsed();
    assert_eq!(got, parse_header(&original).unwrap());
    assert_eq!(got.len(), 5);
    assert!(
        elapsed < Duration::from_secs(2),
        "took {elapsed:?} for a {file_len}-byte file"
    );
}
