//! What the generated type documents about its layout: the diagram and offset table in its
//! rustdoc, and, for a layout whose size is linear in its counts and string lengths, the
//! length and offset formulas as `const fn`s. All of it is rendered from the layout's size
//! formula, the one the generated `encoded_len` is built from.

use metalayer_layout::size::{self, Place, Size, Term, Var};
use metalayer_layout::{Entry, Layout, Record};
use proc_macro2::{Ident, TokenStream};
use quote::quote;

use crate::expand::Target;
use crate::item::{Attribute, Item};
use crate::names;

/// The record a target documents, if it is one.
fn record<'a>(target: &Target<'a>) -> Option<&'a Record> {
    match target {
        Target::Root(r) | Target::Type(_, r) => Some(r),
        Target::Value(_) => None,
    }
}

/// Appends the layout's diagram, offset table and length formula to the struct's documentation.
pub(crate) fn add_layout_docs(input: &mut Item, layout: &Layout, target: &Target<'_>) {
    let (what, length, diagram, table) = match target {
        Target::Root(r) => (
            format!("schema `{}`", layout.schema),
            size::of_record(layout, r, &Place::root()),
            metalayer_layout::diagram(layout),
            metalayer_layout::formulas(layout, r),
        ),
        Target::Type(i, r) => (
            format!("record type `{}` of schema `{}`", layout.types[*i].name, layout.schema),
            size::of_record(layout, r, &Place::root()),
            metalayer_layout::record_diagram(layout, r),
            metalayer_layout::formulas(layout, r),
        ),
        Target::Value(node) => (
            format!("schema `{}`", layout.schema),
            size::of(layout, node, &Place::root()),
            metalayer_layout::diagram(layout),
            String::new(),
        ),
    };
    let table = if table.trim().is_empty() {
        String::new()
    } else {
        format!("\n\n```text\n{}\n```", table.trim_end())
    };
    let text = format!(
        "\n\n# Layout\n\nGenerated from {what}; length `{length}` bytes.\n\n```text\n{}\n```{table}",
        diagram.trim_end(),
    );
    input.attrs.push(Attribute::doc(&text));
}

/// The name a linear variable is given as a `const fn` argument: the count entry's name (raw
/// for a keyword), or `<string>_len`.
fn var_ident(var: &Var) -> Option<Ident> {
    let name = var.place().last_name()?;
    Some(match var {
        Var::Count(_) => names::entry(name),
        Var::Len(_) => names::len_arg(name),
    })
}

/// The variables of a linear size, in first-seen order.
fn variables(size: &Size, vars: &mut Vec<Ident>) -> Option<()> {
    for term in &size.terms {
        let Term::Linear { of, .. } = term else { return None };
        let ident = var_ident(of)?;
        if !vars.contains(&ident) {
            vars.push(ident);
        }
    }
    Some(())
}

fn tokens(size: &Size) -> TokenStream {
    let fixed = size.fixed;
    let mut sum = quote!(#fixed);
    for t in &size.terms {
        if let Term::Linear { k, of } = t
            && let Some(var) = var_ident(of)
        {
            sum.extend(quote!(+ #k * #var));
        }
    }
    sum
}

/// `const fn`s for the encoded length and each entry's offset, when the record's size is linear
/// in its counts and string lengths (as c-blosc2's layouts are); nothing otherwise.
pub(crate) fn formula_fns(input: &Item, layout: &Layout, target: &Target<'_>) -> TokenStream {
    let Some(record) = record(target) else {
        return TokenStream::new();
    };
    let length = size::of_record(layout, record, &Place::root());
    if !length.is_linear() {
        return TokenStream::new();
    }
    let mut offsets = Vec::with_capacity(record.entries.len());
    for i in 0..record.entries.len() {
        offsets.push(metalayer_layout::offset_formula(layout, record, i));
    }
    let mut vars = Vec::new();
    if variables(&length, &mut vars).is_none() {
        return TokenStream::new();
    }
    for offset in offsets.iter().flatten() {
        if variables(offset, &mut vars).is_none() {
            return TokenStream::new();
        }
    }
    let args = Args::new(vars);
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let (params, touch) = (&args.params, &args.touch);
    let length_text = length.to_string();
    let length_body = tokens(&length);
    let length_doc = format!("The encoded length: `{length_text}` bytes.{}", args.doc);
    let mut fns = TokenStream::new();
    for (i, (entry, offset)) in record.entries.iter().zip(&offsets).enumerate() {
        let Some(offset) = offset else { continue };
        fns.extend(offset_fn(entry, offset, &args));
        if let Some(element_fn) = element_offset_fn(layout, record, i, &args) {
            fns.extend(element_fn);
        }
    }
    quote! {
        impl #impl_generics #ident #ty_generics #where_clause {
            /// The encoded length as a formula of the counts and string lengths.
            pub const LENGTH_FORMULA: &'static str = #length_text;

            #[doc = #length_doc]
            #[allow(clippy::identity_op, clippy::erasing_op, clippy::too_many_arguments)]
            pub const fn encoded_len_for(#params) -> usize {
                #touch
                #length_body
            }

            #fns
        }
    }
}

/// The arguments every formula function takes: the counts and string lengths.
struct Args {
    /// Their names.
    vars: Vec<Ident>,
    /// `name: usize,` for each.
    params: TokenStream,
    /// A statement that uses them all, so that a formula without one compiles without warning.
    touch: TokenStream,
    /// ` Arguments: ...` for the functions' documentation, or nothing.
    doc: String,
}

impl Args {
    fn new(vars: Vec<Ident>) -> Self {
        let (mut params, mut used) = (TokenStream::new(), TokenStream::new());
        let mut doc = String::new();
        for (i, v) in vars.iter().enumerate() {
            params.extend(quote!(#v: usize,));
            used.extend(quote!(#v,));
            doc.push_str(if i == 0 { " Arguments: `" } else { ", `" });
            doc.push_str(&v.to_string());
            doc.push('`');
        }
        if !vars.is_empty() {
            doc.push('.');
        }
        let touch = quote!(let _ = (#used););
        Args {
            vars,
            params,
            touch,
            doc,
        }
    }
}

/// The `const fn` giving `entry`'s offset, `offset`.
fn offset_fn(entry: &Entry, offset: &Size, args: &Args) -> TokenStream {
    let (params, touch) = (&args.params, &args.touch);
    let body = tokens(offset);
    let name = names::offset_fn(&entry.name);
    let doc = format!("The offset of entry `{}`: byte `{offset}`.{}", entry.name, args.doc);
    quote! {
        #[doc = #doc]
        #[allow(clippy::identity_op, clippy::erasing_op, clippy::too_many_arguments)]
        pub const fn #name(#params) -> usize {
            #touch
            #body
        }
    }
}

/// The `const fn` giving the offset of an element of entry `i` of `record`, when it is an array
/// whose elements are where a linear formula of the same arguments says.
fn element_offset_fn(layout: &Layout, record: &Record, i: usize, args: &Args) -> Option<TokenStream> {
    let elements = metalayer_layout::element_offsets(layout, record, i)?;
    let mut known = args.vars.clone();
    if !elements.first.is_linear() || variables(&elements.first, &mut known).is_none() || known.len() != args.vars.len()
    {
        return None;
    }
    let entry = &record.entries[i];
    let (params, touch) = (&args.params, &args.touch);
    let first = tokens(&elements.first);
    let stride = elements.stride;
    let name = names::element_offset_fn(&entry.name);
    let i = names::element_index(&args.vars);
    // The text names the index `i` last (`5 + 9*i`); the argument may be called otherwise.
    let text = elements.element_text();
    let text = match text.strip_suffix('i') {
        Some(head) if elements.stride != 0 => format!("{head}{i}"),
        _ => text,
    };
    let doc = format!(
        "The offset of element `{i}` of `{}` (its marker): byte `{text}`.{}",
        entry.name, args.doc,
    );
    Some(quote! {
        #[doc = #doc]
        #[allow(clippy::identity_op, clippy::erasing_op, clippy::too_many_arguments)]
        pub const fn #name(#params #i: usize) -> usize {
            #touch
            #first + #stride * #i
        }
    })
}
