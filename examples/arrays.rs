//! Every array under a directory, stores included, with its shape and dtype: `cargo run
//! --example arrays --features tree [DIR]` (the fixtures by default).

use metalayer::tree::Tree;

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files").into());
    for node in Tree::new(dir) {
        if let (Some(shape), Some(dtype)) = (node.shape(), node.dtype()) {
            println!("{}  {}  {shape:?}  {dtype}", node.path().display(), node.kind());
        }
    }
}
