//! The items the attribute takes, end to end through `expand_in`: what it accepts expands
//! without errors, and what it refuses gets its message while the item itself stays.

use proc_macro2::{TokenStream, TokenTree};

fn expand(args: &str, item: &str) -> TokenStream {
    metalayer_codegen::expand_in(
        args.parse().expect("argument tokens"),
        item.parse().expect("item tokens"),
        std::path::Path::new("."),
    )
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
                    out.push(text.trim_matches('"').replace("\\\"", "\""));
                }
            }
            TokenTree::Group(g) => out.extend(messages(g.stream())),
            _ => {}
        }
    }
    out
}

fn squeeze(tokens: &TokenStream) -> String {
    tokens.to_string().replace(' ', "")
}

#[test]
fn a_struct_with_docs_visibilities_raw_names_and_a_where_clause() {
    let out = expand(
        "schema = \"caterva_v0\"",
        "/// Caterva metadata.\n#[derive(Debug)]\npub(in crate::x) struct Caterva<'a,> where 'a: 'a, {\n    /// The shape.\n    pub(in crate::x) r#shape: Vec<i64>,\n    pub(crate) chunkshape: [i32; 2],\n    blockshape: arrayvec::ArrayVec<i32, 8>,\n}",
    );
    assert_eq!(messages(out.clone()), Vec::<String>::new());
    let text = squeeze(&out);
    assert!(
        text.contains(
            "impl<'a>::metalayer::__private::Metalayerfor Caterva<'a>where'a:'a,"
                .replace(' ', "")
                .as_str()
        )
    );
    assert!(
        text.contains("impl<'a>::metalayer::__private::Decode<'a>forCaterva<'a>"),
        "{text}"
    );
    assert!(text.contains("self.r#shape"));
}

#[test]
fn field_types_are_left_to_their_traits() {
    // The macro does not judge a field's type by its spelling: a nested vector expands, and
    // the compiler refuses it because `Vec<i64>` does not implement `IntValue`, the trait the
    // generated code names for the elements of an int64 array.
    let out = expand(
        "schema = \"caterva_v0\"",
        "struct S { shape: Vec<Vec<i64>>, chunkshape: Vec<i32>, blockshape: Vec<i32> }",
    );
    assert_eq!(messages(out.clone()), Vec::<String>::new());
    let text = squeeze(&out);
    assert!(
        text.contains(
            "<<Vec<Vec<i64>>as::metalayer::__private::ArrayField>::Elementas::metalayer::__private::IntValue>"
        ),
        "{text}"
    );
}

#[test]
fn type_and_const_parameters_are_refused() {
    let fields = "{ shape: Vec<i64>, chunkshape: Vec<i32>, blockshape: Vec<i32> }";
    for generics in ["<T: Clone = u8>", "<'a, const N: usize = 3>"] {
        let out = expand("schema = \"caterva_v0\"", &format!("struct S{generics} {fields}"));
        assert_eq!(
            messages(out),
            ["a #[metalayer] struct takes no type or const parameters; its field types follow from the schema"],
            "{generics}"
        );
    }
    let out = expand("schema = \"caterva_v0\"", &format!("struct S<'a, 'b> {fields}"));
    assert_eq!(
        messages(out),
        ["a #[metalayer] struct takes at most one lifetime, the one borrowed fields (`&'a str`) borrow the input for"]
    );
}

#[test]
fn other_items_are_refused_and_kept() {
    let out = expand("schema = \"caterva_v0\"", "pub fn f() {}");
    assert_eq!(
        messages(out.clone()),
        ["#[metalayer] applies to a struct with named fields, or with `dispatch` to an enum"]
    );
    assert!(squeeze(&out).starts_with("pubfnf(){}"));
    let out = expand("schema = \"caterva_v0\"", "struct S(Vec<i64>);");
    assert_eq!(
        messages(out),
        ["#[metalayer] needs a struct with named fields, one per entry of caterva_v0"]
    );
    let out = expand("schema = \"caterva_v0\"", "enum E { A }");
    assert_eq!(
        messages(out),
        ["on an enum, write `#[metalayer(dispatch)]` and name a schema per variant"]
    );
    let out = expand("dispatch", "struct S { a: u8 }");
    assert_eq!(messages(out.clone()), ["`#[metalayer(dispatch)]` applies to enums"]);
    assert!(squeeze(&out).starts_with("structS{a:u8}"));
}

#[test]
fn a_dispatch_enum_loses_its_variant_attributes() {
    let out = expand(
        "dispatch",
        "/// Either.\npub enum Any<'a> {\n    /// Version 1.\n    #[metalayer(schema = \"b2nd_v1\")]\n    V1(B2ndV1<'a>),\n    #[metalayer(schema = \"caterva_v0\", name = \"caterva\")]\n    C(CatervaV0),\n}",
    );
    assert_eq!(messages(out.clone()), Vec::<String>::new());
    let text = squeeze(&out);
    // The enum's own documentation, then the section the attribute adds.
    assert!(text.starts_with("#[doc=\"Either.\"]#[doc=\"\\n\\n#Dispatch"), "{text}");
    assert!(
        text.contains("\"]pubenumAny<'a>{#[doc=\"Version1.\"]V1(B2ndV1<'a>),C(CatervaV0),}"),
        "{text}"
    );
    // The runtime's `__dispatch_impl!` writes `decode(name: &str, input: &'a [u8])` from this.
    assert!(
        text.contains("__dispatch_impl!{impl[<'a>]for[Any<'a>][];input&'a[u8];decode'a;"),
        "{text}"
    );
}

#[test]
fn dispatch_variant_errors() {
    let cases = [
        ("A(u8, u8)", "a dispatch variant holds one metalayer type: `Name(Type)`"),
        (
            "A { x: u8 }",
            "a dispatch variant holds one metalayer type: `Name(Type)`",
        ),
        (
            "#[metalayer(schema = \"b2nd_v1\")] A",
            "a dispatch variant holds one metalayer type: `Name(Type)`",
        ),
        (
            "A(u8)",
            "a dispatch variant needs one `#[metalayer(schema = \"...\")]` naming its layout",
        ),
        (
            "#[metalayer] A(u8)",
            "expected arguments in parentheses: `#[metalayer(...)]`",
        ),
        (
            "#[metalayer(name = \"x\")] A(u8)",
            "a dispatch variant needs `#[metalayer(schema = \"...\")]`",
        ),
        (
            "#[metalayer(schema = \"b2nd_v1\", bogus = 1)] A(u8)",
            "unknown argument; expected `schema`, `schema_path` or `name`",
        ),
        (
            "#[metalayer(schema = \"b2nd_v1\", schema_path = \"x.toml\")] A(u8)",
            "give the variant's schema once: either `schema = \"name\"` or `schema_path = \"file.toml\"`",
        ),
        ("#[metalayer(schema = 3)] A(u8)", "expected a string literal"),
    ];
    for (variant, message) in cases {
        let out = expand("dispatch", &format!("enum E {{ {variant} }}"));
        assert_eq!(messages(out), [message], "{variant}");
    }
}
