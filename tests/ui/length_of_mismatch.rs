// Schema self-consistency: length_of that disagrees with count (an array counted by ndim missing from its length_of).
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/length_of_mismatch.toml")]
pub struct Meta {
    pub shape: Vec<i64>,
    pub label: String,
}

fn main() {}
