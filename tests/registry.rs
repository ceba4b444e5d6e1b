//! The report's registry chooses each metalayer's layout by its name and bytes, among every
//! built-in layout stored under that name: c-blosc2's `b2nd` and `caterva` versions, and
//! python-blosc2's layouts (`batcharray`), with the bytes written here from the msgpack spec.

use metalayer::report::{Registry, Selected};

fn schema_of(selected: Selected) -> String {
    match selected {
        Selected::Decoded(value) => value.layout().schema.clone(),
        Selected::Failed(e) => format!("failed: {e}"),
        Selected::OtherShape(e) => format!("other shape: {e}"),
        Selected::Unknown => "unknown".to_owned(),
    }
}

#[test]
fn dispatch_by_name_and_bytes() {
    let registry = Registry::builtin();
    let b2nd = |ndim: u8, marker: u8| {
        // An n-dimensional array of zeros: version 0, ndim, three arrays of n zeros
        // (int64, int32, int32).
        let n = usize::from(ndim);
        let mut bytes = vec![marker, 0x00, ndim];
        for width in [9, 5, 5] {
            bytes.push(0x90 + ndim);
            for _ in 0..n {
                bytes.push(if width == 9 { 0xd3 } else { 0xd2 });
                bytes.extend(std::iter::repeat_n(0, width - 1));
            }
        }
        bytes
    };
    // dtype_format 0 (b2nd_v1 only), then the dtype as a str32.
    let v1 = [b2nd(1, 0x97), vec![0x00, 0xdb, 0, 0, 0, 3], b"<f8".to_vec()].concat();
    let v0 = [b2nd(1, 0x96), vec![0xdb, 0, 0, 0, 5], b"uint8".to_vec()].concat();
    let caterva = b2nd(1, 0x95);
    assert_eq!(schema_of(registry.select("b2nd", &v1)), "b2nd_v1");
    assert_eq!(schema_of(registry.select("b2nd", &v0)), "b2nd_v0");
    assert_eq!(schema_of(registry.select("b2nd", &caterva)), "caterva_v0");
    assert_eq!(schema_of(registry.select("caterva", &caterva)), "caterva_v0");
    assert_eq!(
        schema_of(registry.select("caterva", &v1)).split(':').next(),
        Some("failed")
    );
}

#[test]
fn the_registry_tries_every_layout_of_a_name() {
    let registry = Registry::builtin();
    // python-blosc2's batcharray: {"version": 1, "serializer": "msgpack",
    // "items_per_block": nil | 1, "arrow_schema": nil}, as msgpack.packb writes it.
    let head: &[u8] = b"\x84\xa7version\x01\xaaserializer\xa7msgpack\xafitems_per_block";
    let empty = [head, b"\xc0\xacarrow_schema\xc0"].concat();
    let batches = [head, b"\x01\xacarrow_schema\xc0"].concat();
    assert_eq!(schema_of(registry.select("batcharray", &empty)), "batcharray_empty_v1");
    assert_eq!(schema_of(registry.select("batcharray", &batches)), "batcharray_v1");
    // items_per_block must be at least 1 or nil: no shape reads 0, and the error says what
    // each expects at its byte, 1 + 8 + 1 + 11 + 8 + 16 = 0x2d. batcharray is python-blosc2's:
    // a shape none of its layouts reads is another shape, not a failure.
    let zero = [head, b"\x00\xacarrow_schema\xc0"].concat();
    assert_eq!(
        schema_of(registry.select("batcharray", &zero)),
        "other shape: no batcharray layout fits: at byte 0x2d in items_per_block: batcharray_empty_v1 expects 0xc0, \
         batcharray_v1 expects 0x01..=0x7f or 0xcc..=0xcf, batcharray_arrow_v1 expects 0x01..=0x7f or 0xcc..=0xcf; \
         found 0x00"
    );
    // No prefix fits: the dispatch error.
    assert_eq!(
        schema_of(registry.select("b2nd", &[0x94])),
        "failed: no b2nd layout fits: at byte 0x00 b2nd_v1 expects 0x97, b2nd_v0 expects 0x96, caterva_v0 expects 0x95; found 0x94"
    );
    assert_eq!(schema_of(registry.select("units", b"\xa1m")), "unknown");
}
