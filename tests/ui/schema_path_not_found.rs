// Schema resolution: `schema_path` names a file that does not exist.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/nope.toml")]
pub struct Meta {
    pub shape: Vec<i64>,
}

fn main() {}
