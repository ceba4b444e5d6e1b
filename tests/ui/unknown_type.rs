// Schema: an entry of a record type the schema does not define.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/unknown_type.toml")]
pub struct T {
    pub v: i64,
}

fn main() {}
