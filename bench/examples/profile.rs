//! A loop over one decoder or encoder, to run under a profiler:
//!
//! ```sh
//! cargo build --release -p metalayer-bench --example profile
//! valgrind --tool=callgrind --dump-instr=yes target/release/examples/profile ours 8 100000
//! ```
//!
//! Arguments: which code (see [`CODES`]; `--list` prints them, one `code<TAB>description` a line),
//! ndim, and the number of calls. The input is `sample(ndim, "<f8")`.
//!
//! The code is chosen once, before the loop, so that a call costs the same few instructions of
//! loop overhead whichever code runs. `bench/run.sh` runs every code under callgrind with two
//! numbers of calls and takes the difference of the instruction counts, which leaves out the
//! start-up and the setup below.

use std::ffi::CString;
use std::hint::black_box;

use metalayer::prelude::*;
use metalayer_bench::{Borrowed, RmpB2ndV1, RmpBorrowed, binrw_layouts, c_decode, c_encode, hand, sample, to_binrw};

/// The codes this example runs, with what each call does.
const CODES: [(&str, &str); 15] = [
    ("ours", "the generated decoder into ArrayVec fields and a borrowed &str"),
    (
        "ours_owned",
        "the generated decoder into Vecs and a String (metalayer::b2nd::B2ndV1)",
    ),
    (
        "hand",
        "the hand-written decoder into ArrayVec fields and a borrowed &str",
    ),
    ("hand_owned", "the hand-written decoder into Vecs and a String"),
    ("c", "c-blosc2's b2nd_deserialize_meta and the free of its dtype"),
    ("rmp", "rmp_serde::from_slice into RmpB2ndV1 (Vecs and a String)"),
    (
        "rmp_borrowed",
        "rmp_serde::from_slice into RmpBorrowed (ArrayVecs and a &str)",
    ),
    ("binrw", "the binrw decoder"),
    (
        "encode",
        "the generated encode_into (Vec fields) into a caller's buffer",
    ),
    (
        "encode_borrowed",
        "the generated encode_into (ArrayVec fields) into a caller's buffer",
    ),
    ("encode_vec", "the generated encode() into a new Vec"),
    ("hand_encode", "the hand-written encode_into"),
    ("c_encode", "c-blosc2's b2nd_serialize_meta and the free of its buffer"),
    ("binrw_encode", "binrw into a Cursor<&mut [u8]>"),
    ("noop", "nothing: the loop alone"),
];

/// Calls `f` `calls` times and sums what it returns.
#[inline(never)]
fn repeat(calls: usize, mut f: impl FnMut() -> usize) -> usize {
    let mut sum = 0usize;
    for _ in 0..calls {
        sum = sum.wrapping_add(f());
    }
    sum
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let which = args.get(1).map_or("ours", String::as_str);
    if which == "--list" {
        for (code, what) in CODES {
            println!("{code}\t{what}");
        }
        return;
    }
    let ndim: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(8);
    let calls: usize = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let meta = sample(ndim, "<f8");
    let bytes = meta.encode().expect("the sample encodes");
    let borrowed = Borrowed::decode(&bytes).expect("the sample decodes");
    let bin = to_binrw(&meta);
    let c_dtype = CString::new(meta.dtype.as_str()).expect("the dtype has no NUL");
    let mut buf = vec![0u8; bytes.len()];
    let sum = match which {
        "ours" => repeat(calls, || {
            Borrowed::decode(black_box(&bytes)).map_or(0, |m| m.shape.len())
        }),
        "ours_owned" => repeat(calls, || {
            metalayer::b2nd::B2ndV1::decode(black_box(&bytes)).map_or(0, |m| m.shape.len())
        }),
        "hand" => repeat(calls, || hand::decode(black_box(&bytes)).map_or(0, |m| m.shape.len())),
        "hand_owned" => repeat(calls, || {
            hand::decode_owned(black_box(&bytes)).map_or(0, |m| m.shape.len())
        }),
        // SAFETY: the bytes are a valid b2nd_v1 metalayer, which is all c-blosc2 reads safely.
        "c" => repeat(calls, || unsafe { c_decode(black_box(&bytes)) }.ndim as usize),
        "rmp" => repeat(calls, || {
            rmp_serde::from_slice::<RmpB2ndV1>(black_box(&bytes)).map_or(0, |m| m.2.len())
        }),
        "rmp_borrowed" => repeat(calls, || {
            rmp_serde::from_slice::<RmpBorrowed<'_>>(black_box(&bytes)).map_or(0, |m| m.2.len())
        }),
        "binrw" => repeat(calls, || {
            binrw_layouts::read_exact::<binrw_layouts::B2ndV1>(black_box(&bytes)).map_or(0, |m| m.shape.len())
        }),
        "encode" => repeat(calls, || black_box(&meta).encode_into(black_box(&mut buf)).unwrap_or(0)),
        "encode_borrowed" => repeat(calls, || {
            black_box(&borrowed).encode_into(black_box(&mut buf)).unwrap_or(0)
        }),
        "encode_vec" => repeat(calls, || black_box(&meta).encode().map_or(0, |v| v.len())),
        "hand_encode" => repeat(calls, || {
            let m = black_box(&meta);
            let (s, c, b) = (&m.shape, &m.chunkshape, &m.blockshape);
            hand::encode_into(s, c, b, m.dtype_format, &m.dtype, black_box(&mut buf)).unwrap_or(0)
        }),
        "c_encode" => repeat(calls, || {
            let m = black_box(&meta);
            c_encode(&m.shape, &m.chunkshape, &m.blockshape, &c_dtype, |b| b.len())
        }),
        "binrw_encode" => repeat(calls, || {
            binrw_layouts::write_slice(black_box(&bin), black_box(&mut buf)).unwrap_or(0)
        }),
        "noop" => repeat(calls, || black_box(ndim)),
        other => {
            let known: Vec<&str> = CODES.iter().map(|(code, _)| *code).collect();
            eprintln!("unknown code {other}; the codes are {}", known.join(", "));
            std::process::exit(2);
        }
    };
    println!("{sum}");
}
