//! Decoding any layout's bytes to JSON by walking its model, with the runtime's reads: the
//! errors are the ones generated decoders report, byte for byte.

use std::fmt;

use metalayer_layout::encoding;
use metalayer_layout::{Const, Count, Encoding, Entry, Layout, Node, Record, Role, Type};
use metalayer_runtime::wire::{Family, Wire, marker};
use metalayer_runtime::{DecodeError, DecodeErrorKind, Decoder, Path};
use serde_json::{Map, Value};

use super::{DEPTH_LIMIT, intern, json};

/// Why bytes do not decode with a layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeFailure {
    /// The bytes break the layout; the message is the one generated decoders give.
    Wire(DecodeError),
    /// A map whose keys are JSON object keys holds one key twice, which a JSON object cannot.
    DuplicateKey {
        /// The schema's name.
        schema: &'static str,
        /// The offset of the second occurrence.
        offset: usize,
        /// The map.
        path: Path,
        /// The key, as its JSON text.
        key: String,
    },
}

impl From<DecodeError> for DecodeFailure {
    fn from(e: DecodeError) -> Self {
        DecodeFailure::Wire(e)
    }
}

impl fmt::Display for DecodeFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeFailure::Wire(e) => fmt::Display::fmt(e, f),
            DecodeFailure::DuplicateKey {
                schema,
                offset,
                path,
                key,
            } => write!(
                f,
                "{schema}: at byte {offset:#04x} in {path}: expected distinct keys, found {key} again"
            ),
        }
    }
}

impl std::error::Error for DecodeFailure {}

#[cfg_attr(not(feature = "inspect"), allow(dead_code))]
impl DecodeFailure {
    /// The offset of the byte the error is at.
    pub fn offset(&self) -> usize {
        match self {
            DecodeFailure::Wire(e) => e.offset(),
            DecodeFailure::DuplicateKey { offset, .. } => *offset,
        }
    }
}

/// Decodes one value of `layout` from the start of `input`, and returns it as JSON with the
/// number of bytes it took. Bytes after it are left alone; [`decode_all`] refuses them.
pub fn decode(layout: &Layout, input: &[u8]) -> Result<(Value, usize), DecodeFailure> {
    let mut d = Decoder::new(input, intern::text(&layout.schema));
    let value = Reader { layout, input }.node(&mut d, &layout.root, &Role::Field, Path::CONTAINER, 0, None)?;
    Ok((value, d.position()))
}

/// Decodes all of `input` as one value of `layout`: bytes after the value are an error, as
/// they are for generated decoders.
pub fn decode_all(layout: &Layout, input: &[u8]) -> Result<Value, DecodeFailure> {
    let (value, used) = decode(layout, input)?;
    if used < input.len() {
        // What `Decoder::end` reports.
        let kind = DecodeErrorKind::TrailingBytes {
            count: input.len() - used,
        };
        return Err(DecodeError::new(intern::text(&layout.schema), used, Path::END, kind).into());
    }
    Ok(value)
}

/// The entries of the record being read and the counts read so far, for the arrays and maps
/// whose count is an earlier entry.
#[derive(Clone, Copy)]
struct Siblings<'a> {
    entries: &'a [Entry],
    counts: &'a [Option<usize>],
}

impl Siblings<'_> {
    /// The count held by entry `index`, and its name for messages.
    fn count(self, index: usize) -> (usize, &'static str) {
        let value = self.counts.get(index).copied().flatten().unwrap_or(0);
        let name = self.entries.get(index).map_or("", |e| intern::text(&e.name));
        (value, name)
    }
}

/// Big-endian bytes as an unsigned number.
fn be(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0, |v, &b| (v << 8) | u64::from(b))
}

struct Reader<'a> {
    layout: &'a Layout,
    input: &'a [u8],
}

impl<'a> Reader<'a> {
    /// Reads one value of `node`; `role` is its entry's role (a field for elements and roots).
    fn node(
        &self,
        d: &mut Decoder<'a>,
        node: &Node,
        role: &Role,
        path: Path,
        depth: usize,
        siblings: Option<Siblings<'_>>,
    ) -> Result<Value, DecodeFailure> {
        let at = d.position();
        match &node.ty {
            Type::Nil => {
                d.nil(path)?;
                Ok(Value::Null)
            }
            Type::Bool => {
                let value = d.bool(path)?;
                if let Role::Const(Const::Bool(expected)) = role {
                    let encoding = |b: bool| if b { marker::TRUE } else { marker::FALSE };
                    d.constant_bytes(at, &[encoding(value)], intern::bytes(&[encoding(*expected)]), path)?;
                }
                Ok(Value::Bool(value))
            }
            Type::Int(t) => {
                let value = match t.encoding {
                    Encoding::Fixed(Wire::PosFixInt) => i128::from(d.fixint(path)?),
                    Encoding::Fixed(Wire::NegFixInt) => i128::from(d.neg_fixint(path)?),
                    Encoding::Fixed(w) => {
                        d.marker(w.marker().unwrap_or(0), w.name(), path)?;
                        let raw = be(d.bytes(w.width(), path)?);
                        if w.is_signed() {
                            // Sign-extend the payload of its width.
                            let shift = 64 - 8 * w.width() as u32;
                            i128::from(((raw << shift) as i64) >> shift)
                        } else {
                            i128::from(raw)
                        }
                    }
                    Encoding::Canonical { lenient } => d.any_int(!lenient, path)?,
                };
                if let Role::Const(Const::Int(expected)) = role {
                    d.constant(at, value, *expected, path)?;
                } else {
                    d.range(at, value, t.min, t.max, path)?;
                    if !t.values.is_empty() {
                        let values: Vec<i128> = t.values.iter().map(|(_, v)| *v).collect();
                        d.named(at, value, &values, intern::text(&super::named_values(t)), path)?;
                    }
                }
                Ok(json::int(value))
            }
            Type::Float(w) => {
                d.marker(w.marker().unwrap_or(0), w.name(), path)?;
                let payload = d.bytes(w.width(), path)?;
                if let Role::Const(c @ Const::Float(_)) = role {
                    let found = self.input.get(at..d.position()).unwrap_or_default();
                    d.constant_bytes(at, found, intern::bytes(&encoding::const_bytes(node, c)), path)?;
                }
                let bits = be(payload);
                Ok(if *w == Wire::Float32 {
                    json::f32(f32::from_bits(bits as u32))
                } else {
                    json::f64(f64::from_bits(bits))
                })
            }
            Type::Str(t) => {
                let len = self.header(d, t.encoding, Family::Str, path)?;
                let start = d.position();
                let bytes = d.bytes(len, path)?;
                if let Role::Const(Const::Bytes(expected)) = role {
                    d.constant_bytes(at, bytes, intern::bytes(expected), path)?;
                }
                Ok(Value::String(if t.raw {
                    json::hex(bytes)
                } else {
                    d.utf8(bytes, start, path)?.to_owned()
                }))
            }
            Type::Bin(encoding) => {
                let len = self.header(d, *encoding, Family::Bin, path)?;
                let bytes = d.bytes(len, path)?;
                if let Role::Const(Const::Bytes(expected)) = role {
                    d.constant_bytes(at, bytes, intern::bytes(expected), path)?;
                }
                Ok(Value::String(json::hex(bytes)))
            }
            Type::Ext(t) => {
                let (ty, len) = match t.encoding {
                    Encoding::Fixed(w) => d.ext_header(w, path)?,
                    Encoding::Canonical { lenient } => d.any_ext_header(!lenient, path)?,
                };
                if let Some(expected) = t.ext_type {
                    // The type byte is the header's last.
                    d.ext_type(d.position() - 1, ty, expected, path)?;
                }
                let data = d.bytes(len, path)?;
                let mut ext = Map::new();
                ext.insert("type".to_owned(), Value::from(ty));
                ext.insert("hex".to_owned(), Value::String(json::hex(data)));
                Ok(Value::Object(ext))
            }
            Type::Array(a) => {
                self.depth(d, depth, path)?;
                let len = self.count(d, a.header, Family::Array, &a.count, path, siblings)?;
                d.fits(len, a.element.min_size(self.layout), path)?;
                let mut items = Vec::with_capacity(len);
                for i in 0..len {
                    items.push(self.node(d, &a.element, &Role::Field, path.index(i), depth + 1, None)?);
                }
                Ok(Value::Array(items))
            }
            Type::Map(m) => {
                self.depth(d, depth, path)?;
                let len = self.count(d, m.header, Family::Map, &m.count, path, siblings)?;
                d.fits(len, m.key.min_size(self.layout) + m.value.min_size(self.layout), path)?;
                if super::keys_are_text(&m.key) {
                    let mut map = Map::new();
                    for i in 0..len {
                        let key_at = d.position();
                        let key = self.node(d, &m.key, &Role::Field, path.index(i), depth + 1, None)?;
                        let value = self.node(d, &m.value, &Role::Field, path.index(i), depth + 1, None)?;
                        // A str or bin decodes to a JSON string.
                        let key = match key {
                            Value::String(key) => key,
                            other => other.to_string(),
                        };
                        if map.contains_key(&key) {
                            return Err(DecodeFailure::DuplicateKey {
                                schema: d.schema(),
                                offset: key_at,
                                path,
                                key: Value::String(key).to_string(),
                            });
                        }
                        map.insert(key, value);
                    }
                    Ok(Value::Object(map))
                } else {
                    let mut pairs = Vec::with_capacity(len);
                    for i in 0..len {
                        let key = self.node(d, &m.key, &Role::Field, path.index(i), depth + 1, None)?;
                        let value = self.node(d, &m.value, &Role::Field, path.index(i), depth + 1, None)?;
                        pairs.push(Value::Array(vec![key, value]));
                    }
                    Ok(Value::Array(pairs))
                }
            }
            Type::Record(r) => self.record(d, r, path, depth),
            Type::Ref(i) => match self.layout.types.get(*i) {
                Some(t) => self.record(d, &t.record, path, depth),
                // A checked layout's references all resolve.
                None => unreachable!("record type {i} is not in the layout"),
            },
        }
    }

    /// Refuses to go deeper than [`DEPTH_LIMIT`] levels of arrays, maps and records.
    fn depth(&self, d: &Decoder<'a>, depth: usize, path: Path) -> Result<(), DecodeError> {
        if depth >= DEPTH_LIMIT {
            return Err(d.error_at(d.position(), path, DecodeErrorKind::Depth { limit: DEPTH_LIMIT }));
        }
        Ok(())
    }

    /// Reads the header of a str or bin and returns its length.
    fn header(
        &self,
        d: &mut Decoder<'a>,
        encoding: Encoding,
        family: Family,
        path: Path,
    ) -> Result<usize, DecodeError> {
        match encoding {
            Encoding::Fixed(w) => d.header(w, path),
            Encoding::Canonical { lenient } => d.any_header(family, !lenient, path),
        }
    }

    /// Reads the header of an array or map and checks its count against the schema's.
    fn count(
        &self,
        d: &mut Decoder<'a>,
        encoding: Encoding,
        family: Family,
        count: &Count,
        path: Path,
        siblings: Option<Siblings<'_>>,
    ) -> Result<usize, DecodeError> {
        let at = d.position();
        let expected = match (count, siblings) {
            (Count::Entry(c), Some(s)) => Some(s.count(*c)),
            (Count::Fixed(n), _) => Some((*n, "")),
            _ => None,
        };
        if let (Encoding::Fixed(Wire::FixArray), Count::Entry(_), Some((n, name))) = (encoding, count, expected) {
            // c-blosc2 writes `0x90 + count`, 0xa0 for 16 elements; the schema says so.
            d.array_header(n, name, path)?;
            return Ok(n);
        }
        let found = self.header(d, encoding, family, path)?;
        if let Some((n, name)) = expected {
            d.count(at, n, found, name, path)?;
        }
        Ok(found)
    }

    /// Reads a record: its header, then each entry present, map keys included.
    fn record(&self, d: &mut Decoder<'a>, r: &Record, path: Path, depth: usize) -> Result<Value, DecodeFailure> {
        self.depth(d, depth, path)?;
        let at = d.position();
        let total = r.entries.len();
        let present = match r.header {
            // One marker states every entry: the schema names it, as generated code checks it.
            Encoding::Fixed(w) if w.marker().is_none() && r.required == total => {
                d.marker(w.markers().0.wrapping_add(total as u8), w.name(), path)?;
                total
            }
            Encoding::Fixed(w) => {
                let n = d.header(w, path)?;
                d.entries(at, n, r.required, total, path)?;
                n
            }
            Encoding::Canonical { lenient } => {
                let n = d.any_header(r.form, !lenient, path)?;
                d.entries(at, n, r.required, total, path)?;
                n
            }
        };
        let mut fields = Map::new();
        let mut counts = vec![None; total];
        for (i, entry) in r.entries.iter().enumerate().take(present) {
            let entry_path = path.child(intern::name(&entry.name));
            if let Some(key) = &entry.key {
                d.key(intern::text(key), entry_path)?;
            }
            let siblings = Siblings {
                entries: &r.entries,
                counts: &counts,
            };
            let value = self.node(d, &entry.node, &entry.role, entry_path, depth + 1, Some(siblings))?;
            if let Role::Count { .. } = entry.role {
                // A count's min is at least 0 and its max fits its wire type.
                counts[i] = json::as_int(&value).and_then(|v| usize::try_from(v).ok());
            }
            fields.insert(entry.name.clone(), value);
        }
        Ok(Value::Object(fields))
    }
}
