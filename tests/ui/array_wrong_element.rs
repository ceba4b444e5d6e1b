// Struct vs schema: an int64 array (`shape`) held in `Vec<i32>`.
use metalayer::prelude::*;

#[metalayer(schema = "b2nd_v1")]
pub struct Meta {
    pub shape: Vec<i32>,
    pub chunkshape: Vec<i32>,
    pub blockshape: Vec<i32>,
    pub dtype_format: u8,
    pub dtype: String,
}

fn main() {}
