//! The `.b2z` reader and the `embed_map` reader on any bytes: a zip read from memory either
//! gives its central directory, each entry within it, or an error at an offset inside the
//! input; a member it locates lies before the central directory; the edit check holds the same.
//! The bytes read as an `estore_metadata` either give keys found inside them, or an error at an
//! offset inside them. Nothing panics, and no count read sizes memory.
#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use metalayer::store::EmbedMap;
use metalayer::store::zip::{Archive, ZipError};

fn check(err: &ZipError, len: u64) {
    if let Some(offset) = err.offset() {
        assert!(offset <= len, "{err}");
    }
    let _ = err.to_string();
}

fuzz_target!(|data: &[u8]| {
    let len = data.len() as u64;
    let mut file = Cursor::new(data);
    match Archive::read(&mut file) {
        Ok(archive) => {
            let dir = archive.directory;
            assert!(dir.offset + dir.size <= dir.end && dir.end <= len);
            for entry in &archive.entries {
                assert!(entry.at >= dir.offset && entry.at + entry.len as u64 <= dir.offset + dir.size);
                if let Ok(Ok(at)) = archive.locate(&mut file, entry) {
                    assert!(at.offset + at.size <= dir.offset);
                }
            }
            match archive.check_for_edit(&mut file) {
                Ok(layout) => assert_eq!(layout.spans.len(), archive.entries.len()),
                Err(err) => check(&err, len),
            }
        }
        Err(err) => check(&err, len),
    }
    match EmbedMap::parse(data) {
        Ok(map) => {
            for key in &map.keys {
                assert!(key.at < data.len());
            }
        }
        Err(err) => assert!(err.at <= data.len(), "{err}"),
    }
});
