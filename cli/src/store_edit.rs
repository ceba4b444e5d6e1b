//! `metalayer set store.b2z/member`: one member of a `.b2z` store edited. The zip is locked as a
//! whole, written anew beside the original and renamed over it
//! (`metalayer::frame::edit::replace_file`), so that edits of two members at once are made one
//! after the other: the
//! members before it copied, its local header with the new CRC-32 and sizes, its edited frame,
//! the members after it copied, the central directory with the member's CRC-32 and sizes and the
//! later members' offsets moved, the end record with the directory's offset moved.
//!
//! Zips that this cannot rewrite in place of their records are refused: zip64 ones, and members
//! whose sizes follow their data (a data descriptor). python-blosc2 writes neither.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use metalayer::frame::edit::{Changed, Edit, EditError, Original, WriteOptions, replace_file};
use metalayer::frame::{Frame, Window, read_frame_from};

use crate::output::chain;

use crate::store::{self, Entry, Member};

/// Where a local header's CRC-32 and sizes are, and a central directory entry's, and the
/// entry's local header offset; where the end record's central directory offset is.
const LOCAL_CRC_AT: u64 = 14;
const CENTRAL_CRC_AT: u64 = 16;
const CENTRAL_OFFSET_AT: u64 = 42;
const END_RECORD_OFFSET_AT: u64 = 16;

/// A path that names a member of a store: the `.b2z` file among its ancestors, and the rest.
pub fn member_path(path: &Path) -> Option<(PathBuf, String)> {
    if path.exists() {
        return None;
    }
    let zip = path
        .ancestors()
        .skip(1)
        .find(|a| a.is_file() && a.extension().is_some_and(|e| e == store::STORE_EXTENSION))?;
    let rest = path.strip_prefix(zip).ok()?;
    let name: Vec<String> = rest
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Some((zip.to_path_buf(), name.join("/")))
}

/// The member `name` of the zip open as `zip`, readable in place, its frame, and the zip's
/// layout: a zip that [`store::check_for_edit`] accepts and whose records this editor rewrites
/// (no zip64 records, and no data descriptor after the member). Everything is read through the
/// one open file, so that it is of one version of the zip.
pub fn find_member(zip: &mut File, name: &str) -> Result<(Member, Frame, store::Layout), String> {
    let layout = store::check_for_edit(zip).map_err(|e| e.to_string())?;
    if layout.zip64 {
        return Err("a zip64 store is not rewritten; its members are read only".to_owned());
    }
    let entries = store::members_in(zip).map_err(|e| e.to_string())?;
    let m = match entries.into_iter().find(|e| e.name() == name) {
        Some(Entry::Member(m)) => m,
        Some(Entry::Refused { message, .. }) => return Err(message),
        None => return Err(format!("the zip has no member {name:?}")),
    };
    let Some(&(_, flags, _)) = layout.entries.iter().find(|(_, _, at)| *at == m.header_offset) else {
        return Err(format!(
            "no central directory entry for the member at byte {}",
            m.header_offset
        ));
    };
    if flags & store::DATA_DESCRIPTOR != 0 {
        return Err(format!(
            "the member at byte {} has a data descriptor; such a member is not rewritten",
            m.header_offset
        ));
    }
    let frame = Window::new(&*zip, m.offset, m.size)
        .map_err(|e| e.to_string())
        .and_then(|window| read_frame_from(window).map_err(|e| chain(&e)))?;
    Ok((m, frame, layout))
}

/// Why a member could not be edited: the edit's own error, or the zip's.
struct Refusal(String);

impl From<EditError> for Refusal {
    fn from(e: EditError) -> Self {
        Refusal(crate::set::explained(&e))
    }
}

/// Edits the member `name` of `zip`, rewriting the zip under its lock, with the edit `build`
/// makes from the member's frame; the changes made and what `build` gave beside the edit. The
/// member is found and read once the zip is locked, in the zip as it is then.
pub fn edit_member<T>(
    zip: &Path,
    name: &str,
    options: &WriteOptions,
    mut build: impl FnMut(&Frame) -> Result<(Edit, T), String>,
) -> Result<(Vec<Changed>, T), String> {
    replace_file(zip, options, |original, out| {
        let path = original.path();
        let refused = |message: String| Refusal(format!("{}: {message}", path.display()));
        let write = |e: io::Error| Refusal::from(EditError::write(path, e));
        let mut source = original.file().try_clone().map_err(write)?;
        let (m, frame, layout) = find_member(&mut source, name).map_err(refused)?;
        let (edit, made) = build(&frame).map_err(Refusal)?;
        let edit = &edit;
        let (crc, len, changes) = write_member(&mut source, out, original, &m, edit)?;
        let delta = i128::from(len) - i128::from(m.size);
        copy(&mut source, out, m.offset + m.size, layout.offset).map_err(write)?;
        write_directory(&mut source, out, &layout, &m, (crc, len), delta).map_err(write)?;
        Ok((changes, made))
    })
    .map_err(|Refusal(message)| message)
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

/// The members before `m`, its local header and its edited frame; its CRC-32, its length and
/// the changes made.
fn write_member(
    source: &mut File,
    out: &mut File,
    original: &Original<'_>,
    m: &Member,
    edit: &Edit,
) -> Result<(u32, u64, Vec<Changed>), Refusal> {
    let write = |e: io::Error| Refusal::from(EditError::write(original.path(), e));
    copy(source, out, 0, m.offset).map_err(write)?;
    let mut frame = Crc {
        out: &mut *out,
        hasher: crc32fast::Hasher::new(),
    };
    let (changes, len) = edit.write_frame_at(original, m.offset, m.size, &mut frame)?;
    let crc = frame.hasher.finalize();
    let len32 = u32::try_from(len).map_err(|_| {
        Refusal(format!(
            "{}: the edited member needs zip64 sizes",
            original.path().display()
        ))
    })?;
    let mut fields = crc.to_le_bytes().to_vec();
    fields.extend_from_slice(&len32.to_le_bytes());
    fields.extend_from_slice(&len32.to_le_bytes());
    out.seek(SeekFrom::Start(m.header_offset + LOCAL_CRC_AT))
        .map_err(write)?;
    out.write_all(&fields).map_err(write)?;
    out.seek(SeekFrom::End(0)).map_err(write)?;
    Ok((crc, len, changes))
}

/// The central directory, `m`'s entry given its new CRC-32 and length and the later members'
/// offsets moved by `delta`; then the end record, its directory offset moved.
fn write_directory(
    source: &mut File,
    out: &mut File,
    layout: &store::Layout,
    m: &Member,
    (crc, len): (u32, u64),
    delta: i128,
) -> io::Result<()> {
    let moved = |at: u64| {
        u32::try_from(i128::from(at) + delta).map_err(|_| io::Error::other("the rewritten zip needs zip64 offsets"))
    };
    let mut central = store::read_at(source, layout.offset, layout.size)?;
    for &(at, _, header_offset) in &layout.entries {
        let rel = usize::try_from(at - layout.offset).map_err(io::Error::other)?;
        if header_offset == m.header_offset {
            let len32 = u32::try_from(len).map_err(io::Error::other)?;
            put(&mut central, rel + CENTRAL_CRC_AT as usize, crc)?;
            put(&mut central, rel + CENTRAL_CRC_AT as usize + 4, len32)?;
            put(&mut central, rel + CENTRAL_CRC_AT as usize + 8, len32)?;
        } else if header_offset > m.header_offset {
            put(&mut central, rel + CENTRAL_OFFSET_AT as usize, moved(header_offset)?)?;
        }
    }
    out.write_all(&central)?;
    let end = source.seek(SeekFrom::End(0))?;
    let cd_end = layout.offset + layout.size;
    let mut tail = store::read_at(source, cd_end, end - cd_end)?;
    let rel = usize::try_from(layout.end_record - cd_end).map_err(io::Error::other)?;
    put(&mut tail, rel + END_RECORD_OFFSET_AT as usize, moved(layout.offset)?)?;
    out.write_all(&tail)
}

/// Writes a little-endian `u32` at `at` of `bytes`.
fn put(bytes: &mut [u8], at: usize, value: u32) -> io::Result<()> {
    let slot = bytes
        .get_mut(at..at + 4)
        .ok_or_else(|| io::Error::other("a zip record ends early"))?;
    slot.copy_from_slice(&value.to_le_bytes());
    Ok(())
}

/// A writer that computes the CRC-32 of what passes through it.
struct Crc<'a> {
    out: &'a mut File,
    hasher: crc32fast::Hasher,
}

impl Write for Crc<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.out.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}
