// Struct vs schema: a float32 entry held in `f64` (the widths must match).
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/kinds.toml")]
pub struct T {
    pub scale: f64,
    pub on: bool,
    pub blob: Vec<u8>,
    pub stamp: metalayer::Ext<Vec<u8>>,
    pub pairs: Vec<(String, i64)>,
    pub point: Point,
    pub note: Option<String>,
}

#[metalayer(schema_path = "tests/ui/schemas/kinds.toml", layout = "point")]
pub struct Point {
    pub x: f64,
}

fn main() {}
