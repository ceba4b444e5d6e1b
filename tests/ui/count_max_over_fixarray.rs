// Schema: a count entry whose max (20) a fixarray header cannot state; the hint keeps the fixarray asked for.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/count_max_over_fixarray.toml")]
pub struct T {
    pub v: Vec<i64>,
}

fn main() {}
