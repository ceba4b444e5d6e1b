// Binding: the field a keyword entry needs is named as a raw identifier.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/keyword_async.toml")]
pub struct Flags {}

fn main() {}
