//! Benchmarks of this project's generated `b2nd_v1` decoder and encoder against c-blosc2's
//! `b2nd_deserialize_meta` and `b2nd_serialize_meta`, rmp-serde, binrw and a hand-written
//! decoder and encoder, with the types and the inputs they share.
//!
//! `cargo bench -p metalayer-bench` runs them; `python3 bench/report.py` then prints the table of
//! times and ratios. The tests of this crate check that every implementation writes the same
//! bytes and reads the same values, and count heap allocations.

pub mod binrw_layouts;
pub mod hand;

use std::ffi::{CStr, c_char};
use std::ptr;

use arrayvec::ArrayVec;
use metalayer::b2nd::B2ndV1;
use metalayer::prelude::*;
use metalayer_cblosc2::ffi;
use serde::Deserialize;

/// The `b2nd_v1` layout with fixed-capacity arrays and a dtype borrowed from the input: decoding
/// it does not allocate.
#[metalayer(schema = "b2nd_v1")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Borrowed<'a> {
    /// The array's shape.
    pub shape: ArrayVec<i64, 16>,
    /// The shape of each chunk.
    pub chunkshape: ArrayVec<i32, 16>,
    /// The shape of each block.
    pub blockshape: ArrayVec<i32, 16>,
    /// The dtype's format.
    pub dtype_format: u8,
    /// The dtype.
    pub dtype: &'a str,
}

/// The `b2nd_v1` metalayer as rmp-serde sees it: a msgpack array of 7 values.
///
/// rmp-serde checks the msgpack types, not the layout: it would accept a version other than 0, a
/// `ndim` that disagrees with the arrays, or other integer widths.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RmpB2ndV1(
    /// The version.
    pub u8,
    /// `ndim`.
    pub u8,
    /// The array's shape.
    pub Vec<i64>,
    /// The shape of each chunk.
    pub Vec<i32>,
    /// The shape of each block.
    pub Vec<i32>,
    /// The dtype's format.
    pub u8,
    /// The dtype.
    pub String,
);

/// The `b2nd_v1` metalayer as rmp-serde sees it, with the types of [`Borrowed`]: fixed-capacity
/// arrays and a dtype borrowed from the input, so that rmp-serde is compared with the generated
/// decoder like for like when neither allocates.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RmpBorrowed<'a>(
    /// The version.
    pub u8,
    /// `ndim`.
    pub u8,
    /// The array's shape.
    pub ArrayVec<i64, 16>,
    /// The shape of each chunk.
    pub ArrayVec<i32, 16>,
    /// The shape of each block.
    pub ArrayVec<i32, 16>,
    /// The dtype's format.
    pub u8,
    /// The dtype.
    pub &'a str,
);

/// The dtype that a structured NumPy array with fields `a: <i4` and `b: <f8` stores.
pub const STRUCT_DTYPE: &str = "[('a', '<i4'), ('b', '<f8')]";

/// Realistic values for `ndim` dimensions: shapes in the thousands, chunks in the hundreds and
/// blocks in the tens.
pub fn sample(ndim: usize, dtype: &str) -> B2ndV1 {
    B2ndV1 {
        shape: (0..ndim as i64).map(|i| 1000 + 337 * i).collect(),
        chunkshape: (0..ndim as i32).map(|i| 100 + 31 * i).collect(),
        blockshape: (0..ndim as i32).map(|i| 10 + 3 * i).collect(),
        dtype_format: 0,
        dtype: dtype.into(),
    }
}

/// `meta` as the binrw type of the same layout.
pub fn to_binrw(meta: &B2ndV1) -> binrw_layouts::B2ndV1 {
    binrw_layouts::B2ndV1 {
        shape: meta.shape.iter().copied().map(binrw_layouts::Int64).collect(),
        chunkshape: meta.chunkshape.iter().copied().map(binrw_layouts::Int32).collect(),
        blockshape: meta.blockshape.iter().copied().map(binrw_layouts::Int32).collect(),
        dtype_format: meta.dtype_format,
        dtype: meta.dtype.clone(),
    }
}

/// What c-blosc2's `b2nd_deserialize_meta` writes, in arrays of 16 elements on the stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CDecoded {
    /// Its return value: the number of bytes read.
    pub read: i32,
    /// `ndim`.
    pub ndim: i8,
    /// The shape, in the first `ndim` elements.
    pub shape: [i64; 16],
    /// The chunk shape, in the first `ndim` elements.
    pub chunkshape: [i32; 16],
    /// The block shape, in the first `ndim` elements.
    pub blockshape: [i32; 16],
    /// The dtype's format.
    pub dtype_format: i8,
    /// The first byte of the dtype c-blosc2 allocated (before it is freed), so that reading it is
    /// part of the work.
    pub dtype_first: u8,
}

/// Calls `b2nd_deserialize_meta` directly, as c-blosc2 does when it opens an array, and frees the
/// dtype it allocates.
///
/// # Safety
///
/// c-blosc2 checks nothing: `bytes` must be a well-formed `b2nd_v1` metalayer (one that
/// [`B2ndV1::decode`] accepts).
#[inline]
pub unsafe fn c_decode(bytes: &[u8]) -> CDecoded {
    let mut out = CDecoded {
        read: 0,
        ndim: 0,
        shape: [0; 16],
        chunkshape: [0; 16],
        blockshape: [0; 16],
        dtype_format: 0,
        dtype_first: 0,
    };
    let mut dtype: *mut c_char = ptr::null_mut();
    // SAFETY: the caller guarantees a well-formed input, whose ndim is at most 16, the size of
    // the arrays; the other pointers are valid for writes.
    unsafe {
        out.read = ffi::b2nd_deserialize_meta(
            bytes.as_ptr(),
            bytes.len() as i32,
            &mut out.ndim,
            out.shape.as_mut_ptr(),
            out.chunkshape.as_mut_ptr(),
            out.blockshape.as_mut_ptr(),
            &mut dtype,
            &mut out.dtype_format,
        );
        if !dtype.is_null() {
            out.dtype_first = *dtype as u8;
        }
        ffi::free(dtype.cast());
    }
    out
}

/// Calls `b2nd_serialize_meta` directly, passes the bytes to `f` and frees c-blosc2's buffer.
///
/// # Panics
///
/// If the shapes have different lengths or more than 16, or c-blosc2 fails.
#[inline]
pub fn c_encode<R>(
    shape: &[i64],
    chunkshape: &[i32],
    blockshape: &[i32],
    dtype: &CStr,
    f: impl FnOnce(&[u8]) -> R,
) -> R {
    let n = shape.len();
    assert!(n <= 16 && chunkshape.len() == n && blockshape.len() == n);
    let mut smeta: *mut u8 = ptr::null_mut();
    // SAFETY: each array holds ndim elements, the dtype is NUL-terminated and `smeta` is a valid
    // out pointer; on success c-blosc2 allocated `len` bytes with malloc, which are read, then
    // freed once.
    unsafe {
        let len = ffi::b2nd_serialize_meta(
            n as i8,
            shape.as_ptr(),
            chunkshape.as_ptr(),
            blockshape.as_ptr(),
            dtype.as_ptr(),
            0,
            &mut smeta,
        );
        assert!(len >= 0 && !smeta.is_null(), "c-blosc2 failed: {len}");
        let r = f(std::slice::from_raw_parts(smeta, len as usize));
        ffi::free(smeta.cast());
        r
    }
}

/// The three built-in layouts' struct definitions, as the attribute receives them: the
/// attribute's arguments and the item (doc comments, derives and fields), from `src/b2nd.rs`
/// and `src/caterva.rs`.
pub fn builtin_structs() -> Vec<(String, proc_macro2::TokenStream, proc_macro2::TokenStream)> {
    const SOURCES: [&str; 2] = [include_str!("../../src/b2nd.rs"), include_str!("../../src/caterva.rs")];
    const ATTR: &str = "#[metalayer(";
    let mut out = Vec::new();
    for source in SOURCES {
        let lines: Vec<&str> = source.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(args) = line.strip_prefix(ATTR).and_then(|rest| rest.strip_suffix(")]")) else {
                continue;
            };
            let docs_start = lines[..i]
                .iter()
                .rposition(|l| !l.starts_with("///"))
                .map_or(0, |p| p + 1);
            let end = i + lines[i..]
                .iter()
                .position(|l| *l == "}")
                .expect("a struct ends with `}`");
            let item = lines[docs_start..i]
                .iter()
                .chain(&lines[i + 1..=end])
                .copied()
                .collect::<Vec<_>>()
                .join("\n");
            let name = args
                .split('"')
                .nth(1)
                .expect("the schema name is a string literal")
                .to_string();
            out.push((
                name,
                args.parse().expect("attribute arguments are tokens"),
                item.parse().expect("the struct is tokens"),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_structs_are_found_and_expand_cleanly() {
        let structs = builtin_structs();
        let names: Vec<&str> = structs.iter().map(|(n, _, _)| n.as_str()).collect();
        assert_eq!(names, ["b2nd_v1", "b2nd_v0", "caterva_v0"]);
        for (name, args, item) in structs {
            assert!(item.to_string().contains("pub struct"), "{name}");
            let out =
                metalayer_codegen::expand_in(args, item, std::path::Path::new(env!("CARGO_MANIFEST_DIR"))).to_string();
            assert!(out.contains("Metalayer for"), "{name}");
            assert!(!out.contains("compile_error"), "{name}: {out}");
        }
    }

    #[test]
    fn c_decode_reads_what_c_encode_writes() {
        let meta = sample(3, "<f8");
        let bytes = c_encode(&meta.shape, &meta.chunkshape, &meta.blockshape, c"<f8", <[u8]>::to_vec);
        assert_eq!(bytes, meta.encode().unwrap());
        // SAFETY: c-blosc2 wrote these bytes: a well-formed b2nd_v1 metalayer.
        let c = unsafe { c_decode(&bytes) };
        assert_eq!((c.read as usize, c.ndim, c.dtype_first), (bytes.len(), 3, b'<'));
        assert_eq!(c.shape[..3], meta.shape[..]);
    }
}
