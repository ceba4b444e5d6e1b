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
