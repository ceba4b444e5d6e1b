//! The metalayer schema language: one TOML file per layout version, parsed with spans, checked
//! for self-consistency, and turned into a [`Layout`], the model that code generation, error
//! messages and documentation are derived from.
//!
//! The `#[metalayer]` macro uses this crate at compile time; tools can use it at run time.
//!
//! ```
//! use metalayer_layout::{EntryKind, IntRole, parse};
//!
//! let text = r#"
//! [schema]
//! metalayer = "pair"
//! description = "Two shapes of one rank"
//! source = "an example"
//!
//! [container]
//! wire = "fixarray"
//! marker = 0x93
//!
//! [[entry]]
//! name = "ndim"
//! wire = "fixint"
//! max = 8
//! length_of = ["shape"]
//!
//! [[entry]]
//! name = "shape"
//! wire = "array"
//! marker = 0x90
//! count = "ndim"
//! element = { wire = "int64", marker = 0xd3, width = 8 }
//!
//! [[entry]]
//! name = "label"
//! wire = "str8"
//! marker = 0xd9
//! width = 1
//! "#;
//! let layout = parse("pair_v0", text).unwrap();
//! assert_eq!(layout.container_marker, 0x93);
//! assert!(matches!(layout.entries[0].kind, EntryKind::Int { role: IntRole::Count { max: 8, .. }, .. }));
//!
//! // A marker that does not belong to its wire type is refused, with its line and column.
//! let bad = text.replace("marker = 0xd3", "marker = 0xd2");
//! let errors = parse("pair_v0", &bad).unwrap_err();
//! assert_eq!(
//!     errors[0].render("pair_v0.toml", &bad).lines().next().unwrap(),
//!     "pair_v0.toml:22:38: marker 0xd2 does not belong to int64: its marker is 0xd3"
//! );
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod check;
mod diagnostic;
mod model;
mod parse;
pub mod render;

pub use diagnostic::{Diagnostic, Diagnostics};
pub use model::{Entry, EntryKind, IntRole, IntWire, Layout, StrWire};
pub use render::{
    ElementOffsets, Formula, diagram, element_offsets, formulas, length_formula, offset_formula, size_formula,
    value_offset_formula,
};

/// Parses and checks schema text; `schema` is the schema's name (its file stem). On failure,
/// returns every problem found, in file order where possible.
///
/// ```
/// let errors = metalayer_layout::parse("x", "[container]\nwire = \"fixarray\"\nmarker = 0x91\n").unwrap_err();
/// assert!(errors.iter().any(|e| e.message == "[schema] needs `metalayer`"));
/// ```
pub fn parse(schema: &str, text: &str) -> Result<Layout, Diagnostics> {
    let mut diags = Vec::new();
    let raw = parse::parse(text, &mut diags);
    if !diags.is_empty() && raw.entries.is_empty() && raw.container.is_none() {
        return Err(Diagnostics::new(schema, text, diags));
    }
    let layout = check::check(schema, raw, &mut diags);
    match layout {
        Some(layout) if diags.is_empty() => Ok(layout),
        _ => {
            diags.sort_by_key(|d| d.span.start);
            Err(Diagnostics::new(schema, text, diags))
        }
    }
}

/// A schema shipped with this crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Builtin {
    /// The schema's name (`b2nd_v1`).
    pub name: &'static str,
    /// The schema file's text.
    pub text: &'static str,
}

/// The built-in schemas, oldest first.
///
/// ```
/// let names: Vec<_> = metalayer_layout::BUILTINS.iter().map(|b| b.name).collect();
/// assert_eq!(names, ["caterva_v0", "b2nd_v0", "b2nd_v1"]);
/// ```
pub const BUILTINS: &[Builtin] = &[
    Builtin {
        name: "caterva_v0",
        text: include_str!("../schemas/caterva_v0.toml"),
    },
    Builtin {
        name: "b2nd_v0",
        text: include_str!("../schemas/b2nd_v0.toml"),
    },
    Builtin {
        name: "b2nd_v1",
        text: include_str!("../schemas/b2nd_v1.toml"),
    },
];

/// The built-in schema of that name.
///
/// ```
/// assert!(metalayer_layout::builtin("b2nd_v1").is_some());
/// assert!(metalayer_layout::builtin("b2nd_v9").is_none());
/// ```
pub fn builtin(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}

/// The checked layout of a built-in schema.
///
/// ```
/// let layout = metalayer_layout::builtin_layout("b2nd_v1").unwrap();
/// assert_eq!(layout.metalayer, "b2nd");
/// assert_eq!(layout.entries.len(), 7);
/// ```
pub fn builtin_layout(name: &str) -> Option<Layout> {
    builtin(name).and_then(|b| parse(b.name, b.text).ok())
}
