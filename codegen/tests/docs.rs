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
