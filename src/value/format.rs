//! How views are written: compact JSON, pretty JSON in the command's style, and one line of
//! text that is safe on a terminal, each streamed to any `io::Write`.

#[allow(unused_imports)]
use crate::std_prelude::*;

use std::borrow::Cow;
use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter};

/// Writes `value` as compact JSON. Strings are escaped as serde_json escapes them, and DEL and
/// the C1 controls, which JSON allows raw, as `\u00XX` too: no control character from a file
/// reaches the output raw.
///
/// ```
/// let mut out = Vec::new();
/// metalayer::value::write_json(&mut out, &[1, 2])?;
/// assert_eq!(out, b"[1,2]");
/// let mut out = Vec::new();
/// metalayer::value::write_json(&mut out, "a\u{7f}b\u{85}")?;
/// assert_eq!(out, br#""a\u007fb\u0085""#);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_json<W: Write, T: ?Sized + Serialize>(writer: W, value: &T) -> io::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(writer, HexBytes(CompactFormatter));
    value.serialize(&mut ser).map_err(io::Error::from)
}

/// A formatter that writes byte strings as quoted lowercase hex, as the hex strings of
/// [`Hex`](super::json::Hex) are, and escapes DEL and the C1 controls in strings.
struct HexBytes<F>(F);

/// Writes `"hex"`.
fn quoted_hex<W: ?Sized + Write>(writer: &mut W, value: &[u8]) -> io::Result<()> {
    writer.write_all(b"\"")?;
    super::json::write_hex(value, |ascii| writer.write_all(ascii))?;
    writer.write_all(b"\"")
}

impl<F: Formatter> Formatter for HexBytes<F> {
    fn write_byte_array<W: ?Sized + Write>(&mut self, writer: &mut W, value: &[u8]) -> io::Result<()> {
        quoted_hex(writer, value)
    }

    fn write_string_fragment<W: ?Sized + Write>(&mut self, writer: &mut W, fragment: &str) -> io::Result<()> {
        write_escaped_c1(writer, fragment)
    }
}

/// Writes `value` as pretty JSON in the command's style ([`PrettyFormatter`]), indented from
/// `level` levels of two spaces; strings escaped as [`write_json`] escapes them.
///
/// ```
/// let value = metalayer::serde_json::json!({"shape": [10, 20], "fields": {"a": "b"}});
/// let mut out = Vec::new();
/// metalayer::value::write_pretty(&mut out, &value, 0)?;
/// assert_eq!(String::from_utf8(out).unwrap(), "{\n  \"shape\": [10, 20],\n  \"fields\": {\n    \"a\": \"b\"\n  }\n}");
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_pretty<W: Write, T: ?Sized + Serialize>(writer: W, value: &T, level: usize) -> io::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(writer, PrettyFormatter::new(level));
    value.serialize(&mut ser).map_err(io::Error::from)
}

/// Writes `value` as one line of text ([`TextFormatter`]).
///
/// ```
/// let value = metalayer::serde_json::json!({"unit": "k\u{1b}[31m", "scale": [1, 2]});
/// let mut out = Vec::new();
/// metalayer::value::write_text(&mut out, &value)?;
/// assert_eq!(String::from_utf8(out).unwrap(), r#"{"unit": "k\u001b[31m", "scale": [1, 2]}"#);
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_text<W: Write, T: ?Sized + Serialize>(writer: W, value: &T) -> io::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(writer, TextFormatter);
    value.serialize(&mut ser).map_err(io::Error::from)
}

/// One line of JSON-like text for people: `, ` and `: ` between items, byte strings as
/// `bin(hex)`, and every control character of a string escaped (C0, DEL and C1, so that no
/// escape or operating-system command sequence from a file reaches the terminal).
///
/// ```
/// use metalayer::value::TextFormatter;
///
/// let mut out = Vec::new();
/// let mut ser = metalayer::serde_json::Serializer::with_formatter(&mut out, TextFormatter);
/// metalayer::serde::Serializer::serialize_bytes(&mut ser, &[0xff, 0x00])?;
/// assert_eq!(out, b"bin(ff00)");
/// # Ok::<(), metalayer::serde_json::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct TextFormatter;

impl Formatter for TextFormatter {
    fn begin_array_value<W: ?Sized + Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        if first { Ok(()) } else { writer.write_all(b", ") }
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        if first { Ok(()) } else { writer.write_all(b", ") }
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b": ")
    }

    fn write_string_fragment<W: ?Sized + Write>(&mut self, writer: &mut W, fragment: &str) -> io::Result<()> {
        write_escaped_c1(writer, fragment)
    }

    fn write_byte_array<W: ?Sized + Write>(&mut self, writer: &mut W, value: &[u8]) -> io::Result<()> {
        write!(writer, "bin({})", super::json::Hex(value))
    }
}

/// Writes `text`, with DEL and the C1 controls (which serde_json leaves as they are) as
/// `\u00XX`. In UTF-8, DEL is the byte 0x7f and a C1 control the bytes 0xc2 0x80..=0x9f: the
/// text is scanned for those bytes, not decoded.
fn write_escaped_c1<W: ?Sized + Write>(writer: &mut W, text: &str) -> io::Result<()> {
    let bytes = text.as_bytes();
    // Most text is ASCII without DEL: checked a word at a time and written as it is.
    if text.is_ascii() && !bytes.contains(&0x7f) {
        return writer.write_all(bytes);
    }
    let mut start = 0;
    let mut at = 0;
    while at < bytes.len() {
        let len = match (bytes[at], bytes.get(at + 1)) {
            (0x7f, _) => 1,
            (0xc2, Some(0x80..=0x9f)) => 2,
            _ => {
                at += 1;
                continue;
            }
        };
        // DEL is 0x7f; a C1 control's code point is its second byte.
        let code = if len == 1 { 0x7f } else { bytes[at + 1] };
        writer.write_all(&bytes[start..at])?;
        write!(writer, "\\u{code:04x}")?;
        at += len;
        start = at;
    }
    writer.write_all(&bytes[start..])
}

fn is_c1_or_del(c: char) -> bool {
    matches!(u32::from(c), 0x7f..=0x9f)
}

/// `text` as the text report shows a name from a file: as it is when it holds no control
/// character, no backslash and no quote and is not empty; else as a JSON string with every
/// control character escaped, as `ls` quotes such names.
///
/// ```
/// use metalayer::value::shown_name;
///
/// assert_eq!(shown_name("b2nd"), "b2nd");
/// assert_eq!(shown_name("a\u{1b}]0;x\u{7}"), r#""a\u001b]0;x\u0007""#);
/// assert_eq!(shown_name("line\nbreak\r"), r#""line\nbreak\r""#);
/// assert_eq!(shown_name("\u{9b}31m"), r#""\u009b31m""#);
/// ```
pub fn shown_name(text: &str) -> Cow<'_, str> {
    let plain = !text.is_empty()
        && !text
            .chars()
            .any(|c| c.is_control() || c == '\\' || c == '"' || is_c1_or_del(c));
    if plain {
        return Cow::Borrowed(text);
    }
    let mut out = Vec::with_capacity(text.len() + 2);
    // Writing to a Vec cannot fail, and a str serializes.
    let _ = write_text(&mut out, text);
    Cow::Owned(String::from_utf8(out).unwrap_or_default())
}

/// Pretty JSON in the command's style: two spaces a level, an array whose first element is a
/// scalar on one line (`"shape": [1000, 37]`), and the value of a key `"msgpack"` (user data)
/// on one line. It decides as it goes, so that nothing is held back: memory grows with nesting
/// depth only.
///
/// ```
/// use metalayer::value::write_pretty;
///
/// let mut out = Vec::new();
/// write_pretty(&mut out, &metalayer::serde_json::json!([[1, 2], {"a": []}]), 0)?;
/// assert_eq!(String::from_utf8(out).unwrap(), "[\n  [1, 2],\n  {\n    \"a\": []\n  }\n]");
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct PrettyFormatter {
    base: usize,
    stack: Vec<Open>,
    /// The next value is inline: it follows the key `"msgpack"`.
    inline_next: bool,
    /// The key being written, while it is one (up to 8 bytes: enough to recognize `msgpack`).
    key: Option<Vec<u8>>,
}

/// An array or object being written.
#[derive(Debug, Clone, Copy)]
struct Open {
    /// All on one line.
    inline: bool,
    /// An array whose first element has not come yet: nothing is written of it.
    pending: bool,
    /// No member yet.
    empty: bool,
}

const MSGPACK_KEY: &[u8] = b"msgpack";

impl PrettyFormatter {
    /// Indents from `level` levels: an element of an array printed at level 0 is at level 1.
    ///
    /// ```
    /// use metalayer::value::PrettyFormatter;
    ///
    /// let value = metalayer::serde_json::json!({"name": "b2nd", "msgpack": {"a": [1, {"b": 2}]}});
    /// let mut out = Vec::new();
    /// let mut ser = metalayer::serde_json::Serializer::with_formatter(&mut out, PrettyFormatter::new(1));
    /// metalayer::serde::Serialize::serialize(&value, &mut ser)?;
    /// assert_eq!(
    ///     String::from_utf8(out).unwrap(),
    ///     "{\n    \"name\": \"b2nd\",\n    \"msgpack\": {\"a\": [1, {\"b\": 2}]}\n  }"
    /// );
    /// # Ok::<(), metalayer::serde_json::Error>(())
    /// ```
    pub fn new(level: usize) -> PrettyFormatter {
        PrettyFormatter {
            base: level,
            stack: Vec::new(),
            inline_next: false,
            key: None,
        }
    }

    fn inline(&self) -> bool {
        self.inline_next || self.stack.last().is_some_and(|o| o.inline)
    }

    fn newline<W: ?Sized + Write>(&self, writer: &mut W, levels: usize) -> io::Result<()> {
        writer.write_all(b"\n")?;
        for _ in 0..self.base + levels {
            writer.write_all(b"  ")?;
        }
        Ok(())
    }

    /// Before a value starts: an array waiting for its first element now knows how it is
    /// written.
    fn value<W: ?Sized + Write>(&mut self, writer: &mut W, container: bool) -> io::Result<()> {
        let depth = self.stack.len();
        if let Some(top) = self.stack.last_mut()
            && top.pending
        {
            top.pending = false;
            top.inline = top.inline || !container;
            writer.write_all(b"[")?;
            if !top.inline {
                self.newline(writer, depth)?;
            }
        }
        Ok(())
    }

    fn open(&mut self, pending: bool) {
        let inline = self.inline();
        self.inline_next = false;
        self.stack.push(Open {
            inline,
            pending,
            empty: true,
        });
    }

    fn close<W: ?Sized + Write>(&mut self, writer: &mut W, end: &[u8], empty: &[u8]) -> io::Result<()> {
        let Some(open) = self.stack.pop() else {
            return writer.write_all(end);
        };
        if open.pending || open.empty {
            return writer.write_all(empty);
        }
        if !open.inline {
            self.newline(writer, self.stack.len())?;
        }
        writer.write_all(end)
    }
}

macro_rules! scalar_writes {
    ($($method:ident: $ty:ty),* $(,)?) => {
        $(
            fn $method<W: ?Sized + Write>(&mut self, writer: &mut W, value: $ty) -> io::Result<()> {
                self.value(writer, false)?;
                self.inline_next = false;
                CompactFormatter.$method(writer, value)
            }
        )*
    };
}

impl Formatter for PrettyFormatter {
    scalar_writes!(
        write_bool: bool, write_i8: i8, write_i16: i16, write_i32: i32, write_i64: i64,
        write_i128: i128, write_u8: u8, write_u16: u16, write_u32: u32, write_u64: u64,
        write_u128: u128, write_f32: f32, write_f64: f64, write_number_str: &str,
    );

    fn write_byte_array<W: ?Sized + Write>(&mut self, writer: &mut W, value: &[u8]) -> io::Result<()> {
        self.value(writer, false)?;
        self.inline_next = false;
        quoted_hex(writer, value)
    }

    fn write_null<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.value(writer, false)?;
        self.inline_next = false;
        writer.write_all(b"null")
    }

    fn begin_string<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.value(writer, false)?;
        if self.key.is_none() {
            self.inline_next = false;
        }
        writer.write_all(b"\"")
    }

    fn write_string_fragment<W: ?Sized + Write>(&mut self, writer: &mut W, fragment: &str) -> io::Result<()> {
        if let Some(key) = &mut self.key {
            let room = (MSGPACK_KEY.len() + 1).saturating_sub(key.len());
            key.extend(fragment.as_bytes().iter().take(room));
        }
        write_escaped_c1(writer, fragment)
    }

    fn write_char_escape<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        escape: serde_json::ser::CharEscape,
    ) -> io::Result<()> {
        if let Some(key) = &mut self.key {
            // An escaped character: the key is not `msgpack`.
            key.push(b'\\');
        }
        CompactFormatter.write_char_escape(writer, escape)
    }

    fn begin_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.value(writer, true)?;
        self.open(true);
        Ok(())
    }

    fn end_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.close(writer, b"]", b"[]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        let depth = self.stack.len();
        let Some(top) = self.stack.last_mut() else {
            return Ok(());
        };
        top.empty = false;
        if first {
            // Written once the element shows whether it is a scalar.
            return Ok(());
        }
        writer.write_all(b",")?;
        if top.inline {
            writer.write_all(b" ")
        } else {
            self.newline(writer, depth)
        }
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _writer: &mut W) -> io::Result<()> {
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.value(writer, true)?;
        self.open(false);
        writer.write_all(b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.close(writer, b"}", b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        let depth = self.stack.len();
        let inline = self.inline();
        if let Some(top) = self.stack.last_mut() {
            top.empty = false;
        }
        if !first {
            writer.write_all(b",")?;
            if inline {
                writer.write_all(b" ")?;
            }
        }
        if !inline {
            self.newline(writer, depth)?;
        }
        self.key = Some(Vec::new());
        Ok(())
    }

    fn end_object_key<W: ?Sized + Write>(&mut self, _writer: &mut W) -> io::Result<()> {
        let key = self.key.take();
        self.inline_next = key.as_deref() == Some(MSGPACK_KEY);
        Ok(())
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _writer: &mut W) -> io::Result<()> {
        self.inline_next = false;
        Ok(())
    }
}

/// A writer that passes on the first `limit` characters of UTF-8 text and counts the rest: a
/// long value's line is cut without the whole value being held.
///
/// ```
/// use std::io::Write;
/// use metalayer::value::Clip;
///
/// let mut out = Vec::new();
/// let mut clip = Clip::new(&mut out, 3);
/// clip.write_all("héllo".as_bytes())?;
/// assert_eq!(clip.chars(), 5);
/// assert_eq!(out, "hél".as_bytes());
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct Clip<W> {
    inner: W,
    limit: usize,
    chars: usize,
}

impl<W: Write> Clip<W> {
    /// Passes on `limit` characters to `inner`.
    pub fn new(inner: W, limit: usize) -> Clip<W> {
        Clip { inner, limit, chars: 0 }
    }

    /// How many characters were written to the clip, passed on or not.
    pub fn chars(&self) -> usize {
        self.chars
    }

    /// Whether more than `limit` characters came.
    pub fn clipped(&self) -> bool {
        self.chars > self.limit
    }
}

impl<W: Write> Write for Clip<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let room = self.limit.saturating_sub(self.chars);
        // Each character starts with a byte that is not a continuation byte (0b10xx_xxxx).
        let mut starts = 0;
        let mut cut = buf.len();
        for (i, &b) in buf.iter().enumerate() {
            if b & 0xc0 != 0x80 {
                if starts == room {
                    cut = i;
                    // Count the rest without passing it on.
                    starts += buf[i..].iter().filter(|&&b| b & 0xc0 != 0x80).count();
                    break;
                }
                starts += 1;
            }
        }
        self.inner.write_all(&buf[..cut])?;
        self.chars += starts;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
