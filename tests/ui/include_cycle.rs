// Schema: two files that include each other.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/include_cycle.toml")]
pub struct T {
    pub v: i64,
}

fn main() {}
