// Schema error: a nested array's `count` in a schema of language 2.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/nested_count_language2.toml")]
pub struct T {
    pub shape: Vec<i64>,
    pub corners: Vec<Vec<i64>>,
}

fn main() {}
