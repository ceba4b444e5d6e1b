//! One frame's report for `inspect`: its header's fields, its metalayers and its vlmetalayers,
//! each decoded with the layout of its name or shown as msgpack, as JSON and as text.
//!
//! A vlmetalayer's content is a Blosc2 chunk: it is decompressed (with `metalayer::vlmeta`)
//! before it is decoded. Frames stored inside values (python-blosc2's ext type 42) are reported
//! the same way, nested, to [`MAX_NESTING`] levels.

use std::fmt::Write as _;

use metalayer::frame::{Frame, FrameMetalayer, Header, Trailer};
use metalayer::vlmeta;
use serde_json::{Map, Value};

use crate::blosc;
use crate::msgpack;
use crate::python::PythonExts;
use crate::render;
use crate::schema::{Registry, Selected};
use crate::walk::Reading;

/// How many bytes the vlmetalayers of one path may decompress to in all, those of the frames
/// nested in them included. One vlmetalayer may take up to [`vlmeta::DEFAULT_LIMIT`].
pub const DECOMPRESS_BUDGET: usize = 256 << 20;

/// How deep frames stored in values (ext 42) are inspected: a frame inside a frame's
/// vlmetalayer is at depth 1.
pub const MAX_NESTING: usize = 4;

/// The longest text a line of the text report shows of a value or its hex; `--json` shows all.
pub const TEXT_MAX_CHARS: usize = 1000;

/// What reporting one path shares, nested frames included.
pub struct Context<'r> {
    /// The layouts metalayers are decoded with.
    pub registry: &'r Registry,
    /// What vlmetalayers may still decompress to.
    budget: usize,
    /// How deep in nested frames this is.
    pub depth: usize,
}

impl<'r> Context<'r> {
    /// The context of a path given to `inspect` (depth 0, the whole budget).
    pub fn new(registry: &'r Registry) -> Self {
        Context {
            registry,
            budget: DECOMPRESS_BUDGET,
            depth: 0,
        }
    }
}

/// What one metalayer or vlmetalayer turned out to be.
enum Content {
    /// Stored under the name of a known layout (built-in or from `--schemas`), and decoded with
    /// the one of that name that reads its bytes.
    Known { schema: &'static str, value: Value },
    /// A known name whose bytes no layout of that name reads.
    Failed { error: String },
    /// Any other name: raw bytes, and the msgpack value when they are one.
    Other { msgpack: Option<rmpv::Value> },
    /// A vlmetalayer whose chunk could not be decompressed.
    BadChunk { error: String },
}

/// One metalayer or vlmetalayer.
struct Item {
    name: String,
    /// The content's offset in the frame.
    offset: u64,
    /// For a vlmetalayer, the length of its chunk as stored.
    chunk_len: Option<usize>,
    /// The metalayer's bytes; a vlmetalayer's chunk decompressed.
    bytes: Vec<u8>,
    content: Content,
}

impl Item {
    fn metalayer(m: FrameMetalayer, registry: &Registry) -> Item {
        let content = classify(registry.select(&m.name, &m.content), &m.content);
        Item {
            name: m.name,
            offset: m.offset,
            chunk_len: None,
            bytes: m.content,
            content,
        }
    }

    fn vlmetalayer(m: FrameMetalayer, cx: &mut Context<'_>) -> Item {
        let limit = cx.budget.min(vlmeta::DEFAULT_LIMIT);
        let (bytes, content) = match vlmeta::decompress(&m.content, limit) {
            Ok(bytes) => {
                cx.budget = cx.budget.saturating_sub(bytes.len());
                let content = classify(cx.registry.select_vlmeta(&m.name, &bytes), &bytes);
                (bytes, content)
            }
            Err(e) => {
                let mut error = crate::output::chain(&e);
                if limit < vlmeta::DEFAULT_LIMIT && matches!(e.kind, vlmeta::ChunkErrorKind::Limit { .. }) {
                    let _ = write!(
                        error,
                        " (the vlmetalayers of this path may decompress to {DECOMPRESS_BUDGET} bytes in all)"
                    );
                }
                (Vec::new(), Content::BadChunk { error })
            }
        };
        Item {
            name: m.name,
            offset: m.offset,
            chunk_len: Some(m.content.len()),
            bytes,
            content,
        }
    }

    /// The error this item's bytes gave, if any.
    fn error(&self) -> Option<&str> {
        match &self.content {
            Content::Failed { error } | Content::BadChunk { error } => Some(error),
            Content::Known { .. } | Content::Other { .. } => None,
        }
    }

    fn json(&self, cx: &mut Context<'_>) -> Value {
        let mut entry = Map::new();
        entry.insert("name".to_owned(), Value::String(self.name.clone()));
        if let Some(chunk_len) = self.chunk_len {
            entry.insert("chunk_len".to_owned(), Value::from(chunk_len));
        }
        if let Content::BadChunk { error } = &self.content {
            entry.insert("error".to_owned(), Value::String(error.clone()));
            return Value::Object(entry);
        }
        entry.insert("len".to_owned(), Value::from(self.bytes.len()));
        match &self.content {
            Content::Known { schema, value } => {
                if let Value::Object(report) = crate::decode::report(schema, value.clone()) {
                    entry.extend(report);
                }
            }
            Content::Failed { error } => {
                entry.insert("hex".to_owned(), Value::String(render::hex(&self.bytes)));
                entry.insert("error".to_owned(), Value::String(error.clone()));
            }
            Content::Other { msgpack } => {
                entry.insert("hex".to_owned(), Value::String(render::hex(&self.bytes)));
                if let Some(value) = msgpack {
                    let json = msgpack::msgpack_json_with(value, &mut PythonExts::new(cx));
                    entry.insert("msgpack".to_owned(), json);
                }
            }
            Content::BadChunk { .. } => {}
        }
        Value::Object(entry)
    }

    /// What the item is, in the text report's name line.
    fn kind(&self) -> &'static str {
        match &self.content {
            Content::Known { schema, .. } => schema,
            Content::Failed { .. } => "undecodable",
            Content::Other { msgpack: Some(_) } => "msgpack",
            Content::Other { msgpack: None } => "raw",
            Content::BadChunk { .. } => "bad chunk",
        }
    }

    fn lines(&self, cx: &mut Context<'_>) -> Vec<(String, String)> {
        let hex = || ("hex".to_owned(), clip(&render::hex(&self.bytes)));
        match &self.content {
            Content::Known { value, .. } => crate::decode::lines(value)
                .into_iter()
                .map(|(key, text)| (key, clip(&text)))
                .collect(),
            Content::Failed { error } => vec![("error".to_owned(), error.clone()), hex()],
            Content::Other { msgpack } => {
                let mut lines = Vec::new();
                if let Some(value) = msgpack {
                    let text = msgpack::msgpack_text_with(value, &mut PythonExts::new(cx));
                    lines.push(("value".to_owned(), clip(&text)));
                }
                lines.push(hex());
                lines
            }
            Content::BadChunk { error } => vec![("error".to_owned(), error.clone())],
        }
    }
}

/// What a registry's selection made of a metalayer's bytes; bytes of no known name as msgpack.
fn classify(selected: Selected, bytes: &[u8]) -> Content {
    match selected {
        Selected::Decoded(layout, value) => Content::Known {
            schema: layout.schema.as_str(),
            value,
        },
        Selected::Failed(error) => Content::Failed { error },
        Selected::Unknown => Content::Other {
            msgpack: msgpack::msgpack_value(bytes),
        },
    }
}

/// `text`, cut to [`TEXT_MAX_CHARS`] characters with a note of its length when longer.
fn clip(text: &str) -> String {
    match text.char_indices().nth(TEXT_MAX_CHARS) {
        None => text.to_owned(),
        Some((cut, _)) => format!(
            "{}... ({} characters in all; --json shows them)",
            &text[..cut],
            text.chars().count()
        ),
    }
}

/// What `inspect` reports of one frame.
pub struct FrameReport {
    /// The header's fields and the trailer's, when the trailer could be read.
    fields: Option<(Header, Trailer)>,
    metalayers: Vec<Item>,
    vlmetalayers: Vec<Item>,
    /// Why the trailer could not be read, when it could not.
    trailer_error: Option<String>,
}

impl FrameReport {
    /// Decodes what was read of a frame: each metalayer, and each vlmetalayer decompressed.
    pub fn new(reading: Reading, cx: &mut Context<'_>) -> FrameReport {
        match reading {
            Reading::Whole(frame) => FrameReport::of_frame(frame, cx),
            Reading::Header {
                metalayers,
                trailer_error,
            } => FrameReport {
                fields: None,
                metalayers: metalayers
                    .into_iter()
                    .map(|m| Item::metalayer(m, cx.registry))
                    .collect(),
                vlmetalayers: Vec::new(),
                trailer_error: Some(format!("the trailer: {}", crate::output::chain(&trailer_error))),
            },
        }
    }

    fn of_frame(frame: Frame, cx: &mut Context<'_>) -> FrameReport {
        let Frame {
            header,
            metalayers,
            trailer,
            vlmetalayers,
            ..
        } = frame;
        FrameReport {
            fields: Some((header, trailer)),
            metalayers: metalayers
                .into_iter()
                .map(|m| Item::metalayer(m, cx.registry))
                .collect(),
            vlmetalayers: vlmetalayers.into_iter().map(|m| Item::vlmetalayer(m, cx)).collect(),
            trailer_error: None,
        }
    }

    /// The errors to report on stderr, each naming its metalayer and where its content is.
    pub fn errors(&self) -> Vec<String> {
        let mut errors = Vec::new();
        for m in &self.metalayers {
            if let Some(error) = m.error() {
                errors.push(format!(
                    "metalayer {:?} (content at file byte {:#04x}): {error}",
                    m.name, m.offset
                ));
            }
        }
        for m in &self.vlmetalayers {
            if let Some(error) = m.error() {
                errors.push(format!(
                    "vlmetalayer {:?} (chunk at file byte {:#04x}): {error}",
                    m.name, m.offset
                ));
            }
        }
        errors.extend(self.trailer_error.clone());
        errors
    }

    /// The report's keys: `"header"`, `"metalayers"`, `"trailer"`, `"vlmetalayers"`, and
    /// `"error"` when the trailer could not be read (then only the metalayers are known).
    pub fn json(&self, cx: &mut Context<'_>) -> Map<String, Value> {
        let mut report = Map::new();
        if let Some((header, _)) = &self.fields {
            report.insert("header".to_owned(), blosc::header_json(header));
        }
        let metalayers = self.metalayers.iter().map(|m| m.json(cx)).collect();
        report.insert("metalayers".to_owned(), Value::Array(metalayers));
        if let Some((_, trailer)) = &self.fields {
            report.insert("trailer".to_owned(), blosc::trailer_json(trailer));
            let vlmetalayers = self.vlmetalayers.iter().map(|m| m.json(cx)).collect();
            report.insert("vlmetalayers".to_owned(), Value::Array(vlmetalayers));
        }
        if let Some(error) = &self.trailer_error {
            report.insert("error".to_owned(), Value::String(error.clone()));
        }
        report
    }

    /// The text report: a line naming the frame and counting what it holds, the header's
    /// fields, then each metalayer and each vlmetalayer with its fields or value.
    pub fn write_text(&self, out: &mut String, shown: &str, sparse: bool, cx: &mut Context<'_>) {
        let kind = if sparse { "  (sparse frame)" } else { "" };
        let vl = match &self.fields {
            Some(_) => format!(", {}", counted(self.vlmetalayers.len(), "vlmetalayer")),
            None => "; the trailer could not be read".to_owned(),
        };
        // Writing to a String cannot fail.
        let _ = writeln!(
            out,
            "{shown}: {}{vl}{kind}",
            counted(self.metalayers.len(), "metalayer")
        );
        if let Some((header, trailer)) = &self.fields {
            render::write_lines(out, 2, &blosc::header_lines(header, trailer));
        }
        write_items(out, "", &self.metalayers, cx);
        write_items(out, "vlmeta ", &self.vlmetalayers, cx);
    }
}

/// `1 metalayer`, `2 metalayers`.
fn counted(n: usize, what: &str) -> String {
    let plural = if n == 1 { "" } else { "s" };
    format!("{n} {what}{plural}")
}

fn write_items(out: &mut String, prefix: &str, items: &[Item], cx: &mut Context<'_>) {
    let name_width = items.iter().map(|m| m.name.chars().count()).max().unwrap_or(0);
    let len_width = items.iter().map(|m| m.bytes.len().to_string().len()).max().unwrap_or(0);
    // The size column: `53 bytes`, ` 1 byte`, `7 bytes (39 stored)`, `39 stored` for a chunk
    // that did not decompress.
    let sizes: Vec<String> = items
        .iter()
        .map(|m| {
            let len = m.bytes.len();
            let unit = if len == 1 { "byte" } else { "bytes" };
            match (&m.content, m.chunk_len) {
                (Content::BadChunk { .. }, Some(chunk_len)) => format!("{chunk_len} stored"),
                (_, Some(chunk_len)) => format!("{len:>len_width$} {unit} ({chunk_len} stored)"),
                (_, None) => format!("{len:>len_width$} {unit}"),
            }
        })
        .collect();
    let size_width = sizes.iter().map(String::len).max().unwrap_or(0);
    for (m, size) in items.iter().zip(&sizes) {
        // Writing to a String cannot fail.
        let _ = writeln!(
            out,
            "  {prefix}{:<name_width$}  {size:<size_width$}  {}",
            m.name,
            m.kind()
        );
        render::write_lines(out, 6 + prefix.len(), &m.lines(cx));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_keeps_short_text_and_cuts_long_text() {
        assert_eq!(clip("abc"), "abc");
        let long = "é".repeat(TEXT_MAX_CHARS + 5);
        let clipped = clip(&long);
        assert!(clipped.starts_with(&"é".repeat(TEXT_MAX_CHARS)));
        assert!(clipped.ends_with(&format!(
            "... ({} characters in all; --json shows them)",
            TEXT_MAX_CHARS + 5
        )));
        assert_eq!(clip(&"x".repeat(TEXT_MAX_CHARS)).len(), TEXT_MAX_CHARS);
    }

    /// A Blosc2 chunk holding `data` uncompressed (header as python-blosc2 writes it).
    fn stored_chunk(data: &[u8]) -> Vec<u8> {
        let n = u32::try_from(data.len()).unwrap_or(u32::MAX);
        let mut c = vec![0x05, 0x01, 0x07, 0x01];
        c.extend_from_slice(&n.to_le_bytes());
        c.extend_from_slice(&n.to_le_bytes());
        c.extend_from_slice(&(n + 32).to_le_bytes());
        c.extend_from_slice(&[0, 0, 0, 0, 0, 0x01, 0x05, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        c.extend_from_slice(data);
        c
    }

    #[test]
    fn vlmetalayers_share_one_budget() {
        let registry = Registry::load(&[]).unwrap_or_else(|_| unreachable!("the built-ins load"));
        let mut cx = Context::new(&registry);
        let layer = |content: Vec<u8>| FrameMetalayer {
            name: "k".to_owned(),
            offset: 0,
            content,
        };
        // A str8 of 20 bytes: 22 bytes of msgpack.
        let mut value = vec![0xd9, 20];
        value.extend_from_slice(&[b'x'; 20]);
        cx.budget = 30;
        let first = Item::vlmetalayer(layer(stored_chunk(&value)), &mut cx);
        assert!(matches!(first.content, Content::Other { msgpack: Some(_) }));
        assert_eq!(cx.budget, 8);
        let second = Item::vlmetalayer(layer(stored_chunk(&value)), &mut cx);
        let Content::BadChunk { error } = &second.content else {
            panic!("the second goes over the budget");
        };
        assert!(
            error.ends_with(&format!(
                "(the vlmetalayers of this path may decompress to {DECOMPRESS_BUDGET} bytes in all)"
            )),
            "{error}"
        );
        // Another error says nothing of the budget.
        let mut lying = stored_chunk(b"\x01");
        lying[12] = 0;
        let third = Item::vlmetalayer(layer(lying), &mut cx);
        let Content::BadChunk { error } = &third.content else {
            panic!("cbytes does not match");
        };
        assert!(!error.contains("in all"), "{error}");
    }

    #[test]
    fn counts_are_plural_but_one() {
        assert_eq!(counted(0, "vlmetalayer"), "0 vlmetalayers");
        assert_eq!(counted(1, "metalayer"), "1 metalayer");
    }
}
