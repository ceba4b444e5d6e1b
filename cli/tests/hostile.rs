//! `metalayer inspect` on frames built to exhaust it: nesting 100,000 levels deep through
//! python-blosc2's ext payloads and through frames stored in values, vlmetalayer names that all
//! point at one nested frame, chunks whose filters would take long to undo, and names and
//! values full of terminal control sequences. Each is reported within the input's limits, with
//! an error that says where, and the command never crashes.
//!
//! The limits are `metalayer::value`'s: 64 levels counted as JSON nests them (a frame's
//! vlmetalayer value is three levels below the frame: its report, the array, the item; an ext
//! payload or a frame in an ext one below the ext), and a work budget per input in which every
//! item costs at least 16 KiB.
#![cfg(feature = "inspect")]

mod common;

use common::{chunk, chunk_header, ext32_header, ext42, frame, frame_pieces, json, jsonl, run, scratch, stderr, write};

/// An ext32 chain `n` levels deep whose types cycle through python-blosc2's set (45), record
/// (43) and NumPy array (46), around the positive fixint 1: written header by header, each
/// header's length the bytes after it.
fn ext_chain(n: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(6 * n + 1);
    for k in 0..n {
        let ty = [45, 43, 46][k % 3];
        v.extend_from_slice(&ext32_header(ty, (n - k - 1) * 6 + 1));
    }
    v.push(0x01);
    v
}

#[test]
fn ext_payloads_100000_deep_stop_at_the_depth_limit() {
    let dir = scratch("hostile_ext");
    let path = write(&dir, "deep.b2nd", &frame(&[("deep", chunk(&ext_chain(100_000)))]));
    let out = run(&["inspect", "--json", &path]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // The value is 3 levels down, each payload one more: payloads at levels 4 to 63 are shown,
    // the 61st ext keeps its bytes, with a note.
    let mut at = json(&out)[0]["vlmetalayers"][0]["msgpack"].clone();
    for level in 0..60 {
        assert_eq!(at["ext"], [45, 43, 46][level % 3], "payload {level}");
        at = at["value"].clone();
    }
    assert_eq!(at["ext"], 45);
    assert!(at.get("value").is_none(), "{at}");
    let note = at["note"].as_str().unwrap_or_default();
    assert!(
        note.starts_with("shown as bytes: nested deeper than 64 levels at byte 0x"),
        "{note}"
    );
    let err = stderr(&out);
    assert!(err.contains("vlmetalayer \"deep\" (chunk at file byte 0x"), "{err}");
    assert!(err.contains("nested deeper than 64 levels"), "{err}");

    let out = run(&["inspect", &path]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(r#"value:  {"set": {"record": {"ndarray": {"set": "#),
        "{text}"
    );
}

#[test]
fn arrays_100000_deep_are_shown_as_bytes() {
    let dir = scratch("hostile_arrays");
    // [[[ ... [1] ... ]]]: 100,000 fixarrays of one element.
    let mut value = vec![0x91; 100_000];
    value.push(0x01);
    let path = write(&dir, "deep.b2nd", &frame(&[("deep", chunk(&value))]));
    let out = run(&["inspect", "--jsonl", &path]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let item = &jsonl(&out)[0]["vlmetalayers"][0];
    assert!(item.get("msgpack").is_none(), "{item}");
    assert_eq!(item["hex"].as_str().map(str::len), Some(2 * 100_001));
    assert_eq!(
        item["note"],
        "shown as bytes: nested deeper than 64 levels at byte 0x3d (arrays, maps, ext payloads and frames count together)"
    );
}

#[test]
fn frames_nested_100000_deep_stop_at_the_depth_limit() {
    let dir = scratch("hostile_frames");
    // Level k holds level k + 1 in an ext 42 in its vlmetalayer "inner"; the innermost holds a
    // string. Each level is written around the next without copying it: the pieces before
    // every inner level, the innermost, then the pieces after, outermost last.
    let leaf = frame(&[("leaf", chunk(b"\xa4deep"))]);
    let levels = 100_000;
    let mut inner_len = leaf.len();
    let mut before = Vec::with_capacity(levels);
    let mut after = Vec::with_capacity(levels);
    for _ in 0..levels {
        let content_len = 32 + 6 + inner_len;
        let pieces = frame_pieces(&[("inner", content_len)]);
        let mut head = pieces[0].clone();
        head.extend_from_slice(&chunk_header(6 + inner_len));
        head.extend_from_slice(&ext32_header(42, inner_len));
        inner_len += head.len() + pieces[1].len();
        before.push(head);
        after.push(pieces[1].clone());
    }
    let mut bytes = Vec::with_capacity(inner_len);
    before.iter().rev().for_each(|piece| bytes.extend_from_slice(piece));
    bytes.extend_from_slice(&leaf);
    after.iter().for_each(|piece| bytes.extend_from_slice(piece));
    assert_eq!(bytes.len(), inner_len);
    // The outermost level, checked against the builder that copies.
    let second = &bytes[before[levels - 1].len()..bytes.len() - after[levels - 1].len()];
    assert_eq!(&bytes[..], frame(&[("inner", chunk(&ext42(second)))]));
    let path = write(&dir, "deep.b2nd", &bytes);

    // Text, whose lines are cut: JSON writes every level's bytes in hex again, 16 times over.
    let out = run(&["inspect", &path]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.matches("of the value: 5 metalayers, 1 vlmetalayer\n").count(),
        15,
        "{text}"
    );
    let err = stderr(&out);
    assert_eq!(err.matches("frame at byte 0x00 of the value").count(), 16, "{err}");
    assert!(
        err.trim_end().ends_with(
            "not inspected: nested deeper than 64 levels (arrays, maps, ext payloads and frames count together)"
        ),
        "{err}"
    );
}

#[test]
fn names_that_all_point_at_one_nested_frame_are_bounded() {
    let dir = scratch("hostile_alias");
    // 16 vlmetalayer names whose offsets all lead to the first content, a frame stored in an
    // ext 42 whose own 16 names do the same, six levels down: 16^6 paths through 8 KB.
    let names: Vec<String> = (0..16).map(|i| format!("n{i:02}")).collect();
    let aliased = |inner: &[u8]| {
        let content = chunk(&ext42(inner));
        let vls: Vec<(&str, Vec<u8>)> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), if i == 0 { content.clone() } else { chunk(b"\xc0") }))
            .collect();
        let mut bytes = frame(&vls);
        // The first name's offset (d2 and an i32 after its fixstr) for every name.
        let index = 240 + 9;
        let first = bytes[index + 5..index + 9].to_vec();
        for i in 1..names.len() {
            let at = index + i * 9 + 5;
            bytes[at..at + 4].copy_from_slice(&first);
        }
        bytes
    };
    let mut bytes = frame(&[("leaf", chunk(b"\xa4deep"))]);
    for _ in 0..6 {
        bytes = aliased(&bytes);
    }
    assert!(bytes.len() < 16 << 10, "{} bytes", bytes.len());
    let path = write(&dir, "alias.b2nd", &bytes);
    let out = run(&["inspect", "--jsonl", &path]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // The work budget (2^30 bytes, at least 16 KiB an item) ends it; the output stays small.
    assert!(out.stdout.len() < 256 << 20, "{} bytes of output", out.stdout.len());
    let err = stderr(&out);
    assert!(
        err.contains("would pass the 1073741824 bytes of work one input may take"),
        "{}",
        &err[..err.len().min(2000)]
    );
    // At most 100 errors with their places, then a line that counts the others.
    assert!(err.lines().count() <= 101, "{} lines", err.lines().count());
}

#[test]
fn a_chunk_whose_filters_would_take_too_long_is_refused_before_it_is_undone() {
    let dir = scratch("hostile_filters");
    // A Blosc2 chunk claiming 64 MiB undone by six bitshuffles (filter 2 in all six slots):
    // 64 MiB x (1 + 6 x 8) of work, more than one input may take. Four names lead to it.
    let nbytes: u32 = 64 << 20;
    let mut c = vec![0x05, 0x01, 0x05, 0x01];
    c.extend_from_slice(&nbytes.to_le_bytes());
    c.extend_from_slice(&(256u32 << 10).to_le_bytes());
    c.extend_from_slice(&2048u32.to_le_bytes());
    c.extend_from_slice(&[2, 2, 2, 2, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    c.resize(2048, 0);
    let bytes = frame(&[("a", c.clone()), ("b", c.clone()), ("c", c.clone()), ("d", c)]);
    let path = write(&dir, "filters.b2nd", &bytes);
    let out = run(&["inspect", "--jsonl", &path]);
    assert_eq!(out.status.code(), Some(1));
    let report = &jsonl(&out)[0];
    for i in 0..4 {
        let error = report["vlmetalayers"][i]["error"].as_str().unwrap_or_default();
        assert_eq!(
            error,
            "not read: its 67108864 bytes would pass the 1073741824 bytes of work one input may take"
        );
    }
}

#[test]
fn an_error_in_a_nested_frame_fails_the_run_and_says_where() {
    let dir = scratch("hostile_nested_error");
    let mut lying = chunk(b"\xa6kelvin");
    // cbytes 0: not the chunk's length.
    lying[12..16].copy_from_slice(&0u32.to_le_bytes());
    let inner = frame(&[("fine", chunk(b"\x01")), ("bad", lying)]);
    let path = write(&dir, "nested.b2nd", &frame(&[("outer", chunk(&ext42(&inner)))]));
    for args in [&["inspect", "--jsonl", &path][..], &["inspect", &path][..]] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.starts_with(&format!(
                "metalayer: {path}: vlmetalayer \"outer\" (chunk at file byte 0x10c): frame at byte 0x00 of the value: \
                 vlmetalayer \"bad\" (chunk at frame byte 0x"
            )),
            "{err}"
        );
        assert!(err.contains("blosc2 chunk: at byte 0x0c"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    // The text report shows the nested frame's vlmetalayers.
    let out = run(&["inspect", &path]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("\n               vlmeta fine  1 byte (33 stored) "),
        "{text}"
    );
    assert!(
        text.contains("\n               vlmeta bad   39 stored           bad chunk\n"),
        "{text}"
    );
}

#[test]
fn text_holds_no_control_byte_from_the_file() {
    let dir = scratch("hostile_controls");
    // A name with ESC, an OSC sequence (ESC ] ... BEL), CR and LF; values with ESC, CSI as
    // the C1 control U+009B, DEL, CR and LF, in a string, a map key and a user metalayer's
    // bytes shown as raw.
    let name = "t\x1b]0;owned\x07\r\n";
    let text_value = "red\x1b[31m\u{9b}1m\x7f\r\nline";
    let mut value = vec![0x81, 0xa4];
    value.extend_from_slice(b"k\x1b\r\n");
    value.push(0xd9);
    value.push(text_value.len() as u8);
    value.extend_from_slice(text_value.as_bytes());
    let file_name = "ctl\x1b[2J.b2nd";
    let path = write(&dir, file_name, &frame(&[(name, chunk(&value))]));
    let out = run(&["inspect", &path]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    for line in text.lines() {
        assert!(!line.chars().any(|c| c.is_control()), "a control character in {line:?}");
    }
    assert!(text.contains(r#"vlmeta "t\u001b]0;owned\u0007\r\n"  "#), "{text}");
    assert!(
        text.contains(r#"value:  {"k\u001b\r\n": "red\u001b[31m\u009b1m\u007f\r\nline"}"#),
        "{text}"
    );
    assert!(text.contains(r#"ctl\u001b[2J.b2nd"#), "{text}");
    // JSON escapes as JSON does, and keeps the text.
    let out = run(&["inspect", "--json", &path]);
    let report = &json(&out)[0];
    assert_eq!(report["vlmetalayers"][0]["name"], name);
    assert_eq!(report["vlmetalayers"][0]["msgpack"]["k\x1b\r\n"], text_value);
}

#[test]
fn a_long_trailer_is_read_one_content_at_a_time() {
    let dir = scratch("hostile_long_trailer");
    // Three vlmetalayers of 12 MiB each, stored: a trailer of 36 MiB, past the 16 MiB read
    // whole. Each holds a bin32 of its own byte, so that a content read from the wrong place
    // shows.
    let big = |fill: u8| {
        let n = 12 << 20;
        let mut value = vec![0xc6];
        value.extend_from_slice(&(n as u32).to_be_bytes());
        value.resize(5 + n, fill);
        chunk(&value)
    };
    let bytes = frame(&[("a", big(0xa1)), ("b", big(0xb2)), ("c", big(0xc3))]);
    let path = write(&dir, "long.b2nd", &bytes);
    let out = run(&["inspect", &path]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    for (name, fill) in [("a", "a1"), ("b", "b2"), ("c", "c3")] {
        let line = format!(
            "\n  vlmeta {name}  12582917 bytes (12582949 stored)  msgpack\n             value:  bin({}",
            fill.repeat(8)
        );
        assert!(text.contains(&line), "{name}: {text}");
    }
}
