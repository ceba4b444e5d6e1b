// Schema self-consistency: an array count that names no entry.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/count_unknown.toml")]
pub struct Meta {
    pub shape: Vec<i64>,
    pub label: String,
}

fn main() {}
