// Schema self-consistency: an entry marker that does not belong to its wire type (int64 with 0xd2).
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/int_marker_wrong.toml")]
pub struct Meta {
    pub shape: Vec<i64>,
    pub label: String,
}

fn main() {}
