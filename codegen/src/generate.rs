//! One generator per kind of value: for each node of the layout tree, the code that decodes it
//! into a field's type, checks a field's value before encoding, writes it, and measures it. The
//! field's type is only ever named through the trait of its kind (`IntValue`, `StrField`,
//! `ArrayField`, ...), so aliases, newtypes and a user's own types bind as well as the standard
//! ones.

use core::cell::RefCell;

use metalayer_layout::encoding::{const_bytes, const_payload, header_bytes, key_bytes};
use metalayer_layout::size::{Place, Size, Step, Term, Var};
use metalayer_layout::{
    ArrayType, Const, Count, Encoding, ExtType, Family, IntType, Layout, MapType, Node, Record, Role, StrType, Type,
    Wire,
};
use proc_macro2::{Ident, Literal, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};

use crate::names;

/// The generator's settings for one struct.
pub(crate) struct Gen<'a> {
    pub layout: &'a Layout,
    /// The runtime's path in generated code.
    pub rt: TokenStream,
    /// The lifetime decoded values borrow the input for.
    pub de: TokenStream,
    /// The struct's own lifetime, which compile-time assertions replace with `'static`.
    pub lifetime: Option<String>,
    /// Compile-time assertions on field types, collected while generating.
    pub asserts: RefCell<Vec<TokenStream>>,
    /// The number of entries a record being measured has present, for its canonical header.
    pub record_count: RefCell<Option<TokenStream>>,
}

/// A count entry that an array of the same record is counted by, as its decoder sees it.
pub(crate) struct CountRef<'a> {
    pub var: Ident,
    pub name: &'a str,
}

/// A value being encoded or measured: the expression of its place, and its node.
#[derive(Clone)]
struct Binding<'n> {
    place: Place,
    expr: TokenStream,
    node: &'n Node,
}

/// Literal helpers.
fn u8_lit(v: u8) -> Literal {
    Literal::u8_suffixed(v)
}

fn i128_lit(v: i128) -> Literal {
    Literal::i128_suffixed(v)
}

fn usize_lit(v: usize) -> Literal {
    Literal::usize_suffixed(v)
}

fn u64_lit(v: u64) -> Literal {
    Literal::u64_suffixed(v)
}

/// The Rust integer type of a fixed integer wire type's payload.
fn native_int(w: Wire) -> Ident {
    let name = match w {
        Wire::UInt8 | Wire::PosFixInt => "u8",
        Wire::UInt16 => "u16",
        Wire::UInt32 => "u32",
        Wire::UInt64 => "u64",
        Wire::Int8 | Wire::NegFixInt => "i8",
        Wire::Int16 => "i16",
        Wire::Int32 => "i32",
        _ => "i64",
    };
    Ident::new(name, Span::call_site())
}

/// The whole range msgpack integers take: int64's minimum to uint64's maximum.
const INT_RANGE: (i128, i128) = (i64::MIN as i128, u64::MAX as i128);

/// `'a` replaced by `'static` everywhere in `tokens`, for assertions outside the impls.
fn with_static_lifetime(tokens: TokenStream, lifetime: &str) -> TokenStream {
    let mut out = Vec::new();
    let mut iter = tokens.into_iter().peekable();
    while let Some(t) = iter.next() {
        match t {
            TokenTree::Punct(p) if p.as_char() == '\'' => match iter.peek() {
                Some(TokenTree::Ident(i)) if *i == lifetime => {
                    let span = i.span();
                    iter.next();
                    out.push(TokenTree::Punct(p));
                    out.push(TokenTree::Ident(Ident::new("static", span)));
                }
                _ => out.push(TokenTree::Punct(p)),
            },
            TokenTree::Group(g) => {
                let mut group = proc_macro2::Group::new(g.delimiter(), with_static_lifetime(g.stream(), lifetime));
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
            }
            other => out.push(other),
        }
    }
    out.into_iter().collect()
}

impl<'a> Gen<'a> {
    fn wire(&self, w: Wire) -> TokenStream {
        let rt = &self.rt;
        let variant = format_ident!("{}", format!("{w:?}"));
        quote!(#rt::wire::Wire::#variant)
    }

    fn family(&self, f: Family) -> TokenStream {
        let rt = &self.rt;
        let variant = format_ident!("{}", format!("{f:?}"));
        quote!(#rt::wire::Family::#variant)
    }

    /// Adds a compile-time assertion, reported at `span` with `message` when `condition` is false.
    fn assert(&self, span: Span, condition: TokenStream, message: String) {
        let condition = match &self.lifetime {
            Some(l) => with_static_lifetime(condition, l),
            None => condition,
        };
        self.asserts.borrow_mut().push(quote_spanned! {span=>
            const _: () = ::core::assert!(#condition, #message);
        });
    }

    /// The assertions that the types bound to `node` can hold it: integer ranges, float widths
    /// and record types, through arrays, maps and options.
    /// That an array or map field's type can hold some count the schema allows.
    #[allow(clippy::too_many_arguments)]
    fn count_assert(
        &self,
        header: Encoding,
        count: &Count,
        counted_by: Option<(&str, usize, usize)>,
        ty: &TokenStream,
        span: Span,
        what: &str,
        shown: &str,
    ) {
        let rt = &self.rt;
        let header_max = match header {
            Encoding::Fixed(w) => usize::try_from(w.max_len().unwrap_or(u64::MAX)).unwrap_or(usize::MAX),
            Encoding::Canonical { .. } => u32::MAX as usize,
        };
        let (lo, hi, why) = match (count, counted_by) {
            (Count::Fixed(k), _) => (*k, *k, format!("always {k}")),
            (Count::Entry(_), Some((name, lo, hi))) => (lo, hi, format!("{lo}..={hi}, counted by `{name}`")),
            _ => (0, header_max, format!("0..={header_max}, as its header states")),
        };
        let (lo_lit, hi_lit) = (usize_lit(lo), usize_lit(hi));
        self.assert(
            span,
            quote!(<#ty as #rt::ArrayField>::MIN_COUNT <= #hi_lit && #lo_lit <= <#ty as #rt::ArrayField>::MAX_COUNT),
            format!(
                "`{shown}` cannot hold {what}: its number of elements is {why}, and the type holds none of those counts"
            ),
        );
    }

    pub(crate) fn type_asserts(
        &self,
        node: &Node,
        ty: &TokenStream,
        span: Span,
        what: &str,
        shown: &str,
        counts: Option<(&str, usize, usize)>,
    ) {
        let rt = &self.rt;
        match &node.ty {
            Type::Int(t) => {
                if let Encoding::Fixed(w) = t.encoding {
                    let (lo, hi) = (i128_lit(t.min), i128_lit(t.max));
                    self.assert(
                        span,
                        quote!(<#ty as #rt::IntValue>::MIN <= #lo && #hi <= <#ty as #rt::IntValue>::MAX),
                        if w.int_range() == Some((t.min, t.max)) {
                            format!(
                                "`{shown}` cannot hold {what}: it is {}, which takes every value of `{}`, and the type's range does not cover them",
                                w.name(),
                                native_int(w)
                            )
                        } else {
                            format!(
                                "`{shown}` cannot hold {what}: it is {} in {}..={}, and the type's range does not cover that",
                                w.name(),
                                t.min,
                                t.max
                            )
                        },
                    );
                }
            }
            Type::Float(w) => {
                let bits = if *w == Wire::Float32 { 32u32 } else { 64u32 };
                self.assert(
                    span,
                    quote!(<#ty as #rt::FloatValue>::BITS == #bits),
                    format!(
                        "`{shown}` cannot hold {what}: it is {}, which needs `f{bits}`",
                        w.name()
                    ),
                );
            }
            Type::Array(a) => {
                let elem = quote!(<#ty as #rt::ArrayField>::Element);
                self.count_assert(a.header, &a.count, counts, ty, span, what, shown);
                self.type_asserts(&a.element, &elem, span, &format!("the elements of {what}"), shown, None);
            }
            Type::Map(m) => {
                let pair = quote!(<#ty as #rt::ArrayField>::Element);
                let key = quote!(<#pair as #rt::Pair>::Key);
                let value = quote!(<#pair as #rt::Pair>::Value);
                self.count_assert(m.header, &m.count, counts, ty, span, what, shown);
                self.type_asserts(&m.key, &key, span, &format!("the keys of {what}"), shown, None);
                self.type_asserts(&m.value, &value, span, &format!("the values of {what}"), shown, None);
            }
            Type::Ref(i) => {
                let Some(t) = self.layout.types.get(*i) else { return };
                let expected = format!("{}::{}", self.layout.schema, t.name);
                let de = &self.de;
                let de = if de.to_string() == "'de" {
                    quote!('static)
                } else {
                    de.clone()
                };
                self.assert(
                    span,
                    quote!(#rt::str_eq(<#ty as #rt::Record<#de>>::LAYOUT, #expected)),
                    format!(
                        "`{shown}` cannot hold {what}: it is record type `{}` of {}, so its struct needs #[metalayer(schema = \"{}\", layout = \"{}\")]",
                        t.name, self.layout.schema, self.layout.schema, t.name
                    ),
                );
            }
            _ => {}
        }
    }

    // ---------------------------------------------------------------- decode

    /// An expression reading a value of `node` as `ty`, at `path`.
    pub(crate) fn decode(
        &self,
        node: &Node,
        ty: &TokenStream,
        path: &TokenStream,
        depth: usize,
        count: Option<&CountRef<'_>>,
        entry: Option<&str>,
    ) -> TokenStream {
        let rt = &self.rt;
        let d = names::decoder();
        match &node.ty {
            Type::Nil => quote!({ #d.nil(#path)?; }),
            Type::Bool => quote!(<#ty as #rt::BoolValue>::from_bool(#d.bool(#path)?)),
            Type::Int(t) => self.decode_int(t, ty, path, depth),
            Type::Float(w) => {
                let (marker, width, name) = (u8_lit(w.marker().unwrap_or_default()), w.width(), w.name());
                let bits = if *w == Wire::Float32 { quote!(u32) } else { quote!(u64) };
                quote! {
                    <#ty as #rt::FloatValue>::from_bits_be(u64::from(#bits::from_be_bytes(#d.int::<#width>(#marker, #name, #path)?)))
                }
            }
            Type::Str(t) => self.decode_str(t, ty, path, depth),
            Type::Bin(e) => {
                let (at, n) = (names::at(depth), names::len(depth));
                let (bytes, kind) = (names::bytes(), names::error_kind());
                let header = self.read_header(*e, Family::Bin, path);
                quote!({
                    let #at = #d.position();
                    let #n = #header;
                    let #bytes = #d.bytes(#n, #path)?;
                    <#ty as #rt::BinField<'_>>::from_bytes(#bytes).map_err(|#kind| #d.error_at(#at, #path, #kind))?
                })
            }
            Type::Ext(t) => self.decode_ext(t, ty, path, depth),
            Type::Array(a) => self.decode_array(a, ty, path, depth, count, entry),
            Type::Map(m) => self.decode_map(m, ty, path, depth, count),
            Type::Ref(_) => {
                let de = &self.de;
                let error = names::nested_error();
                quote!(<#ty as #rt::Record<#de>>::decode_record(#d).map_err(|#error| #error.within(#path))?)
            }
            // A record in place is the top-level value, which `record_decode` writes.
            Type::Record(_) => quote!(::core::unreachable!()),
        }
    }

    /// The header of a value of `family` in `encoding`: its length or count.
    fn read_header(&self, encoding: Encoding, family: Family, path: &TokenStream) -> TokenStream {
        let d = names::decoder();
        match encoding {
            Encoding::Fixed(w) => {
                let w = self.wire(w);
                quote!(#d.header(#w, #path)?)
            }
            Encoding::Canonical { lenient } => {
                let f = self.family(family);
                let smallest = !lenient;
                quote!(#d.any_header(#f, #smallest, #path)?)
            }
        }
    }

    /// An `i128` expression reading an integer in `encoding`.
    fn read_int(&self, encoding: Encoding, path: &TokenStream) -> TokenStream {
        let d = names::decoder();
        match encoding {
            Encoding::Fixed(Wire::PosFixInt) => quote!(i128::from(#d.fixint(#path)?)),
            Encoding::Fixed(Wire::NegFixInt) => quote!(i128::from(#d.neg_fixint(#path)?)),
            Encoding::Fixed(w) => {
                let (marker, width, name, native) = (
                    u8_lit(w.marker().unwrap_or_default()),
                    w.width(),
                    w.name(),
                    native_int(w),
                );
                quote!(i128::from(#native::from_be_bytes(#d.int::<#width>(#marker, #name, #path)?)))
            }
            Encoding::Canonical { lenient } => {
                let smallest = !lenient;
                quote!(#d.any_int(#smallest, #path)?)
            }
        }
    }

    /// The decode-time checks of an integer `v` read at `at`: the schema's range (and, for a
    /// canonical integer, the field type's), and its named values.
    fn int_checks(
        &self,
        t: &IntType,
        ty: Option<&TokenStream>,
        at: &Ident,
        v: &Ident,
        path: &TokenStream,
    ) -> TokenStream {
        let rt = &self.rt;
        let d = names::decoder();
        let wire_range = match t.encoding {
            Encoding::Fixed(w) => w.int_range().unwrap_or(INT_RANGE),
            Encoding::Canonical { .. } => INT_RANGE,
        };
        let (lo, hi) = (i128_lit(t.min), i128_lit(t.max));
        let range = match (t.encoding, ty) {
            (Encoding::Canonical { .. }, Some(ty)) => quote! {
                #d.range(
                    #at,
                    #v,
                    if #lo > <#ty as #rt::IntValue>::MIN { #lo } else { <#ty as #rt::IntValue>::MIN },
                    if #hi < <#ty as #rt::IntValue>::MAX { #hi } else { <#ty as #rt::IntValue>::MAX },
                    #path,
                )?;
            },
            _ if (t.min, t.max) != wire_range => quote!(#d.range(#at, #v, #lo, #hi, #path)?;),
            _ => TokenStream::new(),
        };
        let named = if t.values.is_empty() {
            TokenStream::new()
        } else {
            let values = t.values.iter().map(|(_, v)| i128_lit(*v));
            let names = named_list(t);
            quote!(#d.named(#at, #v, &[#(#values),*], #names, #path)?;)
        };
        quote!(#range #named)
    }

    fn decode_int(&self, t: &IntType, ty: &TokenStream, path: &TokenStream, depth: usize) -> TokenStream {
        let rt = &self.rt;
        let d = names::decoder();
        let (at, v) = (names::at(depth), names::int(depth));
        let read = self.read_int(t.encoding, path);
        let checks = self.int_checks(t, Some(ty), &at, &v, path);
        quote!({
            let #at = #d.position();
            let #v: i128 = #read;
            #checks
            <#ty as #rt::IntValue>::from_i128(#v)
        })
    }

    fn decode_str(&self, t: &StrType, ty: &TokenStream, path: &TokenStream, depth: usize) -> TokenStream {
        let rt = &self.rt;
        let de = &self.de;
        let d = names::decoder();
        let (at, n) = (names::at(depth), names::len(depth));
        let (bytes, kind) = (names::bytes(), names::error_kind());
        if t.raw {
            let header = self.read_header(t.encoding, Family::Str, path);
            return quote!({
                let #at = #d.position();
                let #n = #header;
                let #bytes = #d.bytes(#n, #path)?;
                <#ty as #rt::BinField<'_>>::from_bytes(#bytes).map_err(|#kind| #d.error_at(#at, #path, #kind))?
            });
        }
        let text = match t.encoding {
            Encoding::Fixed(w @ (Wire::Str8 | Wire::Str16 | Wire::Str32)) => {
                let (marker, width, name) = (u8_lit(w.marker().unwrap_or_default()), w.width(), w.name());
                quote!(#d.str::<#width>(#marker, #name, #path)?)
            }
            encoding => {
                let header = self.read_header(encoding, Family::Str, path);
                let start = names::text_start();
                quote!({
                    let #n = #header;
                    let #start = #d.position();
                    let #bytes = #d.bytes(#n, #path)?;
                    #d.utf8(#bytes, #start, #path)?
                })
            }
        };
        let (text_var, capacity) = (names::text(), names::capacity());
        quote!({
            let #at = #d.position();
            let #text_var = #text;
            <#ty as #rt::StrField<#de>>::from_text(#text_var).map_err(|#capacity| {
                #d.error_at(#at, #path, #rt::DecodeErrorKind::StrCapacity { capacity: #capacity, found: #text_var.len() })
            })?
        })
    }

    fn decode_ext(&self, t: &ExtType, ty: &TokenStream, path: &TokenStream, depth: usize) -> TokenStream {
        let rt = &self.rt;
        let de = &self.de;
        let d = names::decoder();
        let (at, n) = (names::at(depth), names::len(depth));
        let header = match t.encoding {
            Encoding::Fixed(w) => {
                let w = self.wire(w);
                quote!(#d.ext_header(#w, #path)?)
            }
            Encoding::Canonical { lenient } => {
                let smallest = !lenient;
                quote!(#d.any_ext_header(#smallest, #path)?)
            }
        };
        let (ext_type, bytes, kind) = (names::ext_type(), names::bytes(), names::error_kind());
        match t.ext_type {
            Some(expected) => quote!({
                let #at = #d.position();
                let (#ext_type, #n) = #header;
                #d.ext_type(#at, #ext_type, #expected, #path)?;
                let #bytes = #d.bytes(#n, #path)?;
                <#ty as #rt::BinField<#de>>::from_bytes(#bytes).map_err(|#kind| #d.error_at(#at, #path, #kind))?
            }),
            None => quote!({
                let #at = #d.position();
                let (#ext_type, #n) = #header;
                let #bytes = #d.bytes(#n, #path)?;
                <#ty as #rt::ExtField<#de>>::from_parts(#ext_type, #bytes).map_err(|#kind| #d.error_at(#at, #path, #kind))?
            }),
        }
    }

    /// Reads an array's or map's header into `n` and checks it against its count.
    fn read_count(
        &self,
        header: Encoding,
        family: Family,
        count: &Count,
        count_ref: Option<&CountRef<'_>>,
        path: &TokenStream,
        depth: usize,
    ) -> TokenStream {
        let d = names::decoder();
        let (at, n) = (names::at(depth), names::len(depth));
        if let (Encoding::Fixed(Wire::FixArray), Count::Entry(_), Some(c)) = (header, count, count_ref) {
            let (var, name) = (&c.var, c.name);
            return quote! {
                #d.array_header(#var, #name, #path)?;
                let #n = #var;
            };
        }
        let read = self.read_header(header, family, path);
        let check = match (count, count_ref) {
            (Count::Fixed(k), _) => {
                let k = usize_lit(*k);
                quote!(#d.count(#at, #k, #n, "", #path)?;)
            }
            (Count::Entry(_), Some(c)) => {
                let (var, name) = (&c.var, c.name);
                quote!(#d.count(#at, #var, #n, #name, #path)?;)
            }
            _ => TokenStream::new(),
        };
        quote! {
            let #n = #read;
            #check
        }
    }

    /// An integer array counted by an entry with a fixarray header, whose elements are all of one
    /// fixed width and need no check beyond their marker: read with one bounds check.
    /// An array or map read element by element: its header (`read`), the field type's and the
    /// input's room for the count, then `element`, an expression of the element type, for each
    /// index.
    fn decode_sequence(
        &self,
        ty: &TokenStream,
        path: &TokenStream,
        depth: usize,
        read: TokenStream,
        min_size: usize,
        element: TokenStream,
    ) -> TokenStream {
        let rt = &self.rt;
        let d = names::decoder();
        let (at, n, arr, i) = (
            names::at(depth),
            names::len(depth),
            names::array(depth),
            names::index(depth),
        );
        let min_size = usize_lit(min_size);
        let (kind, decoded) = (names::error_kind(), names::decoded_element());
        quote!({
            let #at = #d.position();
            #read
            <#ty as #rt::ArrayField>::check_count(#n).map_err(|#kind| #d.error_at(#at, #path, #kind))?;
            #d.fits(#n, #min_size, #path)?;
            let mut #arr = <#ty as #rt::ArrayField>::empty();
            <#ty as #rt::ArrayField>::reserve(&mut #arr, #n);
            for #i in 0..#n {
                let #decoded: <#ty as #rt::ArrayField>::Element = #element;
                <#ty as #rt::ArrayField>::set(&mut #arr, #i, #decoded);
            }
            #arr
        })
    }

    fn decode_array(
        &self,
        a: &ArrayType,
        ty: &TokenStream,
        path: &TokenStream,
        depth: usize,
        count: Option<&CountRef<'_>>,
        entry: Option<&str>,
    ) -> TokenStream {
        let rt = &self.rt;
        let d = names::decoder();
        let (arr, i) = (names::array(depth), names::index(depth));
        let elem_ty = quote!(<#ty as #rt::ArrayField>::Element);
        if let (Some(w), Some(c), Some(entry)) = (a.packed_ints(), count, entry) {
            let (var, name) = (&c.var, c.name);
            if w == Wire::PosFixInt {
                return quote!({
                    let mut #arr = <#ty as #rt::ArrayField>::empty();
                    #d.fixint_array_into(&mut #arr, #var, #name, &#entry)?;
                    #arr
                });
            }
            let (marker, width, wname, native) = (
                u8_lit(w.marker().unwrap_or_default()),
                w.width(),
                w.name(),
                native_int(w),
            );
            let b = names::be_bytes();
            return quote!({
                let mut #arr = <#ty as #rt::ArrayField>::empty();
                #d.array::<#ty, #elem_ty, #width>(
                    &mut #arr, #var, #name, #marker, #wname, &#entry,
                    |#b| <#elem_ty as #rt::IntValue>::from_i128(i128::from(#native::from_be_bytes(#b))),
                )?;
                #arr
            });
        }
        let read = self.read_count(a.header, Family::Array, &a.count, count, path, depth);
        let elem_path = quote!(#path.index(#i));
        let elem = self.decode(&a.element, &elem_ty, &elem_path, depth + 1, None, None);
        self.decode_sequence(ty, path, depth, read, a.element.min_size(self.layout), elem)
    }

    fn decode_map(
        &self,
        m: &MapType,
        ty: &TokenStream,
        path: &TokenStream,
        depth: usize,
        count: Option<&CountRef<'_>>,
    ) -> TokenStream {
        let rt = &self.rt;
        let i = names::index(depth);
        let pair = quote!(<#ty as #rt::ArrayField>::Element);
        let key_ty = quote!(<#pair as #rt::Pair>::Key);
        let value_ty = quote!(<#pair as #rt::Pair>::Value);
        let read = self.read_count(m.header, Family::Map, &m.count, count, path, depth);
        let elem_path = quote!(#path.index(#i));
        let key = self.decode(&m.key, &key_ty, &elem_path, depth + 1, None, None);
        let value = self.decode(&m.value, &value_ty, &elem_path, depth + 1, None, None);
        let min_size = m.key.min_size(self.layout) + m.value.min_size(self.layout);
        let (key_var, value_var) = (names::key(), names::value());
        let pair_value = quote!({
            let #key_var: #key_ty = #key;
            let #value_var: #value_ty = #value;
            <#pair as #rt::Pair>::new(#key_var, #value_var)
        });
        self.decode_sequence(ty, path, depth, read, min_size, pair_value)
    }

    /// Statements reading a constant entry and checking it.
    fn decode_const(&self, node: &Node, c: &Const, path: &TokenStream) -> TokenStream {
        let d = names::decoder();
        let (at, v) = (names::at(1), names::int(1));
        match (&node.ty, c) {
            (Type::Nil, _) => quote!(#d.nil(#path)?;),
            (Type::Bool, Const::Bool(b)) => {
                let expected = i128_lit(i128::from(*b));
                quote! {
                    let #at = #d.position();
                    let #v = i128::from(#d.bool(#path)?);
                    #d.constant(#at, #v, #expected, #path)?;
                }
            }
            (Type::Int(t), Const::Int(expected)) => {
                let read = self.read_int(t.encoding, path);
                let expected = i128_lit(*expected);
                quote! {
                    let #at = #d.position();
                    let #v: i128 = #read;
                    #d.constant(#at, #v, #expected, #path)?;
                }
            }
            (Type::Float(w), Const::Float(_)) => {
                let (marker, width, name) = (u8_lit(w.marker().unwrap_or_default()), w.width(), w.name());
                let payload = const_payload(node, c).into_iter().map(u8_lit);
                let bits = names::float_bits();
                quote! {
                    let #at = #d.position();
                    let #bits = #d.int::<#width>(#marker, #name, #path)?;
                    #d.constant_bytes(#at, &#bits, &[#(#payload),*], #path)?;
                }
            }
            (Type::Str(StrType { encoding, .. }) | Type::Bin(encoding), Const::Bytes(_)) => {
                let family = if matches!(node.ty, Type::Str(_)) {
                    Family::Str
                } else {
                    Family::Bin
                };
                let header = self.read_header(*encoding, family, path);
                let payload = const_payload(node, c).into_iter().map(u8_lit);
                let (n, bytes) = (names::len(1), names::bytes());
                quote! {
                    let #at = #d.position();
                    let #n = #header;
                    let #bytes = #d.bytes(#n, #path)?;
                    #d.constant_bytes(#at, #bytes, &[#(#payload),*], #path)?;
                }
            }
            _ => TokenStream::new(),
        }
    }

    // ---------------------------------------------------------------- check

    /// Statements checking the value at `place` (of type `ty`) before anything is written.
    pub(crate) fn check(
        &self,
        node: &Node,
        place: &TokenStream,
        path: &TokenStream,
        depth: usize,
        entry: Option<&str>,
    ) -> TokenStream {
        let rt = &self.rt;
        let schema = names::schema();
        match &node.ty {
            Type::Nil | Type::Bool | Type::Float(_) | Type::Record(_) => TokenStream::new(),
            Type::Int(t) => {
                let v = names::int(depth);
                let (lo, hi) = (i128_lit(t.min), i128_lit(t.max));
                let named = if t.values.is_empty() {
                    TokenStream::new()
                } else {
                    let values: Vec<Literal> = t.values.iter().map(|(_, v)| i128_lit(*v)).collect();
                    let names = named_list(t);
                    quote! {
                        if ![#(#values),*].contains(&#v) {
                            #rt::check_named(#schema, #path, #v, &[#(#values),*], #names)?;
                        }
                    }
                };
                // The comparisons come first, so that the path is built only for an error, and
                // a type whose range lies within the entry's compiles to nothing.
                quote! {
                    let #v = #rt::IntValue::to_i128(#place);
                    #[allow(clippy::manual_range_contains)]
                    if #v < #lo || #v > #hi {
                        #rt::check_range(#schema, #path, #v, #lo, #hi)?;
                    }
                    #named
                }
            }
            Type::Str(t) => {
                let len = if t.raw {
                    quote!(#rt::BinField::bytes(&#place).len())
                } else {
                    quote!(#rt::StrField::text(&#place).len())
                };
                match (t.encoding, entry, t.raw) {
                    (Encoding::Fixed(w), Some(entry), false) => {
                        let (name, max) = (w.name(), u64_lit(w.max_len().unwrap_or(u64::MAX)));
                        quote!(#rt::check_str_len(#schema, &#entry, #name, #rt::StrField::text(&#place), #max)?;)
                    }
                    (encoding, _, _) => self.check_len(encoding, Family::Str, &len, path),
                }
            }
            Type::Bin(e) => self.check_len(*e, Family::Bin, &quote!(#rt::BinField::bytes(&#place).len()), path),
            Type::Ext(t) => {
                let len = match t.ext_type {
                    Some(_) => quote!(#rt::BinField::bytes(&#place).len()),
                    None => quote!(#rt::ExtField::data(&#place).len()),
                };
                self.check_len(t.encoding, Family::Ext, &len, path)
            }
            Type::Array(a) => {
                let len = quote!(#rt::ArrayField::elements(&#place).len());
                let count = self.check_count(a.header, Family::Array, &a.count, &len, path);
                let (i, x) = (names::index(depth), names::element(depth));
                let elem_path = quote!(#path.index(#i));
                let elem = self.check(&a.element, &quote!((*#x)), &elem_path, depth + 1, None);
                let each = (!elem.is_empty()).then(|| {
                    quote! {
                        for (#i, #x) in #rt::ArrayField::elements(&#place).iter().enumerate() {
                            #elem
                        }
                    }
                });
                quote!(#count #each)
            }
            Type::Map(m) => {
                let len = quote!(#rt::ArrayField::elements(&#place).len());
                let count = self.check_count(m.header, Family::Map, &m.count, &len, path);
                let (i, x) = (names::index(depth), names::element(depth));
                let elem_path = quote!(#path.index(#i));
                let key = self.check(&m.key, &quote!((*#rt::Pair::key(#x))), &elem_path, depth + 1, None);
                let value = self.check(&m.value, &quote!((*#rt::Pair::value(#x))), &elem_path, depth + 1, None);
                let each = (!key.is_empty() || !value.is_empty()).then(|| {
                    quote! {
                        for (#i, #x) in #rt::ArrayField::elements(&#place).iter().enumerate() {
                            #key
                            #value
                        }
                    }
                });
                quote!(#count #each)
            }
            Type::Ref(_) => {
                let error = names::nested_error();
                quote! {
                    #rt::Record::check_record(&#place, #schema).map_err(|#error| #error.within(#path))?;
                }
            }
        }
    }

    /// A length check against what the header can state.
    fn check_len(&self, encoding: Encoding, family: Family, len: &TokenStream, path: &TokenStream) -> TokenStream {
        let rt = &self.rt;
        let schema = names::schema();
        let (name, min, max) = match encoding {
            Encoding::Fixed(w) => match w.fixext_len() {
                Some(n) => (w.name(), n as u64, n as u64),
                None => (w.name(), 0, w.max_len().unwrap_or(u64::MAX)),
            },
            Encoding::Canonical { .. } => (family.name(), 0, u64::from(u32::MAX)),
        };
        let (min, max) = (u64_lit(min), u64_lit(max));
        quote!(#rt::check_len(#schema, #path, #name, #min, #max, #len)?;)
    }

    /// An array's or map's count check, unless an entry counts it (its record checks that).
    fn check_count(
        &self,
        header: Encoding,
        family: Family,
        count: &Count,
        len: &TokenStream,
        path: &TokenStream,
    ) -> TokenStream {
        let rt = &self.rt;
        let schema = names::schema();
        match count {
            Count::Fixed(k) => {
                let k = u64_lit(*k as u64);
                let name = match header {
                    Encoding::Fixed(w) => w.name(),
                    Encoding::Canonical { .. } => family.name(),
                };
                quote!(#rt::check_len(#schema, #path, #name, #k, #k, #len)?;)
            }
            Count::Header => self.check_len(header, family, len, path),
            Count::Entry(_) => TokenStream::new(),
        }
    }

    // ---------------------------------------------------------------- write

    /// Statements writing the value at `place`, which the checks accepted.
    pub(crate) fn write(&self, node: &Node, place: &TokenStream, depth: usize) -> TokenStream {
        let rt = &self.rt;
        let e = names::encoder();
        match &node.ty {
            Type::Nil => {
                let m = u8_lit(Wire::Nil.markers().0);
                quote!(#e.byte(#m);)
            }
            Type::Bool => {
                let (f, t) = (u8_lit(Wire::Bool.markers().0), u8_lit(Wire::Bool.markers().1));
                quote!(#e.byte(if #rt::BoolValue::to_bool(#place) { #t } else { #f });)
            }
            Type::Int(t) => match t.encoding {
                Encoding::Fixed(w) if w.marker().is_none() => quote!(#e.byte(#rt::IntValue::to_i128(#place) as u8);),
                Encoding::Fixed(w) => {
                    let (marker, native) = (u8_lit(w.marker().unwrap_or_default()), native_int(w));
                    quote! {
                        #e.byte(#marker);
                        #e.bytes(&(#rt::IntValue::to_i128(#place) as #native).to_be_bytes());
                    }
                }
                Encoding::Canonical { .. } => quote!(#e.any_int(#rt::IntValue::to_i128(#place));),
            },
            Type::Float(w) => {
                let marker = u8_lit(w.marker().unwrap_or_default());
                let bits = if *w == Wire::Float32 { quote!(u32) } else { quote!(u64) };
                quote! {
                    #e.byte(#marker);
                    #e.bytes(&(#rt::FloatValue::to_bits_be(#place) as #bits).to_be_bytes());
                }
            }
            Type::Str(t) => {
                let bytes = if t.raw {
                    quote!(#rt::BinField::bytes(&#place))
                } else {
                    quote!(#rt::StrField::text(&#place).as_bytes())
                };
                self.write_bytes(t.encoding, Family::Str, &bytes)
            }
            Type::Bin(enc) => self.write_bytes(*enc, Family::Bin, &quote!(#rt::BinField::bytes(&#place))),
            Type::Ext(t) => {
                let (ty, data) = match t.ext_type {
                    Some(ty) => (quote!(#ty), quote!(#rt::BinField::bytes(&#place))),
                    None => (
                        quote!(#rt::ExtField::ext_type(&#place)),
                        quote!(#rt::ExtField::data(&#place)),
                    ),
                };
                let data_var = names::ext_data();
                let header = match t.encoding {
                    Encoding::Fixed(w) => {
                        let w = self.wire(w);
                        quote!(#e.ext_header(#w, #ty, #data_var.len());)
                    }
                    Encoding::Canonical { .. } => quote!(#e.any_ext_header(#ty, #data_var.len());),
                };
                quote!({
                    let #data_var = #data;
                    #header
                    #e.bytes(#data_var);
                })
            }
            Type::Array(a) => {
                let elements = quote!(#rt::ArrayField::elements(&#place));
                let header = self.write_header(a.header, Family::Array, &quote!(#elements.len()));
                let x = names::element(depth);
                if let Type::Int(t) = &a.element.ty
                    && let Encoding::Fixed(w) = t.encoding
                    && w.marker().is_some()
                {
                    let (marker, native) = (u8_lit(w.marker().unwrap_or_default()), native_int(w));
                    return quote! {
                        #header
                        #e.int_array(#marker, #elements.iter().map(|#x| (#rt::IntValue::to_i128(*#x) as #native).to_be_bytes()));
                    };
                }
                let elem = self.write(&a.element, &quote!((*#x)), depth + 1);
                quote! {
                    #header
                    for #x in #elements.iter() {
                        #elem
                    }
                }
            }
            Type::Map(m) => {
                let elements = quote!(#rt::ArrayField::elements(&#place));
                let header = self.write_header(m.header, Family::Map, &quote!(#elements.len()));
                let x = names::element(depth);
                let key = self.write(&m.key, &quote!((*#rt::Pair::key(#x))), depth + 1);
                let value = self.write(&m.value, &quote!((*#rt::Pair::value(#x))), depth + 1);
                quote! {
                    #header
                    for #x in #elements.iter() {
                        #key
                        #value
                    }
                }
            }
            Type::Ref(_) => quote!(#rt::Record::encode_record(&#place, #e);),
            Type::Record(_) => TokenStream::new(),
        }
    }

    fn write_header(&self, encoding: Encoding, family: Family, len: &TokenStream) -> TokenStream {
        let e = names::encoder();
        match encoding {
            Encoding::Fixed(w) => {
                let w = self.wire(w);
                quote!(#e.header(#w, #len);)
            }
            Encoding::Canonical { .. } => {
                let f = self.family(family);
                quote!(#e.any_header(#f, #len);)
            }
        }
    }

    fn write_bytes(&self, encoding: Encoding, family: Family, bytes: &TokenStream) -> TokenStream {
        let (e, bytes_var) = (names::encoder(), names::bytes());
        let header = self.write_header(encoding, family, &quote!(#bytes_var.len()));
        quote!({
            let #bytes_var = #bytes;
            #header
            #e.bytes(#bytes_var);
        })
    }

    // ---------------------------------------------------------------- size

    /// The encoded length of a record or top-level value, from the layout's size formula.
    /// `root` resolves a place that names an entry of the record (or the empty place, the
    /// top-level value) to its expression and node.
    pub(crate) fn size(&self, size: &Size, root: &dyn Fn(&Place) -> Option<(TokenStream, &'a Node)>) -> TokenStream {
        self.size_in(size, root, &[], 0)
    }

    fn size_in(
        &self,
        size: &Size,
        root: &dyn Fn(&Place) -> Option<(TokenStream, &'a Node)>,
        scope: &[Binding<'a>],
        depth: usize,
    ) -> TokenStream {
        let fixed = usize_lit(size.fixed);
        let terms = size.terms.iter().map(|t| self.term(t, root, scope, depth));
        quote!((#fixed #(+ #terms)*))
    }

    fn resolve(
        &self,
        place: &Place,
        root: &dyn Fn(&Place) -> Option<(TokenStream, &'a Node)>,
        scope: &[Binding<'a>],
    ) -> Option<(TokenStream, &'a Node)> {
        scope
            .iter()
            .rev()
            .find(|b| b.place == *place)
            .map(|b| (b.expr.clone(), b.node))
            .or_else(|| root(place))
    }

    fn term(
        &self,
        term: &Term,
        root: &dyn Fn(&Place) -> Option<(TokenStream, &'a Node)>,
        scope: &[Binding<'a>],
        depth: usize,
    ) -> TokenStream {
        let rt = &self.rt;
        let zero = quote!(0usize);
        match term {
            Term::Linear { k, of } => {
                let k = usize_lit(*k);
                let v = self.var(of, root, scope);
                quote!(#k * #v)
            }
            Term::Smallest { family, of }
                if of.0.is_empty()
                    && matches!(family, Family::Array | Family::Map)
                    && self.record_count.borrow().is_some() =>
            {
                // The record's own header: its number of entries present.
                let Some(count) = self.record_count.borrow().clone() else {
                    return zero;
                };
                let f = self.family(*family);
                quote!(#rt::wire::Wire::smallest_header_size(#f, (#count) as u64))
            }
            Term::Smallest { family, of } => {
                let Some((expr, node)) = self.resolve(of, root, scope) else {
                    return zero;
                };
                if *family == Family::Int {
                    return quote!(#rt::wire::Wire::smallest_int_size(#rt::IntValue::to_i128(#expr)));
                }
                let len = self.len_of(&expr, node);
                let f = self.family(*family);
                quote!(#rt::wire::Wire::smallest_header_size(#f, (#len) as u64))
            }
            Term::Each { of, element } => {
                let Some((expr, node)) = self.resolve(of, root, scope) else {
                    return zero;
                };
                let Type::Array(a) = &node.ty else { return zero };
                let x = names::element(depth);
                let mut inner = scope.to_vec();
                inner.push(Binding {
                    place: Place(vec![Step::Element]),
                    expr: quote!((*#x)),
                    node: &a.element,
                });
                let each = self.size_in(element, root, &inner, depth + 1);
                quote!(#rt::ArrayField::elements(&#expr).iter().map(|#x| #each).sum::<usize>())
            }
            Term::EachPair { of, key, value } => {
                let Some((expr, node)) = self.resolve(of, root, scope) else {
                    return zero;
                };
                let Type::Map(m) = &node.ty else { return zero };
                let x = names::element(depth);
                let mut inner = scope.to_vec();
                inner.push(Binding {
                    place: Place(vec![Step::Key]),
                    expr: quote!((*#rt::Pair::key(#x))),
                    node: &m.key,
                });
                inner.push(Binding {
                    place: Place(vec![Step::Value]),
                    expr: quote!((*#rt::Pair::value(#x))),
                    node: &m.value,
                });
                let key = self.size_in(key, root, &inner, depth + 1);
                let value = self.size_in(value, root, &inner, depth + 1);
                quote!(#rt::ArrayField::elements(&#expr).iter().map(|#x| #key + #value).sum::<usize>())
            }
            Term::Record { of, .. } => {
                let Some((expr, _)) = self.resolve(of, root, scope) else {
                    return zero;
                };
                quote!(#rt::Record::record_len(&#expr))
            }
            Term::Optional { of, size } => {
                let Some((expr, node)) = self.resolve(of, root, scope) else {
                    return zero;
                };
                let o = names::present(depth);
                let mut inner = scope.to_vec();
                inner.push(Binding {
                    place: of.clone(),
                    expr: quote!((*#o)),
                    node,
                });
                let present = self.size_in(size, root, &inner, depth + 1);
                quote!(match #rt::OptionField::get(&#expr) {
                    ::core::option::Option::Some(#o) => #present,
                    ::core::option::Option::None => 0usize,
                })
            }
        }
    }

    fn var(
        &self,
        var: &Var,
        root: &dyn Fn(&Place) -> Option<(TokenStream, &'a Node)>,
        scope: &[Binding<'a>],
    ) -> TokenStream {
        let rt = &self.rt;
        match var {
            // The place is a count entry's, whose expression is its value; or an array's.
            Var::Count(place) => match self.resolve(place, root, scope) {
                Some((expr, node)) if matches!(node.ty, Type::Int(_)) => quote!(((#expr) as usize)),
                Some((expr, _)) => quote!(#rt::ArrayField::elements(&#expr).len()),
                None => quote!(0usize),
            },
            Var::Len(place) => match self.resolve(place, root, scope) {
                Some((expr, node)) => self.len_of(&expr, node),
                None => quote!(0usize),
            },
        }
    }

    /// The length a header states for the value at `expr`: bytes of a string, bin or ext,
    /// elements of an array or map.
    fn len_of(&self, expr: &TokenStream, node: &Node) -> TokenStream {
        let rt = &self.rt;
        match &node.ty {
            Type::Str(t) if !t.raw => quote!(#rt::StrField::text(&#expr).len()),
            Type::Str(_) | Type::Bin(_) => quote!(#rt::BinField::bytes(&#expr).len()),
            Type::Ext(t) if t.ext_type.is_some() => quote!(#rt::BinField::bytes(&#expr).len()),
            Type::Ext(_) => quote!(#rt::ExtField::data(&#expr).len()),
            _ => quote!(#rt::ArrayField::elements(&#expr).len()),
        }
    }
}

/// `numpy = 0, other = 1`: an integer's named values, for messages.
fn named_list(t: &IntType) -> String {
    t.values
        .iter()
        .map(|(n, v)| format!("{n} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The statements and record-level pieces for one record.
pub(crate) struct RecordCode {
    /// Decoding: statements that leave each field's value in `names::field(name)`.
    pub decode: TokenStream,
    /// Checking before encoding.
    pub check: TokenStream,
    /// Writing.
    pub write: TokenStream,
}

/// The field a record entry is bound to: its identifier and type.
pub(crate) struct Slot<'f> {
    pub ident: &'f Ident,
    pub ty: &'f TokenStream,
}

impl Gen<'_> {
    /// The code for a record whose entries are bound to `slots` (one per entry; `None` for
    /// constants and counts). `place` gives a field's place expression.
    pub(crate) fn record(
        &self,
        record: &Record,
        slots: &[Option<Slot<'_>>],
        place: &dyn Fn(&Ident) -> TokenStream,
    ) -> RecordCode {
        let rt = &self.rt;
        let d = names::decoder();
        let e = names::encoder();
        let schema = names::schema();
        let entries_var = names::entries();
        let total = record.entries.len();
        let required = record.required;
        let path_of = |name: &str| quote!(#rt::Path::entry(&#name));

        // The header.
        let container_path = quote!(#rt::Path::CONTAINER);
        let (decode_header, write_header, present_count) = match record.header {
            Encoding::Fixed(w) if w.marker().is_none() && required == total => {
                let m = u8_lit(w.markers().0.wrapping_add(total as u8));
                let name = w.name();
                (
                    quote!(#d.marker(#m, #name, #container_path)?;),
                    quote!(#e.byte(#m);),
                    TokenStream::new(),
                )
            }
            Encoding::Fixed(w) if required == total => {
                let bytes = header_bytes(w, total).into_iter().map(u8_lit);
                let read = self.read_header(record.header, record.form, &container_path);
                let at = names::at(0);
                let t = usize_lit(total);
                (
                    quote! {
                        let #at = #d.position();
                        let #entries_var = #read;
                        #d.entries(#at, #entries_var, #t, #t, #container_path)?;
                    },
                    quote!(#e.bytes(&[#(#bytes),*]);),
                    TokenStream::new(),
                )
            }
            header => {
                let read = self.read_header(header, record.form, &container_path);
                let at = names::at(0);
                let (r, t) = (usize_lit(required), usize_lit(total));
                let present = names::present_count();
                let write = self.write_header(header, record.form, &quote!(#r + #present));
                // A gap among the optional entries is an error (checked); the header states the
                // required entries and the optional ones present (written). The check and the
                // write may be separate functions (a named record type's).
                let (absent, is) = (names::absent(), names::is_present());
                let mut gaps = Vec::new();
                let mut present_terms = Vec::new();
                let mut absent_before: Option<&str> = None;
                for (i, entry) in record.entries.iter().enumerate().skip(required) {
                    let Some(slot) = &slots[i] else { continue };
                    let p = place(slot.ident);
                    let name = entry.name.as_str();
                    let path = path_of(name);
                    let gap = match absent_before {
                        None => quote!(::core::option::Option::None),
                        Some(_) => quote!(#absent),
                    };
                    gaps.push(quote! {
                        let #is = #rt::OptionField::get(&#p).is_some();
                        #rt::check_optional(#schema, #path, #is, #gap)?;
                        if !#is && #absent.is_none() { #absent = ::core::option::Option::Some(#name); }
                    });
                    present_terms.push(quote!(usize::from(#rt::OptionField::get(&#p).is_some())));
                    absent_before = Some(name);
                }
                (
                    quote! {
                        let #at = #d.position();
                        let #entries_var = #read;
                        #d.entries(#at, #entries_var, #r, #t, #container_path)?;
                    },
                    quote! {
                        let #present: usize = 0 #(+ #present_terms)*;
                        #write
                    },
                    quote! {
                        let mut #absent: ::core::option::Option<&'static str> = ::core::option::Option::None;
                        #(#gaps)*
                        let _ = #absent;
                    },
                )
            }
        };

        let mut decode = vec![decode_header];
        let mut check = vec![present_count];
        let mut write = vec![write_header];
        let is_map = record.form == Family::Map;

        // Count entries: the variable their arrays are checked against, and the first array
        // counted (whose length is the count on encode).
        for (i, entry) in record.entries.iter().enumerate() {
            let name = entry.name.as_str();
            let path = path_of(name);
            let key = entry.key.as_deref().filter(|_| is_map);
            let decode_key = key.map(|k| quote!(#d.key(#k, #path)?;));
            let write_key = key.map(|k| {
                let bytes = key_bytes(k).into_iter().map(u8_lit);
                quote!(#e.bytes(&[#(#bytes),*]);)
            });
            let count_ref = match &entry.node.ty {
                Type::Array(ArrayType {
                    count: Count::Entry(c), ..
                })
                | Type::Map(MapType {
                    count: Count::Entry(c), ..
                }) => Some(CountRef {
                    var: names::count(&record.entries[*c].name),
                    name: record.entries[*c].name.as_str(),
                }),
                _ => None,
            };
            match &entry.role {
                Role::Field => {
                    let Some(slot) = &slots[i] else { continue };
                    let (ty, p) = (slot.ty, place(slot.ident));
                    let var = names::field(name);
                    if entry.optional {
                        let inner = quote!(<#ty as #rt::OptionField>::Inner);
                        let value = self.decode(&entry.node, &inner, &path, 1, count_ref.as_ref(), Some(name));
                        let idx = usize_lit(i);
                        decode.push(quote! {
                            let #var: #ty = if #entries_var > #idx {
                                #decode_key
                                <#ty as #rt::OptionField>::some(#value)
                            } else {
                                <#ty as #rt::OptionField>::none()
                            };
                        });
                        let o = names::present(0);
                        let inner_check = self.check(&entry.node, &quote!((*#o)), &path, 1, Some(name));
                        let inner_write = self.write(&entry.node, &quote!((*#o)), 1);
                        check.push(quote! {
                            if let ::core::option::Option::Some(#o) = #rt::OptionField::get(&#p) {
                                #inner_check
                            }
                        });
                        write.push(quote! {
                            if let ::core::option::Option::Some(#o) = #rt::OptionField::get(&#p) {
                                #write_key
                                #inner_write
                            }
                        });
                    } else {
                        let value = self.decode(&entry.node, ty, &path, 1, count_ref.as_ref(), Some(name));
                        decode.push(quote! {
                            #decode_key
                            let #var: #ty = #value;
                        });
                        check.push(self.check(&entry.node, &p, &path, 1, Some(name)));
                        let w = self.write(&entry.node, &p, 1);
                        write.push(quote!(#write_key #w));
                    }
                }
                Role::Const(c) => {
                    let value = self.decode_const(&entry.node, c, &path);
                    decode.push(quote!(#decode_key #value));
                    let bytes = const_bytes(&entry.node, c).into_iter().map(u8_lit);
                    write.push(quote!(#write_key #e.bytes(&[#(#bytes),*]);));
                }
                Role::Count { of } => {
                    let Type::Int(t) = &entry.node.ty else { continue };
                    let var = names::count(name);
                    let (at, v) = (names::at(1), names::int(1));
                    let read = self.read_int(t.encoding, &path);
                    let clamped = IntType {
                        min: t.min.max(0),
                        ..t.clone()
                    };
                    let checks = self.int_checks(&clamped, None, &at, &v, &path);
                    let force_range = if clamped.min != t.min {
                        let (lo, hi) = (i128_lit(clamped.min), i128_lit(clamped.max));
                        quote!(#d.range(#at, #v, #lo, #hi, #path)?;)
                    } else {
                        TokenStream::new()
                    };
                    decode.push(quote! {
                        #decode_key
                        let #at = #d.position();
                        let #v: i128 = #read;
                        #force_range
                        #checks
                        let #var = #v as usize;
                    });
                    // The first counted entry sets the count; the others must agree.
                    let mut first: Option<(&str, TokenStream)> = None;
                    let (lo, hi) = (
                        usize_lit(usize::try_from(clamped.min).unwrap_or(0)),
                        usize_lit(usize::try_from(clamped.max).unwrap_or(usize::MAX)),
                    );
                    for &a in of {
                        let Some(slot) = &slots[a] else { continue };
                        let aname = record.entries[a].name.as_str();
                        let p = place(slot.ident);
                        let len = quote!(#rt::ArrayField::elements(&#p).len());
                        match &first {
                            None => {
                                check.push(quote! {
                                    let #var = #len;
                                    #rt::check_count(#schema, #name, &#aname, #var, #lo, #hi)?;
                                });
                                first = Some((aname, len));
                            }
                            Some((reference, _)) => check.push(quote! {
                                #rt::check_same_len(#schema, #name, #reference, #var, &#aname, #len)?;
                            }),
                        }
                    }
                    let len = first.map_or(quote!(0usize), |(_, len)| len);
                    let w = match t.encoding {
                        Encoding::Fixed(w) if w.marker().is_none() => quote!(#e.byte((#len) as u8);),
                        Encoding::Fixed(w) => {
                            let (marker, native) = (u8_lit(w.marker().unwrap_or_default()), native_int(w));
                            quote! {
                                #e.byte(#marker);
                                #e.bytes(&((#len) as #native).to_be_bytes());
                            }
                        }
                        Encoding::Canonical { .. } => quote!(#e.any_int((#len) as i128);),
                    };
                    write.push(quote!(#write_key #w));
                }
            }
        }
        RecordCode {
            decode: quote!(#(#decode)*),
            check: quote!(#(#check)*),
            write: quote!(#(#write)*),
        }
    }
}
