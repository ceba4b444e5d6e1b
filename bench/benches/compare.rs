//! Decoding and encoding `b2nd_v1` metalayers with this project's generated code, c-blosc2,
//! rmp-serde, binrw and hand-written code, and the attribute's expansion time per struct.
//!
//! Groups are named `decode_ndim{N}_{dtype}`, `encode_ndim{N}_{dtype}` and `expand`;
//! `bench/report.py` reads their estimates and prints the table of ratios.

use std::ffi::CString;
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use metalayer::b2nd::B2ndV1;
use metalayer::prelude::*;
use metalayer_bench::{
    Borrowed, RmpB2ndV1, RmpBorrowed, STRUCT_DTYPE, binrw_layouts, c_decode, c_encode, hand, sample, to_binrw,
};

/// The cases: (ndim, dtype, the dtype's name in group names).
const CASES: [(usize, &str, &str); 4] = [
    (2, "<f8", "f8"),
    (8, "<f8", "f8"),
    (15, "<f8", "f8"),
    (8, STRUCT_DTYPE, "struct"),
];

fn decode(c: &mut Criterion) {
    for (ndim, dtype, dname) in CASES {
        let meta = sample(ndim, dtype);
        let bytes = meta.encode().unwrap();
        let bytes = bytes.as_slice();
        let mut g = c.benchmark_group(format!("decode_ndim{ndim}_{dname}"));
        g.bench_function("ours_borrowed", |b| b.iter(|| Borrowed::decode(black_box(bytes))));
        g.bench_function("ours_owned", |b| b.iter(|| B2ndV1::decode(black_box(bytes))));
        // SAFETY: the bytes are a well-formed b2nd_v1 metalayer.
        g.bench_function("c_blosc2", |b| b.iter(|| unsafe { c_decode(black_box(bytes)) }));
        g.bench_function("rmp_serde", |b| {
            b.iter(|| rmp_serde::from_slice::<RmpB2ndV1>(black_box(bytes)))
        });
        g.bench_function("rmp_serde_borrowed", |b| {
            b.iter(|| rmp_serde::from_slice::<RmpBorrowed<'_>>(black_box(bytes)))
        });
        g.bench_function("hand", |b| b.iter(|| hand::decode(black_box(bytes))));
        g.bench_function("hand_owned", |b| b.iter(|| hand::decode_owned(black_box(bytes))));
        g.bench_function("binrw", |b| {
            b.iter(|| binrw_layouts::read_exact::<binrw_layouts::B2ndV1>(black_box(bytes)))
        });
        g.finish();
    }
}

fn encode(c: &mut Criterion) {
    for (ndim, dtype, dname) in CASES {
        let meta = sample(ndim, dtype);
        let bytes = meta.encode().unwrap();
        let borrowed = Borrowed::decode(&bytes).unwrap();
        let bin = to_binrw(&meta);
        let c_dtype = CString::new(dtype).unwrap();
        let mut buf = vec![0u8; meta.encoded_len() + 16];
        let mut g = c.benchmark_group(format!("encode_ndim{ndim}_{dname}"));
        g.bench_function("ours_encode_into", |b| {
            b.iter(|| black_box(&meta).encode_into(black_box(&mut buf[..])))
        });
        g.bench_function("ours_encode_into_borrowed", |b| {
            b.iter(|| black_box(&borrowed).encode_into(black_box(&mut buf[..])))
        });
        g.bench_function("ours_encode_vec", |b| b.iter(|| black_box(&meta).encode()));
        g.bench_function("c_blosc2", |b| {
            b.iter(|| {
                let m = black_box(&meta);
                c_encode(&m.shape, &m.chunkshape, &m.blockshape, &c_dtype, |bytes| {
                    black_box(bytes);
                })
            })
        });
        g.bench_function("hand_encode_into", |b| {
            b.iter(|| {
                let m = black_box(&meta);
                hand::encode_into(
                    &m.shape,
                    &m.chunkshape,
                    &m.blockshape,
                    m.dtype_format,
                    &m.dtype,
                    black_box(&mut buf[..]),
                )
            })
        });
        g.bench_function("binrw_slice", |b| {
            b.iter(|| binrw_layouts::write_slice(black_box(&bin), black_box(&mut buf[..])))
        });
        g.bench_function("binrw_vec", |b| b.iter(|| binrw_layouts::write_vec(black_box(&bin))));
        g.finish();
    }
}

fn expand(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut g = c.benchmark_group("expand");
    for (name, args, item) in metalayer_bench::builtin_structs() {
        g.bench_function(name, |b| {
            b.iter_batched(
                || (args.clone(), item.clone()),
                |(args, item)| metalayer_codegen::expand_in(args, item, dir),
                BatchSize::SmallInput,
            )
        });
    }
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .sample_size(50)
}

criterion_group! {
    name = benches;
    config = config();
    targets = decode, encode, expand
}
criterion_main!(benches);
