//! One member of a `.b2z` edited: the zip is locked as a whole, written anew beside the original
//! and renamed over it ([`replace_file`]), so that edits of two members at once are made one
//! after the other. The new zip holds the members before the edited one, copied; its local
//! header with the new CRC-32 and sizes; its edited frame; the members after it, copied; the
//! central directory with the member's CRC-32 and sizes and the later members' offsets moved;
//! the end record with the directory's offset moved.
//!
//! Zips that this cannot rewrite by their 32-bit fields are refused: zip64 ones, and members
//! whose sizes follow their data (a data descriptor). python-blosc2 writes neither. A zip that
//! [`Archive::check_for_edit`] refuses (entries out of place, overlapping, or of one name) is
//! refused too, before anything is written.

use std::fmt;
use std::format;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::prelude::rust_2024::*;

use super::zip::{Archive, CentralEntry, DATA_DESCRIPTOR, EditLayout, LocalHeader, read_at};
use super::{Member, Place, shown_name};
use crate::frame::edit::{Changed, Edit, EditError, Original, WriteOptions, replace_file};
use crate::frame::{Frame, Window};

/// Where a central directory entry's CRC-32 is (its sizes follow), and its local header's
/// offset; where the end record's central directory offset is.
const CENTRAL_CRC_AT: usize = 16;
const CENTRAL_OFFSET_AT: usize = 42;
const END_RECORD_OFFSET_AT: usize = 16;

/// A member of a `.b2z` found for an edit: where it lies, its frame, and the zip's records.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ZipMember {
    /// The member, its place a [`Place::Zip`].
    pub member: Member,
    /// Its frame, header and trailer.
    pub frame: Frame,
    /// The zip's central directory.
    pub archive: Archive,
    /// The zip, checked for a rewrite.
    pub layout: EditLayout,
    /// The member's central directory entry: its index in `archive.entries`.
    pub index: usize,
}

impl ZipMember {
    /// Where its frame starts in the zip file, and its length.
    pub fn range(&self) -> (u64, u64) {
        (self.member.place.offset(), self.member.place.len().unwrap_or(0))
    }
}

/// Why a member could not be edited.
#[derive(Debug)]
#[non_exhaustive]
pub enum MemberEditError<E> {
    /// The zip or the member cannot be rewritten (the message names the zip and the byte).
    Refused(String),
    /// The edit of the frame, or the writing of the new zip, failed.
    Edit(EditError),
    /// The caller's `build` gave this error.
    Build(E),
}

impl<E: fmt::Display> fmt::Display for MemberEditError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MemberEditError::Refused(message) => f.write_str(message),
            MemberEditError::Edit(e) => write!(f, "{e}"),
            MemberEditError::Build(e) => write!(f, "{e}"),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for MemberEditError<E> {}

impl<E> From<EditError> for MemberEditError<E> {
    fn from(e: EditError) -> Self {
        MemberEditError::Edit(e)
    }
}

/// Finds the member `name` (its name as stored, or as shown) of the zip open as `zip` (named
/// `path` in messages), readable in place, and reads its frame: a zip that
/// [`Archive::check_for_edit`] accepts, whose records this editor rewrites (no zip64, and no
/// data descriptor after the member). Everything is read through the one open file, so that it
/// is of one version of the zip. `Err` names the zip and what is wrong.
///
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-stores/dictstore.b2z");
/// let mut file = std::fs::File::open(path).unwrap();
/// let found = metalayer::store::edit::find_member(&mut file, path.as_ref(), "big.b2nd").unwrap();
/// assert_eq!(found.range(), (1940, 607));
/// assert_eq!(found.frame.metalayers[0].name, "b2nd");
/// let err = metalayer::store::edit::find_member(&mut file, path.as_ref(), "none").unwrap_err();
/// assert!(err.ends_with("the zip has no member \"none\""), "{err}");
/// ```
pub fn find_member(zip: &mut File, path: &Path, name: &str) -> Result<ZipMember, String> {
    let refused = |message: String| format!("{}: {message}", path.display());
    let archive = Archive::read(zip).map_err(|e| refused(e.to_string()))?;
    let layout = archive.check_for_edit(zip).map_err(|e| refused(e.to_string()))?;
    if layout.zip64 {
        return Err(refused(
            "a zip64 store is not rewritten; its members are read only".into(),
        ));
    }
    let found = |e: &CentralEntry| e.name == name.as_bytes() || e.shown_name() == name;
    let Some(index) = archive.entries.iter().position(|e| !e.name.ends_with(b"/") && found(e)) else {
        return Err(refused(format!("the zip has no member {name:?}")));
    };
    let entry = archive
        .entries
        .get(index)
        .ok_or_else(|| refused("no such entry".into()))?;
    let located = match archive.locate(zip, entry).map_err(|e| refused(e.to_string()))? {
        Ok(located) => located,
        Err(message) => return Err(refused(message)),
    };
    if entry.flags & DATA_DESCRIPTOR != 0 {
        return Err(refused(format!(
            "the member at byte {} has a data descriptor; such a member is not rewritten",
            located.header_offset
        )));
    }
    let frame = Window::new(&*zip, located.offset, located.size)
        .map_err(|e| refused(e.to_string()))
        .and_then(|window| Frame::read(window).map_err(|e| refused(error_chain(&e))))?;
    Ok(ZipMember {
        member: Member {
            raw_name: entry.name.clone(),
            name: shown_name(&entry.name),
            place: Place::Zip {
                header_offset: located.header_offset,
                offset: located.offset,
                len: located.size,
            },
        },
        frame,
        archive,
        layout,
        index,
    })
}

/// An error and its sources, joined by `: `.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let more = s.to_string();
        if !text.ends_with(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = s.source();
    }
    text
}

/// Edits the member `name` of the zip at `zip`, rewriting the zip under its lock, with the edit
/// `build` makes from the member's frame; the changes made, and what `build` gave beside the
/// edit. The member is found and read once the zip is locked, in the zip as it is then.
///
/// ```
/// use metalayer::frame::edit::{Edit, WriteOptions};
/// use metalayer::store::{Store, edit::edit_member};
///
/// let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-stores/dictstore.b2z");
/// let dir = std::env::temp_dir().join(format!("metalayer-doc-edit-member-{}", std::process::id()));
/// std::fs::create_dir(&dir).unwrap(); // made here: removing it removes nothing of another's
/// let zip = dir.join("store.b2z");
/// std::fs::copy(fixture, &zip).unwrap();
/// let (changes, ()) = edit_member(&zip, "big.b2nd", &WriteOptions::new(), |_frame| {
///     Ok::<_, String>((Edit::new().vlmeta("note", b"\xa2hi".to_vec()), ()))
/// })
/// .unwrap();
/// assert_eq!(changes[0].name, "note");
/// let store = Store::open(&zip).unwrap();
/// let big = store.members().find(|m| m.name == "big.b2nd").unwrap();
/// let frame = store.read_frame(big)?.frame()?.to_owned();
/// assert_eq!(frame.vlmetalayers.last().unwrap().name, "note");
/// std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
pub fn edit_member<T, E>(
    zip: &Path,
    name: &str,
    options: &WriteOptions,
    mut build: impl FnMut(&Frame) -> Result<(Edit, T), E>,
) -> Result<(Vec<Changed>, T), MemberEditError<E>> {
    replace_file(zip, options, |original, out| {
        let path = original.path();
        let write = |e: io::Error| MemberEditError::Edit(EditError::write(path, e));
        let mut source = original.file().try_clone().map_err(write)?;
        let found = find_member(&mut source, path, name).map_err(MemberEditError::Refused)?;
        let (edit, made) = build(&found.frame).map_err(MemberEditError::Build)?;
        let (offset, size) = found.range();
        let (crc, len, changes) = write_member(&mut source, out, original, &found, &edit)?;
        let delta = i128::from(len).saturating_sub(i128::from(size));
        copy(
            &mut source,
            out,
            offset.saturating_add(size),
            found.archive.directory.offset,
        )
        .map_err(write)?;
        write_directory(&mut source, out, &found, (crc, len), delta).map_err(write)?;
        Ok((changes, made))
    })
}

/// Copies `start..end` of `source` to `out`.
fn copy(source: &mut File, out: &mut File, start: u64, end: u64) -> io::Result<()> {
    source.seek(SeekFrom::Start(start))?;
    let len = end.saturating_sub(start);
    if io::copy(&mut source.take(len), out)? < len {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "the zip changed while it was read",
        ));
    }
    Ok(())
}

/// The members before the found one, its local header and its edited frame; its CRC-32, its
/// length and the changes made.
fn write_member<E>(
    source: &mut File,
    out: &mut File,
    original: &Original<'_>,
    found: &ZipMember,
    edit: &Edit,
) -> Result<(u32, u64, Vec<Changed>), MemberEditError<E>> {
    let path = original.path();
    let write = |e: io::Error| MemberEditError::Edit(EditError::write(path, e));
    let (offset, size) = found.range();
    let Place::Zip { header_offset, .. } = found.member.place else {
        return Err(MemberEditError::Refused(format!(
            "{}: not a zip member",
            path.display()
        )));
    };
    copy(source, out, 0, offset).map_err(write)?;
    let mut frame = Crc {
        out: &mut *out,
        crc: Crc32::new(),
    };
    let (changes, len) = edit.write_frame_at(original, offset, size, &mut frame)?;
    let crc = frame.crc.finish();
    let len32 = u32::try_from(len)
        .map_err(|_| MemberEditError::Refused(format!("{}: the edited member needs zip64 sizes", path.display())))?;
    let mut fields = crc.to_le_bytes().to_vec();
    fields.extend_from_slice(&len32.to_le_bytes());
    fields.extend_from_slice(&len32.to_le_bytes());
    out.seek(SeekFrom::Start(header_offset.saturating_add(LocalHeader::CRC32_AT)))
        .map_err(write)?;
    out.write_all(&fields).map_err(write)?;
    out.seek(SeekFrom::End(0)).map_err(write)?;
    Ok((crc, len, changes))
}

/// The central directory, the found member's entry given its new CRC-32 and length and the later
/// members' offsets moved by `delta`; then the end record, its directory offset moved.
fn write_directory(
    source: &mut File,
    out: &mut File,
    found: &ZipMember,
    (crc, len): (u32, u64),
    delta: i128,
) -> io::Result<()> {
    let moved = |at: u64| {
        u32::try_from(i128::from(at).saturating_add(delta))
            .map_err(|_| io::Error::other("the rewritten zip needs zip64 offsets"))
    };
    let dir = &found.archive.directory;
    let edited = found.archive.entries.get(found.index).map(|e| e.header_offset);
    let mut central = read_at(source, dir.offset, dir.size)?;
    for entry in &found.archive.entries {
        let rel = usize::try_from(entry.at.saturating_sub(dir.offset)).map_err(io::Error::other)?;
        if Some(entry.header_offset) == edited {
            let len32 = u32::try_from(len).map_err(io::Error::other)?;
            put(&mut central, rel.saturating_add(CENTRAL_CRC_AT), crc)?;
            put(&mut central, rel.saturating_add(CENTRAL_CRC_AT + 4), len32)?;
            put(&mut central, rel.saturating_add(CENTRAL_CRC_AT + 8), len32)?;
        } else if edited.is_some_and(|e| entry.header_offset > e) {
            put(
                &mut central,
                rel.saturating_add(CENTRAL_OFFSET_AT),
                moved(entry.header_offset)?,
            )?;
        }
    }
    out.write_all(&central)?;
    let end = source.seek(SeekFrom::End(0))?;
    let cd_end = dir.offset.saturating_add(dir.size);
    let mut tail = read_at(source, cd_end, end.saturating_sub(cd_end))?;
    let rel = usize::try_from(dir.end_record.saturating_sub(cd_end)).map_err(io::Error::other)?;
    put(&mut tail, rel.saturating_add(END_RECORD_OFFSET_AT), moved(dir.offset)?)?;
    out.write_all(&tail)
}

/// Writes a little-endian `u32` at `at` of `bytes`.
fn put(bytes: &mut [u8], at: usize, value: u32) -> io::Result<()> {
    let slot = bytes
        .get_mut(at..at.saturating_add(4))
        .ok_or_else(|| io::Error::other("a zip record ends early"))?;
    slot.copy_from_slice(&value.to_le_bytes());
    Ok(())
}

/// A writer that computes the CRC-32 of what passes through it.
struct Crc<'a> {
    out: &'a mut File,
    crc: Crc32,
}

impl Write for Crc<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.out.write(buf)?;
        self.crc.update(buf.get(..n).unwrap_or_default());
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The CRC-32 of zip (ISO-HDLC: polynomial 0xEDB88320 reflected, initial and final 0xFFFFFFFF),
/// a byte at a time through a table built at compile time.
///
/// ```
/// use metalayer::store::edit::Crc32;
///
/// // The standard check value: the CRC-32 of "123456789".
/// let mut crc = Crc32::new();
/// crc.update(b"1234");
/// crc.update(b"56789");
/// assert_eq!(crc.finish(), 0xCBF4_3926);
/// assert_eq!(Crc32::new().finish(), 0);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Crc32(u32);

// A table built at compile time: its indices are in range, and overflow is a build error.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]
const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
};

impl Crc32 {
    /// The CRC of no bytes yet.
    pub const fn new() -> Crc32 {
        Crc32(0xFFFF_FFFF)
    }

    /// Adds `bytes`.
    pub fn update(&mut self, bytes: &[u8]) {
        let mut c = self.0;
        for &b in bytes {
            let i = usize::from((c as u8) ^ b);
            c = CRC_TABLE.get(i).copied().unwrap_or_default() ^ (c >> 8);
        }
        self.0 = c;
    }

    /// The CRC-32 of the bytes added.
    pub const fn finish(self) -> u32 {
        self.0 ^ 0xFFFF_FFFF
    }
}

impl Default for Crc32 {
    fn default() -> Self {
        Crc32::new()
    }
}
