//! Errors in a schema file, located by byte range and rendered as `path:line:column` with the
//! offending line underlined.

use core::fmt::{self, Write as _};
use core::ops::{Deref, Range};

/// One problem in a schema file. Its message is its `Display`; [`Diagnostic::render`] adds the
/// file, line and column and underlines the span.
///
/// ```
/// let d = metalayer_layout::Diagnostic::new(3..5, "unknown key `markr` in [container]");
/// assert_eq!(d.to_string(), "unknown key `markr` in [container]");
/// let boxed: Box<dyn std::error::Error> = Box::new(d);
/// assert!(boxed.source().is_none());
/// ```
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

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl core::error::Error for Diagnostic {}

/// `diagnostics` in the order they are reported: the schema's own first, then those in the files
/// it extends or includes, each by position (problems at one position keep the order they were
/// found in), and each problem once, though it may have been found along two paths.
///
/// ```
/// use metalayer_layout::{Diagnostic, report_order};
///
/// let found = vec![
///     Diagnostic::new(9..10, "b"),
///     Diagnostic::new(2..3, "a"),
///     Diagnostic::new(9..10, "b"),
///     Diagnostic::new(9..10, "c"),
/// ];
/// let messages: Vec<String> = report_order(found).into_iter().map(|d| d.message).collect();
/// assert_eq!(messages, ["a", "b", "c"]);
/// ```
pub fn report_order(mut diagnostics: Vec<Diagnostic>) -> Vec<Diagnostic> {
    crate::order::sort_by_key(&mut diagnostics, &|d| {
        (i128::from(d.origin.is_some()) << 64) + d.span.start as i128
    });
    let mut seen: Vec<(Option<String>, Range<usize>, String)> = Vec::new();
    diagnostics.retain(|d| {
        let key = (
            d.origin.as_ref().map(|o| o.name.clone()),
            d.span.clone(),
            d.message.clone(),
        );
        let new = !seen.contains(&key);
        if new {
            seen.push(key);
        }
        new
    });
    diagnostics
}

/// Every problem [`parse`](crate::parse) found in one schema, in file order where possible. It
/// dereferences to the [`Diagnostic`]s, and it is an error of its own that names the schema and
/// each problem's line and column, so that `parse(...)?` works in a function returning
/// `Box<dyn Error>`.
///
/// ```
/// fn check(text: &str) -> Result<usize, Box<dyn std::error::Error>> {
///     let layout = metalayer_layout::parse("tiny_v0", text)?;
///     Ok(layout.root_record().map_or(0, |r| r.entries.len()))
/// }
///
/// let text = r#"
/// [schema]
/// metalayer = "tiny"
/// description = "One constant"
/// source = "an example"
///
/// [container]
/// wire = "fixarray"
/// marker = 0x91
///
/// [[entry]]
/// name = "version"
/// wire = "fixint"
/// const = 200
/// "#;
/// let err = check(text).unwrap_err();
/// assert_eq!(err.to_string(), "schema tiny_v0, line 14, column 9: constant 200 does not fit fixint (0..=127)");
///
/// let errors = metalayer_layout::parse("tiny_v0", text).unwrap_err();
/// assert_eq!(errors.len(), 1);
/// assert_eq!(errors.schema(), "tiny_v0");
/// assert_eq!(errors[0].line_column(text), (14, 9));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostics {
    schema: String,
    diagnostics: Vec<Diagnostic>,
    /// The line and column of each diagnostic, in the text they were found in.
    positions: Vec<(usize, usize)>,
}

impl Diagnostics {
    /// The problems `diagnostics` found in the schema `schema` whose text is `text`.
    ///
    /// ```
    /// use metalayer_layout::{Diagnostic, Diagnostics};
    ///
    /// let errors = Diagnostics::new("x", "a = 1\nb = 2\n", vec![Diagnostic::new(6..7, "unknown key `b`")]);
    /// assert_eq!(errors.to_string(), "schema x, line 2, column 1: unknown key `b`");
    /// ```
    pub fn new(schema: &str, text: &str, diagnostics: Vec<Diagnostic>) -> Self {
        let mut positions = Vec::with_capacity(diagnostics.len());
        for d in &diagnostics {
            let in_text = match &d.origin {
                Some(o) => o.text.as_str(),
                None => text,
            };
            positions.push(d.line_column(in_text));
        }
        Diagnostics {
            schema: schema.to_string(),
            diagnostics,
            positions,
        }
    }

    /// The schema's name.
    ///
    /// ```
    /// let errors = metalayer_layout::Diagnostics::new("b2nd_v9", "", Vec::new());
    /// assert_eq!(errors.schema(), "b2nd_v9");
    /// ```
    pub fn schema(&self) -> &str {
        &self.schema
    }

    /// The diagnostics, without the schema's name.
    ///
    /// ```
    /// use metalayer_layout::{Diagnostic, Diagnostics};
    ///
    /// let errors = Diagnostics::new("x", "a = 1\n", vec![Diagnostic::new(0..1, "bad")]);
    /// assert_eq!(errors.into_vec(), [Diagnostic::new(0..1, "bad")]);
    /// ```
    pub fn into_vec(self) -> Vec<Diagnostic> {
        self.diagnostics
    }
}

impl Deref for Diagnostics {
    type Target = [Diagnostic];

    fn deref(&self) -> &[Diagnostic] {
        &self.diagnostics
    }
}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;

    fn into_iter(self) -> Self::IntoIter {
        self.diagnostics.into_iter()
    }
}

impl<'a> IntoIterator for &'a Diagnostics {
    type Item = &'a Diagnostic;
    type IntoIter = core::slice::Iter<'a, Diagnostic>;

    fn into_iter(self) -> Self::IntoIter {
        self.diagnostics.iter()
    }
}

/// One line per problem: `schema b2nd_v1, line 33, column 10: marker 0xd2 does not belong to
/// int64: its marker is 0xd3`.
impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (d, (line, column))) in self.diagnostics.iter().zip(&self.positions).enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            match &d.origin {
                Some(o) => write!(
                    f,
                    "schema {} ({}), line {line}, column {column}: {}",
                    self.schema,
                    o.path.as_deref().unwrap_or(&o.name),
                    d.message
                )?,
                None => write!(f, "schema {}, line {line}, column {column}: {}", self.schema, d.message)?,
            }
        }
        Ok(())
    }
}

/// The problems are all in the message: there is no source.
impl core::error::Error for Diagnostics {}

fn clamp_to_char(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}
