//! python-blosc2's msgpack extension types, as `inspect` shows them in values:
//!
//! | type | holds | shown as |
//! |---|---|---|
//! | 42 | a whole Blosc2 frame (an NDArray, SChunk or container stored inline) | `"frame"`: the frame's report, nested |
//! | 43 | a record `{"kind", "version", ...}` (references, lazy expressions, remote arrays) | `"value"`: the record |
//! | 44 | a complex number: two big-endian float64 | `"value"`: `[real, imaginary]` |
//! | 45 | a set: an array | `"value"`: the array |
//! | 46 | a NumPy array: a map of its dtype, shape and data | `"value"`: the map |
//!
//! Each keeps `"ext"` and `"data"` (its bytes in hex) beside these. A type whose bytes do not
//! hold what it should is shown with its bytes only; a frame that cannot be read gets an
//! `"error"` instead of `"frame"`.

use metalayer::frame;
use serde_json::{Map, Value};

use crate::msgpack::{self, Exts};
use crate::render::hex;
use crate::report::{Context, FrameReport, MAX_NESTING};
use crate::value::json;
use crate::walk::Reading;

/// A whole Blosc2 frame.
const FRAME: i8 = 42;
/// A record with `kind` and `version`.
const RECORD: i8 = 43;
/// Two big-endian float64.
const COMPLEX: i8 = 44;
/// A set, as a msgpack array.
const SET: i8 = 45;
/// A NumPy array, as a msgpack map.
const NDARRAY: i8 = 46;

/// python-blosc2's extension types, read within `cx` (nested frames go one level deeper).
pub struct PythonExts<'c, 'r> {
    cx: &'c mut Context<'r>,
}

impl<'c, 'r> PythonExts<'c, 'r> {
    pub fn new(cx: &'c mut Context<'r>) -> Self {
        PythonExts { cx }
    }

    /// The frame stored in an ext 42, parsed, or why it is not shown.
    fn frame(&self, data: &[u8]) -> Result<frame::Frame, String> {
        if self.cx.depth >= MAX_NESTING {
            return Err(format!("not inspected: frames are inspected {MAX_NESTING} levels deep"));
        }
        frame::parse_frame(data).map_err(|e| crate::output::chain(&e))
    }
}

/// The two float64 of a complex number.
fn complex(data: &[u8]) -> Option<(f64, f64)> {
    let re: [u8; 8] = data.get(..8)?.try_into().ok()?;
    let im: [u8; 8] = data.get(8..)?.try_into().ok()?;
    Some((f64::from_be_bytes(re), f64::from_be_bytes(im)))
}

/// The text of a frame's names: `"b2nd, user"`, or `"none"`.
fn names(items: &[frame::FrameMetalayer]) -> String {
    if items.is_empty() {
        return "none".to_owned();
    }
    let names: Vec<&str> = items.iter().map(|m| m.name.as_str()).collect();
    names.join(", ")
}

impl Exts for PythonExts<'_, '_> {
    fn json(&mut self, ty: i8, data: &[u8]) -> Map<String, Value> {
        let mut map = Map::new();
        match ty {
            FRAME => match self.frame(data) {
                Ok(frame) => {
                    self.cx.depth += 1;
                    let report = FrameReport::new(Reading::Whole(frame), self.cx);
                    let json = report.json(self.cx);
                    self.cx.depth -= 1;
                    map.insert("frame".to_owned(), Value::Object(json));
                }
                Err(error) => {
                    map.insert("error".to_owned(), Value::String(error));
                }
            },
            RECORD | SET | NDARRAY => {
                if let Some(value) = msgpack::msgpack_value(data) {
                    map.insert("value".to_owned(), msgpack::msgpack_json_with(&value, self));
                }
            }
            COMPLEX => {
                if let Some((re, im)) = complex(data) {
                    map.insert("value".to_owned(), Value::Array(vec![json::f64(re), json::f64(im)]));
                }
            }
            _ => {}
        }
        map
    }

    fn text(&mut self, ty: i8, data: &[u8]) -> Option<String> {
        let wrapped = |name: &str, inner: String| Some(format!("{name}({inner})"));
        match ty {
            FRAME => match self.frame(data) {
                Ok(frame) => wrapped(
                    "frame",
                    format!(
                        "{} bytes: metalayers {}; vlmetalayers {}",
                        frame.header.frame_len,
                        names(&frame.metalayers),
                        names(&frame.vlmetalayers)
                    ),
                ),
                Err(error) => wrapped("frame", format!("{}: {error}", hex(data))),
            },
            RECORD | SET | NDARRAY => {
                let value = msgpack::msgpack_value(data)?;
                let name = match ty {
                    RECORD => "record",
                    SET => "set",
                    _ => "ndarray",
                };
                wrapped(name, msgpack::msgpack_text_with(&value, self))
            }
            COMPLEX => {
                let (re, im) = complex(data)?;
                let text = |f: f64| crate::render::json_text(&json::f64(f));
                wrapped("complex", format!("{}, {}", text(re), text(im)))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complex_is_two_big_endian_doubles() {
        // 1.5 is 0x3ff8 << 48, -2.0 is 0xc000 << 48.
        let mut data = [0u8; 16];
        data[..2].copy_from_slice(&[0x3f, 0xf8]);
        data[8..10].copy_from_slice(&[0xc0, 0x00]);
        assert_eq!(complex(&data), Some((1.5, -2.0)));
        assert_eq!(complex(&data[..15]), None);
        assert_eq!(complex(&[0; 17]), None);
    }
}
