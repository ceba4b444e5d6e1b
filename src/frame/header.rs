//! The header: the prefix, the fixed fields and the metalayer section, `header_len` bytes.

use std::vec::Vec;

use super::section::SectionAt;
use super::{
    Entry, FrameError, FrameErrorKind, FrameHeader, FrameMetalayer, HEADER_LEN_AT, MetalayerRef, Section, wide,
};
use crate::Decode;

/// The header's bytes: the first `header_len` bytes of `frame`, or an error. `file` says
/// whether `frame` is a file's bytes (for the message).
pub(super) fn header_bytes(frame: &[u8], file: bool) -> Result<&[u8], FrameError> {
    let header_len = super::header_len(frame)?;
    frame
        .get(..header_len)
        .ok_or_else(|| past_input(header_len, wide(frame.len()), file))
}

/// `header_len` runs past the end of the input.
pub(super) fn past_input(header_len: usize, input_len: u64, file: bool) -> FrameError {
    let kind = FrameErrorKind::PastInput {
        len: wide(header_len),
        input_len,
        file,
    };
    FrameError::at(
        wide(HEADER_LEN_AT.saturating_add(1)),
        Section::Header,
        Entry::Field("header_len"),
        kind,
    )
}

/// Decodes a header of exactly `header_len` bytes (the prefix checked) and finds its
/// metalayers.
pub(super) fn decode_header(header: &[u8]) -> Result<(FrameHeader<'_>, Vec<MetalayerRef<'_>>), FrameError> {
    let section = SectionAt::header(header.len());
    let (decoded, end) = FrameHeader::decode_prefix(header).map_err(|e| section.decode_error(e, header))?;
    let index = &decoded.metalayers;
    let metalayers = section.resolve(&index.offsets, &index.contents, header)?;
    if end != header.len() {
        let kind = FrameErrorKind::EntriesEndEarly {
            end: wide(header.len()),
        };
        return Err(section.error(end, Entry::End, kind));
    }
    Ok((decoded, metalayers))
}

/// Parses the metalayers out of the start of a frame held in memory, in stored order.
///
/// `header` must hold at least the first `header_len` bytes of the frame (see
/// [`header_len`](super::header_len)); bytes after them are ignored, so a whole frame may be
/// given too. See the [module documentation](super) for what is checked.
///
/// ```
/// use metalayer::frame::parse_header;
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/caterva-0.7/meta_user.cat");
/// let file = std::fs::read(path).unwrap();
/// let metalayers = parse_header(&file)?;
/// assert_eq!(metalayers[0].name, "caterva");
/// assert_eq!(metalayers[2].name, "scale");
/// assert_eq!(metalayers[2].content, [0x03]);
///
/// // A corrupted map marker is reported where it is, with the entry that holds it.
/// let mut bad = file.clone();
/// bad[0x5b] = 0x80;
/// assert_eq!(
///     parse_header(&bad).unwrap_err().to_string(),
///     "frame_header_v2: at byte 0x5b in metalayers.offsets: expected map16 marker 0xde, found 0x80"
/// );
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
pub fn parse_header(header: &[u8]) -> Result<Vec<FrameMetalayer>, FrameError> {
    let (_, metalayers) = decode_header(header_bytes(header, false)?)?;
    Ok(metalayers.iter().map(MetalayerRef::to_owned).collect())
}
