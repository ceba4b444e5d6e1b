//! User metalayers: any msgpack value, shown as JSON and as one line of text.

use std::fmt::Write as _;

use serde_json::{Map, Number, Value};

use crate::render::{hex, json_text};
use crate::value::json;

/// The largest metalayer that is tried as msgpack: decoding builds a value tree that can be
/// much larger than its bytes, and real user metalayers hold a few bytes.
pub const MSGPACK_MAX_LEN: usize = 1 << 20;

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
/// text form; extension values become `{"ext": type, "data": "hex"}`; floats follow the
/// command's conventions (a float32 as its own shortest decimal, non-finite floats as the
/// strings `"NaN"`, `"inf"` and `"-inf"`).
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
        M::F32(f) => json::f32(*f),
        M::F64(f) => json::f64(*f),
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
        scalar => out.push_str(&json_text(&msgpack_json(scalar))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let nan = rmpv::Value::F64(f64::NAN);
        assert_eq!(msgpack_json(&nan), Value::String("NaN".into()));
        // 0xca 0x3dcccccd: the float32 nearest 0.1, shown as 0.1.
        let tenth = msgpack_value(b"\xca\x3d\xcc\xcc\xcd").unwrap_or(rmpv::Value::Nil);
        assert_eq!(msgpack_json(&tenth).to_string(), "0.1");
    }
}
