//! Differential tests: this project's `b2nd_v1` encoder and decoder against c-blosc2's
//! `b2nd_serialize_meta` and `b2nd_deserialize_meta`, for every ndim from 0 to 16.

use std::ffi::{CString, c_char};
use std::ptr;

use metalayer::b2nd::B2ndV1;
use metalayer::caterva::CatervaV0;
use metalayer::prelude::*;
use metalayer_cblosc2::{CError, CMeta, MAX_DIM, deserialize, deserialize_into, deserialize_into_unchecked, ffi};
use proptest::collection::vec;
use proptest::prelude::*;

/// Dtypes as NumPy writes them, structured ones included.
const DTYPES: &[&str] = &[
    "|u1",
    "|i1",
    "|b1",
    "<i2",
    "<i4",
    ">i4",
    "<i8",
    "<u8",
    "<f2",
    "<f4",
    "<f8",
    ">f8",
    "<c8",
    "<c16",
    "<U12",
    "|S5",
    "|V16",
    "<M8[ns]",
    "<m8[s]",
    "|O",
    "[('a', '<i4'), ('b', '<f8')]",
    "[('x', '<f4', (3,)), ('name', '<U8'), ('flag', '|b1')]",
    "",
];

/// Element values worth checking in every dimension.
const I64_EDGES: &[i64] = &[
    0,
    1,
    -1,
    i64::MIN,
    i64::MAX,
    i64::MIN + 1,
    1 << 32,
    -(1 << 31),
    0x0102_0304_0506_0708,
];
const I32_EDGES: &[i32] = &[0, 1, -1, i32::MIN, i32::MAX, i32::MIN + 1, 1 << 16, 0x0102_0304];

fn meta(shape: Vec<i64>, chunkshape: Vec<i32>, blockshape: Vec<i32>, dtype_format: u8, dtype: &str) -> B2ndV1 {
    B2ndV1 {
        shape,
        chunkshape,
        blockshape,
        dtype_format,
        dtype: dtype.to_owned(),
    }
}

/// What c-blosc2's decoder wrote, read through the raw function with sentinel-filled arrays, so
/// that writes past `ndim` are caught too.
struct Raw {
    read: i32,
    ndim: i8,
    shape: [i64; MAX_DIM],
    chunkshape: [i32; MAX_DIM],
    blockshape: [i32; MAX_DIM],
    dtype_format: i8,
    dtype: Option<Vec<u8>>,
}

const SENTINEL64: i64 = 0x5a5a_5a5a_5a5a_5a5a;
const SENTINEL32: i32 = 0x5a5a_5a5a;

fn raw_deserialize(bytes: &[u8]) -> Raw {
    B2ndV1::decode(bytes).expect("raw_deserialize is only called on well-formed b2nd_v1 bytes");
    let mut raw = Raw {
        read: 0,
        ndim: -1,
        shape: [SENTINEL64; MAX_DIM],
        chunkshape: [SENTINEL32; MAX_DIM],
        blockshape: [SENTINEL32; MAX_DIM],
        dtype_format: -1,
        dtype: None,
    };
    let mut dtype: *mut c_char = ptr::null_mut();
    // SAFETY: `bytes` is a well-formed b2nd_v1 metalayer (checked above), so ndim <= 16 = the
    // arrays' length and c-blosc2 reads only within `bytes`.
    raw.read = unsafe {
        ffi::b2nd_deserialize_meta(
            bytes.as_ptr(),
            bytes.len().try_into().unwrap(),
            &mut raw.ndim,
            raw.shape.as_mut_ptr(),
            raw.chunkshape.as_mut_ptr(),
            raw.blockshape.as_mut_ptr(),
            &mut dtype,
            &mut raw.dtype_format,
        )
    };
    if !dtype.is_null() {
        // SAFETY: c-blosc2 returned a NUL-terminated string allocated with malloc; it is copied,
        // then freed once.
        unsafe {
            raw.dtype = Some(std::ffi::CStr::from_ptr(dtype).to_bytes().to_vec());
            ffi::free(dtype.cast());
        }
    }
    raw
}

/// Checks one value both ways: the encoders agree byte for byte, c-blosc2 decodes our bytes to
/// the value, and our decoder decodes c-blosc2's bytes to the value.
fn check(m: &B2ndV1) {
    let n = m.shape.len();
    let dtype_c = CString::new(m.dtype.as_str()).expect("dtypes in these tests have no NUL");
    let dtype_format = i8::try_from(m.dtype_format).expect("dtype_format is at most 127");

    // (a) The same bytes.
    let ours = m.encode().expect("the value is valid for b2nd_v1");
    let theirs = metalayer_cblosc2::serialize(&m.shape, &m.chunkshape, &m.blockshape, &dtype_c, dtype_format)
        .expect("c-blosc2 encodes every valid value");
    assert_eq!(ours, theirs, "encodings differ for {m:?}");
    assert_eq!(ours.len(), B2ndV1::encoded_len_for(n, m.dtype.len()));
    let same = metalayer_cblosc2::serialize_with(
        &m.shape,
        &m.chunkshape,
        &m.blockshape,
        &dtype_c,
        dtype_format,
        |bytes| bytes == ours.as_slice(),
    )
    .unwrap();
    assert!(same, "serialize_with sees other bytes than serialize");
    let header = 0x90 + n as u8;
    assert_eq!(ours[B2ndV1::shape_offset(n, m.dtype.len())], header);
    assert_eq!(ours[B2ndV1::chunkshape_offset(n, m.dtype.len())], header);
    assert_eq!(ours[B2ndV1::blockshape_offset(n, m.dtype.len())], header);

    // (b) c-blosc2 decodes our bytes to the value, through every entry point.
    let raw = raw_deserialize(&ours);
    assert_eq!(raw.read as usize, ours.len());
    assert_eq!(raw.ndim as usize, n);
    assert_eq!(raw.shape[..n], m.shape[..]);
    assert_eq!(raw.chunkshape[..n], m.chunkshape[..]);
    assert_eq!(raw.blockshape[..n], m.blockshape[..]);
    assert!(
        raw.shape[n..].iter().all(|&v| v == SENTINEL64),
        "c-blosc2 wrote past ndim"
    );
    assert!(
        raw.chunkshape[n..].iter().all(|&v| v == SENTINEL32),
        "c-blosc2 wrote past ndim"
    );
    assert!(
        raw.blockshape[n..].iter().all(|&v| v == SENTINEL32),
        "c-blosc2 wrote past ndim"
    );
    assert_eq!(raw.dtype_format, dtype_format);
    assert_eq!(raw.dtype.as_deref(), Some(m.dtype.as_bytes()));

    let owned = deserialize(&ours).expect("c-blosc2 decodes our bytes");
    assert_eq!(owned.shape, m.shape);
    assert_eq!(owned.chunkshape, m.chunkshape);
    assert_eq!(owned.blockshape, m.blockshape);
    assert_eq!(owned.dtype_format, dtype_format);
    assert_eq!(owned.dtype, m.dtype);

    let mut fixed = CMeta::default();
    deserialize_into(&ours, &mut fixed).unwrap();
    let mut unchecked = CMeta::default();
    // SAFETY: `ours` is a well-formed b2nd_v1 metalayer.
    unsafe { deserialize_into_unchecked(&ours, &mut unchecked) }.unwrap();
    for c in [fixed, unchecked] {
        assert_eq!(c.dims(), n);
        assert_eq!(c.shape[..n], m.shape[..]);
        assert_eq!(c.chunkshape[..n], m.chunkshape[..]);
        assert_eq!(c.blockshape[..n], m.blockshape[..]);
        assert_eq!(c.dtype_format, dtype_format);
    }

    // (c) Our decoder decodes c-blosc2's bytes to the value.
    assert_eq!(&B2ndV1::decode(&theirs).expect("c-blosc2's bytes decode"), m);
}

#[test]
fn every_ndim_with_edge_values() {
    for n in 0..=MAX_DIM {
        for (k, dtype) in DTYPES.iter().enumerate() {
            let shape: Vec<i64> = (0..n).map(|i| I64_EDGES[(i + k) % I64_EDGES.len()]).collect();
            let chunkshape: Vec<i32> = (0..n).map(|i| I32_EDGES[(i + k) % I32_EDGES.len()]).collect();
            let blockshape: Vec<i32> = (0..n).map(|i| I32_EDGES[(i + 2 * k + 1) % I32_EDGES.len()]).collect();
            for dtype_format in [0, 1, 127] {
                check(&meta(
                    shape.clone(),
                    chunkshape.clone(),
                    blockshape.clone(),
                    dtype_format,
                    dtype,
                ));
            }
        }
        // Every element the same extreme, in all three arrays.
        check(&meta(vec![i64::MIN; n], vec![i32::MIN; n], vec![i32::MIN; n], 0, "<f8"));
        check(&meta(
            vec![i64::MAX; n],
            vec![i32::MAX; n],
            vec![i32::MAX; n],
            127,
            "<f8",
        ));
        check(&meta(vec![0; n], vec![0; n], vec![0; n], 0, "|u1"));
        // Long dtypes: 299 ASCII bytes, and multi-byte UTF-8.
        check(&meta(vec![3; n], vec![2; n], vec![1; n], 0, &"x".repeat(299)));
        check(&meta(vec![3; n], vec![2; n], vec![1; n], 0, "<U3 ünïcødé 数组 🦀"));
    }
}

#[test]
fn sixteen_dimensions_write_header_0xa0() {
    let m = meta((1..=16).collect(), vec![2; 16], vec![1; 16], 0, "<i4");
    check(&m);
    let bytes = metalayer_cblosc2::serialize(&m.shape, &m.chunkshape, &m.blockshape, c"<i4", 0).unwrap();
    let len = m.dtype.len();
    assert_eq!(bytes[2], 16);
    for offset in [
        B2ndV1::shape_offset(16, len),
        B2ndV1::chunkshape_offset(16, len),
        B2ndV1::blockshape_offset(16, len),
    ] {
        assert_eq!(bytes[offset], 0xa0, "at byte {offset:#x}");
    }
}

/// Array elements: any value, with the edges made likely.
fn i64s() -> impl Strategy<Value = i64> {
    prop_oneof![
        3 => any::<i64>(),
        1 => proptest::sample::select(I64_EDGES),
        1 => -1000i64..1000,
    ]
}

fn i32s() -> impl Strategy<Value = i32> {
    prop_oneof![
        3 => any::<i32>(),
        1 => proptest::sample::select(I32_EDGES),
        1 => -1000i32..1000,
    ]
}

/// Dtypes: NumPy's, NumPy-like ones, structured ones, and any printable or Unicode string
/// without NUL of up to 300 characters.
fn dtypes() -> impl Strategy<Value = String> {
    let numpy = proptest::sample::select(DTYPES).prop_map(str::to_owned);
    let simple = "[<>|=][biufcmMOSUV][0-9]{1,3}";
    let field = "\\('[a-z_][a-z0-9_]{0,8}', '[<>|][biufcSU][0-9]{1,2}'\\)";
    let structured = vec(field, 1..6).prop_map(|fields| format!("[{}]", fields.join(", ")));
    prop_oneof![
        numpy,
        simple.prop_map(String::from),
        structured,
        "[ -~]{0,300}",
        "[^\\x00]{0,300}",
    ]
}

fn metas() -> impl Strategy<Value = B2ndV1> {
    (0..=MAX_DIM)
        .prop_flat_map(|n| (vec(i64s(), n), vec(i32s(), n), vec(i32s(), n), 0u8..=127, dtypes()))
        .prop_map(|(shape, chunkshape, blockshape, dtype_format, dtype)| B2ndV1 {
            shape,
            chunkshape,
            blockshape,
            dtype_format,
            dtype,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_values_agree(m in metas()) {
        check(&m);
    }
}

#[test]
fn serialize_checks_its_arguments() {
    assert_eq!(
        metalayer_cblosc2::serialize(&[1, 2], &[1, 2], &[1], c"|u1", 0),
        Err(CError::Dims {
            shape: 2,
            chunkshape: 2,
            blockshape: 1
        })
    );
    assert!(matches!(
        metalayer_cblosc2::serialize(&[1; 17], &[1; 17], &[1; 17], c"|u1", 0),
        Err(CError::Dims { shape: 17, .. })
    ));
    // c-blosc2 itself refuses a negative dtype_format, and every one of 0..=127.
    for dtype_format in [-1, -128] {
        assert_eq!(
            metalayer_cblosc2::serialize(&[1], &[1], &[1], c"|u1", dtype_format),
            Err(CError::Status(-1))
        );
    }
}

#[test]
fn deserialize_refuses_what_is_not_b2nd_v1() {
    let good = metalayer_cblosc2::serialize(&[4, 5], &[2, 5], &[1, 5], c"<f4", 0).unwrap();
    let mut cases: Vec<Vec<u8>> = vec![
        Vec::new(),
        good[..3].to_vec(),
        good[..good.len() - 1].to_vec(),
        [good.as_slice(), &[0]].concat(),
    ];
    // A count past 16, which would overflow c-blosc2's arrays.
    let mut ndim = good.clone();
    ndim[2] = 17;
    cases.push(ndim);
    // A dtype length past the end.
    let mut dtype_len = good.clone();
    let at = B2ndV1::dtype_offset(2, 3) + 1;
    dtype_len[at..at + 4].copy_from_slice(&1000u32.to_be_bytes());
    cases.push(dtype_len);
    // A caterva metalayer.
    let caterva = CatervaV0 {
        shape: vec![4],
        chunkshape: vec![2],
        blockshape: vec![1],
    };
    cases.push(caterva.encode().unwrap());
    for bytes in &cases {
        assert!(matches!(deserialize(bytes), Err(CError::Invalid(_))), "{bytes:02x?}");
        assert!(
            matches!(deserialize_into(bytes, &mut CMeta::default()), Err(CError::Invalid(_))),
            "{bytes:02x?}"
        );
    }
}

#[test]
fn c_reads_caterva_without_a_dtype() {
    // c-blosc2 falls back to no dtype when the bytes end after the block shape, as in caterva's
    // layout; the unchecked wrapper reports that as NoDtype.
    let bytes = CatervaV0 {
        shape: vec![4, 6],
        chunkshape: vec![2, 3],
        blockshape: vec![1, 3],
    }
    .encode()
    .unwrap();
    let mut c = CMeta::default();
    // SAFETY: a well-formed caterva_v0 metalayer with ndim 2: c-blosc2 reads exactly its bytes.
    let result = unsafe { deserialize_into_unchecked(&bytes, &mut c) };
    assert_eq!(result, Err(CError::NoDtype));
    assert_eq!(
        (c.ndim, c.shape[..2].to_vec(), c.blockshape[..2].to_vec()),
        (2, vec![4, 6], vec![1, 3])
    );
    assert_eq!(c.dtype_format, 0);
}

#[test]
fn c_ignores_marker_bytes() {
    // c-blosc2 skips every marker byte unread: bytes our decoder rejects for a wrong marker
    // still decode in c-blosc2, to the same values.
    let good = metalayer_cblosc2::serialize(&[4, 5], &[2, 5], &[1, 5], c"<f4", 0).unwrap();
    let mut bad = good.clone();
    bad[0] = 0x96;
    bad[1] = 7;
    bad[B2ndV1::shape_element_offset(2, 3, 1)] = 0xd2;
    assert!(B2ndV1::decode(&bad).is_err());
    let mut c = CMeta::default();
    // SAFETY: only marker bytes differ from a well-formed metalayer, so every length c-blosc2
    // reads is that of the well-formed one.
    unsafe { deserialize_into_unchecked(&bad, &mut c) }.unwrap();
    assert_eq!((c.ndim, c.shape[..2].to_vec()), (2, vec![4, 5]));
}

#[test]
fn c_cuts_a_dtype_at_nul() {
    // The b2nd_v1 layout allows a NUL inside the dtype; c-blosc2 copies all of its bytes but
    // hands it back as a C string, which ends at the first NUL.
    let m = meta(vec![2], vec![2], vec![1], 0, "<f8\0tail");
    let bytes = m.encode().unwrap();
    let raw = raw_deserialize(&bytes);
    assert_eq!(raw.read as usize, bytes.len());
    assert_eq!(raw.dtype.as_deref(), Some(&b"<f8"[..]));
    assert_eq!(deserialize(&bytes).unwrap().dtype, "<f8");
}
