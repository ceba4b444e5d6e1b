//! Reading the metalayers out of a Blosc2 frame's header, without reading the rest of the frame.
//!
//! A Blosc2 contiguous frame (`.b2nd`, `.b2frame`, caterva's `.cat`) starts with a msgpack
//! header that holds the fixed metalayers (`b2nd`, `caterva`, user metalayers) by name. A
//! sparse frame is a directory whose `chunks.b2frame` file starts with the same header.
//! [`read_metalayers`] reads only that header: the first [`PREFIX_LEN`] bytes, to learn
//! `header_len`, then exactly `header_len` bytes. [`parse_header`] does the parsing on bytes
//! already in memory, and [`header_len`] tells how many bytes it needs.
//!
//! ```
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
//! let metalayers = metalayer::frame::read_metalayers(path)?;
//! let names: Vec<&str> = metalayers.iter().map(|m| m.name.as_str()).collect();
//! assert_eq!(names, ["b2nd", "units", "scale", "tags", "m"]);
//! assert_eq!(metalayers[1].content, b"\xa6kelvin");
//! # Ok::<(), metalayer::frame::FrameError>(())
//! ```
//!
//! # The header layout
//!
//! All integers are big-endian; offsets are from the start of the frame.
//!
//! | offset | bytes | meaning |
//! |---|---|---|
//! | 0 | `0x9e 0xa8 "b2frame\0"` | magic: fixarray(14), fixstr(8) |
//! | 10 | `0xd2` i32 | `header_len` |
//! | 15 | `0xcf` u64 | `frame_len` |
//! | 87 | `0x93 0xcd` u16 | fixarray(3); size of the metalayer index (from byte 87 to the map's end) |
//! | 91 | `0xde` u16 | map16: number of metalayers |
//! | 94 | per metalayer: `0xa0 + len` name, `0xd2` i32 | the name, and the absolute offset of its content's `0xc6` |
//! | after the map | `0xdc` u16 | array16: number of contents |
//! | | per metalayer: `0xc6` i32 content | bin32: the content, through `header_len` |
//!
//! # What is checked
//!
//! The parser is strict about structure and lenient about what it does not need:
//!
//! - the 10 magic bytes, the markers `0xd2` (byte 10), `0xcf` (15), `0x93` (87), `0xcd` (88),
//!   `0xde` (91), each name's fixstr marker `0xa0..=0xbf`, each offset's `0xd2`, the `0xdc` after
//!   the map and each content's `0xc6`;
//! - `header_len` is not negative, at least [`MIN_HEADER_LEN`], at most [`MAX_HEADER_LEN`], at
//!   most `frame_len`, and (when reading a file) at most the file's length;
//! - at most [`MAX_METALAYERS`] metalayers, and the `0xdc` count equals the map's count;
//! - names are UTF-8;
//! - each content offset lies in the content section (after the `0xdc` count, before
//!   `header_len`) and points at `0xc6`, whose length is not negative and whose content ends by
//!   `header_len`.
//!
//! Contents are found through the map's offsets, as c-blosc2 finds them; their order, gaps and
//! overlaps are not checked. The index size at byte 89, the rest of the fixed header (flags,
//! sizes, codecs) and the bytes after `header_len` are not read or checked: c-blosc2 does not
//! use the index size either. Duplicate names are returned as stored.
//!
//! Every error names the byte offset and what was expected and found; no input makes the
//! parser panic, and nothing is allocated by a length before that length is checked.

// The parser indexes nothing directly and does no unchecked arithmetic.
#![deny(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used
)]

use std::borrow::ToOwned;
use std::fmt;
use std::format;
use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::string::String;
use std::vec::Vec;

/// How many bytes [`header_len`] needs: the magic, `header_len` and `frame_len`.
///
/// ```
/// assert_eq!(metalayer::frame::PREFIX_LEN, 24);
/// ```
pub const PREFIX_LEN: usize = 24;

/// The smallest `header_len` accepted: the fixed part, the map's count and the `0xdc` array's
/// count (a frame without metalayers).
///
/// ```
/// assert_eq!(metalayer::frame::MIN_HEADER_LEN, 97);
/// ```
pub const MIN_HEADER_LEN: usize = 97;

/// The largest `header_len` accepted, 64 MiB: real headers hold a few hundred bytes.
///
/// ```
/// assert_eq!(metalayer::frame::MAX_HEADER_LEN, 1 << 26);
/// ```
pub const MAX_HEADER_LEN: usize = 1 << 26;

/// The most metalayers a frame may hold (`BLOSC2_MAX_METALAYERS` in c-blosc2).
///
/// ```
/// assert_eq!(metalayer::frame::MAX_METALAYERS, 16);
/// ```
pub const MAX_METALAYERS: usize = 16;

/// The name of the file holding the frame header in a sparse-frame directory.
const SPARSE_HEADER_FILE: &str = "chunks.b2frame";

const MAGIC: [u8; 10] = *b"\x9e\xa8b2frame\0";
const HEADER_LEN_AT: usize = 10;
const FRAME_LEN_AT: usize = 15;
const INDEX_AT: usize = 87;
const MAP_AT: usize = 91;
const ENTRIES_AT: usize = 94;

/// One metalayer of a frame header.
///
/// ```
/// use metalayer::frame::{read_metalayers, FrameMetalayer};
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/dtype_i4le.b2nd");
/// let metalayers: Vec<FrameMetalayer> = read_metalayers(path)?;
/// let b2nd = &metalayers[0];
/// assert_eq!(b2nd.name, "b2nd");
/// // The content starts after its 0xc6 marker and i32 length, here at 0x6b + 5.
/// assert_eq!(b2nd.offset, 0x70);
/// let file = std::fs::read(path).unwrap();
/// assert_eq!(&file[0x70..0x70 + b2nd.content.len()], b2nd.content);
/// assert_eq!(b2nd.content[..3], [0x97, 0x00, 0x02]);
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FrameMetalayer {
    /// The metalayer's name, such as `"b2nd"` or `"caterva"`.
    pub name: String,
    /// The absolute offset in the frame (the file, or `chunks.b2frame` of a sparse frame) of the
    /// content's first byte. Its `0xc6` marker and length sit in the 5 bytes before it.
    pub offset: u64,
    /// The content: the metalayer's bytes (usually msgpack), without the `0xc6` framing.
    pub content: Vec<u8>,
}

/// Why a frame header could not be read.
///
/// ```
/// use metalayer::frame::{parse_header, FrameError};
///
/// let err = parse_header(b"\x9e\xa8b2frame\x01").unwrap_err();
/// assert!(matches!(err, FrameError::BadMagic { .. }));
/// assert_eq!(
///     err.to_string(),
///     r#"at byte 0x00: expected frame magic 0x9e 0xa8 "b2frame\0", found 0x9e 0xa8 0x62 0x32 0x66 0x72 0x61 0x6d 0x65 0x01"#
/// );
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum FrameError {
    /// Opening, inspecting or reading a file failed. The message names the path; the io error
    /// is the `source()`.
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// A directory was given, but it holds no `chunks.b2frame` file.
    NotSparseFrame {
        /// The directory.
        path: PathBuf,
    },
    /// The input ended inside the fixed prefix.
    Truncated {
        /// Where the missing item starts.
        offset: usize,
        /// What was expected there.
        expected: String,
        /// The input's length.
        len: usize,
    },
    /// The first 10 bytes are not the frame magic.
    BadMagic {
        /// The first 10 bytes.
        found: [u8; 10],
    },
    /// A msgpack marker is not the one the layout puts there.
    UnexpectedByte {
        /// The marker's offset.
        offset: usize,
        /// What was expected.
        expected: String,
        /// The byte found.
        found: u8,
    },
    /// `header_len` is negative.
    NegativeHeaderLen {
        /// The stored value.
        header_len: i32,
    },
    /// `header_len` is below [`MIN_HEADER_LEN`].
    HeaderLenTooSmall {
        /// The stored value.
        header_len: usize,
    },
    /// `header_len` is above [`MAX_HEADER_LEN`].
    HeaderLenTooLarge {
        /// The stored value.
        header_len: usize,
    },
    /// `frame_len` is smaller than `header_len`.
    FrameLenTooSmall {
        /// The stored `frame_len`.
        frame_len: u64,
        /// The stored `header_len`.
        header_len: usize,
    },
    /// `header_len` is larger than the file.
    HeaderLenExceedsFile {
        /// The stored `header_len`.
        header_len: usize,
        /// The file's length.
        file_len: u64,
    },
    /// [`parse_header`] was given fewer than `header_len` bytes.
    HeaderLenExceedsInput {
        /// The stored `header_len`.
        header_len: usize,
        /// The input's length.
        len: usize,
    },
    /// The header ended (at `header_len`) where the layout needs more bytes.
    PastHeaderEnd {
        /// Where the missing item starts.
        offset: usize,
        /// What was expected there.
        expected: String,
        /// The stored `header_len`.
        header_len: usize,
    },
    /// The map holds more than [`MAX_METALAYERS`] metalayers.
    TooManyMetalayers {
        /// The stored count.
        count: u16,
    },
    /// A metalayer name is not UTF-8.
    NameNotUtf8 {
        /// Where the name's bytes start.
        offset: usize,
        /// The name's bytes.
        name: Vec<u8>,
    },
    /// A content offset in the map is negative.
    NegativeContentOffset {
        /// Where the offset is stored.
        offset: usize,
        /// The metalayer.
        name: String,
        /// The stored offset.
        content_offset: i32,
    },
    /// A content offset in the map is at or past `header_len`.
    ContentOffsetOutsideHeader {
        /// Where the offset is stored.
        offset: usize,
        /// The metalayer.
        name: String,
        /// The stored offset.
        content_offset: usize,
        /// The stored `header_len`.
        header_len: usize,
    },
    /// A content offset in the map points before the content section (into the fixed header or
    /// the map).
    ContentOffsetBeforeContents {
        /// Where the offset is stored.
        offset: usize,
        /// The metalayer.
        name: String,
        /// The stored offset.
        content_offset: usize,
        /// Where the content section starts (after the `0xdc` count).
        start: usize,
    },
    /// A content's i32 length is negative.
    NegativeContentLen {
        /// Where the length is stored.
        offset: usize,
        /// The metalayer.
        name: String,
        /// The stored length.
        len: i32,
    },
    /// A content runs past `header_len`.
    ContentPastHeader {
        /// Where the length is stored.
        offset: usize,
        /// The metalayer.
        name: String,
        /// The stored length.
        len: usize,
        /// The stored `header_len`.
        header_len: usize,
    },
    /// The `0xdc` array's count differs from the map's count.
    CountMismatch {
        /// Where the array's count is stored.
        offset: usize,
        /// The map's count.
        expected: u16,
        /// The array's count.
        found: u16,
    },
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The io error is the source: shown by whoever prints the chain.
            FrameError::Io { path, .. } => write!(f, "cannot read {}", path.display()),
            FrameError::NotSparseFrame { path } => write!(
                f,
                "{} is a directory without a chunks.b2frame file, so not a sparse frame",
                path.display()
            ),
            FrameError::Truncated { offset, expected, len } => write!(
                f,
                "at byte {}: expected {expected}, found the end of the input ({len} bytes)",
                Hex(*offset)
            ),
            FrameError::BadMagic { found } => write!(
                f,
                r#"at byte 0x00: expected frame magic 0x9e 0xa8 "b2frame\0", found {}"#,
                HexBytes(found)
            ),
            FrameError::UnexpectedByte {
                offset,
                expected,
                found,
            } => write!(f, "at byte {}: expected {expected}, found 0x{found:02x}", Hex(*offset)),
            FrameError::NegativeHeaderLen { header_len } => {
                write!(f, "at byte 0x0b: header_len {header_len} is negative")
            }
            FrameError::HeaderLenTooSmall { header_len } => write!(
                f,
                "at byte 0x0b: header_len {header_len} is smaller than the smallest frame header ({MIN_HEADER_LEN} bytes)"
            ),
            FrameError::HeaderLenTooLarge { header_len } => write!(
                f,
                "at byte 0x0b: header_len {header_len} exceeds the limit of {MAX_HEADER_LEN} bytes"
            ),
            FrameError::FrameLenTooSmall { frame_len, header_len } => write!(
                f,
                "at byte 0x10: frame_len {frame_len} is smaller than header_len {header_len}"
            ),
            FrameError::HeaderLenExceedsFile { header_len, file_len } => {
                write!(
                    f,
                    "at byte 0x0b: header_len {header_len} exceeds the file length {file_len}"
                )
            }
            FrameError::HeaderLenExceedsInput { header_len, len } => {
                write!(
                    f,
                    "at byte 0x0b: header_len {header_len} exceeds the input length {len}"
                )
            }
            FrameError::PastHeaderEnd {
                offset,
                expected,
                header_len,
            } => write!(
                f,
                "at byte {}: expected {expected}, found the end of the header (header_len {header_len})",
                Hex(*offset)
            ),
            FrameError::TooManyMetalayers { count } => write!(
                f,
                "at byte 0x5c: the map holds {count} metalayers, at most {MAX_METALAYERS} are allowed"
            ),
            FrameError::NameNotUtf8 { offset, name } => write!(
                f,
                "at byte {}: metalayer name {} is not UTF-8",
                Hex(*offset),
                HexBytes(name)
            ),
            FrameError::NegativeContentOffset {
                offset,
                name,
                content_offset,
            } => write!(
                f,
                "at byte {}: metalayer {name:?} content offset {content_offset} is negative",
                Hex(*offset)
            ),
            FrameError::ContentOffsetOutsideHeader {
                offset,
                name,
                content_offset,
                header_len,
            } => write!(
                f,
                "at byte {}: metalayer {name:?} content offset {content_offset} lies outside the header (header_len {header_len})",
                Hex(*offset)
            ),
            FrameError::ContentOffsetBeforeContents {
                offset,
                name,
                content_offset,
                start,
            } => write!(
                f,
                "at byte {}: metalayer {name:?} content offset {content_offset} points before the content section, which starts at byte {}",
                Hex(*offset),
                Hex(*start)
            ),
            FrameError::NegativeContentLen { offset, name, len } => write!(
                f,
                "at byte {}: metalayer {name:?} content length {len} is negative",
                Hex(*offset)
            ),
            FrameError::ContentPastHeader {
                offset,
                name,
                len,
                header_len,
            } => write!(
                f,
                "at byte {}: metalayer {name:?} content length {len} runs past the end of the header (header_len {header_len})",
                Hex(*offset)
            ),
            FrameError::CountMismatch {
                offset,
                expected,
                found,
            } => write!(
                f,
                "at byte {}: the content array holds {found} metalayers, the map {expected}",
                Hex(*offset)
            ),
        }
    }
}

impl std::error::Error for FrameError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FrameError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Displays an offset as `0x5b` (at least two hex digits).
struct Hex(usize);

impl fmt::Display for Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{:02x}", self.0)
    }
}

/// Displays bytes as `0x9e 0xa8 0x62`.
struct HexBytes<'a>(&'a [u8]);

impl fmt::Display for HexBytes<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, byte) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "0x{byte:02x}")?;
        }
        Ok(())
    }
}

/// Where a read can end: the input's end (in the prefix) or `header_len` (in the header).
#[derive(Clone, Copy)]
enum End {
    Input,
    Header,
}

/// A bounds-checked reader over the prefix or the header.
struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
    end: End,
}

impl<'a> Cursor<'a> {
    fn new(buf: &'a [u8], pos: usize, end: End) -> Self {
        Self { buf, pos, end }
    }

    fn end_error(&self, offset: usize, expected: String) -> FrameError {
        match self.end {
            End::Input => FrameError::Truncated {
                offset,
                expected,
                len: self.buf.len(),
            },
            End::Header => FrameError::PastHeaderEnd {
                offset,
                expected,
                header_len: self.buf.len(),
            },
        }
    }

    /// The next `n` bytes, or an end error describing them with `expected()`.
    fn take(&mut self, n: usize, expected: impl FnOnce() -> String) -> Result<&'a [u8], FrameError> {
        let bytes = self
            .pos
            .checked_add(n)
            .and_then(|stop| self.buf.get(self.pos..stop))
            .ok_or_else(|| self.end_error(self.pos, expected()))?;
        self.pos = self.pos.saturating_add(n);
        Ok(bytes)
    }

    fn array<const N: usize>(&mut self, expected: impl FnOnce() -> String) -> Result<[u8; N], FrameError> {
        let bytes = self.take(N, expected)?;
        let mut out = [0; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    /// A marker byte that must equal `marker`.
    fn marker(&mut self, marker: u8, expected: impl Fn() -> String) -> Result<(), FrameError> {
        let offset = self.pos;
        let [found] = self.array(&expected)?;
        if found == marker {
            Ok(())
        } else {
            Err(FrameError::UnexpectedByte {
                offset,
                expected: expected(),
                found,
            })
        }
    }

    fn u16(&mut self, expected: impl FnOnce() -> String) -> Result<u16, FrameError> {
        self.array(expected).map(u16::from_be_bytes)
    }

    fn i32(&mut self, expected: impl FnOnce() -> String) -> Result<i32, FrameError> {
        self.array(expected).map(i32::from_be_bytes)
    }

    fn u64(&mut self, expected: impl FnOnce() -> String) -> Result<u64, FrameError> {
        self.array(expected).map(u64::from_be_bytes)
    }
}

fn text(s: &str) -> impl Fn() -> String + '_ {
    move || s.to_owned()
}

/// Reads `header_len` from the first [`PREFIX_LEN`] bytes of a frame, checking the magic, the
/// markers, that `header_len` lies in [`MIN_HEADER_LEN`]`..=`[`MAX_HEADER_LEN`] and that
/// `frame_len` is at least `header_len`. Bytes after the prefix are ignored.
///
/// ```
/// use metalayer::frame::{header_len, PREFIX_LEN};
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/dtype_i4le.b2nd");
/// let file = std::fs::read(path).unwrap();
/// assert_eq!(header_len(&file[..PREFIX_LEN])?, 0xa5);
/// assert_eq!(
///     header_len(&file[..12]).unwrap_err().to_string(),
///     "at byte 0x0b: expected header_len (i32), found the end of the input (12 bytes)"
/// );
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
pub fn header_len(prefix: &[u8]) -> Result<usize, FrameError> {
    let mut cur = Cursor::new(prefix, 0, End::Input);
    let magic: [u8; 10] = cur.array(text(r#"frame magic 0x9e 0xa8 "b2frame\0""#))?;
    if magic != MAGIC {
        return Err(FrameError::BadMagic { found: magic });
    }
    debug_assert_eq!(cur.pos, HEADER_LEN_AT);
    cur.marker(0xd2, text("header_len marker 0xd2 (int32)"))?;
    let raw = cur.i32(text("header_len (i32)"))?;
    let header_len = usize::try_from(raw).map_err(|_| FrameError::NegativeHeaderLen { header_len: raw })?;
    if header_len < MIN_HEADER_LEN {
        return Err(FrameError::HeaderLenTooSmall { header_len });
    }
    if header_len > MAX_HEADER_LEN {
        return Err(FrameError::HeaderLenTooLarge { header_len });
    }
    debug_assert_eq!(cur.pos, FRAME_LEN_AT);
    cur.marker(0xcf, text("frame_len marker 0xcf (uint64)"))?;
    let frame_len = cur.u64(text("frame_len (u64)"))?;
    if u64::try_from(header_len).map_or(true, |h| frame_len < h) {
        return Err(FrameError::FrameLenTooSmall { frame_len, header_len });
    }
    Ok(header_len)
}

/// Parses the metalayers out of the start of a frame held in memory, in stored order.
///
/// `header` must hold at least the first `header_len` bytes of the frame (see [`header_len`]);
/// bytes after them are ignored, so a whole frame may be given too. See the
/// [module documentation](self) for what is checked.
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
/// // A corrupted map marker is reported where it is.
/// let mut bad = file.clone();
/// bad[0x5b] = 0x80;
/// assert_eq!(
///     parse_header(&bad).unwrap_err().to_string(),
///     "at byte 0x5b: expected map16 marker 0xde, found 0x80"
/// );
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
pub fn parse_header(header: &[u8]) -> Result<Vec<FrameMetalayer>, FrameError> {
    let header_len = header_len(header)?;
    let header = header.get(..header_len).ok_or(FrameError::HeaderLenExceedsInput {
        header_len,
        len: header.len(),
    })?;

    let mut cur = Cursor::new(header, INDEX_AT, End::Header);
    cur.marker(0x93, text("metalayer index marker 0x93 (fixarray of 3)"))?;
    cur.marker(0xcd, text("index size marker 0xcd (uint16)"))?;
    // The index size is not used (nor checked) by c-blosc2 either.
    cur.u16(text("index size (u16)"))?;
    debug_assert_eq!(cur.pos, MAP_AT);
    cur.marker(0xde, text("map16 marker 0xde"))?;
    let count = cur.u16(text("number of metalayers (u16)"))?;
    if usize::from(count) > MAX_METALAYERS {
        return Err(FrameError::TooManyMetalayers { count });
    }
    debug_assert_eq!(cur.pos, ENTRIES_AT);

    // The map: names and the offsets of their contents.
    let mut entries: Vec<(String, usize, i32)> = Vec::with_capacity(usize::from(count));
    for i in 0..count {
        let marker_at = cur.pos;
        let expected_name = || format!("fixstr name marker 0xa0..=0xbf of metalayer #{i}");
        let [marker] = cur.array(expected_name)?;
        if !(0xa0..=0xbf).contains(&marker) {
            return Err(FrameError::UnexpectedByte {
                offset: marker_at,
                expected: expected_name(),
                found: marker,
            });
        }
        let name_len = usize::from(marker & 0x1f);
        let name_at = cur.pos;
        let name_bytes = cur.take(name_len, || format!("metalayer #{i} name ({name_len} bytes)"))?;
        let name = std::str::from_utf8(name_bytes)
            .map_err(|_| FrameError::NameNotUtf8 {
                offset: name_at,
                name: name_bytes.to_vec(),
            })?
            .to_owned();
        cur.marker(0xd2, || format!("offset marker 0xd2 (int32) of metalayer {name:?}"))?;
        let offset_at = cur.pos;
        let content_offset = cur.i32(|| format!("content offset (i32) of metalayer {name:?}"))?;
        entries.push((name, offset_at, content_offset));
    }

    // The content array: its count, then the contents the offsets point at.
    cur.marker(0xdc, text("content array marker 0xdc (array16)"))?;
    let array_count_at = cur.pos;
    let array_count = cur.u16(text("number of contents (u16)"))?;
    if array_count != count {
        return Err(FrameError::CountMismatch {
            offset: array_count_at,
            expected: count,
            found: array_count,
        });
    }
    let contents_start = cur.pos;

    let mut metalayers = Vec::with_capacity(entries.len());
    for (name, offset_at, raw_offset) in entries {
        let content_offset = usize::try_from(raw_offset).map_err(|_| FrameError::NegativeContentOffset {
            offset: offset_at,
            name: name.clone(),
            content_offset: raw_offset,
        })?;
        if content_offset >= header_len {
            return Err(FrameError::ContentOffsetOutsideHeader {
                offset: offset_at,
                name,
                content_offset,
                header_len,
            });
        }
        if content_offset < contents_start {
            return Err(FrameError::ContentOffsetBeforeContents {
                offset: offset_at,
                name,
                content_offset,
                start: contents_start,
            });
        }
        let mut at = Cursor::new(header, content_offset, End::Header);
        at.marker(0xc6, || format!("content marker 0xc6 (bin32) of metalayer {name:?}"))?;
        let len_at = at.pos;
        let raw_len = at.i32(|| format!("content length (i32) of metalayer {name:?}"))?;
        let len = usize::try_from(raw_len).map_err(|_| FrameError::NegativeContentLen {
            offset: len_at,
            name: name.clone(),
            len: raw_len,
        })?;
        let start = at.pos;
        let content = match start.checked_add(len).and_then(|stop| header.get(start..stop)) {
            Some(content) => content.to_vec(),
            None => {
                return Err(FrameError::ContentPastHeader {
                    offset: len_at,
                    name,
                    len,
                    header_len,
                });
            }
        };
        // `start` < `header_len` <= MAX_HEADER_LEN, so it fits in a u64.
        let offset = u64::try_from(start).unwrap_or(u64::MAX);
        metalayers.push(FrameMetalayer { name, offset, content });
    }
    Ok(metalayers)
}

/// Reads the metalayers of a frame file, in stored order, reading only its header.
///
/// `path` is a contiguous frame file (`.b2nd`, `.b2frame`, `.cat`) or a sparse-frame directory,
/// whose `chunks.b2frame` is read. The first [`PREFIX_LEN`] bytes give `header_len`, which is
/// checked against the file's length before exactly `header_len` bytes are read; the chunks are
/// never read. See the [module documentation](self) for what is checked.
///
/// ```
/// use metalayer::frame::read_metalayers;
///
/// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/sparse_meta.b2nd");
/// let metalayers = read_metalayers(dir)?;
/// assert_eq!(metalayers.len(), 5);
/// assert_eq!(metalayers[3].name, "tags");
/// assert_eq!(metalayers[3].content, [0x93, 0x01, 0x02, 0x03]);
///
/// let missing = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/no-such-file.b2nd");
/// let err = read_metalayers(missing).unwrap_err();
/// assert_eq!(err.to_string(), format!("cannot read {missing}"));
/// // Why is the source, an io error.
/// let why = std::error::Error::source(&err).unwrap().downcast_ref::<std::io::Error>().unwrap();
/// assert_eq!(why.kind(), std::io::ErrorKind::NotFound);
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
pub fn read_metalayers(path: impl AsRef<Path>) -> Result<Vec<FrameMetalayer>, FrameError> {
    let path = path.as_ref();
    let io_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| FrameError::Io { path, source }
    };
    let is_dir = fs::metadata(path).map_err(io_error(path))?.is_dir();
    let sparse_path;
    let file_path = if is_dir {
        sparse_path = path.join(SPARSE_HEADER_FILE);
        match fs::metadata(&sparse_path) {
            Ok(meta) if meta.is_file() => {}
            Ok(_) => {
                return Err(FrameError::NotSparseFrame {
                    path: path.to_path_buf(),
                });
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(FrameError::NotSparseFrame {
                    path: path.to_path_buf(),
                });
            }
            Err(e) => return Err(io_error(&sparse_path)(e)),
        }
        sparse_path.as_path()
    } else {
        path
    };

    let mut file = File::open(file_path).map_err(io_error(file_path))?;
    let file_len = file.metadata().map_err(io_error(file_path))?.len();
    let mut header = Vec::with_capacity(PREFIX_LEN);
    // `PREFIX_LEN` (24) fits in a u64.
    let prefix_len = u64::try_from(PREFIX_LEN).unwrap_or(u64::MAX);
    Read::by_ref(&mut file)
        .take(prefix_len)
        .read_to_end(&mut header)
        .map_err(io_error(file_path))?;
    let header_len = header_len(&header)?;
    let header_len_u64 = u64::try_from(header_len).unwrap_or(u64::MAX);
    if header_len_u64 > file_len {
        return Err(FrameError::HeaderLenExceedsFile { header_len, file_len });
    }
    // `header_len` is now bounded by both the file's length and `MAX_HEADER_LEN`.
    let rest = header_len.saturating_sub(header.len());
    header.reserve_exact(rest);
    let rest_u64 = u64::try_from(rest).unwrap_or(u64::MAX);
    file.take(rest_u64)
        .read_to_end(&mut header)
        .map_err(io_error(file_path))?;
    parse_header(&header)
}
