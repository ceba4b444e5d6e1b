//! The schema parser and checker, and code generation from every schema that passes the checks:
//! a malformed schema must give diagnostics, never a panic, and a checked one must render and
//! expand.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use metalayer_layout::{EntryKind, IntWire, Layout, render};
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

fn int_type(wire: IntWire) -> TokenStream {
    match wire {
        IntWire::FixInt | IntWire::UInt8 => quote!(u8),
        IntWire::Int8 => quote!(i8),
        IntWire::Int16 => quote!(i16),
        IntWire::Int32 => quote!(i32),
        IntWire::Int64 => quote!(i64),
        IntWire::UInt16 => quote!(u16),
        IntWire::UInt32 => quote!(u32),
        IntWire::UInt64 => quote!(u64),
    }
}

/// The struct whose fields match the layout's field entries.
fn matching_struct(layout: &Layout) -> TokenStream {
    let fields = layout.entries.iter().filter(|e| e.is_field()).map(|entry| {
        let name = format_ident!("{}", entry.name);
        let ty = match &entry.kind {
            EntryKind::Int { wire, .. } => int_type(*wire),
            EntryKind::Str { .. } => quote!(String),
            EntryKind::Array { element, .. } => {
                let element = int_type(*element);
                quote!(Vec<#element>)
            }
        };
        quote!(#name: #ty)
    });
    quote!(struct Fuzzed { #(#fields,)* })
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
            let _ = render::formulas(&layout);
            let _ = render::length_formula(&layout).to_string();
            let _ = layout.fixed_prefix();
            let dir = crate_dir();
            std::fs::write(dir.join("schemas/fuzzed.toml"), text).expect("schema written");
            let out = metalayer_codegen::expand_in(quote!(schema = "fuzzed"), matching_struct(&layout), dir);
            let out = out.to_string();
            assert!(
                !out.contains("compile_error"),
                "a checked schema with a matching struct expands: {out}"
            );
        }
    }
});
