// Struct vs schema: a single-value schema (a canonical int) held in a `String`.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/value_wrong_type.toml")]
pub struct T(pub String);

fn main() {}
