// Schema: an integer whose min lies above its max.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/min_above_max.toml")]
pub struct T {
    pub v: i32,
}

fn main() {}
