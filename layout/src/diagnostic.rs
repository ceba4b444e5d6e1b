//! Errors in a schema file, located by byte range and rendered as `path:line:column` with the
//! offending line underlined.

use core::fmt::Write as _;
use core::ops::Range;

/// One problem in a schema file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// What is wrong, in one sentence.
    pub message: String,
    /// The byte range in the schema text it is about.
    pub span: Range<usize>,
    /// The file it is in, when that is not the schema itself but a file it extends or
    /// includes.
    pub origin: Option<Box<Origin>>,
}

/// A file a schema extends or includes, where a [`Diagnostic`] is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The name the schema refers to it by.
    pub name: String,
    /// Its path on disk, if it has one.
    pub path: Option<String>,
    /// Its text.
    pub text: String,
}

impl Diagnostic {
    /// A diagnostic about `span`.
    ///
    /// ```
    /// let d = metalayer_layout::Diagnostic::new(3..5, "bad");
    /// assert_eq!(d.span, 3..5);
    /// ```
    pub fn new(span: Range<usize>, message: impl Into<String>) -> Self {
        Diagnostic {
            message: message.into(),
            span,
            origin: None,
        }
    }

    /// The 1-based line and column (in characters) of the span's start in `text`.
    ///
    /// ```
    /// let d = metalayer_layout::Diagnostic::new(6..7, "x");
    /// assert_eq!(d.line_column("a = 1\nb = 2\n"), (2, 1));
    /// ```
    pub fn line_column(&self, text: &str) -> (usize, usize) {
        let start = clamp_to_char(text, self.span.start);
        let before = &text[..start];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = text[line_start..start].chars().count() + 1;
        (line, column)
    }

    /// Renders `path:line:column: message`, then the line with the span underlined.
    ///
    /// ```
    /// let text = "[container]\nmarker = 0xdc\n";
    /// let d = metalayer_layout::Diagnostic::new(21..25, "marker 0xdc is not a fixarray marker");
    /// assert_eq!(
    ///     d.render("schemas/x.toml", text),
    ///     "schemas/x.toml:2:10: marker 0xdc is not a fixarray marker\n  |\n2 | marker = 0xdc\n  |          ^^^^"
    /// );
    /// ```
    pub fn render(&self, path: &str, text: &str) -> String {
        let (path, text) = match &self.origin {
            Some(o) => (o.path.as_deref().unwrap_or(&o.name), o.text.as_str()),
            None => (path, text),
        };
        let (line, column) = self.line_column(text);
        let mut out = format!("{path}:{line}:{column}: {}", self.message);
        let start = clamp_to_char(text, self.span.start);
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[line_start..].find('\n').map_or(text.len(), |i| line_start + i);
        let source_line = text[line_start..line_end].trim_end_matches('\r');
        let end = clamp_to_char(text, self.span.end.clamp(start, line_end));
        let width = text[start..end].chars().count().max(1);
        let number = line.to_string();
        let pad = " ".repeat(number.len());
        let _ = write!(
            out,
            "\n{pad} |\n{number} | {source_line}\n{pad} | {}{}",
            " ".repeat(column - 1),
            "^".repeat(width)
        );
        out
    }
}

fn clamp_to_char(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

impl core::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match &self.origin {
            Some(o) => {
                let (line, column) = self.line_column(&o.text);
                write!(
                    f,
                    "{}:{line}:{column}: {}",
                    o.path.as_deref().unwrap_or(&o.name),
                    self.message
                )
            }
            None => write!(f, "bytes {}..{}: {}", self.span.start, self.span.end, self.message),
        }
    }
}

impl std::error::Error for Diagnostic {}
