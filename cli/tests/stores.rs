//! `.b2z` stores that are not what python-blosc2 writes: a compressed member, a central
//! directory cut short, members placed outside the file. Each is refused with its path and a
//! byte offset, and what can be read still is. The zips are built byte by byte here, or cut out
//! of the fixtures; every offset below is derived by hand from the zip format (a local header is
//! 30 bytes and the member's name, a central directory entry 46 bytes and the name, the end
//! record 22 bytes).
#![cfg(feature = "inspect")]

mod common;

use common::{held_by_embed_store, jsonl, read_fixture, run, scratch, stderr, write};

/// A stored frame of 607 bytes (`big.b2nd` of python-blosc2 3.12.2's DictStore).
const BIG: &str = "files/blosc2-3-stores/dictstore.b2d/big.b2nd";
/// The DictStore's zip: 3723 bytes; its central directory at byte 3468, 233 bytes, 4 entries
/// (`dir/big_sc.b2f`, `dir/deeper/f8.b2nd`, `big.b2nd`, `embed.b2e`: 46 + 14, 46 + 18, 46 + 8,
/// 46 + 9 bytes, no extra fields); the end record at byte 3701.
const DICTSTORE: &str = "files/blosc2-3-stores/dictstore.b2z";

fn le16(v: usize) -> [u8; 2] {
    u16::try_from(v).expect("u16").to_le_bytes()
}

fn le32(v: usize) -> [u8; 4] {
    u32::try_from(v).expect("u32").to_le_bytes()
}

/// A zip of `members` (name, compression method, the bytes as stored), laid out as python's
/// `zipfile` lays it out: each local header and its data, then the central directory, then the
/// end record. CRCs are left 0: the command does not check them.
fn zip(members: &[(&str, u16, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, method, data) in members {
        let at = out.len();
        out.extend_from_slice(b"PK\x03\x04");
        out.extend_from_slice(&[20, 0, 0, 0]);
        out.extend_from_slice(&method.to_le_bytes());
        out.extend_from_slice(&[0; 8]); // time, date, crc
        out.extend_from_slice(&le32(data.len()));
        out.extend_from_slice(&le32(data.len()));
        out.extend_from_slice(&le16(name.len()));
        out.extend_from_slice(&le16(0));
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        central.extend_from_slice(b"PK\x01\x02");
        central.extend_from_slice(&[20, 3, 20, 0, 0, 0]);
        central.extend_from_slice(&method.to_le_bytes());
        central.extend_from_slice(&[0; 8]);
        central.extend_from_slice(&le32(data.len()));
        central.extend_from_slice(&le32(data.len()));
        central.extend_from_slice(&le16(name.len()));
        central.extend_from_slice(&[0; 12]); // extra, comment, disk, attributes
        central.extend_from_slice(&le32(at));
        central.extend_from_slice(name.as_bytes());
    }
    let cd_at = out.len();
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
    out.extend_from_slice(&le16(members.len()));
    out.extend_from_slice(&le16(members.len()));
    out.extend_from_slice(&le32(central.len()));
    out.extend_from_slice(&le32(cd_at));
    out.extend_from_slice(&le16(0));
    out
}

#[test]
fn a_deflated_member_is_refused_and_the_others_shown() {
    let dir = scratch("stores-deflated");
    let big = read_fixture(BIG);
    // big.b2nd: local header at 0, data at 30 + 8 = 38, 607 bytes; packed.b2nd's local header at
    // 645, its data at 645 + 30 + 11 = 686. Method 8 is deflate; its bytes are never inflated.
    let bytes = zip(&[("big.b2nd", 0, &big), ("packed.b2nd", 8, b"\x4b\x4c\x4a\x06\x00")]);
    let path = write(&dir, "store.b2z", &bytes);
    let out = run(&["inspect", "--jsonl", &path]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let lines = jsonl(&out);
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["path"], format!("{path}/big.b2nd"));
    assert_eq!(lines[0]["header"]["frame_len"], 607);
    assert_eq!(lines[0]["metalayers"][0]["fields"]["shape"], serde_json::json!([5000]));
    assert_eq!(lines[1]["path"], format!("{path}/packed.b2nd"));
    let why = "the member at byte 645 is compressed with deflate; .b2z members are stored";
    assert_eq!(lines[1]["error"], format!("{path}/packed.b2nd: {why}"));
    assert_eq!(stderr(&out), format!("metalayer: {path}/packed.b2nd: {why}\n"));
    // Text: the stored member's report, the error on stderr.
    let out = run(&["inspect", &path]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with(&format!("{path}/big.b2nd: 1 metalayer")));
}

#[test]
fn a_truncated_central_directory_is_refused_with_its_offset() {
    let dir = scratch("stores-truncated");
    let whole = read_fixture(DICTSTORE);
    assert_eq!(whole.len(), 3723);
    assert_eq!(&whole[3701..3705], b"PK\x05\x06");
    // The central directory cut to its first 100 bytes, the end record kept: it now starts at
    // 3468 + 100 = 3568, and still says the directory has 233 bytes at byte 3468.
    let mut cut = whole[..3568].to_vec();
    cut.extend_from_slice(&whole[3701..]);
    let path = write(&dir, "cut.b2z", &cut);
    let out = run(&["inspect", "--jsonl", &path]);
    assert_eq!(out.status.code(), Some(1));
    let lines = jsonl(&out);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["path"], path);
    let why = "at byte 3568: the central directory, 233 bytes at byte 3468, runs past the end record at \
               byte 3568 (a truncated or damaged zip)";
    assert_eq!(lines[0]["error"], format!("{path}: {why}"));
    assert_eq!(stderr(&out), format!("metalayer: {path}: {why}\n"));

    // The file cut inside its central directory: no end record at all.
    let path = write(&dir, "short.b2z", &whole[..3600]);
    let out = run(&["inspect", "--jsonl", &path]);
    assert_eq!(out.status.code(), Some(1));
    let error = jsonl(&out)[0]["error"].as_str().unwrap_or_default().to_owned();
    assert!(
        error.ends_with("no end-of-central-directory record (PK\\x05\\x06 and a comment reaching the file's end) in the last 3600 bytes, from byte 0: not a zip file, or a truncated one"),
        "{error}"
    );

    // The end record claims more entries than its directory's bytes can hold (46 bytes each).
    let mut many = whole.clone();
    many[3701 + 10..3701 + 12].copy_from_slice(&le16(6));
    let path = write(&dir, "many.b2z", &many);
    let out = run(&["inspect", "--jsonl", &path]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        jsonl(&out)[0]["error"],
        format!(
            "{path}: at byte 3701: the end record claims 6 entries, more than the central directory's 233 bytes at byte 3468 hold"
        )
    );
}

#[test]
fn members_outside_the_file_are_refused_alone() {
    let dir = scratch("stores-outside");
    let whole = read_fixture(DICTSTORE);
    // The first entry (dir/big_sc.b2f) at 3468: its local header's offset at +42.
    assert_eq!(&whole[3468 + 46..3468 + 60], b"dir/big_sc.b2f");
    let mut far = whole.clone();
    far[3468 + 42..3468 + 46].copy_from_slice(&le32(0x7fff_ffff));
    // The third entry (big.b2nd) at 3468 + 60 + 64 = 3592: its sizes at +20 and +24.
    assert_eq!(&whole[3592 + 46..3592 + 54], b"big.b2nd");
    far[3592 + 20..3592 + 24].copy_from_slice(&le32(5000));
    far[3592 + 24..3592 + 28].copy_from_slice(&le32(5000));
    let path = write(&dir, "far.b2z", &far);
    let out = run(&["inspect", "--jsonl", &path]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // The frames embed.b2e holds (/small, /dir/sc) follow it.
    let lines: Vec<_> = jsonl(&out).into_iter().filter(|l| !held_by_embed_store(l)).collect();
    let paths: Vec<String> = lines
        .iter()
        .map(|l| l["path"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(
        paths,
        ["big.b2nd", "dir/big_sc.b2f", "dir/deeper/f8.b2nd", "embed.b2e"].map(|n| format!("{path}/{n}"))
    );
    // big.b2nd's data, at byte 1940 (python's zipfile), would now end at 6940.
    assert_eq!(
        lines[0]["error"],
        format!("{path}/big.b2nd: the member's 5000 bytes at byte 1940 run past the members' end at byte 3468")
    );
    assert_eq!(
        lines[1]["error"],
        format!(
            "{path}/dir/big_sc.b2f: the central directory entry at byte 3468 places the member's local header at byte 2147483647, past the members' end at byte 3468"
        )
    );
    // The two others read as python-blosc2 wrote them.
    assert_eq!(lines[2]["header"]["frame_len"], 689);
    assert_eq!(lines[3]["metalayers"][0]["name"], "b2embed");
    assert_eq!(stderr(&out).lines().count(), 2);
}

/// Runs `set --vlmeta k=1` on `member` of the zip `bytes`, written to `dir/store.b2z`, with
/// and without `--dry-run`: refused, with exit status 1, the zip left byte for byte as it was.
/// The zip's path, and the message after the member's and the zip's paths.
fn refused_edit(dir: &std::path::Path, bytes: &[u8], member: &str) -> (String, String) {
    let path = write(dir, "store.b2z", bytes);
    let target = format!("{path}/{member}");
    let dry = run(&["set", "--dry-run", "--vlmeta", "k=1", &target]);
    let out = run(&["set", "--vlmeta", "k=1", &target]);
    for out in [&dry, &out] {
        assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
        assert!(out.stdout.is_empty());
    }
    assert_eq!(stderr(&dry), stderr(&out));
    assert!(std::fs::read(&path).expect("read") == bytes, "the zip changed");
    let message = stderr(&out);
    let prefix = format!("metalayer: {target}: {path}: ");
    let message = message.strip_prefix(&prefix).unwrap_or_else(|| panic!("{message}"));
    (path, message.trim_end().to_owned())
}

#[test]
fn an_edit_refuses_a_zip_whose_other_member_lies_past_its_end() {
    let dir = scratch("stores-edit-past-end");
    let big = read_fixture(BIG);
    // big.b2nd: local header at 0, data at 38..645; the second member's local header at 645.
    // The central directory at 645 + 30 + the name + the data; its second entry 46 + 8 bytes
    // after it, that entry's local header offset at +42, set past the file's end. Stored or
    // deflated, that member is refused by inspect alone; an edit of big.b2nd, which would
    // carry the bogus offset over, moved, refuses the zip.
    let deflated: &[u8] = b"\x4b\x4c\x4a\x06\x00";
    for (name, method, data) in [("far.b2nd", 0, &big[..]), ("packed.b2nd", 8, deflated)] {
        let mut bytes = zip(&[("big.b2nd", 0, &big), (name, method, data)]);
        let cd_at = 645 + 30 + name.len() + data.len();
        let second = cd_at + 46 + 8;
        assert_eq!(&bytes[second + 46..second + 46 + name.len()], name.as_bytes());
        bytes[second + 42..second + 46].copy_from_slice(&le32(100_000));
        let (path, message) = refused_edit(&dir, &bytes, "big.b2nd");
        assert_eq!(
            message,
            format!(
                "member \"{name}\": the central directory entry at byte {second} places the member's local header at \
                 byte 100000, past the members' end at byte {cd_at}"
            )
        );
        // inspect still shows big.b2nd, and refuses the other alone.
        let out = run(&["inspect", "--jsonl", &path]);
        assert_eq!(out.status.code(), Some(1));
        let lines = jsonl(&out);
        assert_eq!(lines[0]["header"]["frame_len"], 607);
        assert!(
            lines[1]["error"]
                .as_str()
                .is_some_and(|e| e.starts_with(&format!("{path}/{name}: ")))
        );
    }
}

#[test]
fn an_edit_refuses_two_members_of_one_name() {
    let dir = scratch("stores-edit-one-name");
    let big = read_fixture(BIG);
    // The second big.b2nd's local header at 645: python-blosc2 reads that one.
    let bytes = zip(&[("big.b2nd", 0, &big), ("big.b2nd", 0, &big)]);
    let (_, message) = refused_edit(&dir, &bytes, "big.b2nd");
    assert_eq!(
        message,
        "at byte 0 and at byte 645: two members are named \"big.b2nd\"; readers that take the last of a name \
         (python-blosc2, python's zipfile) see only the one at byte 645, and an edit of either is refused"
    );
}

#[test]
fn an_edit_refuses_overlapping_members() {
    let dir = scratch("stores-edit-overlap");
    let big = read_fixture(BIG);
    let mut bytes = zip(&[("big.b2nd", 0, &big), ("copy.b2nd", 0, &big)]);
    // big.b2nd's sizes in its central directory entry (at 645 + 30 + 9 + 607 = 1291, sizes at
    // +20 and +24) made 617: its data, from byte 38, now runs to 655, over copy.b2nd's local
    // header at 645.
    assert_eq!(&bytes[1291 + 46..1291 + 54], b"big.b2nd");
    bytes[1291 + 20..1291 + 24].copy_from_slice(&le32(617));
    bytes[1291 + 24..1291 + 28].copy_from_slice(&le32(617));
    let (_, message) = refused_edit(&dir, &bytes, "copy.b2nd");
    assert_eq!(
        message,
        "at byte 645: the local header of member \"copy.b2nd\" lies inside member \"big.b2nd\", whose local header \
         at byte 0 and data run to byte 655"
    );
}

#[test]
fn walks_find_b2z_stores_by_name_and_magic() {
    let dir = scratch("stores-walk");
    let store = read_fixture(DICTSTORE);
    write(&dir, "a.b2z", &store);
    // A zip under another name, and a .b2z that is not a zip: not stores, skipped.
    write(&dir, "b.zip", &store);
    write(&dir, "c.b2z", b"not a zip");
    let out = run(&["inspect", "--jsonl", &dir.display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let paths: Vec<String> = jsonl(&out)
        .iter()
        .map(|l| l["path"].as_str().unwrap_or_default().to_owned())
        .collect();
    let a = dir.join("a.b2z").display().to_string();
    // embed.b2e's frames after it: its estore_metadata's keys, in stored order.
    assert_eq!(
        paths,
        [
            "big.b2nd",
            "dir/big_sc.b2f",
            "dir/deeper/f8.b2nd",
            "embed.b2e",
            "embed.b2e/small",
            "embed.b2e/dir/sc"
        ]
        .map(|n| format!("{a}/{n}"))
    );
    // Given by name, a zip is a store whatever its name; a .b2z that is not a zip says so.
    let out = run(&["inspect", "--jsonl", &dir.join("b.zip").display().to_string()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(jsonl(&out).len(), 4 + 2);
    let c = dir.join("c.b2z").display().to_string();
    let out = run(&["inspect", "--jsonl", &c]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with(&format!("metalayer: {c}: no end-of-central-directory record")),
        "{}",
        stderr(&out)
    );
}

/// 3.12.2's DictStore's `embed.b2e`, its `estore_metadata` replaced by msgpack in which
/// `embed_map` is an array: `{"embed_map": [...], "current_offset": 471}`, with the array at byte
/// 11 (fixmap 0x82, then fixstr "embed_map" of 1 + 9 bytes).
fn embed_store_with_array_map(dir: &std::path::Path) -> String {
    let embed = read_fixture("files/blosc2-3-stores/dictstore.b2d/embed.b2e");
    let mut msgpack = b"\x82\xa9embed_map\x91\xa6/small".to_vec();
    msgpack.extend_from_slice(b"\xaecurrent_offset\xcd\x01\xd7");
    let edited = metalayer::frame::edit::Edit::new()
        .vlmeta("estore_metadata", msgpack)
        .apply(&embed)
        .expect("the edit applies");
    write(dir, "embed.b2e", &edited.frame)
}

#[test]
fn an_embed_map_that_does_not_read_is_an_error() {
    let dir = scratch("stores-embed-map");
    let path = embed_store_with_array_map(&dir);
    let at = metalayer::frame::Frame::open(&path)
        .expect("the frame reads")
        .vlmetalayers[0]
        .offset;
    let want = format!(
        "{path}: estore_metadata, the vlmetalayer at byte {at}: at byte 11 of its msgpack: embed_map is an array \
         of 1 items, not a map of keys; the frames it places cannot be found"
    );
    for args in [&["inspect", "--jsonl"][..], &["inspect", "--tree"][..]] {
        let mut args = args.to_vec();
        args.push(&path);
        let out = run(&args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(&want), "{args:?}: {}", stderr(&out));
    }
}
