//! Turning decoded metalayers into text for humans and pretty JSON, user metalayers (any
//! msgpack) into JSON, and layouts into diagrams.

use std::fmt::Write as _;

use serde_json::{Map, Value};

pub use crate::value::json::{hex, parse_hex};

/// A JSON value as one line of text with `, ` and `: ` separators: `[1000, 37]`, `"<i4"`.
pub fn json_text(value: &Value) -> String {
    let mut out = String::new();
    write_json(&mut out, value);
    out
}

fn write_json(out: &mut String, value: &Value) {
    match value {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_json(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_json(out, &Value::String(k.clone()));
                out.push_str(": ");
                write_json(out, v);
            }
            out.push('}');
        }
        // Scalars print as compact JSON (strings quoted and escaped).
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// Pretty JSON, two-space indented, with a final newline; arrays of scalars stay on one line
/// (`"shape": [1000, 37]`), and so does any value under the key `"msgpack"` (user data).
pub fn pretty_json(value: &Value) -> String {
    let mut out = String::new();
    write_pretty(&mut out, value, 0);
    out.push('\n');
    out
}

fn is_scalar(value: &Value) -> bool {
    !matches!(value, Value::Array(_) | Value::Object(_))
}

fn write_pretty(out: &mut String, value: &Value, indent: usize) {
    let inner = indent + 2;
    match value {
        Value::Array(items) if !items.is_empty() && !items.iter().all(is_scalar) => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                push_indent(out, inner);
                write_pretty(out, item, inner);
            }
            out.push('\n');
            push_indent(out, indent);
            out.push(']');
        }
        Value::Object(map) if !map.is_empty() => {
            out.push_str("{\n");
            for (i, (k, v)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(",\n");
                }
                push_indent(out, inner);
                write_json(out, &Value::String(k.clone()));
                out.push_str(": ");
                if k == "msgpack" {
                    write_json(out, v);
                } else {
                    write_pretty(out, v, inner);
                }
            }
            out.push('\n');
            push_indent(out, indent);
            out.push('}');
        }
        other => write_json(out, other),
    }
}

fn push_indent(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// Appends `key: value` lines, indented by `indent` spaces, with the values aligned.
pub fn write_lines(out: &mut String, indent: usize, lines: &[(String, String)]) {
    let width = lines.iter().map(|(k, _)| k.len() + 1).max().unwrap_or(0);
    for (key, value) in lines {
        let label = format!("{key}:");
        // Writing to a String cannot fail.
        let _ = writeln!(out, "{:indent$}{label:<width$}  {value}", "");
    }
}

/// The lines of a decoded value: one per entry, in wire order.
pub fn field_lines(fields: &Map<String, Value>) -> Vec<(String, String)> {
    fields.iter().map(|(k, v)| (k.clone(), json_text(v))).collect()
}

/// A layout's byte-layout diagram, then the offsets and sizes of its top-level record, as
/// `metalayer-layout` renders them.
#[cfg(feature = "diagram")]
pub fn diagram(layout: &metalayer_layout::Layout) -> String {
    let diagram = metalayer_layout::diagram(layout);
    match layout.root_record() {
        Some(record) => format!(
            "{}\n\n{}\n",
            diagram.trim_end(),
            metalayer_layout::formulas(layout, record).trim_end()
        ),
        None => format!("{}\n", diagram.trim_end()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pretty_json_keeps_scalar_arrays_and_msgpack_on_one_line() {
        let json: Value =
            serde_json::from_str(r#"[{"a":[1,2],"b":{"c":"d"},"e":{},"msgpack":{"f":[3]}},[]]"#).unwrap_or_default();
        assert_eq!(
            pretty_json(&json),
            "[\n  {\n    \"a\": [1, 2],\n    \"b\": {\n      \"c\": \"d\"\n    },\n    \"e\": {},\n    \"msgpack\": {\"f\": [3]}\n  },\n  []\n]\n"
        );
    }
}
