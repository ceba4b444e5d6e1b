//! Every implementation the benchmarks compare writes the same bytes and reads the same values,
//! so that they time the same work: c-blosc2's bytes are the reference, for every ndim from 0 to
//! 16 and several dtypes. The hand-written and binrw decoders accept exactly the inputs the
//! generated decoder accepts.

use std::ffi::CString;

use metalayer::b2nd::B2ndV1;
use metalayer::prelude::*;
use metalayer_bench::{
    Borrowed, RmpB2ndV1, RmpBorrowed, STRUCT_DTYPE, binrw_layouts, c_decode, hand, sample, to_binrw,
};

const DTYPES: [&str; 7] = [
    "<f8",
    "|u1",
    "",
    "<U10",
    STRUCT_DTYPE,
    "{'names': ['x', 'y'], 'formats': ['<u2', '>f4'], 'offsets': [0, 4], 'itemsize': 16}",
    "µ-ünïcode",
];

/// Values with every byte position in use, negative ones and the extremes.
fn values(ndim: usize, dtype: &str, dtype_format: u8) -> B2ndV1 {
    let n = ndim as i64;
    B2ndV1 {
        shape: (0..n)
            .map(|i| match i {
                0 => i64::MAX,
                1 => i64::MIN,
                _ => (i - 5) * 0x0123_4567_89ab_cdef / 7,
            })
            .collect(),
        chunkshape: (0..n as i32).map(|i| (i - 3) * 0x0765_4321 / 3).collect(),
        blockshape: (0..n as i32)
            .map(|i| if i == 0 { i32::MIN } else { i * 1000 + 7 })
            .collect(),
        dtype_format,
        dtype: dtype.into(),
    }
}

fn cases() -> impl Iterator<Item = B2ndV1> {
    (0..=16).flat_map(|ndim| {
        DTYPES
            .iter()
            .enumerate()
            .flat_map(move |(k, dtype)| [values(ndim, dtype, (k % 3) as u8), sample(ndim, dtype)])
    })
}

/// c-blosc2's bytes for `meta`.
fn c_bytes(meta: &B2ndV1) -> Vec<u8> {
    let dtype = CString::new(meta.dtype.as_str()).unwrap();
    metalayer_cblosc2::serialize(
        &meta.shape,
        &meta.chunkshape,
        &meta.blockshape,
        &dtype,
        meta.dtype_format as i8,
    )
    .unwrap()
}

#[test]
fn every_encoder_writes_c_blosc2s_bytes() {
    let mut count = 0;
    for meta in cases() {
        let expected = c_bytes(&meta);
        let what = format!("ndim {} dtype {:?}", meta.shape.len(), meta.dtype);
        assert_eq!(meta.encoded_len(), expected.len(), "{what}");
        assert_eq!(meta.encode().unwrap(), expected, "ours encode(): {what}");

        let mut buf = vec![0xeeu8; expected.len() + 9];
        assert_eq!(meta.encode_into(&mut buf).unwrap(), expected.len(), "{what}");
        assert_eq!(&buf[..expected.len()], expected, "ours encode_into: {what}");
        assert!(buf[expected.len()..].iter().all(|&b| b == 0xee), "{what}");

        let borrowed = Borrowed::decode(&expected).unwrap();
        let mut buf = vec![0u8; expected.len()];
        assert_eq!(borrowed.encode_into(&mut buf).unwrap(), expected.len(), "{what}");
        assert_eq!(buf, expected, "ours borrowed encode_into: {what}");

        let mut buf = vec![0u8; expected.len() + 3];
        let n = hand::encode_into(
            &meta.shape,
            &meta.chunkshape,
            &meta.blockshape,
            meta.dtype_format,
            &meta.dtype,
            &mut buf,
        )
        .unwrap();
        assert_eq!(&buf[..n], expected, "hand encode_into: {what}");

        let bin = to_binrw(&meta);
        assert_eq!(binrw_layouts::write_vec(&bin).unwrap(), expected, "binrw Vec: {what}");
        let mut buf = vec![0u8; expected.len() + 3];
        let n = binrw_layouts::write_slice(&bin, &mut buf).unwrap();
        assert_eq!(&buf[..n], expected, "binrw slice: {what}");

        let c_again = metalayer_bench::c_encode(
            &meta.shape,
            &meta.chunkshape,
            &meta.blockshape,
            &CString::new(meta.dtype.as_str()).unwrap(),
            <[u8]>::to_vec,
        );
        if meta.dtype_format == 0 {
            assert_eq!(c_again, expected, "c_encode: {what}");
        }
        count += 1;
    }
    assert_eq!(count, 17 * DTYPES.len() * 2);
}

#[test]
fn every_decoder_reads_the_same_values() {
    for meta in cases() {
        let bytes = c_bytes(&meta);
        let n = meta.shape.len();
        let what = format!("ndim {n} dtype {:?}", meta.dtype);

        assert_eq!(B2ndV1::decode(&bytes).unwrap(), meta, "ours owned: {what}");

        let b = Borrowed::decode(&bytes).unwrap();
        assert_eq!(
            (
                &b.shape[..],
                &b.chunkshape[..],
                &b.blockshape[..],
                b.dtype_format,
                b.dtype
            ),
            (
                &meta.shape[..],
                &meta.chunkshape[..],
                &meta.blockshape[..],
                meta.dtype_format,
                meta.dtype.as_str()
            ),
            "ours borrowed: {what}"
        );

        let h = hand::decode(&bytes).unwrap();
        assert_eq!(
            (
                &h.shape[..],
                &h.chunkshape[..],
                &h.blockshape[..],
                h.dtype_format,
                h.dtype
            ),
            (
                &meta.shape[..],
                &meta.chunkshape[..],
                &meta.blockshape[..],
                meta.dtype_format,
                meta.dtype.as_str()
            ),
            "hand: {what}"
        );
        let h = hand::decode_owned(&bytes).unwrap();
        assert_eq!(
            (h.shape, h.chunkshape, h.blockshape, h.dtype_format, h.dtype),
            (
                meta.shape.clone(),
                meta.chunkshape.clone(),
                meta.blockshape.clone(),
                meta.dtype_format,
                meta.dtype.clone()
            ),
            "hand owned: {what}"
        );

        let bin: binrw_layouts::B2ndV1 = binrw_layouts::read_exact(&bytes).unwrap();
        assert_eq!(bin, to_binrw(&meta), "binrw: {what}");

        let c = metalayer_cblosc2::deserialize(&bytes).unwrap();
        assert_eq!(
            (c.shape, c.chunkshape, c.blockshape, c.dtype_format as u8, c.dtype),
            (
                meta.shape.clone(),
                meta.chunkshape.clone(),
                meta.blockshape.clone(),
                meta.dtype_format,
                meta.dtype.clone()
            ),
            "c-blosc2: {what}"
        );
        // SAFETY: c-blosc2 wrote these bytes: a well-formed b2nd_v1 metalayer.
        let c = unsafe { c_decode(&bytes) };
        assert_eq!(c.read as usize, bytes.len(), "{what}");
        assert_eq!(c.ndim as usize, n, "{what}");
        assert_eq!(&c.shape[..n], &meta.shape[..], "{what}");
        assert_eq!(&c.chunkshape[..n], &meta.chunkshape[..], "{what}");
        assert_eq!(&c.blockshape[..n], &meta.blockshape[..], "{what}");
        assert_eq!(c.dtype_format as u8, meta.dtype_format, "{what}");

        // 0x90 + 16 = 0xa0 is a fixstr header in msgpack: rmp-serde reads up to 15 dimensions.
        let rmp = rmp_serde::from_slice::<RmpB2ndV1>(&bytes);
        let rmp_borrowed = rmp_serde::from_slice::<RmpBorrowed<'_>>(&bytes);
        if n <= 15 {
            assert_eq!(
                rmp_borrowed.unwrap(),
                RmpBorrowed(
                    0,
                    n as u8,
                    meta.shape.iter().copied().collect(),
                    meta.chunkshape.iter().copied().collect(),
                    meta.blockshape.iter().copied().collect(),
                    meta.dtype_format,
                    &meta.dtype
                ),
                "rmp-serde, borrowed: {what}"
            );
            assert_eq!(
                rmp.unwrap(),
                RmpB2ndV1(
                    0,
                    n as u8,
                    meta.shape.clone(),
                    meta.chunkshape.clone(),
                    meta.blockshape.clone(),
                    meta.dtype_format,
                    meta.dtype.clone()
                ),
                "rmp-serde: {what}"
            );
        } else {
            assert!(rmp.is_err(), "{what}");
            assert!(rmp_borrowed.is_err(), "{what}");
        }
    }
}

/// The dtype length an input declares, when its fixed part is all there: binrw reserves that
/// many bytes before reading them, so a hostile length is left to the other decoders.
fn declared_dtype_len(bytes: &[u8]) -> Option<usize> {
    let n = usize::from(*bytes.get(2)?);
    let fixed = 12 + 19 * n;
    let prefix = bytes.get(fixed - 4..fixed)?;
    Some(u32::from_be_bytes(prefix.try_into().unwrap()) as usize)
}

fn check_same_verdict(input: &[u8], what: &str) {
    let ours = Borrowed::decode(input);
    let owned = B2ndV1::decode(input);
    let hand = hand::decode(input);
    assert_eq!(ours.is_ok(), owned.is_ok(), "{what}: {input:02x?}");
    assert_eq!(
        ours.is_ok(),
        hand.is_ok(),
        "{what}: ours {ours:?}, hand {hand:?}: {input:02x?}"
    );
    if let (Ok(o), Ok(h)) = (&ours, &hand) {
        assert_eq!(
            (&o.shape, &o.chunkshape, &o.blockshape, o.dtype_format, o.dtype),
            (&h.shape, &h.chunkshape, &h.blockshape, h.dtype_format, h.dtype),
            "{what}"
        );
    }
    if declared_dtype_len(input).is_none_or(|len| len <= input.len()) {
        let bin = binrw_layouts::read_exact::<binrw_layouts::B2ndV1>(input);
        assert_eq!(
            ours.is_ok(),
            bin.is_ok(),
            "{what}: ours {ours:?}, binrw {bin:?}: {input:02x?}"
        );
    }
}

/// Every change of one byte, every truncation and every extra byte: the hand-written and binrw
/// decoders accept an input exactly when the generated one does, so they check as much.
#[test]
fn hand_and_binrw_decoders_reject_what_ours_rejects() {
    let mut inputs = 0;
    for ndim in [0, 1, 2, 8, 15, 16] {
        for dtype in ["<f8", "", "µs"] {
            let bytes = values(ndim, dtype, 1).encode().unwrap();
            for cut in 0..bytes.len() {
                check_same_verdict(&bytes[..cut], &format!("ndim {ndim}: cut at {cut}"));
                inputs += 1;
            }
            let mut longer = bytes.clone();
            longer.push(0);
            check_same_verdict(&longer, &format!("ndim {ndim}: one more byte"));
            for at in 0..bytes.len() {
                let original = bytes[at];
                let header = 0x90 + ndim as u8;
                let replacements = [
                    0x00,
                    0x01,
                    0x10,
                    0x11,
                    0x7f,
                    0x80,
                    0xff,
                    header.wrapping_sub(1),
                    header.wrapping_add(1),
                    0xd2,
                    0xd3,
                    0xdb,
                    0xc0,
                    original ^ 0x01,
                    original ^ 0x80,
                ];
                for b in replacements {
                    if b == original {
                        continue;
                    }
                    let mut changed = bytes.clone();
                    changed[at] = b;
                    check_same_verdict(&changed, &format!("ndim {ndim}: byte {at} {original:#04x} -> {b:#04x}"));
                    inputs += 1;
                }
            }
        }
    }
    assert!(inputs > 10_000, "{inputs}");
}

/// The encoders refuse what the generated one refuses.
#[test]
fn encoders_refuse_the_same_values() {
    let mut bad = sample(3, "<f8");
    bad.chunkshape.pop();
    assert!(bad.encode().is_err());
    assert!(hand::encode_into(&bad.shape, &bad.chunkshape, &bad.blockshape, 0, "<f8", &mut [0; 128]).is_err());
    assert!(binrw_layouts::write_vec(&to_binrw(&bad)).is_err());

    let too_many = sample(17, "<f8");
    assert!(too_many.encode().is_err());
    assert!(
        hand::encode_into(
            &too_many.shape,
            &too_many.chunkshape,
            &too_many.blockshape,
            0,
            "<f8",
            &mut [0; 512]
        )
        .is_err()
    );
    assert!(binrw_layouts::write_vec(&to_binrw(&too_many)).is_err());

    let mut not_fixint = sample(2, "<f8");
    not_fixint.dtype_format = 0x80;
    assert!(not_fixint.encode().is_err());
    assert!(
        hand::encode_into(
            &not_fixint.shape,
            &not_fixint.chunkshape,
            &not_fixint.blockshape,
            0x80,
            "<f8",
            &mut [0; 128]
        )
        .is_err()
    );
    assert!(binrw_layouts::write_vec(&to_binrw(&not_fixint)).is_err());

    let ok = sample(2, "<f8");
    let len = ok.encoded_len();
    assert!(ok.encode_into(&mut vec![0; len - 1]).is_err());
    assert!(
        hand::encode_into(
            &ok.shape,
            &ok.chunkshape,
            &ok.blockshape,
            0,
            "<f8",
            &mut vec![0; len - 1]
        )
        .is_err()
    );
    assert!(binrw_layouts::write_slice(&to_binrw(&ok), &mut vec![0; len - 1]).is_err());
}
