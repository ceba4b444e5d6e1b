// Schema: a record type that contains itself, which no value can end.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/type_contains_itself.toml")]
pub struct T {
    pub v: Node,
}

pub struct Node;

fn main() {}
