//! Reading a Blosc2 frame's header and trailer, and the metalayers they hold, without reading
//! the chunks; and checking the chunks' index and the chunks' places between them.
//!
//! A Blosc2 contiguous frame (`.b2nd`, `.b2frame`, caterva's `.cat`) starts with a msgpack
//! header that holds the fixed metalayers (`b2nd`, `caterva`, user metalayers) by name, and ends
//! with a msgpack trailer that holds the variable-length metalayers (vlmeta). A sparse frame is
//! a directory whose `chunks.b2frame` file holds the same header and trailer (the chunks are
//! files of their own beside it).
//!
//! Both are described by built-in schemas, `frame_header_v2` and `frame_trailer_v1` (in
//! `schemas/`), and decoded by the decoders `#[metalayer(schema = ...)]` generates from them.
//! This module adds what a schema cannot say: where the header ends (`header_len`) and where the
//! trailer starts (found from the frame's end), that each offset in a metalayer index points at
//! a content, the limits c-blosc2 sets, and the sparse-frame layout.
//!
//! A frame is read from a path, a reader or bytes:
//!
//! - [`Frame::open`] reads a file or a sparse-frame directory: the first [`PREFIX_LEN`] bytes,
//!   to learn `header_len`, then exactly `header_len` bytes, then the trailer found from
//!   `frame_len`, and nothing in between. [`Frame::read`] does the same through any reader that
//!   can seek, and [`Frame::parse`] on a whole frame in memory. A [`Frame`] owns its
//!   metalayers ([`FrameMetalayer`]); [`Frame::metalayer`] and [`Frame::vlmetalayer`] look
//!   one up by name, and [`Header`] says what the header's fields mean.
//! - [`FrameBytes::open`] reads what [`Frame::open`] reads but keeps the header's and the
//!   trailer's bytes, which [`FrameBytes::frame`] borrows from as a [`FrameRef`]: a frame whose
//!   vlmetalayers are large is held once. [`FrameBytes::open_at`] reads a frame stored inside
//!   another file, such as a member of a `.b2z` store, in place through a [`Window`] over its
//!   bytes. [`FrameRef::parse`] borrows from a whole frame in memory.
//! - [`read_metalayers`] reads the header alone, and [`read_metalayers_at`] a header inside
//!   another file: the metalayers of a frame whose trailer does not read (cut short, or written
//!   by a crashed process), or when only they are wanted.
//! - [`read_frame_stream`] reads a frame from a stream that cannot seek (stdin, a pipe) in
//!   bounded memory: the header, then only the last [`STREAM_WINDOW`] bytes before `frame_len`.
//! - [`check_body`] checks what lies between the header and the trailer: the chunks and the
//!   index chunk that gives their offsets, as c-blosc2 reads them. [`check_body_at`] does so for
//!   a frame inside another file, and [`check_body_from`] for a frame already read, through a
//!   reader the caller holds (an editor, before it carries the body over to a new frame).
//!
//! ```
//! use metalayer::frame::Frame;
//!
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
//! let frame = Frame::open(path)?;
//! let names: Vec<&str> = frame.metalayers.iter().map(|m| m.name.as_str()).collect();
//! assert_eq!(names, ["b2nd", "units", "scale", "tags", "m"]);
//! assert_eq!(frame.metalayer("units"), Some(&b"\xa6kelvin"[..]));
//! assert_eq!(frame.header.codec().to_string(), "ZSTD");
//! # Ok::<(), metalayer::frame::FrameError>(())
//! ```
//!
//! # The header layout
//!
//! All integers are big-endian; offsets are from the start of the frame. `frame_header_v2`
//! states every byte; the parts the reader relies on:
//!
//! | offset | bytes | meaning |
//! |---|---|---|
//! | 0 | `0x9e 0xa8 "b2frame\0"` | magic: fixarray(14), fixstr(8) |
//! | 10 | `0xd2` i32 | `header_len` |
//! | 15 | `0xcf` u64 | `frame_len` |
//! | 24 | `0xa4` + 4 bytes | flags; byte 26 is the frame type (0 contiguous, 1 sparse) |
//! | 29 .. 87 | | nbytes, cbytes, typesize, blocksize, chunksize, thread counts, `has_vlmetalayers`, filters |
//! | 87 | `0x93 0xcd` u16 | the metalayer section: fixarray(3); its index size (not checked) |
//! | 91 | `0xde` u16 | map16: number of metalayers |
//! | 94 | per metalayer: `0xa0 + len` name, `0xd2` i32 | the name, and the absolute offset of its content's `0xc6` |
//! | after the map | `0xdc` u16 | array16: number of contents |
//! | | per metalayer: `0xc6` u32 content | bin32: the content, through `header_len` |
//!
//! # The trailer layout
//!
//! | offset | bytes | meaning |
//! |---|---|---|
//! | `frame_len - trailer_len` | `0x94 0x01` | fixarray(4), trailer version 1 |
//! | + 2 | `0x93 0xcd` u16 `0xde` u16 ... `0xdc` u16 ... | the vlmetalayer section, shaped like the header's; offsets are from the trailer's first byte |
//! | `frame_len - 23` | `0xce` u32 | `trailer_len` |
//! | `frame_len - 18` | `0xd8` type, 16 bytes | fixext16: the fingerprint (type 0, zeros) |
//!
//! # What is checked
//!
//! Every byte of the header and of the trailer is checked against its schema by the generated decoder: the magic, every marker, the
//! `header_len` minimum, the trailer version; the flag bytes are not UTF-8-checked (they are raw).
//! On top of that:
//!
//! - `header_len` is at most [`MAX_HEADER_LEN`], at most `frame_len`, (when reading a file) at
//!   most the file's length, and exactly where the header's last entry ends;
//! - at most [`MAX_METALAYERS`] metalayers (and as many vlmetalayers), and each array of
//!   contents holds as many contents as its map holds names;
//! - each offset in a map points at the `0xc6` marker of one of the section's contents (the
//!   header's offsets are absolute, the trailer's are from the trailer's first byte); that
//!   content is the metalayer's. Which content a name points at is up to the map, as in c-blosc2.
//! - the trailer: `frame_len` is at most the file's length and leaves room for a trailer after
//!   the header, `trailer_len` (22 bytes before `frame_len`, after its `0xce`) lies in
//!   [`MIN_TRAILER_LEN`]`..=frame_len - header_len`, and the trailer's entries end at `frame_len`;
//! - in a sparse-frame directory, the frame type byte of `chunks.b2frame` says sparse (1).
//!
//! [`check_body`] (and [`check_body_at`], [`check_body_from`]) adds the body, the bytes between
//! the header and the trailer, which the readers above never read:
//!
//! - `cbytes` is not negative and, in a contiguous frame, the chunks it spans from
//!   `header_len` end at or before the trailer;
//! - the index chunk is there exactly when the header counts chunks (`nbytes / chunksize`,
//!   rounded up; with `chunksize` 0, chunks of varying sizes, the index gives the count), fits
//!   before the trailer, holds 8 bytes for each chunk, and decompresses (a special index, one
//!   repeated offset, through its one value; any other a block at a time);
//! - each offset is a special chunk (zeros, NaNs, uninitialized values), or a chunk whose
//!   16-byte header and own `cbytes` lie within the chunks (in a sparse frame, a chunk file
//!   `%08X.chunk` of the directory), and no more chunks have bytes than the chunks' `cbytes`
//!   can hold (16 bytes each at least).
//!
//! Not checked: the index sizes (c-blosc2 does not use them either), the number of filters, and
//! the chunks' own data (only each chunk's header is read). Duplicate names are returned as
//! stored.
//!
//! Every error ([`FrameError`]) has a [`Place`]: the byte, the section and the entry; and a
//! [`FrameErrorKind`]: what was expected and found, the generated decoder's own error where the
//! schema is what the bytes break. No input makes the reader panic, and nothing is allocated by
//! a length before that length is checked against the input.
//!
//! The module's parts: `prefix` (the magic, `header_len`, `frame_len`), `section` (a metalayer
//! section, the header's or the trailer's), `header`, `trailer`, `body` (the chunks and their
//! index), `error`, and `io` (files, readers, sparse frames, [`FrameBytes`]).

// The reader indexes nothing directly and does no unchecked arithmetic.
#![deny(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used
)]

mod body;
mod codec;
#[cfg(feature = "edit")]
pub mod edit;
mod error;
mod header;
mod io;
mod prefix;
mod section;
#[cfg(test)]
mod tests;
mod trailer;
mod types;

use metalayer_runtime::wire::Wire;

pub use body::{Body, check_body, check_body_at, check_body_from};
pub use codec::{Codec, Filter, SplitMode};
pub use error::{ChunkMiss, Entry, FrameError, FrameErrorKind, OffsetMiss, Place, Section};
pub use io::{FrameBytes, STREAM_WINDOW, StreamFrame, Window, read_frame_stream};
#[cfg(feature = "store")]
pub(crate) use io::{open_regular, read_frame_bytes_file_at};
pub use types::{Frame, FrameMetalayer, FrameRef, Header, MetalayerRef, Trailer};

// What the tests, the fuzz targets and the command reach besides the entry points above: the
// generated decoders (which the tests re-encode), the prefix's lengths, and the functions the
// entry points were before they were methods. Not a public API: `Frame`, `FrameRef`,
// `FrameBytes`, `read_metalayers`, `read_frame_stream` and `Header` are.
#[doc(hidden)]
pub use header::parse_header;
#[doc(hidden)]
pub use io::{read_frame, read_frame_bytes, read_frame_bytes_at, read_frame_from, read_metalayers_from};
pub use io::{read_metalayers, read_metalayers_at};
#[doc(hidden)]
pub use prefix::{frame_len, header_len};
#[doc(hidden)]
pub use types::{FrameHeader, FrameTrailer, MetalayerIndex, VlMetalayerIndex};

use header::decode_header;
use trailer::{decode_trailer, trailer_place};

/// How many bytes of a frame give its `header_len` and `frame_len`: the magic, and those two.
///
/// ```
/// assert_eq!(metalayer::frame::PREFIX_LEN, 24);
/// ```
pub const PREFIX_LEN: usize = 24;

/// The smallest `header_len` accepted: the fixed part, the map's count and the `0xdc` array's
/// count (a frame without metalayers). `frame_header_v2` states it as `header_len`'s `min`.
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

/// The most metalayers a frame may hold (`BLOSC2_MAX_METALAYERS` in c-blosc2), and the most
/// vlmetalayers c-blosc2 writes in a trailer (`frame_update_trailer` refuses more; its reader
/// would take up to `BLOSC2_MAX_VLMETALAYERS`, 8192).
///
/// ```
/// assert_eq!(metalayer::frame::MAX_METALAYERS, 16);
/// ```
pub const MAX_METALAYERS: usize = 16;

/// The smallest `trailer_len`: a trailer without vlmetalayers. `frame_trailer_v1` states it as
/// `trailer_len`'s `min`.
///
/// ```
/// assert_eq!(metalayer::frame::MIN_TRAILER_LEN, 35);
/// ```
pub const MIN_TRAILER_LEN: usize = 35;

/// How many bytes at the end of a frame give `trailer_len`: its `0xce` marker and value, then
/// the fingerprint (`0xd8`, its type, 16 bytes).
///
/// ```
/// assert_eq!(metalayer::frame::TRAILER_TAIL_LEN, 23);
/// ```
pub const TRAILER_TAIL_LEN: usize = 23;

/// The magic: `frame_header_v2`'s container marker, fixarray(14), and its constant `magic`, a
/// fixstr(8) (the tests check both against the schema's encoder).
const MAGIC: [u8; 10] = *b"\x9e\xa8b2frame\0";

/// The magic, as messages show it.
fn magic_text() -> &'static str {
    r#"frame magic 0x9e 0xa8 "b2frame\0""#
}

/// Where `header_len`'s marker, `frame_len`'s marker and the frame type byte are; all entries
/// before the metalayer section have fixed sizes (the tests check these offsets against
/// `frame_header_v2`).
const HEADER_LEN_AT: usize = 10;
const FRAME_LEN_AT: usize = 15;
const FRAME_TYPE_AT: usize = 26;
/// Where the metalayer section's `0x93` is, in the header and in the trailer.
const HEADER_SECTION_AT: usize = 87;
const TRAILER_SECTION_AT: usize = 2;
/// From a section's `0x93`: the map16 marker, and the first pair.
const SECTION_MAP_AT: usize = 4;
const SECTION_PAIRS_AT: usize = 7;

/// A wire type's one marker byte, from the runtime's table.
const fn marker(wire: Wire) -> u8 {
    match wire.marker() {
        Some(m) => m,
        None => 0,
    }
}

const BIN32_MARKER: u8 = marker(Wire::Bin32);
const MAP16_MARKER: u8 = marker(Wire::Map16);
const ARRAY16_MARKER: u8 = marker(Wire::Array16);
const TRAILER_LEN_MARKER: u8 = marker(Wire::UInt32);

// ---------------------------------------------------------------------------------------------
// Bytes at known places
// ---------------------------------------------------------------------------------------------

fn byte_at(bytes: &[u8], at: usize) -> Option<u8> {
    bytes.get(at).copied()
}

fn be_array<const N: usize>(bytes: &[u8], at: usize) -> Option<[u8; N]> {
    bytes.get(at..)?.first_chunk::<N>().copied()
}

fn be_u16(bytes: &[u8], at: usize) -> Option<u16> {
    be_array(bytes, at).map(u16::from_be_bytes)
}

fn be_u32(bytes: &[u8], at: usize) -> Option<u32> {
    be_array(bytes, at).map(u32::from_be_bytes)
}

/// A `usize` as a `u64` (lossless on every platform Rust supports).
fn wide(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// The `len` bytes of `bytes` at `at`, where the caller has checked they are.
fn span(bytes: &[u8], at: u64, len: u64) -> &[u8] {
    let start = usize::try_from(at).unwrap_or(usize::MAX);
    let stop = usize::try_from(at.saturating_add(len)).unwrap_or(usize::MAX);
    bytes.get(start..stop).unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------
// Whole frames in memory
// ---------------------------------------------------------------------------------------------

/// [`Frame::parse`].
#[doc(hidden)]
pub fn parse_frame(frame: &[u8]) -> Result<Frame, FrameError> {
    parse_frame_borrowed(frame).map(|f| f.to_owned())
}

/// [`FrameRef::parse`].
#[doc(hidden)]
pub fn parse_frame_borrowed(frame: &[u8]) -> Result<FrameRef<'_>, FrameError> {
    let header = header::header_bytes(frame, false)?;
    let (h, metalayers) = decode_header(header)?;
    let (header_len, frame_len) = (header.len(), h.frame_len);
    let tail_at = trailer::tail_at(header_len, frame_len, wide(frame.len()), false)?;
    let tail = span(frame, tail_at, wide(TRAILER_TAIL_LEN));
    let (trailer_offset, trailer_len) = trailer_place(tail, tail_at, header_len, frame_len)?;
    let trailer = span(frame, trailer_offset, u64::from(trailer_len));
    let (t, vlmetalayers) = decode_trailer(trailer, trailer_offset, frame_len)?;
    Ok(types::frame_of(
        (&h, header_len, metalayers),
        (&t, trailer_offset, vlmetalayers),
    ))
}

impl Frame {
    /// Reads a frame's header and trailer from a file: the header's fields, the metalayers, the
    /// trailer's fields and the vlmetalayers, reading nothing in between.
    ///
    /// `path` is a contiguous frame file (`.b2nd`, `.b2frame`, `.cat`) or a sparse-frame
    /// directory, whose `chunks.b2frame` is read (and must say it is a sparse frame). The first
    /// [`PREFIX_LEN`] bytes give `header_len`, which is checked against the file's length before
    /// exactly `header_len` bytes are read; then the [`TRAILER_TAIL_LEN`] bytes before
    /// `frame_len`, which give `trailer_len`; then the trailer's `trailer_len` bytes. See the
    /// [module documentation](self) for what is checked.
    ///
    /// ```
    /// use metalayer::frame::Frame;
    ///
    /// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/sparse_mixed.b2nd");
    /// let frame = Frame::open(dir)?;
    /// assert_eq!(frame.header.frame_type(), 1);
    /// assert_eq!(frame.metalayers[0].name, "b2nd");
    /// assert!(!frame.vlmetalayers.is_empty());
    /// for vl in &frame.vlmetalayers {
    ///     assert!(vl.offset > frame.trailer.offset);
    /// }
    ///
    /// let missing = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/no-such-file.b2nd");
    /// let err = Frame::open(missing).unwrap_err();
    /// assert_eq!(err.to_string(), format!("cannot read {missing}"));
    /// // Why is the source, an io error.
    /// let why = std::error::Error::source(&err).unwrap().downcast_ref::<std::io::Error>().unwrap();
    /// assert_eq!(why.kind(), std::io::ErrorKind::NotFound);
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    pub fn open(path: impl AsRef<std::path::Path>) -> Result<Frame, FrameError> {
        io::read_frame(path)
    }

    /// [`Frame::open`] on any reader that holds a frame from its first byte: the input's length
    /// is found by seeking to its end. Io errors are [`FrameErrorKind::Read`].
    ///
    /// ```
    /// use std::io::Cursor;
    /// use metalayer::frame::Frame;
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/scalars.b2nd");
    /// let bytes = std::fs::read(path).unwrap();
    /// let frame = Frame::read(Cursor::new(&bytes))?;
    /// assert_eq!(frame, Frame::parse(&bytes)?);
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    pub fn read<R: std::io::Read + std::io::Seek>(reader: R) -> Result<Frame, FrameError> {
        io::read_frame_from(reader)
    }

    /// Parses a whole frame held in memory: its header and its trailer, found from `frame_len`.
    /// Bytes after `frame_len` are ignored. See the [module documentation](self) for what is
    /// checked.
    ///
    /// ```
    /// use metalayer::frame::Frame;
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/updated_deleted.b2nd");
    /// let bytes = std::fs::read(path).unwrap();
    /// let frame = Frame::parse(&bytes)?;
    /// // python-blosc2 set "a" to "d", updated "b" (it keeps its place), deleted "c", added "e".
    /// let names: Vec<&str> = frame.vlmetalayers.iter().map(|m| m.name.as_str()).collect();
    /// assert_eq!(names, ["a", "b", "d", "e"]);
    /// assert_eq!(frame.trailer.offset + u64::from(frame.trailer.trailer_len), frame.header.frame_len);
    ///
    /// // trailer_len is found 22 bytes before frame_len.
    /// let mut bad = bytes.clone();
    /// let at = bad.len() - 22;
    /// bad[at..at + 4].copy_from_slice(&u32::MAX.to_be_bytes());
    /// assert!(Frame::parse(&bad).unwrap_err().to_string().contains("trailer_len 4294967295 is outside 35..="));
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    pub fn parse(frame: &[u8]) -> Result<Frame, FrameError> {
        parse_frame(frame)
    }
}

impl<'a> FrameRef<'a> {
    /// [`Frame::parse`], with the metalayers and vlmetalayers borrowed from `frame`: nothing is
    /// copied, so a frame held in memory (one stored in a value, say) is read at no cost beyond
    /// its index.
    ///
    /// ```
    /// use metalayer::frame::{Frame, FrameRef};
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
    /// let bytes = std::fs::read(path).unwrap();
    /// let frame = FrameRef::parse(&bytes)?;
    /// assert_eq!(frame.metalayer("units"), Some(&b"\xa6kelvin"[..]));
    /// assert_eq!(frame.to_owned(), Frame::parse(&bytes)?);
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    pub fn parse(frame: &'a [u8]) -> Result<FrameRef<'a>, FrameError> {
        parse_frame_borrowed(frame)
    }
}
