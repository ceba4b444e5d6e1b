//! The attribute's arguments: `schema = "name"` or `schema_path = "rel/path.toml"`, or
//! `dispatch`; and optionally `crate = "path"`. Also the reading of `key = "value"` lists that
//! dispatch variants' attributes share. syn reads the values: string literals (escapes, raw
//! strings, no suffix) and the path `crate` names.

use proc_macro2::{Ident, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote};

use crate::error::Error;

/// A string literal: its value and where it is.
pub(crate) use syn::LitStr;

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
            [TokenTree::Literal(lit)] => {
                string_lit(lit).ok_or_else(|| Error::new(lit.span(), "expected a string literal"))
            }
            [TokenTree::Literal(lit), next, ..] if string_lit(lit).is_some() => {
                Err(Error::new(next.span(), "expected `,`"))
            }
            [] => Err(Error::spanned(self.tokens, "expected a string literal after `=`")),
            _ => Err(Error::spanned(value, "expected a string literal")),
        }
    }
}

/// `lit` as a string literal without a suffix; `None` for any other literal.
fn string_lit(lit: &proc_macro2::Literal) -> Option<LitStr> {
    match syn::Lit::new(lit.clone()) {
        syn::Lit::Str(s) if s.suffix().is_empty() => Some(s),
        _ => None,
    }
}

fn key_text(tokens: &[TokenTree]) -> String {
    let mut text = String::new();
    for t in tokens {
        text.push_str(&t.to_string());
    }
    text
}

fn is_punct(token: &TokenTree, c: char) -> bool {
    matches!(token, TokenTree::Punct(p) if p.as_char() == c)
}

/// Calls `f` on each comma-separated argument of `args`, in order, stopping at the first error.
pub(crate) fn each_arg(args: TokenStream, f: &mut dyn FnMut(&Arg<'_>) -> Result<(), Error>) -> Result<(), Error> {
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
    each_arg(args, &mut |arg| {
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

/// The path a `crate = "..."` string holds, `[::] name (:: name)*`, its tokens spanned at the
/// string.
fn crate_path(lit: &LitStr) -> Result<TokenStream, Error> {
    match lit.parse_with(syn::Path::parse_mod_style) {
        Ok(path) => Ok(path.to_token_stream()),
        Err(_) => Err(Error::new(
            lit.span(),
            format!("`crate` takes a path such as \"::metalayer\", not \"{}\"", lit.value()),
        )),
    }
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
            (
                "schema = \"b2nd_v1\", crate = \" self :: r#type \"",
                ("name", "b2nd_v1", "self::r#type"),
            ),
            (
                "schema = \"b2nd_v1\", crate = \"super::m\"",
                ("name", "b2nd_v1", "super::m"),
            ),
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
            (
                "schema = \"a\", crate = \"m::<T>\"",
                "`crate` takes a path such as \"::metalayer\", not \"m::<T>\"",
            ),
            (
                "schema = \"a\", crate = \"fn\"",
                "`crate` takes a path such as \"::metalayer\", not \"fn\"",
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
            assert_eq!(string_lit(&lit).map(|l| l.value()).as_deref(), value, "{text}");
        }
    }
}
