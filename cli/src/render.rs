//! Turning decoded metalayers into JSON values and into text for humans.

use std::fmt::Write as _;

use metalayer::{Entries, EntryVisitor};
use serde_json::{Map, Number, Value};

/// The largest metalayer that is tried as msgpack: decoding builds a value tree that can be
/// much larger than its bytes, and real user metalayers hold a few bytes.
pub const MSGPACK_MAX_LEN: usize = 1 << 20;

/// An integer as an exact JSON number (int64 and uint64 both fit; anything wider, which no wire
/// type holds, becomes a string).
pub fn int_json(value: i128) -> Value {
    if let Ok(v) = i64::try_from(value) {
        Value::Number(Number::from(v))
    } else if let Ok(v) = u64::try_from(value) {
        Value::Number(Number::from(v))
    } else {
        Value::String(value.to_string())
    }
}

/// Collects every entry of a value, in wire order, into a JSON object.
#[derive(Default)]
struct JsonFields(Map<String, Value>);

impl EntryVisitor for JsonFields {
    fn int(&mut self, name: &'static str, value: i128) {
        self.0.insert(name.to_owned(), int_json(value));
    }

    fn ints(&mut self, name: &'static str, values: &mut dyn Iterator<Item = i128>) {
        self.0
            .insert(name.to_owned(), Value::Array(values.map(int_json).collect()));
    }

    fn str(&mut self, name: &'static str, value: &str) {
        self.0.insert(name.to_owned(), Value::String(value.to_owned()));
    }
}

/// Every entry of `value` (constants and lengths included), in wire order, as a JSON object.
pub fn fields_json(value: &dyn Entries) -> Map<String, Value> {
    let mut fields = JsonFields::default();
    value.visit_entries(&mut fields);
    fields.0
}

/// Lowercase hex of `bytes`, without separators.
pub fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        // Writing to a String cannot fail.
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// Parses hex text (whitespace between digit pairs is ignored, an optional `0x` prefix too).
pub fn parse_hex(text: &str) -> Result<Vec<u8>, String> {
    let text = text.trim();
    let text = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .unwrap_or(text);
    let digits: Vec<(usize, char)> = text.char_indices().filter(|(_, c)| !c.is_whitespace()).collect();
    if !digits.len().is_multiple_of(2) {
        return Err(format!("odd number of hex digits ({})", digits.len()));
    }
    digits
        .chunks_exact(2)
        .map(|pair| {
            let mut byte = 0u8;
            for &(at, c) in pair {
                let nibble = c
                    .to_digit(16)
                    .ok_or_else(|| format!("not a hex digit at character {at}: {c:?}"))?;
                // A hex digit is below 16, so it fits a nibble.
                byte = (byte << 4) | u8::try_from(nibble).unwrap_or(0);
            }
            Ok(byte)
        })
        .collect()
}

/// Decodes `bytes` as one msgpack value that uses all of them; `None` when they are not valid
/// msgpack, leave bytes over, or are longer than [`MSGPACK_MAX_LEN`].
pub fn msgpack_value(bytes: &[u8]) -> Option<rmpv::Value> {
    if bytes.len() > MSGPACK_MAX_LEN {
        return None;
    }
    let mut rest = bytes;
    let value = rmpv::decode::read_value(&mut rest).ok()?;
    rest.is_empty().then_some(value)
}

/// A msgpack value as JSON. Integers stay exact; strings that are not UTF-8 are converted
/// lossily; binaries become arrays of byte values; map keys that are not strings become their
/// text form; extension values become `{"ext": type, "data": "hex"}`; non-finite floats become
/// the strings `"NaN"`, `"inf"` and `"-inf"`.
pub fn msgpack_json(value: &rmpv::Value) -> Value {
    use rmpv::Value as M;
    match value {
        M::Nil => Value::Null,
        M::Boolean(b) => Value::Bool(*b),
        M::Integer(i) => {
            if let Some(v) = i.as_i64() {
                Value::Number(Number::from(v))
            } else if let Some(v) = i.as_u64() {
                Value::Number(Number::from(v))
            } else {
                Value::String(i.to_string())
            }
        }
        M::F32(f) => float_json(f64::from(*f)),
        M::F64(f) => float_json(*f),
        M::String(s) => Value::String(utf8_lossy(s)),
        M::Binary(b) => Value::Array(b.iter().map(|&x| Value::from(x)).collect()),
        M::Array(items) => Value::Array(items.iter().map(msgpack_json).collect()),
        M::Map(pairs) => {
            let mut map = Map::new();
            for (k, v) in pairs {
                let key = match k {
                    M::String(s) => utf8_lossy(s),
                    other => msgpack_text(other),
                };
                map.insert(key, msgpack_json(v));
            }
            Value::Object(map)
        }
        M::Ext(ty, data) => {
            let mut map = Map::new();
            map.insert("ext".to_owned(), Value::from(*ty));
            map.insert("data".to_owned(), Value::String(hex(data)));
            Value::Object(map)
        }
    }
}

fn float_json(f: f64) -> Value {
    match Number::from_f64(f) {
        Some(n) => Value::Number(n),
        None if f.is_nan() => Value::String("NaN".to_owned()),
        None if f > 0.0 => Value::String("inf".to_owned()),
        None => Value::String("-inf".to_owned()),
    }
}

fn utf8_lossy(s: &rmpv::Utf8String) -> String {
    match s.as_str() {
        Some(s) => s.to_owned(),
        None => String::from_utf8_lossy(s.as_bytes()).into_owned(),
    }
}

/// A msgpack value as one line of JSON-like text: `[1, 2, 3]`, `{"a": 1}`, `"kelvin"`;
/// binaries as `bin(0102)`, extension values as `ext(5, 0102)`.
pub fn msgpack_text(value: &rmpv::Value) -> String {
    let mut out = String::new();
    write_msgpack(&mut out, value);
    out
}

fn write_msgpack(out: &mut String, value: &rmpv::Value) {
    use rmpv::Value as M;
    match value {
        M::Binary(b) => {
            out.push_str("bin(");
            out.push_str(&hex(b));
            out.push(')');
        }
        M::Ext(ty, data) => {
            // Writing to a String cannot fail.
            let _ = write!(out, "ext({ty}, {})", hex(data));
        }
        M::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_msgpack(out, item);
            }
            out.push(']');
        }
        M::Map(pairs) => {
            out.push('{');
            for (i, (k, v)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_msgpack(out, k);
                out.push_str(": ");
                write_msgpack(out, v);
            }
            out.push('}');
        }
        scalar => write_json(out, &msgpack_json(scalar)),
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_are_exact() {
        assert_eq!(int_json(9_007_199_254_740_993).to_string(), "9007199254740993");
        assert_eq!(int_json(i128::from(u64::MAX)).to_string(), "18446744073709551615");
        assert_eq!(int_json(-5).to_string(), "-5");
    }

    #[test]
    fn hex_round_trip() {
        assert_eq!(hex(&[0x00, 0xab, 0x7f]), "00ab7f");
        assert_eq!(parse_hex("0x00 ab\n7F"), Ok(vec![0x00, 0xab, 0x7f]));
        assert!(parse_hex("abc").is_err());
        assert!(parse_hex("zz").is_err());
    }

    #[test]
    fn msgpack_needs_all_bytes() {
        assert_eq!(msgpack_value(b"\xa6kelvin"), Some(rmpv::Value::from("kelvin")));
        assert_eq!(msgpack_value(b"\x01\x02"), None);
        assert_eq!(msgpack_value(b"\xa6kel"), None);
        assert_eq!(msgpack_value(b""), None);
    }

    #[test]
    fn msgpack_renders() {
        let value = msgpack_value(b"\x82\xa1a\x01\x01\xc4\x02\x01\x02").unwrap_or(rmpv::Value::Nil);
        assert_eq!(msgpack_text(&value), r#"{"a": 1, 1: bin(0102)}"#);
        assert_eq!(msgpack_json(&value).to_string(), r#"{"a":1,"1":[1,2]}"#);
        let json: Value =
            serde_json::from_str(r#"[{"a":[1,2],"b":{"c":"d"},"e":{},"msgpack":{"f":[3]}},[]]"#).unwrap_or_default();
        assert_eq!(
            pretty_json(&json),
            "[\n  {\n    \"a\": [1, 2],\n    \"b\": {\n      \"c\": \"d\"\n    },\n    \"e\": {},\n    \"msgpack\": {\"f\": [3]}\n  },\n  []\n]\n"
        );
        let nan = rmpv::Value::F64(f64::NAN);
        assert_eq!(msgpack_json(&nan), Value::String("NaN".into()));
    }
}
