// Schema: a float constant on an integer entry.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/float_const_on_int.toml")]
pub struct T {
    pub w: i64,
}

fn main() {}
