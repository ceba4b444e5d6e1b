//! Any layout's values, decoded to JSON and encoded from it, by walking the layout model at run
//! time: the command works with every schema, built-in or read from a file, and no code here
//! names a particular layout's entries.
//!
//! The reads and writes are the runtime's, so errors name the byte offset, the entry path and
//! what was expected and found exactly as generated code does. The JSON form of each value is
//! described in the README ("JSON conventions of the command"), and `encode` after `decode`
//! gives back the same JSON.

mod decode;
mod encode;
pub mod intern;
pub mod json;

pub use decode::decode_all;
pub use encode::encode;

use metalayer_layout::{IntType, Node, Type};

/// The most levels of arrays, maps and records a value is read or written through. Schemas
/// cannot nest types in themselves, so only a schema nested this deep by hand reaches it.
pub const DEPTH_LIMIT: usize = 64;

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
