// Schema self-consistency: a width that does not match the marker (int64 with width 4).
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/int_width_wrong.toml")]
pub struct Meta {
    pub shape: Vec<i64>,
    pub label: String,
}

fn main() {}
