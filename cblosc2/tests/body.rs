//! `metalayer::frame::check_body` against c-blosc2's own reader (the vendored 2.15):
//!
//! - every fixture frame (files, sparse-frame directories, members of `.b2z` stores) passes,
//!   with the number of chunks c-blosc2 counts (`blosc2_schunk_open`, `schunk->nchunks`);
//! - frames c-blosc2 writes here, contiguous and sparse, with a compressed index, special
//!   chunks, and chunks deleted, updated in place and at the end, and inserted, pass with its
//!   count;
//! - lies made by hand in those frames are refused by the check and by c-blosc2: it cannot
//!   open the frame or read one of its chunks (the independent judge of each lie);
//! - the lies the check refuses that c-blosc2 2.15 still reads, or crashes on, are listed.

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::ptr;
use std::sync::Once;

use metalayer::frame::{Body, ChunkMiss, Entry, FrameErrorKind, check_body, check_body_at};
use metalayer::vlmeta::ChunkErrorKind;
use metalayer_cblosc2::Schunk;
use serde_json::Value;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures");

fn fixture(rel: &str) -> PathBuf {
    Path::new(FIXTURES).join(rel)
}

/// A fresh directory of the test's own (created exclusively, under a random name), removed on
/// drop.
struct TempDir(tempfile::TempDir);

impl TempDir {
    fn new(tag: &str) -> Self {
        let dir = tempfile::Builder::new()
            .prefix(&format!("metalayer-cblosc2-body-{tag}-"))
            .tempdir()
            .unwrap();
        TempDir(dir)
    }

    fn path(&self) -> &Path {
        self.0.path()
    }

    fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

/// Whether c-blosc2 refuses the frame at `path`: it does not open it, or one of the chunks it
/// counts does not read.
fn c_refuses(path: &Path) -> bool {
    match Schunk::open(path) {
        Err(_) => true,
        Ok(schunk) => (0..schunk.nchunks()).any(|n| schunk.chunk(n).is_err()),
    }
}

// ---------------------------------------------------------------------------------------------
// Every fixture
// ---------------------------------------------------------------------------------------------

#[test]
fn every_fixture_frame_has_the_chunks_c_blosc2_counts() {
    let text = std::fs::read_to_string(fixture("expected.json")).unwrap();
    let records: Value = serde_json::from_str(&text).unwrap();
    let (mut frames, mut members, mut chunks) = (0, 0, 0);
    let mut varying = Vec::new();
    for record in records.as_array().unwrap() {
        let rel = record["path"].as_str().unwrap();
        if record.get("store").is_some() {
            if record["store"] == "zip" {
                for member in record["members"].as_array().unwrap() {
                    let offset = member["offset"].as_u64().unwrap();
                    let body = check_body_at(fixture(rel), offset, member["size"].as_u64().unwrap())
                        .unwrap_or_else(|e| panic!("{rel} {}: {e}", member["name"]));
                    let c = Schunk::open_offset(fixture(rel), offset).unwrap();
                    assert_eq!(body.nchunks as i64, c.nchunks(), "{rel} {}", member["name"]);
                    members += 1;
                }
            }
            continue;
        }
        let body = check_body(fixture(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let c = Schunk::open(fixture(rel)).unwrap_or_else(|e| panic!("{rel}: c-blosc2: {e}"));
        frames += 1;
        chunks += body.nchunks;
        let chunksize = record
            .get("header")
            .and_then(|h| h.get("chunksize"))
            .and_then(Value::as_i64);
        if chunksize == Some(0) && body.nchunks > 0 {
            // Chunks of varying sizes: c-blosc2 2.15 counts none (it counts only from nbytes /
            // chunksize); python-blosc2 4.14.1 (c-blosc2 3.3.5) counted the index's.
            assert_eq!(c.nchunks(), 0, "{rel}");
            assert_eq!(Some(body.nchunks), record["header"]["nchunks"].as_u64(), "{rel}");
            varying.push(rel.to_owned());
            continue;
        }
        assert_eq!(body.nchunks as i64, c.nchunks(), "{rel}: nchunks");
    }
    assert!(frames >= 220 && members >= 30, "{frames} {members}");
    assert!(chunks > 8_000_000, "{chunks}");
    assert_eq!(varying, ["files/blosc2-4-own/objectarray.b2f"]);
}

// ---------------------------------------------------------------------------------------------
// Frames c-blosc2 writes
// ---------------------------------------------------------------------------------------------

static INIT: Once = Once::new();

/// `blosc2_schunk_new`'s compression parameters: BloscLZ, clevel 5, shuffle, typesize 4.
fn cparams() -> blosc2_src::blosc2_cparams {
    blosc2_src::blosc2_cparams {
        typesize: 4,
        nthreads: 1,
        ..blosc2_src::BLOSC2_CPARAMS_DEFAULTS
    }
}

/// A chunk c-blosc2 compresses from `data`.
fn c_chunk(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; data.len() + 32];
    // SAFETY: a context made from complete parameters, used once and freed; the source and
    // destination are valid for the lengths given, the destination holds the largest chunk.
    let len = unsafe {
        let ctx = blosc2_src::blosc2_create_cctx(cparams());
        let len = blosc2_src::blosc2_compress_ctx(
            ctx,
            data.as_ptr().cast(),
            data.len() as i32,
            out.as_mut_ptr().cast(),
            out.len() as i32,
        );
        blosc2_src::blosc2_free_ctx(ctx);
        len
    };
    assert!(len > 0, "{len}");
    out.truncate(len as usize);
    out
}

/// A special chunk of zeros, as c-blosc2 makes it.
fn c_zeros(nbytes: i32) -> Vec<u8> {
    let mut out = vec![0u8; 32];
    // SAFETY: the destination holds the 32 bytes of a special chunk.
    let len = unsafe { blosc2_src::blosc2_chunk_zeros(cparams(), nbytes, out.as_mut_ptr().cast(), 32) };
    assert_eq!(len, 32);
    out
}

/// 1024 bytes for chunk `n`: compressible for even `n`, not for odd.
fn data(n: usize) -> Vec<u8> {
    let mut state = (n as u64).wrapping_mul(6364136223846793005).wrapping_add(1);
    (0..256u32)
        .flat_map(|i| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let v = if n.is_multiple_of(2) {
                i / 16
            } else {
                (state >> 33) as u32
            };
            v.to_le_bytes()
        })
        .collect()
}

/// Writes a frame at `path` with c-blosc2: 300 chunks of 1024 bytes, every tenth a special
/// chunk of zeros; then chunk 5 deleted (its bytes left where they were), chunk 8 replaced by a
/// larger one (written after the others), chunk 9 by a smaller one (written in its place),
/// chunk 11 by zeros, and a chunk inserted at 3. Returns, chunk by chunk, whether it is
/// special, as the same steps leave it.
fn c_write(path: &Path, contiguous: bool) -> Vec<bool> {
    INIT.call_once(|| unsafe { blosc2_src::blosc2_init() });
    let c_path = CString::new(path.to_str().unwrap()).unwrap();
    let mut cparams = cparams();
    let mut dparams = blosc2_src::BLOSC2_DPARAMS_DEFAULTS;
    let mut storage = blosc2_src::blosc2_storage {
        contiguous,
        urlpath: c_path.as_ptr().cast_mut(),
        cparams: &mut cparams,
        dparams: &mut dparams,
        io: ptr::null_mut(),
    };
    let zeros = c_zeros(1024);
    let (larger, smaller, inserted) = (c_chunk(&data(1)), c_chunk(&data(0)), c_chunk(&data(2)));
    assert!(larger.len() > smaller.len() + 100, "{} {}", larger.len(), smaller.len());
    let mut special: Vec<bool> = (0..300).map(|n: usize| n.is_multiple_of(10)).collect();
    // SAFETY: the storage's pointers live through the calls; every chunk handed over is
    // copied by c-blosc2 (`copy` true) or is a buffer it compresses; the schunk is freed once.
    unsafe {
        let schunk = blosc2_src::blosc2_schunk_new(&mut storage);
        assert!(!schunk.is_null());
        for (n, &zero) in special.iter().enumerate() {
            let rc = if zero {
                blosc2_src::blosc2_schunk_append_chunk(schunk, zeros.as_ptr().cast_mut(), true)
            } else {
                let d = data(n);
                blosc2_src::blosc2_schunk_append_buffer(schunk, d.as_ptr().cast_mut().cast(), d.len() as i32)
            };
            assert!(rc > 0, "append {n}: {rc}");
        }
        assert!(blosc2_src::blosc2_schunk_delete_chunk(schunk, 5) >= 0);
        special.remove(5);
        for (n, chunk, zero) in [(8, &larger, false), (9, &smaller, false), (11, &zeros, true)] {
            assert!(blosc2_src::blosc2_schunk_update_chunk(schunk, n, chunk.as_ptr().cast_mut(), true) >= 0);
            special[n as usize] = zero;
        }
        assert!(blosc2_src::blosc2_schunk_insert_chunk(schunk, 3, inserted.as_ptr().cast_mut(), true) >= 0);
        special.insert(3, false);
        blosc2_src::blosc2_schunk_free(schunk);
    }
    special
}

/// The index chunk's header bytes 2 (flags) and 31 (Blosc2 flags).
fn index_flags(frame_file: &[u8], body: &Body) -> (u8, u8) {
    let at = body.index_offset as usize;
    (frame_file[at + 2], frame_file[at + 31])
}

#[test]
fn frames_c_blosc2_writes_pass_with_its_count() {
    let tmp = TempDir::new("written");
    for contiguous in [true, false] {
        let path = tmp.path().join(if contiguous { "c.b2frame" } else { "s.b2frame" });
        let special = c_write(&path, contiguous);
        let body = check_body(&path).unwrap_or_else(|e| panic!("contiguous {contiguous}: {e}"));
        let c = Schunk::open(&path).unwrap();
        assert_eq!((body.nchunks, c.nchunks()), (300, 300));
        let zeros = special.iter().filter(|&&z| z).count() as u64;
        assert_eq!((body.special_chunks, zeros), (30, 30), "contiguous {contiguous}");
        assert_eq!(body.sparse, !contiguous);
        assert!(!c_refuses(&path));
        // The index is compressed: neither memcpyed (flags bit 1) nor special.
        let frame_file = if contiguous {
            path.clone()
        } else {
            path.join("chunks.b2frame")
        };
        let (flags, blosc2_flags) = index_flags(&std::fs::read(&frame_file).unwrap(), &body);
        assert_eq!((flags & 0x02, blosc2_flags & 0x70), (0, 0), "contiguous {contiguous}");
        assert!(body.index_len < 300 * 8, "{body:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Lies: refused by the check and by c-blosc2
// ---------------------------------------------------------------------------------------------

/// python-blosc2 4.x: two chunks of 64 bytes after a 146-byte header, then an index stored
/// uncompressed (memcpyed): a 32-byte chunk header and the offsets 0 and 64.
const SCALARS: &str = "files/blosc2-4-vlmeta/scalars.b2nd";
const INDEX: usize = 146 + 128;

/// The name of what the check found, for the table of lies.
fn kind_name(kind: &FrameErrorKind) -> &'static str {
    match kind {
        FrameErrorKind::ChunkOffset { miss, .. } => match miss {
            ChunkMiss::PastData { .. } => "offset past the data",
            ChunkMiss::ChunkPastData { .. } => "chunk past the data",
            ChunkMiss::NotSpecial => "not special",
            ChunkMiss::TooMany { .. } => "too many",
            _ => "chunk file",
        },
        FrameErrorKind::CbytesPastTrailer { .. } => "cbytes past the trailer",
        FrameErrorKind::IndexChunk { error, .. } => match error.kind {
            ChunkErrorKind::BlockStart { .. } => "index block start",
            _ => "index chunk",
        },
        FrameErrorKind::IndexNbytes { .. } => "index nbytes",
        FrameErrorKind::IndexPastTrailer { .. } => "index past the trailer",
        _ => "other",
    }
}

fn set_le(bytes: &mut [u8], at: usize, value: i64) {
    bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

fn set_be(bytes: &mut [u8], at: usize, value: i64) {
    bytes[at..at + 8].copy_from_slice(&value.to_be_bytes());
}

/// A change to a frame's bytes.
type Edit = Box<dyn Fn(&mut Vec<u8>)>;

#[test]
fn lies_refused_by_the_check_and_by_c_blosc2() {
    let tmp = TempDir::new("lies");
    let scalars = std::fs::read(fixture(SCALARS)).unwrap();
    let (index, chunk1) = (INDEX as u64, 146 + 64);
    // What, where the check refuses it, what it finds, and the change to scalars.b2nd.
    let lies: Vec<(&str, u64, &str, Edit)> = vec![
        (
            "an offset past the data",
            index + 40,
            "offset past the data",
            Box::new(|b| set_le(b, INDEX + 40, 500)),
        ),
        (
            "an offset past the frame",
            index + 40,
            "offset past the data",
            Box::new(|b| set_le(b, INDEX + 40, 2000)),
        ),
        (
            "an offset 15 bytes before the data's end",
            index + 40,
            "offset past the data",
            Box::new(|b| set_le(b, INDEX + 40, 113)),
        ),
        (
            "an offset into a chunk's data",
            146 + 112 + 12,
            "chunk past the data",
            Box::new(|b| set_le(b, INDEX + 40, 112)),
        ),
        (
            "a chunk's cbytes one past the data",
            chunk1 + 12,
            "chunk past the data",
            Box::new(|b| b[146 + 64 + 12] = 65),
        ),
        (
            "a chunk's cbytes past the file",
            chunk1 + 12,
            "chunk past the data",
            Box::new(|b| b[146 + 64 + 15] = 0x40),
        ),
        (
            "a negative offset of no special value",
            index + 32,
            "not special",
            Box::new(|b| set_le(b, INDEX + 32, i64::MIN)),
        ),
        (
            "cbytes raised past the trailer",
            0x27,
            "cbytes past the trailer",
            Box::new(|b| set_be(b, 0x27, 177)),
        ),
        (
            "cbytes raised past the file",
            0x27,
            "cbytes past the trailer",
            Box::new(|b| set_be(b, 0x27, 1128)),
        ),
        (
            "cbytes raised by one",
            index + 1 + 12,
            "index chunk",
            Box::new(|b| set_be(b, 0x27, 129)),
        ),
        (
            "cbytes lowered by one",
            index - 1,
            "index chunk",
            Box::new(|b| set_be(b, 0x27, 127)),
        ),
        (
            "cbytes lowered by a chunk",
            chunk1 + 4,
            "index nbytes",
            Box::new(|b| set_be(b, 0x27, 64)),
        ),
        (
            "cbytes lowered to 0",
            146 + 4,
            "index nbytes",
            Box::new(|b| set_be(b, 0x27, 0)),
        ),
        (
            "the index's cbytes past the trailer",
            index + 12,
            "index past the trailer",
            Box::new(|b| b[INDEX + 12] = 49),
        ),
        (
            "nbytes of three chunks, an index of two",
            index + 4,
            "index nbytes",
            Box::new(|b| set_be(b, 0x1e, 96)),
        ),
    ];
    for (i, (what, at, kind, edit)) in lies.iter().enumerate() {
        let mut bytes = scalars.clone();
        edit(&mut bytes);
        let path = tmp.file(&format!("{i}.b2nd"), &bytes);
        let err = check_body(&path).expect_err(what);
        assert_eq!(
            (err.offset(), kind_name(err.kind())),
            (Some(*at), *kind),
            "{what}: {err}"
        );
        assert!(c_refuses(&path), "{what}: c-blosc2 reads it");
    }

    // A frame c-blosc2 writes, its index compressed: the first block's start pointed past the
    // chunk.
    let written = tmp.path().join("written.b2frame");
    c_write(&written, true);
    let mut bytes = std::fs::read(&written).unwrap();
    let body = check_body(&written).unwrap();
    let at = body.index_offset as usize + 32;
    let past = body.index_len as i32 + 100;
    bytes[at..at + 4].copy_from_slice(&past.to_le_bytes());
    let path = tmp.file("written-lie.b2frame", &bytes);
    let err = check_body(&path).unwrap_err();
    assert_eq!(
        (err.offset(), kind_name(err.kind())),
        (Some(at as u64), "index block start"),
        "{err}"
    );
    assert!(c_refuses(&path), "c-blosc2 reads a block past the index's end");

    // A sparse frame without one of its chunk files.
    let dir = tmp.path().join("sparse.b2nd");
    std::fs::create_dir(&dir).unwrap();
    for entry in std::fs::read_dir(fixture("files/blosc2-4/sparse_i4_2d.b2nd")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
    }
    assert!(!c_refuses(&dir));
    std::fs::remove_file(dir.join("00000001.chunk")).unwrap();
    let err = check_body(&dir).unwrap_err();
    assert_eq!(err.place().unwrap().entry, Entry::Chunk(1));
    assert!(
        matches!(
            err.kind(),
            FrameErrorKind::ChunkOffset {
                miss: ChunkMiss::NoChunkFile { other: false, .. },
                ..
            }
        ),
        "{err}"
    );
    assert!(c_refuses(&dir), "c-blosc2 reads a sparse frame without its chunk 1");
}

#[test]
fn lies_the_check_refuses_that_c_blosc2_reads() {
    // c-blosc2 2.15 reads each of these as if nothing were wrong; the check refuses them, as
    // no release writes them. (Two more lies are not shown to c-blosc2 2.15, which crashes on
    // them: cbytes -1, and nbytes 0 with an index of two chunks.)
    let tmp = TempDir::new("lax");
    let scalars = std::fs::read(fixture(SCALARS)).unwrap();
    type Edit = fn(&mut Vec<u8>);
    let cases: [(&str, Edit); 3] = [
        // An index chunk whose format version is 0.
        ("index version 0", |b| b[INDEX] = 0),
        // A memcpyed index whose cbytes is one short of its header and nbytes.
        ("index cbytes 47", |b| b[INDEX + 12] = 47),
        // Chunk 1's offset is chunk 0's: the same chunk twice, which c-blosc2 reads twice. The
        // check refuses it only past cbytes / 16 such offsets (here 8): see tests/frame_body.rs.
        ("the same chunk twice", |b| {
            b[INDEX + 40..INDEX + 48].copy_from_slice(&0i64.to_le_bytes())
        }),
    ];
    for (i, (what, edit)) in cases.into_iter().enumerate() {
        let mut bytes = scalars.clone();
        edit(&mut bytes);
        let path = tmp.file(&format!("{i}.b2nd"), &bytes);
        assert!(!c_refuses(&path), "{what}: c-blosc2 refuses it");
        let refused = check_body(&path).is_err();
        assert_eq!(refused, i < 2, "{what}");
    }
}
