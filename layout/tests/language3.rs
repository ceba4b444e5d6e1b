//! Language 3 of the schema language, as the layout model and its formulas see it: strings and
//! byte strings of fixed length, timestamps, counts of nested arrays, and optional entries that
//! go together. The sizes are derived by hand from the msgpack specification.

use metalayer_layout::{Type, length_formula, parse};

const HEAD: &str = "[schema]\nmetalayer = \"m\"\ndescription = \"d\"\nsource = \"s\"\nlanguage = 3\n";

/// `{"version": 1, "sha256": <32 bytes>}` as python's `msgpack.packb` writes it.
const DIGEST: &str = r#"
[container]
wire = "fixmap"

[[entry]]
name = "version"
wire = "int"
const = 1

[[entry]]
name = "sha256"
wire = "bin"
len = 32
"#;

#[test]
fn a_fixed_length_makes_the_size_a_constant() {
    let layout = parse("digest_v1", &format!("{HEAD}{DIGEST}")).expect("checks");
    // 0x82 (1) + fixstr "version" (1 + 7) + fixint 1 (1) + fixstr "sha256" (1 + 6)
    // + bin8 header c4 20 (2) + 32 bytes = 51, whatever the digest.
    assert_eq!(length_formula(&layout).to_string(), "51");
    let root = layout.root_record().expect("record");
    assert!(matches!(&root.entries[1].node.ty, Type::Bin(b) if b.len == Some(32)));
    // Fixed wire types: a str32 of 3 bytes is 5 + 3, a fixstr of 8 bytes 1 + 8.
    let fixed = format!(
        "{HEAD}[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"a\"\nwire = \"str32\"\nlen = 3\n[[entry]]\nname = \"b\"\nwire = \"fixstr\"\nlen = 8\n"
    );
    let layout = parse("fixed_v1", &fixed).expect("checks");
    assert_eq!(length_formula(&layout).to_string(), "18");
}

#[test]
fn a_fixed_length_header_is_part_of_the_fixed_prefix() {
    let layout = parse("digest_v1", &format!("{HEAD}{DIGEST}")).expect("checks");
    let prefix = layout.fixed_prefix();
    // 82, a7 "version", 01, a6 "sha256": 17 bytes; then the bin8 header c4 20 (32 bytes), and
    // the digest's 32 bytes, each any value: every byte of the layout has its place.
    assert_eq!(prefix.len(), 51);
    assert_eq!(prefix[17..19], [(0xc4, 0xc4), (0x20, 0x20)]);
    assert!(prefix[19..].iter().all(|&b| b == (0x00, 0xff)));
}

#[test]
fn diagrams_show_fixed_lengths_and_timestamps() {
    let digest = parse("digest_v1", &format!("{HEAD}{DIGEST}")).expect("checks");
    let text = metalayer_layout::diagram(&digest);
    assert!(text.contains("| c4 | sha256_len | sha256_bytes |"), "{text}");
    assert!(text.contains("bin, always a bin8 of exactly 32 bytes"), "{text}");
    let forms = format!(
        "{HEAD}[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"t\"\nwire = \"timestamp96\"\n[[entry]]\nname = \"id\"\nwire = \"fixstr\"\nlen = 8\n[[entry]]\nname = \"u\"\nwire = \"timestamp\"\n"
    );
    let layout = parse("forms_v1", &forms).expect("checks");
    let text = metalayer_layout::diagram(&layout);
    // timestamp96: c7, 12 bytes of data, the type ff, then the 12 bytes; a fixstr of 8 bytes
    // is the marker a8; a canonical timestamp is one of three forms.
    assert!(text.contains("| 9X| c7| 0c| ff| t "), "{text}");
    assert!(text.contains("| a8 | id_string |"), "{text}");
    assert!(
        text.contains("timestamp (ext -1) in the smallest of its forms"),
        "{text}"
    );
    // 1 + 15 + 9 bytes, then the canonical timestamp's header and data.
    assert_eq!(length_formula(&layout).to_string(), "25 + hdr(u) + len(u)");
}

#[test]
fn diagrams_name_nested_counts_and_entries_that_go_together() {
    let body = "[container]\nwire = \"array\"\n\
        [[entry]]\nname = \"ndim\"\nwire = \"int\"\nmin = 0\nmax = 8\nlength_of = [\"shape\"]\n\
        [[entry]]\nname = \"shape\"\nwire = \"array\"\ncount = \"ndim\"\nelement = { wire = \"int\" }\n\
        [[entry]]\nname = \"corners\"\nwire = \"array\"\nelement = { wire = \"array\", count = \"ndim\", element = { wire = \"int\" } }\n\
        [[entry]]\nname = \"dtype_format\"\nwire = \"int\"\nmin = 0\nmax = 127\noptional = true\n\
        [[entry]]\nname = \"dtype\"\nwire = \"str\"\noptional = true\ntogether_with = \"dtype_format\"\n";
    let layout = parse("grid_v1", &format!("{HEAD}{body}")).expect("checks");
    let text = metalayer_layout::diagram(&layout);
    assert!(
        text.contains("The `corners[i]` section: nd elements, each an int"),
        "{text}"
    );
    assert!(
        text.contains("`dtype_format` and `dtype` go together: both are present or both absent."),
        "{text}"
    );
}
