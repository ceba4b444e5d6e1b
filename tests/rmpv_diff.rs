//! Differential test against rmpv, an independent msgpack implementation: what our encoders
//! write for every built-in schema is one msgpack value that rmpv reads back to exactly the
//! expected structure, consuming every byte, with the wire types the schema states (checked by a
//! small walker written from the msgpack specification, since `rmpv::Value` forgets widths).
//!
//! The one exception is documented by [`b2nd_v1_ndim_16_is_not_msgpack`]: c-blosc2's array
//! header `0x90 + 16 = 0xa0`, which msgpack reads as an empty string.

use metalayer::b2nd::{B2ndV0, B2ndV1};
use metalayer::caterva::CatervaV0;
use metalayer::prelude::*;
use proptest::prelude::*;
use proptest::test_runner::Config;
use rmpv::Value;

// ---------------------------------------------------------------------------------------------
// A msgpack walker, from the specification
// ---------------------------------------------------------------------------------------------

/// The wire type of one msgpack value, with its length or element count where it has one, named
/// as in the msgpack specification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wire {
    PosFixInt(u8),
    NegFixInt(i8),
    FixMap(u32),
    FixArray(u32),
    FixStr(u32),
    Nil,
    False,
    True,
    Bin8(u32),
    Bin16(u32),
    Bin32(u32),
    Ext8(u32),
    Ext16(u32),
    Ext32(u32),
    Float32,
    Float64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Int8,
    Int16,
    Int32,
    Int64,
    FixExt1,
    FixExt2,
    FixExt4,
    FixExt8,
    FixExt16,
    Str8(u32),
    Str16(u32),
    Str32(u32),
    Array16(u32),
    Array32(u32),
    Map16(u32),
    Map32(u32),
}

fn take<'a>(bytes: &'a [u8], pos: &mut usize, n: usize) -> Result<&'a [u8], String> {
    let out = bytes
        .get(*pos..)
        .and_then(|rest| rest.get(..n))
        .ok_or_else(|| format!("at byte {}: {n} bytes needed, {} left", *pos, bytes.len() - *pos))?;
    *pos += n;
    Ok(out)
}

fn be(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0, |acc, &b| (acc << 8) | u32::from(b))
}

/// Reads one msgpack value at `*pos`: appends its wire type, then those of its elements (keys
/// and values for maps), in order, and skips payloads.
fn walk(bytes: &[u8], pos: &mut usize, out: &mut Vec<Wire>) -> Result<(), String> {
    use Wire::*;
    let m = take(bytes, pos, 1)?[0];
    let mut len = |n| take(bytes, pos, n).map(be);
    // (wire type, payload bytes, elements)
    let (wire, payload, elements): (Wire, u32, u64) = match m {
        0x00..=0x7f => (PosFixInt(m), 0, 0),
        0x80..=0x8f => (FixMap(u32::from(m & 0x0f)), 0, 2 * u64::from(m & 0x0f)),
        0x90..=0x9f => (FixArray(u32::from(m & 0x0f)), 0, u64::from(m & 0x0f)),
        0xa0..=0xbf => (FixStr(u32::from(m & 0x1f)), u32::from(m & 0x1f), 0),
        0xc0 => (Nil, 0, 0),
        0xc1 => return Err(format!("at byte {}: 0xc1 is never used", *pos - 1)),
        0xc2 => (False, 0, 0),
        0xc3 => (True, 0, 0),
        0xc4 => len(1).map(|n| (Bin8(n), n, 0))?,
        0xc5 => len(2).map(|n| (Bin16(n), n, 0))?,
        0xc6 => len(4).map(|n| (Bin32(n), n, 0))?,
        // Extensions: a type byte, then the data.
        0xc7 => len(1).map(|n| (Ext8(n), n + 1, 0))?,
        0xc8 => len(2).map(|n| (Ext16(n), n + 1, 0))?,
        0xc9 => len(4).map(|n| (Ext32(n), n.saturating_add(1), 0))?,
        0xca => (Float32, 4, 0),
        0xcb => (Float64, 8, 0),
        0xcc => (UInt8, 1, 0),
        0xcd => (UInt16, 2, 0),
        0xce => (UInt32, 4, 0),
        0xcf => (UInt64, 8, 0),
        0xd0 => (Int8, 1, 0),
        0xd1 => (Int16, 2, 0),
        0xd2 => (Int32, 4, 0),
        0xd3 => (Int64, 8, 0),
        0xd4 => (FixExt1, 2, 0),
        0xd5 => (FixExt2, 3, 0),
        0xd6 => (FixExt4, 5, 0),
        0xd7 => (FixExt8, 9, 0),
        0xd8 => (FixExt16, 17, 0),
        0xd9 => len(1).map(|n| (Str8(n), n, 0))?,
        0xda => len(2).map(|n| (Str16(n), n, 0))?,
        0xdb => len(4).map(|n| (Str32(n), n, 0))?,
        0xdc => len(2).map(|n| (Array16(n), 0, u64::from(n)))?,
        0xdd => len(4).map(|n| (Array32(n), 0, u64::from(n)))?,
        0xde => len(2).map(|n| (Map16(n), 0, 2 * u64::from(n)))?,
        0xdf => len(4).map(|n| (Map32(n), 0, 2 * u64::from(n)))?,
        0xe0..=0xff => (NegFixInt(m as i8), 0, 0),
    };
    out.push(wire);
    take(bytes, pos, payload as usize)?;
    for _ in 0..elements {
        walk(bytes, pos, out)?;
    }
    Ok(())
}

/// The wire types of the first msgpack value in `bytes`, and how many bytes it takes.
fn walk_one(bytes: &[u8]) -> (Vec<Wire>, usize) {
    let (mut pos, mut out) = (0, Vec::new());
    walk(bytes, &mut pos, &mut out).unwrap_or_else(|e| panic!("{e} in {bytes:02x?}"));
    (out, pos)
}

#[test]
fn the_walker_follows_the_specification() {
    // [1, -1, "ab", {nil: true}, 1.0f32, bin8 [7], array16 [uint8 200]]
    #[rustfmt::skip]
    let bytes = [
        0x97, 0x01, 0xff, 0xa2, b'a', b'b', 0x81, 0xc0, 0xc3, 0xca, 0x3f, 0x80, 0, 0,
        0xc4, 0x01, 0x07, 0xdc, 0x00, 0x01, 0xcc, 0xc8,
    ];
    use Wire::*;
    assert_eq!(
        walk_one(&bytes),
        (
            vec![
                FixArray(7),
                PosFixInt(1),
                NegFixInt(-1),
                FixStr(2),
                FixMap(1),
                Nil,
                True,
                Float32,
                Bin8(1),
                Array16(1),
                UInt8
            ],
            bytes.len()
        )
    );
    // rmpv reads the same bytes to the same structure.
    let mut rd = &bytes[..];
    let v = rmpv::decode::read_value(&mut rd).unwrap();
    assert!(rd.is_empty());
    assert_eq!(v.as_array().map(Vec::len), Some(7));
    assert_eq!(v[4], Value::F32(1.0));
}

// ---------------------------------------------------------------------------------------------
// What the schemas say
// ---------------------------------------------------------------------------------------------

/// The values of a b2nd or caterva metalayer; `dtype_format` and `dtype` as the layout has them.
struct Expected<'a> {
    shape: &'a [i64],
    chunkshape: &'a [i32],
    blockshape: &'a [i32],
    dtype_format: Option<u8>,
    dtype: Option<&'a str>,
}

impl Expected<'_> {
    fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// The entries: `[version 0, ndim, shape, chunkshape, blockshape, (dtype_format,) (dtype)]`.
    fn value(&self) -> Value {
        let ints = |xs: &mut dyn Iterator<Item = i64>| Value::Array(xs.map(Value::from).collect());
        let mut entries = vec![
            Value::from(0),
            Value::from(self.ndim() as u64),
            ints(&mut self.shape.iter().copied()),
            ints(&mut self.chunkshape.iter().map(|&x| i64::from(x))),
            ints(&mut self.blockshape.iter().map(|&x| i64::from(x))),
        ];
        entries.extend(self.dtype_format.map(Value::from));
        entries.extend(self.dtype.map(Value::from));
        Value::Array(entries)
    }

    /// The schema's wire types, in order: a fixarray of the entries, positive fixints for version
    /// and ndim, fixarrays of int64 (shape) and int32 (chunkshape, blockshape) elements, a
    /// positive fixint dtype_format, and a str32 dtype.
    fn wires(&self) -> Vec<Wire> {
        let n = self.ndim() as u32;
        let entries = 5 + u32::from(self.dtype_format.is_some()) + u32::from(self.dtype.is_some());
        let mut w = vec![Wire::FixArray(entries), Wire::PosFixInt(0), Wire::PosFixInt(n as u8)];
        for element in [Wire::Int64, Wire::Int32, Wire::Int32] {
            w.push(Wire::FixArray(n));
            w.extend(std::iter::repeat_n(element, n as usize));
        }
        w.extend(self.dtype_format.map(Wire::PosFixInt));
        w.extend(self.dtype.map(|d| Wire::Str32(d.len() as u32)));
        w
    }

    /// The encoded length the schema gives: 6 bytes + 19 per dimension, 1 for dtype_format,
    /// 5 + its length for the dtype.
    fn len(&self) -> usize {
        6 + 19 * self.ndim() + usize::from(self.dtype_format.is_some()) + self.dtype.map_or(0, |d| 5 + d.len())
    }
}

/// rmpv reads `bytes` as exactly the expected value and consumes all of them; the walker sees
/// exactly the schema's wire types.
fn check_against_rmpv(bytes: &[u8], e: &Expected) -> Result<(), TestCaseError> {
    prop_assert_eq!(bytes.len(), e.len());

    let mut rd = bytes;
    let value = rmpv::decode::read_value(&mut rd).map_err(|err| TestCaseError::fail(format!("rmpv: {err}")))?;
    prop_assert!(rd.is_empty(), "rmpv left {} of {} bytes", rd.len(), bytes.len());
    prop_assert_eq!(&value, &e.value());

    // The same, entry by entry and numerically, as a reader of the format would.
    let entries = value.as_array().unwrap();
    prop_assert_eq!(entries[0].as_u64(), Some(0));
    prop_assert_eq!(entries[1].as_u64(), Some(e.ndim() as u64));
    let ints = |v: &Value| -> Vec<i64> { v.as_array().unwrap().iter().map(|x| x.as_i64().unwrap()).collect() };
    prop_assert_eq!(ints(&entries[2]), e.shape.to_vec());
    prop_assert_eq!(
        ints(&entries[3]),
        e.chunkshape.iter().map(|&x| i64::from(x)).collect::<Vec<_>>()
    );
    prop_assert_eq!(
        ints(&entries[4]),
        e.blockshape.iter().map(|&x| i64::from(x)).collect::<Vec<_>>()
    );
    if let Some(dtype) = e.dtype {
        prop_assert_eq!(entries.last().unwrap().as_str(), Some(dtype));
    }

    let (wires, used) = walk_one(bytes);
    prop_assert_eq!(used, bytes.len());
    prop_assert_eq!(wires, e.wires());
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Random values
// ---------------------------------------------------------------------------------------------

fn i64s() -> impl Strategy<Value = i64> {
    prop_oneof![
        any::<i64>(),
        prop::sample::select(vec![
            i64::MIN,
            i64::MIN + 1,
            i64::from(i32::MIN) - 1,
            -129,
            -33,
            -32,
            -1,
            0,
            1,
            127,
            128,
            255,
            256,
            65_536,
            i64::from(u32::MAX) + 1,
            1 << 53,
            i64::MAX,
        ]),
    ]
}

fn i32s() -> impl Strategy<Value = i32> {
    prop_oneof![
        any::<i32>(),
        prop::sample::select(vec![
            i32::MIN,
            i32::MIN + 1,
            -65_536,
            -129,
            -1,
            0,
            1,
            127,
            128,
            i32::MAX
        ]),
    ]
}

/// Empty, NumPy-like, any printable text, and any text at all (control characters included).
fn dtypes() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        "[<>|=][biufcmMOSUV][0-9]{0,2}",
        "\\PC{0,40}",
        "(?s).{0,12}",
        "[a-z]{250,300}",
    ]
}

type Shapes = (Vec<i64>, Vec<i32>, Vec<i32>);

fn shapes(ndim: std::ops::RangeInclusive<usize>) -> impl Strategy<Value = Shapes> {
    ndim.prop_flat_map(|n| {
        (
            prop::collection::vec(i64s(), n),
            prop::collection::vec(i32s(), n),
            prop::collection::vec(i32s(), n),
        )
    })
}

const CASES: u32 = 1500;

proptest! {
    #![proptest_config(Config { failure_persistence: None, ..Config::with_cases(CASES) })]

    /// b2nd_v1 up to 15 dimensions (16 is the exception below).
    #[test]
    fn b2nd_v1_is_the_msgpack_the_schema_states(
        (shape, chunkshape, blockshape) in shapes(0..=15),
        dtype_format in 0u8..=127,
        dtype in dtypes(),
    ) {
        let v = B2ndV1 { shape, chunkshape, blockshape, dtype_format, dtype };
        let bytes = v.encode().unwrap();
        check_against_rmpv(&bytes, &Expected {
            shape: &v.shape,
            chunkshape: &v.chunkshape,
            blockshape: &v.blockshape,
            dtype_format: Some(v.dtype_format),
            dtype: Some(&v.dtype),
        })?;
    }

    #[test]
    fn b2nd_v0_is_the_msgpack_the_schema_states((shape, chunkshape, blockshape) in shapes(0..=8), dtype in dtypes()) {
        let v = B2ndV0 { shape, chunkshape, blockshape, dtype };
        let bytes = v.encode().unwrap();
        check_against_rmpv(&bytes, &Expected {
            shape: &v.shape,
            chunkshape: &v.chunkshape,
            blockshape: &v.blockshape,
            dtype_format: None,
            dtype: Some(&v.dtype),
        })?;
    }

    #[test]
    fn caterva_v0_is_the_msgpack_the_schema_states((shape, chunkshape, blockshape) in shapes(0..=8)) {
        let v = CatervaV0 { shape, chunkshape, blockshape };
        let bytes = v.encode().unwrap();
        check_against_rmpv(&bytes, &Expected {
            shape: &v.shape,
            chunkshape: &v.chunkshape,
            blockshape: &v.blockshape,
            dtype_format: None,
            dtype: None,
        })?;
    }
}

/// The dtype is always str32, even where a msgpack encoder would pick fixstr, str8 or str16;
/// rmpv reads every length, across each of those boundaries.
#[test]
fn dtype_is_str32_at_every_length_boundary() {
    for len in [0, 1, 31, 32, 255, 256, 65_535, 65_536, 70_000] {
        let dtype = "é".repeat(len / 2) + &"x".repeat(len % 2);
        assert_eq!(dtype.len(), len);
        let v = B2ndV1 {
            shape: vec![3, 4],
            chunkshape: vec![2, 2],
            blockshape: vec![1, 2],
            dtype_format: 0,
            dtype,
        };
        let bytes = v.encode().unwrap();
        check_against_rmpv(
            &bytes,
            &Expected {
                shape: &v.shape,
                chunkshape: &v.chunkshape,
                blockshape: &v.blockshape,
                dtype_format: Some(0),
                dtype: Some(&v.dtype),
            },
        )
        .unwrap_or_else(|e| panic!("dtype of {len} bytes: {e}"));
    }
}

/// 15 dimensions is the most for which b2nd_v1 is msgpack: the header is `0x9f`, fixarray 15.
#[test]
fn b2nd_v1_ndim_15_is_msgpack() {
    let v = B2ndV1 {
        shape: (1..=15).collect(),
        chunkshape: (1..=15).collect(),
        blockshape: vec![1; 15],
        dtype_format: 0,
        dtype: "<f8".into(),
    };
    let bytes = v.encode().unwrap();
    assert_eq!(&bytes[..4], [0x97, 0x00, 0x0f, 0x9f]);
    check_against_rmpv(
        &bytes,
        &Expected {
            shape: &v.shape,
            chunkshape: &v.chunkshape,
            blockshape: &v.blockshape,
            dtype_format: Some(0),
            dtype: Some("<f8"),
        },
    )
    .unwrap();
}

// ---------------------------------------------------------------------------------------------
// The one place the bytes are not msgpack
// ---------------------------------------------------------------------------------------------

/// At 16 dimensions b2nd_v1 is not msgpack, on purpose.
///
/// c-blosc2 accepts up to `B2ND_MAX_DIM = 16` dimensions, and `b2nd_serialize_meta` in
/// `blosc/b2nd.c` writes each array header as `*pmeta++ = (uint8_t) (0x90) + ndim;` (its comment:
/// "fix array with ndim elements"). A fixarray holds at most 15 elements: `0x90 + 16 = 0xa0` is
/// the msgpack marker of an empty fixstr. python-blosc2 writes such files, and c-blosc2 reads
/// them back because `b2nd_deserialize_meta` skips marker bytes without looking at them. The
/// `b2nd_v1` schema allows exactly this header, so the encoder writes c-blosc2's bytes and the
/// decoder reads them; a msgpack reader such as rmpv reads something else.
#[test]
fn b2nd_v1_ndim_16_is_not_msgpack() {
    let v = B2ndV1 {
        shape: (1..=16).map(|i| i * 1000).collect(),
        chunkshape: (1..=16).collect(),
        blockshape: vec![1; 16],
        dtype_format: 0,
        dtype: "<f8".into(),
    };
    // The bytes c-blosc2 writes, from the layout: 0xa0 before each array.
    let mut expected = vec![0x97, 0x00, 0x10, 0xa0];
    for &x in &v.shape {
        expected.push(0xd3);
        expected.extend_from_slice(&x.to_be_bytes());
    }
    for array in [&v.chunkshape, &v.blockshape] {
        expected.push(0xa0);
        for &x in array {
            expected.push(0xd2);
            expected.extend_from_slice(&x.to_be_bytes());
        }
    }
    expected.extend_from_slice(&[0x00, 0xdb, 0, 0, 0, 3]);
    expected.extend_from_slice(b"<f8");

    let bytes = v.encode().unwrap();
    assert_eq!(bytes, expected);
    assert_eq!(B2ndV1::decode(&bytes).unwrap(), v, "our decoder round-trips it");

    // rmpv reads a 7-element array whose third element is "" (the 0xa0 meant for the shape), then
    // takes the first four shape elements as the remaining four entries, and stops after
    // 3 + 1 + 4 * 9 = 40 of the 319 bytes.
    let (value, used) = rmpv_first_value(&bytes);
    assert_eq!(
        value,
        Value::Array(vec![
            Value::from(0),
            Value::from(16),
            Value::from(""),
            Value::from(1000),
            Value::from(2000),
            Value::from(3000),
            Value::from(4000),
        ])
    );
    assert_eq!((used, bytes.len()), (40, 319));
    // The walker agrees: a fixstr of length 0 where the schema puts a fixarray of 16.
    use Wire::*;
    let (wires, walked) = walk_one(&bytes);
    assert_eq!(walked, 40);
    assert_eq!(
        wires,
        [
            FixArray(7),
            PosFixInt(0),
            PosFixInt(16),
            FixStr(0),
            Int64,
            Int64,
            Int64,
            Int64
        ]
    );
    // What follows does not start a value of the layout: the fifth shape element.
    let (rest, _) = rmpv_first_value(&bytes[used..]);
    assert_eq!(rest, Value::from(5000));
}

/// The same for the bytes python-blosc2 wrote for a 16-dimensional array (a fixture file).
#[test]
fn b2nd_v1_ndim_16_fixture_is_not_msgpack() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/ndim16.b2nd");
    let metalayers = metalayer::frame::read_metalayers(path).unwrap();
    let b2nd = metalayers.iter().find(|m| m.name == "b2nd").unwrap();
    let bytes = &b2nd.content;
    assert_eq!(&bytes[..4], [0x97, 0x00, 0x10, 0xa0]);

    let meta = B2ndV1::decode(bytes).unwrap();
    assert_eq!(meta.shape.len(), 16);
    assert_eq!(&meta.encode().unwrap(), bytes);

    let (value, used) = rmpv_first_value(bytes);
    let entries = value.as_array().unwrap();
    assert_eq!(entries.len(), 7);
    assert_eq!(
        entries[2],
        Value::from(""),
        "the shape's header read as an empty string"
    );
    let shape_head: Vec<i64> = entries[3..].iter().map(|v| v.as_i64().unwrap()).collect();
    assert_eq!(shape_head, meta.shape[..4]);
    assert_eq!(used, 40);
    assert!(used < bytes.len());
}

fn rmpv_first_value(bytes: &[u8]) -> (Value, usize) {
    let mut rd = bytes;
    let value = rmpv::decode::read_value(&mut rd).unwrap();
    (value, bytes.len() - rd.len())
}
