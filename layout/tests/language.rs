//! The schema language: every built-in parses to the layout it states, and the new node kinds,
//! named types, optional entries and reuse check as documented.

use metalayer_layout::{Const, Count, Encoding, Family, Role, Source, Type, Wire, builtin_layout, parse, parse_with};

#[test]
fn builtins_keep_their_fixed_prefixes() {
    let b2nd = builtin_layout("b2nd_v1").expect("b2nd_v1");
    assert_eq!(b2nd.fixed_prefix(), [(0x97, 0x97), (0, 0), (0, 16), (0x90, 0xa0)]);
    let caterva = builtin_layout("caterva_v0").expect("caterva_v0");
    assert_eq!(caterva.fixed_prefix(), [(0x95, 0x95), (0, 0), (0, 8), (0x90, 0x98)]);
    let v0 = builtin_layout("b2nd_v0").expect("b2nd_v0");
    assert_eq!(v0.fixed_prefix()[0], (0x96, 0x96));
}

const HEAD: &str = "[schema]\nmetalayer = \"m\"\ndescription = \"d\"\nsource = \"s\"\n";

fn errors(body: &str) -> Vec<String> {
    let text = format!("{HEAD}{body}");
    match parse("t", &text) {
        Ok(_) => Vec::new(),
        Err(diags) => diags.into_iter().map(|d| d.message).collect(),
    }
}

/// A map record with every kind of node, a named record type and an optional entry.
const NESTED: &str = r#"
[container]
wire = "map"

[[entry]]
name = "version"
wire = "int"
const = 1

[[entry]]
name = "scale"
wire = "float64"

[[entry]]
name = "enabled"
wire = "bool"

[[entry]]
name = "tags"
wire = "array"
element = { wire = "str" }

[[entry]]
name = "grid"
wire = "array"
element = { wire = "array", element = { wire = "int" } }

[[entry]]
name = "operands"
wire = "array16"
element = { type = "operand" }

[[entry]]
name = "blob"
wire = "bin"

[[entry]]
name = "note"
wire = "str"
optional = true

[types.operand]
wire = "fixmap"

[[types.operand.entry]]
name = "kind"
wire = "str"
key = "k"

[[types.operand.entry]]
name = "level"
wire = "int"
min = 0
max = 9
values = { fast = 1, best = 9 }
"#;

#[test]
fn a_nested_schema_with_every_kind_parses() {
    let body = NESTED;
    let layout = parse("t", &format!("{HEAD}{body}")).unwrap_or_else(|d| panic!("{d:#?}"));
    let root = layout.root_record().expect("record");
    assert_eq!(root.form, Family::Map);
    assert_eq!(root.header, Encoding::Canonical { lenient: false });
    assert_eq!(root.entries.len(), 8);
    assert_eq!(root.required, 7);
    assert_eq!(root.entries[0].role, Role::Const(Const::Int(1)));
    assert_eq!(root.entries[0].key.as_deref(), Some("version"));
    let Type::Array(grid) = &root.entries[4].node.ty else {
        panic!("grid")
    };
    assert!(matches!(grid.element.ty, Type::Array(_)));
    assert_eq!(grid.count, Count::Header);
    let Type::Array(ops) = &root.entries[5].node.ty else {
        panic!("operands")
    };
    assert_eq!(ops.header, Encoding::Fixed(Wire::Array16));
    assert!(matches!(ops.element.ty, Type::Ref(0)));
    let operand = &layout.types[0];
    assert_eq!(operand.record.entries[0].key.as_deref(), Some("k"));
    let Type::Int(level) = &operand.record.entries[1].node.ty else {
        panic!("level")
    };
    assert_eq!((level.min, level.max), (0, 9));
    let mut values = level.values.clone();
    values.sort();
    assert_eq!(values, [("best".to_string(), 9), ("fast".to_string(), 1)]);
    assert!(root.entries[7].optional);
}

/// The frame header's layout, written with a named type whose map and array have fixed headers.
const FRAME_HEADER: &str = r#"
[container]
wire = "fixarray"
marker = 0x9e

[[entry]]
name = "magic"
wire = "fixstr"
const = "b2frame\u0000"

[[entry]]
name = "header_len"
wire = "int32"

[[entry]]
name = "frame_len"
wire = "uint64"

[[entry]]
name = "flags"
wire = "fixstr"
raw = true

[[entry]]
name = "nbytes"
wire = "int64"

[[entry]]
name = "cbytes"
wire = "int64"

[[entry]]
name = "typesize"
wire = "int32"

[[entry]]
name = "blocksize"
wire = "int32"

[[entry]]
name = "chunksize"
wire = "int32"

[[entry]]
name = "nthreads_comp"
wire = "int16"

[[entry]]
name = "nthreads_decomp"
wire = "int16"

[[entry]]
name = "has_vlmetalayers"
wire = "bool"

[[entry]]
name = "filters"
wire = "fixext16"

[[entry]]
name = "metalayers"
type = "section"

[types.section]
wire = "fixarray"

[[types.section.entry]]
name = "size"
wire = "uint16"

[[types.section.entry]]
name = "offsets"
wire = "map16"
key_type = { wire = "fixstr" }
value_type = { wire = "int32" }

[[types.section.entry]]
name = "contents"
wire = "array16"
element = { wire = "bin32" }
"#;

#[test]
fn the_frame_header_can_be_described() {
    let body = FRAME_HEADER;
    let layout = parse("frame_header", &format!("{HEAD}{body}")).unwrap_or_else(|d| panic!("{d:#?}"));
    let prefix = layout.fixed_prefix();
    assert_eq!(
        &prefix[..10],
        [0x9e, 0xa8, b'b', b'2', b'f', b'r', b'a', b'm', b'e', 0].map(|b| (b, b))
    );
    assert_eq!(prefix[10], (0xd2, 0xd2));
}

#[test]
fn checks_report_what_and_where() {
    let cases: &[(&str, &str)] = &[
        (
            "[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"a\"\nwire = \"int64\"\nmarker = 0xd2\n",
            "marker 0xd2 does not belong to int64: its marker is 0xd3",
        ),
        (
            "[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"s\"\nwire = \"fixstr\"\nconst = \"0123456789012345678901234567890123\"\n",
            "constant of 34 bytes does not fit fixstr (at most 31 bytes)",
        ),
        (
            "[container]\nwire = \"fixmap\"\n[[entry]]\nname = \"a\"\nwire = \"int\"\n[[entry]]\nname = \"b\"\nkey = \"a\"\nwire = \"int\"\n",
            "duplicate key \"a\": an earlier entry of the map has it",
        ),
        (
            "[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"a\"\nwire = \"int\"\noptional = true\n[[entry]]\nname = \"b\"\nwire = \"int\"\n",
            "entry `b` follows the optional entry `a` but is not optional: the header counts entries, so only trailing entries can be absent",
        ),
        (
            "[value]\ntype = \"a\"\n[types.a]\nwire = \"fixarray\"\n[[types.a.entry]]\nname = \"b\"\ntype = \"a\"\n",
            "type `a` contains itself: a -> a",
        ),
        (
            "[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"a\"\nwire = \"array16\"\ncount = 70000\nelement = { wire = \"nil\" }\n",
            "a fixed count of 70000 elements does not fit array16 (at most 65535 elements)",
        ),
    ];
    for (body, message) in cases {
        let found = errors(body);
        assert!(
            found.iter().any(|m| m == message),
            "{body}\nexpected: {message}\nfound: {found:#?}"
        );
    }
}

#[test]
fn names_of_generated_items_are_not_the_schema_language_s() {
    // `a_element_offset` would be both the array `a`'s element offset function and the entry
    // `a_element`'s offset function; code generation refuses that, the language does not.
    let body = "[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"a\"\nwire = \"array\"\nelement = { wire = \"int\" }\n[[entry]]\nname = \"a_element\"\nwire = \"int\"\n";
    assert_eq!(errors(body), Vec::<String>::new());
}

/// The Rust Reference's keywords (2024 edition): strict, strict from 2018, reserved, reserved
/// from 2018 and from 2024. `_` is strict too, but not snake_case with a letter.
const REFERENCE_KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for", "if", "impl", "in",
    "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super",
    "trait", "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn", "abstract", "become", "box",
    "do", "final", "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

#[test]
fn keywords_name_entries_unless_they_cannot_be_raw() {
    for &keyword in REFERENCE_KEYWORDS {
        let found = errors(&format!(
            "[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"{keyword}\"\nwire = \"int\"\n"
        ));
        let expected: Vec<String> = match keyword {
            // `r#crate`, `r#self`, `r#super` are not Rust.
            "crate" | "self" | "super" => vec![format!(
                "entry name `{keyword}` is a Rust keyword that cannot be a raw identifier (`r#{keyword}` is not Rust); rename it"
            )],
            "Self" => vec!["entry name `Self` is not a snake_case Rust identifier".into()],
            _ => Vec::new(),
        };
        assert_eq!(found, expected, "{keyword}");
    }
    // Record type names follow the same rule.
    let body = "[value]\ntype = \"try\"\n[types.try]\nwire = \"fixarray\"\n[[types.try.entry]]\nname = \"a\"\nwire = \"int\"\n";
    assert_eq!(errors(body), Vec::<String>::new());
    let body = "[value]\ntype = \"super\"\n[types.super]\nwire = \"fixarray\"\n[[types.super.entry]]\nname = \"a\"\nwire = \"int\"\n";
    assert_eq!(
        errors(body),
        ["type name `super` is a Rust keyword that cannot be a raw identifier (`r#super` is not Rust); rename it"]
    );
    // `_` is a keyword too (the wildcard), and `r#_` is not Rust either.
    let found = errors("[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"_\"\nwire = \"int\"\n");
    assert_eq!(
        found,
        ["entry name `_` is a Rust keyword that cannot be a raw identifier (`r#_` is not Rust); rename it"]
    );
}

#[test]
fn include_cycles_are_errors() {
    let a = format!("{HEAD}include = [\"b.toml\"]\n[value]\nwire = \"int\"\n");
    let b = "[schema]\ninclude = [\"a.toml\"]\n";
    let source = Source {
        name: "a.toml".into(),
        path: None,
        text: a.clone(),
    };
    let diags = parse_with(source, &mut |reference, _| {
        let text = if reference == "b.toml" {
            b.to_string()
        } else {
            a.clone()
        };
        Ok(Source {
            name: reference.into(),
            path: None,
            text,
        })
    })
    .unwrap_err();
    assert!(
        diags
            .iter()
            .any(|d| d.message == "include cycle: a.toml -> b.toml -> a.toml again"),
        "{diags:#?}"
    );
}

#[test]
fn extends_appends_entries() {
    let text = format!(
        "{HEAD}extends = \"b2nd_v1\"\n[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"extra\"\nwire = \"int\"\noptional = true\n"
    );
    let layout = parse("b2nd_v2", &text).unwrap_or_else(|d| panic!("{d:#?}"));
    let root = layout.root_record().expect("record");
    assert_eq!(root.entries.len(), 8);
    assert_eq!(root.required, 7);
    assert_eq!(root.entries[7].name, "extra");
}
