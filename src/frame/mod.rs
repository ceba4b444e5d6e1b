//! Reading a Blosc2 frame's header and trailer, and the metalayers they hold, without reading
//! the chunks.
//!
//! A Blosc2 contiguous frame (`.b2nd`, `.b2frame`, caterva's `.cat`) starts with a msgpack
//! header that holds the fixed metalayers (`b2nd`, `caterva`, user metalayers) by name, and ends
//! with a msgpack trailer that holds the variable-length metalayers (vlmeta). A sparse frame is
//! a directory whose `chunks.b2frame` file holds the same header and trailer (the chunks are
//! files of their own beside it).
//!
//! Both are described by built-in schemas, `frame_header_v2` and `frame_trailer_v1` (in
//! `schemas/`), and decoded by the decoders `#[metalayer(schema = ...)]` generates from
//! them: [`FrameHeader`] and [`FrameTrailer`]. This module adds what a schema cannot say: where
//! the header ends (`header_len`) and where the trailer starts (found from the frame's end), that
//! each offset in a metalayer index points at a content, the limits c-blosc2 sets, and the
//! sparse-frame layout.
//!
//! - [`read_metalayers`] reads only the header: the first [`PREFIX_LEN`] bytes, to learn
//!   `header_len`, then exactly `header_len` bytes. [`parse_header`] does the parsing on bytes
//!   already in memory, and [`header_len`] tells how many bytes it needs.
//! - [`read_frame`] reads the header and the trailer, and nothing in between; [`parse_frame`]
//!   does the same on a whole frame in memory.
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
//! Every byte of the header (and, for [`read_frame`] and [`parse_frame`], of the trailer) is
//! checked against its schema by the generated decoder: the magic, every marker, the
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
//! Not checked: the index sizes (c-blosc2 does not use them either), the number of filters, and
//! the bytes between the header and the trailer. Duplicate names are returned as stored.
//!
//! Every error names the byte offset and what was expected and found; no input makes the
//! reader panic, and nothing is allocated by a length before that length is checked against the
//! input.

// The reader indexes nothing directly and does no unchecked arithmetic.
#![deny(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used
)]

use std::borrow::ToOwned;
use std::boxed::Box;
use std::fmt;
use std::format;
use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::string::{String, ToString};
use std::vec;
use std::vec::Vec;

use metalayer_runtime::Decoder;
use metalayer_runtime::wire::{Family, Wire};

use crate::{Decode, DecodeError, DecodeErrorKind, Ext, metalayer};

/// How many bytes [`header_len`] needs: the magic, `header_len` and `frame_len`.
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

/// The name of the file holding the frame header and trailer in a sparse-frame directory.
const SPARSE_HEADER_FILE: &str = "chunks.b2frame";

/// The frame type byte of a sparse frame (`FRAME_DIRECTORY_TYPE` in c-blosc2).
const SPARSE_FRAME_TYPE: u8 = 1;

const MAGIC: [u8; 10] = *b"\x9e\xa8b2frame\0";
const MAGIC_TEXT: &str = r#"frame magic 0x9e 0xa8 "b2frame\0""#;
/// Where `header_len`'s marker, `frame_len`'s marker and the frame type byte are; all entries
/// before the metalayer section have fixed sizes (`tests/frame_schema.rs` checks these offsets
/// against `frame_header_v2`).
const HEADER_LEN_AT: usize = 10;
const FRAME_LEN_AT: usize = 15;
const FRAME_TYPE_AT: usize = 26;
/// Where the metalayer section's `0x93` is, in the header and in the trailer.
const HEADER_SECTION_AT: usize = 87;
const TRAILER_SECTION_AT: usize = 2;
/// From a section's `0x93`: the map16 marker, and the first pair.
const SECTION_MAP_AT: usize = 4;
const SECTION_PAIRS_AT: usize = 7;
const TRAILER_LEN_MARKER: u8 = 0xce;
const BIN32_MARKER: u8 = 0xc6;
const MAP16_MARKER: u8 = 0xde;

/// A Blosc2 frame header, as the generated decoder of `frame_header_v2` reads it; the names and
/// contents borrow from the bytes.
///
/// [`parse_header`] and [`parse_frame`] check more than this decoder does (see the [module
/// documentation](self)); decoding it directly checks the schema only.
///
/// ```
/// use metalayer::frame::FrameHeader;
/// use metalayer::prelude::*;
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
/// let file = std::fs::read(path).unwrap();
/// let (header, used) = FrameHeader::decode_prefix(&file)?;
/// assert_eq!((header.header_len, used), (240, 240));
/// assert_eq!(header.frame_len, 315);
/// assert_eq!(header.typesize, 8);
/// assert_eq!(header.filters.ty, 6); // the number of filters
/// assert_eq!(header.metalayers.offsets[1], ("units", 0xcc));
/// assert_eq!(header.metalayers.contents[1], b"\xa6kelvin");
/// # Ok::<(), metalayer::DecodeError>(())
/// ```
#[metalayer(schema = "frame_header_v2")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameHeader<'a> {
    /// The header's length, through the last metalayer's content.
    pub header_len: i32,
    /// The whole frame's length.
    pub frame_len: u64,
    /// General flags (format version in the low nibble), frame type (0 contiguous, 1 sparse),
    /// codec (low nibble) and clevel (high nibble), other flags (split mode).
    pub flags: [u8; 4],
    /// Uncompressed size of the data.
    pub nbytes: i64,
    /// Compressed size of the chunks.
    pub cbytes: i64,
    /// Size of an item.
    pub typesize: i32,
    /// Size of a block.
    pub blocksize: i32,
    /// Size of a chunk; 0 when chunks vary.
    pub chunksize: i32,
    /// Threads for compression.
    pub nthreads_compress: i16,
    /// Threads for decompression.
    pub nthreads_decompress: i16,
    /// Whether the trailer holds vlmetalayers.
    pub has_vlmetalayers: bool,
    /// The ext type is the number of filters; the data: filters\[6\], udcodec, codec meta,
    /// filters_meta\[6\], other_flags2, reserved.
    pub filters: Ext<[u8; 16]>,
    /// The metalayers.
    pub metalayers: MetalayerIndex<'a>,
}

/// The metalayer section of a frame header (`frame_header_v2`'s record type `metalayers`).
///
/// ```
/// use metalayer::frame::FrameHeader;
/// use metalayer::prelude::*;
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
/// let file = std::fs::read(path).unwrap();
/// let index = FrameHeader::decode_prefix(&file)?.0.metalayers;
/// // The metalayers python-blosc2 stored: the array's, then the user's.
/// let names: Vec<&str> = index.offsets.iter().map(|&(name, _)| name).collect();
/// assert_eq!(names, ["b2nd", "units", "scale", "tags", "m"]);
/// assert_eq!(index.contents[2], b"\x03");
/// // Each offset is where its content's bin32 header is in the file.
/// for (&(_, offset), content) in index.offsets.iter().zip(&index.contents) {
///     let at = offset as usize;
///     assert_eq!(file[at], 0xc6);
///     assert_eq!(u32::from_be_bytes(file[at + 1..at + 5].try_into().unwrap()) as usize, content.len());
///     assert_eq!(&file[at + 5..at + 5 + content.len()], *content);
/// }
/// # Ok::<(), metalayer::DecodeError>(())
/// ```
#[metalayer(schema = "frame_header_v2", layout = "metalayers")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetalayerIndex<'a> {
    /// The index size: bytes from the section's `0x93` to the end of the map (not checked).
    pub size: u16,
    /// Name -> absolute offset of the content's `0xc6`, in stored order.
    pub offsets: Vec<(&'a str, i32)>,
    /// The contents, in stored order.
    pub contents: Vec<&'a [u8]>,
}

/// A Blosc2 frame trailer, as the generated decoder of `frame_trailer_v1` reads it; the names
/// and contents borrow from the bytes.
///
/// ```
/// use metalayer::frame::FrameTrailer;
/// use metalayer::prelude::*;
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
/// let file = std::fs::read(path).unwrap();
/// // trailer_len is 22 bytes before the end: here 35, a trailer without vlmetalayers.
/// let trailer = FrameTrailer::decode(&file[file.len() - 35..])?;
/// assert_eq!(trailer.trailer_len, 35);
/// assert!(trailer.vlmetalayers.offsets.is_empty());
/// assert_eq!(trailer.fingerprint.ty, 0);
/// # Ok::<(), metalayer::DecodeError>(())
/// ```
#[metalayer(schema = "frame_trailer_v1")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameTrailer<'a> {
    /// The vlmetalayers.
    pub vlmetalayers: VlMetalayerIndex<'a>,
    /// The trailer's length.
    pub trailer_len: u32,
    /// The ext type is the fingerprint type (0: none); the data, the fingerprint.
    pub fingerprint: Ext<[u8; 16]>,
}

/// The vlmetalayer section of a frame trailer (`frame_trailer_v1`'s record type
/// `vlmetalayers`): its offsets are from the trailer's first byte, and each content is a Blosc2
/// chunk holding msgpack.
///
/// ```
/// use metalayer::frame::FrameTrailer;
/// use metalayer::prelude::*;
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/scalars.b2nd");
/// let file = std::fs::read(path).unwrap();
/// // python-blosc2 wrote this frame's trailer at byte 322, with 15 vlmetalayers.
/// let trailer = &file[322..];
/// let index = FrameTrailer::decode(trailer)?.vlmetalayers;
/// assert_eq!(index.size, 241);
/// let names: Vec<&str> = index.offsets.iter().map(|&(name, _)| name).collect();
/// assert_eq!((names.len(), &names[..3]), (15, &["nil", "true", "false"][..]));
/// // Each offset is where its content's bin32 header is, from the trailer's first byte.
/// for (&(_, offset), content) in index.offsets.iter().zip(&index.contents) {
///     let at = offset as usize;
///     assert_eq!(trailer[at], 0xc6);
///     assert_eq!(u32::from_be_bytes(trailer[at + 1..at + 5].try_into().unwrap()) as usize, content.len());
///     assert_eq!(&trailer[at + 5..at + 5 + content.len()], *content);
/// }
/// # Ok::<(), metalayer::DecodeError>(())
/// ```
#[metalayer(schema = "frame_trailer_v1", layout = "vlmetalayers")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VlMetalayerIndex<'a> {
    /// The index size: bytes from this entry's `0xcd` to the end of the map (not checked).
    pub size: u16,
    /// Name -> offset of the content's `0xc6` from the trailer's first byte, in stored order.
    pub offsets: Vec<(&'a str, i32)>,
    /// The contents (Blosc2 chunks), in stored order.
    pub contents: Vec<&'a [u8]>,
}

/// One metalayer of a frame header, or one vlmetalayer of a frame trailer.
///
/// ```
/// use metalayer::frame::{read_metalayers, FrameMetalayer};
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/dtype_i4le.b2nd");
/// let metalayers: Vec<FrameMetalayer> = read_metalayers(path)?;
/// let b2nd = &metalayers[0];
/// assert_eq!(b2nd.name, "b2nd");
/// // The content starts after its 0xc6 marker and u32 length, here at 0x6b + 5.
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
    /// The content without the `0xc6` framing: the metalayer's bytes (usually msgpack); for a
    /// vlmetalayer, the Blosc2 chunk that holds them.
    pub content: Vec<u8>,
}

/// A [`FrameMetalayer`] that borrows its name and content from the frame's bytes, as
/// [`parse_frame_borrowed`] returns it.
///
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
/// let bytes = std::fs::read(path).unwrap();
/// let frame = metalayer::frame::parse_frame_borrowed(&bytes)?;
/// let units = &frame.metalayers[1];
/// assert_eq!((units.name, units.content), ("units", &b"\xa6kelvin"[..]));
/// assert_eq!(&bytes[units.offset as usize..][..7], units.content);
/// assert_eq!(units.to_owned().content, b"\xa6kelvin");
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MetalayerRef<'a> {
    /// The metalayer's name.
    pub name: &'a str,
    /// The absolute offset of the content's first byte, as [`FrameMetalayer::offset`].
    pub offset: u64,
    /// The content without the `0xc6` framing, as [`FrameMetalayer::content`].
    pub content: &'a [u8],
}

impl MetalayerRef<'_> {
    /// The metalayer with its name and content copied.
    pub fn to_owned(&self) -> FrameMetalayer {
        FrameMetalayer {
            name: self.name.to_owned(),
            offset: self.offset,
            content: self.content.to_vec(),
        }
    }
}

impl FrameMetalayer {
    /// The metalayer, borrowed.
    ///
    /// ```
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
    /// let metalayers = metalayer::frame::read_metalayers(path)?;
    /// assert_eq!(metalayers[0].borrowed().name, "b2nd");
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    pub fn borrowed(&self) -> MetalayerRef<'_> {
        MetalayerRef {
            name: &self.name,
            offset: self.offset,
            content: &self.content,
        }
    }
}

/// The fixed fields of a frame header, copied out of [`FrameHeader`].
///
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
/// let frame = metalayer::frame::read_frame(path)?;
/// let h = &frame.header;
/// assert_eq!((h.header_len, h.frame_len), (240, 315));
/// assert_eq!((h.format_version(), h.frame_type()), (2, 0));
/// assert_eq!((h.codec(), h.clevel()), (5, 5)); // ZSTD, clevel 5
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Header {
    /// The header's length.
    pub header_len: usize,
    /// The frame's length.
    pub frame_len: u64,
    /// The four flag bytes.
    pub flags: [u8; 4],
    /// Uncompressed size of the data.
    pub nbytes: i64,
    /// Compressed size of the chunks.
    pub cbytes: i64,
    /// Size of an item.
    pub typesize: i32,
    /// Size of a block.
    pub blocksize: i32,
    /// Size of a chunk; 0 when chunks vary.
    pub chunksize: i32,
    /// Threads for compression.
    pub nthreads_compress: i16,
    /// Threads for decompression.
    pub nthreads_decompress: i16,
    /// Whether the trailer holds vlmetalayers.
    pub has_vlmetalayers: bool,
    /// The filter pipeline: the ext type is the number of filters.
    pub filters: Ext<[u8; 16]>,
    /// The metalayer section's index size, as stored.
    pub metalayers_size: u16,
}

impl Header {
    /// The frame format version: the low nibble of the first flag byte (2, or 3 for frames with
    /// variable-length blocks).
    ///
    /// ```
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-own/objectarray.b2f");
    /// assert_eq!(metalayer::frame::read_frame(path)?.header.format_version(), 3);
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    pub const fn format_version(&self) -> u8 {
        self.flags[0] & 0x0f
    }

    /// The frame type byte: 0 contiguous, 1 sparse.
    ///
    /// ```
    /// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/sparse_meta.b2nd");
    /// assert_eq!(metalayer::frame::read_frame(dir)?.header.frame_type(), 1);
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    pub const fn frame_type(&self) -> u8 {
        self.flags[1]
    }

    /// The codec: the low nibble of the third flag byte (c-blosc2's numbering: BLOSCLZ 0, LZ4 1,
    /// LZ4HC 2, ZLIB 4, ZSTD 5).
    ///
    /// ```
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/ints_signed.b2nd");
    /// assert_eq!(metalayer::frame::read_frame(path)?.header.codec(), 1); // LZ4
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    pub const fn codec(&self) -> u8 {
        self.flags[2] & 0x0f
    }

    /// The compression level: the high nibble of the third flag byte.
    ///
    /// ```
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/bytes.b2nd");
    /// assert_eq!(metalayer::frame::read_frame(path)?.header.clevel(), 9);
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    pub const fn clevel(&self) -> u8 {
        self.flags[2] >> 4
    }
}

impl Header {
    /// The fixed fields of a decoded header whose `header_len` has been checked.
    fn of(h: &FrameHeader<'_>, header_len: usize) -> Self {
        Header {
            header_len,
            frame_len: h.frame_len,
            flags: h.flags,
            nbytes: h.nbytes,
            cbytes: h.cbytes,
            typesize: h.typesize,
            blocksize: h.blocksize,
            chunksize: h.chunksize,
            nthreads_compress: h.nthreads_compress,
            nthreads_decompress: h.nthreads_decompress,
            has_vlmetalayers: h.has_vlmetalayers,
            filters: h.filters,
            metalayers_size: h.metalayers.size,
        }
    }
}

/// Where a frame's trailer is, and its fields.
///
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/many_keys.b2nd");
/// let frame = metalayer::frame::read_frame(path)?;
/// assert_eq!((frame.trailer.offset, frame.trailer.trailer_len), (266, 895));
/// assert_eq!(frame.trailer.vlmetalayers_size, 182);
/// assert_eq!(frame.trailer.fingerprint.ty, 0);
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Trailer {
    /// The trailer's first byte in the frame: `frame_len - trailer_len`.
    pub offset: u64,
    /// The trailer's length.
    pub trailer_len: u32,
    /// The vlmetalayer section's index size, as stored.
    pub vlmetalayers_size: u16,
    /// The fingerprint: its type (0: none) and 16 bytes.
    pub fingerprint: Ext<[u8; 16]>,
}

/// A frame's header and trailer: the header's fixed fields, the metalayers, the trailer's
/// fields and the vlmetalayers, each content as stored (a vlmetalayer's is a Blosc2 chunk).
///
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/strings.b2nd");
/// let frame = metalayer::frame::read_frame(path)?;
/// assert_eq!(frame.metalayers[0].name, "b2nd");
/// assert!(frame.header.has_vlmetalayers);
/// let first = &frame.vlmetalayers[0];
/// // The content is a Blosc2 chunk: its header starts with the format version.
/// assert!(first.offset > frame.trailer.offset);
/// assert!(first.content.len() >= 32);
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Frame {
    /// The header's fixed fields.
    pub header: Header,
    /// The metalayers, in stored order.
    pub metalayers: Vec<FrameMetalayer>,
    /// The trailer's place and fields.
    pub trailer: Trailer,
    /// The vlmetalayers, in stored order; each offset is absolute in the frame.
    pub vlmetalayers: Vec<FrameMetalayer>,
}

/// A [`Frame`] whose metalayers and vlmetalayers borrow from the frame's bytes, as
/// [`parse_frame_borrowed`] returns it: nothing is copied.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct FrameRef<'a> {
    /// The header's fixed fields.
    pub header: Header,
    /// The metalayers, in stored order.
    pub metalayers: Vec<MetalayerRef<'a>>,
    /// The trailer's place and fields.
    pub trailer: Trailer,
    /// The vlmetalayers, in stored order; each offset is absolute in the frame.
    pub vlmetalayers: Vec<MetalayerRef<'a>>,
}

impl FrameRef<'_> {
    /// The frame with every name and content copied.
    pub fn to_owned(&self) -> Frame {
        Frame {
            header: self.header,
            metalayers: self.metalayers.iter().map(MetalayerRef::to_owned).collect(),
            trailer: self.trailer,
            vlmetalayers: self.vlmetalayers.iter().map(MetalayerRef::to_owned).collect(),
        }
    }
}

/// Why a frame header or trailer could not be read.
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
    /// Reading from a reader given to [`read_frame_from`] or [`read_metalayers_from`] failed;
    /// the io error is the `source()`.
    Read {
        /// The underlying error.
        source: io::Error,
    },
    /// A directory was given, but it holds no `chunks.b2frame` file.
    NotSparseFrame {
        /// The directory.
        path: PathBuf,
    },
    /// The `chunks.b2frame` of a sparse-frame directory does not say it is a sparse frame.
    NotSparseFrameType {
        /// The directory.
        path: PathBuf,
        /// The frame type byte (byte 26).
        found: u8,
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
    /// A marker of the fixed prefix, or the byte a content offset points at, is not the one
    /// the layout puts there.
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
    /// The header's bytes do not follow `frame_header_v2`: the generated decoder's error, whose
    /// offset is the frame's.
    Header {
        /// The decoder's error: the byte, the entry path, what was expected and found.
        error: Box<DecodeError>,
        /// The stored `header_len`, where the header's bytes end.
        header_len: usize,
    },
    /// The header's entries end before `header_len`.
    HeaderLenPastEntries {
        /// Where the header's last entry ends.
        end: usize,
        /// The stored `header_len`.
        header_len: usize,
    },
    /// The map holds more than [`MAX_METALAYERS`] metalayers.
    TooManyMetalayers {
        /// The stored count.
        count: u16,
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
    /// A content offset in the map points at a `0xc6` byte inside a content, not at the start of
    /// one.
    ContentOffsetInsideContent {
        /// Where the offset is stored.
        offset: usize,
        /// The metalayer.
        name: String,
        /// The stored offset.
        content_offset: usize,
        /// Where the content it points into starts (its `0xc6`).
        content_start: usize,
    },
    /// A content's length runs past `header_len`.
    ContentPastHeader {
        /// Where the length is stored.
        offset: usize,
        /// Which content (`metalayers.contents[i]`).
        index: usize,
        /// The stored length.
        len: u32,
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
    /// `frame_len` is larger than the file.
    FrameLenExceedsFile {
        /// The stored `frame_len`.
        frame_len: u64,
        /// The file's (or input's) length.
        file_len: u64,
    },
    /// `frame_len` leaves less than [`MIN_TRAILER_LEN`] bytes after the header.
    NoRoomForTrailer {
        /// The stored `frame_len`.
        frame_len: u64,
        /// The stored `header_len`.
        header_len: usize,
    },
    /// The byte [`TRAILER_TAIL_LEN`] bytes before `frame_len` is not `trailer_len`'s `0xce`.
    TrailerLenMarker {
        /// Its offset.
        offset: u64,
        /// The byte found.
        found: u8,
    },
    /// `trailer_len` is below [`MIN_TRAILER_LEN`] or above `frame_len - header_len`.
    TrailerLenOutOfRange {
        /// Where `trailer_len` is stored.
        offset: u64,
        /// The stored value.
        trailer_len: u32,
        /// The largest value that fits: `frame_len - header_len`.
        max: u64,
    },
    /// The trailer's bytes do not follow `frame_trailer_v1`: the generated decoder's error,
    /// whose offset is from the trailer's first byte.
    Trailer {
        /// The decoder's error.
        error: Box<DecodeError>,
        /// The trailer's first byte in the frame.
        trailer_offset: u64,
        /// The stored `frame_len`, where the trailer ends.
        frame_len: u64,
    },
    /// The trailer's entries end before `frame_len`.
    TrailerLenPastEntries {
        /// Where the trailer's last entry ends.
        end: u64,
        /// The stored `trailer_len`.
        trailer_len: u32,
        /// The stored `frame_len`.
        frame_len: u64,
    },
    /// The trailer's map holds more than [`MAX_METALAYERS`] vlmetalayers.
    TooManyVlMetalayers {
        /// Where the count is stored.
        offset: u64,
        /// The stored count.
        count: u16,
    },
    /// The trailer's `0xdc` array's count differs from its map's count.
    VlCountMismatch {
        /// Where the array's count is stored.
        offset: u64,
        /// The map's count.
        expected: u16,
        /// The array's count.
        found: u16,
    },
    /// A vlmetalayer's offset does not point at the `0xc6` marker of one of the trailer's
    /// contents.
    VlContentOffset {
        /// Where the offset is stored.
        offset: u64,
        /// The vlmetalayer.
        name: String,
        /// The stored offset, from the trailer's first byte.
        content_offset: i32,
        /// The trailer's first byte in the frame.
        trailer_offset: u64,
    },
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The io error is the source: shown by whoever prints the chain.
            FrameError::Io { path, .. } => write!(f, "cannot read {}", path.display()),
            FrameError::Read { .. } => f.write_str("cannot read the frame"),
            FrameError::NotSparseFrame { path } => write!(
                f,
                "{} is a directory without a chunks.b2frame file, so not a sparse frame",
                path.display()
            ),
            FrameError::NotSparseFrameType { path, found } => write!(
                f,
                "at byte {}: expected frame type 1 (sparse) in the chunks.b2frame of the directory {}, found {found}",
                Hex(FRAME_TYPE_AT),
                path.display()
            ),
            FrameError::Truncated { offset, expected, len } => write!(
                f,
                "at byte {}: expected {expected}, found the end of the input ({len} bytes)",
                Hex(*offset)
            ),
            FrameError::BadMagic { found } => {
                write!(f, "at byte 0x00: expected {MAGIC_TEXT}, found {}", HexBytes(found))
            }
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
            FrameError::Header { error, header_len } => {
                write!(f, "{}: at byte {} ", error.schema(), Hex(error.offset()))?;
                write_decode(f, error)?;
                if matches!(error.kind(), DecodeErrorKind::Truncated { .. }) {
                    write!(f, " (the header ends at header_len {header_len})")?;
                }
                Ok(())
            }
            FrameError::HeaderLenPastEntries { end, header_len } => write!(
                f,
                "at byte {}: the header's last entry ends here, but header_len is {header_len}",
                Hex(*end)
            ),
            FrameError::TooManyMetalayers { count } => write!(
                f,
                "at byte 0x5c: the map holds {count} metalayers, at most {MAX_METALAYERS} are allowed"
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
            FrameError::ContentOffsetInsideContent {
                offset,
                name,
                content_offset,
                content_start,
            } => write!(
                f,
                "at byte {}: metalayer {name:?} content offset {content_offset} points inside the content that starts at byte {}, not at the start of a content",
                Hex(*offset),
                Hex(*content_start)
            ),
            FrameError::ContentPastHeader {
                offset,
                index,
                len,
                header_len,
            } => write!(
                f,
                "at byte {} in metalayers.contents[{index}]: content length {len} runs past the end of the header (header_len {header_len})",
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
            FrameError::FrameLenExceedsFile { frame_len, file_len } => write!(
                f,
                "at byte 0x10: frame_len {frame_len} runs past the end of the input ({file_len} bytes)"
            ),
            FrameError::NoRoomForTrailer { frame_len, header_len } => write!(
                f,
                "at byte 0x10: frame_len {frame_len} leaves no room for a trailer ({MIN_TRAILER_LEN} bytes at least) after the header (header_len {header_len})"
            ),
            FrameError::TrailerLenMarker { offset, found } => write!(
                f,
                "at byte {}: expected trailer_len marker 0xce (uint32) {TRAILER_TAIL_LEN} bytes before the end of the frame, found 0x{found:02x}",
                Hex(*offset)
            ),
            FrameError::TrailerLenOutOfRange {
                offset,
                trailer_len,
                max,
            } => write!(
                f,
                "at byte {}: trailer_len {trailer_len} is outside {MIN_TRAILER_LEN}..={max} (a trailer, within the frame after its header)",
                Hex(*offset)
            ),
            FrameError::Trailer {
                error,
                trailer_offset,
                frame_len,
            } => {
                let at = trailer_offset.saturating_add(wide(error.offset()));
                write!(
                    f,
                    "{}: at byte {} (trailer byte {}) ",
                    error.schema(),
                    Hex(at),
                    Hex(error.offset())
                )?;
                write_decode(f, error)?;
                if matches!(error.kind(), DecodeErrorKind::Truncated { .. }) {
                    write!(f, " (the trailer ends at frame_len {frame_len})")?;
                }
                Ok(())
            }
            FrameError::TrailerLenPastEntries {
                end,
                trailer_len,
                frame_len,
            } => write!(
                f,
                "at byte {}: the trailer's last entry ends here, but the trailer runs to frame_len {frame_len} (trailer_len {trailer_len})",
                Hex(*end)
            ),
            FrameError::TooManyVlMetalayers { offset, count } => write!(
                f,
                "at byte {}: the trailer's map holds {count} vlmetalayers, at most {MAX_METALAYERS} are allowed",
                Hex(*offset)
            ),
            FrameError::VlCountMismatch {
                offset,
                expected,
                found,
            } => write!(
                f,
                "at byte {}: the trailer's content array holds {found} vlmetalayers, the map {expected}",
                Hex(*offset)
            ),
            FrameError::VlContentOffset {
                offset,
                name,
                content_offset,
                trailer_offset,
            } => write!(
                f,
                "at byte {}: vlmetalayer {name:?} content offset {content_offset} (from the trailer at byte {}) does not point at the 0xc6 marker of a content in the trailer",
                Hex(*offset),
                Hex(*trailer_offset)
            ),
        }
    }
}

impl std::error::Error for FrameError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FrameError::Io { source, .. } | FrameError::Read { source } => Some(source),
            _ => None,
        }
    }
}

/// Writes a decoder error's entry path and what was expected and found. A marker of a wire type
/// whose first byte holds a length or count (fixstr, fixarray, fixmap) is shown as the range of
/// bytes that wire type allows, where the decoder's error names its first byte.
fn write_decode(f: &mut fmt::Formatter<'_>, error: &DecodeError) -> fmt::Result {
    let path = error.path();
    if path.is_end() {
        f.write_str("after the last entry: ")?;
    } else {
        write!(f, "in {path}: ")?;
    }
    match error.kind() {
        DecodeErrorKind::Marker { wire, expected, found }
            if Wire::from_name(wire).is_some_and(|w| {
                let (lo, hi) = w.markers();
                lo < hi && expected == lo && w.marker().is_none()
            }) =>
        {
            let (lo, hi) = Wire::from_name(wire).map_or((expected, expected), Wire::markers);
            write!(f, "expected {wire} marker 0x{lo:02x}..=0x{hi:02x}, found 0x{found:02x}")
        }
        kind => write!(f, "{kind}"),
    }
}

/// Displays an offset as `0x5b` (at least two hex digits).
struct Hex<T>(T);

impl<T: fmt::LowerHex> fmt::Display for Hex<T> {
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

// ---------------------------------------------------------------------------------------------
// The prefix: magic, header_len, frame_len
// ---------------------------------------------------------------------------------------------

/// What the prefix's entries are, for the messages of a prefix cut short: the entry, its
/// marker, its wire type and the short name of its value.
const PREFIX_ENTRIES: [(&str, u8, &str, &str); 2] = [
    ("header_len", 0xd2, "int32", "i32"),
    ("frame_len", 0xcf, "uint64", "u64"),
];

/// The error of `frame_header_v2`'s decoder on the prefix, in the frame reader's terms.
fn prefix_error(error: DecodeError, prefix: &[u8]) -> FrameError {
    let offset = error.offset();
    if offset < MAGIC.len() {
        // The container marker or the magic string.
        let mut found = [0; 10];
        if let Some(bytes) = prefix.get(..MAGIC.len()) {
            found.copy_from_slice(bytes);
        }
        return FrameError::BadMagic { found };
    }
    let entry = error.path().entry_name().unwrap_or_default();
    match error.kind() {
        DecodeErrorKind::Marker { wire, expected, found } => FrameError::UnexpectedByte {
            offset,
            expected: format!("{entry} marker 0x{expected:02x} ({wire})"),
            found,
        },
        DecodeErrorKind::Truncated { needed, .. } => {
            let expected = match PREFIX_ENTRIES.iter().find(|e| e.0 == entry) {
                Some((name, marker, wire, _)) if needed == 1 => format!("{name} marker 0x{marker:02x} ({wire})"),
                Some((name, _, _, short)) => format!("{name} ({short})"),
                None => entry.to_owned(),
            };
            FrameError::Truncated {
                offset,
                expected,
                len: prefix.len(),
            }
        }
        DecodeErrorKind::OutOfRange { found, .. } if entry == "header_len" => match i32::try_from(found.get()) {
            Ok(header_len) if header_len < 0 => FrameError::NegativeHeaderLen { header_len },
            _ => FrameError::HeaderLenTooSmall {
                header_len: usize::try_from(found.get()).unwrap_or_default(),
            },
        },
        _ => FrameError::Header {
            error: Box::new(error),
            header_len: prefix.len(),
        },
    }
}

/// Reads `header_len` from the first [`PREFIX_LEN`] bytes of a frame, checking the magic, the
/// markers, that `header_len` lies in [`MIN_HEADER_LEN`]`..=`[`MAX_HEADER_LEN`] and that
/// `frame_len` is at least `header_len`. Bytes after the prefix are ignored.
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
///     "at byte 0x0b: expected header_len (i32), found the end of the input (12 bytes)"
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

/// `header_len` and `frame_len`, checked as [`header_len`] says.
fn prefix_lens(prefix: &[u8]) -> Result<(usize, u64), FrameError> {
    let prefix = prefix.get(..PREFIX_LEN).unwrap_or(prefix);
    if prefix.len() < MAGIC.len() {
        return Err(FrameError::Truncated {
            offset: 0,
            expected: MAGIC_TEXT.to_owned(),
            len: prefix.len(),
        });
    }
    // How far the decoder got: every entry before `reached` has been read and checked.
    let (reached, error) = match FrameHeader::decode_prefix(prefix) {
        Ok(_) => (PREFIX_LEN, None),
        Err(e) => (e.offset(), Some(e)),
    };
    let raw_header_len = (reached >= FRAME_LEN_AT)
        .then(|| be_array(prefix, HEADER_LEN_AT.saturating_add(1)).map(i32::from_be_bytes))
        .flatten();
    // The limit is checked before the errors that follow header_len, as its offset comes first.
    let header_len = raw_header_len.and_then(|raw| usize::try_from(raw).ok());
    if let Some(header_len) = header_len
        && header_len > MAX_HEADER_LEN
    {
        return Err(FrameError::HeaderLenTooLarge { header_len });
    }
    if let Some(error) = error
        && reached < PREFIX_LEN
    {
        return Err(prefix_error(error, prefix));
    }
    let frame_len = be_array(prefix, FRAME_LEN_AT.saturating_add(1)).map(u64::from_be_bytes);
    match (header_len, frame_len) {
        (Some(header_len), Some(frame_len)) => {
            if frame_len < wide(header_len) {
                return Err(FrameError::FrameLenTooSmall { frame_len, header_len });
            }
            Ok((header_len, frame_len))
        }
        // Not reached: the decoder read both entries from these bytes, and header_len is at
        // least 97.
        _ => Err(FrameError::Truncated {
            offset: FRAME_LEN_AT,
            expected: "header_len and frame_len".to_owned(),
            len: prefix.len(),
        }),
    }
}

// ---------------------------------------------------------------------------------------------
// Metalayer sections
// ---------------------------------------------------------------------------------------------

/// Where the parts of a decoded metalayer section are in its buffer: each name's offset value,
/// the `0xdc` array's count, and each content's `0xc6`. The wire types are fixed (fixstr names,
/// int32 offsets, bin32 contents), so the positions follow from the decoded values.
struct Placement {
    offset_at: Vec<usize>,
    count_at: usize,
    contents_start: usize,
    content_at: Vec<usize>,
}

fn place(section_at: usize, offsets: &[(&str, i32)], contents: &[&[u8]]) -> Placement {
    let mut at = section_at.saturating_add(SECTION_PAIRS_AT);
    let mut offset_at = Vec::with_capacity(offsets.len());
    for (name, _) in offsets {
        // 0xa0 + len, the name, 0xd2, then the value.
        let value_at = at.saturating_add(name.len()).saturating_add(2);
        offset_at.push(value_at);
        at = value_at.saturating_add(4);
    }
    // 0xdc, then the count.
    let count_at = at.saturating_add(1);
    let contents_start = count_at.saturating_add(2);
    let mut content_at = Vec::with_capacity(contents.len());
    let mut at = contents_start;
    for content in contents {
        content_at.push(at);
        at = at.saturating_add(5).saturating_add(content.len());
    }
    Placement {
        offset_at,
        count_at,
        contents_start,
        content_at,
    }
}

/// Why a stored content offset does not point at a content's `0xc6`.
enum Miss {
    Negative,
    /// At or past the end of the buffer.
    Outside(usize),
    /// Before the contents.
    Before(usize),
    /// At a byte other than `0xc6`.
    NotMarker(usize, u8),
    /// At a `0xc6` inside the content that starts (at its own `0xc6`) at the second offset.
    Inside(usize, usize),
}

/// The content a stored offset points at, by index.
fn target(raw: i32, buf: &[u8], placement: &Placement) -> Result<usize, Miss> {
    let at = usize::try_from(raw).map_err(|_| Miss::Negative)?;
    let byte = byte_at(buf, at).ok_or(Miss::Outside(at))?;
    if at < placement.contents_start {
        return Err(Miss::Before(at));
    }
    // Contents are stored one after the other, so a binary search finds the one at or before.
    match placement.content_at.binary_search(&at) {
        Ok(i) => Ok(i),
        Err(_) if byte != BIN32_MARKER => Err(Miss::NotMarker(at, byte)),
        Err(i) => {
            let start = i.checked_sub(1).and_then(|j| placement.content_at.get(j)).copied();
            Err(Miss::Inside(at, start.unwrap_or(placement.contents_start)))
        }
    }
}

/// The metalayers of a decoded section, each content found through its offset, as c-blosc2
/// finds them; `base` is the buffer's offset in the frame. `refuse` builds the error for an
/// offset that misses: where the offset is stored (in the buffer), the name, the stored value.
fn resolve<'b>(
    offsets: &[(&'b str, i32)],
    contents: &[&'b [u8]],
    buf: &[u8],
    placement: &Placement,
    base: u64,
    refuse: impl Fn(usize, &str, i32, Miss) -> FrameError,
) -> Result<Vec<MetalayerRef<'b>>, FrameError> {
    let mut metalayers = Vec::with_capacity(offsets.len());
    for (i, &(name, raw)) in offsets.iter().enumerate() {
        let offset_at = placement.offset_at.get(i).copied().unwrap_or_default();
        let index = target(raw, buf, placement).map_err(|miss| refuse(offset_at, name, raw, miss))?;
        let content = contents.get(index).copied().unwrap_or_default();
        // The content's bytes follow its 0xc6 and u32 length.
        let start = placement
            .content_at
            .get(index)
            .copied()
            .unwrap_or_default()
            .saturating_add(5);
        metalayers.push(MetalayerRef {
            name,
            offset: base.saturating_add(wide(start)),
            content,
        });
    }
    Ok(metalayers)
}

/// The count a section's map16 header states, read where the section puts it, when the
/// decoder failed after it: a count over the limit explains the failure first (it comes first).
fn section_count(buf: &[u8], section_at: usize, reached: usize) -> Option<u16> {
    let map_at = section_at.saturating_add(SECTION_MAP_AT);
    if reached < section_at.saturating_add(SECTION_PAIRS_AT) || byte_at(buf, map_at) != Some(MAP16_MARKER) {
        return None;
    }
    be_u16(buf, map_at.saturating_add(1)).filter(|&count| usize::from(count) > MAX_METALAYERS)
}

/// When the decoder refused a section's contents as a whole (more contents than the bytes left
/// can hold, checked before any is read), and their count differs from the map's: where the
/// array16's count is, the map's count and the array's.
fn contents_count_mismatch(
    error: &DecodeError,
    buf: &[u8],
    section_at: usize,
    entry: &str,
) -> Option<(usize, u16, u16)> {
    if !matches!(error.kind(), DecodeErrorKind::Truncated { .. })
        || error.path().to_string() != format!("{entry}.contents")
    {
        return None;
    }
    let count_at = error.offset().checked_sub(2)?;
    if byte_at(buf, count_at.checked_sub(1)?) != Some(0xdc) {
        return None;
    }
    let map_at = section_at.saturating_add(SECTION_MAP_AT);
    let map = (byte_at(buf, map_at) == Some(MAP16_MARKER)).then(|| be_u16(buf, map_at.saturating_add(1)))??;
    let array = be_u16(buf, count_at)?;
    (map != array).then_some((count_at, map, array))
}

/// The index of the content a path names (`metalayers.contents[3]`), if it names one.
fn content_index(path: crate::Path, entry: &str) -> Option<usize> {
    let text = path.to_string();
    let rest = text.strip_prefix(entry)?.strip_prefix(".contents[")?;
    rest.strip_suffix(']')?.parse().ok()
}

// ---------------------------------------------------------------------------------------------
// The header
// ---------------------------------------------------------------------------------------------

/// The error of `frame_header_v2`'s decoder on a whole header, in the frame reader's terms where
/// they say more: too many metalayers, and a content's length that runs past `header_len`
/// (reported at the length, where the decoder reports the missing bytes).
fn header_error(error: DecodeError, header: &[u8]) -> FrameError {
    let header_len = header.len();
    if let Some(count) = section_count(header, HEADER_SECTION_AT, error.offset()) {
        return FrameError::TooManyMetalayers { count };
    }
    if let Some((offset, expected, found)) = contents_count_mismatch(&error, header, HEADER_SECTION_AT, "metalayers") {
        return FrameError::CountMismatch {
            offset,
            expected,
            found,
        };
    }
    if let DecodeErrorKind::Truncated { needed, .. } = error.kind()
        && let Some(index) = content_index(error.path(), "metalayers")
        && let Some(len_at) = error.offset().checked_sub(4)
        && byte_at(header, len_at.saturating_sub(1)) == Some(BIN32_MARKER)
        && byte_at(header, error.offset().saturating_sub(1)) != Some(BIN32_MARKER)
        && let Some(len) = be_u32(header, len_at)
        && usize::try_from(len).ok() == Some(needed)
    {
        return FrameError::ContentPastHeader {
            offset: len_at,
            index,
            len,
            header_len,
        };
    }
    FrameError::Header {
        error: Box::new(error),
        header_len,
    }
}

/// Decodes a header of exactly `header_len` bytes (the prefix checked) and finds its
/// metalayers.
fn decode_header(header: &[u8]) -> Result<(FrameHeader<'_>, Vec<MetalayerRef<'_>>), FrameError> {
    let header_len = header.len();
    let (decoded, end) = FrameHeader::decode_prefix(header).map_err(|e| header_error(e, header))?;
    let index = &decoded.metalayers;
    let count = index.offsets.len();
    if count > MAX_METALAYERS {
        return Err(FrameError::TooManyMetalayers {
            count: u16::try_from(count).unwrap_or(u16::MAX),
        });
    }
    let placement = place(HEADER_SECTION_AT, &index.offsets, &index.contents);
    if index.contents.len() != count {
        return Err(FrameError::CountMismatch {
            offset: placement.count_at,
            expected: u16::try_from(count).unwrap_or(u16::MAX),
            found: u16::try_from(index.contents.len()).unwrap_or(u16::MAX),
        });
    }
    let metalayers = resolve(
        &index.offsets,
        &index.contents,
        header,
        &placement,
        0,
        |offset, name, raw, miss| {
            let name = name.to_owned();
            match miss {
                Miss::Negative => FrameError::NegativeContentOffset {
                    offset,
                    name,
                    content_offset: raw,
                },
                Miss::Outside(at) => FrameError::ContentOffsetOutsideHeader {
                    offset,
                    name,
                    content_offset: at,
                    header_len,
                },
                Miss::Before(at) => FrameError::ContentOffsetBeforeContents {
                    offset,
                    name,
                    content_offset: at,
                    start: placement.contents_start,
                },
                Miss::NotMarker(at, found) => FrameError::UnexpectedByte {
                    offset: at,
                    expected: format!("content marker 0xc6 (bin32) of metalayer {name:?}"),
                    found,
                },
                Miss::Inside(at, content_start) => FrameError::ContentOffsetInsideContent {
                    offset,
                    name,
                    content_offset: at,
                    content_start,
                },
            }
        },
    )?;
    if end != header_len {
        return Err(FrameError::HeaderLenPastEntries { end, header_len });
    }
    Ok((decoded, metalayers))
}

/// The header's bytes: the first `header_len` bytes of `frame`, or an error.
fn header_bytes(frame: &[u8]) -> Result<&[u8], FrameError> {
    let header_len = header_len(frame)?;
    frame.get(..header_len).ok_or(FrameError::HeaderLenExceedsInput {
        header_len,
        len: frame.len(),
    })
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
    decode_header(header_bytes(header)?).map(|(_, metalayers)| metalayers.iter().map(MetalayerRef::to_owned).collect())
}

// ---------------------------------------------------------------------------------------------
// The trailer
// ---------------------------------------------------------------------------------------------

/// Where the trailer's tail ([`TRAILER_TAIL_LEN`] bytes: `trailer_len` and the fingerprint)
/// starts, once `frame_len` is checked against the input and the header.
fn tail_at(header_len: usize, frame_len: u64, file_len: u64) -> Result<u64, FrameError> {
    if frame_len > file_len {
        return Err(FrameError::FrameLenExceedsFile { frame_len, file_len });
    }
    if frame_len.saturating_sub(wide(header_len)) < wide(MIN_TRAILER_LEN) {
        return Err(FrameError::NoRoomForTrailer { frame_len, header_len });
    }
    Ok(frame_len.saturating_sub(wide(TRAILER_TAIL_LEN)))
}

/// The trailer's offset and length, from its tail.
fn trailer_place(tail: &[u8], tail_at: u64, header_len: usize, frame_len: u64) -> Result<(u64, u32), FrameError> {
    let marker = byte_at(tail, 0).unwrap_or_default();
    if marker != TRAILER_LEN_MARKER {
        return Err(FrameError::TrailerLenMarker {
            offset: tail_at,
            found: marker,
        });
    }
    let trailer_len = be_u32(tail, 1).unwrap_or_default();
    let max = frame_len.saturating_sub(wide(header_len));
    if u64::from(trailer_len) < wide(MIN_TRAILER_LEN) || u64::from(trailer_len) > max {
        return Err(FrameError::TrailerLenOutOfRange {
            offset: tail_at.saturating_add(1),
            trailer_len,
            max,
        });
    }
    Ok((frame_len.saturating_sub(u64::from(trailer_len)), trailer_len))
}

/// The error of `frame_trailer_v1`'s decoder, in the frame reader's terms where they say more.
fn trailer_error(error: DecodeError, trailer: &[u8], trailer_offset: u64, frame_len: u64) -> FrameError {
    if let Some(count) = section_count(trailer, TRAILER_SECTION_AT, error.offset()) {
        return FrameError::TooManyVlMetalayers {
            offset: trailer_offset.saturating_add(wide(TRAILER_SECTION_AT + SECTION_MAP_AT + 1)),
            count,
        };
    }
    if let Some((offset, expected, found)) =
        contents_count_mismatch(&error, trailer, TRAILER_SECTION_AT, "vlmetalayers")
    {
        return FrameError::VlCountMismatch {
            offset: trailer_offset.saturating_add(wide(offset)),
            expected,
            found,
        };
    }
    FrameError::Trailer {
        error: Box::new(error),
        trailer_offset,
        frame_len,
    }
}

/// Decodes a trailer (exactly `trailer_len` bytes, at `trailer_offset` in the frame) and finds
/// its vlmetalayers.
fn decode_trailer(
    trailer: &[u8],
    trailer_offset: u64,
    frame_len: u64,
) -> Result<(FrameTrailer<'_>, Vec<MetalayerRef<'_>>), FrameError> {
    let (decoded, end) =
        FrameTrailer::decode_prefix(trailer).map_err(|e| trailer_error(e, trailer, trailer_offset, frame_len))?;
    let index = &decoded.vlmetalayers;
    let count = index.offsets.len();
    let at = |offset: usize| trailer_offset.saturating_add(wide(offset));
    if count > MAX_METALAYERS {
        return Err(FrameError::TooManyVlMetalayers {
            offset: at(TRAILER_SECTION_AT + SECTION_MAP_AT + 1),
            count: u16::try_from(count).unwrap_or(u16::MAX),
        });
    }
    let placement = place(TRAILER_SECTION_AT, &index.offsets, &index.contents);
    if index.contents.len() != count {
        return Err(FrameError::VlCountMismatch {
            offset: at(placement.count_at),
            expected: u16::try_from(count).unwrap_or(u16::MAX),
            found: u16::try_from(index.contents.len()).unwrap_or(u16::MAX),
        });
    }
    let vlmetalayers = resolve(
        &index.offsets,
        &index.contents,
        trailer,
        &placement,
        trailer_offset,
        |offset, name, raw, _| FrameError::VlContentOffset {
            offset: at(offset),
            name: name.to_owned(),
            content_offset: raw,
            trailer_offset,
        },
    )?;
    if end != trailer.len() {
        return Err(FrameError::TrailerLenPastEntries {
            end: at(end),
            trailer_len: u32::try_from(trailer.len()).unwrap_or(u32::MAX),
            frame_len,
        });
    }
    Ok((decoded, vlmetalayers))
}

fn frame_of<'a>(
    header: (&FrameHeader<'_>, usize, Vec<MetalayerRef<'a>>),
    trailer: (&FrameTrailer<'_>, u64, Vec<MetalayerRef<'a>>),
) -> FrameRef<'a> {
    let (h, header_len, metalayers) = header;
    let (t, offset, vlmetalayers) = trailer;
    FrameRef {
        header: Header::of(h, header_len),
        metalayers,
        trailer: Trailer {
            offset,
            trailer_len: t.trailer_len,
            vlmetalayers_size: t.vlmetalayers.size,
            fingerprint: t.fingerprint,
        },
        vlmetalayers,
    }
}

/// The `len` bytes of `bytes` at `at`, where the caller has checked they are.
fn span(bytes: &[u8], at: u64, len: u64) -> &[u8] {
    let start = usize::try_from(at).unwrap_or(usize::MAX);
    let stop = usize::try_from(at.saturating_add(len)).unwrap_or(usize::MAX);
    bytes.get(start..stop).unwrap_or_default()
}

/// Parses a whole frame held in memory: its header and its trailer, found from `frame_len`.
/// Bytes after `frame_len` are ignored. See the [module documentation](self) for what is
/// checked.
///
/// ```
/// use metalayer::frame::parse_frame;
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/updated_deleted.b2nd");
/// let bytes = std::fs::read(path).unwrap();
/// let frame = parse_frame(&bytes)?;
/// // python-blosc2 set "a" to "d", updated "b" (it keeps its place), deleted "c", added "e".
/// let names: Vec<&str> = frame.vlmetalayers.iter().map(|m| m.name.as_str()).collect();
/// assert_eq!(names, ["a", "b", "d", "e"]);
/// assert_eq!(frame.trailer.offset + u64::from(frame.trailer.trailer_len), frame.header.frame_len);
///
/// // trailer_len is found 22 bytes before frame_len.
/// let mut bad = bytes.clone();
/// let at = bad.len() - 22;
/// bad[at..at + 4].copy_from_slice(&u32::MAX.to_be_bytes());
/// assert!(parse_frame(&bad).unwrap_err().to_string().contains("trailer_len 4294967295 is outside 35..="));
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
pub fn parse_frame(frame: &[u8]) -> Result<Frame, FrameError> {
    parse_frame_borrowed(frame).map(|f| f.to_owned())
}

/// [`parse_frame`], with the metalayers and vlmetalayers borrowed from `frame`: nothing is
/// copied, so a frame held in memory (one stored in a value, say) is read at no cost beyond
/// its index.
///
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/scalars.b2nd");
/// let bytes = std::fs::read(path).unwrap();
/// let frame = metalayer::frame::parse_frame_borrowed(&bytes)?;
/// assert_eq!(frame.to_owned(), metalayer::frame::parse_frame(&bytes)?);
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
pub fn parse_frame_borrowed(frame: &[u8]) -> Result<FrameRef<'_>, FrameError> {
    let (header_len, frame_len) = prefix_lens(frame)?;
    let header = frame.get(..header_len).ok_or(FrameError::HeaderLenExceedsInput {
        header_len,
        len: frame.len(),
    })?;
    let (h, metalayers) = decode_header(header)?;
    let tail_at = tail_at(header_len, frame_len, wide(frame.len()))?;
    let tail = span(frame, tail_at, wide(TRAILER_TAIL_LEN));
    let (trailer_offset, trailer_len) = trailer_place(tail, tail_at, header_len, frame_len)?;
    let trailer = span(frame, trailer_offset, u64::from(trailer_len));
    let (t, vlmetalayers) = decode_trailer(trailer, trailer_offset, frame_len)?;
    Ok(frame_of(
        (&h, header_len, metalayers),
        (&t, trailer_offset, vlmetalayers),
    ))
}

// ---------------------------------------------------------------------------------------------
// Files and readers
// ---------------------------------------------------------------------------------------------

/// Reads `len` bytes at `at` (which the caller has checked lie in the input).
fn read_at<R: Read + Seek>(
    reader: &mut R,
    at: u64,
    len: u64,
    io_error: &dyn Fn(io::Error) -> FrameError,
) -> Result<Vec<u8>, FrameError> {
    reader.seek(SeekFrom::Start(at)).map_err(io_error)?;
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    reader.take(len).read_to_end(&mut bytes).map_err(io_error)?;
    Ok(bytes)
}

/// Reads the header: the first [`PREFIX_LEN`] bytes, then the rest of `header_len`. Returns the
/// input's length too.
fn read_header<R: Read + Seek>(
    reader: &mut R,
    io_error: &dyn Fn(io::Error) -> FrameError,
) -> Result<(Vec<u8>, u64), FrameError> {
    let file_len = reader.seek(SeekFrom::End(0)).map_err(io_error)?;
    let mut header = read_at(reader, 0, wide(PREFIX_LEN), io_error)?;
    let header_len = header_len(&header)?;
    if wide(header_len) > file_len {
        return Err(FrameError::HeaderLenExceedsFile { header_len, file_len });
    }
    // `header_len` is now bounded by both the input's length and `MAX_HEADER_LEN`.
    let rest = header_len.saturating_sub(header.len());
    header.reserve_exact(rest);
    reader.take(wide(rest)).read_to_end(&mut header).map_err(io_error)?;
    Ok((header, file_len))
}

/// Reads a frame's header and trailer from `reader`.
fn read_frame_with<R: Read + Seek>(
    reader: &mut R,
    io_error: &dyn Fn(io::Error) -> FrameError,
    sparse_dir: Option<&Path>,
) -> Result<Frame, FrameError> {
    let bytes = read_frame_bytes_with(reader, io_error, sparse_dir)?;
    let mut frame = bytes.frame()?.to_owned();
    if bytes.contents_from.is_some() {
        // The contents were left in the input: read them for the owned frame.
        for m in &mut frame.vlmetalayers {
            m.content = read_at(reader, m.offset, wide(m.content.len()), io_error)?;
        }
    }
    Ok(frame)
}

/// Reads and checks a frame's header and trailer from `reader`, keeping their bytes.
fn read_frame_bytes_with<R: Read + Seek>(
    reader: &mut R,
    io_error: &dyn Fn(io::Error) -> FrameError,
    sparse_dir: Option<&Path>,
) -> Result<FrameBytes, FrameError> {
    let (mut header, file_len) = read_header(reader, io_error)?;
    let header_len = header_bytes(&header)?.len();
    header.truncate(header_len);
    let (h, _) = decode_header(&header)?;
    check_sparse(&h, sparse_dir)?;
    let frame_len = h.frame_len;
    let tail_at = tail_at(header_len, frame_len, file_len)?;
    let tail = read_at(reader, tail_at, wide(TRAILER_TAIL_LEN), io_error)?;
    let (trailer_offset, trailer_len) = trailer_place(&tail, tail_at, header_len, frame_len)?;
    let (trailer, whole) = read_trailer(reader, trailer_offset, trailer_len, io_error)?;
    decode_trailer(&trailer, trailer_offset, frame_len)?;
    Ok(FrameBytes {
        header,
        trailer,
        trailer_offset,
        frame_len,
        contents_from: (!whole).then(PathBuf::new),
    })
}

/// Trailers up to this long are read whole; a longer one (its vlmetalayers' chunks are large)
/// is read as its index and the framing of its contents, whose bytes are read when they are
/// wanted ([`FrameBytes::content`]).
const TRAILER_READ_WHOLE: u32 = 16 << 20;

/// Reads a trailer: whole, or, when it is longer than [`TRAILER_READ_WHOLE`], into a buffer of
/// zeros (pages the system gives only once they are written) that gets the trailer's bytes
/// except its contents' own: the index, each content's `0xc6` and length, the tail. The
/// generated decoder then checks the trailer as it would the whole one. `true` when it was read
/// whole; a trailer whose framing does not read as expected is read whole, for the decoder to
/// report.
fn read_trailer<R: Read + Seek>(
    reader: &mut R,
    at: u64,
    len: u32,
    io_error: &dyn Fn(io::Error) -> FrameError,
) -> Result<(Vec<u8>, bool), FrameError> {
    if len <= TRAILER_READ_WHOLE {
        return Ok((read_at(reader, at, u64::from(len), io_error)?, true));
    }
    let len = usize::try_from(len).unwrap_or(usize::MAX);
    let mut trailer = vec![0u8; len];
    let mut fill = |t: &mut [u8], from: usize, to: usize| -> Result<(), FrameError> {
        let to = to.min(t.len());
        if let Some(part) = t.get_mut(from..to) {
            reader
                .seek(SeekFrom::Start(at.saturating_add(wide(from))))
                .map_err(io_error)?;
            reader.read_exact(part).map_err(io_error)?;
        }
        Ok(())
    };
    // The index: the section's map of at most a few hundred bytes, within the first 64 KiB.
    fill(&mut trailer, 0, 64 << 10)?;
    if contents_framing(&mut trailer, &mut fill)? {
        fill(&mut trailer, len.saturating_sub(TRAILER_TAIL_LEN), len)?;
        return Ok((trailer, false));
    }
    drop(trailer);
    Ok((read_at(reader, at, wide(len), io_error)?, true))
}

/// Walks a trailer's section as the schema lays it out (the map of names to offsets, then the
/// array16 of bin32 contents), reading each content's 5-byte header and the 32 bytes after it
/// into `t` with `fill`;
/// `false` when the bytes are not laid out so.
fn contents_framing(
    t: &mut [u8],
    fill: &mut impl FnMut(&mut [u8], usize, usize) -> Result<(), FrameError>,
) -> Result<bool, FrameError> {
    let map_at = TRAILER_SECTION_AT + SECTION_MAP_AT;
    let (Some(MAP16_MARKER), Some(count)) = (byte_at(t, map_at), be_u16(t, map_at + 1)) else {
        return Ok(false);
    };
    let mut pos = TRAILER_SECTION_AT + SECTION_PAIRS_AT;
    for _ in 0..count {
        let mut d = Decoder::new(t.get(pos..).unwrap_or_default(), "frame_trailer_v1");
        let Ok(name_len) = d.any_header(Family::Str, false, metalayer_runtime::Path::CONTAINER) else {
            return Ok(false);
        };
        // The name, then the offset: 0xd2 and an int32.
        pos = pos
            .saturating_add(d.position())
            .saturating_add(name_len)
            .saturating_add(5);
    }
    let (Some(0xdc), Some(contents)) = (byte_at(t, pos), be_u16(t, pos.saturating_add(1))) else {
        return Ok(false);
    };
    pos = pos.saturating_add(3);
    for _ in 0..contents {
        // The bin32 header, and the Blosc2 chunk's header after it (what sizes are shown from).
        fill(t, pos, pos.saturating_add(5 + 32))?;
        let (Some(BIN32_MARKER), Some(content_len)) = (byte_at(t, pos), be_u32(t, pos.saturating_add(1))) else {
            return Ok(false);
        };
        pos = pos
            .saturating_add(5)
            .saturating_add(usize::try_from(content_len).unwrap_or(usize::MAX));
    }
    Ok(pos.saturating_add(TRAILER_TAIL_LEN) == t.len())
}

/// A frame's header and trailer, read and checked, kept as their bytes: [`frame`](Self::frame)
/// borrows every metalayer and vlmetalayer from them, so nothing is copied. The chunks between
/// them are never read.
///
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/strings.b2nd");
/// let bytes = metalayer::frame::read_frame_bytes(path)?;
/// let frame = bytes.frame()?;
/// assert_eq!(frame.to_owned(), metalayer::frame::read_frame(path)?);
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameBytes {
    header: Vec<u8>,
    trailer: Vec<u8>,
    trailer_offset: u64,
    frame_len: u64,
    /// When the trailer's contents were not read (a long trailer): the file to read them from.
    contents_from: Option<PathBuf>,
}

impl FrameBytes {
    /// The frame, borrowed from the bytes. The bytes were checked when they were read, so this
    /// decodes their index again without an error.
    pub fn frame(&self) -> Result<FrameRef<'_>, FrameError> {
        let (h, metalayers) = decode_header(&self.header)?;
        let (t, vlmetalayers) = decode_trailer(&self.trailer, self.trailer_offset, self.frame_len)?;
        Ok(frame_of(
            (&h, self.header.len(), metalayers),
            (&t, self.trailer_offset, vlmetalayers),
        ))
    }

    /// A vlmetalayer's content: borrowed from the trailer, or, when the trailer was long and its
    /// contents were left in the file, read from the file now.
    ///
    /// ```
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/strings.b2nd");
    /// let bytes = metalayer::frame::read_frame_bytes(path)?;
    /// let frame = bytes.frame()?;
    /// let first = &frame.vlmetalayers[0];
    /// assert_eq!(&*bytes.content(first)?, first.content);
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    pub fn content<'a>(&self, m: &MetalayerRef<'a>) -> Result<std::borrow::Cow<'a, [u8]>, FrameError> {
        let Some(path) = &self.contents_from else {
            return Ok(std::borrow::Cow::Borrowed(m.content));
        };
        let io_error = |source| FrameError::Io {
            path: path.clone(),
            source,
        };
        let mut file = File::open(path).map_err(io_error)?;
        read_at(&mut file, m.offset, wide(m.content.len()), &io_error).map(std::borrow::Cow::Owned)
    }

    /// Whether the vlmetalayers' contents were left in the file (a long trailer), to be read by
    /// [`content`](Self::content).
    ///
    /// ```
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/strings.b2nd");
    /// assert!(!metalayer::frame::read_frame_bytes(path)?.contents_in_file());
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    pub fn contents_in_file(&self) -> bool {
        self.contents_from.is_some()
    }

    /// The header's and the trailer's bytes held: what reading the frame cost in memory.
    pub fn len(&self) -> usize {
        self.header.len().saturating_add(self.trailer.len())
    }

    /// Always false: a frame has a header.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// A whole frame held in memory, such as one read from a stream, checked as
    /// [`parse_frame`] checks it; only its header and trailer are kept.
    ///
    /// ```
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
    /// let whole = std::fs::read(path).unwrap();
    /// let bytes = metalayer::frame::FrameBytes::from_frame(&whole)?;
    /// assert_eq!(bytes.frame()?.to_owned(), metalayer::frame::parse_frame(&whole)?);
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    pub fn from_frame(frame: &[u8]) -> Result<FrameBytes, FrameError> {
        let parsed = parse_frame_borrowed(frame)?;
        let header_len = parsed.header.header_len;
        let (trailer_offset, frame_len) = (parsed.trailer.offset, parsed.header.frame_len);
        Ok(FrameBytes {
            header: frame.get(..header_len).unwrap_or_default().to_vec(),
            trailer: span(frame, trailer_offset, frame_len.saturating_sub(trailer_offset)).to_vec(),
            trailer_offset,
            frame_len,
            contents_from: None,
        })
    }
}

/// Reads a frame's metalayers from `reader`, reading its header only.
fn read_metalayers_with<R: Read + Seek>(
    reader: &mut R,
    io_error: &dyn Fn(io::Error) -> FrameError,
    sparse_dir: Option<&Path>,
) -> Result<Vec<FrameMetalayer>, FrameError> {
    let (header, _) = read_header(reader, io_error)?;
    let (h, metalayers) = decode_header(header_bytes(&header)?)?;
    check_sparse(&h, sparse_dir)?;
    Ok(metalayers.iter().map(MetalayerRef::to_owned).collect())
}

/// In a sparse-frame directory, `chunks.b2frame` must say it is a sparse frame.
fn check_sparse(header: &FrameHeader<'_>, sparse_dir: Option<&Path>) -> Result<(), FrameError> {
    match (sparse_dir, header.flags.get(1).copied().unwrap_or_default()) {
        (Some(path), found) if found != SPARSE_FRAME_TYPE => Err(FrameError::NotSparseFrameType {
            path: path.to_path_buf(),
            found,
        }),
        _ => Ok(()),
    }
}

/// The file that holds the frame's header and trailer: `path` itself, or a sparse-frame
/// directory's `chunks.b2frame` (with the directory).
fn frame_file(path: &Path) -> Result<(PathBuf, Option<&Path>), FrameError> {
    let io_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| FrameError::Io { path, source }
    };
    if !fs::metadata(path).map_err(io_error(path))?.is_dir() {
        return Ok((path.to_path_buf(), None));
    }
    let sparse_path = path.join(SPARSE_HEADER_FILE);
    match fs::metadata(&sparse_path) {
        Ok(meta) if meta.is_file() => Ok((sparse_path, Some(path))),
        Ok(_) => Err(FrameError::NotSparseFrame {
            path: path.to_path_buf(),
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(FrameError::NotSparseFrame {
            path: path.to_path_buf(),
        }),
        Err(e) => Err(io_error(&sparse_path)(e)),
    }
}

/// Opens a frame file, and reads from it with `read`.
fn with_file<T>(
    path: &Path,
    read: impl FnOnce(&mut File, &dyn Fn(io::Error) -> FrameError, Option<&Path>) -> Result<T, FrameError>,
) -> Result<T, FrameError> {
    let (file_path, sparse_dir) = frame_file(path)?;
    let io_error = |source| FrameError::Io {
        path: file_path.clone(),
        source,
    };
    let mut file = File::open(&file_path).map_err(io_error)?;
    read(&mut file, &io_error, sparse_dir)
}

/// Reads the metalayers of a frame file, in stored order, reading only its header.
///
/// `path` is a contiguous frame file (`.b2nd`, `.b2frame`, `.cat`) or a sparse-frame directory,
/// whose `chunks.b2frame` is read (and must say it is a sparse frame). The first [`PREFIX_LEN`]
/// bytes give `header_len`, which is checked against the file's length before exactly
/// `header_len` bytes are read; the chunks and the trailer are never read. See the [module
/// documentation](self) for what is checked.
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
    with_file(path.as_ref(), |file, io_error, sparse_dir| {
        read_metalayers_with(file, io_error, sparse_dir)
    })
}

/// Reads a frame's header and trailer: the header's fields, the metalayers, the trailer's
/// fields and the vlmetalayers, reading nothing in between.
///
/// `path` is a contiguous frame file or a sparse-frame directory, as for [`read_metalayers`].
/// The header is read as [`read_metalayers`] reads it; then the [`TRAILER_TAIL_LEN`] bytes
/// before `frame_len`, which give `trailer_len`; then the trailer's `trailer_len` bytes. See the
/// [module documentation](self) for what is checked.
///
/// ```
/// use metalayer::frame::read_frame;
///
/// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/sparse_mixed.b2nd");
/// let frame = read_frame(dir)?;
/// assert_eq!(frame.header.frame_type(), 1);
/// assert_eq!(frame.metalayers[0].name, "b2nd");
/// assert!(!frame.vlmetalayers.is_empty());
/// for vl in &frame.vlmetalayers {
///     assert!(vl.offset > frame.trailer.offset);
/// }
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
pub fn read_frame(path: impl AsRef<Path>) -> Result<Frame, FrameError> {
    with_file(path.as_ref(), |file, io_error, sparse_dir| {
        read_frame_with(file, io_error, sparse_dir)
    })
}

/// [`read_frame`], keeping the header's and the trailer's bytes instead of copying each
/// metalayer and vlmetalayer out of them: a frame whose vlmetalayers are large is held once.
pub fn read_frame_bytes(path: impl AsRef<Path>) -> Result<FrameBytes, FrameError> {
    let (file_path, _) = frame_file(path.as_ref())?;
    let mut bytes = with_file(path.as_ref(), |file, io_error, sparse_dir| {
        read_frame_bytes_with(file, io_error, sparse_dir)
    })?;
    if bytes.contents_from.is_some() {
        bytes.contents_from = Some(file_path);
    }
    Ok(bytes)
}

/// [`read_frame`] on any reader that holds a frame from its first byte: the input's length is
/// found by seeking to its end. Io errors are [`FrameError::Read`].
///
/// ```
/// use std::io::Cursor;
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/scalars.b2nd");
/// let bytes = std::fs::read(path).unwrap();
/// let frame = metalayer::frame::read_frame_from(Cursor::new(&bytes))?;
/// assert_eq!(frame, metalayer::frame::parse_frame(&bytes)?);
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
pub fn read_frame_from<R: Read + Seek>(mut reader: R) -> Result<Frame, FrameError> {
    read_frame_with(&mut reader, &|source| FrameError::Read { source }, None)
}

/// [`read_metalayers`] on any reader that holds a frame from its first byte, reading only the
/// header. Io errors are [`FrameError::Read`].
///
/// ```
/// use std::io::Cursor;
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
/// let bytes = std::fs::read(path).unwrap();
/// let metalayers = metalayer::frame::read_metalayers_from(Cursor::new(&bytes))?;
/// assert_eq!(metalayers.len(), 5);
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
pub fn read_metalayers_from<R: Read + Seek>(mut reader: R) -> Result<Vec<FrameMetalayer>, FrameError> {
    read_metalayers_with(&mut reader, &|source| FrameError::Read { source }, None)
}

#[cfg(test)]
mod tests {
    //! The places this module reads at, checked against the schemas that state them.

    use super::*;
    use metalayer_layout::{Layout, Type, builtin_layout, offset_formula};

    /// The offset of the entry `name` of the top-level record, when it is a constant.
    fn offset_of(layout: &Layout, name: &str) -> Option<usize> {
        let root = layout.root_record()?;
        let index = root.entries.iter().position(|e| e.name == name)?;
        offset_formula(layout, root, index)?.as_constant()
    }

    fn int_min(layout: &Layout, name: &str) -> Option<i128> {
        let entry = layout.root_record()?.entries.iter().find(|e| e.name == name)?;
        match &entry.node.ty {
            Type::Int(t) => Some(t.min),
            _ => None,
        }
    }

    #[test]
    fn header_offsets_are_the_schemas() {
        let layout = builtin_layout("frame_header_v2").unwrap_or_else(|| unreachable!());
        assert_eq!(offset_of(&layout, "magic"), Some(1));
        assert_eq!(offset_of(&layout, "header_len"), Some(HEADER_LEN_AT));
        assert_eq!(offset_of(&layout, "frame_len"), Some(FRAME_LEN_AT));
        // The prefix is everything before the flags; the frame type is the flags' second byte,
        // after the fixstr's 0xa4.
        assert_eq!(offset_of(&layout, "flags"), Some(PREFIX_LEN));
        assert_eq!(PREFIX_LEN + 2, FRAME_TYPE_AT);
        // The flags' length is not fixed by the schema (a fixstr's length has no bound of its
        // own): the section follows the flags, which the field type holds to four bytes.
        let root = layout.root_record().unwrap_or_else(|| unreachable!());
        let section = root
            .entries
            .iter()
            .position(|e| e.name == "metalayers")
            .unwrap_or_default();
        let formula = offset_formula(&layout, root, section).map(|s| s.to_string());
        assert_eq!(formula.as_deref(), Some("83 + len(flags)"));
        assert_eq!(83 + 4, HEADER_SECTION_AT);
        assert_eq!(int_min(&layout, "header_len"), Some(MIN_HEADER_LEN as i128));
        assert_eq!(MAGIC.len(), offset_of(&layout, "header_len").unwrap_or_default());
        assert_eq!(layout.types.len(), 1);
    }

    #[test]
    fn trailer_offsets_are_the_schemas() {
        let layout = builtin_layout("frame_trailer_v1").unwrap_or_else(|| unreachable!());
        assert_eq!(offset_of(&layout, "vlmetalayers"), Some(TRAILER_SECTION_AT));
        assert_eq!(int_min(&layout, "trailer_len"), Some(MIN_TRAILER_LEN as i128));
        // trailer_len's marker and value, then the fingerprint: 1 + 4 + 1 + 1 + 16 bytes.
        let root = layout.root_record().unwrap_or_else(|| unreachable!());
        let fingerprint = root.entries.iter().find(|e| e.name == "fingerprint");
        assert_eq!(fingerprint.map(|e| e.node.min_size(&layout)), Some(18));
        assert_eq!(TRAILER_TAIL_LEN, 5 + 18);
    }

    #[test]
    fn sections_place_their_map_and_pairs_where_the_schema_does() {
        // A section's 0x93, its size (0xcd + u16), then the map16's 0xde and count.
        for (schema, ty) in [("frame_header_v2", "metalayers"), ("frame_trailer_v1", "vlmetalayers")] {
            let layout = builtin_layout(schema).unwrap_or_else(|| unreachable!());
            let record = &layout.record_type(ty).unwrap_or_else(|| unreachable!()).record;
            let at = |i| offset_formula(&layout, record, i).and_then(|s| s.as_constant());
            assert_eq!(at(1), Some(SECTION_MAP_AT), "{schema}");
            assert_eq!(at(1).map(|m| m + 3), Some(SECTION_PAIRS_AT), "{schema}");
        }
    }
}
