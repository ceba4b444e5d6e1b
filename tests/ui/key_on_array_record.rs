// Schema: a `key` on an entry of a record stored as an array, whose entries have no keys.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/key_on_array_record.toml")]
pub struct T {
    pub v: i64,
}

fn main() {}
