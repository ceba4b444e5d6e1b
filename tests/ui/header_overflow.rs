// Schema self-consistency: an array header 0x90 + count that leaves the fixarray range (count max 16) without allow_header_overflow.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/header_overflow.toml")]
pub struct Meta {
    pub shape: Vec<i64>,
    pub label: String,
}

fn main() {}
