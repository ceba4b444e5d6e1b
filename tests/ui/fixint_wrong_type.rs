// Struct vs schema: a fixint entry (`dtype_format`) held in a float. Any integer type whose range
// covers 0..=127 binds (u8, u16, i8, ...); a type that is not an integer does not.
use metalayer::prelude::*;

#[metalayer(schema = "b2nd_v1")]
pub struct Meta {
    pub shape: Vec<i64>,
    pub chunkshape: Vec<i32>,
    pub blockshape: Vec<i32>,
    pub dtype_format: f32,
    pub dtype: String,
}

fn main() {}
