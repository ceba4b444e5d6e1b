//! Telling layouts stored under one metalayer name apart from their bytes.
//!
//! Expected offsets are counted by hand from the msgpack encodings the schemas describe.

use metalayer_layout::{BUILTINS, Layout, OverlapReason, PYTHON_BLOSC2, builtin_layout, parse};

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
    all.push(("b2nd".to_string(), layout("caterva_v0")));
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
    // b2nd: v0, v1, caterva (3 pairs); proxy-source: 5 shapes (10); batcharray: 3 (3);
    // listarray: 2 (1).
    assert_eq!(pairs, 17);
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
