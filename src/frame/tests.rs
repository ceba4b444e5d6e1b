//! The places this module reads at, checked against the schemas that state them.

use super::*;
use metalayer_layout::{Layout, Type, builtin_layout, offset_formula};
use std::string::ToString;

/// The offset of the entry `name` of the top-level record, when it is a constant.
fn offset_of(layout: &Layout, name: &str) -> Option<usize> {
    let root = layout.root_record()?;
    let index = root.entries.iter().position(|e| e.name == name)?;
    offset_formula(layout, root, index)?.as_constant()
}

fn int_min(layout: &Layout, name: &str) -> Option<i128> {
    let entry = layout.root_record()?.entries.iter().find(|e| e.name == name)?;
    match &entry.node.ty {
        Type::Int(t) => Some(t.min),
        _ => None,
    }
}

#[test]
fn header_offsets_are_the_schemas() {
    let layout = builtin_layout("frame_header_v2").unwrap_or_else(|| unreachable!());
    assert_eq!(offset_of(&layout, "magic"), Some(1));
    assert_eq!(offset_of(&layout, "header_len"), Some(HEADER_LEN_AT));
    assert_eq!(offset_of(&layout, "frame_len"), Some(FRAME_LEN_AT));
    // The prefix is everything before the flags; the frame type is the flags' second byte,
    // after the fixstr's 0xa4.
    assert_eq!(offset_of(&layout, "flags"), Some(PREFIX_LEN));
    assert_eq!(PREFIX_LEN + 2, FRAME_TYPE_AT);
    // The flags' length is not fixed by the schema (a fixstr's length has no bound of its
    // own): the section follows the flags, which the field type holds to four bytes.
    let root = layout.root_record().unwrap_or_else(|| unreachable!());
    let section = root
        .entries
        .iter()
        .position(|e| e.name == "metalayers")
        .unwrap_or_default();
    let formula = offset_formula(&layout, root, section).map(|s| s.to_string());
    assert_eq!(formula.as_deref(), Some("83 + len(flags)"));
    assert_eq!(83 + 4, HEADER_SECTION_AT);
    assert_eq!(int_min(&layout, "header_len"), Some(MIN_HEADER_LEN as i128));
    assert_eq!(MAGIC.len(), offset_of(&layout, "header_len").unwrap_or_default());
    assert_eq!(layout.types.len(), 1);
}

#[test]
fn trailer_offsets_are_the_schemas() {
    let layout = builtin_layout("frame_trailer_v1").unwrap_or_else(|| unreachable!());
    assert_eq!(offset_of(&layout, "vlmetalayers"), Some(TRAILER_SECTION_AT));
    assert_eq!(int_min(&layout, "trailer_len"), Some(MIN_TRAILER_LEN as i128));
    // trailer_len's marker and value, then the fingerprint: 1 + 4 + 1 + 1 + 16 bytes.
    let root = layout.root_record().unwrap_or_else(|| unreachable!());
    let fingerprint = root.entries.iter().find(|e| e.name == "fingerprint");
    assert_eq!(fingerprint.map(|e| e.node.min_size(&layout)), Some(18));
    assert_eq!(TRAILER_TAIL_LEN, 5 + 18);
}

#[test]
fn sections_place_their_map_and_pairs_where_the_schema_does() {
    // A section's 0x93, its size (0xcd + u16), then the map16's 0xde and count.
    for (schema, ty) in [("frame_header_v2", "metalayers"), ("frame_trailer_v1", "vlmetalayers")] {
        let layout = builtin_layout(schema).unwrap_or_else(|| unreachable!());
        let record = &layout.record_type(ty).unwrap_or_else(|| unreachable!()).record;
        let at = |i| offset_formula(&layout, record, i).and_then(|s| s.as_constant());
        assert_eq!(at(1), Some(SECTION_MAP_AT), "{schema}");
        assert_eq!(at(1).map(|m| m + 3), Some(SECTION_PAIRS_AT), "{schema}");
    }
}

#[test]
fn the_magic_and_markers_are_the_schemas() {
    use crate::{Decode, Metalayer};
    // A header python-blosc2 wrote, decoded and written again by the schema's own encoder: its
    // container marker and magic constant are the reader's.
    let file = include_bytes!("../../tests/fixtures/files/blosc2-4/meta_user.b2nd");
    let (header, _) = FrameHeader::decode_prefix(file).unwrap_or_else(|e| unreachable!("{e}"));
    let bytes = header.encode().unwrap_or_else(|e| unreachable!("{e}"));
    assert_eq!(bytes.get(..MAGIC.len()), Some(&MAGIC[..]));
    assert_eq!(bytes.get(HEADER_LEN_AT), Some(&marker(Wire::Int32)));
    // The section's map16, as the encoder writes it.
    assert_eq!(bytes.get(HEADER_SECTION_AT + SECTION_MAP_AT), Some(&MAP16_MARKER));
    assert_eq!(
        (MAP16_MARKER, ARRAY16_MARKER, BIN32_MARKER, TRAILER_LEN_MARKER),
        (0xde, 0xdc, 0xc6, 0xce)
    );
}
