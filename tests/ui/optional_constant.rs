// Schema: a constant marked optional (a constant is always present).
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/optional_constant.toml")]
pub struct T {
    pub v: i64,
}

fn main() {}
