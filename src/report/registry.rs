//! Which layout decodes a metalayer: the built-in layouts, a user's, and the choice among the
//! layouts stored under one name by their bytes.

#[allow(unused_imports)]
use crate::std_prelude::*;

use std::sync::OnceLock;

use metalayer_layout::{BUILTINS, Builtin, Layout, PYTHON_BLOSC2, Probe, also_stored_as};
use metalayer_runtime::Candidate;

use crate::value::{Typed, intern};

/// The built-in layouts, checked once, and the candidates dispatch picks among.
struct Builtins {
    layouts: Vec<Layout>,
    candidates: Vec<Candidate>,
}

/// A layout's dispatch candidate under the metalayer name `metalayer`, with its probe among the
/// layouts stored under that name (`metalayer_layout::probes`).
fn candidate(layout: &Layout, metalayer: &str, probe: Vec<Probe>) -> Candidate {
    let ranges = |set: Vec<(u8, u8)>| -> &'static [(u8, u8)] { Box::leak(set.into_boxed_slice()) };
    let probe: Vec<metalayer_runtime::Probe> = probe
        .into_iter()
        .map(|p| match p {
            Probe::Byte { bytes, entry } => metalayer_runtime::Probe::Byte {
                bytes: ranges(bytes),
                entry: intern::text(&entry),
            },
            Probe::Value { first, entry } => metalayer_runtime::Probe::Value {
                first: ranges(first),
                entry: intern::text(&entry),
            },
            Probe::End => metalayer_runtime::Probe::End,
        })
        .collect();
    // Once per layout and name, for the life of the process.
    Candidate {
        schema: intern::text(&layout.schema),
        metalayer: intern::text(metalayer),
        prefix: ranges(layout.fixed_prefix()),
        probe: Box::leak(probe.into_boxed_slice()),
    }
}

/// The candidates of `layouts`, each stored under the name beside it, in that order.
fn candidates_of(layouts: &[(&Layout, &str)]) -> Vec<Candidate> {
    let mut probes: Vec<Option<Vec<Probe>>> = vec![None; layouts.len()];
    for (i, (_, name)) in layouts.iter().enumerate() {
        if probes[i].is_some() {
            continue;
        }
        let members: Vec<usize> = (i..layouts.len()).filter(|&j| layouts[j].1 == *name).collect();
        let group: Vec<&Layout> = members.iter().map(|&j| layouts[j].0).collect();
        for (&j, probe) in members.iter().zip(metalayer_layout::probes(&group)) {
            probes[j] = Some(probe);
        }
    }
    layouts
        .iter()
        .zip(probes)
        .map(|((layout, name), probe)| candidate(layout, name, probe.unwrap_or_default()))
        .collect()
}

fn builtins() -> &'static Builtins {
    static BUILTINS_TABLE: OnceLock<Builtins> = OnceLock::new();
    BUILTINS_TABLE.get_or_init(|| {
        // Newest first: messages list the layouts a reader most likely meant first.
        let layouts: Vec<Layout> = BUILTINS
            .iter()
            .rev()
            .filter_map(|b| metalayer_layout::builtin_layout(b.name))
            .collect();
        let mut stored: Vec<(&Layout, &str)> = layouts.iter().map(|l| (l, l.metalayer.as_str())).collect();
        for layout in &layouts {
            stored.extend(also_stored_as(&layout.schema).iter().map(|name| (layout, *name)));
        }
        let candidates = candidates_of(&stored);
        Builtins { layouts, candidates }
    })
}

/// The checked built-in layout named `schema`: c-blosc2's metalayers, python-blosc2's, and the
/// frame's header and trailer.
///
/// ```
/// let layout = metalayer::report::builtin("b2nd_v1").unwrap();
/// assert_eq!(layout.metalayer, "b2nd");
/// assert!(metalayer::report::builtin("b2nd_v9").is_none());
/// ```
pub fn builtin(schema: &str) -> Option<&'static Layout> {
    if let Some(layout) = builtins().layouts.iter().find(|l| l.schema == schema) {
        return Some(layout);
    }
    python_blosc2()
        .iter()
        .chain(frame())
        .copied()
        .find(|l| l.schema == schema)
}

/// python-blosc2's own layouts, checked once.
fn python_blosc2() -> &'static [&'static Layout] {
    static TABLE: OnceLock<Vec<&'static Layout>> = OnceLock::new();
    TABLE.get_or_init(|| checked(PYTHON_BLOSC2))
}

/// Whether `name` is one of the metalayer names python-blosc2 stores its own records under
/// (`b2o`, `proxy-source`, `LazyArray`...): the metalayer names of the layouts of
/// [`PYTHON_BLOSC2`].
///
/// ```
/// assert!(metalayer::report::is_python_blosc2("proxy-source"));
/// assert!(!metalayer::report::is_python_blosc2("b2nd"));
/// assert!(!metalayer::report::is_python_blosc2("units"));
/// ```
pub fn is_python_blosc2(name: &str) -> bool {
    python_blosc2().iter().any(|l| l.metalayer == name)
}

/// The layouts of the frame header and trailer, checked once.
fn frame() -> &'static [&'static Layout] {
    static TABLE: OnceLock<Vec<&'static Layout>> = OnceLock::new();
    TABLE.get_or_init(|| checked(metalayer_layout::FRAME))
}

/// The checked layouts of `list`, kept for the life of the process.
fn checked(list: &[Builtin]) -> Vec<&'static Layout> {
    list.iter()
        .filter_map(|b| metalayer_layout::builtin_layout(b.name))
        .map(|l| &*Box::leak(Box::new(l)))
        .collect()
}

/// c-blosc2's built-in layouts that dispatch picks among, newest first, each under its
/// metalayer name, then the layouts also stored under another name
/// (`metalayer_layout::also_stored_as`).
///
/// ```
/// let names: Vec<&str> = metalayer::report::candidates().iter().map(|c| c.schema).collect();
/// assert_eq!(names, ["b2nd_v1", "b2nd_v0", "caterva_v0", "caterva_v0"]);
/// ```
pub fn candidates() -> &'static [Candidate] {
    &builtins().candidates
}

/// The layouts metalayers are decoded with, by metalayer name: the built-ins (c-blosc2's and
/// python-blosc2's) and a user's. The layouts stored under one name all part
/// ([`Layout::parting`]), so at most one of them reads a metalayer's bytes.
///
/// Variable-length metalayers are decoded with the user's layouts only: a vlmetalayer's name is
/// a user's key (`array.vlmeta["k"]`), which may be the name of a built-in layout without
/// holding what that layout describes.
///
/// ```
/// use metalayer::report::{Registry, Selected};
///
/// let registry = Registry::builtin();
/// let caterva = [
///     0x95, 0x00, 0x01, 0x91, 0xd3, 0, 0, 0, 0, 0, 0, 0, 4,
///     0x91, 0xd2, 0, 0, 0, 2, 0x91, 0xd2, 0, 0, 0, 1,
/// ];
/// let Selected::Decoded(value) = registry.select("b2nd", &caterva) else { panic!() };
/// assert_eq!(value.layout().schema, "caterva_v0");
/// assert!(matches!(registry.select("units", b"\xa1m"), Selected::Unknown));
/// ```
#[derive(Debug)]
pub struct Registry {
    /// Each metalayer name with its layouts, in the order they are tried.
    groups: Vec<Group>,
    /// The same for vlmetalayers: the user's layouts only.
    vl_groups: Vec<Group>,
}

/// The layouts stored under one metalayer name.
#[derive(Debug)]
struct Group {
    name: String,
    layouts: Vec<&'static Layout>,
    /// The same layouts as dispatch candidates, for the message when none reads the bytes.
    candidates: &'static [Candidate],
}

/// What a registry makes of one metalayer.
///
/// ```
/// use metalayer::report::{Registry, Selected};
///
/// let registry = Registry::builtin();
/// // A caterva metalayer cut short: caterva_v0 is the layout of that name, and it refuses it.
/// let Selected::Failed(error) = registry.select("caterva", &[0x95, 0x00]) else { panic!() };
/// assert!(error.starts_with("caterva_v0: at byte 0x02"), "{error}");
/// ```
#[derive(Debug)]
pub enum Selected<'b> {
    /// The value, of the layout that reads the bytes.
    Decoded(Typed<'b>),
    /// The name has layouts, but none reads the bytes: the error of the one that reads furthest.
    Failed(String),
    /// The name is one of python-blosc2's own metalayers, but none of its layouts reads the
    /// bytes: a shape a release of python-blosc2 writes that these layouts do not describe (a
    /// newer one's, most likely). Not an error: the value is shown as msgpack, with a warning
    /// quoting this, the error of the layout that reads furthest.
    OtherShape(String),
    /// No layout is stored under the name.
    Unknown,
}

/// A user layout, with where it came from (a schema file's path) for messages.
///
/// ```
/// let layout = metalayer_layout::parse("units_v0", "[schema]\nmetalayer = \"units\"\ndescription = \"d\"\nsource = \"s\"\n[value]\nwire = \"str\"\n").unwrap();
/// let user: metalayer::report::UserLayout = (Box::leak(Box::new(layout)), "units_v0.toml".into());
/// let registry = metalayer::report::Registry::new(vec![user]).unwrap();
/// assert!(matches!(registry.select("units", b"\xa1m"), metalayer::report::Selected::Decoded(_)));
/// ```
pub type UserLayout = (&'static Layout, String);

impl Registry {
    /// The built-in layouts alone.
    pub fn builtin() -> Registry {
        match Registry::new(Vec::new()) {
            Ok(registry) => registry,
            // The built-ins part: tested.
            Err(e) => unreachable!("the built-in layouts overlap: {e}"),
        }
    }

    /// The built-in layouts with `user`'s; a user layout of a built-in's schema name replaces
    /// it. Layouts stored under one name that cannot be told apart from their bytes are an
    /// error that names them (and the first file among them).
    ///
    /// ```
    /// use metalayer::report::Registry;
    ///
    /// let copy = metalayer_layout::builtin("b2nd_v1").unwrap().text.replace("b2nd_v1", "my_b2nd");
    /// let layout = metalayer_layout::parse("my_b2nd", &copy).unwrap();
    /// let err = Registry::new(vec![(Box::leak(Box::new(layout)), "my_b2nd.toml".into())]).unwrap_err();
    /// assert!(err.contains("`b2nd_v1` and `my_b2nd` cannot be told apart"), "{err}");
    /// ```
    pub fn new(user: Vec<UserLayout>) -> Result<Registry, String> {
        let mut layouts: Vec<(&'static Layout, Option<String>)> = builtins()
            .layouts
            .iter()
            .chain(python_blosc2().iter().copied())
            .map(|l| (l, None))
            .collect();
        for (layout, path) in user {
            match layouts.iter_mut().find(|(l, _)| l.schema == layout.schema) {
                // A file of the same schema name replaces the built-in (or an earlier file).
                Some(slot) => *slot = (layout, Some(path)),
                None => layouts.push((layout, Some(path))),
            }
        }
        let vl_layouts: Vec<_> = layouts.iter().filter(|(_, path)| path.is_some()).cloned().collect();
        Ok(Registry {
            groups: groups(&layouts)?,
            vl_groups: groups(&vl_layouts)?,
        })
    }

    /// Decodes a metalayer stored under `name` with the layout of that name that reads `bytes`.
    /// Under a name python-blosc2 owns ([`is_python_blosc2`]), bytes none of its layouts read
    /// are [`Selected::OtherShape`]; under any other name, [`Selected::Failed`].
    ///
    /// ```
    /// use metalayer::report::{Registry, Selected};
    ///
    /// let registry = Registry::builtin();
    /// // {"version": 2}: b2embed_v1 holds the constant 1.
    /// let v2 = b"\x81\xa7version\x02";
    /// let Selected::OtherShape(error) = registry.select("b2embed", v2) else { panic!() };
    /// assert!(error.contains("b2embed_v1"), "{error}");
    /// // c-blosc2's metalayers stay strict.
    /// assert!(matches!(registry.select("b2nd", v2), Selected::Failed(_)));
    /// ```
    pub fn select<'b>(&self, name: &str, bytes: &'b [u8]) -> Selected<'b> {
        match select_in(&self.groups, name, bytes) {
            Selected::Failed(error) if is_python_blosc2(name) => Selected::OtherShape(error),
            selected => selected,
        }
    }

    /// Decodes a vlmetalayer stored under `name` (its bytes decompressed) with the user layout
    /// of that name that reads `bytes`.
    pub fn select_vlmeta<'b>(&self, name: &str, bytes: &'b [u8]) -> Selected<'b> {
        select_in(&self.vl_groups, name, bytes)
    }
}

/// Groups layouts (each with the schema file it came from, if any) by the metalayer names they
/// are stored under, checking that the layouts of each name part.
fn groups(layouts: &[(&'static Layout, Option<String>)]) -> Result<Vec<Group>, String> {
    let mut groups: Vec<Group> = Vec::new();
    let mut paths: Vec<Vec<Option<String>>> = Vec::new();
    let mut add =
        |layout: &'static Layout, name: &str, path: Option<String>| match groups.iter().position(|g| g.name == name) {
            Some(i) => {
                groups[i].layouts.push(layout);
                paths[i].push(path);
            }
            None => {
                groups.push(Group {
                    name: name.to_owned(),
                    layouts: vec![layout],
                    candidates: &[],
                });
                paths.push(vec![path]);
            }
        };
    for (layout, path) in layouts {
        add(layout, &layout.metalayer, path.clone());
    }
    for (layout, path) in layouts {
        for name in also_stored_as(&layout.schema) {
            add(layout, name, path.clone());
        }
    }
    for (group, paths) in groups.iter_mut().zip(&paths) {
        for (i, a) in group.layouts.iter().enumerate() {
            for (j, b) in group.layouts.iter().enumerate().skip(i + 1) {
                if let Err(overlap) = a.parting(b) {
                    let file = paths[i].as_ref().or(paths[j].as_ref());
                    return Err(match file {
                        Some(file) => format!("{file}: {overlap}"),
                        None => overlap.to_string(),
                    });
                }
            }
        }
        let stored: Vec<(&Layout, &str)> = group.layouts.iter().map(|l| (*l, group.name.as_str())).collect();
        let candidates = candidates_of(&stored);
        // Once per registry; a process makes one.
        group.candidates = Box::leak(candidates.into_boxed_slice());
    }
    Ok(groups)
}

/// Decodes bytes stored under `name` with the layout of that name in `groups` that reads them.
fn select_in<'b>(groups: &[Group], name: &str, bytes: &'b [u8]) -> Selected<'b> {
    let Some(group) = groups.iter().find(|g| g.name == name) else {
        return Selected::Unknown;
    };
    // The error of the layout whose prefix fits and that reads furthest.
    let mut failure: Option<(usize, String)> = None;
    for (layout, candidate) in group.layouts.iter().zip(group.candidates) {
        if !candidate.accepts(bytes) {
            continue;
        }
        match Typed::new(layout, bytes) {
            Ok(value) => return Selected::Decoded(value),
            Err(e) => {
                let offset = e.offset();
                if failure.as_ref().is_none_or(|(at, _)| offset > *at) {
                    failure = Some((offset, e.to_string()));
                }
            }
        }
    }
    match failure {
        Some((_, error)) => Selected::Failed(error),
        // No probe fits: the dispatch error names what each layout expects where, unless the
        // bytes single one layout out, whose error then says what is wrong.
        None => match metalayer_runtime::select(group.candidates, name, bytes) {
            Err(e) => Selected::Failed(super::chain(&e)),
            Ok(i) => match Typed::new(group.layouts[i], bytes) {
                Ok(value) => Selected::Decoded(value),
                Err(e) => Selected::Failed(e.to_string()),
            },
        },
    }
}
