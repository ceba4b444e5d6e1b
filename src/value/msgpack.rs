//! Plain msgpack values, of no layout: user metalayers and vlmetalayers, with what
//! python-blosc2's ext types hold.

#[allow(unused_imports)]
use crate::std_prelude::*;

use std::cell::Cell;
use std::convert::Infallible;
use std::fmt;

use serde::ser::{self, Serialize, SerializeMap, SerializeSeq, Serializer};

use super::budget::{Budget, DEPTH_LIMIT, Limit};
use super::json::{self, Hex};
use super::nested::{Nested, Queued};

/// python-blosc2's ext type of a whole Blosc2 frame (an NDArray, SChunk or store inline).
pub const EXT_FRAME: i8 = 42;
/// python-blosc2's ext type of a record `{"kind", "version", ...}`.
pub const EXT_RECORD: i8 = 43;
/// python-blosc2's ext type of a complex number: two big-endian float64.
pub const EXT_COMPLEX: i8 = 44;
/// python-blosc2's ext type of a set, as a msgpack array.
pub const EXT_SET: i8 = 45;
/// python-blosc2's ext type of a NumPy array, as a msgpack map.
pub const EXT_NDARRAY: i8 = 46;

/// How a [`Msgpack`] value is shown.
///
/// ```
/// use metalayer::value::{Budget, Msgpack, Style, write_text};
///
/// let budget = Budget::new();
/// let value = Msgpack::new(b"\xc4\x01\xff", &budget)?;
/// let mut out = Vec::new();
/// write_text(&mut out, &value.style(Style::Text))?;
/// assert_eq!(out, b"bin(ff)");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Style {
    /// The JSON form: a binary is `{"bin": "hex"}`; an ext python-blosc2's types decode is
    /// `{"ext": type}` with what it holds (`"value"` or `"frame"`), and any other ext
    /// `{"ext": type, "data": "hex"}` (with `"error"` or `"note"` when it is one of
    /// python-blosc2's types and does not decode). With [`Msgpack::hex`], every ext has
    /// `"data"`.
    #[default]
    Json,
    /// The text form, for [`TextFormatter`](super::TextFormatter): a binary is written with
    /// `serialize_bytes` (`bin(hex)`), and python-blosc2's exts by what they hold alone:
    /// `{"set": [...]}`, `{"record": {...}}`, `{"ndarray": {...}}`, `{"complex": [re, im]}`,
    /// `{"frame": "N bytes"}`.
    Text,
}

/// Why bytes are not shown as a msgpack value.
///
/// ```
/// use metalayer::value::{Budget, Msgpack};
///
/// let err = Msgpack::new(b"\x92\x01", &Budget::new()).unwrap_err();
/// assert_eq!(err.to_string(), "not msgpack: at byte 0x02: the value runs past the end of the bytes");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MsgpackError {
    /// Not msgpack: the byte at `offset` is not a marker (0xc1), or a value runs past the end.
    Malformed {
        /// Where.
        offset: usize,
        /// What is wrong.
        what: &'static str,
    },
    /// Bytes follow the value.
    Trailing {
        /// Where they start.
        offset: usize,
    },
    /// A limit of the input's [`Budget`] was reached.
    Limit {
        /// Which limit.
        limit: Limit,
        /// Its value.
        value: usize,
        /// Where it was reached.
        offset: usize,
    },
}

impl fmt::Display for MsgpackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MsgpackError::Malformed { offset, what } => write!(f, "not msgpack: at byte {offset:#04x}: {what}"),
            MsgpackError::Trailing { offset } => {
                write!(f, "not one msgpack value: bytes follow it from byte {offset:#04x}")
            }
            MsgpackError::Limit {
                limit: Limit::Depth,
                value,
                offset,
            } => write!(
                f,
                "nested deeper than {value} levels at byte {offset:#04x} (arrays, maps, ext payloads and frames count together)"
            ),
            MsgpackError::Limit { value, .. } => write!(f, "more than {value} msgpack values in this input"),
        }
    }
}

impl std::error::Error for MsgpackError {}

impl MsgpackError {
    /// Whether a limit, rather than the bytes, stopped the value.
    ///
    /// ```
    /// use metalayer::value::{Budget, Msgpack};
    ///
    /// let budget = Budget::new();
    /// assert!(!Msgpack::new(b"\xc1", &budget).unwrap_err().is_limit());
    /// let deep = [0x91; 100];
    /// assert!(Msgpack::new(&deep, &budget).unwrap_err().is_limit());
    /// ```
    pub fn is_limit(&self) -> bool {
        matches!(self, MsgpackError::Limit { .. })
    }
}

/// One msgpack token: a scalar, or the header of an array or map.
#[derive(Debug, Clone, Copy)]
enum Token<'a> {
    Nil,
    Bool(bool),
    Uint(u64),
    Int(i64),
    F32(f32),
    F64(f64),
    Str(&'a [u8]),
    Bin(&'a [u8]),
    Array(usize),
    Map(usize),
    Ext(i8, &'a [u8]),
}

/// Reads the token at `at`; returns it and the position after it.
#[inline]
fn token(bytes: &[u8], at: usize) -> Result<(Token<'_>, usize), MsgpackError> {
    let truncated = |offset| MsgpackError::Malformed {
        offset,
        what: "the value runs past the end of the bytes",
    };
    let m = *bytes.get(at).ok_or(truncated(at))?;
    let take = |from: usize, n: usize| -> Result<&[u8], MsgpackError> {
        bytes.get(from..).and_then(|rest| rest.get(..n)).ok_or(truncated(from))
    };
    let be = |from: usize, n: usize| -> Result<u64, MsgpackError> {
        Ok(take(from, n)?.iter().fold(0u64, |v, &b| (v << 8) | u64::from(b)))
    };
    // A length in the `n` bytes after the marker, then that many bytes.
    let sized = |n: usize| -> Result<(&[u8], usize), MsgpackError> {
        let len = be(at + 1, n)? as usize;
        let start = at + 1 + n;
        Ok((take(start, len)?, start + len))
    };
    let ext = |n: usize, fixed: Option<usize>| -> Result<(Token<'_>, usize), MsgpackError> {
        let (len, ty_at) = match fixed {
            Some(len) => (len, at + 1),
            None => (be(at + 1, n)? as usize, at + 1 + n),
        };
        let ty = take(ty_at, 1)?[0] as i8;
        let data = take(ty_at + 1, len)?;
        Ok((Token::Ext(ty, data), ty_at + 1 + len))
    };
    Ok(match m {
        0x00..=0x7f => (Token::Uint(u64::from(m)), at + 1),
        0x80..=0x8f => (Token::Map(usize::from(m & 0x0f)), at + 1),
        0x90..=0x9f => (Token::Array(usize::from(m & 0x0f)), at + 1),
        0xa0..=0xbf => {
            let len = usize::from(m & 0x1f);
            (Token::Str(take(at + 1, len)?), at + 1 + len)
        }
        0xc0 => (Token::Nil, at + 1),
        0xc1 => {
            return Err(MsgpackError::Malformed {
                offset: at,
                what: "0xc1 is never used",
            });
        }
        0xc2 => (Token::Bool(false), at + 1),
        0xc3 => (Token::Bool(true), at + 1),
        0xc4..=0xc6 => {
            let (data, next) = sized(1 << (m - 0xc4))?;
            (Token::Bin(data), next)
        }
        0xc7..=0xc9 => ext(1 << (m - 0xc7), None)?,
        0xca => (Token::F32(f32::from_bits(be(at + 1, 4)? as u32)), at + 5),
        0xcb => (Token::F64(f64::from_bits(be(at + 1, 8)?)), at + 9),
        0xcc..=0xcf => {
            let n = 1 << (m - 0xcc);
            (Token::Uint(be(at + 1, n)?), at + 1 + n)
        }
        0xd0..=0xd3 => {
            let n = 1usize << (m - 0xd0);
            let raw = be(at + 1, n)?;
            let shift = 64 - 8 * n as u32;
            (Token::Int(((raw << shift) as i64) >> shift), at + 1 + n)
        }
        0xd4..=0xd8 => ext(0, Some(1 << (m - 0xd4)))?,
        0xd9..=0xdb => {
            let (data, next) = sized(1 << (m - 0xd9))?;
            (Token::Str(data), next)
        }
        0xdc | 0xdd => {
            let n = if m == 0xdc { 2 } else { 4 };
            (Token::Array(be(at + 1, n)? as usize), at + 1 + n)
        }
        0xde | 0xdf => {
            let n = if m == 0xde { 2 } else { 4 };
            (Token::Map(be(at + 1, n)? as usize), at + 1 + n)
        }
        0xe0..=0xff => (Token::Int(i64::from(m as i8)), at + 1),
    })
}

/// What the check decided for an ext payload of python-blosc2's record, set or NumPy types, in
/// the order the payloads come.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Verdict {
    /// The payload is one msgpack value: shown as it.
    Value,
    /// Shown as bytes, with a note when a limit is why.
    Bytes(Option<String>),
}

/// A msgpack value, checked: its bytes hold exactly one msgpack value, within the input's
/// [`Budget`]. It serializes (with [`metalayer::serde::Serialize`]) to the value's JSON or text form
/// ([`Style`]), read from the bytes as it is written.
///
/// python-blosc2's ext types are shown as what they hold: 43 (a record), 45 (a set) and 46 (a
/// NumPy array) as the msgpack value of their payload, 44 as a complex number, and 42 (a whole
/// frame) by the frame's report when the value belongs to one
/// ([`report`](crate::report)). Nesting counts across ext payloads: their values are read
/// within the same depth limit and budget.
///
/// ```
/// use metalayer::value::{Budget, Msgpack, Style, write_json, write_text};
///
/// let budget = Budget::new();
/// // {"a": [1, 2.5], "b": bin(ff), "c": ext 45 (ext8 of 3 bytes) holding [1, 2]}
/// let bytes = b"\x83\xa1a\x92\x01\xcb\x40\x04\0\0\0\0\0\0\xa1b\xc4\x01\xff\xa1c\xc7\x03\x2d\x92\x01\x02";
/// let mut out = Vec::new();
/// write_json(&mut out, &Msgpack::new(bytes, &budget)?)?;
/// assert_eq!(String::from_utf8(out)?, r#"{"a":[1,2.5],"b":{"bin":"ff"},"c":{"ext":45,"value":[1,2]}}"#);
/// // With the bytes of the exts that decode, too.
/// let mut out = Vec::new();
/// write_json(&mut out, &Msgpack::new(bytes, &budget)?.hex(true))?;
/// assert_eq!(
///     String::from_utf8(out)?,
///     r#"{"a":[1,2.5],"b":{"bin":"ff"},"c":{"ext":45,"data":"920102","value":[1,2]}}"#
/// );
/// let mut out = Vec::new();
/// write_text(&mut out, &Msgpack::new(bytes, &budget)?.style(Style::Text))?;
/// assert_eq!(String::from_utf8(out)?, r#"{"a": [1, 2.5], "b": bin(ff), "c": {"set": [1, 2]}}"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Written in a frame's report, it holds the report (`C`), which notes its errors and reports
/// the frames it holds; on its own, `C` is [`Infallible`]: there is no report.
pub struct Msgpack<'a, 'c, C = Infallible> {
    bytes: &'a [u8],
    /// Where `bytes` start in the outermost value's bytes (an ext payload's view is within it).
    base: usize,
    depth: usize,
    cx: Option<&'c C>,
    verdicts: Vec<Verdict>,
    style: Style,
    /// Whether the exts that decode show their bytes too.
    hex: bool,
}

impl<C> Clone for Msgpack<'_, '_, C> {
    fn clone(&self) -> Self {
        Msgpack {
            verdicts: self.verdicts.clone(),
            ..*self
        }
    }
}

impl<C> fmt::Debug for Msgpack<'_, '_, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Msgpack")
            .field("len", &self.bytes.len())
            .field("depth", &self.depth)
            .field("style", &self.style)
            .field("hex", &self.hex)
            .finish()
    }
}

impl<'a, 'c> Msgpack<'a, 'c> {
    /// Checks that `bytes` hold exactly one msgpack value within `budget`, which it spends.
    pub fn new(bytes: &'a [u8], budget: &Budget) -> Result<Msgpack<'a, 'c>, MsgpackError> {
        Msgpack::checked(bytes, budget, 0, None)
    }
}

impl<'a, 'c, C> Msgpack<'a, 'c, C> {
    /// [`new`](Self::new) for a value `depth` levels down, in a report's context.
    pub(crate) fn checked(
        bytes: &'a [u8],
        budget: &Budget,
        depth: usize,
        cx: Option<&'c C>,
    ) -> Result<Msgpack<'a, 'c, C>, MsgpackError> {
        let mut verdicts = Vec::new();
        let mut checker = Checker {
            bytes,
            base: 0,
            budget,
            verdicts: &mut verdicts,
        };
        let end = checker.value(0, depth)?;
        if end < bytes.len() {
            return Err(MsgpackError::Trailing { offset: end });
        }
        Ok(Msgpack {
            bytes,
            base: 0,
            depth,
            cx,
            verdicts,
            style: Style::Json,
            hex: false,
        })
    }

    /// The same value, shown in `style`.
    pub fn style(self, style: Style) -> Msgpack<'a, 'c, C> {
        Msgpack { style, ..self }
    }

    /// The same value, with (`true`) or without (`false`, the default) the bytes of the exts
    /// that decode (`"data"` beside `"value"` or `"frame"`) in the JSON form. The bytes of an
    /// ext that decodes to nothing are always shown.
    pub fn hex(self, hex: bool) -> Msgpack<'a, 'c, C> {
        Msgpack { hex, ..self }
    }

    /// The value's bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }
}

/// The check: one walk over the bytes, deciding each ext payload.
struct Checker<'a, 'v> {
    bytes: &'a [u8],
    /// Where `bytes` start in the outermost value's bytes, for the offsets of messages.
    base: usize,
    budget: &'v Budget,
    verdicts: &'v mut Vec<Verdict>,
}

impl Checker<'_, '_> {
    /// Checks the value at `at`, `depth` levels down; returns where it ends.
    fn value(&mut self, at: usize, depth: usize) -> Result<usize, MsgpackError> {
        if !self.budget.take_value() {
            return Err(MsgpackError::Limit {
                limit: Limit::Values,
                value: self.budget.limit(Limit::Values),
                offset: self.base + at,
            });
        }
        let (token, mut next) = token(self.bytes, at)?;
        let items = match token {
            Token::Array(n) => n,
            Token::Map(n) => n.saturating_mul(2),
            Token::Ext(ty, data) => {
                if matches!(ty, EXT_RECORD | EXT_SET | EXT_NDARRAY) {
                    self.payload(data, next - data.len(), depth + 1);
                }
                return Ok(next);
            }
            _ => return Ok(next),
        };
        if depth >= DEPTH_LIMIT {
            return Err(MsgpackError::Limit {
                limit: Limit::Depth,
                value: DEPTH_LIMIT,
                offset: self.base + at,
            });
        }
        for _ in 0..items {
            next = self.value(next, depth + 1)?;
        }
        Ok(next)
    }

    /// Decides how an ext payload (at `data_at` in `bytes`) is shown, `depth` levels down: its
    /// verdict, then those of the payloads in it.
    fn payload(&mut self, data: &[u8], data_at: usize, depth: usize) {
        if depth >= DEPTH_LIMIT {
            let e = MsgpackError::Limit {
                limit: Limit::Depth,
                value: DEPTH_LIMIT,
                offset: self.base + data_at,
            };
            self.verdicts.push(Verdict::Bytes(Some(format!("shown as bytes: {e}"))));
            return;
        }
        let slot = self.verdicts.len();
        self.verdicts.push(Verdict::Value);
        let mut inner = Checker {
            bytes: data,
            base: self.base + data_at,
            budget: self.budget,
            verdicts: self.verdicts,
        };
        let verdict = match inner.value(0, depth) {
            Ok(end) if end == data.len() => Verdict::Value,
            Ok(_) => Verdict::Bytes(None),
            Err(e) if e.is_limit() => Verdict::Bytes(Some(format!("shown as bytes: {e}"))),
            Err(_) => Verdict::Bytes(None),
        };
        if verdict != Verdict::Value {
            // What was decided inside is not shown.
            self.verdicts.truncate(slot + 1);
        }
        self.verdicts[slot] = verdict;
    }
}

/// Where one walk over a value (or an ext payload in it) is: its position, and how many of its
/// verdicts it has used.
#[derive(Default)]
struct Walk {
    at: Cell<usize>,
    verdict: Cell<usize>,
}

/// The verdicts a walk reads: the i-th of its own.
type Verdicts<'v> = &'v dyn Fn(usize) -> Verdict;

impl<C: Nested> Serialize for Msgpack<'_, '_, C> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let walk = Walk::default();
        let verdicts = |i: usize| self.verdicts.get(i).cloned().unwrap_or(Verdict::Bytes(None));
        let node = Node {
            m: self,
            w: &walk,
            depth: self.depth,
            verdicts: &verdicts,
        };
        node.serialize(serializer)
    }
}

/// The value at the walk's position, `depth` levels down.
struct Node<'s, 'a, 'c, C> {
    m: &'s Msgpack<'a, 'c, C>,
    w: &'s Walk,
    depth: usize,
    verdicts: Verdicts<'s>,
}

impl<C> Clone for Node<'_, '_, '_, C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C> Copy for Node<'_, '_, '_, C> {}

/// The two float64 of a complex number.
fn complex(data: &[u8]) -> Option<(f64, f64)> {
    let re: [u8; 8] = data.get(..8)?.try_into().ok()?;
    let im: [u8; 8] = data.get(8..)?.try_into().ok()?;
    Some((f64::from_be_bytes(re), f64::from_be_bytes(im)))
}

struct Float(f64);

impl Serialize for Float {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        json::serialize_f64(self.0, serializer)
    }
}

/// A map key that is not a string, as the compact JSON text of its value.
struct KeyText<'s, 'a, 'c, C>(Node<'s, 'a, 'c, C>);

impl<C: Nested> fmt::Display for KeyText<'_, '_, '_, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = Vec::new();
        let node = Node {
            m: &Msgpack {
                style: Style::Json,
                ..self.0.m.clone()
            },
            ..self.0
        };
        node.serialize(&mut serde_json::Serializer::new(&mut text))
            .map_err(|_| fmt::Error)?;
        f.write_str(&String::from_utf8_lossy(&text))
    }
}

/// A `Display` value serialized with `collect_str`.
struct Collected<T>(T);

impl<T: fmt::Display> Serialize for Collected<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0)
    }
}

impl<'a, C: Nested> Node<'_, 'a, '_, C> {
    fn next<E: ser::Error>(&self) -> Result<(Token<'a>, usize), E> {
        let at = self.w.at.get();
        let (token, next) = token(self.m.bytes, at).map_err(E::custom)?;
        self.w.at.set(next);
        Ok((token, at))
    }

    fn child(&self) -> Self {
        Node {
            depth: self.depth + 1,
            ..*self
        }
    }

    fn ext<S: Serializer>(&self, serializer: S, ty: i8, data: &'a [u8], at: usize) -> Result<S::Ok, S::Error> {
        let text = self.m.style == Style::Text;
        // The payload's offset in this value's bytes: it ends where the walk is now.
        let data_at = self.w.at.get() - data.len();
        // The type, and the bytes when they are asked for.
        let json_head = |map: &mut S::SerializeMap| -> Result<(), S::Error> {
            map.serialize_entry("ext", &ty)?;
            if self.m.hex {
                map.serialize_entry("data", &Hex(data))?;
            }
            Ok(())
        };
        match ty {
            EXT_RECORD | EXT_SET | EXT_NDARRAY => {
                let i = self.w.verdict.get();
                let from = i + 1;
                let verdicts = self.verdicts;
                let Verdict::Bytes(note) = verdicts(i) else {
                    return self.payload(serializer, ty, data, data_at, from);
                };
                self.w.verdict.set(from);
                if let (Some(cx), Some(note)) = (self.m.cx, &note) {
                    cx.error(&format!("ext at byte {:#04x} of the value: {note}", self.m.base + at));
                }
                plain_ext(serializer, ty, data, note.as_deref())
            }
            EXT_COMPLEX => match complex(data) {
                Some((re, im)) => {
                    let pair = (Float(re), Float(im));
                    let mut map = serializer.serialize_map(None)?;
                    if text {
                        map.serialize_entry("complex", &pair)?;
                    } else {
                        json_head(&mut map)?;
                        map.serialize_entry("value", &pair)?;
                    }
                    map.end()
                }
                None => plain_ext(serializer, ty, data, None),
            },
            EXT_FRAME => match self.m.cx {
                Some(cx) if text => {
                    let start = self.m.base + data_at;
                    cx.queue_frame(Queued {
                        at: self.m.base + at,
                        data: start..start + data.len(),
                        depth: self.depth + 1,
                    });
                    let mut map = serializer.serialize_map(Some(1))?;
                    map.serialize_entry("frame", &format!("{} bytes, shown below", data.len()))?;
                    map.end()
                }
                Some(cx) => {
                    let mut map = serializer.serialize_map(None)?;
                    map.serialize_entry("ext", &ty)?;
                    cx.nested_frame_entry(&mut map, data, self.m.base + at, self.depth + 1, self.m.hex)?;
                    map.end()
                }
                None => plain_ext(serializer, ty, data, None),
            },
            _ => plain_ext(serializer, ty, data, None),
        }
    }
}

impl<'a, C: Nested> Node<'_, 'a, '_, C> {
    /// An ext of python-blosc2's record, set or NumPy types whose payload (at `data_at`) is
    /// shown as its value; `from` is where the payload's verdicts start.
    fn payload<S: Serializer>(
        &self,
        serializer: S,
        ty: i8,
        data: &'a [u8],
        data_at: usize,
        from: usize,
    ) -> Result<S::Ok, S::Error> {
        let text = self.m.style == Style::Text;
        let verdicts = self.verdicts;
        let name = match ty {
            EXT_RECORD => "record",
            EXT_SET => "set",
            _ => "ndarray",
        };
        let inner = Msgpack {
            bytes: data,
            base: self.m.base + data_at,
            depth: self.depth + 1,
            cx: self.m.cx,
            verdicts: Vec::new(),
            style: self.m.style,
            hex: self.m.hex,
        };
        let walk = Walk::default();
        let nested = |j: usize| verdicts(from + j);
        let payload = Node {
            m: &inner,
            w: &walk,
            depth: self.depth + 1,
            verdicts: &nested,
        };
        let mut map = serializer.serialize_map(None)?;
        if text {
            map.serialize_entry(name, &payload)?;
        } else {
            map.serialize_entry("ext", &ty)?;
            if self.m.hex {
                map.serialize_entry("data", &Hex(data))?;
            }
            map.serialize_entry("value", &payload)?;
        }
        self.w.verdict.set(from + walk.verdict.get());
        map.end()
    }
}

/// An ext shown as its type and bytes, with a note of why when a limit is why.
fn plain_ext<S: Serializer>(serializer: S, ty: i8, data: &[u8], note: Option<&str>) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(2 + usize::from(note.is_some())))?;
    map.serialize_entry("ext", &ty)?;
    map.serialize_entry("data", &Hex(data))?;
    if let Some(note) = note {
        map.serialize_entry("note", note)?;
    }
    map.end()
}

impl<C: Nested> Serialize for Node<'_, '_, '_, C> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (first, at) = self.next()?;
        let text = self.m.style == Style::Text;
        match first {
            Token::Nil => serializer.serialize_unit(),
            Token::Bool(b) => serializer.serialize_bool(b),
            Token::Uint(v) => serializer.serialize_u64(v),
            Token::Int(v) => serializer.serialize_i64(v),
            Token::F32(v) => json::serialize_f32(v, serializer),
            Token::F64(v) => json::serialize_f64(v, serializer),
            Token::Str(bytes) => match std::str::from_utf8(bytes) {
                Ok(s) => serializer.serialize_str(s),
                Err(_) => serializer.serialize_str(&String::from_utf8_lossy(bytes)),
            },
            Token::Bin(bytes) if text => serializer.serialize_bytes(bytes),
            Token::Bin(bytes) => {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry("bin", &Hex(bytes))?;
                map.end()
            }
            Token::Array(n) => {
                let mut seq = serializer.serialize_seq(Some(n))?;
                for _ in 0..n {
                    seq.serialize_element(&self.child())?;
                }
                seq.end()
            }
            Token::Map(n) => {
                let mut map = serializer.serialize_map(Some(n))?;
                for _ in 0..n {
                    match token(self.m.bytes, self.w.at.get()) {
                        Ok((Token::Str(bytes), next)) => {
                            self.w.at.set(next);
                            match std::str::from_utf8(bytes) {
                                Ok(s) => map.serialize_key(s)?,
                                Err(_) => map.serialize_key(&String::from_utf8_lossy(bytes))?,
                            }
                        }
                        _ => map.serialize_key(&Collected(KeyText(self.child())))?,
                    }
                    map.serialize_value(&self.child())?;
                }
                map.end()
            }
            Token::Ext(ty, data) => self.ext(serializer, ty, data, at),
        }
    }
}
