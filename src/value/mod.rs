//! Any layout's values as JSON and text, and JSON encoded to any layout's bytes, by walking the
//! layout model at run time (feature `value`).
//!
//! Generated code knows one layout at compile time; this module reads values of any
//! [`Layout`](metalayer::layout::Layout), built-in or read from a schema file at run time, and
//! plain msgpack values of no layout at all. Nothing here builds a tree of a value: a
//! [`Typed`] or [`Msgpack`] view borrows the bytes and implements [`metalayer::serde::Serialize`], so
//! serde_json (or any serde serializer) writes the value straight from the input bytes to its
//! output. Before a view exists its bytes have been checked whole, so that output never stops
//! half-way through a value.
//!
//! ```
//! use metalayer::value::{Typed, write_json};
//!
//! let layout = metalayer::report::builtin("caterva_v0").unwrap();
//! let bytes = [
//!     0x95, 0x00, 0x01, 0x91, 0xd3, 0, 0, 0, 0, 0, 0, 0, 4,
//!     0x91, 0xd2, 0, 0, 0, 2, 0x91, 0xd2, 0, 0, 0, 1,
//! ];
//! let value = Typed::new(&layout, &bytes)?;
//! let mut out = Vec::new();
//! write_json(&mut out, &value)?;
//! assert_eq!(
//!     String::from_utf8(out)?,
//!     r#"{"version":0,"ndim":1,"shape":[4],"chunkshape":[2],"blockshape":[1]}"#
//! );
//!
//! // The errors are those generated decoders give, with the byte offset and the entry path.
//! let err = Typed::new(&layout, &bytes[..20]).unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "caterva_v0: at byte 0x14 in blockshape[0]: expected 1 more byte, found 0"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # JSON conventions
//!
//! Integers are exact JSON numbers; a float32 is its own shortest decimal (`0.1`, not the
//! float64 it widens to), and NaN and the infinities are the strings `"NaN"`, `"inf"` and
//! `"-inf"`. In a layout's values, byte strings and raw strings are lowercase hex strings, an
//! ext is `{"type": t, "hex": "..."}`, a map whose keys are strings is an object and any other
//! map an array of `[key, value]` pairs, and a timestamp RFC 3339 text in UTC
//! (`"2026-11-25T17:24:48.5Z"`; see [`timestamp_text`]). In plain msgpack, a binary is `{"bin": "hex"}` and an
//! ext `{"ext": t, "data": "hex"}`; python-blosc2's ext types are shown by what they hold
//! instead of their bytes, which [`Msgpack::hex`] adds back (see [`Msgpack`]).
//!
//! # Limits
//!
//! [`Budget`] holds what one input (a file and all it holds, nested frames included) may take:
//! [`DEPTH_LIMIT`] levels, [`VALUE_LIMIT`] msgpack values, [`LIVE_LIMIT`] decompressed bytes
//! held at once and [`WORK_LIMIT`] bytes of work. What passes a limit is shown as its bytes
//! with a note, and is an error of the report.

#[allow(unused_imports)]
use crate::std_prelude::*;

mod budget;
mod discard;
mod encode;
mod format;
pub mod json;
mod msgpack;
mod nested;
mod pack;
mod place;
mod rfc3339;
mod typed;

pub use budget::{Budget, DEPTH_LIMIT, DecompressError, Held, ITEM_WORK, LIVE_LIMIT, Limit, VALUE_LIMIT, WORK_LIMIT};
pub use encode::{EncodeFailure, encode};
pub use format::{Clip, PrettyFormatter, TextFormatter, shown_name, write_json, write_pretty, write_text};
pub use msgpack::{Msgpack, MsgpackError, Style};
pub(crate) use nested::{Nested, Queued};
pub use pack::pack;
pub use rfc3339::{parse_timestamp, timestamp_text};
pub use typed::{DecodeFailure, Field, Typed, to_json_value};

use metalayer_layout::{IntType, Node, Type};

/// An integer type's named values as messages list them: `numpy = 0, other = 1`.
fn named_values(t: &IntType) -> String {
    t.values
        .iter()
        .map(|(name, v)| format!("{name} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether a map's keys have a JSON string as their form (str, raw str, bin), so that the map
/// is a JSON object rather than an array of `[key, value]` pairs.
fn keys_are_text(key: &Node) -> bool {
    matches!(key.ty, Type::Str(_) | Type::Bin(_))
}

#[cfg(test)]
mod tests;
