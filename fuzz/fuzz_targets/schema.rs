//! The schema parser and checker, and code generation from every schema that passes the checks:
//! a malformed schema must give diagnostics, never a panic, and a checked one must render and
//! expand.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use metalayer_layout::{Encoding, Layout, Node, Record, Type, Wire, render};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// A crate directory holding `schemas/fuzzed.toml`, rewritten for each checked schema.
fn crate_dir() -> &'static std::path::Path {
    static DIR: OnceLock<std::path::PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("metalayer-fuzz-schema-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("schemas")).expect("temporary crate directory");
        dir
    })
}

/// The Rust type of a value of `node`: the wire type's own integer type, `Vec` for arrays,
/// pairs for maps, a struct per named record type.
fn rust_type(node: &Node) -> TokenStream {
    match &node.ty {
        Type::Nil => quote!(()),
        Type::Bool => quote!(bool),
        Type::Int(t) => match t.encoding {
            Encoding::Fixed(w) => match (w.is_signed(), w.width()) {
                (false, 0 | 1) => quote!(u8),
                (false, 2) => quote!(u16),
                (false, 4) => quote!(u32),
                (false, _) => quote!(u64),
                (true, 0 | 1) => quote!(i8),
                (true, 2) => quote!(i16),
                (true, 4) => quote!(i32),
                (true, _) => quote!(i64),
            },
            Encoding::Canonical { .. } if t.min < 0 => quote!(i64),
            Encoding::Canonical { .. } => quote!(u64),
        },
        Type::Float(Wire::Float32) => quote!(f32),
        Type::Float(_) => quote!(f64),
        Type::Str(t) if !t.raw => quote!(String),
        Type::Str(_) | Type::Bin(_) => quote!(Vec<u8>),
        Type::Ext(t) if t.timestamp => quote!(::metalayer::Timestamp),
        Type::Ext(t) if t.ext_type.is_some() => quote!(Vec<u8>),
        Type::Ext(_) => quote!(::metalayer::Ext<Vec<u8>>),
        Type::Array(a) => {
            let element = rust_type(&a.element);
            quote!(Vec<#element>)
        }
        Type::Map(m) => {
            let (k, v) = (rust_type(&m.key), rust_type(&m.value));
            quote!(Vec<(#k, #v)>)
        }
        Type::Ref(i) => {
            let name = format_ident!("T{}", i);
            quote!(#name)
        }
        Type::Record(_) => quote!(()),
    }
}

/// The struct whose fields match a record's field entries.
fn record_struct(name: &proc_macro2::Ident, record: &Record) -> TokenStream {
    let fields = record.fields().map(|entry| {
        let field = format_ident!("{}", entry.name);
        let ty = rust_type(&entry.node);
        let ty = if entry.optional { quote!(Option<#ty>) } else { ty };
        quote!(#field: #ty)
    });
    quote!(struct #name { #(#fields,)* })
}

/// Each item and the arguments its attribute takes: the top-level value's struct, then one per
/// named record type.
fn matching_items(layout: &Layout) -> Vec<(TokenStream, TokenStream)> {
    let top = format_ident!("Fuzzed");
    let mut items = vec![match &layout.root.ty {
        Type::Record(r) => (quote!(schema = "fuzzed"), record_struct(&top, r)),
        _ => {
            let ty = rust_type(&layout.root);
            (quote!(schema = "fuzzed"), quote!(struct Fuzzed(#ty);))
        }
    }];
    for (i, t) in layout.types.iter().enumerate() {
        let name = format_ident!("T{}", i);
        let ty_name = &t.name;
        items.push((
            quote!(schema = "fuzzed", layout = #ty_name),
            record_struct(&name, &t.record),
        ));
    }
    items
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match metalayer_layout::parse("fuzzed", text) {
        Err(diagnostics) => {
            assert!(!diagnostics.is_empty(), "a refused schema names at least one problem");
            for diagnostic in &diagnostics {
                assert!(diagnostic.span.start <= diagnostic.span.end && diagnostic.span.end <= text.len());
                let _ = diagnostic.render("schemas/fuzzed.toml", text);
            }
        }
        Ok(layout) => {
            let _ = render::diagram(&layout);
            if let Some(record) = layout.root_record() {
                let _ = render::formulas(&layout, record);
            }
            let _ = render::length_formula(&layout).to_string();
            let _ = layout.fixed_prefix();
            // The analysis that tells layouts apart ends on every checked layout, and no layout
            // can be told apart from itself.
            assert!(layout.parting(&layout).is_err(), "a layout parts from itself");
            let _ = metalayer_layout::probes(&[&layout, &layout]);
            let dir = crate_dir();
            std::fs::write(dir.join("schemas/fuzzed.toml"), text).expect("schema written");
            for (args, item) in matching_items(&layout) {
                let out = metalayer_codegen::expand_in(args, item, dir).to_string();
                assert!(
                    !out.contains("compile_error"),
                    "a checked schema with a matching struct expands: {out}"
                );
            }
        }
    }
});
