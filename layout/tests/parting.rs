//! Telling layouts stored under one metalayer name apart from their bytes.
//!
//! Expected offsets are counted by hand from the msgpack encodings the schemas describe.

use metalayer_layout::{BUILTINS, Layout, OverlapReason, PYTHON_BLOSC2, also_stored_as, builtin_layout, parse};

fn layout(name: &str) -> Layout {
    builtin_layout(name).unwrap_or_else(|| panic!("{name} is a built-in"))
}

fn schema(name: &str, text: &str) -> Layout {
    parse(name, text).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn every_pair_of_built_ins_under_one_name_parts() {
    let mut all: Vec<(String, Layout)> = BUILTINS
        .iter()
        .chain(PYTHON_BLOSC2)
        .map(|b| {
            let l = layout(b.name);
            (l.metalayer.clone(), l)
        })
        .collect();
    // c-blosc2 wrote the caterva layout under `b2nd` for a while.
    assert_eq!(also_stored_as("caterva_v0"), ["b2nd"]);
    for b in BUILTINS.iter().chain(PYTHON_BLOSC2) {
        all.extend(
            also_stored_as(b.name)
                .iter()
                .map(|name| (name.to_string(), layout(b.name))),
        );
    }
    let mut pairs = 0;
    for (i, (name, a)) in all.iter().enumerate() {
        for (other_name, b) in &all[i + 1..] {
            if name == other_name && a.schema != b.schema {
                a.parting(b).unwrap_or_else(|e| panic!("{e}"));
                b.parting(a).unwrap_or_else(|e| panic!("{e}"));
                pairs += 1;
            }
        }
    }
    // b2nd: v0, v1, caterva (3 pairs); proxy-source: 10 shapes (45); batcharray: 3 (3);
    // listarray: 2 (1).
    assert_eq!(pairs, 52);
}

#[test]
fn b2nd_versions_part_at_the_container_marker() {
    // 0x97 (b2nd_v1), 0x96 (b2nd_v0), 0x95 (caterva_v0).
    for (a, b) in [
        ("b2nd_v1", "b2nd_v0"),
        ("b2nd_v1", "caterva_v0"),
        ("b2nd_v0", "caterva_v0"),
    ] {
        let p = layout(a).parting(&layout(b)).unwrap();
        assert_eq!((p.offset, p.entry.as_str()), (Some(0), ""), "{a} / {b}");
    }
}

#[test]
fn shapes_part_after_a_string_of_any_length() {
    // fixmap(4), "version" 1, "serializer" <str>, "items_per_block": int >= 1 against nil.
    let p = layout("batcharray_v1").parting(&layout("batcharray_empty_v1")).unwrap();
    assert_eq!(
        (p.offset, p.entry.as_str(), p.other_entry.as_str()),
        (None, "items_per_block", "items_per_block")
    );
    // ... then "arrow_schema": nil against bin.
    let p = layout("batcharray_v1").parting(&layout("batcharray_arrow_v1")).unwrap();
    assert_eq!((p.offset, p.entry.as_str()), (None, "arrow_schema"));
    // batcharray_empty_v1 and batcharray_arrow_v1 part at items_per_block already.
    let p = layout("batcharray_empty_v1")
        .parting(&layout("batcharray_arrow_v1"))
        .unwrap();
    assert_eq!(p.entry, "items_per_block");
}

#[test]
fn fixed_bytes_give_the_offset() {
    // 0x87; a7 "version" 01; a4 "kind" a4 "list"; a4 "item": 1 + 8 + 1 + 5 + 5 + 5 = 25, where
    // the item record's fixmap(1) meets fixmap(2).
    let p = layout("listarray_scalar_v1")
        .parting(&layout("listarray_string_v1"))
        .unwrap();
    assert_eq!((p.offset, p.entry.as_str()), (Some(25), "item"));
}

const HEAD: &str = "[schema]\nmetalayer = \"m\"\ndescription = \"d\"\nsource = \"s\"\n";

#[test]
fn a_copy_under_another_name_overlaps() {
    let a = layout("b2nd_v1");
    let text = metalayer_layout::builtin("b2nd_v1").unwrap().text;
    let b = schema("my_b2nd", text);
    let e = a.parting(&b).unwrap_err();
    assert_eq!(e.reason, OverlapReason::Same);
    let text = e.to_string();
    assert!(
        text.starts_with("`b2nd_v1` and `my_b2nd` cannot be told apart from their bytes"),
        "{text}"
    );
}

#[test]
fn an_int64_field_and_a_canonical_int_share_the_int64_marker() {
    let fixed = schema(
        "fixed",
        &format!(
            "{HEAD}[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"v\"\nconst = 2\nwire = \"fixint\"\n[[entry]]\nname = \"x\"\nwire = \"int64\"\n"
        ),
    );
    let canonical = schema(
        "canonical",
        &format!(
            "{HEAD}[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"v\"\nconst = 2\nwire = \"int\"\n[[entry]]\nname = \"x\"\nwire = \"int\"\n"
        ),
    );
    // 0x92, 0x02, then `d3` starts an int64 in both (a canonical int below -2^31).
    let e = fixed.parting(&canonical).unwrap_err();
    assert_eq!(
        (e.offset, e.entry.as_str(), e.reason),
        (Some(2), "x", OverlapReason::SameFirstByte)
    );
    assert_eq!(
        e.to_string(),
        "`fixed` and `canonical` cannot be told apart from their bytes: they accept the same bytes up to byte 2 \
         (entry `x` of both), where they would need to differ"
    );
    // A canonical int that is never below -2^31 never starts with d3.
    let non_negative = schema(
        "non_negative",
        &format!(
            "{HEAD}[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"v\"\nconst = 2\nwire = \"int\"\n[[entry]]\nname = \"x\"\nwire = \"int\"\nmin = 0\n"
        ),
    );
    assert_eq!(fixed.parting(&non_negative).unwrap().offset, Some(2));
}

#[test]
fn optional_entries_are_not_followed() {
    let optional = schema(
        "optional",
        &format!(
            "{HEAD}[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"a\"\nwire = \"str\"\n[[entry]]\nname = \"b\"\nwire = \"int\"\noptional = true\n"
        ),
    );
    let two = schema(
        "two",
        &format!(
            "{HEAD}[container]\nwire = \"fixarray\"\nmarker = 0x92\n[[entry]]\nname = \"a\"\nwire = \"str\"\n[[entry]]\nname = \"b\"\nwire = \"int\"\n"
        ),
    );
    let e = optional.parting(&two).unwrap_err();
    assert_eq!(
        (e.offset, e.entry.as_str(), e.reason),
        (None, "b", OverlapReason::Unfollowed)
    );
    // A three-entry record parts from both at its header.
    let three = schema(
        "three",
        &format!(
            "{HEAD}[container]\nwire = \"fixarray\"\nmarker = 0x93\n[[entry]]\nname = \"a\"\nwire = \"str\"\n[[entry]]\nname = \"b\"\nwire = \"int\"\n[[entry]]\nname = \"c\"\nwire = \"nil\"\n"
        ),
    );
    assert_eq!(three.parting(&optional).unwrap().offset, Some(0));
    assert_eq!(three.parting(&two).unwrap().offset, Some(0));
}

#[test]
fn a_value_that_ends_parts_from_one_that_goes_on() {
    let one = schema("one", &format!("{HEAD}[value]\nwire = \"fixint\"\n"));
    let array = schema(
        "array",
        &format!("{HEAD}[value]\nwire = \"array\"\nelement = {{ wire = \"int\" }}\n"),
    );
    // fixint 0x00..0x7f against 0x90..0x9f, 0xdc, 0xdd.
    assert_eq!(one.parting(&array).unwrap().offset, Some(0));
    let str_a = schema("a", &format!("{HEAD}[value]\nwire = \"str\"\n"));
    let str_b = schema("b", &format!("{HEAD}[value]\nwire = \"str\"\n"));
    assert_eq!(str_a.parting(&str_b).unwrap_err().reason, OverlapReason::Same);
}

// ---------------------------------------------------------------------------------------------
// What dispatch checks
// ---------------------------------------------------------------------------------------------

use metalayer_layout::{Probe, probes};

/// A step as the tests write it: a byte or a whole value, and the bytes it accepts.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    Byte(Vec<(u8, u8)>),
    Value(Vec<(u8, u8)>),
}

fn byte(lo: u8, hi: u8) -> Step {
    Step::Byte(vec![(lo, hi)])
}

/// What each layout's steps check, entries aside.
fn checks(layouts: &[&Layout]) -> Vec<Vec<Step>> {
    probes(layouts)
        .into_iter()
        .map(|steps| {
            steps
                .into_iter()
                .map(|p| match p {
                    Probe::Byte { bytes, .. } => Step::Byte(bytes),
                    Probe::Value { first, .. } => Step::Value(first),
                    Probe::End => panic!("no layout here ends where another goes on"),
                })
                .collect()
        })
        .collect()
}

fn key(k: &str) -> Vec<Step> {
    // A fixstr key: 0xa0 + its length, then its bytes.
    std::iter::once(0xa0 + k.len() as u8)
        .chain(k.bytes())
        .map(|b| byte(b, b))
        .collect()
}

#[test]
fn the_b2nd_layouts_are_checked_through_their_fixed_prefixes() {
    let (v1, v0, caterva) = (layout("b2nd_v1"), layout("b2nd_v0"), layout("caterva_v0"));
    let steps = checks(&[&v1, &v0, &caterva]);
    // The container marker, version 0, ndim (0..=16 or 0..=8), and the shape's header 0x90 +
    // ndim (0xa0 for 16 in b2nd_v1): they part at the first byte, and each goes on through its
    // fixed prefix, whose last byte depends on ndim.
    assert_eq!(steps[0], [byte(0x97, 0x97), byte(0, 0), byte(0, 16), byte(0x90, 0xa0)]);
    assert_eq!(steps[1], [byte(0x96, 0x96), byte(0, 0), byte(0, 8), byte(0x90, 0x98)]);
    assert_eq!(steps[2], [byte(0x95, 0x95), byte(0, 0), byte(0, 8), byte(0x90, 0x98)]);
    // Alone, a layout is checked through its fixed prefix.
    let prefix: Vec<Step> = caterva
        .fixed_prefix()
        .into_iter()
        .map(|(lo, hi)| byte(lo, hi))
        .collect();
    assert_eq!(checks(&[&caterva]), [prefix]);
    // Each step names its entry.
    let entries: Vec<String> = probes(&[&v1, &v0])[0].iter().map(|p| p.entry().to_string()).collect();
    assert_eq!(entries, ["", "version", "ndim", "shape"]);
}

const STORE: &str = "[container]\nwire = \"fixmap\"\nmarker = 0x83\n[[entry]]\nname = \"name\"\nwire = \"str\"\n[[entry]]\nname = \"version\"\nwire = \"int\"\n";

#[test]
fn map_versions_are_checked_past_a_string_of_any_length() {
    let one = schema(
        "one",
        &format!("{HEAD}{STORE}const = 1\n[[entry]]\nname = \"size\"\nwire = \"int\"\n"),
    );
    let two = schema(
        "two",
        &format!(
            "{HEAD}{STORE}const = 2\n[[entry]]\nname = \"chunks\"\nwire = \"array\"\nelement = {{ wire = \"int\" }}\n"
        ),
    );
    let p = one.parting(&two).unwrap();
    assert_eq!((p.offset, p.entry.as_str()), (None, "version"));
    // fixmap(3), "name", any string (fixstr 0xa0..=0xbf, str8/16/32 0xd9..=0xdb), "version", and
    // the version: 1 or 2.
    let string = Step::Value(vec![(0xa0, 0xbf), (0xd9, 0xdb)]);
    let head: Vec<Step> = [vec![byte(0x83, 0x83)], key("name"), vec![string], key("version")].concat();
    let steps = checks(&[&one, &two]);
    assert_eq!(steps[0], [head.clone(), vec![byte(0x01, 0x01)]].concat());
    assert_eq!(steps[1], [head, vec![byte(0x02, 0x02)]].concat());
    // The fixed prefix ends before the string, whose first bytes are two ranges.
    assert_eq!(one.fixed_prefix().len(), 1 + 5);
}

#[test]
fn a_fixed_width_value_against_a_canonical_one_is_checked_by_its_first_byte() {
    let text = |value: &str| {
        format!(
            "{HEAD}[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"label\"\nwire = \"str\"\n[[entry]]\nname = \"value\"\n{value}"
        )
    };
    let int64 = schema("int64", &text("wire = \"int64\"\n"));
    let unsigned = schema("unsigned", &text("wire = \"int\"\nmin = 0\n"));
    // 0x92, the label, then 0xd3 against a positive fixint or a uint marker (0xcc..=0xcf).
    assert!(int64.parting(&unsigned).is_ok());
    let steps = checks(&[&int64, &unsigned]);
    let string = || Step::Value(vec![(0xa0, 0xbf), (0xd9, 0xdb)]);
    assert_eq!(steps[0], [byte(0x92, 0x92), string(), byte(0xd3, 0xd3)]);
    assert_eq!(
        steps[1],
        [byte(0x92, 0x92), string(), Step::Byte(vec![(0x00, 0x7f), (0xcc, 0xcf)])]
    );
}

#[test]
fn optional_entries_end_what_is_checked() {
    let optional = schema(
        "optional",
        &format!(
            "{HEAD}[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"a\"\nwire = \"nil\"\n[[entry]]\nname = \"b\"\nwire = \"int\"\noptional = true\n"
        ),
    );
    let three = schema(
        "three",
        &format!(
            "{HEAD}[container]\nwire = \"fixarray\"\nmarker = 0x93\n[[entry]]\nname = \"a\"\nwire = \"nil\"\n[[entry]]\nname = \"b\"\nwire = \"int\"\n[[entry]]\nname = \"c\"\nwire = \"nil\"\n"
        ),
    );
    // The header 0x91..=0x92 against 0x93 parts them; optional's steps stop before `b`, whose
    // presence the header says, and three's go on to its first value of variable bytes.
    let steps = checks(&[&optional, &three]);
    assert_eq!(steps[0], [byte(0x91, 0x92), byte(0xc0, 0xc0)]);
    let int = Step::Byte(vec![(0x00, 0x7f), (0xcc, 0xd3), (0xe0, 0xff)]);
    assert_eq!(steps[1], [byte(0x93, 0x93), byte(0xc0, 0xc0), int]);
}

#[test]
fn a_counted_header_takes_the_count_s_values() {
    // caterva's shape header after ndim 0..=8: 0x90..=0x98, where the schema alone says
    // fixarray (0x90..=0x9f).
    let p = layout("caterva_v0").fixed_prefix();
    assert_eq!(p[3], (0x90, 0x98));
    // Two layouts that differ in ndim's range only, 0..=3 and 4..=8: they part at ndim itself.
    let text = |min: u8, max: u8| {
        format!(
            "{HEAD}[container]\nwire = \"fixarray\"\nmarker = 0x92\n[[entry]]\nname = \"n\"\nwire = \"fixint\"\nmin = {min}\nmax = {max}\nlength_of = [\"xs\"]\n[[entry]]\nname = \"xs\"\nwire = \"fixarray\"\ncount = \"n\"\nelement = {{ wire = \"int\" }}\n"
        )
    };
    let (low, high) = (schema("low", &text(0, 3)), schema("high", &text(4, 8)));
    assert_eq!(low.parting(&high).unwrap().offset, Some(1));
    assert_eq!(low.fixed_prefix(), [(0x92, 0x92), (0, 3), (0x90, 0x93)]);
    assert_eq!(high.fixed_prefix(), [(0x92, 0x92), (4, 8), (0x94, 0x98)]);
}

#[test]
fn a_canonical_integer_starts_with_the_markers_of_its_smallest_encodings() {
    // From msgpack's rules: 0..=127 is a positive fixint, 128..=255 a uint8 (0xcc), up to 65535
    // a uint16 (0xcd), up to 2^32 - 1 a uint32 (0xce); -32..=-1 a negative fixint (0xe0..=0xff),
    // -128..=-33 an int8 (0xd0), -32768..=-129 an int16 (0xd1).
    let cases: &[(i64, i64, (u8, u8))] = &[
        (0, 1, (0x00, 0x01)),
        (128, 255, (0xcc, 0xcc)),
        (256, 65536, (0xcd, 0xce)),
        (-32, -1, (0xe0, 0xff)),
        (-33, -33, (0xd0, 0xd0)),
        (-129, -33, (0xd0, 0xd1)),
    ];
    for &(min, max, first) in cases {
        let l = schema(
            "n",
            &format!("{HEAD}[value]\nwire = \"int\"\nmin = {min}\nmax = {max}\n"),
        );
        assert_eq!(l.fixed_prefix(), [first], "{min}..={max}");
    }
    // A constant has one encoding, its smallest: 300 is cd 01 2c.
    let l = schema(
        "c",
        &format!("{HEAD}[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"v\"\nwire = \"int\"\nconst = 300\n"),
    );
    assert_eq!(
        l.fixed_prefix(),
        [(0x91, 0x91), (0xcd, 0xcd), (0x01, 0x01), (0x2c, 0x2c)]
    );
}

#[test]
fn no_built_in_parts_from_itself() {
    for b in BUILTINS.iter().chain(PYTHON_BLOSC2).chain(metalayer_layout::FRAME) {
        let l = layout(b.name);
        assert!(l.parting(&l).is_err(), "{} parts from itself", b.name);
        // Two copies are walked to the end of what can be followed, and stand alike.
        let steps = probes(&[&l, &l]);
        assert_eq!(steps[0], steps[1], "{}", b.name);
        assert!(steps[0].len() >= l.fixed_prefix().len(), "{}", b.name);
    }
}
