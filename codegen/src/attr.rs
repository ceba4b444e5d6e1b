//! The attribute's arguments: `schema = "name"` or `schema_path = "rel/path.toml"`, or
//! `dispatch`; and optionally `crate = "path"`. Also the reading of `key = "value"` lists that
//! dispatch variants' attributes share.

use proc_macro2::{Group, Ident, Literal, Span, TokenStream, TokenTree};
use quote::quote;

use crate::error::Error;

/// A string literal: its value and where it is.
pub(crate) struct LitStr {
    value: String,
    span: Span,
}

impl LitStr {
    pub(crate) fn value(&self) -> String {
        self.value.clone()
    }

    pub(crate) fn span(&self) -> Span {
        self.span
    }
}

/// Where the schema comes from.
pub(crate) enum SchemaRef {
    /// `schema = "name"`: the built-in of that name, else the crate's own `schemas/name.toml`.
    Name(LitStr),
    /// `schema_path = "rel/path.toml"`: a file relative to `CARGO_MANIFEST_DIR`.
    Path(LitStr),
}

impl SchemaRef {
    pub(crate) fn lit(&self) -> &LitStr {
        match self {
            SchemaRef::Name(l) | SchemaRef::Path(l) => l,
        }
    }
}

pub(crate) struct Args {
    /// `None` for `dispatch`.
    pub schema: Option<SchemaRef>,
    /// `layout = "type"`: bind the struct to the schema's named record type rather than to its
    /// top-level value.
    pub layout: Option<LitStr>,
    /// The path to the `metalayer` crate in generated code.
    pub krate: TokenStream,
}

/// One argument of a list: `key` or `key = value`.
pub(crate) struct Arg<'a> {
    /// The key when it is a single identifier; `None` for anything else.
    pub key: Option<Ident>,
    /// The key's tokens: a path, or the argument's first token when it starts with no path.
    pub key_tokens: &'a [TokenTree],
    /// The tokens after the `=`, when there is one.
    pub value: Option<&'a [TokenTree]>,
    /// What follows the key when it is neither `=` nor the end of the argument.
    pub unexpected: Option<&'a TokenTree>,
    /// The whole argument.
    pub tokens: &'a [TokenTree],
}

impl Arg<'_> {
    /// Whether the key is the identifier `name`.
    pub(crate) fn is(&self, name: &str) -> bool {
        self.key.as_ref().is_some_and(|k| k == name)
    }

    /// The value, which must be a string literal.
    pub(crate) fn lit_str(&self) -> Result<LitStr, Error> {
        let Some(value) = self.value else {
            let message = format!("expected `=` and a string: `{} = \"...\"`", key_text(self.key_tokens));
            return Err(match self.unexpected {
                Some(token) => Error::new(token.span(), message),
                None => Error::spanned(self.tokens, message),
            });
        };
        match value {
            [TokenTree::Literal(lit)] => match string_value(lit) {
                Some(value) => Ok(LitStr {
                    value,
                    span: lit.span(),
                }),
                None => Err(Error::new(lit.span(), "expected a string literal")),
            },
            [TokenTree::Literal(lit), next, ..] if string_value(lit).is_some() => {
                Err(Error::new(next.span(), "expected `,`"))
            }
            [] => Err(Error::spanned(self.tokens, "expected a string literal after `=`")),
            _ => Err(Error::spanned(value, "expected a string literal")),
        }
    }
}

fn key_text(tokens: &[TokenTree]) -> String {
    tokens.iter().map(ToString::to_string).collect()
}

fn is_punct(token: &TokenTree, c: char) -> bool {
    matches!(token, TokenTree::Punct(p) if p.as_char() == c)
}

/// Calls `f` on each comma-separated argument of `args`, in order, stopping at the first error.
pub(crate) fn each_arg(args: TokenStream, mut f: impl FnMut(&Arg<'_>) -> Result<(), Error>) -> Result<(), Error> {
    let tokens: Vec<TokenTree> = args.into_iter().collect();
    let mut start = 0;
    while start < tokens.len() {
        let end = tokens[start..]
            .iter()
            .position(|t| is_punct(t, ','))
            .map_or(tokens.len(), |i| start + i);
        let part = &tokens[start..end];
        if part.is_empty() {
            return Err(Error::new(tokens[end].span(), "expected an argument before `,`"));
        }
        // The key: a path such as `schema` or `a::b`.
        let path_len = part
            .iter()
            .position(|t| !matches!(t, TokenTree::Ident(_)) && !is_punct(t, ':'))
            .unwrap_or(part.len());
        let key_tokens = &part[..path_len.max(1)];
        let after = part.get(key_tokens.len());
        let value = after
            .filter(|t| is_punct(t, '='))
            .map(|_| &part[key_tokens.len() + 1..]);
        f(&Arg {
            key: match key_tokens {
                [TokenTree::Ident(key)] => Some(key.clone()),
                _ => None,
            },
            key_tokens,
            value,
            unexpected: after.filter(|_| value.is_none()),
            tokens: part,
        })?;
        start = end + 1;
    }
    Ok(())
}

pub(crate) fn parse(args: TokenStream) -> Result<Args, Error> {
    let mut schema: Option<SchemaRef> = None;
    let mut krate: Option<TokenStream> = None;
    let mut layout: Option<LitStr> = None;
    let mut dispatch = false;
    each_arg(args, |arg| {
        let set = |slot: &mut Option<SchemaRef>, value: SchemaRef| {
            if slot.is_some() {
                return Err(Error::spanned(
                    arg.tokens,
                    "give the schema once: either `schema = \"name\"` or `schema_path = \"file.toml\"`",
                ));
            }
            *slot = Some(value);
            Ok(())
        };
        if arg.is("schema") {
            set(&mut schema, SchemaRef::Name(arg.lit_str()?))
        } else if arg.is("schema_path") {
            set(&mut schema, SchemaRef::Path(arg.lit_str()?))
        } else if arg.is("dispatch") {
            if arg.value.is_some() || arg.unexpected.is_some() {
                return Err(Error::spanned(arg.tokens, "`dispatch` takes no value"));
            }
            dispatch = true;
            Ok(())
        } else if arg.is("crate") {
            krate = Some(crate_path(&arg.lit_str()?)?);
            Ok(())
        } else if arg.is("layout") {
            if layout.is_some() {
                return Err(Error::spanned(arg.tokens, "give `layout` once"));
            }
            layout = Some(arg.lit_str()?);
            Ok(())
        } else {
            Err(Error::spanned(
                arg.key_tokens,
                "unknown argument; expected `schema = \"name\"`, `schema_path = \"file.toml\"`, `layout = \"type\"` or `crate = \"path\"`",
            ))
        }
    })?;
    let krate = krate.unwrap_or_else(|| quote!(::metalayer));
    if dispatch {
        if let Some(schema) = schema {
            return Err(Error::new(
                schema.lit().span(),
                "`dispatch` takes no schema: each variant names its own with `#[metalayer(schema = \"...\")]`",
            ));
        }
        if let Some(layout) = layout {
            return Err(Error::new(
                layout.span(),
                "`dispatch` takes no `layout`: each variant is bound to its schema's top-level value",
            ));
        }
        return Ok(Args {
            schema: None,
            layout: None,
            krate,
        });
    }
    let Some(schema) = schema else {
        return Err(Error::new(
            Span::call_site(),
            "missing schema: write `#[metalayer(schema = \"b2nd_v1\")]` or `#[metalayer(schema_path = \"schemas/x.toml\")]`",
        ));
    };
    Ok(Args {
        schema: Some(schema),
        layout,
        krate,
    })
}

/// The path a `crate = "..."` string holds, its tokens spanned at the string.
fn crate_path(lit: &LitStr) -> Result<TokenStream, Error> {
    let invalid = || {
        Error::new(
            lit.span(),
            format!("`crate` takes a path such as \"::metalayer\", not \"{}\"", lit.value),
        )
    };
    let tokens: TokenStream = lit.value.parse().map_err(|_| invalid())?;
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    // `[::] ident (:: ident)*`
    let is_colon = |t: &TokenTree| matches!(t, TokenTree::Punct(p) if p.as_char() == ':');
    let mut i = if tokens.len() >= 2 && is_colon(&tokens[0]) && is_colon(&tokens[1]) {
        2
    } else {
        0
    };
    loop {
        if !matches!(tokens.get(i), Some(TokenTree::Ident(_))) {
            return Err(invalid());
        }
        i += 1;
        match tokens.get(i..i + 2) {
            _ if i == tokens.len() => break,
            Some([a, b]) if is_colon(a) && is_colon(b) => i += 2,
            _ => return Err(invalid()),
        }
    }
    Ok(respan(tokens.into_iter().collect(), lit.span()))
}

fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut token| {
            if let TokenTree::Group(g) = &token {
                let mut group = Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                token = TokenTree::Group(group);
            } else {
                token.set_span(span);
            }
            token
        })
        .collect()
}

/// The value of a string literal (`"..."` or `r#"..."#`, no suffix); `None` for any other literal.
pub(crate) fn string_value(lit: &Literal) -> Option<String> {
    let text = lit.to_string();
    if let Some(raw) = text.strip_prefix('r') {
        let hashes = raw.len() - raw.trim_start_matches('#').len();
        let body = raw[hashes..].strip_prefix('"')?;
        let close = format!("\"{}", "#".repeat(hashes));
        return (body.ends_with(&close)).then(|| body[..body.len() - close.len()].to_string());
    }
    let body = text.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '"' {
            // A quote inside the body: the literal had a suffix after its closing quote.
            return None;
        }
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            '\\' => out.push('\\'),
            '0' => out.push('\0'),
            '\'' => out.push('\''),
            '"' => out.push('"'),
            'x' => {
                let hex: String = [chars.next()?, chars.next()?].iter().collect();
                let byte = u8::from_str_radix(&hex, 16).ok().filter(|b| b.is_ascii())?;
                out.push(char::from(byte));
            }
            'u' => {
                if chars.next()? != '{' {
                    return None;
                }
                let mut hex = String::new();
                loop {
                    match chars.next()? {
                        '}' => break,
                        '_' => {}
                        h => hex.push(h),
                    }
                }
                out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
            }
            '\n' => {
                while chars.peek().is_some_and(|c| c.is_whitespace()) {
                    chars.next();
                }
            }
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Result<Args, String> {
        parse(text.parse().expect("tokens")).map_err(|e| e.message().to_string())
    }

    fn schema(text: &str) -> (&'static str, String, String) {
        let args = match args(text) {
            Ok(args) => args,
            Err(message) => panic!("{text}: {message}"),
        };
        let krate = args.krate.to_string().replace(' ', "");
        match args.schema {
            Some(SchemaRef::Name(l)) => ("name", l.value(), krate),
            Some(SchemaRef::Path(l)) => ("path", l.value(), krate),
            None => ("dispatch", String::new(), krate),
        }
    }

    #[test]
    fn arguments() {
        let cases = [
            ("schema = \"b2nd_v1\"", ("name", "b2nd_v1", "::metalayer")),
            ("schema = \"b2nd_v1\",", ("name", "b2nd_v1", "::metalayer")),
            (
                "schema_path = \"schemas/x.toml\"",
                ("path", "schemas/x.toml", "::metalayer"),
            ),
            ("schema = r#\"b2nd_v1\"#", ("name", "b2nd_v1", "::metalayer")),
            (
                "crate = \"::my::metalayer\", schema = \"b2nd_v1\"",
                ("name", "b2nd_v1", "::my::metalayer"),
            ),
            ("schema = \"b2nd_v1\", crate = \"crate\"", ("name", "b2nd_v1", "crate")),
            ("dispatch", ("dispatch", "", "::metalayer")),
            ("dispatch, crate = \"m\"", ("dispatch", "", "m")),
        ];
        for (text, (kind, value, krate)) in cases {
            assert_eq!(schema(text), (kind, value.to_string(), krate.to_string()), "{text}");
        }
    }

    #[test]
    fn argument_errors() {
        let once = "give the schema once: either `schema = \"name\"` or `schema_path = \"file.toml\"`";
        let unknown = "unknown argument; expected `schema = \"name\"`, `schema_path = \"file.toml\"`, `layout = \"type\"` or `crate = \"path\"`";
        let cases = [
            (
                "",
                "missing schema: write `#[metalayer(schema = \"b2nd_v1\")]` or `#[metalayer(schema_path = \"schemas/x.toml\")]`",
            ),
            ("schema = \"a\", schema_path = \"b\"", once),
            ("schema = \"a\", schema = \"b\"", once),
            ("schemas = \"a\"", unknown),
            ("a::schema = \"a\"", unknown),
            ("\"b2nd_v1\"", unknown),
            ("schema", "expected `=` and a string: `schema = \"...\"`"),
            ("schema(\"x\")", "expected `=` and a string: `schema = \"...\"`"),
            ("schema = ", "expected a string literal after `=`"),
            ("schema = b2nd_v1", "expected a string literal"),
            ("schema = b\"b2nd_v1\"", "expected a string literal"),
            ("schema = \"a\" \"b\"", "expected `,`"),
            (", schema = \"a\"", "expected an argument before `,`"),
            ("schema = \"a\",, crate = \"m\"", "expected an argument before `,`"),
            ("dispatch = true", "`dispatch` takes no value"),
            (
                "dispatch, schema = \"a\"",
                "`dispatch` takes no schema: each variant names its own with `#[metalayer(schema = \"...\")]`",
            ),
            (
                "schema = \"a\", crate = \"a b\"",
                "`crate` takes a path such as \"::metalayer\", not \"a b\"",
            ),
            (
                "schema = \"a\", crate = \"a::\"",
                "`crate` takes a path such as \"::metalayer\", not \"a::\"",
            ),
            (
                "schema = \"a\", crate = \"\"",
                "`crate` takes a path such as \"::metalayer\", not \"\"",
            ),
        ];
        for (text, message) in cases {
            match args(text) {
                Ok(_) => panic!("{text} parsed"),
                Err(m) => assert_eq!(m, message, "{text}"),
            }
        }
    }

    #[test]
    fn string_values() {
        let cases = [
            (r#""plain""#, Some("plain")),
            (r#""tab\there\n""#, Some("tab\there\n")),
            (r#""\x41\u{42}\u{1F600}\\\"\'\0""#, Some("AB\u{1F600}\\\"'\0")),
            ("\"line \\\n     continued\"", Some("line continued")),
            (r###"r"raw \n""###, Some("raw \\n")),
            (r###"r##"a "# b"##"###, Some("a \"# b")),
            (r#""x"suffix"#, None),
            (r#"b"bytes""#, None),
            (r#"c"c string""#, None),
            ("'c'", None),
            ("16", None),
        ];
        for (text, value) in cases {
            let lit = match text.parse::<TokenStream>().unwrap().into_iter().next() {
                Some(TokenTree::Literal(lit)) => lit,
                other => panic!("{text}: {other:?}"),
            };
            assert_eq!(string_value(&lit).as_deref(), value, "{text}");
        }
    }
}
