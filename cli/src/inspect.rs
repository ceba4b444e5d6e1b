//! `metalayer inspect`: every metalayer of frame files, decoded where possible.

use std::fmt::Write as _;
use std::path::Path;

use metalayer::frame::{self, FrameError, FrameMetalayer};
use metalayer_runtime::DispatchError;
use serde_json::{Map, Value};

use crate::msgpack;
use crate::output::{Out, Stop, chain};
use crate::{render, schema, value};

/// What one metalayer turned out to be.
enum Content {
    /// A metalayer stored under the name of a built-in layout (`b2nd`, `caterva`), decoded
    /// with the one whose fixed prefix fits it.
    Known { schema: &'static str, value: Value },
    /// A known name whose bytes do not decode.
    Failed { error: String },
    /// Any other name: raw bytes, and the msgpack value when they are one.
    Other { msgpack: Option<rmpv::Value> },
}

fn classify(m: &FrameMetalayer) -> Content {
    match schema::select(&m.name, &m.content) {
        Ok(layout) => match value::decode_all(layout, &m.content) {
            Ok(value) => Content::Known {
                schema: layout.schema.as_str(),
                value,
            },
            Err(e) => Content::Failed { error: chain(&e) },
        },
        Err(DispatchError::UnknownName { .. }) => Content::Other {
            msgpack: msgpack::msgpack_value(&m.content),
        },
        Err(e) => Content::Failed { error: chain(&e) },
    }
}

/// Inspects each path in turn; failures are reported on stderr and the others still printed.
pub fn run(out: &mut Out, paths: &[std::path::PathBuf], json: bool) -> Result<(), Stop> {
    let mut reports = Vec::new();
    let mut printed = false;
    for path in paths {
        let shown = path.display().to_string();
        let metalayers = match frame::read_metalayers(path) {
            Ok(metalayers) => metalayers,
            Err(e) => {
                let text = chain(&e);
                // An I/O error already names the file it could not read.
                if matches!(e, FrameError::Io { .. } | FrameError::NotSparseFrame { .. }) {
                    out.error(&text);
                } else {
                    out.error(format_args!("{shown}: {text}"));
                }
                if json {
                    let mut report = Map::new();
                    report.insert("path".to_owned(), Value::String(shown));
                    report.insert("error".to_owned(), Value::String(text));
                    reports.push(Value::Object(report));
                }
                continue;
            }
        };
        let contents: Vec<Content> = metalayers.iter().map(classify).collect();
        for (m, content) in metalayers.iter().zip(&contents) {
            if let Content::Failed { error } = content {
                out.error(format_args!(
                    "{shown}: metalayer {:?} (content at file byte {:#04x}): {error}",
                    m.name, m.offset
                ));
            }
        }
        if json {
            reports.push(json_report(&shown, &metalayers, &contents));
        } else {
            let mut text = String::new();
            if printed {
                text.push('\n');
            }
            printed = true;
            write_text(&mut text, path, &metalayers, &contents);
            out.print(&text)?;
        }
    }
    if json {
        out.print(&render::pretty_json(&Value::Array(reports)))?;
    }
    Ok(())
}

fn json_report(path: &str, metalayers: &[FrameMetalayer], contents: &[Content]) -> Value {
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
    let mut report = Map::new();
    report.insert("path".to_owned(), Value::String(path.to_owned()));
    report.insert("metalayers".to_owned(), Value::Array(entries));
    Value::Object(report)
}

fn write_text(out: &mut String, path: &Path, metalayers: &[FrameMetalayer], contents: &[Content]) {
    let kind = if path.is_dir() { "  (sparse frame)" } else { "" };
    let count = metalayers.len();
    let plural = if count == 1 { "" } else { "s" };
    // Writing to a String cannot fail.
    let _ = writeln!(out, "{}: {count} metalayer{plural}{kind}", path.display());
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
