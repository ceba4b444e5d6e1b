//! The three built-in metalayer layouts (`b2nd_v1`, `b2nd_v0`, `caterva_v0`) described with
//! binrw attributes, writing exactly the bytes c-blosc2 (and this project's encoder) writes and
//! reading them back with the same checks: every marker byte, the version constant, the range of
//! `ndim`, array headers equal to `0x90 + ndim`, positive fixints, UTF-8 dtypes.
//!
//! binrw does not check for trailing bytes, and its `count` reads elements one by one, so
//! [`read_exact`] reads from a slice and fails unless all of it was used.
//!
//! This file depends on nothing but binrw and std.

use binrw::io::Cursor;
use binrw::meta::{ReadEndian, WriteEndian};
use binrw::{BinRead, BinResult, BinWrite, binrw};

/// One element of an int64 array: the marker `0xd3` and eight big-endian bytes.
#[binrw]
#[brw(big, magic = 0xd3u8)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Int64(pub i64);

/// One element of an int32 array: the marker `0xd2` and four big-endian bytes.
#[binrw]
#[brw(big, magic = 0xd2u8)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Int32(pub i32);

/// The 7-entry `b2nd` layout every c-blosc2 release writes: fixarray `0x97`, version 0, ndim
/// (0..=16), shape, chunkshape and blockshape as arrays with header `0x90 + ndim`, dtype_format
/// (a positive fixint) and the dtype as a str32.
#[binrw]
#[brw(big, magic = b"\x97\x00")]
#[bw(assert(
    shape.len() <= 16 && chunkshape.len() == shape.len() && blockshape.len() == shape.len(),
    "ndim over 16 or arrays of different lengths"
))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct B2ndV1 {
    #[br(temp, assert(ndim <= 16, "ndim {} over 16", ndim))]
    #[bw(calc = shape.len() as u8)]
    ndim: u8,
    #[br(temp, assert(shape_header == 0x90 + ndim, "shape header {:#04x}", shape_header))]
    #[bw(calc = 0x90 + ndim)]
    shape_header: u8,
    /// The array's shape.
    #[br(count = ndim)]
    pub shape: Vec<Int64>,
    #[br(temp, assert(chunkshape_header == 0x90 + ndim, "chunkshape header {:#04x}", chunkshape_header))]
    #[bw(calc = 0x90 + ndim)]
    chunkshape_header: u8,
    /// The shape of each chunk.
    #[br(count = ndim)]
    pub chunkshape: Vec<Int32>,
    #[br(temp, assert(blockshape_header == 0x90 + ndim, "blockshape header {:#04x}", blockshape_header))]
    #[bw(calc = 0x90 + ndim)]
    blockshape_header: u8,
    /// The shape of each block.
    #[br(count = ndim)]
    pub blockshape: Vec<Int32>,
    /// The dtype's format (a positive fixint): 0 is NumPy.
    #[br(assert(dtype_format <= 0x7f, "dtype_format {:#04x} is not a positive fixint", dtype_format))]
    #[bw(assert(*dtype_format <= 0x7f, "dtype_format {} is not a positive fixint", dtype_format))]
    pub dtype_format: u8,
    #[brw(magic = 0xdbu8)]
    #[br(temp)]
    #[bw(try_calc = u32::try_from(dtype.len()))]
    dtype_len: u32,
    /// The dtype, such as `"<f8"`.
    #[br(count = dtype_len, try_map = String::from_utf8)]
    #[bw(map = String::as_bytes)]
    pub dtype: String,
}

/// The 6-entry `b2nd` layout of pre-release c-blosc2: fixarray `0x96`, version 0, ndim (0..=8),
/// shape, chunkshape and blockshape, and the dtype as a str32 holding NumPy's repr (`"uint8"`).
#[binrw]
#[brw(big, magic = b"\x96\x00")]
#[bw(assert(
    shape.len() <= 8 && chunkshape.len() == shape.len() && blockshape.len() == shape.len(),
    "ndim over 8 or arrays of different lengths"
))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct B2ndV0 {
    #[br(temp, assert(ndim <= 8, "ndim {} over 8", ndim))]
    #[bw(calc = shape.len() as u8)]
    ndim: u8,
    #[br(temp, assert(shape_header == 0x90 + ndim, "shape header {:#04x}", shape_header))]
    #[bw(calc = 0x90 + ndim)]
    shape_header: u8,
    /// The array's shape.
    #[br(count = ndim)]
    pub shape: Vec<Int64>,
    #[br(temp, assert(chunkshape_header == 0x90 + ndim, "chunkshape header {:#04x}", chunkshape_header))]
    #[bw(calc = 0x90 + ndim)]
    chunkshape_header: u8,
    /// The shape of each chunk.
    #[br(count = ndim)]
    pub chunkshape: Vec<Int32>,
    #[br(temp, assert(blockshape_header == 0x90 + ndim, "blockshape header {:#04x}", blockshape_header))]
    #[bw(calc = 0x90 + ndim)]
    blockshape_header: u8,
    /// The shape of each block.
    #[br(count = ndim)]
    pub blockshape: Vec<Int32>,
    #[brw(magic = 0xdbu8)]
    #[br(temp)]
    #[bw(try_calc = u32::try_from(dtype.len()))]
    dtype_len: u32,
    /// The dtype as NumPy's repr, such as `"uint8"`.
    #[br(count = dtype_len, try_map = String::from_utf8)]
    #[bw(map = String::as_bytes)]
    pub dtype: String,
}

/// The 5-entry caterva layout: fixarray `0x95`, version 0, ndim (0..=8), shape, chunkshape and
/// blockshape, no dtype.
#[binrw]
#[brw(big, magic = b"\x95\x00")]
#[bw(assert(
    shape.len() <= 8 && chunkshape.len() == shape.len() && blockshape.len() == shape.len(),
    "ndim over 8 or arrays of different lengths"
))]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct CatervaV0 {
    #[br(temp, assert(ndim <= 8, "ndim {} over 8", ndim))]
    #[bw(calc = shape.len() as u8)]
    ndim: u8,
    #[br(temp, assert(shape_header == 0x90 + ndim, "shape header {:#04x}", shape_header))]
    #[bw(calc = 0x90 + ndim)]
    shape_header: u8,
    /// The array's shape.
    #[br(count = ndim)]
    pub shape: Vec<Int64>,
    #[br(temp, assert(chunkshape_header == 0x90 + ndim, "chunkshape header {:#04x}", chunkshape_header))]
    #[bw(calc = 0x90 + ndim)]
    chunkshape_header: u8,
    /// The shape of each chunk.
    #[br(count = ndim)]
    pub chunkshape: Vec<Int32>,
    #[br(temp, assert(blockshape_header == 0x90 + ndim, "blockshape header {:#04x}", blockshape_header))]
    #[bw(calc = 0x90 + ndim)]
    blockshape_header: u8,
    /// The shape of each block.
    #[br(count = ndim)]
    pub blockshape: Vec<Int32>,
}

/// Reads a `T` that must fill all of `bytes`: trailing bytes are an error.
pub fn read_exact<T>(bytes: &[u8]) -> BinResult<T>
where
    T: for<'a> BinRead<Args<'a> = ()> + ReadEndian,
{
    let mut cursor = Cursor::new(bytes);
    let value = T::read(&mut cursor)?;
    let pos = cursor.position();
    if pos != bytes.len() as u64 {
        return Err(binrw::Error::AssertFail {
            pos,
            message: format!("{} trailing bytes", bytes.len() as u64 - pos),
        });
    }
    Ok(value)
}

/// Writes `value` into a new `Vec`.
pub fn write_vec<T>(value: &T) -> BinResult<Vec<u8>>
where
    T: for<'a> BinWrite<Args<'a> = ()> + WriteEndian,
{
    let mut cursor = Cursor::new(Vec::new());
    value.write(&mut cursor)?;
    Ok(cursor.into_inner())
}

/// Writes `value` into the front of `buf` and returns the number of bytes written.
pub fn write_slice<T>(value: &T, buf: &mut [u8]) -> BinResult<usize>
where
    T: for<'a> BinWrite<Args<'a> = ()> + WriteEndian,
{
    let mut cursor = Cursor::new(buf);
    value.write(&mut cursor)?;
    Ok(cursor.position() as usize)
}
