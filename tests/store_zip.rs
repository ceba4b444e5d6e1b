//! The `.b2z` reader of `metalayer::store`: python's `zipfile`'s offsets for the fixtures, hostile
//! zips built byte by byte (every offset derived by hand from the zip format: a local header is
//! 30 bytes and the name, a central directory entry 46 bytes and the name, the end record 22
//! bytes), every cut and every changed byte of a fixture's records.
#![cfg(feature = "store")]

use std::fs::File;
use std::path::Path;

use metalayer::store::zip::{Archive, EditLayout, ZipError};
use metalayer::store::{Entry, Member, Place, Store, StoreErrorKind, is_zip_store};

/// The entries of the zip at `path`, or the zip's error.
fn members(path: &Path) -> Result<Vec<Entry>, ZipError> {
    match Store::open_zip(path) {
        Ok(store) => Ok(store.entries().to_vec()),
        Err(e) => match e.into_kind() {
            StoreErrorKind::Zip(e) => Err(e),
            StoreErrorKind::Io(e) => Err(ZipError::Io(e)),
            other => panic!("{other:?}"),
        },
    }
}

/// A zip member's local header offset, data offset and length.
fn zip_place(m: &Member) -> (u64, u64, u64) {
    match m.place {
        Place::Zip {
            header_offset,
            offset,
            len,
        } => (header_offset, offset, len),
        ref other => panic!("{other:?}"),
    }
}

/// The zip at `path` read, and checked for an edit.
fn check_path(path: &Path) -> Result<(Archive, EditLayout), ZipError> {
    let mut file = File::open(path)?;
    let archive = Archive::read(&mut file)?;
    let layout = archive.check_for_edit(&mut file)?;
    Ok((archive, layout))
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

#[test]
fn fixture_members_are_at_pythons_offsets() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/files/blosc2-3-stores/dictstore.b2z"
    );
    let entries = members(Path::new(path)).unwrap_or_default();
    // expected.json: (name, header_offset, offset, size), python's zipfile's reading.
    let want = [
        ("big.b2nd", 1902, 1940, 607),
        ("dir/big_sc.b2f", 0, 44, 1121),
        ("dir/deeper/f8.b2nd", 1165, 1213, 689),
        ("embed.b2e", 2547, 2586, 882),
    ];
    let got: Vec<_> = entries
        .iter()
        .map(|e| match e {
            Entry::Member(m) => {
                let (h, o, n) = zip_place(m);
                (m.name.as_str(), h, o, n)
            }
            Entry::Refused { message, .. } => panic!("{message}"),
        })
        .collect();
    assert_eq!(got, want);
}

#[test]
fn every_cut_and_every_changed_byte_of_the_directory_reads_or_is_refused() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/files/blosc2-4-stores/dictstore.b2z"
    );
    let whole = std::fs::read(path).unwrap_or_default();
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let file = dir.path().join("x.b2z");
    let cd_at = usize::try_from(u32_at(&whole, whole.len() - 6).unwrap_or_default()).unwrap_or_default();
    // Every cut through the central directory and the end record, every 13th before.
    let cuts: Vec<usize> = (0..cd_at).step_by(13).chain(cd_at..whole.len()).collect();
    let mut refused = 0;
    for &len in &cuts {
        std::fs::write(&file, &whole[..len]).unwrap_or_else(|e| panic!("{e}"));
        match members(&file) {
            Err(ZipError::Malformed { message, .. }) => {
                assert!(
                    message.contains("at byte") || message.contains("from byte"),
                    "{message}"
                );
                refused += 1;
            }
            other => panic!("a zip cut to {len} bytes: {other:?}"),
        }
    }
    assert_eq!(refused, cuts.len());
    // The central directory and the end record: each byte set to 0xff in turn.
    for at in cd_at..whole.len() {
        let mut changed = whole.clone();
        changed[at] = 0xff;
        std::fs::write(&file, &changed).unwrap_or_else(|e| panic!("{e}"));
        match members(&file) {
            Ok(entries) => {
                for entry in entries {
                    if let Entry::Member(m) = entry {
                        let (_, offset, size) = zip_place(&m);
                        assert!(offset + size <= u64::try_from(cd_at).unwrap_or_default());
                    }
                }
            }
            Err(ZipError::Malformed { message, .. }) => {
                assert!(
                    message.contains("at byte") || message.contains("from byte"),
                    "{message}"
                );
            }
            Err(ZipError::Io(e)) => panic!("byte {at}: {e}"),
        }
    }
}

/// One entry of [`build`]: its name and stored data, and which zip64 fields it carries.
#[derive(Default)]
struct Spec<'a> {
    name: &'a str,
    data: &'a [u8],
    /// The local header's sizes saturated, both in a zip64 extra field (as python's
    /// `zipfile` writes a member it expects to be large).
    local_zip64: bool,
    /// The central directory entry's local header offset and disk number saturated, both in
    /// a zip64 extra field after a field of another id.
    central_zip64: bool,
    /// The central directory entry's local header offset, if not where the header is.
    offset: Option<u32>,
}

/// How [`build`] ends the zip.
enum End {
    /// The end record, its count as given (saturated at 0xffff).
    Plain,
    /// The zip64 end record with `extensible` bytes after its fixed 56, its locator, and an
    /// end record of saturated fields.
    Zip64 { extensible: usize },
}

fn le16(v: usize) -> [u8; 2] {
    u16::try_from(v).unwrap_or(u16::MAX).to_le_bytes()
}

fn le32(v: usize) -> [u8; 4] {
    u32::try_from(v).unwrap_or(u32::MAX).to_le_bytes()
}

/// A zip of stored entries laid out as python's `zipfile` lays them out: local headers and
/// data, the central directory, the end records. CRCs are left 0: nothing here reads them.
fn build(specs: &[Spec<'_>], end: End) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for spec in specs {
        let at = out.len();
        let (name, len) = (spec.name.as_bytes(), spec.data.len());
        out.extend_from_slice(b"PK\x03\x04\x2d\0\0\0\0\0\0\0\0\0\0\0\0\0");
        if spec.local_zip64 {
            out.extend_from_slice(&[0xff; 8]);
        } else {
            out.extend_from_slice(&le32(len));
            out.extend_from_slice(&le32(len));
        }
        out.extend_from_slice(&le16(name.len()));
        out.extend_from_slice(&le16(if spec.local_zip64 { 20 } else { 0 }));
        out.extend_from_slice(name);
        if spec.local_zip64 {
            out.extend_from_slice(&[1, 0, 16, 0]);
            out.extend_from_slice(&(len as u64).to_le_bytes());
            out.extend_from_slice(&(len as u64).to_le_bytes());
        }
        out.extend_from_slice(spec.data);
        central.extend_from_slice(b"PK\x01\x02\x2d\x03\x2d\0\0\0\0\0\0\0\0\0\0\0\0\0");
        central.extend_from_slice(&le32(len));
        central.extend_from_slice(&le32(len));
        central.extend_from_slice(&le16(name.len()));
        central.extend_from_slice(&le16(if spec.central_zip64 { 5 + 16 } else { 0 }));
        central.extend_from_slice(&le16(0)); // comment
        central.extend_from_slice(if spec.central_zip64 { &[0xff, 0xff] } else { &[0, 0] });
        central.extend_from_slice(&[0; 6]); // attributes
        let offset = spec.offset.map_or(at, |o| o as usize);
        central.extend_from_slice(&if spec.central_zip64 { [0xff; 4] } else { le32(offset) });
        central.extend_from_slice(name);
        if spec.central_zip64 {
            // A timestamp field (id 0x5455), then the zip64 one: the offset, the disk.
            central.extend_from_slice(&[0x55, 0x54, 1, 0, 0]);
            central.extend_from_slice(&[1, 0, 12, 0]);
            central.extend_from_slice(&(offset as u64).to_le_bytes());
            central.extend_from_slice(&[0; 4]);
        }
    }
    let (cd_at, cd_len, count) = (out.len(), central.len(), specs.len());
    out.extend_from_slice(&central);
    let mut eocd = b"PK\x05\x06\0\0\0\0".to_vec();
    match end {
        End::Plain => {
            eocd.extend_from_slice(&le16(count));
            eocd.extend_from_slice(&le16(count));
            eocd.extend_from_slice(&le32(cd_len));
            eocd.extend_from_slice(&le32(cd_at));
        }
        End::Zip64 { extensible } => {
            let record_at = out.len();
            out.extend_from_slice(b"PK\x06\x06");
            out.extend_from_slice(&(44 + extensible as u64).to_le_bytes());
            out.extend_from_slice(&[0x2d, 0, 0x2d, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
            for v in [count, count, cd_len, cd_at] {
                out.extend_from_slice(&(v as u64).to_le_bytes());
            }
            out.extend(std::iter::repeat_n(0xee, extensible));
            out.extend_from_slice(b"PK\x06\x07\0\0\0\0");
            out.extend_from_slice(&(record_at as u64).to_le_bytes());
            out.extend_from_slice(&[1, 0, 0, 0]);
            eocd.extend_from_slice(&[0xff; 12]);
        }
    }
    eocd.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&eocd);
    out
}

fn write(dir: &tempfile::TempDir, bytes: &[u8]) -> std::path::PathBuf {
    let path = dir.path().join("x.b2z");
    std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{e}"));
    path
}

fn places(entries: &[Entry]) -> Vec<(String, u64, u64, u64)> {
    entries
        .iter()
        .map(|e| match e {
            Entry::Member(m) => {
                let (h, o, n) = zip_place(m);
                (m.name.clone(), h, o, n)
            }
            Entry::Refused { message, .. } => panic!("{message}"),
        })
        .collect()
}

fn refusal(result: Result<(Archive, EditLayout), ZipError>) -> String {
    match result {
        Err(ZipError::Malformed { message, .. }) => message,
        other => panic!("not refused: {other:?}"),
    }
}

/// Names of `n` entries, `00000`..., each 5 bytes.
fn names(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{i:05}")).collect()
}

#[test]
fn a_saturated_count_without_zip64_records_is_a_floor() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    // 65,535 entries, python's zipfile's largest zip without zip64 records: count 0xffff.
    let all = names(65_536);
    let specs: Vec<Spec<'_>> = all
        .iter()
        .map(|name| Spec {
            name,
            ..Spec::default()
        })
        .collect();
    let path = write(&dir, &build(&specs[..65_535], End::Plain));
    let entries = members(&path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(entries.len(), 65_535);
    // Each entry: a local header of 30 + 5 bytes and no data.
    assert_eq!(
        places(&entries[65_534..]),
        [("65534".to_owned(), 65_534 * 35, 65_535 * 35, 0)]
    );
    let (archive, layout) = check_path(&path).unwrap_or_else(|e| panic!("{e}"));
    assert!(!layout.zip64);
    assert_eq!(archive.entries.len(), 65_535);
    // One more, the count left saturated by a writer without zip64: all read.
    let path = write(&dir, &build(&specs, End::Plain));
    assert_eq!(members(&path).map(|e| e.len()).ok(), Some(65_536));
    // One fewer than the saturated count promises: refused. 65,534 entries of 51 bytes.
    let path = write(&dir, &build(&specs[..65_534], End::Plain));
    let mut bytes = std::fs::read(&path).unwrap_or_default();
    let eocd = bytes.len() - 22;
    bytes[eocd + 8..eocd + 12].copy_from_slice(&[0xff; 4]);
    std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{e}"));
    let cd_at = 65_534 * 35;
    assert_eq!(
        refusal(check_path(&path)),
        format!(
            "at byte {eocd}: the end record claims at least 65535 entries (its count saturated, without zip64 \
             records), and the central directory's {} bytes at byte {cd_at} hold 65534",
            65_534 * 51
        )
    );
}

#[test]
fn saturated_sizes_without_zip64_records_are_refused() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let bytes = build(
        &[Spec {
            name: "a",
            data: b"abc",
            ..Spec::default()
        }],
        End::Plain,
    );
    let eocd = bytes.len() - 22;
    for (field, what) in [(12, "size"), (16, "offset")] {
        let mut saturated = bytes.clone();
        saturated[eocd + field..eocd + field + 4].copy_from_slice(&[0xff; 4]);
        let path = write(&dir, &saturated);
        assert_eq!(
            refusal(check_path(&path)),
            format!(
                "at byte {}: the end record's central directory {what} is 0xffffffff, which calls for zip64 \
                 records, and no zip64 locator (PK\\x06\\x07) precedes the end record at byte {eocd}",
                eocd + field
            )
        );
    }
}

#[test]
fn zip64_records_and_extra_fields_are_read() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let specs = [
        Spec {
            name: "a.b2nd",
            data: b"0123456789",
            local_zip64: true,
            ..Spec::default()
        },
        Spec {
            name: "b/c.b2nd",
            data: b"abc",
            central_zip64: true,
            ..Spec::default()
        },
        Spec {
            name: "d/",
            ..Spec::default()
        },
    ];
    for extensible in [0, 8] {
        let bytes = build(&specs, End::Zip64 { extensible });
        let path = write(&dir, &bytes);
        // a.b2nd: 30 + 6 + 20 bytes of header, then its 10; b/c.b2nd's header at 66.
        let want = [
            ("a.b2nd".to_owned(), 0, 56, 10),
            ("b/c.b2nd".to_owned(), 66, 66 + 38, 3),
        ];
        assert_eq!(places(&members(&path).unwrap_or_else(|e| panic!("{e}"))), want);
        let (archive, layout) = check_path(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(layout.zip64);
        let d = &layout.directory;
        let cd_at = 66 + 38 + 3 + 32;
        assert_eq!((d.offset, d.size), (cd_at, (46 + 6) + (46 + 8 + 21) + (46 + 2)));
        assert_eq!(d.end, cd_at + d.size);
        assert_eq!(
            archive.entries.iter().map(|e| e.header_offset).collect::<Vec<_>>(),
            [0, 66, 107]
        );
        // The record's size field off by one either way: its end is not its locator.
        for wrong in [43, 45] {
            let mut changed = bytes.clone();
            let record = usize::try_from(d.end).unwrap_or_default();
            changed[record + 4..record + 12].copy_from_slice(&(wrong + extensible as u64).to_le_bytes());
            let path = write(&dir, &changed);
            let message = refusal(check_path(&path));
            assert!(
                message.starts_with(&format!(
                    "at byte {}: the zip64 record at byte {record} says",
                    record + 4
                )),
                "{message}"
            );
        }
    }
    // Only the zip64 extra field of a local header: a zip64 zip for a rewrite, read as any.
    let path = write(&dir, &build(&specs[..1], End::Plain));
    assert_eq!(
        places(&members(&path).unwrap_or_default()),
        [("a.b2nd".to_owned(), 0, 56, 10)]
    );
    assert!(check_path(&path).is_ok_and(|(_, l)| l.zip64));
    // The entry's disk number saturated, and its zip64 field too short to hold it.
    let mut bytes = build(&specs[1..2], End::Plain);
    let cd_at = 30 + 8 + 3;
    assert_eq!(&bytes[cd_at + 46 + 8 + 5..cd_at + 46 + 8 + 9], [1, 0, 12, 0]);
    bytes[cd_at + 46 + 8 + 7] = 8;
    bytes[cd_at + 30] -= 4;
    bytes.drain(cd_at + 46 + 8 + 17..cd_at + 46 + 8 + 21);
    let eocd = bytes.len() - 22;
    bytes[eocd + 12] -= 4;
    let path = write(&dir, &bytes);
    assert_eq!(
        refusal(check_path(&path)),
        format!("at byte {cd_at}: member b/c.b2nd: its zip64 extra field is too short for the sizes it stands for")
    );
}

#[test]
fn an_edit_refuses_entries_out_of_place_overlapping_or_of_one_name() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (a, b) = (&b"0123456789"[..], &b"abcdef"[..]);
    // A directory entry whose local header lies past the end of the file: members() leaves
    // it out, an edit refuses the zip. The local headers at 0, 41 and 73, the central
    // directory at 73 + 37 = 110, the entry of d/ at 110 + 46 + 1.
    let specs = [
        Spec {
            name: "a",
            data: a,
            ..Spec::default()
        },
        Spec {
            name: "d/",
            offset: Some(5000),
            ..Spec::default()
        },
        Spec {
            name: "b",
            data: b,
            ..Spec::default()
        },
    ];
    let path = write(&dir, &build(&specs, End::Plain));
    assert_eq!(members(&path).map(|e| e.len()).ok(), Some(2));
    assert_eq!(
        refusal(check_path(&path)),
        "member \"d/\": the central directory entry at byte 157 places the member's local header at byte 5000, \
         past the members' end at byte 110"
    );
    // Two entries of one name, their local headers at 0 and 46.
    let specs = [
        Spec {
            name: "a",
            data: a,
            ..Spec::default()
        },
        Spec {
            name: "a",
            data: b,
            ..Spec::default()
        },
    ];
    let path = write(&dir, &build(&specs, End::Plain));
    assert_eq!(
        refusal(check_path(&path)),
        "at byte 0 and at byte 41: two members are named \"a\"; readers that take the last of a name \
         (python-blosc2, python's zipfile) see only the one at byte 41, and an edit of either is refused"
    );
    // One entry's local header inside another's data: the name of the second written as
    // the first's data, at byte 31.
    let mut inner = build(
        &[Spec {
            name: "b",
            data: b,
            ..Spec::default()
        }],
        End::Plain,
    );
    inner.truncate(31 + b.len());
    let specs = [
        Spec {
            name: "a",
            data: &inner,
            ..Spec::default()
        },
        Spec {
            name: "b",
            data: b,
            offset: Some(31),
            ..Spec::default()
        },
    ];
    let path = write(&dir, &build(&specs, End::Plain));
    assert_eq!(
        places(&members(&path).unwrap_or_default())[1],
        ("b".to_owned(), 31, 62, 6)
    );
    assert_eq!(
        refusal(check_path(&path)),
        "at byte 31: the local header of member \"b\" lies inside member \"a\", whose local header at byte 0 \
         and data run to byte 68"
    );
    // A local header whose name is not its entry's.
    let mut bytes = build(
        &[Spec {
            name: "a",
            data: a,
            ..Spec::default()
        }],
        End::Plain,
    );
    bytes[30] = b'z';
    let path = write(&dir, &bytes);
    assert_eq!(
        refusal(check_path(&path)),
        "member \"a\": at byte 0: the local header names the member \"z\", its central directory entry at byte 41 \"a\""
    );
}

#[test]
fn every_changed_byte_of_the_records_passes_or_is_refused_for_an_edit() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/files/blosc2-4-stores/dictstore.b2z"
    );
    let whole = std::fs::read(path).unwrap_or_default();
    let (archive, layout) = check_path(Path::new(path)).unwrap_or_else(|e| panic!("{e}"));
    assert!(!layout.zip64);
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    // Every local header (30 bytes and the name), the central directory and the end record.
    let mut at: Vec<usize> = Vec::new();
    for entry in &archive.entries {
        let h = usize::try_from(entry.header_offset).unwrap_or_default();
        let name_len = usize::from(u16_at(&whole, h + 26).unwrap_or_default());
        at.extend(h..h + 30 + name_len);
    }
    at.extend(usize::try_from(layout.directory.offset).unwrap_or_default()..whole.len());
    for at in at {
        let mut changed = whole.clone();
        changed[at] = 0xff;
        let file = write(&dir, &changed);
        match check_path(&file) {
            Ok(_) => {}
            Err(ZipError::Malformed { message, .. }) => assert!(
                message.contains("at byte") || message.contains("from byte"),
                "byte {at}: {message}"
            ),
            Err(ZipError::Io(e)) => panic!("byte {at}: {e}"),
        }
    }
}

#[test]
fn stores_are_told_by_name_and_magic() {
    assert!(is_zip_store(Path::new("a.b2z"), b"PK\x03\x04", false));
    assert!(is_zip_store(Path::new("a.B2Z"), b"PK\x03\x04", false));
    assert!(!is_zip_store(Path::new("a.zip"), b"PK\x03\x04", false));
    assert!(!is_zip_store(Path::new("a.b2z"), b"\x9e\xa8", false));
    assert!(is_zip_store(Path::new("a.zip"), b"PK\x03\x04", true));
    assert!(is_zip_store(Path::new("a.b2z"), b"", true));
    assert!(!is_zip_store(Path::new("a.b2nd"), b"\x9e\xa8", true));
}

// ---------------------------------------------------------------------------------------------
// The `zip` crate's reading beside ours
// ---------------------------------------------------------------------------------------------

/// One member as a reader places it: its name as stored, its local header's offset, its data's
/// offset and length.
type Placed = (Vec<u8>, u64, u64, u64);

/// What a reader makes of a zip: the members it reads in place (sorted), the names of those it
/// refuses alone, or its refusal of the whole zip.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Reading {
    Read {
        members: Vec<Placed>,
        refused: Vec<Vec<u8>>,
    },
    Refused(String),
}

/// Our reading: `Store::open_zip`.
fn ours(path: &Path) -> Reading {
    match Store::open_zip(path) {
        Ok(store) => {
            let mut members = Vec::new();
            let mut refused = Vec::new();
            for entry in store.entries() {
                match entry {
                    Entry::Member(m) => {
                        let (h, o, n) = zip_place(m);
                        members.push((m.raw_name.clone(), h, o, n));
                    }
                    Entry::Refused { raw_name, .. } => refused.push(raw_name.clone()),
                }
            }
            members.sort();
            refused.sort();
            Reading::Read { members, refused }
        }
        Err(e) => Reading::Refused(e.to_string()),
    }
}

/// The `zip` crate's reading: its archive, then each entry's raw reader (which reads the local
/// header and finds the data's start); directories left out, as ours leaves them out. Members it
/// cannot open are refused alone; members it opens that are not stored (method 0) are refused
/// alone too, since neither reader inflates anything here.
fn theirs(path: &Path) -> Reading {
    let file = File::open(path).unwrap_or_else(|e| panic!("{e}"));
    let mut archive = match zip::ZipArchive::new(file) {
        Ok(archive) => archive,
        Err(e) => return Reading::Refused(e.to_string()),
    };
    let mut members = Vec::new();
    let mut refused = Vec::new();
    let names: Vec<Vec<u8>> = archive.file_names_raw().map(<[u8]>::to_vec).collect();
    for (i, name) in names.into_iter().enumerate() {
        match archive.by_index_raw(i) {
            Ok(f) if f.is_dir() => {}
            Ok(f) if f.compression() != zip::CompressionMethod::Stored || f.encrypted() => {
                refused.push(f.name_raw().to_vec());
            }
            Ok(f) => {
                let data = f.data_start().unwrap_or_else(|| panic!("no data start"));
                members.push((f.name_raw().to_vec(), f.header_start(), data, f.compressed_size()));
            }
            // A directory entry is left out whether its local header reads or not.
            Err(_) if name.ends_with(b"/") => {}
            Err(_) => refused.push(name),
        }
    }
    members.sort();
    refused.sort();
    Reading::Read { members, refused }
}

/// How the two readings of one zip compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Agreement {
    /// Both read it, to the same members at the same places, and refuse the same members.
    Same,
    /// Both refuse the whole zip.
    BothRefuse,
    /// We refuse the whole zip; the `zip` crate reads it.
    OnlyOursRefuses,
    /// The `zip` crate refuses the whole zip; we read it.
    OnlyTheirsRefuses,
    /// Both read it; every member both read is at the same place, and some member is read by one
    /// and refused (or not listed) by the other.
    SomeMembersDiffer,
    /// Both read a member of one name, at different places.
    PlacesDiffer,
}

fn compare(path: &Path) -> (Agreement, Reading, Reading) {
    let (a, b) = (ours(path), theirs(path));
    let agreement = match (&a, &b) {
        _ if a == b => Agreement::Same,
        (Reading::Refused(_), Reading::Refused(_)) => Agreement::BothRefuse,
        (Reading::Refused(_), _) => Agreement::OnlyOursRefuses,
        (_, Reading::Refused(_)) => Agreement::OnlyTheirsRefuses,
        (Reading::Read { members: ours, .. }, Reading::Read { members: theirs, .. }) => {
            // A name both read, at places none of which the other gives it.
            let differ = ours.iter().any(|m| {
                theirs.iter().any(|t| t.0 == m.0) && !ours.iter().filter(|o| o.0 == m.0).any(|o| theirs.contains(o))
            });
            if differ {
                Agreement::PlacesDiffer
            } else {
                Agreement::SomeMembersDiffer
            }
        }
    };
    (agreement, a, b)
}

/// Every `.b2z` of the repository's fixtures.
fn fixture_zips() -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut found = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap_or_else(|e| panic!("{e}")).path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "b2z") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

#[test]
fn every_fixture_zip_reads_as_the_zip_crate_reads_it() {
    let zips = fixture_zips();
    // tests/fixtures/files/blosc2-{3,4}-stores/{dictstore,treestore}.b2z, blosc2-4-stores/ctable.b2z,
    // edits/frames/dictstore_4.b2z.
    assert_eq!(zips.len(), 6, "{zips:?}");
    for path in zips {
        let (agreement, a, b) = compare(&path);
        assert_eq!(
            agreement,
            Agreement::Same,
            "{}: ours {a:?}, zip's {b:?}",
            path.display()
        );
        let Reading::Read { members, refused } = a else {
            unreachable!()
        };
        assert!(!members.is_empty() && refused.is_empty(), "{}", path.display());
    }
}

/// The readings of `bytes` written as a zip, compared.
fn compare_bytes(dir: &tempfile::TempDir, bytes: &[u8]) -> (Agreement, Reading, Reading) {
    let path = write(dir, bytes);
    compare(&path)
}

#[test]
fn hostile_zips_beside_the_zip_crate() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (a, b) = (&b"0123456789"[..], &b"abcdef"[..]);
    let spec = |name, data| Spec {
        name,
        data,
        ..Spec::default()
    };
    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
    cases.push(("plain", build(&[spec("a", a), spec("b", b)], End::Plain)));
    let zip64 = [
        Spec {
            local_zip64: true,
            ..spec("a.b2nd", a)
        },
        Spec {
            central_zip64: true,
            ..spec("b/c.b2nd", b"abc")
        },
        spec("d/", b""),
    ];
    cases.push(("zip64 records", build(&zip64, End::Zip64 { extensible: 0 })));
    cases.push((
        "zip64 records, extensible data",
        build(&zip64, End::Zip64 { extensible: 8 }),
    ));
    cases.push(("zip64 extra field of a local header", build(&zip64[..1], End::Plain)));
    cases.push((
        "a directory entry past the members",
        build(
            &[
                spec("a", a),
                Spec {
                    offset: Some(5000),
                    ..spec("d/", b"")
                },
                spec("b", b),
            ],
            End::Plain,
        ),
    ));
    cases.push((
        "a member past the members",
        build(
            &[
                spec("a", a),
                Spec {
                    offset: Some(5000),
                    ..spec("x", b"")
                },
            ],
            End::Plain,
        ),
    ));
    cases.push((
        "two members of one name",
        build(&[spec("a", a), spec("a", b)], End::Plain),
    ));
    let mut deflated = build(&[spec("a", a), spec("p", b)], End::Plain);
    // p's method, in its local header (at 30 + 1 + 10 = 41) and its central entry (at 41 + 37 + 46 + 1).
    deflated[41 + 8] = 8;
    deflated[41 + 37 + 46 + 1 + 10] = 8;
    cases.push(("a deflated member", deflated));
    let mut encrypted = build(&[spec("a", a)], End::Plain);
    encrypted[6] = 1;
    encrypted[41 + 8] = 1;
    cases.push(("an encrypted member", encrypted));
    let mut renamed = build(&[spec("a", a)], End::Plain);
    renamed[30] = b'z';
    cases.push(("a local header naming another member", renamed));
    let mut saturated = build(&[spec("a", b"abc")], End::Plain);
    let eocd = saturated.len() - 22;
    saturated[eocd + 12..eocd + 16].copy_from_slice(&[0xff; 4]);
    cases.push(("a saturated directory size without zip64 records", saturated));

    let long = "n".repeat(65_535);
    cases.push(("a name of 65,535 bytes", build(&[spec(&long, a)], End::Plain)));
    cases.push((
        "names with control characters",
        build(&[spec("a\x7f\n\u{1b}[0m", a), spec("b\0c", b)], End::Plain),
    ));

    let mut findings = Vec::new();
    for (name, bytes) in &cases {
        let (agreement, ours, theirs) = compare_bytes(&dir, bytes);
        findings.push((*name, agreement));
        assert_ne!(
            agreement,
            Agreement::PlacesDiffer,
            "{name}: ours {ours:?}, zip's {theirs:?}"
        );
    }
    // What each reader does, case by case: the same everywhere but for two entries of one name,
    // where the `zip` crate keeps the last of the name (as python's `zipfile` and python-blosc2
    // do) and ours lists both, at their own places (an edit of that zip is refused); and for an
    // end record whose central directory size is 0xffffffff without zip64 records, which ours
    // refuses (the size calls for zip64 records) and the `zip` crate reads by its count.
    assert_eq!(
        findings,
        [
            ("plain", Agreement::Same),
            ("zip64 records", Agreement::Same),
            ("zip64 records, extensible data", Agreement::Same),
            ("zip64 extra field of a local header", Agreement::Same),
            ("a directory entry past the members", Agreement::Same),
            ("a member past the members", Agreement::Same),
            ("two members of one name", Agreement::SomeMembersDiffer),
            ("a deflated member", Agreement::Same),
            ("an encrypted member", Agreement::Same),
            ("a local header naming another member", Agreement::Same),
            (
                "a saturated directory size without zip64 records",
                Agreement::OnlyOursRefuses
            ),
            ("a name of 65,535 bytes", Agreement::Same),
            ("names with control characters", Agreement::Same),
        ]
    );
}

#[test]
fn names_are_shown_without_control_characters() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let long = "n".repeat(65_535);
    let specs = [
        Spec {
            name: "a\x7f\n\u{1b}[0m",
            data: b"0123456789",
            ..Spec::default()
        },
        Spec {
            name: &long,
            data: b"abc",
            ..Spec::default()
        },
    ];
    let path = write(&dir, &build(&specs, End::Plain));
    let store = Store::open_zip(&path).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<(&[u8], &str)> = store.members().map(|m| (&m.raw_name[..], m.name.as_str())).collect();
    // DEL, LF and ESC (U+007F, U+000A, U+001B) are each replaced by U+FFFD; the name as stored is
    // kept.
    assert_eq!(
        names,
        [
            (&b"a\x7f\n\x1b[0m"[..], "a\u{fffd}\u{fffd}\u{fffd}[0m"),
            (long.as_bytes(), long.as_str())
        ]
    );
}

#[test]
fn every_cut_and_changed_byte_of_a_fixture_beside_the_zip_crate() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/files/blosc2-4-stores/dictstore.b2z"
    );
    let whole = std::fs::read(path).unwrap_or_default();
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (archive, _) = check_path(Path::new(path)).unwrap_or_else(|e| panic!("{e}"));
    let cd_at = usize::try_from(archive.directory.offset).unwrap_or_default();
    let eocd = whole.len() - 22;
    let mut tally = std::collections::BTreeMap::<(&str, Agreement), usize>::new();
    for len in (0..cd_at).step_by(13).chain(cd_at..whole.len()) {
        let (agreement, ours, theirs) = compare_bytes(&dir, &whole[..len]);
        // Every cut loses the end record, or part of the central directory: both refuse it.
        assert_eq!(
            agreement,
            Agreement::BothRefuse,
            "cut to {len}: ours {ours:?}, zip's {theirs:?}"
        );
        *tally.entry(("cut", agreement)).or_default() += 1;
    }
    let mut at: Vec<usize> = Vec::new();
    for entry in &archive.entries {
        let h = usize::try_from(entry.header_offset).unwrap_or_default();
        let name_len = usize::from(u16_at(&whole, h + 26).unwrap_or_default());
        at.extend(h..h + 30 + name_len);
    }
    at.extend(cd_at..whole.len());
    for at in at {
        let mut changed = whole.clone();
        changed[at] = 0xff;
        let (agreement, ours, theirs) = compare_bytes(&dir, &changed);
        let context = format!("byte {at}: ours {ours:?}, zip's {theirs:?}");
        match agreement {
            Agreement::Same | Agreement::BothRefuse => {}
            // The end record's count of entries on this disk, made unlike its count of entries:
            // the `zip` crate refuses the zip as one of several disks; ours reads the count of
            // entries, as python's `zipfile` does.
            Agreement::OnlyTheirsRefuses => assert!((eocd + 8..eocd + 10).contains(&at), "{context}"),
            // The end record's central directory size made larger: ours refuses a directory that
            // runs past the end record; the `zip` crate reads its count of entries from the
            // directory's start, and its members where they are.
            Agreement::OnlyOursRefuses => assert!((eocd + 12..eocd + 16).contains(&at), "{context}"),
            // A member whose local header's name or extra length, or whose central entry's sizes,
            // offset or disk, no longer fit: ours refuses that member alone, the `zip` crate
            // lists it (its data past the central directory, or past the file's end). Every
            // member ours reads, the `zip` crate reads at the same place.
            Agreement::SomeMembersDiffer => {
                let (
                    Reading::Read {
                        members: a,
                        refused: ra,
                    },
                    Reading::Read {
                        members: b,
                        refused: rb,
                    },
                ) = (&ours, &theirs)
                else {
                    unreachable!()
                };
                assert!(
                    a.iter().all(|m| b.contains(m)) && !ra.is_empty() && rb.is_empty(),
                    "{context}"
                );
            }
            Agreement::PlacesDiffer => panic!("{context}"),
        }
        *tally.entry(("byte", agreement)).or_default() += 1;
    }
    eprintln!("{tally:#?}");
}
