// Schema self-consistency: two entries with the same name.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/duplicate_entry.toml")]
pub struct Meta {
    pub shape: Vec<i64>,
    pub label: String,
}

fn main() {}
