// Schema self-consistency: an array count that names a string entry.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/count_not_integer.toml")]
pub struct Meta {
    pub shape: Vec<i64>,
    pub label: String,
}

fn main() {}
