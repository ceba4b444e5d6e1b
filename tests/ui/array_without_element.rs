// Schema: an array without the type of its elements.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/array_without_element.toml")]
pub struct T {
    pub v: Vec<i64>,
}

fn main() {}
