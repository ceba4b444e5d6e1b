// Struct vs schema: several errors (a missing field and a wrong type) reported at once, with no
// cascade: the fallback impls keep `decode` and `encode` compiling.
use metalayer::prelude::*;

#[metalayer(schema = "b2nd_v1")]
pub struct Meta {
    pub shape: Vec<i32>,
    pub chunkshape: Vec<i32>,
    pub blockshape: Vec<i32>,
    pub dtype_format: u8,
}

fn main() {
    let s = Meta::decode(&[]).unwrap();
    let _bytes: Vec<u8> = s.encode().unwrap();
}
