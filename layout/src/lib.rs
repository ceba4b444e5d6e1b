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

mod check;
mod diagnostic;
pub mod encoding;
pub mod keywords;
mod model;
mod parse;
mod parting;
pub mod render;
pub mod size;

pub use check::{Loader, Source};
pub use diagnostic::{Diagnostic, Diagnostics, Origin};
pub use model::{
    ArrayType, Const, Count, Encoding, Entry, ExtType, Family, IntType, Layout, MapType, Node, Record, RecordType,
    Role, SchemaFile, StrType, Type, Wire,
};
pub use parting::{Overlap, OverlapReason, Parting, Probe, probes};
pub use render::{
    ElementOffsets, diagram, element_offsets, formulas, length_formula, offset_formula, record_diagram, size_formula,
    value_offset_formula,
};
pub use size::Size;

/// Parses and checks schema text; `schema` is the schema's name (its file stem). A schema that
/// extends or includes another can name the built-ins only; [`parse_with`] reads other files.
/// On failure, returns every problem found, in file order where possible.
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
    parse_with(source, &mut |reference, _from| {
        builtin(reference)
            .map(|b| Source {
                name: b.name.to_string(),
                path: None,
                text: b.text.to_string(),
            })
            .ok_or_else(|| format!("no built-in schema is named `{reference}`"))
    })
}

/// [`parse`] with a loader for the files the schema extends or includes.
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
pub fn parse_with(source: Source, loader: &mut Loader<'_>) -> Result<Layout, Diagnostics> {
    let (name, text) = (source.name.clone(), source.text.clone());
    check::check(source, loader).map_err(|diags| Diagnostics::new(&name, &text, diags))
}

/// A schema shipped with this crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Builtin {
    /// The schema's name (`b2nd_v1`).
    pub name: &'static str,
    /// The schema file's text.
    pub text: &'static str,
}

/// The built-in schemas of the array metalayers c-blosc2 and caterva write, oldest first. The
/// command's dispatch chooses among them from a metalayer's name and bytes.
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

/// The built-in schemas of python-blosc2's own metalayers (`b2o`, `LazyArray`, `proxy-source`,
/// the container markers `batcharray`, `vlarray`, `listarray`, `b2embed`, `b2dict`, `b2tree`,
/// `ctable_varlen_scalar`),
/// one schema per shape where a name has several. They are built in by name, as
/// [`BUILTINS`] are. The shapes stored under one name share their first bytes and part further
/// on, some only after a string ([`Layout::parting`]): the command chooses among them, and so
/// can a `#[metalayer(dispatch)]` enum; `metalayer::Known` holds c-blosc2's layouts only.
///
/// ```
/// let names: Vec<_> = metalayer_layout::PYTHON_BLOSC2.iter().map(|b| b.name).collect();
/// assert!(names.contains(&"b2o_v1"));
/// assert!(metalayer_layout::builtin("lazyarray_v0").is_some());
/// // Every built-in parses.
/// for b in metalayer_layout::BUILTINS.iter().chain(metalayer_layout::PYTHON_BLOSC2) {
///     assert!(metalayer_layout::parse(b.name, b.text).is_ok(), "{}", b.name);
/// }
/// ```
pub const PYTHON_BLOSC2: &[Builtin] = &[
    Builtin {
        name: "b2o_v1",
        text: include_str!("../schemas/b2o_v1.toml"),
    },
    Builtin {
        name: "lazyarray_v0",
        text: include_str!("../schemas/lazyarray_v0.toml"),
    },
    Builtin {
        name: "proxy_source_local_v0",
        text: include_str!("../schemas/proxy_source_local_v0.toml"),
    },
    Builtin {
        name: "proxy_source_memory_v0",
        text: include_str!("../schemas/proxy_source_memory_v0.toml"),
    },
    Builtin {
        name: "proxy_source_caterva2_v0",
        text: include_str!("../schemas/proxy_source_caterva2_v0.toml"),
    },
    Builtin {
        name: "proxy_source_remote_v0",
        text: include_str!("../schemas/proxy_source_remote_v0.toml"),
    },
    Builtin {
        name: "proxy_source_dataset_v0",
        text: include_str!("../schemas/proxy_source_dataset_v0.toml"),
    },
    Builtin {
        name: "batcharray_empty_v1",
        text: include_str!("../schemas/batcharray_empty_v1.toml"),
    },
    Builtin {
        name: "batcharray_v1",
        text: include_str!("../schemas/batcharray_v1.toml"),
    },
    Builtin {
        name: "batcharray_arrow_v1",
        text: include_str!("../schemas/batcharray_arrow_v1.toml"),
    },
    Builtin {
        name: "vlarray_v1",
        text: include_str!("../schemas/vlarray_v1.toml"),
    },
    Builtin {
        name: "listarray_scalar_v1",
        text: include_str!("../schemas/listarray_scalar_v1.toml"),
    },
    Builtin {
        name: "listarray_string_v1",
        text: include_str!("../schemas/listarray_string_v1.toml"),
    },
    Builtin {
        name: "b2embed_v1",
        text: include_str!("../schemas/b2embed_v1.toml"),
    },
    Builtin {
        name: "b2dict_v1",
        text: include_str!("../schemas/b2dict_v1.toml"),
    },
    Builtin {
        name: "b2tree_v1",
        text: include_str!("../schemas/b2tree_v1.toml"),
    },
    // The shapes of other releases than 4.14.1 (python-blosc2 3.x's proxy-source without its
    // source_kind), and of 4.x's sources of the user's own and CTable columns.
    Builtin {
        name: "proxy_source_custom_v0",
        text: include_str!("../schemas/proxy_source_custom_v0.toml"),
    },
    Builtin {
        name: "proxy_source_untagged_local_v0",
        text: include_str!("../schemas/proxy_source_untagged_local_v0.toml"),
    },
    Builtin {
        name: "proxy_source_untagged_memory_v0",
        text: include_str!("../schemas/proxy_source_untagged_memory_v0.toml"),
    },
    Builtin {
        name: "proxy_source_untagged_caterva2_v0",
        text: include_str!("../schemas/proxy_source_untagged_caterva2_v0.toml"),
    },
    Builtin {
        name: "proxy_source_untagged_caterva2_auth_v0",
        text: include_str!("../schemas/proxy_source_untagged_caterva2_auth_v0.toml"),
    },
    Builtin {
        name: "ctable_varlen_scalar_v1",
        text: include_str!("../schemas/ctable_varlen_scalar_v1.toml"),
    },
];

/// The built-in schemas of the Blosc2 frame itself: its header (`frame_header_v2`, which holds
/// the metalayers) and its trailer (`frame_trailer_v1`, which holds the variable-length
/// metalayers). They are not metalayers, so they are built in by name only, as
/// [`PYTHON_BLOSC2`] are, and not among the layouts dispatch chooses from; `metalayer::frame`
/// reads frames through them.
///
/// ```
/// let names: Vec<_> = metalayer_layout::FRAME.iter().map(|b| b.name).collect();
/// assert_eq!(names, ["frame_header_v2", "frame_trailer_v1"]);
/// for b in metalayer_layout::FRAME {
///     assert!(metalayer_layout::parse(b.name, b.text).is_ok(), "{}", b.name);
///     assert!(metalayer_layout::builtin(b.name).is_some());
/// }
/// ```
pub const FRAME: &[Builtin] = &[
    Builtin {
        name: "frame_header_v2",
        text: include_str!("../schemas/frame_header_v2.toml"),
    },
    Builtin {
        name: "frame_trailer_v1",
        text: include_str!("../schemas/frame_trailer_v1.toml"),
    },
];

/// The built-in schema of that name, from [`BUILTINS`], [`PYTHON_BLOSC2`] or [`FRAME`].
///
/// ```
/// assert!(metalayer_layout::builtin("b2nd_v1").is_some());
/// assert!(metalayer_layout::builtin("frame_header_v2").is_some());
/// assert!(metalayer_layout::builtin("b2nd_v9").is_none());
/// ```
pub fn builtin(name: &str) -> Option<&'static Builtin> {
    BUILTINS
        .iter()
        .chain(PYTHON_BLOSC2)
        .chain(FRAME)
        .find(|b| b.name == name)
}

/// The checked layout of a built-in schema.
///
/// ```
/// let layout = metalayer_layout::builtin_layout("b2nd_v1").unwrap();
/// assert_eq!(layout.metalayer, "b2nd");
/// assert_eq!(layout.root_record().unwrap().entries.len(), 7);
/// ```
pub fn builtin_layout(name: &str) -> Option<Layout> {
    builtin(name).and_then(|b| parse(b.name, b.text).ok())
}
