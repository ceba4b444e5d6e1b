//! The frame reader: the header length from the fixed prefix, the metalayers from a header, and
//! a whole frame (header and trailer, found from `frame_len`), then its body (the chunks and
//! their index); and the generated decoders of `frame_header_v2` and `frame_trailer_v1` on their
//! own.
#![no_main]

use libfuzzer_sys::fuzz_target;
use metalayer::frame::{
    Frame, FrameHeader, FrameRef, FrameTrailer, MAX_HEADER_LEN, MAX_METALAYERS, MIN_HEADER_LEN, MIN_TRAILER_LEN,
    check_body_from, header_len, parse_header,
};
use metalayer::prelude::*;

/// A content the reader returned sits in `data` at its offset, after its `0xc6` and length,
/// inside `range`.
fn check_content(data: &[u8], offset: u64, content: &[u8], range: std::ops::Range<usize>) {
    let start = usize::try_from(offset).expect("offset fits");
    assert!(start >= range.start + 5 && start + content.len() <= range.end);
    assert_eq!(data[start - 5], 0xc6);
    assert_eq!(data[start - 4..start], (content.len() as u32).to_be_bytes());
    assert_eq!(data.get(start..start + content.len()), Some(content));
}

fuzz_target!(|data: &[u8]| {
    match header_len(data) {
        Ok(len) => assert!((MIN_HEADER_LEN..=MAX_HEADER_LEN).contains(&len)),
        Err(err) => {
            let _ = err.to_string();
        }
    }
    let header = match parse_header(data) {
        Ok(layers) => {
            assert!(layers.len() <= MAX_METALAYERS);
            let len = header_len(data).expect("a parsed header has a header_len");
            for layer in &layers {
                check_content(data, layer.offset, &layer.content, 0..len);
            }
            Some(layers)
        }
        Err(err) => {
            let _ = err.to_string();
            None
        }
    };
    match Frame::parse(data) {
        Ok(frame) => {
            // A frame's header is a header.
            assert_eq!(header.as_ref(), Some(&frame.metalayers));
            let header_len = frame.header.header_len;
            let frame_len = usize::try_from(frame.header.frame_len).expect("frame_len fits");
            let start = usize::try_from(frame.trailer.offset).expect("offset fits");
            let trailer_len = frame.trailer.trailer_len as usize;
            assert!(frame_len <= data.len() && start >= header_len && trailer_len >= MIN_TRAILER_LEN);
            assert_eq!(start + trailer_len, frame_len);
            assert!(frame.vlmetalayers.len() <= MAX_METALAYERS);
            for layer in &frame.vlmetalayers {
                check_content(data, layer.offset, &layer.content, start..frame_len);
            }
            // Both parts re-encode to exactly their bytes.
            let bytes = &data[..header_len];
            assert_eq!(
                FrameHeader::decode(bytes).expect("header").encode().expect("encode"),
                bytes
            );
            let bytes = &data[start..frame_len];
            assert_eq!(
                FrameTrailer::decode(bytes).expect("trailer").encode().expect("encode"),
                bytes
            );
            // The body: within the frame, or an error placed in it.
            let borrowed = FrameRef::parse(data).expect("the frame parses");
            match check_body_from(std::io::Cursor::new(data), &borrowed, None) {
                Ok(body) => {
                    assert!(body.special_chunks <= body.nchunks);
                    assert!(body.data_end >= header_len as u64 && body.index_offset == body.data_end);
                    assert!(body.data_end + body.index_len <= frame.trailer.offset);
                }
                Err(err) => {
                    assert!(err.offset().is_none_or(|at| at < frame_len as u64), "{err}");
                    let _ = err.to_string();
                }
            }
        }
        Err(err) => {
            let _ = err.to_string();
        }
    }
    // The generated decoders on their own: a decoded value re-encodes to the bytes it used.
    if let Ok((h, used)) = FrameHeader::decode_prefix(data) {
        assert_eq!(h.encode().expect("encode"), &data[..used]);
    }
    if let Ok((t, used)) = FrameTrailer::decode_prefix(data) {
        assert_eq!(t.encode().expect("encode"), &data[..used]);
    }
});
