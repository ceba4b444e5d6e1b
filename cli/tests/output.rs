//! What `inspect` writes: each byte once (values as they decode, hex for bytes that decode to
//! nothing, `--hex` for all), the format's version, and no raw control character.
#![cfg(feature = "inspect")]

mod common;

use common::{chunk, ext42, frame, frame_with_metalayers, json, jsonl, run, scratch, stderr, stdout, write};
use serde_json::json;

/// msgpack, by the spec: fixmap(2) 0x82; fixstr "k\x7f" 0xa2; fixstr "v\x7f\xc2\x85" 0xa4 (DEL
/// and U+0085, a C1 control, in UTF-8); fixstr "e" 0xa1; ext8 of 3 bytes, type 45 (a set),
/// holding fixarray(2) [1, 2]: 0xc7 0x03 0x2d 0x92 0x01 0x02.
const VALUE: &[u8] = b"\x82\xa2k\x7f\xa4v\x7f\xc2\x85\xa1e\xc7\x03\x2d\x92\x01\x02";

#[test]
fn values_are_written_once_and_their_bytes_with_hex() {
    let dir = scratch("output-once");
    // An ext of a type no one decodes (7), whose bytes are all it is: fixext1 0xd4 0x07 0xaa.
    let path = write(
        &dir,
        "once.b2nd",
        &frame(&[
            ("v", chunk(VALUE)),
            ("odd", chunk(b"\xd4\x07\xaa")),
            ("raw", chunk(b"\xc1")),
        ]),
    );
    let out = run(&["inspect", "--json", &path]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = &json(&out)[0];
    assert_eq!(report["format"], 2);
    let vl = &report["vlmetalayers"];
    let keys = |v: &serde_json::Value| -> Vec<String> {
        v.as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default()
    };
    assert_eq!(keys(&vl[0]), ["name", "chunk_len", "len", "msgpack"]);
    assert_eq!(
        vl[0]["msgpack"],
        json!({"k\u{7f}": "v\u{7f}\u{85}", "e": {"ext": 45, "value": [1, 2]}})
    );
    assert_eq!(vl[1]["msgpack"], json!({"ext": 7, "data": "aa"}));
    // 0xc1 is never used: not msgpack, shown as its bytes.
    assert_eq!(keys(&vl[2]), ["name", "chunk_len", "len", "hex"]);
    assert_eq!(vl[2]["hex"], "c1");

    let out = run(&["inspect", "--json", "--hex", &path]);
    let vl = &json(&out)[0]["vlmetalayers"];
    assert_eq!(keys(&vl[0]), ["name", "chunk_len", "len", "hex", "msgpack"]);
    assert_eq!(vl[0]["hex"], "82a26b7fa4767fc285a165c7032d920102");
    assert_eq!(
        vl[0]["msgpack"]["e"],
        json!({"ext": 45, "data": "920102", "value": [1, 2]})
    );
    assert_eq!(vl[1]["msgpack"], json!({"ext": 7, "data": "aa"}));

    // Text: the value's line; its bytes only with --hex; bytes that decode to nothing always.
    let text = stdout(&run(&["inspect", &path]));
    assert!(!text.contains("hex:    82a2"), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    let raw = lines.iter().position(|l| l.contains("vlmeta raw")).expect("raw's line");
    assert!(lines[raw].ends_with("  raw"), "{text}");
    assert_eq!(lines[raw + 1].trim(), "hex:  c1", "{text}");
    let text = stdout(&run(&["inspect", "--hex", &path]));
    assert!(
        text.contains("             hex:    82a26b7fa4767fc285a165c7032d920102\n"),
        "{text}"
    );
}

#[test]
fn a_frame_in_a_value_is_written_once() {
    let dir = scratch("output-nested");
    // A frame whose vlmetalayer "leaf" is fixstr "deep", held by another's "inner" in an ext 42.
    let inner = frame(&[("leaf", chunk(b"\xa4deep"))]);
    let outer = frame(&[("inner", chunk(&ext42(&inner)))]);
    let path = write(&dir, "nested.b2nd", &outer);
    let out = run(&["inspect", "--jsonl", &path]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let line = stdout(&out);
    let held = &jsonl(&out)[0]["vlmetalayers"][0]["msgpack"];
    assert_eq!(held["ext"], 42);
    assert!(held.get("data").is_none(), "{held}");
    assert_eq!(held["frame"]["vlmetalayers"][0]["msgpack"], "deep");
    // The inner frame's bytes appear nowhere as hex: not as the item's, not as the ext's.
    let inner_hex: String = inner.iter().map(|b| format!("{b:02x}")).collect();
    assert!(!line.contains(&inner_hex[..40]), "{line}");
    // With --hex, they are there.
    let out = run(&["inspect", "--jsonl", "--hex", &path]);
    let held = &jsonl(&out)[0]["vlmetalayers"][0]["msgpack"];
    assert_eq!(held["data"], inner_hex);
}

#[cfg(unix)]
/// No C0 control byte but newline, and no DEL, on either stream of `out`.
fn no_raw_control(args: &[&str], out: &std::process::Output) {
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let raw = bytes.iter().position(|&b| b < 0x20 && b != b'\n' || b == 0x7f);
        assert_eq!(
            raw,
            None,
            "{args:?}: a raw control byte on {stream}: {}",
            String::from_utf8_lossy(bytes)
        );
    }
}

#[test]
fn no_raw_control_character_reaches_the_output() {
    use std::os::unix::ffi::OsStrExt;

    let dir = scratch("output-del");
    // A file name, a metalayer's name, a vlmetalayer's name and a value's key and string,
    // each with DEL (and the value with U+0085).
    let bytes = frame_with_metalayers(&[("m\x7f", b"\xa2k\x7f")], &[("vl\x7f", chunk(VALUE))]);
    let name = std::ffi::OsStr::from_bytes(b"del\x7f.b2nd");
    let path = dir.join(name);
    std::fs::write(&path, &bytes).expect("write");
    for args in [&["--json"][..], &["--jsonl"], &["--json", "--hex"], &[], &["--hex"]] {
        let out = run(&[&["inspect"][..], args, &[path.to_str().expect("UTF-8")]].concat());
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        no_raw_control(args, &out);
        for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            assert!(!String::from_utf8_lossy(bytes).contains('\u{85}'), "{args:?} {stream}");
        }
        let text = stdout(&out);
        assert!(text.contains("del\\u007f.b2nd"), "{args:?}: {text}");
        assert!(text.contains("vl\\u007f"), "{args:?}: {text}");
        assert!(text.contains("v\\u007f\\u0085"), "{args:?}: {text}");
        if args.contains(&"--jsonl") {
            // JSON reads the escapes back as the characters.
            let report = &jsonl(&out)[0];
            assert_eq!(report["path"], path.to_str().expect("UTF-8"));
            assert_eq!(report["metalayers"][0]["name"], "m\u{7f}");
            assert_eq!(report["vlmetalayers"][0]["msgpack"]["k\u{7f}"], "v\u{7f}\u{85}");
        }
    }

    // A file that is not a frame, named with DEL and ESC: its error on stderr, and its report.
    let bad = dir.join(std::ffi::OsStr::from_bytes(b"bad\x7f\x1b[31m.b2nd"));
    std::fs::write(&bad, b"not a frame").expect("write");
    for args in [&["--jsonl"][..], &[]] {
        let out = run(&[&["inspect"][..], args, &[bad.to_str().expect("UTF-8")]].concat());
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        no_raw_control(args, &out);
        assert!(stderr(&out).contains("bad\\u007f\\u001b[31m.b2nd"), "{}", stderr(&out));
    }
}
