// Schema: a fixed map marker that belongs to another family (0x93 is a fixarray).
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/map_marker_not_map.toml")]
pub struct T {
    pub v: i64,
}

fn main() {}
