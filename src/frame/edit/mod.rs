//! Editing a frame's metadata as c-blosc2 edits it: a metalayer updated in place by a value of
//! its own length, vlmetalayers added, replaced and deleted.
//!
//! An [`Edit`] lists the changes; it is applied to a frame in memory ([`Edit::apply`]), to a
//! frame file or a sparse frame's `chunks.b2frame` ([`Edit::write`]), to a frame stored inside
//! another file, such as a `.b2z` store's member, written to any writer
//! ([`Edit::write_frame_at`], for a caller that rewrites the container with
//! [`replace_file`]), or only planned ([`Edit::preview`], [`Edit::preview_at`]: a dry run).
//! What c-blosc2 does, this does:
//!
//! - a metalayer's content is replaced in place, and only by one of the same length
//!   (`blosc2_meta_update`); metalayers are neither added nor deleted;
//! - a vlmetalayer set to a new value keeps its place, a new one is added after the others, a
//!   deleted one is removed (`blosc2_vlmeta_add`, `_update`, `_delete`); each value is stored as
//!   a memcpyed Blosc2 chunk ([`memcpyed_chunk`]: the form python-blosc2 writes small values
//!   in, which every c-blosc2 release reads);
//! - the trailer is written again after the chunks' index, where it was, as
//!   `frame_update_trailer` writes it; the header's `frame_len` and `has_vlmetalayers` are
//!   updated; a frame left without vlmetalayers ends with an empty trailer, and the file ends
//!   at `frame_len`.
//!
//! The header and the trailer are written by the generated encoders of `frame_header_v2` and
//! `frame_trailer_v1`, and read back by the frame reader before anything is written. The bytes
//! between them, the chunks and their index, are copied as they are.
//!
//! A file is never changed in place, and an edit either lands whole or changes nothing, whatever
//! runs beside it ([`replace_file`] says how):
//!
//! - the file is locked for the whole read-modify-write, so that edits of one file at once are
//!   made one after the other, none lost; a second edit waits for the lock
//!   ([`WriteOptions::wait`]), then gives up;
//! - the new frame is written to a file created beside it under an unpredictable name, synced,
//!   and renamed over it, so that a crash at any point leaves the old file or the new one, each
//!   whole; the process removes only the file it created;
//! - before the rename, the file must still be the one that was read: a writer that takes no
//!   lock (c-blosc2, python-blosc2) makes the edit start again, or give up;
//! - only what can be read back is edited: the chunks' index and sizes are checked against the
//!   file first;
//! - the new file keeps the old one's permissions, and its owner, group and extended attributes
//!   where the process may set them. It is a new file: hard links to the old one keep the old
//!   frame. A symbolic link is followed, and the file it names replaced. A FIFO, a socket or a
//!   device is refused before it is opened.
//!
//! ```
//! use metalayer::frame::{edit::Edit, Frame};
//!
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
//! let frame = std::fs::read(path).unwrap();
//! // "units" holds the msgpack string "kelvin"; "celsiu" has its length. "source" is a new
//! // vlmetalayer, the msgpack string "sim".
//! let edit = Edit::new().meta("units", b"\xa6celsiu").vlmeta("source", b"\xa3sim");
//! let edited = edit.apply(&frame)?;
//! let read = Frame::parse(&edited.frame)?;
//! assert_eq!(read.metalayers[1].content, b"\xa6celsiu");
//! assert_eq!(read.vlmetalayers[0].name, "source");
//! assert!(read.header.has_vlmetalayers);
//! assert_eq!(read.header.frame_len, edited.frame.len() as u64);
//! // The chunks are where they were, as they were.
//! let (start, end) = (read.header.header_len, read.trailer.offset as usize);
//! assert_eq!(edited.frame[start..end], frame[start..end]);
//! # Ok::<(), metalayer::frame::edit::EditError>(())
//! ```

mod chunk;
mod error;
mod replace;
mod sections;
#[cfg(test)]
mod tests;
#[cfg(feature = "value")]
mod value;

use std::borrow::Cow;
use std::io::Write;
use std::path::Path;
use std::string::String;
use std::vec::Vec;

use super::{
    FrameBytes, FrameError, FrameRef, MAX_METALAYERS, MetalayerRef, Section, parse_frame_borrowed, span, wide,
};
use crate::{EncodeError, Metalayer};

pub use chunk::{MAX_VALUE_LEN, memcpyed_chunk};
pub use error::EditError;
pub use replace::{Holder, MAX_RESTARTS, Original, WriteOptions, replace_file};

use replace::Faults;

/// The changes to make to a frame's metadata, in order.
///
/// ```
/// use metalayer::frame::edit::Edit;
///
/// let edit = Edit::new().vlmeta("unit", b"\xa1K").delete_vlmeta("old");
/// assert!(!edit.is_empty());
/// assert!(Edit::new().is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Edit {
    changes: Vec<Change>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Change {
    Meta(String, Vec<u8>),
    Vlmeta(String, Vec<u8>),
    Delete(String),
}

/// One change made (or, in a dry run, to be made): the section, the name, the content stored
/// before and after it (a metalayer's bytes; for a vlmetalayer, the Blosc2 chunk that holds its
/// value). `before` is `None` for an added vlmetalayer, `after` for a deleted one.
///
/// ```
/// use metalayer::frame::{edit::Edit, Section};
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
/// let frame = std::fs::read(path).unwrap();
/// let edited = Edit::new().meta("scale", b"\x04").apply(&frame)?;
/// let change = &edited.changes[0];
/// assert_eq!((change.section, change.name.as_str()), (Section::Header, "scale"));
/// assert_eq!((change.before.as_deref(), change.after.as_deref()), (Some(&b"\x03"[..]), Some(&b"\x04"[..])));
/// # Ok::<(), metalayer::frame::edit::EditError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Changed {
    /// The header (a metalayer) or the trailer (a vlmetalayer).
    pub section: Section,
    /// The metalayer's or vlmetalayer's name.
    pub name: String,
    /// The content before.
    pub before: Option<Vec<u8>>,
    /// The content after.
    pub after: Option<Vec<u8>>,
}

/// A frame edited in memory: its bytes and the changes made.
///
/// ```
/// use metalayer::frame::edit::Edit;
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
/// let frame = std::fs::read(path).unwrap();
/// let edited = Edit::new().vlmeta("k", b"\x01").apply(&frame)?;
/// // The trailer held none: it gains a pair (fixstr "k" and an int32 offset, 7 bytes) and a
/// // content (a bin32 header and a 33-byte memcpyed chunk, 38 bytes).
/// assert_eq!(edited.frame.len(), frame.len() + 7 + 38);
/// assert_eq!(edited.changes.len(), 1);
/// # Ok::<(), metalayer::frame::edit::EditError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Edited {
    /// The whole new frame.
    pub frame: Vec<u8>,
    /// The changes, in the order of the edit.
    pub changes: Vec<Changed>,
}

/// How a plan gets a vlmetalayer's stored chunk: borrowed from the frame, or read from its file.
type ContentOf<'c, 'f> = dyn Fn(&MetalayerRef<'f>) -> Result<Cow<'f, [u8]>, FrameError> + 'c;

/// The new header and trailer, with what lies between them in the old frame.
struct Plan {
    header: Vec<u8>,
    body: (u64, u64),
    trailer: Vec<u8>,
    changes: Vec<Changed>,
}

impl Edit {
    /// No change yet.
    ///
    /// ```
    /// assert!(metalayer::frame::edit::Edit::new().is_empty());
    /// ```
    pub fn new() -> Edit {
        Edit::default()
    }

    /// Whether the edit changes nothing.
    ///
    /// ```
    /// assert!(!metalayer::frame::edit::Edit::new().delete_vlmeta("k").is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// Sets the content of the metalayer `name` to `bytes`, which must have the stored
    /// content's length.
    ///
    /// ```
    /// use metalayer::frame::{edit::Edit, Frame};
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
    /// let frame = std::fs::read(path).unwrap();
    /// let edited = Edit::new().meta("units", b"\xa6kelvyn").apply(&frame)?;
    /// assert_eq!(Frame::parse(&edited.frame)?.metalayers[1].content, b"\xa6kelvyn");
    /// # Ok::<(), metalayer::frame::edit::EditError>(())
    /// ```
    pub fn meta(mut self, name: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Edit {
        self.changes.push(Change::Meta(name.into(), bytes.into()));
        self
    }

    /// Sets the metalayer `name` to a value of a `#[metalayer]` type, encoded.
    ///
    /// ```
    /// use metalayer::b2nd::B2ndV1;
    /// use metalayer::frame::{edit::Edit, Frame};
    /// use metalayer::prelude::*;
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/dtype_i4le.b2nd");
    /// let frame = std::fs::read(path).unwrap();
    /// // The same array read as unsigned: "<u4" has the length of "<i4".
    /// let mut meta = B2ndV1::decode(Frame::parse(&frame)?.metalayers[0].content.as_slice())?;
    /// meta.dtype = "<u4".into();
    /// let edited = Edit::new().meta_value("b2nd", &meta)?.apply(&frame)?;
    /// assert!(Frame::parse(&edited.frame)?.metalayers[0].content.ends_with(b"\xdb\0\0\0\x03<u4"));
    ///
    /// // A longer dtype is refused: the metalayer would change length.
    /// meta.dtype = "<u4 ".into();
    /// assert!(Edit::new().meta_value("b2nd", &meta)?.apply(&frame).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn meta_value<T: Metalayer>(self, name: impl Into<String>, value: &T) -> Result<Edit, EncodeError> {
        let bytes = value.encode()?;
        Ok(self.meta(name, bytes))
    }

    /// Sets the vlmetalayer `name` to the msgpack value `msgpack` (stored in a memcpyed chunk):
    /// replaced where it is, or added after the others.
    ///
    /// ```
    /// use metalayer::frame::{edit::Edit, Frame};
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/updated_deleted.b2nd");
    /// let frame = std::fs::read(path).unwrap();
    /// let edited = Edit::new().vlmeta("a", b"\x02").vlmeta("z", b"\x03").apply(&frame)?;
    /// let names: Vec<String> = Frame::parse(&edited.frame)?.vlmetalayers.into_iter().map(|m| m.name).collect();
    /// assert_eq!(names, ["a", "b", "d", "e", "z"]);
    /// # Ok::<(), metalayer::frame::edit::EditError>(())
    /// ```
    pub fn vlmeta(mut self, name: impl Into<String>, msgpack: impl Into<Vec<u8>>) -> Edit {
        self.changes.push(Change::Vlmeta(name.into(), msgpack.into()));
        self
    }

    /// Sets the vlmetalayer `name` to a value of a `#[metalayer]` type, encoded.
    ///
    /// ```
    /// use metalayer::caterva::CatervaV0;
    /// use metalayer::frame::{edit::Edit, Frame};
    /// use metalayer::prelude::*;
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
    /// let frame = std::fs::read(path).unwrap();
    /// let value = CatervaV0 { shape: vec![4], chunkshape: vec![2], blockshape: vec![1] };
    /// let edited = Edit::new().vlmeta_value("layout", &value)?.apply(&frame)?;
    /// let read = Frame::parse(&edited.frame)?;
    /// let stored = metalayer::vlmeta::decompress(&read.vlmetalayers[0].content, 1 << 20)?;
    /// assert_eq!(stored, value.encode()?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn vlmeta_value<T: Metalayer>(self, name: impl Into<String>, value: &T) -> Result<Edit, EncodeError> {
        let bytes = value.encode()?;
        Ok(self.vlmeta(name, bytes))
    }

    /// Deletes the vlmetalayer `name`, which must be in the frame.
    ///
    /// ```
    /// use metalayer::frame::{edit::Edit, Frame};
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/updated_deleted.b2nd");
    /// let frame = std::fs::read(path).unwrap();
    /// let edited = Edit::new().delete_vlmeta("b").apply(&frame)?;
    /// assert_eq!(Frame::parse(&edited.frame)?.vlmetalayers.len(), 3);
    /// assert!(Edit::new().delete_vlmeta("zz").apply(&frame).is_err());
    /// # Ok::<(), metalayer::frame::edit::EditError>(())
    /// ```
    pub fn delete_vlmeta(mut self, name: impl Into<String>) -> Edit {
        self.changes.push(Change::Delete(name.into()));
        self
    }

    /// Applies the edit to a whole frame held in memory (bytes after `frame_len` are left out).
    /// See the [module documentation](self).
    ///
    /// ```
    /// use metalayer::frame::edit::Edit;
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
    /// let frame = std::fs::read(path).unwrap();
    /// // An empty edit writes the header and the trailer again: python-blosc2's very bytes.
    /// assert_eq!(Edit::new().apply(&frame)?.frame, frame);
    /// # Ok::<(), metalayer::frame::edit::EditError>(())
    /// ```
    pub fn apply(&self, frame: &[u8]) -> Result<Edited, EditError> {
        let read = parse_frame_borrowed(frame)?;
        let header = frame.get(..read.header.header_len).unwrap_or_default();
        let plan = self.plan(header, &read, &|m| Ok(Cow::Borrowed(m.content)))?;
        let (start, end) = plan.body;
        let mut bytes = plan.header;
        bytes.extend_from_slice(span(frame, start, end.saturating_sub(start)));
        bytes.extend_from_slice(&plan.trailer);
        Ok(Edited {
            frame: bytes,
            changes: plan.changes,
        })
    }

    /// What [`write`](Self::write) would change in the frame file or sparse-frame directory
    /// `path`, without writing anything: a dry run.
    ///
    /// ```
    /// use metalayer::frame::{edit::Edit, Section};
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/updated_deleted.b2nd");
    /// let changes = Edit::new().delete_vlmeta("d").preview(path)?;
    /// assert_eq!((changes[0].section, changes[0].name.as_str()), (Section::Trailer, "d"));
    /// assert!(changes[0].before.is_some() && changes[0].after.is_none());
    /// # Ok::<(), metalayer::frame::edit::EditError>(())
    /// ```
    pub fn preview(&self, path: impl AsRef<Path>) -> Result<Vec<Changed>, EditError> {
        let (file, sparse_dir) = super::io::frame_file(path.as_ref())?;
        let source = super::io::open_regular(&file)?;
        Ok(self.plan_checked(&source, &file, sparse_dir, None)?.changes)
    }

    /// Applies the edit to the frame file or sparse-frame directory `path` (whose
    /// `chunks.b2frame` is edited), replacing the file atomically under a lock, with the
    /// default [`WriteOptions`]. See the [module documentation](self).
    ///
    /// ```
    /// use metalayer::frame::{edit::Edit, Frame};
    ///
    /// let dir = std::env::temp_dir().join(format!("metalayer-edit-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let path = dir.join("a.b2nd");
    /// let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/updated_deleted.b2nd");
    /// std::fs::copy(fixture, &path).unwrap();
    ///
    /// Edit::new().vlmeta("b", b"\x07").delete_vlmeta("a").write(&path)?;
    /// let frame = Frame::open(&path)?;
    /// let names: Vec<&str> = frame.vlmetalayers.iter().map(|m| m.name.as_str()).collect();
    /// assert_eq!(names, ["b", "d", "e"]);
    /// assert_eq!(std::fs::metadata(&path).unwrap().len(), frame.header.frame_len);
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// # Ok::<(), metalayer::frame::edit::EditError>(())
    /// ```
    pub fn write(&self, path: impl AsRef<Path>) -> Result<Vec<Changed>, EditError> {
        self.write_with(path, &WriteOptions::default())
    }

    /// [`write`](Self::write), with the lock taken as `options` say.
    ///
    /// ```
    /// use std::time::Duration;
    /// use metalayer::frame::edit::{Edit, EditError, WriteOptions};
    ///
    /// let dir = std::env::temp_dir().join(format!("metalayer-edit-with-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let path = dir.join("a.b2nd");
    /// let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
    /// std::fs::copy(fixture, &path).unwrap();
    ///
    /// // Another process's edit holds the lock (here, this process's own lock on another handle).
    /// let other = std::fs::File::open(&path).unwrap();
    /// other.lock().unwrap();
    /// let options = WriteOptions::new().wait(Duration::from_millis(50));
    /// let err = Edit::new().vlmeta("k", b"\x01").write_with(&path, &options).unwrap_err();
    /// assert!(matches!(err, EditError::Locked { .. }));
    /// assert_eq!(std::fs::read(&path).unwrap(), std::fs::read(fixture).unwrap());
    /// drop(other);
    /// Edit::new().vlmeta("k", b"\x01").write_with(&path, &options)?;
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// # Ok::<(), EditError>(())
    /// ```
    pub fn write_with(&self, path: impl AsRef<Path>, options: &WriteOptions) -> Result<Vec<Changed>, EditError> {
        self.write_faulted(path.as_ref(), options, &mut Faults::default())
    }

    /// Writes the frame stored in `original` at `offset`, `len` bytes long (a member of a `.b2z`
    /// store, say), edited, to `out`: the new header, the chunks copied from `original`, the new
    /// trailer. Returns the changes and the new frame's length. `original` is read only; it is
    /// what [`replace_file`] gives its writer, for a caller that rewrites the container.
    ///
    /// ```
    /// use metalayer::frame::edit::{replace_file, Edit, EditError, WriteOptions};
    /// use metalayer::frame::Frame;
    ///
    /// let dir = std::env::temp_dir().join(format!("metalayer-member-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// let path = dir.join("a.b2nd");
    /// let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
    /// std::fs::copy(fixture, &path).unwrap();
    /// // The whole file is the frame here: 315 bytes at byte 0. A store's writer would copy the
    /// // other members around it and rewrite the zip's records.
    /// let edit = Edit::new().vlmeta("k", b"\x01");
    /// let (changes, len) = replace_file(&path, &WriteOptions::new(), |original, new| {
    ///     edit.write_frame_at(original, 0, 315, new)
    /// })?;
    /// assert_eq!((changes.len(), len), (1, std::fs::metadata(&path).unwrap().len()));
    /// assert_eq!(Frame::open(&path)?.vlmetalayers[0].name, "k");
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_frame_at(
        &self,
        original: &Original<'_>,
        offset: u64,
        len: u64,
        out: &mut dyn Write,
    ) -> Result<(Vec<Changed>, u64), EditError> {
        let path = original.path();
        let plan = self.plan_checked(original.file(), path, None, Some((offset, len)))?;
        let (start, end) = plan.body;
        out.write_all(&plan.header).map_err(|e| EditError::write(path, e))?;
        let body = (offset.saturating_add(start), offset.saturating_add(end));
        replace::copy_range(original.file(), out, body).map_err(|e| EditError::write(path, e))?;
        out.write_all(&plan.trailer).map_err(|e| EditError::write(path, e))?;
        let written = wide(plan.header.len())
            .saturating_add(end.saturating_sub(start))
            .saturating_add(wide(plan.trailer.len()));
        Ok((plan.changes, written))
    }

    /// What [`write_frame_at`](Self::write_frame_at) would change in the frame stored in `path`
    /// at `offset`, `len` bytes long: a dry run.
    ///
    /// ```
    /// use metalayer::frame::edit::Edit;
    ///
    /// let zip = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-stores/dictstore.b2z");
    /// let changes = Edit::new().vlmeta("k", b"\x01").preview_at(zip, 1940, 607)?;
    /// assert!(changes[0].before.is_none());
    /// # Ok::<(), metalayer::frame::edit::EditError>(())
    /// ```
    pub fn preview_at(&self, path: impl AsRef<Path>, offset: u64, len: u64) -> Result<Vec<Changed>, EditError> {
        let path = path.as_ref();
        let source = super::io::open_regular(path)?;
        Ok(self.plan_checked(&source, path, None, Some((offset, len)))?.changes)
    }

    /// [`write_with`](Self::write_with), with failures injected.
    fn write_faulted(
        &self,
        path: &Path,
        options: &WriteOptions,
        faults: &mut Faults,
    ) -> Result<Vec<Changed>, EditError> {
        let (file, sparse_dir) = super::io::frame_file(path)?;
        replace::replace_with(&file, options, faults, |original, new, faults| {
            let plan = self.plan_checked(original.file(), original.path(), sparse_dir, None)?;
            let write_error = |e| EditError::write(original.path(), e);
            replace::write_piece(new, &plan.header, faults).map_err(write_error)?;
            replace::copy_body(original.file(), new, plan.body, faults).map_err(write_error)?;
            replace::write_piece(new, &plan.trailer, faults).map_err(write_error)?;
            Ok(plan.changes)
        })
    }

    /// The plan for the frame in `file` (named `path`), whole or at `(offset, len)`, its body
    /// checked first ([`check_body_from`](super::check_body_from)): what an edit copies must read
    /// back.
    fn plan_checked(
        &self,
        file: &std::fs::File,
        path: &Path,
        sparse_dir: Option<&Path>,
        at: Option<(u64, u64)>,
    ) -> Result<Plan, EditError> {
        let (bytes, offset) = match at {
            Some((offset, len)) => (super::io::read_frame_bytes_file_at(file, path, offset, len)?, offset),
            None => (super::io::read_frame_bytes_file(file, path, sparse_dir)?, 0),
        };
        let frame = bytes.frame()?;
        let window = super::Window::new(file, offset, frame.header.frame_len)
            .map_err(|source| FrameError::from(super::FrameErrorKind::Read { source }))?;
        super::check_body_from(window, &frame, sparse_dir)?;
        self.plan_bytes(&bytes)
    }

    /// The plan for a frame read from a file.
    fn plan_bytes(&self, bytes: &FrameBytes) -> Result<Plan, EditError> {
        let read = bytes.frame()?;
        self.plan(bytes.header(), &read, &|m| bytes.content(m))
    }

    /// The new header and trailer of `frame`, whose header's bytes are `header`; `content`
    /// gives a vlmetalayer's stored chunk.
    fn plan<'f>(&self, header: &[u8], frame: &FrameRef<'f>, content: &ContentOf<'_, 'f>) -> Result<Plan, EditError> {
        let mut changes = Vec::with_capacity(self.changes.len());
        let metas = self.metalayers(frame, &mut changes)?;
        let mut vlmetas = frame
            .vlmetalayers
            .iter()
            .map(|m| Ok((String::from(m.name), content(m)?.into_owned())))
            .collect::<Result<Vec<_>, FrameError>>()?;
        self.vlmetalayers(&mut vlmetas, &mut changes)?;
        let trailer_at = frame.trailer.offset;
        let pairs: Vec<(&str, &[u8])> = vlmetas.iter().map(|(n, c)| (n.as_str(), c.as_slice())).collect();
        let trailer = sections::trailer(&pairs, frame.trailer.fingerprint, trailer_at)?;
        let frame_len = trailer_at.saturating_add(wide(trailer.len()));
        let contents: Vec<(u64, &[u8])> = metas.iter().map(|(at, c)| (*at, c.as_slice())).collect();
        let header = sections::header(header, &contents, frame_len, !vlmetas.is_empty())?;
        let body = (wide(frame.header.header_len), trailer_at);
        // Restore the order of the edit: the metalayers' changes were gathered first.
        changes.sort_by_key(|(i, _)| *i);
        let changes = changes.into_iter().map(|(_, c)| c).collect();
        Ok(Plan {
            header,
            body,
            trailer,
            changes,
        })
    }

    /// The metalayers' new contents, by their offset in the frame.
    fn metalayers(
        &self,
        frame: &FrameRef<'_>,
        changes: &mut Vec<(usize, Changed)>,
    ) -> Result<Vec<(u64, Vec<u8>)>, EditError> {
        let mut contents = Vec::new();
        for (i, change) in self.changes.iter().enumerate() {
            let Change::Meta(name, bytes) = change else { continue };
            let Some(m) = frame.metalayers.iter().find(|m| m.name == name) else {
                return Err(EditError::NoMetalayer { name: name.clone() });
            };
            if bytes.len() != m.content.len() {
                return Err(EditError::MetalayerLength {
                    name: name.clone(),
                    offset: m.offset,
                    stored: m.content.len(),
                    given: bytes.len(),
                });
            }
            // The header's contents are found by the offset of their bin32 marker's content.
            let at = m.offset;
            contents.retain(|(offset, _)| *offset != at);
            contents.push((at, bytes.clone()));
            let before = Some(m.content.to_vec());
            let after = Some(bytes.clone());
            changes.push((i, changed(Section::Header, name, before, after)));
        }
        Ok(contents)
    }

    /// The vlmetalayers after the edit's changes, each `(name, chunk)`.
    fn vlmetalayers(
        &self,
        vlmetas: &mut Vec<(String, Vec<u8>)>,
        changes: &mut Vec<(usize, Changed)>,
    ) -> Result<(), EditError> {
        for (i, change) in self.changes.iter().enumerate() {
            let (name, chunk) = match change {
                Change::Meta(..) => continue,
                Change::Vlmeta(name, value) => (name, Some(new_chunk(name, value)?)),
                Change::Delete(name) => (name, None),
            };
            let at = vlmetas.iter().position(|(n, _)| n == name);
            let before = match (at, &chunk) {
                (Some(at), Some(chunk)) => vlmetas.get_mut(at).map(|(_, c)| std::mem::replace(c, chunk.clone())),
                (None, Some(chunk)) => {
                    vlmetas.push((name.clone(), chunk.clone()));
                    None
                }
                (Some(at), None) => Some(vlmetas.remove(at).1),
                (None, None) => return Err(EditError::NoVlmetalayer { name: name.clone() }),
            };
            changes.push((i, changed(Section::Trailer, name, before, chunk)));
        }
        if vlmetas.len() > MAX_METALAYERS {
            return Err(EditError::TooManyVlmetalayers { count: vlmetas.len() });
        }
        Ok(())
    }
}

/// The chunk of a vlmetalayer's new value, its name checked.
fn new_chunk(name: &str, value: &[u8]) -> Result<Vec<u8>, EditError> {
    let max_name = metalayer_runtime::wire::Wire::FixStr.max_len().unwrap_or(31);
    if wide(name.len()) > max_name {
        return Err(EditError::NameTooLong { name: name.into() });
    }
    if value.is_empty() {
        return Err(EditError::EmptyValue { name: name.into() });
    }
    memcpyed_chunk(value).ok_or_else(|| EditError::ValueTooLarge {
        name: name.into(),
        len: value.len(),
        max: MAX_VALUE_LEN,
    })
}

fn changed(section: Section, name: &str, before: Option<Vec<u8>>, after: Option<Vec<u8>>) -> Changed {
    Changed {
        section,
        name: name.into(),
        before,
        after,
    }
}
