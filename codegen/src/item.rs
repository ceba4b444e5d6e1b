//! The annotated item, read from its tokens: a struct (fields named, tuple or none), an enum
//! (its variants), or a union (accepted only to be refused with a message later).
//!
//! Only what code generation needs is kept apart: attributes, the name, the generics, the fields'
//! names and types, the variants. Everything else is kept as written, so that the item is emitted
//! again with its own tokens and spans.

use proc_macro2::{Delimiter, Group, Ident, Punct, Spacing, Span, TokenStream, TokenTree};
use quote::{ToTokens, TokenStreamExt, quote};

use crate::error::Error;

/// An outer attribute, `#[...]`; a doc comment arrives as `#[doc = "..."]`.
#[derive(Clone)]
pub(crate) struct Attribute {
    /// The `#` and the bracketed group.
    tokens: [TokenTree; 2],
}

impl Attribute {
    /// `#[doc = "text"]`.
    pub(crate) fn doc(text: &str) -> Self {
        let body = Group::new(Delimiter::Bracket, quote!(doc = #text));
        Attribute {
            tokens: [Punct::new('#', Spacing::Alone).into(), body.into()],
        }
    }

    /// The `#` and the bracketed group, to point messages at the whole attribute.
    pub(crate) fn tokens(&self) -> &[TokenTree] {
        &self.tokens
    }

    fn inner(&self) -> Vec<TokenTree> {
        match &self.tokens[1] {
            TokenTree::Group(g) => g.stream().into_iter().collect(),
            _ => Vec::new(),
        }
    }

    /// Whether the attribute's path is the single identifier `name`.
    pub(crate) fn is(&self, name: &str) -> bool {
        let inner = self.inner();
        matches!(inner.first(), Some(TokenTree::Ident(i)) if i == name)
            && !matches!(inner.get(1), Some(TokenTree::Punct(p)) if p.as_char() == ':')
    }

    /// The arguments of `#[path(arguments)]`.
    pub(crate) fn list_args(&self) -> Result<TokenStream, Error> {
        match self.inner().as_slice() {
            [TokenTree::Ident(_), TokenTree::Group(g)] if g.delimiter() == Delimiter::Parenthesis => Ok(g.stream()),
            [TokenTree::Ident(path), ..] => Err(Error::spanned(
                &self.tokens,
                format!("expected arguments in parentheses: `#[{path}(...)]`"),
            )),
            _ => Err(Error::spanned(&self.tokens, "expected arguments in parentheses")),
        }
    }
}

impl ToTokens for Attribute {
    fn to_tokens(&self, out: &mut TokenStream) {
        out.extend(self.tokens.iter().cloned());
    }
}

/// A type as written.
pub(crate) struct Type {
    pub tokens: Vec<TokenTree>,
}

impl Type {
    /// The type as Rust source, for messages: `Vec<i32>`, `[i64; 17]`, `&'a str`.
    pub(crate) fn text(&self) -> String {
        let mut out = String::new();
        write_pieces(&pieces(&self.tokens), &mut out);
        out
    }
}

impl ToTokens for Type {
    fn to_tokens(&self, out: &mut TokenStream) {
        out.extend(self.tokens.iter().cloned());
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

/// An enum variant.
pub(crate) struct Variant {
    pub attrs: Vec<Attribute>,
    pub ident: Ident,
    pub fields: Fields,
    /// The variant after its attributes, as written, without the comma that ends it.
    rest: Vec<TokenTree>,
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
    /// How many of `tokens` an impl declares: all but the default.
    declared: usize,
    /// The parameter as an argument: `'a`, `T` or `N`.
    name: Vec<TokenTree>,
}

impl GenericParam {
    /// The parameter as an argument: `'a`, `T` or `N`.
    pub(crate) fn name(&self) -> TokenStream {
        self.name.iter().cloned().collect()
    }
}

/// The item's generic parameters and where clause.
pub(crate) struct Generics {
    pub params: Vec<GenericParam>,
    /// `where` and its predicates, as written; empty without a where clause.
    where_clause: Vec<TokenTree>,
}

impl Generics {
    /// The lifetime parameters.
    pub(crate) fn lifetimes(&self) -> impl Iterator<Item = &GenericParam> {
        self.params.iter().filter(|p| p.kind == ParamKind::Lifetime)
    }

    /// What an impl of the item declares (`<'a, T: Bound>`, no defaults), the item's own
    /// arguments (`<'a, T>`), and the where clause.
    pub(crate) fn split_for_impl(&self) -> (TokenStream, TokenStream, TokenStream) {
        if self.params.is_empty() {
            return (TokenStream::new(), TokenStream::new(), self.where_tokens());
        }
        let declared = self.params.iter().map(|p| {
            let tokens: TokenStream = p.tokens[..p.declared].iter().cloned().collect();
            tokens
        });
        let names = self.params.iter().map(GenericParam::name);
        (quote!(<#(#declared),*>), quote!(<#(#names),*>), self.where_tokens())
    }

    fn where_tokens(&self) -> TokenStream {
        if self.where_clause.len() > 1 {
            self.where_clause.iter().cloned().collect()
        } else {
            TokenStream::new()
        }
    }
}

/// The annotated item.
pub(crate) struct Item {
    pub attrs: Vec<Attribute>,
    pub ident: Ident,
    pub generics: Generics,
    pub data: Data,
    /// The item after its attributes, as written.
    rest: Vec<TokenTree>,
    /// Where an enum's body is in `rest`: it is written again from the variants, whose
    /// attributes the macro may have taken off.
    body: Option<usize>,
}

impl ToTokens for Item {
    fn to_tokens(&self, out: &mut TokenStream) {
        for attr in &self.attrs {
            attr.to_tokens(out);
        }
        for (i, token) in self.rest.iter().enumerate() {
            match (&self.data, token) {
                (Data::Enum(variants), TokenTree::Group(original)) if self.body == Some(i) => {
                    let mut body = TokenStream::new();
                    for v in variants {
                        for attr in &v.attrs {
                            attr.to_tokens(&mut body);
                        }
                        body.extend(v.rest.iter().cloned());
                        body.append(Punct::new(',', Spacing::Alone));
                    }
                    let mut group = Group::new(Delimiter::Brace, body);
                    group.set_span(original.span());
                    out.append(group);
                }
                _ => out.append(token.clone()),
            }
        }
    }
}

fn is_punct(token: &TokenTree, c: char) -> bool {
    matches!(token, TokenTree::Punct(p) if p.as_char() == c)
}

fn is_keyword(token: &TokenTree, word: &str) -> bool {
    matches!(token, TokenTree::Ident(i) if i == word)
}

fn is_group(token: &TokenTree, delimiter: Delimiter) -> bool {
    matches!(token, TokenTree::Group(g) if g.delimiter() == delimiter)
}

/// Whether `tokens[i]`, a `>`, ends an arrow `->` rather than closing angle brackets.
fn ends_arrow(tokens: &[TokenTree], i: usize) -> bool {
    i > 0 && matches!(&tokens[i - 1], TokenTree::Punct(p) if p.as_char() == '-' && p.spacing() == Spacing::Joint)
}

/// The change in angle-bracket depth that `tokens[i]` makes.
pub(crate) fn angle_step(tokens: &[TokenTree], i: usize) -> i32 {
    if is_punct(&tokens[i], '<') {
        1
    } else if is_punct(&tokens[i], '>') && !ends_arrow(tokens, i) {
        -1
    } else {
        0
    }
}

/// `tokens` split at the commas outside angle brackets; a trailing comma gives no empty part.
pub(crate) fn split_commas(tokens: &[TokenTree]) -> Vec<&[TokenTree]> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for i in 0..tokens.len() {
        depth += angle_step(tokens, i);
        if depth == 0 && is_punct(&tokens[i], ',') {
            parts.push(&tokens[start..i]);
            start = i + 1;
        }
    }
    if start < tokens.len() {
        parts.push(&tokens[start..]);
    }
    parts
}

/// A position in a list of tokens.
struct Cursor<'a> {
    tokens: &'a [TokenTree],
    pos: usize,
    /// Where to point when the tokens end too early.
    end: Span,
}

impl<'a> Cursor<'a> {
    fn new(tokens: &'a [TokenTree], end: Span) -> Self {
        Cursor { tokens, pos: 0, end }
    }

    fn peek(&self) -> Option<&'a TokenTree> {
        self.tokens.get(self.pos)
    }

    fn next(&mut self) -> Option<&'a TokenTree> {
        let token = self.peek();
        self.pos += usize::from(token.is_some());
        token
    }

    fn at_end(&self) -> bool {
        self.pos >= self.tokens.len()
    }

    fn peek_punct(&self, c: char) -> bool {
        self.peek().is_some_and(|t| is_punct(t, c))
    }

    fn peek_keyword(&self, word: &str) -> bool {
        self.peek().is_some_and(|t| is_keyword(t, word))
    }

    /// An error at the next token, or where the tokens end.
    fn error(&self, message: impl Into<String>) -> Error {
        Error::new(self.peek().map_or(self.end, TokenTree::span), message)
    }

    /// The next token, which must be an identifier.
    fn ident(&mut self, what: &str) -> Result<Ident, Error> {
        match self.peek() {
            Some(TokenTree::Ident(i)) => {
                self.pos += 1;
                Ok(i.clone())
            }
            _ => Err(self.error(format!("expected {what}"))),
        }
    }
}

fn group_tokens(group: &Group) -> Vec<TokenTree> {
    group.stream().into_iter().collect()
}

/// Outer attributes.
fn attributes(c: &mut Cursor<'_>) -> Result<Vec<Attribute>, Error> {
    let mut attrs = Vec::new();
    while c.peek_punct('#') {
        let pound = c.next().cloned();
        if c.peek_punct('!') {
            return Err(c.error("an inner attribute is not allowed here"));
        }
        match (pound, c.next()) {
            (Some(pound), Some(group @ TokenTree::Group(g))) if g.delimiter() == Delimiter::Bracket => {
                attrs.push(Attribute {
                    tokens: [pound, group.clone()],
                });
            }
            _ => return Err(c.error("expected `[` after `#`")),
        }
    }
    Ok(attrs)
}

/// Skips a visibility: `pub`, `pub(crate)`, `pub(self)`, `pub(super)`, `pub(in path)`.
fn visibility(c: &mut Cursor<'_>) {
    if !c.peek_keyword("pub") {
        return;
    }
    c.next();
    if let Some(TokenTree::Group(g)) = c.peek()
        && g.delimiter() == Delimiter::Parenthesis
    {
        let restricted = match group_tokens(g).as_slice() {
            [TokenTree::Ident(i)] => i == "crate" || i == "self" || i == "super",
            [TokenTree::Ident(i), _, ..] => i == "in",
            _ => false,
        };
        if restricted {
            c.next();
        }
    }
}

/// A type, up to a comma outside angle brackets or the end.
fn ty(c: &mut Cursor<'_>) -> Result<Type, Error> {
    let start = c.pos;
    let mut depth = 0;
    while let Some(token) = c.peek() {
        if depth == 0 && is_punct(token, ',') {
            break;
        }
        depth += angle_step(c.tokens, c.pos);
        if depth < 0 {
            return Err(c.error("unexpected `>`"));
        }
        c.pos += 1;
    }
    if depth > 0 {
        return Err(Error::spanned(
            &c.tokens[start..c.pos],
            "expected `>` to close this type's `<`",
        ));
    }
    if c.pos == start {
        return Err(c.error("expected a type"));
    }
    Ok(Type {
        tokens: c.tokens[start..c.pos].to_vec(),
    })
}

/// Skips the comma after a field or variant; anything else there is an error.
fn comma(c: &mut Cursor<'_>) -> Result<(), Error> {
    if c.at_end() {
        Ok(())
    } else if c.peek_punct(',') {
        c.next();
        Ok(())
    } else {
        Err(c.error("expected `,`"))
    }
}

fn named_fields(group: &Group) -> Result<Vec<Field>, Error> {
    let tokens = group_tokens(group);
    let mut c = Cursor::new(&tokens, group.span_close());
    let mut fields = Vec::new();
    while !c.at_end() {
        attributes(&mut c)?;
        visibility(&mut c);
        let ident = c.ident("a field name")?;
        if !c.peek_punct(':') {
            return Err(c.error("expected `:` and the field's type"));
        }
        c.next();
        let ty = ty(&mut c)?;
        fields.push(Field { ident, ty });
        comma(&mut c)?;
    }
    Ok(fields)
}

fn tuple_fields(group: &Group) -> Result<Vec<Type>, Error> {
    let tokens = group_tokens(group);
    let mut c = Cursor::new(&tokens, group.span_close());
    let mut fields = Vec::new();
    while !c.at_end() {
        attributes(&mut c)?;
        visibility(&mut c);
        fields.push(ty(&mut c)?);
        comma(&mut c)?;
    }
    Ok(fields)
}

fn variants(group: &Group) -> Result<Vec<Variant>, Error> {
    let tokens = group_tokens(group);
    let mut c = Cursor::new(&tokens, group.span_close());
    let mut variants = Vec::new();
    while !c.at_end() {
        let attrs = attributes(&mut c)?;
        let start = c.pos;
        visibility(&mut c);
        let ident = c.ident("a variant name")?;
        let fields = match c.peek() {
            Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => {
                c.next();
                Fields::Tuple(tuple_fields(g)?)
            }
            Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {
                c.next();
                Fields::Named(named_fields(g)?)
            }
            _ => Fields::Unit,
        };
        if c.peek_punct('=') {
            c.next();
            if c.at_end() || c.peek_punct(',') {
                return Err(c.error("expected the variant's discriminant"));
            }
            while !c.at_end() && !c.peek_punct(',') {
                c.next();
            }
        }
        let rest = tokens[start..c.pos].to_vec();
        comma(&mut c)?;
        variants.push(Variant {
            attrs,
            ident,
            fields,
            rest,
        });
    }
    Ok(variants)
}

fn generic_param(tokens: &[TokenTree]) -> Result<GenericParam, Error> {
    let mut start = 0;
    while start + 1 < tokens.len() && is_punct(&tokens[start], '#') && is_group(&tokens[start + 1], Delimiter::Bracket)
    {
        start += 2;
    }
    let (kind, name) = match &tokens[start..] {
        [TokenTree::Punct(p), TokenTree::Ident(_), ..] if p.as_char() == '\'' => {
            (ParamKind::Lifetime, tokens[start..start + 2].to_vec())
        }
        [TokenTree::Ident(k), name @ TokenTree::Ident(_), ..] if k == "const" => (ParamKind::Const, vec![name.clone()]),
        [name @ TokenTree::Ident(_), ..] => (ParamKind::Type, vec![name.clone()]),
        _ => {
            return Err(Error::spanned(
                tokens,
                "expected a generic parameter: a lifetime, a type or a const",
            ));
        }
    };
    let mut depth = 0;
    let mut declared = tokens.len();
    for i in start..tokens.len() {
        depth += angle_step(tokens, i);
        if depth == 0 && is_punct(&tokens[i], '=') {
            declared = i;
            break;
        }
    }
    Ok(GenericParam {
        kind,
        tokens: tokens.to_vec(),
        declared,
        name,
    })
}

/// The generic parameters, after their `<`.
fn generic_params(c: &mut Cursor<'_>) -> Result<Vec<GenericParam>, Error> {
    let open = c.next().map_or(c.end, TokenTree::span);
    let start = c.pos;
    let mut depth = 0;
    loop {
        match c.peek() {
            None => return Err(Error::new(open, "expected `>` to close the generic parameters")),
            Some(token) if is_punct(token, '>') && depth == 0 && !ends_arrow(c.tokens, c.pos) => break,
            Some(_) => depth += angle_step(c.tokens, c.pos),
        }
        c.pos += 1;
    }
    let inner = &c.tokens[start..c.pos];
    c.next();
    let mut params = Vec::new();
    for part in split_commas(inner) {
        if part.is_empty() {
            return Err(Error::new(open, "expected a generic parameter before `,`"));
        }
        params.push(generic_param(part)?);
    }
    Ok(params)
}

/// `where` and its predicates, up to the body: a brace group outside angle brackets, or `;`.
fn where_clause(c: &mut Cursor<'_>) -> Vec<TokenTree> {
    if !c.peek_keyword("where") {
        return Vec::new();
    }
    let start = c.pos;
    let mut depth = 0;
    while let Some(token) = c.peek() {
        if depth == 0 && (is_group(token, Delimiter::Brace) || is_punct(token, ';')) {
            break;
        }
        depth += angle_step(c.tokens, c.pos);
        c.pos += 1;
    }
    c.tokens[start..c.pos].to_vec()
}

/// Parses the item the attribute is on.
pub(crate) fn parse(item: TokenStream) -> Result<Item, Error> {
    let tokens: Vec<TokenTree> = item.into_iter().collect();
    let mut c = Cursor::new(&tokens, Span::call_site());
    let attrs = attributes(&mut c)?;
    let rest_start = c.pos;
    visibility(&mut c);
    let keyword = match c.peek() {
        Some(TokenTree::Ident(i)) if i == "struct" || i == "enum" => i.to_string(),
        Some(TokenTree::Ident(i)) if i == "union" && matches!(c.tokens.get(c.pos + 1), Some(TokenTree::Ident(_))) => {
            i.to_string()
        }
        _ => {
            return Err(c.error("#[metalayer] applies to a struct with named fields, or with `dispatch` to an enum"));
        }
    };
    c.next();
    let ident = c.ident("the type's name")?;
    let params = if c.peek_punct('<') {
        generic_params(&mut c)?
    } else {
        Vec::new()
    };
    let mut where_tokens = where_clause(&mut c);
    let mut body = None;
    let data = match (keyword.as_str(), c.peek()) {
        ("struct", Some(TokenTree::Group(g))) if g.delimiter() == Delimiter::Parenthesis && where_tokens.is_empty() => {
            c.next();
            let fields = tuple_fields(g)?;
            where_tokens = where_clause(&mut c);
            if !c.peek_punct(';') {
                return Err(c.error("expected `;` after a tuple struct"));
            }
            c.next();
            Data::Struct(Fields::Tuple(fields))
        }
        ("struct", Some(TokenTree::Group(g))) if g.delimiter() == Delimiter::Brace => {
            c.next();
            Data::Struct(Fields::Named(named_fields(g)?))
        }
        ("struct", Some(semi)) if is_punct(semi, ';') => {
            c.next();
            Data::Struct(Fields::Unit)
        }
        ("enum", Some(TokenTree::Group(g))) if g.delimiter() == Delimiter::Brace => {
            body = Some(c.pos - rest_start);
            c.next();
            Data::Enum(variants(g)?)
        }
        ("union", Some(TokenTree::Group(g))) if g.delimiter() == Delimiter::Brace => {
            c.next();
            Data::Union
        }
        ("struct", _) => return Err(c.error("expected the struct's fields: `{ ... }`, `( ... );` or `;`")),
        _ => return Err(c.error(format!("expected the {keyword}'s body: `{{ ... }}`"))),
    };
    if !c.at_end() {
        return Err(c.error("unexpected token after the item"));
    }
    Ok(Item {
        attrs,
        ident,
        generics: Generics {
            params,
            where_clause: where_tokens,
        },
        data,
        rest: tokens[rest_start..].to_vec(),
        body,
    })
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
            TokenTree::Group(g) => Piece::Group(g.delimiter(), pieces(&group_tokens(g))),
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
        let (_, ty, where_clause) = item.generics.split_for_impl();
        assert_eq!(squeeze(ty), "<'a,T>");
        assert_eq!(squeeze(where_clause), "whereT:Copy,");
    }

    #[test]
    fn generics_split_into_declarations_and_arguments() {
        let item = parse_ok(
            "struct S<'a: 'b, 'b, T: Clone + Into<Vec<u8>> = Vec<u8>, #[cfg(x)] U: ?Sized, const N: usize = 3> where T: Copy { a: u8 }",
        );
        let kinds: Vec<ParamKind> = item.generics.params.iter().map(|p| p.kind).collect();
        use ParamKind::{Const, Lifetime, Type};
        assert_eq!(kinds, [Lifetime, Lifetime, Type, Type, Const]);
        let (declared, arguments, where_clause) = item.generics.split_for_impl();
        assert_eq!(
            squeeze(declared),
            "<'a:'b,'b,T:Clone+Into<Vec<u8>>,#[cfg(x)]U:?Sized,constN:usize>"
        );
        assert_eq!(squeeze(arguments), "<'a,'b,T,U,N>");
        assert_eq!(squeeze(where_clause), "whereT:Copy");
        let lifetimes: Vec<String> = item.generics.lifetimes().map(|l| squeeze(l.name())).collect();
        assert_eq!(lifetimes, ["'a", "'b"]);
    }

    #[test]
    fn an_arrow_in_a_bound_is_no_closing_bracket() {
        let item = parse_ok("struct S<F: Fn(u8) -> Vec<u8> = fn(u8) -> Vec<u8>> { f: Box<dyn Fn() -> u8>, g: F }");
        let (declared, arguments, _) = item.generics.split_for_impl();
        assert_eq!(squeeze(declared), "<F:Fn(u8)->Vec<u8>>");
        assert_eq!(squeeze(arguments), "<F>");
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
        let item = parse_ok("pub struct S<T>(pub (u8, u16), pub(crate) T) where T: Copy;");
        match &item.data {
            Data::Struct(Fields::Tuple(types)) => {
                let texts: Vec<String> = types.iter().map(Type::text).collect();
                assert_eq!(texts, ["(u8, u16)", "T"]);
            }
            _ => panic!("not a tuple struct"),
        }
        assert_eq!(squeeze(item.generics.split_for_impl().2), "whereT:Copy");
        assert!(matches!(parse_ok("struct S;").data, Data::Struct(Fields::Unit)));
        assert!(matches!(parse_ok("union U { a: u8 }").data, Data::Union));
    }

    #[test]
    fn enum_variants_and_their_attributes() {
        let mut item = parse_ok(
            "enum E<'a> {\n    #[metalayer(schema = \"x\")]\n    /// A doc.\n    A(B<'a>),\n    B { x: u8 },\n    C = 3,\n    D(u8, HashMap<u8, u16>),\n}",
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
        assert!(!emitted.contains("metalayer"), "{emitted}");
        assert!(
            emitted.starts_with("enumE<'a>{#[doc=\"Adoc.\"]A(B<'a>),B{x:u8},C=3,"),
            "{emitted}"
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
        let item = parse_ok("#[metalayer::other] #[metalayer] #[metalayer = \"x\"] struct S;");
        assert!(!item.attrs[0].is("metalayer"));
        assert!(item.attrs[1].is("metalayer"));
        assert!(item.attrs[1].list_args().is_err());
        assert!(item.attrs[2].list_args().is_err());
    }

    #[test]
    fn what_is_no_struct_or_enum_is_refused() {
        for text in ["fn f() {}", "impl S {}", "type T = u8;", "const C: u8 = 0;"] {
            assert_eq!(
                parse_err(text),
                "#[metalayer] applies to a struct with named fields, or with `dispatch` to an enum",
                "{text}"
            );
        }
    }

    #[test]
    fn malformed_items_get_a_message() {
        let cases = [
            ("struct S { a }", "expected `:` and the field's type"),
            ("struct S { a: }", "expected a type"),
            ("struct S { a: Vec<u8 }", "expected `>` to close this type's `<`"),
            ("struct S { a: u8> }", "unexpected `>`"),
            ("struct S { 3: u8 }", "expected a field name"),
            ("struct S<T { a: u8 }", "expected `>` to close the generic parameters"),
            ("struct S<,> { a: u8 }", "expected a generic parameter before `,`"),
            (
                "struct S<3> { a: u8 }",
                "expected a generic parameter: a lifetime, a type or a const",
            ),
            (
                "struct S where T: Copy",
                "expected the struct's fields: `{ ... }`, `( ... );` or `;`",
            ),
            ("struct S(u8)", "expected `;` after a tuple struct"),
            ("struct S { a: u8 } extra", "unexpected token after the item"),
            ("enum E { A(u8) B }", "expected `,`"),
            ("enum E { A = }", "expected the variant's discriminant"),
            ("enum E;", "expected the enum's body: `{ ... }`"),
            ("struct", "expected the type's name"),
            ("#![inner] struct S;", "an inner attribute is not allowed here"),
        ];
        for (text, message) in cases {
            assert_eq!(parse_err(text), message, "{text}");
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
