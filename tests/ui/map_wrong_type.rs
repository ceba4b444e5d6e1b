// Struct vs schema: a map entry held in a `Vec` of single values rather than of pairs.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/kinds.toml")]
pub struct T {
    pub scale: f32,
    pub on: bool,
    pub blob: Vec<u8>,
    pub stamp: metalayer::Ext<Vec<u8>>,
    pub pairs: Vec<String>,
    pub point: Point,
    pub note: Option<String>,
}

#[metalayer(schema_path = "tests/ui/schemas/kinds.toml", layout = "point")]
pub struct Point {
    pub x: f64,
}

fn main() {}
