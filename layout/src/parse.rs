//! Schema text to a spanned, unchecked schema: TOML syntax, the keys each table takes and the
//! TOML type of each value. What the values mean is checked in `check`.

use core::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::diagnostic::Diagnostic;

/// A value with the byte range it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sp<T> {
    pub value: T,
    pub span: Range<usize>,
}

#[derive(Debug, Default)]
pub(crate) struct RawSchema {
    pub metalayer: Option<Sp<String>>,
    pub description: Option<Sp<String>>,
    pub source: Option<Sp<String>>,
    pub schema_span: Option<Range<usize>>,
    pub container: Option<RawContainer>,
    pub entries: Vec<RawEntry>,
}

#[derive(Debug)]
pub(crate) struct RawContainer {
    pub span: Range<usize>,
    pub wire: Option<Sp<String>>,
    pub marker: Option<Sp<i128>>,
}

#[derive(Debug)]
pub(crate) struct RawEntry {
    pub span: Range<usize>,
    pub name: Option<Sp<String>>,
    pub wire: Option<Sp<String>>,
    pub marker: Option<Sp<i128>>,
    pub width: Option<Sp<i128>>,
    pub count: Option<Sp<String>>,
    pub element: Option<RawElement>,
    pub constant: Option<Sp<i128>>,
    pub min: Option<Sp<i128>>,
    pub max: Option<Sp<i128>>,
    pub length_of: Option<Sp<Vec<Sp<String>>>>,
    pub allow_header_overflow: Option<Sp<String>>,
    pub doc: Option<Sp<String>>,
    /// Keys present, with their spans, for "does not apply" checks.
    pub keys: Vec<Sp<String>>,
}

#[derive(Debug)]
pub(crate) struct RawElement {
    pub span: Range<usize>,
    pub wire: Option<Sp<String>>,
    pub marker: Option<Sp<i128>>,
    pub width: Option<Sp<i128>>,
}

pub(crate) const TOP_KEYS: &[&str] = &["schema", "container", "entry"];
pub(crate) const SCHEMA_KEYS: &[&str] = &["metalayer", "description", "source"];
pub(crate) const CONTAINER_KEYS: &[&str] = &["wire", "marker"];
pub(crate) const ENTRY_KEYS: &[&str] = &[
    "name",
    "wire",
    "marker",
    "width",
    "count",
    "element",
    "const",
    "min",
    "max",
    "length_of",
    "allow_header_overflow",
    "doc",
];
pub(crate) const ELEMENT_KEYS: &[&str] = &["wire", "marker", "width"];

/// The keys of one TOML table, checked against the keys it may have.
struct Table<'t, 'i> {
    pairs: Vec<(&'t Spanned<std::borrow::Cow<'i, str>>, &'t Spanned<DeValue<'i>>)>,
}

impl<'t, 'i> Table<'t, 'i> {
    fn new(table: &'t DeTable<'i>, what: &str, known: &[&str], diags: &mut Vec<Diagnostic>) -> Self {
        let pairs: Vec<_> = table.iter().collect();
        for (key, _) in &pairs {
            if !known.contains(&key.get_ref().as_ref()) {
                diags.push(Diagnostic::new(
                    key.span(),
                    format!(
                        "unknown key `{}` in {what}; expected one of: {}",
                        key.get_ref(),
                        known.join(", ")
                    ),
                ));
            }
        }
        Table { pairs }
    }

    fn get(&self, key: &str) -> Option<&'t Spanned<DeValue<'i>>> {
        self.pairs.iter().find(|(k, _)| k.get_ref() == key).map(|(_, v)| *v)
    }

    fn keys(&self) -> Vec<Sp<String>> {
        self.pairs
            .iter()
            .map(|(k, _)| Sp {
                value: k.get_ref().to_string(),
                span: k.span(),
            })
            .collect()
    }

    fn string(&self, key: &str, diags: &mut Vec<Diagnostic>) -> Option<Sp<String>> {
        let value = self.get(key)?;
        match value.get_ref() {
            DeValue::String(s) => Some(Sp {
                value: s.to_string(),
                span: value.span(),
            }),
            other => {
                diags.push(type_error(key, "a string", other, value.span()));
                None
            }
        }
    }

    fn integer(&self, key: &str, diags: &mut Vec<Diagnostic>) -> Option<Sp<i128>> {
        let value = self.get(key)?;
        match value.get_ref() {
            DeValue::Integer(i) => match i128::from_str_radix(i.as_str(), i.radix()) {
                Ok(n) => Some(Sp {
                    value: n,
                    span: value.span(),
                }),
                Err(_) => {
                    diags.push(Diagnostic::new(value.span(), format!("`{key}` is too large")));
                    None
                }
            },
            other => {
                diags.push(type_error(key, "an integer", other, value.span()));
                None
            }
        }
    }

    fn strings(&self, key: &str, diags: &mut Vec<Diagnostic>) -> Option<Sp<Vec<Sp<String>>>> {
        let value = self.get(key)?;
        match value.get_ref() {
            DeValue::Array(items) => {
                let mut out = Vec::new();
                for item in items.iter() {
                    match item.get_ref() {
                        DeValue::String(s) => out.push(Sp {
                            value: s.to_string(),
                            span: item.span(),
                        }),
                        other => diags.push(type_error(key, "entry names (strings)", other, item.span())),
                    }
                }
                Some(Sp {
                    value: out,
                    span: value.span(),
                })
            }
            other => {
                diags.push(type_error(key, "an array of entry names", other, value.span()));
                None
            }
        }
    }

    fn table(&self, key: &str, diags: &mut Vec<Diagnostic>) -> Option<(&'t DeTable<'i>, Range<usize>)> {
        let value = self.get(key)?;
        match value.get_ref() {
            DeValue::Table(t) => Some((t, value.span())),
            other => {
                diags.push(type_error(key, "a table", other, value.span()));
                None
            }
        }
    }
}

fn kind_of(value: &DeValue<'_>) -> &'static str {
    match value {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a datetime",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

fn type_error(key: &str, expected: &str, found: &DeValue<'_>, span: Range<usize>) -> Diagnostic {
    Diagnostic::new(
        span,
        format!("expected {expected} for `{key}`, found {}", kind_of(found)),
    )
}

/// Parses schema text. Every problem found is pushed to `diags`; the result holds what could be read.
pub(crate) fn parse(text: &str, diags: &mut Vec<Diagnostic>) -> RawSchema {
    let (doc, errors) = DeTable::parse_recoverable(text);
    for e in &errors {
        let span = e.span().unwrap_or(0..0);
        diags.push(Diagnostic::new(
            span,
            format!("TOML syntax: {}", e.message().trim_end()),
        ));
    }
    if !errors.is_empty() {
        return RawSchema::default();
    }
    let top = Table::new(doc.get_ref(), "the schema file", TOP_KEYS, diags);
    let mut raw = RawSchema::default();

    if let Some((schema, span)) = top.table("schema", diags) {
        let t = Table::new(schema, "[schema]", SCHEMA_KEYS, diags);
        raw.metalayer = t.string("metalayer", diags);
        raw.description = t.string("description", diags);
        raw.source = t.string("source", diags);
        raw.schema_span = Some(span);
    }

    if let Some((container, span)) = top.table("container", diags) {
        let t = Table::new(container, "[container]", CONTAINER_KEYS, diags);
        raw.container = Some(RawContainer {
            span,
            wire: t.string("wire", diags),
            marker: t.integer("marker", diags),
        });
    }

    if let Some(entries) = top.get("entry") {
        match entries.get_ref() {
            DeValue::Array(items) => {
                for item in items.iter() {
                    match item.get_ref() {
                        DeValue::Table(t) => raw.entries.push(parse_entry(t, item.span(), diags)),
                        other => diags.push(type_error("entry", "a table ([[entry]])", other, item.span())),
                    }
                }
            }
            other => diags.push(type_error(
                "entry",
                "an array of tables ([[entry]])",
                other,
                entries.span(),
            )),
        }
    }
    raw
}

fn parse_entry(table: &DeTable<'_>, span: Range<usize>, diags: &mut Vec<Diagnostic>) -> RawEntry {
    let t = Table::new(table, "[[entry]]", ENTRY_KEYS, diags);
    let element = t.table("element", diags).map(|(el, span)| {
        let e = Table::new(el, "an array's element", ELEMENT_KEYS, diags);
        RawElement {
            span,
            wire: e.string("wire", diags),
            marker: e.integer("marker", diags),
            width: e.integer("width", diags),
        }
    });
    RawEntry {
        span,
        name: t.string("name", diags),
        wire: t.string("wire", diags),
        marker: t.integer("marker", diags),
        width: t.integer("width", diags),
        count: t.string("count", diags),
        element,
        constant: t.integer("const", diags),
        min: t.integer("min", diags),
        max: t.integer("max", diags),
        length_of: t.strings("length_of", diags),
        allow_header_overflow: t.string("allow_header_overflow", diags),
        doc: t.string("doc", diags),
        keys: t.keys(),
    }
}
