//! The annotated item, parsed with syn: a struct (fields named, tuple or none), an enum (its
//! variants), or a union (accepted only to be refused with a message later).
//!
//! Only what code generation needs is kept apart: attributes, the name, the generics, the fields'
//! names and types, the variants. Everything else is kept as written, so that the item is emitted
//! again with its own tokens and spans.
//!
//! syn is the major version serde_derive depends on, built without its `full` syntax tree and
//! with the features serde_derive enables, so that a crate deriving serde and using the
//! attribute compiles it once. Like the rest of this crate the item keeps a field's type as its
//! tokens: `bind` reads how a type is spelled to tell which entry it can hold, and messages quote
//! it as [`Type::text`] writes it.

use std::mem;

use proc_macro2::{Delimiter, Group, Ident, Punct, Spacing, Span, TokenStream, TokenTree};
use quote::{ToTokens, TokenStreamExt, quote};

use crate::error::Error;

/// An outer attribute, `#[...]`; a doc comment arrives as `#[doc = "..."]`.
#[derive(Clone)]
pub(crate) struct Attribute(syn::Attribute);

impl Attribute {
    /// `#[doc = "text"]`.
    pub(crate) fn doc(text: &str) -> Self {
        let value = syn::Expr::Lit(syn::ExprLit {
            attrs: Vec::new(),
            lit: syn::Lit::Str(syn::LitStr::new(text, Span::call_site())),
        });
        Attribute(syn::Attribute {
            pound_token: Default::default(),
            style: syn::AttrStyle::Outer,
            bracket_token: Default::default(),
            meta: syn::Meta::NameValue(syn::MetaNameValue {
                path: Ident::new("doc", Span::call_site()).into(),
                eq_token: Default::default(),
                value,
            }),
        })
    }

    /// The `#` and the bracketed group, to point messages at the whole attribute.
    pub(crate) fn tokens(&self) -> Vec<TokenTree> {
        self.0.to_token_stream().into_iter().collect()
    }

    /// Whether the attribute's path is the single identifier `name`.
    pub(crate) fn is(&self, name: &str) -> bool {
        self.0.path().is_ident(name)
    }

    /// The arguments of `#[path(arguments)]`.
    pub(crate) fn list_args(&self) -> Result<TokenStream, Error> {
        match &self.0.meta {
            syn::Meta::List(list) if matches!(list.delimiter, syn::MacroDelimiter::Paren(_)) => Ok(list.tokens.clone()),
            meta => {
                let message = match meta.path().get_ident() {
                    Some(path) => format!("expected arguments in parentheses: `#[{path}(...)]`"),
                    None => "expected arguments in parentheses".to_string(),
                };
                Err(Error::spanned(&self.tokens(), message))
            }
        }
    }
}

impl ToTokens for Attribute {
    fn to_tokens(&self, out: &mut TokenStream) {
        self.0.to_tokens(out);
    }
}

fn attributes(attrs: Vec<syn::Attribute>) -> Vec<Attribute> {
    attrs.into_iter().map(Attribute).collect()
}

/// A type as written.
pub(crate) struct Type {
    pub tokens: Vec<TokenTree>,
}

impl Type {
    fn new(ty: &syn::Type) -> Self {
        Type {
            tokens: ty.to_token_stream().into_iter().collect(),
        }
    }

    /// The type as Rust source, for messages: `Vec<i32>`, `[i64; 17]`, `&'a str`.
    pub(crate) fn text(&self) -> String {
        let mut out = String::new();
        write_pieces(&pieces(&self.tokens), &mut out);
        out
    }
}

impl ToTokens for Type {
    fn to_tokens(&self, out: &mut TokenStream) {
        out.extend(TokenStream::from_iter(self.tokens.to_vec()));
    }
}

/// A named field.
pub(crate) struct Field {
    pub ident: Ident,
    pub ty: Type,
}

/// The fields of a struct or a variant.
pub(crate) enum Fields {
    Named(Vec<Field>),
    Tuple(Vec<Type>),
    Unit,
}

impl Fields {
    fn new(fields: &syn::Fields) -> Self {
        match fields {
            syn::Fields::Named(named) => {
                let mut fields = Vec::with_capacity(named.named.len());
                for f in &named.named {
                    if let Some(ident) = &f.ident {
                        fields.push(Field {
                            ident: ident.clone(),
                            ty: Type::new(&f.ty),
                        });
                    }
                }
                Fields::Named(fields)
            }
            syn::Fields::Unnamed(tuple) => {
                let mut types = Vec::with_capacity(tuple.unnamed.len());
                for f in &tuple.unnamed {
                    types.push(Type::new(&f.ty));
                }
                Fields::Tuple(types)
            }
            syn::Fields::Unit => Fields::Unit,
        }
    }
}

/// An enum variant.
pub(crate) struct Variant {
    pub attrs: Vec<Attribute>,
    pub ident: Ident,
    pub fields: Fields,
    /// The variant after its attributes, without the comma that ends it.
    rest: TokenStream,
}

impl Variant {
    fn new(mut variant: syn::Variant) -> Self {
        Variant {
            attrs: attributes(mem::take(&mut variant.attrs)),
            fields: Fields::new(&variant.fields),
            rest: variant.to_token_stream(),
            ident: variant.ident,
        }
    }
}

/// What the item is.
pub(crate) enum Data {
    Struct(Fields),
    Enum(Vec<Variant>),
    Union,
}

/// Whether a generic parameter is a lifetime, a type or a constant.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum ParamKind {
    Lifetime,
    Type,
    Const,
}

/// One generic parameter.
pub(crate) struct GenericParam {
    pub kind: ParamKind,
    /// The whole parameter as written, default included.
    pub tokens: Vec<TokenTree>,
    /// What an impl declares: the parameter without its default.
    declared: TokenStream,
    /// The parameter as an argument: `'a`, `T` or `N`.
    name: TokenStream,
}

/// A generic parameter's attributes, as written.
fn outer_attrs(attrs: &[syn::Attribute]) -> TokenStream {
    let mut tokens = TokenStream::new();
    for attr in attrs {
        attr.to_tokens(&mut tokens);
    }
    tokens
}

impl GenericParam {
    fn new(param: &syn::GenericParam) -> Self {
        let (kind, declared, name) = match param {
            syn::GenericParam::Lifetime(l) => (ParamKind::Lifetime, l.to_token_stream(), l.lifetime.to_token_stream()),
            syn::GenericParam::Type(t) => {
                let (ident, colon, bounds) = (&t.ident, &t.colon_token, &t.bounds);
                let mut declared = outer_attrs(&t.attrs);
                declared.extend(quote!(#ident #colon #bounds));
                (ParamKind::Type, declared, ident.to_token_stream())
            }
            syn::GenericParam::Const(c) => {
                let (keyword, ident, colon, ty) = (&c.const_token, &c.ident, &c.colon_token, &c.ty);
                let mut declared = outer_attrs(&c.attrs);
                declared.extend(quote!(#keyword #ident #colon #ty));
                (ParamKind::Const, declared, ident.to_token_stream())
            }
        };
        GenericParam {
            kind,
            tokens: param.to_token_stream().into_iter().collect(),
            declared,
            name,
        }
    }

    /// The parameter as an argument: `'a`, `T` or `N`.
    pub(crate) fn name(&self) -> TokenStream {
        self.name.clone()
    }
}

/// The item's generic parameters and where clause.
pub(crate) struct Generics {
    pub params: Vec<GenericParam>,
    where_clause: Option<syn::WhereClause>,
}

impl Generics {
    fn new(generics: &syn::Generics) -> Self {
        Generics {
            params: generics.params.iter().map(GenericParam::new).collect(),
            where_clause: generics.where_clause.clone().filter(|w| !w.predicates.is_empty()),
        }
    }

    /// The lifetime parameters.
    pub(crate) fn lifetimes(&self) -> impl Iterator<Item = &GenericParam> {
        self.params.iter().filter(|p| p.kind == ParamKind::Lifetime)
    }

    /// The names of the lifetime parameters, without their quote (`a` for `'a`).
    pub(crate) fn lifetime_names(&self) -> Vec<String> {
        let mut names = Vec::new();
        for param in self.lifetimes() {
            names.push(param.name().to_string().trim_start_matches('\'').trim().to_string());
        }
        names
    }

    /// What an impl of the item declares (`<'a, T: Bound>`, no defaults), the item's own
    /// arguments (`<'a, T>`), and the where clause (nothing when it has no predicates).
    pub(crate) fn split_for_impl(&self) -> (TokenStream, TokenStream, TokenStream) {
        let where_clause = self.where_clause.to_token_stream();
        if self.params.is_empty() {
            return (TokenStream::new(), TokenStream::new(), where_clause);
        }
        let (mut declared, mut names) = (TokenStream::new(), TokenStream::new());
        for (i, p) in self.params.iter().enumerate() {
            if i > 0 {
                declared.extend(quote!(,));
                names.extend(quote!(,));
            }
            declared.extend(p.declared.clone());
            names.extend(p.name.clone());
        }
        (quote!(<#declared>), quote!(<#names>), where_clause)
    }
}

/// The annotated item.
pub(crate) struct Item {
    pub attrs: Vec<Attribute>,
    pub ident: Ident,
    pub generics: Generics,
    pub data: Data,
    /// The item after its attributes, as written; an enum's up to its body, which is written
    /// again from the variants, whose attributes the macro may have taken off.
    rest: TokenStream,
    /// An enum's braces.
    body: Option<Span>,
}

impl ToTokens for Item {
    fn to_tokens(&self, out: &mut TokenStream) {
        out.append_all(&self.attrs);
        out.extend(self.rest.clone());
        if let (Data::Enum(variants), Some(braces)) = (&self.data, self.body) {
            let mut body = TokenStream::new();
            for v in variants {
                body.append_all(&v.attrs);
                body.extend(v.rest.clone());
                body.append(Punct::new(',', Spacing::Alone));
            }
            let mut group = Group::new(Delimiter::Brace, body);
            group.set_span(braces);
            out.append(group);
        }
    }
}

/// The message for an item the attribute does not apply to.
const NOT_A_STRUCT_OR_ENUM: &str = "#[metalayer] applies to a struct with named fields, or with `dispatch` to an enum";

/// The item's keyword, after its attributes and its visibility (which a `macro_rules!` fragment
/// may hand over in a group without delimiters).
fn keyword(tokens: &[TokenTree]) -> Option<&TokenTree> {
    let mut i = 0;
    while tokens.get(i).is_some_and(|t| is_punct(t, '#')) {
        i += 2;
    }
    match tokens.get(i) {
        Some(TokenTree::Ident(word)) if word == "pub" => {}
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::None => return tokens.get(i + 1),
        _ => return tokens.get(i),
    }
    i += 1;
    if matches!(tokens.get(i), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis) {
        i += 1;
    }
    tokens.get(i)
}

/// An error for an item syn cannot read: rustc parses the item before it calls the attribute,
/// so this is an item syn reads only with its `full` syntax tree, such as an array length made
/// of statements. Its message names what syn reads instead.
fn unreadable(e: &syn::Error) -> Error {
    let why = e.to_string();
    let why = match why.strip_suffix("; enable syn's features=[\"full\"]") {
        Some(what) => {
            format!("{what}; the attribute reads literals, paths, operators, casts, calls and blocks of one expression")
        }
        None => why,
    };
    Error::new(e.span(), format!("#[metalayer] cannot read this item: {why}"))
}

/// Parses the item the attribute is on.
pub(crate) fn parse(tokens: TokenStream) -> Result<Item, Error> {
    let list: Vec<TokenTree> = tokens.clone().into_iter().collect();
    match keyword(&list) {
        Some(TokenTree::Ident(k)) if k == "struct" || k == "enum" || k == "union" => {}
        other => {
            let span = other.map_or_else(Span::call_site, TokenTree::span);
            return Err(Error::new(span, NOT_A_STRUCT_OR_ENUM));
        }
    }
    let mut input: syn::DeriveInput = syn::parse2(tokens).map_err(|e| unreadable(&e))?;
    let attrs = attributes(mem::take(&mut input.attrs));
    // Each outer attribute is two tokens, `#` and its brackets.
    let written = list.get(2 * attrs.len()..).unwrap_or_default();
    let generics = Generics::new(&input.generics);
    let (data, rest, body) = match input.data {
        syn::Data::Struct(s) => (
            Data::Struct(Fields::new(&s.fields)),
            TokenStream::from_iter(written.to_vec()),
            None,
        ),
        syn::Data::Union(_) => (Data::Union, TokenStream::from_iter(written.to_vec()), None),
        syn::Data::Enum(e) => {
            // The body, the last token, is written again from the variants.
            let header = written.get(..written.len().saturating_sub(1)).unwrap_or_default();
            let variants = e.variants.into_iter().map(Variant::new).collect();
            let braces = e.brace_token.span.join();
            (
                Data::Enum(variants),
                TokenStream::from_iter(header.to_vec()),
                Some(braces),
            )
        }
    };
    Ok(Item {
        attrs,
        ident: input.ident,
        generics,
        data,
        rest,
        body,
    })
}

fn is_punct(token: &TokenTree, c: char) -> bool {
    matches!(token, TokenTree::Punct(p) if p.as_char() == c)
}

/// A token or an operator of several, for writing types as text.
enum Piece {
    Word(String),
    Op(&'static str),
    Punct(char),
    Group(Delimiter, Vec<Piece>),
}

/// `tokens` with `::` and `->` joined into one piece each.
fn pieces(tokens: &[TokenTree]) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let joint =
            |c: char| matches!(&tokens[i], TokenTree::Punct(p) if p.as_char() == c && p.spacing() == Spacing::Joint);
        let next_is = |c: char| tokens.get(i + 1).is_some_and(|t| is_punct(t, c));
        if joint(':') && next_is(':') {
            out.push(Piece::Op("::"));
            i += 2;
            continue;
        }
        if joint('-') && next_is('>') {
            out.push(Piece::Op("->"));
            i += 2;
            continue;
        }
        out.push(match &tokens[i] {
            TokenTree::Group(g) => Piece::Group(g.delimiter(), pieces(&g.stream().into_iter().collect::<Vec<_>>())),
            TokenTree::Ident(ident) => Piece::Word(ident.to_string()),
            TokenTree::Literal(lit) => Piece::Word(lit.to_string()),
            TokenTree::Punct(p) => Piece::Punct(p.as_char()),
        });
        i += 1;
    }
    out
}

/// Whether a space goes between two pieces of a type.
fn space_between(prev: &Piece, cur: &Piece) -> bool {
    use Piece::{Group, Op, Punct, Word};
    match (prev, cur) {
        (_, Punct(',' | ';')) => false,
        (Punct(',' | ';' | '+' | '=' | ':') | Op("->"), _) => true,
        (_, Op("->") | Punct('+' | '=')) => true,
        (Punct('\'' | '<' | '&' | '*' | '#' | '?' | '!' | '.' | '$') | Op("::"), _) => false,
        (_, Punct('<' | '>' | ':') | Op("::")) => false,
        (Word(_), Group(Delimiter::Parenthesis, _)) => false,
        _ => true,
    }
}

fn write_pieces(pieces: &[Piece], out: &mut String) {
    for (i, piece) in pieces.iter().enumerate() {
        if i > 0 && space_between(&pieces[i - 1], piece) {
            out.push(' ');
        }
        match piece {
            Piece::Word(word) => out.push_str(word),
            Piece::Op(op) => out.push_str(op),
            Piece::Punct(c) => out.push(*c),
            Piece::Group(delimiter, inner) => {
                let (open, close) = match delimiter {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace if inner.is_empty() => ("{", "}"),
                    Delimiter::Brace => ("{ ", " }"),
                    Delimiter::None => ("", ""),
                };
                out.push_str(open);
                write_pieces(inner, out);
                out.push_str(close);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_ok(text: &str) -> Item {
        match parse(text.parse().expect("tokens")) {
            Ok(item) => item,
            Err(e) => panic!("{text}: {}", e.message()),
        }
    }

    fn parse_err(text: &str) -> String {
        match parse(text.parse().expect("tokens")) {
            Ok(_) => panic!("{text} parsed"),
            Err(e) => e.message().to_string(),
        }
    }

    /// Token text without spaces, to compare token streams whatever their spacing.
    fn squeeze(tokens: impl ToTokens) -> String {
        tokens.to_token_stream().to_string().replace(' ', "")
    }

    fn named(item: &Item) -> Vec<(String, String)> {
        match &item.data {
            Data::Struct(Fields::Named(fields)) => fields.iter().map(|f| (f.ident.to_string(), f.ty.text())).collect(),
            _ => panic!("not a struct with named fields"),
        }
    }

    #[test]
    fn named_fields_with_doc_comments_attributes_and_visibilities() {
        let item = parse_ok(
            "/// The item.\n#[derive(Debug)]\npub(in crate::x) struct S {\n    /// A field.\n    #[allow(dead_code)]\n    pub(in crate::y) a: u8,\n    pub(crate) b: Vec<Vec<i64>>,\n    pub(super) c: HashMap<K, V>,\n    pub(self) d: &'a str,\n    pub r#type: [i64; 3],\n}",
        );
        assert_eq!(item.ident.to_string(), "S");
        assert_eq!(item.attrs.len(), 2);
        assert!(item.attrs[0].is("doc"));
        assert!(item.attrs[1].is("derive"));
        let fields = named(&item);
        let expected = [
            ("a", "u8"),
            ("b", "Vec<Vec<i64>>"),
            ("c", "HashMap<K, V>"),
            ("d", "&'a str"),
            ("r#type", "[i64; 3]"),
        ];
        let expected: Vec<(String, String)> = expected.iter().map(|(n, t)| (n.to_string(), t.to_string())).collect();
        assert_eq!(fields, expected);
    }

    #[test]
    fn trailing_commas_everywhere() {
        let item = parse_ok("struct S<'a, T,> where T: Copy, { a: u8, b: Vec<T,>, }");
        assert_eq!(named(&item).len(), 2);
        assert_eq!(item.generics.params.len(), 2);
        let (declared, ty, where_clause) = item.generics.split_for_impl();
        assert_eq!(squeeze(declared), "<'a,T>");
        assert_eq!(squeeze(ty), "<'a,T>");
        assert_eq!(squeeze(where_clause), "whereT:Copy,");
        assert!(squeeze(&item).starts_with("structS<'a,T,>whereT:Copy,{"));
    }

    #[test]
    fn generics_split_into_declarations_and_arguments() {
        let item = parse_ok(
            "struct S<'a: 'b, 'b, T: Clone + Into<Vec<u8>> = Vec<u8>, U: ?Sized, const N: usize = 3> where T: Copy { a: u8 }",
        );
        let kinds: Vec<ParamKind> = item.generics.params.iter().map(|p| p.kind).collect();
        use ParamKind::{Const, Lifetime, Type};
        assert_eq!(kinds, [Lifetime, Lifetime, Type, Type, Const]);
        let (declared, arguments, where_clause) = item.generics.split_for_impl();
        assert_eq!(
            squeeze(declared),
            "<'a:'b,'b,T:Clone+Into<Vec<u8>>,U:?Sized,constN:usize>"
        );
        assert_eq!(squeeze(arguments), "<'a,'b,T,U,N>");
        assert_eq!(squeeze(where_clause), "whereT:Copy");
        let lifetimes: Vec<String> = item.generics.lifetimes().map(|l| squeeze(l.name())).collect();
        assert_eq!(lifetimes, ["'a", "'b"]);
        // A parameter's tokens, which messages point at, are all of it, default included.
        let tokens: TokenStream = item.generics.params[2].tokens.iter().cloned().collect();
        assert_eq!(squeeze(tokens), "T:Clone+Into<Vec<u8>>=Vec<u8>");
    }

    #[test]
    fn an_arrow_is_no_closing_bracket() {
        let item = parse_ok("struct S<F: Copy = fn(u8)> where F: Fn(u8) -> Vec<u8> { f: Box<dyn Fn() -> u8>, g: F }");
        let (declared, arguments, where_clause) = item.generics.split_for_impl();
        assert_eq!(squeeze(declared), "<F:Copy>");
        assert_eq!(squeeze(arguments), "<F>");
        assert_eq!(squeeze(where_clause), "whereF:Fn(u8)->Vec<u8>");
        assert_eq!(named(&item)[0].1, "Box<dyn Fn() -> u8>");
    }

    #[test]
    fn no_generics_no_where_clause() {
        let item = parse_ok("struct S { a: u8 }");
        let (declared, arguments, where_clause) = item.generics.split_for_impl();
        assert!(declared.is_empty() && arguments.is_empty() && where_clause.is_empty());
        // An empty where clause declares nothing either.
        let item = parse_ok("struct S<> where { a: u8 }");
        let (declared, arguments, where_clause) = item.generics.split_for_impl();
        assert!(declared.is_empty() && arguments.is_empty() && where_clause.is_empty());
    }

    #[test]
    fn tuple_and_unit_structs() {
        let item = parse_ok("pub struct S<T>(pub(crate) (u8, u16), pub T) where T: Copy;");
        match &item.data {
            Data::Struct(Fields::Tuple(types)) => {
                let texts: Vec<String> = types.iter().map(Type::text).collect();
                assert_eq!(texts, ["(u8, u16)", "T"]);
            }
            _ => panic!("not a tuple struct"),
        }
        assert_eq!(squeeze(item.generics.split_for_impl().2), "whereT:Copy");
        assert_eq!(squeeze(&item), "pubstructS<T>(pub(crate)(u8,u16),pubT)whereT:Copy;");
        assert!(matches!(parse_ok("struct S;").data, Data::Struct(Fields::Unit)));
        assert!(matches!(parse_ok("union U { a: u8 }").data, Data::Union));
    }

    #[test]
    fn enum_variants_and_their_attributes() {
        let mut item = parse_ok(
            "enum E<'a> where 'a: 'static {\n    #[metalayer(schema = \"x\")]\n    /// A doc.\n    A(B<'a>),\n    B { x: u8 },\n    C = 3,\n    D(u8, HashMap<u8, u16>),\n}",
        );
        let Data::Enum(variants) = &mut item.data else {
            panic!("not an enum")
        };
        let names: Vec<String> = variants.iter().map(|v| v.ident.to_string()).collect();
        assert_eq!(names, ["A", "B", "C", "D"]);
        assert!(matches!(&variants[0].fields, Fields::Tuple(t) if t.len() == 1 && t[0].text() == "B<'a>"));
        assert!(matches!(&variants[1].fields, Fields::Named(f) if f.len() == 1));
        assert!(matches!(&variants[2].fields, Fields::Unit));
        assert!(matches!(&variants[3].fields, Fields::Tuple(t) if t.len() == 2));
        assert_eq!(variants[0].attrs.len(), 2);
        assert!(variants[0].attrs[0].is("metalayer"));
        assert_eq!(squeeze(variants[0].attrs[0].list_args().unwrap()), "schema=\"x\"");
        variants[0].attrs.retain(|a| !a.is("metalayer"));
        let emitted = squeeze(&item);
        assert_eq!(
            emitted,
            "enumE<'a>where'a:'static{#[doc=\"Adoc.\"]A(B<'a>),B{x:u8},C=3,D(u8,HashMap<u8,u16>),}"
        );
    }

    #[test]
    fn a_struct_is_emitted_as_written_with_docs_added() {
        let text = "#[derive(Debug)] pub struct S<'a> where 'a: 'static { pub a: &'a str, r#b: u8 }";
        let mut item = parse_ok(text);
        let tokens: TokenStream = text.parse().unwrap();
        assert_eq!(squeeze(&item), squeeze(tokens));
        item.attrs.push(Attribute::doc("More."));
        assert!(squeeze(&item).starts_with("#[derive(Debug)]#[doc=\"More.\"]pubstructS"));
    }

    #[test]
    fn paths_in_attributes() {
        let item = parse_ok("#[metalayer::other] #[metalayer] #[metalayer = \"x\"] #[metalayer[x]] struct S;");
        assert!(!item.attrs[0].is("metalayer"));
        assert!(item.attrs[1].is("metalayer"));
        let message = |attr: &Attribute| attr.list_args().err().map(|e| e.message().to_string());
        let expected = "expected arguments in parentheses: `#[metalayer(...)]`";
        assert_eq!(
            message(&item.attrs[0]).as_deref(),
            Some("expected arguments in parentheses")
        );
        for attr in &item.attrs[1..] {
            assert_eq!(message(attr).as_deref(), Some(expected));
        }
    }

    #[test]
    fn what_is_no_struct_or_enum_is_refused() {
        for text in [
            "fn f() {}",
            "impl S {}",
            "type T = u8;",
            "const C: u8 = 0;",
            "pub(crate) fn f() {}",
            "",
        ] {
            assert_eq!(parse_err(text), NOT_A_STRUCT_OR_ENUM, "{text}");
        }
    }

    /// Items rustc accepts whose generics, visibilities and discriminants take more than a
    /// token-by-token reading: attributes on parameters, `->` in a bound, a default without a
    /// bound, `pub` before a parenthesized type, an expression as a discriminant.
    #[test]
    fn items_with_harder_syntax() {
        let item = parse_ok("struct S<#[cfg(all())] 'a, F: Fn(u8) -> u8, T = u8> { a: &'a str, f: F, t: T }");
        let (declared, arguments, _) = item.generics.split_for_impl();
        assert_eq!(squeeze(declared), "<#[cfg(all())]'a,F:Fn(u8)->u8,T>");
        assert_eq!(squeeze(arguments), "<'a,F,T>");
        let item = parse_ok("struct S(pub (u8, u16));");
        assert!(matches!(&item.data, Data::Struct(Fields::Tuple(t)) if t.len() == 1 && t[0].text() == "(u8, u16)"));
        assert_eq!(squeeze(&item), "structS(pub(u8,u16));");
        let item = parse_ok("enum E { A = 1 + 2, B = (C as isize) << 1 }");
        assert_eq!(squeeze(&item), "enumE{A=1+2,B=(Casisize)<<1,}");
    }

    /// A visibility from a `macro_rules!` fragment arrives in a group without delimiters.
    #[test]
    fn a_visibility_in_a_group_without_delimiters() {
        let mut tokens = quote!(#[derive(Debug)]);
        tokens.append(Group::new(Delimiter::None, quote!(pub(crate))));
        tokens.extend(quote!(
            struct S {
                a: u8,
            }
        ));
        let item = match parse(tokens.clone()) {
            Ok(item) => item,
            Err(e) => panic!("{}", e.message()),
        };
        assert_eq!(named(&item), [("a".to_string(), "u8".to_string())]);
        assert_eq!(squeeze(&item), squeeze(tokens));
    }

    /// rustc parses the item before it calls the attribute, so malformed items never reach it
    /// from a build; what syn cannot read is an error at the token it stopped at, never a panic.
    #[test]
    fn what_syn_cannot_read_is_an_error() {
        let cases = [
            (
                "struct S { a: }",
                "#[metalayer] cannot read this item: unexpected end of input, expected one of",
            ),
            (
                "struct S<T { a: T }",
                "#[metalayer] cannot read this item: expected `,`",
            ),
            ("enum E { A(u8) B }", "#[metalayer] cannot read this item: expected `,`"),
            (
                "struct S { a: u8 } x",
                "#[metalayer] cannot read this item: unexpected token",
            ),
            // Without its `full` syntax tree, syn reads no statements in an expression.
            (
                "struct S { a: [u8; { const N: usize = 2; N }] }",
                "#[metalayer] cannot read this item: unsupported expression; the attribute reads literals, paths, operators, casts, calls and blocks of one expression",
            ),
        ];
        for (text, message) in cases {
            let found = parse_err(text);
            assert!(found.starts_with(message), "{text}: {found}");
        }
    }

    #[test]
    fn types_as_text() {
        let cases = [
            ("Vec<i32>", "Vec<i32>"),
            ("Vec < Vec < i64 > >", "Vec<Vec<i64>>"),
            ("[i64 ; 17]", "[i64; 17]"),
            ("& 'a str", "&'a str"),
            ("&mut str", "&mut str"),
            ("&&str", "&&str"),
            ("ArrayVec<i64,16>", "ArrayVec<i64, 16>"),
            ("::std::vec::Vec<i32>", "::std::vec::Vec<i32>"),
            ("Vec::<i32>", "Vec::<i32>"),
            ("<T as Trait>::Out", "<T as Trait>::Out"),
            ("Box<dyn Fn(u8) -> u8 + Send + 'a>", "Box<dyn Fn(u8) -> u8 + Send + 'a>"),
            ("(i32, i32)", "(i32, i32)"),
            ("*const u8", "*const u8"),
            ("fn() -> !", "fn() -> !"),
            ("Iterator<Item = u8>", "Iterator<Item = u8>"),
            ("ArrayVec<u8, { N }>", "ArrayVec<u8, { N }>"),
            ("r#type", "r#type"),
        ];
        for (written, text) in cases {
            let ty = Type {
                tokens: written.parse::<TokenStream>().unwrap().into_iter().collect(),
            };
            assert_eq!(ty.text(), text, "{written}");
        }
    }
}
