//! Replacing a frame file atomically: the new frame is written beside the original, synced,
//! then renamed over it, so that a crash at any write leaves either file whole at its path.

use std::format;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::vec;

use super::EditError;

/// How many bytes of the chunks between the header and the trailer are copied per write.
const COPY_PIECE: usize = 1 << 20;

/// The new frame: its header, the bytes `body` of the original file kept as they are (the
/// chunks and their index), its trailer.
pub(super) struct NewFrame<'a> {
    pub header: &'a [u8],
    pub body: (u64, u64),
    pub trailer: &'a [u8],
}

/// Where writes fail, for the tests: the write of this number fails after writing half its
/// bytes (a torn write); with `crash`, nothing is cleaned up after it, as after a power loss.
#[derive(Debug)]
pub(super) struct Faults {
    pub fail_at: Option<usize>,
    pub crash: bool,
    /// How many bytes of the chunks are copied per write.
    pub piece: usize,
    /// The steps taken so far: each write, the sync, the rename, the directory's sync.
    pub steps: usize,
}

impl Default for Faults {
    /// No failure, the chunks copied [`COPY_PIECE`] bytes at a time.
    fn default() -> Self {
        Faults {
            fail_at: None,
            crash: false,
            piece: COPY_PIECE,
            steps: 0,
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

/// Writes `frame` to `path` through a file beside it, renamed over `path` once synced.
pub(super) fn replace(path: &Path, frame: &NewFrame<'_>, faults: &mut Faults) -> Result<(), EditError> {
    let mut source = File::open(path).map_err(|source| EditError::Write {
        path: path.to_path_buf(),
        source,
    })?;
    replace_with(path, faults, |file, faults| {
        write_piece(file, frame.header, faults)?;
        copy_body(&mut source, file, frame.body, faults)?;
        write_piece(file, frame.trailer, faults)
    })
}

/// Replaces the file `path` atomically with what `write` writes into a new file beside it
/// (which `write` may also seek in): the new file gets `path`'s permissions, is synced, and is
/// renamed over `path`, whose directory is then synced. When `write` fails, the new file is
/// removed and `path` is left as it was. A symbolic link `path` is replaced itself: give the
/// file it names.
///
/// ```
/// use std::io::Write;
///
/// let dir = std::env::temp_dir().join(format!("metalayer-replace-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("f");
/// std::fs::write(&path, b"old").unwrap();
/// metalayer::frame::edit::replace_file(&path, |file| file.write_all(b"new"))?;
/// assert_eq!(std::fs::read(&path).unwrap(), b"new");
/// let failed = metalayer::frame::edit::replace_file(&path, |_| Err(std::io::Error::other("no")));
/// assert!(failed.is_err());
/// assert_eq!(std::fs::read(&path).unwrap(), b"new");
/// assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
/// std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), metalayer::frame::edit::EditError>(())
/// ```
pub fn replace_file(path: &Path, write: impl FnOnce(&mut File) -> io::Result<()>) -> Result<(), EditError> {
    replace_file_with(path, &mut Faults::default(), write)
}

/// [`replace_file`], with failures injected at its sync, rename and directory sync.
pub(super) fn replace_file_with(
    path: &Path,
    faults: &mut Faults,
    write: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<(), EditError> {
    replace_with(path, faults, |file, _| write(file))
}

/// Creates a file beside `path` with its permissions, lets `write` fill it, syncs it, renames
/// it over `path` and syncs the directory; each of the last three steps counts as one of
/// `faults`. When a step fails, the new file is removed (unless `faults` says the failure is a
/// crash), and `path` is left as it was.
fn replace_with(
    path: &Path,
    faults: &mut Faults,
    write: impl FnOnce(&mut File, &mut Faults) -> io::Result<()>,
) -> Result<(), EditError> {
    let tmp = temp_path(path);
    let result = write_and_rename(path, &tmp, faults, write);
    if result.is_err() && !faults.crash {
        // The original was not replaced: the partial file goes.
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// [`replace_with`]'s steps, through the new file `tmp`.
fn write_and_rename(
    path: &Path,
    tmp: &Path,
    faults: &mut Faults,
    write: impl FnOnce(&mut File, &mut Faults) -> io::Result<()>,
) -> Result<(), EditError> {
    let at = |p: &Path| {
        let p = p.to_path_buf();
        move |source| EditError::Write { path: p, source }
    };
    let permissions = fs::metadata(path).map_err(at(path))?.permissions();
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(tmp)
        .map_err(at(tmp))?;
    file.set_permissions(permissions).map_err(at(tmp))?;
    write(&mut file, faults).map_err(at(tmp))?;
    fail_or(faults, || file.sync_all()).map_err(at(tmp))?;
    drop(file);
    fail_or(faults, || fs::rename(tmp, path)).map_err(at(path))?;
    fail_or(faults, || sync_dir(path)).map_err(at(path))
}

/// Copies `start..end` of `source` to `out`.
pub(super) fn copy_range(source: &mut File, out: &mut dyn Write, (start, end): (u64, u64)) -> io::Result<()> {
    source.seek(SeekFrom::Start(start))?;
    let len = end.saturating_sub(start);
    let copied = io::copy(&mut Read::by_ref(source).take(len), out)?;
    if copied < len {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("the file ends before byte {end}"),
        ));
    }
    Ok(())
}

/// A name in `path`'s directory that no other edit uses: `.NAME.PID.N.edit`.
fn temp_path(path: &Path) -> PathBuf {
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let n = COUNT.fetch_add(1, Ordering::Relaxed);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.{}.{n}.edit", std::process::id()))
}

/// Runs `op`, unless this step is the one to fail.
fn fail_or(faults: &mut Faults, op: impl FnOnce() -> io::Result<()>) -> io::Result<()> {
    if faults.step() {
        return Err(injected());
    }
    op()
}

/// One write; when it is the one to fail, half of it is written first.
fn write_piece(file: &mut File, bytes: &[u8], faults: &mut Faults) -> io::Result<()> {
    if faults.step() {
        file.write_all(bytes.get(..bytes.len() / 2).unwrap_or_default())?;
        return Err(injected());
    }
    file.write_all(bytes)
}

/// Copies `start..end` of `source` into `file`, piece by piece.
fn copy_body(source: &mut File, file: &mut File, (start, end): (u64, u64), faults: &mut Faults) -> io::Result<()> {
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
