//! Why an edit was refused or failed: [`EditError`].

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::string::String;
use std::time::Duration;

use crate::EncodeError;

use super::super::{FrameError, MAX_METALAYERS};
use super::Holder;
#[cfg(doc)]
use super::WriteOptions;

/// Why a frame could not be edited. The file is left as it was, except after
/// [`EditError::Sync`], which comes once the new file is in place.
///
/// ```
/// use metalayer::frame::edit::{Edit, EditError};
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
/// let frame = std::fs::read(path).unwrap();
/// // "units" holds "kelvin" (7 bytes): c-blosc2 updates a metalayer only with as many bytes.
/// let err = Edit::new().meta("units", b"\xa1K").apply(&frame).unwrap_err();
/// assert!(matches!(err, EditError::MetalayerLength { stored: 7, given: 2, .. }));
/// assert_eq!(
///     err.to_string(),
///     "metalayer \"units\" (content at byte 0xd1): the new value is 2 bytes, the stored one 7; \
///      a metalayer is updated in place only by a value of its own length"
/// );
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum EditError {
    /// The frame could not be read, or does not read as a frame.
    Frame(FrameError),
    /// The frame has no metalayer of this name (c-blosc2 adds metalayers only to frames without
    /// chunks, so an edit does not add them).
    NoMetalayer {
        /// The name.
        name: String,
    },
    /// The new value of a metalayer has another length than the stored one.
    MetalayerLength {
        /// The metalayer.
        name: String,
        /// Where its content starts in the frame.
        offset: u64,
        /// The stored content's length.
        stored: usize,
        /// The new value's length.
        given: usize,
    },
    /// A vlmetalayer to delete is not in the frame.
    NoVlmetalayer {
        /// The name.
        name: String,
    },
    /// The edit would leave more than [`MAX_METALAYERS`] vlmetalayers.
    TooManyVlmetalayers {
        /// How many there would be.
        count: usize,
    },
    /// A vlmetalayer's name is longer than the trailer's fixstr keys hold (31 bytes).
    NameTooLong {
        /// The name.
        name: String,
    },
    /// A vlmetalayer's new value is empty (no msgpack value is).
    EmptyValue {
        /// The vlmetalayer.
        name: String,
    },
    /// A value is larger than one Blosc2 chunk holds as a single block.
    ValueTooLarge {
        /// The vlmetalayer.
        name: String,
        /// The value's length.
        len: usize,
        /// The largest length.
        max: usize,
    },
    /// The vlmetalayers' chunks together are more than a trailer holds (its offsets are int32,
    /// its length a uint32).
    TrailerTooLong {
        /// The chunks' total length.
        len: u64,
    },
    /// The new header or trailer does not encode (a value of the schema's refused).
    Encode(EncodeError),
    /// The new frame could not be written; the original file is unchanged.
    Write {
        /// The file being written or renamed.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// Another process held the file's lock for longer than the edit waits.
    Locked {
        /// The file.
        path: PathBuf,
        /// How long the edit waited at the most: the wait it was given.
        waited: Duration,
        /// The process that holds the lock, when the system says.
        holder: Option<Holder>,
    },
    /// The file could not be locked: on some file systems (some NFS mounts) locks are refused
    /// (`ENOLCK`). [`WriteOptions::lock`] edits without one.
    Lock {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: io::Error,
    },
    /// The file changed while it was edited, each time it was read again: a writer that takes no
    /// lock (c-blosc2 and python-blosc2 write in place) is writing it. Nothing was written.
    Changed {
        /// The file.
        path: PathBuf,
        /// How many times it was read and found changed before the rename.
        tries: usize,
    },
    /// The new file is in place, but its directory could not be synced: the edit may not
    /// survive a crash of the system.
    Sync {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
}

impl EditError {
    /// A failure to write `path`: the original file is unchanged.
    ///
    /// ```
    /// let err = metalayer::frame::edit::EditError::write("a.b2nd", std::io::Error::other("disk full"));
    /// assert_eq!(err.to_string(), "cannot write a.b2nd");
    /// assert_eq!(std::error::Error::source(&err).unwrap().to_string(), "disk full");
    /// ```
    pub fn write(path: impl AsRef<Path>, source: io::Error) -> EditError {
        EditError::Write {
            path: path.as_ref().to_path_buf(),
            source,
        }
    }
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EditError::Frame(e) => fmt::Display::fmt(e, f),
            EditError::NoMetalayer { name } => write!(
                f,
                "the frame has no metalayer {name:?} (metalayers are added only to frames without chunks)"
            ),
            EditError::MetalayerLength {
                name,
                offset,
                stored,
                given,
            } => write!(
                f,
                "metalayer {name:?} (content at byte {offset:#04x}): the new value is {given} bytes, the stored \
                 one {stored}; a metalayer is updated in place only by a value of its own length"
            ),
            EditError::NoVlmetalayer { name } => write!(f, "the frame has no vlmetalayer {name:?} to delete"),
            EditError::TooManyVlmetalayers { count } => {
                write!(f, "{count} vlmetalayers: a frame holds at most {MAX_METALAYERS}")
            }
            EditError::NameTooLong { name } => write!(
                f,
                "vlmetalayer name {name:?} is {} bytes: the trailer holds names of at most 31",
                name.len()
            ),
            EditError::EmptyValue { name } => write!(f, "vlmetalayer {name:?}: the new value is empty"),
            EditError::ValueTooLarge { name, len, max } => write!(
                f,
                "vlmetalayer {name:?}: a value of {len} bytes is more than one chunk block holds ({max})"
            ),
            EditError::TrailerTooLong { len } => write!(
                f,
                "the vlmetalayers' chunks take {len} bytes: more than a trailer's int32 offsets reach"
            ),
            EditError::Encode(e) => fmt::Display::fmt(e, f),
            // The io error is the source: shown by whoever prints the chain.
            EditError::Write { path, .. } => write!(f, "cannot write {}", path.display()),
            EditError::Locked { path, waited, holder } => {
                write!(f, "{} is locked by another edit", path.display())?;
                if let Some(holder) = holder {
                    write!(f, ", {holder}")?;
                }
                write!(f, "; gave up after waiting {:.1} s", waited.as_secs_f64())
            }
            EditError::Lock { path, .. } => write!(
                f,
                "cannot lock {} (the file system may not support locks)",
                path.display()
            ),
            EditError::Changed { path, tries } => write!(
                f,
                "{} was changed by another writer while it was edited ({tries} times): nothing was written",
                path.display()
            ),
            EditError::Sync { path, .. } => write!(
                f,
                "{} was replaced, but its directory could not be synced, so the change may not survive a crash",
                path.display()
            ),
        }
    }
}

impl std::error::Error for EditError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EditError::Frame(e) => e.source(),
            EditError::Write { source, .. } | EditError::Lock { source, .. } | EditError::Sync { source, .. } => {
                Some(source)
            }
            _ => None,
        }
    }
}

impl From<FrameError> for EditError {
    fn from(e: FrameError) -> Self {
        EditError::Frame(e)
    }
}

impl From<EncodeError> for EditError {
    fn from(e: EncodeError) -> Self {
        EditError::Encode(e)
    }
}
