//! Binding a struct's fields to a record's entries: every entry the user provides needs a field
//! of its name; constants and counts are not fields. Whether a field's type can hold its entry
//! is left to the traits the generated code names (`IntValue`, `StrField`, `ArrayField`, ...)
//! and to compile-time assertions, so any type that implements them binds, whatever it is
//! called.

use metalayer_layout::{Const, Count, Encoding, Layout, Node, Record, Role, Type, Wire};
use proc_macro2::TokenStream;
use quote::quote;

use crate::error::Error;
use crate::expand::Target;
use crate::item::{Data, Field, Fields, Item, Type as FieldType};
use crate::names;

/// One slot per entry of a record: the field and its type, or `None` for a constant or a count.
pub(crate) type Slots<'a> = Vec<Option<(&'a Field, TokenStream)>>;

/// A struct bound to its target.
pub(crate) enum Bound<'a> {
    /// One slot per entry, in entry order: the field and its type, or `None` for a constant
    /// or a count.
    Record(Slots<'a>),
    /// The one field that holds a top-level value: a tuple struct's, or a struct's one named
    /// field, with its name.
    Value(&'a FieldType, Option<&'a proc_macro2::Ident>),
}

fn field_name(f: &Field) -> String {
    f.ident.to_string().trim_start_matches("r#").to_string()
}

/// Binds `input`'s fields to `target`, returning every mismatch at once.
pub(crate) fn bind<'a>(input: &'a Item, layout: &Layout, target: &Target<'_>) -> Result<Bound<'a>, Vec<Error>> {
    let schema = &layout.schema;
    match target {
        Target::Value(node) => match &input.data {
            Data::Struct(Fields::Tuple(types)) if types.len() == 1 => Ok(Bound::Value(&types[0], None)),
            Data::Struct(Fields::Named(named)) if named.len() == 1 => {
                Ok(Bound::Value(&named[0].ty, Some(&named[0].ident)))
            }
            _ => Err(vec![Error::new(
                input.ident.span(),
                format!(
                    "{schema} stores a single {} value, not a record: hold it in a struct with one field, such as `struct {}({});` or `struct {} {{ value: {} }}`",
                    node.wire_name(layout),
                    input.ident,
                    suggested_type(layout, node),
                    input.ident,
                    suggested_type(layout, node)
                ),
            )]),
        },
        Target::Root(record) | Target::Type(_, record) => {
            let what = match target {
                Target::Type(i, _) => format!("record type `{}` of {schema}", layout.types[*i].name),
                _ => schema.to_string(),
            };
            let fields: Vec<&Field> = match &input.data {
                Data::Struct(Fields::Named(named)) => named.iter().collect(),
                Data::Struct(_) => {
                    return Err(vec![Error::new(
                        input.ident.span(),
                        format!("#[metalayer] needs a struct with named fields, one per entry of {what}"),
                    )]);
                }
                _ => {
                    return Err(vec![Error::new(
                        input.ident.span(),
                        "#[metalayer(schema = ...)] applies to structs with named fields",
                    )]);
                }
            };
            bind_record(input, layout, record, &fields, &what).map(Bound::Record)
        }
    }
}

fn bind_record<'a>(
    input: &Item,
    layout: &Layout,
    record: &Record,
    fields: &[&'a Field],
    what: &str,
) -> Result<Slots<'a>, Vec<Error>> {
    let mut errors = Vec::new();
    let mut slots = Vec::with_capacity(record.entries.len());
    for entry in &record.entries {
        let field = fields.iter().copied().find(|f| field_name(f) == entry.name);
        match &entry.role {
            Role::Field => {}
            role => {
                if let Some(f) = field {
                    let why = match role {
                        Role::Const(c) => format!(
                            "`{}` is the constant {} in {what}: the generated code writes and checks it, so it is not a field; remove it",
                            entry.name,
                            show_const(c)
                        ),
                        Role::Count { of } => {
                            let mut arrays = Vec::new();
                            for &a in of {
                                arrays.push(record.entries[a].name.as_str());
                            }
                            format!(
                                "`{}` is the length of {} in {what}: the generated code derives and checks it, so it is not a field; remove it",
                                entry.name,
                                arrays.join(", ")
                            )
                        }
                        Role::Field => String::new(),
                    };
                    errors.push(Error::new(f.ident.span(), why));
                }
                slots.push(None);
                continue;
            }
        }
        let Some(field) = field else {
            let suggested = suggested_type(layout, &entry.node);
            let suggested = if entry.optional {
                format!("Option<{suggested}>")
            } else {
                suggested
            };
            errors.push(Error::new(
                input.ident.span(),
                format!(
                    "missing field for the {}{} entry `{}` of {what}: add `{}: {suggested}`",
                    if entry.optional { "optional " } else { "" },
                    entry.wire_name(layout),
                    entry.name,
                    names::entry(&entry.name),
                ),
            ));
            slots.push(None);
            continue;
        };
        let ty = &field.ty;
        slots.push(Some((field, quote!(#ty))));
    }

    for f in fields {
        let name = field_name(f);
        if record.entry(&name).is_none() {
            let mut names = Vec::new();
            for e in record.fields() {
                names.push(e.name.as_str());
            }
            errors.push(Error::new(
                f.ident.span(),
                format!(
                    "`{name}` is not an entry of {what}; the fields it takes are: {}",
                    names.join(", ")
                ),
            ));
        }
    }
    if errors.is_empty() { Ok(slots) } else { Err(errors) }
}

fn show_const(c: &Const) -> String {
    match c {
        Const::Nil => "nil".into(),
        Const::Bool(b) => b.to_string(),
        Const::Int(v) => v.to_string(),
        Const::Float(f) => format!("{f:?}"),
        Const::Bytes(b) => format!("{:?}", String::from_utf8_lossy(b)),
    }
}

/// The plainest Rust type for a value of `node`, for messages.
pub(crate) fn suggested_type(layout: &Layout, node: &Node) -> String {
    match &node.ty {
        Type::Nil => "()".into(),
        Type::Bool => "bool".into(),
        Type::Int(t) => match t.encoding {
            Encoding::Fixed(w) => int_type(w, t.min, t.max).into(),
            Encoding::Canonical { .. } => {
                let w = if t.min < 0 { Wire::Int64 } else { Wire::UInt64 };
                int_type(w, t.min, t.max).into()
            }
        },
        Type::Float(Wire::Float32) => "f32".into(),
        Type::Float(_) => "f64".into(),
        Type::Str(t) if t.raw => "Vec<u8>".into(),
        Type::Str(_) => "String".into(),
        Type::Bin(b) => b.len.map_or_else(|| "Vec<u8>".into(), |n| format!("[u8; {n}]")),
        Type::Ext(t) if t.timestamp => "metalayer::Timestamp".into(),
        Type::Ext(t) if t.ext_type.is_some() => "Vec<u8>".into(),
        Type::Ext(_) => "metalayer::Ext<Vec<u8>>".into(),
        Type::Array(a) => match a.count {
            Count::Fixed(n) => format!("[{}; {n}]", suggested_type(layout, &a.element)),
            _ => format!("Vec<{}>", suggested_type(layout, &a.element)),
        },
        Type::Map(m) => format!(
            "Vec<({}, {})>",
            suggested_type(layout, &m.key),
            suggested_type(layout, &m.value)
        ),
        Type::Record(_) => "a struct".into(),
        Type::Ref(i) => layout.types.get(*i).map_or_else(String::new, |t| camel(&t.name)),
    }
}

/// The smallest Rust integer type that holds `min..=max`, among those of `wire`'s signedness
/// at most as wide as it.
fn int_type(wire: Wire, min: i128, max: i128) -> &'static str {
    let signed = min < 0 || wire.is_signed();
    let candidates: &[(&str, i128, i128)] = if signed {
        &[
            ("i8", i8::MIN as i128, i8::MAX as i128),
            ("i16", i16::MIN as i128, i16::MAX as i128),
            ("i32", i32::MIN as i128, i32::MAX as i128),
            ("i64", i64::MIN as i128, i64::MAX as i128),
        ]
    } else {
        &[
            ("u8", 0, u8::MAX as i128),
            ("u16", 0, u16::MAX as i128),
            ("u32", 0, u32::MAX as i128),
            ("u64", 0, u64::MAX as i128),
        ]
    };
    // A fixed wire type's natural Rust type is its own width, as c-blosc2's structs have it.
    let width = match wire.width() {
        0 => 1,
        w => w,
    };
    candidates
        .iter()
        .find(|(name, lo, hi)| *lo <= min && max <= *hi && name[1..].parse::<usize>().unwrap_or(64) >= width * 8)
        .map_or(if signed { "i64" } else { "u64" }, |c| c.0)
}

/// `operand_info` → `OperandInfo`.
fn camel(name: &str) -> String {
    let mut camel = String::with_capacity(name.len());
    for part in name.split('_') {
        let mut chars = part.chars();
        if let Some(first) = chars.next() {
            for c in first.to_uppercase() {
                camel.push(c);
            }
            camel.push_str(chars.as_str());
        }
    }
    camel
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggested_types_follow_the_wire_type() {
        let layout = metalayer_layout::builtin_layout("b2nd_v1").expect("built-in");
        let root = layout.root_record().expect("record");
        let shown: Vec<String> = root.entries.iter().map(|e| suggested_type(&layout, &e.node)).collect();
        // version and ndim are fixints (u8); shape int64s; chunk and block shapes int32s;
        // dtype_format a fixint; dtype a str32.
        assert_eq!(shown, ["u8", "u8", "Vec<i64>", "Vec<i32>", "Vec<i32>", "u8", "String"]);
    }

    #[test]
    fn record_type_names_become_camel_case() {
        assert_eq!(camel("operand_info"), "OperandInfo");
        assert_eq!(camel("x"), "X");
    }
}
