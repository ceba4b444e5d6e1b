//! Decompressing the Blosc2 chunks that hold a frame's variable-length metalayers.
//!
//! A Blosc2 frame's trailer maps each variable-length metalayer (`vlmeta`) name to a Blosc2
//! chunk; decompressed, the chunk holds the msgpack value (python-blosc2's
//! `array.vlmeta["k"] = v` stores `msgpack.packb(v)` as a Zstd chunk of typesize 1, stored
//! uncompressed, "memcpyed", when it is small). [`decompress`] takes one such chunk and returns
//! its bytes:
//!
//! ```
//! use metalayer::vlmeta::{self, DEFAULT_LIMIT};
//!
//! // A memcpyed chunk that python-blosc2 4.x wrote for the value `"abc"` (msgpack a3 61 62 63):
//! // a 32-byte header (version 5, flags 0x07, typesize 1, nbytes 4, blocksize 4, cbytes 36,
//! // filters, codec Zstd as the user-defined codec) and the 4 bytes themselves.
//! let mut chunk = vec![5, 1, 0x07, 1, 4, 0, 0, 0, 4, 0, 0, 0, 36, 0, 0, 0];
//! chunk.extend_from_slice(&[0, 0, 0, 0, 0, 1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
//! chunk.extend_from_slice(&[0xa3, b'a', b'b', b'c']);
//! assert_eq!(vlmeta::decompress(&chunk, DEFAULT_LIMIT)?, [0xa3, b'a', b'b', b'c']);
//!
//! // The header is checked before anything is allocated or decompressed.
//! let err = vlmeta::decompress(&chunk[..35], DEFAULT_LIMIT).unwrap_err();
//! assert_eq!(err.to_string(), "blosc2 chunk: at byte 0x0c (cbytes): expected 35 (the chunk's length), found 36");
//! assert_eq!(
//!     vlmeta::decompress(&chunk, 3).unwrap_err().to_string(),
//!     "blosc2 chunk: at byte 0x04 (nbytes): 4 decompressed bytes are more than the limit of 3"
//! );
//! # Ok::<(), metalayer::vlmeta::ChunkError>(())
//! ```
//!
//! # What is decoded
//!
//! The chunk format is c-blosc2's (`README_CHUNK_FORMAT.rst`), read by this module itself in
//! safe Rust; the codecs are pure-Rust crates: `lz4_flex` (LZ4 and LZ4HC), `miniz_oxide`
//! (Zlib) and `ruzstd` (Zstd). Supported:
//!
//! - format versions 1 to 6, with the 16-byte (Blosc1) or the 32-byte (Blosc2) header;
//! - memcpyed chunks, and the special chunks (all zeros, all NaN, a repeated value,
//!   uninitialized: returned as zeros);
//! - codecs BloscLZ, LZ4, LZ4HC, Zlib and Zstd, split or not into one stream per byte of the
//!   type, and the streams c-blosc2 writes as runs (zeros, a repeated byte) or stored;
//! - filters shuffle, bitshuffle (both bit orders of versions 2 and later), delta (as the first
//!   filter applied, which is the only place where c-blosc2 itself undoes it correctly) and
//!   truncated precision (nothing to undo).
//!
//! Anything else is an [`ChunkErrorKind::Unsupported`] error naming it: Zstd or LZ4
//! dictionaries, lazy chunks (whose blocks stay in a file), variable-length blocks, plugin and
//! user-defined codecs and filters (ZFP, NDLZ, bytedelta...), instrumented codecs.
//!
//! # Hostile input
//!
//! Every field is checked before it is used, and every error names the byte offset within the
//! chunk, the field, and what was expected and found. The output is one buffer of exactly
//! `nbytes` bytes, allocated only after the header, `cbytes` (equal to the chunk's length),
//! `nbytes` (at most the caller's limit) and the block-start table (inside the chunk) were
//! checked; each block then needs at most three more buffers of its size (at most `nbytes`: the
//! block and the two of its filters; four with delta, which keeps the first block) and, for
//! Zstd, a window of at most its stream's size rounded up to a power of two. A compressed chunk
//! has no tighter bound on its expansion than the limit: c-blosc2 stores a block of zeros or of
//! one repeated byte as a 4-byte run, so a few bytes legitimately stand for a whole block.
//! [`decompress_blocks`] hands the blocks to the caller one at a time instead, without the
//! output buffer, and [`special_item`] gives the item a special chunk repeats without repeating
//! it. The decoder never panics and the module holds no `unsafe` code.

use alloc::borrow::Cow;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;

use crate::chunk_format::{EXTENDED_HEADER_LEN, MAX_BLOCKSIZE};

/// The limit a caller without a better one passes to [`decompress`]: 64 MiB.
///
/// ```
/// assert_eq!(metalayer::vlmeta::DEFAULT_LIMIT, 64 << 20);
/// ```
pub const DEFAULT_LIMIT: usize = 64 << 20;

/// The length of a Blosc1 chunk header.
const MIN_HEADER_LEN: usize = 16;
/// The newest chunk format version (c-blosc2 3.x, `BLOSC2_VERSION_FORMAT_VL_BLOCKS`).
const VERSION_MAX: u8 = 6;
/// c-blosc2's `BLOSC2_VERSION_FORMAT_ALPHA`: its extended header's last filter slot is unset.
const VERSION_ALPHA: u8 = 3;
/// The largest BloscLZ distance of one byte and five bits, beyond which two more bytes follow.
const BLOSCLZ_MAX_DISTANCE: usize = 8191;

// Header flags (byte 2).
const FLAG_SHUFFLE: u8 = 0x01;
const FLAG_MEMCPYED: u8 = 0x02;
const FLAG_BITSHUFFLE: u8 = 0x04;
const FLAG_DELTA: u8 = 0x08;
const FLAG_DONT_SPLIT: u8 = 0x10;

// Blosc2 flags (byte 31).
const B2_USEDICT: u8 = 0x01;
const B2_LAZY: u8 = 0x08;
const B2_INSTR_CODEC: u8 = 0x80;

// Filter ids.
const NOFILTER: u8 = 0;
const SHUFFLE: u8 = 1;
const BITSHUFFLE: u8 = 2;
const DELTA: u8 = 3;
const TRUNC_PREC: u8 = 4;

/// The special value a whole chunk holds (bits 4 to 6 of the Blosc2 flags), without blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Special {
    /// A regular chunk: its data follows the header.
    None,
    /// Every byte is zero.
    Zeros,
    /// Every item is a NaN of its typesize (4: `f32`, 8: `f64`).
    Nan,
    /// Every item equals the value stored after the header, whose length is the typesize.
    Value,
    /// The values were not initialized; [`decompress`] returns zeros.
    Uninit,
}

/// The compression format of a chunk's streams (bits 5 to 7 of the flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Codec {
    /// BloscLZ (format 0).
    BloscLz,
    /// LZ4 or LZ4HC (format 1).
    Lz4,
    /// Zlib (format 3).
    Zlib,
    /// Zstd (format 4).
    Zstd,
    /// A format this module does not decode: 2 (formerly Snappy), 5 (reserved), 6 (the
    /// user-defined codec in byte 22, such as a plugin) or 7 (the super-chunk's codec).
    Other(u8),
}

impl Codec {
    /// The codec's name, as c-blosc2 spells it.
    ///
    /// ```
    /// use metalayer::vlmeta::Codec;
    ///
    /// assert_eq!(Codec::Zstd.name(), "zstd");
    /// assert_eq!(Codec::Other(6).name(), "other");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Codec::BloscLz => "blosclz",
            Codec::Lz4 => "lz4",
            Codec::Zlib => "zlib",
            Codec::Zstd => "zstd",
            Codec::Other(_) => "other",
        }
    }
}

/// A chunk header, as stored: the 16-byte Blosc1 header and, when flags bits 0 and 2 are both
/// set, the 16 bytes of the Blosc2 extension.
///
/// ```
/// use metalayer::vlmeta::{ChunkHeader, Codec};
///
/// let mut chunk = vec![5, 1, 0x85, 1, 0x10, 0, 0, 0, 0x10, 0, 0, 0, 0x30, 0, 0, 0];
/// chunk.extend_from_slice(&[0, 0, 0, 0, 0, 1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
/// let header = ChunkHeader::parse(&chunk)?;
/// assert_eq!((header.version, header.typesize, header.nbytes, header.cbytes), (5, 1, 16, 48));
/// assert_eq!(header.codec(), Codec::Zstd);
/// assert_eq!(header.len(), 32);
/// assert!(!header.memcpyed());
/// assert_eq!(header.filters, [0, 0, 0, 0, 0, 1]);
/// # Ok::<(), metalayer::vlmeta::ChunkError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChunkHeader {
    /// Byte 0: the format version, 1 to 6.
    pub version: u8,
    /// Byte 1: the version of the codec's format.
    pub versionlz: u8,
    /// Byte 2: the flags (shuffle, memcpyed, bitshuffle, delta, not split, codec format).
    pub flags: u8,
    /// Byte 3: the size of one item, at least 1.
    pub typesize: u8,
    /// Bytes 4..8: the decompressed size.
    pub nbytes: usize,
    /// Bytes 8..12: the size of a block, 1 to c-blosc2's maximum, and at most `nbytes`.
    pub blocksize: usize,
    /// Bytes 12..16: the chunk's stored size, header included.
    pub cbytes: usize,
    /// Whether the 16-byte extension follows (flags bits 0 and 2 both set).
    pub extended: bool,
    /// Bytes 16..22: the filter pipeline, applied in increasing slot order when compressing;
    /// derived from the flags for a Blosc1 header, as c-blosc2 does.
    pub filters: [u8; 6],
    /// Byte 22: the user-defined codec.
    pub udcodec: u8,
    /// Byte 23: the codec's metadata.
    pub compcode_meta: u8,
    /// Bytes 24..30: each filter's metadata.
    pub filters_meta: [u8; 6],
    /// Byte 30: more flags (c-blosc2 3.x marks variable-length blocks here).
    pub flags2: u8,
    /// Byte 31: the Blosc2 flags (dictionary, lazy chunk, special value, instrumented codec).
    pub blosc2_flags: u8,
}

impl ChunkHeader {
    /// Reads and checks a chunk's header: what c-blosc2's `read_chunk_header` checks, and that
    /// the three sizes are not negative and the format version is known.
    ///
    /// It does not compare `cbytes` with the chunk's length nor `nbytes` with a limit:
    /// [`decompress`] does.
    ///
    /// ```
    /// use metalayer::vlmeta::ChunkHeader;
    ///
    /// let err = ChunkHeader::parse(&[5, 1, 0x07, 1]).unwrap_err();
    /// assert_eq!(err.offset, 0);
    /// assert_eq!(err.to_string(), "blosc2 chunk: at byte 0x00 (header): needs 16 bytes, found 4");
    /// ```
    pub fn parse(chunk: &[u8]) -> Result<ChunkHeader, ChunkError> {
        let Some(head) = chunk.first_chunk::<MIN_HEADER_LEN>() else {
            return Err(truncated(0, "header", MIN_HEADER_LEN, chunk.len()));
        };
        let [version, versionlz, flags, typesize, ..] = *head;
        if version == 0 || version > VERSION_MAX {
            return Err(bad(0, "version", version.into(), "a format version from 1 to 6"));
        }
        if typesize == 0 {
            return Err(bad(3, "typesize", 0, "at least 1"));
        }
        let nbytes = size_field(head, 4, "nbytes")?;
        let blocksize = size_field(head, 8, "blocksize")?;
        let cbytes = size_field(head, 12, "cbytes")?;
        if cbytes < MIN_HEADER_LEN {
            return Err(bad(12, "cbytes", cbytes as i64, "at least 16, the header's length"));
        }
        if blocksize == 0 || blocksize > MAX_BLOCKSIZE {
            return Err(bad(8, "blocksize", blocksize as i64, "from 1 to 536866816"));
        }
        if nbytes > 0 && blocksize > nbytes {
            return Err(bad(8, "blocksize", blocksize as i64, "at most nbytes"));
        }
        let extended = flags & (FLAG_SHUFFLE | FLAG_BITSHUFFLE) == FLAG_SHUFFLE | FLAG_BITSHUFFLE;
        let mut header = ChunkHeader {
            version,
            versionlz,
            flags,
            typesize,
            nbytes,
            blocksize,
            cbytes,
            extended,
            filters: [NOFILTER; 6],
            udcodec: 0,
            compcode_meta: 0,
            filters_meta: [0; 6],
            flags2: 0,
            blosc2_flags: 0,
        };
        if !extended {
            // A Blosc1 header: the filters are flags, as c-blosc2's `flags_to_filters` reads them.
            if flags & FLAG_SHUFFLE != 0 {
                header.filters[5] = SHUFFLE;
            }
            if flags & FLAG_BITSHUFFLE != 0 {
                header.filters[5] = BITSHUFFLE;
            }
            if flags & FLAG_DELTA != 0 {
                header.filters[4] = DELTA;
            }
            return Ok(header);
        }
        let Some(ext) = chunk.first_chunk::<EXTENDED_HEADER_LEN>() else {
            return Err(truncated(0, "extended header", EXTENDED_HEADER_LEN, chunk.len()));
        };
        if cbytes < EXTENDED_HEADER_LEN {
            return Err(bad(
                12,
                "cbytes",
                cbytes as i64,
                "at least 32, the extended header's length",
            ));
        }
        header.filters.copy_from_slice(&ext[16..22]);
        header.udcodec = ext[22];
        header.compcode_meta = ext[23];
        header.filters_meta.copy_from_slice(&ext[24..30]);
        header.flags2 = ext[30];
        header.blosc2_flags = ext[31];
        if version == VERSION_ALPHA {
            // The alpha series left the last slot uninitialized; c-blosc2 clears it.
            header.filters[5] = NOFILTER;
            header.filters_meta[5] = 0;
        }
        Ok(header)
    }

    /// The header's length: 32 when extended, else 16.
    pub fn len(&self) -> usize {
        if self.extended {
            EXTENDED_HEADER_LEN
        } else {
            MIN_HEADER_LEN
        }
    }

    /// Always false: a header is never empty (for clippy's `len_without_is_empty`).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Whether the data is stored uncompressed after the header (flags bit 1).
    pub fn memcpyed(&self) -> bool {
        self.flags & FLAG_MEMCPYED != 0
    }

    /// The codec of the streams (flags bits 5 to 7).
    pub fn codec(&self) -> Codec {
        match self.flags >> 5 {
            0 => Codec::BloscLz,
            1 => Codec::Lz4,
            3 => Codec::Zlib,
            4 => Codec::Zstd,
            other => Codec::Other(other),
        }
    }

    /// What decompressing the chunk costs, in bytes worked through: `nbytes` for the codec or
    /// the copy, `nbytes` again for each shuffle or delta filter, and `8 * nbytes` for each
    /// bitshuffle, which is undone bit by bit. Callers that decompress chunks from untrusted
    /// input bound the sum of this over all they decompress, as they bound the bytes.
    ///
    /// ```
    /// use metalayer::vlmeta::ChunkHeader;
    ///
    /// // 16 bytes, shuffled then bitshuffled (filter slots 4 and 5).
    /// let mut chunk = vec![5, 1, 0x05, 1, 16, 0, 0, 0, 16, 0, 0, 0, 48, 0, 0, 0];
    /// chunk.extend_from_slice(&[0, 0, 0, 0, 1, 2, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    /// assert_eq!(ChunkHeader::parse(&chunk)?.work(), 16 * (1 + 1 + 8));
    /// # Ok::<(), metalayer::vlmeta::ChunkError>(())
    /// ```
    pub fn work(&self) -> usize {
        let passes = match self.special() {
            Ok(Special::None) if !self.memcpyed() => self
                .filters
                .iter()
                .map(|&f| match f {
                    SHUFFLE | DELTA => 1,
                    BITSHUFFLE => 8,
                    _ => 0,
                })
                .sum::<usize>(),
            _ => 0,
        };
        self.nbytes.saturating_mul(1 + passes)
    }

    /// The special value of the whole chunk; `Err` holds an id above c-blosc2's last (4).
    pub fn special(&self) -> Result<Special, u8> {
        if !self.extended {
            return Ok(Special::None);
        }
        match (self.blosc2_flags >> 4) & 0x07 {
            0 => Ok(Special::None),
            1 => Ok(Special::Zeros),
            2 => Ok(Special::Nan),
            3 => Ok(Special::Value),
            4 => Ok(Special::Uninit),
            other => Err(other),
        }
    }
}

/// Why a chunk cannot be decompressed, and where: [`offset`](Self::offset) is a byte offset
/// within the chunk.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ChunkError {
    /// The byte offset within the chunk of the field or data at fault.
    pub offset: usize,
    /// What is wrong.
    pub kind: ChunkErrorKind,
}

/// What is wrong with a chunk.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ChunkErrorKind {
    /// The chunk ends inside a field: it needs `needed` bytes at the offset, `found` remain.
    Truncated {
        /// The field.
        field: &'static str,
        /// The bytes the field needs.
        needed: usize,
        /// The bytes left in the chunk from the offset.
        found: usize,
    },
    /// `cbytes` is not the chunk's length.
    Length {
        /// The chunk's length.
        expected: usize,
        /// What `cbytes` says.
        found: usize,
    },
    /// `nbytes` is above the caller's limit.
    Limit {
        /// What `nbytes` says.
        nbytes: usize,
        /// The caller's limit.
        limit: usize,
    },
    /// A field's value is out of its range, or contradicts the rest of the chunk.
    Field {
        /// The field.
        field: &'static str,
        /// Its value.
        found: i64,
        /// What it must be.
        expected: &'static str,
    },
    /// A memcpyed chunk's `cbytes` is not its header plus `nbytes`.
    Memcpyed {
        /// The header's length plus `nbytes`.
        expected: usize,
        /// What `cbytes` says.
        found: usize,
    },
    /// A block starts outside the chunk's data.
    BlockStart {
        /// The block.
        block: usize,
        /// Where its entry says it starts.
        found: i64,
        /// The first byte after the block-start table.
        min: usize,
        /// The chunk's length.
        len: usize,
    },
    /// A stream's compressed data does not decode, or decodes to another size.
    Stream {
        /// The codec.
        codec: Codec,
        /// The block.
        block: usize,
        /// The stream within the block.
        stream: usize,
        /// The size the stream must decode to.
        expected: usize,
        /// What the codec did: the size it produced, or why it failed.
        found: StreamFailure,
    },
    /// Something this decoder does not implement: a codec, a filter, a flag.
    Unsupported {
        /// What it is.
        what: &'static str,
        /// Its value in the chunk.
        value: u8,
    },
}

/// How a stream failed to decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StreamFailure {
    /// The codec decoded this many bytes.
    Size(usize),
    /// The codec rejected the data, or it would decode to more than the stream's size.
    Corrupt,
}

impl fmt::Display for ChunkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "blosc2 chunk: at byte {:#04x}", self.offset)?;
        match &self.kind {
            ChunkErrorKind::Truncated { field, needed, found } => {
                write!(f, " ({field}): needs {needed} bytes, found {found}")
            }
            ChunkErrorKind::Length { expected, found } => {
                write!(f, " (cbytes): expected {expected} (the chunk's length), found {found}")
            }
            ChunkErrorKind::Limit { nbytes, limit } => {
                write!(
                    f,
                    " (nbytes): {nbytes} decompressed bytes are more than the limit of {limit}"
                )
            }
            ChunkErrorKind::Field { field, found, expected } => {
                write!(f, " ({field}): expected {expected}, found {found}")
            }
            ChunkErrorKind::Memcpyed { expected, found } => write!(
                f,
                " (cbytes): expected {expected} (header plus nbytes, the chunk is memcpyed), found {found}"
            ),
            ChunkErrorKind::BlockStart { block, found, min, len } => write!(
                f,
                " (start of block {block}): expected an offset from {min} to {}, found {found}",
                len.saturating_sub(1)
            ),
            ChunkErrorKind::Stream {
                codec,
                block,
                stream,
                expected,
                found,
            } => {
                write!(f, " (block {block}, stream {stream}): {} data ", codec.name())?;
                match found {
                    StreamFailure::Size(n) => write!(f, "expected to decode to {expected} bytes, decoded to {n}"),
                    StreamFailure::Corrupt => {
                        write!(
                            f,
                            "expected to decode to {expected} bytes, is corrupt or decodes to more"
                        )
                    }
                }
            }
            ChunkErrorKind::Unsupported { what, value } => write!(f, ": {what} {value} is not supported"),
        }
    }
}

impl core::error::Error for ChunkError {}

fn truncated(offset: usize, field: &'static str, needed: usize, len: usize) -> ChunkError {
    ChunkError {
        offset,
        kind: ChunkErrorKind::Truncated {
            field,
            needed,
            found: len.saturating_sub(offset),
        },
    }
}

fn bad(offset: usize, field: &'static str, found: i64, expected: &'static str) -> ChunkError {
    ChunkError {
        offset,
        kind: ChunkErrorKind::Field { field, found, expected },
    }
}

fn unsupported(offset: usize, what: &'static str, value: u8) -> ChunkError {
    ChunkError {
        offset,
        kind: ChunkErrorKind::Unsupported { what, value },
    }
}

fn le_i32(bytes: &[u8], at: usize) -> Option<i32> {
    let word = bytes.get(at..at.checked_add(4)?)?;
    Some(i32::from_le_bytes([word[0], word[1], word[2], word[3]]))
}

/// A non-negative little-endian `int32` size field of the header.
fn size_field(head: &[u8; MIN_HEADER_LEN], at: usize, field: &'static str) -> Result<usize, ChunkError> {
    let value = le_i32(head, at).unwrap_or(-1);
    usize::try_from(value).map_err(|_| bad(at, field, value.into(), "a size from 0 to 2147483647"))
}

/// Decompresses one Blosc2 chunk, such as a variable-length metalayer's, into exactly its
/// `nbytes` bytes.
///
/// Before allocating or decompressing anything it checks the header ([`ChunkHeader::parse`]),
/// that `cbytes` is `chunk.len()`, that `nbytes` is at most `limit`
/// ([`DEFAULT_LIMIT`] is 64 MiB), that a memcpyed chunk holds exactly `nbytes` bytes after its
/// header, and that a compressed chunk's block-start table lies inside it. Each block start and
/// stream size is checked before use, and each stream must decode to exactly its share of the
/// block. See the [module documentation](self) for what is supported.
///
/// ```
/// use metalayer::vlmeta::{decompress, ChunkErrorKind};
///
/// // A chunk of 1000 zeros: a Blosc2 "special value" chunk, a header alone.
/// let mut chunk = vec![5, 1, 0x05, 1];
/// chunk.extend_from_slice(&1000i32.to_le_bytes()); // nbytes
/// chunk.extend_from_slice(&1000i32.to_le_bytes()); // blocksize
/// chunk.extend_from_slice(&32i32.to_le_bytes()); // cbytes
/// chunk.extend_from_slice(&[0; 15]);
/// chunk.push(0x10); // special value 1: zeros
/// assert_eq!(decompress(&chunk, 1000)?, vec![0; 1000]);
///
/// // An unknown codec: format 2 (Snappy's old slot), in a chunk of one compressed block.
/// chunk[2] = 0x45;
/// chunk[31] = 0;
/// let err = decompress(&chunk, 1000).unwrap_err();
/// assert_eq!(err.kind, ChunkErrorKind::Unsupported { what: "codec format", value: 2 });
/// assert_eq!(err.to_string(), "blosc2 chunk: at byte 0x02: codec format 2 is not supported");
/// # Ok::<(), metalayer::vlmeta::ChunkError>(())
/// ```
pub fn decompress(chunk: &[u8], limit: usize) -> Result<Vec<u8>, ChunkError> {
    decompress_borrowed(chunk, limit).map(Cow::into_owned)
}

/// [`decompress`], without copying a memcpyed chunk: its bytes are borrowed from `chunk`. The
/// checks are the same.
///
/// ```
/// use std::borrow::Cow;
/// use metalayer::vlmeta::decompress_borrowed;
///
/// // A memcpyed chunk (flags bit 1, with the extended header python-blosc2 writes) of the
/// // three bytes "abc".
/// let mut chunk = vec![5, 1, 0x07, 1, 3, 0, 0, 0, 3, 0, 0, 0, 35, 0, 0, 0];
/// chunk.extend_from_slice(&[0, 0, 0, 0, 0, 1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
/// chunk.extend_from_slice(b"abc");
/// let bytes = decompress_borrowed(&chunk, 3)?;
/// assert!(matches!(bytes, Cow::Borrowed(b"abc")));
/// # Ok::<(), metalayer::vlmeta::ChunkError>(())
/// ```
pub fn decompress_borrowed(chunk: &[u8], limit: usize) -> Result<Cow<'_, [u8]>, ChunkError> {
    match prepare(chunk, limit)? {
        Prepared::Special(Repeated { special, item, nbytes }) => Ok(Cow::Owned(repeat(special, &item, nbytes))),
        Prepared::Stored(bytes) => Ok(Cow::Borrowed(bytes)),
        Prepared::Compressed(decoder) => {
            // The output is allocated once, exactly `nbytes`, now that the header is checked.
            let mut out = Vec::with_capacity(decoder.header.nbytes);
            decoder.run(|block| {
                out.extend_from_slice(block);
                Ok::<(), ChunkError>(())
            })?;
            Ok(Cow::Owned(out))
        }
    }
}

/// Decompresses one Blosc2 chunk a block at a time: `f` gets the decompressed bytes in order,
/// in consecutive pieces, and none of them is kept once `f` has returned. The output is never
/// held whole, so a chunk that claims many bytes (a frame's chunk index, say) is read in the
/// memory of a few of its blocks.
///
/// The checks are [`decompress`]'s, `limit` included, and are all made before `f` is first
/// called; each block's streams are then checked as the block is decoded, so `f` may have
/// been given the blocks before a corrupt one. The pieces:
///
/// - a compressed chunk: one piece a block (the last may be shorter), decoded in at most four
///   buffers of the block's size: the block, the two buffers of its filters, and the first
///   block, which delta needs for the others;
/// - a memcpyed chunk: one piece, its bytes, borrowed from `chunk`;
/// - a special chunk (zeros, NaNs, a repeated value, uninitialized): pieces of at most
///   [`SPECIAL_PIECE`] bytes, made from the repeated item ([`special_item`] gives the item
///   alone, without the work of repeating it);
/// - a chunk of no bytes: no piece.
///
/// `f` returns an error of the caller's type to stop; a [`ChunkError`] is converted into it.
///
/// ```
/// use metalayer::vlmeta::{decompress, decompress_blocks, ChunkError};
///
/// // A chunk of 1000 zeros, compressed in blocks of 256 bytes: four streams of a run of zeros
/// // (a stream size of 0), after the 16-byte header and the table of the blocks' starts.
/// let mut chunk = vec![2, 1, 0x01, 1];
/// chunk.extend_from_slice(&1000i32.to_le_bytes()); // nbytes
/// chunk.extend_from_slice(&256i32.to_le_bytes()); // blocksize
/// chunk.extend_from_slice(&48i32.to_le_bytes()); // cbytes: 16 + 4 * 4 + 4 * 4
/// for block in 0..4 {
///     chunk.extend_from_slice(&(32 + 4 * block as i32).to_le_bytes());
/// }
/// chunk.extend_from_slice(&[0; 16]);
///
/// let mut sizes = Vec::new();
/// decompress_blocks(&chunk, 1000, |block: &[u8]| {
///     assert!(block.iter().all(|&b| b == 0));
///     sizes.push(block.len());
///     Ok::<(), ChunkError>(())
/// })?;
/// assert_eq!(sizes, [256, 256, 256, 232]);
/// assert_eq!(decompress(&chunk, 1000)?, vec![0; 1000]);
///
/// // The caller stops the walk with an error of its own type, which a ChunkError converts into.
/// #[derive(Debug)]
/// enum Stop {
///     Chunk(ChunkError),
///     Enough(usize),
/// }
/// impl From<ChunkError> for Stop {
///     fn from(e: ChunkError) -> Self {
///         Stop::Chunk(e)
///     }
/// }
/// let mut seen = 0;
/// let stop = decompress_blocks(&chunk, 1000, |block: &[u8]| {
///     seen += block.len();
///     if seen > 300 { Err(Stop::Enough(seen)) } else { Ok(()) }
/// });
/// assert!(matches!(stop, Err(Stop::Enough(512))));
/// // The chunk's own errors come before any block: here cbytes is not the chunk's length.
/// let stop = decompress_blocks(&chunk[..47], 1000, |_: &[u8]| -> Result<(), Stop> { unreachable!() });
/// assert!(matches!(stop, Err(Stop::Chunk(e)) if e.offset == 12));
/// # Ok::<(), ChunkError>(())
/// ```
pub fn decompress_blocks<E: From<ChunkError>>(
    chunk: &[u8],
    limit: usize,
    mut f: impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<(), E> {
    match prepare(chunk, limit)? {
        Prepared::Special(Repeated { special, item, nbytes }) => {
            if nbytes == 0 {
                return Ok(());
            }
            let piece = repeat(special, &item, special_piece(item.len()).min(nbytes));
            let mut left = nbytes;
            while left > 0 {
                let n = left.min(piece.len());
                f(&piece[..n])?;
                left -= n;
            }
            Ok(())
        }
        Prepared::Stored([]) => Ok(()),
        Prepared::Stored(bytes) => f(bytes),
        Prepared::Compressed(decoder) => decoder.run(f),
    }
}

/// The most bytes one piece of a special chunk holds in [`decompress_blocks`]: 64 KiB, or the
/// largest multiple of the repeated item's size below it (the item itself when it is larger).
///
/// ```
/// assert_eq!(metalayer::vlmeta::SPECIAL_PIECE, 64 << 10);
/// ```
pub const SPECIAL_PIECE: usize = 64 << 10;

/// The size of a special chunk's pieces for an item of `item_len` bytes.
fn special_piece(item_len: usize) -> usize {
    let item_len = item_len.max(1);
    (SPECIAL_PIECE / item_len).max(1) * item_len
}

/// The item a special chunk repeats through its `nbytes` (zeros, a NaN, the stored value;
/// zeros for uninitialized values, as [`decompress`] returns them), after the checks
/// [`decompress`] makes, but without repeating it: what a chunk of many bytes holds, found
/// without the work of writing them out. `None` for a chunk that is not special.
///
/// ```
/// use metalayer::vlmeta::{special_item, Special};
///
/// // A frame's chunk index as c-blosc2 writes it when every chunk is special: a repeated
/// // int64 (here the offset c-blosc2 stores for a chunk of zeros) through nbytes 2097152,
/// // 262144 chunks, in 40 bytes.
/// let mut chunk = vec![5, 1, 0x05, 8];
/// chunk.extend_from_slice(&2097152i32.to_le_bytes()); // nbytes
/// chunk.extend_from_slice(&2097152i32.to_le_bytes()); // blocksize
/// chunk.extend_from_slice(&40i32.to_le_bytes()); // cbytes
/// chunk.extend_from_slice(&[0; 15]);
/// chunk.push(0x30); // special value 3: a repeated value, stored after the header
/// let zeros_chunk = (0x81u64 << 56) as i64;
/// chunk.extend_from_slice(&zeros_chunk.to_le_bytes());
///
/// let repeated = special_item(&chunk)?.unwrap();
/// assert_eq!(repeated.special, Special::Value);
/// assert_eq!(*repeated.item, zeros_chunk.to_le_bytes());
/// assert_eq!(repeated.nbytes, 2097152);
/// // What `decompress` would write out: the item, 262144 times.
/// assert_eq!(metalayer::vlmeta::decompress(&chunk, 1 << 21)?.len(), 2097152);
///
/// // Not special: the same 8 bytes, memcpyed (flags bit 1) after the header.
/// chunk[2] = 0x07;
/// chunk[4..12].copy_from_slice(&[8, 0, 0, 0, 8, 0, 0, 0]); // nbytes, blocksize
/// chunk[31] = 0;
/// assert!(special_item(&chunk)?.is_none());
/// # Ok::<(), metalayer::vlmeta::ChunkError>(())
/// ```
pub fn special_item(chunk: &[u8]) -> Result<Option<Repeated<'_>>, ChunkError> {
    match prepare(chunk, usize::MAX)? {
        Prepared::Special(repeated) => Ok(Some(repeated)),
        _ => Ok(None),
    }
}

/// What a special chunk holds, as [`special_item`] finds it: which special value, and the item
/// repeated through its `nbytes`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Repeated<'a> {
    /// Which special value: never [`Special::None`].
    pub special: Special,
    /// The item: `typesize` zeros (also for uninitialized values), a NaN of 4 or 8 bytes, or
    /// the value stored after the header (borrowed from the chunk).
    pub item: Cow<'a, [u8]>,
    /// The chunk's `nbytes`: a whole number of items.
    pub nbytes: usize,
}

/// A chunk checked and ready to decompress.
// One value at a time, on the stack: the decoder's size is not worth a box.
#[allow(clippy::large_enum_variant)]
enum Prepared<'a> {
    /// A special chunk: its item repeated through `nbytes`.
    Special(Repeated<'a>),
    /// The bytes themselves: a memcpyed chunk's, or none.
    Stored(&'a [u8]),
    /// A compressed chunk of at least one byte.
    Compressed(Decoder<'a>),
}

/// The checks [`decompress`] makes before it decompresses anything.
fn prepare(chunk: &[u8], limit: usize) -> Result<Prepared<'_>, ChunkError> {
    let header = ChunkHeader::parse(chunk)?;
    if header.cbytes != chunk.len() {
        return Err(ChunkError {
            offset: 12,
            kind: ChunkErrorKind::Length {
                expected: chunk.len(),
                found: header.cbytes,
            },
        });
    }
    if header.nbytes > limit {
        return Err(ChunkError {
            offset: 4,
            kind: ChunkErrorKind::Limit {
                nbytes: header.nbytes,
                limit,
            },
        });
    }
    let header_len = header.len();
    if header.extended {
        check_blosc2_flags(&header)?;
    }
    let special = header
        .special()
        .map_err(|id| bad(31, "blosc2 flags", (id << 4).into(), "a special value id up to 4"))?;
    if special != Special::None {
        let item = special_value(chunk, &header, special)?;
        return Ok(Prepared::Special(Repeated {
            special,
            item,
            nbytes: header.nbytes,
        }));
    }
    if header.memcpyed() {
        let expected = header_len + header.nbytes;
        if header.cbytes != expected {
            return Err(ChunkError {
                offset: 12,
                kind: ChunkErrorKind::Memcpyed {
                    expected,
                    found: header.cbytes,
                },
            });
        }
        return Ok(Prepared::Stored(&chunk[header_len..]));
    }
    if header.nbytes == 0 {
        return Ok(Prepared::Stored(&[]));
    }
    Decoder::new(chunk, header).map(Prepared::Compressed)
}

/// Refuses the Blosc2 flags this decoder does not implement.
fn check_blosc2_flags(header: &ChunkHeader) -> Result<(), ChunkError> {
    let flags = header.blosc2_flags;
    if flags & B2_USEDICT != 0 {
        return Err(unsupported(31, "dictionary flag (blosc2 flags)", flags));
    }
    if flags & B2_LAZY != 0 && (flags >> 4) & 0x07 == 0 {
        return Err(unsupported(31, "lazy chunk flag (blosc2 flags)", flags));
    }
    if flags & B2_INSTR_CODEC != 0 {
        return Err(unsupported(31, "instrumented codec flag (blosc2 flags)", flags));
    }
    if header.flags2 != 0 {
        return Err(unsupported(
            30,
            "variable-length blocks or other flags2 bits",
            header.flags2,
        ));
    }
    Ok(())
}

/// The item a special chunk repeats: no blocks, only the header (and the value).
fn special_value<'a>(chunk: &'a [u8], header: &ChunkHeader, special: Special) -> Result<Cow<'a, [u8]>, ChunkError> {
    let nbytes = header.nbytes;
    let typesize = usize::from(header.typesize);
    match special {
        Special::Value => {
            // The value follows the header; its length is the item size.
            let value = &chunk[EXTENDED_HEADER_LEN..];
            if value.is_empty() || value.len() > nbytes || !nbytes.is_multiple_of(value.len()) {
                return Err(bad(
                    12,
                    "cbytes",
                    header.cbytes as i64,
                    "32 plus the repeated value's size, which must divide nbytes",
                ));
            }
            Ok(Cow::Borrowed(value))
        }
        Special::Nan => {
            let nan: &'static [u8] = match typesize {
                4 => &const { f32::NAN.to_bits().to_le_bytes() },
                8 => &const { f64::NAN.to_bits().to_le_bytes() },
                _ => return Err(bad(3, "typesize", typesize as i64, "4 or 8 for a chunk of NaNs")),
            };
            if !nbytes.is_multiple_of(typesize) {
                return Err(bad(4, "nbytes", nbytes as i64, "a multiple of typesize"));
            }
            Ok(Cow::Borrowed(nan))
        }
        _ => {
            if !nbytes.is_multiple_of(typesize) {
                return Err(bad(4, "nbytes", nbytes as i64, "a multiple of typesize"));
            }
            Ok(Cow::Owned(vec![0; typesize]))
        }
    }
}

/// `nbytes` bytes of a special chunk's item, repeated.
fn repeat(special: Special, item: &[u8], nbytes: usize) -> Vec<u8> {
    if matches!(special, Special::Zeros | Special::Uninit) || item.iter().all(|&b| b == 0) {
        return vec![0; nbytes];
    }
    let mut out = Vec::with_capacity(nbytes);
    while out.len() < nbytes {
        let n = item.len().min(nbytes - out.len());
        out.extend_from_slice(&item[..n]);
    }
    out
}

/// The state of decompressing a regular (not memcpyed, not special) chunk.
struct Decoder<'a> {
    chunk: &'a [u8],
    header: ChunkHeader,
    codec: Codec,
    /// The filters to undo, in the order to undo them (decreasing slot), with their slots.
    filters: [(u8, usize); 6],
    nfilters: usize,
    /// Whether the last filter undone is delta, which works in place in the output.
    delta: bool,
    nblocks: usize,
    /// The first byte after the block-start table.
    data_start: usize,
    zstd: Option<ruzstd::decoding::FrameDecoder>,
}

impl<'a> Decoder<'a> {
    fn new(chunk: &'a [u8], header: ChunkHeader) -> Result<Self, ChunkError> {
        let codec = header.codec();
        if let Codec::Other(format) = codec {
            return Err(unsupported(2, "codec format", format));
        }
        let mut filters = [(NOFILTER, 0); 6];
        let mut nfilters = 0;
        for slot in (0..6).rev() {
            let id = header.filters[slot];
            match id {
                NOFILTER | TRUNC_PREC => {}
                SHUFFLE | BITSHUFFLE | DELTA => {
                    filters[nfilters] = (id, slot);
                    nfilters += 1;
                }
                _ => return Err(unsupported(16 + slot, "filter", id)),
            }
        }
        // c-blosc2 undoes delta against the already decoded first block, so only as the last
        // filter undone (the first applied); elsewhere it reads a scratch buffer.
        let delta = nfilters > 0 && filters[nfilters - 1].0 == DELTA;
        if let Some(&(_, slot)) = filters[..nfilters.saturating_sub(1)]
            .iter()
            .find(|(id, _)| *id == DELTA)
        {
            return Err(unsupported(
                16 + slot,
                "filter pipeline with delta after another filter, filter",
                DELTA,
            ));
        }
        if delta {
            nfilters -= 1;
        }
        let nblocks = header.nbytes.div_ceil(header.blocksize);
        let table = nblocks.saturating_mul(4);
        let data_start = header.len().saturating_add(table);
        if data_start > chunk.len() {
            return Err(truncated(header.len(), "block starts", table, chunk.len()));
        }
        Ok(Decoder {
            chunk,
            header,
            codec,
            filters,
            nfilters,
            delta,
            nblocks,
            data_start,
            zstd: None,
        })
    }

    /// Decodes the blocks in order and hands each to `f`. At most four buffers of a block's size
    /// are held: the block, the filters' two, and the first block when delta needs it.
    fn run<E: From<ChunkError>>(mut self, mut f: impl FnMut(&[u8]) -> Result<(), E>) -> Result<(), E> {
        let nbytes = self.header.nbytes;
        let blocksize = self.header.blocksize;
        let typesize = usize::from(self.header.typesize);
        // Each buffer is made on first use.
        let mut out = Vec::new();
        let mut first = Vec::new();
        let mut scratch: [Vec<u8>; 2] = [Vec::new(), Vec::new()];
        for block in 0..self.nblocks {
            let start = block * blocksize;
            let bsize = blocksize.min(nbytes - start);
            out.resize(bsize, 0);
            if self.nfilters == 0 {
                self.decode_block(block, bsize, &mut out)?;
            } else {
                let [a, b] = &mut scratch;
                a.resize(bsize, 0);
                b.resize(bsize, 0);
                self.decode_block(block, bsize, a)?;
                self.unfilter(bsize, a, b, &mut out);
            }
            if self.delta {
                undo_delta(&mut out, (block > 0).then_some(first.as_slice()), typesize);
            }
            f(&out)?;
            if self.delta && block == 0 && self.nblocks > 1 {
                // Delta undoes the other blocks against this one.
                core::mem::swap(&mut first, &mut out);
            }
        }
        Ok(())
    }

    /// Undoes the filters other than delta: from `a` (the decoded block) into `dest`.
    fn unfilter(&self, bsize: usize, a: &mut [u8], b: &mut [u8], dest: &mut [u8]) {
        let typesize = usize::from(self.header.typesize);
        let mut src: &mut [u8] = a;
        let mut dst: &mut [u8] = b;
        for &(id, _) in &self.filters[..self.nfilters] {
            let (from, to) = (&src[..bsize], &mut dst[..bsize]);
            if id == SHUFFLE {
                unshuffle(typesize, from, to);
            } else {
                bitunshuffle(typesize, from, to, self.header.version);
            }
            core::mem::swap(&mut src, &mut dst);
        }
        dest.copy_from_slice(&src[..bsize]);
    }

    /// Decodes the streams of one block into `dest` (its `bsize` bytes).
    fn decode_block(&mut self, block: usize, bsize: usize, dest: &mut [u8]) -> Result<(), ChunkError> {
        let header = self.header;
        let entry = header.len() + 4 * block;
        let start = le_i32(self.chunk, entry).unwrap_or(-1);
        let mut pos = match usize::try_from(start) {
            Ok(pos) if pos >= self.data_start && pos < self.chunk.len() => pos,
            _ => {
                return Err(ChunkError {
                    offset: entry,
                    kind: ChunkErrorKind::BlockStart {
                        block,
                        found: start.into(),
                        min: self.data_start,
                        len: self.chunk.len(),
                    },
                });
            }
        };
        let leftover = !header.nbytes.is_multiple_of(header.blocksize) && block == self.nblocks - 1;
        let split = header.flags & FLAG_DONT_SPLIT == 0 && !leftover;
        let nstreams = if split { usize::from(header.typesize) } else { 1 };
        let neblock = bsize / nstreams;
        if neblock == 0 || neblock * nstreams != bsize {
            return Err(bad(
                3,
                "typesize",
                nstreams as i64,
                "a divisor of the block's size when blocks are split",
            ));
        }
        for (stream, part) in dest.chunks_exact_mut(neblock).enumerate() {
            let csize = le_i32(self.chunk, pos).ok_or_else(|| truncated(pos, "stream size", 4, self.chunk.len()))?;
            let data = pos + 4;
            match csize {
                0 => part.fill(0),
                ..0 => {
                    // A run of one byte; the token says so.
                    let token = *self
                        .chunk
                        .get(data)
                        .ok_or_else(|| truncated(data, "stream token", 1, self.chunk.len()))?;
                    if token & 0x01 == 0 {
                        return Err(unsupported(data, "stream token", token));
                    }
                    let value = u8::try_from(-i64::from(csize))
                        .map_err(|_| bad(pos, "stream size", csize.into(), "-255 to -1 for a run of one byte"))?;
                    part.fill(value);
                    pos = data + 1;
                    continue;
                }
                _ => {
                    let len = csize as usize;
                    let input = self
                        .chunk
                        .get(data..)
                        .and_then(|rest| rest.get(..len))
                        .ok_or_else(|| truncated(data, "stream data", len, self.chunk.len()))?;
                    if len == neblock {
                        part.copy_from_slice(input);
                    } else {
                        let decoded = self.decode_stream(input, part);
                        if decoded != Ok(neblock) {
                            return Err(ChunkError {
                                offset: data,
                                kind: ChunkErrorKind::Stream {
                                    codec: self.codec,
                                    block,
                                    stream,
                                    expected: neblock,
                                    found: decoded.map_or(StreamFailure::Corrupt, StreamFailure::Size),
                                },
                            });
                        }
                    }
                    pos = data + len;
                    continue;
                }
            }
            pos = data;
        }
        Ok(())
    }

    /// Decodes one stream into `out`; returns the number of bytes written, `Err` if the codec
    /// refused the data or it would not fit.
    fn decode_stream(&mut self, input: &[u8], out: &mut [u8]) -> Result<usize, ()> {
        match self.codec {
            Codec::BloscLz => blosclz_decompress(input, out).ok_or(()),
            Codec::Lz4 => lz4_flex::block::decompress_into(input, out).map_err(drop),
            Codec::Zlib => {
                miniz_oxide::inflate::decompress_slice_iter_to_slice(out, core::iter::once(input), true, false)
                    .map_err(drop)
            }
            Codec::Zstd => {
                // c-blosc2 compresses each stream as one frame of known size, whose window is
                // that size rounded up to a power of two (at least 1 KiB): a larger one is refused
                // before the decoder reserves it.
                let window = out.len().max(1 << 10).checked_next_power_of_two().unwrap_or(usize::MAX);
                let zstd = self.zstd.get_or_insert_with(ruzstd::decoding::FrameDecoder::new);
                zstd.set_max_window_size(window as u64);
                zstd.decode_all(input, out).map_err(drop)
            }
            Codec::Other(_) => Err(()),
        }
    }
}

/// Decodes a BloscLZ stream into `out`; returns how many bytes it wrote, `None` for a stream
/// that is cut short, refers back before the start of its output, or writes past `out`.
///
/// The stream is a sequence of tokens, each starting with a control byte (only the low five
/// bits of the very first one count):
/// - below 32: a run of `control + 1` literal bytes, which follow;
/// - otherwise a back reference: its length is `(control >> 5) + 2` bytes, where a top-three-bits
///   value of 7 means that bytes follow, each added to the length, up to the first one below
///   255; its distance is `(control & 31) << 8` plus the next byte, and when that is the largest
///   (8191), 8191 plus the next two bytes (big-endian). The bytes copied start `distance + 1`
///   bytes back, and may overlap what the copy writes.
fn blosclz_decompress(input: &[u8], out: &mut [u8]) -> Option<usize> {
    let mut bytes = input.iter().copied();
    let mut next = || bytes.next();
    let mut written = 0usize;
    let mut control = next()? & 31;
    loop {
        if control < 32 {
            let run = usize::from(control) + 1;
            let dest = out.get_mut(written..written + run)?;
            for slot in dest {
                *slot = next()?;
            }
            written += run;
        } else {
            let mut len = usize::from(control >> 5) + 2;
            if control >> 5 == 7 {
                loop {
                    let more = next()?;
                    len += usize::from(more);
                    if more != 255 {
                        break;
                    }
                }
            }
            let mut distance = (usize::from(control & 31) << 8) | usize::from(next()?);
            if distance == BLOSCLZ_MAX_DISTANCE {
                let (high, low) = (next()?, next()?);
                distance += (usize::from(high) << 8) | usize::from(low);
            }
            let from = written.checked_sub(distance + 1)?;
            if written + len > out.len() {
                return None;
            }
            // One byte at a time: an overlapping reference repeats what it has just written.
            for i in 0..len {
                out[written + i] = out[from + i];
            }
            written += len;
        }
        match next() {
            Some(byte) => control = byte,
            None => return Some(written),
        }
    }
}

/// Undoes the byte shuffle: item `i`'s byte `j` was stored at `j * items + i`; the bytes after
/// the last whole item stay in place.
fn unshuffle(typesize: usize, src: &[u8], dest: &mut [u8]) {
    if typesize <= 1 {
        // One byte an item: shuffling moved nothing.
        dest.copy_from_slice(src);
        return;
    }
    let items = src.len() / typesize;
    for (i, item) in dest.chunks_exact_mut(typesize).enumerate() {
        for (j, byte) in item.iter_mut().enumerate() {
            *byte = src[j * items + i];
        }
    }
    let whole = items * typesize;
    dest[whole..].copy_from_slice(&src[whole..]);
}

/// Undoes the bit shuffle (c-blosc2's `bitunshuffle`): for a number of items that is a multiple
/// of 8, bit `k` of byte `b` of item `i` was stored at bit `i % 8` of byte
/// `(b * 8 + k) * items / 8 + i / 8`. The items past the last multiple of 8 and the bytes past
/// the last whole item are stored as they are, except in format version 2 (Blosc1), which stored
/// a block whose item count is not a multiple of 8 entirely as it is.
fn bitunshuffle(typesize: usize, src: &[u8], dest: &mut [u8], version: u8) {
    let mut items = src.len() / typesize;
    if version == 2 && !items.is_multiple_of(8) {
        dest.copy_from_slice(src);
        return;
    }
    items -= items % 8;
    let row = items / 8;
    let whole = items * typesize;
    dest[..whole].fill(0);
    for b in 0..typesize {
        for k in 0..8 {
            let bits = &src[(b * 8 + k) * row..][..row];
            for (byte_index, &byte) in bits.iter().enumerate() {
                for bit in 0..8 {
                    let i = byte_index * 8 + bit;
                    dest[i * typesize + b] |= ((byte >> bit) & 1) << k;
                }
            }
        }
    }
    dest[whole..].copy_from_slice(&src[whole..]);
}

/// Undoes delta (c-blosc2's `delta_decoder`) on one block, in place: the first block (`first`
/// is `None`) was XORed item by item with its previous item, the others with the first block's
/// items. Items are 1, 2, 4 or 8 bytes wide (a typesize that is a multiple of 8 works on 8-byte
/// words, any other on bytes); the bytes past the last whole word stay as they are.
fn undo_delta(block: &mut [u8], first: Option<&[u8]>, typesize: usize) {
    let width = match typesize {
        1 | 2 | 4 | 8 => typesize,
        _ if typesize.is_multiple_of(8) => 8,
        _ => 1,
    };
    let words = block.len() / width;
    match first {
        None => {
            for i in width..words * width {
                block[i] ^= block[i - width];
            }
        }
        Some(first) => {
            for (byte, &base) in block[..words * width].iter_mut().zip(first) {
                *byte ^= base;
            }
        }
    }
}
