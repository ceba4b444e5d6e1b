//! A frame header's fixed fields as reports show them: codecs, filters and split modes by the
//! names python-blosc2 gives them (`blosc2.Codec`, `blosc2.Filter`, `blosc2.SplitMode`), sizes
//! and the compression ratio.

#[allow(unused_imports)]
use crate::std_prelude::*;

use std::fmt::Write as _;

use crate::frame::{Header, Trailer};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

/// The codec nibble's value that says the codec's number is in the filter pipeline's `udcodec`
/// byte (c-blosc2's `BLOSC_UDCODEC_FORMAT`): codecs numbered 6 and up do not fit the nibble.
const UDCODEC_FORMAT: u8 = 6;

/// Where the filter pipeline's 16 bytes keep what `inspect` shows: six filters, the user codec,
/// the codec's meta byte, six filter meta bytes, and `other_flags2` (bit 0: a dictionary).
const FILTERS: std::ops::Range<usize> = 0..6;
const UDCODEC_AT: usize = 6;
const CODEC_META_AT: usize = 7;
const FILTERS_META: std::ops::Range<usize> = 8..14;
const OTHER_FLAGS2_AT: usize = 14;

/// python-blosc2's `blosc2.Codec`.
const CODECS: &[(u8, &str)] = &[
    (0, "BLOSCLZ"),
    (1, "LZ4"),
    (2, "LZ4HC"),
    (4, "ZLIB"),
    (5, "ZSTD"),
    (32, "NDLZ"),
    (33, "ZFP_ACC"),
    (34, "ZFP_PREC"),
    (35, "ZFP_RATE"),
    (36, "OPENHTJ2K"),
    (37, "GROK"),
    (38, "OPENZL"),
    (39, "J2K"),
    (40, "HTJ2K"),
];

/// python-blosc2's `blosc2.Filter`.
const FILTER_NAMES: &[(u8, &str)] = &[
    (0, "NOFILTER"),
    (1, "SHUFFLE"),
    (2, "BITSHUFFLE"),
    (3, "DELTA"),
    (4, "TRUNC_PREC"),
    (32, "NDCELL"),
    (33, "NDMEAN"),
    (35, "BYTEDELTA"),
    (36, "INT_TRUNC"),
];

/// python-blosc2's `blosc2.SplitMode`; the header's fourth flag byte holds the mode minus one.
const SPLIT_MODES: &[(u8, &str)] = &[
    (1, "ALWAYS_SPLIT"),
    (2, "NEVER_SPLIT"),
    (3, "AUTO_SPLIT"),
    (4, "FORWARD_COMPAT_SPLIT"),
];

/// The name `table` gives `code`, or the number itself when it has none.
fn named(table: &[(u8, &str)], code: u8) -> Value {
    match table.iter().find(|(c, _)| *c == code) {
        Some((_, name)) => Value::String((*name).to_owned()),
        None => Value::from(code),
    }
}

/// Text of a name or number from [`named`].
fn name_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The codec's number: the codec nibble, or the `udcodec` byte for codecs above the nibble.
fn codec(header: &Header) -> u8 {
    match header.codec() {
        UDCODEC_FORMAT => header.filters.data[UDCODEC_AT],
        nibble => nibble,
    }
}

/// The split mode's number (1 to 4 for the modes c-blosc2 knows).
fn split_mode(header: &Header) -> u8 {
    header.flags[3].wrapping_add(1)
}

/// `nbytes / cbytes`, as python-blosc2's `cratio`; `None` when nothing is compressed.
fn ratio(header: &Header) -> Option<f64> {
    (header.cbytes > 0).then(|| header.nbytes as f64 / header.cbytes as f64)
}

/// The number of chunks, when the header says it: every chunk but the last holds `chunksize`
/// bytes. Frames whose chunks vary in size (`chunksize` 0) keep it in their chunk index.
fn nchunks(header: &Header) -> Option<i64> {
    if header.nbytes == 0 {
        return Some(0);
    }
    let (nbytes, chunksize) = (
        u64::try_from(header.nbytes).ok()?,
        u64::try_from(header.chunksize).ok()?,
    );
    (chunksize > 0).then(|| i64::try_from(nbytes.div_ceil(chunksize)).unwrap_or(i64::MAX))
}

fn frame_type(header: &Header) -> Value {
    match header.frame_type() {
        0 => Value::from("contiguous"),
        1 => Value::from("sparse"),
        other => Value::from(other),
    }
}

/// A name from a table of python-blosc2's, or the number itself when it has none.
#[derive(Clone, Copy)]
struct Named(&'static [(u8, &'static str)], u8);

impl Serialize for Named {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0.iter().find(|(c, _)| *c == self.1) {
            Some((_, name)) => serializer.serialize_str(name),
            None => serializer.serialize_u8(self.1),
        }
    }
}

/// The frame types' names.
const FRAME_TYPES: &[(u8, &str)] = &[(0, "contiguous"), (1, "sparse")];

/// The header's fields as JSON, named as python-blosc2 names them where it reports them,
/// written straight to the serializer.
pub(crate) struct HeaderJson<'a>(pub &'a Header);

impl Serialize for HeaderJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let header = self.0;
        let data = &header.filters.data;
        let mut map = serializer.serialize_map(Some(21))?;
        map.serialize_entry("header_len", &header.header_len)?;
        map.serialize_entry("frame_len", &header.frame_len)?;
        map.serialize_entry("format_version", &header.format_version())?;
        map.serialize_entry("frame_type", &Named(FRAME_TYPES, header.frame_type()))?;
        map.serialize_entry("nbytes", &header.nbytes)?;
        map.serialize_entry("cbytes", &header.cbytes)?;
        map.serialize_entry("ratio", &ratio(header))?;
        map.serialize_entry("typesize", &header.typesize)?;
        map.serialize_entry("blocksize", &header.blocksize)?;
        map.serialize_entry("chunksize", &header.chunksize)?;
        map.serialize_entry("nchunks", &nchunks(header))?;
        map.serialize_entry("codec", &Named(CODECS, codec(header)))?;
        map.serialize_entry("codec_meta", &data[CODEC_META_AT])?;
        map.serialize_entry("clevel", &header.clevel())?;
        map.serialize_entry("use_dict", &(data[OTHER_FLAGS2_AT] & 1 == 1))?;
        map.serialize_entry("splitmode", &Named(SPLIT_MODES, split_mode(header)))?;
        let filters: [Named; 6] = std::array::from_fn(|i| Named(FILTER_NAMES, data[FILTERS.start + i]));
        map.serialize_entry("filters", &filters)?;
        map.serialize_entry("filters_meta", &data[FILTERS_META])?;
        map.serialize_entry("nthreads_compress", &header.nthreads_compress)?;
        map.serialize_entry("nthreads_decompress", &header.nthreads_decompress)?;
        map.serialize_entry("has_vlmetalayers", &header.has_vlmetalayers)?;
        map.end()
    }
}

/// The trailer's place as JSON.
pub(crate) struct TrailerJson<'a>(pub &'a Trailer);

impl Serialize for TrailerJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("offset", &self.0.offset)?;
        map.serialize_entry("trailer_len", &self.0.trailer_len)?;
        map.serialize_entry("fingerprint_type", &self.0.fingerprint.ty)?;
        map.end()
    }
}

/// The header as `(label, text)` lines: the frame, the codec and filters, the sizes.
pub(crate) fn header_lines(header: &Header, trailer: &Trailer) -> Vec<(String, String)> {
    let mut frame = String::new();
    let kind = name_text(&frame_type(header));
    // Writing to a String cannot fail.
    let _ = write!(
        frame,
        "{kind}, format {}, {} bytes (header {}, trailer {})",
        header.format_version(),
        header.frame_len,
        header.header_len,
        trailer.trailer_len
    );
    let mut codec_line = format!(
        "{}, clevel {}",
        name_text(&named(CODECS, codec(header))),
        header.clevel()
    );
    let filters: Vec<String> = header.filters.data[FILTERS]
        .iter()
        .zip(&header.filters.data[FILTERS_META])
        .filter(|&(&f, _)| f != 0)
        .map(|(&f, &meta)| {
            let name = name_text(&named(FILTER_NAMES, f));
            if meta == 0 { name } else { format!("{name}({meta})") }
        })
        .collect();
    let filters = if filters.is_empty() {
        "none".to_owned()
    } else {
        filters.join(" + ")
    };
    let _ = write!(
        codec_line,
        ", filters {filters}, {}",
        name_text(&named(SPLIT_MODES, split_mode(header)))
    );
    if header.filters.data[OTHER_FLAGS2_AT] & 1 == 1 {
        codec_line.push_str(", dictionary");
    }
    let mut data = format!("nbytes {}, cbytes {}", header.nbytes, header.cbytes);
    if let Some(ratio) = ratio(header) {
        let _ = write!(data, " (ratio {ratio:.2})");
    }
    let _ = write!(
        data,
        ", typesize {}, blocksize {}, chunksize {}",
        header.typesize, header.blocksize, header.chunksize
    );
    if let Some(n) = nchunks(header) {
        let plural = if n == 1 { "" } else { "s" };
        let _ = write!(data, ", {n} chunk{plural}");
    }
    vec![
        ("frame".to_owned(), frame),
        ("codec".to_owned(), codec_line),
        ("data".to_owned(), data),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_python_blosc2s_or_numbers() {
        assert_eq!(named(CODECS, 5), Value::from("ZSTD"));
        assert_eq!(named(CODECS, 3), Value::from(3));
        assert_eq!(named(FILTER_NAMES, 35), Value::from("BYTEDELTA"));
        assert_eq!(named(SPLIT_MODES, 3), Value::from("AUTO_SPLIT"));
        assert_eq!(name_text(&Value::from(7)), "7");
    }
}
