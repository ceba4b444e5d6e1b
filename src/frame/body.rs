//! The body of a frame, between its header and its trailer: the chunks and the index chunk that
//! gives their offsets, checked as c-blosc2 reads them ([`check_body`]).
//!
//! In a contiguous frame (c-blosc2's `frame_from_schunk`, `get_coffsets`, `frame_get_chunk` in
//! `blosc/frame.c`) the chunks lie from `header_len` to `header_len + cbytes`; the index chunk
//! follows, up to the trailer. It is a Blosc2 chunk whose decompressed bytes are one
//! little-endian int64 a chunk: the chunk's offset from `header_len`, or, when negative, a
//! special chunk (zeros, NaNs, uninitialized values) that has no bytes in the frame. A frame
//! without chunks has no index (or, once c-blosc2 has deleted its last chunk, an index of no
//! offsets). In a sparse frame the index follows the header in `chunks.b2frame`, and each
//! offset is the number of a chunk file, `%08X.chunk`, in the directory.

use std::collections::HashSet;
use std::format;
use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;
use std::vec::Vec;

use crate::vlmeta::{self, ChunkError, ChunkHeader, Special};

use super::io::{SPARSE_FRAME_TYPE, frame_file, open_window, read_at, read_error, read_frame_bytes_with};
use super::{ChunkMiss, Entry, FRAME_LEN_AT, FRAME_TYPE_AT, FrameError, FrameErrorKind, FrameRef, Section, wide};

/// Where the header's `cbytes` value is: after its `0xd3` marker at 0x26.
const CBYTES_AT: u64 = 0x27;
/// A Blosc1 chunk header's length: what the check reads of each chunk (its `cbytes` is at 12).
const CHUNK_HEAD_LEN: u64 = 16;
/// Where a chunk header's `nbytes`, `cbytes` and Blosc2 flags are.
const NBYTES_AT: u64 = 4;
const CBYTES_IN_CHUNK: u64 = 12;
const BLOSC2_FLAGS_AT: u64 = 31;
/// The extended chunk header's length: what is read of the index chunk before its `cbytes` is
/// known.
const INDEX_HEAD_LEN: u64 = 32;
/// The bits of a negative offset that name its special chunk (c-blosc2's `frame_special_chunk`:
/// `BLOSC2_SPECIAL_ZERO`, `_NAN` and `_UNINIT` shifted by 56).
const SPECIAL_BITS: u64 = 0x07 << 56;
/// An offset's size in the index.
const OFFSET_LEN: usize = 8;

/// What [`check_body`] found between a frame's header and its trailer.
///
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/scalars.b2nd");
/// let body = metalayer::frame::check_body(path)?;
/// // Two chunks of 64 bytes after the 146-byte header, then a 48-byte index: two int64s,
/// // stored uncompressed after a 32-byte chunk header.
/// assert_eq!((body.nchunks, body.special_chunks), (2, 0));
/// assert_eq!((body.data_end, body.index_offset, body.index_len), (146 + 128, 146 + 128, 48));
/// assert!(!body.sparse);
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Body {
    /// The number of chunks: `nbytes / chunksize`, rounded up, or (`chunksize` 0, chunks of
    /// varying sizes) the index's count.
    pub nchunks: u64,
    /// How many of them are special (zeros, NaNs, uninitialized values), without bytes in the
    /// frame.
    pub special_chunks: u64,
    /// Where the chunks end: `header_len + cbytes`; `header_len` in a sparse frame, whose
    /// chunks are files of their own.
    pub data_end: u64,
    /// Where the index chunk starts: where the chunks end.
    pub index_offset: u64,
    /// The index chunk's length, its `cbytes`: 0 when there is no index. Bytes between its end
    /// and the trailer are allowed, as c-blosc2 allows them.
    pub index_len: u64,
    /// Whether the frame is sparse (frame type 1): its offsets number chunk files.
    pub sparse: bool,
}

/// Checks the body of the frame file or sparse-frame directory `path`: reads and checks the
/// header and the trailer as [`FrameBytes::open`](super::FrameBytes::open) does, then the body
/// as [`check_body_from`] does. Io errors name the file.
///
/// ```
/// use metalayer::frame::check_body;
///
/// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/sparse_i4_2d.b2nd");
/// let body = check_body(dir)?;
/// assert!(body.sparse);
/// assert_eq!(body.nchunks, 4); // the files 00000000.chunk to 00000003.chunk
///
/// // 262144 chunks, all special, in a 240-byte file: the index is one repeated int64.
/// let big = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/big_2d_2pow33.b2nd");
/// let body = check_body(big)?;
/// assert_eq!((body.nchunks, body.special_chunks, body.index_len), (262144, 262144, 40));
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
pub fn check_body(path: impl AsRef<Path>) -> Result<Body, FrameError> {
    let (file_path, sparse_dir) = frame_file(path.as_ref())?;
    let io_error = |source| FrameError::io(file_path.clone(), source);
    let mut file = File::open(&file_path).map_err(io_error)?;
    let bytes = read_frame_bytes_with(&mut file, &io_error, sparse_dir)?;
    let input = Input {
        reader: &mut file,
        io_error: &io_error,
        file: true,
    };
    check(input, &bytes.frame()?, sparse_dir)
}

/// [`check_body`] of a frame stored in `path` at `offset`, `len` bytes long (a member of a
/// `.b2z` store), read in place as [`FrameBytes::open_at`](super::FrameBytes::open_at) reads it.
///
/// ```
/// let zip = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-stores/dictstore.b2z");
/// // `big.b2nd`, stored in the zip at byte 1940, 607 bytes long: one chunk.
/// let body = metalayer::frame::check_body_at(zip, 1940, 607)?;
/// assert_eq!(body.nchunks, 1);
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
pub fn check_body_at(path: impl AsRef<Path>, offset: u64, len: u64) -> Result<Body, FrameError> {
    let path = path.as_ref();
    let io_error = |source| FrameError::io(path, source);
    let mut window = open_window(path, offset, len, &io_error)?;
    let bytes = read_frame_bytes_with(&mut window, &io_error, None)?;
    let input = Input {
        reader: &mut window,
        io_error: &io_error,
        file: true,
    };
    check(input, &bytes.frame()?, None)
}

/// Checks the body of a frame already read: `frame` (from [`FrameBytes::frame`] or
/// [`FrameRef::parse`]) is the frame that `reader` holds from its first byte (a frame
/// inside a larger file is read through a [`Window`]), and `sparse_dir` the directory of a
/// sparse frame, whose chunk files are then checked (without it, a sparse frame's index is
/// checked, not its files). Nothing is written; the reader's position is left anywhere. Io
/// errors are [`FrameErrorKind::Read`], for the caller to name the file; a chunk file's names
/// it.
///
/// [`FrameBytes::frame`]: super::FrameBytes::frame
/// [`FrameRef::parse`]: super::FrameRef::parse
/// [`Window`]: super::Window
///
/// What is checked, each failure an error placed at its byte ([`Section::Body`], or the
/// header's field):
///
/// - `frame_len` is at most the input's length (bytes after it are allowed: older c-blosc2
///   releases leave them);
/// - the frame type byte is 0 (contiguous) or 1 (sparse), and sparse when `sparse_dir` is
///   given;
/// - `cbytes` is not negative, and, in a contiguous frame, `header_len + cbytes` is at most
///   the trailer's offset;
/// - the number of chunks: `nbytes / chunksize`, rounded up, when both are above 0; the index's
///   count when `chunksize` is 0 (chunks of varying sizes); else none;
/// - the bytes between the chunks and the trailer are empty only when there are no chunks;
///   else they start with a Blosc2 chunk, the index (its header read by
///   [`ChunkHeader::parse`](crate::vlmeta::ChunkHeader::parse)), whose `cbytes` fits before
///   the trailer, whose `nbytes` is 8 bytes for each chunk (a multiple of 8 for chunks of
///   varying sizes; 0 for no chunks, the index c-blosc2 leaves when it deletes a frame's last
///   chunk), and that decompresses;
/// - each offset: a negative one names a special chunk (bit 56, 57 or 58 set, as c-blosc2
///   reads it); in a contiguous frame, a chunk's 16-byte header lies within the chunks
///   (`offset + 16 <= cbytes`), and its `cbytes` keeps it there; no more offsets name chunks
///   with bytes than `cbytes / 16`, the most the chunks can hold; in a sparse frame, the chunk
///   file `%08X.chunk` of the offset's low 32 bits (as c-blosc2 names it) is a regular file of
///   the directory.
///
/// What it costs: the index chunk is read whole (its `cbytes`, at most the input's length);
/// a special index (one repeated value, as c-blosc2 writes the index of chunks that are all
/// special) is checked through its one value, never repeated out; a compressed one is
/// decompressed a block at a time ([`vlmeta::decompress_blocks`](crate::vlmeta::decompress_blocks)),
/// so its `nbytes` (up to 2 GiB) is worked through, never held. Each chunk with bytes costs a
/// read of 16 bytes (at most `cbytes / 16` reads), each chunk file a look-up in the directory
/// (once a file).
///
/// ```
/// use metalayer::frame::{check_body_from, FrameBytes};
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/scalars.b2nd");
/// // An editor holds the file open; it checks the body through it before it copies the body.
/// let file = std::fs::File::open(path).unwrap();
/// let bytes = FrameBytes::open(path)?;
/// let body = check_body_from(&file, &bytes.frame()?, None)?;
/// assert_eq!(body.nchunks, 2);
///
/// // A header whose cbytes lies: 1000 bytes of chunks would run past the trailer.
/// let mut whole = std::fs::read(path).unwrap();
/// whole[0x27..0x2f].copy_from_slice(&1000i64.to_be_bytes());
/// let frame = metalayer::frame::FrameRef::parse(&whole)?;
/// let err = check_body_from(std::io::Cursor::new(&whole), &frame, None).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "at byte 0x27: cbytes 1000 lies: the chunks from header_len 146 would end at byte 0x47a, past the trailer at byte 0x142"
/// );
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
pub fn check_body_from<R: Read + Seek>(
    mut reader: R,
    frame: &FrameRef<'_>,
    sparse_dir: Option<&Path>,
) -> Result<Body, FrameError> {
    let input = Input {
        reader: &mut reader,
        io_error: &read_error,
        file: false,
    };
    check(input, frame, sparse_dir)
}

/// The reader of a frame, how its io errors are reported, and whether it is a file (for the
/// messages).
struct Input<'a, R> {
    reader: &'a mut R,
    io_error: &'a dyn Fn(io::Error) -> FrameError,
    file: bool,
}

impl<R: Read + Seek> Input<'_, R> {
    fn read(&mut self, at: u64, len: u64) -> Result<Vec<u8>, FrameError> {
        let bytes = read_at(self.reader, at, len, self.io_error)?;
        if wide(bytes.len()) != len {
            let eof = io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("{len} bytes at byte {at} run past the end of the input"),
            );
            return Err((self.io_error)(eof));
        }
        Ok(bytes)
    }
}

/// An error in the body.
fn at(offset: u64, entry: Entry, kind: FrameErrorKind) -> FrameError {
    FrameError::at(offset, Section::Body, entry, kind)
}

/// An error in a field of the header.
fn in_header(offset: u64, field: &'static str, kind: FrameErrorKind) -> FrameError {
    FrameError::at(offset, Section::Header, Entry::Field(field), kind)
}

/// The number of chunks the header counts: `Some` when `nbytes` and `chunksize` give it (none
/// unless both are above 0, as c-blosc2's `get_header_info` counts them), `None` when the
/// index gives it (`chunksize` 0: chunks of varying sizes).
fn counted(nbytes: i64, chunksize: i32) -> Option<u64> {
    match (u64::try_from(nbytes), u64::try_from(chunksize)) {
        (Ok(n), Ok(c)) if n > 0 && c > 0 => {
            let whole = n.checked_div(c).unwrap_or_default();
            let part = n.checked_rem(c).unwrap_or_default();
            Some(whole.saturating_add(u64::from(part > 0)))
        }
        _ if chunksize == 0 => None,
        _ => Some(0),
    }
}

fn check<R: Read + Seek>(
    mut input: Input<'_, R>,
    frame: &FrameRef<'_>,
    sparse_dir: Option<&Path>,
) -> Result<Body, FrameError> {
    let h = &frame.header;
    let input_len = input.reader.seek(SeekFrom::End(0)).map_err(input.io_error)?;
    if h.frame_len > input_len {
        let kind = FrameErrorKind::PastInput {
            len: h.frame_len,
            input_len,
            file: input.file,
        };
        return Err(in_header(wide(FRAME_LEN_AT.saturating_add(1)), "frame_len", kind));
    }
    let sparse = match h.frame_type() {
        0 => false,
        SPARSE_FRAME_TYPE => true,
        found => {
            return Err(in_header(
                wide(FRAME_TYPE_AT),
                "flags",
                FrameErrorKind::FrameType { found },
            ));
        }
    };
    if let (Some(path), false) = (sparse_dir, sparse) {
        let kind = FrameErrorKind::NotSparseFrameType {
            path: path.to_path_buf(),
            found: h.frame_type(),
        };
        return Err(in_header(wide(FRAME_TYPE_AT), "flags", kind));
    }
    let header_len = wide(h.header_len);
    let trailer_offset = frame.trailer.offset;
    let Ok(cbytes) = u64::try_from(h.cbytes) else {
        return Err(in_header(
            CBYTES_AT,
            "cbytes",
            FrameErrorKind::CbytesNegative { cbytes: h.cbytes },
        ));
    };
    let data_end = if sparse {
        Some(header_len)
    } else {
        header_len.checked_add(cbytes)
    };
    let Some(room) = data_end.and_then(|end| trailer_offset.checked_sub(end)) else {
        let kind = FrameErrorKind::CbytesPastTrailer {
            cbytes: h.cbytes,
            header_len,
            trailer_offset,
        };
        return Err(in_header(CBYTES_AT, "cbytes", kind));
    };
    let data_end = data_end.unwrap_or_default();
    let expected = counted(h.nbytes, h.chunksize);
    let mut body = Body {
        nchunks: 0,
        special_chunks: 0,
        data_end,
        index_offset: data_end,
        index_len: 0,
        sparse,
    };
    if room == 0 {
        return match expected {
            Some(nchunks) if nchunks > 0 => {
                let kind = FrameErrorKind::IndexMissing {
                    nchunks,
                    nbytes: h.nbytes,
                    chunksize: h.chunksize,
                };
                Err(at(data_end, Entry::Index, kind))
            }
            _ => Ok(body),
        };
    }

    // The index chunk's header, then the whole chunk.
    let index_error = |error: ChunkError| {
        let offset = data_end.saturating_add(wide(error.offset));
        at(
            offset,
            Entry::Index,
            FrameErrorKind::IndexChunk { start: data_end, error },
        )
    };
    let head = input.read(data_end, room.min(INDEX_HEAD_LEN))?;
    let index_header = ChunkHeader::parse(&head).map_err(index_error)?;
    if wide(index_header.cbytes) > room {
        let kind = FrameErrorKind::IndexPastTrailer {
            cbytes: index_header.cbytes,
            room,
            trailer_offset,
        };
        return Err(at(data_end.saturating_add(CBYTES_IN_CHUNK), Entry::Index, kind));
    }
    let index_nbytes = wide(index_header.nbytes);
    let fits = match expected {
        Some(n) => n.checked_mul(wide(OFFSET_LEN)) == Some(index_nbytes),
        None => index_nbytes.is_multiple_of(wide(OFFSET_LEN)),
    };
    if !fits {
        let kind = FrameErrorKind::IndexNbytes {
            found: index_header.nbytes,
            nchunks: expected,
            nbytes: h.nbytes,
            chunksize: h.chunksize,
        };
        return Err(at(data_end.saturating_add(NBYTES_AT), Entry::Index, kind));
    }
    body.nchunks = index_nbytes.checked_div(wide(OFFSET_LEN)).unwrap_or_default();
    body.index_len = wide(index_header.cbytes);
    let index = input.read(data_end, body.index_len)?;

    let mut walk = Walk {
        input,
        sparse_dir: if sparse { sparse_dir } else { None },
        sparse,
        header_len,
        cbytes,
        max_with_bytes: cbytes.checked_div(CHUNK_HEAD_LEN).unwrap_or_default(),
        index_at: data_end,
        // A memcpyed index holds its offsets as they are: each error names the offset's byte.
        entries_at: (index_header.memcpyed() && index_header.special() == Ok(Special::None))
            .then(|| data_end.saturating_add(wide(index_header.len()))),
        with_bytes: 0,
        specials: 0,
        last_checked: None,
        files: HashSet::new(),
        next: 0,
        carry: [0; OFFSET_LEN],
        carried: 0,
    };
    match vlmeta::special_item(&index).map_err(index_error)? {
        Some(repeated) if repeated.special == Special::Uninit => {
            let place = data_end.saturating_add(BLOSC2_FLAGS_AT);
            return Err(at(place, Entry::Index, FrameErrorKind::IndexUninit));
        }
        Some(repeated) => walk.repeated(&repeated.item, body.nchunks)?,
        None => {
            let limit = usize::try_from(i32::MAX).unwrap_or(usize::MAX);
            vlmeta::decompress_blocks(&index, limit, |piece| walk.feed(piece)).map_err(|stop| match stop {
                Stop::Chunk(error) => index_error(error),
                Stop::Frame(error) => error,
            })?;
        }
    }
    body.special_chunks = walk.specials;
    Ok(body)
}

/// Why the walk through the index's blocks stopped.
enum Stop {
    Chunk(ChunkError),
    Frame(FrameError),
}

impl From<ChunkError> for Stop {
    fn from(error: ChunkError) -> Self {
        Stop::Chunk(error)
    }
}

impl From<FrameError> for Stop {
    fn from(error: FrameError) -> Self {
        Stop::Frame(error)
    }
}

/// The walk through the index's offsets, in order.
struct Walk<'a, 'd, R> {
    input: Input<'a, R>,
    sparse_dir: Option<&'d Path>,
    sparse: bool,
    header_len: u64,
    cbytes: u64,
    /// The most chunks with bytes the data holds: each takes at least a 16-byte header.
    max_with_bytes: u64,
    /// Where the index chunk starts, and (memcpyed) where its offsets start.
    index_at: u64,
    entries_at: Option<u64>,
    /// The offsets seen that name chunks with bytes, and special chunks.
    with_bytes: u64,
    specials: u64,
    /// The last chunk offset read and found good: the same again is not read again.
    last_checked: Option<u64>,
    /// The chunk files found (their numbers), each looked up once.
    files: HashSet<u32>,
    /// The next offset's number, and the bytes of it a previous block ended with.
    next: u64,
    carry: [u8; OFFSET_LEN],
    carried: usize,
}

impl<R: Read + Seek> Walk<'_, '_, R> {
    /// The offsets in the next piece of the decompressed index.
    fn feed(&mut self, mut piece: &[u8]) -> Result<(), Stop> {
        if self.carried > 0 {
            let want = OFFSET_LEN.saturating_sub(self.carried);
            let (part, rest) = piece.split_at(want.min(piece.len()));
            if let Some(slot) = self
                .carry
                .get_mut(self.carried..self.carried.saturating_add(part.len()))
            {
                slot.copy_from_slice(part);
            }
            self.carried = self.carried.saturating_add(part.len());
            piece = rest;
            if self.carried < OFFSET_LEN {
                return Ok(());
            }
            self.carried = 0;
            self.offset(i64::from_le_bytes(self.carry))?;
        }
        let mut offsets = piece.chunks_exact(OFFSET_LEN);
        for bytes in &mut offsets {
            let value = bytes.first_chunk::<OFFSET_LEN>().copied().unwrap_or_default();
            self.offset(i64::from_le_bytes(value))?;
        }
        let rest = offsets.remainder();
        if let Some(slot) = self.carry.get_mut(..rest.len()) {
            slot.copy_from_slice(rest);
        }
        self.carried = rest.len();
        Ok(())
    }

    /// The offsets of a special index: `item` repeated through `nchunks` offsets. They repeat
    /// every `item.len() / gcd(item.len(), 8)` offsets (the item's length is at most the
    /// index's, so this is bounded by the input), so one round is checked, and the counts are
    /// multiplied out.
    fn repeated(&mut self, item: &[u8], nchunks: u64) -> Result<(), FrameError> {
        let len = item.len().max(1);
        let period = wide(len.checked_div(gcd(len, OFFSET_LEN)).unwrap_or(1));
        let round = period.min(nchunks);
        // The numbers of the offsets with bytes in the first round.
        let mut with_bytes = Vec::new();
        let mut bytes = item.iter().copied().cycle();
        for n in 0..round {
            let mut value = [0u8; OFFSET_LEN];
            for byte in &mut value {
                *byte = bytes.next().unwrap_or_default();
            }
            let before = self.specials;
            self.check_offset(n, i64::from_le_bytes(value))?;
            if self.specials == before {
                with_bytes.push(n);
            }
        }
        // Each round holds as many; the last may be cut short.
        let rounds = nchunks.checked_div(period).unwrap_or_default();
        let left = nchunks.checked_rem(period).unwrap_or_default();
        let per_round = wide(with_bytes.len());
        let in_left = wide(with_bytes.iter().filter(|&&n| n < left).count());
        let total = rounds.saturating_mul(per_round).saturating_add(in_left);
        self.specials = nchunks.saturating_sub(total);
        if !self.sparse && total > self.max_with_bytes {
            // The first offset past the bound: the (max + 1)th with bytes.
            let (whole, within) = (
                self.max_with_bytes.checked_div(per_round).unwrap_or_default(),
                self.max_with_bytes.checked_rem(per_round).unwrap_or_default(),
            );
            let in_round = usize::try_from(within)
                .ok()
                .and_then(|i| with_bytes.get(i))
                .copied()
                .unwrap_or_default();
            let n = whole.saturating_mul(period).saturating_add(in_round);
            let value = i64::from_le_bytes(value_at(item, n));
            return Err(self.too_many(n, value));
        }
        self.next = nchunks;
        Ok(())
    }

    /// The next offset of the index, counted and checked.
    fn offset(&mut self, value: i64) -> Result<(), FrameError> {
        let n = self.next;
        self.next = n.saturating_add(1);
        if value >= 0 && !self.sparse {
            // Counted before it is read: at most `max_with_bytes` chunks are read.
            self.with_bytes = self.with_bytes.saturating_add(1);
            if self.with_bytes > self.max_with_bytes {
                return Err(self.too_many(n, value));
            }
        }
        self.check_offset(n, value)
    }

    /// Where an error in offset `n` is: its byte in a memcpyed index, else the index chunk's
    /// first byte.
    fn offset_at(&self, n: u64) -> u64 {
        match self.entries_at {
            Some(start) => start.saturating_add(n.saturating_mul(wide(OFFSET_LEN))),
            None => self.index_at,
        }
    }

    fn miss(&self, n: u64, stored: i64, miss: ChunkMiss) -> FrameError {
        at(
            self.offset_at(n),
            Entry::Chunk(n),
            FrameErrorKind::ChunkOffset { stored, miss },
        )
    }

    fn too_many(&self, n: u64, stored: i64) -> FrameError {
        let miss = ChunkMiss::TooMany {
            max: self.max_with_bytes,
            cbytes: i64::try_from(self.cbytes).unwrap_or(i64::MAX),
        };
        self.miss(n, stored, miss)
    }

    /// Checks offset `n`: a special chunk (counted here), a chunk within the data, or a chunk
    /// file.
    fn check_offset(&mut self, n: u64, value: i64) -> Result<(), FrameError> {
        let Ok(offset) = u64::try_from(value) else {
            if value.cast_unsigned() & SPECIAL_BITS == 0 {
                return Err(self.miss(n, value, ChunkMiss::NotSpecial));
            }
            self.specials = self.specials.saturating_add(1);
            return Ok(());
        };
        if self.sparse {
            return self.chunk_file(n, value);
        }
        if self.last_checked == Some(offset) {
            return Ok(());
        }
        let room = self.cbytes.saturating_sub(offset);
        if room < CHUNK_HEAD_LEN {
            let cbytes = i64::try_from(self.cbytes).unwrap_or(i64::MAX);
            return Err(self.miss(n, value, ChunkMiss::PastData { cbytes }));
        }
        let start = self.header_len.saturating_add(offset);
        let head = self.input.read(start, CHUNK_HEAD_LEN)?;
        let cbytes_at = usize::try_from(CBYTES_IN_CHUNK).unwrap_or(usize::MAX);
        let chunk_cbytes = head
            .get(cbytes_at..)
            .and_then(<[u8]>::first_chunk::<4>)
            .map_or(0, |b| i32::from_le_bytes(*b));
        if u64::try_from(chunk_cbytes).is_ok_and(|c| c >= CHUNK_HEAD_LEN && c <= room) {
            self.last_checked = Some(offset);
            return Ok(());
        }
        let miss = ChunkMiss::ChunkPastData { chunk_cbytes, room };
        let kind = FrameErrorKind::ChunkOffset { stored: value, miss };
        Err(at(start.saturating_add(CBYTES_IN_CHUNK), Entry::Chunk(n), kind))
    }

    /// In a sparse frame, the chunk file of offset `n` is a regular file of the directory.
    fn chunk_file(&mut self, n: u64, value: i64) -> Result<(), FrameError> {
        let Some(dir) = self.sparse_dir else {
            return Ok(());
        };
        // c-blosc2 names the file after the offset's low 32 bits (`sframe_get_chunk`).
        let number = (value.cast_unsigned() & u64::from(u32::MAX)) as u32;
        if self.files.contains(&number) {
            return Ok(());
        }
        let path = dir.join(format!("{number:08X}.chunk"));
        match fs::metadata(&path) {
            Ok(meta) if meta.is_file() => {
                self.files.insert(number);
                Ok(())
            }
            Ok(_) => Err(self.miss(n, value, ChunkMiss::NoChunkFile { path, other: true })),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                Err(self.miss(n, value, ChunkMiss::NoChunkFile { path, other: false }))
            }
            Err(e) => Err(FrameError::io(path, e)),
        }
    }
}

/// Offset `n` of `item` repeated.
fn value_at(item: &[u8], n: u64) -> [u8; OFFSET_LEN] {
    let len = wide(item.len().max(1));
    let mut value = [0u8; OFFSET_LEN];
    let first = n.saturating_mul(wide(OFFSET_LEN));
    for (i, byte) in (0u64..).zip(value.iter_mut()) {
        let at = first.saturating_add(i).checked_rem(len).unwrap_or_default();
        *byte = usize::try_from(at)
            .ok()
            .and_then(|at| item.get(at))
            .copied()
            .unwrap_or_default();
    }
    value
}

fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        let r = a.checked_rem(b).unwrap_or_default();
        a = b;
        b = r;
    }
    a
}
