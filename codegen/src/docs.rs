//! What the generated type documents about its layout.

use metalayer_layout::Layout;
use proc_macro2::TokenStream;

use crate::expand::Target;
use crate::item::{Attribute, Item};

/// Appends the layout's description to the struct's documentation.
pub(crate) fn add_layout_docs(input: &mut Item, layout: &Layout, target: &Target<'_>) {
    let what = match target {
        Target::Type(i, _) => format!("record type `{}` of schema `{}`", layout.types[*i].name, layout.schema),
        _ => format!("schema `{}`", layout.schema),
    };
    input
        .attrs
        .push(Attribute::doc(&format!("\n\n# Layout\n\nGenerated from {what}.")));
}

/// `const fn`s for the encoded length and each entry's offset.
pub(crate) fn formula_fns(_input: &Item, _layout: &Layout, _target: &Target<'_>) -> TokenStream {
    TokenStream::new()
}
