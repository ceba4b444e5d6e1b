//! Rust's keywords, which entry names become in generated code: the schema checker refuses the
//! ones that cannot be raw identifiers, and code generation writes the others as raw
//! identifiers (`r#type`).
//!
//! ```
//! use metalayer_layout::keywords;
//!
//! assert!(keywords::is_keyword("try") && keywords::can_be_raw("try"));
//! assert!(keywords::is_keyword("self") && !keywords::can_be_raw("self"));
//! assert!(!keywords::is_keyword("shape"));
//! ```

/// The strict keywords of Rust 2024 (the Rust Reference, "Keywords"); `async`, `await` and
/// `dyn` are keywords from the 2018 edition on. Generated code lands in crates of every edition,
/// so a name that is a keyword in one of them is one here.
pub const STRICT: &[&str] = &[
    "_", "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false", "fn",
    "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "Self",
    "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while",
];

/// The reserved keywords of Rust 2024: unused, but not identifiers either. `try` is reserved
/// from the 2018 edition on, `gen` from the 2024 edition on.
///
/// The weak keywords (`union`, `raw`, `safe`, `macro_rules`, `'static`) are identifiers
/// wherever an entry's name appears, so neither list has them.
pub const RESERVED: &[&str] = &[
    "abstract", "become", "box", "do", "final", "gen", "macro", "override", "priv", "try", "typeof", "unsized",
    "virtual", "yield",
];

/// The keywords that cannot be raw identifiers: `r#crate`, `r#self`, `r#Self`, `r#super` and
/// `r#_` are not Rust.
const NOT_RAW: &[&str] = &["_", "crate", "self", "Self", "super"];

/// Whether `name` is a Rust keyword, strict or reserved, in any edition.
pub fn is_keyword(name: &str) -> bool {
    STRICT.contains(&name) || RESERVED.contains(&name)
}

/// Whether `name` can be an identifier in Rust code, as itself or as a raw identifier
/// `r#name`: every name but `_`, `crate`, `self`, `Self` and `super`.
pub fn can_be_raw(name: &str) -> bool {
    !NOT_RAW.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_lists_are_all_here() {
        // The Rust Reference's lists, 2024 edition: 39 strict keywords (with `_`) and 14
        // reserved ones.
        assert_eq!((STRICT.len(), RESERVED.len()), (39, 14));
        for k in [
            "try", "gen", "async", "await", "dyn", "abstract", "yield", "box", "become", "Self",
        ] {
            assert!(is_keyword(k), "{k}");
        }
        for weak in ["union", "raw", "safe", "macro_rules", "shape"] {
            assert!(!is_keyword(weak), "{weak}");
        }
    }

    #[test]
    fn only_path_keywords_cannot_be_raw() {
        let refused: Vec<&str> = STRICT
            .iter()
            .chain(RESERVED)
            .copied()
            .filter(|k| !can_be_raw(k))
            .collect();
        assert_eq!(refused, ["_", "crate", "self", "Self", "super"]);
    }
}
