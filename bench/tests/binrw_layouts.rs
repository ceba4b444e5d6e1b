//! The binrw descriptions of the three built-in layouts write exactly the bytes this project's
//! encoders write, read back what they write, read every b2nd and caterva metalayer of the
//! fixture files, and refuse what the generated decoders refuse.

use std::path::Path;

use metalayer::b2nd::{B2ndV0, B2ndV1};
use metalayer::caterva::CatervaV0;
use metalayer::prelude::*;
use metalayer::{DecodeError, Known};
use metalayer_bench::binrw_layouts::{self as bw, Int32, Int64, read_exact, write_slice, write_vec};

/// A small deterministic generator (xorshift64*), so the values are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// Any int64, often a small one.
    fn i64(&mut self) -> i64 {
        match self.below(4) {
            0 => self.below(2000) as i64 - 1000,
            1 => self.below(1 << 40) as i64,
            _ => self.next() as i64,
        }
    }

    fn i32(&mut self) -> i32 {
        self.i64() as i32
    }

    fn string(&mut self) -> String {
        const PIECES: [&str; 8] = ["<f8", "|u1", "", "µ", "[('a', '<i4')]", "uint8", "é", "x"];
        let n = self.below(5);
        (0..n).map(|_| PIECES[self.below(8) as usize]).collect()
    }
}

fn i64s(v: &[i64]) -> Vec<Int64> {
    v.iter().copied().map(Int64).collect()
}

fn i32s(v: &[i32]) -> Vec<Int32> {
    v.iter().copied().map(Int32).collect()
}

fn bw_v1(m: &B2ndV1) -> bw::B2ndV1 {
    bw::B2ndV1 {
        shape: i64s(&m.shape),
        chunkshape: i32s(&m.chunkshape),
        blockshape: i32s(&m.blockshape),
        dtype_format: m.dtype_format,
        dtype: m.dtype.clone(),
    }
}

fn bw_v0(m: &B2ndV0) -> bw::B2ndV0 {
    bw::B2ndV0 {
        shape: i64s(&m.shape),
        chunkshape: i32s(&m.chunkshape),
        blockshape: i32s(&m.blockshape),
        dtype: m.dtype.clone(),
    }
}

fn bw_caterva(m: &CatervaV0) -> bw::CatervaV0 {
    bw::CatervaV0 {
        shape: i64s(&m.shape),
        chunkshape: i32s(&m.chunkshape),
        blockshape: i32s(&m.blockshape),
    }
}

fn shapes(rng: &mut Rng, ndim: usize) -> (Vec<i64>, Vec<i32>, Vec<i32>) {
    (
        (0..ndim).map(|_| rng.i64()).collect(),
        (0..ndim).map(|_| rng.i32()).collect(),
        (0..ndim).map(|_| rng.i32()).collect(),
    )
}

/// Writes `value` with binrw into a `Vec` and into a slice, checks both against `ours`, and
/// reads `ours` back into `value`.
fn check<T>(value: &T, ours: &[u8], what: &str)
where
    T: for<'a> binrw::BinRead<Args<'a> = ()>
        + for<'a> binrw::BinWrite<Args<'a> = ()>
        + binrw::meta::ReadEndian
        + binrw::meta::WriteEndian
        + PartialEq
        + std::fmt::Debug,
{
    assert_eq!(write_vec(value).unwrap(), ours, "{what}");
    let mut buf = vec![0u8; ours.len()];
    assert_eq!(write_slice(value, &mut buf).unwrap(), ours.len(), "{what}");
    assert_eq!(buf, ours, "{what}");
    assert!(write_slice(value, &mut vec![0u8; ours.len() - 1]).is_err(), "{what}");
    assert_eq!(&read_exact::<T>(ours).unwrap(), value, "{what}");
    let mut longer = ours.to_vec();
    longer.push(0);
    assert!(read_exact::<T>(&longer).is_err(), "{what}: trailing byte");
}

#[test]
fn binrw_writes_what_our_encoders_write() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..400 {
        let ndim = round % 17;
        let (shape, chunkshape, blockshape) = shapes(&mut rng, ndim);
        let v1 = B2ndV1 {
            shape,
            chunkshape,
            blockshape,
            dtype_format: rng.below(0x80) as u8,
            dtype: rng.string(),
        };
        check(&bw_v1(&v1), &v1.encode().unwrap(), &format!("b2nd_v1 {v1:?}"));

        let ndim = round % 9;
        let (shape, chunkshape, blockshape) = shapes(&mut rng, ndim);
        let v0 = B2ndV0 {
            shape: shape.clone(),
            chunkshape: chunkshape.clone(),
            blockshape: blockshape.clone(),
            dtype: rng.string(),
        };
        check(&bw_v0(&v0), &v0.encode().unwrap(), &format!("b2nd_v0 {v0:?}"));
        let caterva = CatervaV0 {
            shape,
            chunkshape,
            blockshape,
        };
        check(
            &bw_caterva(&caterva),
            &caterva.encode().unwrap(),
            &format!("caterva_v0 {caterva:?}"),
        );
    }
}

/// The fixture frames under `tests/fixtures/files/<producer>/`: files that start with the frame
/// magic, sparse-frame directories, and the frames in other directories (the member files of
/// `.b2d` stores); the `.b2z` zip stores are not frames.
fn fixture_paths() -> Vec<std::path::PathBuf> {
    fn frames_under(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
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
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/files");
    let mut paths = Vec::new();
    frames_under(&root, &mut paths);
    paths.sort();
    paths
}

#[test]
fn binrw_reads_and_rewrites_every_fixture() {
    let mut seen = std::collections::BTreeMap::<&str, usize>::new();
    for path in fixture_paths() {
        let metalayers = metalayer::frame::read_metalayers(&path).unwrap();
        for ml in metalayers {
            let bytes = &ml.content;
            let what = format!("{}: {}", path.display(), ml.name);
            let known = match Known::decode(&ml.name, bytes) {
                Ok(known) => known,
                Err(metalayer::DispatchError::UnknownName { .. }) => continue,
                Err(e) => panic!("{what}: {e}"),
            };
            match known {
                Known::B2ndV1(m) => check(&bw_v1(&m), bytes, &what),
                Known::B2ndV0(m) => check(&bw_v0(&m), bytes, &what),
                Known::B2ndCaterva(m) | Known::Caterva(m) => check(&bw_caterva(&m), bytes, &what),
                other => panic!("{what}: no binrw layout for {}", other.schema()),
            }
            *seen.entry(known_schema(bytes)).or_default() += 1;
        }
    }
    assert!(seen["b2nd_v1"] > 80, "{seen:?}");
    assert!(seen["caterva_v0"] > 10, "{seen:?}");
}

fn known_schema(bytes: &[u8]) -> &'static str {
    match bytes[0] {
        0x97 => "b2nd_v1",
        0x96 => "b2nd_v0",
        _ => "caterva_v0",
    }
}

fn unhex(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

/// c-blosc2's bytes for each layout (a (400, 3) array of `|u1`, chunks (110, 3), blocks
/// (57, 3)), from the history of its test data.
#[test]
fn binrw_reads_c_blosc2s_historical_bytes() {
    let caterva = unhex("95000292d30000000000000190d3000000000000000392d20000006ed20000000392d200000039d200000003");
    let v0 = unhex(
        "96000292d30000000000000190d3000000000000000392d20000006ed20000000392d200000039d200000003db0000000575696e7438",
    );
    let v1 = unhex(
        "97000292d30000000000000190d3000000000000000392d20000006ed20000000392d200000039d20000000300db000000037c7531",
    );
    let arrays = (i64s(&[400, 3]), i32s(&[110, 3]), i32s(&[57, 3]));
    let (shape, chunkshape, blockshape) = arrays;
    check(
        &bw::CatervaV0 {
            shape: shape.clone(),
            chunkshape: chunkshape.clone(),
            blockshape: blockshape.clone(),
        },
        &caterva,
        "caterva",
    );
    check(
        &bw::B2ndV0 {
            shape: shape.clone(),
            chunkshape: chunkshape.clone(),
            blockshape: blockshape.clone(),
            dtype: "uint8".into(),
        },
        &v0,
        "b2nd_v0",
    );
    check(
        &bw::B2ndV1 {
            shape,
            chunkshape,
            blockshape,
            dtype_format: 0,
            dtype: "|u1".into(),
        },
        &v1,
        "b2nd_v1",
    );
    // Each layout's bytes are refused by the other two.
    assert!(read_exact::<bw::B2ndV1>(&v0).is_err());
    assert!(read_exact::<bw::B2ndV0>(&v1).is_err());
    assert!(read_exact::<bw::CatervaV0>(&v1).is_err());
    assert!(read_exact::<bw::B2ndV1>(&caterva).is_err());
}

/// The length an input's dtype prefix declares, when the fixed part is all there (binrw reserves
/// that many bytes before reading them).
fn declared_dtype_len(bytes: &[u8], fixed_for: impl Fn(usize) -> usize) -> Option<usize> {
    let fixed = fixed_for(usize::from(*bytes.get(2)?));
    let prefix = bytes.get(fixed.checked_sub(4)?..fixed)?;
    Some(u32::from_be_bytes(prefix.try_into().unwrap()) as usize)
}

/// Every one-byte change, truncation and extra byte of `bytes`: binrw accepts it exactly when
/// `ours` does.
fn same_verdicts<T>(bytes: &[u8], ours: impl Fn(&[u8]) -> Result<(), DecodeError>, fixed_for: impl Fn(usize) -> usize)
where
    T: for<'a> binrw::BinRead<Args<'a> = ()> + binrw::meta::ReadEndian + std::fmt::Debug,
{
    let verdict = |input: &[u8], what: &str| {
        if declared_dtype_len(input, &fixed_for).is_some_and(|len| len > input.len()) {
            assert!(ours(input).is_err(), "{what}");
            return;
        }
        let o = ours(input);
        let b = read_exact::<T>(input);
        assert_eq!(o.is_ok(), b.is_ok(), "{what}: ours {o:?}, binrw {b:?}: {input:02x?}");
    };
    for cut in 0..bytes.len() {
        verdict(&bytes[..cut], &format!("cut at {cut}"));
    }
    let mut longer = bytes.to_vec();
    longer.push(0);
    verdict(&longer, "one more byte");
    for at in 0..bytes.len() {
        for b in [
            0x00, 0x01, 0x08, 0x09, 0x10, 0x11, 0x7f, 0x80, 0xff, 0x90, 0x98, 0x99, 0xd2, 0xd3, 0xdb,
        ] {
            let mut changed = bytes.to_vec();
            changed[at] = b;
            verdict(&changed, &format!("byte {at} -> {b:#04x}"));
        }
    }
}

#[test]
fn binrw_refuses_what_our_decoders_refuse() {
    let mut rng = Rng(7);
    for ndim in [0, 1, 3, 8] {
        let (shape, chunkshape, blockshape) = shapes(&mut rng, ndim);
        let v1 = B2ndV1 {
            shape: shape.clone(),
            chunkshape: chunkshape.clone(),
            blockshape: blockshape.clone(),
            dtype_format: 1,
            dtype: "µs".into(),
        };
        same_verdicts::<bw::B2ndV1>(&v1.encode().unwrap(), |b| B2ndV1::decode(b).map(drop), |n| 12 + 19 * n);
        let v0 = B2ndV0 {
            shape: shape.clone(),
            chunkshape: chunkshape.clone(),
            blockshape: blockshape.clone(),
            dtype: "µs".into(),
        };
        same_verdicts::<bw::B2ndV0>(&v0.encode().unwrap(), |b| B2ndV0::decode(b).map(drop), |n| 11 + 19 * n);
        let caterva = CatervaV0 {
            shape,
            chunkshape,
            blockshape,
        };
        // No dtype: no length prefix to guard against.
        same_verdicts::<bw::CatervaV0>(&caterva.encode().unwrap(), |b| CatervaV0::decode(b).map(drop), |_| 0);
    }
}
