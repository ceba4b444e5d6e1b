//! A frame header's fixed fields as reports show them: codecs, filters and split modes by the
//! names python-blosc2 gives them (`blosc2.Codec`, `blosc2.Filter`, `blosc2.SplitMode`), sizes
//! and the compression ratio.

#[allow(unused_imports)]
use crate::std_prelude::*;

use std::fmt::Write as _;

use crate::frame::{Filter, Header, Trailer};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

/// Where the filter pipeline's 16 bytes keep what `inspect` shows: six filters, the codec's
/// meta byte, six filter meta bytes.
const FILTERS: std::ops::Range<usize> = 0..6;
const FILTERS_META: std::ops::Range<usize> = 8..14;

/// Text of a name, or of the number that has none.
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

/// A python-blosc2 name (`blosc2.Codec`, `blosc2.Filter`, `blosc2.SplitMode`, the frame type),
/// or the number itself when it has none, written straight to the serializer.
#[derive(Clone, Copy)]
struct Named(Option<&'static str>, u8);

impl Serialize for Named {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Some(name) => serializer.serialize_str(name),
            None => serializer.serialize_u8(self.1),
        }
    }
}

fn frame_type_named(header: &Header) -> Named {
    let ty = header.frame_type();
    Named(
        match ty {
            0 => Some("contiguous"),
            1 => Some("sparse"),
            _ => None,
        },
        ty,
    )
}

/// The header's fields as JSON, named as python-blosc2 names them where it reports them,
/// written straight to the serializer.
pub(crate) struct HeaderJson<'a>(pub &'a Header);

impl Serialize for HeaderJson<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let header = self.0;
        let data = &header.filters.data;
        let codec = header.codec();
        let split = header.split_mode();
        let mut map = serializer.serialize_map(Some(21))?;
        map.serialize_entry("header_len", &header.header_len)?;
        map.serialize_entry("frame_len", &header.frame_len)?;
        map.serialize_entry("format_version", &header.format_version())?;
        map.serialize_entry("frame_type", &frame_type_named(header))?;
        map.serialize_entry("nbytes", &header.nbytes)?;
        map.serialize_entry("cbytes", &header.cbytes)?;
        map.serialize_entry("ratio", &ratio(header))?;
        map.serialize_entry("typesize", &header.typesize)?;
        map.serialize_entry("blocksize", &header.blocksize)?;
        map.serialize_entry("chunksize", &header.chunksize)?;
        map.serialize_entry("nchunks", &nchunks(header))?;
        map.serialize_entry("codec", &Named(codec.name(), codec.number()))?;
        map.serialize_entry("codec_meta", &header.codec_meta())?;
        map.serialize_entry("clevel", &header.clevel())?;
        map.serialize_entry("use_dict", &header.use_dict())?;
        map.serialize_entry("splitmode", &Named(split.name(), split.number()))?;
        let filters: [Named; 6] = std::array::from_fn(|i| {
            let f = data[FILTERS.start + i];
            Named(Filter::from_number(f).name(), f)
        });
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
        let named = |f: u8| serde_json::to_value(Named(Filter::from_number(f).name(), f)).unwrap();
        assert_eq!(named(35), Value::from("BYTEDELTA"));
        assert_eq!(named(200), Value::from(200));
        assert_eq!(name_text(&Value::from(7)), "7");
    }
}
