//! The Blosc2 chunk a vlmetalayer's value is stored in: a memcpyed chunk, the value's bytes
//! after a 32-byte header that says they are stored as they are.

use std::vec::Vec;

use crate::chunk_format::{EXTENDED_HEADER_LEN as HEADER_LEN, MAX_BLOCKSIZE};

/// The largest block c-blosc2 accepts (`BLOSC2_MAXBLOCKSIZE`); a memcpyed chunk written here
/// is one block, so this bounds its value.
///
/// ```
/// assert_eq!(metalayer::frame::edit::MAX_VALUE_LEN, 536_866_816);
/// ```
pub const MAX_VALUE_LEN: usize = MAX_BLOCKSIZE;

/// The chunk header's first four bytes, as python-blosc2 (2.x to 4.x) writes them for a small
/// vlmetalayer value: format version 5 (`BLOSC2_VERSION_FORMAT_STABLE`), codec format version 1,
/// flags 0x07 (0x01 | 0x04: the extended header; 0x02: memcpyed), typesize 1.
const LEAD: [u8; 4] = [5, 1, 0x07, 1];

/// The extended header's 16 bytes after the sizes, as python-blosc2 writes them: the filter
/// pipeline (five empty slots, then shuffle, which a typesize of 1 makes a no-op), the codec
/// (Zstd, 5, which a memcpyed chunk does not use), codec meta, filter metas, reserved, Blosc2
/// flags.
const TAIL: [u8; 16] = [0, 0, 0, 0, 0, 1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0];

/// A memcpyed Blosc2 chunk holding `value` (typesize 1, one block of the whole value), which
/// every c-blosc2 release reads; `None` when `value` is empty or longer than
/// [`MAX_VALUE_LEN`].
///
/// The header is python-blosc2's for the same value, byte for byte (the tests compare with the
/// chunks it wrote).
///
/// ```
/// use metalayer::frame::edit::memcpyed_chunk;
///
/// // The chunk python-blosc2 writes for the msgpack value "abc": nbytes 4, blocksize 4,
/// // cbytes 36 (little-endian), then the value.
/// let chunk = memcpyed_chunk(b"\xa3abc").unwrap();
/// assert_eq!(chunk[..16], [5, 1, 7, 1, 4, 0, 0, 0, 4, 0, 0, 0, 36, 0, 0, 0]);
/// assert_eq!(chunk[32..], *b"\xa3abc");
/// assert_eq!(metalayer::vlmeta::decompress(&chunk, 1 << 20).unwrap(), b"\xa3abc");
/// assert!(memcpyed_chunk(b"").is_none());
/// ```
pub fn memcpyed_chunk(value: &[u8]) -> Option<Vec<u8>> {
    if value.is_empty() || value.len() > MAX_VALUE_LEN {
        return None;
    }
    let nbytes = u32::try_from(value.len()).ok()?;
    let cbytes = nbytes.checked_add(HEADER_LEN as u32)?;
    let mut chunk = Vec::with_capacity(value.len().saturating_add(HEADER_LEN));
    chunk.extend_from_slice(&LEAD);
    chunk.extend_from_slice(&nbytes.to_le_bytes());
    chunk.extend_from_slice(&nbytes.to_le_bytes());
    chunk.extend_from_slice(&cbytes.to_le_bytes());
    chunk.extend_from_slice(&TAIL);
    chunk.extend_from_slice(value);
    Some(chunk)
}
