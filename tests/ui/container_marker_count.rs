// Schema self-consistency: a container marker (0x94) that does not match the number of entries (3).
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/container_marker_count.toml")]
pub struct Meta {
    pub shape: Vec<i64>,
    pub label: String,
}

fn main() {}
