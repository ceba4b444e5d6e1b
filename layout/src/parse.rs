//! Schema text to a spanned TOML tree. What the keys and values mean is checked in `check`.

use core::ops::Range;

use toml::de::{DeTable, DeValue};

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
    /// An integer; `None` when it does not fit an i128.
    Int(Option<i128>),
    Float(f64),
    Bool(bool),
    Datetime,
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
            Val::Datetime => "a datetime",
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

fn convert(value: &toml::Spanned<DeValue<'_>>) -> Sp<Val> {
    let span = value.span();
    let value = match value.get_ref() {
        DeValue::String(s) => Val::Str(s.to_string()),
        DeValue::Integer(i) => Val::Int(i128::from_str_radix(i.as_str(), i.radix()).ok()),
        DeValue::Float(f) => Val::Float(f.as_str().replace('_', "").parse().unwrap_or(f64::NAN)),
        DeValue::Boolean(b) => Val::Bool(*b),
        DeValue::Datetime(_) => Val::Datetime,
        DeValue::Array(items) => Val::Array(items.iter().map(convert).collect()),
        DeValue::Table(t) => Val::Table(table(t)),
    };
    Sp { value, span }
}

fn table(t: &DeTable<'_>) -> Table {
    Table {
        pairs: t
            .iter()
            .map(|(k, v)| {
                (
                    Sp {
                        value: k.get_ref().to_string(),
                        span: k.span(),
                    },
                    convert(v),
                )
            })
            .collect(),
    }
}

/// Parses schema text to its top-level table; TOML syntax errors are diagnostics.
pub(crate) fn parse(text: &str) -> Result<Table, Vec<Diagnostic>> {
    let (doc, errors) = DeTable::parse_recoverable(text);
    if !errors.is_empty() {
        return Err(errors
            .iter()
            .map(|e| {
                Diagnostic::new(
                    e.span().unwrap_or(0..0),
                    format!("TOML syntax: {}", e.message().trim_end()),
                )
            })
            .collect());
    }
    Ok(table(doc.get_ref()))
}
