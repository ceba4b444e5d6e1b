// Schema: a named value that the entry's wire type cannot hold.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/named_value_out_of_range.toml")]
pub struct T {
    pub v: u8,
}

fn main() {}
