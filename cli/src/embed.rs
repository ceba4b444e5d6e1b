//! The frames an EmbedStore holds: python-blosc2's `embed.b2e` (the `embed.b2e` of a DictStore,
//! TreeStore or CTable, marked `b2embed`, `b2dict` or `b2tree`) keeps small values as whole frames
//! one after the other in its own data, and its `estore_metadata` vlmetalayer maps each key to
//! where its frame lies there: `{"embed_map": {key: {"offset", "length"}}, "current_offset"}`.
//!
//! [`embedded`] reads them: the EmbedStore's chunk offsets (the chunk after the data, at
//! `header_len + cbytes`, as c-blosc2 places it), then its data chunks, decompressed within
//! [`DATA_LIMIT`] ([`metalayer::vlmeta::decompress`]), then each key's bytes, which must lie in
//! the data, read as a frame. Every offset and length is checked against what was read before it
//! is used.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;

use metalayer::frame::{FrameBytes, Window};
use metalayer::report::Reading;
use metalayer::vlmeta;
use serde_json::Value;

use crate::output::chain;
use crate::walk::Source;

/// The most data an EmbedStore's chunks may decompress to, all together.
pub const DATA_LIMIT: usize = vlmeta::DEFAULT_LIMIT;

/// Whether a frame's report is an EmbedStore's: one of its metalayers is `b2embed`, `b2dict` or
/// `b2tree`. (Used by its tests only, since `--tree` reads stores through the library.)
#[cfg_attr(not(test), allow(dead_code))]
pub fn is_embed_store(report: &Value) -> bool {
    report["metalayers"].as_array().is_some_and(|m| {
        m.iter()
            .any(|m| matches!(m["name"].as_str(), Some("b2embed" | "b2dict" | "b2tree")))
    })
}

/// One frame held by an EmbedStore.
pub struct Embedded {
    /// `.../embed.b2e/key` (the key starts with `/`).
    pub path: PathBuf,
    /// The frame, or why it cannot be read (the message names the EmbedStore's path and offset).
    pub reading: Result<Reading, String>,
}

fn u32_le(bytes: &[u8], at: usize) -> Option<usize> {
    let b: [u8; 4] = bytes.get(at..at.checked_add(4)?)?.try_into().ok()?;
    usize::try_from(u32::from_le_bytes(b)).ok()
}

/// The frames held by the EmbedStore `source`, whose report (as JSON) is `report`, in the order
/// of its keys. `Err` when its data cannot be read (the message names where).
pub fn embedded(source: &Source, report: &Value) -> Result<Vec<Embedded>, String> {
    let map = report["vlmetalayers"]
        .as_array()
        .and_then(|v| v.iter().find(|m| m["name"] == "estore_metadata"))
        .and_then(|m| m["msgpack"]["embed_map"].as_object().cloned())
        .unwrap_or_default();
    if map.is_empty() {
        return Ok(Vec::new());
    }
    let shown = source.shown();
    let data = data(source, &report["header"]).map_err(|e| format!("{shown}: {e}"))?;
    let mut frames = Vec::new();
    for (key, place) in map {
        let mut path = source.path().as_os_str().to_owned();
        path.push(&key);
        let reading = match (place["offset"].as_u64(), place["length"].as_u64()) {
            (Some(offset), Some(length)) => {
                let slice = usize::try_from(offset)
                    .ok()
                    .zip(usize::try_from(length).ok())
                    .and_then(|(at, len)| data.get(at..at.checked_add(len)?));
                match slice {
                    Some(bytes) => FrameBytes::from_frame(bytes)
                        .map(Reading::Bytes)
                        .map_err(|e| format!("the embedded frame at byte {offset} of {shown}'s data: {}", chain(&e))),
                    None => Err(format!(
                        "estore_metadata places {key} at byte {offset}, {length} bytes, past the end of {shown}'s data ({} bytes)",
                        data.len()
                    )),
                }
            }
            _ => Err(format!(
                "estore_metadata of {shown}: the place of {key} is not {{\"offset\", \"length\"}}: {place}"
            )),
        };
        frames.push(Embedded {
            path: PathBuf::from(path),
            reading,
        });
    }
    Ok(frames)
}

/// Reads `len` bytes at `at` of the frame, which must lie in its `frame_len`.
fn read_frame_part(source: &Source, at: u64, len: u64, frame_len: u64) -> Result<Vec<u8>, String> {
    if at.checked_add(len).is_none_or(|end| end > frame_len) {
        return Err(format!(
            "at byte {at}: {len} bytes run past the frame's end at byte {frame_len}"
        ));
    }
    let io = |e: std::io::Error| format!("cannot read it: {e}");
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    match source {
        Source::File(path) => {
            let mut file = File::open(path).map_err(io)?;
            file.seek(SeekFrom::Start(at)).map_err(io)?;
            file.take(len).read_to_end(&mut bytes).map_err(io)?;
        }
        Source::Member {
            store,
            offset,
            len: member_len,
            ..
        } => {
            let file = File::open(store).map_err(io)?;
            let mut window = Window::new(file, *offset, *member_len).map_err(io)?;
            window.seek(SeekFrom::Start(at)).map_err(io)?;
            window.take(len).read_to_end(&mut bytes).map_err(io)?;
        }
        _ => return Err("the frames it holds are read from contiguous files and store members only".to_owned()),
    }
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) != len {
        return Err(format!("at byte {at}: the file ends before {len} bytes"));
    }
    Ok(bytes)
}

/// One Blosc2 chunk of the frame at `at`: its 32-byte header says how long it is.
fn chunk_at(source: &Source, at: u64, frame_len: u64) -> Result<Vec<u8>, String> {
    let head = read_frame_part(source, at, 32, frame_len)?;
    let cbytes = u32_le(&head, 12).unwrap_or_default();
    read_frame_part(source, at, u64::try_from(cbytes).unwrap_or(u64::MAX), frame_len)
}

/// The EmbedStore's data: its chunks, in the order of its chunk offsets, decompressed.
fn data(source: &Source, header: &Value) -> Result<Vec<u8>, String> {
    let field = |k: &str| header[k].as_u64().ok_or_else(|| format!("its header has no {k}"));
    let (header_len, cbytes, frame_len, nbytes) = (
        field("header_len")?,
        field("cbytes")?,
        field("frame_len")?,
        field("nbytes")?,
    );
    if usize::try_from(nbytes).is_ok_and(|n| n > DATA_LIMIT) {
        return Err(format!(
            "its data of {nbytes} bytes is more than the {DATA_LIMIT} bytes read to find the frames it holds"
        ));
    }
    // c-blosc2 writes the chunk offsets as one chunk right after the data chunks.
    let offsets_at = header_len.saturating_add(cbytes);
    let offsets_chunk = chunk_at(source, offsets_at, frame_len)?;
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
        let chunk = chunk_at(source, at, frame_len)?;
        let left = DATA_LIMIT.saturating_sub(data.len());
        let bytes = vlmeta::decompress(&chunk, left).map_err(|e| format!("chunk {i} at byte {at}: {e}"))?;
        data.extend_from_slice(&bytes);
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// 3.12.2's DictStore: `embed.b2e`, 882 bytes, whose header says header_len 125 and
    /// cbytes and nbytes of its data, and whose estore_metadata holds `/small` (0, 259) and
    /// `/dir/sc` (259, 212): 471 bytes of data (expected.json).
    const EMBED: &str = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/files/blosc2-3-stores/dictstore.b2d/embed.b2e"
    );

    fn report_of(path: &str) -> Value {
        let source = Source::File(PathBuf::from(path));
        let registry = crate::schema::load_registry(&[]).unwrap_or_else(|_| panic!("the built-in registry"));
        crate::inspect::json_report(&registry, &source)
    }

    #[test]
    fn held_frames_are_read_where_the_map_says() {
        let report = report_of(EMBED);
        assert!(is_embed_store(&report));
        let frames = embedded(&Source::File(PathBuf::from(EMBED)), &report).unwrap_or_else(|e| panic!("{e}"));
        let paths: Vec<String> = frames.iter().map(|f| f.path.display().to_string()).collect();
        assert_eq!(paths, [format!("{EMBED}/small"), format!("{EMBED}/dir/sc")]);
        for (frame, len) in frames.iter().zip([259, 212]) {
            let Ok(Reading::Bytes(bytes)) = &frame.reading else {
                panic!("{}: not read", frame.path.display());
            };
            let frame = bytes.frame().unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(frame.header.frame_len, len);
        }
    }

    #[test]
    fn places_outside_the_data_are_refused() {
        let mut report = report_of(EMBED);
        let map = &mut report["vlmetalayers"][0]["msgpack"]["embed_map"];
        map["/small"] = json!({"offset": 300, "length": 259});
        map["/dir/sc"] = json!({"offset": 18446744073709551615u64, "length": 2});
        map["/bad"] = json!([1, 2]);
        let frames = embedded(&Source::File(PathBuf::from(EMBED)), &report).unwrap_or_else(|e| panic!("{e}"));
        let errors: Vec<String> = frames.into_iter().filter_map(|f| f.reading.err()).collect();
        assert_eq!(
            errors,
            [
                format!(
                    "estore_metadata places /small at byte 300, 259 bytes, past the end of {EMBED}'s data (471 bytes)"
                ),
                format!(
                    "estore_metadata places /dir/sc at byte 18446744073709551615, 2 bytes, past the end of {EMBED}'s data (471 bytes)"
                ),
                format!("estore_metadata of {EMBED}: the place of /bad is not {{\"offset\", \"length\"}}: [1,2]"),
            ]
        );
    }

    #[test]
    fn chunk_offsets_outside_the_frame_are_refused() {
        let mut report = report_of(EMBED);
        // cbytes pushed past the frame: the chunk offsets would lie after its end.
        report["header"]["cbytes"] = json!(10_000);
        let err = embedded(&Source::File(PathBuf::from(EMBED)), &report)
            .err()
            .unwrap_or_default();
        assert_eq!(
            err,
            format!("{EMBED}: at byte 10125: 32 bytes run past the frame's end at byte 882")
        );
        // Data claimed larger than what is decompressed to find the frames.
        let mut report = report_of(EMBED);
        report["header"]["nbytes"] = json!(1u64 << 40);
        let err = embedded(&Source::File(PathBuf::from(EMBED)), &report)
            .err()
            .unwrap_or_default();
        assert!(
            err.ends_with("is more than the 67108864 bytes read to find the frames it holds"),
            "{err}"
        );
    }
}
