// Item: a type parameter (with a default and no bound): the field types follow from the schema,
// so the error points at the parameter, default included, and the struct itself stays.
use metalayer::prelude::*;

#[metalayer(schema = "caterva_v0")]
pub struct Meta<T = i64> {
    pub shape: Vec<T>,
    pub chunkshape: Vec<i32>,
    pub blockshape: Vec<i32>,
}

fn main() {}
