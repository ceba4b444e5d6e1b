//! Compile errors the attribute reports: a message and the source range it points at.
//!
//! On a stable compiler a procedural macro cannot join two spans into one, so an error over
//! several tokens is emitted as `::core::compile_error! { "message" }` whose path carries the
//! first token's span and whose braces carry the last token's span: rustc then underlines
//! everything from the first token to the last.

use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};

/// One error: a message and the range of source it points at.
#[derive(Debug)]
pub(crate) struct Error {
    start: Span,
    end: Span,
    message: String,
}

impl Error {
    /// An error pointing at one span.
    pub(crate) fn new(span: Span, message: impl Into<String>) -> Self {
        Error {
            start: span,
            end: span,
            message: message.into(),
        }
    }

    /// An error pointing at the range from the first to the last of `tokens` (the call site
    /// when there are none).
    pub(crate) fn spanned(tokens: &[TokenTree], message: impl Into<String>) -> Self {
        let (start, end) = span_range(tokens);
        Error {
            start,
            end,
            message: message.into(),
        }
    }

    /// The message, for tests.
    #[cfg(test)]
    pub(crate) fn message(&self) -> &str {
        &self.message
    }

    /// `::core::compile_error! { "message" }`, spanned over the error's range.
    pub(crate) fn to_compile_error(&self) -> TokenStream {
        let punct = |c, spacing| {
            let mut p = Punct::new(c, spacing);
            p.set_span(self.start);
            TokenTree::Punct(p)
        };
        let mut message = Literal::string(&self.message);
        message.set_span(self.end);
        let mut body = Group::new(Delimiter::Brace, TokenTree::Literal(message).into());
        body.set_span(self.end);
        let tokens = vec![
            punct(':', Spacing::Joint),
            punct(':', Spacing::Alone),
            TokenTree::Ident(Ident::new("core", self.start)),
            punct(':', Spacing::Joint),
            punct(':', Spacing::Alone),
            TokenTree::Ident(Ident::new("compile_error", self.start)),
            punct('!', Spacing::Alone),
            TokenTree::Group(body),
        ];
        tokens.into_iter().collect()
    }
}

/// `errors` as compile errors, one after the other.
pub(crate) fn compile_errors(errors: &[Error]) -> TokenStream {
    let mut out = TokenStream::new();
    for e in errors {
        out.extend(e.to_compile_error());
    }
    out
}

/// The spans of the first and the last of `tokens`; the call site for none.
pub(crate) fn span_range(tokens: &[TokenTree]) -> (Span, Span) {
    match (tokens.first(), tokens.last()) {
        (Some(first), Some(last)) => (first.span(), last.span()),
        _ => (Span::call_site(), Span::call_site()),
    }
}

/// One span for `tokens`: the joined range where the compiler can join spans, else the first
/// token's span.
pub(crate) fn joined_span(tokens: &[TokenTree]) -> Span {
    let (start, end) = span_range(tokens);
    start.join(end).unwrap_or(start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compile_error_names_core_and_carries_the_message() {
        let tokens: TokenStream = "a b c".parse().unwrap();
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let error = Error::spanned(&tokens, "something \"quoted\"");
        assert_eq!(
            error.to_compile_error().to_string(),
            ":: core :: compile_error ! { \"something \\\"quoted\\\"\" }"
        );
    }

    #[test]
    fn no_tokens_point_at_the_call_site() {
        let error = Error::spanned(&[], "empty");
        assert_eq!(error.message(), "empty");
        assert!(error.to_compile_error().to_string().contains("compile_error"));
    }
}
