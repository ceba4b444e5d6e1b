//! `metalayer::frame`'s header fields and trailers against the real fixture files (what
//! python-blosc2 reported for each, in `tests/fixtures/expected.json`), and against corrupted
//! copies of them.

use std::fs;
use std::path::{Path, PathBuf};

use metalayer::frame::{
    Frame, FrameErrorKind, FrameHeader, FrameTrailer, MAX_METALAYERS, OffsetMiss, Section, header_len, parse_header,
    read_metalayers,
};
use metalayer::prelude::*;
use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn fixture(rel: &str) -> Vec<u8> {
    fs::read(fixtures().join(rel)).unwrap()
}

/// expected.json's frame records (its store records left out).
fn expected() -> Vec<Value> {
    let text = fs::read_to_string(fixtures().join("expected.json")).unwrap();
    let value: Value = serde_json::from_str(&text).unwrap();
    value
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r.get("store").is_none())
        .cloned()
        .collect()
}

fn hex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex length");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn put_u16(bytes: &mut [u8], at: usize, value: u16) {
    bytes[at..at + 2].copy_from_slice(&value.to_be_bytes());
}

fn put_i32(bytes: &mut [u8], at: usize, value: i32) {
    bytes[at..at + 4].copy_from_slice(&value.to_be_bytes());
}

fn put_u32(bytes: &mut [u8], at: usize, value: u32) {
    bytes[at..at + 4].copy_from_slice(&value.to_be_bytes());
}

fn put_u64(bytes: &mut [u8], at: usize, value: u64) {
    bytes[at..at + 8].copy_from_slice(&value.to_be_bytes());
}

/// The Display text of `Frame::parse` on `bytes`, which must fail.
fn frame_err(bytes: &[u8]) -> String {
    match Frame::parse(bytes) {
        Ok(f) => panic!("expected an error, parsed {} metalayers", f.metalayers.len()),
        Err(e) => e.to_string(),
    }
}

// c-blosc2's numbering (blosc2.h): codecs, filters, split modes (stored as the mode - 1).
const CODECS: [(&str, u8); 5] = [("BLOSCLZ", 0), ("LZ4", 1), ("LZ4HC", 2), ("ZLIB", 4), ("ZSTD", 5)];
const FILTERS: [(&str, u8); 5] = [
    ("NOFILTER", 0),
    ("SHUFFLE", 1),
    ("BITSHUFFLE", 2),
    ("DELTA", 3),
    ("TRUNC_PREC", 4),
];
const SPLITMODES: [(&str, u8); 4] = [
    ("ALWAYS_SPLIT", 1),
    ("NEVER_SPLIT", 2),
    ("AUTO_SPLIT", 3),
    ("FORWARD_COMPAT_SPLIT", 4),
];

fn number(table: &[(&str, u8)], name: &str) -> u8 {
    table
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("{name}"))
        .1
}

/// The header fields python-blosc2 reported (the newer fixture directories).
fn check_header(rel: &str, frame: &Frame, want: &Value) {
    let h = &frame.header;
    let n = |key: &str| want[key].as_i64().unwrap_or_else(|| panic!("{rel}: {key}"));
    assert_eq!(h.header_len as i64, n("header_len"), "{rel}");
    assert_eq!(h.frame_len as i64, n("frame_len"), "{rel}");
    assert_eq!(h.nbytes, n("nbytes"), "{rel}");
    assert_eq!(h.cbytes, n("cbytes"), "{rel}");
    assert_eq!(i64::from(h.typesize), n("typesize"), "{rel}");
    assert_eq!(i64::from(h.blocksize), n("blocksize"), "{rel}");
    assert_eq!(i64::from(h.chunksize), n("chunksize"), "{rel}");
    assert_eq!(i64::from(h.nthreads_compress), n("nthreads_compress"), "{rel}");
    assert_eq!(i64::from(h.nthreads_decompress), n("nthreads_decompress"), "{rel}");
    assert_eq!(h.has_vlmetalayers, want["has_vlmetalayers"].as_bool().unwrap(), "{rel}");
    assert_eq!(i64::from(h.metalayers_size), n("metalayers_size"), "{rel}");
    assert_eq!(h.flags.to_vec(), hex(want["flags_hex"].as_str().unwrap()), "{rel}");
    let contiguous = want["contiguous"].as_bool().unwrap();
    assert_eq!(h.frame_type(), u8::from(!contiguous), "{rel}");
    let codec = number(&CODECS, want["codec"].as_str().unwrap());
    assert_eq!(h.codec().number(), codec, "{rel}");
    assert_eq!(h.codec().to_string(), want["codec"].as_str().unwrap(), "{rel}");
    assert_eq!(i64::from(h.clevel()), n("clevel"), "{rel}");
    let split = number(&SPLITMODES, want["splitmode"].as_str().unwrap());
    assert_eq!(h.flags[3], split - 1, "{rel}");
    assert_eq!(h.split_mode().to_string(), want["splitmode"].as_str().unwrap(), "{rel}");

    // The fixext16: 6 filters, udcodec, codec meta, 6 filters_meta, other_flags2, reserved.
    let (ty, data) = (h.filters.ty, h.filters.data);
    assert_eq!(ty, 6, "{rel}");
    let filters: Vec<u8> = want["filters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| number(&FILTERS, f.as_str().unwrap()))
        .collect();
    assert_eq!(data[..6], filters[..], "{rel}");
    assert_eq!(data[6], codec, "{rel}: udcodec repeats the codec");
    assert_eq!(i64::from(data[7]), n("codec_meta"), "{rel}");
    let meta: Vec<i64> = want["filters_meta"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    let stored: Vec<i64> = data[8..14].iter().map(|&b| i64::from(b)).collect();
    assert_eq!(stored, meta, "{rel}");
    assert_eq!(i64::from(data[14]), n("other_flags2"), "{rel}");
    assert_eq!(data[14] & 1 == 1, want["use_dict"].as_bool().unwrap(), "{rel}");
}

/// The trailer and vlmetalayers python-blosc2 reported (the newer fixture directories).
fn check_trailer(rel: &str, frame: &Frame, want: &Value, vlmetalayers: &[Value]) {
    let t = &frame.trailer;
    assert_eq!(t.offset, want["offset"].as_u64().unwrap(), "{rel}");
    assert_eq!(u64::from(t.trailer_len), want["trailer_len"].as_u64().unwrap(), "{rel}");
    assert_eq!(want["version"].as_u64(), Some(1), "{rel}");
    assert_eq!(
        u64::from(t.vlmetalayers_size),
        want["vlmetalayers_size"].as_u64().unwrap(),
        "{rel}"
    );
    assert_eq!(
        i64::from(t.fingerprint.ty),
        want["fingerprint_type"].as_i64().unwrap(),
        "{rel}"
    );
    assert_eq!(
        t.fingerprint.data.to_vec(),
        hex(want["fingerprint_hex"].as_str().unwrap()),
        "{rel}"
    );
    let names: Vec<&str> = frame.vlmetalayers.iter().map(|v| v.name.as_str()).collect();
    let want_names: Vec<&str> = vlmetalayers.iter().map(|v| v["name"].as_str().unwrap()).collect();
    assert_eq!(names, want_names, "{rel}");
    for (got, want) in frame.vlmetalayers.iter().zip(vlmetalayers) {
        // expected.json's offset is as stored: from the trailer's first byte, at the 0xc6.
        let stored = want["offset"].as_u64().unwrap();
        assert_eq!(got.offset, t.offset + stored + 5, "{rel}: {}", got.name);
        assert_eq!(
            got.content.len() as u64,
            want["chunk_len"].as_u64().unwrap(),
            "{rel}: {}",
            got.name
        );
        let chunk = want["chunk_hex"]
            .as_str()
            .unwrap_or_else(|| panic!("{rel}: {}", got.name));
        assert_eq!(got.content, hex(chunk), "{rel}: {}", got.name);
    }
}

// ---------------------------------------------------------------------------------------------
// Every fixture
// ---------------------------------------------------------------------------------------------

#[test]
fn every_fixture_frame_reads_as_python_blosc2_reported() {
    let root = fixtures();
    let (mut with_record, mut with_vlmeta, mut sparse) = (0, 0, 0);
    for entry in expected() {
        let rel = entry["path"].as_str().unwrap();
        let frame = Frame::open(root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let bytes = fs::read(root.join(entry["frame_file"].as_str().unwrap())).unwrap();

        // The same frame read in memory, the same metalayers as the header-only reader.
        assert_eq!(Frame::parse(&bytes).unwrap(), frame, "{rel}");
        assert_eq!(frame.metalayers, read_metalayers(root.join(rel)).unwrap(), "{rel}");

        // Every fixture is a whole frame: its trailer ends the file.
        let h = &frame.header;
        assert_eq!(h.frame_len, bytes.len() as u64, "{rel}");
        assert_eq!(h.header_len, header_len(&bytes).unwrap(), "{rel}");
        assert_eq!(
            frame.trailer.offset + u64::from(frame.trailer.trailer_len),
            h.frame_len,
            "{rel}"
        );
        assert_eq!(h.has_vlmetalayers, !frame.vlmetalayers.is_empty(), "{rel}");
        assert!(matches!(h.format_version(), 2 | 3), "{rel}");
        if entry["frame"] == "sparse" {
            assert_eq!(h.frame_type(), 1, "{rel}");
            sparse += 1;
        } else {
            assert_eq!(h.frame_type(), 0, "{rel}");
        }

        if let Some(header) = entry.get("header") {
            check_header(rel, &frame, header);
            let vl = entry["vlmetalayers"].as_array().unwrap();
            check_trailer(rel, &frame, &entry["trailer"], vl);
            with_record += 1;
            if !vl.is_empty() {
                with_vlmeta += 1;
            }
        }
    }
    assert!(
        with_record >= 50 && with_vlmeta >= 40 && sparse >= 10,
        "{with_record} {with_vlmeta} {sparse}"
    );
}

#[test]
fn the_generated_decoders_alone_read_every_header_and_trailer_and_write_them_back() {
    let root = fixtures();
    for entry in expected() {
        let rel = entry["path"].as_str().unwrap();
        let bytes = fs::read(root.join(entry["frame_file"].as_str().unwrap())).unwrap();
        let frame = Frame::parse(&bytes).unwrap();
        let header = &bytes[..frame.header.header_len];
        let decoded = FrameHeader::decode(header).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert_eq!(decoded.encode().unwrap(), header, "{rel}: header round trip");
        assert_eq!(decoded.metalayers.offsets.len(), frame.metalayers.len(), "{rel}");

        let start = usize::try_from(frame.trailer.offset).unwrap();
        let trailer = &bytes[start..];
        let decoded = FrameTrailer::decode(trailer).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert_eq!(decoded.encode().unwrap(), trailer, "{rel}: trailer round trip");
        assert_eq!(decoded.trailer_len as usize, trailer.len(), "{rel}");
    }
}

// ---------------------------------------------------------------------------------------------
// The trailer's place, from the end
// ---------------------------------------------------------------------------------------------

/// `blosc2-4/meta_user.b2nd`: header_len 240, frame_len 315, a 35-byte trailer at 0x118 (no
/// vlmetalayers): `94 01 93 cd 0006 de 0000 dc 0000 ce 00000023 d8 00` + 16 zeros.
fn meta_user() -> Vec<u8> {
    let bytes = fixture("files/blosc2-4/meta_user.b2nd");
    assert_eq!(bytes.len(), 315);
    let mut trailer = hex("940193cd0006de0000dc0000ce00000023d800");
    trailer.extend_from_slice(&[0; 16]);
    assert_eq!(bytes[0x118..], trailer);
    bytes
}

#[test]
fn trailer_len_past_the_frame_or_negative_is_refused() {
    let at = 315 - 22;
    for (value, text) in [
        // As an int32 (c-blosc2 reads int32 in places) these are negative.
        (
            u32::MAX,
            "at byte 0x125: trailer_len 4294967295 is outside 35..=75 (a trailer, within the frame after its header)",
        ),
        (
            0x8000_0000,
            "at byte 0x125: trailer_len 2147483648 is outside 35..=75 (a trailer, within the frame after its header)",
        ),
        // Past the frame's start, into the header, or too short for a trailer.
        (
            316,
            "at byte 0x125: trailer_len 316 is outside 35..=75 (a trailer, within the frame after its header)",
        ),
        (
            76,
            "at byte 0x125: trailer_len 76 is outside 35..=75 (a trailer, within the frame after its header)",
        ),
        (
            34,
            "at byte 0x125: trailer_len 34 is outside 35..=75 (a trailer, within the frame after its header)",
        ),
        (
            0,
            "at byte 0x125: trailer_len 0 is outside 35..=75 (a trailer, within the frame after its header)",
        ),
    ] {
        let mut bytes = meta_user();
        put_u32(&mut bytes, at, value);
        let err = Frame::parse(&bytes).unwrap_err();
        assert!(
            matches!(err.kind(), FrameErrorKind::TrailerLenOutOfRange { trailer_len, max: 75 } if *trailer_len == value),
            "{err:?}"
        );
        assert_eq!(err.to_string(), text);
        // The header alone does not need the trailer.
        assert_eq!(parse_header(&bytes).unwrap().len(), 5);
    }
}

#[test]
fn trailer_len_that_misses_the_trailers_start() {
    // One byte more: the trailer would start at 0x117, the last byte of the index chunk.
    let mut bytes = meta_user();
    put_u32(&mut bytes, 315 - 22, 36);
    assert_eq!(
        frame_err(&bytes),
        "frame_trailer_v1: at byte 0x117 (trailer byte 0x00) in the container: expected fixarray marker 0x94, found 0x81"
    );
    // The largest that fits: the trailer would start right after the header.
    let mut bytes = meta_user();
    put_u32(&mut bytes, 315 - 22, 75);
    assert_eq!(
        frame_err(&bytes),
        "frame_trailer_v1: at byte 0xf0 (trailer byte 0x00) in the container: expected fixarray marker 0x94, found 0x05"
    );
}

#[test]
fn the_trailer_len_marker() {
    let mut bytes = meta_user();
    bytes[315 - 23] = 0xcf;
    let err = Frame::parse(&bytes).unwrap_err();
    assert!(matches!(
        err.kind(),
        FrameErrorKind::TrailerLenMarker {
            expected: 0xce,
            found: 0xcf
        }
    ));
    assert_eq!(err.offset(), Some(0x124));
    assert_eq!(err.place().map(|p| p.section), Some(Section::Trailer));
    assert_eq!(
        err.to_string(),
        "at byte 0x124: expected trailer_len marker 0xce (uint32) 23 bytes before the end of the frame, found 0xcf"
    );
}

#[test]
fn frame_len_is_checked_against_the_input_and_the_header() {
    let mut bytes = meta_user();
    put_u64(&mut bytes, 16, 316);
    assert_eq!(
        frame_err(&bytes),
        "at byte 0x10: frame_len 316 runs past the end of the input (315 bytes)"
    );
    // A frame_len that leaves fewer than 35 bytes after the header.
    put_u64(&mut bytes, 16, 240 + 34);
    assert_eq!(
        frame_err(&bytes),
        "at byte 0x10: frame_len 274 leaves no room for a trailer (35 bytes at least) after the header (header_len 240)"
    );
    // Bytes after frame_len are not the frame's: the trailer is found from frame_len.
    let mut longer = meta_user();
    longer.extend_from_slice(&[0xff; 100]);
    assert_eq!(Frame::parse(&longer).unwrap(), Frame::parse(&meta_user()).unwrap());
}

#[test]
fn errors_inside_the_trailer_name_the_frame_byte_and_the_trailer_byte() {
    let edit = |at: usize, value: u8| {
        let mut bytes = meta_user();
        bytes[at] = value;
        frame_err(&bytes)
    };
    assert_eq!(
        edit(0x119, 0x00),
        "frame_trailer_v1: at byte 0x119 (trailer byte 0x01) in version: expected constant 1, found 0"
    );
    assert_eq!(
        edit(0x11a, 0x94),
        "frame_trailer_v1: at byte 0x11a (trailer byte 0x02) in vlmetalayers: expected fixarray marker 0x93, found 0x94"
    );
    assert_eq!(
        edit(0x11e, 0xdf),
        "frame_trailer_v1: at byte 0x11e (trailer byte 0x06) in vlmetalayers.offsets: expected map16 marker 0xde, found 0xdf"
    );
    assert_eq!(
        edit(0x121, 0xdd),
        "frame_trailer_v1: at byte 0x121 (trailer byte 0x09) in vlmetalayers.contents: expected array16 marker 0xdc, found 0xdd"
    );
    assert_eq!(
        edit(0x129, 0xd7),
        "frame_trailer_v1: at byte 0x129 (trailer byte 0x11) in fingerprint: expected fixext16 marker 0xd8, found 0xd7"
    );
    // The map claims one vlmetalayer: its pair needs 6 bytes, then the array16 and the rest.
    let mut bytes = meta_user();
    put_u16(&mut bytes, 0x11f, 1);
    assert_eq!(
        frame_err(&bytes),
        "frame_trailer_v1: at byte 0x121 (trailer byte 0x09) in vlmetalayers.offsets[0]: expected fixstr marker 0xa0..=0xbf, found 0xdc"
    );
}

// ---------------------------------------------------------------------------------------------
// Vlmetalayers: counts and offsets
// ---------------------------------------------------------------------------------------------

/// `blosc2-4-own/ctable_embed.b2e`: a 245-byte frame of a 124-byte header (one metalayer,
/// `b2tree`) and a 121-byte trailer at 0x7c (no chunks between), holding one vlmetalayer,
/// `estore_metadata`: its offset (0x21, from the trailer) is stored at 0x96, its content's
/// 0xc6 is at 0x9d, and the map16's count at 0x83.
fn ctable_embed() -> Vec<u8> {
    let bytes = fixture("files/blosc2-4-own/ctable_embed.b2e");
    assert_eq!(bytes.len(), 245);
    assert_eq!(bytes[0x7c..0x7e], [0x94, 0x01]);
    assert_eq!(bytes[0x82..0x86], [0xde, 0x00, 0x01, 0xaf]);
    assert_eq!(bytes[0x95..0x9e], hex("d200000021dc0001c6"));
    bytes
}

#[test]
fn the_vlmetalayer_of_ctable_embed() {
    let frame = Frame::parse(&ctable_embed()).unwrap();
    assert_eq!(frame.metalayers.len(), 1);
    assert_eq!(frame.metalayers[0].name, "b2tree");
    assert_eq!(frame.metalayers[0].content, hex("81a776657273696f6e01"));
    let [vl] = &frame.vlmetalayers[..] else {
        panic!("{:?}", frame.vlmetalayers)
    };
    assert_eq!(vl.name, "estore_metadata");
    assert_eq!(vl.offset, 0x9d + 5);
    assert_eq!(vl.content.len(), 60);
}

#[test]
fn vlmetalayer_offsets_outside_their_contents() {
    for (offset, why) in [
        (-1, "negative"),
        (121, "at trailer_len, past the trailer"),
        (0x7fff_ffff, "far past the trailer"),
        (0, "at the trailer's first byte"),
        (0x20, "before the contents"),
        (0x22, "one byte into the content's length"),
        (0x40, "inside the content"),
    ] {
        let mut bytes = ctable_embed();
        put_i32(&mut bytes, 0x96, offset);
        let err = Frame::parse(&bytes).unwrap_err();
        // The trailer is at 0x7c and ends at frame_len 245 (0xf5); its one content's 0xc6 is
        // at 0x9d, its length 60 in the four bytes after it.
        let (miss, reason) = match offset {
            -1 => (OffsetMiss::Negative, "is negative".to_owned()),
            121 | 0x7fff_ffff => (
                OffsetMiss::Outside { end: 245 },
                "lies outside the trailer, which ends at byte 0xf5 (frame_len 245)".to_owned(),
            ),
            0 | 0x20 => (
                OffsetMiss::BeforeContents { start: 0x9d },
                "points before the content section, which starts at byte 0x9d".to_owned(),
            ),
            _ => {
                let at = 0x7c + offset as usize;
                let found = bytes[at];
                assert_ne!(found, 0xc6, "{why}");
                (
                    OffsetMiss::NotMarker { at: at as u64, found },
                    format!(
                        "points at byte {at:#04x}, which holds 0x{found:02x}, not the 0xc6 (bin32) marker of a content"
                    ),
                )
            }
        };
        assert!(
            matches!(err.kind(), FrameErrorKind::ContentOffset { name, stored, from: 0x7c, miss: m }
                if name == "estore_metadata" && *stored == offset && *m == miss),
            "{why}: {err:?}"
        );
        assert_eq!(err.offset(), Some(0x96));
        assert_eq!(
            err.to_string(),
            format!(
                "at byte 0x96: vlmetalayer \"estore_metadata\" content offset {offset} (from the trailer at byte 0x7c) {reason}"
            ),
            "{why}"
        );
        // The header does not depend on the trailer.
        assert_eq!(
            parse_header(&bytes).unwrap(),
            Frame::parse(&ctable_embed()).unwrap().metalayers
        );
    }
}

#[test]
fn a_map16_count_of_0xffff() {
    // c-blosc2 #776 read this count as int16 -1. Here it is over the limit, in the trailer...
    let mut bytes = ctable_embed();
    put_u16(&mut bytes, 0x83, 0xffff);
    let err = Frame::parse(&bytes).unwrap_err();
    assert!(matches!(
        err.kind(),
        FrameErrorKind::TooManyMetalayers { count: 0xffff }
    ));
    assert_eq!(err.offset(), Some(0x83));
    assert_eq!(err.place().map(|p| p.section), Some(Section::Trailer));
    assert_eq!(
        err.to_string(),
        "at byte 0x83: the trailer's map holds 65535 vlmetalayers, at most 16 are allowed"
    );
    // ... and in the header.
    let mut bytes = ctable_embed();
    put_u16(&mut bytes, 0x5c, 0xffff);
    assert_eq!(
        frame_err(&bytes),
        "at byte 0x5c: the header's map holds 65535 metalayers, at most 16 are allowed"
    );
    // The array16 of contents, at 0x9b, likewise: more contents than the trailer can hold.
    let mut bytes = ctable_embed();
    put_u16(&mut bytes, 0x9b, 0xffff);
    let err = Frame::parse(&bytes).unwrap_err();
    assert!(matches!(
        err.kind(),
        FrameErrorKind::CountMismatch { map: 1, array: 0xffff }
    ));
    assert_eq!(err.offset(), Some(0x9b));
    assert_eq!(
        err.to_string(),
        "at byte 0x9b: the trailer's content array holds 65535 vlmetalayers, the map 1"
    );
    // 17, where the trailer holds one: the limit is reported, not the pairs that are missing.
    let mut bytes = ctable_embed();
    put_u16(&mut bytes, 0x83, 17);
    assert_eq!(
        frame_err(&bytes),
        "at byte 0x83: the trailer's map holds 17 vlmetalayers, at most 16 are allowed"
    );
}

/// A frame built by hand from `ctable_embed`'s header and a trailer written here, byte by
/// byte from the msgpack spec: `94 01 93 cd <size> de <n> pairs dc <m> contents ce <len> d8 00`
/// + 16 zeros. Offsets in `pairs` are from the trailer's first byte.
fn with_trailer(pairs: &[(&str, i32)], contents: &[&[u8]]) -> Vec<u8> {
    let mut frame = ctable_embed()[..124].to_vec();
    frame[0x44] = if pairs.is_empty() { 0xc2 } else { 0xc3 };
    let mut t = vec![0x94, 0x01, 0x93, 0xcd, 0, 0, 0xde];
    t.extend_from_slice(&(pairs.len() as u16).to_be_bytes());
    for (name, offset) in pairs {
        t.push(0xa0 + name.len() as u8);
        t.extend_from_slice(name.as_bytes());
        t.push(0xd2);
        t.extend_from_slice(&offset.to_be_bytes());
    }
    let size = (t.len() - 3) as u16;
    t[4..6].copy_from_slice(&size.to_be_bytes());
    t.push(0xdc);
    t.extend_from_slice(&(contents.len() as u16).to_be_bytes());
    for content in contents {
        t.push(0xc6);
        t.extend_from_slice(&(content.len() as u32).to_be_bytes());
        t.extend_from_slice(content);
    }
    let len = (t.len() + 23) as u32;
    t.push(0xce);
    t.extend_from_slice(&len.to_be_bytes());
    t.extend_from_slice(&[0xd8, 0x00]);
    t.extend_from_slice(&[0; 16]);
    frame.extend_from_slice(&t);
    let frame_len = frame.len() as u64;
    frame[16..24].copy_from_slice(&frame_len.to_be_bytes());
    frame
}

#[test]
fn hand_built_trailers() {
    // 94 01 | 93 cd <size> de 00 02 | a1 'a' d2 <o1> | a1 'b' d2 <o2> | dc 00 02 | c6 ...: the
    // pairs start at trailer byte 9, 7 bytes each; the array16 at 23, the contents from 26.
    let x: &[u8] = b"xx";
    let y: &[u8] = b"yyy";
    // "a" -> the first content (26), "b" -> the second (26 + 5 + 2 = 33).
    let frame = Frame::parse(&with_trailer(&[("a", 26), ("b", 33)], &[x, y])).unwrap();
    let names: Vec<(&str, &[u8])> = frame
        .vlmetalayers
        .iter()
        .map(|v| (v.name.as_str(), v.content.as_slice()))
        .collect();
    assert_eq!(names, [("a", x), ("b", y)]);
    assert_eq!(frame.vlmetalayers[0].offset, 124 + 26 + 5);
    assert_eq!(frame.trailer.vlmetalayers_size, 20);

    // The map is authoritative: both names may point at one content, in any order.
    let frame = Frame::parse(&with_trailer(&[("a", 33), ("b", 33)], &[x, y])).unwrap();
    assert_eq!(frame.vlmetalayers[0].content, y);
    assert_eq!(frame.vlmetalayers[1].content, y);

    // More contents than names.
    let bytes = with_trailer(&[("a", 19)], &[x, y]);
    let err = Frame::parse(&bytes).unwrap_err();
    assert!(matches!(err.kind(), FrameErrorKind::CountMismatch { map: 1, array: 2 }));
    assert_eq!(
        err.to_string(),
        format!(
            "at byte {:#04x}: the trailer's content array holds 2 vlmetalayers, the map 1",
            124 + 17
        )
    );

    // An offset at a 0xc6 byte that is a content's data, not its marker.
    let z: &[u8] = &[0xc6, 0, 0, 0, 0];
    let err = Frame::parse(&with_trailer(&[("a", 19 + 5)], &[z])).unwrap_err();
    // The trailer starts at 124; the content's own 0xc6 is at its byte 19.
    assert!(
        matches!(
            err.kind(),
            FrameErrorKind::ContentOffset {
                stored: 24,
                miss: OffsetMiss::InsideContent { start: 143 },
                ..
            }
        ),
        "{err:?}"
    );

    // Seventeen vlmetalayers, well formed: over c-blosc2's limit all the same.
    let names: Vec<String> = (0..=MAX_METALAYERS).map(|i| format!("k{i:02}")).collect();
    let pairs: Vec<(&str, i32)> = names.iter().map(|n| (n.as_str(), 0)).collect();
    let contents: Vec<&[u8]> = vec![b"v"; MAX_METALAYERS + 1];
    let err = Frame::parse(&with_trailer(&pairs, &contents)).unwrap_err();
    assert!(
        matches!(err.kind(), FrameErrorKind::TooManyMetalayers { count: 17 }),
        "{err:?}"
    );
}

#[test]
fn trailer_entries_must_end_at_frame_len() {
    // A whole 35-byte trailer, then another tail whose trailer_len (58) covers both: the
    // trailer found from the end starts at the first, whose entries end 23 bytes early.
    let mut bytes = with_trailer(&[], &[]);
    assert_eq!(Frame::parse(&bytes).unwrap().trailer.trailer_len, 35);
    bytes.extend_from_slice(&hex("ce0000003ad800"));
    bytes.extend_from_slice(&[0; 16]);
    let frame_len = bytes.len() as u64;
    assert_eq!(frame_len, 124 + 58);
    bytes[16..24].copy_from_slice(&frame_len.to_be_bytes());
    let err = Frame::parse(&bytes).unwrap_err();
    assert!(
        matches!(err.kind(), FrameErrorKind::EntriesEndEarly { end: 182 }),
        "{err:?}"
    );
    assert_eq!(err.offset(), Some(159));
    assert_eq!(
        err.to_string(),
        "at byte 0x9f: the trailer's last entry ends here, but the trailer runs to frame_len 182"
    );

    // A trailer_len one byte larger, over one byte of padding: the trailer starts at it.
    let mut bytes = with_trailer(&[], &[]);
    bytes.insert(124, 0x94);
    let frame_len = bytes.len() as u64;
    bytes[16..24].copy_from_slice(&frame_len.to_be_bytes());
    let at = bytes.len() - 22;
    put_u32(&mut bytes, at, 36);
    // 0x94 0x94: the second is not the version.
    assert_eq!(
        frame_err(&bytes),
        "frame_trailer_v1: at byte 0x7d (trailer byte 0x01) in version: expected positive fixint 0x00..=0x7f, found 0x94"
    );
}

#[test]
fn headers_whose_entries_end_before_header_len() {
    // header_len past the last content: c-blosc2 writes it exactly where the contents end.
    let mut bytes = ctable_embed();
    put_i32(&mut bytes, 11, 125);
    let err = parse_header(&bytes).unwrap_err();
    assert!(matches!(err.kind(), FrameErrorKind::EntriesEndEarly { end: 125 }));
    assert_eq!(err.offset(), Some(124));
    assert_eq!(
        err.to_string(),
        "at byte 0x7c: the header's last entry ends here, but header_len is 125"
    );
}

#[test]
fn header_offsets_inside_a_content() {
    // meta_user: "units" (offset stored at 0x6f) pointing at "tags"'s content 0x93 0x01...:
    // not a 0xc6. A 0xc6 inside a content: "b2nd"'s content holds none, so one is made.
    let mut bytes = fixture("files/blosc2-4/meta_user.b2nd");
    bytes[0xa0] = 0xc6;
    put_i32(&mut bytes, 0x64, 0xa0);
    let err = parse_header(&bytes).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            FrameErrorKind::ContentOffset {
                stored: 0xa0,
                miss: OffsetMiss::InsideContent { start: 0x92 },
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(err.offset(), Some(0x64));
    assert_eq!(
        err.to_string(),
        "at byte 0x64: metalayer \"b2nd\" content offset 160 points inside the content that starts at byte 0x92, not at the start of a content"
    );
}

#[test]
fn a_frame_type_that_contradicts_the_directory() {
    let dir = std::env::temp_dir().join(format!("metalayer-frame-type-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    // A contiguous frame's bytes as a sparse frame's chunks.b2frame.
    fs::write(dir.join("chunks.b2frame"), fixture("files/blosc2-4/meta_user.b2nd")).unwrap();
    for err in [Frame::open(&dir).unwrap_err(), read_metalayers(&dir).unwrap_err()] {
        assert!(matches!(err.kind(), FrameErrorKind::NotSparseFrameType { found: 0, path } if path == &dir));
        assert_eq!(err.offset(), Some(0x1a));
        assert_eq!(
            err.to_string(),
            format!(
                "at byte 0x1a: expected frame type 1 (sparse) in the chunks.b2frame of the directory {}, found 0",
                dir.display()
            )
        );
    }
    // The same bytes read as a file are a contiguous frame.
    assert_eq!(Frame::open(dir.join("chunks.b2frame")).unwrap().header.frame_type(), 0);
    fs::remove_dir_all(&dir).unwrap();
}
