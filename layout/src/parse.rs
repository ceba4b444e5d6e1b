//! Schema text to a spanned TOML tree. What the keys and values mean is checked in `check`.

use core::ops::Range;

use toml_span::ErrorKind;
use toml_span::value::{Value, ValueInner};

use crate::diagnostic::Diagnostic;

/// A value with the byte range it came from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sp<T> {
    pub value: T,
    pub span: Range<usize>,
}

/// A TOML value, with spans all the way down.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Val {
    Str(String),
    /// An integer. TOML's are 64-bit signed; the checker compares them with wire ranges that
    /// reach 2^64 - 1, hence the i128.
    Int(i128),
    Float(f64),
    Bool(bool),
    Array(Vec<Sp<Val>>),
    Table(Table),
}

/// A TOML table: its keys in file order.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Table {
    pub pairs: Vec<(Sp<String>, Sp<Val>)>,
}

impl Val {
    /// What the value is, for messages: `a string`, `an integer`.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Val::Str(_) => "a string",
            Val::Int(_) => "an integer",
            Val::Float(_) => "a float",
            Val::Bool(_) => "a boolean",
            Val::Array(_) => "an array",
            Val::Table(_) => "a table",
        }
    }
}

impl Table {
    pub(crate) fn get(&self, key: &str) -> Option<&Sp<Val>> {
        self.pairs.iter().find(|(k, _)| k.value == key).map(|(_, v)| v)
    }

    pub(crate) fn key_span(&self, key: &str) -> Option<Range<usize>> {
        self.pairs
            .iter()
            .find(|(k, _)| k.value == key)
            .map(|(k, _)| k.span.clone())
    }
}

fn convert(text: &str, mut value: Value<'_>) -> Sp<Val> {
    let mut span = value.span.start..value.span.end;
    let value = match value.take() {
        ValueInner::String(s) => {
            span = with_quotes(text, span);
            Val::Str(s.into_owned())
        }
        ValueInner::Integer(i) => Val::Int(i128::from(i)),
        ValueInner::Float(f) => Val::Float(f),
        ValueInner::Boolean(b) => Val::Bool(b),
        ValueInner::Array(items) => {
            let mut values = Vec::with_capacity(items.len());
            for item in items {
                values.push(convert(text, item));
            }
            Val::Array(values)
        }
        ValueInner::Table(t) => Val::Table(table(text, t)),
    };
    Sp { value, span }
}

/// A string's span with its quotes, so that a diagnostic underlines the value or key as
/// written. The parser's span is the text between them, after the newline that may follow the
/// opening quotes of a multi-line string.
fn with_quotes(text: &str, span: Range<usize>) -> Range<usize> {
    let before = text.get(..span.start).unwrap_or_default();
    let after = text.get(span.end..).unwrap_or_default();
    // For an empty one-line string the parser's span is the opening quote.
    if let Some(q @ ("\"" | "'")) = text.get(span.clone())
        && after.starts_with(q)
    {
        return span.start..span.end + 1;
    }
    for quotes in ["\"\"\"", "'''"] {
        for newline in ["", "\n", "\r\n"] {
            let opened = before.strip_suffix(newline).is_some_and(|b| b.ends_with(quotes));
            if opened && after.starts_with(quotes) {
                return span.start - quotes.len() - newline.len()..span.end + quotes.len();
            }
        }
    }
    match ["\"", "'"]
        .into_iter()
        .find(|q| before.ends_with(q) && after.starts_with(q))
    {
        Some(q) => span.start - q.len()..span.end + q.len(),
        None => span,
    }
}

/// The parser keeps a table's keys sorted by name; the schema language reads them in file order.
fn table(text: &str, t: toml_span::value::Table<'_>) -> Table {
    let mut pairs: Vec<(Sp<String>, Sp<Val>)> = Vec::with_capacity(t.len());
    for (key, value) in t {
        let span = with_quotes(text, key.span.start..key.span.end);
        let key = Sp {
            value: key.name.into_owned(),
            span,
        };
        pairs.push((key, convert(text, value)));
    }
    crate::order::sort_by_key(&mut pairs, &|(key, _)| key.span.start as i128);
    Table { pairs }
}

/// Parses schema text to its top-level table; a TOML syntax error is a diagnostic.
pub(crate) fn parse(text: &str) -> Result<Table, Vec<Diagnostic>> {
    match toml_span::parse(text) {
        Ok(mut doc) => match doc.take() {
            ValueInner::Table(t) => Ok(table(text, t)),
            // The parser returns a table for every document.
            _ => Ok(Table::default()),
        },
        Err(e) => Err(vec![syntax_error(text, &e)]),
    }
}

/// The parser's error `e`, or for an integer out of TOML's range, which range that is.
fn syntax_error(text: &str, e: &toml_span::Error) -> Diagnostic {
    let mut span = e.span.start..e.span.end;
    if let ErrorKind::InvalidNumber = e.kind {
        // The parser's span leaves out the prefix of a hexadecimal, octal or binary integer.
        let before = text.get(..span.start).unwrap_or_default();
        if ["0x", "0o", "0b"].iter().any(|p| before.ends_with(p)) {
            span.start -= 2;
        }
        let literal = text.get(span.clone()).unwrap_or_default();
        if integer_literal(literal) {
            let message = format!(
                "TOML syntax: integer {literal} is outside TOML's integer range, {}..={}",
                i64::MIN,
                i64::MAX
            );
            return Diagnostic::new(span, message);
        }
    }
    Diagnostic::new(e.span.start..e.span.end, format!("TOML syntax: {e}"))
}

/// Whether `s` is written as a TOML integer: decimal with an optional sign, or hexadecimal,
/// octal or binary, with single underscores between digits.
fn integer_literal(s: &str) -> bool {
    let (digits, radix) = match s.get(..2) {
        Some("0x") => (&s[2..], 16),
        Some("0o") => (&s[2..], 8),
        Some("0b") => (&s[2..], 2),
        _ => (s.strip_prefix(['+', '-']).unwrap_or(s), 10),
    };
    !digits.is_empty()
        && !digits.starts_with('_')
        && !digits.ends_with('_')
        && !digits.contains("__")
        && digits.chars().all(|c| c == '_' || c.is_digit(radix))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(text: &str) -> (Range<usize>, String) {
        let d = parse(text).unwrap_err().remove(0);
        (d.span, d.message)
    }

    const RANGE: &str = "TOML's integer range, -9223372036854775808..=9223372036854775807";

    #[test]
    fn keys_in_file_order_and_strings_with_their_quotes() {
        let text = "b = 1\na = 'x'\n[c]\nz = \"\"\"y\"\"\"\n";
        let t = parse(text).unwrap();
        let keys: Vec<&str> = t.pairs.iter().map(|(k, _)| k.value.as_str()).collect();
        assert_eq!(keys, ["b", "a", "c"]);
        assert_eq!(&text[t.key_span("a").unwrap()], "a");
        assert_eq!(&text[t.get("a").unwrap().span.clone()], "'x'");
        let Some(Val::Table(c)) = t.get("c").map(|v| &v.value) else {
            panic!("`c` is a table");
        };
        assert_eq!(&text[c.get("z").unwrap().span.clone()], "\"\"\"y\"\"\"");
        assert_eq!(t.get("b").unwrap().value, Val::Int(1));

        // Quoted keys, multi-line strings (the newline after the opening quotes is not part of
        // the value) and an empty string.
        let text = "\"a key\" = \"\"\"\nline\"\"\"\n'k' = '''\r\nx'''\ne = \"\"\n";
        let t = parse(text).unwrap();
        let span_of = |key: &str| &text[t.get(key).unwrap().span.clone()];
        assert_eq!(&text[t.key_span("a key").unwrap()], "\"a key\"");
        assert_eq!(span_of("a key"), "\"\"\"\nline\"\"\"");
        assert_eq!(&text[t.key_span("k").unwrap()], "'k'");
        assert_eq!(span_of("k"), "'''\r\nx'''");
        assert_eq!(span_of("e"), "\"\"");
        let text = "a = ''\nb = \"\"\"\"\"\"\n";
        let t = parse(text).unwrap();
        assert_eq!(&text[t.get("a").unwrap().span.clone()], "''");
        assert_eq!(&text[t.get("b").unwrap().span.clone()], "\"\"\"\"\"\"");
    }

    #[test]
    fn integers_span_toml_range() {
        let t = parse("a = -9223372036854775808\nb = 0x7fff_ffff_ffff_ffff\n").unwrap();
        assert_eq!(t.get("a").unwrap().value, Val::Int(i128::from(i64::MIN)));
        assert_eq!(t.get("b").unwrap().value, Val::Int(i128::from(i64::MAX)));
        assert_eq!(
            error("x = 1\nmax = 18446744073709551615\n"),
            (
                12..32,
                format!("TOML syntax: integer 18446744073709551615 is outside {RANGE}")
            )
        );
        assert_eq!(
            error("min = -9223372036854775809\n").1,
            format!("TOML syntax: integer -9223372036854775809 is outside {RANGE}")
        );
        assert_eq!(
            error("x = 0x1_0000_0000_0000_0000\n").1,
            format!("TOML syntax: integer 0x1_0000_0000_0000_0000 is outside {RANGE}")
        );
    }

    #[test]
    fn other_syntax_errors_keep_the_parser_message() {
        assert_eq!(
            error("a = 1\na = 2\n"),
            (6..7, "TOML syntax: duplicate key: `a`".to_string())
        );
        assert_eq!(error("x = 12ab\n").1, "TOML syntax: invalid number");
        for (s, is_integer) in [("12ab", false), ("1__2", false), ("_1", false), ("0x", false)] {
            assert_eq!(integer_literal(s), is_integer, "{s}");
        }
        for s in ["-1_000", "+7", "0b1010", "0o17", "0xdead_beef"] {
            assert!(integer_literal(s), "{s}");
        }
    }
}
