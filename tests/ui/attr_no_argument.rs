// Attribute arguments: none at all.
use metalayer::prelude::*;

#[metalayer]
pub struct Meta {
    pub shape: Vec<i64>,
}

fn main() {}
