// Attribute arguments: an unknown argument (`schemas` for `schema`).
use metalayer::prelude::*;

#[metalayer(schemas = "b2nd_v1")]
pub struct Meta {
    pub shape: Vec<i64>,
}

fn main() {}
