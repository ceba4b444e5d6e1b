//! The schemas shipped with this crate: c-blosc2's array metalayers, python-blosc2's own
//! metalayers, and the Blosc2 frame's header and trailer; and the metalayer names a built-in
//! layout is stored under.

use crate::model::Layout;

/// A schema shipped with this crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Builtin {
    /// The schema's name (`b2nd_v1`).
    pub name: &'static str,
    /// The schema file's text.
    pub text: &'static str,
}

impl Builtin {
    /// The schema's checked layout: [`parse`](crate::parse) of its name and text. Every
    /// built-in schema checks (this crate's tests parse each), so the error is for form's sake.
    ///
    /// ```
    /// let layout = metalayer_layout::builtin("b2nd_v1").unwrap().layout().unwrap();
    /// assert_eq!(layout.metalayer, "b2nd");
    /// assert_eq!(layout.root_record().unwrap().entries.len(), 7);
    /// ```
    pub fn layout(&self) -> Result<Layout, crate::Diagnostics> {
        crate::parse(self.name, self.text)
    }
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

/// Every built-in schema, to list them: c-blosc2's layouts, then python-blosc2's, then the
/// frame's header and trailer. [`builtin`] looks one up by name.
///
/// ```
/// let names: Vec<&str> = metalayer_layout::builtins().map(|b| b.name).collect();
/// // One per file of schemas/.
/// assert_eq!(names.len(), 27);
/// assert_eq!(names[..4], ["caterva_v0", "b2nd_v0", "b2nd_v1", "b2o_v1"]);
/// assert_eq!(names.last(), Some(&"frame_trailer_v1"));
/// ```
pub fn builtins() -> impl Iterator<Item = &'static Builtin> {
    SETS.into_iter().flatten()
}

/// The names of the built-in schemas, in the order [`builtins`] lists them, joined with commas:
/// what messages about a schema name that is not found list.
///
/// ```
/// let names = metalayer_layout::builtin_names();
/// assert!(names.starts_with("caterva_v0, b2nd_v0, b2nd_v1, "));
/// assert!(names.ends_with(", frame_trailer_v1"));
/// ```
pub fn builtin_names() -> String {
    let mut names = String::new();
    for set in SETS {
        for b in set {
            if !names.is_empty() {
                names.push_str(", ");
            }
            names.push_str(b.name);
        }
    }
    names
}

/// The built-in schemas, set by set, in the order [`builtins`] lists them.
pub(crate) const SETS: [&[Builtin]; 3] = [BUILTINS, PYTHON_BLOSC2, FRAME];

/// The built-in schema of that name: c-blosc2's array metalayers, python-blosc2's own, and the
/// frame's header and trailer. Its layout is `parse(b.name, b.text)`.
///
/// ```
/// assert!(metalayer_layout::builtin("b2nd_v1").is_some());
/// assert!(metalayer_layout::builtin("frame_header_v2").is_some());
/// assert!(metalayer_layout::builtin("b2nd_v9").is_none());
/// ```
pub fn builtin(name: &str) -> Option<&'static Builtin> {
    for set in SETS {
        for b in set {
            if b.name == name {
                return Some(b);
            }
        }
    }
    None
}

/// The checked layout of a built-in schema.
///
/// ```
/// let layout = metalayer_layout::builtin_layout("b2nd_v1").unwrap();
/// assert_eq!(layout.metalayer, "b2nd");
/// assert_eq!(layout.root_record().unwrap().entries.len(), 7);
/// ```
pub fn builtin_layout(name: &str) -> Option<Layout> {
    builtin(name).and_then(|b| b.layout().ok())
}

/// The metalayer names the layout of the built-in schema `schema` is stored under besides its
/// own (`Layout::metalayer`), by writers that used it under another name. Dispatch by name tries
/// it under these names too: the command's registry of layouts does, and a
/// `#[metalayer(dispatch)]` enum does where a variant says so (`name = "b2nd"`).
///
/// ```
/// assert_eq!(metalayer_layout::also_stored_as("caterva_v0"), ["b2nd"]);
/// assert!(metalayer_layout::also_stored_as("b2nd_v1").is_empty());
/// ```
pub fn also_stored_as(schema: &str) -> &'static [&'static str] {
    match schema {
        // c-blosc2 briefly (January 2023) wrote the caterva layout under the name `b2nd`;
        // c-blosc2 itself reads it back as a b2nd metalayer without a dtype.
        "caterva_v0" => &["b2nd"],
        _ => &[],
    }
}
