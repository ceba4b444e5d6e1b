//! The generated type's rustdoc carries the diagram rendered from its schema.

use quote::quote;

#[test]
fn struct_docs_hold_the_layout_diagram() {
    let out = metalayer_codegen::expand_in(
        quote!(schema = "b2nd_v1"),
        quote! {
            /// Array metadata.
            pub struct B2ndV1 {
                pub shape: Vec<i64>,
                pub chunkshape: Vec<i32>,
                pub blockshape: Vec<i32>,
                pub dtype_format: u8,
                pub dtype: String,
            }
        },
        std::path::Path::new("."),
    );
    let text = out.to_string();
    let layout = metalayer_layout::builtin_layout("b2nd_v1").unwrap();
    let diagram = metalayer_layout::diagram(&layout);
    // The doc attribute holds the diagram as an escaped string literal.
    let escaped = format!("{:?}", diagram.trim_end());
    assert!(text.contains(&escaped[1..escaped.len() - 1]), "diagram not in the docs");
    assert!(text.contains("| XX| db| dtype_len  | dtype_string |"));
    assert!(text.contains("encoded_len_for"));
}

/// The text of the `#[doc = "..."]` attributes at the start of `tokens`, joined.
fn leading_docs(tokens: proc_macro2::TokenStream) -> String {
    let mut out = String::new();
    let mut tokens = tokens.into_iter();
    while let (Some(proc_macro2::TokenTree::Punct(_)), Some(proc_macro2::TokenTree::Group(g))) =
        (tokens.next(), tokens.next())
    {
        let inner: Vec<_> = g.stream().into_iter().collect();
        match inner.as_slice() {
            [
                proc_macro2::TokenTree::Ident(doc),
                _,
                proc_macro2::TokenTree::Literal(text),
            ] if doc == "doc" => {
                // A raw string (a `///` comment) as it is; an escaped one unescaped.
                let text = text.to_string();
                match text.strip_prefix('r') {
                    Some(raw) => out.push_str(raw.trim_matches('#').trim_matches('"')),
                    None => out.push_str(
                        &text[1..text.len() - 1]
                            .replace("\\n", "\n")
                            .replace("\\\"", "\"")
                            .replace("\\'", "'"),
                    ),
                }
            }
            _ => break,
        }
    }
    out
}

#[test]
fn dispatch_docs_say_where_the_layouts_part() {
    let out = metalayer_codegen::expand_in(
        quote!(dispatch),
        quote! {
            /// Metalayers by shape.
            pub enum Shapes {
                #[metalayer(schema = "b2nd_v1")]
                V1(B2ndV1),
                #[metalayer(schema = "b2nd_v0")]
                V0(B2ndV0),
                #[metalayer(schema = "batcharray_v1")]
                Batches(Batches),
                #[metalayer(schema = "batcharray_empty_v1")]
                Empty(Empty),
                #[metalayer(schema = "listarray_scalar_v1")]
                Scalar(Scalar),
                #[metalayer(schema = "listarray_string_v1")]
                Strings(Strings),
            }
        },
        std::path::Path::new("."),
    );
    let docs = leading_docs(out);
    assert!(docs.starts_with(" Metalayers by shape.\n\n# Dispatch\n"), "{docs}");
    assert!(
        docs.contains("| `Batches` | `batcharray_v1` | `batcharray` |\n"),
        "{docs}"
    );
    // Counted by hand from the schemas: fixarray(7) against fixarray(6); the integer or nil of
    // items_per_block after the serializer string; 0x87, "version" (8 bytes), 1, "kind" (5),
    // "list" (5), "item" (5), then the item's fixmap(1) against fixmap(2) at byte 25.
    for line in [
        "- `b2nd_v1` and `b2nd_v0`: at byte 0\n",
        "- `batcharray_v1` and `batcharray_empty_v1`: at a byte after a value of variable length (entry `items_per_block` of both)\n",
        "- `listarray_scalar_v1` and `listarray_string_v1`: at byte 25 (entry `item` of both)\n",
    ] {
        assert!(docs.contains(line), "{line:?} not in {docs}");
    }
    // The example decodes into each variant stored under the first name and encodes each.
    assert!(
        docs.contains("match Shapes::decode(\"b2nd\", &bytes)? {\n    Shapes::V1(value) => "),
        "{docs}"
    );
    assert!(docs.contains("    _ => { /* stored under other names */ }\n"), "{docs}");
    assert!(
        docs.contains("let b2nd_v0_bytes = Shapes::V0(b2nd_v0_value).encode()?;\n"),
        "{docs}"
    );
}
