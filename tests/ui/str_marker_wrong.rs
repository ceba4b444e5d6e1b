// Schema self-consistency: a str marker that does not belong to its wire type (str32 with 0xd9).
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/str_marker_wrong.toml")]
pub struct Meta {
    pub shape: Vec<i64>,
    pub label: String,
}

fn main() {}
