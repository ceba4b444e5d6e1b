//! The frame's first [`PREFIX_LEN`] bytes: the magic, `header_len` and `frame_len`.

use super::{
    Entry, FRAME_LEN_AT, FrameError, FrameErrorKind, FrameHeader, HEADER_LEN_AT, MAGIC, MAX_HEADER_LEN, PREFIX_LEN,
    Section, be_array, wide,
};
use crate::Decode;

/// Reads `header_len` from the first [`PREFIX_LEN`] bytes of a frame, checking the magic, the
/// markers, that `header_len` lies in [`MIN_HEADER_LEN`](super::MIN_HEADER_LEN)`..=`[`MAX_HEADER_LEN`]
/// and that `frame_len` is at least `header_len`. Bytes after the prefix are ignored.
///
/// The prefix is read by `frame_header_v2`'s generated decoder, which reads entries in order and
/// stops at the first the input does not hold: on 24 bytes, that is the flags, so the three
/// entries before them have been checked.
///
/// ```
/// use metalayer::frame::{header_len, PREFIX_LEN};
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/dtype_i4le.b2nd");
/// let file = std::fs::read(path).unwrap();
/// assert_eq!(header_len(&file[..PREFIX_LEN])?, 0xa5);
/// assert_eq!(
///     header_len(&file[..12]).unwrap_err().to_string(),
///     "frame_header_v2: at byte 0x0b in header_len: expected 4 more bytes, found 1"
/// );
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
pub fn header_len(prefix: &[u8]) -> Result<usize, FrameError> {
    prefix_lens(prefix).map(|(header_len, _)| header_len)
}

/// Reads `frame_len` from the first [`PREFIX_LEN`] bytes of a frame, checked as [`header_len`]
/// checks them (so `frame_len` is at least `header_len`). A reader of a stream, which cannot seek
/// to the trailer, learns from it how far to read.
///
/// ```
/// use metalayer::frame::{frame_len, PREFIX_LEN};
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
/// let file = std::fs::read(path).unwrap();
/// assert_eq!(frame_len(&file[..PREFIX_LEN])?, 315);
/// assert_eq!(file.len(), 315);
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
pub fn frame_len(prefix: &[u8]) -> Result<u64, FrameError> {
    prefix_lens(prefix).map(|(_, frame_len)| frame_len)
}

/// An error in the prefix, at `offset` in `entry`.
fn at(offset: usize, entry: &'static str, kind: FrameErrorKind) -> FrameError {
    FrameError::at(wide(offset), Section::Header, Entry::Field(entry), kind)
}

/// The magic, compared as a whole before anything is decoded: as much of it as the input holds.
fn check_magic(prefix: &[u8]) -> Result<(), FrameError> {
    let have = prefix.get(..MAGIC.len()).unwrap_or(prefix);
    if MAGIC.get(..have.len()) != Some(have) {
        let mut found = [0; MAGIC.len()];
        if let Some(part) = found.get_mut(..have.len()) {
            part.copy_from_slice(have);
        }
        return Err(at(0, "magic", FrameErrorKind::BadMagic { found }));
    }
    if have.len() < MAGIC.len() {
        return Err(at(
            0,
            "magic",
            FrameErrorKind::Truncated {
                len: wide(prefix.len()),
            },
        ));
    }
    Ok(())
}

/// `header_len` and `frame_len`, checked as [`header_len`] says.
pub(super) fn prefix_lens(prefix: &[u8]) -> Result<(usize, u64), FrameError> {
    let prefix = prefix.get(..PREFIX_LEN).unwrap_or(prefix);
    check_magic(prefix)?;
    // How far the decoder got: every entry before `reached` has been read and checked.
    let (reached, error) = match FrameHeader::decode_prefix(prefix) {
        Ok(_) => (PREFIX_LEN, None),
        Err(e) => (e.offset(), Some(e)),
    };
    let value_at = HEADER_LEN_AT.saturating_add(1);
    let raw_header_len = (reached >= FRAME_LEN_AT)
        .then(|| be_array(prefix, value_at).map(i32::from_be_bytes))
        .flatten();
    // Our limit is checked before the schema's errors that follow header_len: it comes first.
    let header_len = raw_header_len.and_then(|raw| usize::try_from(raw).ok());
    if let Some(header_len) = header_len
        && header_len > MAX_HEADER_LEN
    {
        let kind = FrameErrorKind::HeaderLenTooLarge {
            header_len: wide(header_len),
        };
        return Err(at(value_at, "header_len", kind));
    }
    if let Some(error) = error
        && reached < PREFIX_LEN
    {
        return Err(FrameError::decode(error, Section::Header, 0, None));
    }
    let frame_len_at = FRAME_LEN_AT.saturating_add(1);
    let frame_len = be_array(prefix, frame_len_at).map(u64::from_be_bytes);
    match (header_len, frame_len) {
        (Some(header_len), Some(frame_len)) if frame_len < wide(header_len) => {
            let kind = FrameErrorKind::FrameLenTooSmall {
                frame_len,
                header_len: wide(header_len),
            };
            Err(at(frame_len_at, "frame_len", kind))
        }
        (Some(header_len), Some(frame_len)) => Ok((header_len, frame_len)),
        // Not reached: the decoder read both entries from these bytes, and header_len is at
        // least 97.
        _ => Err(at(
            0,
            "magic",
            FrameErrorKind::Truncated {
                len: wide(prefix.len()),
            },
        )),
    }
}
