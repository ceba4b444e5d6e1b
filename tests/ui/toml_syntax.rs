// Schema self-consistency: a TOML syntax error (an unterminated string).
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/toml_syntax.toml")]
pub struct Meta {
    pub shape: Vec<i64>,
    pub label: String,
}

fn main() {}
