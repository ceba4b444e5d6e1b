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
use quote::{quote, quote_spanned};

use crate::names;

/// The generator's settings for one struct.
pub(crate) struct Gen<'a> {
    pub layout: &'a Layout,
    /// The runtime's path in generated code.
    pub rt: TokenStream,
    /// The lifetime decoded values borrow the input for.
    pub de: TokenStream,
    /// The struct's own lifetimes, which compile-time assertions replace with `'static`.
    pub lifetimes: Vec<String>,
    /// Compile-time assertions on field types, collected while generating.
    pub asserts: RefCell<TokenStream>,
    /// The number of entries a record being measured has present, for its canonical header.
    pub record_count: RefCell<Option<TokenStream>>,
    /// The count entries of the record being generated, by entry index: the count's name and
    /// the first entry it counts, for the arrays and maps nested in its entries it counts.
    pub counts: RefCell<Vec<Option<(String, String)>>>,
}

/// A count entry that an array of the same record is counted by, as its decoder sees it.
pub(crate) struct CountRef<'a> {
    pub var: Ident,
    pub name: &'a str,
}

/// Resolves a place that names an entry of the record being measured (or the empty place, the
/// top-level value) to its expression and node.
type Root<'r, 'n> = dyn Fn(&Place) -> Option<(TokenStream, &'n Node)> + 'r;

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

/// `0x91u8, 0x05u8,`: bytes as the items of an array expression.
fn u8_list(bytes: &[u8]) -> TokenStream {
    let mut list = TokenStream::new();
    for &b in bytes {
        let b = u8_lit(b);
        list.extend(quote!(#b,));
    }
    list
}

/// An integer's named values as the items of an array expression.
fn named_values(t: &IntType) -> TokenStream {
    let mut list = TokenStream::new();
    for (_, value) in &t.values {
        let value = i128_lit(*value);
        list.extend(quote!(#value,));
    }
    list
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

/// Each of `lifetimes` (`a` for `'a`) replaced by `'static` everywhere in `tokens`, inside groups
/// too: the assertions outside an item's impls name its types so, where its lifetimes are not
/// declared.
pub(crate) fn with_static_lifetimes(tokens: TokenStream, lifetimes: &[String]) -> TokenStream {
    let mut out = Vec::new();
    let mut iter = tokens.into_iter().peekable();
    while let Some(t) = iter.next() {
        match t {
            TokenTree::Punct(p) if p.as_char() == '\'' => match iter.peek() {
                Some(TokenTree::Ident(i)) if lifetimes.iter().any(|l| *i == l.as_str()) => {
                    let span = i.span();
                    iter.next();
                    out.push(TokenTree::Punct(p));
                    out.push(TokenTree::Ident(Ident::new("static", span)));
                }
                _ => out.push(TokenTree::Punct(p)),
            },
            TokenTree::Group(g) => {
                let mut group = proc_macro2::Group::new(g.delimiter(), with_static_lifetimes(g.stream(), lifetimes));
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
        let variant = Ident::new(&format!("{w:?}"), Span::call_site());
        quote!(#rt::wire::Wire::#variant)
    }

    fn family(&self, f: Family) -> TokenStream {
        let rt = &self.rt;
        let variant = Ident::new(&format!("{f:?}"), Span::call_site());
        quote!(#rt::wire::Family::#variant)
    }

    /// Adds a compile-time assertion, reported at `span` with `message` when `condition` is false.
    fn assert(&self, span: Span, condition: TokenStream, message: String) {
        let condition = if self.lifetimes.is_empty() {
            condition
        } else {
            with_static_lifetimes(condition, &self.lifetimes)
        };
        self.asserts.borrow_mut().extend(quote_spanned! {span=>
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

    /// That the type bound to a string or byte string of fixed length (`len`) can hold that
    /// many bytes: a `[u8; N]` exactly, an `ArrayVec<u8, N>` or `ArrayString<N>` at least.
    fn fixed_len_assert(&self, node: &Node, ty: &TokenStream, span: Span, what: &str, shown: &str) {
        let rt = &self.rt;
        let Some((_, family, Some(len))) = node.ty.bytes_layout() else {
            return;
        };
        let k = usize_lit(len);
        let condition = match &node.ty {
            Type::Str(t) if !t.raw => quote!(#k <= <#ty as #rt::StrField<'static>>::MAX_LEN),
            _ => {
                quote!(<#ty as #rt::BinField<'static>>::MIN_LEN <= #k && #k <= <#ty as #rt::BinField<'static>>::MAX_LEN)
            }
        };
        self.assert(
            span,
            condition,
            format!(
                "`{shown}` cannot hold {what}: it is a {} of exactly {len} bytes (`len = {len}`), and the type holds no such length",
                family.name()
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
            Type::Str(_) | Type::Bin(_) => self.fixed_len_assert(node, ty, span, what, shown),
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
            Type::Bin(b) => {
                let (at, n) = (names::at(depth), names::len(depth));
                let (bytes, kind) = (names::bytes(), names::error_kind());
                let header = self.read_header(b.encoding, Family::Bin, path);
                let fixed = self.fixed_len(b.len, path, depth);
                quote!({
                    let #at = #d.position();
                    let #n = #header;
                    #fixed
                    let #bytes = #d.bytes(#n, #path)?;
                    <#ty as #rt::BinField<'_>>::from_bytes(#bytes).map_err(|#kind| #d.error_at(#at, ::core::clone::Clone::clone(#path), #kind))?
                })
            }
            Type::Ext(t) => self.decode_ext(t, ty, path, depth),
            Type::Array(a) => self.decode_array(a, ty, path, depth, count, entry),
            Type::Map(m) => self.decode_map(m, ty, path, depth, count),
            Type::Ref(_) => {
                let de = &self.de;
                let error = names::nested_error();
                quote!(<#ty as #rt::Record<#de>>::decode_record(#d).map_err(|#error| #error.within(::core::clone::Clone::clone(#path)))?)
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
            let (values, names) = (named_values(t), named_list(t));
            quote!(#d.named(#at, #v, &[#values], #names, #path)?;)
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
        let fixed = self.fixed_len(t.len, path, depth);
        if t.raw {
            let header = self.read_header(t.encoding, Family::Str, path);
            return quote!({
                let #at = #d.position();
                let #n = #header;
                #fixed
                let #bytes = #d.bytes(#n, #path)?;
                <#ty as #rt::BinField<'_>>::from_bytes(#bytes).map_err(|#kind| #d.error_at(#at, ::core::clone::Clone::clone(#path), #kind))?
            });
        }
        let text = match t.encoding {
            Encoding::Fixed(w @ (Wire::Str8 | Wire::Str16 | Wire::Str32)) if t.len.is_none() => {
                let (marker, width, name) = (u8_lit(w.marker().unwrap_or_default()), w.width(), w.name());
                quote!(#d.str::<#width>(#marker, #name, #path)?)
            }
            encoding => {
                let header = self.read_header(encoding, Family::Str, path);
                let start = names::text_start();
                quote!({
                    let #n = #header;
                    #fixed
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
                #d.error_at(#at, ::core::clone::Clone::clone(#path), #rt::DecodeErrorKind::StrCapacity { capacity: #capacity, found: #text_var.len() })
            })?
        })
    }

    /// The check of a string's or byte string's length `n`, read at `at`, against the length
    /// the schema fixes, if it does.
    fn fixed_len(&self, len: Option<usize>, path: &TokenStream, depth: usize) -> TokenStream {
        let d = names::decoder();
        let (at, n) = (names::at(depth), names::len(depth));
        len.map(|k| {
            let k = usize_lit(k);
            quote!(#d.length(#at, #k, #n, #path)?;)
        })
        .unwrap_or_default()
    }

    /// A timestamp's form: its fixed wire type, or `None` for the smallest form.
    fn timestamp_form(&self, t: &ExtType) -> TokenStream {
        match t.encoding {
            Encoding::Fixed(w) => {
                let w = self.wire(w);
                quote!(::core::option::Option::Some(#w))
            }
            Encoding::Canonical { .. } => quote!(::core::option::Option::None),
        }
    }

    fn decode_ext(&self, t: &ExtType, ty: &TokenStream, path: &TokenStream, depth: usize) -> TokenStream {
        let rt = &self.rt;
        let de = &self.de;
        let d = names::decoder();
        if t.timestamp {
            let form = self.timestamp_form(t);
            let smallest = !matches!(t.encoding, Encoding::Canonical { lenient: true });
            return quote!(<#ty as #rt::TimestampField>::from_timestamp(#d.timestamp(#form, #smallest, #path)?));
        }
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
                <#ty as #rt::BinField<#de>>::from_bytes(#bytes).map_err(|#kind| #d.error_at(#at, ::core::clone::Clone::clone(#path), #kind))?
            }),
            None => quote!({
                let #at = #d.position();
                let (#ext_type, #n) = #header;
                let #bytes = #d.bytes(#n, #path)?;
                <#ty as #rt::ExtField<#de>>::from_parts(#ext_type, #bytes).map_err(|#kind| #d.error_at(#at, ::core::clone::Clone::clone(#path), #kind))?
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
            <#ty as #rt::ArrayField>::check_count(#n).map_err(|#kind| #d.error_at(#at, ::core::clone::Clone::clone(#path), #kind))?;
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
            return quote!({
                let mut #arr = <#ty as #rt::ArrayField>::empty();
                #d.array::<#ty, #native, #width>(&mut #arr, #var, #name, #marker, #wname, &#entry)?;
                #arr
            });
        }
        let read = self.read_count(a.header, Family::Array, &a.count, count, path, depth);
        let elem_path = quote!(&#rt::Path::index(::core::clone::Clone::clone(#path), #i));
        let counts = self.counts.borrow();
        let elem_count = nested_count_ref(&counts, &a.element);
        let elem = self.decode(&a.element, &elem_ty, &elem_path, depth + 1, elem_count.as_ref(), None);
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
        let elem_path = quote!(&#rt::Path::index(::core::clone::Clone::clone(#path), #i));
        let counts = self.counts.borrow();
        let (key_count, value_count) = (nested_count_ref(&counts, &m.key), nested_count_ref(&counts, &m.value));
        let key = self.decode(&m.key, &key_ty, &elem_path, depth + 1, key_count.as_ref(), None);
        let value = self.decode(&m.value, &value_ty, &elem_path, depth + 1, value_count.as_ref(), None);
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
                let payload = u8_list(&const_payload(node, c));
                let bits = names::float_bits();
                quote! {
                    let #at = #d.position();
                    let #bits = #d.int::<#width>(#marker, #name, #path)?;
                    #d.constant_bytes(#at, &#bits, &[#payload], #path)?;
                }
            }
            (Type::Str(_) | Type::Bin(_), Const::Bytes(_)) => {
                let Some((encoding, family, _)) = node.ty.bytes_layout() else {
                    return TokenStream::new();
                };
                let header = self.read_header(encoding, family, path);
                let payload = u8_list(&const_payload(node, c));
                let (n, bytes) = (names::len(1), names::bytes());
                quote! {
                    let #at = #d.position();
                    let #n = #header;
                    let #bytes = #d.bytes(#n, #path)?;
                    #d.constant_bytes(#at, #bytes, &[#payload], #path)?;
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
        match &node.ty {
            Type::Nil | Type::Bool | Type::Float(_) | Type::Record(_) => TokenStream::new(),
            Type::Int(t) => self.check_int(t, place, path, depth),
            Type::Str(t) => self.check_str(t, place, path, entry),
            Type::Bin(b) => self.check_len(
                b.encoding,
                Family::Bin,
                b.len,
                &quote!(#rt::BinField::bytes(&#place).len()),
                path,
            ),
            Type::Ext(t) => self.check_ext(t, place, path),
            Type::Array(a) => self.check_array(a, place, path, depth),
            Type::Map(m) => self.check_map(m, place, path, depth),
            Type::Ref(_) => self.check_record_ref(place, path),
        }
    }

    /// An integer's range and named values.
    fn check_int(&self, t: &IntType, place: &TokenStream, path: &TokenStream, depth: usize) -> TokenStream {
        let rt = &self.rt;
        let schema = names::schema();
        let v = names::int(depth);
        let (lo, hi) = (i128_lit(t.min), i128_lit(t.max));
        let named = if t.values.is_empty() {
            TokenStream::new()
        } else {
            let (values, names) = (named_values(t), named_list(t));
            quote! {
                if ![#values].contains(&#v) {
                    #rt::check_named(#schema, ::core::clone::Clone::clone(#path), #v, &[#values], #names)?;
                }
            }
        };
        // The comparisons come first, so that the path is built only for an error, and a type
        // whose range lies within the entry's compiles to nothing.
        quote! {
            let #v = #rt::IntValue::to_i128(#place);
            #[allow(clippy::manual_range_contains)]
            if #v < #lo || #v > #hi {
                #rt::check_range(#schema, ::core::clone::Clone::clone(#path), #v, #lo, #hi)?;
            }
            #named
        }
    }

    /// A string's length against its header (for a fixed wire type with an entry, the check
    /// that names the entry).
    fn check_str(&self, t: &StrType, place: &TokenStream, path: &TokenStream, entry: Option<&str>) -> TokenStream {
        let rt = &self.rt;
        let schema = names::schema();
        let len = if t.raw {
            quote!(#rt::BinField::bytes(&#place).len())
        } else {
            quote!(#rt::StrField::text(&#place).len())
        };
        match (t.encoding, entry, t.raw, t.len) {
            (Encoding::Fixed(w), Some(entry), false, None) => {
                let (name, max) = (w.name(), u64_lit(w.max_len().unwrap_or(u64::MAX)));
                quote!(#rt::check_str_len(#schema, &#entry, #name, #rt::StrField::text(&#place), #max)?;)
            }
            (encoding, _, _, fixed) => self.check_len(encoding, Family::Str, fixed, &len, path),
        }
    }

    /// An ext's data length against its header; a timestamp's time against its form.
    fn check_ext(&self, t: &ExtType, place: &TokenStream, path: &TokenStream) -> TokenStream {
        let rt = &self.rt;
        if t.timestamp {
            let (schema, form) = (names::schema(), self.timestamp_form(t));
            return quote!(#rt::check_timestamp(#schema, ::core::clone::Clone::clone(#path), #rt::TimestampField::to_timestamp(&#place), #form)?;);
        }
        let len = match t.ext_type {
            Some(_) => quote!(#rt::BinField::bytes(&#place).len()),
            None => quote!(#rt::ExtField::data(&#place).len()),
        };
        self.check_len(t.encoding, Family::Ext, None, &len, path)
    }

    /// An array's count, then each element.
    fn check_array(&self, a: &ArrayType, place: &TokenStream, path: &TokenStream, depth: usize) -> TokenStream {
        let rt = &self.rt;
        let len = quote!(#rt::ArrayField::elements(&#place).len());
        let count = self.check_count(a.header, Family::Array, &a.count, &len, path, depth);
        let (i, x) = (names::index(depth), names::element(depth));
        let elem_path = quote!(&#rt::Path::index(::core::clone::Clone::clone(#path), #i));
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

    /// A map's count, then each pair's key and value.
    fn check_map(&self, m: &MapType, place: &TokenStream, path: &TokenStream, depth: usize) -> TokenStream {
        let rt = &self.rt;
        let len = quote!(#rt::ArrayField::elements(&#place).len());
        let count = self.check_count(m.header, Family::Map, &m.count, &len, path, depth);
        let (i, x) = (names::index(depth), names::element(depth));
        let elem_path = quote!(&#rt::Path::index(::core::clone::Clone::clone(#path), #i));
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

    /// A named record type's value: its own checks, with the path added to their errors.
    fn check_record_ref(&self, place: &TokenStream, path: &TokenStream) -> TokenStream {
        let rt = &self.rt;
        let (schema, error) = (names::schema(), names::nested_error());
        quote! {
            #rt::Record::check_record(&#place, #schema).map_err(|#error| #error.within(::core::clone::Clone::clone(#path)))?;
        }
    }

    /// A length check against what the header can state, or the length the schema fixes.
    fn check_len(
        &self,
        encoding: Encoding,
        family: Family,
        fixed: Option<usize>,
        len: &TokenStream,
        path: &TokenStream,
    ) -> TokenStream {
        let rt = &self.rt;
        let schema = names::schema();
        let (name, min, max) = match encoding {
            Encoding::Fixed(w) => match w.fixext_len() {
                Some(n) => (w.name(), n as u64, n as u64),
                None => (w.name(), 0, w.max_len().unwrap_or(u64::MAX)),
            },
            Encoding::Canonical { .. } => (family.name(), 0, u64::from(u32::MAX)),
        };
        let (min, max) = fixed.map_or((min, max), |k| (k as u64, k as u64));
        let (min, max) = (u64_lit(min), u64_lit(max));
        quote!(#rt::check_len(#schema, ::core::clone::Clone::clone(#path), #name, #min, #max, #len)?;)
    }

    /// An array's or map's count check. An entry counted by an earlier one is checked with
    /// that entry; an array or map nested in an entry (`depth` past 1), against its value.
    fn check_count(
        &self,
        header: Encoding,
        family: Family,
        count: &Count,
        len: &TokenStream,
        path: &TokenStream,
        depth: usize,
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
                quote!(#rt::check_len(#schema, ::core::clone::Clone::clone(#path), #name, #k, #k, #len)?;)
            }
            Count::Header => self.check_len(header, family, None, len, path),
            Count::Entry(c) if depth > 1 => {
                let counts = self.counts.borrow();
                let Some(Some((name, reference))) = counts.get(*c) else {
                    return TokenStream::new();
                };
                let var = names::count(name);
                quote!(#rt::check_counted(#schema, ::core::clone::Clone::clone(#path), #name, #reference, #var, #len)?;)
            }
            Count::Entry(_) => TokenStream::new(),
        }
    }

    // ---------------------------------------------------------------- write

    /// Statements writing the value at `place`, which the checks accepted.
    pub(crate) fn write(&self, node: &Node, place: &TokenStream, depth: usize) -> TokenStream {
        let rt = &self.rt;
        let e = names::encoder();
        match &node.ty {
            Type::Nil => self.write_nil(),
            Type::Bool => self.write_bool(place),
            Type::Int(t) => self.write_int(t.encoding, place),
            Type::Float(w) => self.write_float(*w, place),
            Type::Str(t) => self.write_str(t, place),
            Type::Bin(b) => self.write_bytes(b.encoding, Family::Bin, &quote!(#rt::BinField::bytes(&#place))),
            Type::Ext(t) => self.write_ext(t, place),
            Type::Array(a) => self.write_array(a, place, depth),
            Type::Map(m) => self.write_map(m, place, depth),
            Type::Ref(_) => quote!(#rt::Record::encode_record(&#place, #e);),
            Type::Record(_) => TokenStream::new(),
        }
    }

    /// `nil`'s one byte.
    fn write_nil(&self) -> TokenStream {
        let e = names::encoder();
        let m = u8_lit(Wire::Nil.markers().0);
        quote!(#e.byte(#m);)
    }

    /// A bool's one byte.
    fn write_bool(&self, place: &TokenStream) -> TokenStream {
        let rt = &self.rt;
        let e = names::encoder();
        let (f, t) = (u8_lit(Wire::Bool.markers().0), u8_lit(Wire::Bool.markers().1));
        quote!(#e.byte(if #rt::BoolValue::to_bool(#place) { #t } else { #f });)
    }

    /// An integer of `encoding`: a fixint's one byte, a fixed wire type's marker and payload,
    /// or the smallest encoding.
    fn write_int(&self, encoding: Encoding, place: &TokenStream) -> TokenStream {
        let rt = &self.rt;
        let e = names::encoder();
        match encoding {
            Encoding::Fixed(w) if w.marker().is_none() => quote!(#e.byte(#rt::IntValue::to_i128(#place) as u8);),
            Encoding::Fixed(w) => {
                let (marker, native) = (u8_lit(w.marker().unwrap_or_default()), native_int(w));
                quote! {
                    #e.byte(#marker);
                    #e.bytes(&(#rt::IntValue::to_i128(#place) as #native).to_be_bytes());
                }
            }
            Encoding::Canonical { .. } => quote!(#e.any_int(#rt::IntValue::to_i128(#place));),
        }
    }

    /// A float's marker and payload.
    fn write_float(&self, w: Wire, place: &TokenStream) -> TokenStream {
        let rt = &self.rt;
        let e = names::encoder();
        let marker = u8_lit(w.marker().unwrap_or_default());
        let bits = if w == Wire::Float32 { quote!(u32) } else { quote!(u64) };
        quote! {
            #e.byte(#marker);
            #e.bytes(&(#rt::FloatValue::to_bits_be(#place) as #bits).to_be_bytes());
        }
    }

    /// A string's header and bytes (a raw string's bytes as they are).
    fn write_str(&self, t: &StrType, place: &TokenStream) -> TokenStream {
        let rt = &self.rt;
        let bytes = if t.raw {
            quote!(#rt::BinField::bytes(&#place))
        } else {
            quote!(#rt::StrField::text(&#place).as_bytes())
        };
        self.write_bytes(t.encoding, Family::Str, &bytes)
    }

    /// An ext's header, type and data; a timestamp in its form.
    fn write_ext(&self, t: &ExtType, place: &TokenStream) -> TokenStream {
        let rt = &self.rt;
        let e = names::encoder();
        if t.timestamp {
            let form = self.timestamp_form(t);
            return quote!(#e.timestamp(#rt::TimestampField::to_timestamp(&#place), #form););
        }
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

    /// An array's header, then its elements (integers of a fixed wire type with a marker in one
    /// call).
    fn write_array(&self, a: &ArrayType, place: &TokenStream, depth: usize) -> TokenStream {
        let rt = &self.rt;
        let e = names::encoder();
        let elements = quote!(#rt::ArrayField::elements(&#place));
        let header = self.write_header(a.header, Family::Array, &quote!(#elements.len()));
        let x = names::element(depth);
        if let Type::Int(t) = &a.element.ty
            && let Encoding::Fixed(w) = t.encoding
            && w.marker().is_some()
        {
            let (marker, native, width) = (u8_lit(w.marker().unwrap_or_default()), native_int(w), w.width());
            return quote! {
                #header
                #e.int_array(#marker, #elements.iter().map(#rt::be_payload::<_, #native, #width>));
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

    /// A map's header, then each pair's key and value.
    fn write_map(&self, m: &MapType, place: &TokenStream, depth: usize) -> TokenStream {
        let rt = &self.rt;
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
    pub(crate) fn size(&self, size: &Size, root: &Root<'_, 'a>) -> TokenStream {
        self.size_in(size, root, &[], 0)
    }

    fn size_in(&self, size: &Size, root: &Root<'_, 'a>, scope: &[Binding<'a>], depth: usize) -> TokenStream {
        let fixed = usize_lit(size.fixed);
        let mut sum = quote!(#fixed);
        for t in &size.terms {
            let term = self.term(t, root, scope, depth);
            sum.extend(quote!(+ #term));
        }
        quote!((#sum))
    }

    fn resolve(&self, place: &Place, root: &Root<'_, 'a>, scope: &[Binding<'a>]) -> Option<(TokenStream, &'a Node)> {
        scope
            .iter()
            .rev()
            .find(|b| b.place == *place)
            .map(|b| (b.expr.clone(), b.node))
            .or_else(|| root(place))
    }

    /// One term of a size formula as an expression.
    fn term(&self, term: &Term, root: &Root<'_, 'a>, scope: &[Binding<'a>], depth: usize) -> TokenStream {
        match term {
            Term::Linear { k, of } => self.linear_term(*k, of, root, scope),
            Term::Smallest { family, of }
                if of.0.is_empty()
                    && matches!(family, Family::Array | Family::Map)
                    && self.record_count.borrow().is_some() =>
            {
                self.record_header_term(*family)
            }
            Term::Smallest { family, of } => self.smallest_term(*family, of, root, scope),
            Term::Each { of, element } => self.each_term(of, element, root, scope, depth),
            Term::EachPair { of, key, value } => self.each_pair_term(of, (key, value), root, scope, depth),
            Term::Record { of, .. } => self.record_term(of, root, scope),
            Term::Optional { of, size } => self.optional_term(of, size, root, scope, depth),
        }
    }

    /// `k` times a count or length.
    fn linear_term(&self, k: usize, of: &Var, root: &Root<'_, 'a>, scope: &[Binding<'a>]) -> TokenStream {
        let k = usize_lit(k);
        let v = self.var(of, root, scope);
        quote!(#k * #v)
    }

    /// The size of the record's own header, from its number of entries present.
    fn record_header_term(&self, family: Family) -> TokenStream {
        let rt = &self.rt;
        let Some(count) = self.record_count.borrow().clone() else {
            return quote!(0usize);
        };
        let f = self.family(family);
        quote!(#rt::wire::Wire::smallest_header_size(#f, (#count) as u64))
    }

    /// The size of the smallest encoding of the integer, or of the header of the length, at
    /// `of`.
    fn smallest_term(&self, family: Family, of: &Place, root: &Root<'_, 'a>, scope: &[Binding<'a>]) -> TokenStream {
        let rt = &self.rt;
        let Some((expr, node)) = self.resolve(of, root, scope) else {
            return quote!(0usize);
        };
        if family == Family::Int {
            return quote!(#rt::wire::Wire::smallest_int_size(#rt::IntValue::to_i128(#expr)));
        }
        let len = self.len_of(&expr, node);
        let f = self.family(family);
        quote!(#rt::wire::Wire::smallest_header_size(#f, (#len) as u64))
    }

    /// The sum of `element`'s size over the elements of the array at `of`.
    fn each_term(
        &self,
        of: &Place,
        element: &Size,
        root: &Root<'_, 'a>,
        scope: &[Binding<'a>],
        depth: usize,
    ) -> TokenStream {
        let rt = &self.rt;
        let Some((expr, node)) = self.resolve(of, root, scope) else {
            return quote!(0usize);
        };
        let Type::Array(a) = &node.ty else {
            return quote!(0usize);
        };
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

    /// The sum of the key's and the value's sizes over the pairs of the map at `of`.
    fn each_pair_term(
        &self,
        of: &Place,
        (key, value): (&Size, &Size),
        root: &Root<'_, 'a>,
        scope: &[Binding<'a>],
        depth: usize,
    ) -> TokenStream {
        let rt = &self.rt;
        let Some((expr, node)) = self.resolve(of, root, scope) else {
            return quote!(0usize);
        };
        let Type::Map(m) = &node.ty else {
            return quote!(0usize);
        };
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

    /// The length of the named record type's value at `of`.
    fn record_term(&self, of: &Place, root: &Root<'_, 'a>, scope: &[Binding<'a>]) -> TokenStream {
        let rt = &self.rt;
        let Some((expr, _)) = self.resolve(of, root, scope) else {
            return quote!(0usize);
        };
        quote!(#rt::Record::record_len(&#expr))
    }

    /// `size` when the optional value at `of` is present, else nothing.
    fn optional_term(
        &self,
        of: &Place,
        size: &Size,
        root: &Root<'_, 'a>,
        scope: &[Binding<'a>],
        depth: usize,
    ) -> TokenStream {
        let rt = &self.rt;
        let Some((expr, node)) = self.resolve(of, root, scope) else {
            return quote!(0usize);
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

    fn var(&self, var: &Var, root: &Root<'_, 'a>, scope: &[Binding<'a>]) -> TokenStream {
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
            // The data of a timestamp's smallest form (its fixed forms have a fixed size).
            Type::Ext(t) if t.timestamp => quote!(#rt::Timestamp::data_len(
                #rt::Timestamp::smallest_wire(#rt::TimestampField::to_timestamp(&#expr))
            )),
            Type::Ext(t) if t.ext_type.is_some() => quote!(#rt::BinField::bytes(&#expr).len()),
            Type::Ext(_) => quote!(#rt::ExtField::data(&#expr).len()),
            _ => quote!(#rt::ArrayField::elements(&#expr).len()),
        }
    }
}

/// The count entry an array or map nested in an entry is counted by, from the record's
/// `counts` ([`Gen::counts`]).
fn nested_count_ref<'c>(counts: &'c [Option<(String, String)>], node: &Node) -> Option<CountRef<'c>> {
    match &node.ty {
        Type::Array(ArrayType {
            count: Count::Entry(c), ..
        })
        | Type::Map(MapType {
            count: Count::Entry(c), ..
        }) => counts.get(*c)?.as_ref().map(|(name, _)| CountRef {
            var: names::count(name),
            name: name.as_str(),
        }),
        _ => None,
    }
}

/// `numpy = 0, other = 1`: an integer's named values, for messages.
fn named_list(t: &IntType) -> String {
    let mut list = String::new();
    for (n, v) in &t.values {
        if !list.is_empty() {
            list.push_str(", ");
        }
        list.push_str(&format!("{n} = {v}"));
    }
    list
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

/// A record's statements as they are gathered, in entry order.
struct RecordParts {
    decode: TokenStream,
    check: TokenStream,
    write: TokenStream,
}

/// A record's entries as bound to a struct's fields: one slot per entry (`None` for constants
/// and counts), and a field's place expression.
#[derive(Clone, Copy)]
struct Fields<'f, 's> {
    slots: &'f [Option<Slot<'s>>],
    place: &'f dyn Fn(&Ident) -> TokenStream,
}

/// An entry's key in a map record: the statement reading and checking it, and the one writing
/// it; both empty for an entry of an array record.
struct KeyCode {
    decode: Option<TokenStream>,
    write: Option<TokenStream>,
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
        let fields = Fields { slots, place };
        let mut counts = Vec::with_capacity(record.entries.len());
        for e in &record.entries {
            counts.push(match &e.role {
                Role::Count { of } => of.first().map(|&a| (e.name.clone(), record.entries[a].name.clone())),
                _ => None,
            });
        }
        *self.counts.borrow_mut() = counts;
        let (decode_header, write_header, check_optional) = self.record_header(record, fields);
        let mut parts = RecordParts {
            decode: decode_header,
            check: check_optional,
            write: write_header,
        };
        for (i, entry) in record.entries.iter().enumerate() {
            match &entry.role {
                Role::Field => {
                    let Some(slot) = &slots[i] else { continue };
                    self.field_entry(record, i, slot, fields, &mut parts);
                }
                Role::Const(c) => self.const_entry(record, i, c, &mut parts),
                Role::Count { of } => self.count_entry(record, i, of, fields, &mut parts),
            }
        }
        RecordCode {
            decode: parts.decode,
            check: parts.check,
            write: parts.write,
        }
    }

    /// `&Path::entry("name")`: where entry `name` is, in errors. Paths in generated code are
    /// `&Path`s, and those of entries are constants: a read passes a pointer to a static,
    /// built by the compiler; only an error copies it.
    fn entry_path(&self, name: &str) -> TokenStream {
        let rt = &self.rt;
        quote!(const { &#rt::Path::entry(&#name) })
    }

    /// The key of entry `i` of `record`, read before its value and written before it.
    fn entry_key(&self, record: &Record, i: usize) -> KeyCode {
        let (d, e) = (names::decoder(), names::encoder());
        let entry = &record.entries[i];
        let path = self.entry_path(&entry.name);
        let key = entry.key.as_deref().filter(|_| record.form == Family::Map);
        KeyCode {
            decode: key.map(|k| quote!(#d.key(#k, #path)?;)),
            write: key.map(|k| {
                let bytes = u8_list(&key_bytes(k));
                quote!(#e.bytes(&[#bytes]);)
            }),
        }
    }

    /// The record's header: the statements reading it, writing it, and checking the optional
    /// entries present before it is written.
    fn record_header(&self, record: &Record, fields: Fields<'_, '_>) -> (TokenStream, TokenStream, TokenStream) {
        let rt = &self.rt;
        let (d, e) = (names::decoder(), names::encoder());
        let (total, required) = (record.entries.len(), record.required);
        let container_path = quote!(const { &#rt::Path::CONTAINER });
        match record.header {
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
                let bytes = u8_list(&header_bytes(w, total));
                let read = self.read_header(record.header, record.form, &container_path);
                let (at, entries, t) = (names::at(0), names::entries(), usize_lit(total));
                (
                    quote! {
                        let #at = #d.position();
                        let #entries = #read;
                        #d.entries(#at, #entries, #t, #t, #container_path)?;
                    },
                    quote!(#e.bytes(&[#bytes]);),
                    TokenStream::new(),
                )
            }
            header => self.counted_record_header(record, header, fields),
        }
    }

    /// The header of a record with optional entries: it states the required entries and the
    /// optional ones present. A gap among the optional entries is an error (checked); the check
    /// and the write may be separate functions (a named record type's).
    fn counted_record_header(
        &self,
        record: &Record,
        header: Encoding,
        fields: Fields<'_, '_>,
    ) -> (TokenStream, TokenStream, TokenStream) {
        let rt = &self.rt;
        let d = names::decoder();
        let container_path = quote!(const { &#rt::Path::CONTAINER });
        let read = self.read_header(header, record.form, &container_path);
        let (at, entries) = (names::at(0), names::entries());
        let (r, t) = (usize_lit(record.required), usize_lit(record.entries.len()));
        let present = names::present_count();
        let write = self.write_header(header, record.form, &quote!(#r + #present));
        let (gaps, present_terms) = self.optional_presence(record, fields);
        let absent = names::absent();
        let mut together = TokenStream::new();
        for (i, j) in record.together() {
            let (first, last) = (record.entries[i].name.as_str(), record.entries[j].name.as_str());
            let (i, j) = (usize_lit(i), usize_lit(j));
            together.extend(quote!(#d.together(#at, #entries, (#i, #first), (#j, #last), #container_path)?;));
        }
        (
            quote! {
                let #at = #d.position();
                let #entries = #read;
                #d.entries(#at, #entries, #r, #t, #container_path)?;
                #together
            },
            quote! {
                let #present: usize = 0 #present_terms;
                #write
            },
            quote! {
                let mut #absent: ::core::option::Option<&'static str> = ::core::option::Option::None;
                #gaps
                let _ = #absent;
            },
        )
    }

    /// Per optional entry bound to a field: the statements checking that no optional entry
    /// before it is absent when it is present, and the term counting it when present.
    fn optional_presence(&self, record: &Record, fields: Fields<'_, '_>) -> (TokenStream, TokenStream) {
        let rt = &self.rt;
        let (schema, absent, is) = (names::schema(), names::absent(), names::is_present());
        let (mut gaps, mut present_terms) = (TokenStream::new(), TokenStream::new());
        let mut absent_before: Option<&str> = None;
        for (i, entry) in record.entries.iter().enumerate().skip(record.required) {
            let Some(slot) = &fields.slots[i] else { continue };
            let p = (fields.place)(slot.ident);
            let name = entry.name.as_str();
            let path = self.entry_path(name);
            let gap = match absent_before {
                None => quote!(::core::option::Option::None),
                Some(_) => quote!(#absent),
            };
            gaps.extend(quote! {
                let #is = #rt::OptionField::get(&#p).is_some();
                #rt::check_optional(#schema, ::core::clone::Clone::clone(#path), #is, #gap)?;
                if !#is && #absent.is_none() { #absent = ::core::option::Option::Some(#name); }
            });
            if let Some(first) = entry.together_with
                && let Some(first_slot) = &fields.slots[first]
            {
                let first_p = (fields.place)(first_slot.ident);
                let first_name = record.entries[first].name.as_str();
                gaps.extend(quote! {
                    #rt::check_together(
                        #schema,
                        ::core::clone::Clone::clone(#path),
                        (#first_name, #rt::OptionField::get(&#first_p).is_some()),
                        (#name, #is),
                    )?;
                });
            }
            present_terms.extend(quote!(+ usize::from(#rt::OptionField::get(&#p).is_some())));
            absent_before = Some(name);
        }
        (gaps, present_terms)
    }

    /// The count entry that entry `i` of `record`, an array or map, is counted by.
    fn count_ref<'r>(record: &'r Record, i: usize) -> Option<CountRef<'r>> {
        match &record.entries[i].node.ty {
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
        }
    }

    /// Entry `i` of `record`, bound to `slot`: decoded into its field's variable, checked and
    /// written from its place.
    fn field_entry(&self, record: &Record, i: usize, slot: &Slot<'_>, fields: Fields<'_, '_>, parts: &mut RecordParts) {
        let entry = &record.entries[i];
        let p = (fields.place)(slot.ident);
        if entry.optional {
            return self.optional_field_entry(record, i, slot, &p, parts);
        }
        let name = entry.name.as_str();
        let path = self.entry_path(name);
        let key = self.entry_key(record, i);
        let (decode_key, write_key) = (key.decode, key.write);
        let count_ref = Self::count_ref(record, i);
        let (ty, var) = (slot.ty, names::field(name));
        let value = self.decode(&entry.node, ty, &path, 1, count_ref.as_ref(), Some(name));
        parts.decode.extend(quote! {
            #decode_key
            let #var: #ty = #value;
        });
        parts.check.extend(self.check(&entry.node, &p, &path, 1, Some(name)));
        let w = self.write(&entry.node, &p, 1);
        parts.write.extend(quote!(#write_key #w));
    }

    /// Optional entry `i` of `record`, bound to `slot` at place `p`: decoded when the header
    /// counts it, checked and written when present.
    fn optional_field_entry(
        &self,
        record: &Record,
        i: usize,
        slot: &Slot<'_>,
        p: &TokenStream,
        parts: &mut RecordParts,
    ) {
        let rt = &self.rt;
        let entry = &record.entries[i];
        let name = entry.name.as_str();
        let path = self.entry_path(name);
        let key = self.entry_key(record, i);
        let (decode_key, write_key) = (key.decode, key.write);
        let count_ref = Self::count_ref(record, i);
        let (ty, var, entries) = (slot.ty, names::field(name), names::entries());
        let inner = quote!(<#ty as #rt::OptionField>::Inner);
        let value = self.decode(&entry.node, &inner, &path, 1, count_ref.as_ref(), Some(name));
        let idx = usize_lit(i);
        parts.decode.extend(quote! {
            let #var: #ty = if #entries > #idx {
                #decode_key
                <#ty as #rt::OptionField>::some(#value)
            } else {
                <#ty as #rt::OptionField>::none()
            };
        });
        let o = names::present(0);
        let inner_check = self.check(&entry.node, &quote!((*#o)), &path, 1, Some(name));
        let inner_write = self.write(&entry.node, &quote!((*#o)), 1);
        parts.check.extend(quote! {
            if let ::core::option::Option::Some(#o) = #rt::OptionField::get(&#p) {
                #inner_check
            }
        });
        parts.write.extend(quote! {
            if let ::core::option::Option::Some(#o) = #rt::OptionField::get(&#p) {
                #write_key
                #inner_write
            }
        });
    }

    /// Constant entry `i` of `record`, whose value is `c`: checked on decode, written as its
    /// bytes.
    fn const_entry(&self, record: &Record, i: usize, c: &Const, parts: &mut RecordParts) {
        let e = names::encoder();
        let entry = &record.entries[i];
        let key = self.entry_key(record, i);
        let (decode_key, write_key) = (key.decode, key.write);
        let value = self.decode_const(&entry.node, c, &self.entry_path(&entry.name));
        parts.decode.extend(quote!(#decode_key #value));
        let bytes = u8_list(&const_bytes(&entry.node, c));
        parts.write.extend(quote!(#write_key #e.bytes(&[#bytes]);));
    }

    /// Count entry `i` of `record`, counting the entries `of`: decoded into its variable (which
    /// the arrays it counts are read against), checked against the lengths of the fields it
    /// counts, and written as the first one's length.
    fn count_entry(&self, record: &Record, i: usize, of: &[usize], fields: Fields<'_, '_>, parts: &mut RecordParts) {
        let entry = &record.entries[i];
        let Type::Int(t) = &entry.node.ty else { return };
        let key = self.entry_key(record, i);
        let (decode_key, write_key) = (key.decode, key.write);
        let clamped = IntType {
            min: t.min.max(0),
            ..t.clone()
        };
        let read = self.count_decode(t, &clamped, &entry.name);
        parts.decode.extend(quote!(#decode_key #read));
        let len = self.count_checks(record, i, of, &clamped, fields, &mut parts.check);
        let w = self.count_write(t.encoding, &len);
        parts.write.extend(quote!(#write_key #w));
    }

    /// Statements reading count entry `name` (of type `t`, read as `clamped`, not negative) into
    /// its variable.
    fn count_decode(&self, t: &IntType, clamped: &IntType, name: &str) -> TokenStream {
        let d = names::decoder();
        let path = self.entry_path(name);
        let var = names::count(name);
        let (at, v) = (names::at(1), names::int(1));
        let read = self.read_int(t.encoding, &path);
        let checks = self.int_checks(clamped, None, &at, &v, &path);
        let force_range = if clamped.min != t.min {
            let (lo, hi) = (i128_lit(clamped.min), i128_lit(clamped.max));
            quote!(#d.range(#at, #v, #lo, #hi, #path)?;)
        } else {
            TokenStream::new()
        };
        quote! {
            let #at = #d.position();
            let #v: i128 = #read;
            #force_range
            #checks
            let #var = #v as usize;
        }
    }

    /// The checks of count entry `i` of `record` before encoding: the first counted field sets
    /// the count, within the entry's range `clamped`; the others must have the same length.
    /// The expression of the count (the first counted field's length) that is written.
    fn count_checks(
        &self,
        record: &Record,
        i: usize,
        of: &[usize],
        clamped: &IntType,
        fields: Fields<'_, '_>,
        check: &mut TokenStream,
    ) -> TokenStream {
        let rt = &self.rt;
        let schema = names::schema();
        let name = record.entries[i].name.as_str();
        let var = names::count(name);
        let mut first: Option<(&str, TokenStream)> = None;
        let (lo, hi) = (
            usize_lit(usize::try_from(clamped.min).unwrap_or(0)),
            usize_lit(usize::try_from(clamped.max).unwrap_or(usize::MAX)),
        );
        for &a in of {
            let Some(slot) = &fields.slots[a] else { continue };
            let aname = record.entries[a].name.as_str();
            let p = (fields.place)(slot.ident);
            let len = quote!(#rt::ArrayField::elements(&#p).len());
            match &first {
                None => {
                    check.extend(quote! {
                        let #var = #len;
                        #rt::check_count(#schema, #name, &#aname, #var, #lo, #hi)?;
                    });
                    first = Some((aname, len));
                }
                Some((reference, _)) => check.extend(quote! {
                    #rt::check_same_len(#schema, #name, #reference, #var, &#aname, #len)?;
                }),
            }
        }
        first.map_or(quote!(0usize), |(_, len)| len)
    }

    /// Statements writing a count of integer `encoding` whose value is `len`.
    fn count_write(&self, encoding: Encoding, len: &TokenStream) -> TokenStream {
        let e = names::encoder();
        match encoding {
            Encoding::Fixed(w) if w.marker().is_none() => quote!(#e.byte((#len) as u8);),
            Encoding::Fixed(w) => {
                let (marker, native) = (u8_lit(w.marker().unwrap_or_default()), native_int(w));
                quote! {
                    #e.byte(#marker);
                    #e.bytes(&((#len) as #native).to_be_bytes());
                }
            }
            Encoding::Canonical { .. } => quote!(#e.any_int((#len) as i128);),
        }
    }
}
