//! Why a frame could not be read: where ([`Place`]: the byte, the section, the entry) and what
//! ([`FrameErrorKind`]). A section's own errors (too many metalayers, an offset that misses its
//! content) are one kind each, whichever section they are in; the schema's errors are the
//! generated decoder's, wrapped as they are.

use std::boxed::Box;
use std::fmt;
use std::io;
use std::path::PathBuf;
use std::string::String;

use metalayer_runtime::wire::Wire;

use crate::vlmeta::ChunkError;
use crate::{DecodeError, DecodeErrorKind, Path};

use super::{MAX_HEADER_LEN, MAX_METALAYERS, MIN_TRAILER_LEN, TRAILER_TAIL_LEN, magic_text, wide};

/// Why a frame's header or trailer could not be read, or its body did not check out: what went
/// wrong ([`kind`](Self::kind)), and where ([`place`](Self::place)), unless it is a file's
/// error.
///
/// ```
/// use metalayer::frame::{Frame, FrameErrorKind, Section};
///
/// let err = Frame::parse(b"\x9e\xa8b2frame\x01").unwrap_err();
/// assert!(matches!(err.kind(), FrameErrorKind::BadMagic { .. }));
/// assert_eq!(err.offset(), Some(0));
/// assert_eq!(err.place().map(|p| p.section), Some(Section::Header));
/// assert_eq!(
///     err.to_string(),
///     r#"at byte 0x00: expected frame magic 0x9e 0xa8 "b2frame\0", found 0x9e 0xa8 0x62 0x32 0x66 0x72 0x61 0x6d 0x65 0x01"#
/// );
/// ```
#[derive(Debug)]
pub struct FrameError {
    kind: FrameErrorKind,
    place: Option<Place>,
}

/// Where in a frame an error is: the byte, the section that holds it, and the entry.
///
/// ```
/// use metalayer::frame::{Frame, Entry, Section};
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
/// let mut bytes = std::fs::read(path).unwrap();
/// bytes[0x5b] = 0x80; // the map16 marker of the metalayers
/// let err = Frame::parse(&bytes).unwrap_err();
/// let place = err.place().unwrap();
/// assert_eq!((place.offset, place.section), (0x5b, Section::Header));
/// assert_eq!(place.entry.to_string(), "metalayers.offsets");
/// assert!(matches!(place.entry, Entry::Path(_)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Place {
    /// The byte, from the frame's first byte (in a sparse frame, from `chunks.b2frame`'s).
    pub offset: u64,
    /// The section that holds the byte.
    pub section: Section,
    /// The entry that holds the byte.
    pub entry: Entry,
}

/// The sections of a frame: the two the reader reads, and the body between them, which
/// [`check_body`](super::check_body) checks.
///
/// ```
/// assert_eq!(metalayer::frame::Section::Trailer.to_string(), "trailer");
/// assert_eq!(metalayer::frame::Section::Body.to_string(), "body");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Section {
    /// The header: `frame_header_v2`, the metalayers.
    Header,
    /// The trailer: `frame_trailer_v1`, the vlmetalayers.
    Trailer,
    /// The body: the chunks and their index chunk, between the header and the trailer (in a
    /// sparse frame, the index alone; the chunks are files of their own).
    Body,
}

impl Section {
    /// What the section's map holds: `metalayers` or `vlmetalayers` (the body: chunks).
    const fn holds(self) -> &'static str {
        match self {
            Section::Header => "metalayers",
            Section::Trailer => "vlmetalayers",
            Section::Body => "chunks",
        }
    }
}

impl fmt::Display for Section {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Section::Header => "header",
            Section::Trailer => "trailer",
            Section::Body => "body",
        })
    }
}

/// The entry an error is in.
///
/// ```
/// use metalayer::frame::Entry;
///
/// assert_eq!(Entry::Content(2).to_string(), "contents[2]");
/// assert_eq!(Entry::Offset("b2nd".into()).to_string(), r#"offsets["b2nd"]"#);
/// assert_eq!(Entry::Chunk(3).to_string(), "chunk 3");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Entry {
    /// An entry of the header or the trailer, by its schema name (`magic`, `header_len`,
    /// `frame_len`, `flags`, `trailer_len`).
    Field(&'static str),
    /// The entry the generated decoder names.
    Path(Path),
    /// The count of the section's map of names.
    MapCount,
    /// The count of the section's array of contents.
    ArrayCount,
    /// The content offset stored for the metalayer of this name.
    Offset(String),
    /// The bin32 header (marker and length) of the section's content of this index.
    Content(usize),
    /// Past the section's last entry.
    End,
    /// The body's index chunk: its header, or its data as a whole.
    Index,
    /// The chunk of this number: its entry in the index, or its own bytes.
    Chunk(u64),
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Entry::Index => f.write_str("the index chunk"),
            Entry::Chunk(n) => write!(f, "chunk {n}"),
            Entry::Field(name) => f.write_str(name),
            Entry::Path(path) => write!(f, "{path}"),
            Entry::MapCount => f.write_str("the map's count"),
            Entry::ArrayCount => f.write_str("the content array's count"),
            Entry::Offset(name) => write!(f, "offsets[{name:?}]"),
            Entry::Content(index) => write!(f, "contents[{index}]"),
            Entry::End => f.write_str("the end"),
        }
    }
}

/// What went wrong. The place, when there is one, is the error's [`place`](FrameError::place).
#[derive(Debug)]
#[non_exhaustive]
pub enum FrameErrorKind {
    /// Opening, inspecting or reading a file failed. The message names the path; the io error
    /// is the `source()`.
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// Reading from a reader given to [`Frame::read`](super::Frame::read),
    /// [`read_frame_stream`](super::read_frame_stream) or
    /// [`check_body_from`](super::check_body_from) failed; the io error is the `source()`.
    Read {
        /// The underlying error.
        source: io::Error,
    },
    /// A directory was given, but it holds no `chunks.b2frame` file.
    NotSparseFrame {
        /// The directory.
        path: PathBuf,
    },
    /// The path names neither a regular file nor a directory: a FIFO, a socket or a device. It
    /// is refused before it is opened for reading, so that nothing waits on it.
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it is: `a FIFO`, `a socket`, `a character device`, `a block device`.
        what: &'static str,
    },
    /// The `chunks.b2frame` of a sparse-frame directory does not say it is a sparse frame.
    NotSparseFrameType {
        /// The directory.
        path: PathBuf,
        /// The frame type byte.
        found: u8,
    },
    /// The input ends inside the frame magic.
    Truncated {
        /// The input's length.
        len: u64,
    },
    /// The first 10 bytes are not the frame magic.
    BadMagic {
        /// The first 10 bytes.
        found: [u8; 10],
    },
    /// The bytes do not follow the section's schema (`frame_header_v2` or `frame_trailer_v1`):
    /// the generated decoder's error, whose offset is from the section's first byte.
    Decode {
        /// The decoder's error: the byte, the entry path, what was expected and found.
        error: Box<DecodeError>,
        /// Where the section's bytes end in the frame: `header_len`, or `frame_len` for the
        /// trailer; `None` for the header's first bytes, which are read before `header_len`.
        end: Option<u64>,
    },
    /// `header_len` is above [`MAX_HEADER_LEN`].
    HeaderLenTooLarge {
        /// The stored value.
        header_len: u64,
    },
    /// `header_len` or `frame_len` runs past the end of the file or the bytes given.
    PastInput {
        /// The stored value.
        len: u64,
        /// The input's length.
        input_len: u64,
        /// Whether the input is a file (else bytes in memory).
        file: bool,
    },
    /// `frame_len` is smaller than `header_len`.
    FrameLenTooSmall {
        /// The stored `frame_len`.
        frame_len: u64,
        /// The stored `header_len`.
        header_len: u64,
    },
    /// `frame_len` leaves less than [`MIN_TRAILER_LEN`] bytes after the header.
    NoRoomForTrailer {
        /// The stored `frame_len`.
        frame_len: u64,
        /// The stored `header_len`.
        header_len: u64,
    },
    /// The byte [`TRAILER_TAIL_LEN`] bytes before `frame_len` is not `trailer_len`'s marker.
    TrailerLenMarker {
        /// The marker `frame_trailer_v1` states.
        expected: u8,
        /// The byte found.
        found: u8,
    },
    /// `trailer_len` is below [`MIN_TRAILER_LEN`] or above `frame_len - header_len`.
    TrailerLenOutOfRange {
        /// The stored value.
        trailer_len: u32,
        /// The largest value that fits: `frame_len - header_len`.
        max: u64,
    },
    /// A frame read from a stream ([`read_frame_stream`](super::read_frame_stream)) has a
    /// trailer longer than the window of the stream's last bytes that is kept
    /// ([`STREAM_WINDOW`](super::STREAM_WINDOW)).
    TrailerPastWindow {
        /// The stored `trailer_len`.
        trailer_len: u32,
        /// The window's length.
        window: usize,
    },
    /// The section's entries end (at the error's place) before the section does.
    EntriesEndEarly {
        /// Where the section ends: `header_len`, or `frame_len` for the trailer.
        end: u64,
    },
    /// The section's map holds more than [`MAX_METALAYERS`] names.
    TooManyMetalayers {
        /// The stored count.
        count: u16,
    },
    /// The section's array of contents holds another count than its map.
    CountMismatch {
        /// The map's count.
        map: u16,
        /// The array's count.
        array: u16,
    },
    /// A content offset in the map does not point at the `0xc6` marker of one of the section's
    /// contents.
    ContentOffset {
        /// The metalayer.
        name: String,
        /// The stored offset: absolute in the header, from the trailer's first byte in the
        /// trailer.
        stored: i32,
        /// Where the stored offset counts from in the frame: 0, or the trailer's first byte.
        from: u64,
        /// Where it points instead.
        miss: OffsetMiss,
    },
    /// A content's length runs past the end of its section.
    ContentPastEnd {
        /// The stored length.
        len: u32,
        /// Where the section ends: `header_len`, or `frame_len` for the trailer.
        end: u64,
    },
    /// The frame type byte is neither 0 (contiguous) nor 1 (sparse).
    FrameType {
        /// The byte.
        found: u8,
    },
    /// The header's `cbytes`, the compressed size of the chunks, is negative.
    CbytesNegative {
        /// The stored value.
        cbytes: i64,
    },
    /// The header's `cbytes` puts the end of the chunks, `header_len + cbytes`, past the
    /// trailer.
    CbytesPastTrailer {
        /// The stored value.
        cbytes: i64,
        /// The header's length, where the chunks start.
        header_len: u64,
        /// Where the trailer starts.
        trailer_offset: u64,
    },
    /// The header counts chunks, but the trailer starts where the chunks end: there is no
    /// index chunk.
    IndexMissing {
        /// The chunks the header counts: `nbytes / chunksize`, rounded up.
        nchunks: u64,
        /// The header's `nbytes`.
        nbytes: i64,
        /// The header's `chunksize`.
        chunksize: i32,
    },
    /// The index chunk does not read or does not decompress: the chunk decoder's error, whose
    /// offset is from the index chunk's first byte.
    IndexChunk {
        /// Where the index chunk starts in the frame.
        start: u64,
        /// The decoder's error.
        error: ChunkError,
    },
    /// The index chunk's `cbytes` runs past the trailer.
    IndexPastTrailer {
        /// The index chunk's `cbytes`.
        cbytes: usize,
        /// The bytes between the index chunk's start and the trailer.
        room: u64,
        /// Where the trailer starts.
        trailer_offset: u64,
    },
    /// The index chunk's `nbytes` is not 8 bytes (one int64 offset) for each chunk the header
    /// counts.
    IndexNbytes {
        /// The index chunk's `nbytes`.
        found: usize,
        /// The chunks the header counts; `None` when it leaves the count to the index
        /// (`chunksize` 0: chunks of varying sizes), which then needs a multiple of 8.
        nchunks: Option<u64>,
        /// The header's `nbytes`.
        nbytes: i64,
        /// The header's `chunksize`.
        chunksize: i32,
    },
    /// The index chunk is a special chunk of uninitialized values: it stores no offsets.
    IndexUninit,
    /// An entry of the index does not name a chunk that the frame holds.
    ChunkOffset {
        /// The entry's value: a byte offset from `header_len` (in a sparse frame, the number of
        /// a chunk file), or, when negative, a special chunk.
        stored: i64,
        /// What is wrong.
        miss: ChunkMiss,
    },
}

/// Why an entry of a frame's chunk index does not name a chunk the frame holds (see
/// [`FrameErrorKind::ChunkOffset`]). The chunk's number is the place's
/// [`Entry::Chunk`].
///
/// ```
/// use metalayer::frame::{check_body_from, FrameRef, ChunkMiss, FrameErrorKind};
///
/// // python-blosc2 stores this index uncompressed (memcpyed): the offsets of the two chunks
/// // are the int64s after its 32-byte header, at header_len + cbytes.
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/scalars.b2nd");
/// let mut bytes = std::fs::read(path).unwrap();
/// let index = 146 + 128;
/// bytes[index + 40..index + 48].copy_from_slice(&500i64.to_le_bytes());
/// let frame = FrameRef::parse(&bytes)?;
/// let err = check_body_from(std::io::Cursor::new(&bytes), &frame, None).unwrap_err();
/// assert!(matches!(
///     err.kind(),
///     FrameErrorKind::ChunkOffset { stored: 500, miss: ChunkMiss::PastData { cbytes: 128 } }
/// ));
/// assert_eq!(err.offset(), Some(index as u64 + 40));
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ChunkMiss {
    /// The entry is negative, but names none of the special values c-blosc2 reads in an
    /// index (bit 56 a chunk of zeros, 57 of NaNs, 58 of uninitialized values).
    NotSpecial,
    /// The chunk's 16-byte header would not lie within the data: the entry is above
    /// `cbytes - 16`.
    PastData {
        /// The header's `cbytes`.
        cbytes: i64,
    },
    /// The chunk's own `cbytes` (bytes 12..16 of its header) is below 16, or makes it run past
    /// the end of the data.
    ChunkPastData {
        /// The chunk's `cbytes`.
        chunk_cbytes: i32,
        /// The most it may be: the bytes from the chunk's start to the end of the data.
        room: u64,
    },
    /// More entries name chunks with bytes in the frame than the data can hold, each chunk
    /// taking at least 16 bytes: this entry is the first past the bound.
    TooMany {
        /// The most chunks the data can hold: `cbytes / 16`.
        max: u64,
        /// The header's `cbytes`.
        cbytes: i64,
    },
    /// In a sparse frame, the chunk file the entry names (`%08X.chunk`, of the entry's low 32
    /// bits, as c-blosc2 names it) is not a regular file of the directory.
    NoChunkFile {
        /// The chunk file's path.
        path: PathBuf,
        /// Whether something else (a directory, say) has that name.
        other: bool,
    },
}

/// Where a content offset points, when it does not point at a content's `0xc6` marker. Every
/// position is from the frame's first byte.
///
/// ```
/// use metalayer::frame::{FrameErrorKind, OffsetMiss};
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
/// let mut bytes = std::fs::read(path).unwrap();
/// bytes[0x64..0x68].copy_from_slice(&0x20i32.to_be_bytes()); // b2nd's offset, into the fixed part
/// let err = metalayer::frame::Frame::parse(&bytes).unwrap_err();
/// assert!(matches!(
///     err.kind(),
///     FrameErrorKind::ContentOffset { miss: OffsetMiss::BeforeContents { start: 0x92 }, .. }
/// ));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OffsetMiss {
    /// The offset is negative.
    Negative,
    /// It points at or past the section's end.
    Outside {
        /// Where the section ends.
        end: u64,
    },
    /// It points before the section's first content.
    BeforeContents {
        /// The first content's `0xc6`.
        start: u64,
    },
    /// It points at a byte other than `0xc6`.
    NotMarker {
        /// Where it points.
        at: u64,
        /// The byte there.
        found: u8,
    },
    /// It points at a `0xc6` byte inside a content.
    InsideContent {
        /// The `0xc6` of the content it points into.
        start: u64,
    },
}

impl FrameError {
    /// An error at a place.
    pub(super) fn at(offset: u64, section: Section, entry: Entry, kind: FrameErrorKind) -> Self {
        FrameError {
            kind,
            place: Some(Place { offset, section, entry }),
        }
    }

    /// The generated decoder's error on a section whose first byte is at `base` in the frame and
    /// whose bytes end at `end`.
    pub(super) fn decode(error: DecodeError, section: Section, base: u64, end: Option<u64>) -> Self {
        let offset = base.saturating_add(wide(error.offset()));
        let entry = if error.path().is_end() {
            Entry::End
        } else {
            Entry::Path(error.path().clone())
        };
        let error = Box::new(error);
        FrameError::at(offset, section, entry, FrameErrorKind::Decode { error, end })
    }

    /// An error that reading `path` failed, `source` saying why.
    ///
    /// ```
    /// use std::io::{Error, ErrorKind};
    ///
    /// let err = metalayer::frame::FrameError::io("x.b2nd", Error::new(ErrorKind::NotFound, "gone"));
    /// assert_eq!(err.to_string(), "cannot read x.b2nd");
    /// assert_eq!(err.place(), None);
    /// ```
    pub fn io(path: impl Into<PathBuf>, source: io::Error) -> Self {
        FrameErrorKind::Io {
            path: path.into(),
            source,
        }
        .into()
    }

    /// What went wrong.
    ///
    /// ```
    /// use metalayer::frame::FrameErrorKind;
    ///
    /// let err = metalayer::frame::Frame::open("no-such-file.b2nd").unwrap_err();
    /// assert!(matches!(err.kind(), FrameErrorKind::Io { .. }));
    /// ```
    pub fn kind(&self) -> &FrameErrorKind {
        &self.kind
    }

    /// Where it went wrong: the byte, the section and the entry. `None` for a file's errors.
    ///
    /// ```
    /// // header_len's marker is 0xd2 (int32), at byte 10.
    /// let err = metalayer::frame::Frame::parse(b"\x9e\xa8b2frame\0\xd3").unwrap_err();
    /// let place = err.place().unwrap();
    /// assert_eq!((place.offset, place.entry.to_string()), (10, "header_len".to_owned()));
    /// ```
    pub fn place(&self) -> Option<&Place> {
        self.place.as_ref()
    }

    /// The byte where it went wrong, from the frame's first byte.
    ///
    /// ```
    /// let err = metalayer::frame::Frame::parse(b"\x9e\xa8b2frame\0\xd2").unwrap_err();
    /// assert_eq!(err.offset(), Some(11));
    /// ```
    pub fn offset(&self) -> Option<u64> {
        self.place.as_ref().map(|p| p.offset)
    }
}

impl From<FrameErrorKind> for FrameError {
    fn from(kind: FrameErrorKind) -> Self {
        FrameError { kind, place: None }
    }
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(place) = &self.place else {
            return write_unplaced(f, &self.kind);
        };
        if let FrameErrorKind::Decode { error, end } = &self.kind {
            return write_decode(f, error, place, *end);
        }
        write!(f, "at byte {}", Hex(place.offset))?;
        match &place.entry {
            Entry::Path(path) => write!(f, " in {path}")?,
            Entry::Content(index) => write!(f, " in {}.contents[{index}]", place.section.holds())?,
            Entry::Index => f.write_str(" in the index chunk")?,
            Entry::Chunk(n) => write!(f, " (chunk {n})")?,
            _ => {}
        }
        f.write_str(": ")?;
        write_kind(f, &self.kind, place)
    }
}

/// The errors without a place: a file's.
fn write_unplaced(f: &mut fmt::Formatter<'_>, kind: &FrameErrorKind) -> fmt::Result {
    match kind {
        // The io error is the source: shown by whoever prints the chain.
        FrameErrorKind::Io { path, .. } => write!(f, "cannot read {}", path.display()),
        FrameErrorKind::Read { .. } => f.write_str("cannot read the frame"),
        FrameErrorKind::NotSparseFrame { path } => write!(
            f,
            "{} is a directory without a chunks.b2frame file, so not a sparse frame",
            path.display()
        ),
        FrameErrorKind::NotAFile { path, what } => write!(
            f,
            "{} is {what}, not a regular file: only frame files and sparse-frame directories are read",
            path.display()
        ),
        other => write!(f, "{other:?}"),
    }
}

/// What a placed error says after its place.
fn write_kind(f: &mut fmt::Formatter<'_>, kind: &FrameErrorKind, place: &Place) -> fmt::Result {
    let (section, holds) = (place.section, place.section.holds());
    match kind {
        FrameErrorKind::NotSparseFrameType { path, found } => write!(
            f,
            "expected frame type 1 (sparse) in the chunks.b2frame of the directory {}, found {found}",
            path.display()
        ),
        FrameErrorKind::Truncated { len } => {
            write!(f, "expected {}, found the end of the input ({len} bytes)", magic_text())
        }
        FrameErrorKind::BadMagic { found } => write!(f, "expected {}, found {}", magic_text(), HexBytes(found)),
        FrameErrorKind::HeaderLenTooLarge { header_len } => {
            write!(f, "header_len {header_len} exceeds the limit of {MAX_HEADER_LEN} bytes")
        }
        FrameErrorKind::PastInput { len, input_len, file } => {
            let input = if *file { "file" } else { "input" };
            write!(
                f,
                "{} {len} runs past the end of the {input} ({input_len} bytes)",
                place.entry
            )
        }
        FrameErrorKind::FrameLenTooSmall { frame_len, header_len } => {
            write!(f, "frame_len {frame_len} is smaller than header_len {header_len}")
        }
        FrameErrorKind::NoRoomForTrailer { frame_len, header_len } => write!(
            f,
            "frame_len {frame_len} leaves no room for a trailer ({MIN_TRAILER_LEN} bytes at least) after the header (header_len {header_len})"
        ),
        FrameErrorKind::TrailerLenMarker { expected, found } => write!(
            f,
            "expected trailer_len marker 0x{expected:02x} (uint32) {TRAILER_TAIL_LEN} bytes before the end of the frame, found 0x{found:02x}"
        ),
        FrameErrorKind::TrailerLenOutOfRange { trailer_len, max } => write!(
            f,
            "trailer_len {trailer_len} is outside {MIN_TRAILER_LEN}..={max} (a trailer, within the frame after its header)"
        ),
        FrameErrorKind::TrailerPastWindow { trailer_len, window } => write!(
            f,
            "trailer_len {trailer_len} is larger than the {} MiB of a stream's end that are kept ({window} bytes): read the frame from a file",
            window >> 20
        ),
        FrameErrorKind::EntriesEndEarly { end } => match section {
            Section::Header => write!(f, "the header's last entry ends here, but header_len is {end}"),
            Section::Trailer | Section::Body => write!(
                f,
                "the trailer's last entry ends here, but the trailer runs to frame_len {end}"
            ),
        },
        FrameErrorKind::TooManyMetalayers { count } => write!(
            f,
            "the {section}'s map holds {count} {holds}, at most {MAX_METALAYERS} are allowed"
        ),
        FrameErrorKind::CountMismatch { map, array } => {
            write!(f, "the {section}'s content array holds {array} {holds}, the map {map}")
        }
        FrameErrorKind::ContentOffset {
            name,
            stored,
            from,
            miss,
        } => write_offset_miss(f, section, name, *stored, *from, *miss),
        FrameErrorKind::ContentPastEnd { len, end } => {
            let end_name = end_name(section);
            write!(
                f,
                "content length {len} runs past the end of the {section} ({end_name} {end})"
            )
        }
        other => write_body_kind(f, other),
    }
}

/// What a placed error of the body says after its place.
fn write_body_kind(f: &mut fmt::Formatter<'_>, kind: &FrameErrorKind) -> fmt::Result {
    match kind {
        FrameErrorKind::FrameType { found } => {
            write!(f, "expected frame type 0 (contiguous) or 1 (sparse), found {found}")
        }
        FrameErrorKind::CbytesNegative { cbytes } => write!(
            f,
            "cbytes {cbytes} lies: expected the compressed size of the chunks, 0 or more"
        ),
        FrameErrorKind::CbytesPastTrailer {
            cbytes,
            header_len,
            trailer_offset,
        } => write!(
            f,
            "cbytes {cbytes} lies: the chunks from header_len {header_len} would end at byte {}, past the trailer at byte {}",
            Hex(header_len.saturating_add_signed(*cbytes)),
            Hex(*trailer_offset)
        ),
        FrameErrorKind::IndexMissing {
            nchunks,
            nbytes,
            chunksize,
        } => write!(
            f,
            "expected the index of {nchunks} chunks (nbytes {nbytes} / chunksize {chunksize}, rounded up), found the trailer"
        ),
        FrameErrorKind::IndexChunk { start, error } => {
            write!(f, "{error} (the index chunk starts at byte {})", Hex(*start))
        }
        FrameErrorKind::IndexPastTrailer {
            cbytes,
            room,
            trailer_offset,
        } => write!(
            f,
            "expected cbytes at most {room} (the bytes before the trailer at byte {}), found {cbytes}",
            Hex(*trailer_offset)
        ),
        FrameErrorKind::IndexNbytes {
            found,
            nchunks,
            nbytes,
            chunksize,
        } => match nchunks {
            Some(0) => write!(
                f,
                "expected nbytes 0 (no chunks: the header's nbytes {nbytes}, chunksize {chunksize}), found {found}"
            ),
            Some(n) => write!(
                f,
                "expected nbytes {} (8 bytes for each of {n} chunks: nbytes {nbytes} / chunksize {chunksize}, rounded up), found {found}",
                n.saturating_mul(8)
            ),
            None => write!(
                f,
                "expected nbytes a multiple of 8 (an int64 offset for each chunk; chunksize {chunksize}: chunks of varying sizes), found {found}"
            ),
        },
        FrameErrorKind::IndexUninit => f.write_str(
            "expected the chunks' offsets, found a special chunk of uninitialized values, which stores none",
        ),
        FrameErrorKind::ChunkOffset { stored, miss } => write_chunk_miss(f, *stored, miss),
        other => write_unplaced(f, other),
    }
}

fn write_chunk_miss(f: &mut fmt::Formatter<'_>, stored: i64, miss: &ChunkMiss) -> fmt::Result {
    match miss {
        ChunkMiss::NotSpecial => write!(
            f,
            "offset {stored} ({}) is negative, but names no special chunk: expected bit 56 (zeros), 57 (NaNs) or 58 (uninitialized) set",
            Hex(stored.cast_unsigned())
        ),
        ChunkMiss::PastData { cbytes } => write!(
            f,
            "offset {stored} points past the data: expected 0..={} (a chunk's 16-byte header within cbytes {cbytes}), found {stored}",
            cbytes.saturating_sub(16)
        ),
        ChunkMiss::ChunkPastData { chunk_cbytes, room } => write!(
            f,
            "the chunk at offset {stored} has cbytes {chunk_cbytes}: expected 16..={room} (to end within the data), found {chunk_cbytes}"
        ),
        ChunkMiss::TooMany { max, cbytes } => write!(
            f,
            "offset {stored} is one chunk too many: cbytes {cbytes} holds at most {max} chunks (16 bytes each at least), and the index lists more"
        ),
        ChunkMiss::NoChunkFile { path, other } => {
            let why = if *other { "is not a regular file" } else { "is missing" };
            write!(
                f,
                "offset {stored} names the chunk file {}, which {why}",
                path.display()
            )
        }
    }
}

/// What marks a section's end: `header_len`, or `frame_len` for the trailer (the body ends
/// at the trailer's offset).
const fn end_name(section: Section) -> &'static str {
    match section {
        Section::Header => "header_len",
        Section::Trailer => "frame_len",
        Section::Body => "the trailer's offset",
    }
}

fn write_offset_miss(
    f: &mut fmt::Formatter<'_>,
    section: Section,
    name: &str,
    stored: i32,
    from: u64,
    miss: OffsetMiss,
) -> fmt::Result {
    match section {
        Section::Header => write!(f, "metalayer {name:?} content offset {stored}")?,
        Section::Trailer | Section::Body => write!(
            f,
            "vlmetalayer {name:?} content offset {stored} (from the trailer at byte {})",
            Hex(from)
        )?,
    }
    match miss {
        OffsetMiss::Negative => f.write_str(" is negative"),
        OffsetMiss::Outside { end } => write!(
            f,
            " lies outside the {section}, which ends at byte {} ({} {end})",
            Hex(end),
            end_name(section)
        ),
        OffsetMiss::BeforeContents { start } => write!(
            f,
            " points before the content section, which starts at byte {}",
            Hex(start)
        ),
        OffsetMiss::NotMarker { at, found } => write!(
            f,
            " points at byte {}, which holds 0x{found:02x}, not the 0xc6 (bin32) marker of a content",
            Hex(at)
        ),
        OffsetMiss::InsideContent { start } => write!(
            f,
            " points inside the content that starts at byte {}, not at the start of a content",
            Hex(start)
        ),
    }
}

/// The decoder's error: its schema, the byte in the frame (and in the trailer), the entry, what
/// was expected and found. A marker of a wire type whose first byte holds a length or count
/// (fixstr, fixarray, fixmap) is shown as the range of bytes that wire type allows, where the
/// decoder's error names its first byte.
fn write_decode(f: &mut fmt::Formatter<'_>, error: &DecodeError, place: &Place, end: Option<u64>) -> fmt::Result {
    write!(f, "{}: at byte {}", error.schema(), Hex(place.offset))?;
    if place.section == Section::Trailer {
        write!(f, " (trailer byte {})", Hex(error.offset()))?;
    }
    let path = error.path();
    if path.is_end() {
        f.write_str(" after the last entry: ")?;
    } else {
        write!(f, " in {path}: ")?;
    }
    match error.kind() {
        DecodeErrorKind::Marker { wire, expected, found } => {
            match Wire::from_name(wire)
                .filter(|w| w.marker().is_none())
                .map(Wire::markers)
            {
                Some((lo, hi)) if lo < hi && *expected == lo => {
                    write!(f, "expected {wire} marker 0x{lo:02x}..=0x{hi:02x}, found 0x{found:02x}")?
                }
                _ => write!(f, "{}", error.kind())?,
            }
        }
        kind => write!(f, "{kind}")?,
    }
    if let (DecodeErrorKind::Truncated { .. }, Some(end)) = (error.kind(), end) {
        write!(f, " (the {} ends at {} {end})", place.section, end_name(place.section))?;
    }
    Ok(())
}

impl std::error::Error for FrameError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            FrameErrorKind::Io { source, .. } | FrameErrorKind::Read { source } => Some(source),
            _ => None,
        }
    }
}

/// Displays an offset as `0x5b` (at least two hex digits).
pub(super) struct Hex<T>(pub T);

impl<T: fmt::LowerHex> fmt::Display for Hex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{:02x}", self.0)
    }
}

/// Displays bytes as `0x9e 0xa8 0x62`.
pub(super) struct HexBytes<'a>(pub &'a [u8]);

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
