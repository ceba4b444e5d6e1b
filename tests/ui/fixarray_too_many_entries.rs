// Schema: a record of 16 entries in a fixarray, which states at most 15.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/fixarray_too_many_entries.toml")]
pub struct T {
    pub v: i64,
}

fn main() {}
