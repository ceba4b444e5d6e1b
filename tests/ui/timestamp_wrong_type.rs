// Struct vs schema: a timestamp entry held in an integer (a timestamp is seconds and
// nanoseconds).
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/language3.toml")]
pub struct T {
    pub sha256: [u8; 32],
    pub created: u64,
}

fn main() {}
