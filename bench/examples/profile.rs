//! A loop over one decoder or encoder, to run under a profiler:
//!
//! ```sh
//! cargo build --release -p metalayer-bench --example profile
//! valgrind --tool=callgrind --dump-instr=yes target/release/examples/profile ours 8 100000
//! ```
//!
//! Arguments: which code (`ours`, `ours_owned`, `hand`, `c`, `encode`, `hand_encode`), ndim, and
//! the number of calls.

use std::hint::black_box;

use metalayer::prelude::*;
use metalayer_bench::{Borrowed, sample};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let which = args.get(1).map_or("ours", String::as_str);
    let ndim: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(8);
    let calls: usize = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let meta = sample(ndim, "<f8");
    let bytes = meta.encode().expect("the sample encodes");
    let mut buf = vec![0u8; bytes.len()];
    let mut sum = 0usize;
    for _ in 0..calls {
        sum += match which {
            "ours" => Borrowed::decode(black_box(&bytes)).map_or(0, |m| m.shape.len()),
            "ours_owned" => metalayer::b2nd::B2ndV1::decode(black_box(&bytes)).map_or(0, |m| m.shape.len()),
            "hand" => metalayer_bench::hand::decode(black_box(&bytes)).map_or(0, |m| m.shape.len()),
            // SAFETY: the bytes are a valid b2nd_v1 metalayer, which is all c-blosc2 reads safely.
            "c" => unsafe { metalayer_bench::c_decode(black_box(&bytes)) }.ndim as usize,
            "encode" => black_box(&meta).encode_into(&mut buf).unwrap_or(0),
            "hand_encode" => {
                let m = black_box(&meta);
                let (s, c, b) = (&m.shape, &m.chunkshape, &m.blockshape);
                metalayer_bench::hand::encode_into(s, c, b, m.dtype_format, &m.dtype, &mut buf).unwrap_or(0)
            }
            other => panic!("unknown code {other}"),
        };
    }
    println!("{sum}");
}
