//! What the integration tests share: hex literals, value strategies, and frames whose
//! chunk index is made by hand.

// Each test binary uses only some of these.
#![allow(dead_code)]

use metalayer::b2nd::B2ndV1;
use metalayer::caterva::CatervaV0;
use proptest::prelude::*;

/// The bytes a hex string (no separators) spells.
pub fn unhex(hex: &str) -> Vec<u8> {
    assert!(hex.len().is_multiple_of(2), "odd hex length");
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

/// Any valid `B2ndV1`: ndim 0..=16, any integers, any printable dtype of up to 40 characters.
pub fn b2nd_v1() -> impl Strategy<Value = B2ndV1> {
    (0usize..=16).prop_flat_map(|ndim| {
        (
            prop::collection::vec(any::<i64>(), ndim),
            prop::collection::vec(any::<i32>(), ndim),
            prop::collection::vec(any::<i32>(), ndim),
            0u8..=0x7f,
            "\\PC{0,40}",
        )
            .prop_map(|(shape, chunkshape, blockshape, dtype_format, dtype)| B2ndV1 {
                shape,
                chunkshape,
                blockshape,
                dtype_format,
                dtype,
            })
    })
}

/// Any valid `CatervaV0`: ndim 0..=8, any integers.
pub fn caterva_v0() -> impl Strategy<Value = CatervaV0> {
    (0usize..=8).prop_flat_map(|ndim| {
        (
            prop::collection::vec(any::<i64>(), ndim),
            prop::collection::vec(any::<i32>(), ndim),
            prop::collection::vec(any::<i32>(), ndim),
        )
            .prop_map(|(shape, chunkshape, blockshape)| CatervaV0 {
                shape,
                chunkshape,
                blockshape,
            })
    })
}

/// The layout of `schema` for the run-time engine (`metalayer::value`): a built-in, or a
/// schema file of `tests/schemas` or `examples/schemas`, with the files it extends or includes.
pub fn engine_layout(schema: &str) -> &'static metalayer_layout::Layout {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    if let Some(layout) = metalayer::report::builtin(schema) {
        return layout;
    }
    static FILES: OnceLock<Mutex<HashMap<String, &'static metalayer_layout::Layout>>> = OnceLock::new();
    let mut files = FILES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(layout) = files.get(schema) {
        return layout;
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = ["tests/schemas", "examples/schemas"]
        .iter()
        .map(|dir| root.join(dir).join(format!("{schema}.toml")))
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("no schema file for {schema}"));
    let mut loader = metalayer_layout::Loader::new();
    let source = loader
        .read(&metalayer_layout::Found::File(path))
        .unwrap_or_else(|e| panic!("{schema}: {e}"));
    let layout = loader.layout(source).unwrap_or_else(|e| panic!("{schema}: {e:?}"));
    let layout: &'static metalayer_layout::Layout = Box::leak(Box::new(layout));
    files.insert(schema.to_owned(), layout);
    layout
}

/// The run-time engine agrees with the generated decoder `T` on `bytes`: both decode them, and
/// the engine's JSON encodes back to the very bytes `T`'s value encodes to (`encoded`); or both
/// refuse them with the same error (offset, entry path, kind, and so message).
///
/// Two refusals belong to one side and are not compared:
/// - a generated decoder also refuses values its field types cannot hold (a fixed capacity or
///   length, an integer type narrower than the schema's range), which the engine, with no field
///   types, reads;
/// - the engine refuses a map whose keys are JSON object keys (strings, byte strings) when it
///   holds one key twice, which a JSON object cannot; a generated `Vec<(K, V)>` keeps both.
#[track_caller]
pub fn engine_agrees<'a, T: metalayer::Decode<'a>>(bytes: &'a [u8], encoded: Option<Vec<u8>>) {
    use metalayer::DecodeErrorKind as K;
    let schema = T::SCHEMA;
    let layout = engine_layout(schema);
    let engine = metalayer::value::to_json_value(layout, bytes);
    match (T::decode(bytes), engine) {
        (Err(e), Ok(_))
            if matches!(
                e.kind(),
                K::Capacity { .. }
                    | K::StrCapacity { .. }
                    | K::FixedLength { .. }
                    | K::FixedBytes { .. }
                    | K::OutOfRange { .. }
            ) && field_type_refusal(layout, &e) => {}
        (Ok(_), Err(metalayer::value::DecodeFailure::DuplicateKey { .. })) => {}
        (Ok(value), Ok(json)) => {
            let generated = encoded.unwrap_or_else(|| value.encode().expect("a decoded value encodes"));
            let back = metalayer::value::encode(layout, &json)
                .unwrap_or_else(|e| panic!("{schema}: the engine's {json} does not encode: {e}"));
            assert_eq!(back, generated, "{schema}: the engine's {json} encodes to other bytes");
        }
        (Err(e), Err(metalayer::value::DecodeFailure::Wire(engine))) => {
            assert_eq!(
                engine, e,
                "{schema}: the engine refuses with `{engine}`, generated code with `{e}`"
            );
        }
        (Ok(_), Err(e)) => panic!("{schema}: the engine refuses what generated code decodes: {e}"),
        (Err(e), Ok(json)) => panic!("{schema}: the engine decodes {json} where generated code refuses: {e}"),
        (Err(e), Err(engine)) => panic!("{schema}: generated code refuses with `{e}`, the engine with `{engine}`"),
    }
}

/// Whether a generated decoder's error comes from its field type rather than the schema: a
/// capacity or fixed length, or a range narrower than the range the schema states there.
fn field_type_refusal(layout: &metalayer_layout::Layout, e: &metalayer::DecodeError) -> bool {
    match e.kind() {
        metalayer::DecodeErrorKind::OutOfRange { min, max, found } => {
            // An integer node of the schema holds the value found, in a range wider than the one
            // the error names: the narrower range is the field type's.
            let (min, max, found) = (min.get(), max.get(), found.get());
            schema_int_ranges(layout)
                .iter()
                .any(|&(lo, hi)| (lo..=hi).contains(&found) && (lo < min || hi > max))
        }
        _ => true,
    }
}

/// The ranges of the integer nodes of a layout.
fn schema_int_ranges(layout: &metalayer_layout::Layout) -> Vec<(i128, i128)> {
    fn walk(node: &metalayer_layout::Node, out: &mut Vec<(i128, i128)>) {
        use metalayer_layout::Type;
        match &node.ty {
            Type::Int(t) => out.push((t.min, t.max)),
            Type::Array(a) => walk(&a.element, out),
            Type::Map(m) => {
                walk(&m.key, out);
                walk(&m.value, out);
            }
            Type::Record(r) => r.entries.iter().for_each(|e| walk(&e.node, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(&layout.root, &mut out);
    for t in &layout.types {
        t.record.entries.iter().for_each(|e| walk(&e.node, &mut out));
    }
    out
}

// ---- Frames with an index made by hand ------------------------------------------------------

/// The offset c-blosc2 stores for a chunk of zeros.
pub const ZEROS: i64 = (0x81u64 << 56) as i64;

/// `base` (a frame without vlmetalayers) with `index` for its index chunk, the header's
/// `nbytes`, `cbytes` 0 and `chunksize` as given, and `frame_len` made to fit.
pub fn frame_with_index(base: &[u8], index: &[u8], nbytes: i64, chunksize: i32) -> Vec<u8> {
    let read = metalayer::frame::FrameRef::parse(base).unwrap();
    assert!(read.vlmetalayers.is_empty() && read.header.cbytes == 0);
    let hl = read.header.header_len;
    let trailer = &base[read.trailer.offset as usize..read.header.frame_len as usize];
    let mut out = base[..hl].to_vec();
    out[0x1e..0x26].copy_from_slice(&nbytes.to_be_bytes());
    out[0x3a..0x3e].copy_from_slice(&chunksize.to_be_bytes());
    out.extend_from_slice(index);
    out.extend_from_slice(trailer);
    let len = out.len() as u64;
    out[0x10..0x18].copy_from_slice(&len.to_be_bytes());
    out
}

/// A Blosc2 chunk header (extended), `cbytes` set to 32 + `rest`, followed by `rest`.
pub fn blosc2_chunk(flags: u8, typesize: u8, nbytes: i32, blocksize: i32, blosc2_flags: u8, rest: &[u8]) -> Vec<u8> {
    let mut out = vec![5, 1, flags | 0x05, typesize];
    out.extend_from_slice(&nbytes.to_le_bytes());
    out.extend_from_slice(&blocksize.to_le_bytes());
    out.extend_from_slice(&((32 + rest.len()) as i32).to_le_bytes());
    out.extend_from_slice(&[0, 0, 0, 0, 0, 1]); // shuffle
    out.extend_from_slice(&[0; 9]);
    out.push(blosc2_flags);
    out.extend_from_slice(rest);
    out
}

/// An index of `offsets`, shuffled into 8 streams a block, each stream a run of one byte (as
/// c-blosc2 writes a stream whose bytes are all the same) or stored, in blocks of `blocksize`.
pub fn runs_index(offsets: &[i64], blocksize: usize) -> Vec<u8> {
    let bytes: Vec<u8> = offsets.iter().flat_map(|o| o.to_le_bytes()).collect();
    let nblocks = bytes.len().div_ceil(blocksize);
    let mut data = Vec::new();
    let mut starts = Vec::new();
    for block in bytes.chunks(blocksize) {
        starts.push(32 + 4 * nblocks + data.len());
        let items = block.len() / 8;
        for stream in 0..8 {
            let column: Vec<u8> = (0..items).map(|i| block[i * 8 + stream]).collect();
            if column.iter().all(|&b| b == column[0]) {
                if column[0] == 0 {
                    data.extend_from_slice(&0i32.to_le_bytes());
                } else {
                    data.extend_from_slice(&(-i32::from(column[0])).to_le_bytes());
                    data.push(0x01);
                }
            } else {
                data.extend_from_slice(&(column.len() as i32).to_le_bytes());
                data.extend_from_slice(&column);
            }
        }
    }
    let mut rest: Vec<u8> = starts.iter().flat_map(|&s| (s as i32).to_le_bytes()).collect();
    rest.extend_from_slice(&data);
    blosc2_chunk(0, 8, bytes.len() as i32, blocksize as i32, 0, &rest)
}
