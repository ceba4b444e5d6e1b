// Struct vs schema: a byte string of fixed length, 32 bytes (`len = 32`), held in a `[u8; 31]`,
// which no input could fill.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/language3.toml")]
pub struct T {
    pub sha256: [u8; 31],
    pub created: metalayer::Timestamp,
}

fn main() {}
