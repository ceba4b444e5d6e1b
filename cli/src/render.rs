//! Turning decoded metalayers into text for humans and pretty JSON, user metalayers (any
//! msgpack) into JSON, and layouts into diagrams.

use std::fmt::Write as _;

use serde::Serialize;

pub use metalayer::value::json::{hex, parse_hex};

/// Pretty JSON in the command's style ([`metalayer::value::PrettyFormatter`]), with a final
/// newline.
pub fn pretty_json<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::new();
    // Writing to a Vec cannot fail, and the values given here serialize.
    let _ = metalayer::value::write_pretty(&mut out, value, 0);
    out.push(b'\n');
    String::from_utf8(out).unwrap_or_default()
}

/// One line of text of `value` ([`metalayer::value::TextFormatter`]).
pub fn text<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::new();
    let _ = metalayer::value::write_text(&mut out, value);
    String::from_utf8(out).unwrap_or_default()
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
        let json: serde_json::Value =
            serde_json::from_str(r#"[{"a":[1,2],"b":{"c":"d"},"e":{},"msgpack":{"f":[3]}},[]]"#).unwrap_or_default();
        assert_eq!(
            pretty_json(&json),
            "[\n  {\n    \"a\": [1, 2],\n    \"b\": {\n      \"c\": \"d\"\n    },\n    \"e\": {},\n    \"msgpack\": {\"f\": [3]}\n  },\n  []\n]\n"
        );
    }
}
