// Attribute arguments: both `schema` and `schema_path`.
use metalayer::prelude::*;

#[metalayer(schema = "b2nd_v1", schema_path = "schemas/b2nd_v1.toml")]
pub struct Meta {
    pub shape: Vec<i64>,
}

fn main() {}
