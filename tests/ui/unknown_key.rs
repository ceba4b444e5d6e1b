// Schema self-consistency: an unknown key, a typo (`docs` for `doc`).
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/unknown_key.toml")]
pub struct Meta {
    pub shape: Vec<i64>,
    pub label: String,
}

fn main() {}
