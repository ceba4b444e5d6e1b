// Schema: a fixed count of 16 elements for a fixarray, whose header states at most 15.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/fixed_count_over_fixarray.toml")]
pub struct T {
    pub v: Vec<i64>,
}

fn main() {}
