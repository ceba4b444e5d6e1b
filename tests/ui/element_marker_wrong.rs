// Schema self-consistency: an array element marker that does not belong to its wire type (int64 elements with 0xd2).
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/element_marker_wrong.toml")]
pub struct Meta {
    pub shape: Vec<i64>,
    pub label: String,
}

fn main() {}
