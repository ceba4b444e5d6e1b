// Struct vs schema: an ext entry whose type byte is part of the value, held in bytes alone.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/kinds.toml")]
pub struct T {
    pub scale: f32,
    pub on: bool,
    pub blob: Vec<u8>,
    pub stamp: Vec<u8>,
    pub pairs: Vec<(String, i64)>,
    pub point: Point,
    pub note: Option<String>,
}

#[metalayer(schema_path = "tests/ui/schemas/kinds.toml", layout = "point")]
pub struct Point {
    pub x: f64,
}

fn main() {}
