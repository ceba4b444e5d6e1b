// Schema: entry names whose generated Rust names collide (`a` and `a_element` of an array `a`).
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/generated_name_collision.toml")]
pub struct T {
    pub a: Vec<i64>,
    pub a_element: i64,
}

fn main() {}
