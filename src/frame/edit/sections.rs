//! The new header and trailer, written by the generated encoders of `frame_header_v2` and
//! `frame_trailer_v1`, then read back by the frame reader before anything is written.

use std::vec::Vec;

use metalayer_runtime::wire::Wire;

use super::super::header::decode_header;
use super::super::trailer::decode_trailer;
use super::super::{
    FrameError, FrameHeader, FrameTrailer, SECTION_PAIRS_AT, Section, TRAILER_SECTION_AT, TRAILER_TAIL_LEN,
    VlMetalayerIndex, wide,
};
use super::EditError;
use crate::{Decode, Ext, Metalayer};

/// Where a borrowed part starts in `buf`.
fn position(buf: &[u8], part: &[u8]) -> usize {
    part.as_ptr().addr().saturating_sub(buf.as_ptr().addr())
}

/// The header with its metalayer contents replaced (`(offset, bytes)`: the content at that
/// offset, of the same length), `frame_len` and `has_vlmetalayers` set.
pub(super) fn header(
    old: &[u8],
    contents: &[(u64, &[u8])],
    frame_len: u64,
    has_vlmetalayers: bool,
) -> Result<Vec<u8>, EditError> {
    // The header was read and checked before: the decoder reads it again.
    let (mut h, _) = FrameHeader::decode_prefix(old).map_err(|e| FrameError::decode(e, Section::Header, 0, None))?;
    h.frame_len = frame_len;
    h.has_vlmetalayers = has_vlmetalayers;
    for content in &mut h.metalayers.contents {
        let at = wide(position(old, content));
        if let Some(&(_, new)) = contents.iter().find(|(offset, _)| *offset == at) {
            *content = new;
        }
    }
    let bytes = h.encode()?;
    // Same lengths, same header_len: the reader checks that it is where the last entry ends.
    decode_header(&bytes)?;
    Ok(bytes)
}

/// The trailer of `vlmetalayers` (name, chunk), at `trailer_offset` in a frame, with the old
/// trailer's fingerprint, laid out as c-blosc2's `frame_update_trailer` lays it out: the map's
/// offsets from the trailer's first byte, the index size from the size entry's marker to the
/// map's end.
pub(super) fn trailer(
    vlmetalayers: &[(&str, &[u8])],
    fingerprint: Ext<[u8; 16]>,
    trailer_offset: u64,
) -> Result<Vec<u8>, EditError> {
    let (size, offsets, trailer_len) = trailer_places(vlmetalayers).ok_or_else(|| EditError::TrailerTooLong {
        len: vlmetalayers.iter().map(|(_, chunk)| wide(chunk.len())).sum(),
    })?;
    let t = FrameTrailer {
        vlmetalayers: VlMetalayerIndex {
            size,
            offsets,
            contents: vlmetalayers.iter().map(|&(_, chunk)| chunk).collect(),
        },
        trailer_len,
        fingerprint,
    };
    let bytes = t.encode()?;
    let frame_len = trailer_offset.saturating_add(wide(bytes.len()));
    decode_trailer(&bytes, trailer_offset, frame_len)?;
    Ok(bytes)
}

/// A trailer's index size, its map of names to content offsets, and its length.
type TrailerPlaces<'a> = (u16, Vec<(&'a str, i32)>, u32);

/// The index size, each content's offset and the trailer's length; `None` when an offset does
/// not fit an int32 or the length a uint32. The names (at most 31 bytes, a fixstr) and the
/// count (at most 16) have been checked, so the index fits its size.
fn trailer_places<'a>(vlmetalayers: &[(&'a str, &[u8])]) -> Option<TrailerPlaces<'a>> {
    let key = Wire::FixStr.header_size();
    let offset = Wire::Int32.header_size();
    // The pairs start after the section's fixarray, its size and the map16's header; the size
    // counts from its own marker, which follows the section's marker.
    let size_at = TRAILER_SECTION_AT.saturating_add(1);
    let map_end = vlmetalayers
        .iter()
        .fold(TRAILER_SECTION_AT.saturating_add(SECTION_PAIRS_AT), |at, (name, _)| {
            at.saturating_add(key).saturating_add(name.len()).saturating_add(offset)
        });
    let mut at = map_end.saturating_add(Wire::Array16.header_size());
    let mut offsets = Vec::with_capacity(vlmetalayers.len());
    for &(name, chunk) in vlmetalayers {
        offsets.push((name, i32::try_from(at).ok()?));
        at = at.checked_add(Wire::Bin32.header_size())?.checked_add(chunk.len())?;
    }
    let len = u32::try_from(at.checked_add(TRAILER_TAIL_LEN)?).ok()?;
    let size = u16::try_from(map_end.saturating_sub(size_at)).ok()?;
    Some((size, offsets, len))
}
