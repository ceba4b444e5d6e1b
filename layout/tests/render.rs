//! The rendered documentation against the original format documents and against hand-encoded
//! bytes.
//!
//! The expected diagram text below is quoted from the seed documents: caterva's
//! `CATERVA_METALAYER.rst` (seeds 000 and 004, the same diagrams), the older caterva `README.md`
//! (seed 003), and c-blosc2's `README_B2ND_METALAYER.rst` in its 6-entry draft (seed 001) and its
//! released 7-entry form (seed 002). The reStructuredText seeds indent their literal blocks by 4
//! spaces; the quotes here drop that indentation. Where the rendering deliberately differs, the
//! test says so and asserts ours; the list is in the documentation of `layout/src/render.rs`.
//!
//! The formulas are checked against bytes written out by hand from the layouts in the reference
//! (marker by marker), with the offsets recorded while writing: no generated encoder, and no walk
//! over the model's wire sizes.

use metalayer_layout::size::{Place, Term, Var};
use metalayer_layout::{
    Count, Layout, Record, Role, Size, Type, builtin_layout, diagram, element_offsets, formulas, length_formula,
    offset_formula, parse, size_formula, value_offset_formula,
};

fn layout(name: &str) -> Layout {
    builtin_layout(name).unwrap()
}

/// `tests/schemas/sensor_v0.toml` of this repository, which the facade's tests use too; the file
/// here links to it, and `cargo package` ships its text.
fn sensor() -> Layout {
    parse("sensor_v0", include_str!("schemas/sensor_v0.toml")).unwrap()
}

fn root(layout: &Layout) -> &Record {
    layout.root_record().unwrap()
}

/// An offset that must be a formula.
fn offset(layout: &Layout, index: usize) -> Size {
    offset_formula(layout, root(layout), index).unwrap()
}

// ---------------------------------------------------------------------------------------------
// Seed quotes.

/// The top row of seed 000 (caterva `CATERVA_METALAYER.rst`); seed 004 has the same lines, and
/// seeds 001 and 002 too, with X=6 and X=7 in the last line.
const SEED_000_TOP: &str = "\
|-0-|-1-|-2-|-3-|~~~~~~~~~~~~~~~~|---|~~~~~~~~~~~~~~~~|---|~~~~~~~~~~~~~~~~|
| 9X| v | nd| 9X| shape          | 9X| chunkshape     | 9X| blockshape     |
|---|---|---|---|~~~~~~~~~~~~~~~~|---|~~~~~~~~~~~~~~~~|---|~~~~~~~~~~~~~~~~|
  ^   ^   ^   ^                    ^                    ^
  |   |   |   |                    |                    |
  |   |   |   |                    |                    +--[msgpack] fixarray with X=nd elements
  |   |   |   |                    +--[msgpack] fixarray with X=nd elements
  |   |   |   +--[msgpack] fixarray with X=nd elements
  |   |   +--[msgpack] positive fixnum for the number of dimensions (up to 127)
  |   +--[msgpack] positive fixnum for the metalayer format version (up to 127)
  +---[msgpack] fixarray with X=5 elements
";

/// The `shape` block of seeds 000, 001, 002 and 004.
const SEED_SHAPE: &str = "\
|---|--8 bytes---|---|--8 bytes---|~~~~~|---|--8 bytes---|
| d3| first_dim  | d3| second_dim | ... | d3| nth_dim    |
|---|------------|---|------------|~~~~~|---|------------|
  ^                ^                      ^
  |                |                      |
  |                |                      +--[msgpack] int64
  |                +--[msgpack] int64
  +--[msgpack] int64
";

/// The `chunkshape` and `blockshape` blocks of seeds 000, 001, 002 and 004 (the same text).
const SEED_CHUNK_BLOCK: &str = "\
|---|--4 bytes---|---|--4 bytes---|~~~~~|---|--4 bytes---|
| d2| first_dim  | d2| second_dim | ... | d2| nth_dim    |
|---|------------|---|------------|~~~~~|---|------------|
  ^                ^                      ^
  |                |                      |
  |                |                      +--[msgpack] int32
  |                +--[msgpack] int32
  +--[msgpack] int32
";

/// The `dtype` block of seed 001 (the 6-entry b2nd draft).
const SEED_001_DTYPE: &str = "\
|---|--4 bytes---|--------------|
| db| dtype_len  | dtype_string |
|---|------------|--------------|
  ^
  |
  +--[msgpack] str32
";

/// The `dtype` part of seed 002 (released b2nd, 7 entries): dtype_format, then the str32.
const SEED_002_DTYPE: &str = "\
|---|---|--4 bytes---|--------------|
| XX| db| dtype_len  | dtype_string |
|---|---|------------|--------------|
  ^   ^
  |   |
  |   +--[msgpack] str32
  +--[msgpack] positive fixint (7-bit integer). dtype_format; 0 means NumPy format.
";

/// Seed 003 (the oldest caterva `README.md`): its garbled header line and its shape block, whose
/// last element is `last_dim`.
const SEED_003_HEADER: &str = "| 9X| nd| nd| 9X| shape          | 9X| partshape      | 9X| blockshape     |";
const SEED_003_SHAPE_LABELS: &str = "| d3| first_dim  | d3| second_dim | ... | d3| last_dim   |";

/// The seed's top row with our deliberate differences: the true ranges (from the model) for
/// version and ndim, "positive fixint", and the container's element count.
fn expected_top(seed_top: &str, entries: usize, ndim_max: usize) -> String {
    seed_top
        .replace(
            "positive fixnum for the number of dimensions (up to 127)",
            &format!("positive fixint for the number of dimensions (ndim, 0..={ndim_max})"),
        )
        .replace(
            "positive fixnum for the metalayer format version (up to 127)",
            "positive fixint for the metalayer format version (version, always 0)",
        )
        .replace("X=5 elements", &format!("X={entries} elements"))
}

fn assert_contains(haystack: &str, needle: &str) {
    assert!(
        haystack.contains(needle),
        "the diagram lacks\n{needle}\n--- diagram ---\n{haystack}"
    );
}

#[test]
fn caterva_v0_diagram_matches_seeds_000_and_004() {
    let d = diagram(&layout("caterva_v0"));
    assert_contains(&d, &expected_top(SEED_000_TOP, 5, 8));
    // The seed's own container line, unchanged.
    assert_contains(&d, "\n  +---[msgpack] fixarray with X=5 elements\n");
    assert_contains(&d, SEED_SHAPE);
    assert_eq!(d.matches(SEED_CHUNK_BLOCK).count(), 2, "chunkshape and blockshape\n{d}");
    assert!(!d.contains("dtype_") && !d.contains("| db|"));
    assert!(d.ends_with("Encoded length: 6 + 19*ndim bytes.\n"));
}

#[test]
fn caterva_v0_diagram_fixes_seed_003() {
    let d = diagram(&layout("caterva_v0"));
    // Seed 003's header says `nd` twice and `partshape`; the bytes are version, ndim, chunkshape.
    assert!(!d.contains(SEED_003_HEADER));
    assert!(!d.contains("partshape      |"));
    assert_contains(
        &d,
        "| 9X| v | nd| 9X| shape          | 9X| chunkshape     | 9X| blockshape     |\n",
    );
    // Seed 003's fourth caret is one column right of the fourth cell (`  ^   ^   ^    ^`).
    assert_contains(&d, "\n  ^   ^   ^   ^                    ^                    ^\n");
    // Seed 003 annotates the second and third array headers as "positive fixnum for nd".
    assert!(!d.contains("positive fixnum for nd"));
    assert_eq!(d.matches("+--[msgpack] fixarray with X=nd elements\n").count(), 3);
    // Seed 003 says `last_dim`; the other seeds and we say `nth_dim`.
    assert!(!d.contains(SEED_003_SHAPE_LABELS));
    assert_contains(&d, "| d3| first_dim  | d3| second_dim | ... | d3| nth_dim    |\n");
    // The schema's doc keeps the old name findable.
    assert_contains(&d, "partshape in the oldest document");
}

#[test]
fn b2nd_v0_diagram_matches_seed_001() {
    let d = diagram(&layout("b2nd_v0"));
    assert_contains(&d, &expected_top(SEED_000_TOP, 6, 8));
    assert_contains(&d, SEED_SHAPE);
    assert_eq!(d.matches(SEED_CHUNK_BLOCK).count(), 2);
    assert_contains(&d, SEED_001_DTYPE);
    assert_contains(&d, "dtype as NumPy's repr, such as \"uint8\"");
}

#[test]
fn b2nd_v1_diagram_matches_seed_002() {
    let d = diagram(&layout("b2nd_v1"));
    // ndim goes up to 16, where the array headers are 0xa0: said on each header's line.
    let top = expected_top(SEED_000_TOP, 7, 16).replace(
        "fixarray with X=nd elements\n",
        "fixarray with X=nd elements; nd = 16 gives header 0xa0, not a fixarray\n",
    );
    assert_contains(&d, &top);
    assert_contains(&d, SEED_SHAPE);
    assert_eq!(d.matches(SEED_CHUNK_BLOCK).count(), 2);
    // Seed 002's dtype part, with the annotation of dtype_format built from the schema.
    let dtype = SEED_002_DTYPE.replace(
        "positive fixint (7-bit integer). dtype_format; 0 means NumPy format.",
        "positive fixint for the dtype format; 0 means NumPy (dtype_format, 0..=127)",
    );
    assert_contains(&d, &dtype);
    // The first five lines of seed 002's dtype part are ours unchanged.
    let unchanged: String = SEED_002_DTYPE.lines().take(6).map(|l| format!("{l}\n")).collect();
    assert_contains(&d, &unchanged);
    assert_contains(&d, "Finally, the `dtype_format` and `dtype` entries:\n");
    assert!(d.ends_with("Encoded length: 12 + 19*ndim + len(dtype) bytes.\n"));
}

#[test]
fn diagrams_have_no_trailing_spaces_and_open_with_the_schema() {
    for l in [layout("caterva_v0"), layout("b2nd_v0"), layout("b2nd_v1"), sensor()] {
        let d = diagram(&l);
        assert!(d.starts_with(&format!("The `{}` metalayer (schema {}): ", l.metalayer, l.schema)));
        for line in d.lines() {
            assert_eq!(line, line.trim_end(), "{:?}", l.schema);
        }
    }
}

#[test]
fn sensor_diagram_draws_every_wire_type() {
    let d = diagram(&sensor());
    // The fixed prefix with byte offsets; the int8 constant, uint16 and uint8 count as marker + payload.
    assert_contains(
        &d,
        "\
|-0-|-1-|--1 byte----|-3-|--2 bytes---|-6-|--1 byte----|-8-|~~~~~~~~~~~~~~~~|---|~~~~~~~~~~~~~~~~|
| 9X| d0| magic      | cd| kind       | cc| n          | 9X| readings       | 9X| flags          |
",
    );
    assert_contains(&d, "+--[msgpack] int8 (magic, always -5)\n");
    assert_contains(&d, "+--[msgpack] uint16 (kind, 1..=1000)\n");
    assert_contains(&d, "+--[msgpack] uint8 for the length of readings, flags (n, 1..=4)\n");
    assert_contains(&d, "+---[msgpack] fixarray with X=10 elements\n");
    assert_eq!(d.matches("fixarray with X=n elements\n").count(), 2);
    assert_contains(&d, "| ce| first_elem  | ce| second_elem | ... | ce| nth_elem    |\n");
    // Fixint elements have no marker: one cell each.
    assert_contains(&d, "| first_elem  | second_elem | ... | nth_elem    |\n");
    assert_contains(&d, "  +--[msgpack] positive fixint\n");
    assert_contains(
        &d,
        "| d9| label_len  | label_string | da| note_len   | note_string | d1| offset     | cf| big        | d2| temp       |\n",
    );
    assert_contains(&d, "+--[msgpack] uint64 (big, 0..=18446744073709551615)\n");
    assert!(d.ends_with("Encoded length: 32 + 6*n + len(label) + len(note) bytes.\n"));
}

/// Schemas with shapes the built-ins do not have: no arrays, strings before an array, a count
/// whose headers leave the fixarray range by more than one byte, a single entry.
#[test]
fn diagram_handles_other_layouts() {
    let head = "[schema]\nmetalayer = \"x\"\ndescription = \"d\"\nsource = \"s\"\n";
    let only_scalars = format!(
        "{head}[container]\nwire = \"fixarray\"\nmarker = 0x93\n\
         [[entry]]\nname = \"a\"\nwire = \"fixint\"\n\
         [[entry]]\nname = \"name\"\nwire = \"str8\"\nmarker = 0xd9\nwidth = 1\ndoc = \"A label\"\n\
         [[entry]]\nname = \"b\"\nwire = \"uint16\"\nmarker = 0xcd\nwidth = 2\n"
    );
    let l = parse("only_scalars", &only_scalars).unwrap();
    let d = diagram(&l);
    // No array: the top row is the container and the fixint before the first string.
    assert_contains(&d, "|-0-|-1-|\n| 9X| a |\n");
    assert_contains(&d, "+--[msgpack] positive fixint (a, 0..=127)\n");
    assert_contains(&d, "| d9| name_len   | name_string | cd| b          |\n");
    assert_contains(
        &d,
        "Finally, the `name` and `b` entries:\n- name (str8): A label\n- b (uint16)\n",
    );
    assert_eq!(length_formula(&l).to_string(), "7 + len(name)");

    let wide = format!(
        "{head}[container]\nwire = \"fixarray\"\nmarker = 0x94\n\
         [[entry]]\nname = \"tag\"\nwire = \"str16\"\nmarker = 0xda\nwidth = 2\n\
         [[entry]]\nname = \"count\"\nwire = \"fixint\"\nmax = 40\nlength_of = [\"xs\"]\n\
         [[entry]]\nname = \"xs\"\nwire = \"fixarray\"\nmarker = 0x90\ncount = \"count\"\n\
         element = {{ wire = \"uint64\", marker = 0xcf, width = 8 }}\nallow_header_overflow = \"a test\"\n\
         [[entry]]\nname = \"z\"\nwire = \"int64\"\nmarker = 0xd3\nwidth = 8\nconst = 7\n"
    );
    let l = parse("wide", &wide).unwrap();
    let d = diagram(&l);
    // A string before the last array: marker and span in the top row, its own block below.
    assert_contains(
        &d,
        "| 9X| da| tag            | co| 9X| xs             | d3| z          |\n",
    );
    assert_contains(
        &d,
        "The `tag` section: a str16:\n\n|---|--2 bytes---|------------|\n| da| tag_len    | tag_string |\n",
    );
    assert_contains(
        &d,
        "fixarray with X=co elements; co = 16..=40 gives headers 0xa0..=0xb8, not a fixarray\n",
    );
    assert_contains(&d, "| cf| first_elem  | cf| second_elem | ... | cf| nth_elem    |\n");
    assert_contains(&d, "+--[msgpack] int64 (z, always 7)\n");
    assert_eq!(length_formula(&l).to_string(), "15 + 9*count + len(tag)");
    assert_eq!(
        formulas(&l, root(&l))
            .lines()
            .filter(|l| l.starts_with("xs[i]"))
            .count(),
        1
    );

    // A hand-built, inconsistent layout (its fields are public): no panic.
    let mut broken = layout("b2nd_v1");
    let Type::Record(r) = &mut broken.root.ty else {
        panic!("b2nd_v1 is a record")
    };
    if let Type::Array(a) = &mut r.entries[2].node.ty {
        a.count = Count::Entry(99);
    }
    r.entries[0].doc = None;
    let d = diagram(&broken);
    assert_contains(&d, "fixarray with X=count elements");
    assert_eq!(size_formula(&broken, root(&broken), 2).to_string(), "1 + 9*count");
    let mut empty = broken.clone();
    let Type::Record(r) = &mut empty.root.ty else {
        panic!("b2nd_v1 is a record")
    };
    r.entries.clear();
    assert_contains(&diagram(&empty), "+---[msgpack] fixarray with X=0 elements\n");
    assert_eq!(length_formula(&empty), Size::fixed(1));
}

// ---------------------------------------------------------------------------------------------
// Formulas against hand-encoded bytes.

/// Bytes written by hand, with the offset of each entry's first byte and of each element's marker
/// recorded as they are written.
#[derive(Default)]
struct Hand {
    bytes: Vec<u8>,
    /// Offset of each entry's first byte, in entry order.
    entries: Vec<usize>,
    /// Per array entry (by entry index): offsets of its elements' first bytes.
    elements: Vec<(usize, Vec<usize>)>,
}

impl Hand {
    fn entry(&mut self) {
        self.entries.push(self.bytes.len());
    }
    fn fixint(&mut self, v: u8) {
        assert!(v <= 0x7f);
        self.entry();
        self.bytes.push(v);
    }
    /// `0x90 + n`, then per element a marker and a big-endian payload.
    fn array(&mut self, marker: u8, payloads: &[Vec<u8>]) {
        let index = self.entries.len();
        self.entry();
        self.bytes.push(0x90 + payloads.len() as u8);
        let mut at = Vec::new();
        for p in payloads {
            at.push(self.bytes.len());
            self.bytes.push(marker);
            self.bytes.extend_from_slice(p);
        }
        self.elements.push((index, at));
    }
    /// `0xdb`, u32 big-endian length, bytes.
    fn str32(&mut self, s: &str) {
        self.entry();
        self.bytes.push(0xdb);
        self.bytes.extend_from_slice(&(s.len() as u32).to_be_bytes());
        self.bytes.extend_from_slice(s.as_bytes());
    }
}

fn shape(i: usize) -> i64 {
    1_000_000_000_007 + i as i64
}
fn chunk(i: usize) -> i32 {
    1000 + i as i32
}
fn block(i: usize) -> i32 {
    -10 - i as i32
}

/// The caterva / b2nd bytes of the reference's table: top marker, version 0, ndim, shape
/// (`0xd3` + i64), chunkshape and blockshape (`0xd2` + i32), then the b2nd extras.
fn hand_encode(schema: &str, ndim: usize, dtype: &str) -> Hand {
    let mut h = Hand::default();
    h.bytes.push(match schema {
        "caterva_v0" => 0x95,
        "b2nd_v0" => 0x96,
        "b2nd_v1" => 0x97,
        other => panic!("{other}"),
    });
    h.fixint(0);
    h.fixint(ndim as u8);
    h.array(
        0xd3,
        &(0..ndim).map(|i| shape(i).to_be_bytes().to_vec()).collect::<Vec<_>>(),
    );
    h.array(
        0xd2,
        &(0..ndim).map(|i| chunk(i).to_be_bytes().to_vec()).collect::<Vec<_>>(),
    );
    h.array(
        0xd2,
        &(0..ndim).map(|i| block(i).to_be_bytes().to_vec()).collect::<Vec<_>>(),
    );
    match schema {
        "b2nd_v0" => h.str32(dtype),
        "b2nd_v1" => {
            h.fixint(0);
            h.str32(dtype);
        }
        _ => {}
    }
    h
}

const DTYPES: [&str; 5] = ["", "|u1", "<i4", "[('a', '<i4'), ('b', '<f8')]", "<U10"];

#[test]
fn builtin_formulas_match_hand_encoded_bytes_for_every_ndim() {
    for (schema, max) in [("caterva_v0", 8), ("b2nd_v0", 8), ("b2nd_v1", 16)] {
        let l = layout(schema);
        let r = root(&l);
        // The schema's own max, so a change to it shows up here.
        let ndim_entry = r.entry("ndim").unwrap();
        assert!(matches!(
            (&ndim_entry.role, &ndim_entry.node.ty),
            (Role::Count { .. }, Type::Int(t)) if t.min == 0 && t.max == max as i128
        ));
        let long = "x".repeat(300);
        let dtypes: Vec<&str> = DTYPES.iter().copied().chain([long.as_str()]).collect();
        for ndim in 0..=max {
            for dtype in &dtypes {
                if schema == "caterva_v0" && !dtype.is_empty() {
                    continue;
                }
                let h = hand_encode(schema, ndim, dtype);
                let counts = [("ndim", ndim)];
                let strs = [("dtype", dtype.len())];
                let at = |f: Size| f.eval(&counts, &strs);
                let what = format!("{schema}, ndim {ndim}, dtype {dtype:?}");

                assert_eq!(at(length_formula(&l)), h.bytes.len(), "length, {what}");
                assert_eq!(h.entries.len(), r.entries.len());
                for (i, &start) in h.entries.iter().enumerate() {
                    assert_eq!(at(offset(&l, i)), start, "entry {i}, {what}");
                    let end = h.entries.get(i + 1).copied().unwrap_or(h.bytes.len());
                    assert_eq!(at(size_formula(&l, r, i)), end - start, "size of entry {i}, {what}");
                }
                for (index, elements) in &h.elements {
                    let el = element_offsets(&l, r, *index).unwrap();
                    for (i, &marker_at) in elements.iter().enumerate() {
                        assert_eq!(at(el.element(i)), marker_at, "element {i} of entry {index}, {what}");
                        assert_eq!(at(el.payload(i)), marker_at + 1);
                    }
                }
                // What the offsets point at.
                let b = &h.bytes;
                assert_eq!(b[at(offset(&l, 1))], ndim as u8);
                for name in ["shape", "chunkshape", "blockshape"] {
                    let i = r.entries.iter().position(|e| e.name == name).unwrap();
                    assert_eq!(b[at(offset(&l, i))], 0x90 + ndim as u8, "{name} header, {what}");
                }
                let shape_el = element_offsets(&l, r, 2).unwrap();
                let chunk_el = element_offsets(&l, r, 3).unwrap();
                let block_el = element_offsets(&l, r, 4).unwrap();
                for i in 0..ndim {
                    assert_eq!(b[at(shape_el.element(i))], 0xd3);
                    let p = at(shape_el.payload(i));
                    assert_eq!(i64::from_be_bytes(b[p..p + 8].try_into().unwrap()), shape(i));
                    let p = at(chunk_el.payload(i));
                    assert_eq!(i32::from_be_bytes(b[p..p + 4].try_into().unwrap()), chunk(i));
                    assert_eq!(b[at(block_el.element(i))], 0xd2);
                    let p = at(block_el.payload(i));
                    assert_eq!(i32::from_be_bytes(b[p..p + 4].try_into().unwrap()), block(i));
                }
                if let Some(d) = r.entries.iter().position(|e| e.name == "dtype") {
                    assert_eq!(b[at(offset(&l, d))], 0xdb);
                    let text = at(value_offset_formula(&l, r, d).unwrap());
                    assert_eq!(&b[text..], dtype.as_bytes(), "{what}");
                }
            }
        }
    }
}

/// The numbers derived by hand from the seeds' diagrams (container, version, ndim: 3 bytes; shape
/// header at 3; 9 bytes per int64 element, 5 per int32 element; str32 is 5 bytes + text).
#[test]
fn builtin_formulas_are_the_hand_derived_ones() {
    let text = |schema: &str| -> Vec<String> {
        let l = layout(schema);
        (0..=root(&l).entries.len())
            .map(|i| offset(&l, i).to_string())
            .collect()
    };
    assert_eq!(
        text("caterva_v0"),
        ["1", "2", "3", "4 + 9*ndim", "5 + 14*ndim", "6 + 19*ndim"]
    );
    assert_eq!(
        text("b2nd_v0"),
        [
            "1",
            "2",
            "3",
            "4 + 9*ndim",
            "5 + 14*ndim",
            "6 + 19*ndim",
            "11 + 19*ndim + len(dtype)"
        ]
    );
    assert_eq!(
        text("b2nd_v1"),
        [
            "1",
            "2",
            "3",
            "4 + 9*ndim",
            "5 + 14*ndim",
            "6 + 19*ndim",
            "7 + 19*ndim",
            "12 + 19*ndim + len(dtype)"
        ]
    );
    let l = layout("b2nd_v1");
    let r = root(&l);
    let shape = element_offsets(&l, r, 2).unwrap();
    // shape[i]'s 0xd3 marker is at 4 + 9*i, its int64 payload at 5 + 9*i.
    assert_eq!(shape.element_text(), "4 + 9*i");
    assert_eq!(shape.payload_text(), "5 + 9*i");
    assert_eq!(element_offsets(&l, r, 3).unwrap().element_text(), "5 + 9*ndim + 5*i");
    assert_eq!(element_offsets(&l, r, 4).unwrap().payload_text(), "7 + 14*ndim + 5*i");
    let value_at = |i| value_offset_formula(&l, r, i).unwrap().to_string();
    assert_eq!(value_at(5), "6 + 19*ndim"); // dtype_format: the fixint itself
    assert_eq!(value_at(6), "12 + 19*ndim"); // dtype's text
    assert_eq!(
        length_formula(&l),
        Size {
            fixed: 12,
            terms: vec![
                Term::Linear {
                    k: 19,
                    of: Var::Count(Place::entry(1, "ndim"))
                },
                Term::Linear {
                    k: 1,
                    of: Var::Len(Place::entry(6, "dtype"))
                },
            ],
        }
    );
    // Real b2nd_v1 sizes: ndim 0 with "|u1" is 15 bytes; ndim 2 with "<i4" is 53.
    assert_eq!(length_formula(&l).eval(&[("ndim", 0)], &[("dtype", 3)]), 15);
    assert_eq!(length_formula(&l).eval(&[("ndim", 2)], &[("dtype", 3)]), 53);
}

/// The sensor layout written out by hand from msgpack's marker table, as in
/// `tests/custom_schema.rs`, for every allowed `n` and a few string lengths.
#[test]
fn sensor_formulas_match_hand_encoded_bytes() {
    let l = sensor();
    let r = root(&l);
    assert_eq!(length_formula(&l).to_string(), "32 + 6*n + len(label) + len(note)");
    for n in 1..=4usize {
        for (label, note) in [
            ("", ""),
            ("ok", "abc"),
            ("a longer label", ""),
            ("", &*"z".repeat(1000)),
        ] {
            let mut h = Hand::default();
            h.bytes.push(0x9a);
            h.entry();
            h.bytes.extend_from_slice(&[0xd0, 0xfb]);
            h.entry();
            h.bytes.extend_from_slice(&[0xcd, 0x01, 0x2c]);
            h.entry();
            h.bytes.extend_from_slice(&[0xcc, n as u8]);
            h.array(
                0xce,
                &(0..n)
                    .map(|i| (i as u32 * 7).to_be_bytes().to_vec())
                    .collect::<Vec<_>>(),
            );
            // Fixint elements: no marker, the byte is the value.
            let index = h.entries.len();
            h.entry();
            h.bytes.push(0x90 + n as u8);
            let at: Vec<usize> = (0..n).map(|i| h.bytes.len() + i).collect();
            h.bytes.extend((0..n).map(|i| i as u8));
            h.elements.push((index, at));
            h.entry();
            h.bytes.extend_from_slice(&[0xd9, label.len() as u8]);
            h.bytes.extend_from_slice(label.as_bytes());
            h.entry();
            h.bytes.push(0xda);
            h.bytes.extend_from_slice(&(note.len() as u16).to_be_bytes());
            h.bytes.extend_from_slice(note.as_bytes());
            h.entry();
            h.bytes.extend_from_slice(&[0xd1, 0x80, 0x00]);
            h.entry();
            h.bytes.push(0xcf);
            h.bytes.extend_from_slice(&u64::MAX.to_be_bytes());
            h.entry();
            h.bytes.push(0xd2);
            h.bytes.extend_from_slice(&i32::MAX.to_be_bytes());

            let counts = [("n", n)];
            let strs = [("label", label.len()), ("note", note.len())];
            let at = |f: Size| f.eval(&counts, &strs);
            assert_eq!(at(length_formula(&l)), h.bytes.len());
            for (i, &start) in h.entries.iter().enumerate() {
                assert_eq!(at(offset(&l, i)), start, "entry {i}, n {n}");
            }
            for (index, elements) in &h.elements {
                let el = element_offsets(&l, r, *index).unwrap();
                for (i, &first) in elements.iter().enumerate() {
                    assert_eq!(at(el.element(i)), first);
                }
            }
            // flags: a fixint element's payload is its one byte.
            let flags = element_offsets(&l, r, 4).unwrap();
            assert_eq!((flags.stride, flags.marker_len), (1, 0));
            assert_eq!(h.bytes[at(flags.payload(n - 1))], (n - 1) as u8);
            // note's text, and temp's payload.
            let text = at(value_offset_formula(&l, r, 6).unwrap());
            assert_eq!(&h.bytes[text..text + note.len()], note.as_bytes());
            let temp = at(value_offset_formula(&l, r, 9).unwrap());
            assert_eq!(&h.bytes[temp..], i32::MAX.to_be_bytes());
        }
    }
}

#[test]
fn formula_evaluation_and_display() {
    let linear = |k, of| Term::Linear { k, of };
    let f = Size {
        fixed: 0,
        terms: vec![
            linear(1, Var::Count(Place::entry(0, "n"))),
            linear(3, Var::Count(Place::entry(1, "m"))),
            linear(2, Var::Len(Place::entry(2, "s"))),
        ],
    };
    assert_eq!(f.to_string(), "n + 3*m + 2*len(s)");
    assert_eq!(f.eval(&[("m", 2), ("n", 1), ("x", 100)], &[("s", 5)]), 17);
    assert_eq!(f.checked_eval(&[("n", 1)], &[("s", 5)]), None);
    assert_eq!(Size::default().to_string(), "0");
    assert_eq!(Size::fixed(0).eval(&[], &[]), 0);
}

#[test]
#[should_panic(expected = "cannot evaluate `6 + 19*ndim`")]
fn eval_panics_on_a_missing_count() {
    length_formula(&layout("caterva_v0")).eval(&[], &[]);
}

#[test]
fn formulas_table_for_b2nd_v1() {
    let l = layout("b2nd_v1");
    let table = formulas(&l, root(&l));
    let rows: Vec<Vec<&str>> = table
        .lines()
        .skip(2)
        .map(|l| l.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect())
        .collect();
    assert_eq!(rows[0], ["entry", "wire", "offset", "size", "value at"]);
    assert_eq!(rows[1], ["(container)", "fixarray", "0", "1", "-"]);
    // The wire column names the schema's wire type (`fixarray`; the flat model said `array`).
    assert_eq!(rows[4], ["shape", "fixarray", "3", "1 + 9*ndim", "-"]);
    assert_eq!(rows[5], ["shape[i]", "int64", "4 + 9*i", "9", "5 + 9*i"]);
    assert_eq!(rows[10], ["dtype_format", "fixint", "6 + 19*ndim", "1", "6 + 19*ndim"]);
    assert_eq!(
        rows[11],
        ["dtype", "str32", "7 + 19*ndim", "5 + len(dtype)", "12 + 19*ndim"]
    );
    assert_eq!(rows[12], ["(total)", "12 + 19*ndim + len(dtype)"]);
    assert_eq!(rows.len(), 13);
}

// ---------------------------------------------------------------------------------------------
// A nested layout: a map record with canonical entries, arrays of strings and records, an
// optional entry. Expected texts are derived by hand from the msgpack specification; expected
// lengths are those of python's `msgpack` (1.x) output for the same values, as noted.

use metalayer_layout::size::{self, Step, Value};
use metalayer_layout::{Family, record_diagram};

fn probe() -> Layout {
    parse("probe_v0", include_str!("schemas/probe_v0.toml")).unwrap_or_else(|d| panic!("{d}"))
}

/// The probe's formula, by hand: the fixmap header (1; 8 or 9 entries is always a fixmap), each
/// key as a fixstr (1 + its bytes), then: version, canonical 1 = positive fixint (1); scale
/// float64 (9); enabled bool (1); offset canonical int; npoints fixint (1); points fixarray
/// header (1) and per point a fixarray of two float32 (1 + 5 + 5); tags a canonical array of
/// canonical strings; operands array16 (3) of `operand` records; note, optional.
/// Fixed: 1 + (8+1) + (6+9) + (8+1) + 7 + (8+1) + (7+1) + 5 + (9+3) = 75.
const PROBE_LENGTH: &str = "75 + 11*npoints + int(offset) + hdr(tags) + Σ(hdr(tags[i]) + len(tags[i])) \
+ Σ(size(operands[i])) + [present(note)]*(5 + hdr(note) + len(note))";

/// `operand`: fixmap (1), key "k" (2) and a canonical str, key "level" (6) and an int of 0..=9
/// (always a positive fixint, 1), key "weight" (7) and a float64 (9): 26 + the string.
const OPERAND_LENGTH: &str = "26 + hdr(kind) + len(kind)";

/// A probe value: `offset`, the points (their number), the tags' lengths, the operands' kind
/// lengths and levels, the note's length if present.
fn probe_value(offset: i128, points: usize, tags: &[usize], operands: &[(usize, i128)], note: Option<usize>) -> Value {
    let mut entries = vec![
        Some(Value::Int(1)),
        Some(Value::Other),
        Some(Value::Other),
        Some(Value::Int(offset)),
        Some(Value::Int(points as i128)),
        Some(Value::Array(vec![Value::Record(vec![Some(Value::Other); 2]); points])),
        Some(Value::Array(tags.iter().map(|&n| Value::Bytes(n)).collect())),
        Some(Value::Array(
            operands
                .iter()
                .map(|&(kind, level)| {
                    Value::Record(vec![
                        Some(Value::Bytes(kind)),
                        Some(Value::Int(level)),
                        Some(Value::Other),
                    ])
                })
                .collect(),
        )),
    ];
    if let Some(n) = note {
        entries.push(Some(Value::Bytes(n)));
    }
    Value::Record(entries)
}

#[test]
fn probe_formulas_are_the_hand_derived_ones() {
    let l = probe();
    let r = root(&l);
    assert_eq!(length_formula(&l).to_string(), PROBE_LENGTH);
    let operand = l.record_type("operand").unwrap();
    let point = l.record_type("point").unwrap();
    assert_eq!(
        size::of_record(&l, &operand.record, &Place::root()).to_string(),
        OPERAND_LENGTH
    );
    // point: fixarray (1) and two float32 (5 each), a fixed size that folds into its arrays.
    assert_eq!(size::of_record(&l, &point.record, &Place::root()), Size::fixed(11));

    // Each entry's size, key included.
    let sizes: Vec<String> = (0..9).map(|i| size_formula(&l, r, i).to_string()).collect();
    assert_eq!(
        sizes,
        [
            "9",
            "15",
            "9",
            "7 + int(offset)",
            "9",
            "8 + 11*npoints",
            "5 + hdr(tags) + Σ(hdr(tags[i]) + len(tags[i]))",
            "12 + Σ(size(operands[i]))",
            "5 + hdr(note) + len(note)",
        ]
    );
    // Offsets are formulas up to and including `offset`, whose size the value chooses.
    let offsets: Vec<Option<String>> = (0..=9)
        .map(|i| offset_formula(&l, r, i).map(|f| f.to_string()))
        .collect();
    let known = [Some("1"), Some("10"), Some("25"), Some("34")];
    assert_eq!(offsets[..4], known.map(|o| o.map(String::from)));
    assert!(offsets[4..].iter().all(Option::is_none));
    // Values: after the key, the fixint itself, after the float's marker, the bool itself.
    let values: Vec<Option<String>> = (0..4)
        .map(|i| value_offset_formula(&l, r, i).map(|f| f.to_string()))
        .collect();
    assert_eq!(values, [Some("9".into()), Some("17".into()), Some("33".into()), None]);
    assert!(element_offsets(&l, r, 5).is_none());
}

#[test]
fn probe_length_terms_are_what_code_generation_reads() {
    let l = probe();
    // The count of `points` is the entry `npoints`, the element places start at the element,
    // the optional entry is wrapped.
    let length = length_formula(&l);
    assert_eq!(
        length.terms[0],
        Term::Linear {
            k: 11,
            of: Var::Count(Place::entry(4, "npoints"))
        }
    );
    assert_eq!(
        length.terms[1],
        Term::Smallest {
            family: Family::Int,
            of: Place::entry(3, "offset")
        }
    );
    let Term::Each { of, element } = &length.terms[3] else {
        panic!("{:?}", length.terms[3])
    };
    assert_eq!(of, &Place::entry(6, "tags"));
    let element_place = Place(vec![Step::Element]);
    assert_eq!(
        element.terms,
        [
            Term::Smallest {
                family: Family::Str,
                of: element_place.clone()
            },
            Term::Linear {
                k: 1,
                of: Var::Len(element_place.clone())
            },
        ]
    );
    let Term::Each { element, .. } = &length.terms[4] else {
        panic!("{:?}", length.terms[4])
    };
    assert_eq!(
        element.terms,
        [Term::Record {
            of: element_place,
            ty: l.types.iter().position(|t| t.name == "operand").unwrap()
        }]
    );
    assert!(matches!(&length.terms[5], Term::Optional { of, .. } if *of == Place::entry(8, "note")));
    assert!(!length.is_linear());
}

#[test]
fn probe_formula_matches_python_msgpack() {
    let l = probe();
    let length = length_formula(&l);
    let cases = [
        // offset -300 (int16, 3 bytes), two points, tags "a" and 40 x's (fixstr, str8), one
        // operand {"k": "zstd", "level": 9, "weight": 0.25}, note "hello": 187 bytes.
        (probe_value(-300, 2, &[1, 40], &[(4, 9)], Some(5)), 187),
        // The same without the note (fixmap 0x88): 176 bytes.
        (probe_value(-300, 2, &[1, 40], &[(4, 9)], None), 176),
        // offset 5 (fixint), no points, 20 tags "t" (array16 header), no operands: 119 bytes.
        (probe_value(5, 0, &[1; 20], &[], None), 119),
        // offset 2**40 (uint64), 15 points, one tag of 300 bytes (str16), operands with kinds
        // "" (fixstr) and 32 y's (str8), note "": 646 bytes.
        (probe_value(1 << 40, 15, &[300], &[(0, 1), (32, 9)], Some(0)), 646),
    ];
    for (value, python) in &cases {
        assert_eq!(length.eval_value(&l, value), Some(*python), "{value:?}");
    }
    // The first case's bytes as python's msgpack writes them (floats of the points as float32,
    // operands behind an array16 header), and the offsets of the first four entries in them.
    let hex = "89a776657273696f6e01a57363616c65cb3fe0000000000000a7656e61626c6564c3a66f6666736574d1fed4a76e706f696e74\
               7302a6706f696e74739292ca3f800000ca4000000092ca40400000ca40800000a47461677392a161d92878787878787878787878\
               787878787878787878787878787878787878787878787878787878787878a86f706572616e6473dc000183a16ba47a737464a56c\
               6576656c09a6776569676874cb3fd0000000000000a46e6f7465a568656c6c6f";
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    assert_eq!(bytes.len(), 187);
    let r = root(&l);
    for (i, key) in ["version", "scale", "enabled", "offset"].iter().enumerate() {
        let at = offset(&l, i).eval(&[], &[]);
        assert_eq!(bytes[at], 0xa0 + key.len() as u8, "{key}");
        assert_eq!(&bytes[at + 1..at + 1 + key.len()], key.as_bytes());
    }
    let value_at = |i| value_offset_formula(&l, r, i).unwrap().eval(&[], &[]);
    assert_eq!(bytes[value_at(0)], 0x01); // version
    assert_eq!(bytes[value_at(1) - 1], 0xcb); // scale's marker, then 0.5
    assert_eq!(&bytes[value_at(1)..value_at(1) + 8], 0.5f64.to_be_bytes());
    assert_eq!(bytes[value_at(2)], 0xc3); // enabled = true

    // A value of the wrong shape is no size, not a panic.
    assert_eq!(length.eval_value(&l, &Value::Other), None);
    assert_eq!(length.eval_value(&l, &Value::Record(vec![])), None);
}

#[test]
fn probe_diagram_draws_the_tree() {
    let l = probe();
    let d = diagram(&l);
    // The top row, in rows of at most 120 columns: the fixmap header, each key as a fixstr cell
    // (`a7` = 0xa0 + 7 bytes of "version"), version's fixint at 1 + 8 = 9, scale's float64 marker
    // at 10 + 6 = 16, enabled's bool at 25 + 8 = 33, offset's canonical int as a span.
    assert_contains(
        &d,
        "\
|-0-|--8 bytes-----|-9-|--6 bytes---|-16-|--8 bytes---|--8 bytes-----|-33-|--7 bytes----|~~~~~~~~~~~~~~~~|
| 8X| a7 \"version\" | v | a5 \"scale\" | cb | scale      | a7 \"enabled\" | XX | a6 \"offset\" | offset         |
",
    );
    assert_contains(
        &d,
        "+---[msgpack] fixmap with X=8..=9 entries (map, the smallest header)\n",
    );
    assert_contains(&d, "+--[msgpack] int, always a positive fixint (version, always 1)\n");
    assert_contains(&d, "+--[msgpack] float64 for the scale factor (scale)\n");
    assert_contains(&d, "+--[msgpack] bool: c2 false, c3 true (enabled)\n");
    assert_contains(
        &d,
        "+--[msgpack] int, the smallest encoding: 1, 2, 3, 5 or 9 bytes (offset, any int64 or uint64)\n",
    );
    // The second row: a fixint count, the arrays' headers (fixarray, canonical), array16 with
    // its 2-byte count.
    assert_contains(
        &d,
        "| a7 \"npoints\" | np| a6 \"points\" | 9X| points         | a4 \"tags\"  | header         | tags           |\n",
    );
    assert_contains(&d, "+--[msgpack] fixarray with X=np elements\n");
    assert_contains(
        &d,
        "+--[msgpack] array header with X elements: the smallest of fixarray, array16, array32\n",
    );
    assert_contains(&d, "| a8 \"operands\" | dc| count      | operands       |\n");
    assert_contains(&d, "+--[msgpack] array16 with X elements\n");
    // Blocks: records by name, a string element drawn with its header and text.
    assert_contains(&d, "The `points` section: np elements, each a `point` record.\n");
    assert_contains(&d, "The `operands` section: X elements, each an `operand` record.\n");
    assert_contains(
        &d,
        "The `tags` section: X elements, each a str:\n\n\
|~~~~~~~~~~~~~~~~|----------------|\n\
| tags[i]_header | tags[i]_string |\n",
    );
    // The optional entry, last.
    assert_contains(&d, "Finally, the `note` entry:\n- note (str, optional)\n");
    assert_contains(&d, "| a4 \"note\"  | note_header    | note_string |\n");
    assert_contains(&d, "Optional entries: `note`.");
    // Each named type in its own section: operand starts with a string, so one detailed row.
    assert_contains(
        &d,
        "\
The `operand` record:

|-0-|--2 bytes---|~~~~~~~~~~~~~~~~|-------------|--6 bytes---|---|--7 bytes----|---|--8 bytes---|
| 8X| a1 \"k\"     | kind_header    | kind_string | a5 \"level\" | XX| a6 \"weight\" | cb| weight     |
",
    );
    assert_contains(
        &d,
        "+--[msgpack] int, always a positive fixint (level, 0..=9: fast = 1, best = 9)\n",
    );
    assert_contains(&d, &format!("Size of an `operand` record: {OPERAND_LENGTH} bytes.\n"));
    // point: float32 markers at 1 and 1 + 5.
    assert_contains(
        &d,
        "|-0-|-1-|--4 bytes---|-6-|--4 bytes---|\n| 9X| ca| x          | ca| y          |\n",
    );
    assert_contains(&d, "Size of a `point` record: 11 bytes.\n");
    assert!(d.ends_with(&format!("Encoded length: {PROBE_LENGTH} bytes.\n")));
    for line in d.lines() {
        assert_eq!(line, line.trim_end());
    }
    // The record alone, as a bound struct's documentation shows it.
    let operand = record_diagram(&l, &l.record_type("operand").unwrap().record);
    assert!(operand.starts_with("|-0-|--2 bytes---|"));
    assert!(operand.ends_with(&format!("Encoded length: {OPERAND_LENGTH} bytes.\n")));
}

#[test]
fn probe_table_says_where_offsets_stop() {
    let l = probe();
    let table = formulas(&l, root(&l));
    let rows: Vec<Vec<&str>> = table
        .lines()
        .skip(2)
        .take_while(|l| !l.is_empty())
        .map(|l| l.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect())
        .collect();
    assert_eq!(rows[1], ["(container)", "map", "0", "1", "-"]);
    assert_eq!(rows[2], ["version", "int", "1", "9", "9"]);
    assert_eq!(rows[5], ["offset", "int", "34", "7 + int(offset)", "-"]);
    assert_eq!(rows[6], ["npoints", "fixint", "-", "9", "-"]);
    assert_eq!(
        rows[10],
        ["note (optional)", "str", "-", "5 + hdr(note) + len(note)", "-"]
    );
    assert_eq!(rows[11], ["(total)", PROBE_LENGTH]);
    assert!(table.contains("\nOffsets after `offset` depend on the values: it takes 7 + int(offset) bytes.\n"));
    assert!(table.contains("Optional entries (`note`) are written only when present"));
    assert!(table.contains("hdr(x) the size of the smallest header"));
}

/// Counts held by a canonical integer, a map of fixed keys and values, a fixext and a canonical
/// bin, against python's msgpack.
#[test]
fn counts_maps_ext_and_bin_match_python_msgpack() {
    let head = "[schema]\nmetalayer = \"mix\"\ndescription = \"d\"\nsource = \"s\"\n";
    let text = format!(
        "{head}[container]\nwire = \"fixarray\"\n\
         [[entry]]\nname = \"n\"\nwire = \"int\"\nmin = 0\nmax = 1000\nlength_of = [\"xs\"]\n\
         [[entry]]\nname = \"xs\"\nwire = \"array\"\ncount = \"n\"\nelement = {{ wire = \"int16\" }}\n\
         [[entry]]\nname = \"offsets\"\nwire = \"map16\"\nkey_type = {{ wire = \"fixstr\" }}\nvalue_type = {{ wire = \"int32\" }}\n\
         [[entry]]\nname = \"code\"\nwire = \"fixext4\"\next_type = 3\n\
         [[entry]]\nname = \"blob\"\nwire = \"bin\"\n"
    );
    let l = parse("mix_v0", &text).unwrap_or_else(|d| panic!("{d}"));
    // fixarray (1), fixext4 (marker, type, 4 bytes: 6), the map16 header (3); n's smallest int;
    // 3 bytes per int16 element, counted by n; xs's header the smallest for n (1 or 3); per
    // pair a fixstr key (1 + its bytes) and an int32 (5); blob's smallest bin header and bytes.
    let length = length_formula(&l);
    assert_eq!(
        length.to_string(),
        "10 + 3*n + int(n) + hdr(xs) + Σ(6 + len(offsets[i].key)) + hdr(blob) + len(blob)"
    );
    let value = |n: usize, keys: &[usize], blob: usize| {
        Value::Record(vec![
            Some(Value::Int(n as i128)),
            Some(Value::Array(vec![Value::Other; n])),
            Some(Value::Map(
                keys.iter().map(|&k| (Value::Bytes(k), Value::Other)).collect(),
            )),
            Some(Value::Other),
            Some(Value::Bytes(blob)),
        ])
    };
    // python: 0x95, msgpack.packb(n), the array header packb writes for n elements, n times
    // 0xd1 + 2 bytes, 0xde + 2-byte count and per key 0xa0 + len, key, 0xd2 + 4 bytes,
    // packb(ExtType(3, 4 bytes)), packb(bytes, use_bin_type=True).
    for (n, keys, blob, python) in [
        (0, &[][..], 0, 14),
        (2, &[1, 2][..], 3, 38),
        (200, &[1, 1, 1][..], 300, 939),
        (16, &[0][..], 70_000, 70_073),
    ] {
        assert_eq!(length.eval_value(&l, &value(n, keys, blob)), Some(python), "n {n}");
    }
    let d = diagram(&l);
    assert_contains(
        &d,
        "+--[msgpack] int, the smallest encoding: 1, 2, 3, 5 or 9 bytes for the length of xs (n, 0..=1000)\n",
    );
    assert_contains(
        &d,
        "The `offsets` section: X pairs, each a key, a fixstr, and a value, an int32:\n",
    );
    assert_contains(&d, "| aX| offsets[i].key_string | d2| offsets[i].value |\n");
    assert_contains(&d, "| d6| 03| code       | blob_header    | blob_bytes |\n");
    assert_contains(&d, "+--[msgpack] ext type 3\n");
}

/// A hand-built layout whose record type contains itself (the checker refuses such schemas, but
/// the model's fields are public): sizes, evaluation and the diagram end.
#[test]
fn a_type_that_contains_itself_ends() {
    let mut l = probe();
    let operand = l.types.iter().position(|t| t.name == "operand").unwrap();
    let mut inner = l.types[operand].record.entries[2].clone();
    inner.name = "inner".into();
    inner.key = Some("inner".into());
    inner.node.ty = Type::Ref(operand);
    l.types[operand].record.entries.push(inner.clone());
    inner.name = "again".into();
    inner.key = Some("again".into());
    l.types[operand].record.entries.push(inner);
    let record = &l.types[operand].record;
    assert_eq!(
        size::of_record(&l, record, &Place::root()).to_string(),
        // 26, and the keys "inner" and "again" (1 + 5 bytes each).
        "38 + hdr(kind) + len(kind) + size(inner) + size(again)"
    );
    assert!(diagram(&l).contains("`operand` record, drawn in its own section (inner)"));
    // Evaluating on a finite value ends too: the value runs out first.
    let value = Value::Record(vec![Some(Value::Bytes(1)), Some(Value::Int(1)), Some(Value::Other)]);
    assert_eq!(size::of_record(&l, record, &Place::root()).eval_value(&l, &value), None);
}
