// Schema: `raw` (bytes without UTF-8) on an integer.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/raw_on_int.toml")]
pub struct T {
    pub v: i64,
}

fn main() {}
