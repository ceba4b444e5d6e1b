//! Reading frames from files, sparse-frame directories and readers; [`FrameBytes`].

use std::borrow::Cow;
use std::format;
use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::vec;
use std::vec::Vec;

use metalayer_runtime::Decoder;
use metalayer_runtime::wire::Family;

use super::header::{decode_header, header_bytes, past_input};
use super::trailer::{decode_trailer, tail_at, trailer_place};
use super::{
    ARRAY16_MARKER, BIN32_MARKER, Entry, FRAME_TYPE_AT, Frame, FrameError, FrameErrorKind, FrameHeader, FrameMetalayer,
    FrameRef, MAP16_MARKER, MetalayerRef, PREFIX_LEN, SECTION_MAP_AT, SECTION_PAIRS_AT, Section, TRAILER_SECTION_AT,
    TRAILER_TAIL_LEN, be_u16, be_u32, byte_at, parse_frame_borrowed, span, types, wide,
};

/// The name of the file holding the frame header and trailer in a sparse-frame directory.
const SPARSE_HEADER_FILE: &str = "chunks.b2frame";

/// The frame type byte of a sparse frame (`FRAME_DIRECTORY_TYPE` in c-blosc2).
pub(super) const SPARSE_FRAME_TYPE: u8 = 1;

/// Reads `len` bytes at `at` (which the caller has checked lie in the input).
pub(super) fn read_at<R: Read + Seek>(
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
    let header_len = super::header_len(&header)?;
    if wide(header_len) > file_len {
        return Err(past_input(header_len, file_len, true));
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
pub(super) fn read_frame_bytes_with<R: Read + Seek>(
    reader: &mut R,
    io_error: &dyn Fn(io::Error) -> FrameError,
    sparse_dir: Option<&Path>,
) -> Result<FrameBytes, FrameError> {
    let (mut header, file_len) = read_header(reader, io_error)?;
    let header_len = header_bytes(&header, true)?.len();
    header.truncate(header_len);
    let (h, _) = decode_header(&header)?;
    check_sparse(&h, sparse_dir)?;
    let frame_len = h.frame_len;
    let tail_at = tail_at(header_len, frame_len, file_len, true)?;
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
        contents_base: 0,
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
        let Ok(name_len) = d.any_header(Family::Str, false, &metalayer_runtime::Path::CONTAINER) else {
            return Ok(false);
        };
        // The name, then the offset: 0xd2 and an int32.
        pos = pos
            .saturating_add(d.position())
            .saturating_add(name_len)
            .saturating_add(5);
    }
    let (Some(ARRAY16_MARKER), Some(contents)) = (byte_at(t, pos), be_u16(t, pos.saturating_add(1))) else {
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
/// let bytes = metalayer::frame::FrameBytes::open(path)?;
/// let frame = bytes.frame()?;
/// assert_eq!(frame.to_owned(), metalayer::frame::Frame::open(path)?);
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
    /// Where the frame starts in that file: 0, or a member's offset in a store.
    contents_base: u64,
}

impl FrameBytes {
    /// [`Frame::open`], keeping the header's and the trailer's bytes instead of copying each
    /// metalayer and vlmetalayer out of them: a frame whose vlmetalayers are large is held once.
    ///
    /// ```
    /// use metalayer::frame::{Frame, FrameBytes};
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/strings.b2nd");
    /// let bytes = FrameBytes::open(path)?;
    /// assert_eq!(bytes.frame()?.to_owned(), Frame::open(path)?);
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    pub fn open(path: impl AsRef<Path>) -> Result<FrameBytes, FrameError> {
        read_frame_bytes(path)
    }

    /// [`FrameBytes::open`] of a frame stored in `path` at `offset`, `len` bytes long (a member of
    /// a `.b2z` store, which is a zip of stored frames): the frame is read in place through a
    /// [`Window`], its offsets and lengths checked against `len` as they are against a file's length.
    /// The range must lie in the file. Io errors name `path`.
    ///
    /// ```
    /// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-stores");
    /// // `big.b2nd`, stored in the zip at byte 1940, 607 bytes long (python's zipfile says so).
    /// let member = metalayer::frame::FrameBytes::open_at(format!("{dir}/dictstore.b2z"), 1940, 607)?;
    /// let file = metalayer::frame::FrameBytes::open(format!("{dir}/dictstore.b2d/big.b2nd"))?;
    /// assert_eq!(member.frame()?.to_owned(), file.frame()?.to_owned());
    ///
    /// // A range that does not lie in the file is refused before anything is read.
    /// let err = metalayer::frame::FrameBytes::open_at(format!("{dir}/dictstore.b2z"), 1940, 1 << 40).unwrap_err();
    /// assert!(err.to_string().starts_with("cannot read "));
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    pub fn open_at(path: impl AsRef<Path>, offset: u64, len: u64) -> Result<FrameBytes, FrameError> {
        read_frame_bytes_at(path, offset, len)
    }

    /// The frame, borrowed from the bytes. The bytes were checked when they were read, so this
    /// decodes their index again without an error.
    pub fn frame(&self) -> Result<FrameRef<'_>, FrameError> {
        let (h, metalayers) = decode_header(&self.header)?;
        let (t, vlmetalayers) = decode_trailer(&self.trailer, self.trailer_offset, self.frame_len)?;
        Ok(types::frame_of(
            (&h, self.header.len(), metalayers),
            (&t, self.trailer_offset, vlmetalayers),
        ))
    }

    /// A vlmetalayer's content: borrowed from the trailer, or, when the trailer was long and its
    /// contents were left in the file, read from the file now.
    ///
    /// ```
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/strings.b2nd");
    /// let bytes = metalayer::frame::FrameBytes::open(path)?;
    /// let frame = bytes.frame()?;
    /// let first = &frame.vlmetalayers[0];
    /// assert_eq!(&*bytes.content(first)?, first.content);
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    pub fn content<'a>(&self, m: &MetalayerRef<'a>) -> Result<Cow<'a, [u8]>, FrameError> {
        let Some(path) = &self.contents_from else {
            return Ok(Cow::Borrowed(m.content));
        };
        let io_error = |source| FrameError::io(path.clone(), source);
        let mut file = File::open(path).map_err(io_error)?;
        let at = self.contents_base.saturating_add(m.offset);
        read_at(&mut file, at, wide(m.content.len()), &io_error).map(Cow::Owned)
    }

    /// The header's bytes.
    #[cfg(feature = "edit")]
    pub(super) fn header(&self) -> &[u8] {
        &self.header
    }

    /// Whether the vlmetalayers' contents were left in the file (a long trailer), to be read by
    /// [`content`](Self::content).
    ///
    /// ```
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/strings.b2nd");
    /// assert!(!metalayer::frame::FrameBytes::open(path)?.contents_in_file());
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

    /// A whole frame held in memory, checked as [`Frame::parse`] checks it; only its header and
    /// trailer are kept.
    #[cfg_attr(not(feature = "store"), allow(dead_code))]
    pub(crate) fn from_frame(frame: &[u8]) -> Result<FrameBytes, FrameError> {
        let parsed = parse_frame_borrowed(frame)?;
        let header_len = parsed.header.header_len;
        let (trailer_offset, frame_len) = (parsed.trailer.offset, parsed.header.frame_len);
        Ok(FrameBytes {
            header: frame.get(..header_len).unwrap_or_default().to_vec(),
            trailer: span(frame, trailer_offset, frame_len.saturating_sub(trailer_offset)).to_vec(),
            trailer_offset,
            frame_len,
            contents_from: None,
            contents_base: 0,
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
    let (h, metalayers) = decode_header(header_bytes(&header, true)?)?;
    check_sparse(&h, sparse_dir)?;
    Ok(metalayers.iter().map(MetalayerRef::to_owned).collect())
}

/// In a sparse-frame directory, `chunks.b2frame` must say it is a sparse frame.
fn check_sparse(header: &FrameHeader<'_>, sparse_dir: Option<&Path>) -> Result<(), FrameError> {
    match (sparse_dir, header.flags.get(1).copied().unwrap_or_default()) {
        (Some(path), found) if found != SPARSE_FRAME_TYPE => {
            let kind = FrameErrorKind::NotSparseFrameType {
                path: path.to_path_buf(),
                found,
            };
            Err(FrameError::at(
                wide(FRAME_TYPE_AT),
                Section::Header,
                Entry::Field("flags"),
                kind,
            ))
        }
        _ => Ok(()),
    }
}

/// The file that holds the frame's header and trailer: `path` itself, or a sparse-frame
/// directory's `chunks.b2frame` (with the directory).
pub(super) fn frame_file(path: &Path) -> Result<(PathBuf, Option<&Path>), FrameError> {
    let io_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| FrameError::io(path, source)
    };
    let meta = fs::metadata(path).map_err(io_error(path))?;
    if !meta.is_dir() {
        check_kind(path, &meta)?;
        return Ok((path.to_path_buf(), None));
    }
    let sparse_path = path.join(SPARSE_HEADER_FILE);
    match fs::metadata(&sparse_path) {
        Ok(meta) if meta.is_file() => Ok((sparse_path, Some(path))),
        Ok(_) => Err(not_sparse(path)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(not_sparse(path)),
        Err(e) => Err(io_error(&sparse_path)(e)),
    }
}

/// Opens a frame file, and reads from it with `read`.
fn with_file<T>(
    path: &Path,
    read: impl FnOnce(&mut File, &dyn Fn(io::Error) -> FrameError, Option<&Path>) -> Result<T, FrameError>,
) -> Result<T, FrameError> {
    let (file_path, sparse_dir) = frame_file(path)?;
    let io_error = |source| FrameError::io(file_path.clone(), source);
    let mut file = open_regular(&file_path)?;
    read(&mut file, &io_error, sparse_dir)
}

/// What a file type is, when it is not a regular file or a directory.
fn special_kind(kind: fs::FileType) -> Option<&'static str> {
    if kind.is_file() || kind.is_dir() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return Some("a FIFO");
        }
        if kind.is_socket() {
            return Some("a socket");
        }
        if kind.is_char_device() {
            return Some("a character device");
        }
        if kind.is_block_device() {
            return Some("a block device");
        }
    }
    Some("neither a regular file nor a directory")
}

/// Refuses a path that is a FIFO, a socket or a device.
fn check_kind(path: &Path, meta: &fs::Metadata) -> Result<(), FrameError> {
    match special_kind(meta.file_type()) {
        Some(what) => Err(FrameErrorKind::NotAFile {
            path: path.to_path_buf(),
            what,
        }
        .into()),
        None => Ok(()),
    }
}

/// Opens the regular file `path` for reading. A FIFO, a socket or a device is refused before it
/// is opened, and, should one take the path's place meanwhile, the open does not wait for it (on
/// Unix, `O_NONBLOCK`) and the opened file is refused too; a directory is refused as well.
pub(crate) fn open_regular(path: &Path) -> Result<File, FrameError> {
    let io_error = |source| FrameError::io(path, source);
    check_kind(path, &fs::metadata(path).map_err(io_error)?)?;
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options.open(path).map_err(io_error)?;
    let meta = file.metadata().map_err(io_error)?;
    check_kind(path, &meta)?;
    if meta.is_dir() {
        return Err(io_error(io::Error::new(
            io::ErrorKind::IsADirectory,
            "a directory, not a frame file",
        )));
    }
    Ok(file)
}

/// [`read_frame_bytes`] through a file already open (an edit's holds its lock): `path` names it
/// in messages and is where a long trailer's contents are read from later.
pub(crate) fn read_frame_bytes_file(
    file: &File,
    path: &Path,
    sparse_dir: Option<&Path>,
) -> Result<FrameBytes, FrameError> {
    let io_error = |source| FrameError::io(path, source);
    let mut reader = file;
    let mut bytes = read_frame_bytes_with(&mut reader, &io_error, sparse_dir)?;
    if bytes.contents_from.is_some() {
        bytes.contents_from = Some(path.to_path_buf());
    }
    Ok(bytes)
}

/// [`read_frame_bytes_at`] through a file already open.
pub(crate) fn read_frame_bytes_file_at(
    file: &File,
    path: &Path,
    offset: u64,
    len: u64,
) -> Result<FrameBytes, FrameError> {
    let io_error = |source| FrameError::io(path, source);
    let mut window = window_over(file, offset, len, &io_error)?;
    let mut bytes = read_frame_bytes_with(&mut window, &io_error, None)?;
    if bytes.contents_from.is_some() {
        bytes.contents_from = Some(path.to_path_buf());
        bytes.contents_base = offset;
    }
    Ok(bytes)
}

/// Reads the metalayers of a frame file, in stored order, reading only its header.
///
/// `path` is a contiguous frame file (`.b2nd`, `.b2frame`, `.cat`) or a sparse-frame directory,
/// whose `chunks.b2frame` is read (and must say it is a sparse frame). The first [`PREFIX_LEN`]
/// bytes give `header_len`, which is checked against the file's length before exactly
/// `header_len` bytes are read; the chunks and the trailer are never read. See the [module
/// documentation](super) for what is checked.
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

/// [`Frame::open`].
pub fn read_frame(path: impl AsRef<Path>) -> Result<Frame, FrameError> {
    with_file(path.as_ref(), |file, io_error, sparse_dir| {
        read_frame_with(file, io_error, sparse_dir)
    })
}

/// [`FrameBytes::open`].
pub fn read_frame_bytes(path: impl AsRef<Path>) -> Result<FrameBytes, FrameError> {
    let (file_path, sparse_dir) = frame_file(path.as_ref())?;
    read_frame_bytes_file(&open_regular(&file_path)?, &file_path, sparse_dir)
}

/// A window over `len` bytes of a reader from `start`: it reads and seeks as if those bytes
/// were the whole input (a seek to the end lands at `len`, and nothing past it is read). A frame
/// stored inside another file, such as a member of a `.b2z` store (a zip whose members are
/// stored uncompressed), is read in place through it.
///
/// ```
/// use std::io::{Cursor, Read, Seek, SeekFrom};
///
/// let mut window = metalayer::frame::Window::new(Cursor::new(b"..frame..".to_vec()), 2, 5)?;
/// let mut text = String::new();
/// window.read_to_string(&mut text)?;
/// assert_eq!(text, "frame");
/// assert_eq!(window.seek(SeekFrom::End(0))?, 5);
/// assert!(window.seek(SeekFrom::Current(-6)).is_err());
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct Window<R> {
    inner: R,
    start: u64,
    len: u64,
    /// The position in the window.
    pos: u64,
}

impl<R: Seek> Window<R> {
    /// The window over `start..start + len` of `inner`. An error when the range does not fit in
    /// a `u64`.
    pub fn new(inner: R, start: u64, len: u64) -> io::Result<Window<R>> {
        if start.checked_add(len).is_none() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("a window of {len} bytes at byte {start} ends past 2^64"),
            ));
        }
        Ok(Window {
            inner,
            start,
            len,
            pos: 0,
        })
    }

    /// The window's length.
    ///
    /// ```
    /// let window = metalayer::frame::Window::new(std::io::Cursor::new([0u8; 8]), 3, 4)?;
    /// assert_eq!(window.len(), 4);
    /// assert!(!window.is_empty());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the window holds no byte.
    ///
    /// ```
    /// let window = metalayer::frame::Window::new(std::io::Cursor::new([0u8; 8]), 8, 0)?;
    /// assert!(window.is_empty());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<R: Read + Seek> Read for Window<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.len.saturating_sub(self.pos);
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        if want == 0 {
            return Ok(0);
        }
        self.inner.seek(SeekFrom::Start(self.start.saturating_add(self.pos)))?;
        let n = self.inner.read(buf.get_mut(..want).unwrap_or_default())?;
        self.pos = self.pos.saturating_add(wide(n));
        Ok(n)
    }
}

impl<R: Seek> Seek for Window<R> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let (base, delta) = match to {
            SeekFrom::Start(at) => (at, 0),
            SeekFrom::End(delta) => (self.len, delta),
            SeekFrom::Current(delta) => (self.pos, delta),
        };
        let pos = base.checked_add_signed(delta).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "a seek before the window's start or past 2^64",
            )
        })?;
        self.pos = pos;
        Ok(pos)
    }
}

/// [`FrameBytes::open_at`].
pub fn read_frame_bytes_at(path: impl AsRef<Path>, offset: u64, len: u64) -> Result<FrameBytes, FrameError> {
    let path = path.as_ref();
    read_frame_bytes_file_at(&open_regular(path)?, path, offset, len)
}

/// [`read_metalayers`] of a frame stored in `path` at `offset`, `len` bytes long, as
/// [`read_frame_bytes_at`] reads it: only its header is read.
///
/// ```
/// let zip = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-stores/dictstore.b2z");
/// let metalayers = metalayer::frame::read_metalayers_at(zip, 1940, 607)?;
/// assert_eq!(metalayers[0].name, "b2nd");
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
pub fn read_metalayers_at(path: impl AsRef<Path>, offset: u64, len: u64) -> Result<Vec<FrameMetalayer>, FrameError> {
    let path = path.as_ref();
    let io_error = |source| FrameError::io(path, source);
    let mut window = open_window(path, offset, len, &io_error)?;
    read_metalayers_with(&mut window, &io_error, None)
}

/// Opens `path` and the window over `offset..offset + len` of it, which must lie in the file: the
/// lengths the frame reader checks are then the file's own.
pub(super) fn open_window(
    path: &Path,
    offset: u64,
    len: u64,
    io_error: &dyn Fn(io::Error) -> FrameError,
) -> Result<Window<File>, FrameError> {
    let file = open_regular(path)?;
    window_over(file, offset, len, io_error)
}

/// The window over `offset..offset + len` of `file`, which must lie in the file.
fn window_over<F: Read + Seek>(
    mut file: F,
    offset: u64,
    len: u64,
    io_error: &dyn Fn(io::Error) -> FrameError,
) -> Result<Window<F>, FrameError> {
    let file_len = file.seek(SeekFrom::End(0)).map_err(io_error)?;
    if offset.checked_add(len).is_none_or(|end| end > file_len) {
        return Err(io_error(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("{len} bytes at byte {offset} run past the end of the file ({file_len} bytes)"),
        )));
    }
    Window::new(file, offset, len).map_err(io_error)
}

/// [`Frame::read`].
pub fn read_frame_from<R: Read + Seek>(mut reader: R) -> Result<Frame, FrameError> {
    read_frame_with(&mut reader, &read_error, None)
}

/// [`read_metalayers`] on any reader that holds a frame from its first byte, reading only the
/// header. Io errors are [`FrameErrorKind::Read`].
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
    read_metalayers_with(&mut reader, &read_error, None)
}

/// How many of a stream's last bytes [`read_frame_stream`] keeps while it reads through a frame
/// to its trailer: 64 MiB. A trailer longer than this is an error
/// ([`FrameErrorKind::TrailerPastWindow`]).
///
/// ```
/// assert_eq!(metalayer::frame::STREAM_WINDOW, 64 << 20);
/// ```
pub const STREAM_WINDOW: usize = 64 << 20;

/// What [`read_frame_stream`] read of a frame.
#[derive(Debug)]
pub enum StreamFrame {
    /// Its header and its trailer, checked.
    Whole(FrameBytes),
    /// Its header: the trailer could not be read (the stream ends before `frame_len`, the
    /// trailer does not decode, or it is longer than [`STREAM_WINDOW`]).
    Header {
        /// The header's metalayers.
        metalayers: Vec<FrameMetalayer>,
        /// Why the trailer could not be read.
        trailer_error: FrameError,
    },
}

/// Reads a contiguous frame from a stream that cannot seek (stdin, a pipe), in bounded memory
/// whatever its length: the header, then the bytes through `frame_len`, of which only the last
/// [`STREAM_WINDOW`] are kept, where the trailer is. The chunks between are read and dropped;
/// nothing after `frame_len` is read. The header is parsed before anything after it is read: a
/// header that does not read is the error. Io errors are [`FrameErrorKind::Read`].
///
/// ```
/// use metalayer::frame::{StreamFrame, read_frame_stream};
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/strings.b2nd");
/// let mut bytes = std::fs::read(path).unwrap();
/// let frame_len = bytes.len();
/// bytes.extend_from_slice(b"next");
/// let mut stream = &bytes[..];
/// let StreamFrame::Whole(read) = read_frame_stream(&mut stream)? else { panic!("the frame reads") };
/// assert_eq!(read.frame()?.to_owned(), metalayer::frame::Frame::parse(&bytes[..frame_len])?);
/// assert_eq!(stream, b"next");
///
/// // A stream that ends before its trailer: the header, and why the trailer is not there.
/// let StreamFrame::Header { metalayers, trailer_error } = read_frame_stream(&bytes[..frame_len - 1])? else {
///     panic!("the header reads")
/// };
/// assert_eq!(metalayers[0].name, "b2nd");
/// assert!(trailer_error.to_string().contains("runs past the end of the input"), "{trailer_error}");
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
pub fn read_frame_stream<R: Read>(reader: R) -> Result<StreamFrame, FrameError> {
    read_stream_in(reader, STREAM_WINDOW)
}

/// [`read_frame_stream`] with a window of `window` bytes.
fn read_stream_in<R: Read>(mut reader: R, window: usize) -> Result<StreamFrame, FrameError> {
    let mut header = Vec::with_capacity(PREFIX_LEN);
    Read::by_ref(&mut reader)
        .take(wide(PREFIX_LEN))
        .read_to_end(&mut header)
        .map_err(read_error)?;
    let header_len = super::header_len(&header)?;
    let frame_len = super::frame_len(&header)?;
    let rest = header_len.saturating_sub(header.len());
    header.reserve_exact(rest);
    Read::by_ref(&mut reader)
        .take(wide(rest))
        .read_to_end(&mut header)
        .map_err(read_error)?;
    // A header that does not read ends the reading here.
    let header_len = header_bytes(&header, false)?.len();
    let metalayers = decode_header(&header)?.1.iter().map(MetalayerRef::to_owned).collect();
    let tail = Tail::read(&mut reader, frame_len.saturating_sub(wide(header_len)), window)?;
    match stream_trailer(&tail, header_len, frame_len) {
        Ok((trailer, trailer_offset)) => Ok(StreamFrame::Whole(FrameBytes {
            header,
            trailer,
            trailer_offset,
            frame_len,
            contents_from: None,
            contents_base: 0,
        })),
        Err(trailer_error) => Ok(StreamFrame::Header {
            metalayers,
            trailer_error,
        }),
    }
}

/// The trailer of a frame read from a stream, from the stream's last bytes after the header,
/// and its offset.
fn stream_trailer(tail: &Tail, header_len: usize, frame_len: u64) -> Result<(Vec<u8>, u64), FrameError> {
    let input_len = wide(header_len).saturating_add(tail.total);
    let tail_at = tail_at(header_len, frame_len, input_len, false)?;
    let last = tail.last(TRAILER_TAIL_LEN);
    let (trailer_offset, trailer_len) = trailer_place(&last, tail_at, header_len, frame_len)?;
    let len = usize::try_from(trailer_len).unwrap_or(usize::MAX);
    if len > tail.window {
        let kind = FrameErrorKind::TrailerPastWindow {
            trailer_len,
            window: tail.window,
        };
        return Err(FrameError::at(
            tail_at.saturating_add(1),
            Section::Trailer,
            Entry::Field("trailer_len"),
            kind,
        ));
    }
    let trailer = tail.last(len);
    decode_trailer(&trailer, trailer_offset, frame_len)?;
    Ok((trailer, trailer_offset))
}

/// The last bytes of a stream, at most `window` of them, kept in a ring as it is read.
struct Tail {
    /// The ring: `buf[start..]` then `buf[..start]` in stream order once it is full.
    buf: Vec<u8>,
    start: usize,
    window: usize,
    /// How many bytes were read in all.
    total: u64,
}

impl Tail {
    /// Reads up to `len` bytes of `reader` (fewer when it ends first), keeping the last
    /// `window`.
    fn read<R: Read>(reader: &mut R, len: u64, window: usize) -> Result<Tail, FrameError> {
        /// How much is read at a time.
        const STEP: usize = 1 << 20;
        let mut tail = Tail {
            buf: Vec::new(),
            start: 0,
            window,
            total: 0,
        };
        let mut left = len;
        while left > 0 {
            let step = usize::try_from(left).unwrap_or(usize::MAX).min(STEP);
            let held = tail.buf.len();
            let n = if held < window {
                // Filling: the buffer grows with what the stream holds, doubling up to the
                // window and never past it.
                let room = window.saturating_sub(held);
                let step = step.min(room);
                if tail.buf.capacity().saturating_sub(held) < step {
                    tail.buf.reserve_exact(held.max(step).min(room));
                }
                Read::by_ref(reader)
                    .take(wide(step))
                    .read_to_end(&mut tail.buf)
                    .map_err(read_error)?;
                tail.buf.len().saturating_sub(held)
            } else {
                // Full: the oldest bytes are overwritten.
                let end = tail.start.saturating_add(step).min(window);
                let n = match tail.buf.get_mut(tail.start..end) {
                    Some(part) => read_some(reader, part)?,
                    None => 0,
                };
                tail.start = tail.start.saturating_add(n);
                if tail.start >= window {
                    tail.start = 0;
                }
                n
            };
            if n == 0 {
                break;
            }
            tail.total = tail.total.saturating_add(wide(n));
            left = left.saturating_sub(wide(n));
        }
        Ok(tail)
    }

    /// The last `n` bytes kept (all of them when fewer are), in stream order.
    fn last(&self, n: usize) -> Vec<u8> {
        let (newer, older) = self.buf.split_at(self.start.min(self.buf.len()));
        let n = n.min(self.buf.len());
        let mut out = Vec::with_capacity(n);
        let from_older = n.saturating_sub(newer.len());
        out.extend_from_slice(older.get(older.len().saturating_sub(from_older)..).unwrap_or_default());
        let from_newer = n.saturating_sub(from_older);
        out.extend_from_slice(newer.get(newer.len().saturating_sub(from_newer)..).unwrap_or_default());
        out
    }
}

/// One read into `buf`, retried when interrupted; 0 at the stream's end.
fn read_some<R: Read>(reader: &mut R, buf: &mut [u8]) -> Result<usize, FrameError> {
    loop {
        match reader.read(buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            result => return result.map_err(read_error),
        }
    }
}

/// A reader's io error.
pub(super) fn read_error(source: io::Error) -> FrameError {
    FrameErrorKind::Read { source }.into()
}

/// A directory that is not a sparse frame.
fn not_sparse(path: &Path) -> FrameError {
    FrameErrorKind::NotSparseFrame {
        path: path.to_path_buf(),
    }
    .into()
}

// A test states what it expects by panicking otherwise.
#[cfg(test)]
#[allow(clippy::panic, clippy::indexing_slicing, clippy::arithmetic_side_effects)]
mod stream_tests {
    use std::string::ToString;

    use super::*;

    fn fixture(name: &str) -> Vec<u8> {
        let path = format!("{}/tests/fixtures/files/{name}", env!("CARGO_MANIFEST_DIR"));
        fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    #[test]
    fn any_window_that_holds_the_trailer_reads_the_frame() {
        let bytes = fixture("blosc2-2-vlmeta/bytes.b2nd");
        let whole = crate::frame::Frame::parse(&bytes).unwrap_or_else(|e| panic!("{e}"));
        let trailer_len = bytes.len() - usize::try_from(whole.trailer.offset).unwrap_or(0);
        let after_header = bytes.len() - whole.header.header_len;
        // Windows that wrap the ring at many places, the trailer's length exactly, and more
        // than the stream holds.
        let windows = (0..40)
            .map(|i| trailer_len + i * 7)
            .chain([after_header, after_header + 1, 1 << 20]);
        for window in windows {
            match read_stream_in(&bytes[..], window) {
                Ok(StreamFrame::Whole(read)) => {
                    let frame = read.frame().unwrap_or_else(|e| panic!("{e}"));
                    assert_eq!(frame.to_owned(), whole, "window {window}");
                }
                other => panic!("window {window}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_trailer_longer_than_the_window_is_an_error_naming_it() {
        let bytes = fixture("blosc2-2-vlmeta/bytes.b2nd");
        let whole = crate::frame::Frame::parse(&bytes).unwrap_or_else(|e| panic!("{e}"));
        let trailer_len = bytes.len() - usize::try_from(whole.trailer.offset).unwrap_or(0);
        let Ok(StreamFrame::Header {
            metalayers,
            trailer_error,
        }) = read_stream_in(&bytes[..], trailer_len - 1)
        else {
            panic!("the header reads");
        };
        assert_eq!(metalayers, whole.metalayers);
        assert!(
            matches!(
                trailer_error.kind(),
                FrameErrorKind::TrailerPastWindow { trailer_len: t, window } if *t as usize == trailer_len && *window == trailer_len - 1
            ),
            "{trailer_error}"
        );
        assert!(
            trailer_error.to_string().contains(&format!(
                "trailer_len {trailer_len} is larger than the 0 MiB of a stream's end"
            )),
            "{trailer_error}"
        );
    }

    #[test]
    fn a_stream_that_ends_early_gives_its_length() {
        let bytes = fixture("blosc2-4/dtype_i4le.b2nd");
        let Ok(StreamFrame::Header { trailer_error, .. }) = read_stream_in(&bytes[..bytes.len() - 3], 64) else {
            panic!("the header reads");
        };
        assert!(
            trailer_error
                .to_string()
                .ends_with(&format!("runs past the end of the input ({} bytes)", bytes.len() - 3)),
            "{trailer_error}"
        );
    }
}
