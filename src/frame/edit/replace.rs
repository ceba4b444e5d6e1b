//! Replacing a file so that no edit is lost and no reader sees half of one: [`replace_file`]
//! says how.

use std::ffi::OsString;
use std::format;
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::string::String;
use std::time::{Duration, Instant};
use std::vec;

use super::EditError;
use crate::frame::FrameError;
use crate::frame::io::open_regular;

/// How many bytes of the chunks between the header and the trailer are copied per write.
const COPY_PIECE: usize = 1 << 20;

/// How many times an edit starts again after a writer that takes no lock changed the file.
pub const MAX_RESTARTS: usize = 3;

/// The longest pause between two tries of a lock another process holds.
const MAX_PAUSE: Duration = Duration::from_millis(25);

/// How an edit replaces its file: whether it locks the file, and how long it waits for a lock
/// another edit holds.
///
/// ```
/// use std::time::Duration;
/// use metalayer::frame::edit::WriteOptions;
///
/// let options = WriteOptions::new();
/// assert_eq!(options.wait_time(), WriteOptions::DEFAULT_WAIT);
/// assert!(options.locks());
/// let options = WriteOptions::new().wait(Duration::ZERO).lock(false);
/// assert_eq!((options.wait_time(), options.locks()), (Duration::ZERO, false));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteOptions {
    wait: Duration,
    lock: bool,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            wait: WriteOptions::DEFAULT_WAIT,
            lock: true,
        }
    }
}

impl WriteOptions {
    /// How long an edit waits by default for a lock another edit holds: 30 seconds. An edit
    /// holds its lock for the time it takes to copy the file once.
    pub const DEFAULT_WAIT: Duration = Duration::from_secs(30);

    /// Locked, waiting [`DEFAULT_WAIT`](Self::DEFAULT_WAIT).
    ///
    /// ```
    /// assert_eq!(metalayer::frame::edit::WriteOptions::new(), Default::default());
    /// ```
    pub fn new() -> WriteOptions {
        WriteOptions::default()
    }

    /// Waits at most `wait` for a lock another edit holds (zero: tries once).
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let options = metalayer::frame::edit::WriteOptions::new().wait(Duration::from_secs(2));
    /// assert_eq!(options.wait_time(), Duration::from_secs(2));
    /// ```
    pub fn wait(mut self, wait: Duration) -> WriteOptions {
        self.wait = wait;
        self
    }

    /// Whether to lock the file (the default). Without a lock, edits of one file at once can
    /// lose one another's changes: only for file systems that refuse locks, where no other
    /// edit runs. The checks against writers that take no lock are made either way.
    ///
    /// ```
    /// assert!(!metalayer::frame::edit::WriteOptions::new().lock(false).locks());
    /// ```
    pub fn lock(mut self, lock: bool) -> WriteOptions {
        self.lock = lock;
        self
    }

    /// How long an edit waits for a lock.
    ///
    /// ```
    /// let options = metalayer::frame::edit::WriteOptions::new();
    /// assert_eq!(options.wait_time().as_secs(), 30);
    /// ```
    pub fn wait_time(&self) -> Duration {
        self.wait
    }

    /// Whether an edit locks the file.
    ///
    /// ```
    /// assert!(metalayer::frame::edit::WriteOptions::new().locks());
    /// ```
    pub fn locks(&self) -> bool {
        self.lock
    }
}

/// The file an edit replaces, as [`replace_file`] gives it to the writer: open, locked (unless
/// the options say otherwise), and the path it has (symbolic links resolved).
#[derive(Debug, Clone, Copy)]
pub struct Original<'a> {
    file: &'a File,
    path: &'a Path,
}

impl<'a> Original<'a> {
    /// The open file: what the edit reads. `&File` reads and seeks.
    pub fn file(&self) -> &'a File {
        self.file
    }

    /// Its path, symbolic links resolved: what messages name.
    pub fn path(&self) -> &'a Path {
        self.path
    }
}

/// The process that holds a lock, as the system reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Holder {
    /// Its process id.
    pub pid: u32,
    /// Its command name, when it can be read.
    pub command: Option<String>,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.command {
            Some(command) => write!(f, "process {} ({command})", self.pid),
            None => write!(f, "process {}", self.pid),
        }
    }
}

/// What the file was when it was read: a writer that takes no lock changes one of these.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Snapshot {
    dev: u64,
    ino: u64,
    len: u64,
    modified: Option<std::time::SystemTime>,
    changed: (i64, i64),
}

impl Snapshot {
    fn of(meta: &fs::Metadata) -> Snapshot {
        #[cfg(unix)]
        let (dev, ino, changed) = {
            use std::os::unix::fs::MetadataExt;
            (meta.dev(), meta.ino(), (meta.ctime(), meta.ctime_nsec()))
        };
        #[cfg(not(unix))]
        let (dev, ino, changed) = (0, 0, (0, 0));
        Snapshot {
            dev,
            ino,
            len: meta.len(),
            modified: meta.modified().ok(),
            changed,
        }
    }

    /// Whether `other` is the same file (not whether it is unchanged).
    fn same_file(&self, other: &Snapshot) -> bool {
        cfg!(unix) && (self.dev, self.ino) == (other.dev, other.ino)
            || !cfg!(unix) && self.len == other.len && self.modified == other.modified
    }
}

/// Failures injected by the tests: the steps (each write, the sync, the rename, the directory's
/// sync) counted, one of them failing; a temp name forced on the first try; an error for the
/// lock; something done to the file just before the rename.
pub(super) struct Faults {
    /// The step that fails; a failing write writes half its bytes first (a torn write).
    pub fail_at: Option<usize>,
    /// With a failure, nothing is cleaned up, as after a power loss.
    pub crash: bool,
    /// How many bytes of the chunks are copied per write.
    pub piece: usize,
    /// The steps taken so far.
    pub steps: usize,
    /// The name the first temp file is given (it must be taken: the test planted an entry).
    pub forced_name: Option<OsString>,
    /// The error (an `errno`) the lock gives instead of the system's answer.
    pub lock_error: Option<i32>,
    /// Run after the new file is synced, before the checks and the rename.
    #[allow(clippy::type_complexity)]
    pub before_rename: Option<std::boxed::Box<dyn FnMut(&Path)>>,
}

impl std::fmt::Debug for Faults {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Faults")
            .field("fail_at", &self.fail_at)
            .field("crash", &self.crash)
            .field("steps", &self.steps)
            .finish_non_exhaustive()
    }
}

impl Default for Faults {
    /// No failure, the chunks copied [`COPY_PIECE`] bytes at a time.
    fn default() -> Self {
        Faults {
            fail_at: None,
            crash: false,
            piece: COPY_PIECE,
            steps: 0,
            forced_name: None,
            lock_error: None,
            before_rename: None,
        }
    }
}

impl Faults {
    /// Counts a step; the injected error when it is the one to fail.
    fn step(&mut self) -> bool {
        let this = self.steps;
        self.steps = self.steps.saturating_add(1);
        self.fail_at == Some(this)
    }
}

fn injected() -> io::Error {
    io::Error::other("injected failure")
}

/// Replaces the file `path` with what `write` writes into a new file beside it, so that no edit
/// is lost and no reader sees half of one. `write` gets the original, open and locked, to read
/// from (and nothing else: it must not write through its path), and the new file, which it may
/// seek in; it may be called again when the edit starts again on a file that changed. When
/// anything fails, the new file is removed and `path` is left as it was.
///
/// - **Serialized.** The lock ([`File::try_lock`], an advisory lock on the open file) is held
///   for the whole read-modify-write. It is taken on the file the path names, which an edit
///   then replaces by a rename: once the lock is held, the path is checked to still name the
///   locked file; if another edit renamed a new one in meanwhile, the edit starts again on it.
///   A second edit waits for the lock at most [`WriteOptions::wait`], then gives up
///   ([`EditError::Locked`]), naming the process that holds it where the system says (Linux's
///   `/proc/locks`). A file system that refuses locks gives [`EditError::Lock`].
/// - **Writers that take no lock** (c-blosc2 and python-blosc2 write in place, unlocked) are
///   noticed where they can be: just before the rename, the path must still name the file that
///   was read, with the length, modification and change times it had then. When it does not,
///   the new file is dropped and the edit starts again, [`MAX_RESTARTS`] times at most, then
///   gives up ([`EditError::Changed`]): nothing is overwritten unseen.
/// - **Temp files** are created exclusively (`O_EXCL`) in the file's directory under a random
///   name, `.NAME.XXXXXXXXXX.edit`, by the `tempfile` crate, and removed only by the process
///   that created them, only while the name still holds the very file it created. A crash
///   (`kill -9`) at any point leaves the old file or the new one whole, and at most one such
///   file beside it.
/// - **The new file** gets the old one's permissions and, where the process may set them, its
///   owner, group and extended attributes. A rename makes a new file: hard links to the old one
///   keep the old content.
/// - **Only regular files** are replaced: a FIFO, a socket or a device is refused before
///   anything opens it, and a symbolic link is followed: the file it names is replaced and the
///   link kept.
///
/// ```
/// use std::io::{Read, Write};
/// use metalayer::frame::edit::{replace_file, EditError, WriteOptions};
///
/// let dir = std::env::temp_dir().join(format!("metalayer-replace-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("f");
/// std::fs::write(&path, b"old").unwrap();
/// replace_file(&path, &WriteOptions::new(), |original, new| {
///     let mut text = Vec::new();
///     original.file().read_to_end(&mut text).map_err(|e| EditError::write(original.path(), e))?;
///     text.extend_from_slice(b", new");
///     new.write_all(&text).map_err(|e| EditError::write(original.path(), e))
/// })?;
/// assert_eq!(std::fs::read(&path).unwrap(), b"old, new");
///
/// // A failed edit leaves the file, and nothing beside it.
/// let failed = replace_file(&path, &WriteOptions::new(), |original, _| {
///     Err::<(), _>(EditError::write(original.path(), std::io::Error::other("no")))
/// });
/// assert!(failed.is_err());
/// assert_eq!(std::fs::read(&path).unwrap(), b"old, new");
/// assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
/// std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), EditError>(())
/// ```
pub fn replace_file<T, E: From<EditError>>(
    path: &Path,
    options: &WriteOptions,
    write: impl FnMut(&Original<'_>, &mut File) -> Result<T, E>,
) -> Result<T, E> {
    let mut write = write;
    replace_with(path, options, &mut Faults::default(), |original, file, _| {
        write(original, file)
    })
}

/// [`replace_file`], with failures injected; `write` counts its writes as steps.
pub(super) fn replace_with<T, E: From<EditError>>(
    path: &Path,
    options: &WriteOptions,
    faults: &mut Faults,
    mut write: impl FnMut(&Original<'_>, &mut File, &mut Faults) -> Result<T, E>,
) -> Result<T, E> {
    // A link is followed: the file it names is replaced, and the link kept.
    let path = fs::canonicalize(path).map_err(|e| EditError::from(FrameError::io(path, e)))?;
    let started = Instant::now();
    let deadline = started.checked_add(options.wait);
    let mut restarts: usize = 0;
    loop {
        let file = open_regular(&path).map_err(EditError::from)?;
        if options.lock {
            lock(&file, &path, options.wait, deadline, faults)?;
        }
        let read = Snapshot::of(&file.metadata().map_err(|e| EditError::write(&path, e))?);
        if !names(&path, &read)? {
            // Another edit renamed a new file in while this one waited: start again on it.
            continue;
        }
        let original = Original {
            file: &file,
            path: &path,
        };
        let mut temp = Temp::create(&path, &file, faults)?;
        let value = match write(&original, &mut temp.file, faults) {
            Ok(value) => value,
            Err(e) => {
                temp.discard(faults);
                return Err(e);
            }
        };
        if let Err(e) = fail_or(faults, || temp.file.sync_all()) {
            let error = EditError::write(&temp.path, e);
            temp.discard(faults);
            return Err(error.into());
        }
        if let Some(hook) = faults.before_rename.as_mut() {
            hook(&path);
        }
        match unchanged(&path, &file, &read) {
            Ok(true) => {}
            Ok(false) => {
                temp.discard(faults);
                restarts = restarts.saturating_add(1);
                if restarts > MAX_RESTARTS {
                    return Err(EditError::Changed { path, tries: restarts }.into());
                }
                continue;
            }
            Err(e) => {
                temp.discard(faults);
                return Err(e.into());
            }
        }
        if let Err(e) = fail_or(faults, || fs::rename(&temp.path, &path)) {
            temp.discard(faults);
            return Err(EditError::write(&path, e).into());
        }
        // The new file is in place: what fails now fails after the edit landed.
        fail_or(faults, || sync_dir(&path)).map_err(|source| EditError::Sync { path, source })?;
        return Ok(value);
    }
}

/// Takes the lock on `file`, trying again until `deadline` (`wait` after the edit started)
/// while another process holds it.
fn lock(
    file: &File,
    path: &Path,
    wait: Duration,
    deadline: Option<Instant>,
    faults: &mut Faults,
) -> Result<(), EditError> {
    let mut pause = Duration::from_millis(1);
    loop {
        let tried = match faults.lock_error.take() {
            Some(errno) => Err(TryLockError::Error(io::Error::from_raw_os_error(errno))),
            None => file.try_lock(),
        };
        match tried {
            Ok(()) => return Ok(()),
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(source)) => {
                return Err(EditError::Lock {
                    path: path.to_path_buf(),
                    source,
                });
            }
        }
        let now = Instant::now();
        let left = deadline.map(|d| d.saturating_duration_since(now));
        if left.is_some_and(|left| left.is_zero()) {
            return Err(EditError::Locked {
                path: path.to_path_buf(),
                waited: wait,
                holder: holder(file),
            });
        }
        std::thread::sleep(left.map_or(pause, |left| pause.min(left)));
        pause = pause.saturating_mul(2).min(MAX_PAUSE);
    }
}

/// Whether `path` still names the file `read` describes.
fn names(path: &Path, read: &Snapshot) -> Result<bool, EditError> {
    match fs::metadata(path) {
        Ok(meta) => Ok(Snapshot::of(&meta).same_file(read)),
        // Gone: an edit is renaming its file in. Start again.
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(EditError::write(path, e)),
    }
}

/// Whether `path` still names `file`, as it was when it was read.
fn unchanged(path: &Path, file: &File, read: &Snapshot) -> Result<bool, EditError> {
    let now = Snapshot::of(&file.metadata().map_err(|e| EditError::write(path, e))?);
    Ok(now == *read && names(path, read)?)
}

/// The new file: created by this process, and removed by it only while its name still holds it.
struct Temp {
    file: File,
    path: PathBuf,
}

impl Temp {
    /// A new file beside `path`, created exclusively under a random name, with the permissions,
    /// owner, group and extended attributes of `original` where the process may set them.
    fn create(path: &Path, original: &File, faults: &mut Faults) -> Result<Temp, EditError> {
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
        let prefix = format!(".{name}.");
        let mut forced = faults.forced_name.take();
        let named = tempfile::Builder::new()
            .prefix(&prefix)
            .suffix(".edit")
            .rand_bytes(10)
            .disable_cleanup(true)
            .make_in(dir, |candidate| {
                let at = match forced.take() {
                    Some(name) => dir.join(name),
                    None => candidate.to_path_buf(),
                };
                let file = OpenOptions::new().read(true).write(true).create_new(true).open(&at)?;
                if at != candidate {
                    // Only the tests force a name, and only one that is taken.
                    drop(file);
                    let _ = fs::remove_file(&at);
                    return Err(io::Error::other("the forced temp name was free"));
                }
                Ok(file)
            })
            .map_err(|e| EditError::write(dir, e))?;
        let (file, temp_path) = named.into_parts();
        let temp = Temp {
            file,
            path: temp_path.keep().map_err(|e| EditError::write(dir, e.error))?,
        };
        if let Err(e) = copy_metadata(original, &temp.file) {
            temp.discard(faults);
            return Err(EditError::write(path, e));
        }
        Ok(temp)
    }

    /// Removes the new file (unless the injected failure is a crash), if its name still holds it.
    fn discard(self, faults: &Faults) {
        if faults.crash {
            return;
        }
        let ours = self.file.metadata().map(|m| Snapshot::of(&m));
        let there = fs::symlink_metadata(&self.path).map(|m| Snapshot::of(&m));
        if let (Ok(ours), Ok(there)) = (ours, there)
            && ours.same_file(&there)
        {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Gives `new` the permissions of `original`, and its owner, group and extended attributes
/// where the process may set them.
fn copy_metadata(original: &File, new: &File) -> io::Result<()> {
    let meta = original.metadata()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // Only root gives a file to another user; a user may give it any of its groups.
        if std::os::unix::fs::fchown(new, Some(meta.uid()), Some(meta.gid())).is_err() {
            let _ = std::os::unix::fs::fchown(new, None, Some(meta.gid()));
        }
        copy_xattrs(original, new);
    }
    // Last: a change of owner clears the set-user-id and set-group-id bits.
    new.set_permissions(meta.permissions())
}

/// Copies the extended attributes (ACLs among them) the process may read and set.
#[cfg(unix)]
fn copy_xattrs(original: &File, new: &File) {
    use xattr::FileExt;
    let Ok(names) = original.list_xattr() else { return };
    for name in names {
        if let Ok(Some(value)) = original.get_xattr(&name) {
            let _ = new.set_xattr(&name, &value);
        }
    }
}

/// The process that holds a lock on `file`, from Linux's `/proc/locks`.
#[cfg(target_os = "linux")]
fn holder(file: &File) -> Option<Holder> {
    use std::os::unix::fs::MetadataExt;
    let meta = file.metadata().ok()?;
    let dev = meta.dev();
    // The user-space encoding of a device number (glibc's gnu_dev_major and gnu_dev_minor).
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    let locks = fs::read_to_string("/proc/locks").ok()?;
    let pid = locks.lines().find_map(|line| {
        // "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"; waiters' lines have "->".
        let fields: vec::Vec<&str> = line.split_whitespace().collect();
        if fields.get(1) != Some(&"FLOCK") {
            return None;
        }
        let mut id = fields.get(5)?.split(':');
        let (maj, min, ino) = (id.next()?, id.next()?, id.next()?);
        let same = u64::from_str_radix(maj, 16).ok()? == major
            && u64::from_str_radix(min, 16).ok()? == minor
            && ino.parse::<u64>().ok()? == meta.ino();
        if same { fields.get(4)?.parse::<u32>().ok() } else { None }
    })?;
    let command = fs::read_to_string(format!("/proc/{pid}/comm"))
        .ok()
        .map(|c| c.trim_end().into());
    Some(Holder { pid, command })
}

#[cfg(not(target_os = "linux"))]
fn holder(_file: &File) -> Option<Holder> {
    None
}

/// Copies `start..end` of `source` to `out`.
pub(super) fn copy_range(mut source: &File, out: &mut dyn Write, (start, end): (u64, u64)) -> io::Result<()> {
    source.seek(SeekFrom::Start(start))?;
    let len = end.saturating_sub(start);
    let copied = io::copy(&mut Read::by_ref(&mut source).take(len), out)?;
    if copied < len {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("the file ends before byte {end}"),
        ));
    }
    Ok(())
}

/// Runs `op`, unless this step is the one to fail.
fn fail_or(faults: &mut Faults, op: impl FnOnce() -> io::Result<()>) -> io::Result<()> {
    if faults.step() {
        return Err(injected());
    }
    op()
}

/// One write; when it is the one to fail, half of it is written first.
pub(super) fn write_piece(file: &mut File, bytes: &[u8], faults: &mut Faults) -> io::Result<()> {
    if faults.step() {
        file.write_all(bytes.get(..bytes.len() / 2).unwrap_or_default())?;
        return Err(injected());
    }
    file.write_all(bytes)
}

/// Copies `start..end` of `source` into `file`, piece by piece.
pub(super) fn copy_body(
    mut source: &File,
    file: &mut File,
    (start, end): (u64, u64),
    faults: &mut Faults,
) -> io::Result<()> {
    source.seek(SeekFrom::Start(start))?;
    let mut left = end.saturating_sub(start);
    let piece = faults.piece.max(1);
    let mut buf = vec![0u8; piece.min(usize::try_from(left).unwrap_or(piece))];
    while left > 0 {
        let n = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let piece = buf.get_mut(..n).unwrap_or_default();
        source.read_exact(piece)?;
        write_piece(file, piece, faults)?;
        left = left.saturating_sub(u64::try_from(n).unwrap_or(u64::MAX));
    }
    Ok(())
}

/// Syncs the directory that holds `path`, so that the rename itself is durable.
#[cfg(unix)]
fn sync_dir(path: &Path) -> io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    File::open(dir)?.sync_all()
}

/// Directories cannot be opened for syncing here; the rename is as durable as the system
/// makes it.
#[cfg(not(unix))]
fn sync_dir(_path: &Path) -> io::Result<()> {
    Ok(())
}
