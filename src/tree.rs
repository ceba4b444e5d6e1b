//! A walk of a path, a file, a directory or a store, as a tree of typed nodes, in the order a
//! tree is printed: each node before what it holds, siblings by name.
//!
//! [`Tree::new`] takes a path; the [`Tree`] is an iterator of [`Node`]s:
//!
//! - a frame file, or a sparse-frame directory (one holding `chunks.b2frame`), is a leaf: its
//!   [`Kind`], the shape, dtype and chunks of its `b2nd` (or `caterva`) metalayer, its codec and
//!   ratio, its metalayers and vlmetalayers as stored;
//! - a directory holds the frames, directories and `.b2z` stores in it, by file name (byte order
//!   on Unix). A file is a frame when it starts with the frame magic, a store when its name ends
//!   in `.b2z` and it starts with the zip magic; other files are left out, and so are
//!   directories under which no frame is found;
//! - a `.b2z` store holds its members, read in place ([`Store`]), under the directories of
//!   their names;
//! - an EmbedStore (a store's `embed.b2e`) is a leaf that holds the frames of its data, under the
//!   directories of their keys.
//!
//! A directory or `.b2z` that holds an `embed.b2e` EmbedStore is a store, whose [`Kind`]
//! ([`Kind::of_store`]) is known before anything in it is yielded. Its nodes get the keys
//! python-blosc2 gives them ([`Node::key`]), and a TreeStore's own vlmeta, which python-blosc2
//! keeps in a frame under the key `/__vlmeta__` of its EmbedStore (`/g/__vlmeta__` for the group
//! `/g`), belong to the store's node, or the group's ([`Node::group_vlmeta`]).
//!
//! Memory grows with the depth of the tree and with one directory's names (the entries of a
//! directory, the members of a zip, the keys of an EmbedStore, with its data, at most
//! [`DATA_LIMIT`](crate::store::DATA_LIMIT)), never with the whole tree: each node is read when
//! it is yielded. What cannot be read is an error of its node ([`Node::errors`]), and the walk
//! goes on.
//!
//! ```
//! use metalayer::Kind;
//! use metalayer::tree::Tree;
//!
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4-stores/treestore.b2z");
//! let mut nodes = Tree::new(path);
//! let root = nodes.next().unwrap();
//! assert_eq!((root.kind(), root.depth()), (Kind::TreeStore, 0));
//! // python-blosc2 4.14.1 reads /g/h/i/deep as a (9000,) array of "<u2", compressed with ZSTD.
//! let deep = nodes.find(|n| n.key() == Some("/g/h/i/deep")).unwrap();
//! assert_eq!((deep.kind(), deep.shape(), deep.dtype()), (Kind::NDArray, Some(&[9000][..]), Some("<u2")));
//! assert_eq!(deep.codec().unwrap().to_string(), "ZSTD");
//! assert!(deep.errors().is_empty());
//! ```

use std::borrow::ToOwned;
use std::boxed::Box;
use std::collections::{BTreeMap, VecDeque};
use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::string::String;
use std::vec::Vec;
use std::{fmt, format, vec};

use crate::Known;
use crate::frame::{self, Codec, FrameBytes, FrameError, FrameMetalayer, Header, MetalayerRef};
use crate::kind::{self, Kind, StoreMarker};
use crate::store::{self, Entry, Member, Place, Store, StoreError};

/// One node of a [`Tree`]: a frame, a directory, or a store.
#[derive(Debug)]
pub struct Node {
    path: PathBuf,
    name: OsString,
    depth: usize,
    kind: Kind,
    key: Option<String>,
    leaf: bool,
    content: Option<Content>,
    /// The header's fields, when the header and the trailer read.
    header: Option<Header>,
    array: Option<Known>,
    group_vlmeta: Option<FrameBytes>,
    errors: Vec<TreeError>,
}

/// What was read of a frame.
#[derive(Debug)]
enum Content {
    /// The header and the trailer.
    Frame(FrameBytes),
    /// The header's metalayers only: the trailer did not read (the node's error says why).
    Header(Vec<FrameMetalayer>),
}

impl Node {
    /// The node's path: the path the tree was made from, then the names below it (a member of
    /// a `.b2z` store is `store.b2z/g/y.b2nd`, a frame an EmbedStore holds `.../embed.b2e/g/x`).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The node's name: the last component of its path (for the root, the path as given). A
    /// store member's name has its control characters replaced by U+FFFD
    /// ([`store::shown_name`]).
    pub fn name(&self) -> &OsStr {
        &self.name
    }

    /// How deep it is: 0 for the root.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The class that wrote it; [`Kind::Unknown`] for a frame that does not read.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// python-blosc2's key of the node in the innermost store it is in (`/g/h/y` for
    /// `g/h/y.b2nd`; its key in the EmbedStore for a frame one holds); `None` outside stores,
    /// for a store's own `embed.b2e`, and for the directories of an EmbedStore's keys.
    pub fn key(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// Whether it is a frame (an EmbedStore included), not a directory or a store.
    pub fn is_frame(&self) -> bool {
        self.leaf
    }

    /// The frame's header and trailer, when both read.
    pub fn frame_bytes(&self) -> Option<&FrameBytes> {
        match &self.content {
            Some(Content::Frame(bytes)) => Some(bytes),
            _ => None,
        }
    }

    /// The frame's header fields, when its header and trailer read.
    pub fn header(&self) -> Option<Header> {
        self.header
    }

    /// The frame's metalayers, as stored (none for a directory).
    pub fn meta(&self) -> Vec<MetalayerRef<'_>> {
        match &self.content {
            Some(Content::Frame(bytes)) => bytes.frame().map(|f| f.metalayers).unwrap_or_default(),
            Some(Content::Header(metalayers)) => metalayers.iter().map(FrameMetalayer::borrowed).collect(),
            None => Vec::new(),
        }
    }

    /// The frame's vlmetalayers, as stored: each content is the Blosc2 chunk that holds its
    /// msgpack value ([`crate::vlmeta::decompress`] gives it; a long trailer's contents are
    /// read from the file by [`FrameBytes::content`]).
    pub fn vlmeta(&self) -> Vec<MetalayerRef<'_>> {
        self.frame_bytes()
            .and_then(|bytes| bytes.frame().ok())
            .map(|f| f.vlmetalayers)
            .unwrap_or_default()
    }

    /// A TreeStore's (or one of its groups') own vlmeta: the frame python-blosc2 keeps them in,
    /// its EmbedStore's `/__vlmeta__` (`/g/__vlmeta__` for the group `/g`), or else the member
    /// `__vlmeta__.b2f` of the group's directory, whose vlmetalayers they are. `None` for other
    /// nodes.
    pub fn group_vlmeta(&self) -> Option<&FrameBytes> {
        self.group_vlmeta.as_ref()
    }

    /// The frame's `b2nd` metalayer (or its `caterva` metalayer), decoded.
    pub fn array(&self) -> Option<&Known> {
        self.array.as_ref()
    }

    /// The array's shape, from [`array`](Self::array).
    pub fn shape(&self) -> Option<&[i64]> {
        self.array.as_ref().map(Known::shape)
    }

    /// The array's dtype, from [`array`](Self::array) (a caterva frame has none).
    pub fn dtype(&self) -> Option<&str> {
        self.array.as_ref().and_then(Known::dtype)
    }

    /// The shape of the array's chunks, from [`array`](Self::array).
    pub fn chunks(&self) -> Option<&[i32]> {
        self.array.as_ref().map(Known::chunks)
    }

    /// The codec of the frame's header.
    pub fn codec(&self) -> Option<Codec> {
        self.header().map(|h| h.codec())
    }

    /// `nbytes / cbytes` of the frame's header (python-blosc2's `cratio`); `None` when no byte
    /// is compressed, and for directories.
    pub fn ratio(&self) -> Option<f64> {
        self.header().and_then(|h| h.ratio())
    }

    /// What could not be read of this node, in the order met.
    pub fn errors(&self) -> &[TreeError] {
        &self.errors
    }

    /// The node of a frame read elsewhere, such as from a stream: a root of its own, named by
    /// `path`.
    ///
    /// ```
    /// use metalayer::Kind;
    /// use metalayer::frame::{StreamFrame, read_frame_stream};
    /// use metalayer::tree::Node;
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
    /// let whole = std::fs::read(path).unwrap();
    /// let StreamFrame::Whole(bytes) = read_frame_stream(&whole[..])? else { panic!("the frame reads") };
    /// let node = Node::of_frame("-", bytes);
    /// assert_eq!((node.kind(), node.shape(), node.dtype()), (Kind::NDArray, Some(&[3, 4][..]), Some("<f8")));
    /// # Ok::<(), metalayer::frame::FrameError>(())
    /// ```
    pub fn of_frame(path: impl Into<PathBuf>, bytes: FrameBytes) -> Node {
        let path = path.into();
        Node::frame(
            path.clone(),
            path.into_os_string(),
            0,
            (Some(Content::Frame(bytes)), None),
        )
    }

    /// The node of a frame of which only the header's metalayers were read elsewhere (its
    /// trailer did not read): its kind and array, no codec.
    pub fn of_metalayers(path: impl Into<PathBuf>, metalayers: Vec<FrameMetalayer>) -> Node {
        let path = path.into();
        Node::frame(
            path.clone(),
            path.into_os_string(),
            0,
            (Some(Content::Header(metalayers)), None),
        )
    }

    /// A node with nothing read yet.
    fn new(path: PathBuf, name: OsString, depth: usize, kind: Kind) -> Node {
        Node {
            path,
            name,
            depth,
            kind,
            key: None,
            leaf: false,
            content: None,
            header: None,
            array: None,
            group_vlmeta: None,
            errors: Vec::new(),
        }
    }

    /// The node of a frame read as `read` returned it.
    fn frame(path: PathBuf, name: OsString, depth: usize, read: (Option<Content>, Option<FrameError>)) -> Node {
        let (content, error) = read;
        let mut node = Node::new(path, name, depth, Kind::Unknown);
        node.leaf = true;
        node.content = content;
        if let Some(error) = error {
            node.errors.push(TreeError::Frame(error));
        }
        // The header and trailer decoded once, for the header's fields, the kind and the array.
        let (header, kind, array) = {
            let frame = node.frame_bytes().and_then(|b| b.frame().ok());
            let meta = match (&frame, &node.content) {
                (Some(frame), _) => frame.metalayers.clone(),
                (None, Some(Content::Header(metalayers))) => metalayers.iter().map(FrameMetalayer::borrowed).collect(),
                (None, _) => Vec::new(),
            };
            let array = meta
                .iter()
                .find(|m| m.name == ARRAY)
                .or_else(|| meta.iter().find(|m| m.name == CATERVA))
                .map(|m| (m.name.to_owned(), Known::decode(m.name, m.content)));
            let kind = if node.content.is_some() {
                Kind::of_frame(&meta)
            } else {
                Kind::Unknown
            };
            (frame.map(|f| f.header), kind, array)
        };
        node.header = header;
        node.kind = kind;
        match array {
            Some((_, Ok(array))) => node.array = Some(array),
            Some((name, Err(source))) => node.errors.push(TreeError::Array { name, source }),
            None => {}
        }
        node
    }
}

/// The metalayers that hold an array's shape: `b2nd`, or caterva's own.
const ARRAY: &str = "b2nd";
const CATERVA: &str = "caterva";

/// Why a node, or part of it, could not be read.
#[derive(Debug)]
#[non_exhaustive]
pub enum TreeError {
    /// The frame, or its trailer, does not read.
    Frame(FrameError),
    /// A directory or file could not be read.
    Io {
        /// The path.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A symbolic link leads back to a directory above it.
    Loop {
        /// The link.
        path: PathBuf,
        /// The directory it leads back to.
        ancestor: PathBuf,
    },
    /// The store (a `.b2z` zip, or an EmbedStore's map or data) does not read.
    Store(StoreError),
    /// A member of a store cannot be read in place.
    Member {
        /// The member's path.
        path: PathBuf,
        /// Why (the message names the byte offset).
        message: String,
    },
    /// The frame's `b2nd` or `caterva` metalayer does not decode.
    Array {
        /// The metalayer's name.
        name: String,
        /// Why.
        source: crate::DispatchError,
    },
}

impl TreeError {
    /// Whether the message names the path of the node (else, a reader names it).
    pub fn names_its_path(&self) -> bool {
        match self {
            TreeError::Frame(e) => matches!(
                e.kind(),
                frame::FrameErrorKind::Io { .. } | frame::FrameErrorKind::NotSparseFrame { .. }
            ),
            TreeError::Io { .. } | TreeError::Loop { .. } | TreeError::Store(_) | TreeError::Member { .. } => true,
            TreeError::Array { .. } => false,
        }
    }
}

impl fmt::Display for TreeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TreeError::Frame(e) => fmt::Display::fmt(e, f),
            TreeError::Io { path, .. } => write!(f, "cannot read {}", path.display()),
            TreeError::Loop { path, ancestor } => write!(
                f,
                "{}: a symbolic link loop: it leads back to {}",
                path.display(),
                ancestor.display()
            ),
            TreeError::Store(e) => fmt::Display::fmt(e, f),
            TreeError::Member { path, message } => write!(f, "{}: {message}", path.display()),
            TreeError::Array { name, .. } => write!(f, "metalayer {name}"),
        }
    }
}

/// The source of each error is what its message does not say already: a store's message holds
/// its inner error's, so the chain goes on from that error's source.
impl std::error::Error for TreeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TreeError::Frame(e) => e.source(),
            TreeError::Io { source, .. } => Some(source),
            TreeError::Store(e) => e.source().and_then(|inner| inner.source()),
            TreeError::Array { source, .. } => Some(source),
            TreeError::Loop { .. } | TreeError::Member { .. } => None,
        }
    }
}

/// A walk of a path as a tree of [`Node`]s: see the [module documentation](self).
#[derive(Debug)]
pub struct Tree {
    root: Option<PathBuf>,
    follow: bool,
    levels: Vec<Level>,
    queue: VecDeque<Node>,
}

/// Where a directory's nodes are in python-blosc2's terms: the store they are in, their keys.
#[derive(Debug, Clone, Default)]
struct Scope {
    /// The innermost store's kind.
    store: Option<Kind>,
    /// The key of the directory in that store (`""` at its root, `/g` below); `None` where
    /// nodes have no key (outside stores, in the directories of an EmbedStore's keys).
    key: Option<String>,
    /// The store's groups' vlmeta, from its EmbedStore.
    groups: Option<Rc<Groups>>,
    /// Whether these are the directories of an EmbedStore's keys.
    in_keys: bool,
}

impl Scope {
    /// The scope inside a store of class `kind`, whose EmbedStore is `embed`.
    fn store(kind: Kind, embed: Option<Rc<Store>>) -> Scope {
        Scope {
            store: Some(kind),
            key: Some(String::new()),
            groups: embed.map(|embed| Rc::new(Groups::new(embed))),
            in_keys: false,
        }
    }

    /// The scope inside the directory `name` of this one.
    fn dir(&self, name: &str) -> Scope {
        Scope {
            store: self.store,
            key: self.dir_key(name),
            groups: self.groups.clone(),
            in_keys: self.in_keys,
        }
    }

    /// The scope of the directories of an EmbedStore's keys.
    fn keys(&self) -> Scope {
        Scope {
            store: self.store,
            key: None,
            groups: None,
            in_keys: true,
        }
    }

    /// Whether this is a TreeStore's (or a CTable's) directory, whose vlmeta python-blosc2 may
    /// keep in a `__vlmeta__.b2f` member of it.
    fn is_tree(&self) -> bool {
        !self.in_keys && matches!(self.store, Some(Kind::TreeStore | Kind::CTable))
    }

    /// The kind of a directory here.
    fn dir_kind(&self) -> Kind {
        if self.in_keys {
            return Kind::Group;
        }
        Kind::of_directory_in(self.store)
    }

    /// The key of a frame named `name` here: its extension left out.
    fn frame_key(&self, name: &str) -> Option<String> {
        let stem = match name.rfind('.') {
            Some(dot) if dot > 0 => name.get(..dot).unwrap_or(name),
            _ => name,
        };
        self.key.as_ref().map(|k| format!("{k}/{stem}"))
    }

    /// The key of a directory named `name` here.
    fn dir_key(&self, name: &str) -> Option<String> {
        self.key.as_ref().map(|k| format!("{k}/{name}"))
    }

    /// Gives `node`, the group whose key is `key` (`""` for the store's root), its vlmeta
    /// frame from the store's EmbedStore; an error of the node when that frame does not read.
    fn give_group_vlmeta(&self, node: &mut Node, key: &str) {
        let Some(groups) = &self.groups else { return };
        match groups.read(key) {
            Some(Ok(bytes)) => node.group_vlmeta = Some(bytes),
            Some(Err(e)) => node.errors.push(TreeError::Frame(e)),
            None => {}
        }
    }
}

/// A store's EmbedStore, with where its groups' vlmeta frames are among its keys: python-blosc2
/// keeps the vlmeta of the group `/g` under `/g/__vlmeta__`, the root's under `/__vlmeta__`.
#[derive(Debug)]
struct Groups {
    embed: Rc<Store>,
    /// The group's key, and the index of its vlmeta's entry.
    vlmeta: BTreeMap<String, usize>,
}

impl Groups {
    fn new(embed: Rc<Store>) -> Groups {
        let vlmeta = embed
            .entries()
            .iter()
            .enumerate()
            .filter(|(_, e)| kind::is_group_vlmeta_key(e.name()))
            .filter_map(|(i, e)| {
                let group = e.name().strip_suffix(kind::GROUP_VLMETA)?.strip_suffix('/')?;
                Some((group.to_owned(), i))
            })
            .collect();
        Groups { embed, vlmeta }
    }

    /// The vlmeta frame of the group `key`, if it has one that can be read in place.
    fn read(&self, key: &str) -> Option<Result<FrameBytes, FrameError>> {
        let entry = self.embed.entries().get(*self.vlmeta.get(key)?)?;
        Some(self.embed.read_frame(entry.member()?))
    }
}

/// One directory, zip or EmbedStore being walked.
#[derive(Debug)]
enum Level {
    /// A directory of the file system (boxed: it holds nodes waiting for their turn).
    Dir(Box<DirLevel>),
    /// A zip's members, or an EmbedStore's keys (boxed as well).
    Store(Box<StoreLevel>),
}

/// A directory of the file system being walked.
#[derive(Debug)]
struct DirLevel {
    path: PathBuf,
    /// Its entries' names, sorted, still to be walked.
    names: vec::IntoIter<OsString>,
    /// The depth of the directory's node.
    depth: usize,
    scope: Scope,
    /// The directory's node, until something under it is yielded.
    pending: Option<Node>,
    /// The `embed.b2e` read to find the store's kind, kept for its turn.
    embed: Option<(Node, Option<Rc<Store>>)>,
    /// The directory's device and inode, for loops of symbolic links.
    id: Option<(u64, u64)>,
}

/// A zip's members, or an EmbedStore's keys, being walked: names with `/`, in order component
/// by component, under directories implied by them.
#[derive(Debug)]
struct StoreLevel {
    store: Rc<Store>,
    /// Whether it is an EmbedStore (its members are keys).
    keys: bool,
    /// The entries' indices, in tree order, still to be walked.
    order: vec::IntoIter<usize>,
    /// The depth of the store's node.
    depth: usize,
    /// The scope at the store's root.
    scope: Scope,
    /// The directories open below it: their names and scopes.
    open: Vec<(String, Scope)>,
    /// The `embed.b2e` read to find the store's kind, kept for its turn.
    embed: Option<(Node, Option<Rc<Store>>)>,
    /// The `__vlmeta__.b2f` members: their directory's name (`""` at the root), and their
    /// entry.
    group_files: BTreeMap<String, usize>,
}

impl Tree {
    /// The tree of `path`: a frame file, a sparse-frame directory, a directory, or a `.b2z`
    /// store. Symbolic links met in directories are not followed; see
    /// [`follow_links`](Self::follow_links).
    pub fn new(path: impl AsRef<Path>) -> Tree {
        Tree {
            root: Some(path.as_ref().to_path_buf()),
            follow: false,
            levels: Vec::new(),
            queue: VecDeque::new(),
        }
    }

    /// Whether symbolic links met in directories are followed (a link that leads back to a
    /// directory above it is an error of its node). The path given is always followed.
    pub fn follow_links(mut self, follow: bool) -> Tree {
        self.follow = follow;
        self
    }

    /// Queues `node`, after the nodes of the directories above it that wait for something under
    /// them.
    fn emit(&mut self, node: Node) {
        for level in &mut self.levels {
            if let Level::Dir(dir) = level
                && let Some(pending) = dir.pending.take()
            {
                self.queue.push_back(pending);
            }
        }
        self.queue.push_back(node);
    }

    /// The node of the file-system entry `path` (named `name`) at `depth` in `scope`, which is
    /// emitted, and the level it opens, which is pushed. `arg`: the path given.
    fn walk_entry(&mut self, path: PathBuf, name: OsString, depth: usize, scope: &Scope, arg: bool) {
        let meta = match if arg || self.follow {
            fs::metadata(&path)
        } else {
            fs::symlink_metadata(&path)
        } {
            Ok(meta) => meta,
            Err(source) => {
                let mut node = Node::new(path.clone(), name, depth, Kind::Unknown);
                node.leaf = true;
                node.errors.push(TreeError::Io { path, source });
                return self.emit(node);
            }
        };
        if meta.is_dir() {
            if is_sparse(&path) {
                let node = Node::frame(path.clone(), name, depth, read_file(&path));
                return self.emit_frame(node, scope, None);
            }
            return self.open_dir(path, name, depth, scope, &meta, arg);
        }
        if !meta.is_file() {
            // Links not followed, pipes, sockets, devices: not walked into (a path given is
            // read, and says why it is no frame).
            if arg {
                let node = Node::frame(path.clone(), name, depth, read_file(&path));
                self.emit(node);
            }
            return;
        }
        let first = match first_bytes(&path) {
            Ok(first) => first,
            Err(source) => {
                let mut node = Node::new(path.clone(), name, depth, Kind::Unknown);
                node.leaf = true;
                node.errors.push(TreeError::Io { path, source });
                return self.emit(node);
            }
        };
        if first == store::FRAME_MAGIC || (arg && !store::is_zip_store(&path, &first, true)) {
            // A frame read ahead to find its store's kind is not read again.
            let ahead = match self.levels.last_mut() {
                Some(Level::Dir(dir)) if name == kind::EMBED_MEMBER => dir.embed.take(),
                _ => None,
            };
            let (node, embedded) = match ahead {
                Some((mut node, embedded)) => {
                    node.depth = depth;
                    (node, Some(embedded))
                }
                None => (Node::frame(path.clone(), name, depth, read_file(&path)), None),
            };
            return self.emit_frame(node, scope, embedded);
        }
        if store::is_zip_store(&path, &first, arg) {
            self.open_zip(path, name, depth, scope);
        }
    }

    /// Emits a frame's node with its key, and, when it is an EmbedStore, pushes the level of
    /// the frames it holds (opened from its file unless they were read ahead: `embedded`).
    fn emit_frame(&mut self, mut node: Node, scope: &Scope, embedded: Option<Option<Rc<Store>>>) {
        let name = node.name.to_string_lossy().into_owned();
        // A store's own embed.b2e is no node of it in python-blosc2: it has no key.
        let own_embed = scope.key.as_deref() == Some("") && name == kind::EMBED_MEMBER && node.kind == Kind::EmbedStore;
        if !own_embed {
            node.key = scope.frame_key(&name);
        }
        let held = if node.kind != Kind::EmbedStore {
            None
        } else if let Some(held) = embedded {
            held
        } else {
            match &node.content {
                Some(Content::Frame(_)) if node.path.is_file() => match Store::open_embed(&node.path) {
                    Ok(store) => Some(Rc::new(store)),
                    Err(e) => {
                        node.errors.push(TreeError::Store(e));
                        None
                    }
                },
                _ => None,
            }
        };
        let depth = node.depth;
        self.emit(node);
        if let Some(held) = held {
            self.push_store(held, true, depth, scope.keys(), None);
        }
    }

    /// Pushes the level of a zip's members or an EmbedStore's keys.
    fn push_store(
        &mut self,
        store: Rc<Store>,
        keys: bool,
        depth: usize,
        scope: Scope,
        embed: Option<(Node, Option<Rc<Store>>)>,
    ) {
        let mut order: Vec<usize> = (0..store.entries().len()).collect();
        if keys {
            // An EmbedStore lists its keys in stored order; a zip's are sorted already.
            let entries = store.entries();
            order.sort_by(|&a, &b| {
                let name = |i: usize| entries.get(i).map(Entry::raw_name).unwrap_or_default();
                components(name(a)).cmp(components(name(b)))
            });
        }
        let group_files = if keys {
            BTreeMap::new()
        } else {
            let suffix = format!("/{}", kind::GROUP_VLMETA_MEMBER);
            store
                .entries()
                .iter()
                .enumerate()
                .filter_map(|(i, e)| {
                    let dir = match e.name() {
                        kind::GROUP_VLMETA_MEMBER => "",
                        name => name.strip_suffix(&suffix)?,
                    };
                    Some((dir.to_owned(), i))
                })
                .collect()
        };
        self.levels.push(Level::Store(Box::new(StoreLevel {
            store,
            keys,
            order: order.into_iter(),
            depth,
            scope,
            open: Vec::new(),
            embed,
            group_files,
        })));
    }

    /// A directory's node, held until something under it is yielded (the root's is yielded at
    /// once); its entries are read, and its kind found, now.
    fn open_dir(&mut self, path: PathBuf, name: OsString, depth: usize, scope: &Scope, meta: &fs::Metadata, arg: bool) {
        let id = identity(meta);
        if let Some(id) = id {
            let ancestor = self.levels.iter().find_map(|l| match l {
                Level::Dir(d) if d.id == Some(id) => Some(d.path.clone()),
                _ => None,
            });
            if let Some(ancestor) = ancestor {
                let mut node = Node::new(path.clone(), name, depth, scope.dir_kind());
                node.errors.push(TreeError::Loop { path, ancestor });
                return self.emit(node);
            }
        }
        let name_str = name.to_string_lossy().into_owned();
        let mut node = Node::new(path.clone(), name, depth, scope.dir_kind());
        node.key = if arg { None } else { scope.dir_key(&name_str) };
        let mut names = match read_names(&path) {
            Ok(names) => names,
            Err(source) => {
                node.errors.push(TreeError::Io { path, source });
                return self.emit(node);
            }
        };
        names.sort();
        let mut inner = scope.dir(&name_str);
        if let Some(key) = node.key.clone().filter(|_| scope.store.is_some()) {
            scope.give_group_vlmeta(&mut node, &key);
        }
        let mut embed = None;
        if names.iter().any(|n| n == kind::EMBED_MEMBER) {
            let embed_path = path.join(kind::EMBED_MEMBER);
            let mut embed_node = Node::frame(
                embed_path.clone(),
                OsString::from(kind::EMBED_MEMBER),
                depth.saturating_add(1),
                read_file(&embed_path),
            );
            let ctable = || {
                names.iter().any(|n| n == kind::CTABLE_META_MEMBER)
                    && is_ctable(&read_file(&path.join(kind::CTABLE_META_MEMBER)).0)
            };
            let (found, held) = store_kind(&mut embed_node, || Store::open_embed(&embed_path), ctable);
            if let Some(found) = found {
                node.kind = found;
                inner = Scope::store(found, held.clone());
                inner.give_group_vlmeta(&mut node, "");
            }
            embed = Some((embed_node, held));
        }
        if inner.is_tree() && node.group_vlmeta.is_none() && names.iter().any(|n| n == kind::GROUP_VLMETA_MEMBER) {
            give_vlmeta_frame(&mut node, read_file(&path.join(kind::GROUP_VLMETA_MEMBER)));
        }
        let pending = if depth == 0 {
            self.queue.push_back(node);
            None
        } else {
            Some(node)
        };
        self.levels.push(Level::Dir(Box::new(DirLevel {
            path,
            names: names.into_iter(),
            depth,
            scope: inner,
            pending,
            embed,
            id,
        })));
    }

    /// A `.b2z` store's node, and the level of its members.
    fn open_zip(&mut self, path: PathBuf, name: OsString, depth: usize, scope: &Scope) {
        let name_str = name.to_string_lossy().into_owned();
        let mut node = Node::new(path.clone(), name, depth, Kind::Directory);
        node.key = if depth == 0 { None } else { scope.dir_key(&name_str) };
        let store = match Store::open_zip(&path) {
            Ok(store) => Rc::new(store),
            Err(e) => {
                node.errors.push(TreeError::Store(e));
                return self.emit(node);
            }
        };
        let member = |name: &str| store.members().find(|m| m.name == name);
        let mut inner = Scope::default();
        let mut embed = None;
        if let Some(embed_member) = member(kind::EMBED_MEMBER) {
            let mut embed_node = Node::frame(
                store.member_path(embed_member),
                OsString::from(kind::EMBED_MEMBER),
                depth.saturating_add(1),
                read_member(&store, embed_member),
            );
            let ctable = || member(kind::CTABLE_META_MEMBER).is_some_and(|m| is_ctable(&read_member(&store, m).0));
            let (found, held) = store_kind(&mut embed_node, || store.open_embed_store(embed_member), ctable);
            if let Some(found) = found {
                node.kind = found;
                inner = Scope::store(found, held.clone());
                inner.give_group_vlmeta(&mut node, "");
            }
            embed = Some((embed_node, held));
        }
        if inner.is_tree()
            && node.group_vlmeta.is_none()
            && let Some(m) = member(kind::GROUP_VLMETA_MEMBER)
        {
            give_vlmeta_frame(&mut node, read_member(&store, m));
        }
        self.emit(node);
        self.push_store(store, false, depth, inner, embed);
    }

    /// The next node of the level on top, or `false` when it is done (and popped).
    fn step(&mut self) -> bool {
        let Some(level) = self.levels.last_mut() else {
            return false;
        };
        match level {
            Level::Dir(dir) => {
                let Some(name) = dir.names.next() else {
                    self.levels.pop();
                    return true;
                };
                let path = dir.path.join(&name);
                let (depth, scope) = (dir.depth.saturating_add(1), dir.scope.clone());
                self.walk_entry(path, name, depth, &scope, false);
                true
            }
            Level::Store(level) => {
                let Some(index) = level.order.next() else {
                    self.levels.pop();
                    return true;
                };
                let store = level.store.clone();
                let Some(entry) = store.entries().get(index) else {
                    return true;
                };
                self.store_entry(&store, entry);
                true
            }
        }
    }

    /// The nodes of one member of the store on top: the directories its name implies that are
    /// not open yet, then its frame.
    fn store_entry(&mut self, store: &Rc<Store>, entry: &Entry) {
        let Some(Level::Store(level)) = self.levels.last_mut() else {
            return;
        };
        let name = entry.name();
        let parts: Vec<&str> = name.split('/').filter(|p| !p.is_empty()).collect();
        let (leaf, dirs) = parts.split_last().map_or((name, &[][..]), |(l, d)| (*l, d));
        // Close the directories that are not this member's, open those that are.
        let common = level
            .open
            .iter()
            .zip(dirs)
            .take_while(|((open, _), dir)| open == **dir)
            .count();
        level.open.truncate(common);
        let mut path = store.path().as_os_str().to_owned();
        for (open, _) in &level.open {
            path.push("/");
            path.push(open);
        }
        let mut dir_nodes = Vec::new();
        for dir in dirs.iter().skip(common) {
            let scope = level.open.last().map_or(&level.scope, |(_, s)| s).clone();
            path.push("/");
            path.push(dir);
            let depth = level.depth.saturating_add(level.open.len()).saturating_add(1);
            let mut node = Node::new(PathBuf::from(&path), OsString::from(*dir), depth, scope.dir_kind());
            node.key = scope.dir_key(dir);
            if let Some(key) = node.key.clone() {
                scope.give_group_vlmeta(&mut node, &key);
            }
            let inner = scope.dir(dir);
            if inner.is_tree() && node.group_vlmeta.is_none() {
                let mut name: Vec<&str> = level.open.iter().map(|(n, _)| n.as_str()).collect();
                name.push(dir);
                let entry = level
                    .group_files
                    .get(&name.join("/"))
                    .and_then(|&i| store.entries().get(i));
                if let Some(member) = entry.and_then(Entry::member) {
                    give_vlmeta_frame(&mut node, read_member(store, member));
                }
            }
            level.open.push(((*dir).to_owned(), inner));
            dir_nodes.push(node);
        }
        let scope = level.open.last().map_or(&level.scope, |(_, s)| s).clone();
        let depth = level.depth.saturating_add(level.open.len()).saturating_add(1);
        path.push("/");
        path.push(leaf);
        let keys = level.keys;
        let ahead = if !keys && dirs.is_empty() && leaf == kind::EMBED_MEMBER {
            level.embed.take()
        } else {
            None
        };
        for node in dir_nodes {
            self.emit(node);
        }
        let path = PathBuf::from(path);
        let member = match entry {
            Entry::Member(member) => member,
            Entry::Refused { message, .. } => {
                let mut node = Node::new(path.clone(), OsString::from(leaf), depth, Kind::Unknown);
                node.leaf = true;
                node.errors.push(TreeError::Member {
                    path,
                    message: message.clone(),
                });
                return self.emit(node);
            }
        };
        let (mut node, held) = match ahead {
            Some((mut node, held)) => {
                node.depth = depth;
                (node, Some(held))
            }
            None => (
                Node::frame(path, OsString::from(leaf), depth, read_member(store, member)),
                None,
            ),
        };
        if keys {
            // A frame an EmbedStore holds: its key is the EmbedStore's.
            node.key = Some(name.to_owned());
            return self.emit(node);
        }
        // An EmbedStore member of a zip: the frames it holds are read through the zip.
        let held = match held {
            Some(held) => Some(held),
            None if node.kind == Kind::EmbedStore => match store.open_embed_store(member) {
                Ok(held) => Some(Some(Rc::new(held))),
                Err(e) => {
                    node.errors.push(TreeError::Store(e));
                    Some(None)
                }
            },
            None => None,
        };
        self.emit_frame(node, &scope, held);
    }
}

impl Iterator for Tree {
    type Item = Node;

    fn next(&mut self) -> Option<Node> {
        loop {
            if let Some(node) = self.queue.pop_front() {
                return Some(node);
            }
            if let Some(root) = self.root.take() {
                let name = root.as_os_str().to_owned();
                self.walk_entry(root, name, 0, &Scope::default(), true);
                continue;
            }
            if !self.step() {
                return None;
            }
        }
    }
}

/// The kind of the store whose `embed.b2e` is `embed` (`None`: it is no EmbedStore, and the
/// directory no store), with its EmbedStore opened by `open`: its keys tell python-blosc2 3.x's
/// stores apart, and hold the groups' vlmeta. An EmbedStore that does not open is an error of
/// `embed`'s node. `ctable` says whether the store's `_meta.b2f` says `ctable`.
fn store_kind(
    embed: &mut Node,
    open: impl FnOnce() -> Result<Store, StoreError>,
    ctable: impl FnOnce() -> bool,
) -> (Option<Kind>, Option<Rc<Store>>) {
    let Some(marker) = StoreMarker::of_frame(&embed.meta()) else {
        return (None, None);
    };
    let held = match open() {
        Ok(held) => Some(Rc::new(held)),
        Err(e) => {
            embed.errors.push(TreeError::Store(e));
            None
        }
    };
    let group_vlmeta = held
        .as_ref()
        .is_some_and(|h| h.entries().iter().any(|e| kind::is_group_vlmeta_key(e.name())));
    (Some(Kind::of_store(marker, group_vlmeta, ctable())), held)
}

/// Gives a group's node the vlmeta frame read as `read` returned it; its error is the node's.
fn give_vlmeta_frame(node: &mut Node, read: (Option<Content>, Option<FrameError>)) {
    if let (Some(Content::Frame(bytes)), _) = read {
        node.group_vlmeta = Some(bytes);
    } else if let (_, Some(e)) = read {
        node.errors.push(TreeError::Frame(e));
    }
}

/// Whether a frame's vlmetalayers say it is a CTable's `_meta`.
fn is_ctable(content: &Option<Content>) -> bool {
    let Some(Content::Frame(bytes)) = content else {
        return false;
    };
    let Ok(frame) = bytes.frame() else {
        return false;
    };
    frame
        .vlmetalayers
        .iter()
        .any(|m| bytes.content(m).is_ok_and(|c| kind::is_ctable_meta(m.name, &c)))
}

/// Reads a frame file or sparse-frame directory: its header and trailer, or, when the trailer
/// does not read, its header's metalayers and the trailer's error.
fn read_file(path: &Path) -> (Option<Content>, Option<FrameError>) {
    match frame::FrameBytes::open(path) {
        Ok(bytes) => (Some(Content::Frame(bytes)), None),
        Err(error) => match frame::read_metalayers(path) {
            Ok(metalayers) => (Some(Content::Header(metalayers)), Some(error)),
            Err(_) => (None, Some(error)),
        },
    }
}

/// Reads a store's member as [`read_file`] reads a file.
fn read_member(store: &Store, member: &Member) -> (Option<Content>, Option<FrameError>) {
    match store.read_frame(member) {
        Ok(bytes) => (Some(Content::Frame(bytes)), None),
        Err(error) => {
            let header = match &member.place {
                Place::Zip { offset, len, .. } => frame::read_metalayers_at(store.path(), *offset, *len).ok(),
                Place::File { path, .. } | Place::Sparse { path } => frame::read_metalayers(path).ok(),
                Place::Data { offset, len } => store
                    .data()
                    .and_then(|d| {
                        let at = usize::try_from(*offset).ok()?;
                        d.get(at..at.checked_add(usize::try_from(*len).ok()?)?)
                    })
                    .and_then(|bytes| frame::parse_header(bytes).ok()),
            };
            (header.map(Content::Header), Some(error))
        }
    }
}

/// A name's components: split at `/`, empty ones left out.
fn components(name: &[u8]) -> impl Iterator<Item = &[u8]> {
    name.split(|&c| c == b'/').filter(|c| !c.is_empty())
}

/// Whether `dir` holds a `chunks.b2frame` file, which makes it a sparse frame.
fn is_sparse(dir: &Path) -> bool {
    fs::metadata(dir.join(store::SPARSE_HEADER_FILE)).is_ok_and(|m| m.is_file())
}

/// The file's first bytes, at most as many as the frame magic.
fn first_bytes(path: &Path) -> io::Result<Vec<u8>> {
    let mut first = Vec::with_capacity(store::FRAME_MAGIC.len());
    File::open(path)?.take(10).read_to_end(&mut first)?;
    Ok(first)
}

/// The names of a directory's entries.
fn read_names(dir: &Path) -> io::Result<Vec<OsString>> {
    fs::read_dir(dir)?.map(|e| e.map(|e| e.file_name())).collect()
}

/// A directory's device and inode.
#[cfg(unix)]
fn identity(meta: &fs::Metadata) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    Some((meta.dev(), meta.ino()))
}

/// A directory's identity, where the platform gives none: loops are not detected.
#[cfg(not(unix))]
fn identity(_meta: &fs::Metadata) -> Option<(u64, u64)> {
    None
}
