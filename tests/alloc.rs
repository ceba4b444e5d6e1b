//! How much decoding and encoding allocate, measured with a counting global allocator.
//!
//! # The bound
//!
//! Decoding an input of `n` bytes into an owned type (`B2ndV1`, `B2ndV0`, `CatervaV0`, the
//! `Known` enum, or a struct of `Vec`, `String` and `Box<str>` fields), with `decode` or
//! `decode_prefix`, whether it succeeds or fails at any byte:
//!
//! - requests at most `n` bytes from the allocator in total,
//! - in at most one allocation per owned field (4 for `B2ndV1` and `B2ndV0`, 3 for `CatervaV0`),
//! - never reallocates, so at most `n` bytes are live at any moment;
//! - and when it succeeds after reading `m` bytes, it allocates exactly `16 * ndim + len(dtype)`
//!   bytes (8 per shape element, 4 per chunk and block element, the dtype's text), where
//!   `len(dtype) = m - c - 19 * ndim` with `c` the schema's constant part (12 for `b2nd_v1`, 11
//!   for `b2nd_v0`, 6 and no dtype for `caterva_v0`), in one allocation per non-empty field.
//!
//! Where it comes from: the decoder allocates in two places only, and errors are `Copy` values.
//! - An array field `Vec<T>` is allocated once, with exactly `count` elements, after the decoder
//!   has checked that the input holds all of them (`count * wire_size` bytes, where `wire_size`
//!   is an element's encoded size: 9 bytes for int64, 5 for int32). An array the input cannot
//!   hold fails before any allocation, and one it holds costs `8/9` (int64) or `4/5` (int32) of
//!   the bytes its elements take, whether their markers then check out or not.
//! - A string field copies its text after the decoder checked that the input holds all of it:
//!   exactly the `len` bytes consumed.
//!
//! Each allocation is thus paid for by distinct input bytes (the consumed bytes of completed
//! fields), so the sum stays within `n`. The worst
//! ratio is reached by valid inputs with a long dtype: `(16 * ndim + len) / (12 + 19 * ndim +
//! len)`, below 1 and tending to 1.
//!
//! Borrowed and fixed-capacity types (`&str`, `[T; N]`, `arrayvec::ArrayVec`,
//! `arrayvec::ArrayString`) decode with zero allocations, on success and on every error.
//! `encode_into` allocates nothing; `encode` allocates once, exactly `encoded_len()` bytes, and
//! returns a `Vec` whose capacity equals its length.
//!
//! # The body check of a frame
//!
//! `metalayer::frame::check_body_from` holds what the frame's body holds, never what its index
//! claims: an index of one repeated offset (a special chunk) claiming 2^31 - 8 bytes of offsets
//! is checked in a few hundred bytes, and a compressed one in its own bytes and four buffers of
//! one of its blocks (`vlmeta::decompress_blocks`), whatever its `nbytes`.
//!
//! The counters are per thread and count only inside [`measure`], so the test harness's other
//! threads do not disturb them.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use arrayvec::{ArrayString, ArrayVec};
use common::{ZEROS, b2nd_v1, blosc2_chunk, caterva_v0, frame_with_index, unhex};
use metalayer::b2nd::{B2ndV0, B2ndV1};
use metalayer::caterva::CatervaV0;
use metalayer::prelude::*;
use metalayer::{DispatchError, Known};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, TestRunner};

// ---------------------------------------------------------------------------------------------
// The counting allocator
// ---------------------------------------------------------------------------------------------

/// What one thread allocated while counting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stats {
    active: bool,
    /// Calls to `alloc`, `alloc_zeroed` and `realloc`.
    allocs: usize,
    /// Calls to `realloc` alone.
    reallocs: usize,
    /// Bytes requested in all: the full new size for a `realloc`.
    bytes: usize,
    /// Bytes allocated minus bytes freed since counting started.
    live: isize,
    /// The highest `live`.
    peak: isize,
}

const IDLE: Stats = Stats {
    active: false,
    allocs: 0,
    reallocs: 0,
    bytes: 0,
    live: 0,
    peak: 0,
};

thread_local! {
    // A `const` Cell of a `Copy` type: reading it never allocates nor registers a destructor.
    static STATS: Cell<Stats> = const { Cell::new(IDLE) };
}

fn note(f: impl FnOnce(&mut Stats)) {
    let _ = STATS.try_with(|cell| {
        let mut s = cell.get();
        if s.active {
            f(&mut s);
            s.peak = s.peak.max(s.live);
            cell.set(s);
        }
    });
}

struct Counting;

// SAFETY: every call is forwarded unchanged to `System`; the bookkeeping only touches a
// thread-local `Cell` and never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(|s| {
            s.allocs += 1;
            s.bytes += layout.size();
            s.live += layout.size() as isize;
        });
        // SAFETY: the caller upholds `alloc`'s contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(|s| {
            s.allocs += 1;
            s.bytes += layout.size();
            s.live += layout.size() as isize;
        });
        // SAFETY: the caller upholds `alloc_zeroed`'s contract.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note(|s| s.live -= layout.size() as isize);
        // SAFETY: the caller upholds `dealloc`'s contract.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(|s| {
            s.allocs += 1;
            s.reallocs += 1;
            s.bytes += new_size;
            s.live += new_size as isize - layout.size() as isize;
        });
        // SAFETY: the caller upholds `realloc`'s contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f` with this thread's counters on, and returns its result (dropped by the caller, after
/// counting stopped) with what it allocated.
fn measure<R>(f: impl FnOnce() -> R) -> (R, Stats) {
    STATS.with(|s| s.set(Stats { active: true, ..IDLE }));
    let r = f();
    let stats = STATS.with(|s| s.replace(IDLE));
    (r, Stats { active: false, ..stats })
}

#[test]
fn the_counter_counts_this_thread_only() {
    // Another thread allocates without pause all along.
    let stop = Arc::new(AtomicBool::new(false));
    let allocated = Arc::new(AtomicUsize::new(0));
    let noisy = {
        let (stop, allocated) = (Arc::clone(&stop), Arc::clone(&allocated));
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                black_box(vec![0u8; 64]);
                allocated.fetch_add(1, Ordering::Relaxed);
            }
        })
    };
    while allocated.load(Ordering::Relaxed) == 0 {
        std::thread::yield_now();
    }
    // Count on this thread while the other one allocates a thousand times.
    let before = allocated.load(Ordering::Relaxed);
    while allocated.load(Ordering::Relaxed) < before + 1000 {
        let ((), s) = measure(|| {
            for _ in 0..100 {
                std::thread::yield_now();
            }
        });
        assert_eq!(s, IDLE, "nothing allocated on this thread");
    }
    let (v, s) = measure(|| black_box(Vec::<u8>::with_capacity(100)));
    assert_eq!((s.allocs, s.reallocs, s.bytes, s.peak), (1, 0, 100, 100));
    drop(v);
    let (v, s) = measure(|| black_box(vec![0u8; 10]));
    assert_eq!((s.allocs, s.bytes), (1, 10), "alloc_zeroed is counted");
    drop(v);
    let ((), s) = measure(|| {
        let mut v = Vec::<u64>::with_capacity(1);
        v.extend(black_box(0..3u64));
        drop(v);
    });
    assert!(s.reallocs >= 1 && s.live == 0, "{s:?}");
    stop.store(true, Ordering::Relaxed);
    noisy.join().unwrap();
}

// ---------------------------------------------------------------------------------------------
// The types under test
// ---------------------------------------------------------------------------------------------

/// `B2ndV1` with a `Box<str>` dtype.
#[metalayer(schema = "b2nd_v1")]
struct V1Boxed {
    shape: Vec<i64>,
    chunkshape: Vec<i32>,
    blockshape: Vec<i32>,
    dtype_format: u8,
    dtype: Box<str>,
}

/// Every valid `b2nd_v1` fits.
#[metalayer(schema = "b2nd_v1")]
struct V1Borrowed<'a> {
    shape: ArrayVec<i64, 16>,
    chunkshape: ArrayVec<i32, 16>,
    blockshape: ArrayVec<i32, 16>,
    dtype_format: u8,
    dtype: &'a str,
}

/// Only ndim 2 and a dtype of at most 8 bytes fit.
#[metalayer(schema = "b2nd_v1")]
struct V1Fixed {
    shape: [i64; 2],
    chunkshape: [i32; 2],
    blockshape: ArrayVec<i32, 2>,
    dtype_format: u8,
    dtype: ArrayString<8>,
}

/// Small capacities, so that real inputs fail on them.
#[metalayer(schema = "b2nd_v1")]
struct V1Small {
    shape: ArrayVec<i64, 1>,
    chunkshape: ArrayVec<i32, 1>,
    blockshape: ArrayVec<i32, 1>,
    dtype_format: u8,
    dtype: ArrayString<2>,
}

#[metalayer(schema = "b2nd_v0")]
struct V0Borrowed<'a> {
    shape: ArrayVec<i64, 8>,
    chunkshape: ArrayVec<i32, 8>,
    blockshape: ArrayVec<i32, 8>,
    dtype: &'a str,
}

#[metalayer(schema = "caterva_v0")]
struct CatervaFixed {
    shape: ArrayVec<i64, 8>,
    chunkshape: [i32; 2],
    blockshape: ArrayVec<i32, 8>,
}

/// What a schema's layout says about allocations.
#[derive(Debug, Clone, Copy)]
struct Expect {
    schema: &'static str,
    /// Owned fields: the most allocations a decode may make.
    fields: usize,
    /// Bytes outside the array elements and the dtype text: container, version, ndim, the three
    /// array headers, and for b2nd the dtype's marker and length (and dtype_format in v1).
    constant: usize,
}

const V1: Expect = Expect {
    schema: "b2nd_v1",
    fields: 4,
    constant: 12,
};
const V0: Expect = Expect {
    schema: "b2nd_v0",
    fields: 4,
    constant: 11,
};
const CATERVA: Expect = Expect {
    schema: "caterva_v0",
    fields: 3,
    constant: 6,
};

fn expect_for(schema: &str) -> Expect {
    *[V1, V0, CATERVA].iter().find(|e| e.schema == schema).unwrap()
}

// ---------------------------------------------------------------------------------------------
// The checks
// ---------------------------------------------------------------------------------------------

/// What a run of checks saw.
#[derive(Debug, Default)]
struct Tally {
    decodes: usize,
    successes: usize,
    zero_alloc_decodes: usize,
    zero_alloc_successes: usize,
    /// The largest `bytes / n` seen, as `(bytes, n)`.
    worst: (usize, usize),
}

impl Tally {
    fn ratio(&self) -> f64 {
        if self.worst.1 == 0 {
            0.0
        } else {
            self.worst.0 as f64 / self.worst.1 as f64
        }
    }

    fn report(&self, what: &str) {
        println!(
            "{what}: {} owned decodes ({} succeeded), {} zero-allocation decodes ({} succeeded); \
             worst bytes allocated / input length = {} / {} = {:.4}",
            self.decodes,
            self.successes,
            self.zero_alloc_decodes,
            self.zero_alloc_successes,
            self.worst.0,
            self.worst.1,
            self.ratio()
        );
    }
}

/// Checks the bound for one owned decode of `input`; `success` is the schema and the bytes used
/// when it succeeded.
fn check_owned_stats(
    what: &str,
    input: &[u8],
    s: Stats,
    max_allocs: usize,
    success: Option<(Expect, usize)>,
    t: &mut Tally,
) {
    let n = input.len();
    let ctx = || format!("{what} on {n} bytes {:02x?}: {s:?}", &input[..n.min(48)]);
    assert!(s.bytes <= n, "bytes over the bound: {}", ctx());
    assert!(s.allocs <= max_allocs, "too many allocations: {}", ctx());
    assert_eq!(s.reallocs, 0, "reallocated: {}", ctx());
    assert!(s.peak <= n as isize, "peak over the bound: {}", ctx());
    if let Some((e, used)) = success {
        // ndim is the third byte of every built-in layout.
        let ndim = usize::from(input[2]);
        let text = used - e.constant - 19 * ndim;
        assert_eq!(s.bytes, 16 * ndim + text, "exact bytes on success: {}", ctx());
        assert_eq!(s.allocs, 3 * usize::from(ndim > 0) + usize::from(text > 0), "{}", ctx());
        t.successes += 1;
    }
    t.decodes += 1;
    if n > 0 && s.bytes * t.worst.1.max(1) > t.worst.0 * n {
        t.worst = (s.bytes, n);
    }
}

fn check_owned<T: DecodeOwned>(e: Expect, input: &[u8], t: &mut Tally) {
    let what = std::any::type_name::<T>();
    let (r, s) = measure(|| T::decode(black_box(input)));
    check_owned_stats(what, input, s, e.fields, r.is_ok().then_some((e, input.len())), t);
    drop(r);
    let (r, s) = measure(|| T::decode_prefix(black_box(input)));
    let success = r.as_ref().ok().map(|&(_, used)| (e, used));
    check_owned_stats(what, input, s, e.fields, success, t);
}

fn check_known(name: &str, input: &[u8], t: &mut Tally) {
    let (r, s) = measure(|| Known::decode(black_box(name), black_box(input)));
    let success = r.as_ref().ok().map(|k| (expect_for(k.schema()), input.len()));
    if name != "b2nd" && name != "caterva" {
        assert!(matches!(r, Err(DispatchError::UnknownName { .. })));
    }
    check_owned_stats(&format!("Known::decode({name:?})"), input, s, 4, success, t);
}

/// Decodes with `decode` and `decode_prefix`, which must allocate nothing; returns whether it
/// succeeded.
fn check_zero<'a, T: Decode<'a>>(input: &'a [u8], t: &mut Tally) -> bool {
    let what = std::any::type_name::<T>();
    let (r, s) = measure(|| T::decode(black_box(input)));
    assert_eq!(s, IDLE, "{what} allocated on {:02x?}", &input[..input.len().min(48)]);
    let ok = r.is_ok();
    let (r, s) = measure(|| T::decode_prefix(black_box(input)));
    assert_eq!(
        s,
        IDLE,
        "{what} prefix allocated on {:02x?}",
        &input[..input.len().min(48)]
    );
    t.zero_alloc_decodes += 2;
    t.zero_alloc_successes += usize::from(ok) + usize::from(r.is_ok());
    ok
}

/// Every decoder and field flavour on `input`; `name` is the metalayer name it was stored under.
fn check_all(name: &str, input: &[u8], t: &mut Tally) {
    check_owned::<B2ndV1>(V1, input, t);
    check_owned::<V1Boxed>(V1, input, t);
    check_owned::<B2ndV0>(V0, input, t);
    check_owned::<CatervaV0>(CATERVA, input, t);
    for name in [name, "b2nd", "caterva", "units"] {
        check_known(name, input, t);
    }
    check_zero::<V1Borrowed>(input, t);
    check_zero::<V1Fixed>(input, t);
    check_zero::<V1Small>(input, t);
    check_zero::<V0Borrowed>(input, t);
    check_zero::<CatervaFixed>(input, t);
}

/// `check_all` on `input` and on every prefix of it.
fn check_all_prefixes(name: &str, input: &[u8], t: &mut Tally) {
    for end in 0..=input.len() {
        check_all(name, &input[..end], t);
    }
}

// ---------------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------------

/// A `b2nd_v1` encoding written out from the layout: `0x97 0x00 ndim`, the three arrays
/// (`0x90 + ndim`, then `0xd3` + 8 bytes or `0xd2` + 4 bytes per element), dtype_format 0, and
/// `0xdb` + u32 length + the dtype.
fn v1_bytes(ndim: usize, dtype: &[u8]) -> Vec<u8> {
    let mut b = vec![0x97, 0x00, ndim as u8, 0x90 + ndim as u8];
    for i in 0..ndim {
        b.push(0xd3);
        b.extend_from_slice(&(1000 + i as i64).to_be_bytes());
    }
    for _ in 0..2 {
        b.push(0x90 + ndim as u8);
        for i in 0..ndim {
            b.push(0xd2);
            b.extend_from_slice(&(1 + i as i32).to_be_bytes());
        }
    }
    b.extend_from_slice(&[0x00, 0xdb]);
    b.extend_from_slice(&(dtype.len() as u32).to_be_bytes());
    b.extend_from_slice(dtype);
    assert_eq!(b.len(), 12 + 19 * ndim + dtype.len());
    b
}

/// The caterva layout (`container` 0x95) or b2nd_v0 (0x96, with a dtype), written out likewise.
fn v0_bytes(container: u8, ndim: usize, dtype: Option<&[u8]>) -> Vec<u8> {
    let mut b = v1_bytes(ndim, b"");
    b.truncate(6 + 19 * ndim);
    b[0] = container;
    if let Some(dtype) = dtype {
        b.push(0xdb);
        b.extend_from_slice(&(dtype.len() as u32).to_be_bytes());
        b.extend_from_slice(dtype);
    }
    b
}

/// The frames under `dir`, in path order: files that start with the frame magic, sparse-frame
/// directories, and the frames in other directories (the member files of `.b2d` stores); the
/// `.b2z` zip stores are not frames.
fn frames_under(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if path.join("chunks.b2frame").is_file() {
                out.push(path);
            } else {
                frames_under(&path, out);
            }
        } else if std::fs::read(&path).is_ok_and(|b| b.starts_with(b"\x9e\xa8b2frame\0")) {
            out.push(path);
        }
    }
}

fn fixture_metalayers() -> Vec<(String, String, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/files");
    let mut frames = Vec::new();
    frames_under(&root, &mut frames);
    let mut out = Vec::new();
    for frame in frames {
        let metalayers = metalayer::frame::read_metalayers(&frame).unwrap_or_else(|e| panic!("{e}"));
        for m in metalayers {
            out.push((frame.display().to_string(), m.name, m.content));
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Decoding: owned types within the bound, the others without allocating
// ---------------------------------------------------------------------------------------------

/// Every metalayer of every fixture file, and every prefix of it.
#[test]
fn fixture_metalayers_and_their_prefixes() {
    let mut t = Tally::default();
    let metalayers = fixture_metalayers();
    assert!(metalayers.len() > 100, "{} metalayers", metalayers.len());
    let mut schemas = std::collections::BTreeMap::<&str, usize>::new();
    for (path, name, content) in &metalayers {
        if let Ok(k) = Known::decode(name, content) {
            *schemas.entry(k.schema()).or_default() += 1;
        }
        let before = t.successes;
        check_all_prefixes(name, content, &mut t);
        if name == "b2nd" || name == "caterva" {
            assert!(t.successes > before, "{path}: {name} decoded nowhere");
        }
    }
    // python-blosc2 wrote b2nd_v1, caterva wrote caterva_v0.
    assert!(schemas["b2nd_v1"] > 80 && schemas["caterva_v0"] > 10, "{schemas:?}");
    t.report("fixtures");
}

/// c-blosc2's own bytes for each layout the b2nd metalayer went through (the test data file
/// `plugins/test_data/example_day_month_temp.b2nd` in c-blosc2's history), and every prefix.
#[test]
fn cblosc2_vectors_and_their_prefixes() {
    let mut t = Tally::default();
    for hex in [
        "95000292d30000000000000190d3000000000000000392d20000006ed20000000392d200000039d200000003",
        "96000292d30000000000000190d3000000000000000392d20000006ed20000000392d200000039d200000003db0000000575696e7438",
        "96000292d30000000000000190d3000000000000000392d20000006ed20000000392d200000039d20000000300db000000037c7531",
        "97000292d30000000000000190d3000000000000000392d20000006ed20000000392d200000039d20000000300db000000037c7531",
    ] {
        check_all_prefixes("b2nd", &unhex(hex), &mut t);
        check_all_prefixes("caterva", &unhex(hex), &mut t);
    }
    assert!(t.successes > 0 && t.zero_alloc_successes > 0);
    t.report("c-blosc2 vectors");
}

/// Lengths and counts that claim far more than the input holds.
#[test]
fn hostile_lengths() {
    let mut t = Tally::default();
    let huge_str = |mut b: Vec<u8>, len: u32, tail: &[u8]| {
        b.truncate(b.len() - 4);
        b.extend_from_slice(&len.to_be_bytes());
        b.extend_from_slice(tail);
        b
    };
    let mut inputs = vec![
        // A str32 dtype of 0xffffffff bytes with 2 bytes following, at ndim 0 and 2.
        huge_str(v1_bytes(0, b""), u32::MAX, b"xy"),
        huge_str(v1_bytes(2, b""), u32::MAX, b"xy"),
        huge_str(v1_bytes(2, b""), 0x7fff_ffff, b"<f8"),
        huge_str(v0_bytes(0x96, 2, Some(b"")), u32::MAX, b"uint8"),
        // One byte more than follows.
        huge_str(v1_bytes(16, b""), 4, b"<f8"),
        // The container as array16 and array32 with the largest counts.
        vec![0xdc, 0xff, 0xff, 0x00, 0x02],
        vec![0xdd, 0xff, 0xff, 0xff, 0xff, 0x00, 0x02],
        // The shape as an array32 of 2^32 - 1 elements, and fixarray 15 where ndim says 2.
        vec![0x97, 0x00, 0x02, 0xdd, 0xff, 0xff, 0xff, 0xff, 0xd3],
        vec![0x97, 0x00, 0x02, 0x9f, 0xd3, 0, 0, 0, 0, 0, 0, 0, 1],
        // ndim 15 and its header, then nothing.
        vec![0x97, 0x00, 0x0f, 0x9f],
    ];
    // ndim 17, 127 (the largest fixint), 128 and 255 (not fixints), under each container.
    for container in [0x95, 0x96, 0x97] {
        for ndim in [17u8, 0x7f, 0x80, 0xff] {
            inputs.push(vec![container, 0x00, ndim, 0x90u8.wrapping_add(ndim), 0xd3, 0, 0, 0]);
        }
    }
    // The largest ndim of each layout, its header, then the input ends.
    inputs.extend([
        vec![0x97, 0x00, 16, 0xa0],
        vec![0x96, 0x00, 8, 0x98],
        vec![0x95, 0x00, 8, 0x98],
    ]);
    for input in &inputs {
        check_all("b2nd", input, &mut t);
        check_all("caterva", input, &mut t);
    }
    // Every truncation of the largest ndim of each layout.
    check_all_prefixes("b2nd", &v1_bytes(16, b"<f8"), &mut t);
    check_all_prefixes("b2nd", &v0_bytes(0x96, 8, Some(b"float64")), &mut t);
    check_all_prefixes("caterva", &v0_bytes(0x95, 8, None), &mut t);
    assert!(t.successes >= 3 * 2, "the complete inputs decode");
    t.report("hostile lengths");
}

/// Regression test: an array field allocates only once the input has been found to hold all of
/// its elements. A decoder that reserved `count` elements from the header alone would allocate
/// 128 bytes for the 4-byte input `97 00 10 a0` (ndim 16, then the end).
#[test]
fn arrays_allocate_only_when_complete() {
    let full = v1_bytes(16, b"<f8");
    // The shape array starts at byte 4; each int64 element takes 9 bytes. Cut anywhere inside
    // it, nothing is allocated.
    for n in 4..4 + 16 * 9 {
        let input = &full[..n];
        let (r, s) = measure(|| B2ndV1::decode(black_box(input)));
        assert!(r.is_err());
        assert_eq!((s.allocs, s.bytes), (0, 0), "{n} bytes: {s:?}");
    }
    // Cut inside chunkshape (int32 elements of 5 bytes), only the complete shape of 16 * 8
    // bytes is allocated.
    let chunk_at = 4 + 16 * 9 + 1;
    for n in chunk_at..chunk_at + 16 * 5 {
        let (_, s) = measure(|| B2ndV1::decode(black_box(&full[..n])));
        assert_eq!((s.allocs, s.bytes), (1, 16 * 8), "{n} bytes: {s:?}");
    }
}

/// A long valid input decodes within the bound: 1 MiB of dtype at ndim 16.
#[test]
fn long_valid_input() {
    let mut t = Tally::default();
    let dtype = vec![b'x'; 1 << 20];
    let bytes = v1_bytes(16, &dtype);
    check_all("b2nd", &bytes, &mut t);
    let (meta, s) = measure(|| B2ndV1::decode(black_box(&bytes)));
    let meta = meta.unwrap();
    assert_eq!(meta.dtype.len(), 1 << 20);
    assert_eq!((s.allocs, s.bytes), (4, 16 * 16 + (1 << 20)));
    let (borrowed, s) = measure(|| V1Borrowed::decode(black_box(&bytes)));
    assert_eq!(s, IDLE);
    assert_eq!(borrowed.unwrap().dtype.len(), 1 << 20);

    // With a trailing byte `decode` fails after building the value, `decode_prefix` succeeds.
    let mut longer = bytes.clone();
    longer.push(0);
    check_all("b2nd", &longer, &mut t);
    // Cut inside the dtype: the arrays were allocated, the text was not.
    let cut = &bytes[..bytes.len() - 1];
    check_all("b2nd", cut, &mut t);
    let (_, s) = measure(|| B2ndV1::decode(black_box(cut)));
    assert_eq!((s.allocs, s.bytes), (3, 16 * 16));
    // Invalid UTF-8 at the very end of the text.
    let mut bad = bytes.clone();
    *bad.last_mut().unwrap() = 0xff;
    check_all("b2nd", &bad, &mut t);
    assert!(t.ratio() > 0.999, "the worst case is a long valid input: {}", t.ratio());
    t.report("long valid input");
}

/// A valid encoding of any built-in layout.
fn valid_encoding() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        b2nd_v1().prop_map(|v| v.encode().unwrap()),
        (caterva_v0(), "\\PC{0,20}").prop_map(|(c, dtype)| B2ndV0 {
            shape: c.shape,
            chunkshape: c.chunkshape,
            blockshape: c.blockshape,
            dtype
        }
        .encode()
        .unwrap()),
        caterva_v0().prop_map(|v| v.encode().unwrap()),
    ]
}

/// Arbitrary bytes, bytes behind a plausible start, and valid encodings with bytes overwritten,
/// a 32-bit length written at a random offset, and a random cut.
fn random_input() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..300),
        (
            prop::sample::select(vec![0x95u8, 0x96, 0x97]),
            0u8..=17,
            prop::collection::vec(any::<u8>(), 0..300)
        )
            .prop_map(|(container, ndim, tail)| {
                let mut b = vec![container, 0x00, ndim, 0x90 + ndim];
                b.extend(tail);
                b
            }),
        (
            valid_encoding(),
            prop::collection::vec((any::<Index>(), any::<u8>()), 0..4),
            prop::option::of((any::<Index>(), any::<u32>())),
            prop::option::of(any::<Index>()),
        )
            .prop_map(|(mut b, writes, length, cut)| {
                for (at, byte) in writes {
                    let i = at.index(b.len());
                    b[i] = byte;
                }
                if let Some((at, len)) = length
                    && b.len() >= 4
                {
                    let i = at.index(b.len() - 3);
                    b[i..i + 4].copy_from_slice(&len.to_be_bytes());
                }
                if let Some(cut) = cut {
                    b.truncate(cut.index(b.len() + 1));
                }
                b
            }),
    ]
}

/// A runner of `cases` random cases that keeps no record of failures on disk.
fn runner(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        failure_persistence: None,
        ..Config::with_cases(cases)
    })
}

const RANDOM_CASES: u32 = 4000;

#[test]
fn random_inputs() {
    let t = std::cell::RefCell::new(Tally::default());
    let mut runner = runner(RANDOM_CASES);
    runner
        .run(&random_input(), |input| {
            let mut t = t.borrow_mut();
            check_all("b2nd", &input, &mut t);
            check_all("caterva", &input, &mut t);
            Ok(())
        })
        .unwrap();
    let t = t.into_inner();
    assert!(t.successes > 0 && t.zero_alloc_successes > 0, "{t:?}");
    t.report(&format!("{RANDOM_CASES} random inputs"));
}

// ---------------------------------------------------------------------------------------------
// Encoding
// ---------------------------------------------------------------------------------------------

const ENCODE_CASES: u32 = 1000;

/// `encode_into` allocates nothing; `encode` allocates once, the exact length from the schema
/// (`12 + 19 * ndim + len(dtype)` for b2nd_v1), with no spare capacity.
#[test]
fn encoding_allocates_once_or_never() {
    let mut runner = runner(ENCODE_CASES);
    runner
        .run(&b2nd_v1(), |v| {
            let len = 12 + 19 * v.shape.len() + v.dtype.len();
            let mut buf = vec![0u8; len + 8];
            let (n, s) = measure(|| v.encode_into(black_box(&mut buf)));
            prop_assert_eq!(s, IDLE);
            prop_assert_eq!(n.unwrap(), len);

            let (bytes, s) = measure(|| v.encode());
            let bytes = bytes.unwrap();
            prop_assert_eq!((s.allocs, s.reallocs, s.bytes), (1, 0, len));
            prop_assert_eq!(bytes.len(), len);
            prop_assert_eq!(bytes.capacity(), len);
            prop_assert_eq!(&bytes[..], &buf[..len]);

            // The borrowed flavour decodes and encodes the same bytes without allocating.
            let ((), s) = measure(|| {
                let borrowed = V1Borrowed::decode(black_box(&bytes)).unwrap();
                let mut out = [0u8; 12 + 19 * 16 + 160];
                assert_eq!(borrowed.encode_into(black_box(&mut out)).unwrap(), len);
                assert_eq!(out[..len], bytes[..]);
            });
            prop_assert_eq!(s, IDLE);

            let c = CatervaV0 {
                shape: v.shape.iter().copied().take(8).collect(),
                chunkshape: v.chunkshape.iter().copied().take(8).collect(),
                blockshape: v.blockshape.iter().copied().take(8).collect(),
            };
            let (bytes, s) = measure(|| c.encode());
            prop_assert_eq!((s.allocs, s.bytes), (1, 6 + 19 * c.shape.len()));
            prop_assert_eq!(bytes.unwrap().capacity(), 6 + 19 * c.shape.len());
            Ok(())
        })
        .unwrap();
}

/// Values the schema refuses: `encode_into` refuses them without allocating, `encode` after at
/// most its one buffer.
#[test]
fn refused_values_allocate_at_most_the_buffer() {
    let good = B2ndV1 {
        shape: vec![1, 2],
        chunkshape: vec![1, 2],
        blockshape: vec![1, 2],
        dtype_format: 0,
        dtype: "<f8".into(),
    };
    let refused = [
        B2ndV1 {
            dtype_format: 128,
            ..good.clone()
        },
        B2ndV1 {
            chunkshape: vec![1],
            ..good.clone()
        },
        B2ndV1 {
            shape: vec![1; 17],
            chunkshape: vec![1; 17],
            blockshape: vec![1; 17],
            ..good.clone()
        },
    ];
    for v in &refused {
        let mut buf = [0u8; 512];
        let (r, s) = measure(|| v.encode_into(black_box(&mut buf)));
        assert!(r.is_err());
        assert_eq!(s, IDLE);
        let (r, s) = measure(|| v.encode());
        assert!(r.is_err());
        assert!(s.allocs <= 1 && s.live == 0, "{s:?}");
    }
    // A buffer too small is refused without allocating.
    let (r, s) = measure(|| good.encode_into(black_box(&mut [0u8; 8])));
    assert!(r.is_err());
    assert_eq!(s, IDLE);
}

// ---------------------------------------------------------------------------------------------
// The body check
// ---------------------------------------------------------------------------------------------

fn body_base() -> Vec<u8> {
    // python-blosc2 4.x: a frame of 4 chunks, chunksize 16, its index at 165.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/files/blosc2-4/dtype_i4le.b2nd");
    std::fs::read(path).unwrap()
}

/// What checking the body of `bytes` allocates, and the number of chunks it found.
fn body_stats(bytes: &[u8]) -> (u64, Stats) {
    let frame = metalayer::frame::FrameRef::parse(bytes).unwrap();
    let (body, s) = measure(|| metalayer::frame::check_body_from(std::io::Cursor::new(bytes), &frame, None));
    (body.unwrap().nchunks, s)
}

#[test]
fn a_special_index_of_2_pow_31_bytes_is_checked_in_a_few_hundred_bytes() {
    let nbytes = i32::MAX - 7;
    let nchunks = i64::from(nbytes / 8);
    let index = blosc2_chunk(0, 8, nbytes, 1 << 20, 0x30, &ZEROS.to_le_bytes());
    let bytes = frame_with_index(&body_base(), &index, nchunks * 16, 16);
    let (found, s) = body_stats(&bytes);
    assert_eq!(found, nchunks as u64);
    // The index's 40 bytes, its header, the reader's buffer: never 2 GiB.
    assert!(s.peak < 1024 && s.bytes < 4096, "{s:?}");
}

#[test]
fn a_compressed_index_is_held_a_block_at_a_time() {
    // 64 MiB of offsets of chunks of zeros (8388608 chunks), in blocks of 256 KiB, each block
    // its 8 shuffled streams as runs: 7 of zeros (a stream size of 0) and one of 0x81 (-129,
    // then a token). c-blosc2 writes a stream of one byte so.
    let (nbytes, blocksize) = (64usize << 20, 256usize << 10);
    let nblocks = nbytes / blocksize;
    let block: Vec<u8> = [0i32; 7]
        .iter()
        .flat_map(|z| z.to_le_bytes())
        .chain((-129i32).to_le_bytes())
        .chain([0x01])
        .collect();
    let data_at = 32 + 4 * nblocks;
    let mut rest: Vec<u8> = (0..nblocks)
        .flat_map(|b| ((data_at + b * block.len()) as i32).to_le_bytes())
        .collect();
    (0..nblocks).for_each(|_| rest.extend_from_slice(&block));
    let index = blosc2_chunk(0, 8, nbytes as i32, blocksize as i32, 0, &rest);
    let nchunks = (nbytes / 8) as i64;
    let bytes = frame_with_index(&body_base(), &index, nchunks * 16, 16);
    let (found, s) = body_stats(&bytes);
    assert_eq!(found, nchunks as u64);
    // The index chunk read whole (about 10 KiB), and three buffers of a block (the block and
    // the two of the shuffle): under 1/64 of what the index claims.
    let bound = (index.len() + 4 * blocksize + 4096) as isize;
    assert!(
        s.peak < bound && s.peak < (nbytes / 64) as isize,
        "{s:?}, bound {bound}"
    );
    assert!(s.peak > (3 * blocksize) as isize, "{s:?}: the blocks were not counted");
}
