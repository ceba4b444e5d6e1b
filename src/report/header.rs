//! A frame header's fixed fields as reports show them: codecs, filters and split modes by the
//! names python-blosc2 gives them (`blosc2.Codec`, `blosc2.Filter`, `blosc2.SplitMode`), sizes
//! and the compression ratio.

#[allow(unused_imports)]
use crate::std_prelude::*;

use std::fmt::Write as _;

use crate::frame::{Header, Trailer};
use serde_json::{Map, Value};

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

/// The header's fields as JSON, named as python-blosc2 names them where it reports them.
pub(crate) fn header_json(header: &Header) -> Value {
    let data = &header.filters.data;
    let mut map = Map::new();
    let mut put = |key: &str, value: Value| {
        map.insert(key.to_owned(), value);
    };
    put("header_len", Value::from(header.header_len));
    put("frame_len", Value::from(header.frame_len));
    put("format_version", Value::from(header.format_version()));
    put("frame_type", frame_type(header));
    put("nbytes", Value::from(header.nbytes));
    put("cbytes", Value::from(header.cbytes));
    put("ratio", ratio(header).map_or(Value::Null, Value::from));
    put("typesize", Value::from(header.typesize));
    put("blocksize", Value::from(header.blocksize));
    put("chunksize", Value::from(header.chunksize));
    put("nchunks", nchunks(header).map_or(Value::Null, Value::from));
    put("codec", named(CODECS, codec(header)));
    put("codec_meta", Value::from(data[CODEC_META_AT]));
    put("clevel", Value::from(header.clevel()));
    put("use_dict", Value::Bool(data[OTHER_FLAGS2_AT] & 1 == 1));
    put("splitmode", named(SPLIT_MODES, split_mode(header)));
    let filters = data[FILTERS].iter().map(|&f| named(FILTER_NAMES, f)).collect();
    put("filters", Value::Array(filters));
    let filters_meta = data[FILTERS_META].iter().map(|&m| Value::from(m)).collect();
    put("filters_meta", Value::Array(filters_meta));
    put("nthreads_compress", Value::from(header.nthreads_compress));
    put("nthreads_decompress", Value::from(header.nthreads_decompress));
    put("has_vlmetalayers", Value::Bool(header.has_vlmetalayers));
    Value::Object(map)
}

/// The trailer's place as JSON.
pub(crate) fn trailer_json(trailer: &Trailer) -> Value {
    serde_json::json!({
        "offset": trailer.offset,
        "trailer_len": trailer.trailer_len,
        "fingerprint_type": trailer.fingerprint.ty,
    })
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
