// Struct vs schema: an int64 entry (`offset`) held in `i32` instead of `i64`.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/scalar_int64.toml")]
pub struct Meta {
    pub shape: Vec<i64>,
    pub label: String,
    pub offset: i32,
}

fn main() {}
