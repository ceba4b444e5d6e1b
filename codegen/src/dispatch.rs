//! `#[metalayer(dispatch)]` on an enum: one variant per layout, chosen from the metalayer's name
//! and its bytes. The layouts stored under one name must part (`Layout::parting`, the analysis
//! the command's registry also runs), which is checked here, at compile time; the generated
//! `decode` checks each layout's probe (`metalayer_layout::probes`) and tries the decoders of
//! the layouts an input fits.

use std::path::Path;

use metalayer_layout::{Layout, Loader, Parting, Probe};
use proc_macro2::{Ident, TokenStream};
use quote::{quote, quote_spanned};

use crate::attr::{self, SchemaRef};
use crate::error::{Error, compile_errors, joined_span};
use crate::generate::with_static_lifetimes;
use crate::item::{Attribute, Data, Fields, Item, Type};
use crate::{names, resolve};

struct Variant<'a> {
    ident: &'a Ident,
    ty: &'a Type,
    layout: Layout,
    metalayer: String,
    /// The variant's attribute, to report problems under.
    attr: &'a Attribute,
    /// What `decode` checks of an input for this layout, among those stored under its name.
    probe: Vec<Probe>,
}

/// Parses a variant's `#[metalayer(schema = "...", name = "...")]`.
fn variant_args(attr: &Attribute) -> Result<(SchemaRef, Option<attr::LitStr>), Error> {
    let mut schema = None;
    let mut name = None;
    attr::each_arg(attr.list_args()?, &mut |arg| {
        let schema_ref = if arg.is("schema") {
            SchemaRef::Name(arg.lit_str()?)
        } else if arg.is("schema_path") {
            SchemaRef::Path(arg.lit_str()?)
        } else if arg.is("name") {
            name = Some(arg.lit_str()?);
            return Ok(());
        } else {
            return Err(Error::spanned(
                arg.key_tokens,
                "unknown argument; expected `schema`, `schema_path` or `name`",
            ));
        };
        if schema.is_some() {
            return Err(Error::spanned(
                arg.tokens,
                "give the variant's schema once: either `schema = \"name\"` or `schema_path = \"file.toml\"`",
            ));
        }
        schema = Some(schema_ref);
        Ok(())
    })?;
    match schema {
        Some(schema) => Ok((schema, name)),
        None => Err(Error::spanned(
            &attr.tokens(),
            "a dispatch variant needs `#[metalayer(schema = \"...\")]`",
        )),
    }
}

/// The enum `input` with its variants' layouts read and checked to part, its dispatch section
/// documented, and its `impl`; or the errors.
pub(crate) fn expand(mut input: Item, krate: &TokenStream, manifest_dir: &Path) -> TokenStream {
    let rt = names::runtime(krate);
    let attrs = take_variant_attrs(&mut input);
    let Data::Enum(data) = &input.data else {
        let error = Error::new(input.ident.span(), "`#[metalayer(dispatch)]` applies to enums").to_compile_error();
        return quote!(#input #error);
    };
    let mut errors: Vec<Error> = Vec::new();
    // It keeps the schema files read, which the generated code tracks so that editing one
    // rebuilds it.
    let mut loader = resolve::loader(manifest_dir);
    let mut variants = Vec::new();
    for (v, attrs) in data.iter().zip(&attrs) {
        match read_variant(&v.ident, &v.fields, attrs, &mut loader) {
            Ok(variant) => variants.push(variant),
            Err(e) => errors.extend(e),
        }
    }
    let partings = check_partings(&variants, &mut errors);
    let docs = dispatch_docs(&input.ident, &variants, &partings);
    drop(partings);
    if !errors.is_empty() {
        let errors = compile_errors(&errors);
        return quote!(#input #errors);
    }
    assign_probes(&mut variants);
    input.attrs.push(Attribute::doc(&docs));
    let lifetimes = input.generics.lifetime_names();
    let mut asserts = TokenStream::new();
    for v in &variants {
        asserts.extend(type_assert(&rt, v, &lifetimes));
    }
    let body = impl_block(&input, &variants, &rt);
    let track = resolve::track_files(&loader);
    quote! {
        #input
        const _: () = {
            #track
            #asserts
            #body
        };
    }
}

/// Takes the variants' own `#[metalayer]` attributes off, and returns them, per variant: they
/// are arguments to this macro, not attributes.
fn take_variant_attrs(input: &mut Item) -> Vec<Vec<Attribute>> {
    let mut taken = Vec::new();
    if let Data::Enum(data) = &mut input.data {
        for v in data.iter_mut() {
            let (ours, rest): (Vec<_>, Vec<_>) = v.attrs.drain(..).partition(|a| a.is("metalayer"));
            v.attrs = rest;
            taken.push(ours);
        }
    }
    taken
}

/// The variant `ident`, holding `fields`, with its layout, read by `loader` from the schema its
/// attribute (the one of `attrs`) names.
fn read_variant<'a>(
    ident: &'a Ident,
    fields: &'a Fields,
    attrs: &'a [Attribute],
    loader: &mut Loader,
) -> Result<Variant<'a>, Vec<Error>> {
    let ty = match fields {
        Fields::Tuple(f) if f.len() == 1 => &f[0],
        _ => {
            return Err(vec![Error::new(
                ident.span(),
                "a dispatch variant holds one metalayer type: `Name(Type)`",
            )]);
        }
    };
    let [attr] = attrs else {
        return Err(vec![Error::new(
            ident.span(),
            "a dispatch variant needs one `#[metalayer(schema = \"...\")]` naming its layout",
        )]);
    };
    let (schema, name) = variant_args(attr).map_err(|e| vec![e])?;
    let layout = match resolve::layout(&schema, loader) {
        Ok(layout) => layout,
        Err(messages) => {
            let mut errors = Vec::new();
            for m in messages {
                errors.push(Error::new(schema.lit().span(), m));
            }
            return Err(errors);
        }
    };
    let metalayer = name
        .as_ref()
        .map_or_else(|| layout.metalayer.clone(), attr::LitStr::value);
    Ok(Variant {
        ident,
        ty,
        layout,
        metalayer,
        attr,
        probe: Vec::new(),
    })
}

/// Where the layouts stored under one name part: the analysis the command's registry runs.
/// Those that do not are errors, added to `errors`.
fn check_partings<'v, 'a>(
    variants: &'v [Variant<'a>],
    errors: &mut Vec<Error>,
) -> Vec<(&'v Variant<'a>, &'v Variant<'a>, Parting)> {
    let mut partings = Vec::new();
    for (i, b) in variants.iter().enumerate() {
        for a in &variants[..i] {
            if a.metalayer != b.metalayer {
                continue;
            }
            match a.layout.parting(&b.layout) {
                Ok(parting) => partings.push((a, b, parting)),
                Err(overlap) => errors.push(Error::spanned(
                    &b.attr.tokens(),
                    format!(
                        "variants `{}` and `{}` are both stored as `{}`, and {overlap}",
                        a.ident, b.ident, b.metalayer
                    ),
                )),
            }
        }
    }
    partings
}

/// What `decode` checks of an input for each layout, walked with the others of its name.
fn assign_probes(variants: &mut [Variant<'_>]) {
    for first in 0..variants.len() {
        let name = &variants[first].metalayer;
        if variants[..first].iter().any(|v| v.metalayer == *name) {
            continue;
        }
        // The variants stored under the name, from its first.
        let mut members = Vec::new();
        let mut layouts: Vec<&Layout> = Vec::new();
        for (i, v) in variants.iter().enumerate().skip(first) {
            if v.metalayer == *name {
                members.push(i);
                layouts.push(&v.layout);
            }
        }
        let probes = metalayer_layout::probes(&layouts);
        for (i, probe) in members.into_iter().zip(probes) {
            variants[i].probe = probe;
        }
    }
}

/// The variant's dispatch candidate: its schema, name, fixed prefix and probe.
fn candidate(rt: &TokenStream, v: &Variant<'_>) -> TokenStream {
    let schema = &v.layout.schema;
    let metalayer = &v.metalayer;
    let prefix = ranges(&v.layout.fixed_prefix());
    let mut probe = TokenStream::new();
    for p in &v.probe {
        probe.extend(match p {
            Probe::Byte { bytes, entry } => {
                let bytes = ranges(bytes);
                quote!(#rt::Probe::Byte { bytes: &[#bytes], entry: #entry },)
            }
            Probe::Value { first, entry } => {
                let first = ranges(first);
                quote!(#rt::Probe::Value { first: &[#first], entry: #entry },)
            }
            Probe::End => quote!(#rt::Probe::End,),
        });
    }
    quote!(#rt::Candidate {
        schema: #schema,
        metalayer: #metalayer,
        prefix: &[#prefix],
        probe: &[#probe],
    })
}

/// Byte ranges `(lo, hi)` as the items of a slice expression.
fn ranges(set: &[(u8, u8)]) -> TokenStream {
    let mut items = TokenStream::new();
    for (lo, hi) in set {
        items.extend(quote!((#lo, #hi),));
    }
    items
}

/// The check that the variant holds a type generated from its schema.
fn type_assert(rt: &TokenStream, v: &Variant<'_>, lifetimes: &[String]) -> TokenStream {
    let (ty, schema) = (v.ty, &v.layout.schema);
    let message = format!(
        "variant `{}` holds a type that is not generated from schema `{schema}`",
        v.ident
    );
    // Outside the enum's `impl` its lifetime is not declared: the check names the type with
    // `'static` in its place (the schema is the same for every lifetime).
    let ty = with_static_lifetimes(quote!(#ty), lifetimes);
    quote_spanned! {joined_span(&v.ty.tokens)=>
        const _: () = ::core::assert!(#rt::str_eq(<#ty as #rt::Metalayer>::SCHEMA, #schema), #message);
    }
}

/// The enum's `impl`: the runtime's `__dispatch_impl!` over its candidates and variants.
fn impl_block(input: &Item, variants: &[Variant<'_>], rt: &TokenStream) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let (input_ty, decode_lt) = match input.generics.lifetimes().next().map(|l| l.name()) {
        Some(l) => (quote!(&#l [u8]), l),
        None => (quote!(&[u8]), quote!('_)),
    };
    let (mut candidates, mut listed) = (TokenStream::new(), TokenStream::new());
    for v in variants {
        let (vi, ty, schema, metalayer) = (v.ident, v.ty, &v.layout.schema, &v.metalayer);
        let candidate = candidate(rt, v);
        candidates.extend(quote!(#candidate,));
        listed.extend(quote!(#vi(#ty) #schema #metalayer;));
    }
    quote! {
        #rt::__dispatch_impl! {
            impl [#impl_generics] for [#ident #ty_generics] [#where_clause];
            input #input_ty; decode #decode_lt;
            candidates [#candidates];
            #listed
        }
    }
}

/// Where two layouts part, in words: `byte 25 (entry \`item\` of both)`.
fn parting_text(a: &Layout, b: &Layout, parting: &Parting) -> String {
    let at = match parting.offset {
        Some(offset) => format!("byte {offset}"),
        None => "a byte after a value of variable length".to_string(),
    };
    let or_end = |e: &str| {
        if e.is_empty() {
            "the end".to_string()
        } else {
            format!("`{e}`")
        }
    };
    let entries = match (parting.entry.as_str(), parting.other_entry.as_str()) {
        ("", "") => String::new(),
        (x, y) if x == y => format!(" (entry `{x}` of both)"),
        (x, y) => format!(
            " (entry {} of `{}`, {} of `{}`)",
            or_end(x),
            a.schema,
            or_end(y),
            b.schema
        ),
    };
    format!("{at}{entries}")
}

/// The section the enum's rustdoc gains: its layouts, where those stored under one name part,
/// and how it is used, in its own names.
fn dispatch_docs(
    ident: &Ident,
    variants: &[Variant<'_>],
    partings: &[(&Variant<'_>, &Variant<'_>, Parting)],
) -> String {
    let mut text = format!(
        "\n\n# Dispatch\n\nGenerated by `#[metalayer(dispatch)]`: `{ident}::decode(name, bytes)` chooses the variant from a metalayer's name and bytes and decodes them strictly with its layout; `encode`, `encode_into` and `encoded_len` write the value held in its own layout.\n\n| variant | schema | stored as |\n|---|---|---|\n"
    );
    for v in variants {
        text.push_str(&format!(
            "| `{}` | `{}` | `{}` |\n",
            v.ident, v.layout.schema, v.metalayer
        ));
    }
    if !partings.is_empty() {
        text.push_str(
            "\nWhere the layouts stored under one name part, so that their bytes say which one holds them:\n\n",
        );
        for (a, b, parting) in partings {
            text.push_str(&format!(
                "- `{}` and `{}`: at {}\n",
                a.layout.schema,
                b.layout.schema,
                parting_text(&a.layout, &b.layout, parting)
            ));
        }
    }
    let name = variants.first().map_or("name", |v| v.metalayer.as_str());
    let mut example = format!(
        "// Decoding: the name and the bytes choose the variant.\nmatch {ident}::decode({name:?}, &bytes)? {{\n"
    );
    for v in variants {
        if v.metalayer != name {
            continue;
        }
        example.push_str(&format!(
            "    {ident}::{}(value) => {{ /* a {} value */ }}\n",
            v.ident, v.layout.schema
        ));
    }
    if variants.iter().any(|v| v.metalayer != name) {
        example.push_str("    _ => { /* stored under other names */ }\n");
    }
    example.push_str("}\n");
    example.push_str("// Encoding: each variant in its own layout.\n");
    for v in variants {
        if v.metalayer != name {
            continue;
        }
        let mut var = String::with_capacity(v.layout.schema.len());
        for c in v.layout.schema.chars() {
            var.push(if c.is_ascii_alphanumeric() { c } else { '_' });
        }
        example.push_str(&format!(
            "let {var}_bytes = {ident}::{}({var}_value).encode()?;\n",
            v.ident
        ));
    }
    text.push_str(&format!("\nFor example:\n\n```text\n{example}```"));
    text
}
