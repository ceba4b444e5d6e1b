//! python-blosc2's EmbedStore (`embed.b2e`): a frame whose data holds whole frames one after the
//! other, and whose vlmetalayer `estore_metadata` maps each key to where its frame lies in that
//! data: `{"embed_map": {key: {"offset": o, "length": n}, ...}, "current_offset": c}`.

use std::fmt;
use std::format;
use std::io::{Read, Seek, SeekFrom};
use std::prelude::rust_2024::*;

use crate::frame::Frame;
use crate::vlmeta;

/// The metalayers that mark a frame as an EmbedStore, as python-blosc2 writes them: `b2embed`
/// (a bare EmbedStore, and both stores of python-blosc2 3.x), `b2dict` (a DictStore's) and
/// `b2tree` (a TreeStore's, a CTable's).
///
/// ```
/// assert!(metalayer::store::EMBED_STORE_MARKERS.contains(&"b2dict"));
/// ```
pub const EMBED_STORE_MARKERS: [&str; 3] = ["b2embed", "b2dict", "b2tree"];

/// The vlmetalayer of an EmbedStore that maps its keys to their frames' places.
pub const EMBED_METADATA: &str = "estore_metadata";

/// The key of [`EMBED_METADATA`]'s map that holds the places.
const EMBED_MAP_KEY: &[u8] = b"embed_map";

/// The most data an EmbedStore's chunks may decompress to, all together, to find the frames it
/// holds: [`vlmeta::DEFAULT_LIMIT`].
pub const DATA_LIMIT: usize = vlmeta::DEFAULT_LIMIT;

/// Whether a frame whose metalayers are named `names` is an EmbedStore: one of them is among
/// [`EMBED_STORE_MARKERS`].
///
/// ```
/// use metalayer::store::is_embed_store;
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-stores/dictstore.b2d/embed.b2e");
/// let frame = metalayer::frame::Frame::open(path)?;
/// assert!(is_embed_store(frame.metalayers.iter().map(|m| &m.name)));
/// assert!(!is_embed_store(["b2nd"]));
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
pub fn is_embed_store<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> bool {
    names.into_iter().any(|n| EMBED_STORE_MARKERS.contains(&n.as_ref()))
}

/// One key of an `embed_map`: where its frame lies in the EmbedStore's data.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct EmbedKey {
    /// The key as stored (`/dir/name`).
    pub raw_key: Vec<u8>,
    /// The key as shown: not UTF-8 bytes and control characters replaced by U+FFFD.
    pub key: String,
    /// Where the key's msgpack string starts in the metadata's bytes.
    pub at: usize,
    /// `offset` and `length` of its place, or why its place does not read (the message names
    /// the byte of the metadata).
    pub place: Result<(u64, u64), String>,
}

/// The `embed_map` of an EmbedStore's [`EMBED_METADATA`], in stored order.
///
/// ```
/// use metalayer::store::EmbedMap;
///
/// // {"embed_map": {"/a": {"offset": 0, "length": 300}}, "current_offset": 300}
/// let bytes = b"\x82\xa9embed_map\x81\xa2/a\x82\xa6offset\x00\xa6length\xcd\x01\x2c\xaecurrent_offset\xcd\x01\x2c";
/// let map = EmbedMap::parse(bytes)?;
/// assert_eq!(map.keys[0].key, "/a");
/// assert_eq!(map.keys[0].place, Ok((0, 300)));
/// assert_eq!(map.current_offset, Some(300));
///
/// // A count that lies: embed_map claims 2 keys where 1 is; the second's place would be
/// // read past the end of the 52 bytes.
/// let mut lying = bytes.to_vec();
/// lying[11] = 0x82;
/// assert_eq!(
///     EmbedMap::parse(&lying).unwrap_err().to_string(),
///     "at byte 52: the msgpack ends at byte 52 before the 1 bytes it announces here"
/// );
/// // An array where the map should be, and bytes that are not msgpack.
/// let mut array = bytes.to_vec();
/// array[11] = 0x91;
/// assert_eq!(EmbedMap::parse(&array).unwrap_err().at, 11);
/// assert_eq!(EmbedMap::parse(b"\xc1").unwrap_err().at, 0);
/// # Ok::<(), metalayer::store::EmbedMapError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct EmbedMap {
    /// The keys, in stored order.
    pub keys: Vec<EmbedKey>,
    /// `current_offset`, where the next frame would be written, when it is an integer.
    pub current_offset: Option<u64>,
}

/// Why an [`EmbedMap`] does not read: the byte of the metadata's msgpack, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct EmbedMapError {
    /// The byte of the msgpack where what is wrong lies.
    pub at: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for EmbedMapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {}: {}", self.at, self.message)
    }
}

impl std::error::Error for EmbedMapError {}

/// The head of one msgpack value: what it is, and where its contents start.
#[derive(Debug, Clone, Copy)]
enum Head {
    Map(u64),
    Array(u64),
    Str(usize),
    Bin(usize),
    Ext(usize),
    Uint(u64),
    /// A negative or signed integer: never a place.
    Int,
    /// nil, bool, float: nothing follows beyond the fixed bytes already skipped.
    Scalar,
}

/// A reader of msgpack values, one head at a time, over bytes that are checked as they are read.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn err<T>(&self, at: usize, message: String) -> Result<T, EmbedMapError> {
        Err(EmbedMapError { at, message })
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], EmbedMapError> {
        let at = self.pos;
        match self.bytes.get(at..at.saturating_add(n)) {
            Some(b) => {
                self.pos = at.saturating_add(n);
                Ok(b)
            }
            _ => self.err(
                at,
                format!(
                    "the msgpack ends at byte {} before the {n} bytes it announces here",
                    self.bytes.len()
                ),
            ),
        }
    }

    fn be(&mut self, n: usize) -> Result<u64, EmbedMapError> {
        Ok(self.take(n)?.iter().fold(0u64, |v, &b| (v << 8) | u64::from(b)))
    }

    fn len(&mut self, n: usize) -> Result<usize, EmbedMapError> {
        let at = self.pos;
        let v = self.be(n)?;
        match usize::try_from(v) {
            Ok(v) => Ok(v),
            Err(_) => self.err(at, format!("a length of {v} bytes")),
        }
    }

    /// Reads one value's head; strings, bins and exts are left for [`take`](Self::take).
    fn head(&mut self) -> Result<Head, EmbedMapError> {
        let at = self.pos;
        let m = self.take(1)?.first().copied().unwrap_or_default();
        Ok(match m {
            0x00..=0x7f => Head::Uint(u64::from(m)),
            0x80..=0x8f => Head::Map(u64::from(m & 0x0f)),
            0x90..=0x9f => Head::Array(u64::from(m & 0x0f)),
            0xa0..=0xbf => Head::Str(usize::from(m & 0x1f)),
            0xc0 | 0xc2 | 0xc3 => Head::Scalar,
            0xc1 => return self.err(at, "0xc1, a byte msgpack never uses: not msgpack".into()),
            0xc4 => Head::Bin(self.len(1)?),
            0xc5 => Head::Bin(self.len(2)?),
            0xc6 => Head::Bin(self.len(4)?),
            0xc7 => Head::Ext(self.len(1)?.saturating_add(1)),
            0xc8 => Head::Ext(self.len(2)?.saturating_add(1)),
            0xc9 => Head::Ext(self.len(4)?.saturating_add(1)),
            0xca => {
                self.take(4)?;
                Head::Scalar
            }
            0xcb => {
                self.take(8)?;
                Head::Scalar
            }
            0xcc => Head::Uint(self.be(1)?),
            0xcd => Head::Uint(self.be(2)?),
            0xce => Head::Uint(self.be(4)?),
            0xcf => Head::Uint(self.be(8)?),
            0xd0 => self.take(1).map(|_| Head::Int)?,
            0xd1 => self.take(2).map(|_| Head::Int)?,
            0xd2 => self.take(4).map(|_| Head::Int)?,
            0xd3 => self.take(8).map(|_| Head::Int)?,
            0xd4 => Head::Ext(2),
            0xd5 => Head::Ext(3),
            0xd6 => Head::Ext(5),
            0xd7 => Head::Ext(9),
            0xd8 => Head::Ext(17),
            0xd9 => Head::Str(self.len(1)?),
            0xda => Head::Str(self.len(2)?),
            0xdb => Head::Str(self.len(4)?),
            0xdc => Head::Array(self.be(2)?),
            0xdd => Head::Array(self.be(4)?),
            0xde => Head::Map(self.be(2)?),
            0xdf => Head::Map(self.be(4)?),
            0xe0..=0xff => Head::Int,
        })
    }

    /// Skips the rest of a value whose head was `head`: without recursion, each item read
    /// takes at least one byte, so a count that lies runs into the end of the bytes.
    fn skip_rest(&mut self, head: Head) -> Result<(), EmbedMapError> {
        let mut left: u64 = 0;
        let mut head = head;
        loop {
            match head {
                Head::Map(n) => left = left.saturating_add(n.saturating_mul(2)),
                Head::Array(n) => left = left.saturating_add(n),
                Head::Str(n) | Head::Bin(n) | Head::Ext(n) => {
                    self.take(n)?;
                }
                Head::Uint(_) | Head::Int | Head::Scalar => {}
            }
            if left == 0 {
                return Ok(());
            }
            left = left.saturating_sub(1);
            head = self.head()?;
        }
    }

    /// A string's bytes, or `None` (the value skipped) when the value is not a string.
    fn str(&mut self) -> Result<Option<&'a [u8]>, EmbedMapError> {
        match self.head()? {
            Head::Str(n) => self.take(n).map(Some),
            other => self.skip_rest(other).map(|()| None),
        }
    }

    fn marker_at(&self, at: usize) -> String {
        self.bytes.get(at).map_or_else(String::new, |b| format!("0x{b:02x}"))
    }
}

impl EmbedMap {
    /// Reads the `embed_map` out of the msgpack of [`EMBED_METADATA`] (the vlmetalayer's chunk
    /// decompressed). The metadata must be a map; its key `embed_map`, a map of string keys.
    /// A key whose place is not a map of non-negative `offset` and `length` is kept with its
    /// own error; anything else that does not read (bytes that are not msgpack, a count that
    /// runs past the bytes, an `embed_map` that is an array) is an error with its byte.
    pub fn parse(msgpack: &[u8]) -> Result<EmbedMap, EmbedMapError> {
        let mut r = Reader { bytes: msgpack, pos: 0 };
        let Head::Map(pairs) = r.head()? else {
            return r.err(
                0,
                format!(
                    "{EMBED_METADATA} is not a msgpack map: it starts with {}",
                    r.marker_at(0)
                ),
            );
        };
        let mut map = EmbedMap::default();
        let mut found = false;
        for _ in 0..pairs {
            let key_at = r.pos;
            let key = r.str()?;
            let value_at = r.pos;
            match key {
                Some(EMBED_MAP_KEY) => {
                    found = true;
                    map.keys = embed_map(&mut r, value_at)?;
                }
                Some(b"current_offset") => match r.head()? {
                    Head::Uint(v) => map.current_offset = Some(v),
                    other => r.skip_rest(other)?,
                },
                Some(_) => {
                    let head = r.head()?;
                    r.skip_rest(head)?;
                }
                None => {
                    return r.err(
                        key_at,
                        format!("a key of {EMBED_METADATA} is not a string: {}", r.marker_at(key_at)),
                    );
                }
            }
        }
        if !found {
            return r.err(0, format!("{EMBED_METADATA} has no key embed_map"));
        }
        Ok(map)
    }
}

/// The `embed_map` whose head is at `at`.
fn embed_map(r: &mut Reader<'_>, at: usize) -> Result<Vec<EmbedKey>, EmbedMapError> {
    let pairs = match r.head()? {
        Head::Map(n) => n,
        Head::Array(n) => return r.err(at, format!("embed_map is an array of {n} items, not a map of keys")),
        _ => return r.err(at, format!("embed_map is not a map: {}", r.marker_at(at))),
    };
    let mut keys = Vec::new();
    for index in 0..pairs {
        let key_at = r.pos;
        let Some(raw) = r.str()? else {
            return r.err(
                key_at,
                format!("key {index} of embed_map is not a string: {}", r.marker_at(key_at)),
            );
        };
        let value_at = r.pos;
        let place = place(r, value_at)?;
        keys.push(EmbedKey {
            raw_key: raw.to_vec(),
            key: super::shown_name(raw),
            at: key_at,
            place,
        });
    }
    Ok(keys)
}

/// A key's place, `{"offset": o, "length": n}`, whose head is at `at`; the inner `Err` is the
/// key's own error.
fn place(r: &mut Reader<'_>, at: usize) -> Result<Result<(u64, u64), String>, EmbedMapError> {
    let marker = r.marker_at(at);
    let pairs = match r.head()? {
        Head::Map(n) => n,
        other => {
            r.skip_rest(other)?;
            return Ok(Err(format!(
                "at byte {at} of its msgpack: not a map of offset and length, but {marker}"
            )));
        }
    };
    let (mut offset, mut length) = (None, None);
    let mut wrong = None;
    for _ in 0..pairs {
        let key = r.str()?;
        let value_at = r.pos;
        let slot = match key {
            Some(b"offset") => &mut offset,
            Some(b"length") => &mut length,
            _ => {
                let head = r.head()?;
                r.skip_rest(head)?;
                continue;
            }
        };
        match r.head()? {
            Head::Uint(v) => *slot = Some(v),
            other => {
                r.skip_rest(other)?;
                wrong.get_or_insert(format!(
                    "at byte {value_at} of its msgpack: its {} is not a non-negative integer, but {}",
                    if key == Some(b"offset") { "offset" } else { "length" },
                    r.marker_at(value_at)
                ));
            }
        }
    }
    if let Some(message) = wrong {
        return Ok(Err(message));
    }
    match (offset, length) {
        (Some(o), Some(n)) => Ok(Ok((o, n))),
        _ => Ok(Err(format!(
            "at byte {at} of its msgpack: it has no {}",
            if offset.is_none() { "offset" } else { "length" }
        ))),
    }
}

/// Why an EmbedStore's data or map could not be read.
#[derive(Debug)]
pub(crate) enum DataError {
    /// The message names the byte of the frame.
    Frame(String),
    /// The embed map, and the vlmetalayer's offset.
    Map(EmbedMapError, u64),
}

/// The EmbedStore's `embed_map`, from its frame's [`EMBED_METADATA`]: `Ok(None)` when it has
/// none.
pub(crate) fn map_of(frame: &Frame) -> Result<Option<EmbedMap>, DataError> {
    let Some(meta) = frame.vlmetalayers.iter().find(|m| m.name == EMBED_METADATA) else {
        return Ok(None);
    };
    let at = meta.offset;
    let msgpack = vlmeta::decompress(&meta.content, vlmeta::DEFAULT_LIMIT).map_err(|e| {
        DataError::Frame(format!(
            "{EMBED_METADATA}, the vlmetalayer at byte {at}, does not decompress: {e}"
        ))
    })?;
    EmbedMap::parse(&msgpack).map(Some).map_err(|e| DataError::Map(e, at))
}

fn u32_le(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from(u32::from_le_bytes(*bytes.get(at..)?.first_chunk::<4>()?)))
}

/// Reads `len` bytes at `at` of the frame in `reader`, which must lie in its `frame_len`.
fn read_part<R: Read + Seek>(reader: &mut R, at: u64, len: u64, frame_len: u64) -> Result<Vec<u8>, String> {
    if at.checked_add(len).is_none_or(|end| end > frame_len) {
        return Err(format!(
            "at byte {at}: {len} bytes run past the frame's end at byte {frame_len}"
        ));
    }
    let io = |e: std::io::Error| format!("at byte {at}: cannot read it: {e}");
    reader.seek(SeekFrom::Start(at)).map_err(io)?;
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    reader.take(len).read_to_end(&mut bytes).map_err(io)?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) != len {
        return Err(format!("at byte {at}: the file ends before {len} bytes"));
    }
    Ok(bytes)
}

/// One Blosc2 chunk of the frame at `at`: its 32-byte header says how long it is.
fn chunk_at<R: Read + Seek>(reader: &mut R, at: u64, frame_len: u64) -> Result<Vec<u8>, String> {
    let head = read_part(reader, at, 32, frame_len)?;
    let cbytes = u32_le(&head, 12).unwrap_or_default();
    read_part(reader, at, cbytes, frame_len)
}

/// The EmbedStore's data: its chunks, in the order of its chunk offsets, decompressed, within
/// [`DATA_LIMIT`] bytes. The chunk offsets are the chunk right after the data chunks, at
/// `header_len + cbytes`, as c-blosc2 places them. Messages name the byte of the frame.
pub(crate) fn data<R: Read + Seek>(reader: &mut R, frame: &Frame) -> Result<Vec<u8>, String> {
    let h = &frame.header;
    let header_len = u64::try_from(h.header_len).unwrap_or(u64::MAX);
    let frame_len = h.frame_len;
    let (Ok(cbytes), Ok(nbytes)) = (u64::try_from(h.cbytes), u64::try_from(h.nbytes)) else {
        return Err(format!(
            "its header's cbytes {} or nbytes {} is negative",
            h.cbytes, h.nbytes
        ));
    };
    if usize::try_from(nbytes).is_ok_and(|n| n > DATA_LIMIT) || usize::try_from(nbytes).is_err() {
        return Err(format!(
            "its data of {nbytes} bytes is more than the {DATA_LIMIT} bytes read to find the frames it holds"
        ));
    }
    if nbytes == 0 {
        return Ok(Vec::new());
    }
    let offsets_at = header_len.saturating_add(cbytes);
    let offsets_chunk = chunk_at(reader, offsets_at, frame_len)?;
    let offsets = vlmeta::decompress(&offsets_chunk, DATA_LIMIT)
        .map_err(|e| format!("the chunk offsets at byte {offsets_at}: {e}"))?;
    let mut data = Vec::new();
    for (i, offset) in offsets.chunks_exact(8).enumerate() {
        let offset = i64::from_le_bytes(offset.try_into().unwrap_or_default());
        let Ok(offset) = u64::try_from(offset) else {
            return Err(format!(
                "chunk {i}: its offset {offset} (at byte {offsets_at}) is a special value, which holds no frame"
            ));
        };
        let at = header_len.saturating_add(offset);
        let chunk = chunk_at(reader, at, frame_len)?;
        let left = DATA_LIMIT.saturating_sub(data.len());
        let bytes = vlmeta::decompress(&chunk, left).map_err(|e| format!("chunk {i} at byte {at}: {e}"))?;
        data.extend_from_slice(&bytes);
    }
    Ok(data)
}
