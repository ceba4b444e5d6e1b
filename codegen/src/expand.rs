//! Writing the `Metalayer` and `Decode` impls for a struct bound to a schema's top-level value,
//! or the `Record` impl for one bound to a named record type.

use core::cell::RefCell;

use metalayer_layout::size::{Place, Step};
use metalayer_layout::{ArrayType, Count, Entry, Layout, MapType, Node, Record, Role, Type};
use proc_macro2::{Ident, TokenStream};
use quote::quote;

use crate::bind::{Bound, Slots};
use crate::error::{Error, joined_span};
use crate::generate::{Gen, Slot};
use crate::item::{Field, Item, ParamKind, Type as FieldType};
use crate::names;

/// The lifetime the `Decode` impl borrows the input for (the struct's own, or `'de`), and the
/// generics that impl declares.
fn decode_lifetime(input: &Item) -> (TokenStream, TokenStream) {
    match input.generics.lifetimes().next() {
        Some(l) => (l.name(), input.generics.split_for_impl().0),
        None => (quote!('de), quote!(<'de>)),
    }
}

/// Checks the struct's generics: at most one lifetime, no type or const parameters.
pub(crate) fn check_generics(input: &Item) -> Result<(), Error> {
    let mut lifetimes = 0;
    for param in &input.generics.params {
        match param.kind {
            ParamKind::Lifetime => lifetimes += 1,
            ParamKind::Type | ParamKind::Const => {
                return Err(Error::spanned(
                    &param.tokens,
                    "a #[metalayer] struct takes no type or const parameters; its field types follow from the schema",
                ));
            }
        }
        if lifetimes > 1 {
            return Err(Error::spanned(
                &param.tokens,
                "a #[metalayer] struct takes at most one lifetime, the one borrowed fields (`&'a str`) borrow the input for",
            ));
        }
    }
    Ok(())
}

/// What a struct is bound to: the schema's top-level value, or one of its named record types.
pub(crate) enum Target<'a> {
    /// The top-level record.
    Root(&'a Record),
    /// A top-level value that is not a record, held by a one-field tuple struct.
    Value(&'a Node),
    /// Named record type `index` of the layout.
    Type(usize, &'a Record),
}

/// The code of a struct's impls: decode statements and the value built from them, checks,
/// writes, and the encoded length.
struct Pieces {
    decode: TokenStream,
    build: TokenStream,
    check: TokenStream,
    write: TokenStream,
    len: TokenStream,
}

/// The impls of a struct bound to `target`: `Record` for a named record type, `Metalayer` and
/// `Decode` for the top-level value, each preceded by the compile-time assertions on its field
/// types.
pub(crate) fn expand(
    input: &Item,
    layout: &Layout,
    target: &Target<'_>,
    bound: &Bound<'_>,
    krate: &TokenStream,
) -> TokenStream {
    let rt = names::runtime(krate);
    let (de, _) = decode_lifetime(input);
    let g = Gen {
        layout,
        rt: rt.clone(),
        de,
        lifetimes: input.generics.lifetime_names(),
        asserts: RefCell::new(TokenStream::new()),
        record_count: RefCell::new(None),
        counts: RefCell::new(Vec::new()),
    };
    let pieces = match (target, bound) {
        (Target::Root(record) | Target::Type(_, record), Bound::Record(slots)) => record_pieces(&g, record, slots),
        (Target::Value(node), Bound::Value(ty, field)) => value_pieces(&g, node, ty, *field),
        // Binding pairs a record with a record and a value with a value.
        _ => return TokenStream::new(),
    };
    let asserts = g.asserts.into_inner();
    let body = match target {
        Target::Type(index, _) => record_impl(input, layout, *index, &pieces, &rt),
        _ => metalayer_impls(input, layout, &pieces, &rt),
    };
    quote! {
        #asserts
        #body
    }
}

/// The entry that counts `entry`, an array or map, as its field's assertions see it: its name
/// and the counts its range allows.
fn counted_by<'r>(record: &'r Record, entry: &Entry) -> Option<(&'r str, usize, usize)> {
    let c = match &entry.node.ty {
        Type::Array(ArrayType {
            count: Count::Entry(c), ..
        })
        | Type::Map(MapType {
            count: Count::Entry(c), ..
        }) => *c,
        _ => return None,
    };
    match &record.entries[c].node.ty {
        Type::Int(t) => Some((
            record.entries[c].name.as_str(),
            usize::try_from(t.min.max(0)).unwrap_or(0),
            usize::try_from(t.max).unwrap_or(usize::MAX),
        )),
        _ => None,
    }
}

/// The pieces of a struct bound to `record`, its fields in `slots`.
fn record_pieces(g: &Gen<'_>, record: &Record, slots: &Slots<'_>) -> Pieces {
    let rt = &g.rt;
    let self_place = |f: &Ident| quote!(self.#f);
    let mut bound = Vec::with_capacity(slots.len());
    for (s, entry) in slots.iter().zip(&record.entries) {
        bound.push(s.as_ref().map(|(field, ty)| field_slot(g, record, entry, field, ty)));
    }
    let slots = bound;
    let code = g.record(record, &slots, &self_place);
    // `Self { field: value, .. }`, and the number of entries present: the required ones, and
    // one for each optional field that holds a value.
    let mut inits = TokenStream::new();
    let required = record.required;
    let mut count = quote!(#required);
    for (i, (s, entry)) in slots.iter().zip(&record.entries).enumerate() {
        let Some(s) = s else { continue };
        let (f, var) = (s.ident, names::field(&entry.name));
        inits.extend(quote!(#f: #var,));
        if i >= record.required {
            count.extend(quote!(+ usize::from(#rt::OptionField::get(&self.#f).is_some())));
        }
    }
    let build = quote!(Self { #inits });
    let size = metalayer_layout::size::of_record(g.layout, record, &Place(Vec::new()));
    *g.record_count.borrow_mut() = Some(quote!((#count)));
    let root = |place: &Place| -> Option<(TokenStream, &Node)> {
        let [Step::Entry { index, .. }] = place.0.as_slice() else {
            return None;
        };
        let entry = record.entries.get(*index)?;
        match &entry.role {
            Role::Count { of } => {
                let first = of.iter().find_map(|&a| slots[a].as_ref())?;
                let f = first.ident;
                Some((quote!((#rt::ArrayField::elements(&self.#f).len() as i64)), &entry.node))
            }
            _ => {
                let slot = slots.get(*index)?.as_ref()?;
                Some((self_place(slot.ident), &entry.node))
            }
        }
    };
    let len = g.size(&size, &root);
    Pieces {
        decode: code.decode,
        build,
        check: code.check,
        write: code.write,
        len,
    }
}

/// Field `field` of type `ty`, bound to `entry` of `record`, with the assertions that its type
/// can hold the entry.
fn field_slot<'f>(g: &Gen<'_>, record: &Record, entry: &Entry, field: &'f Field, ty: &'f TokenStream) -> Slot<'f> {
    let rt = &g.rt;
    let shown = field.ty.text();
    let span = joined_span(&field.ty.tokens);
    let node_ty = if entry.optional {
        quote!(<#ty as #rt::OptionField>::Inner)
    } else {
        ty.clone()
    };
    g.type_asserts(
        &entry.node,
        &node_ty,
        span,
        &format!("entry `{}`", entry.name),
        &shown,
        counted_by(record, entry),
    );
    Slot {
        ident: &field.ident,
        ty,
    }
}

/// The pieces of a tuple struct whose one field, of type `ty`, holds the top-level value `node`.
fn value_pieces(g: &Gen<'_>, node: &Node, ty: &FieldType, field: Option<&proc_macro2::Ident>) -> Pieces {
    let rt = &g.rt;
    let (schema, metalayer) = (&g.layout.schema, &g.layout.metalayer);
    let ty_tokens = quote!(#ty);
    let span = joined_span(&ty.tokens);
    g.type_asserts(
        node,
        &ty_tokens,
        span,
        &format!("the value of {schema}"),
        &ty.text(),
        None,
    );
    let name = g.layout.value_name().unwrap_or(metalayer);
    let path = quote!(const { &#rt::Path::entry(&#name) });
    let value = g.decode(node, &ty_tokens, &path, 1, None, None);
    let var = names::field("value");
    // A tuple struct's field, or the one named field.
    let (place, build) = match field {
        Some(f) => (quote!(self.#f), quote!(Self { #f: #var })),
        None => (quote!(self.0), quote!(Self(#var))),
    };
    let size = metalayer_layout::size::of(g.layout, node, &Place(Vec::new()));
    let root = |p: &Place| p.0.is_empty().then(|| (place.clone(), node));
    Pieces {
        decode: quote!(let #var: #ty_tokens = #value;),
        build,
        check: g.check(node, &place, &path, 1, None),
        write: g.write(node, &place, 1),
        len: g.size(&size, &root),
    }
}

/// The `Record` impl of a struct bound to named record type `index`.
fn record_impl(input: &Item, layout: &Layout, index: usize, p: &Pieces, rt: &TokenStream) -> TokenStream {
    let ident = &input.ident;
    let (_, ty_generics, where_clause) = input.generics.split_for_impl();
    let (de, decode_impl_generics) = decode_lifetime(input);
    let (d, e, schema_var) = (names::decoder(), names::encoder(), names::schema());
    let Pieces {
        decode,
        build,
        check,
        write,
        len,
    } = p;
    let name = &layout.types[index].name;
    let layout_name = format!("{}::{name}", layout.schema);
    let min_size = Node {
        ty: metalayer_layout::Type::Ref(index),
        span: 0..0,
        file: 0,
    }
    .min_size(layout);
    quote! {
        #[automatically_derived]
        impl #decode_impl_generics #rt::Record<#de> for #ident #ty_generics #where_clause {
            const LAYOUT: &'static str = #layout_name;
            const MIN_SIZE: usize = #min_size;

            #[inline]
            fn decode_record(#d: &mut #rt::Decoder<#de>) -> ::core::result::Result<Self, #rt::DecodeError> {
                #decode
                ::core::result::Result::Ok(#build)
            }

            #[inline]
            fn check_record(&self, #schema_var: &'static str) -> ::core::result::Result<(), #rt::EncodeError> {
                #check
                ::core::result::Result::Ok(())
            }

            #[inline]
            fn record_len(&self) -> usize {
                #len
            }

            #[inline]
            fn encode_record(&self, #e: &mut #rt::Encoder<'_>) {
                #write
            }
        }
    }
}

/// The `Metalayer` and `Decode` impls of a struct bound to the top-level value.
fn metalayer_impls(input: &Item, layout: &Layout, p: &Pieces, rt: &TokenStream) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let (de, decode_impl_generics) = decode_lifetime(input);
    let (schema, metalayer) = (&layout.schema, &layout.metalayer);
    let (d, e, schema_var) = (names::decoder(), names::encoder(), names::schema());
    let (buf, total_len, encoder_owned) = (names::buf(), names::total_len(), names::encoder_owned());
    let (input_var, decoder_owned, used) = (names::input(), names::decoder_owned(), names::used());
    let Pieces {
        decode,
        build,
        check,
        write,
        len,
    } = p;
    quote! {
        #[automatically_derived]
        impl #impl_generics #rt::Metalayer for #ident #ty_generics #where_clause {
            const NAME: &'static str = #metalayer;
            const SCHEMA: &'static str = #schema;

            #[inline]
            fn encoded_len(&self) -> usize {
                #len
            }

            #[inline]
            fn encode_into(&self, #buf: &mut [u8]) -> ::core::result::Result<usize, #rt::EncodeError> {
                let #schema_var: &'static str = <Self as #rt::Metalayer>::SCHEMA;
                #check
                let #total_len = <Self as #rt::Metalayer>::encoded_len(self);
                let mut #encoder_owned = #rt::Encoder::new(#buf, #total_len, #schema_var)?;
                {
                    let #e = &mut #encoder_owned;
                    #write
                }
                ::core::result::Result::Ok(#encoder_owned.finish())
            }
        }

        #[automatically_derived]
        impl #decode_impl_generics #rt::Decode<#de> for #ident #ty_generics #where_clause {
            #[inline]
            fn decode_prefix(#input_var: &#de [u8]) -> ::core::result::Result<(Self, usize), #rt::DecodeError> {
                let mut #decoder_owned = #rt::Decoder::new(#input_var, <Self as #rt::Metalayer>::SCHEMA);
                let #d = &mut #decoder_owned;
                #decode
                let #used = #d.position();
                ::core::result::Result::Ok((#build, #used))
            }

            // The whole decoder again, not the trait's `decode_prefix` and a length check: the
            // value is then built in `decode`'s return place, not moved out of a tuple, which
            // takes 28 instructions off each decode of b2nd_v1 into ArrayVecs (626 from 654
            // at ndim 2, callgrind), for twice the decoder's code in the using crate.
            #[inline]
            fn decode(#input_var: &#de [u8]) -> ::core::result::Result<Self, #rt::DecodeError> {
                let mut #decoder_owned = #rt::Decoder::new(#input_var, <Self as #rt::Metalayer>::SCHEMA);
                let #d = &mut #decoder_owned;
                #decode
                #d.end()?;
                ::core::result::Result::Ok(#build)
            }
        }
    }
}

/// Impls with the right signatures and no behaviour, emitted beside compile errors so that
/// code using the struct does not fail a second time: the runtime's `__fallback_impls!`.
pub(crate) fn fallback(input: &Item, krate: &TokenStream, record: bool) -> TokenStream {
    if check_generics(input).is_err() {
        return TokenStream::new();
    }
    let rt = names::runtime(krate);
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let (de, decode_impl_generics) = decode_lifetime(input);
    if record {
        return quote! {
            #rt::__fallback_impls!(record impl [#decode_impl_generics] #de for [#ident #ty_generics] [#where_clause]);
        };
    }
    quote! {
        #rt::__fallback_impls!(impl [#impl_generics] [#decode_impl_generics] #de for [#ident #ty_generics] [#where_clause]);
    }
}
