// Schema names: `self` and `super` are keywords that cannot be raw identifiers.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/keyword_not_raw.toml")]
pub struct T {}

fn main() {}
