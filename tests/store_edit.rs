//! One member of a `.b2z` edited through `metalayer::store::edit`: the new zip read back by the
//! `zip` crate, which checks every member's CRC-32 as it reads it, and by our reader; and the
//! zips the editor refuses.
#![cfg(all(feature = "store", feature = "edit"))]

use std::io::Read;
use std::path::{Path, PathBuf};

use metalayer::frame::edit::{Edit, WriteOptions};
use metalayer::store::edit::{MemberEditError, edit_member, find_member};
use metalayer::store::{Place, Store};

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(rel)
}

/// Every member of the zip at `path` read whole by the `zip` crate (its CRC-32 checked at the
/// end of each), by name.
fn zip_crate_members(path: &Path) -> Vec<(String, Vec<u8>)> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{e}"));
    let mut archive = zip::ZipArchive::new(file).unwrap_or_else(|e| panic!("{e}"));
    let mut out = Vec::new();
    for i in 0..archive.len() {
        let mut member = archive.by_index(i).unwrap_or_else(|e| panic!("{e}"));
        let name = String::from_utf8_lossy(member.name_raw()).into_owned();
        let mut bytes = Vec::new();
        member.read_to_end(&mut bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        out.push((name, bytes));
    }
    out.sort();
    out
}

#[test]
fn an_edited_member_reads_back_with_its_crc_and_the_others_unchanged() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    for rel in [
        "files/blosc2-3-stores/dictstore.b2z",
        "files/blosc2-4-stores/treestore.b2z",
        "files/blosc2-4-stores/ctable.b2z",
    ] {
        let zip = dir.path().join("store.b2z");
        std::fs::copy(fixture(rel), &zip).unwrap_or_else(|e| panic!("{e}"));
        let before = zip_crate_members(&zip);
        let store = Store::open(&zip).unwrap_or_else(|e| panic!("{e}"));
        // The first member in the zip's own order: every later one moves.
        let first = store
            .members()
            .min_by_key(|m| m.place.offset())
            .map(|m| m.name.clone())
            .unwrap_or_default();
        drop(store);
        let value = b"\xa5added".to_vec();
        let (changes, ()) = edit_member(&zip, &first, &WriteOptions::new(), |_| {
            Ok::<_, String>((Edit::new().vlmeta("note", value.clone()), ()))
        })
        .unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert_eq!(changes.len(), 1);
        let after = zip_crate_members(&zip);
        assert_eq!(after.len(), before.len(), "{rel}");
        for ((name, old), (new_name, new)) in before.iter().zip(&after) {
            assert_eq!(name, new_name);
            if *name == first {
                assert!(new.len() > old.len(), "{rel}: {name} grew by its vlmetalayer");
                let frame = metalayer::frame::Frame::parse(new).unwrap_or_else(|e| panic!("{e}"));
                assert!(frame.vlmetalayers.iter().any(|m| m.name == "note"));
            } else {
                assert_eq!(old, new, "{rel}: {name} is carried over as it was");
            }
        }
        // Our reader places every member where the zip crate found its bytes.
        let store = Store::open(&zip).unwrap_or_else(|e| panic!("{e}"));
        let bytes = std::fs::read(&zip).unwrap_or_default();
        for m in store.members() {
            let Place::Zip { offset, len, .. } = m.place else {
                unreachable!()
            };
            let data = &bytes[offset as usize..(offset + len) as usize];
            assert!(
                after.iter().any(|(n, b)| *n == m.name && b == data),
                "{rel}: {}",
                m.name
            );
        }
    }
}

#[test]
fn zips_the_editor_cannot_rewrite_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let zip = dir.path().join("store.b2z");
    std::fs::copy(fixture("files/blosc2-3-stores/dictstore.b2z"), &zip).unwrap_or_else(|e| panic!("{e}"));
    let whole = std::fs::read(&zip).unwrap_or_default();
    // No such member.
    let err = edit_member(&zip, "none.b2nd", &WriteOptions::new(), |_| {
        Ok::<_, String>((Edit::new(), ()))
    })
    .err()
    .unwrap_or_else(|| panic!("refused"));
    assert!(
        matches!(&err, MemberEditError::Refused(m) if m.ends_with("the zip has no member \"none.b2nd\"")),
        "{err}"
    );
    // The caller's own error, given back as it is.
    let err = edit_member(&zip, "big.b2nd", &WriteOptions::new(), |_| Err::<(Edit, ()), _>("no"))
        .err()
        .unwrap_or_else(|| panic!("refused"));
    assert!(matches!(err, MemberEditError::Build("no")));
    assert_eq!(std::fs::read(&zip).unwrap_or_default(), whole);
    // big.b2nd's flags made to say a data descriptor follows its data: its local header at
    // 1902 (python's zipfile), its central directory entry the third, at 3468 + 60 + 64. Its
    // data ends at 1940 + 607 = 2547, where embed.b2e's local header starts: the 12 bytes of a
    // descriptor (CRC-32, two sizes) would lie inside it.
    let mut descriptor = whole.clone();
    descriptor[1902 + 6] |= 8;
    descriptor[3468 + 60 + 64 + 8] |= 8;
    std::fs::write(&zip, &descriptor).unwrap_or_else(|e| panic!("{e}"));
    let mut file = std::fs::File::open(&zip).unwrap_or_else(|e| panic!("{e}"));
    let err = find_member(&mut file, &zip, "big.b2nd").err().unwrap_or_default();
    assert_eq!(
        err,
        format!(
            "{}: at byte 2547: the local header of member \"embed.b2e\" lies inside member \"big.b2nd\", whose \
             local header at byte 1902 and data run to byte 2559",
            zip.display()
        )
    );

    // A member whose data descriptor is there: one stored member "a" of 10 bytes (its local
    // header at 0, 30 + 1 bytes, its data at 31), flag bit 3 set in both headers, then the 12
    // bytes of its descriptor at 41, the central directory at 53 (46 + 1 bytes), the end record.
    let mut bytes = b"PK\x03\x04\x14\0\x08\0\0\0\0\0\0\0\0\0\0\0".to_vec();
    bytes.extend_from_slice(&[10, 0, 0, 0, 10, 0, 0, 0, 1, 0, 0, 0]);
    bytes.extend_from_slice(b"a0123456789");
    bytes.extend_from_slice(&[0; 12]);
    bytes.extend_from_slice(b"PK\x01\x02\x14\x03\x14\0\x08\0\0\0\0\0\0\0\0\0\0\0");
    bytes.extend_from_slice(&[10, 0, 0, 0, 10, 0, 0, 0, 1, 0]);
    bytes.extend_from_slice(&[0; 16]); // extra, comment, disk, attributes, the local header at 0
    bytes.push(b'a');
    bytes.extend_from_slice(b"PK\x05\x06\0\0\0\0\x01\0\x01\0");
    bytes.extend_from_slice(&[47, 0, 0, 0, 53, 0, 0, 0, 0, 0]);
    std::fs::write(&zip, &bytes).unwrap_or_else(|e| panic!("{e}"));
    let mut file = std::fs::File::open(&zip).unwrap_or_else(|e| panic!("{e}"));
    let err = find_member(&mut file, &zip, "a").err().unwrap_or_default();
    assert_eq!(
        err,
        format!(
            "{}: the member at byte 0 has a data descriptor; such a member is not rewritten",
            zip.display()
        )
    );
}
