// Schema self-consistency: a container marker (0xdc) that is not a fixarray marker.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/container_marker_not_fixarray.toml")]
pub struct Meta {
    pub shape: Vec<i64>,
    pub label: String,
}

fn main() {}
