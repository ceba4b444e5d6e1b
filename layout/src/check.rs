//! The spanned schema to a [`Layout`], refusing every schema that contradicts itself: markers
//! that do not belong to their wire type, widths that do not match, counts that name the wrong
//! entry, constants that do not fit, duplicate names, and array headers that leave the fixarray
//! range without a stated reason.

use core::ops::Range;

use crate::diagnostic::Diagnostic;
use crate::model::{Entry, EntryKind, IntRole, IntWire, Layout, StrWire};
use crate::parse::{RawElement, RawEntry, RawSchema, Sp};

/// The highest fixarray header byte; `0x90 + count` past it is not a msgpack array.
const FIXARRAY_LAST: i128 = 0x9f;

/// What an entry's wire type is, before roles are known.
#[derive(Debug, Clone, Copy)]
enum Wire {
    Int(IntWire),
    Str(StrWire),
    Array,
}

/// Keys that apply to each wire type (besides `name`, `wire` and `doc`).
fn applicable_keys(wire: Wire) -> &'static [&'static str] {
    match wire {
        Wire::Int(IntWire::FixInt) => &["const", "min", "max", "length_of"],
        Wire::Int(_) => &["marker", "width", "const", "min", "max", "length_of"],
        Wire::Str(_) => &["marker", "width"],
        Wire::Array => &["marker", "count", "element", "allow_header_overflow"],
    }
}

fn wire_names() -> String {
    let mut names: Vec<&str> = IntWire::ALL.iter().map(|w| w.name()).collect();
    names.extend(StrWire::ALL.iter().map(|w| w.name()));
    names.push("array");
    names.join(", ")
}

fn hex(v: i128) -> String {
    if v >= 0 { format!("{v:#04x}") } else { v.to_string() }
}

fn is_identifier(name: &str) -> bool {
    const KEYWORDS: &[&str] = &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false", "fn",
        "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self",
        "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while", "yield",
    ];
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && name != "_"
        && !KEYWORDS.contains(&name)
}

/// Checks the marker and width written for an integer wire type against the type.
fn check_int_marker(
    wire: IntWire,
    marker: Option<&Sp<i128>>,
    width: Option<&Sp<i128>>,
    owner_span: &Range<usize>,
    what: &str,
    diags: &mut Vec<Diagnostic>,
) {
    let Some(expected) = wire.marker() else {
        // A fixint's byte is its value: there is no marker or width to state.
        for (key, v) in [("marker", marker), ("width", width)] {
            if let Some(v) = v {
                diags.push(Diagnostic::new(
                    v.span.clone(),
                    format!("`{key}` does not apply to {what}: a positive fixint has no marker, its one byte (0x00..=0x7f) is the value"),
                ));
            }
        }
        return;
    };
    match marker {
        None => diags.push(Diagnostic::new(
            owner_span.clone(),
            format!("{what} needs `marker = {expected:#04x}` ({})", wire.name()),
        )),
        Some(m) if m.value != i128::from(expected) => diags.push(Diagnostic::new(
            m.span.clone(),
            format!(
                "marker {} does not belong to {}: its marker is {expected:#04x}",
                hex(m.value),
                wire.name()
            ),
        )),
        Some(_) => {}
    }
    match width {
        None => diags.push(Diagnostic::new(
            owner_span.clone(),
            format!(
                "{what} needs `width = {}` ({} payload bytes after the marker)",
                wire.width(),
                wire.name()
            ),
        )),
        Some(w) if w.value != wire.width() as i128 => diags.push(Diagnostic::new(
            w.span.clone(),
            format!(
                "width {} does not match marker {expected:#04x}: {} has {} payload bytes",
                w.value,
                wire.name(),
                wire.width()
            ),
        )),
        Some(_) => {}
    }
}

fn check_element(element: &RawElement, diags: &mut Vec<Diagnostic>) -> Option<IntWire> {
    let Some(wire_name) = &element.wire else {
        diags.push(Diagnostic::new(
            element.span.clone(),
            "an array's element needs `wire`, an integer wire type",
        ));
        return None;
    };
    let Some(wire) = IntWire::from_name(&wire_name.value) else {
        let message = if StrWire::from_name(&wire_name.value).is_some() || wire_name.value == "array" {
            format!("array elements must be integers, not {}", wire_name.value)
        } else {
            format!(
                "unknown element wire type `{}`; expected one of: {}",
                wire_name.value,
                IntWire::ALL.map(|w| w.name()).join(", ")
            )
        };
        diags.push(Diagnostic::new(wire_name.span.clone(), message));
        return None;
    };
    check_int_marker(
        wire,
        element.marker.as_ref(),
        element.width.as_ref(),
        &element.span,
        "the element",
        diags,
    );
    Some(wire)
}

/// Checks a parsed schema and builds its layout. `schema` is the schema's name (its file stem).
pub(crate) fn check(schema: &str, raw: RawSchema, diags: &mut Vec<Diagnostic>) -> Option<Layout> {
    let errors_before = diags.len();
    let doc_start = 0..0;

    let mut required = |value: Option<Sp<String>>, key: &str, span: &Option<Range<usize>>| -> String {
        match value {
            Some(v) => v.value,
            None => {
                diags.push(Diagnostic::new(
                    span.clone().unwrap_or(doc_start.clone()),
                    format!("[schema] needs `{key}`"),
                ));
                String::new()
            }
        }
    };
    let metalayer_span = raw.metalayer.as_ref().map(|m| m.span.clone());
    let metalayer = required(raw.metalayer.clone(), "metalayer", &raw.schema_span);
    let description = required(raw.description.clone(), "description", &raw.schema_span);
    let source = required(raw.source.clone(), "source", &raw.schema_span);
    if let Some(span) = metalayer_span {
        // c-blosc2 stores metalayer names as a fixstr of at most 31 bytes (BLOSC2_METALAYER_NAME_MAXLEN).
        if metalayer.is_empty() || metalayer.len() > 31 {
            diags.push(Diagnostic::new(span, "a metalayer name has 1 to 31 bytes"));
        }
    }

    // Entries: names, wire types, markers and widths.
    let mut wires: Vec<Option<Wire>> = Vec::with_capacity(raw.entries.len());
    for (i, entry) in raw.entries.iter().enumerate() {
        match &entry.name {
            None => diags.push(Diagnostic::new(entry.span.clone(), "an entry needs `name`")),
            Some(name) => {
                if !is_identifier(&name.value) {
                    diags.push(Diagnostic::new(
                        name.span.clone(),
                        format!("entry name `{}` is not a field name: use lowercase letters, digits and `_`, not a Rust keyword", name.value),
                    ));
                }
                let earlier = raw.entries[..i]
                    .iter()
                    .filter_map(|e| e.name.as_ref())
                    .find(|e| e.value == name.value);
                if earlier.is_some() {
                    diags.push(Diagnostic::new(
                        name.span.clone(),
                        format!("duplicate entry name `{}`: an earlier entry has it", name.value),
                    ));
                }
            }
        }
        wires.push(check_entry_wire(entry, diags));
    }

    // The container: a fixarray whose marker states the number of entries.
    let mut container_marker = 0u8;
    match &raw.container {
        None => diags.push(Diagnostic::new(0..0, "the schema needs a [container] table")),
        Some(c) => {
            match &c.wire {
                None => diags.push(Diagnostic::new(
                    c.span.clone(),
                    "[container] needs `wire = \"fixarray\"`",
                )),
                Some(w) if w.value != "fixarray" => diags.push(Diagnostic::new(
                    w.span.clone(),
                    format!(
                        "unknown container wire type `{}`; the only one is \"fixarray\"",
                        w.value
                    ),
                )),
                Some(_) => {}
            }
            let count = raw.entries.len() as i128;
            match &c.marker {
                None => diags.push(Diagnostic::new(
                    c.span.clone(),
                    format!(
                        "[container] needs `marker = {}` (0x90 + {count} entries)",
                        hex(0x90 + count)
                    ),
                )),
                Some(m) if !(0x90..=FIXARRAY_LAST).contains(&m.value) => diags.push(Diagnostic::new(
                    m.span.clone(),
                    format!(
                        "container marker {} does not belong to fixarray (0x90..=0x9f): for {count} entries it is {}",
                        hex(m.value),
                        hex(0x90 + count)
                    ),
                )),
                Some(m) if m.value != 0x90 + count => diags.push(Diagnostic::new(
                    m.span.clone(),
                    format!(
                        "container marker {} states {} entries, but the schema has {count}",
                        hex(m.value),
                        m.value - 0x90
                    ),
                )),
                Some(m) => container_marker = m.value as u8,
            }
        }
    }
    if raw.entries.is_empty() {
        diags.push(Diagnostic::new(0..0, "the schema needs at least one [[entry]]"));
    }

    // Roles: constants, value ranges and counts.
    let names: Vec<Option<&str>> = raw
        .entries
        .iter()
        .map(|e| e.name.as_ref().map(|n| n.value.as_str()))
        .collect();
    let index_of = |name: &str| names.iter().position(|n| *n == Some(name));
    let mut entries = Vec::with_capacity(raw.entries.len());
    for (i, entry) in raw.entries.iter().enumerate() {
        let Some(wire) = wires[i] else { continue };
        let kind = match wire {
            Wire::Str(wire) => EntryKind::Str { wire },
            Wire::Int(wire) => EntryKind::Int {
                wire,
                role: check_role(entry, wire, i, &raw, &wires, diags),
            },
            Wire::Array => {
                let count = check_count_ref(entry, i, &index_of, &wires, diags);
                let element = entry.element.as_ref().and_then(|e| check_element(e, diags));
                if entry.element.is_none() {
                    diags.push(Diagnostic::new(
                        entry.span.clone(),
                        "an array entry needs `element = { wire = ..., marker = ..., width = ... }`",
                    ));
                }
                if let Some(count) = count {
                    check_header_range(entry, &raw.entries[count], diags);
                }
                match (count, element) {
                    (Some(count), Some(element)) => EntryKind::Array {
                        element,
                        count,
                        header_overflow: entry.allow_header_overflow.as_ref().map(|r| r.value.clone()),
                    },
                    _ => continue,
                }
            }
        };
        entries.push(Entry {
            name: entry.name.as_ref().map(|n| n.value.clone()).unwrap_or_default(),
            kind,
            doc: entry.doc.as_ref().map(|d| d.value.clone()),
            span: entry.span.clone(),
        });
    }

    if diags.len() > errors_before {
        return None;
    }
    Some(Layout {
        schema: schema.to_string(),
        metalayer,
        description,
        source,
        container_marker,
        entries,
    })
}

fn check_entry_wire(entry: &RawEntry, diags: &mut Vec<Diagnostic>) -> Option<Wire> {
    let Some(wire_name) = &entry.wire else {
        diags.push(Diagnostic::new(
            entry.span.clone(),
            format!("an entry needs `wire`, one of: {}", wire_names()),
        ));
        return None;
    };
    let wire = if let Some(w) = IntWire::from_name(&wire_name.value) {
        Wire::Int(w)
    } else if let Some(w) = StrWire::from_name(&wire_name.value) {
        Wire::Str(w)
    } else if wire_name.value == "array" {
        Wire::Array
    } else {
        diags.push(Diagnostic::new(
            wire_name.span.clone(),
            format!(
                "unknown wire type `{}`; expected one of: {}",
                wire_name.value,
                wire_names()
            ),
        ));
        return None;
    };
    let applicable = applicable_keys(wire);
    for key in &entry.keys {
        let k = key.value.as_str();
        if !matches!(k, "name" | "wire" | "doc") && !applicable.contains(&k) && crate::parse::ENTRY_KEYS.contains(&k) {
            diags.push(Diagnostic::new(
                key.span.clone(),
                format!("`{k}` does not apply to {} entries", wire_name.value),
            ));
        }
    }
    let what = format!("{} entry", wire_name.value);
    match wire {
        Wire::Int(w) => check_int_marker(w, entry.marker.as_ref(), entry.width.as_ref(), &entry.span, &what, diags),
        Wire::Str(w) => {
            let as_int = |m: &Option<Sp<i128>>| m.clone();
            match as_int(&entry.marker) {
                None => diags.push(Diagnostic::new(
                    entry.span.clone(),
                    format!("{what} needs `marker = {:#04x}`", w.marker()),
                )),
                Some(m) if m.value != i128::from(w.marker()) => diags.push(Diagnostic::new(
                    m.span,
                    format!("marker {} does not belong to {}: its marker is {:#04x}", hex(m.value), w.name(), w.marker()),
                )),
                Some(_) => {}
            }
            match as_int(&entry.width) {
                None => diags.push(Diagnostic::new(
                    entry.span.clone(),
                    format!("{what} needs `width = {}` (bytes of the length prefix)", w.width()),
                )),
                Some(width) if width.value != w.width() as i128 => diags.push(Diagnostic::new(
                    width.span,
                    format!(
                        "width {} does not match marker {:#04x}: {} has a {}-byte length prefix",
                        width.value,
                        w.marker(),
                        w.name(),
                        w.width()
                    ),
                )),
                Some(_) => {}
            }
        }
        Wire::Array => match &entry.marker {
            None => diags.push(Diagnostic::new(
                entry.span.clone(),
                "array entry needs `marker = 0x90`: its header byte is 0x90 + count",
            )),
            Some(m) if m.value != 0x90 => diags.push(Diagnostic::new(
                m.span.clone(),
                format!(
                    "marker {} does not belong to array: an array header is 0x90 + count (c-blosc2's arithmetic), so its marker is 0x90",
                    hex(m.value)
                ),
            )),
            Some(_) => {}
        },
    }
    Some(wire)
}

fn check_role(
    entry: &RawEntry,
    wire: IntWire,
    index: usize,
    raw: &RawSchema,
    wires: &[Option<Wire>],
    diags: &mut Vec<Diagnostic>,
) -> IntRole {
    let (lo, hi) = wire.range();
    let fits = |v: &Sp<i128>, key: &str, diags: &mut Vec<Diagnostic>| -> bool {
        if v.value < lo || v.value > hi {
            diags.push(Diagnostic::new(
                v.span.clone(),
                format!("{key} {} does not fit {} ({lo}..={hi})", v.value, wire.name()),
            ));
            return false;
        }
        true
    };
    let name = entry.name.as_ref().map_or("", |n| n.value.as_str());

    if let Some(c) = &entry.constant {
        for other in [&entry.min, &entry.max].into_iter().flatten() {
            diags.push(Diagnostic::new(other.span.clone(), "a constant takes no min or max"));
        }
        if let Some(l) = &entry.length_of {
            diags.push(Diagnostic::new(
                l.span.clone(),
                "a constant cannot be the length of an array",
            ));
        }
        fits(c, "constant", diags);
        return IntRole::Const { value: c.value };
    }

    let mut min = lo;
    let mut max = hi;
    if let Some(m) = &entry.min
        && fits(m, "min", diags)
    {
        min = m.value;
    }
    if let Some(m) = &entry.max
        && fits(m, "max", diags)
    {
        max = m.value;
    }
    if min > max {
        let span = entry
            .max
            .as_ref()
            .or(entry.min.as_ref())
            .map_or(entry.span.clone(), |m| m.span.clone());
        diags.push(Diagnostic::new(span, format!("min {min} is greater than max {max}")));
    }

    // The arrays that name this entry as their count.
    let counted: Vec<usize> = raw
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| e.count.as_ref().is_some_and(|c| c.value == name))
        .map(|(i, _)| i)
        .collect();
    let Some(length_of) = &entry.length_of else {
        if let Some(&first) = counted
            .iter()
            .find(|&&a| a > index && matches!(wires[a], Some(Wire::Array)))
        {
            let array = raw.entries[first].name.as_ref().map_or("", |n| n.value.as_str());
            diags.push(Diagnostic::new(
                entry.span.clone(),
                format!("array `{array}` is counted by `{name}`, but `{name}` has no `length_of`: add `length_of = [\"{array}\"]`"),
            ));
        }
        return IntRole::Value { min, max };
    };

    if length_of.value.is_empty() {
        diags.push(Diagnostic::new(
            length_of.span.clone(),
            "`length_of` must name at least one array",
        ));
    }
    let is_entry = |name: &str| {
        raw.entries
            .iter()
            .any(|e| e.name.as_ref().is_some_and(|n| n.value == name))
    };
    for listed in &length_of.value {
        let target = raw
            .entries
            .iter()
            .position(|e| e.name.as_ref().is_some_and(|n| n.value == listed.value));
        match target {
            None => diags.push(Diagnostic::new(
                listed.span.clone(),
                format!("`length_of` names `{}`, which is not an entry", listed.value),
            )),
            // An array whose `count` names no entry is reported at its count; not again here.
            Some(t) if raw.entries[t].count.as_ref().is_some_and(|c| !is_entry(&c.value)) => {}
            Some(t) if !counted.contains(&t) => diags.push(Diagnostic::new(
                listed.span.clone(),
                format!("`length_of` names `{}`, but its `count` is not `{name}`", listed.value),
            )),
            Some(_) => {}
        }
    }
    for &a in &counted {
        let array = raw.entries[a].name.as_ref().map_or("", |n| n.value.as_str());
        if a > index && !length_of.value.iter().any(|l| l.value == array) {
            diags.push(Diagnostic::new(
                length_of.span.clone(),
                format!("array `{array}` is counted by `{name}`, but `length_of` does not list it"),
            ));
        }
    }
    if min < 0 {
        let span = entry.min.as_ref().map_or(entry.span.clone(), |m| m.span.clone());
        diags.push(Diagnostic::new(
            span,
            format!("`{name}` is a length, so its min cannot be negative"),
        ));
    }
    if entry.max.is_none() {
        diags.push(Diagnostic::new(
            entry.span.clone(),
            format!("`{name}` is a length and needs a `max`: it bounds the arrays and their header bytes"),
        ));
    }
    let arrays = length_of
        .value
        .iter()
        .filter_map(|l| {
            raw.entries
                .iter()
                .position(|e| e.name.as_ref().is_some_and(|n| n.value == l.value))
        })
        .collect();
    IntRole::Count {
        min: min.clamp(0, usize::MAX as i128) as usize,
        max: max.clamp(0, usize::MAX as i128) as usize,
        arrays,
    }
}

/// Resolves an array's `count`: an earlier integer entry.
fn check_count_ref(
    entry: &RawEntry,
    index: usize,
    index_of: &dyn Fn(&str) -> Option<usize>,
    wires: &[Option<Wire>],
    diags: &mut Vec<Diagnostic>,
) -> Option<usize> {
    let Some(count) = &entry.count else {
        diags.push(Diagnostic::new(
            entry.span.clone(),
            "an array entry needs `count`: the name of an earlier integer entry that holds its length",
        ));
        return None;
    };
    let Some(target) = index_of(&count.value) else {
        diags.push(Diagnostic::new(
            count.span.clone(),
            format!("count `{}` is not an entry of this schema", count.value),
        ));
        return None;
    };
    if target >= index {
        diags.push(Diagnostic::new(
            count.span.clone(),
            format!(
                "count `{}` comes after this array: a decoder must read the length before the elements",
                count.value
            ),
        ));
        return None;
    }
    match wires[target] {
        Some(Wire::Int(_)) => Some(target),
        Some(Wire::Str(w)) => {
            diags.push(Diagnostic::new(
                count.span.clone(),
                format!("count `{}` is a {} entry, not an integer", count.value, w.name()),
            ));
            None
        }
        Some(Wire::Array) => {
            diags.push(Diagnostic::new(
                count.span.clone(),
                format!("count `{}` is an array entry, not an integer", count.value),
            ));
            None
        }
        None => None,
    }
}

/// The header byte is `0x90 + count`. Past 0x9f it is no longer a msgpack fixarray (c-blosc2
/// writes 0xa0 for 16 dimensions); past 0xff it no longer fits a byte.
fn check_header_range(entry: &RawEntry, count_entry: &RawEntry, diags: &mut Vec<Diagnostic>) {
    let count_name = count_entry.name.as_ref().map_or("", |n| n.value.as_str());
    let wire = count_entry.wire.as_ref().and_then(|w| IntWire::from_name(&w.value));
    let Some(wire) = wire else { return };
    let max = count_entry.max.as_ref().map_or(wire.range().1, |m| m.value);
    let highest = 0x90 + max;
    let span = entry.count.as_ref().map_or(entry.span.clone(), |c| c.span.clone());
    if highest > 0xff {
        diags.push(Diagnostic::new(
            span,
            format!(
                "array header 0x90 + {count_name} does not fit a byte for {count_name} up to {max}: lower `{count_name}`'s max to at most 111"
            ),
        ));
        return;
    }
    match &entry.allow_header_overflow {
        None if highest > FIXARRAY_LAST => diags.push(Diagnostic::new(
            span,
            format!(
                "array header 0x90 + {count_name} reaches {} for {count_name} = {max}, past fixarray's 0x9f, which is not msgpack; lower `{count_name}`'s max to 15, or keep it and state why with `allow_header_overflow = \"...\"`",
                hex(highest)
            ),
        )),
        Some(reason) if highest <= FIXARRAY_LAST => diags.push(Diagnostic::new(
            reason.span.clone(),
            format!("`allow_header_overflow` is set, but the header never leaves the fixarray range ({count_name} is at most {max})"),
        )),
        Some(reason) if reason.value.trim().is_empty() => diags.push(Diagnostic::new(
            reason.span.clone(),
            "`allow_header_overflow` must state why the layout leaves the fixarray range",
        )),
        _ => {}
    }
}
