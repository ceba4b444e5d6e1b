//! What the generated type documents about its layout: the diagram and offset table in its
//! rustdoc, and, when the record's size is linear in its counts and string lengths, the length
//! and offset formulas as `const fn`s, all rendered from the one size formula of the model
//! (`metalayer_layout::size`).

use metalayer_layout::size::{self, Place, Var};
use metalayer_layout::{Layout, Record, Size};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

use crate::item::{Attribute, Item};

/// Whether `record` is the layout's top-level record (the struct bound to the schema itself),
/// rather than a named record type's.
fn is_root(layout: &Layout, record: &Record) -> bool {
    layout.root_record().is_some_and(|r| core::ptr::eq(r, record))
}

/// Appends the record's diagram, offset table and length formula to the struct's
/// documentation: the whole layout's diagram for the top-level record, the record's own for a
/// struct bound to a named record type. `at` is the struct's place, which the formula's places
/// are relative to.
pub(crate) fn add_layout_docs(input: &mut Item, layout: &Layout, record: &Record, at: &Place) {
    let length = size::of_record(layout, record, at);
    let (what, diagram) = if is_root(layout, record) {
        (
            format!("Generated from schema `{}`", layout.schema),
            metalayer_layout::diagram(layout),
        )
    } else {
        let name = layout
            .types
            .iter()
            .find(|t| core::ptr::eq(&t.record, record))
            .map_or("record", |t| t.name.as_str());
        (
            format!("Generated from the `{name}` record of schema `{}`", layout.schema),
            metalayer_layout::record_diagram(layout, record),
        )
    };
    let text = format!(
        "\n\n# Layout\n\n{what}; length `{length}` bytes.\n\n```text\n{}\n```\n\n```text\n{}\n```",
        diagram.trim_end(),
        metalayer_layout::formulas(layout, record).trim_end(),
    );
    input.attrs.push(Attribute::doc(&text));
}

/// A linear formula's variable: a count entry (its index in the record, a string length's
/// `false` sorts first), and the parameter it becomes: the count's name, `<string>_len`.
struct Param {
    is_len: bool,
    index: usize,
    ident: Ident,
}

/// The entry a variable names: the last step of its place, an entry of the record.
fn var_entry(var: &Var) -> Option<(usize, &str)> {
    match var.place().0.last() {
        Some(size::Step::Entry { index, name }) => Some((*index, name.as_str())),
        _ => None,
    }
}

/// The parameters of the formula functions: every variable of the record's length, in entry
/// order (`ndim`, `dtype_len`).
fn params(length: &Size) -> Option<Vec<Param>> {
    let mut params = Vec::new();
    for var in length.vars() {
        let (index, name) = var_entry(var)?;
        let (is_len, ident) = match var {
            Var::Count(_) => (false, Ident::new(name, Span::call_site())),
            Var::Len(_) => (true, format_ident!("{}_len", name)),
        };
        params.push(Param { is_len, index, ident });
    }
    params.sort_by_key(|p| (p.index, p.is_len));
    Some(params)
}

/// A linear size as an expression in the parameters: `12usize + 19usize * ndim + 1usize *
/// dtype_len`. `None` if the size is not linear or names a variable without a parameter.
fn formula_tokens(size: &Size, params: &[Param]) -> Option<TokenStream> {
    let fixed = size.fixed;
    let mut terms = Vec::new();
    for t in &size.terms {
        let size::Term::Linear { k, of } = t else {
            return None;
        };
        let (index, _) = var_entry(of)?;
        let is_len = matches!(of, Var::Len(_));
        let p = params.iter().find(|p| p.index == index && p.is_len == is_len)?;
        let ident = &p.ident;
        terms.push(quote!(+ #k * #ident));
    }
    Some(quote!(#fixed #(#terms)*))
}

/// `const fn`s for the encoded length and each entry's offset, and the length formula's text,
/// when the record's size is linear in its counts and string lengths (every layout of fixed
/// wire types without optional entries: all the built-ins). Otherwise nothing: sizes that
/// depend on values in other ways have no such functions.
pub(crate) fn formula_fns(input: &Item, layout: &Layout, record: &Record, at: &Place) -> TokenStream {
    let length = size::of_record(layout, record, at);
    if !length.is_linear() {
        return TokenStream::new();
    }
    let Some(vars) = params(&length) else {
        return TokenStream::new();
    };
    let Some(length_body) = formula_tokens(&length, &vars) else {
        return TokenStream::new();
    };
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let params: Vec<_> = vars
        .iter()
        .map(|p| {
            let v = &p.ident;
            quote!(#v: usize)
        })
        .collect();
    let names: Vec<_> = vars.iter().map(|p| &p.ident).collect();
    let touch = quote!(let _ = (#(#names,)*););
    let args_doc = if vars.is_empty() {
        String::new()
    } else {
        let list: Vec<String> = vars.iter().map(|p| format!("`{}`", p.ident)).collect();
        format!(" Arguments: {}.", list.join(", "))
    };

    let length_text = length.to_string();
    let length_doc = format!("The encoded length: `{length_text}` bytes.{args_doc}");

    let mut fns = Vec::new();
    for (i, entry) in record.entries.iter().enumerate() {
        let Some(body) = metalayer_layout::offset_formula(layout, record, i)
            .and_then(|offset| formula_tokens(&offset, &vars).map(|body| (offset, body)))
        else {
            continue;
        };
        let (offset, body) = body;
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
        if let Some(elements) = metalayer_layout::element_offsets(layout, record, i)
            && let Some(first) = formula_tokens(&elements.first, &vars)
        {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn item(tokens: TokenStream) -> Item {
        match crate::item::parse(tokens) {
            Ok(item) => item,
            Err(_) => panic!("the test item parses"),
        }
    }

    fn squeeze(tokens: &TokenStream) -> String {
        tokens.to_string().split_whitespace().collect()
    }

    #[test]
    fn b2nd_v1_gets_its_formula_functions() {
        let layout = metalayer_layout::builtin_layout("b2nd_v1").unwrap();
        let record = layout.root_record().unwrap();
        let input = item(quote! {
            pub struct B2ndV1 {
                pub shape: Vec<i64>,
                pub chunkshape: Vec<i32>,
                pub blockshape: Vec<i32>,
                pub dtype_format: u8,
                pub dtype: String,
            }
        });
        let out = squeeze(&formula_fns(&input, &layout, record, &Place::root()));
        // 12 + 19*ndim + len(dtype), the parameters in entry order.
        assert!(out.contains("pubconstLENGTH_FORMULA:&'staticstr=\"12+19*ndim+len(dtype)\";"));
        assert!(out.contains(
            "pubconstfnencoded_len_for(ndim:usize,dtype_len:usize)->usize{let_=(ndim,dtype_len,);12usize+19usize*ndim+1usize*dtype_len}"
        ));
        // dtype at 7 + 19*ndim; shape's elements at 4 + 9*i.
        assert!(out.contains(
            "pubconstfndtype_offset(ndim:usize,dtype_len:usize)->usize{let_=(ndim,dtype_len,);7usize+19usize*ndim}"
        ));
        assert!(out.contains(
            "pubconstfnshape_element_offset(ndim:usize,dtype_len:usize,i:usize)->usize{let_=(ndim,dtype_len,);4usize+9usize*i}"
        ));
        assert!(
            out.contains("pubconstfnversion_offset(ndim:usize,dtype_len:usize)->usize{let_=(ndim,dtype_len,);1usize}")
        );
    }

    #[test]
    fn a_record_of_values_chosen_sizes_gets_docs_but_no_functions() {
        let text = "[schema]\nmetalayer = \"m\"\ndescription = \"d\"\nsource = \"s\"\n\
                    [container]\nwire = \"fixarray\"\n\
                    [[entry]]\nname = \"points\"\nwire = \"array\"\nelement = { type = \"point\" }\n\
                    [types.point]\nwire = \"fixarray\"\n\
                    [[types.point.entry]]\nname = \"x\"\nwire = \"int\"\n";
        let layout = metalayer_layout::parse("m_v0", text).unwrap();
        let point = &layout.types[0].record;
        let mut input = item(quote!(
            pub struct Point {
                pub x: i64,
            }
        ));
        assert!(formula_fns(&input, &layout, point, &Place::root()).is_empty());
        let root = layout.root_record().unwrap();
        assert!(formula_fns(&input, &layout, root, &Place::root()).is_empty());
        add_layout_docs(&mut input, &layout, point, &Place::root());
        let docs = input.attrs.last().map(|a| a.tokens()).unwrap_or_default();
        let docs: TokenStream = docs.into_iter().collect();
        let docs = docs.to_string();
        assert!(docs.contains("Generated from the `point` record of schema `m_v0`; length `1 + int(x)` bytes."));
        assert!(docs.contains("Encoded length: 1 + int(x) bytes."));
    }
}
