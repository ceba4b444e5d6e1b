//! The members of a `.b2z` store: python-blosc2's DictStore, TreeStore and CTable written as
//! one zip file whose members are frames stored uncompressed (method 0), each read in place.
//!
//! [`members`] reads the zip's end-of-central-directory record (and, when its fields are
//! saturated, the zip64 one), then its central directory, and, for each member, the 30 bytes of
//! its local header that say where its data starts. Nothing else of the file is read: the frames
//! are read later, each through a window over its member's bytes
//! ([`metalayer::frame::read_frame_bytes_at`]).
//!
//! Every length and offset is checked against the file's real length before anything is read or
//! held by it: the central directory must lie before the end record, each entry within the
//! central directory, each member's local header and data before the central directory. A zip
//! that fails these checks is refused whole, with the byte offset of what is wrong; a member
//! that is compressed, encrypted, or whose bytes lie outside the file is refused alone, and the
//! others are still read.
//!
//! The records are read here rather than through the `zip` crate: its errors
//! (`ZipError::InvalidArchive`) carry a fixed text and no byte offset, and a hostile zip is
//! refused with the offset of what is wrong. Only the fixed records above are parsed; nothing is
//! decompressed.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

/// The first bytes of a zip file whose first member is at its start: a local file header.
pub const ZIP_MAGIC: [u8; 4] = *b"PK\x03\x04";

/// The extension of python-blosc2's zip stores.
pub const STORE_EXTENSION: &str = "b2z";

const EOCD_SIGNATURE: u32 = 0x0605_4b50;
const EOCD_LEN: u64 = 22;
const ZIP64_LOCATOR_SIGNATURE: u32 = 0x0706_4b50;
const ZIP64_LOCATOR_LEN: u64 = 20;
const ZIP64_EOCD_SIGNATURE: u32 = 0x0606_4b50;
const ZIP64_EOCD_LEN: u64 = 56;
const CENTRAL_SIGNATURE: u32 = 0x0201_4b50;
const CENTRAL_LEN: usize = 46;
const LOCAL_SIGNATURE: u32 = 0x0403_4b50;
const LOCAL_LEN: u64 = 30;
/// The longest zip comment: the end record is within this many bytes of the file's end.
const MAX_COMMENT: u64 = 0xffff;

/// One member of a store: where its frame lies in the zip file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// Its path in the zip (`dir/deeper/f8.b2nd`), not UTF-8 bytes replaced by U+FFFD and
    /// control characters by U+FFFD.
    pub name: String,
    /// Where its local header starts.
    pub header_offset: u64,
    /// Where its data, the frame, starts.
    pub offset: u64,
    /// Its data's length.
    pub size: u64,
}

/// What the central directory says of one entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A stored member, inside the file.
    Member(Member),
    /// A member that cannot be read in place, and why (a message that names its offset).
    Refused {
        /// Its path in the zip.
        name: String,
        /// Why.
        message: String,
    },
}

impl Entry {
    /// The member's path in the zip.
    pub fn name(&self) -> &str {
        match self {
            Entry::Member(m) => &m.name,
            Entry::Refused { name, .. } => name,
        }
    }
}

/// Why a zip file could not be read: the message names the byte offset.
#[derive(Debug)]
pub enum ZipError {
    /// The file could not be read.
    Io(io::Error),
    /// The zip's structure is not what it claims.
    Bad(String),
}

impl std::fmt::Display for ZipError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ZipError::Io(e) => write!(f, "cannot read the zip file: {e}"),
            ZipError::Bad(message) => f.write_str(message),
        }
    }
}

impl From<io::Error> for ZipError {
    fn from(e: io::Error) -> Self {
        ZipError::Io(e)
    }
}

fn bad<T>(message: String) -> Result<T, ZipError> {
    Err(ZipError::Bad(message))
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at.checked_add(2)?)?.try_into().ok()?))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at.checked_add(4)?)?.try_into().ok()?))
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(at..at.checked_add(8)?)?.try_into().ok()?))
}

/// Reads `len` bytes at `at`, which the caller has checked lie in the file.
pub(crate) fn read_at(file: &mut File, at: u64, len: u64) -> io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(at))?;
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(len).read_to_end(&mut bytes)?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) < len {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("the file ends before byte {}", at.saturating_add(len)),
        ));
    }
    Ok(bytes)
}

/// Where the central directory lies, and how many entries it claims.
struct Directory {
    offset: u64,
    size: u64,
    entries: u64,
    /// Where the record that located it starts: the central directory must end there.
    end: u64,
    /// Whether it was located by the zip64 records.
    zip64: bool,
}

/// Finds the end-of-central-directory record in the last 64 KiB + 22 bytes of the file: the last
/// signature whose comment length reaches exactly the file's end.
fn end_record(file: &mut File, file_len: u64) -> Result<Directory, ZipError> {
    let tail_len = file_len.min(EOCD_LEN + MAX_COMMENT);
    let tail_at = file_len - tail_len;
    let tail = read_at(file, tail_at, tail_len)?;
    let signature = EOCD_SIGNATURE.to_le_bytes();
    let found = (0..tail.len().saturating_sub(21)).rev().find(|&i| {
        tail.get(i..i + 4) == Some(&signature[..])
            && u16_at(&tail, i + 20).is_some_and(|c| i + 22 + usize::from(c) == tail.len())
    });
    let Some(at) = found else {
        return bad(format!(
            "no end-of-central-directory record (PK\\x05\\x06 and a comment reaching the file's end) \
             in the last {tail_len} bytes, from byte {tail_at}: not a zip file, or a truncated one"
        ));
    };
    let eocd_at = tail_at + u64::try_from(at).unwrap_or(u64::MAX);
    let field = |off: usize| u16_at(&tail, at + off).unwrap_or_default();
    let (disk, cd_disk, entries) = (field(4), field(6), field(10));
    let size = u32_at(&tail, at + 12).unwrap_or_default();
    let offset = u32_at(&tail, at + 16).unwrap_or_default();
    if entries == 0xffff || size == u32::MAX || offset == u32::MAX {
        return zip64_record(file, eocd_at);
    }
    if disk != 0 || cd_disk != 0 {
        return bad(format!(
            "at byte {eocd_at}: the end-of-central-directory record is of disk {disk} of a zip split in parts"
        ));
    }
    Ok(Directory {
        offset: u64::from(offset),
        size: u64::from(size),
        entries: u64::from(entries),
        end: eocd_at,
        zip64: false,
    })
}

/// The zip64 end-of-central-directory record, through its locator just before the end record.
fn zip64_record(file: &mut File, eocd_at: u64) -> Result<Directory, ZipError> {
    let Some(locator_at) = eocd_at.checked_sub(ZIP64_LOCATOR_LEN) else {
        return bad(format!(
            "at byte {eocd_at}: the end-of-central-directory record says zip64, and there is no room for its locator before it"
        ));
    };
    let locator = read_at(file, locator_at, ZIP64_LOCATOR_LEN)?;
    if u32_at(&locator, 0) != Some(ZIP64_LOCATOR_SIGNATURE) {
        return bad(format!(
            "at byte {locator_at}: expected the zip64 end-of-central-directory locator (PK\\x06\\x07) the end record calls for"
        ));
    }
    let record_at = u64_at(&locator, 8).unwrap_or_default();
    if record_at.checked_add(ZIP64_EOCD_LEN).is_none_or(|end| end > locator_at) {
        return bad(format!(
            "at byte {locator_at}: the zip64 locator points at byte {record_at}, which leaves no room for the zip64 record before it"
        ));
    }
    let record = read_at(file, record_at, ZIP64_EOCD_LEN)?;
    if u32_at(&record, 0) != Some(ZIP64_EOCD_SIGNATURE) {
        return bad(format!(
            "at byte {record_at}: expected the zip64 end-of-central-directory record (PK\\x06\\x06)"
        ));
    }
    let (disk, cd_disk) = (u32_at(&record, 16), u32_at(&record, 20));
    if disk != Some(0) || cd_disk != Some(0) {
        return bad(format!(
            "at byte {record_at}: the zip64 record is of a zip split in parts"
        ));
    }
    Ok(Directory {
        entries: u64_at(&record, 32).unwrap_or_default(),
        size: u64_at(&record, 40).unwrap_or_default(),
        offset: u64_at(&record, 48).unwrap_or_default(),
        end: record_at,
        zip64: true,
    })
}

/// A member's name as shown: not UTF-8 bytes and control characters replaced by U+FFFD.
fn shown_name(raw: &[u8]) -> String {
    String::from_utf8_lossy(raw)
        .chars()
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect()
}

/// The name of a compression method, as the zip specification numbers them.
fn method_name(method: u16) -> String {
    match method {
        1 => "shrink".to_owned(),
        6 => "implode".to_owned(),
        8 => "deflate".to_owned(),
        9 => "deflate64".to_owned(),
        12 => "bzip2".to_owned(),
        14 => "lzma".to_owned(),
        93 => "zstd".to_owned(),
        95 => "xz".to_owned(),
        other => format!("method {other}"),
    }
}

/// The entries of a `.b2z` store's central directory, in name order (components compared one by
/// one, as a directory walk orders the files of a `.b2d`); directory entries (names ending in
/// `/`) are left out. `Err` when the zip's structure cannot be read; a member that cannot be read
/// in place is an [`Entry::Refused`].
pub fn members(path: &Path) -> Result<Vec<Entry>, ZipError> {
    let mut file = File::open(path)?;
    let (dir, central) = central_directory(&mut file)?;
    let mut entries = Vec::new();
    for raw in central {
        if raw.name.ends_with('/') {
            continue;
        }
        entries.push(member(&mut file, raw, dir.offset)?);
    }
    entries.sort_by(|a, b| a.name().split('/').cmp(b.name().split('/')));
    Ok(entries)
}

/// Where a zip's central directory and end record are, for a rewrite of the zip: what
/// [`members`] checked, and each central directory entry's place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Where the central directory starts, and its length.
    pub offset: u64,
    pub size: u64,
    /// Where the end-of-central-directory record starts.
    pub end_record: u64,
    /// Whether the zip64 records locate the central directory.
    pub zip64: bool,
    /// Each entry: where it starts in the file, its flags, and its local header's offset.
    pub entries: Vec<(u64, u16, u64)>,
}

/// The [`Layout`] of the zip `path`, checked as [`members`] checks it.
pub fn layout(path: &Path) -> Result<Layout, ZipError> {
    let mut file = File::open(path)?;
    let (dir, central) = central_directory(&mut file)?;
    Ok(Layout {
        offset: dir.offset,
        size: dir.size,
        end_record: dir.end,
        zip64: dir.zip64,
        entries: central
            .iter()
            .map(|raw| (raw.at, raw.flags, raw.header_offset))
            .collect(),
    })
}

/// The end record and the central directory's entries, checked to lie in the file.
fn central_directory(file: &mut File) -> Result<(Directory, Vec<Raw>), ZipError> {
    let file_len = file.seek(SeekFrom::End(0))?;
    let dir = end_record(file, file_len)?;
    if dir.offset.checked_add(dir.size).is_none_or(|end| end > dir.end) {
        return bad(format!(
            "at byte {}: the central directory, {} bytes at byte {}, runs past the end record at byte {} \
             (a truncated or damaged zip)",
            dir.end, dir.size, dir.offset, dir.end
        ));
    }
    // Each entry takes at least 46 bytes: the count is bounded by the directory's real size.
    if dir.entries.saturating_mul(CENTRAL_LEN as u64) > dir.size {
        return bad(format!(
            "at byte {}: the end record claims {} entries, more than the central directory's {} bytes at byte {} hold",
            dir.end, dir.entries, dir.size, dir.offset
        ));
    }
    let central = read_at(file, dir.offset, dir.size)?;
    let mut entries = Vec::new();
    let mut pos = 0usize;
    for index in 0..dir.entries {
        let at = dir.offset + u64::try_from(pos).unwrap_or(u64::MAX);
        let entry = central_entry(&central, pos, at, index)?;
        pos = entry.1;
        entries.push(entry.0);
    }
    if pos != central.len() {
        return bad(format!(
            "at byte {}: the central directory's {} entries end {} bytes before its stated end at byte {}",
            dir.offset + u64::try_from(pos).unwrap_or(u64::MAX),
            dir.entries,
            central.len() - pos,
            dir.offset + dir.size
        ));
    }
    Ok((dir, entries))
}

/// One central directory entry's fields.
struct Raw {
    name: String,
    /// Where the entry starts in the file.
    at: u64,
    flags: u16,
    method: u16,
    compressed: u64,
    size: u64,
    header_offset: u64,
}

/// Reads the entry at `pos` of the central directory (at byte `at` of the file); returns it and
/// where the next one starts.
fn central_entry(central: &[u8], pos: usize, at: u64, index: u64) -> Result<(Raw, usize), ZipError> {
    let truncated = || {
        ZipError::Bad(format!(
            "at byte {at}: central directory entry {index} runs past the central directory's end \
             (a truncated or damaged zip)"
        ))
    };
    let fixed = central
        .get(pos..pos.saturating_add(CENTRAL_LEN))
        .ok_or_else(truncated)?;
    if u32_at(fixed, 0) != Some(CENTRAL_SIGNATURE) {
        return bad(format!(
            "at byte {at}: expected central directory entry {index} (PK\\x01\\x02), found {:02x?}",
            fixed.get(..4).unwrap_or_default()
        ));
    }
    let field = |off| u16_at(fixed, off).unwrap_or_default();
    let (name_len, extra_len, comment_len) = (usize::from(field(28)), usize::from(field(30)), usize::from(field(32)));
    let name_at = pos + CENTRAL_LEN;
    let end = name_at + name_len + extra_len + comment_len;
    let name_bytes = central.get(name_at..name_at + name_len).ok_or_else(truncated)?;
    let extra = central
        .get(name_at + name_len..name_at + name_len + extra_len)
        .ok_or_else(truncated)?;
    if end > central.len() {
        return Err(truncated());
    }
    let mut raw = Raw {
        name: shown_name(name_bytes),
        at,
        flags: field(8),
        method: field(10),
        compressed: u64::from(u32_at(fixed, 20).unwrap_or_default()),
        size: u64::from(u32_at(fixed, 24).unwrap_or_default()),
        header_offset: u64::from(u32_at(fixed, 42).unwrap_or_default()),
    };
    zip64_fields(&mut raw, extra)?;
    Ok((raw, end))
}

/// Replaces the saturated sizes and offset of an entry with those of its zip64 extra field
/// (id 1), which holds, in order, the ones that are saturated.
fn zip64_fields(raw: &mut Raw, extra: &[u8]) -> Result<(), ZipError> {
    let saturated = |v: u64| v == u64::from(u32::MAX);
    if !saturated(raw.size) && !saturated(raw.compressed) && !saturated(raw.header_offset) {
        return Ok(());
    }
    let mut pos = 0;
    while let (Some(id), Some(len)) = (u16_at(extra, pos), u16_at(extra, pos + 2)) {
        let data = extra.get(pos + 4..pos + 4 + usize::from(len)).unwrap_or_default();
        if id == 1 {
            let mut at = 0;
            for field in [&mut raw.size, &mut raw.compressed, &mut raw.header_offset] {
                if saturated(*field) {
                    let Some(v) = u64_at(data, at) else {
                        return bad(format!(
                            "at byte {}: member {}: its zip64 extra field is too short for the sizes it stands for",
                            raw.at, raw.name
                        ));
                    };
                    *field = v;
                    at += 8;
                }
            }
            return Ok(());
        }
        pos += 4 + usize::from(len);
    }
    bad(format!(
        "at byte {}: member {}: its sizes call for a zip64 extra field, and it has none",
        raw.at, raw.name
    ))
}

/// A central directory entry checked against the file: its local header read, its data's place
/// found and checked to lie before the central directory at `data_end`.
fn member(file: &mut File, raw: Raw, data_end: u64) -> Result<Entry, ZipError> {
    let refused = |message: String| {
        Ok(Entry::Refused {
            name: raw.name.clone(),
            message,
        })
    };
    let header_offset = raw.header_offset;
    if raw.flags & 1 != 0 {
        return refused(format!(
            "the member at byte {header_offset} is encrypted; .b2z members are stored as they are"
        ));
    }
    if raw.method != 0 {
        return refused(format!(
            "the member at byte {header_offset} is compressed with {}; .b2z members are stored",
            method_name(raw.method)
        ));
    }
    if raw.compressed != raw.size {
        return refused(format!(
            "the member at byte {header_offset} is stored, and its compressed size {} is not its size {}",
            raw.compressed, raw.size
        ));
    }
    if header_offset.checked_add(LOCAL_LEN).is_none_or(|end| end > data_end) {
        return refused(format!(
            "the central directory entry at byte {} places the member's local header at byte {header_offset}, \
             past the members' end at byte {data_end}",
            raw.at
        ));
    }
    let local = read_at(file, header_offset, LOCAL_LEN)?;
    if u32_at(&local, 0) != Some(LOCAL_SIGNATURE) {
        return refused(format!(
            "at byte {header_offset}: expected the member's local header (PK\\x03\\x04), found {:02x?}",
            local.get(..4).unwrap_or_default()
        ));
    }
    let skip = u64::from(u16_at(&local, 26).unwrap_or_default()) + u64::from(u16_at(&local, 28).unwrap_or_default());
    let offset = header_offset + LOCAL_LEN + skip;
    if offset.checked_add(raw.size).is_none_or(|end| end > data_end) {
        return refused(format!(
            "the member's {} bytes at byte {offset} run past the members' end at byte {data_end}",
            raw.size
        ));
    }
    Ok(Entry::Member(Member {
        name: raw.name,
        header_offset,
        offset,
        size: raw.size,
    }))
}

/// Whether a file is a store to read as a zip: its name ends in `.b2z`, or, with `by_magic`, its
/// first bytes are [`ZIP_MAGIC`].
pub fn is_store(path: &Path, first: &[u8], by_magic: bool) -> bool {
    let named = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(STORE_EXTENSION));
    let zip = first.starts_with(&ZIP_MAGIC);
    if by_magic { named || zip } else { named && zip }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixture_members_are_at_pythons_offsets() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/files/blosc2-3-stores/dictstore.b2z"
        );
        let entries = members(Path::new(path)).unwrap_or_default();
        // expected.json: (name, header_offset, offset, size), python's zipfile's reading.
        let want = [
            ("big.b2nd", 1902, 1940, 607),
            ("dir/big_sc.b2f", 0, 44, 1121),
            ("dir/deeper/f8.b2nd", 1165, 1213, 689),
            ("embed.b2e", 2547, 2586, 882),
        ];
        let got: Vec<_> = entries
            .iter()
            .map(|e| match e {
                Entry::Member(m) => (m.name.as_str(), m.header_offset, m.offset, m.size),
                Entry::Refused { message, .. } => panic!("{message}"),
            })
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn every_cut_and_every_changed_byte_of_the_directory_reads_or_is_refused() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/files/blosc2-4-stores/dictstore.b2z"
        );
        let whole = std::fs::read(path).unwrap_or_default();
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let file = dir.path().join("x.b2z");
        let cd_at = usize::try_from(u32_at(&whole, whole.len() - 6).unwrap_or_default()).unwrap_or_default();
        // Every cut through the central directory and the end record, every 13th before.
        let cuts: Vec<usize> = (0..cd_at).step_by(13).chain(cd_at..whole.len()).collect();
        let mut refused = 0;
        for &len in &cuts {
            std::fs::write(&file, &whole[..len]).unwrap_or_else(|e| panic!("{e}"));
            match members(&file) {
                Err(ZipError::Bad(message)) => {
                    assert!(
                        message.contains("at byte") || message.contains("from byte"),
                        "{message}"
                    );
                    refused += 1;
                }
                other => panic!("a zip cut to {len} bytes: {other:?}"),
            }
        }
        assert_eq!(refused, cuts.len());
        // The central directory and the end record: each byte set to 0xff in turn.
        for at in cd_at..whole.len() {
            let mut changed = whole.clone();
            changed[at] = 0xff;
            std::fs::write(&file, &changed).unwrap_or_else(|e| panic!("{e}"));
            match members(&file) {
                Ok(entries) => {
                    for entry in entries {
                        if let Entry::Member(m) = entry {
                            assert!(m.offset + m.size <= u64::try_from(cd_at).unwrap_or_default());
                        }
                    }
                }
                Err(ZipError::Bad(message)) => {
                    assert!(
                        message.contains("at byte") || message.contains("from byte"),
                        "{message}"
                    );
                }
                Err(ZipError::Io(e)) => panic!("byte {at}: {e}"),
            }
        }
    }

    #[test]
    fn stores_are_told_by_name_and_magic() {
        assert!(is_store(Path::new("a.b2z"), b"PK\x03\x04", false));
        assert!(is_store(Path::new("a.B2Z"), b"PK\x03\x04", false));
        assert!(!is_store(Path::new("a.zip"), b"PK\x03\x04", false));
        assert!(!is_store(Path::new("a.b2z"), b"\x9e\xa8", false));
        assert!(is_store(Path::new("a.zip"), b"PK\x03\x04", true));
        assert!(is_store(Path::new("a.b2z"), b"", true));
        assert!(!is_store(Path::new("a.b2nd"), b"\x9e\xa8", true));
    }
}
