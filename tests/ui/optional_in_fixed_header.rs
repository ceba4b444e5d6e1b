// Schema: optional entries in a record whose container marker fixes the number of entries.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/optional_in_fixed_header.toml")]
pub struct T {
    pub v: i64,
    pub w: Option<i64>,
}

fn main() {}
