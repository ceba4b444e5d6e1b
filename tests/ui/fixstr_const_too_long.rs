// Schema: a fixstr constant longer than the 31 bytes a fixstr holds.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/fixstr_const_too_long.toml")]
pub struct T {
    pub v: i64,
}

fn main() {}
