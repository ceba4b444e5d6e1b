// Schema: a marker on a canonical `int`, whose marker follows from the value; the hint names the fixed wire types.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/canonical_with_marker.toml")]
pub struct T {
    pub v: i64,
}

fn main() {}
