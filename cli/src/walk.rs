//! Which frames `metalayer inspect` reads: the paths given, with directories walked.
//!
//! [`frames`] turns the command's arguments into a lazy sequence of [`Found`] items, one at a
//! time, so that memory does not grow with the number of files:
//!
//! - `-` is one contiguous frame read from stdin, through its chunks to its trailer, keeping
//!   only the header and the stream's last [`frame::STREAM_WINDOW`] bytes;
//! - a directory holding a `chunks.b2frame` file is one sparse frame, not walked into;
//! - any other directory is walked recursively, each directory's entries in file-name order
//!   (byte order on Unix). Files that start with the frame magic are contiguous frames, whatever
//!   their name; sparse-frame directories met on the way are frames; other files, and symbolic
//!   links unless `follow` is set, are skipped without a word;
//! - a `.b2z` store (python-blosc2's DictStore, TreeStore or CTable as one zip file) is the
//!   frames of its members (`metalayer::store`), each read in place and named
//!   `store.b2z/member.b2nd`, in name order. A walk takes a file for a store when its name ends in
//!   `.b2z` *and* it starts with the zip magic `PK\x03\x04` (other zip files are skipped, like
//!   other files); a file given as an argument is a store when its name ends in `.b2z` *or* it
//!   starts with the zip magic;
//! - any other path is always inspected: a regular file with the frame reader (a file that is not
//!   a frame is an error for that path), a pipe or device (`<(cat a.b2nd)`) as a stream.
//!
//! A directory or file that cannot be read during the walk is a [`Found::Error`]; the walk goes
//! on.

use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use metalayer::frame::{self, FrameError, StreamFrame};
pub use metalayer::report::Reading;
use walkdir::WalkDir;

use crate::output::chain;
use metalayer::store::{self, Entry, Store};

/// The first bytes of every frame, and the file that makes a directory a sparse frame.
pub use metalayer::store::{FRAME_MAGIC, SPARSE_HEADER_FILE};

/// Where one frame is read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Standard input (`-`): a contiguous frame, read through `frame_len`.
    Stdin,
    /// A contiguous frame file, or a path given as an argument that is not a directory (it may
    /// not exist: reading it reports why).
    File(PathBuf),
    /// A sparse-frame directory.
    Sparse(PathBuf),
    /// A pipe or device given as an argument: read as a stream, like stdin.
    Stream(PathBuf),
    /// A member of a `.b2z` store: a frame read in place in the zip file.
    Member {
        /// `store.b2z/member.b2nd`.
        path: PathBuf,
        /// The zip file.
        store: PathBuf,
        /// Where the member's frame starts in the zip file.
        offset: u64,
        /// Its length.
        len: u64,
    },
}

impl Source {
    /// The path as the JSON output names it: `-` for stdin.
    pub fn path(&self) -> &Path {
        match self {
            Source::Stdin => Path::new("-"),
            Source::File(path) | Source::Sparse(path) | Source::Stream(path) | Source::Member { path, .. } => path,
        }
    }

    /// How text and error messages name the frame: `<stdin>` for stdin, else the path (not
    /// UTF-8 bytes replaced by U+FFFD).
    pub fn shown(&self) -> String {
        match self {
            Source::Stdin => "<stdin>".to_owned(),
            other => other.path().display().to_string(),
        }
    }

    /// Where a store's member lies, for messages: `the member at byte N of store.b2z`.
    pub fn place(&self) -> Option<String> {
        match self {
            Source::Member { store, offset, .. } => Some(format!("the member at byte {offset} of {}", store.display())),
            _ => None,
        }
    }

    /// Whether this is a sparse-frame directory.
    pub fn is_sparse(&self) -> bool {
        matches!(self, Source::Sparse(_))
    }

    /// Reads the frame's header and trailer, or, when the trailer cannot be read, its header.
    pub fn read(&self) -> Result<Reading, FrameError> {
        match self {
            Source::Stdin => read_stream(io::stdin().lock()),
            Source::File(path) | Source::Sparse(path) => read_path(path),
            Source::Member { store, offset, len, .. } => match frame::FrameBytes::open_at(store, *offset, *len) {
                Ok(bytes) => Ok(Reading::Bytes(bytes)),
                Err(trailer_error) => match frame::read_metalayers_at(store, *offset, *len) {
                    Ok(metalayers) => Ok(Reading::Header {
                        metalayers,
                        trailer_error,
                    }),
                    Err(_) => Err(trailer_error),
                },
            },
            Source::Stream(path) => {
                let file = File::open(path).map_err(|source| FrameError::io(path.clone(), source))?;
                read_stream(file)
            }
        }
    }
}

/// Reads a frame file or sparse-frame directory: its header and trailer, and nothing between
/// them. When that fails and the header alone reads, the header's metalayers and the error.
fn read_path(path: &Path) -> Result<Reading, FrameError> {
    match frame::FrameBytes::open(path) {
        Ok(bytes) => Ok(Reading::Bytes(bytes)),
        // The header is read first: when it reads again, the trailer is what failed.
        Err(trailer_error) => match frame::read_metalayers(path) {
            Ok(metalayers) => Ok(Reading::Header {
                metalayers,
                trailer_error,
            }),
            Err(_) => Err(trailer_error),
        },
    }
}

/// One item of the sequence [`frames`] yields.
#[derive(Debug)]
pub enum Found {
    /// A frame to read.
    Frame(Source),
    /// A path the walk could not read, and why (the message names the path).
    Error {
        /// The directory or file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

/// Reads a contiguous frame from a stream with [`frame::read_frame_stream`]: its header, then
/// the bytes through `frame_len`, of which only the last [`frame::STREAM_WINDOW`] are kept
/// (where the trailer is), so that memory stays bounded whatever the stream's length; nothing
/// after `frame_len` is read.
pub fn read_stream(reader: impl Read) -> Result<Reading, FrameError> {
    match frame::read_frame_stream(reader)? {
        StreamFrame::Whole(bytes) => Ok(Reading::Bytes(bytes)),
        StreamFrame::Header {
            metalayers,
            trailer_error,
        } => Ok(Reading::Header {
            metalayers,
            trailer_error,
        }),
    }
}

/// Whether `dir` holds a `chunks.b2frame` file, which makes it a sparse frame.
fn is_sparse(dir: &Path) -> bool {
    fs::metadata(dir.join(SPARSE_HEADER_FILE)).is_ok_and(|m| m.is_file())
}

/// The file's first bytes, at most as many as [`FRAME_MAGIC`].
fn first_bytes(path: &Path) -> io::Result<Vec<u8>> {
    let mut first = Vec::with_capacity(FRAME_MAGIC.len());
    let magic_len = u64::try_from(FRAME_MAGIC.len()).unwrap_or(u64::MAX);
    File::open(path)?.take(magic_len).read_to_end(&mut first)?;
    Ok(first)
}

/// The members of the store `path`, each a [`Found`] item, or the error that refuses it whole.
fn store_members(path: &Path) -> Vec<Found> {
    let store = match Store::open_zip(path) {
        Ok(store) => store,
        Err(e) => {
            return vec![Found::Error {
                path: path.to_path_buf(),
                message: e.to_string(),
            }];
        }
    };
    store
        .entries()
        .iter()
        .map(|entry| {
            let mut member = path.as_os_str().to_owned();
            member.push("/");
            member.push(entry.name());
            let member = PathBuf::from(member);
            match entry {
                Entry::Member(m) => Found::Frame(Source::Member {
                    path: member,
                    store: path.to_path_buf(),
                    offset: m.place.offset(),
                    len: m.place.len().unwrap_or(0),
                }),
                Entry::Refused { message, .. } => Found::Error {
                    message: format!("{}: {message}", member.display()),
                    path: member,
                },
            }
        })
        .collect()
}

/// The frames named by `paths`, directories walked, one at a time (see the
/// [module documentation](self)). With `follow`, symbolic links met during a walk are followed
/// (a link that leads back to one of its ancestors is reported as an error); links given as
/// arguments are always followed.
pub fn frames(paths: &[PathBuf], follow: bool) -> Frames<'_> {
    Frames {
        args: paths.iter(),
        walk: None,
        reported: false,
        members: Vec::new().into_iter(),
        follow,
    }
}

/// The iterator [`frames`] returns.
pub struct Frames<'a> {
    args: std::slice::Iter<'a, PathBuf>,
    /// The directory being walked, and the walk.
    walk: Option<(&'a Path, walkdir::IntoIter)>,
    /// Whether the walk has reported anything yet: a directory under which nothing is found is
    /// an error of its own, so that an empty result never passes silently.
    reported: bool,
    /// The members of the store being read.
    members: std::vec::IntoIter<Found>,
    follow: bool,
}

impl Iterator for Frames<'_> {
    type Item = Found;

    fn next(&mut self) -> Option<Found> {
        loop {
            if let Some(member) = self.members.next() {
                self.reported = true;
                return Some(member);
            }
            if let Some((root, walk)) = &mut self.walk {
                let found = match walk.next() {
                    None => {
                        let root = root.to_path_buf();
                        self.walk = None;
                        if self.reported {
                            continue;
                        }
                        let message = format!("{}: no Blosc2 frame found under this directory", root.display());
                        Found::Error { path: root, message }
                    }
                    Some(Err(e)) => walk_error(root, &e),
                    Some(Ok(entry)) => match walked(walk, entry) {
                        Some(Walked::Found(found)) => found,
                        Some(Walked::Store(path)) => {
                            self.members = store_members(&path).into_iter();
                            continue;
                        }
                        None => continue,
                    },
                };
                self.reported = true;
                return Some(found);
            }
            let arg = self.args.next()?;
            if arg.as_os_str() == "-" {
                return Some(Found::Frame(Source::Stdin));
            }
            match fs::metadata(arg) {
                Ok(meta) if meta.is_dir() => {
                    if is_sparse(arg) {
                        return Some(Found::Frame(Source::Sparse(arg.clone())));
                    }
                    let walk = WalkDir::new(arg)
                        .follow_links(self.follow)
                        .sort_by_file_name()
                        .min_depth(1)
                        .into_iter();
                    self.walk = Some((arg, walk));
                    self.reported = false;
                }
                Ok(meta) if !meta.is_file() => return Some(Found::Frame(Source::Stream(arg.clone()))),
                Ok(_) if store::is_zip_store(arg, &first_bytes(arg).unwrap_or_default(), true) => {
                    self.members = store_members(arg).into_iter();
                }
                // A regular file, or a path that cannot be read: the frame reader says why.
                _ => return Some(Found::Frame(Source::File(arg.clone()))),
            }
        }
    }
}

/// What one entry of a walk is.
enum Walked {
    /// A frame, or an error.
    Found(Found),
    /// A `.b2z` store, whose members are to be read.
    Store(PathBuf),
}

/// What one entry of a walk is: a frame, an error, a store, or nothing to report.
fn walked(walk: &mut walkdir::IntoIter, entry: walkdir::DirEntry) -> Option<Walked> {
    let kind = entry.file_type();
    if kind.is_dir() {
        if is_sparse(entry.path()) {
            // The walk has just entered this directory: leave it.
            walk.skip_current_dir();
            return Some(Walked::Found(Found::Frame(Source::Sparse(entry.into_path()))));
        }
        return None;
    }
    if !kind.is_file() {
        // Links that are not followed, pipes, sockets, devices.
        return None;
    }
    match first_bytes(entry.path()) {
        Ok(first) if first == FRAME_MAGIC => Some(Walked::Found(Found::Frame(Source::File(entry.into_path())))),
        Ok(first) if store::is_zip_store(entry.path(), &first, false) => Some(Walked::Store(entry.into_path())),
        Ok(_) => None,
        Err(source) => {
            let path = entry.into_path();
            let message = chain(&FrameError::io(path.clone(), source));
            Some(Walked::Found(Found::Error { path, message }))
        }
    }
}

fn walk_error(root: &Path, e: &walkdir::Error) -> Found {
    let path = e.path().unwrap_or(root).to_path_buf();
    let message = if let Some(ancestor) = e.loop_ancestor() {
        format!(
            "{}: a symbolic link loop: it leads back to {}",
            path.display(),
            ancestor.display()
        )
    } else if let Some(source) = e.io_error() {
        format!("cannot read {}: {source}", path.display())
    } else {
        format!("{}: {e}", path.display())
    };
    Found::Error { path, message }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_is_what_the_frame_reader_accepts() {
        // 0x9e: fixarray of 14 items; 0xa8: fixstr of 8 bytes, "b2frame" and its NUL.
        assert_eq!(FRAME_MAGIC[0], 0x90 | 14);
        assert_eq!(FRAME_MAGIC[1], 0xa0 | 8);
        assert_eq!(&FRAME_MAGIC[2..], b"b2frame\0");
        // The frame reader gets past the magic and stops at header_len's marker.
        let err = frame::header_len(&FRAME_MAGIC).unwrap_err();
        assert_eq!(err.offset(), Some(10), "{err}");
        assert!(matches!(err.kind(), frame::FrameErrorKind::Decode { .. }), "{err}");
        let mut other = FRAME_MAGIC;
        other[9] = 1;
        let err = frame::header_len(&other).unwrap_err();
        assert!(matches!(err.kind(), frame::FrameErrorKind::BadMagic { .. }), "{err}");
    }

    #[test]
    fn stream_reads_through_frame_len() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/files/blosc2-4-vlmeta/strings.b2nd"
        );
        let mut bytes = std::fs::read(path).unwrap_or_default();
        let frame_len = bytes.len();
        bytes.extend_from_slice(b"after the frame");
        let mut reader = &bytes[..];
        let Ok(Reading::Bytes(bytes)) = read_stream(&mut reader) else {
            panic!("the whole frame reads");
        };
        let frame = bytes.frame().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(frame.header.frame_len, frame_len as u64);
        assert_eq!(frame.metalayers[0].name, "b2nd");
        assert!(!frame.vlmetalayers.is_empty());
        assert_eq!(reader, b"after the frame", "bytes after frame_len are left unread");
    }

    #[test]
    fn stream_without_its_trailer_gives_the_header() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/files/blosc2-4/dtype_i4le.b2nd"
        );
        let bytes = std::fs::read(path).unwrap_or_default();
        // header_len, at byte 0x0b, is 0xa5 (see `frame_header_v2`).
        assert_eq!(bytes[0x0a..0x0f], [0xd2, 0, 0, 0, 0xa5]);
        let Ok(Reading::Header {
            metalayers,
            trailer_error,
        }) = read_stream(&bytes[..0xa5 + 10])
        else {
            panic!("the header reads");
        };
        assert_eq!(metalayers.len(), 1);
        assert_eq!(metalayers[0].name, "b2nd");
        assert!(
            trailer_error
                .to_string()
                .ends_with("runs past the end of the input (175 bytes)"),
            "{trailer_error}"
        );

        let err = read_stream(&bytes[..0x80]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "at byte 0x0b: header_len 165 runs past the end of the input (128 bytes)"
        );
        let err = read_stream(&b"\x9e\xa8b2frame"[..]).unwrap_err();
        assert!(
            matches!(err.kind(), frame::FrameErrorKind::Truncated { len: 9 }),
            "{err}"
        );
        assert_eq!(err.offset(), Some(0));
    }
}
