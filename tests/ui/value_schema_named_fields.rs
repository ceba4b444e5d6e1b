// Struct vs schema: a schema whose top-level value is a single integer, on a struct with two
// named fields (one named field, or a tuple struct of one, holds it).
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/value_schema_named_fields.toml")]
pub struct T {
    pub v: i64,
    pub w: i64,
}

fn main() {}
