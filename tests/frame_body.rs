//! `metalayer::frame::check_body`: the chunks and the chunk index between a frame's header and
//! trailer.
//!
//! - every fixture frame (contiguous files, sparse-frame directories, members of `.b2z`
//!   stores) passes, with the number of chunks python-blosc2 recorded in `expected.json`
//!   (c-blosc2's own count is compared in `cblosc2/tests/body.rs`);
//! - lies made by hand in real frames are refused at their byte: an offset past the data, a
//!   chunk whose `cbytes` runs past it, a negative offset that is not special, `cbytes` in the
//!   header raised and lowered, an index that does not decompress, an index whose `nbytes`
//!   disagrees with `nbytes / chunksize`, a missing chunk file (the same bytes are refused by
//!   c-blosc2 in `cblosc2/tests/body.rs`);
//! - an index claiming 2^31 - 8 bytes of offsets, special or compressed, is checked without
//!   being held (`tests/alloc.rs` counts the allocations);
//! - no change of a single byte of a body makes the check panic.

use std::fs;
use std::io::Cursor;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod common;

use common::{ZEROS, blosc2_chunk, frame_with_index, runs_index};
use metalayer::frame::{
    Body, ChunkMiss, Entry, FrameError, FrameErrorKind, FrameRef, Section, check_body, check_body_at, check_body_from,
};
use metalayer::vlmeta::ChunkErrorKind;
use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn fixture(rel: &str) -> Vec<u8> {
    fs::read(fixtures().join(rel)).unwrap()
}

/// A fresh directory of the test's own (created exclusively, under a random name), removed on
/// drop.
fn temp_dir(tag: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("metalayer-body-test-{tag}-"))
        .tempdir()
        .unwrap()
}

/// The body check of a whole frame held in memory.
fn check(bytes: &[u8]) -> Result<Body, FrameError> {
    let frame = FrameRef::parse(bytes)?;
    check_body_from(Cursor::new(bytes), &frame, None)
}

/// The header's fields the tests patch: big-endian values after their markers.
const NBYTES_AT: usize = 0x1e;
const CBYTES_AT: usize = 0x27;
const CHUNKSIZE_AT: usize = 0x3a;
const FRAME_LEN_AT: usize = 0x10;

fn header_len(bytes: &[u8]) -> usize {
    i32::from_be_bytes(bytes[11..15].try_into().unwrap()) as usize
}

fn cbytes(bytes: &[u8]) -> usize {
    i64::from_be_bytes(bytes[CBYTES_AT..CBYTES_AT + 8].try_into().unwrap()) as usize
}

fn set_i64(bytes: &mut [u8], at: usize, value: i64) {
    bytes[at..at + 8].copy_from_slice(&value.to_be_bytes());
}

fn le_i64(bytes: &[u8], at: usize) -> i64 {
    i64::from_le_bytes(bytes[at..at + 8].try_into().unwrap())
}

// ---------------------------------------------------------------------------------------------
// Every fixture
// ---------------------------------------------------------------------------------------------

#[test]
fn every_fixture_frame_passes_with_the_recorded_number_of_chunks() {
    let root = fixtures();
    let expected: Value = serde_json::from_str(&fs::read_to_string(root.join("expected.json")).unwrap()).unwrap();
    let (mut frames, mut counted, mut sparse, mut special, mut members) = (0, 0, 0, 0, 0);
    let mut with_chunks = 0;
    for record in expected.as_array().unwrap() {
        let rel = record["path"].as_str().unwrap();
        if record.get("store").is_some() {
            if record["store"] == "zip" {
                // Each member of a .b2z store, in place: the same count as its .b2d twin, or
                // as its own record.
                for member in record["members"].as_array().unwrap() {
                    let (offset, size) = (member["offset"].as_u64().unwrap(), member["size"].as_u64().unwrap());
                    let body = check_body_at(root.join(rel), offset, size)
                        .unwrap_or_else(|e| panic!("{rel} {}: {e}", member["name"]));
                    let whole = fs::read(root.join(rel)).unwrap();
                    let bytes = &whole[offset as usize..(offset + size) as usize];
                    assert_eq!(check(bytes).unwrap(), body, "{rel} {}", member["name"]);
                    members += 1;
                }
            }
            continue;
        }
        let path = root.join(rel);
        let body = check_body(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
        frames += 1;
        assert_eq!(body.sparse, record["frame"] == "sparse", "{rel}");
        sparse += usize::from(body.sparse);
        // python-blosc2's own count, where the record has it.
        if let Some(n) = record.get("header").and_then(|h| h.get("nchunks")) {
            assert_eq!(body.nchunks, n.as_u64().unwrap(), "{rel}: nchunks");
            counted += 1;
        }
        if body.nchunks > 0 {
            with_chunks += 1;
            assert!(body.index_len >= 32, "{rel}: {body:?}");
        } else {
            assert_eq!(body.index_len, 0, "{rel}: {body:?}");
        }
        special += usize::from(body.special_chunks > 0);
        assert!(body.special_chunks <= body.nchunks, "{rel}");
        // The body is what lies between the header and the trailer.
        let frame_file = fs::read(root.join(record["frame_file"].as_str().unwrap())).unwrap();
        let read = FrameRef::parse(&frame_file).unwrap();
        assert_eq!(body.index_offset, body.data_end, "{rel}");
        assert!(body.data_end + body.index_len <= read.trailer.offset, "{rel}");
        if !body.sparse {
            assert_eq!(
                body.data_end,
                (header_len(&frame_file) + cbytes(&frame_file)) as u64,
                "{rel}"
            );
            // A contiguous frame in memory reads the same.
            assert_eq!(check(&frame_file).unwrap(), body, "{rel}");
        }
    }
    assert!(
        frames >= 220 && counted >= 120 && sparse >= 15,
        "{frames} {counted} {sparse}"
    );
    assert!(
        special >= 50 && with_chunks >= 150 && members >= 30,
        "{special} {with_chunks} {members}"
    );
}

#[test]
fn a_frame_of_every_chunk_special_is_checked_through_its_one_offset() {
    // python-blosc2 4.x, shape (2**53 + 1,), chunks (2**30,): 8388609 chunks of zeros, in 221
    // bytes; the index is one repeated int64, nbytes 67108872.
    let start = Instant::now();
    for rel in [
        "files/blosc2-4/big_2pow53p1.b2nd",
        "files/blosc2-2/big_2pow53p1.b2nd",
        "files/caterva-0.7/big_2pow53p1.cat",
    ] {
        let body = check_body(fixtures().join(rel)).unwrap();
        assert_eq!(
            (body.nchunks, body.special_chunks, body.index_len),
            (8388609, 8388609, 40),
            "{rel}"
        );
    }
    assert!(start.elapsed() < Duration::from_secs(2), "{:?}", start.elapsed());
}

// ---------------------------------------------------------------------------------------------
// Lies made by hand
// ---------------------------------------------------------------------------------------------

/// python-blosc2 4.x: two chunks of 64 bytes after a 146-byte header, then an index stored
/// uncompressed (memcpyed): a 32-byte chunk header and the offsets 0 and 64.
const SCALARS: &str = "files/blosc2-4-vlmeta/scalars.b2nd";
const SCALARS_INDEX: usize = 146 + 128;

#[test]
fn the_fixture_the_lies_are_made_in() {
    let bytes = fixture(SCALARS);
    assert_eq!((header_len(&bytes), cbytes(&bytes)), (146, 128));
    assert_eq!(&bytes[SCALARS_INDEX..SCALARS_INDEX + 4], [5, 1, 7, 8]);
    assert_eq!(
        (le_i64(&bytes, SCALARS_INDEX + 32), le_i64(&bytes, SCALARS_INDEX + 40)),
        (0, 64)
    );
    let body = check(&bytes).unwrap();
    assert_eq!(
        (body.nchunks, body.data_end, body.index_len),
        (2, SCALARS_INDEX as u64, 48)
    );
}

fn offset_error(err: &FrameError) -> (u64, Section, Entry) {
    let place = err.place().unwrap();
    (place.offset, place.section, place.entry.clone())
}

#[test]
fn an_offset_past_the_data_is_refused_at_its_byte() {
    let mut bytes = fixture(SCALARS);
    let at = SCALARS_INDEX + 40;
    for (value, what) in [(500i64, "far"), (113, "16 bytes short"), (i64::MAX, "huge")] {
        bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
        let err = check(&bytes).unwrap_err();
        assert_eq!(
            offset_error(&err),
            (at as u64, Section::Body, Entry::Chunk(1)),
            "{what}"
        );
        assert!(
            matches!(err.kind(), FrameErrorKind::ChunkOffset { stored, miss: ChunkMiss::PastData { cbytes: 128 } } if *stored == value),
            "{what}: {err}"
        );
    }
    bytes[at..at + 8].copy_from_slice(&500i64.to_le_bytes());
    assert_eq!(
        check(&bytes).unwrap_err().to_string(),
        "at byte 0x13a (chunk 1): offset 500 points past the data: expected 0..=112 (a chunk's 16-byte header within cbytes 128), found 500"
    );
    // 112 is the last offset whose 16 bytes lie in the data: there, the bytes of chunk 1 at
    // 48 are its data, whose "cbytes" (bytes 12..16) runs past the data.
    bytes[at..at + 8].copy_from_slice(&112i64.to_le_bytes());
    let err = check(&bytes).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            FrameErrorKind::ChunkOffset {
                miss: ChunkMiss::ChunkPastData { .. },
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(err.offset(), Some(146 + 112 + 12));
}

#[test]
fn a_chunk_whose_cbytes_runs_past_the_data_is_refused_at_its_cbytes() {
    let mut bytes = fixture(SCALARS);
    // Chunk 1 (at header_len + 64) says it holds 65 bytes: one more than the data has.
    let at = 146 + 64 + 12;
    for (value, room) in [(65i32, 64u64), (1 << 30, 64), (15, 64), (-1, 64)] {
        bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
        let err = check(&bytes).unwrap_err();
        assert_eq!(
            offset_error(&err),
            (at as u64, Section::Body, Entry::Chunk(1)),
            "{value}"
        );
        assert!(
            matches!(err.kind(), FrameErrorKind::ChunkOffset { stored: 64, miss: ChunkMiss::ChunkPastData { chunk_cbytes, room: r } } if *chunk_cbytes == value && *r == room),
            "{value}: {err}"
        );
    }
    bytes[at..at + 4].copy_from_slice(&65i32.to_le_bytes());
    assert_eq!(
        check(&bytes).unwrap_err().to_string(),
        "at byte 0xde (chunk 1): the chunk at offset 64 has cbytes 65: expected 16..=64 (to end within the data), found 65"
    );
}

#[test]
fn a_negative_offset_must_name_a_special_chunk() {
    let mut bytes = fixture(SCALARS);
    let at = SCALARS_INDEX + 32;
    // Zeros, NaNs, uninitialized: no bytes in the frame; the count says so.
    for value in [ZEROS, (0x82u64 << 56) as i64, (0x84u64 << 56) as i64, -1] {
        bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
        let body = check(&bytes).unwrap_or_else(|e| panic!("{value:#x}: {e}"));
        assert_eq!((body.nchunks, body.special_chunks), (2, 1));
    }
    // The sign bit alone, or with bits 59 to 62: c-blosc2 finds no special value there.
    for value in [i64::MIN, (0xf8u64 << 56) as i64] {
        bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
        let err = check(&bytes).unwrap_err();
        assert_eq!(offset_error(&err), (at as u64, Section::Body, Entry::Chunk(0)));
        assert!(matches!(
            err.kind(),
            FrameErrorKind::ChunkOffset {
                miss: ChunkMiss::NotSpecial,
                ..
            }
        ));
    }
    assert_eq!(
        check(&bytes).unwrap_err().to_string(),
        "at byte 0x132 (chunk 0): offset -576460752303423488 (0xf800000000000000) is negative, but names no special chunk: expected bit 56 (zeros), 57 (NaNs) or 58 (uninitialized) set"
    );
}

#[test]
fn cbytes_raised_is_refused() {
    // Raised past the trailer: refused at cbytes itself.
    for (rel, raise) in [(SCALARS, 49), (SCALARS, 1000), ("files/blosc2-4/dtype_i4le.b2nd", 41)] {
        let mut bytes = fixture(rel);
        let cb = cbytes(&bytes) as i64;
        set_i64(&mut bytes, CBYTES_AT, cb + raise);
        let err = check(&bytes).unwrap_err();
        assert_eq!(
            offset_error(&err),
            (0x27, Section::Header, Entry::Field("cbytes")),
            "{rel} +{raise}"
        );
        assert!(
            matches!(err.kind(), FrameErrorKind::CbytesPastTrailer { .. }),
            "{rel}: {err}"
        );
    }
    let mut bytes = fixture(SCALARS);
    set_i64(&mut bytes, CBYTES_AT, 128 + 49);
    assert_eq!(
        check(&bytes).unwrap_err().to_string(),
        "at byte 0x27: cbytes 177 lies: the chunks from header_len 146 would end at byte 0x143, past the trailer at byte 0x142"
    );
    // Raised by exactly the index's length: the trailer follows the chunks, and the header
    // counts two chunks.
    set_i64(&mut bytes, CBYTES_AT, 128 + 48);
    let err = check(&bytes).unwrap_err();
    assert!(
        matches!(err.kind(), FrameErrorKind::IndexMissing { nchunks: 2, .. }),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "at byte 0x142 in the index chunk: expected the index of 2 chunks (nbytes 64 / chunksize 32, rounded up), found the trailer"
    );
    // Raised by less: the index is looked for inside itself, where no chunk header starts.
    for (rel, index) in [(SCALARS, SCALARS_INDEX), ("files/blosc2-4/dtype_i4le.b2nd", 165)] {
        for raise in [1, 8, 16, 31] {
            let mut bytes = fixture(rel);
            let cb = cbytes(&bytes) as i64;
            set_i64(&mut bytes, CBYTES_AT, cb + raise);
            let err = check(&bytes).unwrap_err();
            let place = err.place().unwrap();
            assert_eq!(place.entry, Entry::Index, "{rel} +{raise}: {err}");
            assert!(place.offset >= (index as i64 + raise) as u64, "{rel} +{raise}: {err}");
        }
    }
    // Negative.
    set_i64(&mut bytes, CBYTES_AT, -1);
    assert_eq!(
        check(&bytes).unwrap_err().to_string(),
        "at byte 0x27: cbytes -1 lies: expected the compressed size of the chunks, 0 or more"
    );
}

#[test]
fn cbytes_lowered_is_refused_where_the_index_is_looked_for() {
    let mut bytes = fixture(SCALARS);
    // Lowered by one chunk: the index is looked for at chunk 1, a chunk of 32 bytes where 16
    // (two offsets) are expected.
    set_i64(&mut bytes, CBYTES_AT, 64);
    let err = check(&bytes).unwrap_err();
    assert_eq!(offset_error(&err), (146 + 64 + 4, Section::Body, Entry::Index));
    assert_eq!(
        err.to_string(),
        "at byte 0xd6 in the index chunk: expected nbytes 16 (8 bytes for each of 2 chunks: nbytes 64 / chunksize 32, rounded up), found 32"
    );
    // Lowered by less: the index is looked for inside chunk 0's data, which is no chunk header.
    for lowered in [1, 8, 63, 100, 127] {
        set_i64(&mut bytes, CBYTES_AT, 128 - lowered);
        let err = check(&bytes).unwrap_err();
        let place = err.place().unwrap();
        assert_eq!(place.entry, Entry::Index, "-{lowered}: {err}");
        assert!(place.offset >= (146 + 128 - lowered) as u64, "-{lowered}: {err}");
    }
    // To 0: the index is looked for at the first chunk.
    set_i64(&mut bytes, CBYTES_AT, 0);
    let err = check(&bytes).unwrap_err();
    assert_eq!(err.offset(), Some(146 + 4), "{err}");
}

#[test]
fn an_index_that_does_not_decompress_is_refused_with_the_decoders_error() {
    let mut bytes = fixture(SCALARS);
    // The index chunk's format version.
    bytes[SCALARS_INDEX] = 0;
    let err = check(&bytes).unwrap_err();
    assert_eq!(offset_error(&err), (SCALARS_INDEX as u64, Section::Body, Entry::Index));
    let FrameErrorKind::IndexChunk { start, error } = err.kind() else {
        panic!("{err}")
    };
    assert_eq!((*start, error.offset), (SCALARS_INDEX as u64, 0));
    assert_eq!(
        err.to_string(),
        "at byte 0x112 in the index chunk: blosc2 chunk: at byte 0x00 (version): expected a format version from 1 to 6, found 0 (the index chunk starts at byte 0x112)"
    );
    // A memcpyed index whose cbytes is not its header plus nbytes.
    let mut bytes = fixture(SCALARS);
    bytes[SCALARS_INDEX + 12] = 47;
    let err = check(&bytes).unwrap_err();
    let FrameErrorKind::IndexChunk { error, .. } = err.kind() else {
        panic!("{err}")
    };
    assert!(
        matches!(
            error.kind,
            ChunkErrorKind::Memcpyed {
                expected: 48,
                found: 47
            }
        ),
        "{err}"
    );
    assert_eq!(err.offset(), Some(SCALARS_INDEX as u64 + 12));
    // An unknown codec in an index that is compressed.
    let base = fixture("files/blosc2-4/dtype_i4le.b2nd");
    let mut index = blosc2_chunk(0xc0, 8, 32, 32, 0, &[0; 8]);
    index.truncate(32);
    index[12..16].copy_from_slice(&32i32.to_le_bytes());
    let err = check(&frame_with_index(&base, &index, 64, 16)).unwrap_err();
    let FrameErrorKind::IndexChunk { error, .. } = err.kind() else {
        panic!("{err}")
    };
    assert!(
        matches!(
            error.kind,
            ChunkErrorKind::Unsupported {
                what: "codec format",
                value: 6
            }
        ),
        "{err}"
    );
    // The index's cbytes runs past the trailer.
    let mut bytes = fixture(SCALARS);
    bytes[SCALARS_INDEX + 12] = 49;
    assert_eq!(
        check(&bytes).unwrap_err().to_string(),
        "at byte 0x11e in the index chunk: expected cbytes at most 48 (the bytes before the trailer at byte 0x142), found 49"
    );
}

#[test]
fn a_compressed_index_is_read_a_block_at_a_time() {
    // 4096 chunks of zeros but one, compressed: shuffled into 8 streams a block, each a run
    // of one byte except the one that differs. blocksize 1024: 32 blocks.
    let base = fixture("files/blosc2-4/dtype_i4le.b2nd"); // chunksize 16
    let (nchunks, blocksize) = (4096usize, 1024usize);
    let mut offsets = vec![ZEROS; nchunks];
    offsets[1000] = (0x82u64 << 56) as i64; // NaNs
    let index = runs_index(&offsets, blocksize);
    let bytes = frame_with_index(&base, &index, (nchunks * 16) as i64, 16);
    let body = check(&bytes).unwrap();
    assert_eq!(
        (body.nchunks, body.special_chunks, body.index_len),
        (4096, 4096, index.len() as u64)
    );
    // An offset that is not special, in block 3: refused at the index's first byte, the offset
    // having no byte of its own in the file.
    offsets[3 * 128 + 5] = i64::MIN;
    let bytes = frame_with_index(&base, &runs_index(&offsets, blocksize), (nchunks * 16) as i64, 16);
    let err = check(&bytes).unwrap_err();
    assert_eq!(offset_error(&err), (165, Section::Body, Entry::Chunk(3 * 128 + 5)));
    // A block start past the chunk: the decoder's error, at its byte.
    let mut index = runs_index(&vec![ZEROS; nchunks], blocksize);
    let past = index.len() as i32;
    index[32 + 4 * 7..32 + 4 * 8].copy_from_slice(&past.to_le_bytes());
    let err = check(&frame_with_index(&base, &index, (nchunks * 16) as i64, 16)).unwrap_err();
    let FrameErrorKind::IndexChunk { error, .. } = err.kind() else {
        panic!("{err}")
    };
    assert!(
        matches!(error.kind, ChunkErrorKind::BlockStart { block: 7, .. }),
        "{err}"
    );
    assert_eq!(err.offset(), Some(165 + 32 + 4 * 7));
}

#[test]
fn an_index_whose_nbytes_disagrees_with_nbytes_over_chunksize_is_refused() {
    let mut bytes = fixture(SCALARS);
    // The header says 96 bytes in chunks of 32: three chunks, where the index holds two.
    set_i64(&mut bytes, NBYTES_AT, 96);
    let err = check(&bytes).unwrap_err();
    assert_eq!(
        offset_error(&err),
        (SCALARS_INDEX as u64 + 4, Section::Body, Entry::Index)
    );
    assert!(
        matches!(
            err.kind(),
            FrameErrorKind::IndexNbytes {
                found: 16,
                nchunks: Some(3),
                nbytes: 96,
                chunksize: 32
            }
        ),
        "{err}"
    );
    // 65 bytes: three chunks too (the last of one byte).
    set_i64(&mut bytes, NBYTES_AT, 65);
    assert!(matches!(
        check(&bytes).unwrap_err().kind(),
        FrameErrorKind::IndexNbytes { nchunks: Some(3), .. }
    ));
    // 33 bytes: two chunks, as the index says.
    set_i64(&mut bytes, NBYTES_AT, 33);
    assert_eq!(check(&bytes).unwrap().nchunks, 2);
    // nbytes 0: no chunks, but an index of two.
    set_i64(&mut bytes, NBYTES_AT, 0);
    assert_eq!(
        check(&bytes).unwrap_err().to_string(),
        "at byte 0x116 in the index chunk: expected nbytes 0 (no chunks: the header's nbytes 0, chunksize 32), found 16"
    );
    // chunksize 0 (chunks of varying sizes): the index gives the count, in whole offsets.
    let mut bytes = fixture(SCALARS);
    bytes[CHUNKSIZE_AT..CHUNKSIZE_AT + 4].copy_from_slice(&0i32.to_be_bytes());
    assert_eq!(check(&bytes).unwrap().nchunks, 2);
    let base = fixture("files/blosc2-4/dtype_i4le.b2nd");
    let index = blosc2_chunk(0x02, 8, 12, 12, 0, &[0; 12]);
    let err = check(&frame_with_index(&base, &index, 64, 0)).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            FrameErrorKind::IndexNbytes {
                found: 12,
                nchunks: None,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn an_index_of_no_offsets_is_an_index_of_no_chunks() {
    // c-blosc2 leaves an index of nbytes 0 when it deletes a frame's last chunk.
    let base = fixture("files/blosc2-4/dtype_i4le.b2nd");
    let empty = blosc2_chunk(0x02, 8, 0, 1, 0, &[]);
    let body = check(&frame_with_index(&base, &empty, 0, 16)).unwrap();
    assert_eq!((body.nchunks, body.index_len), (0, 32));
    // Without an index at all, no chunks either; with nbytes, the index is missing.
    let body = check(&frame_with_index(&base, &[], 0, 16)).unwrap();
    assert_eq!((body.nchunks, body.index_len), (0, 0));
    let err = check(&frame_with_index(&base, &[], 64, 16)).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            FrameErrorKind::IndexMissing {
                nchunks: 4,
                nbytes: 64,
                chunksize: 16
            }
        ),
        "{err}"
    );
    // A few bytes that are no chunk.
    let err = check(&frame_with_index(&base, &[5, 1, 7], 0, 16)).unwrap_err();
    let FrameErrorKind::IndexChunk { error, .. } = err.kind() else {
        panic!("{err}")
    };
    assert!(
        matches!(
            error.kind,
            ChunkErrorKind::Truncated {
                needed: 16,
                found: 3,
                ..
            }
        ),
        "{err}"
    );
    // An uninitialized index stores no offsets.
    let uninit = blosc2_chunk(0, 8, 32, 32, 0x40, &[]);
    let err = check(&frame_with_index(&base, &uninit, 64, 16)).unwrap_err();
    assert!(matches!(err.kind(), FrameErrorKind::IndexUninit), "{err}");
    assert_eq!(err.offset(), Some(165 + 31));
}

#[test]
fn a_sparse_frame_needs_its_chunk_files() {
    let tmp = temp_dir("sparse");
    let source = fixtures().join("files/blosc2-4/sparse_i4_2d.b2nd");
    let dir = tmp.path().join("sparse_i4_2d.b2nd");
    fs::create_dir(&dir).unwrap();
    for entry in fs::read_dir(&source).unwrap() {
        let entry = entry.unwrap();
        fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
    }
    assert_eq!(check_body(&dir).unwrap().nchunks, 4);
    fs::remove_file(dir.join("00000002.chunk")).unwrap();
    let err = check_body(&dir).unwrap_err();
    let place = err.place().unwrap();
    assert_eq!((place.section, place.entry.clone()), (Section::Body, Entry::Chunk(2)));
    let FrameErrorKind::ChunkOffset {
        stored: 2,
        miss: ChunkMiss::NoChunkFile { path, other: false },
    } = err.kind()
    else {
        panic!("{err}")
    };
    assert_eq!(path, &dir.join("00000002.chunk"));
    assert!(err.to_string().ends_with("00000002.chunk, which is missing"), "{err}");
    // A directory of that name is no chunk file.
    fs::create_dir(dir.join("00000002.chunk")).unwrap();
    let err = check_body(&dir).unwrap_err();
    assert!(matches!(
        err.kind(),
        FrameErrorKind::ChunkOffset {
            miss: ChunkMiss::NoChunkFile { other: true, .. },
            ..
        }
    ));
    // Without the directory, only the index is checked.
    let frame_file = fs::read(dir.join("chunks.b2frame")).unwrap();
    let body = check(&frame_file).unwrap();
    assert!(body.sparse && body.nchunks == 4);
    // A directory given with a contiguous frame.
    let contiguous = fixture(SCALARS);
    let frame = FrameRef::parse(&contiguous).unwrap();
    let err = check_body_from(Cursor::new(&contiguous), &frame, Some(&dir)).unwrap_err();
    assert!(
        matches!(err.kind(), FrameErrorKind::NotSparseFrameType { found: 0, .. }),
        "{err}"
    );
}

#[test]
fn frame_len_past_the_input_and_bytes_after_it() {
    let bytes = fixture(SCALARS);
    let frame = FrameRef::parse(&bytes).unwrap();
    // The reader given holds fewer bytes than the frame read from it.
    let err = check_body_from(Cursor::new(&bytes[..bytes.len() - 1]), &frame, None).unwrap_err();
    assert!(
        matches!(err.kind(), FrameErrorKind::PastInput { file: false, .. }),
        "{err}"
    );
    assert_eq!(err.offset(), Some(16));
    // Bytes after frame_len are left alone.
    let mut longer = bytes.clone();
    longer.extend_from_slice(&[0xff; 100]);
    assert_eq!(check(&longer).unwrap(), check(&bytes).unwrap());
}

#[test]
fn a_special_index_of_2_pow_31_bytes_is_checked_through_its_item() {
    // A repeated offset of a chunk of zeros through nbytes 2^31 - 8: 268435455 chunks, in a
    // 40-byte index. Checked in the time of one offset: were it written out (2 GiB) or walked
    // offset by offset, this would take seconds.
    let base = fixture("files/blosc2-4/dtype_i4le.b2nd");
    let nbytes = i32::MAX - 7;
    let index = blosc2_chunk(0, 8, nbytes, 1 << 20, 0x30, &ZEROS.to_le_bytes());
    let nchunks = (nbytes / 8) as i64;
    let bytes = frame_with_index(&base, &index, nchunks * 16, 16);
    let start = Instant::now();
    let body = check(&bytes).unwrap();
    assert!(start.elapsed() < Duration::from_millis(200), "{:?}", start.elapsed());
    assert_eq!((body.nchunks, body.special_chunks), (nchunks as u64, nchunks as u64));
    // The same index repeating an offset with bytes: every chunk would be the same one, more
    // than the data (none) holds.
    let index = blosc2_chunk(0, 8, nbytes, 1 << 20, 0x30, &0i64.to_le_bytes());
    let err = check(&frame_with_index(&base, &index, nchunks * 16, 16)).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            FrameErrorKind::ChunkOffset {
                miss: ChunkMiss::PastData { cbytes: 0 },
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn a_repeated_value_of_several_offsets() {
    // A special index whose item is 16 bytes: the offsets alternate, a chunk of zeros and an
    // offset past the data, which is found at chunk 1.
    let base = fixture("files/blosc2-4/dtype_i4le.b2nd");
    let mut item = ZEROS.to_le_bytes().to_vec();
    item.extend_from_slice(&7i64.to_le_bytes());
    let index = blosc2_chunk(0, 16, 64, 64, 0x30, &item);
    let err = check(&frame_with_index(&base, &index, 8 * 16, 16)).unwrap_err();
    assert_eq!(offset_error(&err), (165, Section::Body, Entry::Chunk(1)));
    // An item of 12 bytes: the offsets repeat every 3 (lcm(12, 8) = 24 bytes). Offset 0 is
    // the item's bytes 0..8, a chunk of zeros; offset 1 its bytes 8..12 then 0..4, all zero:
    // offset 0, which the data (none) does not hold.
    let mut item = Vec::new();
    item.extend_from_slice(&ZEROS.to_le_bytes());
    item.extend_from_slice(&ZEROS.to_le_bytes()[..4]);
    let index = blosc2_chunk(0, 12, 48, 48, 0x30, &item);
    let err = check(&frame_with_index(&base, &index, 6 * 16, 16)).unwrap_err();
    assert_eq!(err.place().unwrap().entry, Entry::Chunk(1), "{err}");
}

#[test]
fn more_chunks_than_the_data_can_hold() {
    // Two chunks of 64 bytes: 128 bytes hold at most 8 chunks of 16 bytes. An index (memcpyed)
    // of 9 offsets, all of chunk 0, names one too many.
    let bytes = fixture(SCALARS);
    let hl = header_len(&bytes);
    let read = FrameRef::parse(&bytes).unwrap();
    let offsets: Vec<u8> = [0i64; 9].iter().flat_map(|o| o.to_le_bytes()).collect();
    let index = blosc2_chunk(0x02, 8, 72, 72, 0, &offsets);
    let mut out = bytes[..hl + 128].to_vec();
    set_i64(&mut out, NBYTES_AT, 9 * 32 - 1);
    out.extend_from_slice(&index);
    out.extend_from_slice(&bytes[read.trailer.offset as usize..]);
    // The trailer's vlmetalayer offsets are from its start: it moves as a whole.
    let len = out.len() as u64;
    out[FRAME_LEN_AT..FRAME_LEN_AT + 8].copy_from_slice(&len.to_be_bytes());
    let err = check(&out).unwrap_err();
    assert_eq!(
        offset_error(&err),
        ((hl + 128 + 32 + 8 * 8) as u64, Section::Body, Entry::Chunk(8))
    );
    assert!(
        matches!(
            err.kind(),
            FrameErrorKind::ChunkOffset {
                miss: ChunkMiss::TooMany { max: 8, cbytes: 128 },
                ..
            }
        ),
        "{err}"
    );
    // Eight are read (the same 16 bytes, once).
    set_i64(&mut out, NBYTES_AT, 8 * 32);
    let offsets: Vec<u8> = [0i64; 8].iter().flat_map(|o| o.to_le_bytes()).collect();
    let index8 = blosc2_chunk(0x02, 8, 64, 64, 0, &offsets);
    let mut eight = out[..hl + 128].to_vec();
    eight.extend_from_slice(&index8);
    eight.extend_from_slice(&bytes[read.trailer.offset as usize..]);
    let len = eight.len() as u64;
    eight[FRAME_LEN_AT..FRAME_LEN_AT + 8].copy_from_slice(&len.to_be_bytes());
    assert_eq!(check(&eight).unwrap().nchunks, 8);
}

#[test]
fn no_single_byte_change_of_a_body_panics() {
    // Every value of every byte between the header and the trailer, in frames with a
    // memcpyed index, a special one, a compressed one and chunks: an error or a body, and the
    // body's counts within the frame's.
    let base = fixture("files/blosc2-4/dtype_i4le.b2nd");
    let mut offsets = vec![ZEROS; 64];
    offsets[5] = (0x82u64 << 56) as i64;
    let frames = [
        fixture(SCALARS),
        fixture("files/caterva-0.7/ndim4.cat"),
        fixture("files/blosc2-4/dtype_f8le.b2nd"),
        frame_with_index(&base, &runs_index(&offsets, 128), 64 * 16, 16),
    ];
    for bytes in frames {
        let read = FrameRef::parse(&bytes).unwrap();
        let (start, end) = (read.header.header_len, read.trailer.offset as usize);
        let mut copy = bytes.clone();
        for at in start..end {
            for value in 0..=255u8 {
                copy[at] = value;
                if let Ok(body) = check(&copy) {
                    assert!(body.special_chunks <= body.nchunks);
                    assert!(body.data_end + body.index_len <= end as u64);
                }
            }
            copy[at] = bytes[at];
        }
    }
}

#[test]
fn the_messages_not_shown_above() {
    let base = fixture("files/blosc2-4/dtype_i4le.b2nd");
    // A frame type other than 0 and 1.
    let mut bytes = base.clone();
    bytes[0x1a] = 7;
    assert_eq!(
        check(&bytes).unwrap_err().to_string(),
        "at byte 0x1a: expected frame type 0 (contiguous) or 1 (sparse), found 7"
    );
    // An uninitialized index.
    let uninit = blosc2_chunk(0, 8, 32, 32, 0x40, &[]);
    assert_eq!(
        check(&frame_with_index(&base, &uninit, 64, 16))
            .unwrap_err()
            .to_string(),
        "at byte 0xc4 in the index chunk: expected the chunks' offsets, found a special chunk of uninitialized values, which stores none"
    );
    // Chunks of varying sizes, and an index of 12 bytes.
    let index = blosc2_chunk(0x02, 8, 12, 12, 0, &[0; 12]);
    assert_eq!(
        check(&frame_with_index(&base, &index, 64, 0)).unwrap_err().to_string(),
        "at byte 0xa9 in the index chunk: expected nbytes a multiple of 8 (an int64 offset for each chunk; chunksize 0: chunks of varying sizes), found 12"
    );
    // One chunk too many: a special index repeating offset 0 of a frame of 32 bytes of
    // chunks (at most 2), 3 times.
    let scalars = fixture(SCALARS);
    let read = FrameRef::parse(&scalars).unwrap();
    let mut bytes = scalars[..146 + 32].to_vec();
    set_i64(&mut bytes, CBYTES_AT, 32);
    set_i64(&mut bytes, NBYTES_AT, 3 * 32);
    bytes.extend_from_slice(&blosc2_chunk(0, 8, 24, 24, 0x30, &0i64.to_le_bytes()));
    bytes.extend_from_slice(&scalars[read.trailer.offset as usize..]);
    let len = bytes.len() as u64;
    bytes[FRAME_LEN_AT..FRAME_LEN_AT + 8].copy_from_slice(&len.to_be_bytes());
    // Chunk 0 of scalars.b2nd is 64 bytes: it does not fit in 32. Make it say 32.
    bytes[146 + 12] = 32;
    let err = check(&bytes).unwrap_err();
    assert_eq!(
        err.to_string(),
        "at byte 0xb2 (chunk 2): offset 0 is one chunk too many: cbytes 32 holds at most 2 chunks (16 bytes each at least), and the index lists more"
    );
    // A missing chunk file, named with its path.
    let tmp = temp_dir("messages");
    let dir = tmp.path().join("s.b2nd");
    fs::create_dir(&dir).unwrap();
    fs::copy(
        fixtures().join("files/blosc2-4/sparse_i4_2d.b2nd/chunks.b2frame"),
        dir.join("chunks.b2frame"),
    )
    .unwrap();
    let err = check_body(&dir).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "at byte 0xc5 (chunk 0): offset 0 names the chunk file {}, which is missing",
            dir.join("00000000.chunk").display()
        )
    );
}
