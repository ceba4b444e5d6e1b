//! How `schema = "name"` finds a schema when the using crate has a `schemas/` directory: a
//! built-in name means the built-in, and a crate file with a built-in's name is an error that says
//! so, unless it holds the built-in's very text; any other name reads the crate's file, which the
//! generated code includes so that editing it rebuilds the crate.

use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use quote::quote;

/// A crate directory with the given files under `schemas/`, removed on drop.
struct CrateDir(PathBuf);

impl CrateDir {
    fn new(test: &str, schemas: &[(&str, &str)]) -> Self {
        let dir = std::env::temp_dir().join(format!("metalayer-codegen-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("schemas")).unwrap();
        for (name, text) in schemas {
            std::fs::write(dir.join("schemas").join(name), text).unwrap();
        }
        CrateDir(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for CrateDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn b2nd_v1_text() -> &'static str {
    metalayer_layout::builtin("b2nd_v1").unwrap().text
}

fn item() -> TokenStream {
    quote! {
        struct ArrayMeta {
            shape: Vec<i64>,
            chunkshape: Vec<i32>,
            blockshape: Vec<i32>,
            dtype_format: u8,
            dtype: String,
        }
    }
}

/// The messages of the `compile_error!`s in `tokens`.
fn errors(tokens: &TokenStream) -> Vec<String> {
    let tokens: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let mut out = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        match token {
            TokenTree::Ident(ident) if ident == "compile_error" => {
                if let Some(TokenTree::Group(g)) = tokens.get(i + 2) {
                    let literal = g.stream().to_string();
                    let text = literal.trim_matches('"').replace("\\n", "\n").replace("\\\"", "\"");
                    out.push(text);
                }
            }
            TokenTree::Group(g) => out.extend(errors(&g.stream())),
            _ => {}
        }
    }
    out
}

/// `b2nd_v1`'s text with another description: another schema of the built-in's name.
fn other_b2nd_v1_text() -> String {
    let text = b2nd_v1_text();
    let changed = text.replacen("description = \"", "description = \"my own ", 1);
    assert_ne!(changed, text);
    changed
}

#[test]
fn a_crate_file_named_like_a_built_in_is_an_error() {
    let dir = CrateDir::new("shadow", &[("b2nd_v1.toml", &other_b2nd_v1_text())]);
    let out = metalayer_codegen::expand_in(quote!(schema = "b2nd_v1"), item(), dir.path());
    assert_eq!(
        errors(&out),
        [
            "schema `b2nd_v1` is built in, and this crate also has `schemas/b2nd_v1.toml`, which `schema = \"b2nd_v1\"` does not read: a built-in name always means the built-in schema\n  to use the file, write `schema_path = \"schemas/b2nd_v1.toml\"`, or rename it and the `schema` argument"
        ]
    );
    // The struct stays, so that code using it reports nothing more.
    assert!(out.to_string().contains("struct ArrayMeta"));
}

#[test]
fn a_crate_file_with_the_built_in_s_very_text_is_the_built_in_and_is_tracked() {
    // As in this repository, whose own crate has the built-ins in its `schemas/`.
    let dir = CrateDir::new("same", &[("b2nd_v1.toml", b2nd_v1_text())]);
    let out = metalayer_codegen::expand_in(quote!(schema = "b2nd_v1"), item(), dir.path());
    assert_eq!(errors(&out), Vec::<String>::new());
    let file = dir.path().join("schemas/b2nd_v1.toml");
    assert!(
        out.to_string()
            .contains(&format!("include_bytes ! ({:?})", file.to_str().unwrap()))
    );
}

#[test]
fn schema_path_reads_a_file_named_like_a_built_in() {
    let dir = CrateDir::new("path", &[("b2nd_v1.toml", &other_b2nd_v1_text())]);
    let out = metalayer_codegen::expand_in(quote!(schema_path = "schemas/b2nd_v1.toml"), item(), dir.path());
    assert_eq!(errors(&out), Vec::<String>::new());
    let file = dir.path().join("schemas/b2nd_v1.toml");
    assert!(
        out.to_string()
            .contains(&format!("include_bytes ! ({:?})", file.to_str().unwrap()))
    );
}

#[test]
fn a_built_in_name_without_a_crate_file_is_the_built_in() {
    // Other schemas in the directory do not matter.
    let dir = CrateDir::new("builtin", &[("array_v1.toml", b2nd_v1_text())]);
    let out = metalayer_codegen::expand_in(quote!(schema = "b2nd_v1"), item(), dir.path());
    assert_eq!(errors(&out), Vec::<String>::new());
    // The macro carries the built-in: no file to include.
    assert!(!out.to_string().contains("include_bytes"));
}

#[test]
fn another_name_reads_and_tracks_the_crate_file() {
    let dir = CrateDir::new("own", &[("array_v1.toml", b2nd_v1_text())]);
    let out = metalayer_codegen::expand_in(quote!(schema = "array_v1"), item(), dir.path());
    assert_eq!(errors(&out), Vec::<String>::new());
    let file = dir.path().join("schemas/array_v1.toml");
    assert!(
        out.to_string()
            .contains(&format!("include_bytes ! ({:?})", file.to_str().unwrap()))
    );
}

#[test]
fn generated_names_that_clash_are_schema_errors_where_the_entry_is() {
    // base.toml: lines 1-4 [schema], 5-6 the container, 7 [[entry]] a (8-10), 11 [[entry]]
    // a_element (12-13). derived.toml extends it and adds nothing.
    let base = "[schema]\nmetalayer = \"t\"\ndescription = \"d\"\nsource = \"s\"\n[container]\nwire = \"array\"\n[[entry]]\nname = \"a\"\nwire = \"array\"\nelement = { wire = \"int\" }\n[[entry]]\nname = \"a_element\"\nwire = \"int\"\n";
    let derived = "[schema]\nmetalayer = \"t\"\ndescription = \"d\"\nsource = \"s\"\nextends = \"base.toml\"\n";
    let dir = CrateDir::new("clash", &[("base.toml", base), ("derived.toml", derived)]);
    let item = quote!(
        struct T {
            a: Vec<i64>,
            a_element: i64,
        }
    );
    let message = "entry `a_element` clashes with the array `a`: both would generate `a_element_offset`; rename one";
    let underline = "\n   |\n11 | [[entry]]\n   | ^^^^^^^^^";
    let out = metalayer_codegen::expand_in(quote!(schema = "base"), item.clone(), dir.path());
    assert_eq!(
        errors(&out),
        [format!("schema error: schemas/base.toml:11:1: {message}{underline}")]
    );
    // Reported in the file the entry is in, as the attribute names files.
    let out = metalayer_codegen::expand_in(quote!(schema = "derived"), item, dir.path());
    assert_eq!(
        errors(&out),
        [format!("schema error: schemas/base.toml:11:1: {message}{underline}")]
    );
}
