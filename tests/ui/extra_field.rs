// Struct vs schema: a field that is no entry of the schema (`order`), reported on that field.
use metalayer::prelude::*;

#[metalayer(schema = "b2nd_v1")]
pub struct Meta {
    pub shape: Vec<i64>,
    pub chunkshape: Vec<i32>,
    pub blockshape: Vec<i32>,
    pub dtype_format: u8,
    pub dtype: String,
    pub order: u8,
}

fn main() {}
