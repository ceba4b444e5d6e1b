//! The built-in schemas, each with its ready-made type.

use clap::ValueEnum;
use metalayer::b2nd::{B2ndV0, B2ndV1};
use metalayer::caterva::CatervaV0;
use metalayer::{Decode, DecodeError, Entries};
use serde_json::{Map, Value};

use crate::render;

/// A built-in schema, named as in `metalayer_layout::BUILTINS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Schema {
    /// caterva's 5-entry layout.
    #[value(name = "caterva_v0")]
    CatervaV0,
    /// c-blosc2's 6-entry pre-release `b2nd` layout.
    #[value(name = "b2nd_v0")]
    B2ndV0,
    /// c-blosc2's 7-entry `b2nd` layout.
    #[value(name = "b2nd_v1")]
    B2ndV1,
}

impl Schema {
    /// The schema's name (`b2nd_v1`).
    pub fn name(self) -> &'static str {
        match self {
            Schema::CatervaV0 => "caterva_v0",
            Schema::B2ndV0 => "b2nd_v0",
            Schema::B2ndV1 => "b2nd_v1",
        }
    }

    /// Decodes `bytes` strictly with the schema's ready-made type and returns every entry.
    pub fn decode(self, bytes: &[u8]) -> Result<Map<String, Value>, DecodeError> {
        fn entries<T: for<'de> Decode<'de> + Entries>(bytes: &[u8]) -> Result<Map<String, Value>, DecodeError> {
            Ok(render::fields_json(&T::decode(bytes)?))
        }
        match self {
            Schema::CatervaV0 => entries::<CatervaV0>(bytes),
            Schema::B2ndV0 => entries::<B2ndV0>(bytes),
            Schema::B2ndV1 => entries::<B2ndV1>(bytes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_has_a_type() {
        let builtins: Vec<&str> = metalayer_layout::BUILTINS.iter().map(|b| b.name).collect();
        let ours: Vec<&str> = Schema::value_variants().iter().map(|s| s.name()).collect();
        assert_eq!(builtins, ours);
        for s in Schema::value_variants() {
            let possible = s.to_possible_value().map(|p| p.get_name().to_owned());
            assert_eq!(possible.as_deref(), Some(s.name()));
        }
    }
}
