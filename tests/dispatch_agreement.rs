//! The attribute and the command agree on which layouts can be stored under one name: a
//! `#[metalayer(dispatch)]` enum builds (the check its expansion runs, through
//! `metalayer_codegen::expand_in`) for exactly the sets of layouts `metalayer inspect --schemas`
//! accepts (`metalayer::report::Registry::new`), and both refuse a set with the same words. Both
//! run `Layout::parting`; each verdict below is derived by hand from the schema files. Over a set
//! both take, the enum's `decode` and the command choose the same layout for an input, and say
//! the same when none reads it.

use std::path::Path;

use metalayer::prelude::*;
use metalayer::report::{Registry, Selected};
use metalayer_layout::{Layout, PYTHON_BLOSC2, builtin, parse};
use proc_macro2::{TokenStream, TokenTree};

/// One layout of a set: how a dispatch variant names it, and the schema file the command loads
/// for it (none for a built-in where the command already holds it).
struct Member {
    /// The variant attribute's arguments: `schema = "b2nd_v1"`, with `name = "..."` where the
    /// layout is stored under another name than its own.
    args: String,
    file: Option<Layout>,
}

/// A built-in schema as the command holds it: under its own name, and c-blosc2's caterva_v0
/// also under `b2nd` (`name = "b2nd"`).
fn built_in(schema: &str, name: Option<&str>) -> Member {
    let args = match name {
        Some(name) => format!("schema = \"{schema}\", name = \"{name}\""),
        None => format!("schema = \"{schema}\""),
    };
    Member { args, file: None }
}

/// A built-in schema stored under `name`, which the command reads from a schema file of the
/// built-in's name whose `metalayer` is `name`.
fn built_in_under(schema: &str, name: &str) -> Member {
    let text = builtin(schema).unwrap_or_else(|| panic!("{schema} is built in")).text;
    let layout = parse(schema, &stored_under(text, name)).unwrap_or_else(|e| panic!("{schema}: {e}"));
    Member {
        args: format!("schema = \"{schema}\", name = \"{name}\""),
        file: Some(layout),
    }
}

/// A schema file of `tests/schemas/dispatch/`.
fn file(stem: &str) -> Member {
    let rel = format!("tests/schemas/dispatch/{stem}.toml");
    let text = std::fs::read_to_string(root().join(&rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    Member {
        args: format!("schema_path = \"{rel}\""),
        file: Some(parse(stem, &text).unwrap_or_else(|e| panic!("{stem}: {e}"))),
    }
}

/// Schema text with its `metalayer` set to `name`: the layout as the command loads it when a
/// schema file stores it under that name.
fn stored_under(text: &str, name: &str) -> String {
    text.lines()
        .map(|line| {
            if line.starts_with("metalayer = ") {
                format!("metalayer = \"{name}\"")
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The messages of the `compile_error!`s in `tokens`.
fn messages(tokens: TokenStream) -> Vec<String> {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        match token {
            TokenTree::Ident(ident) if ident == "compile_error" => {
                if let Some(TokenTree::Group(g)) = tokens.get(i + 2) {
                    let text = g.stream().to_string();
                    out.push(text.trim_matches('"').replace("\\\"", "\"").replace("\\\\", "\\"));
                }
            }
            TokenTree::Group(g) => out.extend(messages(g.stream())),
            _ => {}
        }
    }
    out
}

/// The errors of a dispatch enum with one variant per member.
fn dispatch_errors(set: &[Member]) -> Vec<String> {
    let variants: String = set
        .iter()
        .enumerate()
        .map(|(i, m)| format!("#[metalayer({})] V{i}(T{i}),", m.args))
        .collect();
    let item: TokenStream = format!("enum Layouts {{ {variants} }}").parse().expect("item tokens");
    messages(metalayer_codegen::expand_in(
        "dispatch".parse().expect("argument"),
        item,
        root(),
    ))
}

/// The command's verdict on the members' schema files beside the built-ins.
fn registry(set: &[Member]) -> Result<(), String> {
    let user = set
        .iter()
        .filter_map(|m| m.file.clone())
        .map(|l| {
            let path = format!("{}.toml", l.schema);
            (l.into(), path)
        })
        .collect();
    Registry::new(user).map(drop).map_err(|e| e.to_string())
}

/// Checks that dispatch and the command both take `set`, or both refuse it with the same
/// overlap, and that this is the verdict derived by hand.
fn agree(what: &str, set: &[Member], parts: bool) {
    let errors = dispatch_errors(set);
    let command = registry(set);
    assert_eq!(errors.is_empty(), parts, "{what}: dispatch says {errors:?}");
    assert_eq!(command.is_ok(), parts, "{what}: the command says {command:?}");
    if let Err(message) = command {
        // "<file>: `a` and `b` cannot be told apart ...", which a dispatch error ends with.
        let overlap = message.split_once(": ").map_or(message.as_str(), |(_, rest)| rest);
        assert!(
            errors.iter().any(|e| e.ends_with(overlap)),
            "{what}: the command's {overlap:?} is not among {errors:?}"
        );
    }
}

#[test]
fn c_blosc2_layouts_part_at_their_container_marker() {
    // fixarray(7) 0x97, fixarray(6) 0x96 and fixarray(5) 0x95: the first byte.
    agree(
        "b2nd",
        &[
            built_in("b2nd_v1", None),
            built_in("b2nd_v0", None),
            built_in("caterva_v0", Some("b2nd")),
        ],
        true,
    );
    // `Known`'s variants: the same, and caterva_v0 alone under its own name.
    agree(
        "Known",
        &[
            built_in("b2nd_v1", None),
            built_in("b2nd_v0", None),
            built_in("caterva_v0", Some("b2nd")),
            built_in("caterva_v0", None),
        ],
        true,
    );
}

/// `Known` names its layouts' metalayer names variant by variant; the command's candidates take
/// them from the layouts (`Layout::metalayer`, `metalayer_layout::also_stored_as`). Both are
/// c-blosc2's three layouts under `b2nd`, and caterva's under its own name.
#[test]
fn known_and_the_command_store_c_blosc2_layouts_under_the_same_names() {
    let mut known: Vec<(&str, &str)> = metalayer::Known::CANDIDATES
        .iter()
        .map(|c| (c.schema, c.metalayer))
        .collect();
    let mut command: Vec<(&str, &str)> = metalayer::report::candidates()
        .iter()
        .map(|c| (c.schema, c.metalayer))
        .collect();
    known.sort_unstable();
    command.sort_unstable();
    let expected = [
        ("b2nd_v0", "b2nd"),
        ("b2nd_v1", "b2nd"),
        ("caterva_v0", "b2nd"),
        ("caterva_v0", "caterva"),
    ];
    assert_eq!(known, expected);
    assert_eq!(command, expected);
}

#[test]
fn python_blosc2_shapes_of_one_name_part() {
    // proxy-source: fixmap(4) against fixmap(5), and "source_kind" constants ("local",
    // "caterva2", ...) or the urlpath's type (nil, str, a "__tuple__" map) past them;
    // batcharray: items_per_block nil or an integer, arrow_schema nil or bin, after the
    // serializer string; listarray: the item spec's fixmap(1) or fixmap(2).
    for name in ["proxy-source", "batcharray", "listarray"] {
        let set: Vec<Member> = PYTHON_BLOSC2
            .iter()
            .filter(|b| metalayer_layout::builtin_layout(b.name).is_some_and(|l| l.metalayer == name))
            .map(|b| built_in(b.name, None))
            .collect();
        assert!(set.len() > 1, "{name} has several shapes");
        agree(name, &set, true);
    }
}

#[test]
fn python_blosc2_layouts_under_one_name_overlap() {
    // b2embed_v1, b2dict_v1 and b2tree_v1 are all {"version": 1}: 81 a7 "version" 01.
    let set: Vec<Member> = PYTHON_BLOSC2.iter().map(|b| built_in_under(b.name, "pb")).collect();
    agree("python-blosc2 under one name", &set, false);
    let errors = dispatch_errors(&set);
    assert!(
        errors.iter().any(|e| e.contains(
            "`b2embed_v1` and `b2dict_v1` cannot be told apart from their bytes: they accept the same bytes throughout"
        )),
        "{errors:?}"
    );
}

#[test]
fn user_versions_that_part_after_a_string() {
    // {"name": str, "version": 1, ...} against version 2: the version's byte, after the name.
    agree("store", &[file("store_v1"), file("store_v2")], true);
    // [label, int] against [label, str]: the value's first byte, after the label.
    agree("reading", &[file("reading_number_v0"), file("reading_text_v0")], true);
}

#[test]
fn user_versions_that_cannot_be_told_apart() {
    // [label, int] against [label, int64]: 0xd3 starts an int64 in both.
    agree("point", &[file("point_int_v0"), file("point_int64_v0")], false);
    let errors = dispatch_errors(&[file("point_int_v0"), file("point_int64_v0")]);
    assert_eq!(
        errors,
        [
            "variants `V0` and `V1` are both stored as `point`, and `point_int_v0` and `point_int64_v0` cannot be told \
          apart from their bytes: they accept the same bytes up to a byte after a value of variable length (entry \
          `value` of both), where they would need to differ"
        ]
    );
}

#[metalayer(schema_path = "tests/schemas/dispatch/store_v1.toml")]
#[derive(Debug)]
struct StoreV1 {
    name: String,
    size: u64,
}

#[metalayer(schema_path = "tests/schemas/dispatch/store_v2.toml")]
#[derive(Debug)]
struct StoreV2 {
    name: String,
    chunks: Vec<u64>,
}

#[metalayer(dispatch)]
#[derive(Debug)]
enum Store {
    #[metalayer(schema_path = "tests/schemas/dispatch/store_v1.toml")]
    V1(StoreV1),
    #[metalayer(schema_path = "tests/schemas/dispatch/store_v2.toml")]
    V2(StoreV2),
}

/// What the command makes of `bytes` stored under `name`: the schema that reads them, or the
/// error.
fn selected(registry: &Registry, name: &str, bytes: &[u8]) -> Result<String, String> {
    match registry.select(name, bytes) {
        Selected::Decoded(value) => Ok(value.layout().schema.clone()),
        Selected::Failed(e) | Selected::OtherShape(e) => Err(e),
        Selected::Unknown => Err("unknown".into()),
    }
}

#[test]
fn the_command_and_the_enum_choose_alike() {
    let registry = Registry::new(
        [file("store_v1"), file("store_v2")]
            .into_iter()
            .filter_map(|m| m.file)
            .map(|l| {
                let path = format!("{}.toml", l.schema);
                (l.into(), path)
            })
            .collect(),
    )
    .expect("the store versions part");
    // {"name": "ab", "version": N, ...}: 83, a4 "name", a2 "ab", a7 "version" (up to 0x10),
    // then the version at 0x11; version 1's "size" 5, version 2's "chunks" [7].
    let head: &[u8] = b"\x83\xa4name\xa2ab\xa7version";
    let one = [head, b"\x01\xa4size\x05"].concat();
    let two = [head, b"\x02\xa6chunks\x91\x07"].concat();
    let three = [head, b"\x03\xa4size\x05"].concat();
    for (bytes, schema) in [(&one, "store_v1"), (&two, "store_v2")] {
        assert_eq!(selected(&registry, "store", bytes).as_deref(), Ok(schema));
        assert_eq!(Store::decode("store", bytes).map(|s| s.schema()), Ok(schema));
    }
    match Store::decode("store", &one) {
        Ok(Store::V1(v1)) => assert_eq!((v1.name.as_str(), v1.size), ("ab", 5)),
        other => panic!("{other:?}"),
    }
    match Store::decode("store", &two) {
        Ok(Store::V2(v2)) => assert_eq!((v2.name.as_str(), v2.chunks.as_slice()), ("ab", &[7][..])),
        other => panic!("{other:?}"),
    }
    // A version neither has: the same words from both.
    let expected =
        "no store layout fits: at byte 0x11 in version: store_v1 expects 0x01, store_v2 expects 0x02; found 0x03";
    assert_eq!(selected(&registry, "store", &three).unwrap_err(), expected);
    assert_eq!(Store::decode("store", &three).unwrap_err().to_string(), expected);
}

#[test]
fn the_command_reports_the_layout_the_bytes_single_out() {
    // 0x97 is b2nd_v1's alone; its version, at byte 1, must be 0.
    let failed = selected(&Registry::builtin(), "b2nd", &[0x97, 0x01]).unwrap_err();
    assert!(failed.starts_with("b2nd_v1: at byte 0x01"), "{failed}");
    assert!(failed.contains("version"), "{failed}");
}
