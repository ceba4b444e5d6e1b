//! A hand-written decoder and encoder for the `b2nd_v1` layout, as fast as this layout allows,
//! for comparison with the generated ones. They check everything the generated code checks:
//! the container marker, the version constant, the range of `ndim`, array headers equal to
//! `0x90 + ndim`, every element marker, the dtype_format fixint, the str32 marker, truncation,
//! the dtype's UTF-8 and trailing bytes; the encoder checks the lengths, `ndim <= 16`, the
//! fixint and the buffer's size before it writes.
//!
//! What it does not do is say where and why the way the generated code does: its error is a
//! byte offset and a kind.
//!
//! The layout is fixed once `ndim` is known: `12 + 19 * ndim` bytes up to and including the
//! dtype's length prefix, so one length check covers every read but the dtype's text. The
//! element markers are folded together and checked once per array. The result is built in place
//! (`ArrayVec::new()` and pushes): filling a zeroed `[i64; 16]` and converting it costs a copy of
//! the whole capacity, which measured twice as slow.
//!
//! Like the runtime, it is safe code.
#![forbid(unsafe_code)]

use arrayvec::ArrayVec;

/// The largest `ndim` of `b2nd_v1`.
pub const MAX_DIM: usize = 16;

/// What was wrong with the input, or with a value to encode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The input ends early.
    Truncated,
    /// A marker byte (container, array header, element, str32) differs.
    Marker,
    /// The version is not 0.
    Version,
    /// `ndim` is over 16 (or not a fixint).
    Ndim,
    /// dtype_format is not a positive fixint.
    Fixint,
    /// The dtype is not UTF-8.
    Utf8,
    /// Bytes follow the last entry.
    Trailing,
    /// Encoding: arrays of different lengths, or longer than 16.
    Lengths,
    /// Encoding: the dtype does not fit a str32.
    TooLong,
    /// Encoding: the buffer is too small.
    Buffer,
}

/// An error and the byte offset it was found at (0 for encoding errors).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Error {
    /// The offset of the offending byte.
    pub at: usize,
    /// What was wrong.
    pub kind: Kind,
}

#[cold]
#[inline(never)]
fn err<T>(at: usize, kind: Kind) -> Result<T, Error> {
    Err(Error { at, kind })
}

/// The decoded metalayer, borrowing the dtype and holding the arrays in place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meta<'a> {
    /// The array's shape.
    pub shape: ArrayVec<i64, MAX_DIM>,
    /// The shape of each chunk.
    pub chunkshape: ArrayVec<i32, MAX_DIM>,
    /// The shape of each block.
    pub blockshape: ArrayVec<i32, MAX_DIM>,
    /// The dtype's format.
    pub dtype_format: u8,
    /// The dtype.
    pub dtype: &'a str,
}

/// The decoded metalayer in `Vec`s and a `String`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct OwnedMeta {
    /// The array's shape.
    pub shape: Vec<i64>,
    /// The shape of each chunk.
    pub chunkshape: Vec<i32>,
    /// The shape of each block.
    pub blockshape: Vec<i32>,
    /// The dtype's format.
    pub dtype_format: u8,
    /// The dtype.
    pub dtype: String,
}

/// The encoded length for `ndim` dimensions and a dtype of `dtype_len` bytes.
pub const fn encoded_len(ndim: usize, dtype_len: usize) -> usize {
    12 + 19 * ndim + dtype_len
}

/// Appends the int64 elements (marker `0xd3` and 8 bytes each) in `bytes`, which follow the
/// array header at `at`.
#[inline(always)]
fn int64s(v: &mut ArrayVec<i64, MAX_DIM>, bytes: &[u8], at: usize) -> Result<(), Error> {
    let mut bad = 0u8;
    for chunk in bytes.chunks_exact(9).take(MAX_DIM) {
        bad |= chunk[0] ^ 0xd3;
        v.push(i64::from_be_bytes([
            chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7], chunk[8],
        ]));
    }
    if bad != 0 {
        let i = bytes.chunks_exact(9).position(|c| c[0] != 0xd3).unwrap_or(0);
        return err(at + 1 + 9 * i, Kind::Marker);
    }
    Ok(())
}

/// Appends the int32 elements (marker `0xd2` and 4 bytes each) in `bytes`, which follow the
/// array header at `at`.
#[inline(always)]
fn int32s(v: &mut ArrayVec<i32, MAX_DIM>, bytes: &[u8], at: usize) -> Result<(), Error> {
    let mut bad = 0u8;
    for chunk in bytes.chunks_exact(5).take(MAX_DIM) {
        bad |= chunk[0] ^ 0xd2;
        v.push(i32::from_be_bytes([chunk[1], chunk[2], chunk[3], chunk[4]]));
    }
    if bad != 0 {
        let i = bytes.chunks_exact(5).position(|c| c[0] != 0xd2).unwrap_or(0);
        return err(at + 1 + 5 * i, Kind::Marker);
    }
    Ok(())
}

/// Decodes `input`, which must hold exactly one `b2nd_v1` metalayer.
#[inline]
pub fn decode(input: &[u8]) -> Result<Meta<'_>, Error> {
    let &[container, version, ndim, ..] = input else {
        return err(input.len(), Kind::Truncated);
    };
    if container != 0x97 {
        return err(0, Kind::Marker);
    }
    if version != 0 {
        return err(1, Kind::Version);
    }
    if ndim as usize > MAX_DIM {
        return err(2, Kind::Ndim);
    }
    let n = ndim as usize;
    // Up to and including the dtype's length prefix.
    let fixed = encoded_len(n, 0);
    let Some(head) = input.get(..fixed) else {
        return err(input.len(), Kind::Truncated);
    };
    let header = 0x90 + ndim;

    let shape_at = 3;
    let chunk_at = shape_at + 1 + 9 * n;
    let block_at = chunk_at + 1 + 5 * n;
    let tail_at = block_at + 1 + 5 * n;
    if head[shape_at] != header {
        return err(shape_at, Kind::Marker);
    }
    if head[chunk_at] != header {
        return err(chunk_at, Kind::Marker);
    }
    if head[block_at] != header {
        return err(block_at, Kind::Marker);
    }
    let mut m = Meta {
        shape: ArrayVec::new(),
        chunkshape: ArrayVec::new(),
        blockshape: ArrayVec::new(),
        dtype_format: 0,
        dtype: "",
    };
    int64s(&mut m.shape, &head[shape_at + 1..chunk_at], shape_at)?;
    int32s(&mut m.chunkshape, &head[chunk_at + 1..block_at], chunk_at)?;
    int32s(&mut m.blockshape, &head[block_at + 1..tail_at], block_at)?;

    let &[dtype_format, marker, l0, l1, l2, l3] = &head[tail_at..] else {
        unreachable!("the head ends 6 bytes after blockshape")
    };
    if dtype_format > 0x7f {
        return err(tail_at, Kind::Fixint);
    }
    if marker != 0xdb {
        return err(tail_at + 1, Kind::Marker);
    }
    let len = u32::from_be_bytes([l0, l1, l2, l3]) as usize;
    let rest = &input[fixed..];
    if rest.len() != len {
        return if rest.len() < len {
            err(input.len(), Kind::Truncated)
        } else {
            err(fixed + len, Kind::Trailing)
        };
    }
    let dtype = match core::str::from_utf8(rest) {
        Ok(s) => s,
        Err(e) => return err(fixed + e.valid_up_to(), Kind::Utf8),
    };
    m.dtype_format = dtype_format;
    m.dtype = dtype;
    Ok(m)
}

/// Decodes `input` into `Vec`s and a `String`: the same checks, then one exact allocation each.
#[inline]
pub fn decode_owned(input: &[u8]) -> Result<OwnedMeta, Error> {
    let m = decode(input)?;
    Ok(OwnedMeta {
        shape: m.shape.to_vec(),
        chunkshape: m.chunkshape.to_vec(),
        blockshape: m.blockshape.to_vec(),
        dtype_format: m.dtype_format,
        dtype: m.dtype.into(),
    })
}

/// Encodes into the front of `buf` and returns the number of bytes written; nothing is written
/// when the values or the buffer do not fit.
#[inline]
pub fn encode_into(
    shape: &[i64],
    chunkshape: &[i32],
    blockshape: &[i32],
    dtype_format: u8,
    dtype: &str,
    buf: &mut [u8],
) -> Result<usize, Error> {
    let n = shape.len();
    if n > MAX_DIM || chunkshape.len() != n || blockshape.len() != n {
        return err(0, Kind::Lengths);
    }
    if dtype_format > 0x7f {
        return err(0, Kind::Fixint);
    }
    let Ok(dtype_len) = u32::try_from(dtype.len()) else {
        return err(0, Kind::TooLong);
    };
    let len = encoded_len(n, dtype.len());
    let Some(out) = buf.get_mut(..len) else {
        return err(0, Kind::Buffer);
    };
    let header = 0x90 + n as u8;
    let (head, out) = out.split_at_mut(4);
    head.copy_from_slice(&[0x97, 0x00, n as u8, header]);
    let (shape_out, out) = out.split_at_mut(9 * n);
    for (chunk, v) in shape_out.chunks_exact_mut(9).zip(shape) {
        chunk[0] = 0xd3;
        chunk[1..].copy_from_slice(&v.to_be_bytes());
    }
    out[0] = header;
    let (chunk_out, out) = out[1..].split_at_mut(5 * n);
    for (chunk, v) in chunk_out.chunks_exact_mut(5).zip(chunkshape) {
        chunk[0] = 0xd2;
        chunk[1..].copy_from_slice(&v.to_be_bytes());
    }
    out[0] = header;
    let (block_out, out) = out[1..].split_at_mut(5 * n);
    for (chunk, v) in block_out.chunks_exact_mut(5).zip(blockshape) {
        chunk[0] = 0xd2;
        chunk[1..].copy_from_slice(&v.to_be_bytes());
    }
    let (tail, text) = out.split_at_mut(6);
    let l = dtype_len.to_be_bytes();
    tail.copy_from_slice(&[dtype_format, 0xdb, l[0], l[1], l[2], l[3]]);
    text.copy_from_slice(dtype.as_bytes());
    Ok(len)
}
