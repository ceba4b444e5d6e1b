//! Encoding JSON to any layout's bytes by walking its model. Every value is checked first and
//! turned into the runtime's writes; only then is the buffer sized and written, with the
//! runtime's [`Encoder`], so that refused input writes nothing.

#[allow(unused_imports)]
use crate::std_prelude::*;

use std::fmt;

use metalayer_layout::{Const, Count, Encoding, Entry, ExtType, Layout, Node, Record, Role, Type};
use metalayer_runtime::wire::{Family, Wire, marker};
use metalayer_runtime::{EncodeError, EncodeErrorKind, Encoder, Int, Name, Path, Timestamp, check_range, key_size};
use serde_json::{Map, Value};

use super::place::Place;
use super::{DEPTH_LIMIT, json};

/// Why JSON does not encode with a layout.
///
/// ```
/// let layout = metalayer::report::builtin("caterva_v0").unwrap();
/// let err = metalayer::value::encode(&layout, &metalayer::serde_json::json!({"shape": "4"})).unwrap_err();
/// assert_eq!(err.to_string(), "caterva_v0: in shape: expected an array of int64, found the string \"4\"");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EncodeFailure {
    /// A value the layout refuses, as generated encoders refuse it.
    Wire(EncodeError),
    /// JSON that is not the form of a value of the layout: a string for an integer, an unknown
    /// entry, a missing one.
    Json {
        /// The schema's name.
        schema: Name,
        /// Where in the value.
        path: Path,
        /// What was expected and what was found.
        message: String,
    },
}

impl From<EncodeError> for EncodeFailure {
    fn from(e: EncodeError) -> Self {
        EncodeFailure::Wire(e)
    }
}

impl fmt::Display for EncodeFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeFailure::Wire(e) => fmt::Display::fmt(e, f),
            EncodeFailure::Json { schema, path, message } if path.is_container() => write!(f, "{schema}: {message}"),
            EncodeFailure::Json { schema, path, message } => write!(f, "{schema}: in {path}: {message}"),
        }
    }
}

impl std::error::Error for EncodeFailure {}

/// Encodes `value`, the JSON form of one value of `layout` (see the README's JSON conventions),
/// to the exact bytes of the layout.
///
/// ```
/// let layout = metalayer::report::builtin("caterva_v0").unwrap();
/// let json = metalayer::serde_json::json!({"shape": [4], "chunkshape": [2], "blockshape": [1]});
/// let bytes = metalayer::value::encode(&layout, &json)?;
/// assert_eq!(bytes[..4], [0x95, 0x00, 0x01, 0x91]);
/// # Ok::<(), metalayer::value::EncodeFailure>(())
/// ```
pub fn encode(layout: &Layout, value: &Value) -> Result<Vec<u8>, EncodeFailure> {
    let mut w = Writer::new(layout);
    // A single value is named by its metalayer, as generated code names it.
    let path = match layout.value_name() {
        Some(name) => Place::entry(name),
        None => Place::CONTAINER,
    };
    w.node(&layout.root, value, path, 0)?;
    w.finish()
}

/// One write of the runtime's [`Encoder`], planned before the buffer exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Op<'k> {
    Byte(u8),
    Int(Wire, i128),
    AnyInt(i128),
    Header(Wire, usize),
    AnyHeader(Family, usize),
    ExtHeader(Wire, i8, usize),
    AnyExtHeader(i8, usize),
    Bytes(Vec<u8>),
    Key(&'k str),
    /// A timestamp in the form given, or its smallest.
    Timestamp(Timestamp, Option<Wire>),
}

impl Op<'_> {
    /// The bytes the write takes.
    fn size(&self) -> usize {
        match self {
            Op::Byte(_) => 1,
            Op::Int(w, _) | Op::Header(w, _) | Op::ExtHeader(w, _, _) => w.header_size(),
            Op::AnyInt(v) => Wire::smallest_int_size(*v),
            Op::AnyHeader(family, len) => Wire::smallest_header_size(*family, *len as u64),
            Op::AnyExtHeader(_, len) => Wire::smallest_header_size(Family::Ext, *len as u64),
            Op::Bytes(bytes) => bytes.len(),
            Op::Key(key) => key_size(key),
            Op::Timestamp(t, form) => {
                let w = form.unwrap_or(t.smallest_wire());
                w.header_size() + Timestamp::data_len(w)
            }
        }
    }

    fn write(&self, e: &mut Encoder<'_>) {
        match self {
            Op::Byte(b) => e.byte(*b),
            Op::Int(w, v) => e.int_as(*w, *v),
            Op::AnyInt(v) => e.any_int(*v),
            Op::Header(w, len) => e.header(*w, *len),
            Op::AnyHeader(family, len) => e.any_header(*family, *len),
            Op::ExtHeader(w, ty, len) => e.ext_header(*w, *ty, *len),
            Op::AnyExtHeader(ty, len) => e.any_ext_header(*ty, *len),
            Op::Bytes(bytes) => e.bytes(bytes),
            Op::Key(key) => e.key(key),
            Op::Timestamp(t, form) => e.timestamp(*t, *form),
        }
    }
}

/// Sizes the buffer and writes every planned write into it; `schema` names the value in
/// errors.
pub(super) fn write_ops(ops: &[Op<'_>], schema: &str) -> Result<Vec<u8>, EncodeFailure> {
    let size = ops.iter().map(Op::size).sum();
    let mut buf = vec![0; size];
    // The buffer is sized to fit: the encoder has no error to give, but it would be named.
    let mut e = Encoder::new(&mut buf, size, "")
        .map_err(|e| EncodeError::new(Name::copy_of(schema), e.path().clone(), e.kind().clone()))?;
    for op in ops {
        op.write(&mut e);
    }
    let written = e.finish();
    buf.truncate(written);
    Ok(buf)
}

struct Writer<'l> {
    layout: &'l Layout,
    schema: &'l str,
    ops: Vec<Op<'l>>,
    /// The count entries of the record being written, by entry index, once written: the
    /// count, its name and the first entry it counts, for the arrays and maps nested in later
    /// entries that it counts.
    counts: Vec<Option<(usize, &'l str, &'l str)>>,
    /// The node of the entry being written: its own count was checked with its count entry.
    entry_node: *const Node,
}

/// The largest length a canonical header states (str32, bin32, array32, map32, ext32).
const CANONICAL_MAX_LEN: u64 = u32::MAX as u64;

impl<'l> Writer<'l> {
    fn new(layout: &'l Layout) -> Self {
        Writer {
            layout,
            schema: &layout.schema,
            ops: Vec::new(),
            counts: Vec::new(),
            entry_node: core::ptr::null(),
        }
    }

    fn finish(self) -> Result<Vec<u8>, EncodeFailure> {
        write_ops(&self.ops, self.schema)
    }

    fn fail(&self, path: Place<'_>, message: impl Into<String>) -> EncodeFailure {
        EncodeFailure::Json {
            schema: Name::copy_of(self.schema),
            path: path.to_path(),
            message: message.into(),
        }
    }

    fn wire_error(&self, path: Place<'_>, kind: EncodeErrorKind) -> EncodeFailure {
        EncodeFailure::Wire(EncodeError::new(Name::copy_of(self.schema), path.to_path(), kind))
    }

    /// An error of the runtime's checks, given a nameless schema and the container as its
    /// path, made again with the schema's name and `path`, copied.
    fn placed(&self, e: EncodeError, path: Place<'_>) -> EncodeFailure {
        let at = e.path().clone().within(path.to_path());
        EncodeFailure::Wire(EncodeError::new(Name::copy_of(self.schema), at, e.kind().clone()))
    }

    /// What a node's JSON form is, for messages: `an integer (int64)`, `an array of int32`.
    fn expected(&self, node: &Node) -> String {
        let wire = node.wire_name(self.layout);
        match &node.ty {
            Type::Nil => "null".to_owned(),
            Type::Bool => "true or false".to_owned(),
            Type::Int(t) if t.values.is_empty() => format!("an integer ({wire})"),
            Type::Int(t) => {
                let names: Vec<&str> = t.values.iter().map(|(n, _)| n.as_str()).collect();
                format!("an integer ({wire}) or one of the names {}", names.join(", "))
            }
            Type::Float(_) => format!("a number ({wire}), \"NaN\", \"inf\" or \"-inf\""),
            Type::Str(t) if t.raw => format!("a hex string ({wire}, raw)"),
            Type::Str(_) => "a string".to_owned(),
            Type::Bin(_) => format!("a hex string ({wire})"),
            Type::Ext(t) if t.timestamp => format!("RFC 3339 text ({wire})"),
            Type::Ext(_) => "an object {\"type\", \"hex\"}".to_owned(),
            Type::Array(a) => format!("an array of {}", a.element.wire_name(self.layout)),
            Type::Map(m) if super::keys_are_text(&m.key) => "an object".to_owned(),
            Type::Map(_) => "an array of [key, value] pairs".to_owned(),
            Type::Record(_) | Type::Ref(_) => "an object of entries".to_owned(),
        }
    }

    fn mismatch(&self, node: &Node, value: &Value, path: Place<'_>) -> EncodeFailure {
        self.fail(
            path,
            format!("expected {}, found {}", self.expected(node), json::kind(value)),
        )
    }

    fn depth(&self, depth: usize, path: Place<'_>) -> Result<(), EncodeFailure> {
        if depth >= DEPTH_LIMIT {
            return Err(self.fail(path, format!("expected at most {DEPTH_LIMIT} levels of nesting")));
        }
        Ok(())
    }

    /// Plans the writes of one value of `node`.
    fn node(&mut self, node: &'l Node, value: &Value, path: Place<'l>, depth: usize) -> Result<(), EncodeFailure> {
        match &node.ty {
            Type::Nil => match value {
                Value::Null => self.ops.push(Op::Byte(marker::NIL)),
                _ => return Err(self.mismatch(node, value, path)),
            },
            Type::Bool => match value {
                Value::Bool(b) => self.ops.push(Op::Byte(if *b { marker::TRUE } else { marker::FALSE })),
                _ => return Err(self.mismatch(node, value, path)),
            },
            Type::Int(t) => {
                let named = || match value {
                    Value::String(s) => t.values.iter().find(|(n, _)| n == s).map(|(_, v)| *v),
                    _ => None,
                };
                let Some(v) = json::as_int(value).or_else(named) else {
                    return Err(self.mismatch(node, value, path));
                };
                check_range("", Path::CONTAINER, v, t.min, t.max).map_err(|e| self.placed(e, path))?;
                // What `check_named` checks, with the layout's names.
                if !t.values.is_empty() && !t.values.iter().any(|(_, named)| *named == v) {
                    let kind = EncodeErrorKind::NotNamed {
                        names: Name::copy_of(super::named_values(t).as_str()),
                        found: Int::new(v),
                    };
                    return Err(self.wire_error(path, kind));
                }
                self.ops.push(match t.encoding {
                    Encoding::Fixed(w) => Op::Int(w, v),
                    Encoding::Canonical { .. } => Op::AnyInt(v),
                });
            }
            Type::Float(w) => {
                let Some(f) = json::as_f64(value) else {
                    return Err(self.mismatch(node, value, path));
                };
                let payload = if *w == Wire::Float32 {
                    match json::to_f32(f) {
                        Some(x) => x.to_be_bytes().to_vec(),
                        None => {
                            return Err(
                                self.fail(path, format!("expected a number within float32's range, found {f:e}"))
                            );
                        }
                    }
                } else {
                    f.to_be_bytes().to_vec()
                };
                self.ops.push(Op::Byte(w.marker().unwrap_or(marker::FLOAT64)));
                self.ops.push(Op::Bytes(payload));
            }
            Type::Str(t) => {
                let bytes = match (value, t.raw) {
                    (Value::String(s), false) => s.as_bytes().to_vec(),
                    (Value::String(s), true) => self.hex(node, s, path)?,
                    _ => return Err(self.mismatch(node, value, path)),
                };
                let (wire, max) = max_len(t.encoding, Family::Str);
                if bytes.len() as u64 > max {
                    let found = bytes.len();
                    return Err(self.wire_error(path, EncodeErrorKind::StringTooLong { wire, max, found }));
                }
                self.check_fixed_len(path, wire, t.len, bytes.len())?;
                self.bytes_header(t.encoding, Family::Str, bytes.len());
                self.ops.push(Op::Bytes(bytes));
            }
            Type::Bin(b) => {
                let Value::String(s) = value else {
                    return Err(self.mismatch(node, value, path));
                };
                let bytes = self.hex(node, s, path)?;
                let (wire, max) = max_len(b.encoding, Family::Bin);
                self.check_len(path, wire, 0, max, bytes.len())?;
                self.check_fixed_len(path, wire, b.len, bytes.len())?;
                self.bytes_header(b.encoding, Family::Bin, bytes.len());
                self.ops.push(Op::Bytes(bytes));
            }
            Type::Ext(t) if t.timestamp => self.timestamp(t, value, node, path)?,
            Type::Ext(t) => {
                let Value::Object(ext) = value else {
                    return Err(self.mismatch(node, value, path));
                };
                if let Some(key) = ext.keys().find(|k| !matches!(k.as_str(), "type" | "hex")) {
                    return Err(self.fail(
                        path,
                        format!("unknown key `{key}` in an ext value; its keys are type and hex"),
                    ));
                }
                let ty = match (ext.get("type"), t.ext_type) {
                    (None, Some(fixed)) => fixed,
                    (None, None) => return Err(self.fail(path, "missing `type` in an ext value")),
                    (Some(given), fixed) => {
                        let Some(ty) = json::as_int(given).and_then(|v| i8::try_from(v).ok()) else {
                            return Err(self.fail(
                                path,
                                format!("expected an ext type in -128..=127, found {}", json::kind(given)),
                            ));
                        };
                        if let Some(fixed) = fixed.filter(|&f| f != ty) {
                            return Err(self.fail(path, format!("expected ext type {fixed}, found {ty}")));
                        }
                        ty
                    }
                };
                let data = match ext.get("hex") {
                    Some(Value::String(s)) => self.hex(node, s, path)?,
                    Some(other) => {
                        return Err(self.fail(
                            path,
                            format!("expected a hex string for `hex`, found {}", json::kind(other)),
                        ));
                    }
                    None => return Err(self.fail(path, "missing `hex` in an ext value")),
                };
                let len = data.len();
                match t.encoding {
                    Encoding::Fixed(w) => {
                        let n = w.fixext_len().map(|n| n as u64);
                        self.check_len(path, w.name(), n.unwrap_or(0), n.or(w.max_len()).unwrap_or(0), len)?;
                        self.ops.push(Op::ExtHeader(w, ty, len));
                    }
                    Encoding::Canonical { .. } => {
                        self.check_len(path, Family::Ext.name(), 0, CANONICAL_MAX_LEN, len)?;
                        self.ops.push(Op::AnyExtHeader(ty, len));
                    }
                }
                self.ops.push(Op::Bytes(data));
            }
            Type::Array(a) => {
                self.depth(depth, path)?;
                let Value::Array(items) = value else {
                    return Err(self.mismatch(node, value, path));
                };
                self.seq_header(a.header, Family::Array, &a.count, items.len(), path)?;
                self.check_nested_count(node, &a.count, items.len(), path)?;
                for (i, item) in items.iter().enumerate() {
                    self.node(&a.element, item, path.index(i), depth + 1)?;
                }
            }
            Type::Map(m) => {
                self.depth(depth, path)?;
                let pairs = self.pairs(node, value, path)?;
                self.seq_header(m.header, Family::Map, &m.count, pairs.len(), path)?;
                self.check_nested_count(node, &m.count, pairs.len(), path)?;
                for (i, (key, value)) in pairs.iter().enumerate() {
                    self.node(&m.key, key, path.index(i), depth + 1)?;
                    self.node(&m.value, value, path.index(i), depth + 1)?;
                }
            }
            Type::Record(r) => self.record(r, value, path, depth)?,
            Type::Ref(i) => match self.layout.types.get(*i) {
                Some(t) => self.record(&t.record, value, path, depth)?,
                // A checked layout's references all resolve.
                None => unreachable!("record type {i} is not in the layout"),
            },
        }
        Ok(())
    }

    /// Hex text as bytes, or an error that says what the node expects.
    fn hex(&self, node: &Node, text: &str, path: Place<'_>) -> Result<Vec<u8>, EncodeFailure> {
        json::parse_hex(text).map_err(|e| self.fail(path, format!("expected {}: {e}", self.expected(node))))
    }

    fn check_len(
        &self,
        path: Place<'_>,
        wire: &'static str,
        min: u64,
        max: u64,
        found: usize,
    ) -> Result<(), EncodeFailure> {
        metalayer_runtime::check_len("", Path::CONTAINER, wire, min, max, found).map_err(|e| self.placed(e, path))
    }

    /// Plans a timestamp, given as RFC 3339 text, in the form the schema fixes or its smallest.
    fn timestamp(&mut self, t: &ExtType, value: &Value, node: &Node, path: Place<'_>) -> Result<(), EncodeFailure> {
        let Value::String(text) = value else {
            return Err(self.mismatch(node, value, path));
        };
        let time = super::parse_timestamp(text).map_err(|message| self.fail(path, message))?;
        let form = t.encoding.wire();
        metalayer_runtime::check_timestamp("", Path::CONTAINER, time, form).map_err(|e| self.placed(e, path))?;
        self.ops.push(Op::Timestamp(time, form));
        Ok(())
    }

    /// Checks a str's or bin's length against the one the schema fixes, if it does.
    fn check_fixed_len(
        &self,
        path: Place<'_>,
        wire: &'static str,
        fixed: Option<usize>,
        found: usize,
    ) -> Result<(), EncodeFailure> {
        match fixed {
            Some(k) => self.check_len(path, wire, k as u64, k as u64, found),
            None => Ok(()),
        }
    }

    /// The header of a str or bin of `len` bytes.
    fn bytes_header(&mut self, encoding: Encoding, family: Family, len: usize) {
        self.ops.push(match encoding {
            Encoding::Fixed(w) => Op::Header(w, len),
            Encoding::Canonical { .. } => Op::AnyHeader(family, len),
        });
    }

    /// Checks an array's or map's length against what its header and count allow, and plans
    /// its header. A count held by an earlier entry was checked with that entry.
    fn seq_header(
        &mut self,
        encoding: Encoding,
        family: Family,
        count: &Count,
        len: usize,
        path: Place<'_>,
    ) -> Result<(), EncodeFailure> {
        let (wire, max) = max_len(encoding, family);
        match (count, encoding) {
            (Count::Fixed(n), _) => self.check_len(path, wire, *n as u64, *n as u64, len)?,
            // The count entry's range, checked with it, is what the header can state, and
            // may reach past fixarray's 15 when the schema says why (c-blosc2's 0xa0).
            (Count::Entry(_), Encoding::Fixed(Wire::FixArray)) => {}
            _ => self.check_len(path, wire, 0, max, len)?,
        }
        self.ops.push(match encoding {
            // For a fixarray counted by an entry this is `0x90 + count`, as c-blosc2 writes it.
            Encoding::Fixed(w) => Op::Header(w, len),
            Encoding::Canonical { .. } => Op::AnyHeader(family, len),
        });
        Ok(())
    }

    /// Checks that an array or map nested in an entry and counted by a count entry of the
    /// record has as many elements as the count.
    fn check_nested_count(&self, node: &Node, count: &Count, len: usize, path: Place<'_>) -> Result<(), EncodeFailure> {
        let Count::Entry(c) = count else {
            return Ok(());
        };
        if core::ptr::eq(node, self.entry_node) {
            return Ok(());
        }
        match self.counts.get(*c).copied().flatten() {
            // What `check_counted` checks, with the layout's names.
            Some((expected, name, reference)) if expected != len => {
                let kind = EncodeErrorKind::LengthMismatch {
                    count_entry: Name::copy_of(name),
                    reference: Name::copy_of(reference),
                    expected,
                    found: len,
                };
                Err(self.wire_error(path, kind))
            }
            _ => Ok(()),
        }
    }

    /// A map's pairs: a JSON object's entries when its keys are strings, else `[key, value]`
    /// arrays.
    fn pairs(&self, node: &Node, value: &Value, path: Place<'_>) -> Result<Vec<(Value, Value)>, EncodeFailure> {
        let Type::Map(m) = &node.ty else {
            return Err(self.mismatch(node, value, path));
        };
        match value {
            Value::Object(map) if super::keys_are_text(&m.key) => {
                Ok(map.iter().map(|(k, v)| (Value::String(k.clone()), v.clone())).collect())
            }
            Value::Array(items) if !super::keys_are_text(&m.key) => items
                .iter()
                .enumerate()
                .map(|(i, item)| match item.as_array().map(Vec::as_slice) {
                    Some([k, v]) => Ok((k.clone(), v.clone())),
                    _ => Err(self.fail(
                        path.index(i),
                        format!("expected a [key, value] pair, found {}", json::kind(item)),
                    )),
                })
                .collect(),
            _ => Err(self.mismatch(node, value, path)),
        }
    }

    /// The number of elements or pairs a counted entry's JSON value has.
    fn len_of(&self, node: &Node, value: &Value, path: Place<'_>) -> Result<usize, EncodeFailure> {
        match (&node.ty, value) {
            (Type::Array(_), Value::Array(items)) => Ok(items.len()),
            (Type::Map(_), _) => self.pairs(node, value, path).map(|p| p.len()),
            _ => Err(self.mismatch(node, value, path)),
        }
    }

    /// Plans a record: its header for the entries present, then each entry, with constants and
    /// counts derived.
    fn record(&mut self, r: &'l Record, value: &Value, path: Place<'l>, depth: usize) -> Result<(), EncodeFailure> {
        self.depth(depth, path)?;
        let Value::Object(obj) = value else {
            return Err(self.fail(
                path,
                format!("expected an object of entries, found {}", json::kind(value)),
            ));
        };
        if let Some(key) = obj.keys().find(|k| r.entry(k).is_none()) {
            let names: Vec<&str> = r.entries.iter().map(|e| e.name.as_str()).collect();
            return Err(self.fail(
                path,
                format!("unknown entry `{key}`; the entries are {}", names.join(", ")),
            ));
        }
        // Optional trailing entries: those present come first.
        let mut present = r.required;
        let mut absent: Option<&Entry> = None;
        for e in &r.entries[r.required..] {
            let here = given(obj, e).is_some();
            match absent {
                Some(a) if here => {
                    let kind = EncodeErrorKind::OptionalGap {
                        absent: Name::copy_of(a.name.as_str()),
                    };
                    return Err(self.wire_error(path.child(&e.name), kind));
                }
                None if here => present += 1,
                None => absent = Some(e),
                Some(_) => {}
            }
            // What `check_together` checks, with the layout's names.
            if let Some(first) = e.together_with.and_then(|i| r.entries.get(i)) {
                let first_present = given(obj, first).is_some();
                if first_present != here {
                    let present = if first_present { &first.name } else { &e.name };
                    let kind = EncodeErrorKind::Together {
                        first: Name::copy_of(first.name.as_str()),
                        last: Name::copy_of(e.name.as_str()),
                        present: Name::copy_of(present.as_str()),
                    };
                    return Err(self.wire_error(path.child(&e.name), kind));
                }
            }
        }
        self.ops.push(match r.header {
            Encoding::Fixed(w) => Op::Header(w, present),
            Encoding::Canonical { .. } => Op::AnyHeader(r.form, present),
        });
        let outer = (
            core::mem::replace(&mut self.counts, vec![None; r.entries.len()]),
            self.entry_node,
        );
        for (i, e) in r.entries.iter().enumerate().take(present) {
            self.entry_node = &e.node;
            let entry_path = path.child(&e.name);
            if let Some(key) = &e.key {
                self.ops.push(Op::Key(key));
            }
            match &e.role {
                Role::Field => {
                    let Some(v) = given(obj, e) else {
                        return Err(self.fail(path, format!("missing entry `{}`", e.name)));
                    };
                    self.node(&e.node, v, entry_path, depth + 1)?;
                }
                Role::Const(c) => {
                    let constant = const_json(&e.node, c);
                    if let Some(v) = obj.get(&e.name) {
                        self.check_constant(&e.node, v, &constant, entry_path, depth)?;
                    }
                    self.node(&e.node, &constant, entry_path, depth + 1)?;
                }
                Role::Count { of } => {
                    let count = self.count(r, i, of, obj, path)?;
                    self.node(&e.node, &count, entry_path, depth + 1)?;
                    let reference = of.first().and_then(|&a| r.entries.get(a));
                    if let (Some(n), Some(a)) = (json::as_int(&count).and_then(|n| usize::try_from(n).ok()), reference)
                    {
                        self.counts[i] = Some((n, &e.name, &a.name));
                    }
                }
            }
        }
        (self.counts, self.entry_node) = outer;
        Ok(())
    }

    /// Fails unless `given` encodes to the constant's bytes.
    fn check_constant(
        &self,
        node: &'l Node,
        given: &Value,
        constant: &Value,
        path: Place<'l>,
        depth: usize,
    ) -> Result<(), EncodeFailure> {
        let bytes = |v: &Value| {
            let mut w = Writer::new(self.layout);
            w.node(node, v, path, depth + 1)?;
            w.finish()
        };
        match (bytes(given), bytes(constant)) {
            (Ok(a), Ok(b)) if a == b => Ok(()),
            _ => Err(self.fail(path, format!("expected constant {constant}, found {given}"))),
        }
    }

    /// The value of count entry `index`: the length of the arrays or maps it counts, which
    /// must agree and lie in its range; or, when none of them is present, its own value.
    fn count(
        &self,
        r: &Record,
        index: usize,
        of: &[usize],
        obj: &Map<String, Value>,
        path: Place<'_>,
    ) -> Result<Value, EncodeFailure> {
        let entry = &r.entries[index];
        let count_entry = || Name::copy_of(entry.name.as_str());
        let (min, max) = match &entry.node.ty {
            Type::Int(t) => (t.min, t.max),
            _ => (0, i128::from(u32::MAX)),
        };
        let mut reference: Option<(usize, &str)> = None;
        for counted in of.iter().filter_map(|&a| r.entries.get(a)) {
            let counted_path = path.child(&counted.name);
            let Some(v) = given(obj, counted) else {
                if counted.optional {
                    continue;
                }
                return Err(self.fail(path, format!("missing entry `{}`", counted.name)));
            };
            let len = self.len_of(&counted.node, v, counted_path)?;
            match reference {
                None => {
                    if (len as i128) < min || (len as i128) > max {
                        let kind = EncodeErrorKind::CountOutOfRange {
                            count_entry: count_entry(),
                            min: usize::try_from(min.max(0)).unwrap_or(usize::MAX),
                            max: usize::try_from(max.max(0)).unwrap_or(usize::MAX),
                            found: len,
                        };
                        return Err(self.wire_error(counted_path, kind));
                    }
                    reference = Some((len, &counted.name));
                }
                Some((expected, name)) if expected != len => {
                    let kind = EncodeErrorKind::LengthMismatch {
                        count_entry: count_entry(),
                        reference: Name::copy_of(name),
                        expected,
                        found: len,
                    };
                    return Err(self.wire_error(counted_path, kind));
                }
                Some(_) => {}
            }
        }
        let given_count = obj.get(&entry.name);
        match (reference, given_count) {
            (Some((len, _)), Some(g)) if json::as_int(g) != Some(len as i128) => {
                let names: Vec<&str> = of
                    .iter()
                    .filter_map(|&a| r.entries.get(a))
                    .map(|e| e.name.as_str())
                    .collect();
                let verb = if names.len() == 1 { "has" } else { "have" };
                let noun = if len == 1 { "element" } else { "elements" };
                Err(self.fail(
                    path.child(&entry.name),
                    format!("given {g}, but {} {verb} {len} {noun}", names.join(", ")),
                ))
            }
            (Some((len, _)), _) => Ok(json::int(len as i128)),
            (None, Some(g)) => Ok(g.clone()),
            (None, None) => Err(self.fail(path, format!("missing entry `{}`", entry.name))),
        }
    }
}

/// An entry's value in a record's JSON object; an optional entry given as `null` is absent.
fn given<'v>(obj: &'v Map<String, Value>, e: &Entry) -> Option<&'v Value> {
    match obj.get(&e.name) {
        Some(Value::Null) if e.optional => None,
        v => v,
    }
}

/// The wire type's name and the largest length its header states.
fn max_len(encoding: Encoding, family: Family) -> (&'static str, u64) {
    match encoding {
        Encoding::Fixed(w) => (w.name(), w.max_len().unwrap_or(0)),
        Encoding::Canonical { .. } => (family.name(), CANONICAL_MAX_LEN),
    }
}

/// A constant's JSON form, by the conventions every value follows.
fn const_json(node: &Node, c: &Const) -> Value {
    match (c, &node.ty) {
        (Const::Nil, _) => Value::Null,
        (Const::Bool(b), _) => Value::Bool(*b),
        (Const::Int(v), _) => json::int(*v),
        (Const::Float(f), Type::Float(Wire::Float32)) => json::f32(*f as f32),
        (Const::Float(f), _) => json::f64(*f),
        (Const::Bytes(b), Type::Str(t)) if !t.raw => Value::String(String::from_utf8_lossy(b).into_owned()),
        (Const::Bytes(b), _) => Value::String(json::hex(b)),
    }
}
