//! Binding a struct's fields to a layout's entries: every entry the user provides needs a field
//! of its name whose type can hold its wire type; constants and lengths are not fields.

use metalayer_layout::{EntryKind, IntRole, IntWire, Layout, StrWire};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{DeriveInput, Expr, Field, GenericArgument, Ident, Lit, PathArguments, Type};

/// The struct's field for one entry, or why the entry has none.
pub(crate) enum Slot<'a> {
    /// A field the user provides.
    Field(&'a Field),
    /// A constant or a length: derived, not a field.
    Derived,
}

/// A struct bound to a layout: one slot per entry, in entry order.
pub(crate) struct Bound<'a> {
    pub slots: Vec<Slot<'a>>,
}

/// A field's type with its wrapper and reference stripped, as written.
fn type_text(ty: &Type) -> String {
    let raw = ty.to_token_stream().to_string();
    raw.replace(" < ", "<")
        .replace("< ", "<")
        .replace(" <", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
        .replace("& '", "&'")
        .replace("& ", "&")
        .replace(" ;", ";")
}

fn unwrap_group(ty: &Type) -> &Type {
    match ty {
        Type::Group(g) => unwrap_group(&g.elem),
        Type::Paren(p) => unwrap_group(&p.elem),
        other => other,
    }
}

/// The last path segment's name and arguments of a plain path type.
fn last_segment(ty: &Type) -> Option<(&Ident, &PathArguments)> {
    match unwrap_group(ty) {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| (&s.ident, &s.arguments)),
        _ => None,
    }
}

fn is_named(ty: &Type, name: &str) -> bool {
    matches!(last_segment(ty), Some((ident, PathArguments::None)) if ident == name)
}

fn generic_args(args: &PathArguments) -> Vec<&GenericArgument> {
    match args {
        PathArguments::AngleBracketed(a) => a.args.iter().collect(),
        _ => Vec::new(),
    }
}

fn literal_usize(expr: &Expr) -> Option<usize> {
    match expr {
        Expr::Lit(l) => match &l.lit {
            Lit::Int(i) => i.base10_parse().ok(),
            _ => None,
        },
        Expr::Group(g) => literal_usize(&g.expr),
        Expr::Paren(p) => literal_usize(&p.expr),
        _ => None,
    }
}

/// A const generic argument: `Some(Some(n))` for a literal, `Some(None)` for a named constant.
fn const_arg(arg: &GenericArgument) -> Option<Option<usize>> {
    match arg {
        GenericArgument::Const(e) => Some(literal_usize(e)),
        GenericArgument::Type(t) if last_segment(t).is_some() => Some(None),
        _ => None,
    }
}

/// How an array field holds its elements, when its type is one the runtime supports.
#[derive(Clone, Copy)]
enum ArrayShape {
    Vec,
    /// `[T; N]`: `Some(N)` when N is a literal.
    Fixed(Option<usize>),
    /// `ArrayVec<T, N>`: `Some(N)` when N is a literal.
    Capacity(Option<usize>),
}

fn array_shape(ty: &Type) -> Option<(ArrayShape, &Type)> {
    match unwrap_group(ty) {
        Type::Array(a) => Some((ArrayShape::Fixed(literal_usize(&a.len)), &a.elem)),
        other => {
            let (ident, args) = last_segment(other)?;
            let args = generic_args(args);
            match (ident.to_string().as_str(), args.as_slice()) {
                ("Vec", [GenericArgument::Type(elem)]) => Some((ArrayShape::Vec, elem)),
                ("ArrayVec", [GenericArgument::Type(elem), n]) => Some((ArrayShape::Capacity(const_arg(n)?), elem)),
                _ => None,
            }
        }
    }
}

fn is_str_type(ty: &Type) -> bool {
    match unwrap_group(ty) {
        Type::Reference(r) => r.mutability.is_none() && is_named(&r.elem, "str"),
        other => match last_segment(other) {
            Some((ident, PathArguments::None)) => ident == "String",
            Some((ident, args)) => match (ident.to_string().as_str(), generic_args(args).as_slice()) {
                ("Box", [GenericArgument::Type(inner)]) => is_named(inner, "str"),
                ("ArrayString", [n]) => const_arg(n).is_some(),
                _ => false,
            },
            None => false,
        },
    }
}

fn str_hint(_wire: StrWire) -> &'static str {
    "`String`, `Box<str>`, `&'a str` or `arrayvec::ArrayString<N>`"
}

/// Binds `input`'s fields to `layout`'s entries, returning every mismatch at once.
pub(crate) fn bind<'a>(input: &'a DeriveInput, layout: &Layout) -> Result<Bound<'a>, Vec<syn::Error>> {
    let schema = &layout.schema;
    let fields: Vec<&Field> = match &input.data {
        syn::Data::Struct(s) => match &s.fields {
            syn::Fields::Named(named) => named.named.iter().collect(),
            _ => {
                return Err(vec![syn::Error::new(
                    input.ident.span(),
                    format!("#[metalayer] needs a struct with named fields, one per entry of {schema}"),
                )]);
            }
        },
        _ => {
            return Err(vec![syn::Error::new(
                input.ident.span(),
                "#[metalayer(schema = ...)] applies to structs with named fields",
            )]);
        }
    };
    let field_name = |f: &Field| {
        f.ident
            .as_ref()
            .map(|i| i.to_string().trim_start_matches("r#").to_string())
    };

    let mut errors = Vec::new();
    let mut slots = Vec::with_capacity(layout.entries.len());
    // Fixed lengths seen per count entry: (count index, array name, N).
    let mut fixed_lengths: Vec<(usize, &str, usize)> = Vec::new();
    for entry in &layout.entries {
        let field = fields
            .iter()
            .copied()
            .find(|f| field_name(f).as_deref() == Some(entry.name.as_str()));
        if !entry.is_field() {
            if let Some(f) = field {
                let why = match &entry.kind {
                    EntryKind::Int {
                        role: IntRole::Const { value },
                        ..
                    } => format!(
                        "`{}` is the constant {value} in {schema}: the generated code writes and checks it, so it is not a field; remove it",
                        entry.name
                    ),
                    _ => {
                        let arrays = counted_arrays(layout, entry);
                        format!(
                            "`{}` is the length of {arrays} in {schema}: the generated code derives and checks it, so it is not a field; remove it",
                            entry.name
                        )
                    }
                };
                errors.push(syn::Error::new(f.ident.span(), why));
            }
            slots.push(Slot::Derived);
            continue;
        }
        let Some(field) = field else {
            errors.push(syn::Error::new(
                input.ident.span(),
                format!(
                    "missing field for the {} entry `{}` of {schema}: add `{}: {}`",
                    entry.wire_name(),
                    entry.name,
                    entry.name,
                    suggested_type(&entry.kind)
                ),
            ));
            slots.push(Slot::Derived);
            continue;
        };
        let ty = &field.ty;
        match &entry.kind {
            EntryKind::Int { wire, .. } => {
                if !is_named(ty, wire.rust_type()) {
                    errors.push(syn::Error::new_spanned(
                        ty,
                        format!(
                            "`{}` cannot hold the {} entry `{}` of {schema}: use `{}`",
                            type_text(ty),
                            wire.name(),
                            entry.name,
                            wire.rust_type()
                        ),
                    ));
                }
            }
            EntryKind::Str { wire } => {
                if !is_str_type(ty) {
                    errors.push(syn::Error::new_spanned(
                        ty,
                        format!(
                            "`{}` cannot hold the {} entry `{}` of {schema}: use {}",
                            type_text(ty),
                            wire.name(),
                            entry.name,
                            str_hint(*wire)
                        ),
                    ));
                }
            }
            EntryKind::Array { element, count, .. } => {
                let (min, max) = match &layout.entries[*count].kind {
                    EntryKind::Int {
                        role: IntRole::Count { min, max, .. },
                        ..
                    } => (*min, *max),
                    _ => (0, usize::MAX),
                };
                let count_name = &layout.entries[*count].name;
                match array_shape(ty) {
                    Some((shape, elem)) if is_named(elem, element.rust_type()) => match shape {
                        ArrayShape::Fixed(Some(n)) => {
                            if n < min || n > max {
                                errors.push(syn::Error::new_spanned(
                                    ty,
                                    format!(
                                        "`{}` has {n} elements, but `{}` is counted by `{count_name}`, which {schema} allows in {min}..={max}",
                                        type_text(ty),
                                        entry.name
                                    ),
                                ));
                            } else if let Some((_, other, m)) =
                                fixed_lengths.iter().find(|(c, _, m)| c == count && *m != n)
                            {
                                errors.push(syn::Error::new_spanned(
                                    ty,
                                    format!(
                                        "`{}` gives `{}` {n} elements but `{other}` has {m}, and both are counted by `{count_name}`",
                                        type_text(ty),
                                        entry.name
                                    ),
                                ));
                            } else {
                                fixed_lengths.push((*count, &entry.name, n));
                            }
                        }
                        ArrayShape::Capacity(Some(n)) if n < min => {
                            errors.push(syn::Error::new_spanned(
                                ty,
                                format!(
                                    "`{}` holds at most {n} elements, but `{}` always has at least {min} (`{count_name}` is at least {min} in {schema})",
                                    type_text(ty),
                                    entry.name
                                ),
                            ));
                        }
                        _ => {}
                    },
                    _ => errors.push(syn::Error::new_spanned(
                        ty,
                        format!(
                            "`{}` cannot hold the array of {} entry `{}` of {schema}: use `Vec<{r}>`, `[{r}; N]` or `arrayvec::ArrayVec<{r}, N>`",
                            type_text(ty),
                            element.name(),
                            entry.name,
                            r = element.rust_type()
                        ),
                    )),
                }
            }
        }
        slots.push(Slot::Field(field));
    }

    for f in &fields {
        let name = field_name(f).unwrap_or_default();
        if layout.entry(&name).is_none() {
            let names: Vec<&str> = layout
                .entries
                .iter()
                .filter(|e| e.is_field())
                .map(|e| e.name.as_str())
                .collect();
            errors.push(syn::Error::new(
                f.ident.span(),
                format!(
                    "`{name}` is not an entry of {schema}; the fields it takes are: {}",
                    names.join(", ")
                ),
            ));
        }
    }

    if errors.is_empty() {
        Ok(Bound { slots })
    } else {
        Err(errors)
    }
}

fn counted_arrays(layout: &Layout, entry: &metalayer_layout::Entry) -> String {
    match &entry.kind {
        EntryKind::Int {
            role: IntRole::Count { arrays, .. },
            ..
        } => arrays
            .iter()
            .map(|&a| layout.entries[a].name.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        _ => String::new(),
    }
}

/// The plainest field type for an entry, for messages.
fn suggested_type(kind: &EntryKind) -> String {
    match kind {
        EntryKind::Int { wire, .. } => wire.rust_type().to_string(),
        EntryKind::Str { .. } => "String".to_string(),
        EntryKind::Array { element, .. } => format!("Vec<{}>", element.rust_type()),
    }
}

/// The element wire type's Rust type, for generated code.
pub(crate) fn rust_int(wire: IntWire) -> Ident {
    Ident::new(wire.rust_type(), proc_macro2::Span::call_site())
}
