//! Exhaustive malformed inputs: golden vectors of every schema, and real frame headers, under
//! every truncation, every single-byte substitution (all 256 values at every offset), an
//! inserted byte (all 256 values at every offset) and a deleted byte at every offset.
//!
//! No input makes a decoder or the frame reader panic. Every decoder, whatever its field types,
//! either refuses an input with an error that agrees with the bytes (its offset lies in the input
//! and the byte found there is the one the error names), or accepts it, and then encoding the
//! value gives back exactly the input: strict decoding is injective. `Known` decodes exactly what
//! one of its layouts decodes. The frame reader either refuses a header with an error that agrees
//! with the bytes, or returns metalayers whose names, offsets and contents are the header's own.

mod common;

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path as FsPath;

use arrayvec::{ArrayString, ArrayVec};
use common::unhex;
use metalayer::b2nd::{B2ndV0, B2ndV1};
use metalayer::caterva::CatervaV0;
use metalayer::frame::{
    self, FrameError, FrameErrorKind, FrameMetalayer, MAX_HEADER_LEN, MAX_METALAYERS, MIN_HEADER_LEN, OffsetMiss,
    PREFIX_LEN, Section,
};
use metalayer::prelude::*;
use metalayer::{DecodeError, DecodeErrorKind, DispatchError, Fit, Known, Path};
use metalayer_runtime::wire::{Family, Wire};

// ---------------------------------------------------------------------------------------------
// Mutations
// ---------------------------------------------------------------------------------------------

/// One change to a valid input.
#[derive(Debug, Clone, Copy)]
enum Mutation {
    /// The first `n` bytes only.
    Truncate(usize),
    /// The byte at an offset replaced by another value.
    Substitute(usize, u8),
    /// A byte inserted before an offset (at the end when the offset is the length).
    Insert(usize, u8),
    /// The byte at an offset removed.
    Delete(usize),
}

const CATEGORIES: [&str; 4] = ["truncate", "substitute", "insert", "delete"];

impl Mutation {
    fn category(self) -> usize {
        match self {
            Mutation::Truncate(_) => 0,
            Mutation::Substitute(..) => 1,
            Mutation::Insert(..) => 2,
            Mutation::Delete(_) => 3,
        }
    }
}

impl fmt::Display for Mutation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Mutation::Truncate(n) => write!(f, "truncated to {n} bytes"),
            Mutation::Substitute(at, v) => write!(f, "byte {at:#04x} set to {v:#04x}"),
            Mutation::Insert(at, v) => write!(f, "{v:#04x} inserted at {at:#04x}"),
            Mutation::Delete(at) => write!(f, "byte {at:#04x} deleted"),
        }
    }
}

/// Calls `f` with every mutation of `original` and the mutated bytes: every proper prefix, every
/// other value at every offset, every value inserted at every offset, every byte deleted.
fn for_each_mutation(original: &[u8], mut f: impl FnMut(Mutation, &[u8])) {
    let len = original.len();
    for n in 0..len {
        f(Mutation::Truncate(n), &original[..n]);
    }
    let mut buf = original.to_vec();
    for at in 0..len {
        for value in 0..=255u8 {
            if value != original[at] {
                buf[at] = value;
                f(Mutation::Substitute(at, value), &buf);
            }
        }
        buf[at] = original[at];
    }
    for at in 0..=len {
        for value in 0..=255u8 {
            buf.clear();
            buf.extend_from_slice(&original[..at]);
            buf.push(value);
            buf.extend_from_slice(&original[at..]);
            f(Mutation::Insert(at, value), &buf);
        }
    }
    for at in 0..len {
        buf.clear();
        buf.extend_from_slice(&original[..at]);
        buf.extend_from_slice(&original[at + 1..]);
        f(Mutation::Delete(at), &buf);
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The text of a caught panic.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a non-text panic".to_owned()
    }
}

/// Counts of accepted and refused mutations, per category.
#[derive(Default, Clone, Copy)]
struct Tally {
    ok: [usize; 4],
    err: [usize; 4],
}

impl Tally {
    fn add(&mut self, m: Mutation, ok: bool) {
        let counts = if ok { &mut self.ok } else { &mut self.err };
        counts[m.category()] += 1;
    }

    fn total(&self) -> usize {
        self.ok.iter().chain(&self.err).sum()
    }
}

impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, name) in CATEGORIES.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{name} {} ok / {} err", self.ok[i], self.err[i])?;
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// Decoders in every field-type flavour
// ---------------------------------------------------------------------------------------------

#[metalayer(schema = "b2nd_v1")]
struct V1Borrowed<'a> {
    shape: ArrayVec<i64, 16>,
    chunkshape: ArrayVec<i32, 16>,
    blockshape: ArrayVec<i32, 16>,
    dtype_format: u8,
    dtype: &'a str,
}

#[metalayer(schema = "b2nd_v1")]
struct V1Boxed {
    shape: Vec<i64>,
    chunkshape: Vec<i32>,
    blockshape: Vec<i32>,
    dtype_format: u8,
    dtype: Box<str>,
}

#[metalayer(schema = "b2nd_v1")]
struct V1Fixed {
    shape: [i64; 3],
    chunkshape: ArrayVec<i32, 3>,
    blockshape: [i32; 3],
    dtype_format: u8,
    dtype: ArrayString<8>,
}

#[metalayer(schema = "b2nd_v0")]
struct V0Borrowed<'a> {
    shape: ArrayVec<i64, 8>,
    chunkshape: ArrayVec<i32, 8>,
    blockshape: ArrayVec<i32, 8>,
    dtype: &'a str,
}

#[metalayer(schema = "b2nd_v0")]
struct V0Fixed {
    shape: [i64; 2],
    chunkshape: ArrayVec<i32, 2>,
    blockshape: [i32; 2],
    dtype: ArrayString<5>,
}

#[metalayer(schema = "caterva_v0")]
struct CatervaBorrowed {
    shape: ArrayVec<i64, 8>,
    chunkshape: ArrayVec<i32, 8>,
    blockshape: ArrayVec<i32, 8>,
}

#[metalayer(schema = "caterva_v0")]
struct CatervaFixed {
    shape: [i64; 1],
    chunkshape: ArrayVec<i32, 1>,
    blockshape: [i32; 1],
}

#[metalayer(schema_path = "tests/schemas/sensor_v0.toml")]
struct SensorOwned {
    kind: u16,
    readings: Vec<u32>,
    flags: Vec<u8>,
    label: String,
    note: Box<str>,
    offset: i16,
    big: u64,
    temp: i32,
}

#[metalayer(schema_path = "tests/schemas/sensor_v0.toml")]
struct SensorBorrowed<'a> {
    kind: u16,
    readings: ArrayVec<u32, 4>,
    flags: ArrayVec<u8, 4>,
    label: &'a str,
    note: &'a str,
    offset: i16,
    big: u64,
    temp: i32,
}

#[metalayer(schema_path = "tests/schemas/sensor_v0.toml")]
struct SensorFixed {
    kind: u16,
    readings: ArrayVec<u32, 2>,
    flags: [u8; 2],
    label: ArrayString<2>,
    note: ArrayString<3>,
    offset: i16,
    big: u64,
    temp: i32,
}

#[metalayer(schema_path = "tests/schemas/mixed_v1.toml")]
struct MixedOwned {
    shape: Vec<u64>,
    corners: Vec<Vec<u64>>,
    digest: [u8; 4],
    created: metalayer::Timestamp,
    dtype_format: Option<u8>,
    dtype: Option<String>,
}

#[metalayer(schema_path = "tests/schemas/mixed_v1.toml")]
struct MixedBorrowed<'a> {
    shape: ArrayVec<u64, 4>,
    corners: Vec<ArrayVec<u64, 4>>,
    digest: &'a [u8],
    created: metalayer::Timestamp,
    dtype_format: Option<u8>,
    dtype: Option<&'a str>,
}

/// What one decoder made of one input.
#[derive(Debug)]
enum Outcome {
    /// Decoded from the first `used` bytes; encoding the value gave `encoded`.
    Decoded { encoded: Vec<u8>, used: usize },
    /// Refused by the decoder.
    Refused(DecodeError),
    /// Refused by `Known` under the metalayer name.
    NotDispatched(&'static str, DispatchError),
}

impl Outcome {
    /// What it was, for messages.
    fn text(&self) -> String {
        match self {
            Outcome::Decoded { used, .. } => format!("decoded {used} bytes"),
            Outcome::Refused(e) => format!("{e} ({e:?})"),
            Outcome::NotDispatched(_, e) => e.to_string(),
        }
    }

    fn is_ok(&self) -> bool {
        matches!(self, Outcome::Decoded { .. })
    }
}

/// A decoder with its field types.
struct Flavour {
    name: &'static str,
    decode: fn(&[u8]) -> Outcome,
    /// Its field types hold every value of the schema, so it decodes every golden vector.
    complete: bool,
    /// Flavours with the same group (not 0) accept and refuse exactly the same inputs, with the
    /// same errors.
    group: u8,
    /// It decodes with `decode_prefix`, so it may leave trailing bytes.
    prefix: bool,
}

/// `Metalayer::encode`.
fn encode<T: Metalayer>(value: &T) -> Vec<u8> {
    value
        .encode()
        .unwrap_or_else(|e| panic!("decoded, but the value does not encode: {e}"))
}

/// `Metalayer::encode_into` a larger buffer, which it fills exactly `encoded_len` bytes of.
fn encode_into<T: Metalayer>(value: &T) -> Vec<u8> {
    let len = value.encoded_len();
    let mut buf = vec![0xa5; len + 8];
    let n = value
        .encode_into(&mut buf)
        .unwrap_or_else(|e| panic!("decoded, but the value does not encode_into: {e}"));
    assert_eq!(n, len, "encode_into wrote another length than encoded_len");
    assert!(buf[n..].iter().all(|&b| b == 0xa5), "encode_into wrote past its length");
    buf.truncate(n);
    buf
}

/// A flavour decoding the whole input with `Decode::decode`, re-encoding with `$encode`.
macro_rules! whole {
    ($ty:ty, $encode:ident) => {
        |input: &[u8]| match <$ty>::decode(input) {
            Ok(value) => Outcome::Decoded {
                encoded: $encode(&value),
                used: input.len(),
            },
            Err(e) => Outcome::Refused(e),
        }
    };
}

/// A flavour decoding with `Decode::decode_prefix`.
macro_rules! prefix {
    ($ty:ty) => {
        |input: &[u8]| match <$ty>::decode_prefix(input) {
            Ok((value, used)) => Outcome::Decoded {
                encoded: encode(&value),
                used,
            },
            Err(e) => Outcome::Refused(e),
        }
    };
}

/// `Known::decode(name, input)`, checked against each layout stored under `name`: the layouts
/// accept disjoint inputs, and `Known` decodes exactly what one of them decodes, to the same value.
fn known(name: &'static str, input: &[u8]) -> Outcome {
    fn alone<T: DecodeOwned>(input: &[u8]) -> Option<Vec<u8>> {
        T::decode(input).ok().map(|v| encode(&v))
    }
    let layouts: Vec<(&str, Option<Vec<u8>>)> = match name {
        "b2nd" => vec![
            ("b2nd_v1", alone::<B2ndV1>(input)),
            ("b2nd_v0", alone::<B2ndV0>(input)),
            ("caterva_v0", alone::<CatervaV0>(input)),
        ],
        "caterva" => vec![("caterva_v0", alone::<CatervaV0>(input))],
        other => panic!("no layouts under {other:?}"),
    };
    let decoded: Vec<(&str, &Vec<u8>)> = layouts
        .iter()
        .filter_map(|(schema, bytes)| bytes.as_ref().map(|b| (*schema, b)))
        .collect();
    assert!(decoded.len() <= 1, "several layouts decode the same bytes: {decoded:?}");
    match Known::decode(name, input) {
        Ok(k) => {
            let [(schema, bytes)] = decoded[..] else {
                panic!("Known decoded as {}, which alone refuses the bytes", k.schema())
            };
            assert_eq!(
                k.schema(),
                schema,
                "Known picked another layout than the one that decodes"
            );
            assert_eq!(k.metalayer(), name);
            let mut buf = vec![0; k.encoded_len()];
            let n = k
                .encode_into(&mut buf)
                .unwrap_or_else(|e| panic!("Known decoded, but does not encode: {e}"));
            buf.truncate(n);
            assert_eq!(&buf, bytes, "Known and {schema} encode differently");
            Outcome::Decoded {
                encoded: buf,
                used: input.len(),
            }
        }
        Err(e) => {
            if let [(schema, _)] = decoded[..] {
                panic!("Known refuses bytes that {schema} decodes: {e}");
            }
            Outcome::NotDispatched(name, e)
        }
    }
}

/// The run-time engine, `metalayer::value`, with the layout of `schema`: the second
/// implementation of the schema language. It decodes to JSON; when the generated decoder `T`
/// decodes the same bytes, the JSON is its value (`to_json`, written from the schema); then the
/// JSON encodes back with the engine's encoder. Its errors are compared with the generated
/// decoders' of the same group, so the two must refuse the same inputs with the same offset,
/// entry path and message.
fn engine<T: DecodeOwned>(schema: &str, input: &[u8], to_json: fn(&T) -> serde_json::Value) -> Outcome {
    let layout = engine_layout(schema);
    match metalayer::value::to_json_value(layout, input) {
        Ok(json) => {
            if let Ok(generated) = T::decode(input) {
                assert_eq!(
                    json,
                    to_json(&generated),
                    "{schema}: the engine and the generated decoder read other values"
                );
            }
            let encoded = metalayer::value::encode(layout, &json)
                .unwrap_or_else(|e| panic!("{schema}: the engine decoded {json}, which does not encode: {e}"));
            Outcome::Decoded {
                encoded,
                used: input.len(),
            }
        }
        Err(metalayer::value::DecodeFailure::Wire(e)) => Outcome::Refused(e),
        Err(other) => panic!("{schema}: the engine refuses with no generated counterpart: {other}"),
    }
}

/// The layout of a built-in schema, or of one in `tests/schemas`.
fn engine_layout(schema: &str) -> &'static metalayer_layout::Layout {
    static SENSOR: std::sync::OnceLock<metalayer_layout::Layout> = std::sync::OnceLock::new();
    static MIXED: std::sync::OnceLock<metalayer_layout::Layout> = std::sync::OnceLock::new();
    match schema {
        "mixed_v1" => MIXED.get_or_init(|| {
            metalayer_layout::parse("mixed_v1", include_str!("schemas/mixed_v1.toml"))
                .unwrap_or_else(|e| panic!("mixed_v1: {e}"))
        }),
        "sensor_v0" => SENSOR.get_or_init(|| {
            metalayer_layout::parse("sensor_v0", include_str!("schemas/sensor_v0.toml"))
                .unwrap_or_else(|e| panic!("sensor_v0: {e}"))
        }),
        builtin => metalayer::report::builtin(builtin).unwrap_or_else(|| panic!("no built-in {builtin}")),
    }
}

/// The values of the ready-made types as the schemas' JSON: constants (version 0, magic -5)
/// and counts (ndim, n) beside the fields.
fn b2nd_v1_json(v: &B2ndV1) -> serde_json::Value {
    serde_json::json!({
        "version": 0, "ndim": v.shape.len(), "shape": v.shape, "chunkshape": v.chunkshape,
        "blockshape": v.blockshape, "dtype_format": v.dtype_format, "dtype": v.dtype,
    })
}

fn b2nd_v0_json(v: &B2ndV0) -> serde_json::Value {
    serde_json::json!({
        "version": 0, "ndim": v.shape.len(), "shape": v.shape, "chunkshape": v.chunkshape,
        "blockshape": v.blockshape, "dtype": v.dtype,
    })
}

fn caterva_v0_json(v: &CatervaV0) -> serde_json::Value {
    serde_json::json!({
        "version": 0, "ndim": v.shape.len(), "shape": v.shape, "chunkshape": v.chunkshape,
        "blockshape": v.blockshape,
    })
}

fn sensor_v0_json(v: &SensorOwned) -> serde_json::Value {
    serde_json::json!({
        "magic": -5, "kind": v.kind, "n": v.readings.len(), "readings": v.readings, "flags": v.flags,
        "label": v.label, "note": &*v.note, "offset": v.offset, "big": v.big, "temp": v.temp,
    })
}

fn mixed_v1_json(v: &MixedOwned) -> serde_json::Value {
    let mut json = serde_json::json!({
        "version": 0, "ndim": v.shape.len(), "shape": v.shape, "corners": v.corners,
        "digest": hex(&v.digest), "created": metalayer::value::timestamp_text(v.created),
    });
    if let (Some(format), Some(dtype)) = (v.dtype_format, &v.dtype) {
        json["dtype_format"] = format.into();
        json["dtype"] = dtype.as_str().into();
    }
    json
}

/// The engine as a flavour, in group 1 with the generated decoders that read whole inputs.
macro_rules! engine_flavour {
    ($schema:literal, $ty:ty, $to_json:ident) => {
        Flavour {
            name: concat!("the run-time engine (", $schema, ")"),
            decode: |input: &[u8]| engine::<$ty>($schema, input, $to_json),
            complete: true,
            group: 1,
            prefix: false,
        }
    };
}

/// The entries of a schema, in order.
fn entries(schema: &str) -> &'static [&'static str] {
    match schema {
        "b2nd_v1" => &[
            "version",
            "ndim",
            "shape",
            "chunkshape",
            "blockshape",
            "dtype_format",
            "dtype",
        ],
        "b2nd_v0" => &["version", "ndim", "shape", "chunkshape", "blockshape", "dtype"],
        "caterva_v0" => &["version", "ndim", "shape", "chunkshape", "blockshape"],
        "sensor_v0" => &[
            "magic", "kind", "n", "readings", "flags", "label", "note", "offset", "big", "temp",
        ],
        "mixed_v1" => &[
            "version",
            "ndim",
            "shape",
            "corners",
            "digest",
            "created",
            "dtype_format",
            "dtype",
        ],
        other => panic!("unknown schema {other}"),
    }
}

/// Whether a decoding error agrees with the input it was made from. `whole`: the decoder had to
/// read all of the input (trailing bytes are an error).
fn check_decode_error(e: &DecodeError, input: &[u8], whole: bool) -> Result<(), String> {
    let at = e.offset();
    let len = input.len();
    if at > len {
        return Err(format!("offset {at} lies past the input's end ({len})"));
    }
    let byte = input.get(at).copied();
    let header = |count: usize| Some(0x90u8.wrapping_add(count as u8));
    let agrees = match e.kind().clone() {
        DecodeErrorKind::Marker { expected, found, .. } => byte == Some(found) && found != expected,
        DecodeErrorKind::ArrayHeader {
            count, expected, found, ..
        } => byte == Some(found) && Some(expected) == header(count) && (found != expected || count > 0x6f),
        DecodeErrorKind::NotFixint { found } => byte == Some(found) && found > 0x7f,
        DecodeErrorKind::Truncated { needed, available } => at + available == len && needed > available,
        DecodeErrorKind::Constant { expected, found } => at < len && expected != found,
        DecodeErrorKind::OutOfRange { min, max, found } => {
            at < len && (found.get() < min.get() || found.get() > max.get())
        }
        DecodeErrorKind::InvalidUtf8 { valid_up_to } => {
            // The string's bytes up to the offset are UTF-8; with the byte there they are not.
            at < len
                && valid_up_to <= at
                && std::str::from_utf8(&input[at - valid_up_to..at]).is_ok()
                && std::str::from_utf8(&input[at - valid_up_to..=at]).is_err()
        }
        DecodeErrorKind::Capacity { capacity, found } => byte == header(found) && found > capacity,
        DecodeErrorKind::StrCapacity { capacity, found } => matches!(byte, Some(0xd9..=0xdb)) && found > capacity,
        DecodeErrorKind::FixedLength { expected, found } => byte == header(found) && found != expected,
        DecodeErrorKind::TrailingBytes { count } => whole && count > 0 && at + count == len,
        // Canonical encodings, and what language 3 adds (mixed_v1).
        DecodeErrorKind::Family { expected, found } => {
            byte == Some(found) && Wire::of_marker(found).map(Wire::family) != Some(expected)
        }
        DecodeErrorKind::NotSmallest { expected, found } => {
            byte.and_then(Wire::of_marker) == Some(found) && found != expected
        }
        DecodeErrorKind::Count { expected, found, .. } => at < len && expected != found,
        DecodeErrorKind::Entries { min, max, found } => at < len && (found < min as u64 || found > max as u64),
        DecodeErrorKind::Together { found, .. } => at < len && found > 0,
        DecodeErrorKind::Length { expected, found } => {
            matches!(
                byte.and_then(Wire::of_marker).map(Wire::family),
                Some(Family::Bin | Family::Str)
            ) && expected != found
        }
        DecodeErrorKind::FixedBytes { expected, found } => at < len && expected != found,
        DecodeErrorKind::ExtType { expected, found } => {
            matches!(byte.and_then(Wire::of_marker).map(Wire::family), Some(Family::Ext)) && expected != found
        }
        DecodeErrorKind::TimestampLength { .. } => {
            matches!(byte.and_then(Wire::of_marker).map(Wire::family), Some(Family::Ext))
        }
        DecodeErrorKind::Nanoseconds { found } => at < len && found > metalayer::__private::NANOS_MAX,
        other => return Err(format!("an error kind this test does not know: {other:?}")),
    };
    if !agrees {
        return Err("the error does not agree with the bytes".to_owned());
    }
    let trailing = matches!(e.kind(), DecodeErrorKind::TrailingBytes { .. });
    if trailing != (*e.path() == Path::END) {
        return Err(format!("path {:?} for {:?}", e.path(), e.kind()));
    }
    if let Some(entry) = e.path().entry_name()
        && !entries(e.schema()).contains(&entry)
    {
        return Err(format!("entry {entry} is not in {}", e.schema()));
    }
    let text = e.to_string();
    if !text.starts_with(&format!("{}: at byte {at:#04x} ", e.schema())) {
        return Err(format!("the text does not start with the schema and offset: {text}"));
    }
    Ok(())
}

/// Whether `Known`'s error agrees with the input.
fn check_dispatch_error(e: &DispatchError, name: &str, input: &[u8]) -> Result<(), String> {
    match e {
        DispatchError::Decode(inner) => {
            if !Known::CANDIDATES
                .iter()
                .any(|c| c.metalayer == name && c.schema == inner.schema())
            {
                return Err(format!("{} is not stored under {name}", inner.schema()));
            }
            check_decode_error(inner, input, true)?;
            if e.to_string() != inner.to_string() {
                return Err("the text is not the decoder's".to_owned());
            }
            Ok(())
        }
        DispatchError::NoLayoutFits {
            metalayer,
            offset,
            step,
            found,
            candidates,
        } => {
            let offset = *offset;
            if *metalayer != name || *found != input.get(offset).copied() || found.is_none() {
                return Err("name or found byte disagree with the input".to_owned());
            }
            // The layouts that fit the input up to the offset all refuse the byte there, at the
            // step the error names.
            let named = candidates.iter().filter(|c| c.metalayer == name);
            let fitting: Vec<_> = named.clone().filter(|c| c.accepts(&input[..offset])).collect();
            if fitting.is_empty() || named.clone().any(|c| c.accepts(&input[..=offset])) {
                return Err(format!("a layout fits the input at byte {offset:#04x}"));
            }
            if fitting
                .iter()
                .any(|c| c.fit(input) != Fit::Refused { offset, step: *step })
            {
                return Err(format!(
                    "a layout refuses byte {offset:#04x} at another step than {step}"
                ));
            }
            let text = e.to_string();
            if !text.starts_with(&format!("no {name} layout fits: at byte {offset:#04x} ")) {
                return Err(format!("text {text}"));
            }
            Ok(())
        }
        other => Err(format!("unexpected dispatch error {other:?}")),
    }
}

/// One golden vector of a schema.
struct Vector {
    label: String,
    bytes: Vec<u8>,
    /// Offsets where flipping the lowest bit keeps the bytes valid (payload bytes).
    payload_at: Vec<usize>,
}

impl Vector {
    fn new(label: impl Into<String>, bytes: Vec<u8>) -> Self {
        // The last byte (of the dtype, of blockshape's last element, of sensor_v0's temp) and,
        // in b2nd and caterva layouts with dimensions, the last byte of shape[0] (0x04..0x0d).
        let mut payload_at = vec![bytes.len() - 1];
        if matches!(bytes[..], [0x95..=0x97, 0x00, 1..=16, ..]) {
            payload_at.push(12);
        }
        Vector {
            label: label.into(),
            bytes,
            payload_at,
        }
    }
}

fn fixture_path(rel: &str) -> std::path::PathBuf {
    FsPath::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/files")
        .join(rel)
}

/// The content of metalayer `name` in a fixture file, read with the frame reader.
fn fixture_metalayer(rel: &str, name: &str) -> Vector {
    let metalayers = frame::read_metalayers(fixture_path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let m = metalayers
        .into_iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("{rel}: no {name} metalayer"));
    Vector::new(rel, m.content)
}

/// Runs every flavour over every mutation of every vector, checks each outcome, prints the
/// counts and checks that the mutations were both accepted and refused.
fn run_vectors(vectors: &[Vector], flavours: &[Flavour]) {
    for vector in vectors {
        let original = &vector.bytes;
        let mut tallies = vec![Tally::default(); flavours.len()];
        // How many payload bytes with their lowest bit flipped decode; whether a changed container
        // marker decodes.
        let mut payload_ok = vec![0; flavours.len()];
        let mut container_ok = vec![false; flavours.len()];

        let mut check = |mutation: Option<Mutation>, input: &[u8]| {
            let what = match mutation {
                Some(m) => m.to_string(),
                None => "unmutated".to_owned(),
            };
            let context = || format!("{}: {what}: input {}", vector.label, hex(input));
            let mut group_results: Vec<(u8, &str, Outcome)> = Vec::new();
            for (i, flavour) in flavours.iter().enumerate() {
                let outcome = catch_unwind(AssertUnwindSafe(|| (flavour.decode)(input))).unwrap_or_else(|payload| {
                    panic!("{}: {} panicked: {}", context(), flavour.name, panic_text(&*payload))
                });
                let whole = !flavour.prefix;
                match &outcome {
                    Outcome::Decoded { encoded, used } => {
                        assert!(*used <= input.len() && (!whole || *used == input.len()));
                        assert!(
                            encoded[..] == input[..*used],
                            "{}: {} decoded {used} bytes, which encode back as {}",
                            context(),
                            flavour.name,
                            hex(encoded)
                        );
                    }
                    Outcome::Refused(e) => {
                        if let Err(problem) = check_decode_error(e, input, whole) {
                            panic!("{}: {}: {problem}: {e} ({e:?})", context(), flavour.name);
                        }
                    }
                    Outcome::NotDispatched(name, e) => {
                        if let Err(problem) = check_dispatch_error(e, name, input) {
                            panic!("{}: {}: {problem}: {e} ({e:?})", context(), flavour.name);
                        }
                    }
                }
                match mutation {
                    None => assert!(
                        !flavour.complete || outcome.is_ok(),
                        "{}: {} refuses a golden vector",
                        context(),
                        flavour.name
                    ),
                    Some(m) => {
                        tallies[i].add(m, outcome.is_ok());
                        if let Mutation::Substitute(at, value) = m {
                            if vector.payload_at.contains(&at) && value == original[at] ^ 1 && outcome.is_ok() {
                                payload_ok[i] += 1;
                            }
                            if at == 0 && outcome.is_ok() {
                                container_ok[i] = true;
                            }
                        }
                        if let Mutation::Truncate(_) = m {
                            assert!(!outcome.is_ok(), "{}: {} accepts a truncation", context(), flavour.name);
                        }
                    }
                }
                if flavour.group != 0 {
                    group_results.push((flavour.group, flavour.name, outcome));
                }
            }
            for (i, (group, name, outcome)) in group_results.iter().enumerate() {
                for (other_group, other_name, other) in &group_results[..i] {
                    if group != other_group {
                        continue;
                    }
                    let same = match (outcome, other) {
                        (Outcome::Decoded { .. }, Outcome::Decoded { .. }) => true,
                        (Outcome::Refused(a), Outcome::Refused(b)) => a == b,
                        _ => false,
                    };
                    assert!(
                        same,
                        "{}: {name} and {other_name} disagree:\n  {name}: {}\n  {other_name}: {}",
                        context(),
                        outcome.text(),
                        other.text()
                    );
                }
            }
        };

        check(None, original);
        for_each_mutation(original, |m, input| check(Some(m), input));

        let len = original.len();
        eprintln!("{} ({len} bytes, {} mutations each):", vector.label, tallies[0].total());
        for (flavour, tally) in flavours.iter().zip(&tallies) {
            eprintln!("  {:<42} {tally}", flavour.name);
        }
        for (i, flavour) in flavours.iter().enumerate() {
            let t = &tallies[i];
            assert_eq!(t.total(), len + 255 * len + 256 * (len + 1) + len);
            assert!(
                !container_ok[i],
                "{}: {} accepts another container marker",
                vector.label, flavour.name
            );
            if flavour.complete {
                assert!(
                    t.err[1] > 0 && t.err[2] > 0 && t.err[3] > 0,
                    "{}: {}: {t}",
                    vector.label,
                    flavour.name
                );
                if !vector.payload_at.is_empty() {
                    assert!(t.ok[1] > 0, "{}: {}: {t}", vector.label, flavour.name);
                }
                assert_eq!(
                    payload_ok[i],
                    vector.payload_at.len(),
                    "{}: {} refuses a change of a payload byte at {:02x?}",
                    vector.label,
                    flavour.name,
                    vector.payload_at
                );
            }
        }
    }
}

/// The decoders of b2nd_v1 in every flavour.
fn b2nd_v1_flavours() -> [Flavour; 7] {
    [
        engine_flavour!("b2nd_v1", B2ndV1, b2nd_v1_json),
        Flavour {
            name: "B2ndV1 (Vec, String)",
            decode: whole!(B2ndV1, encode),
            complete: true,
            group: 1,
            prefix: false,
        },
        Flavour {
            name: "B2ndV1 decode_prefix",
            decode: prefix!(B2ndV1),
            complete: true,
            group: 0,
            prefix: true,
        },
        Flavour {
            name: "ArrayVec<_, 16>, &str (encode_into)",
            decode: whole!(V1Borrowed, encode_into),
            complete: true,
            group: 1,
            prefix: false,
        },
        Flavour {
            name: "Vec, Box<str>",
            decode: whole!(V1Boxed, encode),
            complete: true,
            group: 1,
            prefix: false,
        },
        Flavour {
            name: "[i64; 3], ArrayVec<i32, 3>, ArrayString<8>",
            decode: whole!(V1Fixed, encode_into),
            complete: false,
            group: 0,
            prefix: false,
        },
        Flavour {
            name: "Known (b2nd)",
            decode: |input: &[u8]| known("b2nd", input),
            complete: true,
            group: 0,
            prefix: false,
        },
    ]
}

#[test]
fn b2nd_v1_vectors_ndim_0_and_16_under_every_mutation() {
    let mut vectors = vec![
        fixture_metalayer("blosc2-4/ndim00.b2nd", "b2nd"),
        fixture_metalayer("blosc2-4/ndim16_meta.b2nd", "b2nd"),
    ];
    assert_eq!(vectors[0].bytes[2], 0, "ndim 0");
    assert_eq!(vectors[1].bytes[2], 16, "ndim 16");
    assert_eq!(vectors[1].bytes[3], 0xa0, "c-blosc2's array header for 16 elements");
    // From the format document: ndim 1, shape [-1], chunkshape [7], blockshape [0x01020304],
    // dtype_format 1 and an empty dtype, whose last byte is a length, not a payload.
    #[rustfmt::skip]
    let mut empty_dtype = Vector::new("hand-derived ndim 1, empty dtype", vec![
        0x97, 0x00, 0x01,
        0x91, 0xd3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0x91, 0xd2, 0x00, 0x00, 0x00, 0x07,
        0x91, 0xd2, 0x01, 0x02, 0x03, 0x04,
        0x01,
        0xdb, 0x00, 0x00, 0x00, 0x00,
    ]);
    empty_dtype.payload_at = vec![12];
    vectors.push(empty_dtype);
    run_vectors(&vectors, &b2nd_v1_flavours());
}

#[test]
fn b2nd_v1_vectors_mid_ndims_and_long_dtypes_under_every_mutation() {
    let vectors = [
        fixture_metalayer("blosc2-2/ndim01.b2nd", "b2nd"),
        fixture_metalayer("blosc2-4/zero_len_3d.b2nd", "b2nd"),
        fixture_metalayer("blosc2-4/ndim08.b2nd", "b2nd"),
        fixture_metalayer("blosc2-4/big_2pow53p1.b2nd", "b2nd"),
        // The longest dtype of the fixtures (83 bytes), and a 4-byte one.
        fixture_metalayer("blosc2-4/dtype_struct_padded.b2nd", "b2nd"),
        fixture_metalayer("blosc2-2/dtype_c16le.b2nd", "b2nd"),
    ];
    assert_eq!(vectors[1].bytes[2], 3, "ndim 3");
    assert_eq!(vectors[4].bytes.len(), 12 + 19 * 2 + 83);
    run_vectors(&vectors, &b2nd_v1_flavours());
}

/// A b2nd_v0 or caterva_v0 encoding written out byte by byte: shape `1000 + i`, chunkshape and
/// blockshape `1 + i`, then the dtype as a str32 when there is one.
fn hand_built(container: u8, ndim: usize, dtype: Option<&str>) -> Vec<u8> {
    let mut bytes = vec![container, 0x00, ndim as u8, 0x90 + ndim as u8];
    for i in 0..ndim {
        bytes.push(0xd3);
        bytes.extend_from_slice(&(1000 + i as i64).to_be_bytes());
    }
    for _ in 0..2 {
        bytes.push(0x90 + ndim as u8);
        for i in 0..ndim {
            bytes.push(0xd2);
            bytes.extend_from_slice(&(1 + i as i32).to_be_bytes());
        }
    }
    if let Some(dtype) = dtype {
        bytes.push(0xdb);
        bytes.extend_from_slice(&(dtype.len() as u32).to_be_bytes());
        bytes.extend_from_slice(dtype.as_bytes());
    }
    bytes
}

#[test]
fn b2nd_v0_vectors_under_every_mutation() {
    let vectors = [
        // c-blosc2's bytes at commit 1e65a17e (see tests/golden.rs).
        Vector::new(
            "c-blosc2 1e65a17e",
            unhex(
                "96000292d30000000000000190d3000000000000000392d20000006ed20000000392d200000039d200000003db0000000575696e7438",
            ),
        ),
        Vector::new("hand-built ndim 0, float64", hand_built(0x96, 0, Some("float64"))),
        Vector::new("hand-built ndim 8, int16", hand_built(0x96, 8, Some("int16"))),
    ];
    assert_eq!(vectors[1].bytes.len(), 6 + 5 + 7);
    assert_eq!(vectors[2].bytes.len(), 6 + 19 * 8 + 5 + 5);

    let flavours = [
        engine_flavour!("b2nd_v0", B2ndV0, b2nd_v0_json),
        Flavour {
            name: "B2ndV0 (Vec, String)",
            decode: whole!(B2ndV0, encode),
            complete: true,
            group: 1,
            prefix: false,
        },
        Flavour {
            name: "B2ndV0 decode_prefix",
            decode: prefix!(B2ndV0),
            complete: true,
            group: 0,
            prefix: true,
        },
        Flavour {
            name: "ArrayVec<_, 8>, &str (encode_into)",
            decode: whole!(V0Borrowed, encode_into),
            complete: true,
            group: 1,
            prefix: false,
        },
        Flavour {
            name: "[i64; 2], ArrayVec<i32, 2>, ArrayString<5>",
            decode: whole!(V0Fixed, encode_into),
            complete: false,
            group: 0,
            prefix: false,
        },
        Flavour {
            name: "Known (b2nd)",
            decode: |input: &[u8]| known("b2nd", input),
            complete: true,
            group: 0,
            prefix: false,
        },
    ];
    run_vectors(&vectors, &flavours);
}

#[test]
fn caterva_v0_vectors_under_every_mutation() {
    // ndim 0 has no payload: every byte is a marker, a constant or a count.
    let mut ndim0 = Vector::new("hand-built ndim 0", hand_built(0x95, 0, None));
    ndim0.payload_at.clear();
    let vectors = [
        ndim0,
        fixture_metalayer("caterva-0.7/ndim1.cat", "caterva"),
        fixture_metalayer("caterva-0.7/zero_len_3d.cat", "caterva"),
        fixture_metalayer("caterva-0.7/ndim8.cat", "caterva"),
        fixture_metalayer("caterva-0.7/big_2pow53p1.cat", "caterva"),
        // c-blosc2's bytes at commit b6e2e566 (see tests/golden.rs).
        Vector::new(
            "c-blosc2 b6e2e566",
            unhex("95000292d30000000000000190d3000000000000000392d20000006ed20000000392d200000039d200000003"),
        ),
    ];
    assert_eq!(vectors[0].bytes, [0x95, 0x00, 0x00, 0x90, 0x90, 0x90]);
    assert_eq!(vectors[3].bytes[2], 8, "ndim 8");

    let flavours = [
        engine_flavour!("caterva_v0", CatervaV0, caterva_v0_json),
        Flavour {
            name: "CatervaV0 (Vec)",
            decode: whole!(CatervaV0, encode),
            complete: true,
            group: 1,
            prefix: false,
        },
        Flavour {
            name: "CatervaV0 decode_prefix",
            decode: prefix!(CatervaV0),
            complete: true,
            group: 0,
            prefix: true,
        },
        Flavour {
            name: "ArrayVec<_, 8> (encode_into)",
            decode: whole!(CatervaBorrowed, encode_into),
            complete: true,
            group: 1,
            prefix: false,
        },
        Flavour {
            name: "[i64; 1], ArrayVec<i32, 1>, [i32; 1]",
            decode: whole!(CatervaFixed, encode_into),
            complete: false,
            group: 0,
            prefix: false,
        },
        Flavour {
            name: "Known (caterva)",
            decode: |input: &[u8]| known("caterva", input),
            complete: true,
            group: 0,
            prefix: false,
        },
        Flavour {
            name: "Known (b2nd)",
            decode: |input: &[u8]| known("b2nd", input),
            complete: true,
            group: 0,
            prefix: false,
        },
    ];
    run_vectors(&vectors, &flavours);
}

#[test]
fn sensor_v0_vector_under_every_mutation() {
    // The hand-derived bytes of tests/custom_schema.rs.
    #[rustfmt::skip]
    let sensor = vec![
        0x9a,                                   // fixarray of 10
        0xd0, 0xfb,                             // magic: int8 -5
        0xcd, 0x01, 0x2c,                       // kind: uint16 300
        0xcc, 0x02,                             // n: uint8 2
        0x92, 0xce, 0x00, 0x00, 0x00, 0x01,     // readings: [1,
              0xce, 0xff, 0xff, 0xff, 0xff,     //            4294967295]
        0x92, 0x7f, 0x00,                       // flags: [127, 0] as fixints
        0xd9, 0x02, b'o', b'k',                 // label: str8 "ok"
        0xda, 0x00, 0x03, b'a', b'b', b'c',     // note: str16 "abc"
        0xd1, 0x80, 0x00,                       // offset: int16 -32768
        0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, // big: uint64 max
        0xd2, 0x7f, 0xff, 0xff, 0xff,           // temp: int32 max
    ];
    let vectors = [Vector::new("hand-derived sensor_v0", sensor)];
    let flavours = [
        engine_flavour!("sensor_v0", SensorOwned, sensor_v0_json),
        Flavour {
            name: "Vec, String, Box<str>",
            decode: whole!(SensorOwned, encode),
            complete: true,
            group: 1,
            prefix: false,
        },
        Flavour {
            name: "decode_prefix",
            decode: prefix!(SensorOwned),
            complete: true,
            group: 0,
            prefix: true,
        },
        Flavour {
            name: "ArrayVec<_, 4>, &str (encode_into)",
            decode: whole!(SensorBorrowed, encode_into),
            complete: true,
            group: 1,
            prefix: false,
        },
        Flavour {
            name: "ArrayVec<u32, 2>, [u8; 2], ArrayString",
            decode: whole!(SensorFixed, encode_into),
            complete: false,
            group: 0,
            prefix: false,
        },
    ];
    run_vectors(&vectors, &flavours);
}

#[test]
fn mixed_v1_vector_under_every_mutation() {
    // python msgpack's bytes for every addition of language 3 (tests/fixtures/language3.json):
    // the engine and generated code of two field-type flavours agree on every mutation.
    let fixture: serde_json::Value =
        serde_json::from_str(include_str!("fixtures/language3.json")).expect("language3.json");
    let mixed = fixture["vectors"]
        .as_array()
        .expect("vectors")
        .iter()
        .find(|v| v["name"] == "mixed")
        .and_then(|v| v["hex"].as_str())
        .map(unhex)
        .expect("the mixed vector");
    let vectors = [Vector::new("python's mixed_v1", mixed)];
    let flavours = [
        engine_flavour!("mixed_v1", MixedOwned, mixed_v1_json),
        Flavour {
            name: "Vec, [u8; 4], String",
            decode: whole!(MixedOwned, encode),
            complete: true,
            group: 1,
            prefix: false,
        },
        Flavour {
            name: "ArrayVec, &[u8], &str (encode_into)",
            decode: whole!(MixedBorrowed, encode_into),
            complete: true,
            group: 1,
            prefix: false,
        },
    ];
    run_vectors(&vectors, &flavours);
}

// ---------------------------------------------------------------------------------------------
// The frame reader
// ---------------------------------------------------------------------------------------------

fn be_u16(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn be_i32(bytes: &[u8], at: usize) -> Option<i32> {
    Some(i32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn be_u64(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_be_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

const MAGIC: &[u8; 10] = b"\x9e\xa8b2frame\0";

/// Whether parsed metalayers are the header's own: the map's names in order, each offset
/// pointing at a `0xc6` in the content section whose length is the content's, the content being
/// the header's bytes there.
fn check_metalayers(bytes: &[u8], header_len: usize, metalayers: &[FrameMetalayer]) -> Result<(), String> {
    let header = bytes
        .get(..header_len)
        .ok_or("parsed, but header_len exceeds the input")?;
    let count = be_u16(header, 92).ok_or("no count")?;
    if usize::from(count) != metalayers.len() || metalayers.len() > MAX_METALAYERS {
        return Err(format!("the map holds {count}, parsed {}", metalayers.len()));
    }
    if header[87] != 0x93 || header[88] != 0xcd || header[91] != 0xde {
        return Err("parsed, but a fixed marker differs".to_owned());
    }
    let mut pos = 94;
    for m in metalayers {
        let marker = *header.get(pos).ok_or("map past the header")?;
        let name_len = usize::from(marker.wrapping_sub(0xa0));
        if name_len > 0x1f || header.get(pos + 1..pos + 1 + name_len) != Some(m.name.as_bytes()) {
            return Err(format!("name {:?} is not the map's at {pos:#04x}", m.name));
        }
        pos += 1 + name_len;
        if header.get(pos) != Some(&0xd2) {
            return Err(format!("no offset marker at {pos:#04x}"));
        }
        let stored = be_i32(header, pos + 1).ok_or("offset past the header")?;
        if i64::from(stored) + 5 != m.offset as i64 {
            return Err(format!("{:?}: offset {} but the map says {stored}", m.name, m.offset));
        }
        pos += 5;
    }
    if header.get(pos) != Some(&0xdc) || be_u16(header, pos + 1) != Some(count) {
        return Err(format!("no content array of {count} at {pos:#04x}"));
    }
    let contents_start = pos + 3;
    for m in metalayers {
        let start = usize::try_from(m.offset).map_err(|e| e.to_string())?;
        let at = start - 5;
        let len = m.content.len();
        if at < contents_start
            || header[at] != 0xc6
            || be_i32(header, at + 1).map(i64::from) != Some(len as i64)
            || header.get(start..start + len) != Some(&m.content[..])
        {
            return Err(format!("{:?}: content at {start:#04x} is not the header's", m.name));
        }
    }
    Ok(())
}

/// Whether a frame error agrees with the bytes `parse_header` was given.
fn check_frame_error(bytes: &[u8], e: &FrameError) -> Result<(), String> {
    let len = bytes.len();
    let stored_header_len = be_i32(bytes, 11);
    let header_len_is = |h: u64| stored_header_len.and_then(|v| u64::try_from(v).ok()) == Some(h);
    let i32_at = |at: usize, v: i64| be_i32(bytes, at).map(i64::from) == Some(v);
    let place = e.place().ok_or("parse_header errors have a place")?;
    if place.section != Section::Header {
        return Err(format!("parse_header reads the header only, not the {}", place.section));
    }
    let at = usize::try_from(place.offset).map_err(|e| e.to_string())?;
    let agrees = match e.kind() {
        FrameErrorKind::Truncated { len: l } => *l == len as u64 && at == 0 && len < 10,
        FrameErrorKind::BadMagic { found } => {
            let n = len.min(10);
            bytes.get(..n) == found.get(..n) && bytes.get(..n) != MAGIC.get(..n) && at == 0
        }
        FrameErrorKind::HeaderLenTooLarge { header_len } => {
            header_len_is(*header_len) && *header_len > MAX_HEADER_LEN as u64 && at == 11
        }
        FrameErrorKind::FrameLenTooSmall { frame_len, header_len } => {
            header_len_is(*header_len) && be_u64(bytes, 16) == Some(*frame_len) && frame_len < header_len && at == 16
        }
        FrameErrorKind::PastInput {
            len: l,
            input_len,
            file,
        } => header_len_is(*l) && *input_len == len as u64 && len < *l as usize && !file && at == 11,
        FrameErrorKind::Decode { error, end } => {
            let marker_agrees = match error.kind() {
                metalayer::DecodeErrorKind::Marker { found, .. } => bytes.get(error.offset()) == Some(found),
                _ => true,
            };
            // Within the prefix, before header_len is known; else within header_len.
            let within = match end {
                None => error.offset() <= PREFIX_LEN.min(len),
                Some(end) => header_len_is(*end) && error.offset() as u64 <= *end && *end as usize <= len,
            };
            at == error.offset() && within && marker_agrees
        }
        FrameErrorKind::EntriesEndEarly { end } => header_len_is(*end) && (at as u64) < *end && *end as usize <= len,
        FrameErrorKind::TooManyMetalayers { count } => {
            be_u16(bytes, 92) == Some(*count) && usize::from(*count) > MAX_METALAYERS && at == 92
        }
        FrameErrorKind::ContentOffset { stored, from, miss, .. } => {
            let points = usize::try_from(*stored).ok();
            i32_at(at, i64::from(*stored))
                && *from == 0
                && match *miss {
                    OffsetMiss::Negative => *stored < 0,
                    OffsetMiss::Outside { end } => header_len_is(end) && points.is_some_and(|p| p as u64 >= end),
                    OffsetMiss::BeforeContents { start } => {
                        points.is_some_and(|p| (p as u64) < start) && bytes.get(start as usize - 3) == Some(&0xdc)
                    }
                    OffsetMiss::NotMarker { at: to, found } => {
                        points == Some(to as usize) && bytes.get(to as usize) == Some(&found) && found != 0xc6
                    }
                    OffsetMiss::InsideContent { start } => {
                        points.is_some_and(|p| bytes.get(p) == Some(&0xc6) && (start as usize) < p)
                            && bytes.get(start as usize) == Some(&0xc6)
                    }
                    _ => false,
                }
        }
        FrameErrorKind::ContentPastEnd { len: l, end } => {
            header_len_is(*end)
                && be_i32(bytes, at).map(|v| v as u32) == Some(*l)
                && (at + 4 + *l as usize) as u64 > *end
        }
        FrameErrorKind::CountMismatch { map, array } => {
            be_u16(bytes, at) == Some(*array) && be_u16(bytes, 92) == Some(*map) && map != array
        }
        other => return Err(format!("parse_header cannot return {other:?}")),
    };
    if !agrees {
        return Err("the error does not agree with the bytes".to_owned());
    }
    if e.to_string().is_empty() {
        return Err("empty text".to_owned());
    }
    Ok(())
}

/// `header_len` and `parse_header` on `bytes`: errors agree with the bytes, parsed metalayers
/// are the header's own. Returns whether the header parsed.
fn check_frame(bytes: &[u8]) -> Result<bool, String> {
    let from_prefix = frame::header_len(&bytes[..bytes.len().min(PREFIX_LEN)]);
    let from_all = frame::header_len(bytes);
    let parsed = frame::parse_header(bytes);
    match (&from_prefix, &from_all) {
        (Ok(a), Ok(b)) if a == b => {}
        (Err(a), Err(b)) if a.to_string() == b.to_string() => {}
        _ => {
            return Err(format!(
                "header_len reads more than the prefix: {from_prefix:?} {from_all:?}"
            ));
        }
    }
    match (from_all, parsed) {
        (Err(e), Err(p)) => {
            if e.to_string() != p.to_string() {
                return Err(format!("header_len says {e}, parse_header {p}"));
            }
            check_frame_error(bytes, &e)?;
            Ok(false)
        }
        (Err(e), Ok(_)) => Err(format!("header_len refuses ({e}), parse_header parses")),
        (Ok(h), parsed) => {
            if !(MIN_HEADER_LEN..=MAX_HEADER_LEN).contains(&h)
                || bytes.get(..10) != Some(&MAGIC[..])
                || bytes[10] != 0xd2
                || bytes[15] != 0xcf
                || !header_len_is(bytes, h)
                || be_u64(bytes, 16).is_none_or(|f| f < h as u64)
            {
                return Err(format!("header_len {h} accepted from a bad prefix"));
            }
            match parsed {
                Ok(metalayers) => check_metalayers(bytes, h, &metalayers).map(|()| true),
                Err(e) => check_frame_error(bytes, &e)
                    .map(|()| false)
                    .map_err(|p| format!("{p}: {e} ({e:?})")),
            }
        }
    }
}

fn header_len_is(bytes: &[u8], h: usize) -> bool {
    be_i32(bytes, 11).and_then(|v| usize::try_from(v).ok()) == Some(h)
}

/// Every mutation of the headers of `files` (relative to `tests/fixtures/files`).
fn run_frame_headers(files: &[&str]) {
    for rel in files {
        let file = std::fs::read(fixture_path(rel)).unwrap();
        let h = frame::header_len(&file).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let header = &file[..h];
        assert_eq!(
            frame::parse_header(header).unwrap(),
            frame::read_metalayers(fixture_path(rel)).unwrap()
        );
        assert_eq!(check_frame(header), Ok(true), "{rel}: unmutated");

        let mut tally = Tally::default();
        for_each_mutation(header, |m, bytes| {
            let result = catch_unwind(|| check_frame(bytes))
                .unwrap_or_else(|payload| panic!("{rel}: {m}: the frame reader panicked: {}", panic_text(&*payload)));
            match result {
                Ok(parsed) => tally.add(m, parsed),
                Err(problem) => panic!("{rel}: {m}: {problem}\n input: {}", hex(bytes)),
            }
        });
        eprintln!("{rel} header ({h} bytes): {tally}");
        assert_eq!(tally.ok[0], 0, "{rel}: a truncated header parsed");
        assert!(tally.ok[1] > 0 && tally.err[1] > 0, "{rel}: {tally}");
        assert!(tally.err[2] > 0 && tally.err[3] > 0, "{rel}: {tally}");
    }
}

#[test]
fn frame_headers_of_python_blosc2_4_under_every_mutation() {
    run_frame_headers(&[
        "blosc2-4/meta_user.b2nd",
        "blosc2-4/ndim00.b2nd",
        "blosc2-4/ndim16_meta.b2nd",
    ]);
}

#[test]
fn frame_headers_of_python_blosc2_2_under_every_mutation() {
    run_frame_headers(&[
        "blosc2-2/meta_user.b2nd",
        "blosc2-2/ndim08.b2nd",
        "blosc2-2/dtype_struct_padded.b2nd",
    ]);
}

#[test]
fn frame_headers_of_caterva_under_every_mutation() {
    run_frame_headers(&[
        "caterva-0.7/meta_user.cat",
        "caterva-0.7/ndim1.cat",
        "caterva-0.7/ndim8.cat",
    ]);
}
