// Schema: an optional entry followed by a required one.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/optional_not_trailing.toml")]
pub struct T {
    pub a: Option<i64>,
    pub v: i64,
}

fn main() {}
