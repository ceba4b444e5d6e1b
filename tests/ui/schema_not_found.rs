// Schema resolution: `schema = "nope"` names neither a crate schema nor a built-in one.
use metalayer::prelude::*;

#[metalayer(schema = "nope")]
pub struct Meta {
    pub shape: Vec<i64>,
}

fn main() {}
