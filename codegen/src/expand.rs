//! Writing the `Metalayer` and `Decode` impls for a bound struct.

use metalayer_layout::{EntryKind, IntRole, IntWire, Layout, StrWire};
use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use crate::bind::{Bound, Slot, rust_int};
use crate::error::Error;
use crate::item::{Item, ParamKind};

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

fn u8_lit(v: u8) -> Literal {
    Literal::u8_suffixed(v)
}

fn i128_lit(v: i128) -> Literal {
    Literal::i128_suffixed(v)
}

fn usize_lit(v: usize) -> Literal {
    Literal::usize_suffixed(v)
}

/// Big-endian bytes of a constant, computed here so that generated code writes literals.
/// A fixint is its own single byte.
fn const_bytes(wire: IntWire, value: i128) -> Vec<u8> {
    let all = value.to_be_bytes();
    all[16 - wire.width().max(1)..].to_vec()
}

fn count_var(name: &str) -> proc_macro2::Ident {
    format_ident!("__count_{}", name)
}

fn field_var(name: &str) -> proc_macro2::Ident {
    format_ident!("__field_{}", name)
}

fn str_len_ty(wire: StrWire) -> proc_macro2::Ident {
    match wire {
        StrWire::Str8 => format_ident!("u8"),
        StrWire::Str16 => format_ident!("u16"),
        StrWire::Str32 => format_ident!("u32"),
    }
}

/// Reads one integer of `wire` as its Rust type, at `path`.
fn read_int(wire: IntWire, path: &TokenStream, d: &TokenStream) -> TokenStream {
    match wire.marker() {
        None => quote!(#d.fixint(#path)),
        Some(marker) => {
            let ty = rust_int(wire);
            let width = wire.width();
            let marker = u8_lit(marker);
            let name = wire.name();
            quote!(#d.int::<#width>(#marker, #name, #path).map(#ty::from_be_bytes))
        }
    }
}

/// Writes one integer of `wire` from the expression `value` (of its Rust type).
fn write_int(wire: IntWire, value: &TokenStream) -> TokenStream {
    match wire.marker() {
        None => quote!(__e.byte(#value);),
        Some(marker) => {
            let marker = u8_lit(marker);
            quote! {
                __e.byte(#marker);
                __e.bytes(&(#value).to_be_bytes());
            }
        }
    }
}

pub(crate) fn expand(input: &Item, layout: &Layout, bound: &Bound<'_>, krate: &TokenStream) -> TokenStream {
    let rt = quote!(#krate::__private);
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let (de, decode_impl_generics) = decode_lifetime(input);
    let schema = &layout.schema;
    let metalayer = &layout.metalayer;
    let container = u8_lit(layout.container_marker);

    let mut decode = Vec::new();
    let mut field_inits = Vec::new();
    let mut len_parts = vec![quote!(1usize)];
    let mut checks = Vec::new();
    let mut writes = Vec::new();
    let mut visits = Vec::new();

    for (entry, slot) in layout.entries.iter().zip(&bound.slots) {
        let name = entry.name.as_str();
        let path = quote!(#rt::Path::entry(&#name));
        match (&entry.kind, slot) {
            (EntryKind::Int { wire, role }, _) => {
                let read = read_int(*wire, &path, &quote!(__d));
                let size = wire.size();
                len_parts.push(quote!(#size));
                match role {
                    IntRole::Const { value } => {
                        let lit = i128_lit(*value);
                        decode.push(quote! {
                            let __at = __d.position();
                            let __v = #read?;
                            __d.constant(__at, __v as i128, #lit, #path)?;
                        });
                        let mut bytes = Vec::new();
                        if let Some(m) = wire.marker() {
                            bytes.push(m);
                        }
                        bytes.extend(const_bytes(*wire, *value));
                        let bytes = bytes.into_iter().map(u8_lit);
                        writes.push(quote!(__e.bytes(&[#(#bytes),*]);));
                        visits.push(quote!(__v.int(#name, #lit);));
                    }
                    IntRole::Count { min, max, arrays } => {
                        let var = count_var(name);
                        let (lo, hi) = (i128_lit(*min as i128), i128_lit(*max as i128));
                        decode.push(quote! {
                            let __at = __d.position();
                            let __v = #read?;
                            __d.range(__at, __v as i128, #lo, #hi, #path)?;
                            let #var = __v as usize;
                        });
                        // The first array counted sets the length; the others must agree.
                        let mut first: Option<&str> = None;
                        for &a in arrays {
                            let array = &layout.entries[a];
                            let (Slot::Field(f), EntryKind::Array { element, .. }) = (&bound.slots[a], &array.kind)
                            else {
                                continue;
                            };
                            let fname = &f.ident;
                            let fty = &f.ty;
                            let elem = rust_int(*element);
                            let aname = array.name.as_str();
                            let len = quote!(<#fty as #rt::ArrayField<#elem>>::elements(&self.#fname).len());
                            match first {
                                None => {
                                    let (lo, hi) = (usize_lit(*min), usize_lit(*max));
                                    checks.push(quote! {
                                        let #var = #len;
                                        #rt::check_count(Self::SCHEMA, #name, &#aname, #var, #lo, #hi)?;
                                    });
                                    first = Some(aname);
                                }
                                Some(reference) => checks.push(quote! {
                                    #rt::check_same_len(Self::SCHEMA, #name, #reference, #var, &#aname, #len)?;
                                }),
                            }
                        }
                        let ty = rust_int(*wire);
                        writes.push(write_int(*wire, &quote!(#var as #ty)));
                        if let Some(first) =
                            arrays
                                .first()
                                .and_then(|&a| match (&bound.slots[a], &layout.entries[a].kind) {
                                    (Slot::Field(f), EntryKind::Array { element, .. }) => Some((f, *element)),
                                    _ => None,
                                })
                        {
                            let (f, element) = first;
                            let (fname, fty, elem) = (&f.ident, &f.ty, rust_int(element));
                            visits.push(quote! {
                                __v.int(#name, <#fty as #rt::ArrayField<#elem>>::elements(&self.#fname).len() as i128);
                            });
                        }
                    }
                    IntRole::Value { min, max } => {
                        let Slot::Field(f) = slot else { continue };
                        let fname = &f.ident;
                        let var = field_var(name);
                        let (wire_lo, wire_hi) = wire.range();
                        let (lo, hi) = (i128_lit(*min), i128_lit(*max));
                        let narrowed = *min > wire_lo || *max < wire_hi;
                        let range = narrowed.then(|| quote!(__d.range(__at, #var as i128, #lo, #hi, #path)?;));
                        decode.push(quote! {
                            let __at = __d.position();
                            let #var = #read?;
                            #range
                            __value.#fname = #var;
                        });
                        field_inits.push(quote!(#fname: 0));
                        // A fixint field is a u8, which holds more than 0x7f.
                        if narrowed || *wire == IntWire::FixInt {
                            checks.push(quote! {
                                #rt::check_range(Self::SCHEMA, #path, self.#fname as i128, #lo, #hi)?;
                            });
                        }
                        writes.push(write_int(*wire, &quote!(self.#fname)));
                        visits.push(quote!(__v.int(#name, self.#fname as i128);));
                    }
                }
            }
            (EntryKind::Str { wire }, Slot::Field(f)) => {
                let fname = &f.ident;
                let fty = &f.ty;

                let width = wire.width();
                let marker = u8_lit(wire.marker());
                let wname = wire.name();
                let max = wire.max_len();
                let len_ty = str_len_ty(*wire);
                decode.push(quote! {
                    let __at = __d.position();
                    let __text = __d.str::<#width>(#marker, #wname, #path)?;
                    __value.#fname = <#fty as #rt::StrField<#de>>::from_text(__text).map_err(|capacity| {
                        __d.error_at(__at, #path, #rt::DecodeErrorKind::StrCapacity { capacity, found: __text.len() })
                    })?;
                });
                field_inits.push(quote!(#fname: <#fty as #rt::StrField<#de>>::empty()));
                let text = quote!(<#fty as #rt::StrField<'_>>::text(&self.#fname));
                len_parts.push(quote!(1usize + #width + #text.len()));
                checks.push(quote!(#rt::check_str_len(Self::SCHEMA, &#name, #wname, #text, #max)?;));
                visits.push(quote!(__v.str(#name, #text);));
                writes.push(quote! {
                    let __text = #text;
                    __e.byte(#marker);
                    __e.bytes(&(__text.len() as #len_ty).to_be_bytes());
                    __e.bytes(__text.as_bytes());
                });
            }
            (EntryKind::Array { element, count, .. }, Slot::Field(f)) => {
                let fname = &f.ident;
                let fty = &f.ty;

                let count_name = layout.entries[*count].name.as_str();
                let count = count_var(count_name);
                let elem = rust_int(*element);
                let size = element.size();
                let elem_path = quote!(#rt::Path::element(&#name, __i));
                let read = match element.marker() {
                    None => quote!(__d.fixint_array_into(&mut __value.#fname, #count, #count_name, &#name)?;),
                    Some(marker) => {
                        let marker = u8_lit(marker);
                        let wname = element.name();
                        let width = element.width();
                        quote! {
                            __d.array::<#fty, #elem, #width>(
                                &mut __value.#fname, #count, #count_name, #marker, #wname, &#name, #elem::from_be_bytes,
                            )?;
                        }
                    }
                };
                decode.push(read);
                field_inits.push(quote!(#fname: <#fty as #rt::ArrayField<#elem>>::empty()));
                let elements = quote!(<#fty as #rt::ArrayField<#elem>>::elements(&self.#fname));
                len_parts.push(quote!(1usize + #elements.len() * #size));
                if *element == IntWire::FixInt {
                    checks.push(quote! {
                        for (__i, __v) in #elements.iter().enumerate() {
                            #rt::check_range(Self::SCHEMA, #elem_path, *__v as i128, 0, 0x7f)?;
                        }
                    });
                }
                visits.push(quote!(__v.ints(#name, &mut #elements.iter().map(|__x| *__x as i128));));
                let write_elements = match element.marker() {
                    None => quote!(__e.bytes(#elements);),
                    Some(marker) => {
                        let marker = u8_lit(marker);
                        quote!(__e.int_array(#marker, #elements.iter().map(|__v| __v.to_be_bytes()));)
                    }
                };
                writes.push(quote! {
                    __e.byte(0x90u8.wrapping_add(#count as u8));
                    #write_elements
                });
            }
            // Unbound entries only occur with binding errors, which never reach here.
            (_, Slot::Derived) => {}
        }
    }

    quote! {
        impl #impl_generics #rt::Metalayer for #ident #ty_generics #where_clause {
            const NAME: &'static str = #metalayer;
            const SCHEMA: &'static str = #schema;

            #[inline]
            fn encoded_len(&self) -> usize {
                #(#len_parts)+*
            }

            #[inline]
            fn encode_into(&self, __buf: &mut [u8]) -> ::core::result::Result<usize, #rt::EncodeError> {
                #(#checks)*
                let __len = <Self as #rt::Metalayer>::encoded_len(self);
                let mut __e = #rt::Encoder::new(__buf, __len, Self::SCHEMA)?;
                __e.byte(#container);
                #(#writes)*
                ::core::result::Result::Ok(__e.finish())
            }
        }

        impl #impl_generics #rt::Entries for #ident #ty_generics #where_clause {
            fn visit_entries(&self, __v: &mut dyn #rt::EntryVisitor) {
                #(#visits)*
            }
        }

        impl #decode_impl_generics #rt::Decode<#de> for #ident #ty_generics #where_clause {
            #[inline]
            fn decode_prefix(__input: &#de [u8]) -> ::core::result::Result<(Self, usize), #rt::DecodeError> {
                let mut __d = #rt::Decoder::new(__input, <Self as #rt::Metalayer>::SCHEMA);
                // Built empty first and filled in place, entry by entry: no field is moved
                // after it is read.
                let mut __value = Self { #(#field_inits),* };
                __d.container(#container)?;
                #(#decode)*
                ::core::result::Result::Ok((__value, __d.position()))
            }

            // The same steps as `decode_prefix`, written out again so that the end is checked
            // before the value is returned, without a second move.
            #[inline]
            fn decode(__input: &#de [u8]) -> ::core::result::Result<Self, #rt::DecodeError> {
                let mut __d = #rt::Decoder::new(__input, <Self as #rt::Metalayer>::SCHEMA);
                let mut __value = Self { #(#field_inits),* };
                __d.container(#container)?;
                #(#decode)*
                __d.end()?;
                ::core::result::Result::Ok(__value)
            }
        }
    }
}

/// Impls with the right signatures and no behaviour, emitted beside compile errors so that
/// code using the struct does not fail a second time.
pub(crate) fn fallback(input: &Item, krate: &TokenStream) -> TokenStream {
    if check_generics(input).is_err() {
        return TokenStream::new();
    }
    let rt = quote!(#krate::__private);
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let (de, decode_impl_generics) = decode_lifetime(input);
    quote! {
        impl #impl_generics #rt::Metalayer for #ident #ty_generics #where_clause {
            const NAME: &'static str = "";
            const SCHEMA: &'static str = "";
            fn encoded_len(&self) -> usize {
                ::core::unreachable!("the #[metalayer] attribute reported a compile error")
            }
            fn encode_into(&self, _: &mut [u8]) -> ::core::result::Result<usize, #rt::EncodeError> {
                ::core::unreachable!("the #[metalayer] attribute reported a compile error")
            }
        }
        impl #impl_generics #rt::Entries for #ident #ty_generics #where_clause {
            fn visit_entries(&self, _: &mut dyn #rt::EntryVisitor) {
                ::core::unreachable!("the #[metalayer] attribute reported a compile error")
            }
        }
        impl #decode_impl_generics #rt::Decode<#de> for #ident #ty_generics #where_clause {
            fn decode_prefix(_: &#de [u8]) -> ::core::result::Result<(Self, usize), #rt::DecodeError> {
                ::core::unreachable!("the #[metalayer] attribute reported a compile error")
            }
        }
    }
}
