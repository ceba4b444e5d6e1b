//! JSON packed as plain msgpack, the way python-blosc2 stores its values
//! (`msgpack.packb(value, use_bin_type=True)`): every integer, string, array and map in its
//! smallest encoding, every float as a float64.

#[allow(unused_imports)]
use crate::std_prelude::*;

use metalayer_runtime::Name;
use metalayer_runtime::wire::{Family, Wire, marker};
use serde_json::{Map, Value};

use super::encode::{Op, write_ops};
use super::msgpack::{EXT_COMPLEX, EXT_FRAME, EXT_NDARRAY, EXT_RECORD, EXT_SET};
use super::place::Place;
use super::{DEPTH_LIMIT, EncodeFailure, json};

/// The name errors give as their schema: the value has no layout.
const PLAIN: &str = "msgpack";

/// Packs `value` as plain msgpack, the form `inspect` shows plain msgpack in: integers in their
/// smallest encoding (the numbers serde_json reads as int64 or uint64), other numbers as
/// float64 (so is an integer past uint64, which JSON gives as a float), strings as str,
/// `{"bin": "hex"}` as a binary, `{"ext": type, "data": "hex"}` as an ext, python-blosc2's exts
/// as `inspect` shows them (`{"ext": 45, "value": [1, 2]}`: 43, 45 and 46 hold their value packed
/// as plain msgpack, 44 a complex number `[real, imaginary]`), other objects as maps with string
/// keys.
///
/// ```
/// use metalayer::serde_json::json;
///
/// // python: msgpack.packb({"units": "K", "scale": 300, "ok": [True, None, 0.5]})
/// let bytes = metalayer::value::pack(&json!({"units": "K", "scale": 300, "ok": [true, null, 0.5]}))?;
/// assert_eq!(
///     metalayer::value::json::hex(&bytes),
///     "83a5756e697473a14ba57363616c65cd012ca26f6b93c3c0cb3fe0000000000000"
/// );
/// assert_eq!(metalayer::value::pack(&json!({"bin": "00ff"}))?, [0xc4, 0x02, 0x00, 0xff]);
/// // python-blosc2's set {1, 2}: ext8 (0xc7) of 3 bytes, type 45, holding the array [1, 2].
/// assert_eq!(metalayer::value::pack(&json!({"ext": 45, "value": [1, 2]}))?, [0xc7, 0x03, 0x2d, 0x92, 0x01, 0x02]);
/// // complex(1.5, -2): fixext16 (0xd8), type 44, two big-endian float64.
/// let complex = metalayer::value::pack(&json!({"ext": 44, "value": [1.5, -2]}))?;
/// assert_eq!(metalayer::value::json::hex(&complex), "d82c3ff8000000000000c000000000000000");
///
/// // Another type with a "value" is a map, as inspect shows such a map.
/// assert_eq!(metalayer::value::pack(&json!({"ext": 1, "value": 2}))?[0], 0x82);
///
/// let err = metalayer::value::pack(&json!([1, {"bin": "0g"}])).unwrap_err();
/// assert!(err.to_string().starts_with("msgpack: in [1].bin: expected a hex string"));
/// # Ok::<(), metalayer::value::EncodeFailure>(())
/// ```
pub fn pack(value: &Value) -> Result<Vec<u8>, EncodeFailure> {
    let mut ops = Vec::new();
    pack_into(&mut ops, value, Place::CONTAINER, 0)?;
    write_ops(&ops, PLAIN)
}

/// An error at `path`: its names (the input's keys) are copied only here.
fn fail(path: Place<'_>, message: impl Into<String>) -> EncodeFailure {
    EncodeFailure::Json {
        schema: Name::new(PLAIN),
        path: path.to_path(),
        message: message.into(),
    }
}

/// The header of a str, bin, array or map of `len`, refused past what msgpack can state.
fn header(ops: &mut Vec<Op<'_>>, family: Family, len: usize, path: Place<'_>) -> Result<(), EncodeFailure> {
    if Wire::smallest_len(family, len as u64).is_none() {
        return Err(fail(
            path,
            format!("a {} of {len} is longer than msgpack allows", family.name()),
        ));
    }
    ops.push(Op::AnyHeader(family, len));
    Ok(())
}

fn pack_into<'v>(ops: &mut Vec<Op<'v>>, value: &'v Value, path: Place<'v>, depth: usize) -> Result<(), EncodeFailure> {
    if depth >= DEPTH_LIMIT {
        return Err(fail(path, format!("expected at most {DEPTH_LIMIT} levels of nesting")));
    }
    match value {
        Value::Null => ops.push(Op::Byte(marker::NIL)),
        Value::Bool(b) => ops.push(Op::Byte(if *b { marker::TRUE } else { marker::FALSE })),
        Value::Number(n) => match json::as_int(value) {
            Some(v) if Wire::smallest_int(v).is_some() => ops.push(Op::AnyInt(v)),
            Some(v) => {
                return Err(fail(
                    path,
                    format!("expected an integer within int64 or uint64, found {v}"),
                ));
            }
            None => {
                ops.push(Op::Byte(marker::FLOAT64));
                ops.push(Op::Bytes(n.as_f64().unwrap_or(f64::NAN).to_be_bytes().to_vec()));
            }
        },
        Value::String(s) => {
            header(ops, Family::Str, s.len(), path)?;
            ops.push(Op::Bytes(s.as_bytes().to_vec()));
        }
        Value::Array(items) => {
            header(ops, Family::Array, items.len(), path)?;
            for (i, item) in items.iter().enumerate() {
                pack_into(ops, item, path.index(i), depth + 1)?;
            }
        }
        Value::Object(map) => pack_object(ops, map, path, depth)?,
    }
    Ok(())
}

/// An object: a binary, an ext, or a map.
fn pack_object<'v>(
    ops: &mut Vec<Op<'v>>,
    map: &'v Map<String, Value>,
    path: Place<'v>,
    depth: usize,
) -> Result<(), EncodeFailure> {
    let keys: Vec<&str> = map.keys().map(String::as_str).collect();
    match (keys.as_slice(), map.get("bin"), map.get("ext"), map.get("data")) {
        (["bin"], Some(hex), _, _) => {
            let bytes = hex_of(hex, path.child("bin"))?;
            header(ops, Family::Bin, bytes.len(), path)?;
            ops.push(Op::Bytes(bytes));
        }
        (["ext", "data"] | ["data", "ext"], _, Some(ty), Some(data)) => {
            let ty = ext_type(ty, path)?;
            let bytes = hex_of(data, path.child("data"))?;
            push_ext(ops, ty, bytes, path)?;
        }
        // The forms `inspect` shows python-blosc2's exts in; with another type, a map.
        (["ext", "value"] | ["value", "ext"], _, Some(ty), _) if shown_by_value(ty) => {
            let ty = ext_type(ty, path)?;
            let bytes = ext_payload(ty, &map["value"], path.child("value"), depth)?;
            push_ext(ops, ty, bytes, path)?;
        }
        (["ext", "frame"] | ["frame", "ext"], _, Some(ty), _) if json::as_int(ty) == Some(i128::from(EXT_FRAME)) => {
            return Err(fail(
                path,
                "a frame held in a value is given by its bytes, {\"ext\": 42, \"data\": \"hex\"} \
                 (inspect --hex shows them)",
            ));
        }
        _ => {
            header(ops, Family::Map, map.len(), path)?;
            for (key, item) in map {
                header(ops, Family::Str, key.len(), path)?;
                ops.push(Op::Bytes(key.as_bytes().to_vec()));
                pack_into(ops, item, path.child(key), depth + 1)?;
            }
        }
    }
    Ok(())
}

/// An ext of type `ty` holding `bytes`, refused past what msgpack can state.
fn push_ext(ops: &mut Vec<Op<'_>>, ty: i8, bytes: Vec<u8>, path: Place<'_>) -> Result<(), EncodeFailure> {
    if Wire::smallest_len(Family::Ext, bytes.len() as u64).is_none() {
        return Err(fail(
            path,
            format!("an ext of {} bytes is longer than msgpack allows", bytes.len()),
        ));
    }
    ops.push(Op::AnyExtHeader(ty, bytes.len()));
    ops.push(Op::Bytes(bytes));
    Ok(())
}

/// Whether `"ext"` names one of python-blosc2's exts that `inspect` shows by its value.
fn shown_by_value(ty: &Value) -> bool {
    json::as_int(ty).is_some_and(|t| {
        [EXT_RECORD, EXT_COMPLEX, EXT_SET, EXT_NDARRAY]
            .iter()
            .any(|&e| t == i128::from(e))
    })
}

/// An ext's type byte, from `"ext"`.
fn ext_type(ty: &Value, path: Place<'_>) -> Result<i8, EncodeFailure> {
    json::as_int(ty).and_then(|t| i8::try_from(t).ok()).ok_or_else(|| {
        let found = json::kind(ty);
        fail(
            path.child("ext"),
            format!("expected an ext type in -128..=127, found {found}"),
        )
    })
}

/// The data of a python-blosc2 ext given by what it holds, as `inspect` shows it: for 43 (a
/// record), 45 (a set) and 46 (a NumPy array) their payload packed as plain msgpack, for 44 (a
/// complex number) its two parts as big-endian float64. Other types are given by their bytes.
fn ext_payload(ty: i8, value: &Value, path: Place<'_>, depth: usize) -> Result<Vec<u8>, EncodeFailure> {
    match ty {
        EXT_RECORD | EXT_SET | EXT_NDARRAY => {
            let mut ops = Vec::new();
            pack_into(&mut ops, value, path, depth + 1)?;
            write_ops(&ops, PLAIN)
        }
        EXT_COMPLEX => match value.as_array().map(Vec::as_slice) {
            Some([re, im]) => match (json::as_f64(re), json::as_f64(im)) {
                (Some(re), Some(im)) => Ok([re.to_be_bytes(), im.to_be_bytes()].concat()),
                _ => Err(fail(
                    path,
                    "expected the complex number's two parts as numbers, \"NaN\", \"inf\" or \"-inf\"",
                )),
            },
            _ => Err(fail(
                path,
                format!(
                    "expected a complex number as [real, imaginary], found {}",
                    json::kind(value)
                ),
            )),
        },
        _ => Err(fail(
            path,
            format!("an ext of type {ty} is given by its bytes, {{\"ext\": {ty}, \"data\": \"hex\"}}"),
        )),
    }
}

fn hex_of(value: &Value, path: Place<'_>) -> Result<Vec<u8>, EncodeFailure> {
    match value {
        Value::String(s) => json::parse_hex(s).map_err(|e| fail(path, format!("expected a hex string, {e}"))),
        other => Err(fail(
            path,
            format!("expected a hex string, found {}", json::kind(other)),
        )),
    }
}
