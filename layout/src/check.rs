//! The spanned TOML tree to a [`Layout`], refusing every schema that contradicts itself, with
//! every problem at once: markers that do not belong to their wire type, widths that do not
//! match, lengths a header cannot state, counts that name the wrong entry or come after what
//! they count, constants that do not fit, duplicate names and keys, optional entries that are
//! not trailing, and cycles among the files a schema extends or includes and among its types.
//! Names of generated Rust items are code generation's business: entry and type names are only
//! required to be identifiers.

use core::ops::Range;

use crate::diagnostic::{Diagnostic, Origin};
use crate::keywords;
use crate::model::{
    ArrayType, Const, Count, Encoding, Entry, ExtType, Family, IntType, Layout, MapType, Node, Record, RecordType,
    Role, SchemaFile, StrType, Type, Wire,
};
use crate::parse::{Sp, Table, Val};

/// A schema file, as a loader returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The schema's name (its file stem) or the reference it was loaded by.
    pub name: String,
    /// Its path on disk, if it has one (built-ins have none).
    pub path: Option<String>,
    /// Its text.
    pub text: String,
}

/// Finds the file a schema extends or includes, by the reference the schema writes (a schema
/// name such as `b2nd_v1`, or a path such as `common.toml`), relative to the file that names it.
pub type Loader<'a> = dyn FnMut(&str, &Source) -> Result<Source, String> + 'a;

const TOP_KEYS: &[&str] = &["schema", "container", "value", "entry", "types"];
const SCHEMA_KEYS: &[&str] = &["metalayer", "description", "source", "extends", "include"];
const ENTRY_KEYS: &[&str] = &["name", "key", "const", "length_of", "optional", "doc"];
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
];

/// Keys each family's node takes besides `wire`.
fn node_keys(family: Family, canonical: bool) -> &'static [&'static str] {
    match (family, canonical) {
        (Family::Nil | Family::Bool, _) => &[],
        (Family::Int, false) => &["marker", "width", "min", "max", "values"],
        (Family::Int, true) => &["min", "max", "values", "lenient"],
        (Family::Float, _) => &["marker", "width"],
        (Family::Str, false) => &["marker", "width", "raw"],
        (Family::Str, true) => &["raw", "lenient"],
        (Family::Bin, false) => &["marker", "width"],
        (Family::Bin, true) => &["lenient"],
        (Family::Ext, false) => &["marker", "width", "ext_type"],
        (Family::Ext, true) => &["ext_type", "lenient"],
        (Family::Array, false) => &["marker", "width", "count", "element", "allow_header_overflow"],
        (Family::Array, true) => &["count", "element", "lenient"],
        (Family::Map, false) => &["marker", "width", "count", "key_type", "value_type"],
        (Family::Map, true) => &["count", "key_type", "value_type", "lenient"],
    }
}

fn hex(v: i128) -> String {
    if v >= 0 { format!("{v:#04x}") } else { v.to_string() }
}

/// Why a name cannot name an entry or a record type.
enum NameProblem {
    /// It is not snake_case.
    NotSnakeCase,
    /// It is a Rust keyword that cannot be a raw identifier.
    NotRaw,
}

/// Why `name` cannot name an entry or a record type, if it cannot: it must be snake_case, and
/// a Rust keyword only if generated code can write it as a raw identifier (`r#type`).
fn name_problem(name: &str) -> Option<NameProblem> {
    let mut chars = name.chars();
    let snake = matches!(chars.next(), Some(c) if c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !snake {
        Some(NameProblem::NotSnakeCase)
    } else if !keywords::can_be_raw(name) {
        Some(NameProblem::NotRaw)
    } else {
        None
    }
}

impl NameProblem {
    /// The message for `name`; `what` says what it names (`entry name`, `type name`), and
    /// `snake` what a snake_case name is (`snake_case identifier`).
    fn message(&self, what: &str, name: &str, snake: &str) -> String {
        match self {
            NameProblem::NotSnakeCase => format!("{what} `{name}` is not a {snake}"),
            NameProblem::NotRaw => format!(
                "{what} `{name}` is a Rust keyword that cannot be a raw identifier (`r#{name}` is not Rust); rename it"
            ),
        }
    }
}

fn wire_names() -> String {
    let mut names: Vec<&str> = Wire::ALL.iter().map(|w| w.name()).collect();
    for f in Family::ALL {
        if !names.contains(&f.name()) && f != Family::Float {
            names.push(f.name());
        }
    }
    names.join(", ")
}

/// The files being read, and the diagnostics found in them.
struct Ctx<'l, 'a> {
    files: Vec<Source>,
    diags: Vec<Diagnostic>,
    loader: &'l mut Loader<'a>,
    /// The chain of files being extended or included, for cycles.
    stack: Vec<String>,
}

impl Ctx<'_, '_> {
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

    /// Reports keys of `table` that are not in `known`.
    fn known_keys(&mut self, file: usize, table: &Table, what: &str, known: &[&str]) {
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

    fn integer(&mut self, file: usize, table: &Table, key: &str) -> Option<Sp<i128>> {
        let v = table.get(key)?;
        match &v.value {
            Val::Int(Some(n)) => Some(Sp {
                value: *n,
                span: v.span.clone(),
            }),
            Val::Int(None) => {
                self.error(file, v.span.clone(), format!("`{key}` is too large"));
                None
            }
            other => {
                let msg = format!("expected an integer for `{key}`, found {}", other.kind());
                self.error(file, v.span.clone(), msg);
                None
            }
        }
    }

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

    fn strings(&mut self, file: usize, table: &Table, key: &str) -> Option<Sp<Vec<Sp<String>>>> {
        let v = table.get(key)?;
        match &v.value {
            Val::Array(items) => {
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
            other => {
                let msg = format!("expected an array of strings for `{key}`, found {}", other.kind());
                self.error(file, v.span.clone(), msg);
                None
            }
        }
    }

    /// The tables of an array of tables (`[[entry]]`).
    fn tables<'t>(&mut self, file: usize, table: &'t Table, key: &str) -> Vec<(&'t Table, Range<usize>)> {
        let Some(v) = table.get(key) else {
            return Vec::new();
        };
        match &v.value {
            Val::Array(items) => items
                .iter()
                .filter_map(|item| match &item.value {
                    Val::Table(t) => Some((t, item.span.clone())),
                    other => {
                        let msg = format!("expected a table ([[{key}]]), found {}", other.kind());
                        self.error(file, item.span.clone(), msg);
                        None
                    }
                })
                .collect(),
            other => {
                let msg = format!("expected an array of tables ([[{key}]]), found {}", other.kind());
                self.error(file, v.span.clone(), msg);
                Vec::new()
            }
        }
    }

    /// Loads and parses a file a schema extends or includes; `None` (with a diagnostic) when it
    /// cannot be read or does not parse.
    fn load(&mut self, from: usize, reference: &Sp<String>, how: &str) -> Option<(usize, Table)> {
        let source = match (self.loader)(&reference.value, &self.files[from]) {
            Ok(s) => s,
            Err(message) => {
                self.error(
                    from,
                    reference.span.clone(),
                    format!("cannot {how} `{}`: {message}", reference.value),
                );
                return None;
            }
        };
        let index = self.files.len();
        let parsed = crate::parse::parse(&source.text);
        self.files.push(source);
        match parsed {
            Ok(t) => Some((index, t)),
            Err(diags) => {
                for d in diags {
                    self.error(index, d.span, d.message);
                }
                None
            }
        }
    }
}

/// A record's entries and container as read from one or more files (a schema that extends
/// another starts with the base's entries).
#[derive(Default)]
struct RawRecord<'t> {
    container: Option<(usize, &'t Table, Range<usize>)>,
    entries: Vec<(usize, &'t Table, Range<usize>)>,
}

/// Everything the files of a schema define, before checking.
#[derive(Default)]
struct Gathered {
    /// Per file, its parsed top-level table (kept alive for borrowing).
    tables: Vec<(usize, Table)>,
}

pub(crate) fn check(main: Source, loader: &mut Loader<'_>) -> Result<Layout, Vec<Diagnostic>> {
    let main_table = crate::parse::parse(&main.text)?;
    let mut cx = Ctx {
        stack: vec![main.name.clone()],
        files: vec![main],
        diags: Vec::new(),
        loader,
    };
    let mut gathered = Gathered::default();
    gathered.tables.push((0, main_table));
    gather(&mut cx, &mut gathered, 0, true);

    let layout = build(&mut cx, &gathered);
    if cx.diags.is_empty()
        && let Some(layout) = layout
    {
        return Ok(layout);
    }
    let mut diags = cx.diags;
    diags.sort_by_key(|d| (d.origin.is_some(), d.span.start));
    Err(diags)
}

/// Loads every file the schema at `gathered.tables[index]` extends or includes, depth first.
fn gather(cx: &mut Ctx<'_, '_>, gathered: &mut Gathered, index: usize, is_main: bool) {
    let (file, table) = {
        let (f, t) = &gathered.tables[index];
        (*f, t.clone())
    };
    cx.known_keys(file, &table, "the schema file", TOP_KEYS);
    let Some((schema, _)) = cx.table(file, &table, "schema") else {
        return;
    };
    let schema = schema.clone();
    if is_main {
        cx.known_keys(file, &schema, "[schema]", SCHEMA_KEYS);
    }
    let mut refs = Vec::new();
    if let Some(base) = cx.string(file, &schema, "extends") {
        refs.push((base, "extend"));
    }
    if let Some(includes) = cx.strings(file, &schema, "include") {
        refs.extend(includes.value.into_iter().map(|r| (r, "include")));
    }
    for (reference, how) in refs {
        if cx.stack.contains(&reference.value) {
            let chain = cx.stack.join(" -> ");
            cx.error(
                file,
                reference.span.clone(),
                format!("{how} cycle: {chain} -> {} again", reference.value),
            );
            continue;
        }
        cx.stack.push(reference.value.clone());
        if let Some((loaded, t)) = cx.load(file, &reference, how) {
            gathered.tables.push((loaded, t));
            let next = gathered.tables.len() - 1;
            gather(cx, gathered, next, false);
        }
        cx.stack.pop();
    }
}

fn build(cx: &mut Ctx<'_, '_>, gathered: &Gathered) -> Option<Layout> {
    let (main_file, main) = (&gathered.tables[0].0, &gathered.tables[0].1);
    let main_file = *main_file;
    // [schema]
    let schema_table = match main.get("schema") {
        Some(Sp {
            value: Val::Table(t), ..
        }) => Some(t),
        _ => None,
    };
    let header = |key: &str, cx: &mut Ctx<'_, '_>| -> Option<String> {
        let t = schema_table?;
        let v = cx.string(main_file, t, key);
        if v.is_none() && t.get(key).is_none() {
            let span = main.key_span("schema").unwrap_or(0..0);
            cx.error(main_file, span, format!("[schema] needs `{key}`"));
        }
        v.map(|s| s.value)
    };
    if schema_table.is_none() {
        cx.error(
            main_file,
            0..0,
            "the schema file needs a [schema] table with `metalayer`, `description` and `source`",
        );
    }
    let metalayer = header("metalayer", cx);
    let description = header("description", cx);
    let source = header("source", cx);
    if let (Some(t), Some(m)) = (schema_table, &metalayer)
        && (m.is_empty() || m.len() > 31)
    {
        let span = t.get("metalayer").map(|v| v.span.clone()).unwrap_or(0..0);
        cx.error(
            main_file,
            span,
            format!(
                "metalayer name `{m}` is {} bytes; c-blosc2 stores names of 1 to 31 bytes",
                m.len()
            ),
        );
    }

    // The root record: the base's entries (a schema extends at most one other), then ours.
    let mut root = RawRecord::default();
    let base = schema_table.and_then(|t| t.get("extends")).is_some();
    if base {
        // The extended file is the first one loaded from the main file.
        if let Some((file, table)) = gathered.tables.get(1) {
            collect_root(cx, *file, table, &mut root);
        }
    }
    let base_container = root.container.take();
    collect_root(cx, main_file, main, &mut root);
    if root.container.is_none() && main.get("value").is_none() {
        root.container = base_container;
    }

    // Named types, from every file.
    let mut type_tables: Vec<(usize, &Sp<String>, &Table, Range<usize>)> = Vec::new();
    for (file, table) in &gathered.tables {
        let Some((types, _)) = cx.table(*file, table, "types") else {
            continue;
        };
        for (name, value) in &types.pairs {
            match &value.value {
                Val::Table(t) => {
                    if let Some((other_file, _, _, _)) = type_tables.iter().find(|(_, n, _, _)| n.value == name.value) {
                        let other = cx.files[*other_file].name.clone();
                        cx.error(
                            *file,
                            name.span.clone(),
                            format!("type `{}` is defined twice: {other} defines it too", name.value),
                        );
                        continue;
                    }
                    if let Some(problem) = name_problem(&name.value) {
                        cx.error(
                            *file,
                            name.span.clone(),
                            problem.message("type name", &name.value, "snake_case identifier"),
                        );
                    }
                    type_tables.push((*file, name, t, value.span.clone()));
                }
                other => {
                    let msg = format!("expected a table for type `{}`, found {}", name.value, other.kind());
                    cx.error(*file, value.span.clone(), msg);
                }
            }
        }
    }
    let type_names: Vec<String> = type_tables.iter().map(|(_, n, _, _)| n.value.clone()).collect();
    let mut types = Vec::new();
    for (file, name, table, span) in &type_tables {
        let entries = cx.tables(*file, table, "entry");
        let raw = RawRecord {
            container: Some((*file, *table, span.clone())),
            entries: entries.into_iter().map(|(t, s)| (*file, t, s)).collect(),
        };
        let mut nodes = NodeCx {
            type_names: &type_names,
        };
        if let Some(record) = nodes.record(cx, &raw, &format!("type `{}`", name.value)) {
            types.push(RecordType {
                name: name.value.clone(),
                record,
                file: *file,
                span: span.clone(),
            });
        }
    }

    let mut nodes = NodeCx {
        type_names: &type_names,
    };
    let root_node = match (main.get("value"), &root.container) {
        (Some(v), None) if root.entries.is_empty() => match &v.value {
            Val::Table(t) => {
                cx.known_keys(main_file, t, "[value]", NODE_KEYS);
                nodes.node(cx, main_file, t, v.span.clone(), "the value")
            }
            other => {
                let msg = format!("expected a table for [value], found {}", other.kind());
                cx.error(main_file, v.span.clone(), msg);
                None
            }
        },
        (Some(v), _) => {
            cx.error(
                main_file,
                v.span.clone(),
                "a schema has either [value] (a single value) or [container] and [[entry]] (a record), not both",
            );
            None
        }
        (None, Some((file, _, span))) => {
            let (file, span) = (*file, span.clone());
            nodes.record(cx, &root, "the container").map(|r| Node {
                ty: Type::Record(r),
                span,
                file,
            })
        }
        (None, None) => {
            cx.error(
                main_file,
                0..0,
                "the schema needs [container] and [[entry]] tables (a record) or a [value] table",
            );
            None
        }
    };

    // Types that contain themselves would make values of infinite depth.
    for (i, t) in types.iter().enumerate() {
        if let Some(chain) = cycle(&types, i) {
            let names: Vec<&str> = chain.iter().map(|&j| types[j].name.as_str()).collect();
            let (file, span) = (t.file, t.span.clone());
            cx.error(
                file,
                span,
                format!(
                    "type `{}` contains itself: {} -> {}",
                    t.name,
                    names.join(" -> "),
                    t.name
                ),
            );
        }
    }

    // Types the root uses are indexed by name order in `type_names`; the checked types keep
    // that order only when all of them checked, which is the only case that returns a layout.
    if types.len() != type_names.len() {
        return None;
    }
    let root = root_node?;
    Some(Layout {
        schema: cx.files[0].name.clone(),
        metalayer: metalayer?,
        description: description?,
        source: source?,
        root,
        types,
        files: cx
            .files
            .iter()
            .map(|f| SchemaFile {
                name: f.name.clone(),
                path: f.path.clone(),
            })
            .collect(),
    })
}

/// The chain of types from type `start` back to itself, if it contains itself.
fn cycle(types: &[RecordType], start: usize) -> Option<Vec<usize>> {
    fn refs(ty: &Type, out: &mut Vec<usize>) {
        match ty {
            Type::Ref(i) => out.push(*i),
            Type::Array(a) => refs(&a.element.ty, out),
            Type::Map(m) => {
                refs(&m.key.ty, out);
                refs(&m.value.ty, out);
            }
            Type::Record(r) => r.entries.iter().for_each(|e| refs(&e.node.ty, out)),
            _ => {}
        }
    }
    fn walk(types: &[RecordType], at: usize, start: usize, path: &mut Vec<usize>, seen: &mut Vec<bool>) -> bool {
        let mut next = Vec::new();
        types[at]
            .record
            .entries
            .iter()
            .for_each(|e| refs(&e.node.ty, &mut next));
        for n in next {
            if n == start {
                return true;
            }
            if n < seen.len() && !seen[n] {
                seen[n] = true;
                path.push(n);
                if walk(types, n, start, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start];
    let mut seen = vec![false; types.len()];
    walk(types, start, start, &mut path, &mut seen).then_some(path)
}

fn collect_root<'t>(cx: &mut Ctx<'_, '_>, file: usize, table: &'t Table, root: &mut RawRecord<'t>) {
    if let Some((t, span)) = cx.table(file, table, "container") {
        root.container = Some((file, t, span));
    }
    for (t, span) in cx.tables(file, table, "entry") {
        root.entries.push((file, t, span));
    }
}

/// Checking nodes, with the names of the schema's types for `type = "..."`.
struct NodeCx<'n> {
    type_names: &'n [String],
}

impl NodeCx<'_> {
    /// Checks a record: its container table (wire, marker) and its entries.
    fn record(&mut self, cx: &mut Ctx<'_, '_>, raw: &RawRecord<'_>, what: &str) -> Option<Record> {
        let (cfile, ctable, cspan) = raw.container.as_ref().map(|(f, t, s)| (*f, *t, s.clone()))?;
        let is_type = what.starts_with("type");
        let known: &[&str] = if is_type {
            &["wire", "marker", "lenient", "entry", "doc"]
        } else {
            &["wire", "marker", "lenient"]
        };
        cx.known_keys(cfile, ctable, if is_type { what } else { "[container]" }, known);
        let wire = cx.string(cfile, ctable, "wire");
        let Some(wire) = wire else {
            if ctable.get("wire").is_none() {
                cx.error(
                    cfile,
                    cspan,
                    format!("{what} needs `wire`: fixarray, array16, array32, array, fixmap, map16, map32 or map"),
                );
            }
            return None;
        };
        let (form, header) = match (Wire::from_name(&wire.value), Family::from_name(&wire.value)) {
            (Some(w), _) if matches!(w.family(), Family::Array | Family::Map) => (w.family(), Encoding::Fixed(w)),
            (None, Some(f @ (Family::Array | Family::Map))) => {
                let lenient = cx.boolean(cfile, ctable, "lenient").is_some_and(|b| b.value);
                (f, Encoding::Canonical { lenient })
            }
            _ => {
                cx.error(
                    cfile,
                    wire.span.clone(),
                    format!(
                        "{what} is a record: its wire is fixarray, array16, array32, array, fixmap, map16, map32 or map, not `{}` (a single value goes in [value])",
                        wire.value
                    ),
                );
                return None;
            }
        };
        if let (Encoding::Fixed(_), Some(l)) = (header, ctable.get("lenient")) {
            cx.error(
                cfile,
                l.span.clone(),
                format!(
                    "`lenient` does not apply to {}: it is for canonical encodings (array, map)",
                    wire.value
                ),
            );
        }

        let mut entries: Vec<Entry> = Vec::new();
        let mut optional_from: Option<usize> = None;
        // Per entry: its count reference (name, span) and its length_of list, checked after all
        // entries are known.
        let mut counts: Vec<Option<Sp<String>>> = Vec::new();
        let mut length_ofs: Vec<Option<Sp<Vec<Sp<String>>>>> = Vec::new();
        let mut entry_files: Vec<usize> = Vec::new();
        for (i, (file, t, span)) in raw.entries.iter().enumerate() {
            let file = *file;
            let mut keys: Vec<&str> = ENTRY_KEYS.to_vec();
            keys.extend_from_slice(NODE_KEYS);
            cx.known_keys(file, t, "[[entry]]", &keys);
            let name = cx.string(file, t, "name");
            let Some(name) = name else {
                if t.get("name").is_none() {
                    cx.error(file, span.clone(), "[[entry]] needs `name`");
                }
                continue;
            };
            if let Some(problem) = name_problem(&name.value) {
                cx.error(
                    file,
                    name.span.clone(),
                    problem.message("entry name", &name.value, "snake_case Rust identifier"),
                );
            }
            if entries.iter().any(|e| e.name == name.value) {
                cx.error(
                    file,
                    name.span.clone(),
                    format!("duplicate entry name `{}`: an earlier entry has it", name.value),
                );
            }
            let key = match (form, cx.string(file, t, "key")) {
                (Family::Map, k) => Some(k.map_or_else(|| name.value.clone(), |k| k.value)),
                (_, Some(k)) => {
                    cx.error(
                        file,
                        k.span.clone(),
                        format!(
                            "`key` does not apply to the entries of {what}: it is an array, whose entries have no keys"
                        ),
                    );
                    None
                }
                (_, None) => None,
            };
            if let Some(k) = &key
                && entries.iter().any(|e| e.key.as_deref() == Some(k.as_str()))
            {
                let at = t.get("key").map_or(name.span.clone(), |v| v.span.clone());
                cx.error(
                    file,
                    at,
                    format!("duplicate key \"{k}\": an earlier entry of the map has it"),
                );
            }
            let Some(node) = self.node(cx, file, t, span.clone(), &format!("entry `{}`", name.value)) else {
                continue;
            };
            let count = match t.get("count") {
                Some(Sp {
                    value: Val::Str(s),
                    span,
                }) => Some(Sp {
                    value: s.clone(),
                    span: span.clone(),
                }),
                _ => None,
            };
            let optional = cx.boolean(file, t, "optional").is_some_and(|b| b.value);
            if optional && optional_from.is_none() {
                optional_from = Some(i);
            }
            if !optional && let Some(first) = optional_from {
                let first_name = entries.get(first).map_or("", |e: &Entry| e.name.as_str()).to_string();
                cx.error(
                    file,
                    name.span.clone(),
                    format!(
                        "entry `{}` follows the optional entry `{first_name}` but is not optional: the header counts entries, so only trailing entries can be absent",
                        name.value
                    ),
                );
            }
            let role = self.role(cx, file, t, &node, &name);
            if optional && !matches!(role, Role::Field) {
                cx.error(
                    file,
                    name.span.clone(),
                    format!(
                        "entry `{}` is optional, so it must be a field: a constant or a count is always present",
                        name.value
                    ),
                );
            }
            counts.push(count);
            length_ofs.push(cx.strings(file, t, "length_of"));
            entry_files.push(file);
            let doc = cx.string(file, t, "doc").map(|d| d.value);
            entries.push(Entry {
                name: name.value,
                key,
                node,
                role,
                optional,
                doc,
                span: span.clone(),
            });
        }
        if entries.len() != raw.entries.len() {
            return None;
        }

        // Counts: an array's `count = "entry"` and the count entry's `length_of` must agree.
        for i in 0..entries.len() {
            let Some(count) = counts[i].clone() else {
                continue;
            };
            let file = entry_files[i];
            let Some(c) = entries.iter().position(|e| e.name == count.value) else {
                cx.error(
                    file,
                    count.span,
                    format!("count `{}` is not an entry of this record", count.value),
                );
                continue;
            };
            if c >= i {
                cx.error(
                    file,
                    count.span,
                    format!(
                        "count `{}` comes after this entry: a decoder must read the count before the elements",
                        count.value
                    ),
                );
                continue;
            }
            if !matches!(entries[c].node.ty, Type::Int(_)) {
                let wire = entries[c].node.wire_name_plain();
                cx.error(
                    file,
                    count.span,
                    format!("count `{}` is a {wire} entry, not an integer", count.value),
                );
                continue;
            }
            let listed = length_ofs[c]
                .as_ref()
                .is_some_and(|l| l.value.iter().any(|n| n.value == entries[i].name));
            if !listed {
                let span = length_ofs[c]
                    .as_ref()
                    .map_or(entries[c].span.clone(), |l| l.span.clone());
                cx.error(
                    entry_files[c],
                    span,
                    format!(
                        "`{}` is counted by `{}`, but `length_of` of `{}` does not list it",
                        entries[i].name, count.value, count.value
                    ),
                );
            }
            match &mut entries[i].node.ty {
                Type::Array(a) => a.count = Count::Entry(c),
                Type::Map(m) => m.count = Count::Entry(c),
                _ => {}
            }
        }
        for c in 0..entries.len() {
            let Some(list) = length_ofs[c].clone() else {
                continue;
            };
            let file = entry_files[c];
            if !matches!(entries[c].node.ty, Type::Int(_)) {
                cx.error(
                    file,
                    list.span,
                    format!(
                        "`length_of` applies to integer entries; `{}` is not one",
                        entries[c].name
                    ),
                );
                continue;
            }
            let mut of = Vec::new();
            for n in &list.value {
                match entries.iter().position(|e| e.name == n.value) {
                    Some(a)
                        if matches!(
                            &entries[a].node.ty,
                            Type::Array(ArrayType { count: Count::Entry(x), .. }) | Type::Map(MapType { count: Count::Entry(x), .. }) if *x == c
                        ) =>
                    {
                        of.push(a)
                    }
                    // An array whose own `count` was refused has had its error already.
                    Some(a)
                        if counts[a].as_ref().is_some_and(|given| {
                            given.value == entries[c].name || !entries.iter().any(|e| e.name == given.value)
                        }) => {}
                    Some(_) => cx.error(
                        file,
                        n.span.clone(),
                        format!(
                            "`{}` does not have `count = \"{}\"`, so `{}` cannot hold its length",
                            n.value, entries[c].name, entries[c].name
                        ),
                    ),
                    None => cx.error(
                        file,
                        n.span.clone(),
                        format!("`{}` is not an entry of this record", n.value),
                    ),
                }
            }
            let Type::Int(it) = &entries[c].node.ty else { continue };
            let (min, max) = (it.min, it.max);
            if min < 0 {
                cx.error(
                    file,
                    entries[c].span.clone(),
                    format!(
                        "`{}` counts elements, so its min cannot be negative (it is {min})",
                        entries[c].name
                    ),
                );
            }
            if matches!(entries[c].role, Role::Const(_)) {
                cx.error(
                    file,
                    list.span.clone(),
                    format!("`{}` is a constant and cannot also be a count", entries[c].name),
                );
            }
            // A count's max must fit the headers of what it counts.
            for &a in &of {
                let (header, overflow) = match &entries[a].node.ty {
                    Type::Array(t) => (t.header, t.header_overflow.is_some()),
                    Type::Map(t) => (t.header, false),
                    _ => continue,
                };
                if let Encoding::Fixed(w) = header {
                    let limit = i128::from(w.max_len().unwrap_or(0) as u32);
                    let last = i128::from(w.markers().0) + max;
                    if w == Wire::FixArray && max > limit {
                        if last > 0xff {
                            cx.error(file, entries[a].span.clone(), format!(
                                "array header 0x90 + {} reaches {} for {} = {max}, past a byte: lower `max` of `{}` to at most 111",
                                entries[c].name, hex(last), entries[c].name, entries[c].name));
                        } else if !overflow {
                            let span = counts[a]
                                .as_ref()
                                .map_or(entries[a].span.clone(), |given| given.span.clone());
                            cx.error(file, span, format!(
                                "array header 0x90 + {} reaches {} for {} = {max}, past fixarray's 0x9f, which is not msgpack; if the layout really writes it (c-blosc2 writes 0xa0 for 16 dimensions), say why in `allow_header_overflow`",
                                entries[c].name, hex(last), entries[c].name));
                        }
                    } else if w != Wire::FixArray && max > i128::from(w.max_len().unwrap_or(0)) {
                        cx.error(
                            file,
                            entries[a].span.clone(),
                            format!(
                                "{} states at most {} elements, but `{}` allows up to {max}",
                                w.name(),
                                w.max_len().unwrap_or(0),
                                entries[c].name
                            ),
                        );
                    }
                    if overflow && w == Wire::FixArray && max <= limit {
                        cx.error(
                            file,
                            entries[a].span.clone(),
                            format!(
                                "`allow_header_overflow` is not needed: 0x90 + {} stays within fixarray (max {max})",
                                entries[c].name
                            ),
                        );
                    }
                }
            }
            if matches!(entries[c].role, Role::Field) {
                entries[c].role = Role::Count { of };
            }
        }
        for (i, e) in entries.iter().enumerate() {
            if let Type::Array(ArrayType {
                count: Count::Entry(_), ..
            })
            | Type::Map(MapType {
                count: Count::Entry(_), ..
            }) = e.node.ty
            {
                continue;
            }
            // A fixarray with an overflow reason but no count entry.
            if let Type::Array(a) = &e.node.ty
                && a.header_overflow.is_some()
            {
                cx.error(
                    entry_files[i],
                    e.span.clone(),
                    format!(
                        "`allow_header_overflow` applies to a fixarray whose count is an earlier entry; `{}` has none",
                        e.name
                    ),
                );
            }
        }
        // The header: a fixed wire type must state every number of entries the record can have.
        let required = optional_from.unwrap_or(entries.len());
        let total = entries.len();
        if let Encoding::Fixed(w) = header {
            let max = w.max_len().unwrap_or(0) as usize;
            if total > max {
                let span = ctable.get("wire").map_or(cspan.clone(), |v| v.span.clone());
                cx.error(
                    cfile,
                    span,
                    format!("{} holds at most {max} entries, but {what} has {total}", w.name()),
                );
            }
            if let Some(m) = cx.integer(cfile, ctable, "marker") {
                let base = i128::from(w.markers().0);
                let expected = match w.marker() {
                    Some(single) => i128::from(single),
                    None => base + total as i128,
                };
                if w.marker().is_none() && required < total {
                    cx.error(cfile, m.span, format!(
                        "container marker {} fixes the number of entries, but the optional entries make it {required}..={total}: leave `marker` out, and the header states how many are present",
                        hex(m.value)));
                } else if w.marker().is_none() && (m.value < base || m.value > i128::from(w.markers().1)) {
                    cx.error(cfile, m.span, format!(
                        "container marker {} does not belong to {} ({:#04x}..={:#04x}): for {total} entries it is {}",
                        hex(m.value), w.name(), w.markers().0, w.markers().1, hex(expected)));
                } else if m.value != expected {
                    let msg = if w.marker().is_none() {
                        format!(
                            "container marker {} states {} entries, but {what} has {total}",
                            hex(m.value),
                            m.value - base
                        )
                    } else {
                        format!(
                            "marker {} does not belong to {}: its marker is {}",
                            hex(m.value),
                            w.name(),
                            hex(expected)
                        )
                    };
                    cx.error(cfile, m.span, msg);
                }
            }
        } else if let Some(m) = ctable.get("marker") {
            cx.error(
                cfile,
                m.span.clone(),
                format!(
                    "`marker` does not apply to {}: its header follows from the number of entries",
                    wire.value
                ),
            );
        }
        Some(Record {
            form,
            header,
            entries,
            required,
        })
    }

    /// Checks an entry's role: a constant, a field, or (set later from `length_of`) a count.
    fn role(&mut self, cx: &mut Ctx<'_, '_>, file: usize, t: &Table, node: &Node, name: &Sp<String>) -> Role {
        if matches!(node.ty, Type::Nil) {
            return Role::Const(Const::Nil);
        }
        let Some(v) = t.get("const") else {
            return Role::Field;
        };
        let span = v.span.clone();
        let bad = |cx: &mut Ctx<'_, '_>, what: &str| {
            cx.error(
                file,
                span.clone(),
                format!(
                    "constant of entry `{}` must be {what}, found {}",
                    name.value,
                    v.value.kind()
                ),
            );
            Role::Field
        };
        match (&node.ty, &v.value) {
            (Type::Bool, Val::Bool(b)) => Role::Const(Const::Bool(*b)),
            (Type::Bool, _) => bad(cx, "true or false"),
            (Type::Int(it), Val::Int(Some(n))) => {
                let wire = it.encoding.wire();
                if *n < it.min || *n > it.max {
                    let what = wire.map_or("int".to_string(), |w| w.name().to_string());
                    cx.error(
                        file,
                        span,
                        format!("constant {n} does not fit {what} ({}..={})", it.min, it.max),
                    );
                }
                Role::Const(Const::Int(*n))
            }
            (Type::Int(_), _) => bad(cx, "an integer"),
            (Type::Float(w), Val::Float(f)) => {
                if *w == Wire::Float32 && f64::from(*f as f32) != *f && !f.is_nan() {
                    cx.error(file, span, format!("constant {f} is not exactly a float32"));
                }
                Role::Const(Const::Float(*f))
            }
            (Type::Float(_), Val::Int(Some(n))) => Role::Const(Const::Float(*n as f64)),
            (Type::Float(_), _) => bad(cx, "a number"),
            (Type::Str(st), Val::Str(s)) => {
                self.fits_len(cx, file, span, st.encoding, s.len(), "constant");
                Role::Const(Const::Bytes(s.as_bytes().to_vec()))
            }
            (Type::Str(_), _) => bad(cx, "a string"),
            (Type::Bin(e), Val::Array(items)) => {
                let mut bytes = Vec::new();
                for item in items {
                    match item.value {
                        Val::Int(Some(b @ 0..=255)) => bytes.push(b as u8),
                        _ => cx.error(file, item.span.clone(), "a bin constant is an array of bytes (0..=255)"),
                    }
                }
                self.fits_len(cx, file, span, *e, bytes.len(), "constant");
                Role::Const(Const::Bytes(bytes))
            }
            (Type::Bin(_), _) => bad(cx, "an array of bytes"),
            _ => {
                cx.error(
                    file,
                    span,
                    format!("`const` does not apply to {} entries", node.wire_name_plain()),
                );
                Role::Field
            }
        }
    }

    /// Checks that a constant's length fits the wire type's header.
    fn fits_len(
        &mut self,
        cx: &mut Ctx<'_, '_>,
        file: usize,
        span: Range<usize>,
        enc: Encoding,
        len: usize,
        what: &str,
    ) {
        if let Encoding::Fixed(w) = enc
            && let Some(max) = w.max_len()
            && len as u64 > max
        {
            cx.error(file, span, {
                let unit = match w.family() {
                    Family::Array | Family::Map => "elements",
                    _ => "bytes",
                };
                format!(
                    "{what} of {len} {unit} does not fit {} (at most {max} {unit})",
                    w.name()
                )
            });
        }
    }

    /// Checks a node table: `wire` (or `type`) and the keys of its family.
    fn node(&mut self, cx: &mut Ctx<'_, '_>, file: usize, t: &Table, span: Range<usize>, what: &str) -> Option<Node> {
        let mk = |ty| {
            Some(Node {
                ty,
                span: span.clone(),
                file,
            })
        };
        if let Some(ty) = cx.string(file, t, "type") {
            if let Some(w) = t.get("wire") {
                cx.error(
                    file,
                    w.span.clone(),
                    format!("{what} names a type; `wire` does not apply (the type states it)"),
                );
            }
            for k in NODE_KEYS.iter().filter(|k| !matches!(**k, "wire" | "type")) {
                if let Some(span) = t.key_span(k) {
                    cx.error(
                        file,
                        span,
                        format!("`{k}` does not apply where a type is named: the type states its layout"),
                    );
                }
            }
            return match self.type_names.iter().position(|n| *n == ty.value) {
                Some(i) => mk(Type::Ref(i)),
                None => {
                    let known = if self.type_names.is_empty() {
                        "none".to_string()
                    } else {
                        self.type_names.join(", ")
                    };
                    cx.error(
                        file,
                        ty.span,
                        format!("type `{}` is not defined; the schema's types are: {known}", ty.value),
                    );
                    None
                }
            };
        }
        let Some(wire) = cx.string(file, t, "wire") else {
            if t.get("wire").is_none() {
                cx.error(
                    file,
                    span.clone(),
                    format!("{what} needs `wire` (or `type`, naming a record type)"),
                );
            }
            return None;
        };
        let (family, fixed) = match (Wire::from_name(&wire.value), Family::from_name(&wire.value)) {
            (Some(w), _) => (w.family(), Some(w)),
            (None, Some(f)) if f != Family::Float => (f, None),
            _ => {
                cx.error(
                    file,
                    wire.span.clone(),
                    format!("unknown wire type `{}`; expected one of: {}", wire.value, wire_names()),
                );
                return None;
            }
        };
        let canonical = fixed.is_none() && !matches!(family, Family::Nil | Family::Bool);
        let applicable = node_keys(family, canonical);
        for k in NODE_KEYS.iter().filter(|k| !matches!(**k, "wire" | "type")) {
            if !applicable.contains(k)
                && let Some(span) = t.key_span(k)
            {
                let message = if canonical && matches!(*k, "marker" | "width") {
                    let fixed: Vec<&str> = family.wires().iter().map(|w| w.name()).collect();
                    format!(
                        "`{k}` does not apply to `{}`, the canonical encoding, whose marker follows from the value; to fix the marker, name the wire type: {}",
                        wire.value,
                        fixed.join(", ")
                    )
                } else {
                    format!("`{k}` does not apply to {} entries", wire.value)
                };
                cx.error(file, span, message);
            }
        }
        let lenient = cx.boolean(file, t, "lenient").is_some_and(|b| b.value);
        let encoding = match fixed {
            Some(w) => {
                self.marker_width(cx, file, t, w);
                Encoding::Fixed(w)
            }
            None => Encoding::Canonical { lenient },
        };
        let ty = match family {
            Family::Nil => Type::Nil,
            Family::Bool => Type::Bool,
            Family::Int => Type::Int(self.int(cx, file, t, encoding)),
            Family::Float => Type::Float(fixed.unwrap_or(Wire::Float64)),
            Family::Str => Type::Str(StrType {
                encoding,
                raw: cx.boolean(file, t, "raw").is_some_and(|b| b.value),
            }),
            Family::Bin => Type::Bin(encoding),
            Family::Ext => {
                let ext_type = cx
                    .integer(file, t, "ext_type")
                    .and_then(|v| match i8::try_from(v.value) {
                        Ok(b) => Some(b),
                        Err(_) => {
                            cx.error(
                                file,
                                v.span,
                                format!("ext type {} does not fit a signed byte (-128..=127)", v.value),
                            );
                            None
                        }
                    });
                Type::Ext(ExtType { encoding, ext_type })
            }
            Family::Array => {
                let count = match t.get("count") {
                    None | Some(Sp { value: Val::Str(_), .. }) => Count::Header,
                    Some(Sp {
                        value: Val::Int(Some(n)),
                        span,
                    }) => match usize::try_from(*n) {
                        Ok(n) => {
                            self.fits_len(cx, file, span.clone(), encoding, n, "a fixed count");
                            Count::Fixed(n)
                        }
                        Err(_) => {
                            cx.error(file, span.clone(), "a fixed count cannot be negative");
                            Count::Header
                        }
                    },
                    Some(other) => {
                        cx.error(
                            file,
                            other.span.clone(),
                            format!(
                                "expected an entry name or a number for `count`, found {}",
                                other.value.kind()
                            ),
                        );
                        Count::Header
                    }
                };
                let Some((el, el_span)) = cx.table(file, t, "element") else {
                    if t.get("element").is_none() {
                        cx.error(
                            file,
                            span.clone(),
                            format!("{what} is an array and needs `element`, the elements' type"),
                        );
                    }
                    return None;
                };
                cx.known_keys(file, el, "an array's element", NODE_KEYS);
                let element = self.node(cx, file, el, el_span, &format!("the element of {what}"))?;
                let header_overflow = cx.string(file, t, "allow_header_overflow").map(|s| s.value);
                if let Some(reason) = &header_overflow
                    && reason.trim().is_empty()
                {
                    let span = t.get("allow_header_overflow").map_or(span.clone(), |v| v.span.clone());
                    cx.error(
                        file,
                        span,
                        "`allow_header_overflow` needs the reason the layout writes such headers",
                    );
                }
                Type::Array(ArrayType {
                    header: encoding,
                    count,
                    element: Box::new(element),
                    header_overflow,
                })
            }
            Family::Map => {
                let mut part = |cx: &mut Ctx<'_, '_>, key: &str| -> Option<Node> {
                    let Some((pt, pspan)) = cx.table(file, t, key) else {
                        if t.get(key).is_none() {
                            cx.error(file, span.clone(), format!(
                                "{what} is a map and needs `key_type` and `value_type`; a map with fixed keys is a record: name a type (`type = \"...\"`)"));
                        }
                        return None;
                    };
                    cx.known_keys(file, pt, key, NODE_KEYS);
                    self.node(cx, file, pt, pspan, &format!("the {key} of {what}"))
                };
                let key = part(cx, "key_type");
                let value = part(cx, "value_type");
                let count = match t.get("count") {
                    Some(Sp {
                        value: Val::Int(Some(n)),
                        ..
                    }) => Count::Fixed(*n as usize),
                    _ => Count::Header,
                };
                Type::Map(MapType {
                    header: encoding,
                    count,
                    key: Box::new(key?),
                    value: Box::new(value?),
                })
            }
        };
        mk(ty)
    }

    fn int(&mut self, cx: &mut Ctx<'_, '_>, file: usize, t: &Table, encoding: Encoding) -> IntType {
        let (lo, hi) = match encoding {
            Encoding::Fixed(w) => w.int_range().unwrap_or((0, 0)),
            Encoding::Canonical { .. } => (i128::from(i64::MIN), i128::from(u64::MAX)),
        };
        let what = encoding.wire().map_or("int", |w| w.name());
        let bound = |cx: &mut Ctx<'_, '_>, key: &str, default: i128| match cx.integer(file, t, key) {
            Some(v) if v.value < lo || v.value > hi => {
                cx.error(
                    file,
                    v.span,
                    format!("`{key}` {} is outside {what}'s range {lo}..={hi}", v.value),
                );
                default
            }
            Some(v) => v.value,
            None => default,
        };
        let min = bound(cx, "min", lo);
        let max = bound(cx, "max", hi);
        if min > max {
            let span = t.get("max").map_or(0..0, |v| v.span.clone());
            cx.error(file, span, format!("`max` {max} is below `min` {min}"));
        }
        let mut values = Vec::new();
        if let Some((vt, _)) = cx.table(file, t, "values") {
            for (name, v) in &vt.pairs {
                match v.value {
                    Val::Int(Some(n)) if n >= min && n <= max => {
                        if let Some((other, _)) = values.iter().find(|(_, x)| *x == n) {
                            cx.error(
                                file,
                                v.span.clone(),
                                format!("value {n} is named twice: `{other}` and `{}`", name.value),
                            );
                        }
                        values.push((name.value.clone(), n));
                    }
                    Val::Int(Some(n)) => cx.error(
                        file,
                        v.span.clone(),
                        format!("named value {n} is outside {min}..={max}"),
                    ),
                    _ => cx.error(
                        file,
                        v.span.clone(),
                        format!(
                            "named value `{}` must be an integer, found {}",
                            name.value,
                            v.value.kind()
                        ),
                    ),
                }
            }
        }
        IntType {
            encoding,
            min,
            max,
            values,
        }
    }

    /// Checks the marker and width a node states for its fixed wire type.
    fn marker_width(&mut self, cx: &mut Ctx<'_, '_>, file: usize, t: &Table, w: Wire) {
        if let Some(m) = cx.integer(file, t, "marker") {
            match w.marker() {
                Some(expected) if m.value != i128::from(expected) => {
                    cx.error(
                        file,
                        m.span,
                        format!(
                            "marker {} does not belong to {}: its marker is {}",
                            hex(m.value),
                            w.name(),
                            hex(expected.into())
                        ),
                    );
                }
                Some(_) => {}
                None if matches!(w, Wire::FixArray | Wire::FixMap | Wire::FixStr) => {
                    let base = w.markers().0;
                    if m.value != i128::from(base) {
                        let what = match w {
                            Wire::FixStr => "length",
                            _ => "count",
                        };
                        cx.error(file, m.span, format!(
                            "marker {} does not belong to {}: state its first marker, {base:#04x}; the header is {base:#04x} + {what}",
                            hex(m.value), w.name()));
                    }
                }
                None => cx.error(
                    file,
                    m.span,
                    format!(
                        "`marker` does not apply to {}: its one byte ({:#04x}..={:#04x}) is the value",
                        w.name(),
                        w.markers().0,
                        w.markers().1
                    ),
                ),
            }
        }
        if let Some(width) = cx.integer(file, t, "width") {
            if w.width() == 0 {
                cx.error(
                    file,
                    width.span,
                    format!(
                        "`width` does not apply to {}: nothing follows its marker but the content",
                        w.name()
                    ),
                );
            } else if width.value != w.width() as i128 {
                let what = match w.family() {
                    Family::Int | Family::Float => "payload bytes",
                    _ => "bytes of length",
                };
                cx.error(
                    file,
                    width.span,
                    format!(
                        "width {} does not match {}: it has {} {what}",
                        width.value,
                        w.name(),
                        w.width()
                    ),
                );
            }
        }
    }
}

impl Node {
    /// The wire type's name without a layout at hand (a record type shows as `record`).
    pub(crate) fn wire_name_plain(&self) -> String {
        match &self.ty {
            Type::Ref(_) => "record".into(),
            _ => {
                let empty = Layout {
                    schema: String::new(),
                    metalayer: String::new(),
                    description: String::new(),
                    source: String::new(),
                    root: Node {
                        ty: Type::Nil,
                        span: 0..0,
                        file: 0,
                    },
                    types: Vec::new(),
                    files: Vec::new(),
                };
                self.wire_name(&empty)
            }
        }
    }
}
