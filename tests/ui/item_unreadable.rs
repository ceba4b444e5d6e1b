// Item: an array length made of statements, which the attribute's parser (syn without its full
// syntax tree) cannot read: one error at that length (not a panic of the macro), and the struct
// itself stays.
use metalayer::prelude::*;

#[metalayer(schema = "caterva_v0")]
pub struct Meta {
    pub shape: [i64; {
        const N: usize = 2;
        N
    }],
    pub chunkshape: Vec<i32>,
    pub blockshape: Vec<i32>,
}

fn main() {}
