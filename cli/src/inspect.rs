//! `metalayer inspect`: the header, metalayers and vlmetalayers of frame files, decoded where
//! possible ([`crate::report`]), printed as each frame is read.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use metalayer::frame::{FrameError, FrameErrorKind};
use metalayer::report::{Context, FrameReport, Reading};
use metalayer::value::{shown_name, write_json, write_pretty};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

use crate::embed;
use crate::output::{Out, Stop, chain};
use crate::render;
use crate::schema::Registry;
use crate::walk::{self, Found, Source};

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

/// Inspects each frame that `paths` name, directories walked (see [`walk`]), writing each
/// report as its frame is read; failures are reported on stderr and the others still printed.
/// Nothing is collected: memory does not grow with the number of frames, nor with the size of
/// the values they hold.
/// With `hex`, each value's bytes are shown beside what they decode to.
pub fn run(
    out: &mut Out,
    registry: &Registry,
    paths: &[PathBuf],
    format: Format,
    hex: bool,
    follow: bool,
) -> Result<(), Stop> {
    let mut printer = Printer { format, count: 0, hex };
    for found in walk::frames(paths, follow) {
        match found {
            Found::Frame(source) => inspect_one(out, registry, &mut printer, &source)?,
            Found::Error { path, message } => {
                out.error(&message);
                printer.element(out, &error_report(&path, message))?;
            }
        }
    }
    printer.finish(out)
}

/// Whether an error already names the file it could not read (an I/O error, a directory that
/// is not a sparse frame), so that its message is not prefixed with the path again.
pub fn names_its_file(e: &FrameError) -> bool {
    matches!(
        e.kind(),
        FrameErrorKind::Io { .. } | FrameErrorKind::NotSparseFrame { .. }
    )
}

fn inspect_one(out: &mut Out, registry: &Registry, printer: &mut Printer, source: &Source) -> Result<(), Stop> {
    let shown = source.shown();
    let reading = match source.read() {
        Ok(reading) => reading,
        Err(e) => {
            // A store's member: where it lies in the zip file, before the frame's own offsets.
            let text = match source.place() {
                Some(place) => format!("{place}: {}", chain(&e)),
                None => chain(&e),
            };
            if source.place().is_none() && names_its_file(&e) {
                out.error(&text);
            } else {
                out.error(format_args!("{}: {text}", shown_name(&shown)));
            }
            return printer.element(out, &error_report(source.path(), text));
        }
    };
    let holds_frames = embed::holds_frames(&reading);
    let place = source.place().map(|p| format!(" ({p})")).unwrap_or_default();
    write_reading(
        out,
        registry,
        printer,
        (source.path(), &shown),
        &place,
        source.is_sparse(),
        reading,
    )?;
    if holds_frames && matches!(source, Source::Stdin | Source::Stream(_)) {
        // The frames an EmbedStore holds are in its chunks, which a stream is not kept for.
        let text = format!(
            "an EmbedStore read from a stream: the frames it holds are in its data chunks, and of a stream only the header and the last {} MiB (metalayer::frame::STREAM_WINDOW) are kept; give it as a file to read them",
            metalayer::frame::STREAM_WINDOW >> 20
        );
        out.error(format_args!("{}: {text}", shown_name(&shown)));
        return printer.element(out, &error_report(source.path(), text));
    }
    if holds_frames {
        // An EmbedStore: the frames it holds, each under `embed.b2e/key`.
        match embed::embedded(source) {
            Ok(frames) => {
                for frame in frames {
                    match frame.reading {
                        Ok(reading) => {
                            let shown = frame.path.display().to_string();
                            write_reading(out, registry, printer, (&frame.path, &shown), "", false, reading)?;
                        }
                        Err(text) => {
                            out.error(format_args!(
                                "{}: {text}",
                                shown_name(&frame.path.display().to_string())
                            ));
                            printer.element(out, &error_report(&frame.path, text))?;
                        }
                    }
                }
            }
            Err(text) => {
                out.error(&text);
                printer.element(out, &error_report(source.path(), text))?;
            }
        }
    }
    Ok(())
}

/// Writes one frame's report: `path` is the path of JSON, `shown` that of text and messages,
/// which `place` (` (the member at byte N of s.b2z)` or empty) follows.
fn write_reading(
    out: &mut Out,
    registry: &Registry,
    printer: &mut Printer,
    (path, shown): (&Path, &str),
    place: &str,
    sparse: bool,
    reading: Reading,
) -> Result<(), Stop> {
    let cx = Context::new(registry).with_hex(printer.hex);
    let report = FrameReport::new(&cx, reading);
    let result = match printer.format {
        Format::Text => {
            if printer.count > 0 {
                out.print("\n")?;
            }
            printer.count += 1;
            report.write_text(out.writer(), shown, sparse).map_err(Stop::from)
        }
        Format::Json | Format::Jsonl => printer.element(out, &PathReport { path, report: &report }),
    };
    for error in cx.take_errors() {
        out.error(format_args!("{}{place}: {error}", shown_name(shown)));
    }
    for warning in cx.take_warnings() {
        out.warning(format_args!("{}: {warning}", shown_name(shown)));
    }
    result
}

/// A frame's report with the format's version and its path first.
struct PathReport<'p, 'r> {
    path: &'p Path,
    report: &'r FrameReport<'r, 'static>,
}

impl Serialize for PathReport<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in path_fields(self.path) {
            map.serialize_entry(&key, &value)?;
        }
        self.report.serialize_entries(&mut map)?;
        map.end()
    }
}

/// Writes the reports of one run as they come.
pub struct Printer {
    format: Format,
    /// How many reports were printed.
    pub count: usize,
    /// Whether reports show each value's bytes.
    hex: bool,
}

impl Printer {
    /// A printer of nothing yet.
    pub fn new(format: Format) -> Printer {
        Printer {
            format,
            count: 0,
            hex: false,
        }
    }

    /// Prints one JSON report (for the JSON formats only): an element of the `--json` array,
    /// pretty; a line for `--jsonl`, flushed at once.
    pub fn element<T: Serialize>(&mut self, out: &mut Out, report: &T) -> Result<(), Stop> {
        match self.format {
            Format::Text => Ok(()),
            Format::Json => {
                let w = out.writer();
                w.write_all(if self.count == 0 { b"[\n  " } else { b",\n  " })?;
                write_pretty(&mut *w, report, 1)?;
                self.count += 1;
                Ok(())
            }
            Format::Jsonl => {
                let w = out.writer();
                write_json(&mut *w, report)?;
                w.write_all(b"\n")?;
                self.count += 1;
                out.flush()
            }
        }
    }

    /// Closes the `--json` array.
    pub fn finish(&mut self, out: &mut Out) -> Result<(), Stop> {
        match self.format {
            Format::Json => out.print(array_end(self.count)),
            Format::Text | Format::Jsonl => Ok(()),
        }
    }
}

/// The text that closes a pretty JSON array of `count` elements (`[]` when empty).
fn array_end(count: usize) -> &'static str {
    if count == 0 { "[]\n" } else { "\n]\n" }
}

/// `"format"` ([`metalayer::report::FORMAT`]), `"path"` (not UTF-8 bytes replaced by U+FFFD)
/// and, only when the path is not UTF-8, `"path_bytes"`: its exact bytes as lowercase hex (on
/// Windows, its WTF-8 bytes).
fn path_fields(path: &Path) -> Map<String, Value> {
    let mut fields = Map::new();
    fields.insert("format".to_owned(), Value::from(metalayer::report::FORMAT));
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
            let mut streamed = Vec::new();
            for (i, element) in elements[..n].iter().enumerate() {
                streamed.extend_from_slice(if i == 0 { b"[\n  " } else { b",\n  " });
                let _ = write_pretty(&mut streamed, element, 1);
            }
            streamed.extend_from_slice(array_end(n).as_bytes());
            let whole = render::pretty_json(&Value::Array(elements[..n].to_vec()));
            assert_eq!(String::from_utf8_lossy(&streamed), whole, "{n} elements");
        }
        assert_eq!(array_end(0), "[]\n");
    }

    #[cfg(unix)]
    #[test]
    fn path_bytes_only_when_not_utf8() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;

        let utf8 = path_fields(Path::new("dir/é.b2nd"));
        assert_eq!(
            Value::Object(utf8),
            serde_json::json!({"format": 2, "path": "dir/é.b2nd"})
        );
        let raw = path_fields(Path::new(OsStr::from_bytes(b"d/\xff\x80.b2nd")));
        assert_eq!(
            Value::Object(raw),
            serde_json::json!({"format": 2, "path": "d/\u{fffd}\u{fffd}.b2nd", "path_bytes": "642fff802e62326e64"})
        );
    }
}
