//! The zip records of a `.b2z` store, typed, each parsed from its bytes with the byte offset it
//! was read at; and [`Archive`], which reads them from one open file.
//!
//! Each record has a `parse` that takes the record's bytes and where they lie in the file, and
//! checks nothing beyond its own bytes: its signature and its fixed length. What one record says
//! of another (the central directory lies before the end record, a member's data before the
//! central directory) is checked by [`Archive::read`] and [`Archive::check_for_edit`], each error
//! with the byte offset of what is wrong.
//!
//! Zips as python's `zipfile` writes them are read: up to 65,535 entries with a plain end record
//! (exactly 65,535 leaves its count saturated, 0xffff, and no zip64 records: the central
//! directory is then read by its size, the count a floor), more with the zip64 end record and
//! its locator; the zip64 extra fields of entries (sizes, local header offset, disk number) and
//! of local headers. An end record whose size or offset is saturated without zip64 records is
//! refused.
//!
//! No count read from the file sizes an allocation: each entry is read from the central
//! directory's bytes, at least 46 of them, and the central directory's size is checked against
//! the file's length before it is read.
//!
//! ```
//! use metalayer::store::zip::{Archive, EndRecord};
//!
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-3-stores/dictstore.b2z");
//! let bytes = std::fs::read(path).unwrap();
//! // The end record is the file's last 22 bytes (no comment): 4 entries, 233 bytes at byte 3468.
//! let end = EndRecord::parse(&bytes[bytes.len() - 22..], bytes.len() as u64 - 22)?;
//! assert_eq!((end.entries, end.cd_size, end.cd_offset), (4, 233, 3468));
//!
//! let archive = Archive::read(&mut std::fs::File::open(path).unwrap())?;
//! assert_eq!(archive.directory.offset, 3468);
//! let names: Vec<&[u8]> = archive.entries.iter().map(|e| &e.name[..]).collect();
//! assert_eq!(names, [&b"dir/big_sc.b2f"[..], b"dir/deeper/f8.b2nd", b"big.b2nd", b"embed.b2e"]);
//! # Ok::<(), metalayer::store::zip::ZipError>(())
//! ```

use std::fmt;
use std::format;
use std::io::{self, Read, Seek, SeekFrom};
use std::prelude::rust_2024::*;

/// The first bytes of a zip file whose first member is at its start: a local file header.
///
/// ```
/// assert_eq!(&metalayer::store::zip::ZIP_MAGIC, b"PK\x03\x04");
/// ```
pub const ZIP_MAGIC: [u8; 4] = *b"PK\x03\x04";

/// The general purpose flag of a member whose CRC-32 and sizes follow its data (bit 3).
///
/// ```
/// assert_eq!(metalayer::store::zip::DATA_DESCRIPTOR, 8);
/// ```
pub const DATA_DESCRIPTOR: u16 = 1 << 3;

/// The general purpose flag of an encrypted member (bit 0).
pub const ENCRYPTED: u16 = 1;

/// The longest zip comment: the end record is within this many bytes of the file's end.
const MAX_COMMENT: u64 = 0xffff;
/// The optional signature of a data descriptor.
const DESCRIPTOR_SIGNATURE: u32 = 0x0807_4b50;
/// The id of the zip64 extended information extra field.
const ZIP64_EXTRA_ID: u16 = 1;

/// Why a zip could not be read: the file, or the zip's structure, with the byte offset of what
/// is wrong.
#[derive(Debug)]
pub enum ZipError {
    /// The file could not be read.
    Io(io::Error),
    /// The zip's structure is not what it claims. `message` names `offset` ("at byte N").
    Malformed {
        /// The byte of the file where what is wrong lies.
        offset: u64,
        /// What is wrong.
        message: String,
    },
}

impl ZipError {
    fn at<T>(offset: u64, message: String) -> Result<T, ZipError> {
        Err(ZipError::Malformed { offset, message })
    }

    /// The byte offset of what is wrong (none for an I/O error).
    ///
    /// ```
    /// use metalayer::store::zip::EndRecord;
    ///
    /// let err = EndRecord::parse(b"PK\x05\x05 and 22 bytes ..", 100).unwrap_err();
    /// assert_eq!(err.offset(), Some(100));
    /// assert!(err.to_string().starts_with("at byte 100: expected the end-of-central-directory record"));
    /// ```
    pub fn offset(&self) -> Option<u64> {
        match self {
            ZipError::Io(_) => None,
            ZipError::Malformed { offset, .. } => Some(*offset),
        }
    }
}

impl fmt::Display for ZipError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ZipError::Io(e) => write!(f, "cannot read the zip file: {e}"),
            ZipError::Malformed { message, .. } => f.write_str(message),
        }
    }
}

impl std::error::Error for ZipError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ZipError::Io(e) => Some(e),
            ZipError::Malformed { .. } => None,
        }
    }
}

impl From<io::Error> for ZipError {
    fn from(e: io::Error) -> Self {
        ZipError::Io(e)
    }
}

pub(crate) fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(*bytes.get(at..)?.first_chunk::<2>()?))
}

pub(crate) fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(*bytes.get(at..)?.first_chunk::<4>()?))
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(*bytes.get(at..)?.first_chunk::<8>()?))
}

fn wide(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// Reads `len` bytes at `at` of `file`; an error when the file ends before them.
pub(crate) fn read_at<R: Read + Seek>(file: &mut R, at: u64, len: u64) -> io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(at))?;
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(len).read_to_end(&mut bytes)?;
    if wide(bytes.len()) < len {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("the file ends before byte {}", at.saturating_add(len)),
        ));
    }
    Ok(bytes)
}

/// Checks that `bytes` (read at `at`) start with `signature` and hold `len` bytes.
fn expect(bytes: &[u8], at: u64, signature: u32, len: usize, what: &str, magic: &str) -> Result<(), ZipError> {
    if u32_at(bytes, 0) != Some(signature) {
        return ZipError::at(
            at,
            format!(
                "at byte {at}: expected the {what} ({magic}), found {:02x?}",
                bytes.get(..4.min(bytes.len())).unwrap_or_default()
            ),
        );
    }
    if bytes.len() < len {
        return ZipError::at(
            at,
            format!(
                "at byte {at}: the {what} is {len} bytes, and only {} are there",
                bytes.len()
            ),
        );
    }
    Ok(())
}

/// The end-of-central-directory record: 22 bytes and a comment, the last record of a zip.
///
/// ```
/// use metalayer::store::zip::EndRecord;
///
/// let mut bytes = b"PK\x05\x06\0\0\0\0".to_vec();
/// bytes.extend_from_slice(&[2, 0, 2, 0]); // 2 entries, 2 on this disk
/// bytes.extend_from_slice(&[100, 0, 0, 0, 50, 0, 0, 0, 0, 0]); // 100 bytes at byte 50, no comment
/// let end = EndRecord::parse(&bytes, 150)?;
/// assert_eq!((end.at, end.entries, end.cd_size, end.cd_offset, end.comment_len), (150, 2, 100, 50, 0));
/// # Ok::<(), metalayer::store::zip::ZipError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct EndRecord {
    /// Where it starts in the file.
    pub at: u64,
    /// The number of this disk (0 in a zip of one part).
    pub disk: u16,
    /// The disk the central directory starts on.
    pub cd_disk: u16,
    /// The entries on this disk.
    pub disk_entries: u16,
    /// The entries in all.
    pub entries: u16,
    /// The central directory's length.
    pub cd_size: u32,
    /// Where the central directory starts.
    pub cd_offset: u32,
    /// The comment's length.
    pub comment_len: u16,
}

impl EndRecord {
    /// Its signature, `PK\x05\x06`.
    pub const SIGNATURE: u32 = 0x0605_4b50;
    /// Its fixed length.
    pub const LEN: usize = 22;

    /// The record whose bytes start `bytes`, read at `at`.
    pub fn parse(bytes: &[u8], at: u64) -> Result<EndRecord, ZipError> {
        expect(
            bytes,
            at,
            Self::SIGNATURE,
            Self::LEN,
            "end-of-central-directory record",
            "PK\\x05\\x06",
        )?;
        let f16 = |off| u16_at(bytes, off).unwrap_or_default();
        Ok(EndRecord {
            at,
            disk: f16(4),
            cd_disk: f16(6),
            disk_entries: f16(8),
            entries: f16(10),
            cd_size: u32_at(bytes, 12).unwrap_or_default(),
            cd_offset: u32_at(bytes, 16).unwrap_or_default(),
            comment_len: f16(20),
        })
    }

    /// Finds the record in `tail`, the file's last bytes read at `tail_at`: the last signature
    /// whose comment length reaches exactly the tail's end.
    ///
    /// ```
    /// use metalayer::store::zip::EndRecord;
    ///
    /// let mut tail = b"data PK\x05\x06".to_vec();
    /// tail.extend_from_slice(&[0; 16]);
    /// tail.extend_from_slice(&[3, 0]);
    /// tail.extend_from_slice(b"abc");
    /// assert_eq!(EndRecord::find(&tail, 1000)?.at, 1005);
    /// assert!(EndRecord::find(&tail[..tail.len() - 1], 1000).is_err());
    /// # Ok::<(), metalayer::store::zip::ZipError>(())
    /// ```
    pub fn find(tail: &[u8], tail_at: u64) -> Result<EndRecord, ZipError> {
        let signature = Self::SIGNATURE.to_le_bytes();
        let found = (0..tail.len().saturating_sub(Self::LEN - 1)).rev().find(|&i| {
            tail.get(i..).and_then(|t| t.get(..4)) == Some(&signature[..])
                && u16_at(tail, i.saturating_add(20))
                    .is_some_and(|c| i.saturating_add(Self::LEN).saturating_add(usize::from(c)) == tail.len())
        });
        let Some(i) = found else {
            return ZipError::at(
                tail_at,
                format!(
                    "no end-of-central-directory record (PK\\x05\\x06 and a comment reaching the file's end) \
                     in the last {} bytes, from byte {tail_at}: not a zip file, or a truncated one",
                    tail.len()
                ),
            );
        };
        Self::parse(tail.get(i..).unwrap_or_default(), tail_at.saturating_add(wide(i)))
    }
}

/// The zip64 end-of-central-directory locator: 20 bytes just before the end record, which say
/// where the zip64 end record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Zip64Locator {
    /// Where it starts in the file.
    pub at: u64,
    /// The disk the zip64 end record is on.
    pub record_disk: u32,
    /// Where the zip64 end record starts.
    pub record_offset: u64,
    /// The number of disks.
    pub disks: u32,
}

impl Zip64Locator {
    /// Its signature, `PK\x06\x07`.
    pub const SIGNATURE: u32 = 0x0706_4b50;
    /// Its length.
    pub const LEN: usize = 20;

    /// The locator whose bytes start `bytes`, read at `at`.
    ///
    /// ```
    /// use metalayer::store::zip::Zip64Locator;
    ///
    /// let mut bytes = b"PK\x06\x07\0\0\0\0".to_vec();
    /// bytes.extend_from_slice(&700u64.to_le_bytes());
    /// bytes.extend_from_slice(&1u32.to_le_bytes());
    /// let locator = Zip64Locator::parse(&bytes, 756)?;
    /// assert_eq!((locator.record_offset, locator.disks), (700, 1));
    /// # Ok::<(), metalayer::store::zip::ZipError>(())
    /// ```
    pub fn parse(bytes: &[u8], at: u64) -> Result<Zip64Locator, ZipError> {
        expect(bytes, at, Self::SIGNATURE, Self::LEN, "zip64 locator", "PK\\x06\\x07")?;
        Ok(Zip64Locator {
            at,
            record_disk: u32_at(bytes, 4).unwrap_or_default(),
            record_offset: u64_at(bytes, 8).unwrap_or_default(),
            disks: u32_at(bytes, 16).unwrap_or_default(),
        })
    }
}

/// The zip64 end-of-central-directory record: 56 bytes, then an extensible data sector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Zip64EndRecord {
    /// Where it starts in the file.
    pub at: u64,
    /// "Size of zip64 end of central directory record": the bytes after this field (44 fixed,
    /// then the extensible data sector).
    pub record_size: u64,
    /// The number of this disk.
    pub disk: u32,
    /// The disk the central directory starts on.
    pub cd_disk: u32,
    /// The entries on this disk.
    pub disk_entries: u64,
    /// The entries in all.
    pub entries: u64,
    /// The central directory's length.
    pub cd_size: u64,
    /// Where the central directory starts.
    pub cd_offset: u64,
}

impl Zip64EndRecord {
    /// Its signature, `PK\x06\x06`.
    pub const SIGNATURE: u32 = 0x0606_4b50;
    /// Its fixed length.
    pub const LEN: usize = 56;

    /// The record whose bytes start `bytes`, read at `at`.
    ///
    /// ```
    /// use metalayer::store::zip::Zip64EndRecord;
    ///
    /// let mut bytes = b"PK\x06\x06".to_vec();
    /// bytes.extend_from_slice(&44u64.to_le_bytes());
    /// bytes.extend_from_slice(&[45, 0, 45, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    /// for v in [3u64, 3, 150, 500] {
    ///     bytes.extend_from_slice(&v.to_le_bytes());
    /// }
    /// let record = Zip64EndRecord::parse(&bytes, 650)?;
    /// assert_eq!((record.entries, record.cd_size, record.cd_offset), (3, 150, 500));
    /// # Ok::<(), metalayer::store::zip::ZipError>(())
    /// ```
    pub fn parse(bytes: &[u8], at: u64) -> Result<Zip64EndRecord, ZipError> {
        expect(
            bytes,
            at,
            Self::SIGNATURE,
            Self::LEN,
            "zip64 end-of-central-directory record",
            "PK\\x06\\x06",
        )?;
        Ok(Zip64EndRecord {
            at,
            record_size: u64_at(bytes, 4).unwrap_or_default(),
            disk: u32_at(bytes, 16).unwrap_or_default(),
            cd_disk: u32_at(bytes, 20).unwrap_or_default(),
            disk_entries: u64_at(bytes, 24).unwrap_or_default(),
            entries: u64_at(bytes, 32).unwrap_or_default(),
            cd_size: u64_at(bytes, 40).unwrap_or_default(),
            cd_offset: u64_at(bytes, 48).unwrap_or_default(),
        })
    }
}

/// One entry of the central directory: 46 bytes, the name, the extra fields and the comment.
/// Its sizes, local header offset and disk number are those of its zip64 extra field where the
/// 32-bit (16-bit) fields are saturated.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CentralEntry {
    /// Where it starts in the file.
    pub at: u64,
    /// The general purpose flags ([`ENCRYPTED`], [`DATA_DESCRIPTOR`], ...).
    pub flags: u16,
    /// The compression method: 0 stored, 8 deflate, ...
    pub method: u16,
    /// The CRC-32 of the member's data.
    pub crc32: u32,
    /// The data's length as stored.
    pub compressed_size: u64,
    /// The data's length.
    pub size: u64,
    /// The member's name as stored.
    pub name: Vec<u8>,
    /// Where the member's local header starts.
    pub header_offset: u64,
    /// The disk its local header is on: 0 in a zip of one part.
    pub disk: u32,
    /// Whether it carries a zip64 extra field.
    pub zip64: bool,
    /// The entry's length: 46 bytes, the name, the extra fields and the comment.
    pub len: usize,
}

impl CentralEntry {
    /// Its signature, `PK\x01\x02`.
    pub const SIGNATURE: u32 = 0x0201_4b50;
    /// Its fixed length.
    pub const LEN: usize = 46;

    /// The entry whose bytes start `bytes`, read at `at`; `index` counts it among the entries,
    /// for messages.
    ///
    /// ```
    /// use metalayer::store::zip::CentralEntry;
    ///
    /// let mut bytes = b"PK\x01\x02\x14\x03\x14\0\0\0\0\0".to_vec(); // versions, flags, method 0
    /// bytes.extend_from_slice(&[0; 8]); // time, date, CRC-32
    /// bytes.extend_from_slice(&[5, 0, 0, 0, 5, 0, 0, 0]); // sizes
    /// bytes.extend_from_slice(&[3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]); // name length 3
    /// bytes.extend_from_slice(&[40, 0, 0, 0]); // the local header at byte 40
    /// bytes.extend_from_slice(b"a/b");
    /// let entry = CentralEntry::parse(&bytes, 90, 0)?;
    /// assert_eq!((&entry.name[..], entry.header_offset, entry.size, entry.len), (&b"a/b"[..], 40, 5, 49));
    /// // Cut short: the offset of the entry, and which one.
    /// let err = CentralEntry::parse(&bytes[..48], 90, 0).unwrap_err();
    /// assert_eq!(err.to_string(), "at byte 90: central directory entry 0 runs past the central directory's end (a truncated or damaged zip)");
    /// # Ok::<(), metalayer::store::zip::ZipError>(())
    /// ```
    pub fn parse(bytes: &[u8], at: u64, index: u64) -> Result<CentralEntry, ZipError> {
        let truncated = || {
            ZipError::at(
                at,
                format!(
                    "at byte {at}: central directory entry {index} runs past the central directory's end \
                     (a truncated or damaged zip)"
                ),
            )
        };
        let Some(fixed) = bytes.get(..Self::LEN) else {
            return truncated();
        };
        if u32_at(fixed, 0) != Some(Self::SIGNATURE) {
            return ZipError::at(
                at,
                format!(
                    "at byte {at}: expected central directory entry {index} (PK\\x01\\x02), found {:02x?}",
                    fixed.get(..4).unwrap_or_default()
                ),
            );
        }
        let f16 = |off| u16_at(fixed, off).unwrap_or_default();
        let f32 = |off| u32_at(fixed, off).unwrap_or_default();
        let (name_len, extra_len, comment_len) = (usize::from(f16(28)), usize::from(f16(30)), usize::from(f16(32)));
        let name_at = Self::LEN;
        // At most 46 + 3 * 65,535: no overflow.
        let extra_at = name_at.saturating_add(name_len);
        let comment_at = extra_at.saturating_add(extra_len);
        let len = comment_at.saturating_add(comment_len);
        if len > bytes.len() {
            return truncated();
        }
        let name = bytes.get(name_at..extra_at).unwrap_or_default();
        let extra = bytes.get(extra_at..comment_at).unwrap_or_default();
        let mut entry = CentralEntry {
            at,
            flags: f16(8),
            method: f16(10),
            crc32: f32(16),
            compressed_size: u64::from(f32(20)),
            size: u64::from(f32(24)),
            name: name.to_vec(),
            header_offset: u64::from(f32(42)),
            disk: u32::from(f16(34)),
            zip64: false,
            len,
        };
        entry.zip64_fields(extra)?;
        Ok(entry)
    }

    /// The name as shown: not UTF-8 bytes and control characters replaced by U+FFFD.
    pub fn shown_name(&self) -> String {
        super::shown_name(&self.name)
    }

    /// Replaces the saturated sizes, offset and disk number with those of the zip64 extra field
    /// (id 1), which holds, in this order, the ones that are saturated: the size, the
    /// compressed size, the local header's offset (8 bytes each), the disk number (4 bytes).
    fn zip64_fields(&mut self, extra: &[u8]) -> Result<(), ZipError> {
        let data = zip64_extra(extra);
        self.zip64 = data.is_some();
        let saturated = |v: u64| v == u64::from(u32::MAX);
        let disk_saturated = self.disk == u32::from(u16::MAX);
        if !saturated(self.size)
            && !saturated(self.compressed_size)
            && !saturated(self.header_offset)
            && !disk_saturated
        {
            return Ok(());
        }
        let at = self.at;
        let Some(data) = data else {
            return ZipError::at(
                at,
                format!(
                    "at byte {at}: member {}: its sizes call for a zip64 extra field, and it has none",
                    self.shown_name()
                ),
            );
        };
        let short = |name: String| {
            ZipError::at(
                at,
                format!("at byte {at}: member {name}: its zip64 extra field is too short for the sizes it stands for"),
            )
        };
        let mut pos = 0;
        for field in [&mut self.size, &mut self.compressed_size, &mut self.header_offset] {
            if saturated(*field) {
                let Some(v) = u64_at(data, pos) else {
                    return short(super::shown_name(&self.name));
                };
                *field = v;
                pos = pos.saturating_add(8);
            }
        }
        if disk_saturated {
            let Some(v) = u32_at(data, pos) else {
                return short(self.shown_name());
            };
            self.disk = v;
        }
        Ok(())
    }
}

/// The data of the zip64 extended information extra field (id 1) among `extra`'s fields.
fn zip64_extra(extra: &[u8]) -> Option<&[u8]> {
    let mut pos = 0;
    while let (Some(id), Some(len)) = (u16_at(extra, pos), u16_at(extra, pos.saturating_add(2))) {
        let data_at = pos.saturating_add(4);
        let next = data_at.saturating_add(usize::from(len));
        let data = extra.get(data_at..next).unwrap_or_default();
        if id == ZIP64_EXTRA_ID {
            return Some(data);
        }
        pos = next;
    }
    None
}

/// A member's local header: 30 bytes, then the name and the extra fields, then the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct LocalHeader {
    /// Where it starts in the file.
    pub at: u64,
    /// The general purpose flags.
    pub flags: u16,
    /// The compression method.
    pub method: u16,
    /// The CRC-32 (0 with a data descriptor).
    pub crc32: u32,
    /// The data's length as stored (32 bits; 0xffffffff with a zip64 extra field).
    pub compressed_size: u32,
    /// The data's length (32 bits).
    pub size: u32,
    /// The name's length.
    pub name_len: u16,
    /// The extra fields' length.
    pub extra_len: u16,
}

impl LocalHeader {
    /// Its signature, `PK\x03\x04`.
    pub const SIGNATURE: u32 = 0x0403_4b50;
    /// Its fixed length.
    pub const LEN: usize = 30;
    /// Where its CRC-32 is, from its start; the two sizes follow.
    pub const CRC32_AT: u64 = 14;

    /// The header whose bytes start `bytes`, read at `at`.
    ///
    /// ```
    /// use metalayer::store::zip::LocalHeader;
    ///
    /// let mut bytes = b"PK\x03\x04\x14\0\0\0\0\0".to_vec(); // version, flags, method 0
    /// bytes.extend_from_slice(&[0; 8]); // time, date, CRC-32
    /// bytes.extend_from_slice(&[5, 0, 0, 0, 5, 0, 0, 0, 3, 0, 0, 0]);
    /// let header = LocalHeader::parse(&bytes, 0)?;
    /// assert_eq!(header.data_offset(), 33);
    /// let err = LocalHeader::parse(b"PK\x01\x02", 7).unwrap_err();
    /// assert_eq!(err.to_string(), "at byte 7: expected the member's local header (PK\\x03\\x04), found [50, 4b, 01, 02]");
    /// # Ok::<(), metalayer::store::zip::ZipError>(())
    /// ```
    pub fn parse(bytes: &[u8], at: u64) -> Result<LocalHeader, ZipError> {
        expect(
            bytes,
            at,
            Self::SIGNATURE,
            Self::LEN,
            "member's local header",
            "PK\\x03\\x04",
        )?;
        Ok(LocalHeader {
            at,
            flags: u16_at(bytes, 6).unwrap_or_default(),
            method: u16_at(bytes, 8).unwrap_or_default(),
            crc32: u32_at(bytes, 14).unwrap_or_default(),
            compressed_size: u32_at(bytes, 18).unwrap_or_default(),
            size: u32_at(bytes, 22).unwrap_or_default(),
            name_len: u16_at(bytes, 26).unwrap_or_default(),
            extra_len: u16_at(bytes, 28).unwrap_or_default(),
        })
    }

    /// Where the member's data starts: after the 30 bytes, the name and the extra fields.
    pub fn data_offset(&self) -> u64 {
        self.at
            .saturating_add(wide(Self::LEN))
            .saturating_add(u64::from(self.name_len))
            .saturating_add(u64::from(self.extra_len))
    }
}

/// Where a zip's central directory lies, and how many entries it claims.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Directory {
    /// Where the central directory starts.
    pub offset: u64,
    /// Its length.
    pub size: u64,
    /// How many entries the end record claims.
    pub entries: u64,
    /// Whether `entries` is a floor, not a count: the end record's count saturated (0xffff)
    /// with no zip64 records, as python's `zipfile` writes a zip of exactly 65,535 entries (it
    /// writes zip64 records only above that). The directory is then read by its size.
    pub at_least: bool,
    /// Where the record that located it starts (the zip64 end record's, or the end record's):
    /// the central directory must end there.
    pub end: u64,
    /// Where the end record itself starts.
    pub end_record: u64,
    /// Whether the zip64 records located it.
    pub zip64: bool,
}

/// A zip's central directory, read from one open file and checked against the file's length:
/// where it lies and its entries, in stored order.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Archive {
    /// Where the central directory lies.
    pub directory: Directory,
    /// Its entries, in stored order, directories included.
    pub entries: Vec<CentralEntry>,
    /// The file's length.
    pub file_len: u64,
}

impl Archive {
    /// Reads the end record (and the zip64 records, when a locator precedes it), then the
    /// central directory, from `file`. Nothing else of the file is read.
    pub fn read<R: Read + Seek>(file: &mut R) -> Result<Archive, ZipError> {
        let file_len = file.seek(SeekFrom::End(0))?;
        let dir = directory(file, file_len)?;
        if dir.offset.checked_add(dir.size).is_none_or(|end| end > dir.end) {
            return ZipError::at(
                dir.end,
                format!(
                    "at byte {}: the central directory, {} bytes at byte {}, runs past the end record at byte {} \
                     (a truncated or damaged zip)",
                    dir.end, dir.size, dir.offset, dir.end
                ),
            );
        }
        // Each entry takes at least 46 bytes: the count is bounded by the directory's real size.
        if dir.entries.saturating_mul(wide(CentralEntry::LEN)) > dir.size {
            return ZipError::at(
                dir.end,
                format!(
                    "at byte {}: the end record claims {}{} entries, more than the central directory's {} bytes at byte {} hold",
                    dir.end,
                    if dir.at_least { "at least " } else { "" },
                    dir.entries,
                    dir.size,
                    dir.offset
                ),
            );
        }
        let central = read_at(file, dir.offset, dir.size)?;
        let more = |pos: usize, index: u64| {
            if dir.at_least {
                pos < central.len()
            } else {
                index < dir.entries
            }
        };
        let mut entries = Vec::new();
        let (mut pos, mut index) = (0usize, 0u64);
        while more(pos, index) {
            let at = dir.offset.saturating_add(wide(pos));
            let entry = CentralEntry::parse(central.get(pos..).unwrap_or_default(), at, index)?;
            pos = pos.saturating_add(entry.len);
            entries.push(entry);
            index = index.saturating_add(1);
        }
        if dir.at_least && index < dir.entries {
            return ZipError::at(
                dir.end,
                format!(
                    "at byte {}: the end record claims at least {} entries (its count saturated, without zip64 records), \
                     and the central directory's {} bytes at byte {} hold {index}",
                    dir.end, dir.entries, dir.size, dir.offset
                ),
            );
        }
        if pos != central.len() {
            return ZipError::at(
                dir.offset.saturating_add(wide(pos)),
                format!(
                    "at byte {}: the central directory's {} entries end {} bytes before its stated end at byte {}",
                    dir.offset.saturating_add(wide(pos)),
                    dir.entries,
                    central.len().saturating_sub(pos),
                    dir.offset.saturating_add(dir.size)
                ),
            );
        }
        Ok(Archive {
            directory: dir,
            entries,
            file_len,
        })
    }

    /// The member `entry` (one of [`entries`](Self::entries)) checked to be read in place: stored
    /// (method 0), not encrypted, its local header and its data within the file before the
    /// central directory. `Ok(Err(message))` is a member refused (the message names the byte);
    /// `Err` the file not read.
    pub fn locate<R: Read + Seek>(&self, file: &mut R, entry: &CentralEntry) -> io::Result<Result<Located, String>> {
        let header_offset = entry.header_offset;
        if entry.flags & ENCRYPTED != 0 {
            return Ok(Err(format!(
                "the member at byte {header_offset} is encrypted; .b2z members are stored as they are"
            )));
        }
        if entry.method != 0 {
            return Ok(Err(format!(
                "the member at byte {header_offset} is compressed with {}; .b2z members are stored",
                method_name(entry.method)
            )));
        }
        if entry.compressed_size != entry.size {
            return Ok(Err(format!(
                "the member at byte {header_offset} is stored, and its compressed size {} is not its size {}",
                entry.compressed_size, entry.size
            )));
        }
        Ok(self.local_header(file, entry)?.map(|header| Located {
            header_offset,
            offset: header.data_offset(),
            size: entry.size,
        }))
    }

    /// The entry's local header, read and checked to lie, with the data it announces, before the
    /// central directory (its name and extra fields are not read). The inner `Err` is a
    /// refusal's message; the outer one, the file not read.
    fn local_header<R: Read + Seek>(
        &self,
        file: &mut R,
        entry: &CentralEntry,
    ) -> io::Result<Result<LocalHeader, String>> {
        let data_end = self.directory.offset;
        let header_offset = entry.header_offset;
        if entry.disk != 0 {
            return Ok(Err(format!(
                "the central directory entry at byte {} places the member's local header on disk {} of a zip split in parts",
                entry.at, entry.disk
            )));
        }
        if header_offset
            .checked_add(wide(LocalHeader::LEN))
            .is_none_or(|end| end > data_end)
        {
            return Ok(Err(format!(
                "the central directory entry at byte {} places the member's local header at byte {header_offset}, \
                 past the members' end at byte {data_end}",
                entry.at
            )));
        }
        let bytes = read_at(file, header_offset, wide(LocalHeader::LEN))?;
        let header = match LocalHeader::parse(&bytes, header_offset) {
            Ok(header) => header,
            Err(e) => return Ok(Err(e.to_string())),
        };
        let offset = header.data_offset();
        if offset
            .checked_add(entry.compressed_size)
            .is_none_or(|end| end > data_end)
        {
            return Ok(Err(format!(
                "the member's {} bytes at byte {offset} run past the members' end at byte {data_end}",
                entry.compressed_size
            )));
        }
        Ok(Ok(header))
    }

    /// The zip checked to be carried over whole by a rewrite that moves the bytes after one
    /// member: beyond what [`locate`](Self::locate) checks, every central directory entry
    /// (directories, and members `locate` refuses, too) has its local header (its signature,
    /// and the entry's name) and its data (and data descriptor) within the file and before the
    /// central directory; no two entries' bytes overlap; no two entries have one name (readers
    /// that map names to members, as python-blosc2 does, see only the last one, so an edit of
    /// the other would not be seen). `Err` names the byte offset of what is wrong.
    ///
    /// ```
    /// use metalayer::store::zip::Archive;
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-stores/dictstore.b2z");
    /// let mut file = std::fs::File::open(path).unwrap();
    /// let archive = Archive::read(&mut file)?;
    /// let layout = archive.check_for_edit(&mut file)?;
    /// assert!(!layout.zip64);
    /// assert_eq!(layout.spans.len(), archive.entries.len());
    /// # Ok::<(), metalayer::store::zip::ZipError>(())
    /// ```
    pub fn check_for_edit<R: Read + Seek>(&self, file: &mut R) -> Result<EditLayout, ZipError> {
        let mut spans = Vec::with_capacity(self.entries.len());
        let mut zip64 = self.directory.zip64;
        for entry in &self.entries {
            let span = self.entry_span(file, entry).map_err(|message| ZipError::Malformed {
                offset: entry.at,
                message: format!("member {:?}: {message}", entry.shown_name()),
            })?;
            zip64 |= entry.zip64 || span.zip64;
            spans.push(span);
        }
        self.unique_names()?;
        self.no_overlap(&spans)?;
        Ok(EditLayout {
            directory: self.directory,
            zip64,
            spans,
        })
    }

    /// Refuses two entries of one name, with both local headers' offsets.
    fn unique_names(&self) -> Result<(), ZipError> {
        let mut order: Vec<&CentralEntry> = self.entries.iter().collect();
        // Stable: among entries of one name, central directory order.
        order.sort_by(|a, b| name_key(a).cmp(name_key(b)));
        for pair in order.windows(2) {
            let [first, second] = pair else { continue };
            if name_key(first) == name_key(second) {
                return ZipError::at(
                    first.header_offset,
                    format!(
                        "at byte {} and at byte {}: two members are named {:?}; readers that take the last of a name \
                         (python-blosc2, python's zipfile) see only the one at byte {}, and an edit of either is refused",
                        first.header_offset,
                        second.header_offset,
                        second.shown_name(),
                        second.header_offset
                    ),
                );
            }
        }
        Ok(())
    }

    /// Refuses entries whose bytes overlap: each must start at or after the end of the one
    /// before.
    fn no_overlap(&self, spans: &[Span]) -> Result<(), ZipError> {
        let mut order: Vec<(&Span, &CentralEntry)> = spans.iter().zip(&self.entries).collect();
        order.sort_by_key(|(span, _)| (span.start, span.end));
        for pair in order.windows(2) {
            let [(a, a_entry), (b, b_entry)] = pair else { continue };
            if b.start < a.end {
                return ZipError::at(
                    b.start,
                    format!(
                        "at byte {}: the local header of member {:?} lies inside member {:?}, whose local header at byte {} \
                         and data run to byte {}",
                        b.start,
                        b_entry.shown_name(),
                        a_entry.shown_name(),
                        a.start,
                        a.end
                    ),
                );
            }
        }
        Ok(())
    }

    /// Where the entry's bytes lie, checked as [`check_for_edit`](Self::check_for_edit) checks
    /// them; `Err` is the refusal's message, which names the offset.
    fn entry_span<R: Read + Seek>(&self, file: &mut R, entry: &CentralEntry) -> Result<Span, String> {
        let data_end = self.directory.offset;
        let io = |e: io::Error| {
            format!(
                "at byte {}: cannot read the member's local header: {e}",
                entry.header_offset
            )
        };
        let header = self.local_header(file, entry).map_err(io)??;
        let start = entry.header_offset;
        let data = header.data_offset();
        let fields_at = start.saturating_add(wide(LocalHeader::LEN));
        let fields = read_at(file, fields_at, data.saturating_sub(fields_at)).map_err(io)?;
        let (name, extra) = fields.split_at(usize::from(header.name_len).min(fields.len()));
        if name != entry.name {
            return Err(format!(
                "at byte {start}: the local header names the member {:?}, its central directory entry at byte {} {:?}",
                super::shown_name(name),
                entry.at,
                entry.shown_name()
            ));
        }
        let zip64 = zip64_extra(extra).is_some();
        // `local_header` checked that the data ends before the central directory.
        let mut end = data.saturating_add(entry.compressed_size);
        if entry.flags & DATA_DESCRIPTOR != 0 {
            // CRC-32 and the two sizes (8 bytes each with zip64), after an optional signature.
            let sizes = if zip64 || entry.zip64 { 16 } else { 8 };
            let signed = end < data_end
                && read_at(file, end, 4.min(data_end.saturating_sub(end))).map_err(io)?
                    == DESCRIPTOR_SIGNATURE.to_le_bytes();
            let len: u64 = if signed { 8 } else { 4 };
            let len = len.saturating_add(sizes);
            if end.saturating_add(len) > data_end {
                return Err(format!(
                    "the member's data descriptor, {len} bytes at byte {end}, runs past the members' end at byte {data_end}"
                ));
            }
            end = end.saturating_add(len);
        }
        Ok(Span { start, end, zip64 })
    }
}

/// Where a member's frame lies in the zip file, as [`Archive::locate`] finds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Located {
    /// Where its local header starts.
    pub header_offset: u64,
    /// Where its data starts.
    pub offset: u64,
    /// Its data's length.
    pub size: u64,
}

/// Where one entry's bytes lie: its local header, its data, its data descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Span {
    /// Where its local header starts.
    pub start: u64,
    /// Where its bytes end: its data, and its data descriptor if it has one.
    pub end: u64,
    /// Whether its local header carries a zip64 extra field.
    pub zip64: bool,
}

/// A zip checked by [`Archive::check_for_edit`]: where its records are, for a rewrite.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct EditLayout {
    /// Where the central directory and the end records lie.
    pub directory: Directory,
    /// Whether the zip uses zip64: its zip64 records locate the central directory, or an
    /// entry's central directory record or local header carries a zip64 extra field. Such a
    /// zip's 32-bit fields do not say everything, and rewriting them is not enough.
    pub zip64: bool,
    /// Each entry's bytes, in the order of [`Archive::entries`].
    pub spans: Vec<Span>,
}

/// The name readers key a member by: its bytes up to a NUL, which python's `zipfile` cuts there.
fn name_key(entry: &CentralEntry) -> &[u8] {
    entry.name.split(|&b| b == 0).next().unwrap_or_default()
}

/// The name of a compression method, as the zip specification numbers them.
fn method_name(method: u16) -> String {
    match method {
        1 => "shrink".into(),
        6 => "implode".into(),
        8 => "deflate".into(),
        9 => "deflate64".into(),
        12 => "bzip2".into(),
        14 => "lzma".into(),
        93 => "zstd".into(),
        95 => "xz".into(),
        other => format!("method {other}"),
    }
}

/// Finds the end record in the last 64 KiB + 22 bytes of the file, and, when a zip64 locator
/// precedes it, the zip64 record, as python's `zipfile` reads them.
fn directory<R: Read + Seek>(file: &mut R, file_len: u64) -> Result<Directory, ZipError> {
    let tail_len = file_len.min(wide(EndRecord::LEN).saturating_add(MAX_COMMENT));
    let tail_at = file_len.saturating_sub(tail_len);
    let tail = read_at(file, tail_at, tail_len)?;
    let end = EndRecord::find(&tail, tail_at)?;
    let eocd_at = end.at;
    if let Some(locator_at) = eocd_at.checked_sub(wide(Zip64Locator::LEN)) {
        let bytes = read_at(file, locator_at, wide(Zip64Locator::LEN))?;
        if u32_at(&bytes, 0) == Some(Zip64Locator::SIGNATURE) {
            let locator = Zip64Locator::parse(&bytes, locator_at)?;
            return zip64_directory(file, &locator, eocd_at);
        }
    }
    for (what, value, field) in [("size", end.cd_size, 12), ("offset", end.cd_offset, 16)] {
        if value == u32::MAX {
            return ZipError::at(
                eocd_at.saturating_add(field),
                format!(
                    "at byte {}: the end record's central directory {what} is 0xffffffff, which calls for \
                     zip64 records, and no zip64 locator (PK\\x06\\x07) precedes the end record at byte {eocd_at}",
                    eocd_at.saturating_add(field)
                ),
            );
        }
    }
    if end.disk != 0 || end.cd_disk != 0 {
        return ZipError::at(
            eocd_at,
            format!(
                "at byte {eocd_at}: the end-of-central-directory record is of disk {} of a zip split in parts",
                end.disk
            ),
        );
    }
    Ok(Directory {
        offset: u64::from(end.cd_offset),
        size: u64::from(end.cd_size),
        entries: u64::from(end.entries),
        at_least: end.entries == u16::MAX,
        end: eocd_at,
        end_record: eocd_at,
        zip64: false,
    })
}

/// The zip64 end record, through its `locator` (just before the end record at `eocd_at`): the
/// record's fixed 56 bytes, and the data its size field says follow them, must end where the
/// locator starts.
fn zip64_directory<R: Read + Seek>(file: &mut R, locator: &Zip64Locator, eocd_at: u64) -> Result<Directory, ZipError> {
    let locator_at = locator.at;
    if locator.record_disk != 0 || locator.disks > 1 {
        return ZipError::at(
            locator_at,
            format!(
                "at byte {locator_at}: the zip64 locator is of a zip split in parts (the record on disk {}, {} disks)",
                locator.record_disk, locator.disks
            ),
        );
    }
    let record_at = locator.record_offset;
    if record_at
        .checked_add(wide(Zip64EndRecord::LEN))
        .is_none_or(|end| end > locator_at)
    {
        return ZipError::at(
            locator_at,
            format!(
                "at byte {locator_at}: the zip64 locator points at byte {record_at}, which leaves no room for the zip64 record before it"
            ),
        );
    }
    let bytes = read_at(file, record_at, wide(Zip64EndRecord::LEN))?;
    let record = Zip64EndRecord::parse(&bytes, record_at).map_err(|_| ZipError::Malformed {
        offset: record_at,
        message: format!(
            "at byte {record_at}: expected the zip64 end-of-central-directory record (PK\\x06\\x06) its locator at byte {locator_at} points at"
        ),
    })?;
    if record.record_size < wide(Zip64EndRecord::LEN).saturating_sub(12)
        || record_at
            .checked_add(12)
            .and_then(|a| a.checked_add(record.record_size))
            != Some(locator_at)
    {
        return ZipError::at(
            record_at.saturating_add(4),
            format!(
                "at byte {}: the zip64 record at byte {record_at} says {} bytes follow its size field; \
                 its locator at byte {locator_at} calls for {}",
                record_at.saturating_add(4),
                record.record_size,
                locator_at.saturating_sub(record_at).saturating_sub(12)
            ),
        );
    }
    if record.disk != 0 || record.cd_disk != 0 {
        return ZipError::at(
            record_at,
            format!("at byte {record_at}: the zip64 record is of a zip split in parts"),
        );
    }
    Ok(Directory {
        entries: record.entries,
        size: record.cd_size,
        offset: record.cd_offset,
        at_least: false,
        end: record_at,
        end_record: eocd_at,
        zip64: true,
    })
}
