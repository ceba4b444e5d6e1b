// Schema: two entries of a map record with the same key.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/duplicate_map_key.toml")]
pub struct T {
    pub a: i64,
    pub b: i64,
}

fn main() {}
