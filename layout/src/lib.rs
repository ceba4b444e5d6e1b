//! The metalayer schema language: one TOML file per layout version, parsed with spans, checked
//! for self-consistency, and turned into a [`Layout`], the model that code generation, error
//! messages and documentation are derived from.
//!
//! The `#[metalayer]` macro uses this crate at compile time; tools can use it at run time.
//!
//! ```
//! use metalayer_layout::{Count, Role, Type, parse};
//!
//! let text = r#"
//! [schema]
//! metalayer = "pair"
//! description = "Two shapes of one rank, and a label"
//! source = "an example"
//!
//! [container]
//! wire = "fixarray"
//! marker = 0x94
//!
//! [[entry]]
//! name = "ndim"
//! wire = "fixint"
//! max = 8
//! length_of = ["shape", "chunks"]
//!
//! [[entry]]
//! name = "shape"
//! wire = "fixarray"
//! count = "ndim"
//! element = { wire = "int64" }
//!
//! [[entry]]
//! name = "chunks"
//! wire = "fixarray"
//! count = "ndim"
//! element = { wire = "int32" }
//!
//! [[entry]]
//! name = "label"
//! wire = "str8"
//! "#;
//! let layout = parse("pair_v0", text).unwrap();
//! let root = layout.root_record().unwrap();
//! assert_eq!(root.entries[0].role, Role::Count { of: vec![1, 2] });
//! assert!(matches!(&root.entries[1].node.ty, Type::Array(a) if a.count == Count::Entry(0)));
//!
//! // One size formula: the documentation prints it, offsets and `encoded_len` are built on it.
//! assert_eq!(metalayer_layout::length_formula(&layout).to_string(), "6 + 14*ndim + len(label)");
//! assert_eq!(metalayer_layout::offset_formula(&layout, root, 3).unwrap().to_string(), "4 + 14*ndim");
//!
//! // A marker that does not belong to its wire type is refused, with its line and column.
//! let bad = text.replace("wire = \"int64\" }", "wire = \"int64\", marker = 0xd2 }");
//! let errors = parse("pair_v0", &bad).unwrap_err();
//! assert_eq!(
//!     errors[0].render("pair_v0.toml", &bad).lines().next().unwrap(),
//!     "pair_v0.toml:21:38: marker 0xd2 does not belong to int64: its marker is 0xd3"
//! );
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod builtin;
mod check;
mod diagnostic;
pub mod encoding;
pub mod keywords;
pub mod load;
mod model;
mod order;
mod parse;
mod parting;
pub mod render;
pub mod size;

pub use builtin::{Builtin, also_stored_as, builtin, builtins};
// The sets of built-in schemas, and their names and layouts, as the workspace's other crates
// (the attribute, the facade's registry) read them. A user looks a built-in up one way,
// `builtin(name)` (and `Builtin::layout` for its layout), and lists them with `builtins()`.
#[doc(hidden)]
pub use builtin::{BUILTINS, FRAME, PYTHON_BLOSC2, builtin_layout, builtin_names};
pub use check::Resolve;
pub use diagnostic::{Diagnostic, Diagnostics, Origin, report_order};
pub use load::{Found, LoadError, Loader, Source};
pub use model::{
    ArrayType, BinType, Const, Count, Encoding, Entry, ExtType, Family, IntType, Layout, MapType, NESTING_LIMIT, Node,
    Record, RecordType, Role, SchemaFile, StrType, Type, Wire,
};
pub use parting::{Overlap, OverlapReason, Parting, Probe, probes};
pub use render::{
    ElementOffsets, diagram, element_offsets, formulas, length_formula, offset_formula, record_diagram, size_formula,
    value_offset_formula,
};
pub use size::Size;

/// Parses and checks schema text; `schema` is the schema's name (its file stem). A schema that
/// extends or includes another can name the built-ins only, as a schema that is no file does
/// ([`Loader::reference`]); a [`Loader`] reads files. On failure, returns every problem found,
/// in file order where possible.
///
/// ```
/// let errors = metalayer_layout::parse("x", "[container]\nwire = \"fixarray\"\nmarker = 0x91\n").unwrap_err();
/// let messages: Vec<&str> = errors.iter().map(|e| e.message.as_str()).collect();
/// assert_eq!(
///     messages,
///     [
///         "the schema file needs a [schema] table with `metalayer`, `description` and `source`",
///         "container marker 0x91 states 1 entries, but the container has 0",
///     ]
/// );
/// ```
pub fn parse(schema: &str, text: &str) -> Result<Layout, Diagnostics> {
    let source = Source {
        name: schema.to_string(),
        path: None,
        text: text.to_string(),
    };
    Loader::new().layout(source)
}

/// [`parse`] with `resolve` finding the files the schema extends or includes, such as schemas
/// held in memory. [`Loader::layout`] finds them as the attribute and the command do.
///
/// ```
/// use metalayer_layout::{Source, parse_with};
///
/// let common = "[types.point]\nwire = \"fixarray\"\n[[types.point.entry]]\nname = \"x\"\nwire = \"int\"\n";
/// let main = "[schema]\nmetalayer = \"m\"\ndescription = \"d\"\nsource = \"s\"\ninclude = [\"common.toml\"]\n[value]\ntype = \"point\"\n";
/// let source = Source { name: "m_v0".into(), path: None, text: main.into() };
/// let layout = parse_with(source, &mut |reference, _| {
///     assert_eq!(reference, "common.toml");
///     Ok(Source { name: reference.into(), path: None, text: common.into() })
/// })
/// .unwrap();
/// assert_eq!(layout.types[0].name, "point");
/// ```
pub fn parse_with(source: Source, resolve: &mut Resolve<'_>) -> Result<Layout, Diagnostics> {
    let (name, text) = (source.name.clone(), source.text.clone());
    check::check(source, resolve).map_err(|diags| Diagnostics::new(&name, &text, diags))
}
