//! The header's and trailer's types: the generated decoders' (`frame_header_v2`,
//! `frame_trailer_v1`), and what the reader returns.

use std::borrow::ToOwned;
use std::string::String;
use std::vec::Vec;

use super::codec::{Codec, Filter, SplitMode};
use crate::{Ext, metalayer};

/// The codec nibble's value that says the codec's number is in the filter pipeline's `udcodec`
/// byte (c-blosc2's `BLOSC_UDCODEC_FORMAT`): codecs numbered 6 and up do not fit the nibble.
const UDCODEC_FORMAT: u8 = 6;

/// Where the filter pipeline keeps the user codec's number.
const UDCODEC_AT: usize = 6;

/// A Blosc2 frame header, as the generated decoder of `frame_header_v2` reads it; the names and
/// contents borrow from the bytes.
///
/// The frame readers ([`Frame::open`] and the others) check more than this decoder does (see
/// the [module documentation](super)); decoding it directly checks the schema only. Not a public
/// API: [`Header`] is what the readers give.
///
/// ```
/// use metalayer::frame::FrameHeader;
/// use metalayer::prelude::*;
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
/// let file = std::fs::read(path).unwrap();
/// let (header, used) = FrameHeader::decode_prefix(&file)?;
/// assert_eq!((header.header_len, used), (240, 240));
/// assert_eq!(header.frame_len, 315);
/// assert_eq!(header.typesize, 8);
/// assert_eq!(header.filters.ty, 6); // the number of filters
/// assert_eq!(header.metalayers.offsets[1], ("units", 0xcc));
/// assert_eq!(header.metalayers.contents[1], b"\xa6kelvin");
/// # Ok::<(), metalayer::DecodeError>(())
/// ```
#[metalayer(schema = "frame_header_v2")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameHeader<'a> {
    /// The header's length, through the last metalayer's content.
    pub header_len: i32,
    /// The whole frame's length.
    pub frame_len: u64,
    /// General flags (format version in the low nibble), frame type (0 contiguous, 1 sparse),
    /// codec (low nibble) and clevel (high nibble), other flags (split mode).
    pub flags: [u8; 4],
    /// Uncompressed size of the data.
    pub nbytes: i64,
    /// Compressed size of the chunks.
    pub cbytes: i64,
    /// Size of an item.
    pub typesize: i32,
    /// Size of a block.
    pub blocksize: i32,
    /// Size of a chunk; 0 when chunks vary.
    pub chunksize: i32,
    /// Threads for compression.
    pub nthreads_compress: i16,
    /// Threads for decompression.
    pub nthreads_decompress: i16,
    /// Whether the trailer holds vlmetalayers.
    pub has_vlmetalayers: bool,
    /// The ext type is the number of filters; the data: filters\[6\], udcodec, codec meta,
    /// filters_meta\[6\], other_flags2, reserved.
    pub filters: Ext<[u8; 16]>,
    /// The metalayers.
    pub metalayers: MetalayerIndex<'a>,
}

/// The metalayer section of a frame header (`frame_header_v2`'s record type `metalayers`).
///
/// ```
/// use metalayer::frame::FrameHeader;
/// use metalayer::prelude::*;
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
/// let file = std::fs::read(path).unwrap();
/// let index = FrameHeader::decode_prefix(&file)?.0.metalayers;
/// // The metalayers python-blosc2 stored: the array's, then the user's.
/// let names: Vec<&str> = index.offsets.iter().map(|&(name, _)| name).collect();
/// assert_eq!(names, ["b2nd", "units", "scale", "tags", "m"]);
/// assert_eq!(index.contents[2], b"\x03");
/// // Each offset is where its content's bin32 header is in the file.
/// for (&(_, offset), content) in index.offsets.iter().zip(&index.contents) {
///     let at = offset as usize;
///     assert_eq!(file[at], 0xc6);
///     assert_eq!(u32::from_be_bytes(file[at + 1..at + 5].try_into().unwrap()) as usize, content.len());
///     assert_eq!(&file[at + 5..at + 5 + content.len()], *content);
/// }
/// # Ok::<(), metalayer::DecodeError>(())
/// ```
#[metalayer(schema = "frame_header_v2", layout = "metalayers")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetalayerIndex<'a> {
    /// The index size: bytes from the section's `0x93` to the end of the map (not checked).
    pub size: u16,
    /// Name -> absolute offset of the content's `0xc6`, in stored order.
    pub offsets: Vec<(&'a str, i32)>,
    /// The contents, in stored order.
    pub contents: Vec<&'a [u8]>,
}

/// A Blosc2 frame trailer, as the generated decoder of `frame_trailer_v1` reads it; the names
/// and contents borrow from the bytes.
///
/// ```
/// use metalayer::frame::FrameTrailer;
/// use metalayer::prelude::*;
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
/// let file = std::fs::read(path).unwrap();
/// // trailer_len is 22 bytes before the end: here 35, a trailer without vlmetalayers.
/// let trailer = FrameTrailer::decode(&file[file.len() - 35..])?;
/// assert_eq!(trailer.trailer_len, 35);
/// assert!(trailer.vlmetalayers.offsets.is_empty());
/// assert_eq!(trailer.fingerprint.ty, 0);
/// # Ok::<(), metalayer::DecodeError>(())
/// ```
#[metalayer(schema = "frame_trailer_v1")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameTrailer<'a> {
    /// The vlmetalayers.
    pub vlmetalayers: VlMetalayerIndex<'a>,
    /// The trailer's length.
    pub trailer_len: u32,
    /// The ext type is the fingerprint type (0: none); the data, the fingerprint.
    pub fingerprint: Ext<[u8; 16]>,
}

/// The vlmetalayer section of a frame trailer (`frame_trailer_v1`'s record type
/// `vlmetalayers`): its offsets are from the trailer's first byte, and each content is a Blosc2
/// chunk holding msgpack.
///
/// ```
/// use metalayer::frame::FrameTrailer;
/// use metalayer::prelude::*;
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/scalars.b2nd");
/// let file = std::fs::read(path).unwrap();
/// // python-blosc2 wrote this frame's trailer at byte 322, with 15 vlmetalayers.
/// let trailer = &file[322..];
/// let index = FrameTrailer::decode(trailer)?.vlmetalayers;
/// assert_eq!(index.size, 241);
/// let names: Vec<&str> = index.offsets.iter().map(|&(name, _)| name).collect();
/// assert_eq!((names.len(), &names[..3]), (15, &["nil", "true", "false"][..]));
/// // Each offset is where its content's bin32 header is, from the trailer's first byte.
/// for (&(_, offset), content) in index.offsets.iter().zip(&index.contents) {
///     let at = offset as usize;
///     assert_eq!(trailer[at], 0xc6);
///     assert_eq!(u32::from_be_bytes(trailer[at + 1..at + 5].try_into().unwrap()) as usize, content.len());
///     assert_eq!(&trailer[at + 5..at + 5 + content.len()], *content);
/// }
/// # Ok::<(), metalayer::DecodeError>(())
/// ```
#[metalayer(schema = "frame_trailer_v1", layout = "vlmetalayers")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VlMetalayerIndex<'a> {
    /// The index size: bytes from this entry's `0xcd` to the end of the map (not checked).
    pub size: u16,
    /// Name -> offset of the content's `0xc6` from the trailer's first byte, in stored order.
    pub offsets: Vec<(&'a str, i32)>,
    /// The contents (Blosc2 chunks), in stored order.
    pub contents: Vec<&'a [u8]>,
}

/// One metalayer of a frame header, or one vlmetalayer of a frame trailer.
///
/// ```
/// use metalayer::frame::{Frame, FrameMetalayer};
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/dtype_i4le.b2nd");
/// let metalayers: Vec<FrameMetalayer> = Frame::open(path)?.metalayers;
/// let b2nd = &metalayers[0];
/// assert_eq!(b2nd.name, "b2nd");
/// // The content starts after its 0xc6 marker and u32 length, here at 0x6b + 5.
/// assert_eq!(b2nd.offset, 0x70);
/// let file = std::fs::read(path).unwrap();
/// assert_eq!(&file[0x70..0x70 + b2nd.content.len()], b2nd.content);
/// assert_eq!(b2nd.content[..3], [0x97, 0x00, 0x02]);
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FrameMetalayer {
    /// The metalayer's name, such as `"b2nd"` or `"caterva"`.
    pub name: String,
    /// The absolute offset in the frame (the file, or `chunks.b2frame` of a sparse frame) of the
    /// content's first byte. Its `0xc6` marker and length sit in the 5 bytes before it.
    pub offset: u64,
    /// The content without the `0xc6` framing: the metalayer's bytes (usually msgpack); for a
    /// vlmetalayer, the Blosc2 chunk that holds them.
    pub content: Vec<u8>,
}

/// A [`FrameMetalayer`] that borrows its name and content from the frame's bytes, as
/// [`FrameRef::parse`] returns it.
///
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
/// let bytes = std::fs::read(path).unwrap();
/// let frame = metalayer::frame::FrameRef::parse(&bytes)?;
/// let units = &frame.metalayers[1];
/// assert_eq!((units.name, units.content), ("units", &b"\xa6kelvin"[..]));
/// assert_eq!(&bytes[units.offset as usize..][..7], units.content);
/// assert_eq!(units.to_owned().content, b"\xa6kelvin");
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MetalayerRef<'a> {
    /// The metalayer's name.
    pub name: &'a str,
    /// The absolute offset of the content's first byte, as [`FrameMetalayer::offset`].
    pub offset: u64,
    /// The content without the `0xc6` framing, as [`FrameMetalayer::content`].
    pub content: &'a [u8],
}

impl MetalayerRef<'_> {
    /// The metalayer with its name and content copied.
    pub fn to_owned(&self) -> FrameMetalayer {
        FrameMetalayer {
            name: self.name.to_owned(),
            offset: self.offset,
            content: self.content.to_vec(),
        }
    }
}

impl FrameMetalayer {
    /// The metalayer, borrowed.
    ///
    /// ```
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
    /// let metalayers = metalayer::frame::Frame::open(path)?.metalayers;
    /// assert_eq!(metalayers[0].borrowed().name, "b2nd");
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    pub fn borrowed(&self) -> MetalayerRef<'_> {
        MetalayerRef {
            name: &self.name,
            offset: self.offset,
            content: &self.content,
        }
    }
}

/// The fixed fields of a frame header, as `frame_header_v2` lays them out (`header_len` as
/// checked), with what they say: the codec, the filters, the split mode, the ratio.
///
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
/// let frame = metalayer::frame::Frame::open(path)?;
/// let h = &frame.header;
/// assert_eq!((h.header_len, h.frame_len), (240, 315));
/// assert_eq!((h.format_version(), h.frame_type()), (2, 0));
/// assert_eq!((h.codec().number(), h.clevel()), (5, 5)); // ZSTD, clevel 5
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Header {
    /// The header's length.
    pub header_len: usize,
    /// The frame's length.
    pub frame_len: u64,
    /// The four flag bytes.
    pub flags: [u8; 4],
    /// Uncompressed size of the data.
    pub nbytes: i64,
    /// Compressed size of the chunks.
    pub cbytes: i64,
    /// Size of an item.
    pub typesize: i32,
    /// Size of a block.
    pub blocksize: i32,
    /// Size of a chunk; 0 when chunks vary.
    pub chunksize: i32,
    /// Threads for compression.
    pub nthreads_compress: i16,
    /// Threads for decompression.
    pub nthreads_decompress: i16,
    /// Whether the trailer holds vlmetalayers.
    pub has_vlmetalayers: bool,
    /// The filter pipeline: the ext type is the number of filters.
    pub filters: Ext<[u8; 16]>,
    /// The metalayer section's index size, as stored.
    pub metalayers_size: u16,
}

impl Header {
    /// The frame format version: the low nibble of the first flag byte (2, or 3 for frames with
    /// variable-length blocks).
    ///
    /// ```
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-own/objectarray.b2f");
    /// assert_eq!(metalayer::frame::Frame::open(path)?.header.format_version(), 3);
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    pub const fn format_version(&self) -> u8 {
        self.flags[0] & 0x0f
    }

    /// The frame type byte: 0 contiguous, 1 sparse.
    ///
    /// ```
    /// let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/sparse_meta.b2nd");
    /// assert_eq!(metalayer::frame::Frame::open(dir)?.header.frame_type(), 1);
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    pub const fn frame_type(&self) -> u8 {
        self.flags[1]
    }

    /// The codec that compressed the chunks: the low nibble of the third flag byte, or, when that
    /// nibble is 6 (c-blosc2's `BLOSC_UDCODEC_FORMAT`), the filter pipeline's `udcodec` byte,
    /// which holds codecs numbered above the nibble (ZFP and other plugins).
    ///
    /// ```
    /// use metalayer::frame::Codec;
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/ints_signed.b2nd");
    /// let codec = metalayer::frame::Frame::open(path)?.header.codec();
    /// assert_eq!((codec, codec.number(), codec.to_string()), (Codec::Lz4, 1, "LZ4".to_owned()));
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    pub const fn codec(&self) -> Codec {
        match self.flags[2] & 0x0f {
            UDCODEC_FORMAT => Codec::from_number(self.filters.data[UDCODEC_AT]),
            nibble => Codec::from_number(nibble),
        }
    }

    /// The filter pipeline: six filters, each with its meta byte, in the order they apply.
    ///
    /// ```
    /// use metalayer::frame::Filter;
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
    /// let filters = metalayer::frame::Frame::open(path)?.header.filters();
    /// assert_eq!(filters[5], (Filter::Shuffle, 0)); // python-blosc2's default pipeline
    /// assert!(filters[..5].iter().all(|&(f, _)| f == Filter::NoFilter));
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    pub const fn filters(&self) -> [(Filter, u8); 6] {
        let d = &self.filters.data;
        let f = Filter::from_number;
        [
            (f(d[0]), d[8]),
            (f(d[1]), d[9]),
            (f(d[2]), d[10]),
            (f(d[3]), d[11]),
            (f(d[4]), d[12]),
            (f(d[5]), d[13]),
        ]
    }

    /// The codec's meta byte (ZFP's accuracy, precision or rate).
    pub const fn codec_meta(&self) -> u8 {
        self.filters.data[7]
    }

    /// Whether the chunks were compressed with a dictionary (bit 0 of `other_flags2`, the
    /// pipeline's byte 14).
    pub const fn use_dict(&self) -> bool {
        self.filters.data[14] & 1 == 1
    }

    /// The split mode: the fourth flag byte holds it minus one.
    ///
    /// ```
    /// use metalayer::frame::SplitMode;
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
    /// assert_eq!(metalayer::frame::Frame::open(path)?.header.split_mode(), SplitMode::Auto);
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    pub const fn split_mode(&self) -> SplitMode {
        SplitMode::from_number(self.flags[3].wrapping_add(1))
    }

    /// `nbytes / cbytes`, python-blosc2's `cratio`; `None` when no byte is compressed.
    ///
    /// ```
    /// // python-blosc2 4.14.1 wrote 18000 bytes in 417 (expected.json: cratio 43.165...).
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-stores/treestore.b2d/g/h/i/deep.b2nd");
    /// assert_eq!(metalayer::frame::Frame::open(path)?.header.ratio(), Some(18000.0 / 417.0));
    /// // A frame whose cbytes is 0 has no ratio.
    /// let empty = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
    /// assert_eq!(metalayer::frame::Frame::open(empty)?.header.ratio(), None);
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    #[allow(clippy::cast_precision_loss)]
    pub fn ratio(&self) -> Option<f64> {
        (self.cbytes > 0).then(|| self.nbytes as f64 / self.cbytes as f64)
    }

    /// The compression level: the high nibble of the third flag byte.
    ///
    /// ```
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/bytes.b2nd");
    /// assert_eq!(metalayer::frame::Frame::open(path)?.header.clevel(), 9);
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    pub const fn clevel(&self) -> u8 {
        self.flags[2] >> 4
    }
}

impl Header {
    /// The fixed fields of a decoded header whose `header_len` has been checked.
    pub(super) fn of(h: &FrameHeader<'_>, header_len: usize) -> Self {
        // Every field named and none left to `..`: a field added to `frame_header_v2`, and so
        // to `FrameHeader`, does not build until it is here too.
        let &FrameHeader {
            header_len: _,
            frame_len,
            flags,
            nbytes,
            cbytes,
            typesize,
            blocksize,
            chunksize,
            nthreads_compress,
            nthreads_decompress,
            has_vlmetalayers,
            filters,
            ref metalayers,
        } = h;
        Header {
            header_len,
            frame_len,
            flags,
            nbytes,
            cbytes,
            typesize,
            blocksize,
            chunksize,
            nthreads_compress,
            nthreads_decompress,
            has_vlmetalayers,
            filters,
            metalayers_size: metalayers.size,
        }
    }
}

/// Where a frame's trailer is, and its fields.
///
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/many_keys.b2nd");
/// let frame = metalayer::frame::Frame::open(path)?;
/// assert_eq!((frame.trailer.offset, frame.trailer.trailer_len), (266, 895));
/// assert_eq!(frame.trailer.vlmetalayers_size, 182);
/// assert_eq!(frame.trailer.fingerprint.ty, 0);
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Trailer {
    /// The trailer's first byte in the frame: `frame_len - trailer_len`.
    pub offset: u64,
    /// The trailer's length.
    pub trailer_len: u32,
    /// The vlmetalayer section's index size, as stored.
    pub vlmetalayers_size: u16,
    /// The fingerprint: its type (0: none) and 16 bytes.
    pub fingerprint: Ext<[u8; 16]>,
}

/// A frame's header and trailer: the header's fixed fields, the metalayers, the trailer's
/// fields and the vlmetalayers, each content as stored (a vlmetalayer's is a Blosc2 chunk).
///
/// ```
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/strings.b2nd");
/// let frame = metalayer::frame::Frame::open(path)?;
/// assert_eq!(frame.metalayers[0].name, "b2nd");
/// assert!(frame.header.has_vlmetalayers);
/// let first = &frame.vlmetalayers[0];
/// // The content is a Blosc2 chunk: its header starts with the format version.
/// assert!(first.offset > frame.trailer.offset);
/// assert!(first.content.len() >= 32);
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Frame {
    /// The header's fixed fields.
    pub header: Header,
    /// The metalayers, in stored order.
    pub metalayers: Vec<FrameMetalayer>,
    /// The trailer's place and fields.
    pub trailer: Trailer,
    /// The vlmetalayers, in stored order; each offset is absolute in the frame.
    pub vlmetalayers: Vec<FrameMetalayer>,
}

/// A [`Frame`] whose metalayers and vlmetalayers borrow from the frame's bytes, as
/// [`FrameRef::parse`] returns it: nothing is copied.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct FrameRef<'a> {
    /// The header's fixed fields.
    pub header: Header,
    /// The metalayers, in stored order.
    pub metalayers: Vec<MetalayerRef<'a>>,
    /// The trailer's place and fields.
    pub trailer: Trailer,
    /// The vlmetalayers, in stored order; each offset is absolute in the frame.
    pub vlmetalayers: Vec<MetalayerRef<'a>>,
}

impl Frame {
    /// The content of the metalayer named `name`, as stored (usually msgpack); `None` when the
    /// header holds no metalayer of that name. Where a name is stored twice, the first is
    /// returned, as c-blosc2's `blosc2_meta_get` does.
    ///
    /// ```
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
    /// let frame = metalayer::frame::Frame::open(path)?;
    /// // python-blosc2 stored meta={"units": "kelvin", "scale": 3, ...}: msgpack fixstr(6), fixint 3.
    /// assert_eq!(frame.metalayer("units"), Some(&b"\xa6kelvin"[..]));
    /// assert_eq!(frame.metalayer("scale"), Some(&[0x03][..]));
    /// assert_eq!(frame.metalayer("no such name"), None);
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    pub fn metalayer(&self, name: &str) -> Option<&[u8]> {
        find(
            self.metalayers.iter().map(|m| (m.name.as_str(), m.content.as_slice())),
            name,
        )
    }

    /// The content of the vlmetalayer named `name`, as stored: a Blosc2 chunk that holds the
    /// msgpack ([`vlmeta::decompress`](crate::vlmeta::decompress) gives it). `None` when the
    /// trailer holds no vlmetalayer of that name; where a name is stored twice, the first.
    ///
    /// ```
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/updated_deleted.b2nd");
    /// let frame = metalayer::frame::Frame::open(path)?;
    /// // python-blosc2 set vlmeta["e"] = 5 (msgpack positive fixint 0x05) and deleted "c".
    /// let chunk = frame.vlmetalayer("e").unwrap();
    /// assert_eq!(metalayer::vlmeta::decompress(chunk, 1 << 20)?, [0x05]);
    /// assert_eq!(frame.vlmetalayer("c"), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn vlmetalayer(&self, name: &str) -> Option<&[u8]> {
        find(
            self.vlmetalayers
                .iter()
                .map(|m| (m.name.as_str(), m.content.as_slice())),
            name,
        )
    }
}

/// The content of the first of `entries` named `name`.
fn find<'a>(mut entries: impl Iterator<Item = (&'a str, &'a [u8])>, name: &str) -> Option<&'a [u8]> {
    entries.find(|&(n, _)| n == name).map(|(_, content)| content)
}

impl<'a> FrameRef<'a> {
    /// [`Frame::metalayer`] on the borrowed frame: the content borrows from the frame's bytes.
    ///
    /// ```
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
    /// let bytes = metalayer::frame::FrameBytes::open(path)?;
    /// assert_eq!(bytes.frame()?.metalayer("units"), Some(&b"\xa6kelvin"[..]));
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    pub fn metalayer(&self, name: &str) -> Option<&'a [u8]> {
        find(self.metalayers.iter().map(|m| (m.name, m.content)), name)
    }

    /// [`Frame::vlmetalayer`] on the borrowed frame. Where a frame with a long trailer was read
    /// from a file, its contents were left there
    /// ([`FrameBytes::contents_in_file`](super::FrameBytes::contents_in_file)): then
    /// [`FrameBytes::content`](super::FrameBytes::content) reads them.
    ///
    /// ```
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-vlmeta/updated_deleted.b2nd");
    /// let bytes = metalayer::frame::FrameBytes::open(path)?;
    /// let chunk = bytes.frame()?.vlmetalayer("e").unwrap();
    /// assert_eq!(metalayer::vlmeta::decompress(chunk, 1 << 20)?, [0x05]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn vlmetalayer(&self, name: &str) -> Option<&'a [u8]> {
        find(self.vlmetalayers.iter().map(|m| (m.name, m.content)), name)
    }
}

impl FrameRef<'_> {
    /// The frame with every name and content copied.
    pub fn to_owned(&self) -> Frame {
        Frame {
            header: self.header,
            metalayers: self.metalayers.iter().map(MetalayerRef::to_owned).collect(),
            trailer: self.trailer,
            vlmetalayers: self.vlmetalayers.iter().map(MetalayerRef::to_owned).collect(),
        }
    }
}

/// The frame of a decoded header and trailer, with their metalayers.
pub(super) fn frame_of<'a>(
    header: (&FrameHeader<'_>, usize, Vec<MetalayerRef<'a>>),
    trailer: (&FrameTrailer<'_>, u64, Vec<MetalayerRef<'a>>),
) -> FrameRef<'a> {
    let (h, header_len, metalayers) = header;
    let (t, offset, vlmetalayers) = trailer;
    FrameRef {
        header: Header::of(h, header_len),
        metalayers,
        trailer: Trailer {
            offset,
            trailer_len: t.trailer_len,
            vlmetalayers_size: t.vlmetalayers.size,
            fingerprint: t.fingerprint,
        },
        vlmetalayers,
    }
}
