// Schema error: an extending file whose entries do not fit the base's container, reported in
// the extending file with the fix, not in the built-in it extends.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/extends_too_many.toml")]
pub struct T {
    pub shape: Vec<i64>,
}

fn main() {}
