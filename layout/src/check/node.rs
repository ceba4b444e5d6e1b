//! A value's node: a wire type with the keys it takes, or a named record type.

use core::ops::Range;
use std::collections::HashMap;

use super::{Ctx, NODE_KEYS, hex, wire_names};
use crate::model::{
    ArrayType, BinType, Count, Encoding, ExtType, Family, IntType, Layout, MapType, Node, StrType, Type, Wire,
};
use crate::parse::{Sp, Table, Val};

/// Checking nodes, with the names of the schema's types for `type = "..."`.
pub(super) struct NodeCx<'n> {
    type_names: &'n TypeNames,
    /// How many arrays or maps enclose the node being checked, within its entry.
    nesting: usize,
    /// The `count = "<entry>"` of nested arrays and maps, in the order found, for the record
    /// to resolve.
    pub(super) nested: Vec<NestedCount>,
}

/// The names of a schema's record types in the order of their indices in [`Layout::types`],
/// with each one's index: a schema's thousandth type is found at once.
pub(super) struct TypeNames {
    names: Vec<String>,
    index: HashMap<String, usize>,
}

impl TypeNames {
    /// The names, in the order of their indices; the first of a name defined twice counts.
    pub(super) fn new(names: Vec<String>) -> Self {
        let mut index = HashMap::with_capacity(names.len());
        for (i, name) in names.iter().enumerate() {
            index.entry(name.clone()).or_insert(i);
        }
        TypeNames { names, index }
    }

    /// How many there are.
    pub(super) fn len(&self) -> usize {
        self.names.len()
    }

    /// The index of type `name`.
    pub(super) fn get(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// The names for a message: all of them, or the first ten and how many more.
    fn listed(&self) -> String {
        const SHOWN: usize = 10;
        match self.names.len() {
            0 => "none".to_string(),
            n if n <= SHOWN => self.names.join(", "),
            n => format!("{}, and {} more", self.names[..SHOWN].join(", "), n - SHOWN),
        }
    }
}

/// A nested array's or map's `count = "<entry>"`: the count's name, and the file and span of
/// the node that states it.
pub(super) struct NestedCount {
    pub(super) file: usize,
    pub(super) name: Sp<String>,
    pub(super) node: Range<usize>,
}

/// The wire type a node states.
struct NodeWire {
    /// As written.
    name: Sp<String>,
    family: Family,
    /// The fixed wire type, or `None` for a family's canonical encoding.
    fixed: Option<Wire>,
    /// A timestamp (`timestamp`, `timestamp32`...), of family ext.
    timestamp: bool,
}

impl NodeWire {
    /// Whether the marker follows from the value (`int`, `str`, ...; not `nil` or `bool`, which
    /// have one wire type each).
    fn canonical(&self) -> bool {
        self.fixed.is_none() && !matches!(self.family, Family::Nil | Family::Bool)
    }
}

/// Keys each family's node takes besides `wire`; a timestamp's are its own.
fn node_keys(wire: &NodeWire) -> &'static [&'static str] {
    if wire.timestamp {
        return if wire.canonical() { &["lenient"] } else { &[] };
    }
    match (wire.family, wire.canonical()) {
        (Family::Nil | Family::Bool, _) => &[],
        (Family::Int, false) => &["marker", "width", "min", "max", "values"],
        (Family::Int, true) => &["min", "max", "values", "lenient"],
        (Family::Float, _) => &["marker", "width"],
        (Family::Str, false) => &["marker", "width", "raw", "len"],
        (Family::Str, true) => &["raw", "lenient", "len"],
        (Family::Bin, false) => &["marker", "width", "len"],
        (Family::Bin, true) => &["lenient", "len"],
        (Family::Ext, false) => &["marker", "width", "ext_type"],
        (Family::Ext, true) => &["ext_type", "lenient"],
        (Family::Array, false) => &["marker", "width", "count", "element", "allow_header_overflow"],
        (Family::Array, true) => &["count", "element", "lenient"],
        (Family::Map, false) => &["marker", "width", "count", "key_type", "value_type"],
        (Family::Map, true) => &["count", "key_type", "value_type", "lenient"],
    }
}

impl<'n> NodeCx<'n> {
    /// Checking nodes of a schema whose record types are `type_names`.
    pub(super) fn new(type_names: &'n TypeNames) -> Self {
        NodeCx {
            type_names,
            nesting: 0,
            nested: Vec::new(),
        }
    }

    /// Checks a node table: `wire` (or `type`) and the keys of its family. `what` names the
    /// node in messages (``entry `shape` ``, `the value`).
    pub(super) fn node(
        &mut self,
        cx: &mut Ctx<'_, '_>,
        file: usize,
        t: &Table,
        span: Range<usize>,
        what: &str,
    ) -> Option<Node> {
        if let Some(name) = cx.string(file, t, "type") {
            check_type_states_layout(cx, file, t, what);
            let i = self.check_type_defined(cx, file, &name)?;
            return Some(Node {
                ty: Type::Ref(i),
                span,
                file,
            });
        }
        let wire = check_node_wire(cx, file, t, &span, what)?;
        check_node_keys_apply(cx, file, t, &wire);
        let lenient = cx.flag(file, t, "lenient");
        let encoding = match wire.fixed {
            Some(w) if !wire.timestamp => {
                check_marker_of_wire(cx, file, t, w);
                check_width_of_wire(cx, file, t, w);
                Encoding::Fixed(w)
            }
            Some(w) => Encoding::Fixed(w),
            None => Encoding::Canonical { lenient },
        };
        let ty = match wire.family {
            Family::Nil => Type::Nil,
            Family::Bool => Type::Bool,
            Family::Int => Type::Int(int(cx, file, t, encoding)),
            Family::Float => Type::Float(wire.fixed.unwrap_or(Wire::Float64)),
            Family::Str => Type::Str(StrType {
                encoding,
                raw: cx.flag(file, t, "raw"),
                len: check_fixed_len(cx, file, t, encoding),
            }),
            Family::Bin => Type::Bin(BinType {
                encoding,
                len: check_fixed_len(cx, file, t, encoding),
            }),
            Family::Ext if wire.timestamp => Type::Ext(ExtType {
                encoding,
                ext_type: Some(metalayer_runtime::TIMESTAMP_EXT_TYPE),
                timestamp: true,
            }),
            Family::Ext => Type::Ext(ExtType {
                encoding,
                ext_type: check_ext_type_fits_byte(cx, file, t),
                timestamp: false,
            }),
            Family::Array => self.array(cx, file, t, &span, encoding, what)?,
            Family::Map => self.map(cx, file, t, &span, encoding, what)?,
        };
        Some(Node { ty, span, file })
    }

    /// Rule: a named type is defined: `[types.<name>]` in the schema or a file it includes.
    /// The type's index.
    fn check_type_defined(&self, cx: &mut Ctx<'_, '_>, file: usize, name: &Sp<String>) -> Option<usize> {
        let found = self.type_names.get(&name.value);
        if found.is_none() {
            let known = self.type_names.listed();
            cx.error(
                file,
                name.span.clone(),
                format!("type `{}` is not defined; the schema's types are: {known}", name.value),
            );
        }
        found
    }

    /// An array node: its count, its element, and why its header may pass fixarray's.
    fn array(
        &mut self,
        cx: &mut Ctx<'_, '_>,
        file: usize,
        t: &Table,
        span: &Range<usize>,
        header: Encoding,
        what: &str,
    ) -> Option<Type> {
        let count = check_fixed_count(cx, file, t, header);
        self.note_nested_count(cx, file, t, span);
        let (el, el_span) = check_array_has_element(cx, file, t, span, what)?;
        cx.check_known_keys(file, el, "an array's element", NODE_KEYS);
        self.nesting += 1;
        let element = self.node(cx, file, el, el_span, &format!("the element of {what}"));
        self.nesting -= 1;
        let element = element?;
        let header_overflow = check_header_overflow_reason(cx, file, t, span);
        self.check_no_header_overflow_nested(cx, file, t);
        Some(Type::Array(ArrayType {
            header,
            count,
            element: Box::new(element),
            header_overflow,
        }))
    }

    /// A map node: its key and value types and its count.
    fn map(
        &mut self,
        cx: &mut Ctx<'_, '_>,
        file: usize,
        t: &Table,
        span: &Range<usize>,
        header: Encoding,
        what: &str,
    ) -> Option<Type> {
        let count = check_fixed_count(cx, file, t, header);
        self.note_nested_count(cx, file, t, span);
        self.nesting += 1;
        let key = self.check_map_has_part(cx, file, t, span, "key_type", what);
        let value = self.check_map_has_part(cx, file, t, span, "value_type", what);
        self.nesting -= 1;
        Some(Type::Map(MapType {
            header,
            count,
            key: Box::new(key?),
            value: Box::new(value?),
        }))
    }

    /// A nested array's or map's `count = "<entry>"` (language 3), kept for its record to
    /// check; an entry's own count is the record's to read.
    fn note_nested_count(&mut self, cx: &mut Ctx<'_, '_>, file: usize, t: &Table, span: &Range<usize>) {
        let Some(Sp {
            value: Val::Str(name),
            span: name_span,
        }) = t.get("count")
        else {
            return;
        };
        if self.nesting == 0 {
            return;
        }
        cx.check_language(file, name_span.clone(), "a nested array's `count`");
        self.nested.push(NestedCount {
            file,
            name: Sp {
                value: name.clone(),
                span: name_span.clone(),
            },
            node: span.clone(),
        });
    }

    /// Rule: `allow_header_overflow` is for an entry's own fixarray, counted by an earlier
    /// entry (c-blosc2's shapes); an array nested in an entry or in a single value has a
    /// msgpack header, and the key would be ignored there.
    fn check_no_header_overflow_nested(&self, cx: &mut Ctx<'_, '_>, file: usize, t: &Table) {
        if self.nesting == 0 {
            return;
        }
        if let Some(span) = t.key_span("allow_header_overflow") {
            cx.error(
                file,
                span,
                "`allow_header_overflow` applies to an entry's own fixarray counted by an earlier entry, not to an array nested in a value",
            );
        }
    }

    /// Checks the top-level value of a `[value]` schema, whose arrays and maps have no record
    /// to be counted by.
    pub(super) fn single_value(
        &mut self,
        cx: &mut Ctx<'_, '_>,
        file: usize,
        t: &Table,
        span: Range<usize>,
    ) -> Option<Node> {
        self.nesting = 1;
        let node = self.node(cx, file, t, span, "the value");
        self.nesting = 0;
        for n in self.nested.drain(..) {
            cx.error(
                n.file,
                n.name.span,
                format!(
                    "count `{}` is not an entry: a single value has no entries to count it",
                    n.name.value
                ),
            );
        }
        node
    }

    /// Rule: a map states the type of its keys (`key_type`) and of its values (`value_type`); a
    /// map with fixed keys is a record, a named type. The node at `part`, one of the two.
    fn check_map_has_part(
        &mut self,
        cx: &mut Ctx<'_, '_>,
        file: usize,
        t: &Table,
        span: &Range<usize>,
        part: &str,
        what: &str,
    ) -> Option<Node> {
        let Some((pt, pspan)) = cx.table(file, t, part) else {
            if t.get(part).is_none() {
                cx.error(
                    file,
                    span.clone(),
                    format!(
                        "{what} is a map and needs `key_type` and `value_type`; a map with fixed keys is a record: name a type (`type = \"...\"`)"
                    ),
                );
            }
            return None;
        };
        cx.check_known_keys(file, pt, part, NODE_KEYS);
        self.node(cx, file, pt, pspan, &format!("the {part} of {what}"))
    }
}

/// Rule: a node that names a record type (`type = "..."`) states nothing else: the type states
/// its layout, so `wire` and the other node keys do not apply.
fn check_type_states_layout(cx: &mut Ctx<'_, '_>, file: usize, t: &Table, what: &str) {
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
}

/// Rule: a node states its wire type (or names a record type), and the wire type is known: a
/// msgpack wire type (`int64`, `fixarray`) or a family (`int`, `array`) for its canonical
/// encoding.
fn check_node_wire(cx: &mut Ctx<'_, '_>, file: usize, t: &Table, span: &Range<usize>, what: &str) -> Option<NodeWire> {
    let Some(name) = cx.string(file, t, "wire") else {
        if t.get("wire").is_none() {
            cx.error(
                file,
                span.clone(),
                format!("{what} needs `wire` (or `type`, naming a record type)"),
            );
        }
        return None;
    };
    if let Some((_, fixed)) = ExtType::TIMESTAMP_WIRES.iter().find(|(n, _)| *n == name.value) {
        cx.check_language(file, name.span.clone(), &format!("`{}`", name.value));
        return Some(NodeWire {
            name,
            family: Family::Ext,
            fixed: *fixed,
            timestamp: true,
        });
    }
    let (family, fixed) = match (Wire::from_name(&name.value), Family::from_name(&name.value)) {
        (Some(w), _) => (w.family(), Some(w)),
        (None, Some(f)) if f != Family::Float => (f, None),
        _ => {
            cx.error(
                file,
                name.span.clone(),
                format!("unknown wire type `{}`; expected one of: {}", name.value, wire_names()),
            );
            return None;
        }
    };
    Some(NodeWire {
        name,
        family,
        fixed,
        timestamp: false,
    })
}

/// Rule: a node has only the keys its wire type takes; a canonical encoding takes no `marker`
/// or `width`, since its marker follows from the value.
fn check_node_keys_apply(cx: &mut Ctx<'_, '_>, file: usize, t: &Table, wire: &NodeWire) {
    let canonical = wire.canonical();
    let applicable = node_keys(wire);
    for k in NODE_KEYS.iter().filter(|k| !matches!(**k, "wire" | "type")) {
        let Some(span) = t.key_span(k).filter(|_| !applicable.contains(k)) else {
            continue;
        };
        let message = if wire.timestamp {
            format!(
                "`{k}` does not apply to {}: a timestamp's wire type and ext type are msgpack's",
                wire.name.value
            )
        } else if canonical && matches!(*k, "marker" | "width") {
            let fixed = crate::render::wire_list(wire.family.wires());
            format!(
                "`{k}` does not apply to `{}`, the canonical encoding, whose marker follows from the value; to fix the marker, name the wire type: {}",
                wire.name.value, fixed
            )
        } else {
            format!("`{k}` does not apply to {} entries", wire.name.value)
        };
        cx.error(file, span, message);
    }
}

/// Rule: a node's `marker` is its wire type's: the one marker of most wire types, the first
/// marker of fixarray, fixmap and fixstr (whose header adds the count or length); a fixint's
/// one byte is its value, so it has no marker to state.
fn check_marker_of_wire(cx: &mut Ctx<'_, '_>, file: usize, t: &Table, w: Wire) {
    let Some(m) = cx.integer(file, t, "marker") else {
        return;
    };
    let problem = match w.marker() {
        Some(expected) if m.value != i128::from(expected) => Some(format!(
            "marker {} does not belong to {}: its marker is {}",
            hex(m.value),
            w.name(),
            hex(expected.into())
        )),
        Some(_) => None,
        None if matches!(w, Wire::FixArray | Wire::FixMap | Wire::FixStr) => {
            let first = w.markers().0;
            let what = if w == Wire::FixStr { "length" } else { "count" };
            (m.value != i128::from(first)).then(|| {
                format!(
                    "marker {} does not belong to {}: state its first marker, {first:#04x}; the header is {first:#04x} + {what}",
                    hex(m.value),
                    w.name()
                )
            })
        }
        None => Some(format!(
            "`marker` does not apply to {}: its one byte ({:#04x}..={:#04x}) is the value",
            w.name(),
            w.markers().0,
            w.markers().1
        )),
    };
    if let Some(message) = problem {
        cx.error(file, m.span, message);
    }
}

/// Rule: a node's `width` is its wire type's: the payload bytes of a number, the bytes of
/// length of a string, bin, ext, array or map; a wire type with nothing between its marker and
/// its content has none.
fn check_width_of_wire(cx: &mut Ctx<'_, '_>, file: usize, t: &Table, w: Wire) {
    let Some(width) = cx.integer(file, t, "width") else {
        return;
    };
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

/// An integer node: its bounds and named values.
fn int(cx: &mut Ctx<'_, '_>, file: usize, t: &Table, encoding: Encoding) -> IntType {
    let range = match encoding {
        Encoding::Fixed(w) => w.int_range().unwrap_or((0, 0)),
        Encoding::Canonical { .. } => (i128::from(i64::MIN), i128::from(u64::MAX)),
    };
    let wire = encoding.wire().map_or("int", |w| w.name());
    let min = check_int_bound_in_range(cx, file, t, "min", range, wire).unwrap_or(range.0);
    let max = check_int_bound_in_range(cx, file, t, "max", range, wire).unwrap_or(range.1);
    check_min_not_above_max(cx, file, t, min, max);
    let values = check_named_values(cx, file, t, min, max);
    IntType {
        encoding,
        min,
        max,
        values,
    }
}

/// Rule: an integer's `min` and `max` are within its wire type's range (`wire`'s, `lo..=hi`).
/// The bound at `key`, when it is stated and in range.
fn check_int_bound_in_range(
    cx: &mut Ctx<'_, '_>,
    file: usize,
    t: &Table,
    key: &str,
    (lo, hi): (i128, i128),
    wire: &str,
) -> Option<i128> {
    let v = cx.integer(file, t, key)?;
    if v.value < lo || v.value > hi {
        cx.error(
            file,
            v.span,
            format!("`{key}` {} is outside {wire}'s range {lo}..={hi}", v.value),
        );
        return None;
    }
    Some(v.value)
}

/// Rule: an integer's `max` is not below its `min`.
fn check_min_not_above_max(cx: &mut Ctx<'_, '_>, file: usize, t: &Table, min: i128, max: i128) {
    if min > max {
        let span = t.get("max").map_or(0..0, |v| v.span.clone());
        cx.error(file, span, format!("`max` {max} is below `min` {min}"));
    }
}

/// Rule: an integer's named values (`values = { name = n }`) are integers within its bounds,
/// each named once. The ones that are.
fn check_named_values(cx: &mut Ctx<'_, '_>, file: usize, t: &Table, min: i128, max: i128) -> Vec<(String, i128)> {
    let mut values: Vec<(String, i128)> = Vec::new();
    let Some((vt, _)) = cx.table(file, t, "values") else {
        return values;
    };
    for (name, v) in &vt.pairs {
        match v.value {
            Val::Int(n) if n >= min && n <= max => {
                if let Some((other, _)) = values.iter().find(|(_, x)| *x == n) {
                    cx.error(
                        file,
                        v.span.clone(),
                        format!("value {n} is named twice: `{other}` and `{}`", name.value),
                    );
                }
                values.push((name.value.clone(), n));
            }
            Val::Int(n) => cx.error(
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
    values
}

/// Rule: an ext's `ext_type` is a signed byte (-128..=127). The type byte, when it is stated
/// and one.
fn check_ext_type_fits_byte(cx: &mut Ctx<'_, '_>, file: usize, t: &Table) -> Option<i8> {
    let v = cx.integer(file, t, "ext_type")?;
    let byte = i8::try_from(v.value).ok();
    if byte.is_none() {
        cx.error(
            file,
            v.span,
            format!("ext type {} does not fit a signed byte (-128..=127)", v.value),
        );
    }
    byte
}

/// Rule: an array's or map's `count` is an entry's name (checked with the record's counts) or
/// a number of elements that is not negative and that the header can state.
fn check_fixed_count(cx: &mut Ctx<'_, '_>, file: usize, t: &Table, header: Encoding) -> Count {
    match t.get("count") {
        None | Some(Sp { value: Val::Str(_), .. }) => Count::Header,
        Some(Sp {
            value: Val::Int(n),
            span,
        }) => match usize::try_from(*n) {
            Ok(n) => {
                check_len_fits_wire(cx, file, span.clone(), header, n, "a fixed count");
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
    }
}

/// Rule: a string's or byte string's fixed length (`len = 32`) is a number of bytes that is not
/// negative and that its wire type's header can state (a fixstr holds 31 bytes). The length,
/// when it is stated and one.
fn check_fixed_len(cx: &mut Ctx<'_, '_>, file: usize, t: &Table, enc: Encoding) -> Option<usize> {
    let v = cx.integer(file, t, "len")?;
    cx.check_language(file, t.key_span("len").unwrap_or(v.span.clone()), "`len`");
    let Ok(len) = usize::try_from(v.value) else {
        cx.error(file, v.span, "a fixed length cannot be negative");
        return None;
    };
    check_len_fits_wire(cx, file, v.span, enc, len, "a fixed length");
    Some(len)
}

/// Rule: an array states its elements' type (`element`). The element's table, when it is
/// there.
fn check_array_has_element<'t>(
    cx: &mut Ctx<'_, '_>,
    file: usize,
    t: &'t Table,
    span: &Range<usize>,
    what: &str,
) -> Option<(&'t Table, Range<usize>)> {
    let element = cx.table(file, t, "element");
    if element.is_none() && t.get("element").is_none() {
        cx.error(
            file,
            span.clone(),
            format!("{what} is an array and needs `element`, the elements' type"),
        );
    }
    element
}

/// Rule: `allow_header_overflow` gives the reason the layout writes fixarray headers past 0x9f.
/// The reason, when it is stated.
fn check_header_overflow_reason(cx: &mut Ctx<'_, '_>, file: usize, t: &Table, span: &Range<usize>) -> Option<String> {
    let reason = cx.string(file, t, "allow_header_overflow")?;
    if reason.value.trim().is_empty() {
        let span = t.get("allow_header_overflow").map_or(span.clone(), |v| v.span.clone());
        cx.error(
            file,
            span,
            "`allow_header_overflow` needs the reason the layout writes such headers",
        );
    }
    Some(reason.value)
}

/// Rule: a length a node states (a constant's, a fixed count) fits its fixed wire type's
/// header: a fixstr holds 31 bytes, a fixarray 15 elements, an str8 255 bytes, ... `what`
/// names the length in messages (`constant`, `a fixed count`).
pub(super) fn check_len_fits_wire(
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
        let unit = match w.family() {
            Family::Array | Family::Map => "elements",
            _ => "bytes",
        };
        cx.error(
            file,
            span,
            format!(
                "{what} of {len} {unit} does not fit {} (at most {max} {unit})",
                w.name()
            ),
        );
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

#[cfg(test)]
mod tests {
    use crate::check::testing::{at, problems, problems3};

    /// A record of one entry `a` whose node has the lines `node` (line 5 on).
    fn entry(node: &str) -> String {
        format!("[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"a\"\n{node}")
    }

    /// The top-level value with the node lines `node` (line 2 on).
    fn value(node: &str) -> String {
        format!("[value]\n{node}")
    }

    const POINT: &str = "[types.point]\nwire = \"fixarray\"\n[[types.point.entry]]\nname = \"x\"\nwire = \"int\"\n";

    #[test]
    fn check_type_defined() {
        assert_eq!(
            problems(&format!("{}{POINT}", value("type = \"pt\"\n"))),
            [at(2, 8, "type `pt` is not defined; the schema's types are: point")]
        );
        assert_eq!(problems(&format!("{}{POINT}", value("type = \"point\"\n"))), []);
        // Twelve types: the message lists the first ten, in the order of the types' indices,
        // which is the order the file defines them in.
        let types: String = (0..12).map(|i| POINT.replace("point", &format!("p{i}"))).collect();
        assert_eq!(
            problems(&format!("{}{types}", value("type = \"pt\"\n"))),
            [at(
                2,
                8,
                "type `pt` is not defined; the schema's types are: p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, and 2 more"
            )]
        );
    }

    #[test]
    fn check_type_states_layout() {
        assert_eq!(
            problems(&format!("{}{POINT}", value("type = \"point\"\nwire = \"fixmap\"\n"))),
            [at(
                3,
                8,
                "the value names a type; `wire` does not apply (the type states it)"
            )]
        );
        assert_eq!(
            problems(&format!("{}{POINT}", value("type = \"point\"\ncount = 2\n"))),
            [at(
                3,
                1,
                "`count` does not apply where a type is named: the type states its layout"
            )]
        );
    }

    #[test]
    fn check_node_wire() {
        assert_eq!(
            problems(&entry("wire = \"int65\"\n")),
            [at(
                5,
                8,
                &format!("unknown wire type `int65`; expected one of: {}", super::wire_names())
            )]
        );
        assert_eq!(
            problems(&entry("")),
            [at(3, 1, "entry `a` needs `wire` (or `type`, naming a record type)")]
        );
        // `float` names no canonical encoding: a float's wire type is float32 or float64.
        assert_eq!(
            problems(&entry("wire = \"float\"\n")),
            [at(
                5,
                8,
                &format!("unknown wire type `float`; expected one of: {}", super::wire_names())
            )]
        );
        for wire in [
            "nil", "bool", "int", "uint8", "float64", "str", "fixstr", "bin", "ext", "fixext4",
        ] {
            assert_eq!(problems(&entry(&format!("wire = \"{wire}\"\n"))), [], "{wire}");
        }
    }

    #[test]
    fn wire_names_list_wire_types_then_families() {
        let names = super::wire_names();
        assert!(names.split(", ").any(|n| n == "int64"));
        assert!(names.split(", ").any(|n| n == "int"));
        assert!(!names.split(", ").any(|n| n == "float"));
    }

    #[test]
    fn check_node_keys_apply() {
        assert_eq!(
            problems(&entry("wire = \"int\"\nmarker = 0xd3\n")),
            [at(
                6,
                1,
                "`marker` does not apply to `int`, the canonical encoding, whose marker follows from the value; to fix the marker, name the wire type: fixint, negfixint, uint8, uint16, uint32, uint64, int8, int16, int32, int64"
            )]
        );
        assert_eq!(
            problems(&entry("wire = \"int64\"\nraw = true\n")),
            [at(6, 1, "`raw` does not apply to int64 entries")]
        );
        assert_eq!(problems(&entry("wire = \"str\"\nraw = true\n")), []);
    }

    #[test]
    fn check_marker_of_wire() {
        assert_eq!(
            problems(&entry("wire = \"int64\"\nmarker = 0xd2\n")),
            [at(6, 10, "marker 0xd2 does not belong to int64: its marker is 0xd3")]
        );
        assert_eq!(
            problems(&entry("wire = \"fixstr\"\nmarker = 0xa3\n")),
            [at(
                6,
                10,
                "marker 0xa3 does not belong to fixstr: state its first marker, 0xa0; the header is 0xa0 + length"
            )]
        );
        assert_eq!(
            problems(&entry(
                "wire = \"fixarray\"\nmarker = 0x91\nelement = { wire = \"int\" }\n"
            )),
            [at(
                6,
                10,
                "marker 0x91 does not belong to fixarray: state its first marker, 0x90; the header is 0x90 + count"
            )]
        );
        assert_eq!(
            problems(&entry("wire = \"fixint\"\nmarker = 0x05\n")),
            [at(
                6,
                10,
                "`marker` does not apply to fixint: its one byte (0x00..=0x7f) is the value"
            )]
        );
        assert_eq!(problems(&entry("wire = \"int64\"\nmarker = 0xd3\n")), []);
        assert_eq!(problems(&entry("wire = \"fixstr\"\nmarker = 0xa0\n")), []);
    }

    #[test]
    fn check_width_of_wire() {
        assert_eq!(
            problems(&entry("wire = \"int32\"\nwidth = 8\n")),
            [at(6, 9, "width 8 does not match int32: it has 4 payload bytes")]
        );
        assert_eq!(
            problems(&entry("wire = \"str16\"\nwidth = 1\n")),
            [at(6, 9, "width 1 does not match str16: it has 2 bytes of length")]
        );
        assert_eq!(
            problems(&entry("wire = \"fixstr\"\nwidth = 1\n")),
            [at(
                6,
                9,
                "`width` does not apply to fixstr: nothing follows its marker but the content"
            )]
        );
        assert_eq!(problems(&entry("wire = \"int32\"\nwidth = 4\n")), []);
    }

    #[test]
    fn check_int_bound_in_range() {
        assert_eq!(
            problems(&entry("wire = \"uint8\"\nmax = 256\n")),
            [at(6, 7, "`max` 256 is outside uint8's range 0..=255")]
        );
        assert_eq!(
            problems(&entry("wire = \"int8\"\nmin = -129\n")),
            [at(6, 7, "`min` -129 is outside int8's range -128..=127")]
        );
        assert_eq!(problems(&entry("wire = \"uint8\"\nmin = 1\nmax = 255\n")), []);
    }

    #[test]
    fn check_min_not_above_max() {
        assert_eq!(
            problems(&entry("wire = \"uint8\"\nmin = 5\nmax = 4\n")),
            [at(7, 7, "`max` 4 is below `min` 5")]
        );
        assert_eq!(problems(&entry("wire = \"uint8\"\nmin = 5\nmax = 5\n")), []);
    }

    #[test]
    fn check_named_values() {
        assert_eq!(
            problems(&entry(
                "wire = \"uint8\"\nmax = 2\nvalues = { a = 1, b = 3, c = \"x\", d = 1 }\n"
            )),
            [
                at(7, 23, "named value 3 is outside 0..=2"),
                at(7, 30, "named value `c` must be an integer, found a string"),
                at(7, 39, "value 1 is named twice: `a` and `d`"),
            ]
        );
        assert_eq!(problems(&entry("wire = \"uint8\"\nvalues = { a = 1, b = 2 }\n")), []);
    }

    #[test]
    fn check_ext_type_fits_byte() {
        assert_eq!(
            problems(&entry("wire = \"ext\"\next_type = 200\n")),
            [at(6, 12, "ext type 200 does not fit a signed byte (-128..=127)")]
        );
        assert_eq!(problems(&entry("wire = \"ext\"\next_type = -128\n")), []);
    }

    #[test]
    fn check_fixed_count() {
        let array = |wire: &str, count: &str| {
            entry(&format!(
                "wire = \"{wire}\"\ncount = {count}\nelement = {{ wire = \"nil\" }}\n"
            ))
        };
        assert_eq!(
            problems(&array("fixarray", "16")),
            [at(
                6,
                9,
                "a fixed count of 16 elements does not fit fixarray (at most 15 elements)"
            )]
        );
        assert_eq!(
            problems(&array("array16", "70000")),
            [at(
                6,
                9,
                "a fixed count of 70000 elements does not fit array16 (at most 65535 elements)"
            )]
        );
        assert_eq!(
            problems(&array("fixarray", "-2")),
            [at(6, 9, "a fixed count cannot be negative")]
        );
        assert_eq!(
            problems(&array("fixarray", "true")),
            [at(
                6,
                9,
                "expected an entry name or a number for `count`, found a boolean"
            )]
        );
        assert_eq!(problems(&array("fixarray", "15")), []);
        // A map's count is a number of pairs, checked the same way.
        let map = |count: &str| {
            entry(&format!(
                "wire = \"fixmap\"\ncount = {count}\nkey_type = {{ wire = \"str\" }}\nvalue_type = {{ wire = \"int\" }}\n"
            ))
        };
        assert_eq!(
            problems(&map("16")),
            [at(
                6,
                9,
                "a fixed count of 16 elements does not fit fixmap (at most 15 elements)"
            )]
        );
        assert_eq!(problems(&map("-1")), [at(6, 9, "a fixed count cannot be negative")]);
        assert_eq!(problems(&map("2")), []);
    }

    #[test]
    fn check_fixed_len() {
        assert_eq!(
            problems3(&entry("wire = \"fixstr\"\nlen = 32\n")),
            [at(
                6,
                7,
                "a fixed length of 32 bytes does not fit fixstr (at most 31 bytes)"
            )]
        );
        assert_eq!(
            problems3(&entry("wire = \"bin\"\nlen = -1\n")),
            [at(6, 7, "a fixed length cannot be negative")]
        );
        assert_eq!(
            problems3(&entry("wire = \"int\"\nlen = 4\n")),
            [at(6, 1, "`len` does not apply to int entries")]
        );
        assert_eq!(problems3(&entry("wire = \"bin8\"\nlen = 32\n")), []);
        assert_eq!(problems3(&entry("wire = \"str\"\nlen = 31\n")), []);
    }

    #[test]
    fn check_no_header_overflow_nested() {
        assert_eq!(
            problems(&entry(
                "wire = \"array\"\nelement = { wire = \"fixarray\", allow_header_overflow = \"x\", element = { wire = \"int\" } }\n"
            )),
            [at(
                6,
                32,
                "`allow_header_overflow` applies to an entry's own fixarray counted by an earlier entry, not to an array nested in a value"
            )]
        );
        // A single value's array has no count entry either.
        let single = value("wire = \"fixarray\"\nallow_header_overflow = \"x\"\nelement = { wire = \"int\" }\n");
        let found = problems(&single);
        assert_eq!(found.len(), 1);
        assert!(
            found[0]
                .2
                .starts_with("`allow_header_overflow` applies to an entry's own fixarray")
        );
    }

    #[test]
    fn check_array_has_element() {
        assert_eq!(
            problems(&value("wire = \"array\"\n")),
            [at(
                1,
                1,
                "the value is an array and needs `element`, the elements' type"
            )]
        );
        assert_eq!(problems(&value("wire = \"array\"\nelement = { wire = \"str\" }\n")), []);
    }

    #[test]
    fn check_map_has_part() {
        assert_eq!(
            problems(&value("wire = \"map\"\nkey_type = { wire = \"str\" }\n")),
            [at(
                1,
                1,
                "the value is a map and needs `key_type` and `value_type`; a map with fixed keys is a record: name a type (`type = \"...\"`)"
            )]
        );
        assert_eq!(
            problems(&value(
                "wire = \"map\"\nkey_type = [{ wire = \"int\" }, { wire = \"str\" }]\nvalue_type = { wire = \"int\" }\n"
            )),
            [at(3, 12, "expected a table for `key_type`, found an array")]
        );
        assert_eq!(
            problems(&value(
                "wire = \"map\"\nkey_type = { wire = \"str\" }\nvalue_type = { wire = \"int\" }\n"
            )),
            []
        );
    }

    #[test]
    fn check_header_overflow_reason() {
        let body = "[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"n\"\nwire = \"fixint\"\nmax = 16\nlength_of = [\"a\"]\n[[entry]]\nname = \"a\"\nwire = \"fixarray\"\ncount = \"n\"\nelement = { wire = \"int\" }\nallow_header_overflow = \" \"\n";
        assert_eq!(
            problems(body),
            [at(
                13,
                25,
                "`allow_header_overflow` needs the reason the layout writes such headers"
            )]
        );
        assert_eq!(problems(&body.replace("\" \"", "\"c-blosc2 writes 0xa0\"")), []);
    }

    #[test]
    fn check_len_fits_wire() {
        assert_eq!(
            problems(&entry(
                "wire = \"fixstr\"\nconst = \"0123456789012345678901234567890123\"\n"
            )),
            [at(6, 9, "constant of 34 bytes does not fit fixstr (at most 31 bytes)")]
        );
        assert_eq!(
            problems(&entry(
                "wire = \"fixstr\"\nconst = \"0123456789012345678901234567890\"\n"
            )),
            []
        );
    }
}
