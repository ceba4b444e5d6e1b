//! The class that wrote a frame or a store, as python-blosc2 and c-blosc2 name it.
//!
//! A frame's class is told by its metalayers, in the order python-blosc2's `blosc2.open` asks
//! for them ([`Kind::of_frame`]):
//!
//! 1. `proxy-source`: a `Proxy`;
//! 2. `b2o`, whose `kind` names the object: `lazyexpr` a `LazyExpr`, `lazyudf` a `LazyUDF`,
//!    `c2array` a `C2Array` (any other kind, or a `b2o` that does not read: [`Kind::Unknown`]);
//! 3. `LazyArray`: a `LazyExpr` (0) or a `LazyUDF` (1);
//! 4. `listarray` a `ListArray`, `batcharray` a `BatchArray`, `vlarray` an `ObjectArray`;
//! 5. `b2embed`, `b2dict` or `b2tree`: an `EmbedStore` (a store's `embed.b2e`);
//! 6. `b2nd`: an `NDArray`;
//! 7. none of them: an `SChunk`. A caterva frame (a `caterva` metalayer, no `b2nd`) is one:
//!    python-blosc2 opens it as a super-chunk, not as an array.
//!
//! A store's class is told by its `embed.b2e` and its `_meta.b2f` ([`Kind::of_store`]): a
//! `CTable` when `_meta.b2f`'s vlmetalayer `kind` is `"ctable"`, else a `TreeStore` for `b2tree`,
//! a `DictStore` for `b2dict`; python-blosc2 3.x marks both stores `b2embed`, and such a store is
//! a `TreeStore` when its embedded keys hold a group's `__vlmeta__` (3.x keeps a TreeStore's
//! vlmeta so), else a `DictStore`.

use core::fmt;

use crate::frame::MetalayerRef;
use crate::metalayer;
use crate::store::{EMBED_STORE_FILE, EMBED_STORE_MARKERS};

/// The class that wrote a frame, a store or a directory of one.
///
/// Unknown shapes are [`SChunk`](Kind::SChunk) (a frame with no marker python-blosc2 knows) or
/// [`Unknown`](Kind::Unknown) (a marker that does not read), never an error.
/// [`Display`](core::fmt::Display) gives python-blosc2's class names.
///
/// ```
/// use metalayer::Kind;
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-own/lazyexpr.b2nd");
/// let bytes = metalayer::frame::FrameBytes::open(path)?;
/// let kind = Kind::of_frame(&bytes.frame()?.metalayers);
/// assert_eq!((kind, kind.to_string()), (Kind::LazyExpr, "LazyExpr".to_owned()));
/// assert!(kind.is_array() && !kind.is_store());
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Kind {
    /// `blosc2.NDArray`: a frame with a `b2nd` metalayer.
    NDArray,
    /// `blosc2.SChunk`: a frame with no marker of another class (caterva frames included).
    SChunk,
    /// `blosc2.LazyExpr`, saved.
    LazyExpr,
    /// `blosc2.LazyUDF`, saved.
    LazyUDF,
    /// `blosc2.C2Array`: a reference to an array on a Caterva2 server.
    C2Array,
    /// `blosc2.Proxy`: a local cache of another array.
    Proxy,
    /// `blosc2.ListArray`.
    ListArray,
    /// `blosc2.BatchArray`.
    BatchArray,
    /// `blosc2.ObjectArray` (the `vlarray` container).
    ObjectArray,
    /// `blosc2.EmbedStore`: a frame that holds other frames in its data (a store's `embed.b2e`).
    EmbedStore,
    /// `blosc2.DictStore`: a `.b2d` directory or `.b2z` zip with an `embed.b2e`.
    DictStore,
    /// `blosc2.TreeStore`, or a group of one (python-blosc2 opens a group as a TreeStore).
    TreeStore,
    /// `blosc2.CTable`: a TreeStore whose `_meta` says `ctable`.
    CTable,
    /// A directory of keys in a store that python-blosc2 does not open as a TreeStore: the
    /// directories of an EmbedStore's keys, and of a DictStore's members.
    Group,
    /// A directory, or a zip, that is no store: none of its frames is an EmbedStore.
    Directory,
    /// A frame whose marker does not read (a `b2o` of an unknown `kind`, for one).
    Unknown,
}

impl Kind {
    /// python-blosc2's name of the class (`"group"` and `"directory"` for the two that are no
    /// class, `"Unknown"` for [`Kind::Unknown`]).
    pub const fn name(self) -> &'static str {
        match self {
            Kind::NDArray => "NDArray",
            Kind::SChunk => "SChunk",
            Kind::LazyExpr => "LazyExpr",
            Kind::LazyUDF => "LazyUDF",
            Kind::C2Array => "C2Array",
            Kind::Proxy => "Proxy",
            Kind::ListArray => "ListArray",
            Kind::BatchArray => "BatchArray",
            Kind::ObjectArray => "ObjectArray",
            Kind::EmbedStore => "EmbedStore",
            Kind::DictStore => "DictStore",
            Kind::TreeStore => "TreeStore",
            Kind::CTable => "CTable",
            Kind::Group => "group",
            Kind::Directory => "directory",
            Kind::Unknown => "Unknown",
        }
    }

    /// Whether python-blosc2 opens it as an array (it has a shape): NDArray, LazyExpr, LazyUDF,
    /// C2Array, Proxy.
    pub const fn is_array(self) -> bool {
        matches!(
            self,
            Kind::NDArray | Kind::LazyExpr | Kind::LazyUDF | Kind::C2Array | Kind::Proxy
        )
    }

    /// Whether it is a store: a DictStore, a TreeStore (or a group of one), a CTable.
    pub const fn is_store(self) -> bool {
        matches!(self, Kind::DictStore | Kind::TreeStore | Kind::CTable)
    }

    /// The class of a frame with these metalayers (see the [module documentation](self) for the
    /// order of the rules).
    ///
    /// ```
    /// use metalayer::Kind;
    /// use metalayer::frame::MetalayerRef;
    ///
    /// let meta = |name, content| MetalayerRef { name, offset: 0, content };
    /// // python-blosc2's LazyUDF: `LazyArray` is 1 (its bytes are msgpack's fixint).
    /// assert_eq!(Kind::of_frame(&[meta("b2nd", &[]), meta("LazyArray", &[0x01])]), Kind::LazyUDF);
    /// // A b2o carrier: {"kind": "c2array", "version": 1}.
    /// let b2o = b"\x82\xa4kind\xa7c2array\xa7version\x01";
    /// assert_eq!(Kind::of_frame(&[meta("b2o", b2o)]), Kind::C2Array);
    /// // caterva's own metalayer makes no NDArray.
    /// assert_eq!(Kind::of_frame(&[meta("caterva", &[])]), Kind::SChunk);
    /// ```
    pub fn of_frame(metalayers: &[MetalayerRef<'_>]) -> Kind {
        Kind::of_metalayers(metalayers.iter().map(|m| (m.name, m.content)))
    }

    /// [`Kind::of_frame`] over `(name, content)` pairs, such as those of
    /// [`FrameMetalayer`](crate::frame::FrameMetalayer)s.
    pub fn of_metalayers<'a>(metalayers: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> Kind {
        let mut found = Found::default();
        for (name, content) in metalayers {
            match name {
                names::PROXY_SOURCE => found.proxy = true,
                names::B2O => found.b2o = found.b2o.or(Some(b2o_kind(content))),
                names::LAZY_ARRAY => found.lazy = found.lazy.or(Some(lazy_kind(content))),
                names::LISTARRAY => found.list = true,
                names::BATCHARRAY => found.batch = true,
                names::VLARRAY => found.objects = true,
                name if StoreMarker::of_name(name).is_some() => found.embed = true,
                names::B2ND => found.b2nd = true,
                _ => {}
            }
        }
        if found.proxy {
            Kind::Proxy
        } else if let Some(kind) = found.b2o.or(found.lazy) {
            kind
        } else if found.list {
            Kind::ListArray
        } else if found.batch {
            Kind::BatchArray
        } else if found.objects {
            Kind::ObjectArray
        } else if found.embed {
            Kind::EmbedStore
        } else if found.b2nd {
            Kind::NDArray
        } else {
            Kind::SChunk
        }
    }

    /// The class of a store (a `.b2d` directory, a `.b2z` zip, or a group directory that holds
    /// its own `embed.b2e`), from its EmbedStore's marker, whether that EmbedStore's keys hold a
    /// group's vlmeta (a key ending in `/__vlmeta__`: see [`is_group_vlmeta_key`]), and whether
    /// the store's `_meta.b2f` says `ctable` ([`is_ctable_meta`]).
    ///
    /// ```
    /// use metalayer::Kind;
    /// use metalayer::kind::StoreMarker;
    ///
    /// assert_eq!(Kind::of_store(StoreMarker::Tree, false, false), Kind::TreeStore);
    /// assert_eq!(Kind::of_store(StoreMarker::Tree, false, true), Kind::CTable);
    /// // python-blosc2 3.x: `b2embed` for both stores.
    /// assert_eq!(Kind::of_store(StoreMarker::Embed, true, false), Kind::TreeStore);
    /// assert_eq!(Kind::of_store(StoreMarker::Embed, false, false), Kind::DictStore);
    /// ```
    pub const fn of_store(marker: StoreMarker, group_vlmeta: bool, ctable: bool) -> Kind {
        if ctable {
            return Kind::CTable;
        }
        match marker {
            StoreMarker::Tree => Kind::TreeStore,
            StoreMarker::Dict => Kind::DictStore,
            StoreMarker::Embed if group_vlmeta => Kind::TreeStore,
            StoreMarker::Embed => Kind::DictStore,
        }
    }

    /// The class of a directory below a store of class `store` (`None`: in no store): below a
    /// TreeStore or a CTable, a group python-blosc2 opens as a TreeStore; below another store, a
    /// [`Group`](Kind::Group); in none, a [`Directory`](Kind::Directory).
    ///
    /// ```
    /// use metalayer::Kind;
    ///
    /// assert_eq!(Kind::of_directory_in(Some(Kind::CTable)), Kind::TreeStore);
    /// assert_eq!(Kind::of_directory_in(Some(Kind::DictStore)), Kind::Group);
    /// assert_eq!(Kind::of_directory_in(None), Kind::Directory);
    /// ```
    pub const fn of_directory_in(store: Option<Kind>) -> Kind {
        match store {
            Some(Kind::TreeStore | Kind::CTable) => Kind::TreeStore,
            Some(_) => Kind::Group,
            None => Kind::Directory,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The metalayer that marks a frame as an EmbedStore, and which store wrote it.
///
/// ```
/// use metalayer::kind::StoreMarker;
///
/// assert_eq!(StoreMarker::of_name("b2tree"), Some(StoreMarker::Tree));
/// assert_eq!(StoreMarker::of_name("b2nd"), None);
/// assert_eq!(StoreMarker::Dict.name(), "b2dict");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StoreMarker {
    /// `b2embed`: a bare EmbedStore, or a store of python-blosc2 3.x (which marks both so).
    Embed,
    /// `b2dict`: a DictStore's (4.x).
    Dict,
    /// `b2tree`: a TreeStore's, or a CTable's (4.x).
    Tree,
}

impl StoreMarker {
    /// Every marker, in the order python-blosc2 introduced them.
    pub const ALL: [StoreMarker; 3] = [StoreMarker::Embed, StoreMarker::Dict, StoreMarker::Tree];

    /// The marker a metalayer name is, if any.
    pub fn of_name(name: &str) -> Option<StoreMarker> {
        StoreMarker::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The marker of a frame with these metalayers: the first one that is a marker.
    pub fn of_frame(metalayers: &[MetalayerRef<'_>]) -> Option<StoreMarker> {
        metalayers.iter().find_map(|m| StoreMarker::of_name(m.name))
    }

    /// The metalayer's name.
    pub const fn name(self) -> &'static str {
        let [embed, dict, tree] = EMBED_STORE_MARKERS;
        match self {
            StoreMarker::Embed => embed,
            StoreMarker::Dict => dict,
            StoreMarker::Tree => tree,
        }
    }
}

/// Whether an EmbedStore's key is a group's vlmeta, as python-blosc2 3.x keeps a TreeStore's:
/// `/__vlmeta__`, `/g/__vlmeta__`.
///
/// ```
/// assert!(metalayer::kind::is_group_vlmeta_key("/g/__vlmeta__"));
/// assert!(!metalayer::kind::is_group_vlmeta_key("/g/x"));
/// ```
pub fn is_group_vlmeta_key(key: &str) -> bool {
    key.ends_with(GROUP_VLMETA_SUFFIX)
}

/// The last component of the key under which python-blosc2 keeps a group's vlmeta in its
/// EmbedStore.
pub const GROUP_VLMETA: &str = "__vlmeta__";

/// The member in which python-blosc2 keeps a TreeStore group's vlmeta when it is not in the
/// EmbedStore: `__vlmeta__.b2f` in the group's directory.
pub const GROUP_VLMETA_MEMBER: &str = "__vlmeta__.b2f";

const GROUP_VLMETA_SUFFIX: &str = "/__vlmeta__";

/// The name of the member that holds a store's EmbedStore.
pub const EMBED_MEMBER: &str = EMBED_STORE_FILE;

/// The name of the member whose vlmeta says a store is a CTable.
pub const CTABLE_META_MEMBER: &str = "_meta.b2f";

/// Whether a vlmetalayer says its frame is a CTable's `_meta`: it is named `kind` and holds the
/// msgpack string `"ctable"`. `content` is the vlmetalayer's content as stored, a Blosc2 chunk,
/// decompressed here (at most a few bytes are needed: a larger value is no match).
///
/// ```
/// // A CTable's `_meta.b2f`, written by python-blosc2 4.x.
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-own/ctable_meta.b2f");
/// let bytes = metalayer::frame::FrameBytes::open(path)?;
/// let frame = bytes.frame()?;
/// assert!(frame.vlmetalayers.iter().any(|m| metalayer::kind::is_ctable_meta(m.name, m.content)));
/// // A memcpyed chunk (see `metalayer::vlmeta`) of the msgpack string "ctable", under two names.
/// let mut chunk = vec![5, 1, 0x07, 1, 7, 0, 0, 0, 7, 0, 0, 0, 39, 0, 0, 0];
/// chunk.extend_from_slice(&[0, 0, 0, 0, 0, 1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
/// chunk.extend_from_slice(b"\xa6ctable");
/// assert!(metalayer::kind::is_ctable_meta("kind", &chunk));
/// assert!(!metalayer::kind::is_ctable_meta("other", &chunk));
/// # Ok::<(), metalayer::frame::FrameError>(())
/// ```
pub fn is_ctable_meta(name: &str, content: &[u8]) -> bool {
    name == names::CTABLE_KIND
        && crate::vlmeta::decompress(content, CTABLE_VALUE.len()).is_ok_and(|v| v == CTABLE_VALUE)
}

/// msgpack's `"ctable"`.
const CTABLE_VALUE: &[u8] = b"\xa6ctable";

/// The metalayer names python-blosc2 marks its classes with.
mod names {
    pub const PROXY_SOURCE: &str = "proxy-source";
    pub const B2O: &str = "b2o";
    pub const LAZY_ARRAY: &str = "LazyArray";
    pub const LISTARRAY: &str = "listarray";
    pub const BATCHARRAY: &str = "batcharray";
    pub const VLARRAY: &str = "vlarray";
    pub const B2ND: &str = "b2nd";
    /// The vlmetalayer of a CTable's `_meta`.
    pub const CTABLE_KIND: &str = "kind";
}

#[derive(Default)]
struct Found {
    proxy: bool,
    b2o: Option<Kind>,
    lazy: Option<Kind>,
    list: bool,
    batch: bool,
    objects: bool,
    embed: bool,
    b2nd: bool,
}

/// python-blosc2's `b2o` carrier: `{"kind": str, "version": 1}`.
#[metalayer(schema = "b2o_v1")]
struct B2o<'a> {
    kind: &'a str,
}

/// python-blosc2's `LazyArray` marker: 0 an expression, 1 a UDF.
#[metalayer(schema = "lazyarray_v0")]
struct LazyArray(u8);

fn b2o_kind(content: &[u8]) -> Kind {
    use metalayer_runtime::Decode;
    match B2o::decode(content).map(|b| b.kind) {
        Ok("lazyexpr") => Kind::LazyExpr,
        Ok("lazyudf") => Kind::LazyUDF,
        Ok("c2array") => Kind::C2Array,
        _ => Kind::Unknown,
    }
}

fn lazy_kind(content: &[u8]) -> Kind {
    use metalayer_runtime::Decode;
    match LazyArray::decode(content) {
        Ok(LazyArray(1)) => Kind::LazyUDF,
        _ => Kind::LazyExpr,
    }
}
