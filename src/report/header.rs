//! A frame header's fixed fields as reports show them: codecs, filters and split modes by the
//! names python-blosc2 gives them (`blosc2.Codec`, `blosc2.Filter`, `blosc2.SplitMode`), sizes
//! and the compression ratio.

#[allow(unused_imports)]
use crate::std_prelude::*;

use std::fmt::Write as _;

use crate::frame::{Filter, Header, Trailer};
use serde_json::{Map, Value};

/// Where the filter pipeline's 16 bytes keep what `inspect` shows: six filters, the codec's
/// meta byte, six filter meta bytes.
const FILTERS: std::ops::Range<usize> = 0..6;
const FILTERS_META: std::ops::Range<usize> = 8..14;

/// python-blosc2's name of a code (`blosc2.Codec`, `blosc2.Filter`, `blosc2.SplitMode`), or
/// its number when it has none.
fn named(name: Option<&str>, number: u8) -> Value {
    match name {
        Some(name) => Value::String(name.to_owned()),
        None => Value::from(number),
    }
}

fn codec_value(header: &Header) -> Value {
    let codec = header.codec();
    named(codec.name(), codec.number())
}

fn filter_value(f: u8) -> Value {
    let filter = Filter::from_number(f);
    named(filter.name(), f)
}

fn split_value(header: &Header) -> Value {
    let mode = header.split_mode();
    named(mode.name(), mode.number())
}

/// Text of a name or number from [`named`].
fn name_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `nbytes / cbytes`, as python-blosc2's `cratio`; `None` when nothing is compressed.
fn ratio(header: &Header) -> Option<f64> {
    header.ratio()
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
    put("codec", codec_value(header));
    put("codec_meta", Value::from(header.codec_meta()));
    put("clevel", Value::from(header.clevel()));
    put("use_dict", Value::Bool(header.use_dict()));
    put("splitmode", split_value(header));
    let filters = data[FILTERS].iter().map(|&f| filter_value(f)).collect();
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
    let mut codec_line = format!("{}, clevel {}", header.codec(), header.clevel());
    let filters: Vec<String> = header.filters.data[FILTERS]
        .iter()
        .zip(&header.filters.data[FILTERS_META])
        .filter(|&(&f, _)| f != 0)
        .map(|(&f, &meta)| {
            let name = Filter::from_number(f).to_string();
            if meta == 0 { name } else { format!("{name}({meta})") }
        })
        .collect();
    let filters = if filters.is_empty() {
        "none".to_owned()
    } else {
        filters.join(" + ")
    };
    let _ = write!(codec_line, ", filters {filters}, {}", header.split_mode());
    if header.use_dict() {
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
        assert_eq!(named(Some("ZSTD"), 5), Value::from("ZSTD"));
        assert_eq!(filter_value(35), Value::from("BYTEDELTA"));
        assert_eq!(filter_value(200), Value::from(200));
        assert_eq!(name_text(&Value::from(7)), "7");
    }
}
