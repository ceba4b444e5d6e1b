//! A record: its container (the wire type and marker of its header) and its entries, each
//! checked on its own and against the entries before it.

use core::ops::Range;

use super::node::{NestedCount, NodeCx};
use super::{Ctx, NODE_KEYS, NameOf, check_identifier, constant, counts, hex};
use crate::model::{Encoding, Entry, Family, Record, Wire};
use crate::parse::{Sp, Table, Val};

/// The keys an `[[entry]]` takes besides those of its node.
const ENTRY_KEYS: &[&str] = &["name", "key", "const", "length_of", "optional", "together_with", "doc"];

/// A record's container and entries as read from one or more files (a schema that extends
/// another starts with the base's entries): each with its file and its table's span.
#[derive(Default)]
pub(super) struct RawRecord<'t> {
    pub(super) container: Option<(usize, &'t Table, Range<usize>)>,
    pub(super) entries: Vec<(usize, &'t Table, Range<usize>)>,
    /// The span of `extends` in the main schema, when the container is the base schema's: its
    /// header then follows from the entries, base and extending alike.
    pub(super) inherited: Option<Range<usize>>,
    /// The span of `extends` in the main schema, when the base is a single value, which has no
    /// entries to extend.
    pub(super) base_is_value: Option<Range<usize>>,
}

/// Which record is checked: the schema's top-level one, or a named type. Messages name it,
/// and their tables take different keys.
#[derive(Debug, Clone, Copy)]
pub(super) enum RecordOf<'a> {
    /// `[container]` and the top-level `[[entry]]` tables.
    Container,
    /// `[types.<name>]`, with its entries.
    Type(&'a str),
}

impl RecordOf<'_> {
    /// The record in messages: `the container`, ``type `point` ``.
    fn what(self) -> String {
        match self {
            RecordOf::Container => "the container".into(),
            RecordOf::Type(name) => format!("type `{name}`"),
        }
    }

    /// The record's table in messages about its keys: `[container]`, ``type `point` ``.
    fn table_name(self) -> String {
        match self {
            RecordOf::Container => "[container]".into(),
            RecordOf::Type(_) => self.what(),
        }
    }

    /// The keys the record's table takes.
    fn keys(self) -> &'static [&'static str] {
        match self {
            RecordOf::Container => &["wire", "marker", "lenient"],
            RecordOf::Type(_) => &["wire", "marker", "lenient", "entry", "doc"],
        }
    }
}

/// A record's container table and the header it states.
struct Container<'t> {
    file: usize,
    table: &'t Table,
    span: Range<usize>,
    /// The wire type as written.
    wire: Sp<String>,
    /// [`Family::Array`] or [`Family::Map`].
    form: Family,
    encoding: Encoding,
}

/// One entry checked on its own: the model's entry, and what the rules across entries need
/// from its table.
pub(super) struct CheckedEntry {
    pub(super) entry: Entry,
    /// The file its table is in.
    pub(super) file: usize,
    /// Where its name is written.
    pub(super) name_span: Range<usize>,
    /// `count = "<entry>"`: the entry said to hold its number of elements.
    pub(super) count: Option<Sp<String>>,
    /// `length_of = [...]`: the entries it is said to count.
    pub(super) length_of: Option<Sp<Vec<Sp<String>>>>,
    /// `together_with = "<entry>"`: the earlier optional entry it goes together with.
    pub(super) together_with: Option<Sp<String>>,
    /// The counts its nested arrays and maps name.
    pub(super) nested: Vec<NestedCount>,
}

impl NodeCx<'_> {
    /// Checks a record: its container table (wire, marker) and its entries.
    pub(super) fn record(&mut self, cx: &mut Ctx<'_, '_>, raw: &RawRecord<'_>, of: RecordOf<'_>) -> Option<Record> {
        let (file, table, span) = raw.container.clone()?;
        cx.check_known_keys(file, table, &of.table_name(), of.keys());
        let container = check_record_wire(cx, file, table, span, of)?;
        check_lenient_on_canonical(cx, &container);
        let mut entries: Vec<CheckedEntry> = Vec::new();
        for table in &raw.entries {
            if let Some(e) = self.entry(cx, table, &entries, &container, of) {
                entries.push(e);
            }
        }
        check_optional_entries_trail(cx, &entries);
        let all_checked = entries.len() == raw.entries.len();
        if all_checked {
            counts::check_counts(cx, &mut entries);
        }
        check_optional_entries_are_fields(cx, &entries);
        check_together_with_earlier_optional(cx, &mut entries);
        if !all_checked {
            return None;
        }
        let total = entries.len();
        let required = entries.iter().position(|e| e.entry.optional).unwrap_or(total);
        match &raw.inherited {
            Some(extends) => check_inherited_header_holds_entries(cx, &container, total, extends),
            None => {
                check_header_holds_entries(cx, &container, total, of);
                check_container_marker(cx, &container, required, total, of);
            }
        }
        check_no_marker_on_canonical(cx, &container);
        Some(Record {
            form: container.form,
            header: container.encoding,
            entries: {
                let mut checked = Vec::with_capacity(entries.len());
                for e in entries {
                    checked.push(e.entry);
                }
                checked
            },
            required,
        })
    }

    /// Checks one `[[entry]]` (its file, table and span) on its own and against the entries
    /// `earlier` of its record.
    fn entry(
        &mut self,
        cx: &mut Ctx<'_, '_>,
        (file, t, span): &(usize, &Table, Range<usize>),
        earlier: &[CheckedEntry],
        container: &Container<'_>,
        of: RecordOf<'_>,
    ) -> Option<CheckedEntry> {
        let (file, t, span) = (*file, *t, span.clone());
        let keys: Vec<&str> = ENTRY_KEYS.iter().chain(NODE_KEYS).copied().collect();
        cx.check_known_keys(file, t, "[[entry]]", &keys);
        let name = check_entry_named(cx, file, t, &span)?;
        check_identifier(cx, file, &name, NameOf::Entry);
        check_entry_name_unique(cx, file, &name, earlier);
        let key = check_key_in_map_record(cx, file, t, &name, container.form, of);
        if let Some(key) = &key {
            check_key_unique(cx, file, t, &name, key, earlier);
        }
        let mark = self.nested.len();
        let node = self.node(cx, file, t, span.clone(), &format!("entry `{}`", name.value));
        let nested: Vec<NestedCount> = self.nested.drain(mark..).collect();
        let node = node?;
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
        let optional = cx.flag(file, t, "optional");
        let role = constant::role(cx, file, t, &node, &name);
        let length_of = cx.strings(file, t, "length_of");
        let doc = cx.string(file, t, "doc").map(|d| d.value);
        let together_with = cx.string(file, t, "together_with");
        if let Some(w) = &together_with {
            cx.check_language(
                file,
                t.key_span("together_with").unwrap_or(w.span.clone()),
                "`together_with`",
            );
        }
        Some(CheckedEntry {
            entry: Entry {
                name: name.value,
                key,
                node,
                role,
                optional,
                together_with: None,
                doc,
                span,
            },
            file,
            name_span: name.span,
            count,
            length_of,
            together_with,
            nested,
        })
    }
}

/// Rule: a record's wire type is an array or a map one (fixarray, array16, array32, array,
/// fixmap, map16, map32 or map); a single value goes in `[value]`. The container with the
/// header it states, when it does.
fn check_record_wire<'t>(
    cx: &mut Ctx<'_, '_>,
    file: usize,
    table: &'t Table,
    span: Range<usize>,
    of: RecordOf<'_>,
) -> Option<Container<'t>> {
    let what = of.what();
    let Some(wire) = cx.string(file, table, "wire") else {
        if table.get("wire").is_none() {
            cx.error(
                file,
                span,
                format!("{what} needs `wire`: fixarray, array16, array32, array, fixmap, map16, map32 or map"),
            );
        }
        return None;
    };
    let (form, encoding) = match (Wire::from_name(&wire.value), Family::from_name(&wire.value)) {
        (Some(w), _) if matches!(w.family(), Family::Array | Family::Map) => (w.family(), Encoding::Fixed(w)),
        (None, Some(f @ (Family::Array | Family::Map))) => (
            f,
            Encoding::Canonical {
                lenient: cx.flag(file, table, "lenient"),
            },
        ),
        _ => {
            cx.error(
                file,
                wire.span.clone(),
                format!(
                    "{what} is a record: its wire is fixarray, array16, array32, array, fixmap, map16, map32 or map, not `{}` (a single value goes in [value])",
                    wire.value
                ),
            );
            return None;
        }
    };
    Some(Container {
        file,
        table,
        span,
        wire,
        form,
        encoding,
    })
}

/// Rule: `lenient` applies to the canonical record headers (array, map) only: a fixed wire
/// type's header is what it is.
fn check_lenient_on_canonical(cx: &mut Ctx<'_, '_>, c: &Container<'_>) {
    if let (Encoding::Fixed(_), Some(l)) = (c.encoding, c.table.get("lenient")) {
        cx.error(
            c.file,
            l.span.clone(),
            format!(
                "`lenient` does not apply to {}: it is for canonical encodings (array, map)",
                c.wire.value
            ),
        );
    }
}

/// Rule: an `[[entry]]` has a `name`. The name, when it is there and a string.
fn check_entry_named(cx: &mut Ctx<'_, '_>, file: usize, t: &Table, span: &Range<usize>) -> Option<Sp<String>> {
    let name = cx.string(file, t, "name");
    if name.is_none() && t.get("name").is_none() {
        cx.error(file, span.clone(), "[[entry]] needs `name`");
    }
    name
}

/// Rule: no two entries of a record have the same name (it is the Rust field's name).
fn check_entry_name_unique(cx: &mut Ctx<'_, '_>, file: usize, name: &Sp<String>, earlier: &[CheckedEntry]) {
    if earlier.iter().any(|e| e.entry.name == name.value) {
        cx.error(
            file,
            name.span.clone(),
            format!("duplicate entry name `{}`: an earlier entry has it", name.value),
        );
    }
}

/// Rule: only the entries of a map record have keys; an array record's entries have none. An
/// entry of a map record is keyed by its `key`, or by its name. The entry's key.
fn check_key_in_map_record(
    cx: &mut Ctx<'_, '_>,
    file: usize,
    t: &Table,
    name: &Sp<String>,
    form: Family,
    of: RecordOf<'_>,
) -> Option<String> {
    match (form, cx.string(file, t, "key")) {
        (Family::Map, key) => Some(key.map_or_else(|| name.value.clone(), |k| k.value)),
        (_, Some(k)) => {
            cx.error(
                file,
                k.span,
                format!(
                    "`key` does not apply to the entries of {}: it is an array, whose entries have no keys",
                    of.what()
                ),
            );
            None
        }
        (_, None) => None,
    }
}

/// Rule: no two entries of a map record have the same key.
fn check_key_unique(
    cx: &mut Ctx<'_, '_>,
    file: usize,
    t: &Table,
    name: &Sp<String>,
    key: &str,
    earlier: &[CheckedEntry],
) {
    if earlier.iter().any(|e| e.entry.key.as_deref() == Some(key)) {
        let at = t.get("key").map_or(name.span.clone(), |v| v.span.clone());
        cx.error(
            file,
            at,
            format!("duplicate key \"{key}\": an earlier entry of the map has it"),
        );
    }
}

/// Rule: optional entries trail: the header counts the entries present, so only the last ones
/// can be absent, and every entry after an optional one is optional too.
fn check_optional_entries_trail(cx: &mut Ctx<'_, '_>, entries: &[CheckedEntry]) {
    let Some(first) = entries.iter().position(|e| e.entry.optional) else {
        return;
    };
    for e in entries[first..].iter().filter(|e| !e.entry.optional) {
        cx.error(
            e.file,
            e.name_span.clone(),
            format!(
                "entry `{}` follows the optional entry `{}` but is not optional: the header counts entries, so only trailing entries can be absent",
                e.entry.name, entries[first].entry.name
            ),
        );
    }
}

/// Rule: `together_with` names an earlier optional entry, and is written on an optional one:
/// the two, and the entries between them, are present together or absent together. Records
/// the earlier entry's index in the model.
fn check_together_with_earlier_optional(cx: &mut Ctx<'_, '_>, entries: &mut [CheckedEntry]) {
    for j in 0..entries.len() {
        let Some(with) = entries[j].together_with.clone() else {
            continue;
        };
        let (file, name) = (entries[j].file, entries[j].entry.name.clone());
        let problem = match entries.iter().position(|e| e.entry.name == with.value) {
            None => Some(format!(
                "`together_with` names `{}`, which is not an entry of this record",
                with.value
            )),
            Some(i) if i >= j => Some(format!(
                "`together_with` names `{}`, which does not come before `{name}`: name the earlier entry on the later one",
                with.value
            )),
            Some(i) if !entries[i].entry.optional || !entries[j].entry.optional => Some(format!(
                "`together_with` joins optional entries, and `{}` is not optional: mark both `optional = true`",
                if entries[j].entry.optional { &with.value } else { &name }
            )),
            Some(i) => {
                entries[j].entry.together_with = Some(i);
                None
            }
        };
        if let Some(message) = problem {
            cx.error(file, with.span, message);
        }
    }
}

/// Rule: an optional entry is a field: a constant or a count is always present.
fn check_optional_entries_are_fields(cx: &mut Ctx<'_, '_>, entries: &[CheckedEntry]) {
    for e in entries.iter().filter(|e| e.entry.optional && !e.entry.is_field()) {
        cx.error(
            e.file,
            e.name_span.clone(),
            format!(
                "entry `{}` is optional, so it must be a field: a constant or a count is always present",
                e.entry.name
            ),
        );
    }
}

/// Rule: a fixed record header can state the number of entries: a fixarray or fixmap holds at
/// most 15, an array16 or map16 at most 65535.
fn check_header_holds_entries(cx: &mut Ctx<'_, '_>, c: &Container<'_>, total: usize, of: RecordOf<'_>) {
    let Encoding::Fixed(w) = c.encoding else { return };
    let max = w.max_len().unwrap_or(0) as usize;
    if total > max {
        let span = c.table.get("wire").map_or(c.span.clone(), |v| v.span.clone());
        cx.error(
            c.file,
            span,
            format!(
                "{} holds at most {max} entries, but {} has {total}",
                w.name(),
                of.what()
            ),
        );
    }
}

/// Rule: a record whose container is the schema's base's (an extending file with no
/// `[container]`) has the header the base's wire type writes for all its entries, base and
/// extending: the base's `marker` counts the base's entries only, and is not this record's. The
/// wire type must hold them all; the error is at `extends` in the main schema, which can state
/// a `[container]` of its own.
fn check_inherited_header_holds_entries(cx: &mut Ctx<'_, '_>, c: &Container<'_>, total: usize, extends: &Range<usize>) {
    let Encoding::Fixed(w) = c.encoding else { return };
    let max = w.max_len().unwrap_or(0) as usize;
    if total > max {
        let wider = if c.form == Family::Map { "map16" } else { "array16" };
        cx.error(
            0,
            extends.clone(),
            format!(
                "the base's container is {}, which holds at most {max} entries, but with this file's the record has {total}: add a [container] with `wire = \"{wider}\"`",
                w.name()
            ),
        );
    }
}

/// Rule: a fixed record header's `marker` is the one its wire type writes for the record: the
/// wire type's own marker, or for a fixarray or fixmap its first marker plus the number of
/// entries, which optional entries leave open.
fn check_container_marker(cx: &mut Ctx<'_, '_>, c: &Container<'_>, required: usize, total: usize, of: RecordOf<'_>) {
    let Encoding::Fixed(w) = c.encoding else { return };
    let Some(m) = cx.integer(c.file, c.table, "marker") else {
        return;
    };
    let problem = match w.marker() {
        Some(single) if m.value != i128::from(single) => Some(format!(
            "marker {} does not belong to {}: its marker is {}",
            hex(m.value),
            w.name(),
            hex(single.into())
        )),
        Some(_) => None,
        None => fix_marker_problem(w, m.value, required, total, &of.what()),
    };
    if let Some(message) = problem {
        cx.error(c.file, m.span, message);
    }
}

/// What is wrong with the marker `m` of a fixarray or fixmap container `what` of `required`
/// to `total` entries, if anything.
fn fix_marker_problem(w: Wire, m: i128, required: usize, total: usize, what: &str) -> Option<String> {
    let (first, last) = (i128::from(w.markers().0), i128::from(w.markers().1));
    let expected = first + total as i128;
    if required < total {
        Some(format!(
            "container marker {} fixes the number of entries, but the optional entries make it {required}..={total}: leave `marker` out, and the header states how many are present",
            hex(m)
        ))
    } else if m < first || m > last {
        Some(format!(
            "container marker {} does not belong to {} ({first:#04x}..={last:#04x}): for {total} entries it is {}",
            hex(m),
            w.name(),
            hex(expected)
        ))
    } else if m != expected {
        Some(format!(
            "container marker {} states {} entries, but {what} has {total}",
            hex(m),
            m - first
        ))
    } else {
        None
    }
}

/// Rule: a canonical record header (array, map) has no `marker`: it follows from the number of
/// entries.
fn check_no_marker_on_canonical(cx: &mut Ctx<'_, '_>, c: &Container<'_>) {
    if let (Encoding::Canonical { .. }, Some(m)) = (c.encoding, c.table.get("marker")) {
        cx.error(
            c.file,
            m.span.clone(),
            format!(
                "`marker` does not apply to {}: its header follows from the number of entries",
                c.wire.value
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::check::testing::{at, problems, problems3};

    /// A record of one int entry in a container of wire type `wire`, with `extra` lines in
    /// `[container]` (line 3 on).
    fn container(wire: &str, extra: &str) -> String {
        format!("[container]\nwire = \"{wire}\"\n{extra}[[entry]]\nname = \"a\"\nwire = \"int\"\n")
    }

    #[test]
    fn check_record_wire() {
        assert_eq!(
            problems(&container("str", "")),
            [at(
                2,
                8,
                "the container is a record: its wire is fixarray, array16, array32, array, fixmap, map16, map32 or map, not `str` (a single value goes in [value])"
            )]
        );
        assert_eq!(
            problems("[container]\n[[entry]]\nname = \"a\"\nwire = \"int\"\n"),
            [at(
                1,
                1,
                "the container needs `wire`: fixarray, array16, array32, array, fixmap, map16, map32 or map"
            )]
        );
        let ty = "[value]\ntype = \"t\"\n[types.t]\nwire = \"int\"\n[[types.t.entry]]\nname = \"a\"\nwire = \"int\"\n";
        assert_eq!(
            problems(ty),
            [at(
                4,
                8,
                "type `t` is a record: its wire is fixarray, array16, array32, array, fixmap, map16, map32 or map, not `int` (a single value goes in [value])"
            )]
        );
        for wire in [
            "fixarray", "array16", "array32", "array", "fixmap", "map16", "map32", "map",
        ] {
            assert_eq!(problems(&container(wire, "")), [], "{wire}");
        }
    }

    #[test]
    fn record_keys() {
        let ty = "[value]\ntype = \"a\"\n[types.a]\nwire = \"fixarray\"\ncount = 1\n[[types.a.entry]]\nname = \"x\"\nwire = \"int\"\n";
        assert_eq!(
            problems(ty),
            [at(
                5,
                1,
                "unknown key `count` in type `a`; expected one of: wire, marker, lenient, entry, doc"
            )]
        );
        let ty = "[value]\ntype = \"a\"\n[types.a]\nwire = \"fixarray\"\ndoc = \"A point\"\n[[types.a.entry]]\nname = \"x\"\nwire = \"int\"\n";
        assert_eq!(problems(ty), []);
    }

    #[test]
    fn check_lenient_on_canonical() {
        assert_eq!(
            problems(&container("fixmap", "lenient = true\n")),
            [at(
                3,
                11,
                "`lenient` does not apply to fixmap: it is for canonical encodings (array, map)"
            )]
        );
        assert_eq!(problems(&container("map", "lenient = true\n")), []);
    }

    #[test]
    fn check_entry_named() {
        assert_eq!(
            problems("[container]\nwire = \"fixarray\"\n[[entry]]\nwire = \"int\"\n"),
            [at(3, 1, "[[entry]] needs `name`")]
        );
        assert_eq!(
            problems("[container]\nwire = \"fixarray\"\n[[entry]]\nname = 1\nwire = \"int\"\n"),
            [at(4, 8, "expected a string for `name`, found an integer")]
        );
    }

    #[test]
    fn check_entry_name_unique() {
        let body = "[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"a\"\nwire = \"int\"\n[[entry]]\nname = \"a\"\nwire = \"str\"\n";
        assert_eq!(
            problems(body),
            [at(7, 8, "duplicate entry name `a`: an earlier entry has it")]
        );
        assert_eq!(
            problems(&body.replace("name = \"a\"\nwire = \"str\"", "name = \"b\"\nwire = \"str\"")),
            []
        );
    }

    #[test]
    fn check_key_in_map_record() {
        let body = "[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"a\"\nkey = \"A\"\nwire = \"int\"\n";
        assert_eq!(
            problems(body),
            [at(
                5,
                7,
                "`key` does not apply to the entries of the container: it is an array, whose entries have no keys"
            )]
        );
        assert_eq!(problems(&body.replace("fixarray", "fixmap")), []);
    }

    #[test]
    fn check_key_unique() {
        // `b`'s key is `a`'s name, which is `a`'s key.
        let body = "[container]\nwire = \"fixmap\"\n[[entry]]\nname = \"a\"\nwire = \"int\"\n[[entry]]\nname = \"b\"\nkey = \"a\"\nwire = \"int\"\n";
        assert_eq!(
            problems(body),
            [at(8, 7, "duplicate key \"a\": an earlier entry of the map has it")]
        );
        // Without a `key`, the name is the key: the place is the name's.
        let body = "[container]\nwire = \"fixmap\"\n[[entry]]\nname = \"a\"\nkey = \"b\"\nwire = \"int\"\n[[entry]]\nname = \"b\"\nwire = \"int\"\n";
        assert_eq!(
            problems(body),
            [at(8, 8, "duplicate key \"b\": an earlier entry of the map has it")]
        );
        let body = "[container]\nwire = \"fixmap\"\n[[entry]]\nname = \"a\"\nkey = \"b\"\nwire = \"int\"\n[[entry]]\nname = \"b\"\nkey = \"a\"\nwire = \"int\"\n";
        assert_eq!(problems(body), []);
    }

    #[test]
    fn check_optional_entries_trail() {
        let body = "[container]\nwire = \"array\"\n[[entry]]\nname = \"a\"\nwire = \"int\"\noptional = true\n[[entry]]\nname = \"b\"\nwire = \"int\"\n";
        assert_eq!(
            problems(body),
            [at(
                8,
                8,
                "entry `b` follows the optional entry `a` but is not optional: the header counts entries, so only trailing entries can be absent"
            )]
        );
        let body = "[container]\nwire = \"array\"\n[[entry]]\nname = \"a\"\nwire = \"int\"\n[[entry]]\nname = \"b\"\nwire = \"int\"\noptional = true\n[[entry]]\nname = \"c\"\nwire = \"int\"\noptional = true\n";
        assert_eq!(problems(body), []);
    }

    #[test]
    fn check_optional_entries_are_fields() {
        let body =
            "[container]\nwire = \"array\"\n[[entry]]\nname = \"a\"\nwire = \"int\"\nconst = 1\noptional = true\n";
        assert_eq!(
            problems(body),
            [at(
                4,
                8,
                "entry `a` is optional, so it must be a field: a constant or a count is always present"
            )]
        );
        // A count is always present too.
        let body = "[container]\nwire = \"array\"\n[[entry]]\nname = \"n\"\nwire = \"int\"\nmin = 0\nlength_of = [\"a\"]\noptional = true\n[[entry]]\nname = \"a\"\nwire = \"array\"\ncount = \"n\"\nelement = { wire = \"int\" }\noptional = true\n";
        assert_eq!(
            problems(body),
            [at(
                4,
                8,
                "entry `n` is optional, so it must be a field: a constant or a count is always present"
            )]
        );
        let body = "[container]\nwire = \"array\"\n[[entry]]\nname = \"a\"\nwire = \"int\"\noptional = true\n";
        assert_eq!(problems(body), []);
    }

    #[test]
    fn check_inherited_header_holds_entries() {
        use crate::check::testing::{HEAD, problems_in};
        // b2nd_v1's container is a fixarray of marker 0x97: extended by one entry, optional or
        // not, the header is 0x90 + 8, with no error in the built-in file.
        let one = |optional: &str| {
            format!("{HEAD}extends = \"b2nd_v1\"\n[[entry]]\nname = \"extra\"\nwire = \"int\"\n{optional}")
        };
        assert_eq!(problems_in(&one("")), []);
        assert_eq!(problems_in(&one("optional = true\n")), []);
        let layout = crate::parse("x", &one("")).expect("checks");
        assert_eq!(layout.fixed_prefix()[0], (0x98, 0x98));
        // Nine more entries pass fixarray's 15: the error is at `extends`, with the fix.
        let many: String = (0..9)
            .map(|i| format!("[[entry]]\nname = \"e{i}\"\nwire = \"int\"\n"))
            .collect();
        assert_eq!(
            problems_in(&format!("{HEAD}extends = \"b2nd_v1\"\n{many}")),
            [at(
                5,
                11,
                "the base's container is fixarray, which holds at most 15 entries, but with this file's the record has 16: add a [container] with `wire = \"array16\"`"
            )]
        );
        let own = format!("{HEAD}extends = \"b2nd_v1\"\n[container]\nwire = \"array16\"\n{many}");
        assert_eq!(problems_in(&own), []);
    }

    #[test]
    fn check_together_with_earlier_optional() {
        // Lines 3..=6 `a`, 7..=11 `b`, 12.. `c`.
        let body = |b: &str, c: &str| {
            format!(
                "[container]\nwire = \"array\"\n[[entry]]\nname = \"a\"\nwire = \"int\"\n{b}[[entry]]\nname = \"b\"\nwire = \"int\"\noptional = true\n{c}[[entry]]\nname = \"c\"\nwire = \"str\"\noptional = true\n"
            )
        };
        assert_eq!(
            problems3(&body("", "together_with = \"c\"\n")),
            [at(
                10,
                17,
                "`together_with` names `c`, which does not come before `b`: name the earlier entry on the later one"
            )]
        );
        assert_eq!(
            problems3(&body("", "together_with = \"a\"\n")),
            [at(
                10,
                17,
                "`together_with` joins optional entries, and `a` is not optional: mark both `optional = true`"
            )]
        );
        assert_eq!(
            problems3(&body("", "together_with = \"z\"\n")),
            [at(
                10,
                17,
                "`together_with` names `z`, which is not an entry of this record"
            )]
        );
        let fine = format!("{}together_with = \"b\"\n", body("", ""));
        assert_eq!(problems3(&fine), []);
    }

    /// A record of `n` int entries in a container of wire type `wire`, with `extra` lines in
    /// `[container]`.
    fn entries(wire: &str, extra: &str, n: usize) -> String {
        let mut body = format!("[container]\nwire = \"{wire}\"\n{extra}");
        for i in 0..n {
            body.push_str(&format!("[[entry]]\nname = \"e{i}\"\nwire = \"int\"\n"));
        }
        body
    }

    #[test]
    fn check_header_holds_entries() {
        assert_eq!(
            problems(&entries("fixarray", "", 16)),
            [at(2, 8, "fixarray holds at most 15 entries, but the container has 16")]
        );
        assert_eq!(
            problems(&entries("fixmap", "", 16)),
            [at(2, 8, "fixmap holds at most 15 entries, but the container has 16")]
        );
        assert_eq!(problems(&entries("fixarray", "", 15)), []);
        assert_eq!(problems(&entries("array16", "", 16)), []);
    }

    #[test]
    fn check_container_marker() {
        assert_eq!(
            problems(&entries("fixarray", "marker = 0x93\n", 1)),
            [at(
                3,
                10,
                "container marker 0x93 states 3 entries, but the container has 1"
            )]
        );
        assert_eq!(
            problems(&entries("fixarray", "marker = 0xdc\n", 1)),
            [at(
                3,
                10,
                "container marker 0xdc does not belong to fixarray (0x90..=0x9f): for 1 entries it is 0x91"
            )]
        );
        assert_eq!(
            problems(&entries("map16", "marker = 0xdc\n", 1)),
            [at(3, 10, "marker 0xdc does not belong to map16: its marker is 0xde")]
        );
        let optional = "[container]\nwire = \"fixarray\"\nmarker = 0x92\n[[entry]]\nname = \"a\"\nwire = \"int\"\n[[entry]]\nname = \"b\"\nwire = \"int\"\noptional = true\n";
        assert_eq!(
            problems(optional),
            [at(
                3,
                10,
                "container marker 0x92 fixes the number of entries, but the optional entries make it 1..=2: leave `marker` out, and the header states how many are present"
            )]
        );
        assert_eq!(problems(&optional.replace("marker = 0x92\n", "")), []);
        assert_eq!(problems(&entries("fixarray", "marker = 0x92\n", 2)), []);
        assert_eq!(problems(&entries("map16", "marker = 0xde\n", 2)), []);
    }

    #[test]
    fn check_no_marker_on_canonical() {
        assert_eq!(
            problems(&entries("map", "marker = 0x81\n", 1)),
            [at(
                3,
                10,
                "`marker` does not apply to map: its header follows from the number of entries"
            )]
        );
        assert_eq!(problems(&entries("map", "", 1)), []);
    }
}
