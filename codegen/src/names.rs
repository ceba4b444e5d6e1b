//! Every name the generated code introduces, in one place, so that no two generators can pick
//! the same one and none can clash with a user's field (they all start with `__`).

use proc_macro2::Ident;
use quote::format_ident;

/// The decoder.
pub(crate) fn decoder() -> Ident {
    format_ident!("__d")
}

/// The encoder.
pub(crate) fn encoder() -> Ident {
    format_ident!("__e")
}

/// The schema name in checks (`Self::SCHEMA`, or the caller's for a nested record).
pub(crate) fn schema() -> Ident {
    format_ident!("__schema")
}

/// The offset a value starts at, for its errors.
pub(crate) fn at(depth: usize) -> Ident {
    format_ident!("__at{}", depth)
}

/// A decoded integer, before it becomes the field's type.
pub(crate) fn int(depth: usize) -> Ident {
    format_ident!("__v{}", depth)
}

/// A decoded length or count.
pub(crate) fn len(depth: usize) -> Ident {
    format_ident!("__n{}", depth)
}

/// An array or map being filled.
pub(crate) fn array(depth: usize) -> Ident {
    format_ident!("__a{}", depth)
}

/// The index of the element being read or checked.
pub(crate) fn index(depth: usize) -> Ident {
    format_ident!("__i{}", depth)
}

/// The element being written, checked or measured.
pub(crate) fn element(depth: usize) -> Ident {
    format_ident!("__x{}", depth)
}

/// A present optional value.
pub(crate) fn present(depth: usize) -> Ident {
    format_ident!("__o{}", depth)
}

/// The number of entries a record's header states.
pub(crate) fn entries() -> Ident {
    format_ident!("__entries")
}

/// The number of leading optional entries present, on encode.
pub(crate) fn present_count() -> Ident {
    format_ident!("__present")
}

/// A count entry's value.
pub(crate) fn count(entry: &str) -> Ident {
    format_ident!("__count_{}", entry)
}

/// A field's decoded value, before the struct is built.
pub(crate) fn field(entry: &str) -> Ident {
    format_ident!("__field_{}", entry)
}
