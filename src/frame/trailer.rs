//! The trailer: the vlmetalayer section, `trailer_len` and the fingerprint, found from the
//! frame's end.

use std::vec::Vec;

use super::section::SectionAt;
use super::{
    Entry, FRAME_LEN_AT, FrameError, FrameErrorKind, FrameTrailer, MIN_TRAILER_LEN, MetalayerRef, Section,
    TRAILER_LEN_MARKER, TRAILER_TAIL_LEN, be_u32, byte_at, wide,
};
use crate::Decode;

/// An error in `frame_len`.
fn frame_len_error(kind: FrameErrorKind) -> FrameError {
    FrameError::at(
        wide(FRAME_LEN_AT.saturating_add(1)),
        Section::Header,
        Entry::Field("frame_len"),
        kind,
    )
}

/// Where the trailer's tail ([`TRAILER_TAIL_LEN`] bytes: `trailer_len` and the fingerprint)
/// starts, once `frame_len` is checked against the input (a file if `file`) and the header.
pub(super) fn tail_at(header_len: usize, frame_len: u64, input_len: u64, file: bool) -> Result<u64, FrameError> {
    if frame_len > input_len {
        return Err(frame_len_error(FrameErrorKind::PastInput {
            len: frame_len,
            input_len,
            file,
        }));
    }
    if frame_len.saturating_sub(wide(header_len)) < wide(MIN_TRAILER_LEN) {
        return Err(frame_len_error(FrameErrorKind::NoRoomForTrailer {
            frame_len,
            header_len: wide(header_len),
        }));
    }
    Ok(frame_len.saturating_sub(wide(TRAILER_TAIL_LEN)))
}

/// The trailer's offset and length, from its tail.
pub(super) fn trailer_place(
    tail: &[u8],
    tail_at: u64,
    header_len: usize,
    frame_len: u64,
) -> Result<(u64, u32), FrameError> {
    let error = |at: u64, kind| FrameError::at(at, Section::Trailer, Entry::Field("trailer_len"), kind);
    let marker = byte_at(tail, 0).unwrap_or_default();
    if marker != TRAILER_LEN_MARKER {
        let kind = FrameErrorKind::TrailerLenMarker {
            expected: TRAILER_LEN_MARKER,
            found: marker,
        };
        return Err(error(tail_at, kind));
    }
    let trailer_len = be_u32(tail, 1).unwrap_or_default();
    let max = frame_len.saturating_sub(wide(header_len));
    if u64::from(trailer_len) < wide(MIN_TRAILER_LEN) || u64::from(trailer_len) > max {
        let kind = FrameErrorKind::TrailerLenOutOfRange { trailer_len, max };
        return Err(error(tail_at.saturating_add(1), kind));
    }
    Ok((frame_len.saturating_sub(u64::from(trailer_len)), trailer_len))
}

/// Decodes a trailer (exactly `trailer_len` bytes, at `trailer_offset` in the frame) and finds
/// its vlmetalayers.
pub(super) fn decode_trailer(
    trailer: &[u8],
    trailer_offset: u64,
    frame_len: u64,
) -> Result<(FrameTrailer<'_>, Vec<MetalayerRef<'_>>), FrameError> {
    let section = SectionAt::trailer(trailer_offset, frame_len);
    let (decoded, end) = FrameTrailer::decode_prefix(trailer).map_err(|e| section.decode_error(e, trailer))?;
    let index = &decoded.vlmetalayers;
    let vlmetalayers = section.resolve(&index.offsets, &index.contents, trailer)?;
    if end != trailer.len() {
        let kind = FrameErrorKind::EntriesEndEarly { end: frame_len };
        return Err(section.error(end, Entry::End, kind));
    }
    Ok((decoded, vlmetalayers))
}
