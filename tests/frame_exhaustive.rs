//! Every byte value at every offset of the header and trailer of small real frames, and every
//! truncation: the frame reader never panics, takes bounded time, and either refuses the bytes
//! or returns a frame consistent with them.

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

use metalayer::frame::{Frame, FrameHeader, FrameTrailer, MAX_METALAYERS, MIN_TRAILER_LEN, header_len, parse_header};
use metalayer::prelude::*;

fn fixture(rel: &str) -> Vec<u8> {
    fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(rel)).unwrap()
}

/// Small frames with metalayers and vlmetalayers: header + trailer bytes (and the frame's).
const SMALL_FRAMES: [&str; 4] = [
    // 124-byte header (b2tree), 121-byte trailer (one vlmetalayer), no chunks.
    "files/blosc2-4-own/ctable_embed.b2e",
    // 97-byte header (no metalayers), 96-byte trailer (one vlmetalayer), no chunks.
    "files/blosc2-4-own/treestore_group_vlmeta.b2f",
    // A header and a trailer around chunks (one vlmetalayer, __pack_tensor__).
    "files/blosc2-2-vlmeta/save_tensor.b2f",
    // A sparse frame's chunks.b2frame: the index chunk between header and trailer.
    "files/blosc2-4-vlmeta/sparse_schunk.b2f/chunks.b2frame",
];

fn be_u32(bytes: &[u8], at: usize) -> usize {
    u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize
}

/// A content the reader returned: `0xc6`, its u32 length, then the content, at its offset, in
/// `range`.
fn check_content(bytes: &[u8], offset: u64, content: &[u8], range: std::ops::Range<usize>, what: &str) {
    let at = usize::try_from(offset).unwrap();
    assert!(
        at >= range.start + 5 && at + content.len() <= range.end,
        "{what}: {at} in {range:?}"
    );
    assert_eq!(bytes[at - 5], 0xc6, "{what}");
    assert_eq!(be_u32(bytes, at - 4), content.len(), "{what}");
    assert_eq!(&bytes[at..at + content.len()], content, "{what}");
}

/// What a frame the reader accepted must satisfy, checked against the bytes themselves.
fn check_consistent(bytes: &[u8], frame: &Frame) {
    let h = &frame.header;
    let header_len = h.header_len;
    assert_eq!(header_len, header_len_of(bytes));
    let frame_len = usize::try_from(h.frame_len).unwrap();
    assert!(frame_len <= bytes.len());
    let t = &frame.trailer;
    let (start, len) = (usize::try_from(t.offset).unwrap(), t.trailer_len as usize);
    assert_eq!(start + len, frame_len);
    assert!(start >= header_len && len >= MIN_TRAILER_LEN);
    assert_eq!(be_u32(bytes, frame_len - 22), len);
    assert!(frame.metalayers.len() <= MAX_METALAYERS && frame.vlmetalayers.len() <= MAX_METALAYERS);
    for m in &frame.metalayers {
        check_content(bytes, m.offset, &m.content, 0..header_len, &m.name);
    }
    for v in &frame.vlmetalayers {
        check_content(bytes, v.offset, &v.content, start..frame_len, &v.name);
    }
    // The header-only reader agrees, and both parts are exactly what their decoders re-encode.
    assert_eq!(parse_header(bytes).unwrap(), frame.metalayers);
    let header = &bytes[..header_len];
    assert_eq!(FrameHeader::decode(header).unwrap().encode().unwrap(), header);
    let trailer = &bytes[start..frame_len];
    assert_eq!(FrameTrailer::decode(trailer).unwrap().encode().unwrap(), trailer);
}

fn header_len_of(bytes: &[u8]) -> usize {
    header_len(bytes).unwrap()
}

#[test]
fn every_byte_value_at_every_offset_of_header_and_trailer() {
    let mut slowest = Duration::ZERO;
    let mut total = 0usize;
    for rel in SMALL_FRAMES {
        let original = fixture(rel);
        let frame = Frame::parse(&original).unwrap();
        assert!(!frame.vlmetalayers.is_empty(), "{rel}");
        let header_len = frame.header.header_len;
        let trailer_at = usize::try_from(frame.trailer.offset).unwrap();
        let offsets: Vec<usize> = (0..header_len).chain(trailer_at..original.len()).collect();
        let (mut accepted, mut refused) = (0usize, 0usize);
        let mut bytes = original.clone();
        for &at in &offsets {
            for value in 0..=255u8 {
                if value == original[at] {
                    continue;
                }
                bytes[at] = value;
                let start = Instant::now();
                let result = Frame::parse(&bytes);
                slowest = slowest.max(start.elapsed());
                match result {
                    Ok(frame) => {
                        check_consistent(&bytes, &frame);
                        accepted += 1;
                    }
                    Err(e) => {
                        assert!(!e.to_string().is_empty());
                        refused += 1;
                    }
                }
            }
            bytes[at] = original[at];
        }
        assert_eq!(bytes, original);
        assert_eq!(accepted + refused, offsets.len() * 255, "{rel}");
        // Contents and free values (sizes, counts of threads, flags, fingerprint...) accept any
        // byte; markers and lengths do not.
        assert!(
            accepted > 0 && refused > 0,
            "{rel}: {accepted} accepted, {refused} refused"
        );
        total += accepted + refused;
    }
    assert!(total > 150_000, "{total}");
    // Each input is a few hundred bytes: a parse takes microseconds.
    assert!(slowest < Duration::from_millis(50), "slowest parse {slowest:?}");
}

#[test]
fn every_truncation_of_a_frame_is_refused() {
    for rel in SMALL_FRAMES {
        let bytes = fixture(rel);
        for n in 0..bytes.len() {
            assert!(Frame::parse(&bytes[..n]).is_err(), "{rel}[..{n}]");
        }
        assert!(Frame::parse(&bytes).is_ok(), "{rel}");
    }
}

#[test]
fn a_trailer_len_at_every_value_near_the_real_one() {
    // trailer_len moved by -64..=64: only the real one reads.
    for rel in SMALL_FRAMES {
        let original = fixture(rel);
        let at = original.len() - 22;
        let real = be_u32(&original, at) as i64;
        for delta in -64i64..=64 {
            let mut bytes = original.clone();
            let value = u32::try_from((real + delta).max(0)).unwrap();
            bytes[at..at + 4].copy_from_slice(&value.to_be_bytes());
            assert_eq!(Frame::parse(&bytes).is_ok(), delta == 0, "{rel}: trailer_len {value}");
        }
    }
}
