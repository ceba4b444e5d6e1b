// Schema self-consistency: an unknown wire type ("string").
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/unknown_wire.toml")]
pub struct Meta {
    pub shape: Vec<i64>,
    pub label: String,
}

fn main() {}
