//! A metalayer section, the header's or the trailer's: a map of names to the offsets of their
//! contents, then an array of bin32 contents. One reader for both, given where the section's
//! buffer is in the frame. Every position comes from the decoder: the names and contents it
//! returns borrow from the buffer, so where each one starts is where its bytes are.

use std::borrow::ToOwned;
use std::vec::Vec;

use metalayer_runtime::wire::Wire;

use super::{
    ARRAY16_MARKER, BIN32_MARKER, Entry, FrameError, FrameErrorKind, HEADER_SECTION_AT, MAP16_MARKER, MAX_METALAYERS,
    MetalayerRef, OffsetMiss, SECTION_MAP_AT, SECTION_PAIRS_AT, Section, TRAILER_SECTION_AT, be_u16, be_u32, byte_at,
    wide,
};
use crate::{DecodeError, DecodeErrorKind};

/// A content's bin32 header: its marker and u32 length.
const BIN32_HEADER: usize = Wire::Bin32.header_size();
/// A pair's offset: its int32 marker and value.
const INT32_LEN: usize = Wire::Int32.header_size();

/// Where a section's buffer is: which section, where its `0x93` is in the buffer, where the
/// buffer starts in the frame, and where the section ends in the frame.
pub(super) struct SectionAt {
    section: Section,
    at: usize,
    base: u64,
    end: u64,
}

/// Where the parts of a decoded section are in its buffer: each name's offset value, the
/// array's count, and each content's `0xc6`.
struct Placement {
    offset_at: Vec<usize>,
    count_at: usize,
    content_at: Vec<usize>,
}

/// Where `part`, which the decoder borrowed from `buf`, starts in `buf`.
fn position(buf: &[u8], part: *const u8) -> usize {
    part.addr()
        .checked_sub(buf.as_ptr().addr())
        .filter(|&at| at <= buf.len())
        .unwrap_or(buf.len())
}

/// A count as stored (u16), for messages.
fn count16(n: usize) -> u16 {
    u16::try_from(n).unwrap_or(u16::MAX)
}

impl SectionAt {
    /// The header's section: the buffer is the frame's first `header_len` bytes.
    pub(super) fn header(header_len: usize) -> Self {
        SectionAt {
            section: Section::Header,
            at: HEADER_SECTION_AT,
            base: 0,
            end: wide(header_len),
        }
    }

    /// The trailer's section: the buffer is the trailer, at `trailer_offset` in the frame.
    pub(super) fn trailer(trailer_offset: u64, frame_len: u64) -> Self {
        SectionAt {
            section: Section::Trailer,
            at: TRAILER_SECTION_AT,
            base: trailer_offset,
            end: frame_len,
        }
    }

    /// An error at `at` in the buffer.
    pub(super) fn error(&self, at: usize, entry: Entry, kind: FrameErrorKind) -> FrameError {
        FrameError::at(self.base.saturating_add(wide(at)), self.section, entry, kind)
    }

    /// The decoder's error on the buffer, or, where it comes from a rule of this reader's, that
    /// rule's: a map over [`MAX_METALAYERS`] (it comes first), an array of contents whose count
    /// is not the map's, a content whose length runs past the section's end.
    pub(super) fn decode_error(&self, error: DecodeError, buf: &[u8]) -> FrameError {
        if let Some(count) = self.count_over_limit(buf, error.offset()) {
            let kind = FrameErrorKind::TooManyMetalayers { count };
            return self.error(self.map_count_at(), Entry::MapCount, kind);
        }
        if let Some(e) = self.contents_count_mismatch(&error, buf) {
            return e;
        }
        if let Some(e) = self.content_past_end(&error, buf) {
            return e;
        }
        FrameError::decode(error, self.section, self.base, Some(self.end))
    }

    /// Where the map's count is.
    fn map_count_at(&self) -> usize {
        self.at.saturating_add(SECTION_MAP_AT).saturating_add(1)
    }

    /// The count the map16 header states, when the decoder failed after it and it is over the
    /// limit.
    fn count_over_limit(&self, buf: &[u8], reached: usize) -> Option<u16> {
        let map_at = self.at.saturating_add(SECTION_MAP_AT);
        if reached < self.at.saturating_add(SECTION_PAIRS_AT) || byte_at(buf, map_at) != Some(MAP16_MARKER) {
            return None;
        }
        be_u16(buf, self.map_count_at()).filter(|&count| usize::from(count) > MAX_METALAYERS)
    }

    /// When the decoder refused the contents as a whole (more than the bytes left can hold,
    /// checked before any is read) and their count differs from the map's.
    fn contents_count_mismatch(&self, error: &DecodeError, buf: &[u8]) -> Option<FrameError> {
        let whole = [(self.section_entry(), None), ("contents", None)];
        if !matches!(error.kind(), DecodeErrorKind::Truncated { .. }) || !error.path().is(&whole) {
            return None;
        }
        let count_at = error.offset().checked_sub(2)?;
        if byte_at(buf, count_at.checked_sub(1)?) != Some(ARRAY16_MARKER) {
            return None;
        }
        let map_at = self.at.saturating_add(SECTION_MAP_AT);
        let map = (byte_at(buf, map_at) == Some(MAP16_MARKER)).then(|| be_u16(buf, self.map_count_at()))??;
        let array = be_u16(buf, count_at)?;
        let kind = FrameErrorKind::CountMismatch { map, array };
        (map != array).then(|| self.error(count_at, Entry::ArrayCount, kind))
    }

    /// When the decoder found a content shorter than its length says: the error at the length.
    fn content_past_end(&self, error: &DecodeError, buf: &[u8]) -> Option<FrameError> {
        let &DecodeErrorKind::Truncated { needed, .. } = error.kind() else {
            return None;
        };
        let (entry, index) = (error.path().level(0)?, error.path().level(1)?);
        let (("contents", Some(index)), true) = (index, entry == (self.section_entry(), None)) else {
            return None;
        };
        if error.path().depth() != 2 {
            return None;
        }
        let len_at = error.offset().checked_sub(4)?;
        let len = be_u32(buf, len_at)?;
        let framed = byte_at(buf, len_at.saturating_sub(1)) == Some(BIN32_MARKER)
            && byte_at(buf, error.offset().saturating_sub(1)) != Some(BIN32_MARKER);
        let kind = FrameErrorKind::ContentPastEnd { len, end: self.end };
        (framed && usize::try_from(len).ok() == Some(needed)).then(|| self.error(len_at, Entry::Content(index), kind))
    }

    /// The schema's name for the section's record: `metalayers` or `vlmetalayers`.
    fn section_entry(&self) -> &'static str {
        match self.section {
            Section::Header => "metalayers",
            Section::Trailer | Section::Body => "vlmetalayers",
        }
    }

    /// The metalayers of a decoded section, each content found through its offset, as c-blosc2
    /// finds them. Which content a name points at is up to the map.
    pub(super) fn resolve<'b>(
        &self,
        offsets: &[(&'b str, i32)],
        contents: &[&'b [u8]],
        buf: &[u8],
    ) -> Result<Vec<MetalayerRef<'b>>, FrameError> {
        let count = offsets.len();
        if count > MAX_METALAYERS {
            let kind = FrameErrorKind::TooManyMetalayers { count: count16(count) };
            return Err(self.error(self.map_count_at(), Entry::MapCount, kind));
        }
        let placement = self.place(buf, offsets, contents);
        if contents.len() != count {
            let kind = FrameErrorKind::CountMismatch {
                map: count16(count),
                array: count16(contents.len()),
            };
            return Err(self.error(placement.count_at, Entry::ArrayCount, kind));
        }
        let mut metalayers = Vec::with_capacity(count);
        for (&(name, stored), &offset_at) in offsets.iter().zip(&placement.offset_at) {
            let index = self.target(stored, buf, &placement).map_err(|miss| {
                let kind = FrameErrorKind::ContentOffset {
                    name: name.to_owned(),
                    stored,
                    from: self.base,
                    miss,
                };
                self.error(offset_at, Entry::Offset(name.to_owned()), kind)
            })?;
            let content = contents.get(index).copied().unwrap_or_default();
            let start = position(buf, content.as_ptr());
            metalayers.push(MetalayerRef {
                name,
                offset: self.base.saturating_add(wide(start)),
                content,
            });
        }
        Ok(metalayers)
    }

    /// Where each pair's offset, the array's count and each content are, from where the decoder
    /// found the names and the contents.
    fn place(&self, buf: &[u8], offsets: &[(&str, i32)], contents: &[&[u8]]) -> Placement {
        // After each name, its offset's int32 marker, then the value.
        let offset_at: Vec<usize> = offsets
            .iter()
            .map(|(name, _)| {
                position(buf, name.as_ptr())
                    .saturating_add(name.len())
                    .saturating_add(1)
            })
            .collect();
        let pairs_end = match offset_at.last() {
            Some(&value_at) => value_at.saturating_add(INT32_LEN).saturating_sub(1),
            None => self.at.saturating_add(SECTION_PAIRS_AT),
        };
        let content_at = contents
            .iter()
            .map(|content| position(buf, content.as_ptr()).saturating_sub(BIN32_HEADER))
            .collect();
        Placement {
            offset_at,
            // After the array16's marker.
            count_at: pairs_end.saturating_add(1),
            content_at,
        }
    }

    /// The content a stored offset points at, by index.
    fn target(&self, stored: i32, buf: &[u8], placement: &Placement) -> Result<usize, OffsetMiss> {
        let at = usize::try_from(stored).map_err(|_| OffsetMiss::Negative)?;
        let frame = |at: usize| self.base.saturating_add(wide(at));
        let byte = byte_at(buf, at).ok_or(OffsetMiss::Outside { end: self.end })?;
        let first = placement.content_at.first().copied().unwrap_or(buf.len());
        if at < first {
            return Err(OffsetMiss::BeforeContents { start: frame(first) });
        }
        // Contents are stored one after the other, so a binary search finds the one at or before.
        match placement.content_at.binary_search(&at) {
            Ok(i) => Ok(i),
            Err(_) if byte != BIN32_MARKER => Err(OffsetMiss::NotMarker {
                at: frame(at),
                found: byte,
            }),
            Err(i) => {
                let start = i.checked_sub(1).and_then(|j| placement.content_at.get(j)).copied();
                Err(OffsetMiss::InsideContent {
                    start: frame(start.unwrap_or(first)),
                })
            }
        }
    }
}
