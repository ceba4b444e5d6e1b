//! The spanned TOML tree to a [`Layout`], refusing every schema that contradicts itself, with
//! every problem at once.
//!
//! Each rule is one function named `check_*`, documented with the rule it enforces and tested
//! with a schema that breaks it (the exact message, at its line and column) and one that keeps
//! it. The rules, by the part of a schema they are about:
//!
//! - the files ([`files`]): a schema does not extend or include itself, the files it names
//!   exist and parse (a file several include is read once), and each file's `language` is 2 or
//!   3; a key of language 3 is refused in a file of language 2;
//! - the schema ([`schema`]): `[schema]` states `metalayer`, `description` and `source`; the
//!   metalayer name fits c-blosc2; one top-level value; the schema extended is a record; type
//!   names defined once; no type contains itself; values nest at most
//!   [`NESTING_LIMIT`](crate::NESTING_LIMIT) levels deep;
//! - a record ([`record`]): a record wire, `lenient` and `marker` as its wire takes them, a
//!   header that holds the entries (for a container extended from the base, checked at
//!   `extends`); entries named once by identifiers, keys in map records only and unique,
//!   optional entries trailing and fields, `together_with` naming an earlier optional entry;
//! - counts ([`counts`]): `count = "n"` names an earlier integer entry whose `length_of` lists
//!   the counted entry and the other way round; a count is not negative, not a constant, and
//!   its largest value fits the header of what it counts; a nested array's `count` names an
//!   earlier count of the record;
//! - a value ([`node`]): a known wire type (a timestamp's among them) or a defined type, the
//!   keys its wire type takes, markers and widths of that wire type, integer bounds and named
//!   values in range, an ext type byte, a fixed count and a fixed length the header can state,
//!   an array's element and a map's key and value types;
//! - a constant ([`constant`]): of the entry's type, fitting its wire type and its fixed
//!   length.
//!
//! Names of generated Rust items are code generation's business: the checker only requires
//! entry and type names to be identifiers.

mod constant;
mod counts;
mod files;
mod node;
mod record;
mod schema;

use core::ops::Range;

use crate::diagnostic::{Diagnostic, Origin};
use crate::keywords;
use crate::load::Source;
use crate::model::{Family, Layout, Wire};
use crate::parse::{Sp, Table, Val};

/// Finds the file a schema extends or includes, by the reference the schema writes (a schema
/// name such as `b2nd_v1`, or a path such as `common.toml`), relative to the file that names it;
/// or says why it cannot, in a message the checker reports at the reference.
/// [`Loader::reference`](crate::Loader::reference) is how the attribute and the command find them.
pub type Resolve<'a> = dyn FnMut(&str, &Source) -> Result<Source, String> + 'a;

/// The keys a node table takes, whatever its wire type.
const NODE_KEYS: &[&str] = &[
    "wire",
    "type",
    "marker",
    "width",
    "min",
    "max",
    "values",
    "raw",
    "lenient",
    "ext_type",
    "count",
    "element",
    "key_type",
    "value_type",
    "allow_header_overflow",
    "len",
];

/// The language version a schema file states in `[schema]` when it does not state one: the
/// language before `language = 3`.
pub(crate) const LANGUAGE_DEFAULT: i128 = 2;

/// The newest language version: fixed lengths (`len`), timestamps, counts of nested arrays and
/// optional entries that go together (`together_with`).
pub(crate) const LANGUAGE_LATEST: i128 = 3;

/// Parses the main schema, reads the files it extends or includes, and checks them all.
pub(crate) fn check(main: Source, resolve: &mut Resolve<'_>) -> Result<Layout, Vec<Diagnostic>> {
    let main_table = crate::parse::parse(&main.text)?;
    let mut cx = Ctx {
        stack: vec![0],
        files: vec![main],
        diags: Vec::new(),
        resolve,
        languages: vec![LANGUAGE_DEFAULT],
    };
    let mut gathered = files::Gathered::default();
    gathered.tables.push((0, main_table));
    files::gather(&mut cx, &mut gathered, 0, true);

    let layout = schema::build(&mut cx, &gathered);
    if cx.diags.is_empty()
        && let Some(layout) = layout
    {
        return Ok(layout);
    }
    Err(crate::diagnostic::report_order(cx.diags))
}

/// `v` as a marker is written in messages: hexadecimal, or decimal when negative.
fn hex(v: i128) -> String {
    if v >= 0 { format!("{v:#04x}") } else { v.to_string() }
}

/// The wire type names a node can state, for the message about one it cannot.
fn wire_names() -> String {
    let mut names = Vec::new();
    for w in Wire::ALL {
        names.push(w.name());
    }
    for f in Family::ALL {
        if !names.contains(&f.name()) && f != Family::Float {
            names.push(f.name());
        }
    }
    for (name, _) in crate::model::ExtType::TIMESTAMP_WIRES {
        names.push(name);
    }
    names.join(", ")
}

/// What a checked name names: an entry or a record type. Messages say it differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NameOf {
    /// An entry of a record: the Rust field's name.
    Entry,
    /// A record type (`[types.<name>]`).
    Type,
}

/// Rule: an entry's or a record type's name is a snake_case identifier that generated code
/// can write, as itself or as a raw identifier (`r#type`); `crate`, `self`, `super` and `_`
/// cannot be raw, so they cannot be names.
fn check_identifier(cx: &mut Ctx<'_, '_>, file: usize, name: &Sp<String>, of: NameOf) {
    let (what, snake) = match of {
        NameOf::Entry => ("entry name", "snake_case Rust identifier"),
        NameOf::Type => ("type name", "snake_case identifier"),
    };
    let n = &name.value;
    let mut chars = n.chars();
    let snake_case = matches!(chars.next(), Some(c) if c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !snake_case {
        cx.error(file, name.span.clone(), format!("{what} `{n}` is not a {snake}"));
    } else if !keywords::can_be_raw(n) {
        cx.error(
            file,
            name.span.clone(),
            format!("{what} `{n}` is a Rust keyword that cannot be a raw identifier (`r#{n}` is not Rust); rename it"),
        );
    }
}

/// The files being read, and the diagnostics found in them.
struct Ctx<'l, 'a> {
    files: Vec<Source>,
    diags: Vec<Diagnostic>,
    resolve: &'l mut Resolve<'a>,
    /// The chain of files being extended or included (indices in `files`), for cycles.
    stack: Vec<usize>,
    /// The language version of each file (indices as in `files`): the one its `[schema]`
    /// states (`language = 3`), or else that of the file that extends or includes it, and 2
    /// for the main schema.
    languages: Vec<i128>,
}

impl Ctx<'_, '_> {
    /// Rule: a key of language 3 (`len`, a timestamp, `together_with`, a nested array's
    /// `count`) is written in a file of language 3 (see `languages`); a schema of an earlier
    /// language keeps meaning what it meant.
    fn check_language(&mut self, file: usize, span: Range<usize>, what: &str) {
        if self.languages.get(file).copied().unwrap_or(LANGUAGE_DEFAULT) < LANGUAGE_LATEST {
            self.error(
                file,
                span,
                format!("{what} is language {LANGUAGE_LATEST}: state `language = {LANGUAGE_LATEST}` in [schema]"),
            );
        }
    }

    fn error(&mut self, file: usize, span: Range<usize>, message: impl Into<String>) {
        let mut d = Diagnostic::new(span, message);
        if file > 0 {
            let f = &self.files[file];
            d.origin = Some(Box::new(Origin {
                name: f.name.clone(),
                path: f.path.clone(),
                text: f.text.clone(),
            }));
        }
        self.diags.push(d);
    }

    /// Rule: every key of a table is one its place takes (`known`); `what` names the place.
    fn check_known_keys(&mut self, file: usize, table: &Table, what: &str, known: &[&str]) {
        for (k, _) in &table.pairs {
            if !known.contains(&k.value.as_str()) {
                self.error(
                    file,
                    k.span.clone(),
                    format!(
                        "unknown key `{}` in {what}; expected one of: {}",
                        k.value,
                        known.join(", ")
                    ),
                );
            }
        }
    }

    /// The string at `key`, if there is one; a value of another kind is an error.
    fn string(&mut self, file: usize, table: &Table, key: &str) -> Option<Sp<String>> {
        let v = table.get(key)?;
        match &v.value {
            Val::Str(s) => Some(Sp {
                value: s.clone(),
                span: v.span.clone(),
            }),
            other => {
                let msg = format!("expected a string for `{key}`, found {}", other.kind());
                self.error(file, v.span.clone(), msg);
                None
            }
        }
    }

    /// The integer at `key`, if there is one; a value of another kind is an error.
    fn integer(&mut self, file: usize, table: &Table, key: &str) -> Option<Sp<i128>> {
        let v = table.get(key)?;
        match &v.value {
            Val::Int(n) => Some(Sp {
                value: *n,
                span: v.span.clone(),
            }),
            other => {
                let msg = format!("expected an integer for `{key}`, found {}", other.kind());
                self.error(file, v.span.clone(), msg);
                None
            }
        }
    }

    /// The boolean at `key`, if there is one; a value of another kind is an error.
    fn boolean(&mut self, file: usize, table: &Table, key: &str) -> Option<Sp<bool>> {
        let v = table.get(key)?;
        match &v.value {
            Val::Bool(b) => Some(Sp {
                value: *b,
                span: v.span.clone(),
            }),
            other => {
                let msg = format!("expected true or false for `{key}`, found {}", other.kind());
                self.error(file, v.span.clone(), msg);
                None
            }
        }
    }

    /// Whether the boolean at `key` is there and true.
    fn flag(&mut self, file: usize, table: &Table, key: &str) -> bool {
        self.boolean(file, table, key).is_some_and(|b| b.value)
    }

    /// The table at `key`, if there is one; a value of another kind is an error.
    fn table<'t>(&mut self, file: usize, table: &'t Table, key: &str) -> Option<(&'t Table, Range<usize>)> {
        let v = table.get(key)?;
        match &v.value {
            Val::Table(t) => Some((t, v.span.clone())),
            other => {
                let msg = format!("expected a table for `{key}`, found {}", other.kind());
                self.error(file, v.span.clone(), msg);
                None
            }
        }
    }

    /// The strings of the array at `key`, if there is one; a value of another kind, or an item
    /// that is not a string, is an error.
    fn strings(&mut self, file: usize, table: &Table, key: &str) -> Option<Sp<Vec<Sp<String>>>> {
        let v = table.get(key)?;
        let Val::Array(items) = &v.value else {
            let msg = format!("expected an array of strings for `{key}`, found {}", v.value.kind());
            self.error(file, v.span.clone(), msg);
            return None;
        };
        let mut out = Vec::new();
        for item in items {
            match &item.value {
                Val::Str(s) => out.push(Sp {
                    value: s.clone(),
                    span: item.span.clone(),
                }),
                other => {
                    let msg = format!("expected strings in `{key}`, found {}", other.kind());
                    self.error(file, item.span.clone(), msg);
                }
            }
        }
        Some(Sp {
            value: out,
            span: v.span.clone(),
        })
    }

    /// The tables of an array of tables (`[[entry]]`).
    fn tables<'t>(&mut self, file: usize, table: &'t Table, key: &str) -> Vec<(&'t Table, Range<usize>)> {
        let Some(v) = table.get(key) else {
            return Vec::new();
        };
        let Val::Array(items) = &v.value else {
            let msg = format!("expected an array of tables ([[{key}]]), found {}", v.value.kind());
            self.error(file, v.span.clone(), msg);
            return Vec::new();
        };
        let mut tables = Vec::with_capacity(items.len());
        for item in items {
            match &item.value {
                Val::Table(t) => tables.push((t, item.span.clone())),
                other => {
                    let msg = format!("expected a table ([[{key}]]), found {}", other.kind());
                    self.error(file, item.span.clone(), msg);
                }
            }
        }
        tables
    }
}

#[cfg(test)]
mod testing {
    //! Helpers for the rules' tests: a schema's problems with their places.

    use crate::Source;

    /// The `[schema]` table every test schema starts with: four lines.
    pub(crate) const HEAD: &str = "[schema]\nmetalayer = \"m\"\ndescription = \"d\"\nsource = \"s\"\n";

    /// One problem: its line and column (1-based) and its message.
    pub(crate) type Problem = (usize, usize, String);

    /// The problem at `line`:`column` with `message`, for comparing.
    pub(crate) fn at(line: usize, column: usize, message: &str) -> Problem {
        (line, column, message.to_string())
    }

    /// The problems of the schema text `text` (parsed as schema `t`, which knows the built-ins),
    /// in file order, placed in `text`; none when it checks.
    pub(crate) fn problems_in(text: &str) -> Vec<Problem> {
        match crate::parse("t", text) {
            Ok(_) => Vec::new(),
            Err(diags) => diags
                .iter()
                .map(|d| {
                    let (line, column) = d.line_column(text);
                    (line, column, d.message.clone())
                })
                .collect(),
        }
    }

    /// The problems of [`HEAD`] followed by `body`, placed in `body`: its first line is line 1.
    pub(crate) fn problems(body: &str) -> Vec<Problem> {
        problems_after(HEAD, body)
    }

    /// [`problems`] of a schema of language 3: `language = 3` follows [`HEAD`].
    pub(crate) fn problems3(body: &str) -> Vec<Problem> {
        problems_after(&format!("{HEAD}language = 3\n"), body)
    }

    fn problems_after(head: &str, body: &str) -> Vec<Problem> {
        let head_lines = head.lines().count();
        let text = format!("{head}{body}");
        problems_in(&text)
            .into_iter()
            .map(|(line, column, message)| (line - head_lines, column, message))
            .collect()
    }

    /// The problems of `main`, which reads the files `others` (reference, text) by reference,
    /// and itself by `main`; each is placed as `file:line:column`, `file` being `main` for the
    /// main schema.
    pub(crate) fn problems_with(main: &str, others: &[(&str, &str)]) -> Vec<(String, Problem)> {
        let source = Source {
            name: "main".into(),
            path: None,
            text: main.to_string(),
        };
        // `main` names the main schema itself.
        let files: Vec<(&str, &str)> = others.iter().copied().chain([("main", main)]).collect();
        let result = crate::parse_with(source, &mut |reference, _| {
            files
                .iter()
                .find(|(name, _)| *name == reference)
                .map(|(name, text)| Source {
                    name: name.to_string(),
                    path: None,
                    text: text.to_string(),
                })
                .ok_or_else(|| format!("no file `{reference}`"))
        });
        match result {
            Ok(_) => Vec::new(),
            Err(diags) => diags
                .iter()
                .map(|d| {
                    let (file, text) = d
                        .origin
                        .as_ref()
                        .map_or(("main", main), |o| (o.name.as_str(), o.text.as_str()));
                    let (line, column) = d.line_column(text);
                    (file.to_string(), (line, column, d.message.clone()))
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{at, problems};

    #[test]
    fn check_identifier() {
        let entry =
            |name: &str| format!("[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"{name}\"\nwire = \"int\"\n");
        assert_eq!(
            problems(&entry("Shape")),
            [at(4, 8, "entry name `Shape` is not a snake_case Rust identifier")]
        );
        assert_eq!(
            problems(&entry("self")),
            [at(
                4,
                8,
                "entry name `self` is a Rust keyword that cannot be a raw identifier (`r#self` is not Rust); rename it"
            )]
        );
        assert_eq!(
            problems(&entry("2d")),
            [at(4, 8, "entry name `2d` is not a snake_case Rust identifier")]
        );
        // A keyword that can be raw, a leading underscore and digits are fine.
        for name in ["type", "_shape", "shape2"] {
            assert_eq!(problems(&entry(name)), [], "{name}");
        }
        let ty = |name: &str| {
            format!(
                "[value]\ntype = \"{name}\"\n[types.{name}]\nwire = \"fixarray\"\n[[types.{name}.entry]]\nname = \"a\"\nwire = \"int\"\n"
            )
        };
        assert_eq!(
            problems(&ty("Point")),
            [at(3, 8, "type name `Point` is not a snake_case identifier")]
        );
        assert_eq!(problems(&ty("point")), []);
    }

    #[test]
    fn check_known_keys() {
        let body = "[container]\nwire = \"fixarray\"\nmarkr = 1\n[[entry]]\nname = \"a\"\nwire = \"int\"\n";
        assert_eq!(
            problems(body),
            [at(
                3,
                1,
                "unknown key `markr` in [container]; expected one of: wire, marker, lenient"
            )]
        );
        let body = "[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"a\"\nwire = \"array\"\nelement = { wire = \"int\", wdth = 1 }\n";
        assert_eq!(
            problems(body),
            [at(
                6,
                27,
                "unknown key `wdth` in an array's element; expected one of: wire, type, marker, width, min, max, values, raw, lenient, ext_type, count, element, key_type, value_type, allow_header_overflow, len"
            )]
        );
        assert_eq!(
            problems("[container]\nwire = \"fixarray\"\nmarker = 0x91\n[[entry]]\nname = \"a\"\nwire = \"int\"\n"),
            []
        );
    }
}
