//! User metalayers: any msgpack value, shown as JSON and as one line of text.

use std::fmt::Write as _;

use metalayer_runtime::wire::{Family, Wire};
use metalayer_runtime::{Decoder, Path};
use serde_json::{Map, Number, Value};

use crate::render::{hex, json_text};
use crate::value::json;

/// The most msgpack values (each container and each of its elements counted) that are decoded
/// into a value tree: the tree takes some hundred bytes a value, however few bytes encode it
/// (a `0xc0` is one byte), so the count, not the length, bounds its memory.
pub const MSGPACK_MAX_VALUES: usize = 1 << 20;

/// Decodes `bytes` as one msgpack value that uses all of them; `None` when they are not valid
/// msgpack, leave bytes over, or hold more than [`MSGPACK_MAX_VALUES`] values.
pub fn msgpack_value(bytes: &[u8]) -> Option<rmpv::Value> {
    if !values_within(bytes, MSGPACK_MAX_VALUES) {
        return None;
    }
    let mut rest = bytes;
    let value = rmpv::decode::read_value(&mut rest).ok()?;
    rest.is_empty().then_some(value)
}

/// Whether the first msgpack value of `bytes` holds at most `max` values, counted from its
/// headers without building anything; also `true` when the bytes end or are not msgpack before
/// `max` values, which the decoder then reports.
pub fn values_within(bytes: &[u8], max: usize) -> bool {
    const PATH: Path = Path::entry(&"value");
    let mut d = Decoder::new(bytes, "msgpack");
    // Values announced by the headers read so far and not yet read.
    let mut pending: usize = 1;
    let mut seen: usize = 0;
    while pending > 0 {
        if seen == max {
            return false;
        }
        seen += 1;
        pending -= 1;
        let Some(wire) = bytes.get(d.position()).and_then(|&m| Wire::of_marker(m)) else {
            return true;
        };
        let step = match wire.family() {
            Family::Array => d.any_header(Family::Array, false, PATH).map(|n| (n, 0)),
            Family::Map => d.any_header(Family::Map, false, PATH).map(|n| (n.saturating_mul(2), 0)),
            Family::Str | Family::Bin => d.any_header(wire.family(), false, PATH).map(|n| (0, n)),
            Family::Ext => d.any_ext_header(false, PATH).map(|(_, n)| (0, n)),
            _ => Ok((0, wire.header_size())),
        };
        let Ok((children, skip)) = step else {
            return true;
        };
        if d.bytes(skip, PATH).is_err() {
            return true;
        }
        pending = pending.saturating_add(children);
    }
    true
}

/// What an extension type holds, for the types a writer gives a meaning (see
/// [`crate::python`]): the keys its JSON object gets beside `"ext"` and `"data"`, and its text in
/// place of `ext(type, hex)`.
pub trait Exts {
    /// The keys added to the ext's JSON object; none for a type without a meaning.
    fn json(&mut self, ty: i8, data: &[u8]) -> Map<String, Value>;
    /// The ext's text form, or `None` for `ext(type, hex)`.
    fn text(&mut self, ty: i8, data: &[u8]) -> Option<String>;
}

/// Extension types shown as their type and bytes only.
#[cfg(test)]
pub struct Opaque;

#[cfg(test)]
impl Exts for Opaque {
    fn json(&mut self, _: i8, _: &[u8]) -> Map<String, Value> {
        Map::new()
    }

    fn text(&mut self, _: i8, _: &[u8]) -> Option<String> {
        None
    }
}

/// A msgpack value as JSON. Integers stay exact; strings that are not UTF-8 are converted
/// lossily; binaries become `{"bin": "hex"}`; map keys that are not strings become their
/// text form; extension values become `{"ext": type, "data": "hex"}`; floats follow the
/// command's conventions (a float32 as its own shortest decimal, non-finite floats as the
/// strings `"NaN"`, `"inf"` and `"-inf"`).
#[cfg(test)]
pub fn msgpack_json(value: &rmpv::Value) -> Value {
    msgpack_json_with(value, &mut Opaque)
}

/// [`msgpack_json`], with `exts` adding what extension values hold.
pub fn msgpack_json_with(value: &rmpv::Value, exts: &mut dyn Exts) -> Value {
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
        M::Binary(b) => {
            let mut map = Map::new();
            map.insert("bin".to_owned(), Value::String(hex(b)));
            Value::Object(map)
        }
        M::Array(items) => Value::Array(items.iter().map(|item| msgpack_json_with(item, exts)).collect()),
        M::Map(pairs) => {
            let mut map = Map::new();
            for (k, v) in pairs {
                let key = match k {
                    M::String(s) => utf8_lossy(s),
                    other => msgpack_text_with(other, exts),
                };
                map.insert(key, msgpack_json_with(v, exts));
            }
            Value::Object(map)
        }
        M::Ext(ty, data) => {
            let mut map = Map::new();
            map.insert("ext".to_owned(), Value::from(*ty));
            map.insert("data".to_owned(), Value::String(hex(data)));
            map.extend(exts.json(*ty, data));
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
#[cfg(test)]
pub fn msgpack_text(value: &rmpv::Value) -> String {
    msgpack_text_with(value, &mut Opaque)
}

/// [`msgpack_text`], with `exts` giving the text of extension values.
pub fn msgpack_text_with(value: &rmpv::Value, exts: &mut dyn Exts) -> String {
    let mut out = String::new();
    write_msgpack(&mut out, value, exts);
    out
}

fn write_msgpack(out: &mut String, value: &rmpv::Value, exts: &mut dyn Exts) {
    use rmpv::Value as M;
    match value {
        M::Binary(b) => {
            out.push_str("bin(");
            out.push_str(&hex(b));
            out.push(')');
        }
        M::Ext(ty, data) => match exts.text(*ty, data) {
            Some(text) => out.push_str(&text),
            // Writing to a String cannot fail.
            None => {
                let _ = write!(out, "ext({ty}, {})", hex(data));
            }
        },
        M::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_msgpack(out, item, exts);
            }
            out.push(']');
        }
        M::Map(pairs) => {
            out.push('{');
            for (i, (k, v)) in pairs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_msgpack(out, k, exts);
                out.push_str(": ");
                write_msgpack(out, v, exts);
            }
            out.push('}');
        }
        scalar => out.push_str(&json_text(&msgpack_json_with(scalar, exts))),
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
    fn values_are_counted_not_bytes() {
        // fixarray(3) of nils: 4 values.
        assert!(values_within(b"\x93\xc0\xc0\xc0", 4));
        assert!(!values_within(b"\x93\xc0\xc0\xc0", 3));
        // A fixmap(1) {"a": [1, 2]}: the map, its key, the array and two integers.
        assert!(values_within(b"\x81\xa1a\x92\x01\x02", 5));
        assert!(!values_within(b"\x81\xa1a\x92\x01\x02", 4));
        // Payloads are skipped, not counted: bin8 of 3 bytes, float64, ext8 of 2 bytes.
        assert!(values_within(
            b"\x93\xc4\x03\x93\x93\x93\xcb\0\0\0\0\0\0\0\0\xc7\x02\x05\x93\x93",
            4
        ));
        // array16 of 2,000 nils (0x07d0): refused once the count passes `max`.
        let mut big = b"\xdc\x07\xd0".to_vec();
        big.resize(3 + 2000, 0xc0);
        assert!(!values_within(&big, 1000));
        assert!(values_within(&big, 2001));
        assert!(msgpack_value(&big).is_some());
        // array32 announcing 2^32 - 1 nils, holding two: the end of the input comes first.
        assert!(values_within(b"\xdd\xff\xff\xff\xff\xc0\xc0", 1000));
        assert_eq!(msgpack_value(b"\xdd\xff\xff\xff\xff\xc0\xc0"), None);
        // Truncated or not msgpack: left to the decoder.
        assert!(values_within(b"\x93\xc0", 2 + 1));
        assert!(values_within(b"\xc1", 1));
    }

    #[test]
    fn msgpack_renders() {
        let value = msgpack_value(b"\x82\xa1a\x01\x01\xc4\x02\x01\x02").unwrap_or(rmpv::Value::Nil);
        assert_eq!(msgpack_text(&value), r#"{"a": 1, 1: bin(0102)}"#);
        assert_eq!(msgpack_json(&value).to_string(), r#"{"a":1,"1":{"bin":"0102"}}"#);
        let nan = rmpv::Value::F64(f64::NAN);
        assert_eq!(msgpack_json(&nan), Value::String("NaN".into()));
        // 0xca 0x3dcccccd: the float32 nearest 0.1, shown as 0.1.
        let tenth = msgpack_value(b"\xca\x3d\xcc\xcc\xcd").unwrap_or(rmpv::Value::Nil);
        assert_eq!(msgpack_json(&tenth).to_string(), "0.1");
    }
}
