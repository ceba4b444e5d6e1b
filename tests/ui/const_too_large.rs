// Schema self-consistency: a constant that does not fit its wire type (fixint const 200).
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/const_too_large.toml")]
pub struct Meta {
    pub shape: Vec<i64>,
    pub label: String,
}

fn main() {}
