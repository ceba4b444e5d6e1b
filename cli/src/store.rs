//! The members of a `.b2z` store: python-blosc2's DictStore, TreeStore and CTable written as
//! one zip file whose members are frames stored uncompressed (method 0), each read in place.
//!
//! [`members`] reads the zip's end-of-central-directory record (and the zip64 one, when its
//! locator precedes the end record), then its central directory, and, for each member, the 30
//! bytes of its local header that say where its data starts. Nothing else of the file is read:
//! the frames are read later, each through a window over its member's bytes
//! ([`metalayer::frame::read_frame_bytes_at`]).
//!
//! Zips as python's `zipfile` writes them are read: up to 65,535 entries with a plain end record
//! (exactly 65,535 leaves its count saturated, 0xffff, and no zip64 records: the central
//! directory is then read by its size, the count a floor), more with the zip64 end record and
//! its locator; the zip64 extra fields of entries (sizes, local header offset, disk number) and
//! of local headers. An end record whose size or offset is saturated without zip64 records is
//! refused.
//!
//! Every length and offset is checked against the file's real length before anything is read or
//! held by it: the central directory must lie before the end record, each entry within the
//! central directory, each member's local header and data before the central directory. A zip
//! that fails these checks is refused whole, with the byte offset of what is wrong; a member
//! that is compressed, encrypted, or whose bytes lie outside the file is refused alone, and the
//! others are still read. No count read from the file sizes an allocation: each entry is read
//! from the central directory's bytes, at least 46 of them.
//!
//! [`check_for_edit`] checks what a rewrite of the zip carries over: every entry, not only the
//! members that read, lies before the central directory; no two overlap; no two have one name.
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
/// The optional signature of a data descriptor, which follows the data of a member whose
/// general purpose flag bit 3 is set.
const DESCRIPTOR_SIGNATURE: u32 = 0x0807_4b50;
/// The general purpose flag of a member whose CRC-32 and sizes follow its data.
pub const DATA_DESCRIPTOR: u16 = 1 << 3;
/// The id of the zip64 extended information extra field.
const ZIP64_EXTRA_ID: u16 = 1;
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
    /// Whether `entries` is a floor, not a count: the end record's count saturated (0xffff)
    /// with no zip64 records, as python's `zipfile` writes a zip of exactly 65,535 entries (it
    /// writes zip64 records only above that, `ZIP_FILECOUNT_LIMIT`). The directory is then
    /// read by its size.
    at_least: bool,
    /// Where the record that located it starts: the central directory must end there.
    end: u64,
    /// Whether it was located by the zip64 records.
    zip64: bool,
}

/// Finds the end-of-central-directory record in the last 64 KiB + 22 bytes of the file: the last
/// signature whose comment length reaches exactly the file's end. A zip64 locator just before it
/// means the zip64 records locate the central directory, as python's `zipfile` reads it.
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
    if let Some(locator_at) = eocd_at.checked_sub(ZIP64_LOCATOR_LEN) {
        let locator = read_at(file, locator_at, ZIP64_LOCATOR_LEN)?;
        if u32_at(&locator, 0) == Some(ZIP64_LOCATOR_SIGNATURE) {
            return zip64_record(file, &locator, locator_at);
        }
    }
    for (what, value, at_field) in [("size", size, 12), ("offset", offset, 16)] {
        if value == u32::MAX {
            return bad(format!(
                "at byte {}: the end record's central directory {what} is 0xffffffff, which calls for \
                 zip64 records, and no zip64 locator (PK\\x06\\x07) precedes the end record at byte {eocd_at}",
                eocd_at + at_field
            ));
        }
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
        at_least: entries == u16::MAX,
        end: eocd_at,
        zip64: false,
    })
}

/// The zip64 end-of-central-directory record, through its `locator` (read at `locator_at`, just
/// before the end record): the record's fixed 56 bytes, and the data its "size of record" field
/// says follow them, must end where the locator starts.
fn zip64_record(file: &mut File, locator: &[u8], locator_at: u64) -> Result<Directory, ZipError> {
    let (record_disk, disks) = (u32_at(locator, 4), u32_at(locator, 16));
    if record_disk != Some(0) || disks.is_none_or(|n| n > 1) {
        return bad(format!(
            "at byte {locator_at}: the zip64 locator is of a zip split in parts (the record on disk {}, {} disks)",
            record_disk.unwrap_or_default(),
            disks.unwrap_or_default()
        ));
    }
    let record_at = u64_at(locator, 8).unwrap_or_default();
    if record_at.checked_add(ZIP64_EOCD_LEN).is_none_or(|end| end > locator_at) {
        return bad(format!(
            "at byte {locator_at}: the zip64 locator points at byte {record_at}, which leaves no room for the zip64 record before it"
        ));
    }
    let record = read_at(file, record_at, ZIP64_EOCD_LEN)?;
    if u32_at(&record, 0) != Some(ZIP64_EOCD_SIGNATURE) {
        return bad(format!(
            "at byte {record_at}: expected the zip64 end-of-central-directory record (PK\\x06\\x06) its locator at byte {locator_at} points at"
        ));
    }
    // "Size of zip64 end of central directory record": the bytes after this field (44 fixed,
    // then the extensible data sector).
    let record_size = u64_at(&record, 4).unwrap_or_default();
    if record_size < ZIP64_EOCD_LEN - 12
        || record_at.checked_add(12).and_then(|a| a.checked_add(record_size)) != Some(locator_at)
    {
        return bad(format!(
            "at byte {}: the zip64 record at byte {record_at} says {record_size} bytes follow its size field; \
             its locator at byte {locator_at} calls for {}",
            record_at + 4,
            locator_at - record_at - 12
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
        at_least: false,
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
    members_in(&mut File::open(path)?)
}

/// [`members`] of the zip open as `file`.
pub fn members_in(file: &mut File) -> Result<Vec<Entry>, ZipError> {
    let (dir, central) = central_directory(file)?;
    let mut entries = Vec::new();
    for raw in central {
        if raw.name.ends_with('/') {
            continue;
        }
        entries.push(member(file, raw, dir.offset)?);
    }
    entries.sort_by(|a, b| a.name().split('/').cmp(b.name().split('/')));
    Ok(entries)
}

/// Where a zip's central directory and end record are, for a rewrite of the zip: what
/// [`check_for_edit`] checked, and each central directory entry's place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Where the central directory starts.
    pub offset: u64,
    /// The central directory's length.
    pub size: u64,
    /// Where the end-of-central-directory record starts (the zip64 one's, in a zip64 zip).
    pub end_record: u64,
    /// Whether the zip uses zip64: its zip64 records locate the central directory, or an entry's
    /// central directory record or local header carries a zip64 extra field. Such a zip's
    /// 32-bit fields do not say everything, and rewriting them is not enough.
    pub zip64: bool,
    /// Each entry: where it starts in the file, its flags, and its local header's offset.
    pub entries: Vec<(u64, u16, u64)>,
}

/// The [`Layout`] of the zip open as `file`, checked to be carried over whole by a rewrite that moves the
/// bytes after one member: beyond what [`members`] checks, every central directory entry
/// (directories, and members [`members`] refuses, too) has its local header (its signature,
/// and the entry's name) and its data (and data descriptor) within the file and before the
/// central directory; no two entries' bytes overlap; no two entries have one name (readers
/// that map names to members, as python-blosc2 does, see only the last one, so an edit of the
/// other would not be seen). `Err` names the byte offset of what is wrong.
pub fn check_for_edit(file: &mut File) -> Result<Layout, ZipError> {
    let (dir, central) = central_directory(file)?;
    let mut spans = Vec::with_capacity(central.len());
    let mut zip64 = dir.zip64;
    for raw in &central {
        let span = entry_span(file, raw, dir.offset)
            .map_err(|message| ZipError::Bad(format!("member {:?}: {message}", raw.name)))?;
        zip64 |= raw.zip64 || span.zip64;
        spans.push(span);
    }
    unique_names(&central)?;
    no_overlap(&central, &spans)?;
    Ok(Layout {
        offset: dir.offset,
        size: dir.size,
        end_record: dir.end,
        zip64,
        entries: central
            .iter()
            .map(|raw| (raw.at, raw.flags, raw.header_offset))
            .collect(),
    })
}

/// The name readers key a member by: its bytes up to a NUL, which python's `zipfile` cuts there.
fn name_key(raw: &Raw) -> &[u8] {
    raw.name_bytes.split(|&b| b == 0).next().unwrap_or_default()
}

/// Refuses two entries of one name, with both local headers' offsets.
fn unique_names(central: &[Raw]) -> Result<(), ZipError> {
    let mut order: Vec<usize> = (0..central.len()).collect();
    // Stable: among entries of one name, central directory order.
    order.sort_by(|&a, &b| name_key(&central[a]).cmp(name_key(&central[b])));
    for pair in order.windows(2) {
        let (first, second) = (&central[pair[0]], &central[pair[1]]);
        if name_key(first) == name_key(second) {
            return bad(format!(
                "at byte {} and at byte {}: two members are named {:?}; readers that take the last of a name \
                 (python-blosc2, python's zipfile) see only the one at byte {}, and an edit of either is refused",
                first.header_offset, second.header_offset, second.name, second.header_offset
            ));
        }
    }
    Ok(())
}

/// Refuses entries whose bytes overlap: each must start at or after the end of the one before.
fn no_overlap(central: &[Raw], spans: &[Span]) -> Result<(), ZipError> {
    let mut order: Vec<usize> = (0..spans.len()).collect();
    order.sort_by_key(|&i| (spans[i].start, spans[i].end));
    for pair in order.windows(2) {
        let (a, b) = (&spans[pair[0]], &spans[pair[1]]);
        if b.start < a.end {
            return bad(format!(
                "at byte {}: the local header of member {:?} lies inside member {:?}, whose local header at byte {} \
                 and data run to byte {}",
                b.start, central[pair[1]].name, central[pair[0]].name, a.start, a.end
            ));
        }
    }
    Ok(())
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
            "at byte {}: the end record claims {}{} entries, more than the central directory's {} bytes at byte {} hold",
            dir.end,
            if dir.at_least { "at least " } else { "" },
            dir.entries,
            dir.size,
            dir.offset
        ));
    }
    let central = read_at(file, dir.offset, dir.size)?;
    // At most one entry per 46 bytes read, whatever the count says; a floor of a count reads
    // entries to the directory's end.
    let more = |pos: usize, index: u64| {
        if dir.at_least {
            pos < central.len()
        } else {
            index < dir.entries
        }
    };
    let mut entries = Vec::new();
    let mut pos = 0usize;
    let mut index = 0u64;
    while more(pos, index) {
        let at = dir.offset + u64::try_from(pos).unwrap_or(u64::MAX);
        let entry = central_entry(&central, pos, at, index)?;
        pos = entry.1;
        entries.push(entry.0);
        index += 1;
    }
    if dir.at_least && index < dir.entries {
        return bad(format!(
            "at byte {}: the end record claims at least {} entries (its count saturated, without zip64 records), \
             and the central directory's {} bytes at byte {} hold {index}",
            dir.end, dir.entries, dir.size, dir.offset
        ));
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
    /// The name as stored.
    name_bytes: Vec<u8>,
    /// Where the entry starts in the file.
    at: u64,
    flags: u16,
    method: u16,
    compressed: u64,
    size: u64,
    header_offset: u64,
    /// The disk its local header is on: 0 in a zip of one part.
    disk: u64,
    /// Whether it carries a zip64 extra field.
    zip64: bool,
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
        name_bytes: name_bytes.to_vec(),
        at,
        flags: field(8),
        method: field(10),
        compressed: u64::from(u32_at(fixed, 20).unwrap_or_default()),
        size: u64::from(u32_at(fixed, 24).unwrap_or_default()),
        header_offset: u64::from(u32_at(fixed, 42).unwrap_or_default()),
        disk: u64::from(field(34)),
        zip64: false,
    };
    zip64_fields(&mut raw, extra)?;
    Ok((raw, end))
}

/// The data of the zip64 extended information extra field (id 1) among `extra`'s fields.
fn zip64_extra(extra: &[u8]) -> Option<&[u8]> {
    let mut pos = 0;
    while let (Some(id), Some(len)) = (u16_at(extra, pos), u16_at(extra, pos + 2)) {
        let data = extra.get(pos + 4..pos + 4 + usize::from(len)).unwrap_or_default();
        if id == ZIP64_EXTRA_ID {
            return Some(data);
        }
        pos += 4 + usize::from(len);
    }
    None
}

/// Replaces the saturated sizes, offset and disk number of an entry with those of its zip64
/// extra field (id 1), which holds, in this order, the ones that are saturated: the size, the
/// compressed size, the local header's offset (8 bytes each), the disk number (4 bytes).
fn zip64_fields(raw: &mut Raw, extra: &[u8]) -> Result<(), ZipError> {
    let data = zip64_extra(extra);
    raw.zip64 = data.is_some();
    let saturated = |v: u64| v == u64::from(u32::MAX);
    let disk_saturated = raw.disk == u64::from(u16::MAX);
    if !saturated(raw.size) && !saturated(raw.compressed) && !saturated(raw.header_offset) && !disk_saturated {
        return Ok(());
    }
    let Some(data) = data else {
        return bad(format!(
            "at byte {}: member {}: its sizes call for a zip64 extra field, and it has none",
            raw.at, raw.name
        ));
    };
    let short = || {
        bad(format!(
            "at byte {}: member {}: its zip64 extra field is too short for the sizes it stands for",
            raw.at, raw.name
        ))
    };
    let mut at = 0;
    for field in [&mut raw.size, &mut raw.compressed, &mut raw.header_offset] {
        if saturated(*field) {
            let Some(v) = u64_at(data, at) else {
                return short();
            };
            *field = v;
            at += 8;
        }
    }
    if disk_saturated {
        let Some(v) = u32_at(data, at) else {
            return short();
        };
        raw.disk = u64::from(v);
    }
    Ok(())
}

/// Where an entry's bytes lie, read from its local header.
struct Span {
    /// Where its local header starts.
    start: u64,
    /// Where its bytes end: its data, and its data descriptor if it has one.
    end: u64,
    /// Whether its local header carries a zip64 extra field.
    zip64: bool,
}

/// The entry's local header (its 30 fixed bytes) read and checked to lie, with the data it
/// announces, before the central directory at `data_end`: where its data starts, and the 30
/// bytes. The inner `Err` is a refusal's message; the outer one, the file not read.
fn local_header(file: &mut File, raw: &Raw, data_end: u64) -> io::Result<Result<(u64, Vec<u8>), String>> {
    let header_offset = raw.header_offset;
    if raw.disk != 0 {
        return Ok(Err(format!(
            "the central directory entry at byte {} places the member's local header on disk {} of a zip split in parts",
            raw.at, raw.disk
        )));
    }
    if header_offset.checked_add(LOCAL_LEN).is_none_or(|end| end > data_end) {
        return Ok(Err(format!(
            "the central directory entry at byte {} places the member's local header at byte {header_offset}, \
             past the members' end at byte {data_end}",
            raw.at
        )));
    }
    let local = read_at(file, header_offset, LOCAL_LEN)?;
    if u32_at(&local, 0) != Some(LOCAL_SIGNATURE) {
        return Ok(Err(format!(
            "at byte {header_offset}: expected the member's local header (PK\\x03\\x04), found {:02x?}",
            local.get(..4).unwrap_or_default()
        )));
    }
    let skip = u64::from(u16_at(&local, 26).unwrap_or_default()) + u64::from(u16_at(&local, 28).unwrap_or_default());
    let offset = header_offset + LOCAL_LEN + skip;
    if offset.checked_add(raw.compressed).is_none_or(|end| end > data_end) {
        return Ok(Err(format!(
            "the member's {} bytes at byte {offset} run past the members' end at byte {data_end}",
            raw.compressed
        )));
    }
    Ok(Ok((offset, local)))
}

/// Where the entry's bytes lie, checked as [`check_for_edit`] checks them; `Err` is the
/// refusal's message, which names the offset.
fn entry_span(file: &mut File, raw: &Raw, data_end: u64) -> Result<Span, String> {
    let io = |e: io::Error| {
        format!(
            "at byte {}: cannot read the member's local header: {e}",
            raw.header_offset
        )
    };
    let (data, local) = local_header(file, raw, data_end).map_err(io)??;
    let start = raw.header_offset;
    let name_len = u64::from(u16_at(&local, 26).unwrap_or_default());
    // The name and extra fields, which the data's start says lie before the directory.
    let fields = read_at(file, start + LOCAL_LEN, data - start - LOCAL_LEN).map_err(io)?;
    let (name, extra) = fields.split_at(usize::try_from(name_len).unwrap_or(usize::MAX).min(fields.len()));
    if name != raw.name_bytes {
        return Err(format!(
            "at byte {start}: the local header names the member {:?}, its central directory entry at byte {} {:?}",
            shown_name(name),
            raw.at,
            raw.name
        ));
    }
    let zip64 = zip64_extra(extra).is_some();
    let mut end = data + raw.compressed;
    if raw.flags & DATA_DESCRIPTOR != 0 {
        // CRC-32 and the two sizes (8 bytes each with zip64), after an optional signature.
        let sizes = if zip64 || raw.zip64 { 16 } else { 8 };
        let signed = end < data_end
            && read_at(file, end, 4.min(data_end - end)).map_err(io)? == DESCRIPTOR_SIGNATURE.to_le_bytes();
        let len = 4 + sizes + if signed { 4 } else { 0 };
        if end + len > data_end {
            return Err(format!(
                "the member's data descriptor, {len} bytes at byte {end}, runs past the members' end at byte {data_end}"
            ));
        }
        end += len;
    }
    Ok(Span { start, end, zip64 })
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
    let offset = match local_header(file, &raw, data_end)? {
        Ok((offset, _)) => offset,
        Err(message) => return refused(message),
    };
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

    /// [`check_for_edit`] of the zip at `path`.
    fn check_path(path: &Path) -> Result<Layout, ZipError> {
        check_for_edit(&mut File::open(path)?)
    }

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

    /// One entry of [`build`]: its name and stored data, and which zip64 fields it carries.
    #[derive(Default)]
    struct Spec<'a> {
        name: &'a str,
        data: &'a [u8],
        /// The local header's sizes saturated, both in a zip64 extra field (as python's
        /// `zipfile` writes a member it expects to be large).
        local_zip64: bool,
        /// The central directory entry's local header offset and disk number saturated, both in
        /// a zip64 extra field after a field of another id.
        central_zip64: bool,
        /// The central directory entry's local header offset, if not where the header is.
        offset: Option<u32>,
    }

    /// How [`build`] ends the zip.
    enum End {
        /// The end record, its count as given (saturated at 0xffff).
        Plain,
        /// The zip64 end record with `extensible` bytes after its fixed 56, its locator, and an
        /// end record of saturated fields.
        Zip64 { extensible: usize },
    }

    fn le16(v: usize) -> [u8; 2] {
        u16::try_from(v).unwrap_or(u16::MAX).to_le_bytes()
    }

    fn le32(v: usize) -> [u8; 4] {
        u32::try_from(v).unwrap_or(u32::MAX).to_le_bytes()
    }

    /// A zip of stored entries laid out as python's `zipfile` lays them out: local headers and
    /// data, the central directory, the end records. CRCs are left 0: nothing here reads them.
    fn build(specs: &[Spec<'_>], end: End) -> Vec<u8> {
        let mut out = Vec::new();
        let mut central = Vec::new();
        for spec in specs {
            let at = out.len();
            let (name, len) = (spec.name.as_bytes(), spec.data.len());
            out.extend_from_slice(b"PK\x03\x04\x2d\0\0\0\0\0\0\0\0\0\0\0\0\0");
            if spec.local_zip64 {
                out.extend_from_slice(&[0xff; 8]);
            } else {
                out.extend_from_slice(&le32(len));
                out.extend_from_slice(&le32(len));
            }
            out.extend_from_slice(&le16(name.len()));
            out.extend_from_slice(&le16(if spec.local_zip64 { 20 } else { 0 }));
            out.extend_from_slice(name);
            if spec.local_zip64 {
                out.extend_from_slice(&[1, 0, 16, 0]);
                out.extend_from_slice(&(len as u64).to_le_bytes());
                out.extend_from_slice(&(len as u64).to_le_bytes());
            }
            out.extend_from_slice(spec.data);
            central.extend_from_slice(b"PK\x01\x02\x2d\x03\x2d\0\0\0\0\0\0\0\0\0\0\0\0\0");
            central.extend_from_slice(&le32(len));
            central.extend_from_slice(&le32(len));
            central.extend_from_slice(&le16(name.len()));
            central.extend_from_slice(&le16(if spec.central_zip64 { 5 + 16 } else { 0 }));
            central.extend_from_slice(&le16(0)); // comment
            central.extend_from_slice(if spec.central_zip64 { &[0xff, 0xff] } else { &[0, 0] });
            central.extend_from_slice(&[0; 6]); // attributes
            let offset = spec.offset.map_or(at, |o| o as usize);
            central.extend_from_slice(&if spec.central_zip64 { [0xff; 4] } else { le32(offset) });
            central.extend_from_slice(name);
            if spec.central_zip64 {
                // A timestamp field (id 0x5455), then the zip64 one: the offset, the disk.
                central.extend_from_slice(&[0x55, 0x54, 1, 0, 0]);
                central.extend_from_slice(&[1, 0, 12, 0]);
                central.extend_from_slice(&(offset as u64).to_le_bytes());
                central.extend_from_slice(&[0; 4]);
            }
        }
        let (cd_at, cd_len, count) = (out.len(), central.len(), specs.len());
        out.extend_from_slice(&central);
        let mut eocd = b"PK\x05\x06\0\0\0\0".to_vec();
        match end {
            End::Plain => {
                eocd.extend_from_slice(&le16(count));
                eocd.extend_from_slice(&le16(count));
                eocd.extend_from_slice(&le32(cd_len));
                eocd.extend_from_slice(&le32(cd_at));
            }
            End::Zip64 { extensible } => {
                let record_at = out.len();
                out.extend_from_slice(b"PK\x06\x06");
                out.extend_from_slice(&(44 + extensible as u64).to_le_bytes());
                out.extend_from_slice(&[0x2d, 0, 0x2d, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
                for v in [count, count, cd_len, cd_at] {
                    out.extend_from_slice(&(v as u64).to_le_bytes());
                }
                out.extend(std::iter::repeat_n(0xee, extensible));
                out.extend_from_slice(b"PK\x06\x07\0\0\0\0");
                out.extend_from_slice(&(record_at as u64).to_le_bytes());
                out.extend_from_slice(&[1, 0, 0, 0]);
                eocd.extend_from_slice(&[0xff; 12]);
            }
        }
        eocd.extend_from_slice(&[0, 0]);
        out.extend_from_slice(&eocd);
        out
    }

    fn write(dir: &tempfile::TempDir, bytes: &[u8]) -> std::path::PathBuf {
        let path = dir.path().join("x.b2z");
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{e}"));
        path
    }

    fn places(entries: &[Entry]) -> Vec<(String, u64, u64, u64)> {
        entries
            .iter()
            .map(|e| match e {
                Entry::Member(m) => (m.name.clone(), m.header_offset, m.offset, m.size),
                Entry::Refused { message, .. } => panic!("{message}"),
            })
            .collect()
    }

    fn refusal(result: Result<Layout, ZipError>) -> String {
        match result {
            Err(ZipError::Bad(message)) => message,
            other => panic!("not refused: {other:?}"),
        }
    }

    /// Names of `n` entries, `00000`..., each 5 bytes.
    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("{i:05}")).collect()
    }

    #[test]
    fn a_saturated_count_without_zip64_records_is_a_floor() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        // 65,535 entries, python's zipfile's largest zip without zip64 records: count 0xffff.
        let all = names(65_536);
        let specs: Vec<Spec<'_>> = all
            .iter()
            .map(|name| Spec {
                name,
                ..Spec::default()
            })
            .collect();
        let path = write(&dir, &build(&specs[..65_535], End::Plain));
        let entries = members(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(entries.len(), 65_535);
        // Each entry: a local header of 30 + 5 bytes and no data.
        assert_eq!(
            places(&entries[65_534..]),
            [("65534".to_owned(), 65_534 * 35, 65_535 * 35, 0)]
        );
        let layout = check_path(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(!layout.zip64);
        assert_eq!(layout.entries.len(), 65_535);
        // One more, the count left saturated by a writer without zip64: all read.
        let path = write(&dir, &build(&specs, End::Plain));
        assert_eq!(members(&path).map(|e| e.len()).ok(), Some(65_536));
        // One fewer than the saturated count promises: refused. 65,534 entries of 51 bytes.
        let path = write(&dir, &build(&specs[..65_534], End::Plain));
        let mut bytes = std::fs::read(&path).unwrap_or_default();
        let eocd = bytes.len() - 22;
        bytes[eocd + 8..eocd + 12].copy_from_slice(&[0xff; 4]);
        std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{e}"));
        let cd_at = 65_534 * 35;
        assert_eq!(
            refusal(check_path(&path)),
            format!(
                "at byte {eocd}: the end record claims at least 65535 entries (its count saturated, without zip64 \
                 records), and the central directory's {} bytes at byte {cd_at} hold 65534",
                65_534 * 51
            )
        );
    }

    #[test]
    fn saturated_sizes_without_zip64_records_are_refused() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let bytes = build(
            &[Spec {
                name: "a",
                data: b"abc",
                ..Spec::default()
            }],
            End::Plain,
        );
        let eocd = bytes.len() - 22;
        for (field, what) in [(12, "size"), (16, "offset")] {
            let mut saturated = bytes.clone();
            saturated[eocd + field..eocd + field + 4].copy_from_slice(&[0xff; 4]);
            let path = write(&dir, &saturated);
            assert_eq!(
                refusal(check_path(&path)),
                format!(
                    "at byte {}: the end record's central directory {what} is 0xffffffff, which calls for zip64 \
                     records, and no zip64 locator (PK\\x06\\x07) precedes the end record at byte {eocd}",
                    eocd + field
                )
            );
        }
    }

    #[test]
    fn zip64_records_and_extra_fields_are_read() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let specs = [
            Spec {
                name: "a.b2nd",
                data: b"0123456789",
                local_zip64: true,
                ..Spec::default()
            },
            Spec {
                name: "b/c.b2nd",
                data: b"abc",
                central_zip64: true,
                ..Spec::default()
            },
            Spec {
                name: "d/",
                ..Spec::default()
            },
        ];
        for extensible in [0, 8] {
            let bytes = build(&specs, End::Zip64 { extensible });
            let path = write(&dir, &bytes);
            // a.b2nd: 30 + 6 + 20 bytes of header, then its 10; b/c.b2nd's header at 66.
            let want = [
                ("a.b2nd".to_owned(), 0, 56, 10),
                ("b/c.b2nd".to_owned(), 66, 66 + 38, 3),
            ];
            assert_eq!(places(&members(&path).unwrap_or_else(|e| panic!("{e}"))), want);
            let layout = check_path(&path).unwrap_or_else(|e| panic!("{e}"));
            assert!(layout.zip64);
            let cd_at = 66 + 38 + 3 + 32;
            assert_eq!(
                (layout.offset, layout.size),
                (cd_at, (46 + 6) + (46 + 8 + 21) + (46 + 2))
            );
            assert_eq!(layout.end_record, cd_at + layout.size);
            assert_eq!(layout.entries.iter().map(|e| e.2).collect::<Vec<_>>(), [0, 66, 107]);
            // The record's size field off by one either way: its end is not its locator.
            for wrong in [43, 45] {
                let mut changed = bytes.clone();
                let record = usize::try_from(layout.end_record).unwrap_or_default();
                changed[record + 4..record + 12].copy_from_slice(&(wrong + extensible as u64).to_le_bytes());
                let path = write(&dir, &changed);
                let message = refusal(check_path(&path));
                assert!(
                    message.starts_with(&format!(
                        "at byte {}: the zip64 record at byte {record} says",
                        record + 4
                    )),
                    "{message}"
                );
            }
        }
        // Only the zip64 extra field of a local header: a zip64 zip for a rewrite, read as any.
        let path = write(&dir, &build(&specs[..1], End::Plain));
        assert_eq!(
            places(&members(&path).unwrap_or_default()),
            [("a.b2nd".to_owned(), 0, 56, 10)]
        );
        assert!(check_path(&path).is_ok_and(|l| l.zip64));
        // The entry's disk number saturated, and its zip64 field too short to hold it.
        let mut bytes = build(&specs[1..2], End::Plain);
        let cd_at = 30 + 8 + 3;
        assert_eq!(&bytes[cd_at + 46 + 8 + 5..cd_at + 46 + 8 + 9], [1, 0, 12, 0]);
        bytes[cd_at + 46 + 8 + 7] = 8;
        bytes[cd_at + 30] -= 4;
        bytes.drain(cd_at + 46 + 8 + 17..cd_at + 46 + 8 + 21);
        let eocd = bytes.len() - 22;
        bytes[eocd + 12] -= 4;
        let path = write(&dir, &bytes);
        assert_eq!(
            refusal(check_path(&path)),
            format!("at byte {cd_at}: member b/c.b2nd: its zip64 extra field is too short for the sizes it stands for")
        );
    }

    #[test]
    fn an_edit_refuses_entries_out_of_place_overlapping_or_of_one_name() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (a, b) = (&b"0123456789"[..], &b"abcdef"[..]);
        // A directory entry whose local header lies past the end of the file: members() leaves
        // it out, an edit refuses the zip. The local headers at 0, 41 and 73, the central
        // directory at 73 + 37 = 110, the entry of d/ at 110 + 46 + 1.
        let specs = [
            Spec {
                name: "a",
                data: a,
                ..Spec::default()
            },
            Spec {
                name: "d/",
                offset: Some(5000),
                ..Spec::default()
            },
            Spec {
                name: "b",
                data: b,
                ..Spec::default()
            },
        ];
        let path = write(&dir, &build(&specs, End::Plain));
        assert_eq!(members(&path).map(|e| e.len()).ok(), Some(2));
        assert_eq!(
            refusal(check_path(&path)),
            "member \"d/\": the central directory entry at byte 157 places the member's local header at byte 5000, \
             past the members' end at byte 110"
        );
        // Two entries of one name, their local headers at 0 and 46.
        let specs = [
            Spec {
                name: "a",
                data: a,
                ..Spec::default()
            },
            Spec {
                name: "a",
                data: b,
                ..Spec::default()
            },
        ];
        let path = write(&dir, &build(&specs, End::Plain));
        assert_eq!(
            refusal(check_path(&path)),
            "at byte 0 and at byte 41: two members are named \"a\"; readers that take the last of a name \
             (python-blosc2, python's zipfile) see only the one at byte 41, and an edit of either is refused"
        );
        // One entry's local header inside another's data: the name of the second written as
        // the first's data, at byte 31.
        let mut inner = build(
            &[Spec {
                name: "b",
                data: b,
                ..Spec::default()
            }],
            End::Plain,
        );
        inner.truncate(31 + b.len());
        let specs = [
            Spec {
                name: "a",
                data: &inner,
                ..Spec::default()
            },
            Spec {
                name: "b",
                data: b,
                offset: Some(31),
                ..Spec::default()
            },
        ];
        let path = write(&dir, &build(&specs, End::Plain));
        assert_eq!(
            places(&members(&path).unwrap_or_default())[1],
            ("b".to_owned(), 31, 62, 6)
        );
        assert_eq!(
            refusal(check_path(&path)),
            "at byte 31: the local header of member \"b\" lies inside member \"a\", whose local header at byte 0 \
             and data run to byte 68"
        );
        // A local header whose name is not its entry's.
        let mut bytes = build(
            &[Spec {
                name: "a",
                data: a,
                ..Spec::default()
            }],
            End::Plain,
        );
        bytes[30] = b'z';
        let path = write(&dir, &bytes);
        assert_eq!(
            refusal(check_path(&path)),
            "member \"a\": at byte 0: the local header names the member \"z\", its central directory entry at byte 41 \"a\""
        );
    }

    #[test]
    fn every_changed_byte_of_the_records_passes_or_is_refused_for_an_edit() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/files/blosc2-4-stores/dictstore.b2z"
        );
        let whole = std::fs::read(path).unwrap_or_default();
        let layout = check_path(Path::new(path)).unwrap_or_else(|e| panic!("{e}"));
        assert!(!layout.zip64);
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        // Every local header (30 bytes and the name), the central directory and the end record.
        let mut at: Vec<usize> = Vec::new();
        for &(_, _, header) in &layout.entries {
            let h = usize::try_from(header).unwrap_or_default();
            let name_len = usize::from(u16_at(&whole, h + 26).unwrap_or_default());
            at.extend(h..h + 30 + name_len);
        }
        at.extend(usize::try_from(layout.offset).unwrap_or_default()..whole.len());
        for at in at {
            let mut changed = whole.clone();
            changed[at] = 0xff;
            let file = write(&dir, &changed);
            match check_path(&file) {
                Ok(_) => {}
                Err(ZipError::Bad(message)) => assert!(
                    message.contains("at byte") || message.contains("from byte"),
                    "byte {at}: {message}"
                ),
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
