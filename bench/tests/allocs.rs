//! Heap allocations per call, counted by a global allocator: none for the generated borrowed and
//! fixed-capacity decoder nor for `encode_into`, and how many for the others.
//!
//! c-blosc2 allocates with `malloc`, which Rust's allocator does not see: `b2nd_serialize_meta`
//! mallocs its output buffer and `b2nd_deserialize_meta` mallocs a copy of the dtype (see
//! `blosc/b2nd.c`). On glibc the usable size of those blocks is read before they are freed.
//!
//! `cargo test -p metalayer-bench --test allocs -- --nocapture` prints the table. With
//! `METALAYER_BENCH_OUT=DIR` it also writes it to `DIR/allocs.txt`, and the numbers to
//! `DIR/allocs.json` (a relative `DIR` is relative to `bench/`, where cargo runs the test).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::ffi::CString;
use std::hint::black_box;

use metalayer::b2nd::B2ndV1;
use metalayer::prelude::*;
use metalayer_bench::{Borrowed, RmpB2ndV1, RmpBorrowed, binrw_layouts, c_decode, c_encode, hand, sample, to_binrw};

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
    static BYTES: Cell<usize> = const { Cell::new(0) };
}

/// The system allocator, counting the allocations (and reallocations) of the thread that asked.
struct Counting;

fn note(size: usize) {
    if COUNTING.with(Cell::get) {
        ALLOCS.with(|c| c.set(c.get() + 1));
        BYTES.with(|c| c.set(c.get() + size));
    }
}

// SAFETY: every call is forwarded to `System` unchanged; the counters are thread-local cells
// with constant initialisers, which neither allocate nor run destructors.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: forwarded from the caller.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: forwarded from the caller.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: forwarded from the caller.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded from the caller.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f` and returns the allocations and bytes it asked Rust's allocator for; what `f`
/// returns is dropped after counting.
fn count<R>(f: impl FnOnce() -> R) -> (usize, usize) {
    ALLOCS.with(|c| c.set(0));
    BYTES.with(|c| c.set(0));
    COUNTING.with(|c| c.set(true));
    let r = black_box(f());
    COUNTING.with(|c| c.set(false));
    drop(r);
    (ALLOCS.with(Cell::get), BYTES.with(Cell::get))
}

/// The usable size of a block c-blosc2 allocated with malloc (glibc's `malloc_usable_size`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn usable_size(ptr: *mut std::ffi::c_void) -> Option<usize> {
    // SAFETY: `ptr` is a live block from malloc.
    Some(unsafe { libc::malloc_usable_size(ptr) })
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn usable_size(_: *mut std::ffi::c_void) -> Option<usize> {
    None
}

/// The usable sizes of the blocks c-blosc2's two calls malloc, looked at before they are freed:
/// the output buffer of `b2nd_serialize_meta` and the dtype of `b2nd_deserialize_meta`.
fn c_malloc_sizes(meta: &B2ndV1, bytes: &[u8]) -> (Option<usize>, Option<usize>) {
    use metalayer_cblosc2::ffi;
    let dtype = CString::new(meta.dtype.as_str()).unwrap();
    let mut smeta: *mut u8 = std::ptr::null_mut();
    // SAFETY: each array holds ndim elements, the dtype is NUL-terminated and `smeta` is a valid
    // out pointer; the buffer is freed once below.
    let len = unsafe {
        ffi::b2nd_serialize_meta(
            meta.shape.len() as i8,
            meta.shape.as_ptr(),
            meta.chunkshape.as_ptr(),
            meta.blockshape.as_ptr(),
            dtype.as_ptr(),
            0,
            &mut smeta,
        )
    };
    assert_eq!(len as usize, bytes.len());
    let serialize = usable_size(smeta.cast());
    // SAFETY: c-blosc2 allocated it with malloc.
    unsafe { ffi::free(smeta.cast()) };

    let mut out = ([0i64; 16], [0i32; 16], [0i32; 16]);
    let (mut ndim, mut dtype_format) = (0i8, 0i8);
    let mut dtype: *mut std::ffi::c_char = std::ptr::null_mut();
    // SAFETY: `bytes` is a well-formed b2nd_v1 metalayer with at most 16 dimensions, the size of
    // the arrays; the dtype is freed once below.
    unsafe {
        ffi::b2nd_deserialize_meta(
            bytes.as_ptr(),
            bytes.len() as i32,
            &mut ndim,
            out.0.as_mut_ptr(),
            out.1.as_mut_ptr(),
            out.2.as_mut_ptr(),
            &mut dtype,
            &mut dtype_format,
        )
    };
    assert!(!dtype.is_null());
    let deserialize = usable_size(dtype.cast());
    // SAFETY: c-blosc2 allocated it with malloc.
    unsafe { ffi::free(dtype.cast()) };
    (serialize, deserialize)
}

#[test]
fn allocations_per_call() {
    let mut rows: Vec<(String, usize, usize, usize, String)> = Vec::new();
    for ndim in [0, 2, 8, 15] {
        let meta = sample(ndim, "<f8");
        let bytes = meta.encode().unwrap();
        let borrowed = Borrowed::decode(&bytes).unwrap();
        let bin = to_binrw(&meta);
        let mut buf = vec![0u8; bytes.len()];
        let c_dtype = CString::new("<f8").unwrap();
        let mut row = |name: &str, (allocs, size): (usize, usize), note: &str| {
            rows.push((name.to_string(), ndim, allocs, size, note.to_string()));
            (allocs, size)
        };

        // The generated decoder and encoder.
        assert_eq!(
            row(
                "ours decode, ArrayVec + &str",
                count(|| Borrowed::decode(&bytes).unwrap()),
                ""
            )
            .0,
            0
        );
        assert_eq!(
            row(
                "ours encode_into (Vec fields)",
                count(|| meta.encode_into(&mut buf).unwrap()),
                ""
            )
            .0,
            0
        );
        assert_eq!(
            row(
                "ours encode_into (ArrayVec fields)",
                count(|| borrowed.encode_into(&mut buf).unwrap()),
                ""
            )
            .0,
            0
        );
        let owned = row(
            "ours decode, Vec + String",
            count(|| B2ndV1::decode(&bytes).unwrap()),
            "",
        );
        assert_eq!(owned.0, if ndim == 0 { 1 } else { 4 }, "3 Vecs and a String");
        assert_eq!(row("ours encode() -> Vec", count(|| meta.encode().unwrap()), "").0, 1);

        // The others.
        assert_eq!(
            row(
                "hand decode, ArrayVec + &str",
                count(|| hand::decode(&bytes).unwrap()),
                ""
            )
            .0,
            0
        );
        assert_eq!(
            row(
                "hand encode_into",
                count(|| hand::encode_into(
                    &meta.shape,
                    &meta.chunkshape,
                    &meta.blockshape,
                    0,
                    &meta.dtype,
                    &mut buf
                )
                .unwrap()),
                ""
            )
            .0,
            0
        );
        row(
            "hand decode, Vec + String",
            count(|| hand::decode_owned(&bytes).unwrap()),
            "",
        );
        let (ser, de) = c_malloc_sizes(&meta, &bytes);
        let seen = |b: Option<usize>| b.map_or(String::new(), |b| format!(" of {b} usable bytes"));
        // SAFETY: the bytes are a well-formed b2nd_v1 metalayer.
        let c = count(|| unsafe { c_decode(&bytes) });
        assert_eq!(
            row(
                "c-blosc2 b2nd_deserialize_meta + free",
                c,
                &format!("1 malloc (the dtype){}", seen(de))
            )
            .0,
            0
        );
        let c = count(|| c_encode(&meta.shape, &meta.chunkshape, &meta.blockshape, &c_dtype, |b| b.len()));
        assert_eq!(
            row(
                "c-blosc2 b2nd_serialize_meta + free",
                c,
                &format!("1 malloc (the output){}", seen(ser))
            )
            .0,
            0
        );
        row(
            "rmp-serde from_slice",
            count(|| rmp_serde::from_slice::<RmpB2ndV1>(&bytes).unwrap()),
            "",
        );
        row(
            "rmp-serde from_slice, ArrayVec + &str",
            count(|| rmp_serde::from_slice::<RmpBorrowed<'_>>(&bytes).unwrap()),
            "",
        );
        row(
            "binrw read",
            count(|| binrw_layouts::read_exact::<binrw_layouts::B2ndV1>(&bytes).unwrap()),
            "",
        );
        row(
            "binrw write, Cursor<&mut [u8]>",
            count(|| binrw_layouts::write_slice(&bin, &mut buf).unwrap()),
            "",
        );
        row(
            "binrw write, Cursor<Vec>",
            count(|| binrw_layouts::write_vec(&bin).unwrap()),
            "",
        );
    }

    // One line per operation, one column per ndim.
    let ndims = [0, 2, 8, 15];
    let mut names: Vec<&str> = Vec::new();
    for (name, ..) in &rows {
        if !names.contains(&name.as_str()) {
            names.push(name);
        }
    }
    let cell = |name: &str, n: usize| rows.iter().find(|r| r.0 == name && r.1 == n).unwrap();
    let note = |name: &str| &rows.iter().rev().find(|r| r.0 == name).unwrap().4;
    let mut table = String::new();
    table.push_str(
        "| operation (dtype \"<f8\") | ndim 0 | ndim 2 | ndim 8 | ndim 15 | not seen by Rust's allocator |\n",
    );
    table.push_str("|---|---|---|---|---|---|\n");
    for &name in &names {
        let cells: Vec<String> = ndims
            .iter()
            .map(|&n| {
                let (_, _, a, b, _) = cell(name, n);
                format!("{a} ({b} B)")
            })
            .collect();
        table.push_str(&format!("| {name} | {} | {} |\n", cells.join(" | "), note(name)));
    }
    table.push_str("\nallocations (bytes requested) per call; the malloc sizes in the last column are for ndim 15\n");
    eprintln!();
    eprintln!("{table}");

    // The same numbers as files, for `bench/run.sh` and `bench/report.py`.
    if let Some(dir) = std::env::var_os("METALAYER_BENCH_OUT") {
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("allocs.txt"), &table).unwrap();
        let operations: Vec<String> = names
            .iter()
            .map(|&name| {
                let by_ndim: Vec<String> = ndims
                    .iter()
                    .map(|&n| {
                        let (_, _, a, b, _) = cell(name, n);
                        format!("\"{n}\": {{\"allocs\": {a}, \"bytes\": {b}}}")
                    })
                    .collect();
                format!(
                    "    {{\"operation\": {}, \"note\": {}, \"by_ndim\": {{{}}}}}",
                    json_string(name),
                    json_string(note(name)),
                    by_ndim.join(", ")
                )
            })
            .collect();
        let json = format!(
            "{{\n  \"dtype\": \"<f8\",\n  \"ndims\": {ndims:?},\n  \"profile\": {},\n  \"operations\": [\n{}\n  ]\n}}\n",
            json_string(if cfg!(debug_assertions) { "debug" } else { "release" }),
            operations.join(",\n")
        );
        std::fs::write(dir.join("allocs.json"), json).unwrap();
        eprintln!("wrote allocs.txt and allocs.json in {}", dir.display());
    }
}

/// `s` as a JSON string literal.
fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
