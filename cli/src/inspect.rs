//! `metalayer inspect`: every metalayer of frame files, decoded where possible.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use metalayer::frame::{FrameError, FrameMetalayer};
use serde_json::{Map, Value};

use crate::msgpack;
use crate::output::{Out, Stop, chain};
use crate::render;
use crate::schema::{Registry, Selected};
use crate::walk::{self, Found, Source};

/// What one metalayer turned out to be.
enum Content {
    /// A metalayer stored under the name of a known layout (built-in or from `--schemas`),
    /// decoded with the one of that name that reads its bytes.
    Known { schema: &'static str, value: Value },
    /// A known name whose bytes no layout of that name reads.
    Failed { error: String },
    /// Any other name: raw bytes, and the msgpack value when they are one.
    Other { msgpack: Option<rmpv::Value> },
}

/// Decodes one metalayer: with the layout of its name that reads its bytes, or as msgpack.
fn classify(registry: &Registry, m: &FrameMetalayer) -> Content {
    match registry.select(&m.name, &m.content) {
        Selected::Decoded(layout, value) => Content::Known {
            schema: layout.schema.as_str(),
            value,
        },
        Selected::Failed(error) => Content::Failed { error },
        Selected::Unknown => Content::Other {
            msgpack: msgpack::msgpack_value(&m.content),
        },
    }
}

/// How `inspect` prints its reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Text for people, frames separated by a blank line.
    Text,
    /// One pretty JSON array of every frame's object, written element by element.
    Json,
    /// One compact JSON object per line, each flushed as soon as its frame is read.
    Jsonl,
}

/// Inspects each frame that `paths` name, directories walked (see [`walk`]), printing each
/// report as soon as its frame is read; failures are reported on stderr and the others still
/// printed. Nothing is collected: memory does not grow with the number of frames.
pub fn run(out: &mut Out, registry: &Registry, paths: &[PathBuf], format: Format, follow: bool) -> Result<(), Stop> {
    let mut printer = Printer { format, count: 0 };
    for found in walk::frames(paths, follow) {
        match found {
            Found::Frame(source) => inspect_one(out, registry, &mut printer, &source)?,
            Found::Error { path, message } => {
                out.error(&message);
                printer.json(out, || error_report(&path, message))?;
            }
        }
    }
    printer.finish(out)
}

fn inspect_one(out: &mut Out, registry: &Registry, printer: &mut Printer, source: &Source) -> Result<(), Stop> {
    let shown = source.shown();
    let metalayers = match source.read() {
        Ok(metalayers) => metalayers,
        Err(e) => {
            let text = chain(&e);
            // An I/O error already names the file it could not read.
            if matches!(e, FrameError::Io { .. } | FrameError::NotSparseFrame { .. }) {
                out.error(&text);
            } else {
                out.error(format_args!("{shown}: {text}"));
            }
            return printer.json(out, || error_report(source.path(), text));
        }
    };
    let contents: Vec<Content> = metalayers.iter().map(|m| classify(registry, m)).collect();
    for (m, content) in metalayers.iter().zip(&contents) {
        if let Content::Failed { error } = content {
            out.error(format_args!(
                "{shown}: metalayer {:?} (content at file byte {:#04x}): {error}",
                m.name, m.offset
            ));
        }
    }
    if printer.format == Format::Text {
        let mut text = String::new();
        if printer.count > 0 {
            text.push('\n');
        }
        printer.count += 1;
        write_text(&mut text, &shown, source.is_sparse(), &metalayers, &contents);
        out.print(&text)
    } else {
        printer.json(out, || json_report(source.path(), &metalayers, &contents))
    }
}

/// Writes the reports of one run as they come.
struct Printer {
    format: Format,
    /// How many reports were printed.
    count: usize,
}

impl Printer {
    /// Prints one JSON report (made only for the JSON formats): an element of the array for
    /// `--json`, which comes out as `render::pretty_json` prints the whole array; a line for
    /// `--jsonl`, flushed at once.
    fn json(&mut self, out: &mut Out, report: impl FnOnce() -> Value) -> Result<(), Stop> {
        match self.format {
            Format::Text => Ok(()),
            Format::Json => {
                let text = array_element(self.count, &report());
                self.count += 1;
                out.print(&text)
            }
            Format::Jsonl => {
                let mut line = report().to_string();
                line.push('\n');
                self.count += 1;
                out.print(&line)?;
                out.flush()
            }
        }
    }

    /// Closes the `--json` array.
    fn finish(&mut self, out: &mut Out) -> Result<(), Stop> {
        match self.format {
            Format::Json => out.print(array_end(self.count)),
            Format::Text | Format::Jsonl => Ok(()),
        }
    }
}

/// The text that puts `element` at `index` in a pretty JSON array: the opening bracket or the
/// comma before it, and its pretty form indented by one level.
fn array_element(index: usize, element: &Value) -> String {
    let pretty = render::pretty_json(element);
    let mut text = String::from(if index == 0 { "[\n  " } else { ",\n  " });
    // JSON text holds no raw newline inside strings, so each line is one level of nesting.
    text.push_str(&pretty.trim_end().replace('\n', "\n  "));
    text
}

/// The text that closes a pretty JSON array of `count` elements (`[]` when empty).
fn array_end(count: usize) -> &'static str {
    if count == 0 { "[]\n" } else { "\n]\n" }
}

/// `"path"` (not UTF-8 bytes replaced by U+FFFD) and, only when the path is not UTF-8,
/// `"path_bytes"`: its exact bytes as lowercase hex (on Windows, its WTF-8 bytes).
fn path_fields(path: &Path) -> Map<String, Value> {
    let mut fields = Map::new();
    fields.insert("path".to_owned(), Value::String(path.to_string_lossy().into_owned()));
    if path.to_str().is_none() {
        let bytes = path.as_os_str().as_encoded_bytes();
        fields.insert("path_bytes".to_owned(), Value::String(render::hex(bytes)));
    }
    fields
}

/// `{"path", "path_bytes"?, "error"}`.
fn error_report(path: &Path, error: String) -> Value {
    let mut report = path_fields(path);
    report.insert("error".to_owned(), Value::String(error));
    Value::Object(report)
}

fn json_report(path: &Path, metalayers: &[FrameMetalayer], contents: &[Content]) -> Value {
    let entries = metalayers
        .iter()
        .zip(contents)
        .map(|(m, content)| {
            let mut entry = Map::new();
            entry.insert("name".to_owned(), Value::String(m.name.clone()));
            entry.insert("len".to_owned(), Value::from(m.content.len()));
            match content {
                Content::Known { schema, value } => {
                    if let Value::Object(report) = crate::decode::report(schema, value.clone()) {
                        entry.extend(report);
                    }
                }
                Content::Failed { error } => {
                    entry.insert("hex".to_owned(), Value::String(render::hex(&m.content)));
                    entry.insert("error".to_owned(), Value::String(error.clone()));
                }
                Content::Other { msgpack } => {
                    entry.insert("hex".to_owned(), Value::String(render::hex(&m.content)));
                    if let Some(value) = msgpack {
                        entry.insert("msgpack".to_owned(), msgpack::msgpack_json(value));
                    }
                }
            }
            Value::Object(entry)
        })
        .collect();
    let mut report = path_fields(path);
    report.insert("metalayers".to_owned(), Value::Array(entries));
    Value::Object(report)
}

fn write_text(out: &mut String, shown: &str, sparse: bool, metalayers: &[FrameMetalayer], contents: &[Content]) {
    let kind = if sparse { "  (sparse frame)" } else { "" };
    let count = metalayers.len();
    let plural = if count == 1 { "" } else { "s" };
    // Writing to a String cannot fail.
    let _ = writeln!(out, "{shown}: {count} metalayer{plural}{kind}");
    let name_width = metalayers.iter().map(|m| m.name.chars().count()).max().unwrap_or(0);
    let len_width = metalayers
        .iter()
        .map(|m| m.content.len().to_string().len())
        .max()
        .unwrap_or(0);
    for (m, content) in metalayers.iter().zip(contents) {
        let len = m.content.len();
        let unit = if len == 1 { "byte " } else { "bytes" };
        let what = match content {
            Content::Known { schema, .. } => *schema,
            Content::Failed { .. } => "undecodable",
            Content::Other { msgpack: Some(_) } => "msgpack",
            Content::Other { msgpack: None } => "raw",
        };
        let _ = writeln!(out, "  {:<name_width$}  {len:>len_width$} {unit}  {what}", m.name);
        let lines = match content {
            Content::Known { value, .. } => crate::decode::lines(value),
            Content::Failed { error } => vec![
                ("error".to_owned(), error.clone()),
                ("hex".to_owned(), render::hex(&m.content)),
            ],
            Content::Other { msgpack } => {
                let mut lines = Vec::new();
                if let Some(value) = msgpack {
                    lines.push(("value".to_owned(), msgpack::msgpack_text(value)));
                }
                lines.push(("hex".to_owned(), render::hex(&m.content)));
                lines
            }
        };
        render::write_lines(out, 6, &lines);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streamed_array_is_the_pretty_array() {
        let elements: Vec<Value> = [
            r#"{"path": "a", "metalayers": [{"name": "b2nd", "len": 3, "hex": "c0c0c0", "msgpack": [1, {"x": 2}]}]}"#,
            r#"{"path": "b", "error": "at byte 0x00: expected frame magic"}"#,
            r#"{"path": "c", "metalayers": []}"#,
        ]
        .iter()
        .map(|text| serde_json::from_str(text).unwrap_or_default())
        .collect();
        for n in 0..=elements.len() {
            let mut streamed = String::new();
            for (i, element) in elements[..n].iter().enumerate() {
                streamed.push_str(&array_element(i, element));
            }
            streamed.push_str(array_end(n));
            let whole = render::pretty_json(&Value::Array(elements[..n].to_vec()));
            assert_eq!(streamed, whole, "{n} elements");
        }
        assert_eq!(array_end(0), "[]\n");
    }

    #[cfg(unix)]
    #[test]
    fn path_bytes_only_when_not_utf8() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;

        let utf8 = path_fields(Path::new("dir/é.b2nd"));
        assert_eq!(Value::Object(utf8), serde_json::json!({"path": "dir/é.b2nd"}));
        let raw = path_fields(Path::new(OsStr::from_bytes(b"d/\xff\x80.b2nd")));
        assert_eq!(
            Value::Object(raw),
            serde_json::json!({"path": "d/\u{fffd}\u{fffd}.b2nd", "path_bytes": "642fff802e62326e64"})
        );
    }
}
