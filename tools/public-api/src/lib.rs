//! The public API of a crate, read from its sources: every item a user of the crate can name,
//! with its path and signature, one item a line, sorted.
//!
//! It runs on the stable toolchain: it parses the sources with syn from `lib.rs` through the
//! crate's `mod` tree, where `cargo public-api` needs rustdoc's JSON from a nightly toolchain.
//! Being a reading of the sources and not of the compiled crate, it sees what the sources say:
//!
//! - every item declared `pub` that is reachable from the crate root, through `pub mod` and
//!   `pub use` (a re-export of an item of the crate lists the item in full under the path it is
//!   reachable by; a re-export of another crate's item is one `pub use` line naming it);
//! - functions with their signatures, structs with their public fields, enums with their
//!   variants, traits with their items, the public methods, constants and types of inherent
//!   impls, trait impls (written and derived) of the listed types, constants, statics, type
//!   aliases, and `#[macro_export]` macros;
//! - each line ends with the `#[cfg(...)]` conditions of the item and of the modules and
//!   re-exports it is reached through (`#[cfg(feature = "value")]`);
//! - items and re-exports marked `#[doc(hidden)]`, modules that are not `pub` (unless a `pub use`
//!   reaches into them), and everything under `#[cfg(test)]` are left out.
//!
//! Signatures are printed as written in the sources, with their names as imported there. Items
//! that macros write (the impls `#[metalayer]` or `macro_rules!` generate) are not seen.
//!
//! [`doc_stub`] reads the same sources for their documentation: a crate of the doc comments
//! alone, whose doctests rustdoc runs against the built crate as their only dependency.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::{Attribute, Fields, FnArg, Generics, ImplItem, Item, ReturnType, Signature, TraitItem, UseTree, Visibility};

/// What went wrong reading a crate's sources.
#[derive(Debug)]
pub enum Error {
    /// A source file could not be read.
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// A source file is not valid Rust.
    Parse {
        /// The file.
        path: PathBuf,
        /// Line and column of the problem, 1-based line.
        line: usize,
        /// 0-based column.
        column: usize,
        /// syn's message.
        message: String,
    },
    /// `mod name;` names no file.
    MissingModule {
        /// The file holding the declaration.
        declared_in: PathBuf,
        /// The module's name.
        name: String,
        /// The files looked for.
        tried: Vec<PathBuf>,
    },
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Read { path, error } => write!(f, "{}: cannot read: {error}", path.display()),
            Error::Parse {
                path,
                line,
                column,
                message,
            } => write!(f, "{}:{line}:{}: {message}", path.display(), column + 1),
            Error::MissingModule {
                declared_in,
                name,
                tried,
            } => {
                let tried: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
                write!(
                    f,
                    "{}: `mod {name};` names no file (looked for {})",
                    declared_in.display(),
                    tried.join(" and ")
                )
            }
        }
    }
}

impl std::error::Error for Error {}

/// The listing of the crate whose root file is `lib_rs`, named `crate_name` (with underscores,
/// as paths spell it): one line per item, sorted, each ending in a newline.
pub fn listing(crate_name: &str, lib_rs: &Path) -> Result<String, Error> {
    let krate = Crate::load(lib_rs)?;
    Ok(krate.listing(crate_name))
}

/// A module of the crate: its items, and where its child modules' files are.
struct Module {
    parent: Option<usize>,
    /// Its inner attributes (`//!` documentation), where its file holds them.
    inner: Vec<Attribute>,
    /// The file its items are in.
    file: PathBuf,
    /// Its own `#[cfg(...)]` conditions.
    cfgs: Vec<String>,
    items: Vec<Item>,
    /// The module each `mod` item (by index into `items`) declares.
    child_of_item: HashMap<usize, usize>,
}

/// An item of the crate: its module and its index in that module's items.
type ItemId = (usize, usize);

/// What a path names.
#[derive(Clone, Debug)]
enum Res {
    Item(ItemId),
    Module(usize),
    /// Something outside the crate, by its path as written.
    External(String),
}

/// One name a `use` item brings in: `name` is `None` for a glob.
struct UseEntry {
    name: Option<String>,
    path: Vec<String>,
    leading_colon: bool,
}

struct Crate {
    modules: Vec<Module>,
}

/// A line of the listing: sorted by `key`, then `rank`, then `text`.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Line {
    key: String,
    rank: u8,
    text: String,
}

/// Where an item is reachable from outside: its path, and the conditions along the way.
type Reach = (String, Vec<String>);

impl Crate {
    fn load(lib_rs: &Path) -> Result<Crate, Error> {
        let file = parse_file(lib_rs)?;
        let dir = lib_rs.parent().unwrap_or(Path::new(".")).to_path_buf();
        let mut krate = Crate { modules: Vec::new() };
        krate.add_module(None, Vec::new(), file.attrs, file.items, lib_rs, &dir)?;
        Ok(krate)
    }

    /// Adds a module with its items, then its child modules: those in `items`, and those whose
    /// files are under `dir`.
    fn add_module(
        &mut self,
        parent: Option<usize>,
        cfgs: Vec<String>,
        inner: Vec<Attribute>,
        items: Vec<Item>,
        file: &Path,
        dir: &Path,
    ) -> Result<usize, Error> {
        let id = self.modules.len();
        self.modules.push(Module {
            parent,
            inner,
            file: file.to_path_buf(),
            cfgs,
            items: Vec::new(),
            child_of_item: HashMap::new(),
        });
        let mut child_of_item = HashMap::new();
        for (index, item) in items.iter().enumerate() {
            let Item::Mod(m) = item else { continue };
            if is_test(&m.attrs) {
                continue;
            }
            let name = m.ident.to_string();
            let cfgs = cfgs_of(&m.attrs);
            let child_dir = dir.join(&name);
            let child = match &m.content {
                Some((_, inline)) => self.add_module(Some(id), cfgs, Vec::new(), inline.clone(), file, &child_dir)?,
                None => {
                    let tried = match path_attr(&m.attrs) {
                        Some(p) => vec![file.parent().unwrap_or(Path::new(".")).join(p)],
                        None => vec![dir.join(format!("{name}.rs")), dir.join(&name).join("mod.rs")],
                    };
                    let Some(found) = tried.iter().find(|p| p.is_file()) else {
                        return Err(Error::MissingModule {
                            declared_in: file.to_path_buf(),
                            name,
                            tried,
                        });
                    };
                    let parsed = parse_file(found)?;
                    // A `mod.rs` (or a file named by `#[path]` that is one) keeps its children
                    // beside it; `name.rs` keeps them in `name/`.
                    let own_dir = if found.file_name().is_some_and(|f| f == "mod.rs") {
                        found.parent().unwrap_or(Path::new(".")).to_path_buf()
                    } else {
                        child_dir
                    };
                    self.add_module(Some(id), cfgs, parsed.attrs, parsed.items, found, &own_dir)?
                }
            };
            child_of_item.insert(index, child);
        }
        let module = &mut self.modules[id];
        module.items = items;
        module.child_of_item = child_of_item;
        Ok(id)
    }

    /// The conditions of a module and of every module above it.
    fn module_cfgs(&self, mut m: usize) -> Vec<String> {
        let mut cfgs = Vec::new();
        loop {
            cfgs.extend(self.modules[m].cfgs.iter().cloned());
            match self.modules[m].parent {
                Some(p) => m = p,
                None => return cfgs,
            }
        }
    }

    /// What `name` names in module `m`: an item or module declared there, then a name a `use`
    /// brings in, then a name a glob brings in. `visiting` holds the `use` items being followed.
    fn lookup(&self, m: usize, name: &str, visiting: &mut HashSet<(usize, usize)>) -> Option<Res> {
        let module = &self.modules[m];
        for (index, item) in module.items.iter().enumerate() {
            if is_test(attrs_of(item)) {
                continue;
            }
            if let Item::Mod(md) = item
                && md.ident == name
                && let Some(&child) = module.child_of_item.get(&index)
            {
                return Some(Res::Module(child));
            }
            if let Item::ExternCrate(e) = item {
                let alias = e.rename.as_ref().map_or(&e.ident, |(_, a)| a);
                if alias == name {
                    return Some(if e.ident == "self" {
                        Res::Module(0)
                    } else {
                        Res::External(e.ident.to_string())
                    });
                }
                continue;
            }
            if item_name(item).is_some_and(|n| n == name) && !matches!(item, Item::Mod(_)) {
                return Some(Res::Item((m, index)));
            }
        }
        let mut globs = Vec::new();
        for (index, item) in module.items.iter().enumerate() {
            let Item::Use(u) = item else { continue };
            if is_test(&u.attrs) || visiting.contains(&(m, index)) {
                continue;
            }
            for entry in use_entries(&u.tree, u.leading_colon.is_some()) {
                match &entry.name {
                    Some(n) if n == name => {
                        visiting.insert((m, index));
                        let res = self.resolve(m, &entry.path, entry.leading_colon, visiting);
                        visiting.remove(&(m, index));
                        return Some(res);
                    }
                    Some(_) => {}
                    None => globs.push((index, entry)),
                }
            }
        }
        for (index, entry) in globs {
            visiting.insert((m, index));
            let source = self.resolve(m, &entry.path, entry.leading_colon, visiting);
            let found = match source {
                Res::Module(source) => self.lookup(source, name, visiting),
                _ => None,
            };
            visiting.remove(&(m, index));
            if found.is_some() {
                return found;
            }
        }
        None
    }

    /// What `path` names, read in module `m`.
    fn resolve(&self, m: usize, path: &[String], leading_colon: bool, visiting: &mut HashSet<(usize, usize)>) -> Res {
        let written = path.join("::");
        if leading_colon || path.is_empty() {
            return Res::External(written);
        }
        let mut rest = path;
        let mut current = match path[0].as_str() {
            "crate" => {
                rest = &path[1..];
                Res::Module(0)
            }
            "self" => {
                rest = &path[1..];
                Res::Module(m)
            }
            "super" => {
                let mut at = m;
                while let Some(first) = rest.first()
                    && first == "super"
                {
                    match self.modules[at].parent {
                        Some(p) => at = p,
                        None => return Res::External(written),
                    }
                    rest = &rest[1..];
                }
                Res::Module(at)
            }
            first => {
                rest = &path[1..];
                match self.lookup(m, first, visiting) {
                    Some(res) => res,
                    None => return Res::External(written),
                }
            }
        };
        for segment in rest {
            current = match current {
                Res::Module(at) => match self.lookup(at, segment, visiting) {
                    Some(res) => res,
                    None => return Res::External(written),
                },
                Res::External(p) => Res::External(format!("{p}::{segment}")),
                // A path into an item (an enum's variant, an associated item): as written.
                Res::Item(_) => return Res::External(written),
            };
        }
        current
    }

    fn listing(&self, crate_name: &str) -> String {
        let (reached, mut lines) = self.reached(crate_name);
        self.macros(crate_name, &mut lines);

        let mut ids: Vec<&ItemId> = reached.keys().collect();
        ids.sort();
        for id in ids {
            let item = &self.modules[id.0].items[id.1];
            let own = [self.module_cfgs(id.0), cfgs_of(attrs_of(item))].concat();
            for (path, cfgs) in &reached[id] {
                let cfgs: Vec<String> = cfgs.iter().chain(&own).cloned().collect();
                self.item_lines(item, path, &cfgs, &mut lines);
            }
        }
        self.impls(&reached, &mut lines);

        let mut out = String::new();
        for line in lines {
            out.push_str(&line.text);
            out.push('\n');
        }
        out
    }

    /// The items reachable from outside, each with its paths, and the lines of the modules and
    /// re-exports of other crates' items on the way.
    fn reached(&self, crate_name: &str) -> (HashMap<ItemId, Vec<Reach>>, BTreeSet<Line>) {
        let mut reached = HashMap::new();
        let mut lines = BTreeSet::new();
        self.walk(0, crate_name, &[], &mut reached, &mut lines, &mut HashSet::new());
        (reached, lines)
    }

    /// The crate's types, traits and aliases that a reachable signature names and no public path
    /// reaches: `(name, the signature's path)`.
    fn unreachable(&self, crate_name: &str) -> BTreeSet<(String, String)> {
        let (reached, _) = self.reached(crate_name);
        // Each signature's module, the path it is listed under, and the types it names.
        let mut signatures: Vec<(usize, String, Vec<syn::Path>)> = Vec::new();
        for (id, reaches) in &reached {
            let Some((at, _)) = reaches.first() else { continue };
            let mut named = Vec::new();
            match &self.modules[id.0].items[id.1] {
                Item::Fn(f) => signature_paths(&f.sig, &mut named),
                Item::Struct(st) => {
                    generics_paths(&st.generics, &mut named);
                    for field in st.fields.iter().filter(|f| is_pub(&f.vis)) {
                        type_paths(&field.ty, &mut named);
                    }
                }
                Item::Union(u) => {
                    for field in u.fields.named.iter().filter(|f| is_pub(&f.vis)) {
                        type_paths(&field.ty, &mut named);
                    }
                }
                Item::Enum(e) => {
                    generics_paths(&e.generics, &mut named);
                    for field in e.variants.iter().flat_map(|v| v.fields.iter()) {
                        type_paths(&field.ty, &mut named);
                    }
                }
                Item::Trait(t) => {
                    generics_paths(&t.generics, &mut named);
                    bounds_paths(&t.supertraits, &mut named);
                    for trait_item in &t.items {
                        match trait_item {
                            TraitItem::Fn(f) => signature_paths(&f.sig, &mut named),
                            TraitItem::Const(c) => type_paths(&c.ty, &mut named),
                            TraitItem::Type(ty) => bounds_paths(&ty.bounds, &mut named),
                            _ => {}
                        }
                    }
                }
                Item::Type(t) => type_paths(&t.ty, &mut named),
                Item::Const(c) => type_paths(&c.ty, &mut named),
                Item::Static(st) => type_paths(&st.ty, &mut named),
                _ => {}
            }
            signatures.push((id.0, at.clone(), named));
        }
        for (m, module) in self.modules.iter().enumerate() {
            for item in &module.items {
                let Item::Impl(imp) = item else { continue };
                let syn::Type::Path(tp) = &*imp.self_ty else { continue };
                if imp.trait_.is_some() || is_test(&imp.attrs) || is_hidden(&imp.attrs) {
                    continue;
                }
                let segments: Vec<String> = tp.path.segments.iter().map(|s| s.ident.to_string()).collect();
                let Res::Item(id) = self.resolve(m, &segments, false, &mut HashSet::new()) else {
                    continue;
                };
                let Some((at, _)) = reached.get(&id).and_then(|r| r.first()) else {
                    continue;
                };
                for impl_item in &imp.items {
                    if let ImplItem::Fn(f) = impl_item
                        && is_pub(&f.vis)
                        && !is_hidden(&f.attrs)
                        && !is_test(&f.attrs)
                    {
                        let mut named = Vec::new();
                        generics_paths(&imp.generics, &mut named);
                        signature_paths(&f.sig, &mut named);
                        signatures.push((m, format!("{at}::{}", f.sig.ident), named));
                    }
                }
            }
        }
        let mut out = BTreeSet::new();
        for (m, at, named) in signatures {
            for path in named {
                let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
                let Res::Item(id) = self.resolve(m, &segments, path.leading_colon.is_some(), &mut HashSet::new())
                else {
                    continue;
                };
                let item = &self.modules[id.0].items[id.1];
                let is_type = matches!(
                    item,
                    Item::Struct(_) | Item::Enum(_) | Item::Union(_) | Item::Trait(_) | Item::Type(_)
                );
                if is_type && !reached.contains_key(&id) {
                    out.insert((item_name(item).unwrap_or_default(), at.clone()));
                }
            }
        }
        out
    }

    /// Lists what module `m` makes public under `path`, reached under the conditions `cfgs`.
    fn walk(
        &self,
        m: usize,
        path: &str,
        cfgs: &[String],
        reached: &mut HashMap<ItemId, Vec<Reach>>,
        lines: &mut BTreeSet<Line>,
        seen: &mut HashSet<(usize, String)>,
    ) {
        // A crate that names itself (`extern crate self as name`) reaches its modules again
        // under longer paths; each module is listed once under each path, and paths stay short.
        if !seen.insert((m, path.to_string())) || path.matches("::").count() > 12 {
            return;
        }
        let module = &self.modules[m];
        for (index, item) in module.items.iter().enumerate() {
            let attrs = attrs_of(item);
            if is_test(attrs) || is_hidden(attrs) {
                continue;
            }
            match item {
                Item::Mod(md) if is_pub(&md.vis) => {
                    let Some(&child) = module.child_of_item.get(&index) else {
                        continue;
                    };
                    let child_path = format!("{path}::{}", md.ident);
                    let child_cfgs: Vec<String> = cfgs.iter().chain(&self.module_cfgs(child)).cloned().collect();
                    push(lines, &child_path, 0, format!("pub mod {child_path}"), &child_cfgs);
                    self.walk(child, &child_path, cfgs, reached, lines, seen);
                }
                Item::Use(u) if is_pub(&u.vis) => {
                    let use_cfgs: Vec<String> = cfgs.iter().cloned().chain(cfgs_of(&u.attrs)).collect();
                    for entry in use_entries(&u.tree, u.leading_colon.is_some()) {
                        let res = self.resolve(m, &entry.path, entry.leading_colon, &mut HashSet::new());
                        match (entry.name, res) {
                            (Some(name), Res::Item(id)) => {
                                let paths = reached.entry(id).or_default();
                                let reach = (format!("{path}::{name}"), use_cfgs.clone());
                                if !paths.contains(&reach) {
                                    paths.push(reach);
                                }
                            }
                            (Some(name), Res::Module(child)) => {
                                let child_path = format!("{path}::{name}");
                                let in_module = [use_cfgs.clone(), self.module_cfgs(child)].concat();
                                push(lines, &child_path, 0, format!("pub mod {child_path}"), &in_module);
                                self.walk(child, &child_path, &use_cfgs, reached, lines, seen);
                            }
                            (Some(name), Res::External(target)) => {
                                let at = format!("{path}::{name}");
                                let line = format!("pub use {at} = {target}");
                                let all = [use_cfgs.clone(), self.module_cfgs(m)].concat();
                                push(lines, &at, 0, line, &all);
                            }
                            (None, Res::Module(source)) => self.walk(source, path, &use_cfgs, reached, lines, seen),
                            (None, Res::External(target)) => {
                                let all = [use_cfgs.clone(), self.module_cfgs(m)].concat();
                                push(
                                    lines,
                                    &format!("{path}::*"),
                                    0,
                                    format!("pub use {path}::* = {target}::*"),
                                    &all,
                                );
                            }
                            (None, Res::Item(id)) => {
                                // A glob of an enum's variants: the enum, by its own name.
                                let item = &self.modules[id.0].items[id.1];
                                let target = item_name(item).unwrap_or_default();
                                let all = [use_cfgs.clone(), self.module_cfgs(m)].concat();
                                push(
                                    lines,
                                    &format!("{path}::*"),
                                    0,
                                    format!("pub use {path}::* = {target}::*"),
                                    &all,
                                );
                            }
                        }
                    }
                }
                Item::ExternCrate(e) if is_pub(&e.vis) => {
                    let alias = e.rename.as_ref().map_or(&e.ident, |(_, a)| a);
                    let at = format!("{path}::{alias}");
                    let all = [cfgs.to_vec(), self.module_cfgs(m), cfgs_of(&e.attrs)].concat();
                    push(lines, &at, 0, format!("pub extern crate {at} = {}", e.ident), &all);
                }
                Item::Mod(_) | Item::Use(_) | Item::ExternCrate(_) | Item::Impl(_) | Item::Macro(_) => {}
                other => {
                    if vis_of(other).is_some_and(is_pub) {
                        let paths = reached.entry((m, index)).or_default();
                        let reach = (
                            format!("{path}::{}", item_name(other).unwrap_or_default()),
                            cfgs.to_vec(),
                        );
                        if !paths.contains(&reach) {
                            paths.push(reach);
                        }
                    }
                }
            }
        }
    }

    /// `#[macro_export]` macros, wherever they are defined: they are exported at the crate root.
    fn macros(&self, crate_name: &str, lines: &mut BTreeSet<Line>) {
        for (m, module) in self.modules.iter().enumerate() {
            if self.hidden_module(m) {
                continue;
            }
            for item in &module.items {
                let Item::Macro(mac) = item else { continue };
                let Some(name) = &mac.ident else { continue };
                if is_test(&mac.attrs)
                    || is_hidden(&mac.attrs)
                    || !mac.attrs.iter().any(|a| a.path().is_ident("macro_export"))
                {
                    continue;
                }
                let path = format!("{crate_name}::{name}");
                let cfgs = [self.module_cfgs(m), cfgs_of(&mac.attrs)].concat();
                push(lines, &path, 0, format!("macro {path}!"), &cfgs);
            }
        }
    }

    /// Whether a module or one above it is `#[doc(hidden)]` (checked on the `mod` item).
    fn hidden_module(&self, mut m: usize) -> bool {
        while let Some(parent) = self.modules[m].parent {
            let parent_module = &self.modules[parent];
            let hidden = parent_module
                .child_of_item
                .iter()
                .any(|(index, child)| *child == m && is_hidden(attrs_of(&parent_module.items[*index])));
            if hidden {
                return true;
            }
            m = parent;
        }
        false
    }

    fn item_lines(&self, item: &Item, path: &str, cfgs: &[String], lines: &mut BTreeSet<Line>) {
        let attrs = attrs_of(item);
        let non_exhaustive = if attrs.iter().any(|a| a.path().is_ident("non_exhaustive")) {
            "#[non_exhaustive] "
        } else {
            ""
        };
        match item {
            Item::Fn(f) => {
                // A procedural macro is named by the attribute that makes it one.
                let kind = ["proc_macro", "proc_macro_attribute", "proc_macro_derive"]
                    .into_iter()
                    .find(|k| attrs.iter().any(|a| a.path().is_ident(k)))
                    .map_or(String::new(), |k| format!("#[{k}] "));
                push(lines, path, 0, format!("{kind}pub {}", signature(&f.sig, path)), cfgs);
            }
            Item::Struct(s) => {
                let generics = render(s.generics.to_token_stream());
                let where_clause = where_of(&s.generics);
                let head = format!("{non_exhaustive}pub struct {path}{generics}");
                match &s.fields {
                    Fields::Named(named) => {
                        push(lines, path, 0, format!("{head}{where_clause}"), cfgs);
                        for field in &named.named {
                            if is_pub(&field.vis) && !is_hidden(&field.attrs) {
                                let name = field.ident.as_ref().map(ToString::to_string).unwrap_or_default();
                                let field_cfgs = [cfgs, &cfgs_of(&field.attrs)[..]].concat();
                                let ty = render(field.ty.to_token_stream());
                                push(
                                    lines,
                                    &format!("{path}::{name}"),
                                    1,
                                    format!("pub {path}::{name}: {ty}"),
                                    &field_cfgs,
                                );
                            }
                        }
                    }
                    Fields::Unnamed(unnamed) => {
                        let fields: Vec<String> = unnamed
                            .unnamed
                            .iter()
                            .map(|f| {
                                if is_pub(&f.vis) && !is_hidden(&f.attrs) {
                                    format!("pub {}", render(f.ty.to_token_stream()))
                                } else {
                                    "_".to_string()
                                }
                            })
                            .collect();
                        push(
                            lines,
                            path,
                            0,
                            format!("{head}({}){where_clause}", fields.join(", ")),
                            cfgs,
                        );
                    }
                    Fields::Unit => push(lines, path, 0, format!("{head}{where_clause}"), cfgs),
                }
                self.derives(attrs, path, &s.generics, cfgs, lines);
            }
            Item::Enum(e) => {
                let generics = render(e.generics.to_token_stream());
                let head = format!("{non_exhaustive}pub enum {path}{generics}{}", where_of(&e.generics));
                push(lines, path, 0, head, cfgs);
                for v in &e.variants {
                    if is_hidden(&v.attrs) {
                        continue;
                    }
                    let marker = if v.attrs.iter().any(|a| a.path().is_ident("non_exhaustive")) {
                        "#[non_exhaustive] "
                    } else {
                        ""
                    };
                    let mut fields = String::new();
                    match &v.fields {
                        Fields::Named(named) => {
                            let parts: Vec<String> = named
                                .named
                                .iter()
                                .map(|f| {
                                    let name = f.ident.as_ref().map(ToString::to_string).unwrap_or_default();
                                    format!("{name}: {}", render(f.ty.to_token_stream()))
                                })
                                .collect();
                            write!(fields, " {{ {} }}", parts.join(", ")).unwrap_or(());
                        }
                        Fields::Unnamed(unnamed) => {
                            let parts: Vec<String> =
                                unnamed.unnamed.iter().map(|f| render(f.ty.to_token_stream())).collect();
                            write!(fields, "({})", parts.join(", ")).unwrap_or(());
                        }
                        Fields::Unit => {}
                    }
                    if let Some((_, discriminant)) = &v.discriminant {
                        write!(fields, " = {}", render(discriminant.to_token_stream())).unwrap_or(());
                    }
                    let at = format!("{path}::{}", v.ident);
                    let variant_cfgs = [cfgs, &cfgs_of(&v.attrs)[..]].concat();
                    push(lines, &at, 1, format!("{marker}pub {at}{fields}"), &variant_cfgs);
                }
                self.derives(attrs, path, &e.generics, cfgs, lines);
            }
            Item::Union(u) => {
                let generics = render(u.generics.to_token_stream());
                push(
                    lines,
                    path,
                    0,
                    format!("pub union {path}{generics}{}", where_of(&u.generics)),
                    cfgs,
                );
                for field in &u.fields.named {
                    if is_pub(&field.vis) && !is_hidden(&field.attrs) {
                        let name = field.ident.as_ref().map(ToString::to_string).unwrap_or_default();
                        let ty = render(field.ty.to_token_stream());
                        push(
                            lines,
                            &format!("{path}::{name}"),
                            1,
                            format!("pub {path}::{name}: {ty}"),
                            cfgs,
                        );
                    }
                }
                self.derives(attrs, path, &u.generics, cfgs, lines);
            }
            Item::Trait(t) => {
                let generics = render(t.generics.to_token_stream());
                let mut head = format!(
                    "pub {}{}trait {path}{generics}",
                    if t.unsafety.is_some() { "unsafe " } else { "" },
                    if t.auto_token.is_some() { "auto " } else { "" },
                );
                if !t.supertraits.is_empty() {
                    write!(head, ": {}", render(t.supertraits.to_token_stream())).unwrap_or(());
                }
                head.push_str(&where_of(&t.generics));
                push(lines, path, 0, head, cfgs);
                for trait_item in &t.items {
                    let item_attrs = match trait_item {
                        TraitItem::Const(c) => &c.attrs,
                        TraitItem::Fn(f) => &f.attrs,
                        TraitItem::Type(t) => &t.attrs,
                        TraitItem::Macro(m) => &m.attrs,
                        _ => continue,
                    };
                    if is_test(item_attrs) || is_hidden(item_attrs) {
                        continue;
                    }
                    let item_cfgs = [cfgs, &cfgs_of(item_attrs)[..]].concat();
                    match trait_item {
                        TraitItem::Const(c) => {
                            let at = format!("{path}::{}", c.ident);
                            let ty = render(c.ty.to_token_stream());
                            let default = if c.default.is_some() { " = .." } else { "" };
                            push(lines, &at, 1, format!("const {at}: {ty}{default}"), &item_cfgs);
                        }
                        TraitItem::Fn(f) => {
                            let at = format!("{path}::{}", f.sig.ident);
                            let provided = if f.default.is_some() { " { .. }" } else { "" };
                            push(
                                lines,
                                &at,
                                1,
                                format!("{}{provided}", signature(&f.sig, &at)),
                                &item_cfgs,
                            );
                        }
                        TraitItem::Type(ty) => {
                            let at = format!("{path}::{}", ty.ident);
                            let generics = render(ty.generics.to_token_stream());
                            let mut line = format!("type {at}{generics}");
                            if !ty.bounds.is_empty() {
                                write!(line, ": {}", render(ty.bounds.to_token_stream())).unwrap_or(());
                            }
                            push(lines, &at, 1, line, &item_cfgs);
                        }
                        _ => {}
                    }
                }
            }
            Item::Type(t) => {
                let generics = render(t.generics.to_token_stream());
                let ty = render(t.ty.to_token_stream());
                push(lines, path, 0, format!("pub type {path}{generics} = {ty}"), cfgs);
            }
            Item::Const(c) => {
                let ty = render(c.ty.to_token_stream());
                push(lines, path, 0, format!("pub const {path}: {ty}"), cfgs);
            }
            Item::Static(s) => {
                let ty = render(s.ty.to_token_stream());
                let mutability = if matches!(s.mutability, syn::StaticMutability::Mut(_)) {
                    "mut "
                } else {
                    ""
                };
                push(lines, path, 0, format!("pub static {mutability}{path}: {ty}"), cfgs);
            }
            Item::TraitAlias(t) => {
                let generics = render(t.generics.to_token_stream());
                let bounds = render(t.bounds.to_token_stream());
                push(lines, path, 0, format!("pub trait {path}{generics} = {bounds}"), cfgs);
            }
            _ => {}
        }
    }

    /// `impl Derived for path` for each trait in the item's `#[derive(...)]`.
    fn derives(
        &self,
        attrs: &[Attribute],
        path: &str,
        generics: &Generics,
        cfgs: &[String],
        lines: &mut BTreeSet<Line>,
    ) {
        let args = generic_args(generics);
        for attr in attrs {
            if !attr.path().is_ident("derive") {
                continue;
            }
            let Ok(traits) = attr.parse_args_with(Punctuated::<syn::Path, syn::Token![,]>::parse_terminated) else {
                continue;
            };
            for t in traits {
                let t = render(t.to_token_stream());
                push(lines, path, 2, format!("impl {t} for {path}{args}"), cfgs);
            }
        }
    }

    /// The impls of the crate: the public items of inherent impls of listed types, and trait
    /// impls where the type or the trait is listed.
    fn impls(&self, reached: &HashMap<ItemId, Vec<Reach>>, lines: &mut BTreeSet<Line>) {
        let first_path = |res: &Res| match res {
            Res::Item(id) => reached.get(id).and_then(|paths| paths.first()).map(|(p, _)| p.clone()),
            _ => None,
        };
        for (m, module) in self.modules.iter().enumerate() {
            for item in &module.items {
                let Item::Impl(imp) = item else { continue };
                if is_test(&imp.attrs) || is_hidden(&imp.attrs) {
                    continue;
                }
                let impl_cfgs = [self.module_cfgs(m), cfgs_of(&imp.attrs)].concat();
                let (self_res, self_args) = match &*imp.self_ty {
                    syn::Type::Path(tp) if tp.qself.is_none() => {
                        let segments: Vec<String> = tp.path.segments.iter().map(|s| s.ident.to_string()).collect();
                        let res = self.resolve(m, &segments, tp.path.leading_colon.is_some(), &mut HashSet::new());
                        let args = tp
                            .path
                            .segments
                            .last()
                            .map(|s| render(s.arguments.to_token_stream()))
                            .unwrap_or_default();
                        (Some(res), args)
                    }
                    _ => (None, String::new()),
                };
                let self_paths: &[Reach] = match &self_res {
                    Some(Res::Item(id)) => reached.get(id).map_or(&[], Vec::as_slice),
                    _ => &[],
                };
                let generics = render(imp.generics.to_token_stream());
                let where_clause = where_of(&imp.generics);
                match &imp.trait_ {
                    None => {
                        for (path, reach_cfgs) in self_paths {
                            let on = format!("{path}{self_args}");
                            for impl_item in &imp.items {
                                let (attrs, vis) = match impl_item {
                                    ImplItem::Fn(f) => (&f.attrs, &f.vis),
                                    ImplItem::Const(c) => (&c.attrs, &c.vis),
                                    ImplItem::Type(t) => (&t.attrs, &t.vis),
                                    _ => continue,
                                };
                                if !is_pub(vis) || is_test(attrs) || is_hidden(attrs) {
                                    continue;
                                }
                                let cfgs = [&reach_cfgs[..], &impl_cfgs, &cfgs_of(attrs)].concat();
                                match impl_item {
                                    ImplItem::Fn(f) => {
                                        let at = format!("{on}::{}", f.sig.ident);
                                        let key = format!("{path}::{}", f.sig.ident);
                                        push(lines, &key, 1, format!("pub {}", signature(&f.sig, &at)), &cfgs);
                                    }
                                    ImplItem::Const(c) => {
                                        let key = format!("{path}::{}", c.ident);
                                        let ty = render(c.ty.to_token_stream());
                                        push(lines, &key, 1, format!("pub const {on}::{}: {ty}", c.ident), &cfgs);
                                    }
                                    ImplItem::Type(t) => {
                                        let key = format!("{path}::{}", t.ident);
                                        let ty = render(t.ty.to_token_stream());
                                        push(lines, &key, 1, format!("pub type {on}::{} = {ty}", t.ident), &cfgs);
                                    }
                                    _ => {}
                                }
                            }
                        }
                    }
                    Some((negative, trait_path, _)) => {
                        let segments: Vec<String> = trait_path.segments.iter().map(|s| s.ident.to_string()).collect();
                        let trait_res =
                            self.resolve(m, &segments, trait_path.leading_colon.is_some(), &mut HashSet::new());
                        let trait_args = trait_path
                            .segments
                            .last()
                            .map(|s| render(s.arguments.to_token_stream()))
                            .unwrap_or_default();
                        let listed_trait = first_path(&trait_res);
                        let trait_name = match &listed_trait {
                            Some(p) => format!("{p}{trait_args}"),
                            None => render(trait_path.to_token_stream()),
                        };
                        let bang = if negative.is_some() { "!" } else { "" };
                        if !self_paths.is_empty() {
                            for (path, reach_cfgs) in self_paths {
                                let cfgs = [&reach_cfgs[..], &impl_cfgs].concat();
                                let line =
                                    format!("impl{generics} {bang}{trait_name} for {path}{self_args}{where_clause}");
                                push(lines, path, 2, line, &cfgs);
                            }
                        } else if let Some(trait_at) = &listed_trait {
                            // The crate's trait for a type that is not the crate's.
                            let ty = render(imp.self_ty.to_token_stream());
                            let line = format!("impl{generics} {bang}{trait_name} for {ty}{where_clause}");
                            push(lines, trait_at, 3, line, &impl_cfgs);
                        }
                    }
                }
            }
        }
    }
}

/// The paths a signature names: its generics' bounds, its arguments' and its output's types.
fn signature_paths(sig: &Signature, out: &mut Vec<syn::Path>) {
    generics_paths(&sig.generics, out);
    for input in &sig.inputs {
        if let FnArg::Typed(t) = input {
            type_paths(&t.ty, out);
        }
    }
    if let ReturnType::Type(_, ty) = &sig.output {
        type_paths(ty, out);
    }
}

fn generics_paths(generics: &Generics, out: &mut Vec<syn::Path>) {
    for param in &generics.params {
        if let syn::GenericParam::Type(t) = param {
            bounds_paths(&t.bounds, out);
        }
    }
    if let Some(w) = &generics.where_clause {
        for predicate in &w.predicates {
            if let syn::WherePredicate::Type(t) = predicate {
                type_paths(&t.bounded_ty, out);
                bounds_paths(&t.bounds, out);
            }
        }
    }
}

fn bounds_paths<P>(bounds: &Punctuated<syn::TypeParamBound, P>, out: &mut Vec<syn::Path>) {
    for bound in bounds {
        if let syn::TypeParamBound::Trait(t) = bound {
            path_paths(&t.path, out);
        }
    }
}

/// `path` and the paths its generic arguments name.
fn path_paths(path: &syn::Path, out: &mut Vec<syn::Path>) {
    out.push(path.clone());
    for segment in &path.segments {
        match &segment.arguments {
            syn::PathArguments::AngleBracketed(args) => {
                for arg in &args.args {
                    match arg {
                        syn::GenericArgument::Type(t) => type_paths(t, out),
                        syn::GenericArgument::AssocType(a) => type_paths(&a.ty, out),
                        syn::GenericArgument::Constraint(c) => bounds_paths(&c.bounds, out),
                        _ => {}
                    }
                }
            }
            syn::PathArguments::Parenthesized(args) => {
                for input in &args.inputs {
                    type_paths(input, out);
                }
                if let ReturnType::Type(_, ty) = &args.output {
                    type_paths(ty, out);
                }
            }
            syn::PathArguments::None => {}
        }
    }
}

/// The paths a type names.
fn type_paths(ty: &syn::Type, out: &mut Vec<syn::Path>) {
    match ty {
        syn::Type::Path(tp) => {
            if let Some(q) = &tp.qself {
                type_paths(&q.ty, out);
            }
            path_paths(&tp.path, out);
        }
        syn::Type::Reference(r) => type_paths(&r.elem, out),
        syn::Type::Slice(s) => type_paths(&s.elem, out),
        syn::Type::Array(a) => type_paths(&a.elem, out),
        syn::Type::Ptr(p) => type_paths(&p.elem, out),
        syn::Type::Paren(p) => type_paths(&p.elem, out),
        syn::Type::Group(g) => type_paths(&g.elem, out),
        syn::Type::Tuple(t) => t.elems.iter().for_each(|e| type_paths(e, out)),
        syn::Type::ImplTrait(i) => bounds_paths(&i.bounds, out),
        syn::Type::TraitObject(t) => bounds_paths(&t.bounds, out),
        syn::Type::BareFn(f) => {
            for input in &f.inputs {
                type_paths(&input.ty, out);
            }
            if let ReturnType::Type(_, ty) = &f.output {
                type_paths(ty, out);
            }
        }
        _ => {}
    }
}

/// Adds a line, with its conditions (sorted, each once) at its end.
fn push(lines: &mut BTreeSet<Line>, key: &str, rank: u8, text: String, cfgs: &[String]) {
    let cfgs: BTreeSet<&String> = cfgs.iter().collect();
    let mut text = text;
    for cfg in cfgs {
        write!(text, " #[{cfg}]").unwrap_or(());
    }
    lines.insert(Line {
        key: key.to_string(),
        rank,
        text,
    });
}

fn parse_file(path: &Path) -> Result<syn::File, Error> {
    let text = std::fs::read_to_string(path).map_err(|error| Error::Read {
        path: path.to_path_buf(),
        error,
    })?;
    syn::parse_file(&text).map_err(|e| {
        let start = e.span().start();
        Error::Parse {
            path: path.to_path_buf(),
            line: start.line,
            column: start.column,
            message: e.to_string(),
        }
    })
}

/// A function's signature with `path` for its name: qualifiers, generics, arguments, output and
/// where clause.
fn signature(sig: &Signature, path: &str) -> String {
    let mut out = String::new();
    if sig.constness.is_some() {
        out.push_str("const ");
    }
    if sig.asyncness.is_some() {
        out.push_str("async ");
    }
    if sig.unsafety.is_some() {
        out.push_str("unsafe ");
    }
    if let Some(abi) = &sig.abi {
        out.push_str(&render(abi.to_token_stream()));
        out.push(' ');
    }
    let inputs: Vec<String> = sig
        .inputs
        .iter()
        .map(|arg| {
            let mut arg = arg.clone();
            match &mut arg {
                FnArg::Receiver(r) => r.attrs.clear(),
                FnArg::Typed(t) => t.attrs.clear(),
            }
            render(arg.to_token_stream())
        })
        .collect();
    let mut inputs = inputs.join(", ");
    if sig.variadic.is_some() {
        inputs.push_str(", ...");
    }
    let output = match &sig.output {
        ReturnType::Default => String::new(),
        ReturnType::Type(_, ty) => format!(" -> {}", render(ty.to_token_stream())),
    };
    let generics = render(sig.generics.to_token_stream());
    write!(out, "fn {path}{generics}({inputs}){output}{}", where_of(&sig.generics)).unwrap_or(());
    out
}

/// ` where ...` for generics with a where clause, else nothing.
fn where_of(generics: &Generics) -> String {
    match &generics.where_clause {
        Some(w) if !w.predicates.is_empty() => {
            let text = render(w.to_token_stream());
            format!(" {}", text.trim_end_matches(',').trim_end())
        }
        _ => String::new(),
    }
}

/// The arguments that name a type's own parameters: `<'a, T, N>`.
fn generic_args(generics: &Generics) -> String {
    let args: Vec<String> = generics
        .params
        .iter()
        .map(|p| match p {
            syn::GenericParam::Lifetime(l) => render(l.lifetime.to_token_stream()),
            syn::GenericParam::Type(t) => t.ident.to_string(),
            syn::GenericParam::Const(c) => c.ident.to_string(),
        })
        .collect();
    if args.is_empty() {
        String::new()
    } else {
        format!("<{}>", args.join(", "))
    }
}

fn is_pub(vis: &Visibility) -> bool {
    matches!(vis, Visibility::Public(_))
}

/// `#[doc(hidden)]`.
fn is_hidden(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("doc")
            && match &a.meta {
                syn::Meta::List(list) => list
                    .tokens
                    .clone()
                    .into_iter()
                    .any(|t| matches!(&t, TokenTree::Ident(i) if i == "hidden")),
                _ => false,
            }
    })
}

/// Under `#[cfg(test)]`, or a condition that holds only in tests.
fn is_test(attrs: &[Attribute]) -> bool {
    cfgs_of(attrs)
        .iter()
        .any(|c| c == "cfg(test)" || c.starts_with("cfg(all(test,"))
}

/// The item's `#[cfg(...)]` conditions, each as `cfg(...)`.
fn cfgs_of(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .filter_map(|a| match &a.meta {
            syn::Meta::List(list) => Some(format!("cfg({})", render(list.tokens.clone()))),
            _ => None,
        })
        .collect()
}

/// The string of an attribute `#[name = "..."]`.
fn str_value(attr: &Attribute) -> Option<String> {
    match &attr.meta {
        syn::Meta::NameValue(nv) => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s), ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    }
}

/// `#[path = "..."]`.
fn path_attr(attrs: &[Attribute]) -> Option<String> {
    attrs.iter().find(|a| a.path().is_ident("path")).and_then(str_value)
}

fn attrs_of(item: &Item) -> &[Attribute] {
    match item {
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::ExternCrate(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::ForeignMod(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::TraitAlias(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Union(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

fn vis_of(item: &Item) -> Option<&Visibility> {
    match item {
        Item::Const(i) => Some(&i.vis),
        Item::Enum(i) => Some(&i.vis),
        Item::Fn(i) => Some(&i.vis),
        Item::Static(i) => Some(&i.vis),
        Item::Struct(i) => Some(&i.vis),
        Item::Trait(i) => Some(&i.vis),
        Item::TraitAlias(i) => Some(&i.vis),
        Item::Type(i) => Some(&i.vis),
        Item::Union(i) => Some(&i.vis),
        _ => None,
    }
}

fn item_name(item: &Item) -> Option<String> {
    let ident = match item {
        Item::Const(i) => &i.ident,
        Item::Enum(i) => &i.ident,
        Item::Fn(i) => &i.sig.ident,
        Item::Mod(i) => &i.ident,
        Item::Static(i) => &i.ident,
        Item::Struct(i) => &i.ident,
        Item::Trait(i) => &i.ident,
        Item::TraitAlias(i) => &i.ident,
        Item::Type(i) => &i.ident,
        Item::Union(i) => &i.ident,
        Item::Macro(i) => i.ident.as_ref()?,
        _ => return None,
    };
    Some(ident.to_string())
}

/// The names a `use` tree brings in, each with the path it names.
fn use_entries(tree: &UseTree, leading_colon: bool) -> Vec<UseEntry> {
    fn go(tree: &UseTree, prefix: &mut Vec<String>, leading_colon: bool, out: &mut Vec<UseEntry>) {
        match tree {
            UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                go(&p.tree, prefix, leading_colon, out);
                prefix.pop();
            }
            UseTree::Name(n) => {
                let name = n.ident.to_string();
                if name == "self" {
                    if let Some(last) = prefix.last() {
                        out.push(UseEntry {
                            name: Some(last.clone()),
                            path: prefix.clone(),
                            leading_colon,
                        });
                    }
                } else {
                    let mut path = prefix.clone();
                    path.push(name.clone());
                    out.push(UseEntry {
                        name: Some(name),
                        path,
                        leading_colon,
                    });
                }
            }
            UseTree::Rename(r) => {
                let mut path = prefix.clone();
                if r.ident != "self" {
                    path.push(r.ident.to_string());
                }
                let name = r.rename.to_string();
                if name != "_" {
                    out.push(UseEntry {
                        name: Some(name),
                        path,
                        leading_colon,
                    });
                }
            }
            UseTree::Glob(_) => out.push(UseEntry {
                name: None,
                path: prefix.clone(),
                leading_colon,
            }),
            UseTree::Group(g) => {
                for t in &g.items {
                    go(t, prefix, leading_colon, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    go(tree, &mut Vec::new(), leading_colon, &mut out);
    out
}

/// Tokens as one line of Rust, spaced as rustfmt spaces signatures: `&'a [u8]`,
/// `Result<(), E>`, `impl FnOnce(&mut [u8]) -> usize`, `T: ?Sized + 'static`.
pub fn render(tokens: TokenStream) -> String {
    #[derive(PartialEq)]
    enum Kind {
        Word,
        Punct,
        Open,
        Close,
    }
    fn flatten(tokens: TokenStream, out: &mut Vec<(Kind, String)>) {
        let mut pending = String::new();
        for tt in tokens {
            match tt {
                TokenTree::Punct(p) => {
                    pending.push(p.as_char());
                    if p.as_char() == '\'' {
                        continue; // a lifetime: the tick and the name are one word
                    }
                    if p.spacing() == Spacing::Alone {
                        out.push((Kind::Punct, std::mem::take(&mut pending)));
                    }
                }
                TokenTree::Ident(i) => {
                    if pending == "'" {
                        out.push((Kind::Word, format!("'{i}")));
                        pending.clear();
                    } else {
                        if !pending.is_empty() {
                            out.push((Kind::Punct, std::mem::take(&mut pending)));
                        }
                        out.push((Kind::Word, i.to_string()));
                    }
                }
                TokenTree::Literal(l) => {
                    if !pending.is_empty() {
                        out.push((Kind::Punct, std::mem::take(&mut pending)));
                    }
                    out.push((Kind::Word, l.to_string()));
                }
                TokenTree::Group(g) => {
                    if !pending.is_empty() {
                        out.push((Kind::Punct, std::mem::take(&mut pending)));
                    }
                    let (open, close) = match g.delimiter() {
                        Delimiter::Parenthesis => ("(", ")"),
                        Delimiter::Bracket => ("[", "]"),
                        Delimiter::Brace => ("{", "}"),
                        Delimiter::None => ("", ""),
                    };
                    if !open.is_empty() {
                        out.push((Kind::Open, open.to_string()));
                    }
                    flatten(g.stream(), out);
                    if !close.is_empty() {
                        out.push((Kind::Close, close.to_string()));
                    }
                }
            }
        }
        if !pending.is_empty() {
            out.push((Kind::Punct, pending));
        }
    }
    let mut toks = Vec::new();
    flatten(tokens, &mut toks);
    let mut out = String::new();
    for (i, (_, text)) in toks.iter().enumerate() {
        if i > 0 {
            let (prev_kind, prev) = &toks[i - 1];
            let t = text.as_str();
            let p = prev.as_str();
            let no_space_after_prev = matches!(p, "(" | "[" | "&" | "&&" | "::" | "#" | "!" | "." | "<" | "*" | "?" | "$")
                    // A sign: `= -1`, `(-1, 2)`.
                    || (p == "-" && (i < 2 || toks[i - 2].0 != Kind::Word && toks[i - 2].0 != Kind::Close));
            let no_space_before = matches!(t, ")" | "]" | "," | ";" | ":" | "::" | "." | ">" | ">>")
                || (t == "<" && *prev_kind == Kind::Word)
                || (t == "(" && *prev_kind == Kind::Word);
            if !(no_space_after_prev || no_space_before) {
                out.push(' ');
            }
        }
        out.push_str(text);
    }
    out
}

/// The difference between two listings, line by line: `- line` for a line only in `old`,
/// `+ line` for a line only in `new`, in order. Listings are sorted and hold each line once,
/// so comparing them as sets is exact.
pub fn diff(old: &str, new: &str) -> Vec<String> {
    let old_lines: BTreeSet<&str> = old.lines().collect();
    let new_lines: BTreeSet<&str> = new.lines().collect();
    let mut out: Vec<(String, String)> = Vec::new();
    for line in old_lines.difference(&new_lines) {
        out.push((line.to_string(), format!("- {line}")));
    }
    for line in new_lines.difference(&old_lines) {
        out.push((line.to_string(), format!("+ {line}")));
    }
    out.sort();
    out.into_iter().map(|(_, line)| line).collect()
}

/// The crate's own types, traits and aliases that its public signatures name but that no public
/// path reaches (a user cannot name them), each as `` `Type` in path::of::the::signature ``,
/// sorted. Items marked `#[doc(hidden)]` count as unreachable.
pub fn unreachable_types(crate_name: &str, lib_rs: &Path) -> Result<Vec<String>, Error> {
    let krate = Crate::load(lib_rs)?;
    Ok(krate
        .unreachable(crate_name)
        .into_iter()
        .map(|(name, at)| format!("`{name}` in {at}"))
        .collect())
}

/// The documentation of every item of the crate whose root file is `lib_rs`, private items
/// included, as a crate of its own with no code: each item's `#[doc]` attributes on an empty
/// function, under the item's `#[cfg(...)]` conditions and those of its modules. Its doctests
/// are the crate's own; run with `rustdoc --test` and the crate itself as the only `--extern`,
/// they compile as in a crate that depends on the crate alone.
pub fn doc_stub(lib_rs: &Path) -> Result<String, Error> {
    let krate = Crate::load(lib_rs)?;
    // The crate's directory, which the stubs' names give their files relative to.
    let base = lib_rs.parent().and_then(Path::parent).unwrap_or(Path::new(""));
    let mut out =
        String::from("//! The documentation of a crate, without its code.\n#![allow(dead_code, non_snake_case)]\n");
    let mut count = 0;
    for (m, module) in krate.modules.iter().enumerate() {
        let module_cfgs = krate.module_cfgs(m);
        let file = module.file.strip_prefix(base).unwrap_or(&module.file).to_string_lossy();
        let file: String = file
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let stub = |out: &mut String, count: &mut usize, cfgs: &[String], attrs: &[Attribute]| {
            stub(out, count, &file, cfgs, attrs)
        };
        stub(&mut out, &mut count, &module_cfgs, &module.inner);
        for item in &module.items {
            let attrs = attrs_of(item);
            if is_test(attrs) {
                continue;
            }
            let cfgs = [&module_cfgs[..], &cfgs_of(attrs)].concat();
            stub(&mut out, &mut count, &cfgs, attrs);
            let mut nested: Vec<(&[Attribute], Vec<String>)> = Vec::new();
            match item {
                Item::Struct(st) => field_docs(&st.fields, &cfgs, &mut nested),
                Item::Enum(e) => {
                    for v in &e.variants {
                        let vc = [&cfgs[..], &cfgs_of(&v.attrs)].concat();
                        nested.push((&v.attrs, vc.clone()));
                        field_docs(&v.fields, &vc, &mut nested);
                    }
                }
                Item::Trait(t) => {
                    for ti in &t.items {
                        let a: &[Attribute] = match ti {
                            TraitItem::Const(c) => &c.attrs,
                            TraitItem::Fn(f) => &f.attrs,
                            TraitItem::Type(t) => &t.attrs,
                            _ => continue,
                        };
                        nested.push((a, [&cfgs[..], &cfgs_of(a)].concat()));
                    }
                }
                Item::Impl(imp) => {
                    for ii in &imp.items {
                        let a: &[Attribute] = match ii {
                            ImplItem::Const(c) => &c.attrs,
                            ImplItem::Fn(f) => &f.attrs,
                            ImplItem::Type(t) => &t.attrs,
                            _ => continue,
                        };
                        nested.push((a, [&cfgs[..], &cfgs_of(a)].concat()));
                    }
                }
                _ => {}
            }
            for (a, c) in nested {
                if !is_test(a) {
                    stub(&mut out, &mut count, &c, a);
                }
            }
        }
    }
    Ok(out)
}

/// The documentation of each of `fields`, under `cfgs` and its own.
fn field_docs<'a>(fields: &'a Fields, cfgs: &[String], nested: &mut Vec<(&'a [Attribute], Vec<String>)>) {
    for f in fields {
        nested.push((&f.attrs, [cfgs, &cfgs_of(&f.attrs)].concat()));
    }
}

/// An empty function carrying `attrs`' documentation under `cfgs`, if it holds a code block,
/// named by its place: `src_value_mod_rs_line_12`, numbered after the first.
fn stub(out: &mut String, count: &mut usize, file: &str, cfgs: &[String], attrs: &[Attribute]) {
    let docs: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(str_value)
        .collect();
    if !docs.iter().any(|d| d.contains("```")) {
        return;
    }
    *count += 1;
    let line = attrs.first().map_or(0, |a| a.pound_token.span.start().line);
    for cfg in cfgs {
        writeln!(out, "#[{cfg}]").unwrap_or(());
    }
    for doc in docs {
        writeln!(out, "#[doc = {doc:?}]").unwrap_or(());
    }
    writeln!(out, "pub fn {file}_line_{line}_{count}() {{}}").unwrap_or(());
}
