// Schema: an include of a file that does not exist.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/include_missing.toml")]
pub struct T {
    pub v: i64,
}

fn main() {}
