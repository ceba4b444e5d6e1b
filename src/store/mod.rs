//! python-blosc2's stores, opened and listed: a `.b2z` (DictStore, TreeStore or CTable written
//! as one zip of stored frames), a `.b2d` (the same members as files of a directory), and an
//! EmbedStore (`embed.b2e`, a frame whose data holds whole frames). Each lists its members with
//! their places, and reads each member's frame in place.
//!
//! - [`Store::open`] tells the three apart: a directory is a `.b2d`; a file that starts with the
//!   zip magic, a `.b2z`; a frame marked [`EMBED_STORE_MARKERS`], an EmbedStore.
//! - [`Store::entries`] lists the members, in name order for `.b2z` and `.b2d` (components
//!   compared one by one, as a directory walk orders files), in stored order for an EmbedStore.
//!   A member that cannot be read in place is an [`Entry::Refused`], and the others are still
//!   listed.
//! - [`Store::read_frame`] reads a member's frame: its header and trailer, in place.
//! - With the feature `edit`, `edit::edit_member` edits one member of a `.b2z`, rewriting the
//!   zip under its lock.
//!
//! A `.b2z` is read through one open file: its end record, the central directory, and each
//! member's local header; nothing else until a frame is read. [`zip`] holds the records, typed.
//! An EmbedStore's `estore_metadata` ([`EmbedMap`]) is read from its msgpack, and its data (its
//! chunks, decompressed within [`DATA_LIMIT`]) when it has keys.
//!
//! Every length and offset is checked before anything is read or held by it, and every error
//! names the store's path and the byte offset of what is wrong.
//!
//! ```
//! use metalayer::store::{Entry, Place, Store, StoreKind};
//!
//! let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-3-stores");
//! let store = Store::open(format!("{dir}/dictstore.b2z"))?;
//! assert_eq!(store.kind(), StoreKind::Zip);
//! let names: Vec<&str> = store.members().map(|m| m.name.as_str()).collect();
//! assert_eq!(names, ["big.b2nd", "dir/big_sc.b2f", "dir/deeper/f8.b2nd", "embed.b2e"]);
//!
//! // Each member's frame, read in place: `big.b2nd` is 607 bytes at byte 1940 of the zip.
//! let big = store.members().next().unwrap();
//! assert_eq!(big.place, Place::Zip { header_offset: 1902, offset: 1940, len: 607 });
//! assert_eq!(store.read_frame(big)?.frame()?.metalayers[0].name, "b2nd");
//!
//! // The EmbedStore member holds frames of its own.
//! let embed = store.members().find(|m| m.name == "embed.b2e").unwrap();
//! let held = store.open_embed_store(embed)?;
//! let keys: Vec<&str> = held.members().map(|m| m.name.as_str()).collect();
//! assert_eq!(keys, ["/small", "/dir/sc"]);
//! assert_eq!(held.read_frame(held.members().next().unwrap())?.frame()?.header.frame_len, 259);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

// The readers index nothing directly and do no unchecked arithmetic: no input makes them panic.
#![deny(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::panic,
    clippy::unwrap_used,
    clippy::expect_used
)]

#[cfg(feature = "edit")]
pub mod edit;
mod embed;
pub mod zip;

use std::fmt;
use std::format;
use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::prelude::rust_2024::*;

pub use embed::{DATA_LIMIT, EMBED_METADATA, EMBED_STORE_MARKERS, EmbedKey, EmbedMap, EmbedMapError, is_embed_store};

use crate::frame::{self, FrameBytes, FrameError, Window};
use zip::{Archive, ZipError};

/// The extension of python-blosc2's zip stores.
///
/// ```
/// assert_eq!(metalayer::store::ZIP_STORE_EXTENSION, "b2z");
/// ```
pub const ZIP_STORE_EXTENSION: &str = "b2z";

/// The extension of python-blosc2's directory stores.
pub const DIR_STORE_EXTENSION: &str = "b2d";

/// The name of a store's EmbedStore member.
pub const EMBED_STORE_FILE: &str = "embed.b2e";

/// The first bytes of every frame: msgpack fixarray(14), then fixstr(8) `"b2frame\0"`.
///
/// ```
/// assert_eq!(&metalayer::store::FRAME_MAGIC[2..], b"b2frame\0");
/// ```
pub const FRAME_MAGIC: [u8; 10] = *b"\x9e\xa8b2frame\0";

/// The file that makes a directory a sparse frame.
pub const SPARSE_HEADER_FILE: &str = "chunks.b2frame";

/// A member's name as shown: not UTF-8 bytes and control characters (DEL included) replaced by
/// U+FFFD.
///
/// ```
/// assert_eq!(metalayer::store::shown_name(b"a\x7fb\xff/c"), "a\u{fffd}b\u{fffd}/c");
/// ```
pub fn shown_name(raw: &[u8]) -> String {
    String::from_utf8_lossy(raw)
        .chars()
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect()
}

/// Whether a file is a zip store: its name ends in `.b2z` and its first bytes are the zip
/// magic; with `by_name_or_magic`, either is enough (a path given by a user, rather than met in
/// a walk).
///
/// ```
/// use metalayer::store::is_zip_store;
/// use std::path::Path;
///
/// assert!(is_zip_store(Path::new("a.B2Z"), b"PK\x03\x04", false));
/// assert!(!is_zip_store(Path::new("a.zip"), b"PK\x03\x04", false));
/// assert!(is_zip_store(Path::new("a.zip"), b"PK\x03\x04", true));
/// ```
pub fn is_zip_store(path: &Path, first: &[u8], by_name_or_magic: bool) -> bool {
    let named = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(ZIP_STORE_EXTENSION));
    let zip = first.starts_with(&zip::ZIP_MAGIC);
    if by_name_or_magic { named || zip } else { named && zip }
}

/// Which kind of store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StoreKind {
    /// A `.b2z`: a zip of stored frames.
    Zip,
    /// A `.b2d`: a directory of frame files.
    Dir,
    /// An EmbedStore: a frame whose data holds frames.
    Embed,
}

/// Where a member's frame lies.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Place {
    /// `len` bytes at `offset` of a `.b2z` file; its local header at `header_offset`.
    Zip {
        /// Where its local header starts.
        header_offset: u64,
        /// Where its frame starts.
        offset: u64,
        /// The frame's length.
        len: u64,
    },
    /// A contiguous frame file of a `.b2d`, `len` bytes long.
    File {
        /// The file.
        path: PathBuf,
        /// Its length.
        len: u64,
    },
    /// A sparse-frame directory of a `.b2d`.
    Sparse {
        /// The directory.
        path: PathBuf,
    },
    /// `len` bytes at `offset` of an EmbedStore's data (its chunks, decompressed).
    Data {
        /// Where its frame starts in the data.
        offset: u64,
        /// The frame's length.
        len: u64,
    },
}

impl Place {
    /// The offset of the frame's first byte: in the zip file, in the EmbedStore's data, or 0 in
    /// a file of its own.
    pub fn offset(&self) -> u64 {
        match self {
            Place::Zip { offset, .. } | Place::Data { offset, .. } => *offset,
            Place::File { .. } | Place::Sparse { .. } => 0,
        }
    }

    /// The frame's length (none for a sparse frame, whose chunks are files of their own).
    #[allow(
        clippy::len_without_is_empty,
        reason = "a frame is never empty; the length is of where it lies"
    )]
    pub fn len(&self) -> Option<u64> {
        match self {
            Place::Zip { len, .. } | Place::Data { len, .. } | Place::File { len, .. } => Some(*len),
            Place::Sparse { .. } => None,
        }
    }
}

/// A member of a store: its name and where its frame lies.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Member {
    /// Its name as stored: a zip entry's name, a path below a `.b2d` (components joined by
    /// `/`), an EmbedStore's key (`/dir/name`).
    pub raw_name: Vec<u8>,
    /// Its name as shown ([`shown_name`]).
    pub name: String,
    /// Where its frame lies.
    pub place: Place,
}

/// What a store lists for one of its names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A member whose frame can be read in place.
    Member(Member),
    /// A member that cannot be read in place, and why (the message names the byte offset).
    Refused {
        /// Its name as stored.
        raw_name: Vec<u8>,
        /// Its name as shown.
        name: String,
        /// Why.
        message: String,
    },
}

impl Entry {
    /// The name as shown.
    pub fn name(&self) -> &str {
        match self {
            Entry::Member(m) => &m.name,
            Entry::Refused { name, .. } => name,
        }
    }

    /// The name as stored.
    pub fn raw_name(&self) -> &[u8] {
        match self {
            Entry::Member(m) => &m.raw_name,
            Entry::Refused { raw_name, .. } => raw_name,
        }
    }

    /// The member, if it can be read.
    pub fn member(&self) -> Option<&Member> {
        match self {
            Entry::Member(m) => Some(m),
            Entry::Refused { .. } => None,
        }
    }
}

/// Why a store could not be opened or read.
#[derive(Debug)]
#[non_exhaustive]
pub enum StoreErrorKind {
    /// The path could not be read.
    Io(io::Error),
    /// The zip's structure is not what it claims.
    Zip(ZipError),
    /// The EmbedStore's frame does not read.
    Frame(FrameError),
    /// The EmbedStore's `estore_metadata` does not read: its `embed_map` is lost otherwise.
    EmbedMap {
        /// Where the `estore_metadata` vlmetalayer's content (a Blosc2 chunk) starts in the
        /// frame.
        vlmeta_offset: u64,
        /// What is wrong, and at which byte of its msgpack.
        error: EmbedMapError,
    },
    /// The EmbedStore's data does not read (the message names the byte of the frame).
    Data(String),
    /// The path is none of the three stores.
    NotAStore,
}

/// Why a store could not be opened or read: its path and what went wrong.
#[derive(Debug)]
pub struct StoreError {
    path: PathBuf,
    kind: Box<StoreErrorKind>,
}

impl StoreError {
    fn new(path: &Path, kind: StoreErrorKind) -> StoreError {
        StoreError {
            path: path.to_path_buf(),
            kind: Box::new(kind),
        }
    }

    /// The store's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What went wrong.
    pub fn kind(&self) -> &StoreErrorKind {
        &self.kind
    }

    /// What went wrong, owned.
    pub fn into_kind(self) -> StoreErrorKind {
        *self.kind
    }

    /// The byte offset of what is wrong, where one is known: in the zip file, or in the
    /// `estore_metadata`'s msgpack.
    pub fn offset(&self) -> Option<u64> {
        match &*self.kind {
            StoreErrorKind::Zip(e) => e.offset(),
            StoreErrorKind::Frame(e) => e.offset(),
            StoreErrorKind::EmbedMap { error, .. } => u64::try_from(error.at).ok(),
            _ => None,
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match &*self.kind {
            StoreErrorKind::Io(e) => write!(f, "cannot read {path}: {e}"),
            StoreErrorKind::Zip(e) => write!(f, "{path}: {e}"),
            StoreErrorKind::Frame(e) => write!(f, "{path}: {e}"),
            StoreErrorKind::EmbedMap { vlmeta_offset, error } => write!(
                f,
                "{path}: {EMBED_METADATA}, the vlmetalayer at byte {vlmeta_offset}: at byte {} of its msgpack: {}; \
                 the frames it places cannot be found",
                error.at, error.message
            ),
            StoreErrorKind::Data(message) => write!(f, "{path}: {message}"),
            StoreErrorKind::NotAStore => write!(
                f,
                "{path}: not a store (a .b2z zip, a .b2d directory, or a frame marked b2embed, b2dict or b2tree)"
            ),
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &*self.kind {
            StoreErrorKind::Io(e) => Some(e),
            StoreErrorKind::Zip(e) => Some(e),
            StoreErrorKind::Frame(e) => Some(e),
            StoreErrorKind::EmbedMap { error, .. } => Some(error),
            StoreErrorKind::Data(_) | StoreErrorKind::NotAStore => None,
        }
    }
}

/// Where an EmbedStore's frame is read from.
#[derive(Debug)]
enum EmbedSource {
    /// A file of its own.
    File,
    /// `len` bytes at `offset` of the store's file.
    InZip { offset: u64, len: u64 },
}

/// What a store holds besides its entries.
#[derive(Debug)]
enum Inner {
    /// The zip, open; its central directory.
    Zip {
        file: File,
        archive: Archive,
    },
    Dir,
    /// The EmbedStore's data, its chunks decompressed.
    Embed {
        data: Vec<u8>,
        map: EmbedMap,
    },
}

/// An open store: its kind, path and entries.
#[derive(Debug)]
pub struct Store {
    path: PathBuf,
    entries: Vec<Entry>,
    inner: Inner,
}

impl Store {
    /// Opens the store at `path`: a directory is a `.b2d`; a file that starts with the zip magic,
    /// a `.b2z`; a frame marked [`EMBED_STORE_MARKERS`], an EmbedStore.
    pub fn open(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        let path = path.as_ref();
        let meta = fs::metadata(path).map_err(|e| StoreError::new(path, StoreErrorKind::Io(e)))?;
        if meta.is_dir() {
            return Store::open_dir(path);
        }
        let mut first = Vec::new();
        File::open(path)
            .and_then(|f| f.take(10).read_to_end(&mut first))
            .map_err(|e| StoreError::new(path, StoreErrorKind::Io(e)))?;
        if first.starts_with(&zip::ZIP_MAGIC) {
            Store::open_zip(path)
        } else {
            Store::open_embed(path)
        }
    }

    /// Opens the `.b2z` at `path`, whatever its name: its central directory and each member's
    /// local header are read; `Err` when the zip's structure cannot be read.
    ///
    /// ```
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-stores/treestore.b2z");
    /// let store = metalayer::store::Store::open_zip(path)?;
    /// assert!(store.members().all(|m| m.place.len().is_some()));
    /// # Ok::<(), metalayer::store::StoreError>(())
    /// ```
    pub fn open_zip(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        let path = path.as_ref();
        let io = |e| StoreError::new(path, StoreErrorKind::Zip(ZipError::Io(e)));
        let zip_error = |e| StoreError::new(path, StoreErrorKind::Zip(e));
        let mut file = File::open(path).map_err(io)?;
        let archive = Archive::read(&mut file).map_err(zip_error)?;
        let mut entries = Vec::new();
        for entry in &archive.entries {
            if entry.name.ends_with(b"/") {
                continue;
            }
            let name = entry.shown_name();
            entries.push(match archive.locate(&mut file, entry).map_err(io)? {
                Ok(at) => Entry::Member(Member {
                    raw_name: entry.name.clone(),
                    name,
                    place: Place::Zip {
                        header_offset: at.header_offset,
                        offset: at.offset,
                        len: at.size,
                    },
                }),
                Err(message) => Entry::Refused {
                    raw_name: entry.name.clone(),
                    name,
                    message,
                },
            });
        }
        entries.sort_by(|a, b| {
            a.raw_name()
                .split(|&c| c == b'/')
                .cmp(b.raw_name().split(|&c| c == b'/'))
        });
        Ok(Store {
            path: path.to_path_buf(),
            entries,
            inner: Inner::Zip { file, archive },
        })
    }

    /// Opens the `.b2d` directory at `path`: its contiguous frame files (files that start with
    /// [`FRAME_MAGIC`]) and its sparse-frame directories, found below it; symbolic links and
    /// other files are left out.
    ///
    /// ```
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-stores/dictstore.b2d");
    /// let store = metalayer::store::Store::open_dir(path)?;
    /// let names: Vec<&str> = store.members().map(|m| m.name.as_str()).collect();
    /// assert!(names.contains(&"embed.b2e"));
    ///
    /// // A sparse-frame directory is a frame, not a store.
    /// let sparse = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/sparse_meta.b2nd");
    /// assert!(metalayer::store::Store::open(sparse).is_err());
    /// # Ok::<(), metalayer::store::StoreError>(())
    /// ```
    pub fn open_dir(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        let path = path.as_ref();
        // A sparse frame is one frame, not a store of them.
        if fs::metadata(path.join(SPARSE_HEADER_FILE)).is_ok_and(|m| m.is_file()) {
            return Err(StoreError::new(path, StoreErrorKind::NotAStore));
        }
        let mut entries = Vec::new();
        // Each directory's names, sorted, on a stack: depth first, in name order.
        let mut stack: Vec<(Vec<u8>, PathBuf)> = vec![(Vec::new(), path.to_path_buf())];
        while let Some((prefix, dir)) = stack.pop() {
            let io = |e| StoreError::new(&dir, StoreErrorKind::Io(e));
            let mut names: Vec<(std::ffi::OsString, fs::FileType)> = Vec::new();
            for item in fs::read_dir(&dir).map_err(io)? {
                let item = item.map_err(io)?;
                names.push((item.file_name(), item.file_type().map_err(io)?));
            }
            names.sort_by(|a, b| a.0.cmp(&b.0));
            let mut below = Vec::new();
            for (file_name, kind) in names {
                let child = dir.join(&file_name);
                let mut raw = prefix.clone();
                if !raw.is_empty() {
                    raw.push(b'/');
                }
                raw.extend_from_slice(&os_bytes(&file_name));
                if kind.is_dir() {
                    if fs::metadata(child.join(SPARSE_HEADER_FILE)).is_ok_and(|m| m.is_file()) {
                        entries.push(Entry::Member(Member {
                            name: shown_name(&raw),
                            raw_name: raw,
                            place: Place::Sparse { path: child },
                        }));
                    } else {
                        below.push((raw, child));
                    }
                } else if kind.is_file() {
                    let mut first = Vec::new();
                    let read = File::open(&child).and_then(|f| {
                        let len = f.metadata()?.len();
                        f.take(10).read_to_end(&mut first)?;
                        Ok(len)
                    });
                    match read {
                        Ok(len) if first == FRAME_MAGIC => entries.push(Entry::Member(Member {
                            name: shown_name(&raw),
                            raw_name: raw,
                            place: Place::File { path: child, len },
                        })),
                        Ok(_) => {}
                        Err(e) => entries.push(Entry::Refused {
                            name: shown_name(&raw),
                            raw_name: raw,
                            message: format!("cannot read {}: {e}", child.display()),
                        }),
                    }
                }
            }
            // Popped in name order.
            stack.extend(below.into_iter().rev());
        }
        entries.sort_by(|a, b| {
            a.raw_name()
                .split(|&c| c == b'/')
                .cmp(b.raw_name().split(|&c| c == b'/'))
        });
        Ok(Store {
            path: path.to_path_buf(),
            entries,
            inner: Inner::Dir,
        })
    }

    /// Opens the EmbedStore whose frame is the file `path`: its `estore_metadata` read, and,
    /// when it places frames, its data. An `estore_metadata` that does not read is an error
    /// naming the byte of its msgpack; a frame without one holds no frames.
    ///
    /// ```
    /// use metalayer::store::{Place, Store};
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-3-stores/dictstore.b2d/embed.b2e");
    /// let store = Store::open_embed(path)?;
    /// let places: Vec<(&str, &Place)> = store.members().map(|m| (m.name.as_str(), &m.place)).collect();
    /// assert_eq!(places, [
    ///     ("/small", &Place::Data { offset: 0, len: 259 }),
    ///     ("/dir/sc", &Place::Data { offset: 259, len: 212 }),
    /// ]);
    /// # Ok::<(), metalayer::store::StoreError>(())
    /// ```
    pub fn open_embed(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        let path = path.as_ref();
        let file = frame::open_regular(path).map_err(|e| StoreError::new(path, StoreErrorKind::Frame(e)))?;
        Store::embed_from(path, file, EmbedSource::File)
    }

    /// Opens the EmbedStore whose frame is `len` bytes at `offset` of the file `file` (a member
    /// of a `.b2z`), named `path` in errors and member paths (`store.b2z/embed.b2e`). The range
    /// must lie in the file.
    ///
    /// ```
    /// use metalayer::store::Store;
    ///
    /// let zip = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-3-stores/dictstore.b2z");
    /// // embed.b2e: 882 bytes at byte 2586 (python's zipfile says so).
    /// let store = Store::open_embed_in(zip, 2586, 882, format!("{zip}/embed.b2e"))?;
    /// assert_eq!(store.members().count(), 2);
    /// assert!(Store::open_embed_in(zip, 2586, 1 << 40, "x").is_err());
    /// # Ok::<(), metalayer::store::StoreError>(())
    /// ```
    pub fn open_embed_in(
        file: impl AsRef<Path>,
        offset: u64,
        len: u64,
        path: impl Into<PathBuf>,
    ) -> Result<Store, StoreError> {
        let path = path.into();
        let opened =
            frame::open_regular(file.as_ref()).map_err(|e| StoreError::new(&path, StoreErrorKind::Frame(e)))?;
        let file_len = opened
            .metadata()
            .map_err(|e| StoreError::new(&path, StoreErrorKind::Io(e)))?
            .len();
        if offset.checked_add(len).is_none_or(|end| end > file_len) {
            return Err(StoreError::new(
                &path,
                StoreErrorKind::Io(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("{len} bytes at byte {offset} run past the end of the file ({file_len} bytes)"),
                )),
            ));
        }
        Store::embed_from(&path, opened, EmbedSource::InZip { offset, len })
    }

    /// Opens the EmbedStore `member` of this store (a `.b2z`'s or a `.b2d`'s `embed.b2e`).
    pub fn open_embed_store(&self, member: &Member) -> Result<Store, StoreError> {
        match (&member.place, &self.inner) {
            (Place::Zip { offset, len, .. }, Inner::Zip { file, .. }) => {
                let file = file
                    .try_clone()
                    .map_err(|e| StoreError::new(&self.path, StoreErrorKind::Io(e)))?;
                Store::embed_from(
                    &self.member_path(member),
                    file,
                    EmbedSource::InZip {
                        offset: *offset,
                        len: *len,
                    },
                )
            }
            (Place::File { path, .. }, _) => Store::open_embed(path),
            _ => Err(StoreError::new(&self.member_path(member), StoreErrorKind::NotAStore)),
        }
    }

    fn embed_from(path: &Path, file: File, source: EmbedSource) -> Result<Store, StoreError> {
        let frame_error = |e| StoreError::new(path, StoreErrorKind::Frame(e));
        let (offset, len) = match source {
            EmbedSource::File => (
                0,
                file.metadata()
                    .map_err(|e| StoreError::new(path, StoreErrorKind::Io(e)))?
                    .len(),
            ),
            EmbedSource::InZip { offset, len } => (offset, len),
        };
        let mut window = Window::new(&file, offset, len).map_err(|e| StoreError::new(path, StoreErrorKind::Io(e)))?;
        let frame = frame::Frame::read(&mut window).map_err(frame_error)?;
        if !is_embed_store(frame.metalayers.iter().map(|m| &m.name)) {
            return Err(StoreError::new(path, StoreErrorKind::NotAStore));
        }
        let map = match embed::map_of(&frame) {
            Ok(map) => map.unwrap_or_default(),
            Err(embed::DataError::Frame(message)) => return Err(StoreError::new(path, StoreErrorKind::Data(message))),
            Err(embed::DataError::Map(error, vlmeta_offset)) => {
                return Err(StoreError::new(path, StoreErrorKind::EmbedMap { vlmeta_offset, error }));
            }
        };
        let data = if map.keys.is_empty() {
            Vec::new()
        } else {
            embed::data(&mut window, &frame).map_err(|m| StoreError::new(path, StoreErrorKind::Data(m)))?
        };
        let data_len = u64::try_from(data.len()).unwrap_or(u64::MAX);
        let entries = map
            .keys
            .iter()
            .map(|key| {
                let refused = |message| Entry::Refused {
                    raw_name: key.raw_key.clone(),
                    name: key.key.clone(),
                    message,
                };
                match &key.place {
                    Ok((offset, len)) if offset.checked_add(*len).is_some_and(|end| end <= data_len) => {
                        Entry::Member(Member {
                            raw_name: key.raw_key.clone(),
                            name: key.key.clone(),
                            place: Place::Data {
                                offset: *offset,
                                len: *len,
                            },
                        })
                    }
                    Ok((offset, len)) => refused(format!(
                        "{EMBED_METADATA} places {} at byte {offset}, {len} bytes, past the end of {}'s data ({data_len} bytes)",
                        key.key,
                        path.display()
                    )),
                    Err(message) => refused(format!(
                        "{EMBED_METADATA} of {}: the place of {}: {message}",
                        path.display(),
                        key.key
                    )),
                }
            })
            .collect();
        Ok(Store {
            path: path.to_path_buf(),
            entries,
            inner: Inner::Embed { data, map },
        })
    }

    /// The store's path (for an EmbedStore in a zip, `store.b2z/embed.b2e`).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Which kind of store this is.
    pub fn kind(&self) -> StoreKind {
        match self.inner {
            Inner::Zip { .. } => StoreKind::Zip,
            Inner::Dir => StoreKind::Dir,
            Inner::Embed { .. } => StoreKind::Embed,
        }
    }

    /// Every entry, members and refused ones.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The members whose frames can be read.
    pub fn members(&self) -> impl Iterator<Item = &Member> {
        self.entries.iter().filter_map(Entry::member)
    }

    /// The path of a member: the store's path, `/` and its name (an EmbedStore's keys start with
    /// `/` already).
    pub fn member_path(&self, member: &Member) -> PathBuf {
        self.entry_path(&member.raw_name)
    }

    /// The path of the entry named `raw_name` (a member's, or a refused entry's): the store's
    /// path, `/` and the name.
    ///
    /// ```
    /// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-stores");
    /// let store = metalayer::store::Store::open(format!("{dir}/dictstore.b2z"))?;
    /// assert_eq!(store.entry_path(b"dir/x.b2nd"), std::path::Path::new(&format!("{dir}/dictstore.b2z/dir/x.b2nd")));
    /// # Ok::<(), metalayer::store::StoreError>(())
    /// ```
    pub fn entry_path(&self, raw_name: &[u8]) -> PathBuf {
        let mut path = self.path.as_os_str().to_owned();
        if !raw_name.starts_with(b"/") {
            path.push("/");
        }
        path.push(os_str(raw_name));
        PathBuf::from(path)
    }

    /// A `.b2z`'s central directory.
    pub fn archive(&self) -> Option<&Archive> {
        match &self.inner {
            Inner::Zip { archive, .. } => Some(archive),
            _ => None,
        }
    }

    /// An EmbedStore's `embed_map`.
    pub fn embed_map(&self) -> Option<&EmbedMap> {
        match &self.inner {
            Inner::Embed { map, .. } => Some(map),
            _ => None,
        }
    }

    /// An EmbedStore's data: its chunks, decompressed (empty when it places no frame).
    pub fn data(&self) -> Option<&[u8]> {
        match &self.inner {
            Inner::Embed { data, .. } => Some(data),
            _ => None,
        }
    }

    /// Reads `member`'s frame, its header and trailer, in place.
    pub fn read_frame(&self, member: &Member) -> Result<FrameBytes, FrameError> {
        match (&member.place, &self.inner) {
            (Place::Zip { offset, len, .. }, Inner::Zip { file, .. }) => {
                frame::read_frame_bytes_file_at(file, &self.path, *offset, *len)
            }
            (Place::File { path, .. } | Place::Sparse { path }, _) => frame::FrameBytes::open(path),
            (Place::Data { offset, len }, Inner::Embed { data, .. }) => {
                let bytes = usize::try_from(*offset)
                    .ok()
                    .zip(usize::try_from(*len).ok())
                    .and_then(|(at, n)| data.get(at..at.checked_add(n)?))
                    .unwrap_or_default();
                FrameBytes::from_frame(bytes)
            }
            _ => Err(FrameError::io(
                self.member_path(member),
                io::Error::new(io::ErrorKind::InvalidInput, "the member is not of this store"),
            )),
        }
    }
}

#[cfg(unix)]
fn os_bytes(name: &std::ffi::OsStr) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    name.as_bytes().to_vec()
}

#[cfg(not(unix))]
fn os_bytes(name: &std::ffi::OsStr) -> Vec<u8> {
    name.to_string_lossy().as_bytes().to_vec()
}

#[cfg(unix)]
fn os_str(raw: &[u8]) -> std::ffi::OsString {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::OsStr::from_bytes(raw).to_owned()
}

#[cfg(not(unix))]
fn os_str(raw: &[u8]) -> std::ffi::OsString {
    String::from_utf8_lossy(raw).into_owned().into()
}
