//! Binding a struct's fields to a layout's entries: every entry the user provides needs a field
//! of its name whose type can hold its wire type; constants and lengths are not fields.

use metalayer_layout::{EntryKind, IntRole, IntWire, Layout, StrWire};
use proc_macro2::{Delimiter, Ident, TokenTree};

use crate::error::Error;
use crate::item::{Data, Field, Fields, Item, angle_step, split_commas};

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

fn is_punct(token: &TokenTree, c: char) -> bool {
    matches!(token, TokenTree::Punct(p) if p.as_char() == c)
}

fn group_tokens(token: &TokenTree, delimiter: Delimiter) -> Option<Vec<TokenTree>> {
    match token {
        TokenTree::Group(g) if g.delimiter() == delimiter => Some(g.stream().into_iter().collect()),
        _ => None,
    }
}

/// A type with invisible groups, and parentheses around a single type, taken off.
fn unwrap_group(ty: &[TokenTree]) -> Vec<TokenTree> {
    if let [token] = ty {
        if let Some(inner) = group_tokens(token, Delimiter::None) {
            return unwrap_group(&inner);
        }
        if let Some(inner) = group_tokens(token, Delimiter::Parenthesis)
            && !inner.is_empty()
            && !has_top_level_comma(&inner)
        {
            return unwrap_group(&inner);
        }
    }
    ty.to_vec()
}

fn has_top_level_comma(tokens: &[TokenTree]) -> bool {
    let mut depth = 0;
    (0..tokens.len()).any(|i| {
        depth += angle_step(tokens, i);
        depth == 0 && is_punct(&tokens[i], ',')
    })
}

/// A path segment's arguments.
enum PathArgs {
    None,
    /// `<...>`: the arguments between the brackets.
    Angle(Vec<Vec<TokenTree>>),
    /// `(...)` and maybe `-> R`, as in `Fn(A) -> R`.
    Parenthesized,
}

/// Identifiers that start a type other than a path.
const NOT_A_SEGMENT: &[&str] = &[
    "_", "dyn", "impl", "fn", "for", "unsafe", "extern", "mut", "const", "as",
];

/// The last segment's name and arguments of a plain path type (no `<T as Trait>::` prefix).
fn last_segment(ty: &[TokenTree]) -> Option<(Ident, PathArgs)> {
    let ty = unwrap_group(ty);
    let is_path_sep = |i: usize| ty.len() > i + 1 && is_punct(&ty[i], ':') && is_punct(&ty[i + 1], ':');
    let mut i = if is_path_sep(0) { 2 } else { 0 };
    loop {
        let ident = match ty.get(i) {
            Some(TokenTree::Ident(ident)) if !NOT_A_SEGMENT.contains(&ident.to_string().as_str()) => ident.clone(),
            _ => return None,
        };
        i += 1;
        if is_path_sep(i) && ty.get(i + 2).is_some_and(|t| is_punct(t, '<')) {
            i += 2;
        }
        let args = match ty.get(i) {
            Some(t) if is_punct(t, '<') => {
                let start = i + 1;
                let mut depth = 0;
                loop {
                    depth += angle_step(&ty, i);
                    i += 1;
                    if depth == 0 {
                        break;
                    }
                    if i >= ty.len() {
                        return None;
                    }
                }
                let args = split_commas(&ty[start..i - 1]).into_iter().map(<[_]>::to_vec).collect();
                PathArgs::Angle(args)
            }
            Some(t) if group_tokens(t, Delimiter::Parenthesis).is_some() => {
                // `Fn(A) -> R`: the rest is the return type.
                return Some((ident, PathArgs::Parenthesized));
            }
            _ => PathArgs::None,
        };
        if i == ty.len() {
            return Some((ident, args));
        }
        if !is_path_sep(i) {
            return None;
        }
        i += 2;
    }
}

fn is_named(ty: &[TokenTree], name: &str) -> bool {
    matches!(last_segment(ty), Some((ident, PathArgs::None)) if ident == name)
}

/// A generic argument, as the type checks below tell them apart.
enum GenericArg {
    Type(Vec<TokenTree>),
    /// A literal, a negative literal or a block.
    Const(Vec<TokenTree>),
    /// A lifetime, or a constraint or binding such as `Item = T`.
    Other,
}

fn generic_arg(arg: &[TokenTree]) -> GenericArg {
    let binding = {
        let mut depth = 0;
        (0..arg.len()).any(|i| {
            depth += angle_step(arg, i);
            depth == 0 && (is_punct(&arg[i], '=') || (is_punct(&arg[i], ':') && single_colon(arg, i)))
        })
    };
    match arg {
        [TokenTree::Punct(p), ..] if p.as_char() == '\'' => GenericArg::Other,
        [TokenTree::Literal(_)] => GenericArg::Const(arg.to_vec()),
        [minus, TokenTree::Literal(_)] if is_punct(minus, '-') => GenericArg::Const(arg.to_vec()),
        [block] if group_tokens(block, Delimiter::Brace).is_some() => GenericArg::Const(arg.to_vec()),
        _ if binding => GenericArg::Other,
        _ => GenericArg::Type(arg.to_vec()),
    }
}

/// Whether the `:` at `i` stands alone rather than in a `::`.
fn single_colon(tokens: &[TokenTree], i: usize) -> bool {
    let before = i > 0 && is_punct(&tokens[i - 1], ':');
    let after = tokens.get(i + 1).is_some_and(|t| is_punct(t, ':'));
    !before && !after
}

fn generic_args(args: &PathArgs) -> Vec<GenericArg> {
    match args {
        PathArgs::Angle(args) => args.iter().map(|a| generic_arg(a)).collect(),
        _ => Vec::new(),
    }
}

/// The value of an integer literal such as `16`, `0x10`, `1_000` or `16usize`. As in the
/// compiler's own reading of literals for macros, any identifier may follow the digits as a
/// suffix, while `1.0` and `1e3` are floats.
fn int_literal(text: &str) -> Option<usize> {
    let (radix, digits) = if let Some(d) = text.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = text.strip_prefix("0o") {
        (8, d)
    } else if let Some(d) = text.strip_prefix("0b") {
        (2, d)
    } else {
        (10, text)
    };
    let hex_digit = |c: char| radix == 16 && c.is_ascii_hexdigit();
    let end = digits
        .find(|c: char| c != '_' && !c.is_ascii_digit() && !hex_digit(c))
        .unwrap_or(digits.len());
    let (number, suffix) = digits.split_at(end);
    if radix == 10 && (suffix.starts_with('.') || is_exponent(suffix)) {
        return None;
    }
    let is_suffix = suffix
        .chars()
        .next()
        .is_none_or(|c| (c.is_alphabetic() || c == '_') && suffix.chars().all(|c| c.is_alphanumeric() || c == '_'));
    if !is_suffix {
        return None;
    }
    let number: String = number.chars().filter(|&c| c != '_').collect();
    usize::from_str_radix(&number, radix).ok()
}

/// Whether `suffix`, after a decimal number, is a float's exponent such as `e3`, `E-2`, `e_1`.
fn is_exponent(suffix: &str) -> bool {
    let Some(rest) = suffix.strip_prefix(['e', 'E']) else {
        return false;
    };
    let rest = rest.trim_start_matches('_');
    rest.starts_with(['+', '-']) || rest.starts_with(|c: char| c.is_ascii_digit())
}

/// A length or capacity written as an integer literal, maybe in parentheses.
fn literal_usize(expr: &[TokenTree]) -> Option<usize> {
    match expr {
        [TokenTree::Literal(lit)] => int_literal(&lit.to_string()),
        [token] => group_tokens(token, Delimiter::None)
            .or_else(|| group_tokens(token, Delimiter::Parenthesis))
            .and_then(|inner| literal_usize(&inner)),
        _ => None,
    }
}

/// A const generic argument: `Some(Some(n))` for a literal, `Some(None)` for a named constant.
fn const_arg(arg: &GenericArg) -> Option<Option<usize>> {
    match arg {
        GenericArg::Const(e) => Some(literal_usize(e)),
        GenericArg::Type(t) if last_segment(t).is_some() => Some(None),
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

fn array_shape(ty: &[TokenTree]) -> Option<(ArrayShape, Vec<TokenTree>)> {
    let ty = unwrap_group(ty);
    if let [token] = ty.as_slice()
        && let Some(inner) = group_tokens(token, Delimiter::Bracket)
    {
        let semi = inner.iter().position(|t| is_punct(t, ';'))?;
        return Some((
            ArrayShape::Fixed(literal_usize(&inner[semi + 1..])),
            inner[..semi].to_vec(),
        ));
    }
    let (ident, args) = last_segment(&ty)?;
    match (ident.to_string().as_str(), generic_args(&args).as_slice()) {
        ("Vec", [GenericArg::Type(elem)]) => Some((ArrayShape::Vec, elem.clone())),
        ("ArrayVec", [GenericArg::Type(elem), n]) => Some((ArrayShape::Capacity(const_arg(n)?), elem.clone())),
        _ => None,
    }
}

fn is_str_type(ty: &[TokenTree]) -> bool {
    let ty = unwrap_group(ty);
    if let [amp, rest @ ..] = ty.as_slice()
        && is_punct(amp, '&')
    {
        let rest = match rest {
            [quote, TokenTree::Ident(_), rest @ ..] if is_punct(quote, '\'') => rest,
            _ => rest,
        };
        return !matches!(rest.first(), Some(TokenTree::Ident(m)) if m == "mut") && is_named(rest, "str");
    }
    match last_segment(&ty) {
        Some((ident, PathArgs::None)) => ident == "String",
        Some((ident, args)) => match (ident.to_string().as_str(), generic_args(&args).as_slice()) {
            ("Box", [GenericArg::Type(inner)]) => is_named(inner, "str"),
            ("ArrayString", [n]) => const_arg(n).is_some(),
            _ => false,
        },
        None => false,
    }
}

fn str_hint(_wire: StrWire) -> &'static str {
    "`String`, `Box<str>`, `&'a str` or `arrayvec::ArrayString<N>`"
}

/// Binds `input`'s fields to `layout`'s entries, returning every mismatch at once.
pub(crate) fn bind<'a>(input: &'a Item, layout: &Layout) -> Result<Bound<'a>, Vec<Error>> {
    let schema = &layout.schema;
    let fields: Vec<&Field> = match &input.data {
        Data::Struct(Fields::Named(named)) => named.iter().collect(),
        Data::Struct(_) => {
            return Err(vec![Error::new(
                input.ident.span(),
                format!("#[metalayer] needs a struct with named fields, one per entry of {schema}"),
            )]);
        }
        _ => {
            return Err(vec![Error::new(
                input.ident.span(),
                "#[metalayer(schema = ...)] applies to structs with named fields",
            )]);
        }
    };
    let field_name = |f: &Field| Some(f.ident.to_string().trim_start_matches("r#").to_string());

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
                errors.push(Error::new(f.ident.span(), why));
            }
            slots.push(Slot::Derived);
            continue;
        }
        let Some(field) = field else {
            errors.push(Error::new(
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
                if !is_named(&ty.tokens, wire.rust_type()) {
                    errors.push(Error::spanned(
                        &ty.tokens,
                        format!(
                            "`{}` cannot hold the {} entry `{}` of {schema}: use `{}`",
                            ty.text(),
                            wire.name(),
                            entry.name,
                            wire.rust_type()
                        ),
                    ));
                }
            }
            EntryKind::Str { wire } => {
                if !is_str_type(&ty.tokens) {
                    errors.push(Error::spanned(
                        &ty.tokens,
                        format!(
                            "`{}` cannot hold the {} entry `{}` of {schema}: use {}",
                            ty.text(),
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
                match array_shape(&ty.tokens) {
                    Some((shape, elem)) if is_named(&elem, element.rust_type()) => match shape {
                        ArrayShape::Fixed(Some(n)) => {
                            if n < min || n > max {
                                errors.push(Error::spanned(
                                    &ty.tokens,
                                    format!(
                                        "`{}` has {n} elements, but `{}` is counted by `{count_name}`, which {schema} allows in {min}..={max}",
                                        ty.text(),
                                        entry.name
                                    ),
                                ));
                            } else if let Some((_, other, m)) =
                                fixed_lengths.iter().find(|(c, _, m)| c == count && *m != n)
                            {
                                errors.push(Error::spanned(
                                    &ty.tokens,
                                    format!(
                                        "`{}` gives `{}` {n} elements but `{other}` has {m}, and both are counted by `{count_name}`",
                                        ty.text(),
                                        entry.name
                                    ),
                                ));
                            } else {
                                fixed_lengths.push((*count, &entry.name, n));
                            }
                        }
                        ArrayShape::Capacity(Some(n)) if n < min => {
                            errors.push(Error::spanned(
                                &ty.tokens,
                                format!(
                                    "`{}` holds at most {n} elements, but `{}` always has at least {min} (`{count_name}` is at least {min} in {schema})",
                                    ty.text(),
                                    entry.name
                                ),
                            ));
                        }
                        _ => {}
                    },
                    _ => errors.push(Error::spanned(
                        &ty.tokens,
                        format!(
                            "`{}` cannot hold the array of {} entry `{}` of {schema}: use `Vec<{r}>`, `[{r}; N]` or `arrayvec::ArrayVec<{r}, N>`",
                            ty.text(),
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
            errors.push(Error::new(
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

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<TokenTree> {
        text.parse::<proc_macro2::TokenStream>()
            .expect("tokens")
            .into_iter()
            .collect()
    }

    fn is_array_of(text: &str, element: &str) -> Option<(&'static str, Option<usize>)> {
        let (shape, elem) = array_shape(&tokens(text))?;
        if !is_named(&elem, element) {
            return None;
        }
        Some(match shape {
            ArrayShape::Vec => ("vec", None),
            ArrayShape::Fixed(n) => ("fixed", n),
            ArrayShape::Capacity(n) => ("capacity", n),
        })
    }

    #[test]
    fn integer_types_are_named_exactly() {
        for ty in [
            "i64",
            "std::primitive::i64",
            "::core::primitive::i64",
            "(i64)",
            "((i64))",
        ] {
            assert!(is_named(&tokens(ty), "i64"), "{ty}");
        }
        let refused = [
            "i32",
            "i64<>",
            "i64::<>",
            "(i64,)",
            "<i64 as X>::i64",
            "r#i64",
            "&i64",
            "[i64; 1]",
            "Vec<i64>",
            "i64::Foo",
            "fn() -> i64",
            "dyn i64",
            "_",
            "i64 + Send",
        ];
        for ty in refused {
            assert!(!is_named(&tokens(ty), "i64"), "{ty}");
        }
    }

    #[test]
    fn array_types() {
        let accepted = [
            ("Vec<i64>", ("vec", None)),
            ("std::vec::Vec<i64>", ("vec", None)),
            ("Vec::<i64>", ("vec", None)),
            ("Vec<(i64)>", ("vec", None)),
            ("(Vec<i64>)", ("vec", None)),
            ("Vec<core::primitive::i64>", ("vec", None)),
            ("[i64; 3]", ("fixed", Some(3))),
            ("[i64; 0x3]", ("fixed", Some(3))),
            ("[i64; 1_7]", ("fixed", Some(17))),
            ("[i64; 3usize]", ("fixed", Some(3))),
            ("[i64; (3)]", ("fixed", Some(3))),
            ("[i64; N]", ("fixed", None)),
            ("[i64; 2 + 1]", ("fixed", None)),
            ("[i64; 1e3]", ("fixed", None)),
            ("ArrayVec<i64, 16>", ("capacity", Some(16))),
            ("arrayvec::ArrayVec<i64, 0b10000>", ("capacity", Some(16))),
            ("ArrayVec<i64, { 16 }>", ("capacity", None)),
            ("ArrayVec<i64, N>", ("capacity", None)),
            ("ArrayVec<i64, -1>", ("capacity", None)),
            ("ArrayVec<i64, 99999999999999999999999999>", ("capacity", None)),
        ];
        for (ty, shape) in accepted {
            assert_eq!(is_array_of(ty, "i64"), Some(shape), "{ty}");
        }
        let refused = [
            "Vec<i32>",
            "Vec<Vec<i64>>",
            "Vec<i64, A>",
            "Vec<Item = i64>",
            "Vec<'a>",
            "Vec<&i64>",
            "[i64]",
            "[[i64; 3]; 3]",
            "&[i64]",
            "ArrayVec<i64>",
            "ArrayVec<i64, 16, 3>",
            "ArrayVec<i64, 'a>",
            "ArrayVec<'a, i64>",
            "ArrayVec<i64, [u8; 2]>",
            "ArrayVec<i64, fn()>",
            "ArrayVec<i64, _>",
        ];
        for ty in refused {
            assert_eq!(is_array_of(ty, "i64"), None, "{ty}");
        }
    }

    #[test]
    fn string_types() {
        let accepted = [
            "String",
            "std::string::String",
            "Box<str>",
            "alloc::boxed::Box<str>",
            "Box<(str)>",
            "&str",
            "&'a str",
            "& 'static str",
            "&'a core::primitive::str",
            "&(str)",
            "ArrayString<16>",
            "ArrayString<N>",
            "ArrayString<{ 16 }>",
            "ArrayString<-3>",
            "(String)",
        ];
        for ty in accepted {
            assert!(is_str_type(&tokens(ty)), "{ty}");
        }
        let refused = [
            "String<>",
            "str",
            "&mut str",
            "&'a mut str",
            "&&str",
            "Box<&str>",
            "Box<str, A>",
            "Box<String>",
            "ArrayString",
            "ArrayString<16, 3>",
            "ArrayString<'a>",
            "ArrayString<[u8; 2]>",
            "Cow<'a, str>",
            "&[u8]",
            "*const str",
            "&r#str",
        ];
        for ty in refused {
            assert!(!is_str_type(&tokens(ty)), "{ty}");
        }
    }

    #[test]
    fn integer_literals() {
        let cases = [
            ("16", Some(16)),
            ("1_6", Some(16)),
            ("0x10", Some(16)),
            ("0o20", Some(16)),
            ("0b1_0000", Some(16)),
            ("16usize", Some(16)),
            ("16u8", Some(16)),
            ("0x1f32", Some(0x1f32)),
            ("16.0", None),
            ("1e3", None),
            ("1E+3", None),
            ("0b2", None),
            ("'x'", None),
            ("\"16\"", None),
        ];
        for (text, value) in cases {
            assert_eq!(int_literal(text), value, "{text}");
        }
    }

    fn bind_messages(fields: &str) -> Vec<String> {
        let layout = metalayer_layout::builtin_layout("b2nd_v1").expect("built-in");
        let text = format!("pub struct Meta<'a> {{ {fields} }}");
        let item = match crate::item::parse(text.parse().unwrap()) {
            Ok(item) => item,
            Err(e) => panic!("{}", e.message()),
        };
        match bind(&item, &layout) {
            Ok(_) => Vec::new(),
            Err(errors) => errors.iter().map(|e| e.message().to_string()).collect(),
        }
    }

    #[test]
    fn a_nested_vector_is_refused_with_the_array_message() {
        let messages = bind_messages(
            "shape: Vec<Vec<i64>>, chunkshape: Vec<i32>, blockshape: Vec<i32>, dtype_format: u8, dtype: String",
        );
        assert_eq!(
            messages,
            [
                "`Vec<Vec<i64>>` cannot hold the array of int64 entry `shape` of b2nd_v1: use `Vec<i64>`, `[i64; N]` or `arrayvec::ArrayVec<i64, N>`"
            ]
        );
    }

    #[test]
    fn raw_field_names_and_attributes_bind() {
        let messages = bind_messages(
            "/// Shape.\n#[allow(unused)] pub(in crate::x) r#shape: [i64; 2], pub chunkshape: arrayvec::ArrayVec<i32, 8>, blockshape: [i32; 2], dtype_format: u8, dtype: &'a str,",
        );
        assert_eq!(messages, Vec::<String>::new());
    }

    #[test]
    fn mismatches_are_all_reported() {
        let messages =
            bind_messages("shape: [i64; 2], chunkshape: [i32; 3], blockshape: Vec<i32>, dtype_format: i8, r#type: u8");
        assert_eq!(
            messages,
            [
                "`[i32; 3]` gives `chunkshape` 3 elements but `shape` has 2, and both are counted by `ndim`",
                "`i8` cannot hold the fixint entry `dtype_format` of b2nd_v1: use `u8`",
                "missing field for the str32 entry `dtype` of b2nd_v1: add `dtype: String`",
                "`type` is not an entry of b2nd_v1; the fields it takes are: shape, chunkshape, blockshape, dtype_format, dtype",
            ]
        );
    }
}
