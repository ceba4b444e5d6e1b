//! `#[metalayer(dispatch)]` on an enum: one variant per layout, chosen from the metalayer's name
//! and its bytes. The layouts stored under one name must be told apart by their fixed prefixes,
//! which is checked here, at compile time.

use std::path::Path;

use metalayer_layout::Layout;
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use crate::attr::{self, SchemaRef};
use crate::error::{Error, joined_span};
use crate::item::{Attribute, Data, Fields, Item, Type};
use crate::{names, resolve};

struct Variant<'a> {
    ident: &'a proc_macro2::Ident,
    ty: &'a Type,
    layout: Layout,
    metalayer: String,
    /// The variant's attribute, to report problems under.
    attr: &'a Attribute,
}

/// Parses a variant's `#[metalayer(schema = "...", name = "...")]`.
fn variant_args(attr: &Attribute) -> Result<(SchemaRef, Option<attr::LitStr>), Error> {
    let mut schema = None;
    let mut name = None;
    attr::each_arg(attr.list_args()?, |arg| {
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

/// The first offset where two prefixes accept disjoint bytes.
fn distinguishing_offset(a: &[(u8, u8)], b: &[(u8, u8)]) -> Option<usize> {
    a.iter()
        .zip(b)
        .position(|(&(alo, ahi), &(blo, bhi))| ahi < blo || bhi < alo)
}

pub(crate) fn expand(mut input: Item, krate: &TokenStream, manifest_dir: &Path) -> TokenStream {
    let rt = names::runtime(krate);
    let mut errors: Vec<Error> = Vec::new();
    let mut variants = Vec::new();
    // Take the variants' own attributes off: they are arguments to this macro, not attributes.
    let mut parsed = Vec::new();
    if let Data::Enum(data) = &mut input.data {
        for v in data.iter_mut() {
            let (ours, rest): (Vec<_>, Vec<_>) = v.attrs.drain(..).partition(|a| a.is("metalayer"));
            v.attrs = rest;
            parsed.push(ours);
        }
    }
    let Data::Enum(data) = &input.data else {
        let error = Error::new(input.ident.span(), "`#[metalayer(dispatch)]` applies to enums").to_compile_error();
        return quote!(#input #error);
    };
    for (v, attrs) in data.iter().zip(&parsed) {
        let ty = match &v.fields {
            Fields::Tuple(f) if f.len() == 1 => &f[0],
            _ => {
                errors.push(Error::new(
                    v.ident.span(),
                    "a dispatch variant holds one metalayer type: `Name(Type)`",
                ));
                continue;
            }
        };
        let [attr] = attrs.as_slice() else {
            errors.push(Error::new(
                v.ident.span(),
                "a dispatch variant needs one `#[metalayer(schema = \"...\")]` naming its layout",
            ));
            continue;
        };
        let (schema, name) = match variant_args(attr) {
            Ok(args) => args,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        let source = match resolve::find(&schema, manifest_dir) {
            Ok(source) => source,
            Err(message) => {
                errors.push(Error::new(schema.lit().span(), message));
                continue;
            }
        };
        let layout = match resolve::layout(&source, manifest_dir) {
            Ok((layout, _)) => layout,
            Err(messages) => {
                errors.extend(messages.into_iter().map(|m| Error::new(schema.lit().span(), m)));
                continue;
            }
        };
        let metalayer = name
            .as_ref()
            .map_or_else(|| layout.metalayer.clone(), attr::LitStr::value);
        variants.push(Variant {
            ident: &v.ident,
            ty,
            layout,
            metalayer,
            attr,
        });
    }

    // Layouts stored under one name must differ somewhere in their fixed prefixes.
    for (i, b) in variants.iter().enumerate() {
        for a in &variants[..i] {
            if a.metalayer != b.metalayer {
                continue;
            }
            let (pa, pb) = (a.layout.fixed_prefix(), b.layout.fixed_prefix());
            if distinguishing_offset(&pa, &pb).is_none() {
                errors.push(Error::spanned(
                    &b.attr.tokens(),
                    format!(
                        "variants `{}` ({}) and `{}` ({}) cannot be told apart from their bytes: both are stored as `{}` and their fixed prefixes accept the same first {} bytes",
                        a.ident,
                        a.layout.schema,
                        b.ident,
                        b.layout.schema,
                        b.metalayer,
                        pa.len().min(pb.len())
                    ),
                ));
            }
        }
    }

    if !errors.is_empty() {
        let errors = errors.iter().map(Error::to_compile_error);
        return quote!(#input #(#errors)*);
    }

    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let input_lifetime = input.generics.lifetimes().next().map(|l| l.name());
    let input_ty = match &input_lifetime {
        Some(l) => quote!(&#l [u8]),
        None => quote!(&[u8]),
    };
    let decode_lt = match &input_lifetime {
        Some(l) => quote!(#l),
        None => quote!('_),
    };
    let candidates = variants.iter().map(|v| {
        let schema = &v.layout.schema;
        let metalayer = &v.metalayer;
        let prefix = v.layout.fixed_prefix().into_iter().map(|(lo, hi)| quote!((#lo, #hi)));
        quote!(#rt::Candidate { schema: #schema, metalayer: #metalayer, prefix: &[#(#prefix),*] })
    });
    let asserts = variants.iter().map(|v| {
        let (ty, schema) = (v.ty, &v.layout.schema);
        let message = format!(
            "variant `{}` holds a type that is not generated from schema `{schema}`",
            v.ident
        );
        quote_spanned! {joined_span(&ty.tokens)=>
            const _: () = ::core::assert!(#rt::str_eq(<#ty as #rt::Metalayer>::SCHEMA, #schema), #message);
        }
    });
    let (name_param, input_param, buf_param, held) = (
        names::dispatch_name(),
        names::dispatch_input(),
        names::dispatch_buf(),
        names::held(),
    );
    let arms = variants.iter().enumerate().map(|(i, v)| {
        let (vi, ty) = (v.ident, v.ty);
        if i + 1 == variants.len() {
            quote!(_ => Self::#vi(<#ty as #rt::Decode<#decode_lt>>::decode(#input_param)?))
        } else {
            quote!(#i => Self::#vi(<#ty as #rt::Decode<#decode_lt>>::decode(#input_param)?))
        }
    });
    let schema_arms = variants.iter().map(|v| {
        let (vi, schema) = (v.ident, &v.layout.schema);
        quote!(Self::#vi(_) => #schema)
    });
    let name_arms = variants.iter().map(|v| {
        let (vi, metalayer) = (v.ident, &v.metalayer);
        quote!(Self::#vi(_) => #metalayer)
    });
    let len_arms = variants.iter().map(|v| {
        let vi = v.ident;
        quote!(Self::#vi(#held) => #rt::Metalayer::encoded_len(#held))
    });
    let encode_arms = variants.iter().map(|v| {
        let vi = v.ident;
        quote!(Self::#vi(#held) => #rt::Metalayer::encode_into(#held, #buf_param))
    });

    quote! {
        #input
        const _: () = {
            #(#asserts)*
            impl #impl_generics #ident #ty_generics #where_clause {
                /// The layouts this enum decodes: schema, metalayer name and fixed prefix.
                pub const CANDIDATES: &'static [#rt::Candidate] = &[#(#candidates),*];

                /// Decodes a metalayer stored under `name`, choosing the layout from its fixed prefix
                /// (never by trying each decoder), then decoding strictly with it.
                pub fn decode(#name_param: &str, #input_param: #input_ty) -> ::core::result::Result<Self, #rt::DispatchError> {
                    ::core::result::Result::Ok(match #rt::select(Self::CANDIDATES, #name_param, #input_param)? {
                        #(#arms,)*
                    })
                }

                /// The schema of the layout held.
                pub fn schema(&self) -> &'static str {
                    match self { #(#schema_arms,)* }
                }

                /// The metalayer name the layout is stored under.
                pub fn metalayer(&self) -> &'static str {
                    match self { #(#name_arms,)* }
                }

                /// The length of the held value's encoding.
                pub fn encoded_len(&self) -> usize {
                    match self { #(#len_arms,)* }
                }

                /// Encodes the held value into the front of `buf`.
                pub fn encode_into(&self, #buf_param: &mut [u8]) -> ::core::result::Result<usize, #rt::EncodeError> {
                    match self { #(#encode_arms,)* }
                }
            }
        };
    }
}
