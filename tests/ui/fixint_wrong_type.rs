// Struct vs schema: a fixint entry (`dtype_format`) held in `u16` instead of `u8`.
use metalayer::prelude::*;

#[metalayer(schema = "b2nd_v1")]
pub struct Meta {
    pub shape: Vec<i64>,
    pub chunkshape: Vec<i32>,
    pub blockshape: Vec<i32>,
    pub dtype_format: u16,
    pub dtype: String,
}

fn main() {}
