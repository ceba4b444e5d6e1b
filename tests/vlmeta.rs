//! `metalayer::vlmeta`: the Blosc2 chunks of variable-length metalayers.
//!
//! - every vlmetalayer chunk of the python-blosc2 fixtures decompresses to the bytes
//!   python-blosc2 read back (`expected.json`);
//! - chunks that c-blosc2 itself compresses (through `blosc2-src`: BloscLZ, LZ4, LZ4HC, with
//!   shuffle, bitshuffle, delta, split or not, several blocks) decompress to c-blosc2's input;
//! - streams and chunks made by hand from the chunk format (runs, stored streams, special
//!   chunks);
//! - hostile chunks: truncations, lying sizes, every value of every header byte, every value of
//!   every byte of small chunks, unknown codecs, filters and flags: an error, or exactly
//!   `nbytes` bytes, and never a panic;
//! - `decompress_blocks`, on all of these, gives the same error or the same bytes, a block at a
//!   time.

mod common;

use std::fs;
use std::path::Path;
use std::sync::Once;

use common::unhex;
use metalayer::vlmeta::{
    ChunkError, ChunkErrorKind, ChunkHeader, Codec, DEFAULT_LIMIT, SPECIAL_PIECE, Special, StreamFailure, decompress,
    decompress_blocks, special_item,
};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// One vlmetalayer of `expected.json`.
struct Recorded {
    what: String,
    chunk: Vec<u8>,
    header: Value,
    raw_len: usize,
    raw_hex: Option<String>,
    raw_head_hex: Option<String>,
    raw_sha256: String,
}

fn recorded() -> Vec<Recorded> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/expected.json");
    let records: Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    let mut out = Vec::new();
    for record in records.as_array().unwrap() {
        let Some(layers) = record.get("vlmetalayers").and_then(Value::as_array) else {
            continue;
        };
        for layer in layers {
            let text = |key: &str| layer[key].as_str().map(str::to_owned);
            out.push(Recorded {
                what: format!(
                    "{} {}",
                    record["path"].as_str().unwrap(),
                    layer["name"].as_str().unwrap()
                ),
                chunk: unhex(layer["chunk_hex"].as_str().expect("every chunk is recorded in hex")),
                header: layer["chunk"].clone(),
                raw_len: layer["raw_len"].as_u64().unwrap() as usize,
                raw_hex: text("raw_hex"),
                raw_head_hex: text("raw_head_hex"),
                raw_sha256: text("raw_sha256").unwrap(),
            });
        }
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn le32(chunk: &[u8], at: usize) -> i32 {
    i32::from_le_bytes(chunk[at..at + 4].try_into().unwrap())
}

fn set32(chunk: &mut [u8], at: usize, value: i32) {
    chunk[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

/// `decompress_blocks`' pieces, joined, and their sizes.
fn blocks(chunk: &[u8], limit: usize) -> Result<(Vec<u8>, Vec<usize>), ChunkError> {
    let (mut out, mut sizes) = (Vec::new(), Vec::new());
    decompress_blocks(chunk, limit, |piece: &[u8]| {
        assert!(!piece.is_empty(), "an empty piece");
        out.extend_from_slice(piece);
        sizes.push(piece.len());
        Ok::<(), ChunkError>(())
    })?;
    Ok((out, sizes))
}

/// What a decode of a chunk, hostile or not, may give: an error, or exactly the `nbytes` its
/// header states; `decompress_blocks` gives the same, a block at a time.
fn check_outcome(chunk: &[u8], limit: usize, what: &str) {
    let whole = decompress(chunk, limit);
    assert_eq!(
        blocks(chunk, limit).map(|(out, _)| out),
        whole,
        "{what}: decompress_blocks disagrees with decompress"
    );
    if let Ok(out) = whole {
        let nbytes = le32(chunk, 4);
        assert_eq!(
            out.len() as i64,
            i64::from(nbytes),
            "{what}: output length is not nbytes"
        );
        assert!(out.len() <= limit, "{what}: output above the limit");
    }
}

#[test]
fn every_recorded_vlmetalayer_chunk_decompresses_to_what_python_blosc2_read() {
    let all = recorded();
    let mut by_codec = std::collections::BTreeMap::<(String, bool), usize>::new();
    for r in &all {
        let header = ChunkHeader::parse(&r.chunk).unwrap_or_else(|e| panic!("{}: {e}", r.what));
        let h = &r.header;
        assert_eq!(u64::from(header.version), h["version"].as_u64().unwrap(), "{}", r.what);
        assert_eq!(
            u64::from(header.versionlz),
            h["versionlz"].as_u64().unwrap(),
            "{}",
            r.what
        );
        assert_eq!(u64::from(header.flags), h["flags"].as_u64().unwrap(), "{}", r.what);
        assert_eq!(
            u64::from(header.typesize),
            h["typesize"].as_u64().unwrap(),
            "{}",
            r.what
        );
        assert_eq!(header.nbytes as u64, h["nbytes"].as_u64().unwrap(), "{}", r.what);
        assert_eq!(header.blocksize as u64, h["blocksize"].as_u64().unwrap(), "{}", r.what);
        assert_eq!(header.cbytes as u64, h["cbytes"].as_u64().unwrap(), "{}", r.what);
        assert_eq!(header.memcpyed(), h["memcpyed"].as_bool().unwrap(), "{}", r.what);
        assert_eq!(header.extended, h["extended"].as_bool().unwrap(), "{}", r.what);
        assert_eq!(
            u64::from(header.blosc2_flags),
            h["blosc2_flags"].as_u64().unwrap(),
            "{}",
            r.what
        );
        assert_eq!(
            u64::from(header.flags >> 5),
            h["compformat"].as_u64().unwrap(),
            "{}",
            r.what
        );
        assert_eq!(header.special(), Ok(Special::None), "{}", r.what);

        let out = decompress(&r.chunk, DEFAULT_LIMIT).unwrap_or_else(|e| panic!("{}: {e}", r.what));
        assert_eq!(out.len(), r.raw_len, "{}", r.what);
        match (&r.raw_hex, &r.raw_head_hex) {
            (Some(raw), _) => assert_eq!(hex(&out), *raw, "{}", r.what),
            (None, Some(head)) => assert_eq!(hex(&out[..32]), *head, "{}", r.what),
            (None, None) => panic!("{}: neither raw_hex nor raw_head_hex", r.what),
        }
        assert_eq!(hex(&Sha256::digest(&out)), r.raw_sha256, "{}", r.what);
        // The exact limit is enough; one byte less is not.
        assert_eq!(decompress(&r.chunk, r.raw_len).as_deref(), Ok(&out[..]), "{}", r.what);
        if r.raw_len > 0 {
            let err = decompress(&r.chunk, r.raw_len - 1).unwrap_err();
            assert_eq!(err.offset, 4, "{}", r.what);
            assert_eq!(
                err.kind,
                ChunkErrorKind::Limit {
                    nbytes: r.raw_len,
                    limit: r.raw_len - 1
                }
            );
        }
        *by_codec
            .entry((header.codec().name().to_owned(), header.memcpyed()))
            .or_default() += 1;
    }
    // The fixtures hold compressed chunks of each codec python-blosc2 writes, and memcpyed ones.
    let count = |codec: &str, memcpyed: bool| by_codec.get(&(codec.to_owned(), memcpyed)).copied().unwrap_or(0);
    assert_eq!(all.len(), 319, "{by_codec:?}");
    assert!(count("blosclz", true) > 100, "{by_codec:?}");
    for codec in ["blosclz", "lz4", "zlib", "zstd"] {
        assert!(count(codec, false) >= 2, "no compressed {codec} chunk: {by_codec:?}");
    }
}

#[test]
fn the_recorded_chunks_cover_several_blocks_and_split_streams() {
    // What the fixture test above exercises, so that it cannot silently shrink.
    let all = recorded();
    let multi_block = all
        .iter()
        .filter(|r| {
            let h = ChunkHeader::parse(&r.chunk).unwrap();
            !h.memcpyed() && h.nbytes > h.blocksize
        })
        .count();
    let split = all
        .iter()
        .filter(|r| {
            let h = ChunkHeader::parse(&r.chunk).unwrap();
            !h.memcpyed() && h.typesize > 1 && h.flags & 0x10 == 0
        })
        .count();
    let shuffled = all
        .iter()
        .filter(|r| {
            let h = ChunkHeader::parse(&r.chunk).unwrap();
            !h.memcpyed() && h.typesize > 1 && h.filters.contains(&1)
        })
        .count();
    assert!(multi_block >= 10, "{multi_block}");
    assert!(split >= 1, "{split}");
    assert!(shuffled >= 2, "{shuffled}");
}

/// A few small recorded chunks: one compressed chunk of each codec, one memcpyed, one of
/// several blocks, one shuffled with split streams.
fn small_samples() -> Vec<Recorded> {
    let mut picked: Vec<Recorded> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for r in recorded() {
        let h = ChunkHeader::parse(&r.chunk).unwrap();
        let key = (h.flags, h.typesize, h.nbytes > h.blocksize);
        if r.chunk.len() <= 400 && h.nbytes <= 4096 && seen.insert(key) {
            picked.push(r);
        }
    }
    assert!(picked.len() >= 8, "{}", picked.len());
    picked
}

#[test]
fn a_chunk_truncated_anywhere_is_an_error() {
    for r in small_samples() {
        for len in 0..r.chunk.len() {
            let cut = &r.chunk[..len];
            let err = decompress(cut, DEFAULT_LIMIT).unwrap_err();
            if len < 16 {
                assert_eq!(err.offset, 0, "{} cut at {len}: {err}", r.what);
                assert!(
                    matches!(err.kind, ChunkErrorKind::Truncated { needed: 16, .. }),
                    "{err}"
                );
            } else if len < 32 && r.chunk[2] & 0x05 == 0x05 {
                assert!(
                    matches!(err.kind, ChunkErrorKind::Truncated { needed: 32, .. }),
                    "{err}"
                );
            } else {
                assert_eq!(err.offset, 12, "{} cut at {len}: {err}", r.what);
                assert_eq!(
                    err.kind,
                    ChunkErrorKind::Length {
                        expected: len,
                        found: r.chunk.len()
                    }
                );
            }
            // With cbytes saying the truncated length, the chunk still lacks data.
            if len >= 32 {
                let mut lying = cut.to_vec();
                set32(&mut lying, 12, len as i32);
                let err = decompress(&lying, DEFAULT_LIMIT).unwrap_err();
                assert!(err.offset <= len, "{} cut at {len}: {err}", r.what);
            }
        }
    }
}

#[test]
fn cbytes_that_is_not_the_length_is_refused_before_anything_else() {
    for r in small_samples() {
        let len = r.chunk.len();
        for lie in [
            0i32,
            15,
            16,
            31,
            32,
            len as i32 - 1,
            len as i32 + 1,
            i32::MAX,
            -1,
            i32::MIN,
        ] {
            let mut chunk = r.chunk.clone();
            set32(&mut chunk, 12, lie);
            let err = decompress(&chunk, DEFAULT_LIMIT).unwrap_err();
            assert_eq!(err.offset, 12, "{} cbytes {lie}: {err}", r.what);
            match lie {
                ..0 => assert!(
                    matches!(err.kind, ChunkErrorKind::Field { field: "cbytes", .. }),
                    "{err}"
                ),
                0..16 => assert!(
                    matches!(err.kind, ChunkErrorKind::Field { field: "cbytes", .. }),
                    "{err}"
                ),
                16..32 if chunk[2] & 0x05 == 0x05 => {
                    assert!(
                        matches!(err.kind, ChunkErrorKind::Field { field: "cbytes", .. }),
                        "{err}"
                    )
                }
                _ => assert_eq!(
                    err.kind,
                    ChunkErrorKind::Length {
                        expected: len,
                        found: lie as usize
                    }
                ),
            }
        }
    }
}

#[test]
fn nbytes_above_the_limit_or_inconsistent_is_refused() {
    for r in small_samples() {
        let nbytes = le32(&r.chunk, 4);
        // Huge: refused at once, without allocating it.
        let mut chunk = r.chunk.clone();
        set32(&mut chunk, 4, i32::MAX);
        let err = decompress(&chunk, DEFAULT_LIMIT).unwrap_err();
        assert_eq!(err.offset, 4, "{err}");
        assert_eq!(
            err.kind,
            ChunkErrorKind::Limit {
                nbytes: i32::MAX as usize,
                limit: DEFAULT_LIMIT
            }
        );
        assert_eq!(
            err.to_string(),
            "blosc2 chunk: at byte 0x04 (nbytes): 2147483647 decompressed bytes are more than the limit of 67108864"
        );
        // Negative.
        set32(&mut chunk, 4, -1);
        let err = decompress(&chunk, DEFAULT_LIMIT).unwrap_err();
        assert_eq!(err.offset, 4, "{err}");
        assert_eq!(
            err.to_string(),
            "blosc2 chunk: at byte 0x04 (nbytes): expected a size from 0 to 2147483647, found -1"
        );
        // Larger or smaller than the data, within the limit: an error, or exactly nbytes.
        for lie in [nbytes + 1, nbytes * 2, nbytes * 64, nbytes - 1, nbytes / 2, 1, 0] {
            set32(&mut chunk, 4, lie);
            check_outcome(&chunk, DEFAULT_LIMIT, &r.what);
            if r.chunk[2] & 0x02 != 0 && lie != nbytes {
                // A memcpyed chunk holds exactly nbytes after its header.
                assert!(decompress(&chunk, DEFAULT_LIMIT).is_err(), "{} nbytes {lie}", r.what);
            }
        }
    }
}

#[test]
fn every_value_of_every_header_byte_gives_an_error_or_exactly_nbytes() {
    let mut decoded = 0;
    for r in small_samples() {
        let header_len = if r.chunk[2] & 0x05 == 0x05 { 32 } else { 16 };
        for at in 0..header_len {
            for value in 0..=255u8 {
                let mut chunk = r.chunk.clone();
                chunk[at] = value;
                check_outcome(&chunk, DEFAULT_LIMIT, &format!("{} byte {at} = {value:#04x}", r.what));
                decoded += decompress(&chunk, DEFAULT_LIMIT).is_ok() as usize;
            }
        }
    }
    // Some substitutions are harmless (versionlz, filters_meta, a typesize that does not
    // matter to a memcpyed chunk...).
    assert!(decoded > 0);
}

#[test]
fn every_value_of_every_byte_of_small_compressed_chunks_gives_an_error_or_exactly_nbytes() {
    for r in small_samples() {
        let h = ChunkHeader::parse(&r.chunk).unwrap();
        if h.memcpyed() || r.chunk.len() > 160 {
            continue;
        }
        for at in h.len()..r.chunk.len() {
            for value in 0..=255u8 {
                let mut chunk = r.chunk.clone();
                chunk[at] = value;
                check_outcome(&chunk, DEFAULT_LIMIT, &format!("{} byte {at} = {value:#04x}", r.what));
            }
        }
    }
}

#[test]
fn unknown_codecs_filters_and_flags_are_named() {
    let zstd = recorded()
        .into_iter()
        .find(|r| r.chunk[2] == 0x85)
        .expect("a compressed zstd chunk");
    for format in [2u8, 5, 6, 7] {
        let mut chunk = zstd.chunk.clone();
        chunk[2] = (chunk[2] & 0x1f) | (format << 5);
        let err = decompress(&chunk, DEFAULT_LIMIT).unwrap_err();
        assert_eq!(err.offset, 2);
        assert_eq!(
            err.kind,
            ChunkErrorKind::Unsupported {
                what: "codec format",
                value: format
            }
        );
        assert_eq!(ChunkHeader::parse(&chunk).unwrap().codec(), Codec::Other(format));
    }
    // A plugin filter (c-blosc2's BYTEDELTA is 35) in slot 2.
    let mut chunk = zstd.chunk.clone();
    chunk[16 + 2] = 35;
    let err = decompress(&chunk, DEFAULT_LIMIT).unwrap_err();
    assert_eq!(
        (err.offset, err.kind.clone()),
        (
            18,
            ChunkErrorKind::Unsupported {
                what: "filter",
                value: 35
            }
        )
    );
    assert_eq!(
        err.to_string(),
        "blosc2 chunk: at byte 0x12: filter 35 is not supported"
    );
    // Delta undone before another filter.
    let mut chunk = zstd.chunk.clone();
    chunk[16..22].copy_from_slice(&[0, 0, 0, 0, 1, 3]);
    let err = decompress(&chunk, DEFAULT_LIMIT).unwrap_err();
    assert_eq!(err.offset, 21, "{err}");
    // Dictionary, lazy chunk, instrumented codec, variable-length blocks.
    for (at, value) in [(31, 0x01u8), (31, 0x08), (31, 0x80), (30, 0x01)] {
        let mut chunk = zstd.chunk.clone();
        chunk[at] = value;
        let err = decompress(&chunk, DEFAULT_LIMIT).unwrap_err();
        assert_eq!(err.offset, at, "{err}");
        assert!(
            matches!(err.kind, ChunkErrorKind::Unsupported { value: v, .. } if v == value),
            "{err}"
        );
    }
    // An unknown special value id.
    let mut chunk = zstd.chunk.clone();
    chunk[31] = 0x50;
    let err = decompress(&chunk, DEFAULT_LIMIT).unwrap_err();
    assert_eq!(err.offset, 31, "{err}");
    // Format versions 0 and 7.
    for version in [0u8, 7] {
        let mut chunk = zstd.chunk.clone();
        chunk[0] = version;
        let err = decompress(&chunk, DEFAULT_LIMIT).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("blosc2 chunk: at byte 0x00 (version): expected a format version from 1 to 6, found {version}")
        );
    }
}

/// A Blosc2 chunk header (extended, filters as given) followed by `rest`, with `cbytes` set.
fn made(
    flags: u8,
    typesize: u8,
    nbytes: i32,
    blocksize: i32,
    filters: [u8; 6],
    blosc2_flags: u8,
    rest: &[u8],
) -> Vec<u8> {
    let mut chunk = vec![5, 1, flags | 0x05, typesize];
    chunk.extend_from_slice(&nbytes.to_le_bytes());
    chunk.extend_from_slice(&blocksize.to_le_bytes());
    chunk.extend_from_slice(&((32 + rest.len()) as i32).to_le_bytes());
    chunk.extend_from_slice(&filters);
    chunk.extend_from_slice(&[0; 9]);
    chunk.push(blosc2_flags);
    chunk.extend_from_slice(rest);
    chunk
}

#[test]
fn streams_made_by_hand_from_the_chunk_format() {
    // Two blocks of 8 bytes, not split (flags 0x10), BloscLZ: block 0 is a run of zeros
    // (csize 0), block 1 a run of 0x07 (csize -7 and token 0x01).
    let mut rest = Vec::new();
    rest.extend_from_slice(&40i32.to_le_bytes()); // block 0 starts after the 8-byte table
    rest.extend_from_slice(&44i32.to_le_bytes());
    rest.extend_from_slice(&0i32.to_le_bytes());
    rest.extend_from_slice(&(-7i32).to_le_bytes());
    rest.push(0x01);
    let chunk = made(0x10, 1, 16, 8, [0; 6], 0, &rest);
    assert_eq!(
        decompress(&chunk, 16).unwrap(),
        [0, 0, 0, 0, 0, 0, 0, 0, 7, 7, 7, 7, 7, 7, 7, 7]
    );

    // A token without bit 0 is not a run.
    let mut bad = chunk.clone();
    *bad.last_mut().unwrap() = 0x02;
    let err = decompress(&bad, 16).unwrap_err();
    assert_eq!(
        (err.offset, err.kind),
        (
            48,
            ChunkErrorKind::Unsupported {
                what: "stream token",
                value: 2
            }
        )
    );
    // A run of a value beyond one byte.
    let mut bad = chunk.clone();
    set32(&mut bad, 44, -256);
    let err = decompress(&bad, 16).unwrap_err();
    assert_eq!(err.offset, 44, "{err}");
    // Block starts inside the table or past the end.
    for start in [0, 16, 36, 39, 49, -1] {
        let mut bad = chunk.clone();
        set32(&mut bad, 32, start);
        let err = decompress(&bad, 16).unwrap_err();
        assert_eq!(err.offset, 32, "{err}");
        assert_eq!(
            err.kind,
            ChunkErrorKind::BlockStart {
                block: 0,
                found: start.into(),
                min: 40,
                len: 49
            },
            "{err}"
        );
    }

    // A stored stream (csize equal to the stream's size), split in typesize 2 streams of 4 bytes,
    // then shuffled: items 0x0201, 0x0403, 0x0605, 0x0807 were stored as their low bytes then
    // their high bytes.
    let mut rest = Vec::new();
    rest.extend_from_slice(&36i32.to_le_bytes());
    rest.extend_from_slice(&4i32.to_le_bytes());
    rest.extend_from_slice(&[1, 3, 5, 7]);
    rest.extend_from_slice(&4i32.to_le_bytes());
    rest.extend_from_slice(&[2, 4, 6, 8]);
    let chunk = made(0, 2, 8, 8, [0, 0, 0, 0, 0, 1], 0, &rest);
    assert_eq!(decompress(&chunk, 8).unwrap(), [1, 2, 3, 4, 5, 6, 7, 8]);
    // A stream size past the end.
    let mut bad = chunk.clone();
    set32(&mut bad, 44, 5);
    let err = decompress(&bad, 8).unwrap_err();
    assert_eq!(
        (err.offset, err.kind),
        (
            48,
            ChunkErrorKind::Truncated {
                field: "stream data",
                needed: 5,
                found: 4
            }
        )
    );

    // BloscLZ by hand: a literal run "ab" (ctrl 1), then a match of length 3 + 2 = 5 at
    // distance 2 (ctrl (3 << 5) | 0, code 1), then a literal "z" (ctrl 0): "ab" "ababa" "z".
    let stream = [0x01, b'a', b'b', 0x60, 0x01, 0x00, b'z'];
    let mut rest = Vec::new();
    rest.extend_from_slice(&36i32.to_le_bytes());
    rest.extend_from_slice(&(stream.len() as i32).to_le_bytes());
    rest.extend_from_slice(&stream);
    let chunk = made(0x10, 1, 8, 8, [0; 6], 0, &rest);
    assert_eq!(decompress(&chunk, 8).unwrap(), b"abababaz");
    // The same stream decoding to fewer bytes than the block: named as such.
    let mut bad = chunk.clone();
    set32(&mut bad, 4, 9);
    set32(&mut bad, 8, 9);
    let err = decompress(&bad, 9).unwrap_err();
    assert_eq!(
        err.kind,
        ChunkErrorKind::Stream {
            codec: Codec::BloscLz,
            block: 0,
            stream: 0,
            expected: 9,
            found: StreamFailure::Size(8)
        }
    );
    assert_eq!(
        err.to_string(),
        "blosc2 chunk: at byte 0x28 (block 0, stream 0): blosclz data expected to decode to 9 bytes, decoded to 8"
    );
}

#[test]
fn special_chunks_made_by_hand() {
    // Zeros (id 1), NaN (id 2), a repeated value (id 3), uninitialized (id 4, returned as zeros).
    assert_eq!(decompress(&made(0, 4, 12, 12, [0; 6], 0x10, &[]), 12).unwrap(), [0; 12]);
    assert_eq!(
        decompress(&made(0, 4, 8, 8, [0; 6], 0x20, &[]), 8).unwrap(),
        [0x00, 0x00, 0xc0, 0x7f, 0x00, 0x00, 0xc0, 0x7f]
    );
    assert_eq!(
        decompress(&made(0, 8, 8, 8, [0; 6], 0x20, &[]), 8).unwrap(),
        [0, 0, 0, 0, 0, 0, 0xf8, 0x7f]
    );
    assert_eq!(
        decompress(&made(0, 2, 6, 6, [0; 6], 0x30, &[0xab, 0xcd]), 6).unwrap(),
        [0xab, 0xcd, 0xab, 0xcd, 0xab, 0xcd]
    );
    assert_eq!(decompress(&made(0, 1, 3, 3, [0; 6], 0x40, &[]), 3).unwrap(), [0; 3]);
    // NaNs of 2 bytes do not exist; a value that does not divide nbytes; nbytes not a multiple
    // of typesize.
    assert!(decompress(&made(0, 2, 8, 8, [0; 6], 0x20, &[]), 8).is_err());
    assert!(decompress(&made(0, 2, 7, 7, [0; 6], 0x30, &[0xab, 0xcd]), 7).is_err());
    assert!(decompress(&made(0, 4, 6, 6, [0; 6], 0x10, &[]), 6).is_err());
    // Still bounded by the limit.
    let err = decompress(&made(0, 1, 1 << 30, 1 << 20, [0; 6], 0x10, &[]), DEFAULT_LIMIT).unwrap_err();
    assert_eq!(
        err.kind,
        ChunkErrorKind::Limit {
            nbytes: 1 << 30,
            limit: DEFAULT_LIMIT
        }
    );
}

#[test]
fn special_chunks_a_piece_at_a_time_and_their_item() {
    // Zeros, NaN, a repeated value of 3 bytes, uninitialized: the item, and the pieces.
    let cases: [(Vec<u8>, Special, Vec<u8>); 4] = [
        (
            made(0, 4, 1 << 20, 1 << 20, [0; 6], 0x10, &[]),
            Special::Zeros,
            vec![0; 4],
        ),
        (
            made(0, 8, 1 << 20, 1 << 20, [0; 6], 0x20, &[]),
            Special::Nan,
            f64::NAN.to_bits().to_le_bytes().to_vec(),
        ),
        (
            made(0, 3, 3 << 18, 3 << 18, [0; 6], 0x30, &[1, 2, 3]),
            Special::Value,
            vec![1, 2, 3],
        ),
        (
            made(0, 2, 1 << 20, 1 << 20, [0; 6], 0x40, &[]),
            Special::Uninit,
            vec![0; 2],
        ),
    ];
    for (chunk, special, item) in cases {
        let repeated = special_item(&chunk).unwrap().unwrap();
        assert_eq!((repeated.special, &*repeated.item), (special, &item[..]));
        let (joined, sizes) = blocks(&chunk, DEFAULT_LIMIT).unwrap();
        assert_eq!(joined, decompress(&chunk, DEFAULT_LIMIT).unwrap(), "{special:?}");
        // Every piece but the last is the same size: at most SPECIAL_PIECE, a whole number of items.
        let piece = sizes[0];
        assert!(
            piece <= SPECIAL_PIECE && piece % item.len() == 0,
            "{special:?}: {piece}"
        );
        assert!(sizes[..sizes.len() - 1].iter().all(|&n| n == piece), "{special:?}");
        assert_eq!(sizes.iter().sum::<usize>(), joined.len());
    }
    // An item longer than SPECIAL_PIECE is one piece.
    let long = vec![7u8; SPECIAL_PIECE + 1];
    let chunk = made(0, 1, 2 * long.len() as i32, long.len() as i32, [0; 6], 0x30, &long);
    assert_eq!(blocks(&chunk, DEFAULT_LIMIT).unwrap().1, [long.len(), long.len()]);
    // Not special: a memcpyed chunk is one piece, borrowed; an empty chunk none.
    let memcpyed = made(0x02, 1, 3, 3, [0; 6], 0, b"abc");
    assert!(special_item(&memcpyed).unwrap().is_none());
    assert_eq!(blocks(&memcpyed, 3).unwrap(), (b"abc".to_vec(), vec![3]));
    assert_eq!(blocks(&made(0, 1, 0, 1, [0; 6], 0, &[]), 3).unwrap(), (vec![], vec![]));
    // The checks are decompress's: the limit, an item that does not divide nbytes.
    let err = special_item(&made(0, 2, 7, 7, [0; 6], 0x30, &[0xab, 0xcd])).unwrap_err();
    assert_eq!(
        err,
        decompress(&made(0, 2, 7, 7, [0; 6], 0x30, &[0xab, 0xcd]), 7).unwrap_err()
    );
    let huge = made(0, 1, i32::MAX, 1 << 20, [0; 6], 0x10, &[]);
    assert!(matches!(
        blocks(&huge, DEFAULT_LIMIT).unwrap_err().kind,
        ChunkErrorKind::Limit { .. }
    ));
    // special_item takes no limit: it repeats nothing.
    assert_eq!(special_item(&huge).unwrap().unwrap().special, Special::Zeros);
}

// ---- c-blosc2 as the producer ---------------------------------------------------------------

static INIT: Once = Once::new();

/// Compresses `data` with c-blosc2 (the `blosc2-src` build: BloscLZ, LZ4, LZ4HC).
fn c_compress(
    data: &[u8],
    codec: u8,
    clevel: u8,
    typesize: i32,
    blocksize: i32,
    split: bool,
    filters: [u8; 6],
) -> Vec<u8> {
    INIT.call_once(|| unsafe { blosc2_src::blosc2_init() });
    let cparams = blosc2_src::blosc2_cparams {
        compcode: codec,
        clevel,
        typesize,
        nthreads: 1,
        blocksize,
        splitmode: if split {
            blosc2_src::BLOSC_ALWAYS_SPLIT
        } else {
            blosc2_src::BLOSC_NEVER_SPLIT
        },
        filters,
        // Truncated precision keeps this many mantissa bits; the other filters take no metadata.
        filters_meta: filters.map(|id| if id == 4 { 10 } else { 0 }),
        ..blosc2_src::BLOSC2_CPARAMS_DEFAULTS
    };
    let mut out = vec![0u8; data.len() + 32];
    // SAFETY: the context is created from complete parameters, used once and freed; the source
    // and destination are valid for the lengths given, and the destination holds the largest
    // chunk c-blosc2 can write (its data plus the maximum overhead).
    let len = unsafe {
        let ctx = blosc2_src::blosc2_create_cctx(cparams);
        assert!(!ctx.is_null());
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
    assert!(
        len > 0,
        "c-blosc2 returned {len} for codec {codec} typesize {typesize} filters {filters:?} length {}",
        data.len()
    );
    out.truncate(len as usize);
    out
}

/// Decompresses with c-blosc2 a chunk that c-blosc2 itself wrote.
fn c_decompress(chunk: &[u8], len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    // SAFETY: a context made from the default parameters, used once and freed; the chunk is one
    // that c-blosc2 compressed, and the destination holds the `len` bytes it decompresses to.
    let n = unsafe {
        let ctx = blosc2_src::blosc2_create_dctx(blosc2_src::BLOSC2_DPARAMS_DEFAULTS);
        let n = blosc2_src::blosc2_decompress_ctx(
            ctx,
            chunk.as_ptr().cast(),
            chunk.len() as i32,
            out.as_mut_ptr().cast(),
            len as i32,
        );
        blosc2_src::blosc2_free_ctx(ctx);
        n
    };
    assert_eq!(n as usize, len);
    out
}

/// Data that compresses: a small alphabet, runs and a counter, from a fixed seed.
fn data(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let r = (state >> 33) as u32;
        match r % 4 {
            0 => out.extend(std::iter::repeat_n((r >> 8) as u8 % 4, (r as usize >> 16) % 20)),
            1 => out.extend((0..(r >> 8) % 24).map(|i| i as u8)),
            2 => out.push((r >> 8) as u8),
            _ => out.extend_from_slice(&(out.len() as u32).to_le_bytes()),
        }
    }
    out.truncate(len);
    out
}

#[test]
fn chunks_c_blosc2_compresses_decompress_to_its_input() {
    const NO: u8 = 0;
    const SHUF: u8 = 1;
    const BIT: u8 = 2;
    const DELTA: u8 = 3;
    const TRUNC: u8 = 4;
    let pipelines: [[u8; 6]; 8] = [
        [NO; 6],
        [NO, NO, NO, NO, NO, SHUF],
        [NO, NO, NO, NO, NO, BIT],
        [NO, NO, NO, NO, DELTA, SHUF],
        [NO, NO, NO, NO, DELTA, BIT],
        [NO, NO, NO, NO, NO, DELTA],
        [NO, NO, NO, NO, SHUF, BIT],
        [NO, NO, NO, TRUNC, NO, NO],
    ];
    let mut chunks = 0;
    let mut lossy = 0;
    let mut compressed = [0usize; 3];
    for (codec, name) in [(0u8, "blosclz"), (1, "lz4"), (2, "lz4hc")] {
        for typesize in [1i32, 2, 3, 4, 8, 16] {
            for (i, len) in [0usize, 1, 7, 64, 1000, 4099, 20000].into_iter().enumerate() {
                for filters in pipelines {
                    // TRUNC_PREC only takes 4- and 8-byte floats.
                    if filters.contains(&TRUNC) && typesize != 4 && typesize != 8 {
                        continue;
                    }
                    for (blocksize, split) in [(0, false), (256, true), (1024, false), (4096, true)] {
                        let input = data(len, (i as u64) << 8 | u64::from(codec) << 4 | typesize as u64);
                        let clevel = [1, 5, 9][(chunks % 3) as usize];
                        let chunk = c_compress(&input, codec, clevel, typesize, blocksize, split, filters);
                        let what = format!(
                            "{name} typesize {typesize} len {len} filters {filters:?} blocksize {blocksize} split {split}"
                        );
                        let header = ChunkHeader::parse(&chunk).unwrap();
                        let out = decompress(&chunk, len).unwrap_or_else(|e| panic!("{what}: {e}"));
                        // c-blosc2's own decompression is the reference; where it gives back its input,
                        // so must we. It does not always: delta leaves the bytes of a block past its
                        // last whole item unset when compressing (a block of 4099 - 4096 = 3 bytes
                        // with typesize 2 loses its last byte), and truncated precision is lossy.
                        let reference = c_decompress(&chunk, len);
                        assert!(out == reference, "{what}: not what c-blosc2 decompresses");
                        // A block at a time: the same bytes, in pieces of a block each.
                        let (joined, sizes) = blocks(&chunk, len).unwrap_or_else(|e| panic!("{what}: {e}"));
                        assert!(joined == reference, "{what}: decompress_blocks");
                        if !header.memcpyed() && len > 0 {
                            let b = header.blocksize;
                            let want: Vec<usize> = (0..len.div_ceil(b)).map(|i| b.min(len - i * b)).collect();
                            assert_eq!(sizes, want, "{what}: block sizes");
                        }
                        if reference != input {
                            assert!(
                                filters.contains(&DELTA) || filters.contains(&TRUNC),
                                "{what}: c-blosc2 lost data"
                            );
                            lossy += 1;
                        }
                        if !header.memcpyed() && len > 0 {
                            compressed[codec as usize] += 1;
                        }
                        chunks += 1;
                    }
                }
            }
        }
    }
    assert!(chunks > 1000, "{chunks}");
    assert!(lossy < chunks / 10, "{lossy} of {chunks}");
    eprintln!("{chunks} chunks, {lossy} that c-blosc2 does not give back, compressed {compressed:?}");
    assert!(compressed.iter().all(|&n| n > 150), "{compressed:?}");
}

#[test]
fn c_blosc2_chunks_with_flipped_bytes_give_an_error_or_exactly_nbytes() {
    // Bitshuffled and delta-filtered LZ4 and BloscLZ chunks of several blocks, each byte after
    // the header replaced by a few values.
    for (codec, filters) in [
        (0u8, [0, 0, 0, 0, 3, 2]),
        (1, [0, 0, 0, 0, 0, 1]),
        (2, [0, 0, 0, 0, 0, 2]),
    ] {
        let input = data(600, u64::from(codec));
        let chunk = c_compress(&input, codec, 5, 4, 128, true, filters);
        assert_eq!(decompress(&chunk, 600).unwrap(), input);
        for at in 32..chunk.len() {
            for value in [0x00u8, 0x01, 0x7f, 0x80, 0xff, chunk[at] ^ 0x10] {
                let mut bad = chunk.clone();
                bad[at] = value;
                check_outcome(&bad, DEFAULT_LIMIT, &format!("codec {codec} byte {at} = {value:#04x}"));
            }
        }
    }
}
