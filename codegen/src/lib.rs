//! The code generation behind `#[metalayer(schema = "...")]`: it finds the schema, checks it
//! with `metalayer-layout`, binds the struct's fields to the layout's entries, and writes the
//! `Metalayer` and `Decode` impls. The proc-macro crate is a thin shell over [`expand`], so this
//! crate can be tested and reused without a compiler plugin.
//!
//! ```
//! use quote::quote;
//!
//! let out = metalayer_codegen::expand_in(
//!     quote!(schema = "b2nd_v1"),
//!     quote! {
//!         struct ArrayMeta {
//!             shape: Vec<i64>,
//!             chunkshape: Vec<i32>,
//!             blockshape: Vec<i32>,
//!             dtype_format: u8,
//!             dtype: String,
//!         }
//!     },
//!     std::path::Path::new("."),
//! );
//! let text = out.to_string();
//! assert!(text.contains("Metalayer for ArrayMeta"));
//! assert!(!text.contains("compile_error"));
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod attr;
mod bind;
mod dispatch;
mod docs;
mod error;
mod expand;
mod generate;
mod item;
mod names;
mod resolve;

use proc_macro2::TokenStream;
use quote::quote;

use metalayer_layout::Layout;

use crate::attr::{Args, LitStr, SchemaRef};
use crate::error::{Error, compile_errors};
use crate::expand::Target;
use crate::item::{Data, Item};

/// Expands the attribute with arguments `args` on `item`, finding schemas under the crate
/// directory `CARGO_MANIFEST_DIR`.
///
/// ```
/// use quote::quote;
///
/// // Outside a cargo build there is no CARGO_MANIFEST_DIR; built-in schemas still resolve.
/// let out = metalayer_codegen::expand(quote!(schema = "nope"), quote!(struct S {}));
/// assert!(out.to_string().contains("compile_error"));
/// ```
pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_default();
    expand_in(args, item, &manifest_dir)
}

/// [`expand`] with an explicit crate directory.
///
/// ```
/// use quote::quote;
///
/// let out = metalayer_codegen::expand_in(quote!(schema = "caterva_v0"), quote!(struct S { shape: Vec<i32> }), std::path::Path::new("."));
/// assert!(out.to_string().contains("missing field for the fixarray entry `chunkshape` of caterva_v0"));
/// ```
pub fn expand_in(args: TokenStream, item: TokenStream, manifest_dir: &std::path::Path) -> TokenStream {
    let input = match item::parse(item.clone()) {
        Ok(input) => input,
        Err(e) => {
            // The item stays, so that code using it reports nothing more.
            let error = e.to_compile_error();
            return quote!(#item #error);
        }
    };
    let args = match attr::parse(args) {
        Ok(args) => args,
        Err(e) => {
            let fallback = expand::fallback(&input, &quote!(::metalayer), false);
            return with_errors(&input, &[e], Some(fallback));
        }
    };
    match &args.schema {
        None => dispatch::expand(input, &args.krate, manifest_dir),
        Some(schema) => expand_bound(input, &args, schema, manifest_dir),
    }
}

/// A struct bound to the schema `schema` names: the struct with its layout documented, the
/// impls, the length and offset formulas, and the schema files tracked; or the errors, with
/// impls that do nothing so that code using the struct reports nothing more.
fn expand_bound(mut input: Item, args: &Args, schema: &SchemaRef, manifest_dir: &std::path::Path) -> TokenStream {
    if let Data::Enum(_) = input.data {
        return with_errors(
            &input,
            &[Error::new(
                schema.lit().span(),
                "on an enum, write `#[metalayer(dispatch)]` and name a schema per variant",
            )],
            None,
        );
    }
    let is_record = args.layout.is_some();
    let fallback = || Some(expand::fallback(&input, &args.krate, is_record));
    let mut loader = resolve::loader(manifest_dir);
    let layout = match resolve::layout(schema, &mut loader) {
        Ok(layout) => layout,
        Err(messages) => {
            let mut errors = Vec::new();
            for m in messages {
                errors.push(Error::new(schema.lit().span(), m));
            }
            return with_errors(&input, &errors, fallback());
        }
    };
    if let Err(e) = expand::check_generics(&input) {
        return with_errors(&input, &[e], None);
    }
    let target = match target(&layout, args.layout.as_ref()) {
        Ok(target) => target,
        Err(e) => return with_errors(&input, &[e], fallback()),
    };
    let bound = match bind::bind(&input, &layout, &target) {
        Ok(bound) => bound,
        Err(errors) => return with_errors(&input, &errors, fallback()),
    };
    let impls = expand::expand(&input, &layout, &target, &bound, &args.krate);
    let formulas = docs::formula_fns(&input, &layout, &target);
    drop(bound);
    docs::add_layout_docs(&mut input, &layout, &target);
    let track = resolve::track_files(&loader);
    quote! {
        #input
        const _: () = {
            #track
            #impls
            #formulas
        };
    }
}

/// What the struct binds to: the record type `layout = "..."` names, or the top-level value.
fn target<'l>(layout: &'l Layout, record_type: Option<&LitStr>) -> Result<Target<'l>, Error> {
    let Some(name) = record_type else {
        return Ok(match &layout.root.ty {
            metalayer_layout::Type::Record(r) => Target::Root(r),
            metalayer_layout::Type::Ref(i) => Target::Root(&layout.types[*i].record),
            _ => Target::Value(&layout.root),
        });
    };
    if let Some(i) = layout.types.iter().position(|t| t.name == name.value()) {
        return Ok(Target::Type(i, &layout.types[i].record));
    }
    let mut names = Vec::new();
    for t in &layout.types {
        names.push(t.name.as_str());
    }
    let message = if names.is_empty() {
        format!("{} has no record types (`[types.<name>]`)", layout.schema)
    } else {
        format!(
            "{} has no record type `{}`; its record types are: {}",
            layout.schema,
            name.value(),
            names.join(", ")
        )
    };
    Err(Error::new(name.span(), message))
}

fn with_errors(input: &Item, errors: &[Error], fallback: Option<TokenStream>) -> TokenStream {
    let errors = compile_errors(errors);
    quote! {
        #input
        #errors
        const _: () = {
            #fallback
        };
    }
}
