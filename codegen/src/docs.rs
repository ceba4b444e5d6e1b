//! What the generated type documents about its layout: the diagram and offset table in its
//! rustdoc, and the length and offset formulas as `const fn`s, all rendered from the model.

use metalayer_layout::{EntryKind, Formula, IntRole, Layout};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

use crate::item::{Attribute, Item};

/// Appends the layout's diagram and offset table to the struct's documentation.
pub(crate) fn add_layout_docs(input: &mut Item, layout: &Layout) {
    let text = format!(
        "\n\n# Layout\n\nGenerated from schema `{}`; length `{}` bytes.\n\n```text\n{}\n```\n\n```text\n{}\n```",
        layout.schema,
        metalayer_layout::length_formula(layout),
        metalayer_layout::diagram(layout).trim_end(),
        metalayer_layout::formulas(layout).trim_end(),
    );
    input.attrs.push(Attribute::doc(&text));
}

/// The variables formulas use, in entry order: each count, then `<string>_len` per string.
fn variables(layout: &Layout) -> Vec<(String, Ident)> {
    let mut vars = Vec::new();
    for entry in &layout.entries {
        match &entry.kind {
            EntryKind::Int {
                role: IntRole::Count { .. },
                ..
            } => {
                vars.push((entry.name.clone(), Ident::new(&entry.name, Span::call_site())));
            }
            EntryKind::Str { .. } => {
                vars.push((entry.name.clone(), format_ident!("{}_len", entry.name)));
            }
            _ => {}
        }
    }
    vars
}

fn formula_tokens(formula: &Formula, vars: &[(String, Ident)]) -> TokenStream {
    let constant = formula.constant;
    let terms = formula
        .per_count
        .iter()
        .chain(&formula.per_str)
        .map(|(name, coefficient)| {
            let var = &vars
                .iter()
                .find(|(n, _)| n == name)
                .expect("formula variables are entries of the layout")
                .1;
            quote!(+ #coefficient * #var)
        });
    quote!(#constant #(#terms)*)
}

/// `const fn`s for the encoded length and each entry's offset.
pub(crate) fn formula_fns(input: &Item, layout: &Layout) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let vars = variables(layout);
    let params: Vec<_> = vars.iter().map(|(_, v)| quote!(#v: usize)).collect();
    let names: Vec<_> = vars.iter().map(|(_, v)| v).collect();
    let touch = quote!(let _ = (#(#names,)*););
    let args_doc = if vars.is_empty() {
        String::new()
    } else {
        let list: Vec<String> = vars.iter().map(|(_, v)| format!("`{v}`")).collect();
        format!(" Arguments: {}.", list.join(", "))
    };

    let length = metalayer_layout::length_formula(layout);
    let length_text = length.to_string();
    let length_body = formula_tokens(&length, &vars);
    let length_doc = format!("The encoded length: `{length_text}` bytes.{args_doc}");

    let mut fns = Vec::new();
    for (i, entry) in layout.entries.iter().enumerate() {
        let offset = metalayer_layout::offset_formula(layout, i);
        let body = formula_tokens(&offset, &vars);
        let name = format_ident!("{}_offset", entry.name);
        let doc = format!("The offset of entry `{}`: byte `{offset}`.{args_doc}", entry.name);
        fns.push(quote! {
            #[doc = #doc]
            #[allow(clippy::identity_op, clippy::erasing_op)]
            pub const fn #name(#(#params),*) -> usize {
                #touch
                #body
            }
        });
        if let Some(elements) = metalayer_layout::element_offsets(layout, i) {
            let first = formula_tokens(&elements.first, &vars);
            let stride = elements.stride;
            let name = format_ident!("{}_element_offset", entry.name);
            let doc = format!(
                "The offset of element `i` of `{}` (its marker): byte `{}`.{args_doc}",
                entry.name,
                elements.element_text()
            );
            fns.push(quote! {
                #[doc = #doc]
                #[allow(clippy::identity_op, clippy::erasing_op)]
                pub const fn #name(#(#params,)* i: usize) -> usize {
                    #touch
                    #first + #stride * i
                }
            });
        }
    }
    quote! {
        impl #impl_generics #ident #ty_generics #where_clause {
            /// The encoded length as a formula of the counts and string lengths.
            pub const LENGTH_FORMULA: &'static str = #length_text;

            #[doc = #length_doc]
            #[allow(clippy::identity_op, clippy::erasing_op)]
            pub const fn encoded_len_for(#(#params),*) -> usize {
                #touch
                #length_body
            }

            #(#fns)*
        }
    }
}
