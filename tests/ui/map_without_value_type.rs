// Schema: a homogeneous map without the type of its values.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/map_without_value_type.toml")]
pub struct T {
    pub v: Vec<(String, i64)>,
}

fn main() {}
