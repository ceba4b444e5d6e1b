// Schema: an ext type byte outside -128..=127.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/ext_type_out_of_range.toml")]
pub struct T {
    pub v: Vec<u8>,
}

fn main() {}
