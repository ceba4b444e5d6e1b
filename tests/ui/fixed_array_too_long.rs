// Struct vs schema: `[i64; 17]` for an array whose count (`ndim`) is at most 16.
use metalayer::prelude::*;

#[metalayer(schema = "b2nd_v1")]
pub struct Meta {
    pub shape: [i64; 17],
    pub chunkshape: Vec<i32>,
    pub blockshape: Vec<i32>,
    pub dtype_format: u8,
    pub dtype: String,
}

fn main() {}
