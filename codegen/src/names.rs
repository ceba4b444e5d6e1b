//! Every name the generated code introduces, in one place: the locals, closure arguments and
//! parameters it binds, and the names it derives from a schema's entry names. No two generators
//! can pick the same one, and the names bound inside generated bodies cannot clash with a
//! user's field or item: they all start with `__`. The exceptions are the parameters of public
//! functions, which rustdoc shows and so read plainly, and the names made from entry names.
//!
//! The methods and constants the generated impls define (`encoded_len_for`, `LENGTH_FORMULA`,
//! a dispatch enum's `decode`, ...) are the API; they are named where they are documented. The
//! impls the runtime's macros write (a dispatch enum's, `__dispatch_impl!`, and the fallback
//! impls beside compile errors, `__fallback_impls!`) bind their own names, which the macros'
//! hygiene keeps apart from these.

use core::ops::Range;

use metalayer_layout::{Layout, Record, Type, keywords};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

/// A name as generated code writes it, at the call site.
fn ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

/// The runtime's path in generated code: the facade crate's hidden module.
pub(crate) fn runtime(krate: &TokenStream) -> TokenStream {
    quote!(#krate::__private)
}

// ---------------------------------------------------------------- decoding

/// The input of `decode` and `decode_prefix`.
pub(crate) fn input() -> Ident {
    ident("__input")
}

/// The decoder `decode` and `decode_prefix` own; [`decoder`] borrows it.
pub(crate) fn decoder_owned() -> Ident {
    ident("__decoder")
}

/// The decoder.
pub(crate) fn decoder() -> Ident {
    ident("__d")
}

/// The number of bytes `decode_prefix` read.
pub(crate) fn used() -> Ident {
    ident("__used")
}

/// The offset a value starts at, for its errors.
pub(crate) fn at(depth: usize) -> Ident {
    ident(&format!("__at{depth}"))
}

/// A decoded integer, before it becomes the field's type.
pub(crate) fn int(depth: usize) -> Ident {
    ident(&format!("__v{depth}"))
}

/// A decoded length or count.
pub(crate) fn len(depth: usize) -> Ident {
    ident(&format!("__n{depth}"))
}

/// An array or map being filled.
pub(crate) fn array(depth: usize) -> Ident {
    ident(&format!("__a{depth}"))
}

/// The index of the element being read or checked.
pub(crate) fn index(depth: usize) -> Ident {
    ident(&format!("__i{depth}"))
}

/// A decoded element, before it is stored in its array.
pub(crate) fn decoded_element() -> Ident {
    ident("__element")
}

/// A decoded map key, before it is paired with its value.
pub(crate) fn key() -> Ident {
    ident("__key")
}

/// A decoded map value, before it is paired with its key.
pub(crate) fn value() -> Ident {
    ident("__value")
}

/// The payload of a string, bin or ext value, borrowed from the input (or, on encode, from the
/// field).
pub(crate) fn bytes() -> Ident {
    ident("__bytes")
}

/// Where a string's payload starts, for a UTF-8 error.
pub(crate) fn text_start() -> Ident {
    ident("__start")
}

/// A decoded string.
pub(crate) fn text() -> Ident {
    ident("__text")
}

/// A decoded ext value's type.
pub(crate) fn ext_type() -> Ident {
    ident("__ty")
}

/// The payload bytes of a float constant.
pub(crate) fn float_bits() -> Ident {
    ident("__bits")
}

/// A field type's error, in a closure that places it in the input.
pub(crate) fn error_kind() -> Ident {
    ident("__kind")
}

/// A string type's capacity, in a closure that reports a string too long for it.
pub(crate) fn capacity() -> Ident {
    ident("__capacity")
}

/// A nested record's error, in a closure that adds the path to it.
pub(crate) fn nested_error() -> Ident {
    ident("__error")
}

/// The number of entries a record's header states.
pub(crate) fn entries() -> Ident {
    ident("__entries")
}

/// A count entry's value.
pub(crate) fn count(entry: &str) -> Ident {
    ident(&format!("__count_{entry}"))
}

/// A field's decoded value, before the struct is built.
pub(crate) fn field(entry: &str) -> Ident {
    ident(&format!("__field_{entry}"))
}

// ---------------------------------------------------------------- checking and encoding

/// The schema name in checks (`Self::SCHEMA`, or the caller's for a nested record).
pub(crate) fn schema() -> Ident {
    ident("__schema")
}

/// The first optional entry found absent, while checking that none after it is present.
pub(crate) fn absent() -> Ident {
    ident("__absent")
}

/// Whether the optional entry being checked is present.
pub(crate) fn is_present() -> Ident {
    ident("__is")
}

/// The buffer of `encode_into`.
pub(crate) fn buf() -> Ident {
    ident("__buf")
}

/// The encoded length `encode_into` writes.
pub(crate) fn total_len() -> Ident {
    ident("__len")
}

/// The encoder `encode_into` owns; [`encoder`] borrows it.
pub(crate) fn encoder_owned() -> Ident {
    ident("__encoder")
}

/// The encoder.
pub(crate) fn encoder() -> Ident {
    ident("__e")
}

/// The element being written, checked or measured.
pub(crate) fn element(depth: usize) -> Ident {
    ident(&format!("__x{depth}"))
}

/// A present optional value.
pub(crate) fn present(depth: usize) -> Ident {
    ident(&format!("__o{depth}"))
}

/// The number of leading optional entries present, on encode.
pub(crate) fn present_count() -> Ident {
    ident("__present")
}

/// The data of an ext value being written.
pub(crate) fn ext_data() -> Ident {
    ident("__data")
}

// ---------------------------------------------------------------- names from the schema

/// The Rust identifier of an entry's name: the name itself, or the raw identifier `r#name`
/// for a Rust keyword. The schema checker refuses the keywords that cannot be raw
/// (`crate`, `self`, `super`), so every name that reaches here has one.
pub(crate) fn entry(name: &str) -> Ident {
    if keywords::is_keyword(name) {
        Ident::new_raw(name, Span::call_site())
    } else {
        ident(name)
    }
}

/// The length formulas' argument for the length of string entry `entry`.
pub(crate) fn len_arg(entry: &str) -> Ident {
    ident(&format!("{entry}_len"))
}

/// The function giving entry `entry`'s offset.
pub(crate) fn offset_fn(entry: &str) -> Ident {
    ident(&format!("{entry}_offset"))
}

/// The function giving the offset of an element of array `entry`.
pub(crate) fn element_offset_fn(entry: &str) -> Ident {
    ident(&format!("{entry}_element_offset"))
}

/// The element index argument of an `*_element_offset` function: `i`, or, when one of the
/// formulas' other arguments (a count entry's name) is `i`, the first of `i_`, `i__`, ... that
/// none is.
pub(crate) fn element_index(args: &[Ident]) -> Ident {
    let mut name = String::from("i");
    while args.iter().any(|a| *a == name) {
        name.push('_');
    }
    ident(&name)
}

// ---------------------------------------------------------------- clashes among them

/// An entry of a schema whose generated name is one generated for another entry.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct NameClash {
    /// The file the entry is in: an index into [`Layout::files`].
    pub file: usize,
    /// The entry's table in that file.
    pub span: Range<usize>,
    /// What clashes.
    pub message: String,
}

/// Rule: no entry's offset function ([`offset_fn`], `<name>_offset`) is the element offset
/// function ([`element_offset_fn`], `<array>_element_offset`) of an array of its record. The
/// clashes in every record of the layout (its top-level record and its record types), each
/// placed at the entry that is not the array. A struct bound to any of the records would
/// define both functions, so the schema cannot be used as it is.
pub(crate) fn check_offset_fn_clashes(layout: &Layout) -> Vec<NameClash> {
    let mut clashes = Vec::new();
    if let Type::Record(root) = &layout.root.ty {
        offset_fn_clashes(root, &mut clashes);
    }
    for t in &layout.types {
        offset_fn_clashes(&t.record, &mut clashes);
    }
    clashes
}

/// [`check_offset_fn_clashes`] in one record.
fn offset_fn_clashes(record: &Record, clashes: &mut Vec<NameClash>) {
    for array in &record.entries {
        if !matches!(array.node.ty, Type::Array(_)) {
            continue;
        }
        let element_fn = element_offset_fn(&array.name);
        for other in &record.entries {
            if offset_fn(&other.name) != element_fn {
                continue;
            }
            clashes.push(NameClash {
                file: other.node.file,
                span: other.span.clone(),
                message: format!(
                    "entry `{}` clashes with the array `{}`: both would generate `{element_fn}`; rename one",
                    other.name, array.name
                ),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The clashes of schema text `body` (after a `[schema]` table of four lines), each as
    /// `(file, line, column, message)`.
    fn clashes(body: &str) -> Vec<(usize, usize, usize, String)> {
        let text = format!("[schema]\nmetalayer = \"m\"\ndescription = \"d\"\nsource = \"s\"\n{body}");
        let layout = metalayer_layout::parse("t", &text).unwrap_or_else(|e| panic!("{e}"));
        super::check_offset_fn_clashes(&layout)
            .into_iter()
            .map(|c| {
                let (line, column) = metalayer_layout::Diagnostic::new(c.span, "").line_column(&text);
                (c.file, line, column, c.message)
            })
            .collect()
    }

    #[test]
    fn check_offset_fn_clashes() {
        // Lines 5-6 the container, 7 [[entry]] a (8-10), 11 [[entry]] a_element (12-13).
        let body = "[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"a\"\nwire = \"array\"\nelement = { wire = \"int\" }\n[[entry]]\nname = \"a_element\"\nwire = \"int\"\n";
        let message =
            "entry `a_element` clashes with the array `a`: both would generate `a_element_offset`; rename one";
        assert_eq!(clashes(body), [(0, 11, 1, message.to_string())]);
        // The entry may come first, and the clash is in a record type too.
        let body = "[value]\ntype = \"t\"\n[types.t]\nwire = \"fixarray\"\n[[types.t.entry]]\nname = \"a_element\"\nwire = \"int\"\n[[types.t.entry]]\nname = \"a\"\nwire = \"array\"\nelement = { wire = \"int\" }\n";
        assert_eq!(clashes(body), [(0, 9, 1, message.to_string())]);
        // `a_element` beside a non-array `a`, or an array `b`, generates nothing twice.
        let body = "[container]\nwire = \"fixarray\"\n[[entry]]\nname = \"a\"\nwire = \"int\"\n[[entry]]\nname = \"a_element\"\nwire = \"int\"\n[[entry]]\nname = \"b\"\nwire = \"array\"\nelement = { wire = \"int\" }\n";
        assert_eq!(clashes(body), []);
    }

    #[test]
    fn keywords_become_raw_identifiers() {
        assert_eq!(entry("shape").to_string(), "shape");
        assert_eq!(entry("try").to_string(), "r#try");
        assert_eq!(entry("type").to_string(), "r#type");
        assert_eq!(entry("gen").to_string(), "r#gen");
        // Weak keywords are identifiers everywhere they can appear here.
        assert_eq!(entry("union").to_string(), "union");
    }

    #[test]
    fn no_two_names_are_the_same() {
        let mut all: Vec<String> = [
            input(),
            decoder_owned(),
            decoder(),
            used(),
            decoded_element(),
            key(),
            value(),
            bytes(),
            text_start(),
            text(),
            ext_type(),
            float_bits(),
            error_kind(),
            capacity(),
            nested_error(),
            entries(),
            schema(),
            absent(),
            is_present(),
            buf(),
            total_len(),
            encoder_owned(),
            encoder(),
            present_count(),
            ext_data(),
        ]
        .iter()
        .map(Ident::to_string)
        .collect();
        for depth in 0..12 {
            for f in [at, int, len, array, index, element, present] {
                all.push(f(depth).to_string());
            }
        }
        // A count's and a field's names carry a prefix no other name has.
        for entry in ["a", "s", "value", "_"] {
            all.push(count(entry).to_string());
            all.push(field(entry).to_string());
        }
        let n = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), n);
        assert!(all.iter().all(|name| name.starts_with("__")));
    }

    #[test]
    fn the_element_index_avoids_the_other_arguments() {
        assert_eq!(element_index(&[]).to_string(), "i");
        assert_eq!(element_index(&[ident("ndim")]).to_string(), "i");
        assert_eq!(element_index(&[ident("i")]).to_string(), "i_");
        assert_eq!(element_index(&[ident("i_"), ident("i")]).to_string(), "i__");
    }
}
