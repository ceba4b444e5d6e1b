//! A whole schema: its `[schema]` table, its top-level value, and its record types.

use core::ops::Range;
use std::collections::HashMap;

use metalayer_runtime::METALAYER_NAME_MAX_LEN;

use super::files::Gathered;
use super::node::{NodeCx, TypeNames};
use super::record::{RawRecord, RecordOf};
use super::{Ctx, NameOf, check_identifier};
use crate::model::{Layout, NESTING_LIMIT, Node, Record, RecordType, SchemaFile, Type};
use crate::parse::{Sp, Table, Val};

/// The main schema's index among the files read.
const MAIN: usize = 0;

/// The `[schema]` fields a layout carries; `None` where the schema lacks one.
#[derive(Default)]
struct Header {
    metalayer: Option<String>,
    description: Option<String>,
    source: Option<String>,
}

/// A record type's table, as one of the files defines it.
struct TypeTable<'t> {
    file: usize,
    name: &'t Sp<String>,
    table: &'t Table,
    span: Range<usize>,
}

/// Checks everything the files define and builds the layout; `None` when anything failed (the
/// diagnostics say what).
pub(super) fn build(cx: &mut Ctx<'_, '_>, gathered: &Gathered) -> Option<Layout> {
    let main = &gathered.tables[MAIN].1;
    let header = check_schema_header(cx, main);
    let root = root_record(cx, gathered);
    let type_tables = type_tables(cx, gathered);
    let mut names = Vec::with_capacity(type_tables.len());
    for t in &type_tables {
        names.push(t.name.value.clone());
    }
    let type_names = TypeNames::new(names);
    let types = record_types(cx, &type_tables, &type_names);
    let root = root_node(cx, main, &root, &mut NodeCx::new(&type_names));
    let held = held_types(&types);
    let depths = type_depths(&types, &held);
    check_types_acyclic(cx, &types, &held, &depths);
    check_nesting_depth(cx, &types, &held, &depths);

    // Types the root uses are indexed in `type_names`'s order (the files' order); the checked
    // types keep that order only when all of them checked, which is the only case that returns
    // a layout.
    if types.len() != type_names.len() {
        return None;
    }
    let mut files = Vec::with_capacity(cx.files.len());
    for f in &cx.files {
        files.push(SchemaFile {
            name: f.name.clone(),
            path: f.path.clone(),
        });
    }
    Some(Layout {
        schema: cx.files[MAIN].name.clone(),
        metalayer: header.metalayer?,
        description: header.description?,
        source: header.source?,
        root: root?,
        types,
        files,
    })
}

/// The main schema's `[schema]` table, if it is one.
fn schema_table(main: &Table) -> Option<&Table> {
    match main.get("schema") {
        Some(Sp {
            value: Val::Table(t), ..
        }) => Some(t),
        _ => None,
    }
}

/// Rule: the main schema has a `[schema]` table, which states `metalayer`, `description` and
/// `source`.
fn check_schema_header(cx: &mut Ctx<'_, '_>, main: &Table) -> Header {
    let Some(t) = schema_table(main) else {
        cx.error(
            MAIN,
            0..0,
            "the schema file needs a [schema] table with `metalayer`, `description` and `source`",
        );
        return Header::default();
    };
    let mut field = |key: &str| {
        let v = cx.string(MAIN, t, key);
        if v.is_none() && t.get(key).is_none() {
            let span = main.key_span("schema").unwrap_or(0..0);
            cx.error(MAIN, span, format!("[schema] needs `{key}`"));
        }
        v
    };
    let (metalayer, description, source) = (field("metalayer"), field("description"), field("source"));
    if let Some(name) = &metalayer {
        check_metalayer_name_length(cx, name);
    }
    Header {
        metalayer: metalayer.map(|s| s.value),
        description: description.map(|s| s.value),
        source: source.map(|s| s.value),
    }
}

/// Rule: the metalayer name is 1 to [`METALAYER_NAME_MAX_LEN`] bytes long, as c-blosc2 stores
/// names.
fn check_metalayer_name_length(cx: &mut Ctx<'_, '_>, name: &Sp<String>) {
    let m = &name.value;
    if m.is_empty() || m.len() > METALAYER_NAME_MAX_LEN {
        cx.error(
            MAIN,
            name.span.clone(),
            format!(
                "metalayer name `{m}` is {} bytes; c-blosc2 stores names of 1 to {METALAYER_NAME_MAX_LEN} bytes",
                m.len()
            ),
        );
    }
}

/// The top-level record as the files state it: the entries of the schema the main schema
/// extends (at most one), then the main schema's; the main schema's container, or the base's
/// when the main schema states neither a container nor a value.
fn root_record<'t>(cx: &mut Ctx<'_, '_>, gathered: &'t Gathered) -> RawRecord<'t> {
    let main = &gathered.tables[MAIN].1;
    let mut root = RawRecord::default();
    if let Some((file, table)) = gathered.base.and_then(|i| gathered.tables.get(i)) {
        collect_root(cx, *file, table, &mut root);
    }
    let base_container = root.container.take();
    collect_root(cx, MAIN, main, &mut root);
    let extends = schema_table(main)
        .and_then(|t| t.get("extends"))
        .map(|v| v.span.clone());
    if root.container.is_none() && main.get("value").is_none() {
        root.inherited = base_container.as_ref().and(extends.clone());
        root.container = base_container;
    }
    if let Some((_, base)) = gathered.base.and_then(|i| gathered.tables.get(i))
        && base.get("value").is_some()
        && base.get("container").is_none()
    {
        root.base_is_value = extends;
    }
    root
}

/// Rule: the schema a schema extends is a record (`[container]` and `[[entry]]`), whose entries
/// the extending schema continues; a single value (`[value]`) has none. Whether it is.
fn check_base_is_record(cx: &mut Ctx<'_, '_>, root: &RawRecord<'_>) -> bool {
    let Some(extends) = &root.base_is_value else {
        return true;
    };
    cx.error(
        MAIN,
        extends.clone(),
        "the schema extended is a single value ([value]), not a record whose entries this schema can continue: extend a schema with [container] and [[entry]]",
    );
    false
}

/// Adds the container and the entries of file `file`'s top-level table to `root`.
fn collect_root<'t>(cx: &mut Ctx<'_, '_>, file: usize, table: &'t Table, root: &mut RawRecord<'t>) {
    if let Some((t, span)) = cx.table(file, table, "container") {
        root.container = Some((file, t, span));
    }
    for (t, span) in cx.tables(file, table, "entry") {
        root.entries.push((file, t, span));
    }
}

/// The record types every file defines (`[types.<name>]`), each a table with a name that is
/// an identifier and defined once.
fn type_tables<'t>(cx: &mut Ctx<'_, '_>, gathered: &'t Gathered) -> Vec<TypeTable<'t>> {
    let mut out: Vec<TypeTable<'t>> = Vec::new();
    // Each name defined so far, and the file that defines it.
    let mut defined: HashMap<&'t str, usize> = HashMap::new();
    for (file, table) in &gathered.tables {
        let Some((types, _)) = cx.table(*file, table, "types") else {
            continue;
        };
        for (name, value) in &types.pairs {
            let Val::Table(t) = &value.value else {
                let msg = format!(
                    "expected a table for type `{}`, found {}",
                    name.value,
                    value.value.kind()
                );
                cx.error(*file, value.span.clone(), msg);
                continue;
            };
            if !check_type_defined_once(cx, *file, name, &defined) {
                continue;
            }
            defined.insert(&name.value, *file);
            check_identifier(cx, *file, name, NameOf::Type);
            out.push(TypeTable {
                file: *file,
                name,
                table: t,
                span: value.span.clone(),
            });
        }
    }
    out
}

/// Rule: a record type is defined once among all the files of a schema. Whether `name`,
/// defined in `file`, is not among the types `defined` before it (each with its file).
fn check_type_defined_once(
    cx: &mut Ctx<'_, '_>,
    file: usize,
    name: &Sp<String>,
    defined: &HashMap<&str, usize>,
) -> bool {
    let Some(&other) = defined.get(name.value.as_str()) else {
        return true;
    };
    let other = cx.files[other].name.clone();
    cx.error(
        file,
        name.span.clone(),
        format!("type `{}` is defined twice: {other} defines it too", name.value),
    );
    false
}

/// The record types that check, in definition order.
fn record_types(cx: &mut Ctx<'_, '_>, tables: &[TypeTable<'_>], type_names: &TypeNames) -> Vec<RecordType> {
    let mut types = Vec::new();
    for t in tables {
        let entries = cx.tables(t.file, t.table, "entry");
        let raw = RawRecord {
            container: Some((t.file, t.table, t.span.clone())),
            entries: {
                let mut in_file = Vec::with_capacity(entries.len());
                for (table, span) in entries {
                    in_file.push((t.file, table, span));
                }
                in_file
            },
            inherited: None,
            base_is_value: None,
        };
        if let Some(record) = NodeCx::new(type_names).record(cx, &raw, RecordOf::Type(&t.name.value)) {
            types.push(RecordType {
                name: t.name.value.clone(),
                record,
                file: t.file,
                span: t.span.clone(),
            });
        }
    }
    types
}

/// The top-level value: `[value]`, or the record of `[container]` and the entries.
fn root_node(cx: &mut Ctx<'_, '_>, main: &Table, root: &RawRecord<'_>, nodes: &mut NodeCx<'_>) -> Option<Node> {
    let value = main.get("value");
    if !check_base_is_record(cx, root) || !check_one_top_level_value(cx, value, root) {
        return None;
    }
    if let Some(v) = value {
        let Val::Table(t) = &v.value else {
            let msg = format!("expected a table for [value], found {}", v.value.kind());
            cx.error(MAIN, v.span.clone(), msg);
            return None;
        };
        cx.check_known_keys(MAIN, t, "[value]", super::NODE_KEYS);
        return nodes.single_value(cx, MAIN, t, v.span.clone());
    }
    let (file, _, span) = root.container.as_ref()?;
    let (file, span) = (*file, span.clone());
    let record = nodes.record(cx, root, RecordOf::Container)?;
    Some(Node {
        ty: Type::Record(record),
        span,
        file,
    })
}

/// Rule: a schema's top-level value is a single value (`[value]`) or a record (`[container]`
/// and `[[entry]]`, here or in the schema it extends), one of the two. Whether it is.
fn check_one_top_level_value(cx: &mut Ctx<'_, '_>, value: Option<&Sp<Val>>, root: &RawRecord<'_>) -> bool {
    match value {
        Some(v) if root.container.is_some() || !root.entries.is_empty() => {
            cx.error(
                MAIN,
                v.span.clone(),
                "a schema has either [value] (a single value) or [container] and [[entry]] (a record), not both",
            );
            false
        }
        None if root.container.is_none() => {
            cx.error(
                MAIN,
                0..0,
                "the schema needs [container] and [[entry]] tables (a record) or a [value] table",
            );
            false
        }
        _ => true,
    }
}

/// Rule: no record type contains itself, directly or through other types: its values would be
/// of infinite depth. Each type on a cycle of at most [`NESTING_LIMIT`] types is reported with
/// its cycle; a longer cycle once, at its first type.
fn check_types_acyclic(cx: &mut Ctx<'_, '_>, types: &[RecordType], held: &[Vec<usize>], depths: &[Option<usize>]) {
    let mut long_cycle_reported = false;
    let mut seen = vec![false; types.len()];
    for (i, t) in types.iter().enumerate() {
        if depths[i].is_some() {
            continue;
        }
        let message = match cycle(held, i, &mut seen) {
            Some(chain) => {
                let mut names = Vec::with_capacity(chain.len());
                for &j in &chain {
                    names.push(types[j].name.as_str());
                }
                format!(
                    "type `{}` contains itself: {} -> {}",
                    t.name,
                    names.join(" -> "),
                    t.name
                )
            }
            // A type that only leads to a cycle is reported at the cycle's own types.
            None if long_cycle_reported || !on_cycle(held, depths, i) => continue,
            None => {
                long_cycle_reported = true;
                format!(
                    "type `{}` contains itself, through more than {NESTING_LIMIT} other types",
                    t.name
                )
            }
        };
        cx.error(t.file, t.span.clone(), message);
    }
}

/// Rule: values nest at most [`NESTING_LIMIT`] levels deep (records in records, through types
/// too, arrays of arrays, maps of maps): the depth every walk over a layout follows. Reported at
/// the outermost type that nests too deep.
fn check_nesting_depth(cx: &mut Ctx<'_, '_>, types: &[RecordType], held: &[Vec<usize>], depths: &[Option<usize>]) {
    let mut referred = vec![false; types.len()];
    for &j in held.iter().flatten() {
        referred[j] = true;
    }
    for (i, t) in types.iter().enumerate() {
        let Some(depth) = depths[i].filter(|&d| d > NESTING_LIMIT && !referred[i]) else {
            continue;
        };
        // The first types of the deepest chain.
        let mut chain = vec![t.name.as_str()];
        let mut at = i;
        while let Some(&next) = held[at].iter().max_by_key(|&&j| depths[j]).filter(|_| chain.len() < 4) {
            chain.push(types[next].name.as_str());
            at = next;
        }
        cx.error(
            t.file,
            t.span.clone(),
            format!(
                "type `{}` nests values {depth} levels deep ({} -> ...); at most {NESTING_LIMIT} levels are allowed",
                t.name,
                chain.join(" -> ")
            ),
        );
    }
}

/// The types each type holds directly or through arrays and maps (not through other types), by
/// index.
fn held_types(types: &[RecordType]) -> Vec<Vec<usize>> {
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
    let mut held = Vec::with_capacity(types.len());
    for t in types {
        let mut out = Vec::new();
        for e in &t.record.entries {
            refs(&e.node.ty, &mut out);
        }
        out.retain(|&j| j < types.len());
        held.push(out);
    }
    held
}

/// How many levels each type's values nest (a record is one level, an array or a map one more
/// than its elements, a scalar none); `None` for a type that contains itself or holds one that
/// does. One iterative depth-first walk: a chain of any length costs no stack, and each type is
/// looked at once.
fn type_depths(types: &[RecordType], held: &[Vec<usize>]) -> Vec<Option<usize>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done(Option<usize>),
    }
    fn done(m: Mark) -> Option<usize> {
        match m {
            Mark::Done(d) => d,
            _ => None,
        }
    }
    let mut mark = vec![Mark::New; types.len()];
    for root in 0..types.len() {
        if mark[root] != Mark::New {
            continue;
        }
        mark[root] = Mark::Open;
        let mut stack = vec![(root, 0)];
        while let Some((at, next)) = stack.last_mut() {
            let at = *at;
            if let Some(&j) = held[at].get(*next) {
                *next += 1;
                if mark[j] == Mark::New {
                    mark[j] = Mark::Open;
                    stack.push((j, 0));
                }
                continue;
            }
            stack.pop();
            // Every type `at` holds is done now, or open: an ancestor, so `at` is on a cycle.
            mark[at] = Mark::Done(record_depth(&types[at].record, &|j| done(mark[j])));
        }
    }
    mark.into_iter().map(done).collect()
}

/// The levels a record's values nest, given those of the types it names.
fn record_depth(record: &Record, depth_of: &dyn Fn(usize) -> Option<usize>) -> Option<usize> {
    record
        .entries
        .iter()
        .try_fold(0, |max, e| Some(max.max(type_depth(&e.node.ty, depth_of)?)))
        .map(|d| d + 1)
}

fn type_depth(ty: &Type, depth_of: &dyn Fn(usize) -> Option<usize>) -> Option<usize> {
    match ty {
        Type::Ref(j) => depth_of(*j),
        Type::Array(a) => Some(type_depth(&a.element.ty, depth_of)? + 1),
        Type::Map(m) => Some(type_depth(&m.key.ty, depth_of)?.max(type_depth(&m.value.ty, depth_of)?) + 1),
        Type::Record(r) => record_depth(r, depth_of),
        _ => Some(0),
    }
}

/// Whether type `at`, which contains itself or holds one that does, leads back to itself.
fn on_cycle(held: &[Vec<usize>], depths: &[Option<usize>], at: usize) -> bool {
    let mut seen = vec![false; held.len()];
    let mut todo = vec![at];
    while let Some(i) = todo.pop() {
        for &j in held[i].iter().filter(|&&j| depths[j].is_none()) {
            if j == at {
                return true;
            }
            if !seen[j] {
                seen[j] = true;
                todo.push(j);
            }
        }
    }
    false
}

/// The chain of types from type `start` back to itself, if it contains itself through at most
/// [`NESTING_LIMIT`] types. `seen` is all false, and is left so.
fn cycle(held: &[Vec<usize>], start: usize, seen: &mut [bool]) -> Option<Vec<usize>> {
    fn walk(
        held: &[Vec<usize>],
        at: usize,
        start: usize,
        path: &mut Vec<usize>,
        seen: &mut [bool],
        touched: &mut Vec<usize>,
    ) -> bool {
        if path.len() > NESTING_LIMIT {
            return false;
        }
        for &n in &held[at] {
            if n == start {
                return true;
            }
            if !seen[n] {
                seen[n] = true;
                touched.push(n);
                path.push(n);
                if walk(held, n, start, path, seen, touched) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start];
    let mut touched = Vec::new();
    let found = walk(held, start, start, &mut path, seen, &mut touched);
    touched.into_iter().for_each(|n| seen[n] = false);
    found.then_some(path)
}

#[cfg(test)]
mod tests {
    use crate::check::testing::{HEAD, at, problems, problems_in, problems_with};

    #[test]
    fn check_base_is_record() {
        // lazyarray_v0 is a single integer: one error, at `extends` (line 5, column 11).
        let text = format!("{HEAD}extends = \"lazyarray_v0\"\n[[entry]]\nname = \"extra\"\nwire = \"int\"\n");
        assert_eq!(
            problems_in(&text),
            [at(
                5,
                11,
                "the schema extended is a single value ([value]), not a record whose entries this schema can continue: extend a schema with [container] and [[entry]]"
            )]
        );
        let text = text.replace("lazyarray_v0", "b2o_v1");
        assert_eq!(problems_in(&text), []);
    }

    #[test]
    fn check_schema_header() {
        assert_eq!(
            problems_in("[value]\nwire = \"int\"\n"),
            [at(
                1,
                1,
                "the schema file needs a [schema] table with `metalayer`, `description` and `source`"
            )]
        );
        assert_eq!(
            problems_in("[schema]\nmetalayer = \"m\"\ndescription = \"d\"\n[value]\nwire = \"int\"\n"),
            [at(1, 2, "[schema] needs `source`")]
        );
        assert_eq!(
            problems_in("[schema]\nmetalayer = \"m\"\ndescription = \"d\"\nsource = 1\n[value]\nwire = \"int\"\n"),
            [at(4, 10, "expected a string for `source`, found an integer")]
        );
        assert_eq!(problems("[value]\nwire = \"int\"\n"), []);
    }

    #[test]
    fn check_metalayer_name_length() {
        let text = |name: &str| {
            format!("[schema]\nmetalayer = \"{name}\"\ndescription = \"d\"\nsource = \"s\"\n[value]\nwire = \"int\"\n")
        };
        assert_eq!(
            problems_in(&text("")),
            [at(
                2,
                13,
                "metalayer name `` is 0 bytes; c-blosc2 stores names of 1 to 31 bytes"
            )]
        );
        let long = "a".repeat(32);
        assert_eq!(
            problems_in(&text(&long)),
            [at(
                2,
                13,
                &format!("metalayer name `{long}` is 32 bytes; c-blosc2 stores names of 1 to 31 bytes")
            )]
        );
        assert_eq!(problems_in(&text(&"a".repeat(31))), []);
        assert_eq!(problems_in(&text("b")), []);
    }

    #[test]
    fn check_one_top_level_value() {
        let both =
            "[value]\nwire = \"int\"\n[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"a\"\nwire = \"int\"\n";
        assert_eq!(
            problems(both),
            [at(
                1,
                1,
                "a schema has either [value] (a single value) or [container] and [[entry]] (a record), not both"
            )]
        );
        // Entries without a container are no record; the place is the file's start.
        assert_eq!(
            problems_in(&format!("{HEAD}[[entry]]\nname = \"a\"\nwire = \"int\"\n")),
            [at(
                1,
                1,
                "the schema needs [container] and [[entry]] tables (a record) or a [value] table"
            )]
        );
        // A top-level key comes before the first table.
        assert_eq!(
            problems_in(&format!("value = 1\n{HEAD}")),
            [at(1, 9, "expected a table for [value], found an integer")]
        );
        assert_eq!(problems("[value]\nwire = \"int\"\n"), []);
        // A schema that extends another and states neither has the base's record.
        assert_eq!(problems_in(&format!("{HEAD}extends = \"b2nd_v1\"\n")), []);
    }

    #[test]
    fn check_type_defined_once() {
        let point = "[types.point]\nwire = \"fixarray\"\n[[types.point.entry]]\nname = \"x\"\nwire = \"int\"\n";
        let main = format!("{HEAD}include = [\"common.toml\", \"dup.toml\"]\n[value]\ntype = \"point\"\n");
        assert_eq!(
            problems_with(&main, &[("common.toml", point), ("dup.toml", point)]),
            [(
                "dup.toml".to_string(),
                at(1, 8, "type `point` is defined twice: common.toml defines it too")
            )]
        );
        assert_eq!(
            problems_with(&main.replace(", \"dup.toml\"", ""), &[("common.toml", point)]),
            []
        );
        assert_eq!(
            problems("[value]\ntype = \"a\"\n[types]\na = 1\n"),
            [
                at(2, 8, "type `a` is not defined; the schema's types are: none"),
                at(4, 5, "expected a table for type `a`, found an integer"),
            ]
        );
    }

    #[test]
    fn check_types_acyclic() {
        // `a` holds a `b`, and `b` an array of `a`.
        let body = r#"[value]
type = "a"
[types.a]
wire = "fixarray"
[[types.a.entry]]
name = "b"
type = "b"
[types.b]
wire = "fixarray"
[[types.b.entry]]
name = "all"
wire = "array"
element = { type = "a" }
"#;
        assert_eq!(
            problems(body),
            [
                at(3, 1, "type `a` contains itself: a -> b -> a"),
                at(8, 1, "type `b` contains itself: b -> a -> b"),
            ]
        );
        // `a` holds two `b`s, and `b` holds nothing of `a`.
        let body = r#"[value]
type = "a"
[types.a]
wire = "fixarray"
[[types.a.entry]]
name = "first"
type = "b"
[[types.a.entry]]
name = "second"
type = "b"
[types.b]
wire = "fixarray"
[[types.b.entry]]
name = "x"
wire = "int"
"#;
        assert_eq!(problems(body), []);
    }

    /// A schema whose value is type `t0`, each `t<i>` holding a `t<i + 1>` and the last one
    /// `back` (an integer, or a type name).
    fn chain(n: usize, back: &str) -> String {
        let mut body = String::from("[value]\ntype = \"t0\"\n");
        for i in 0..n {
            let next = if i + 1 < n {
                format!("type = \"t{}\"", i + 1)
            } else {
                back.to_string()
            };
            body.push_str(&format!(
                "[types.t{i}]\nwire = \"fixarray\"\n[[types.t{i}.entry]]\nname = \"x\"\n{next}\n"
            ));
        }
        body
    }

    #[test]
    fn check_types_acyclic_long() {
        // 70 types in a ring, longer than the chains the rule prints: one message, at `t0`.
        assert_eq!(
            problems(&chain(70, "type = \"t0\"")),
            [at(3, 1, "type `t0` contains itself, through more than 64 other types")]
        );
        // 10,000 types in a ring, refused at once (a walk per type would take minutes).
        assert_eq!(problems(&chain(10_000, "type = \"t0\"")).len(), 1);
    }

    #[test]
    fn check_nesting_depth() {
        // 64 records, each in the one before: 64 levels, the limit.
        assert_eq!(problems(&chain(64, "wire = \"int\"")), []);
        // An array of them is one more, in `t0`, which no type holds.
        assert_eq!(
            problems(&chain(65, "wire = \"int\"")),
            [at(
                3,
                1,
                "type `t0` nests values 65 levels deep (t0 -> t1 -> t2 -> t3 -> ...); at most 64 levels are allowed"
            )]
        );
        // A chain of 10,000 types: one message, at once.
        assert_eq!(
            problems(&chain(10_000, "wire = \"int\"")),
            [at(
                3,
                1,
                "type `t0` nests values 10000 levels deep (t0 -> t1 -> t2 -> t3 -> ...); at most 64 levels are allowed"
            )]
        );
    }
}
