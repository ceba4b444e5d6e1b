//! Which layout decodes a metalayer: the built-in layouts, a user's, and the choice among the
//! layouts stored under one name by their bytes.

#[allow(unused_imports)]
use crate::std_prelude::*;

use std::sync::{Arc, OnceLock};

use metalayer_layout::{BUILTINS, Builtin, Layout, Overlap, PYTHON_BLOSC2, Probe, also_stored_as};
use metalayer_runtime::{Candidate, CandidateOf, ProbeOf};

use crate::value::Typed;

/// What dispatch checks of a layout stored under one name, among the layouts stored under that
/// name: its fixed prefix, and its probe (`metalayer::layout::probes`).
#[derive(Debug)]
struct Steps {
    prefix: Vec<(u8, u8)>,
    probe: Vec<Probe>,
}

/// A step of a probe as the runtime's dispatch takes it, borrowed from the step.
fn runtime_probe(p: &Probe) -> ProbeOf<'_> {
    match p {
        Probe::Byte { bytes, entry } => ProbeOf::Byte { bytes, entry },
        Probe::Value { first, entry } => ProbeOf::Value { first, entry },
        Probe::End => ProbeOf::End,
    }
}

/// The steps of `layouts`, each stored under the name beside it, in that order.
fn steps_of(layouts: &[(&Layout, &str)]) -> Vec<Steps> {
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
        .map(|((layout, _), probe)| Steps {
            prefix: layout.fixed_prefix(),
            probe: probe.unwrap_or_default(),
        })
        .collect()
}

/// The built-in layouts, checked once, and what dispatch checks of each under each name it is
/// stored under.
struct Builtins {
    layouts: Vec<Arc<Layout>>,
    /// Each layout (an index in `layouts`) under each name it is stored under.
    stored: Vec<(usize, String, Steps)>,
}

fn builtins() -> &'static Builtins {
    static BUILTINS_TABLE: OnceLock<Builtins> = OnceLock::new();
    BUILTINS_TABLE.get_or_init(|| {
        // Newest first: messages list the layouts a reader most likely meant first.
        let layouts: Vec<Arc<Layout>> = BUILTINS
            .iter()
            .rev()
            .filter_map(|b| metalayer_layout::builtin_layout(b.name))
            .map(Arc::new)
            .collect();
        let mut names: Vec<(usize, &str)> = layouts
            .iter()
            .enumerate()
            .map(|(i, l)| (i, l.metalayer.as_str()))
            .collect();
        for (i, layout) in layouts.iter().enumerate() {
            names.extend(also_stored_as(&layout.schema).iter().map(|name| (i, *name)));
        }
        let pairs: Vec<(&Layout, &str)> = names.iter().map(|&(i, name)| (&*layouts[i], name)).collect();
        let stored = names
            .iter()
            .zip(steps_of(&pairs))
            .map(|(&(i, name), steps)| (i, name.to_owned(), steps))
            .collect();
        Builtins { layouts, stored }
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
    builtins()
        .layouts
        .iter()
        .chain(python_blosc2())
        .chain(frame())
        .find(|l| l.schema == schema)
        .map(|l| &**l)
}

/// python-blosc2's own layouts, checked once.
fn python_blosc2() -> &'static [Arc<Layout>] {
    static TABLE: OnceLock<Vec<Arc<Layout>>> = OnceLock::new();
    TABLE.get_or_init(|| checked(PYTHON_BLOSC2))
}

/// Whether `name` is one of the metalayer names python-blosc2 stores its own records under
/// (`b2o`, `proxy-source`, `LazyArray`...): the metalayer names of python-blosc2's built-in
/// layouts.
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
fn frame() -> &'static [Arc<Layout>] {
    static TABLE: OnceLock<Vec<Arc<Layout>>> = OnceLock::new();
    TABLE.get_or_init(|| checked(metalayer_layout::FRAME))
}

/// The checked layouts of `list`.
fn checked(list: &[Builtin]) -> Vec<Arc<Layout>> {
    list.iter()
        .filter_map(|b| metalayer_layout::builtin_layout(b.name))
        .map(Arc::new)
        .collect()
}

/// c-blosc2's built-in layouts that dispatch picks among, newest first, each under its
/// metalayer name, then the layouts also stored under another name
/// (`metalayer::layout::also_stored_as`).
///
/// ```
/// let names: Vec<&str> = metalayer::report::candidates().iter().map(|c| c.schema).collect();
/// assert_eq!(names, ["b2nd_v1", "b2nd_v0", "caterva_v0", "caterva_v0"]);
/// ```
pub fn candidates() -> &'static [Candidate] {
    static PROBES: OnceLock<Vec<Vec<metalayer_runtime::Probe>>> = OnceLock::new();
    static TABLE: OnceLock<Vec<Candidate>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let b = builtins();
        let probes = PROBES.get_or_init(|| {
            b.stored
                .iter()
                .map(|(_, _, steps)| steps.probe.iter().map(runtime_probe).collect())
                .collect()
        });
        b.stored
            .iter()
            .zip(probes)
            .map(|((i, name, steps), probe)| CandidateOf {
                schema: &b.layouts[*i].schema,
                metalayer: name,
                prefix: &steps.prefix,
                probe,
            })
            .collect()
    })
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
#[derive(Debug, Clone)]
pub struct Registry {
    /// Each metalayer name with its layouts, in the order they are tried.
    groups: Vec<Arc<Group>>,
    /// The same for vlmetalayers: the user's layouts only.
    vl_groups: Vec<Arc<Group>>,
}

/// The layouts stored under one metalayer name. The groups of the built-in layouts alone are
/// made once and shared by every registry that holds them unchanged.
#[derive(Debug)]
struct Group {
    name: String,
    layouts: Vec<Arc<Layout>>,
    /// What dispatch checks of each layout, for the candidates: which layouts to try, and the
    /// message when none reads the bytes.
    steps: Vec<Steps>,
}

impl Group {
    /// The steps of each layout's probe, as the runtime's dispatch takes them.
    fn probes(&self) -> Vec<Vec<ProbeOf<'_>>> {
        self.steps
            .iter()
            .map(|steps| steps.probe.iter().map(runtime_probe).collect())
            .collect()
    }

    /// The layouts as dispatch candidates, with `probes` from [`Group::probes`].
    fn candidates<'g>(&'g self, probes: &'g [Vec<ProbeOf<'g>>]) -> Vec<CandidateOf<'g>> {
        self.layouts
            .iter()
            .zip(&self.steps)
            .zip(probes)
            .map(|((layout, steps), probe)| CandidateOf {
                schema: &layout.schema,
                metalayer: &self.name,
                prefix: &steps.prefix,
                probe,
            })
            .collect()
    }
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

/// A user layout, with where it came from (a schema file's path) for messages. The registry
/// holds the layout (an [`Arc`], so that a layout can be shared by several registries) and
/// frees it with itself: a layout read at run time can be loaded for one registry and dropped
/// with it.
///
/// ```
/// use std::sync::Arc;
///
/// let layout = metalayer::layout::parse("units_v0", "[schema]\nmetalayer = \"units\"\ndescription = \"d\"\nsource = \"s\"\n[value]\nwire = \"str\"\n").unwrap();
/// let user: metalayer::report::UserLayout = (Arc::new(layout), "units_v0.toml".into());
/// let registry = metalayer::report::Registry::new(vec![user]).unwrap();
/// assert!(matches!(registry.select("units", b"\xa1m"), metalayer::report::Selected::Decoded(_)));
/// ```
pub type UserLayout = (Arc<Layout>, String);

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
    /// use metalayer::report::{Registry, RegistryError};
    ///
    /// let copy = metalayer::layout::builtin("b2nd_v1").unwrap().text.replace("b2nd_v1", "my_b2nd");
    /// let layout = metalayer::layout::parse("my_b2nd", &copy).unwrap();
    /// let err = Registry::new(vec![(layout.into(), "my_b2nd.toml".into())]).unwrap_err();
    /// let RegistryError::Overlap { file, overlap } = &err else { panic!("{err}") };
    /// assert_eq!(file.as_deref(), Some("my_b2nd.toml"));
    /// assert_eq!((overlap.schema.as_str(), overlap.other_schema.as_str()), ("b2nd_v1", "my_b2nd"));
    /// assert!(err.to_string().starts_with("my_b2nd.toml: "), "{err}");
    /// assert!(err.to_string().contains("`b2nd_v1` and `my_b2nd` cannot be told apart"), "{err}");
    /// ```
    pub fn new(user: Vec<UserLayout>) -> Result<Registry, RegistryError> {
        let mut layouts: Vec<Sourced> = builtin_layouts().map(|l| (Arc::clone(l), None)).collect();
        for (layout, path) in user {
            match layouts.iter_mut().find(|(l, _)| l.schema == layout.schema) {
                // A file of the same schema name replaces the built-in (or an earlier file).
                Some(slot) => *slot = (layout, Some(path)),
                None => layouts.push((layout, Some(path))),
            }
        }
        let vl_layouts: Vec<_> = layouts.iter().filter(|(_, path)| path.is_some()).cloned().collect();
        Ok(Registry {
            groups: groups(&layouts, builtin_groups())?,
            vl_groups: groups(&vl_layouts, &[])?,
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
    pub fn select<'a>(&'a self, name: &str, bytes: &'a [u8]) -> Selected<'a> {
        match select_in(&self.groups, name, bytes) {
            Selected::Failed(error) if is_python_blosc2(name) => Selected::OtherShape(error),
            selected => selected,
        }
    }

    /// Decodes a vlmetalayer stored under `name` (its bytes decompressed) with the user layout
    /// of that name that reads `bytes`.
    pub fn select_vlmeta<'a>(&'a self, name: &str, bytes: &'a [u8]) -> Selected<'a> {
        select_in(&self.vl_groups, name, bytes)
    }
}

/// The built-in layouts a registry starts from: c-blosc2's, then python-blosc2's.
fn builtin_layouts() -> impl Iterator<Item = &'static Arc<Layout>> {
    builtins().layouts.iter().chain(python_blosc2())
}

/// The groups of the built-in layouts alone, checked and probed once.
fn builtin_groups() -> &'static [Arc<Group>] {
    static TABLE: OnceLock<Vec<Arc<Group>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let layouts: Vec<Sourced> = builtin_layouts().map(|l| (Arc::clone(l), None)).collect();
        match groups(&layouts, &[]) {
            Ok(groups) => groups,
            // The built-ins part: tested.
            Err(e) => unreachable!("the built-in layouts overlap: {e}"),
        }
    })
}

/// Why [`Registry::new`] refused a set of layouts.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistryError {
    /// Two layouts stored under one name cannot be told apart from their bytes. Shown as the
    /// overlap, after the first schema file among the two when one of them came from a file.
    Overlap {
        /// The schema file of the first of the two layouts that came from one.
        file: Option<String>,
        /// Where and why the two layouts overlap.
        overlap: Box<Overlap>,
    },
}

impl std::fmt::Display for RegistryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RegistryError::Overlap {
                file: Some(file),
                overlap,
            } => write!(f, "{file}: {overlap}"),
            RegistryError::Overlap { file: None, overlap } => write!(f, "{overlap}"),
        }
    }
}

impl std::error::Error for RegistryError {}

/// A layout with the schema file it came from, if any.
type Sourced = (Arc<Layout>, Option<String>);

/// Groups layouts (each with the schema file it came from, if any) by the metalayer names they
/// are stored under, checking that the layouts of each name part. A group of `shared` that
/// holds the same layouts, in the same order, is taken as it is.
fn groups(layouts: &[Sourced], shared: &[Arc<Group>]) -> Result<Vec<Arc<Group>>, RegistryError> {
    // Each name with its layouts.
    let mut named: Vec<(String, Vec<Sourced>)> = Vec::new();
    let mut add = |layout: &Arc<Layout>, name: &str, path: &Option<String>| {
        let member = (Arc::clone(layout), path.clone());
        match named.iter_mut().find(|(n, _)| n == name) {
            Some((_, members)) => members.push(member),
            None => named.push((name.to_owned(), vec![member])),
        }
    };
    for (layout, path) in layouts {
        add(layout, &layout.metalayer, path);
    }
    for (layout, path) in layouts {
        for name in also_stored_as(&layout.schema) {
            add(layout, name, path);
        }
    }
    let mut groups = Vec::with_capacity(named.len());
    for (name, members) in named {
        let same = |g: &&Arc<Group>| {
            g.name == name
                && g.layouts.len() == members.len()
                && g.layouts.iter().zip(&members).all(|(a, (b, _))| Arc::ptr_eq(a, b))
        };
        if let Some(group) = shared.iter().find(same) {
            groups.push(Arc::clone(group));
            continue;
        }
        for (i, (a, file_a)) in members.iter().enumerate() {
            for (b, file_b) in members.iter().skip(i + 1) {
                if let Err(overlap) = a.parting(b) {
                    return Err(RegistryError::Overlap {
                        file: file_a.as_ref().or(file_b.as_ref()).cloned(),
                        overlap: Box::new(overlap),
                    });
                }
            }
        }
        let stored: Vec<(&Layout, &str)> = members.iter().map(|(l, _)| (&**l, name.as_str())).collect();
        let steps = steps_of(&stored);
        groups.push(Arc::new(Group {
            layouts: members.into_iter().map(|(l, _)| l).collect(),
            name,
            steps,
        }));
    }
    Ok(groups)
}

/// Decodes bytes stored under `name` with the layout of that name in `groups` that reads them.
fn select_in<'a>(groups: &'a [Arc<Group>], name: &str, bytes: &'a [u8]) -> Selected<'a> {
    let Some(group) = groups.iter().find(|g| g.name == name) else {
        return Selected::Unknown;
    };
    let probes = group.probes();
    let candidates = group.candidates(&probes);
    // The error of the layout whose prefix fits and that reads furthest.
    let mut failure: Option<(usize, String)> = None;
    for (layout, candidate) in group.layouts.iter().zip(&candidates) {
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
        None => match metalayer_runtime::select(&candidates, name, bytes) {
            Err(e) => Selected::Failed(super::chain(&e)),
            Ok(i) => match Typed::new(&group.layouts[i], bytes) {
                Ok(value) => Selected::Decoded(value),
                Err(e) => Selected::Failed(e.to_string()),
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UNITS: &str =
        "[schema]\nmetalayer = \"units\"\ndescription = \"d\"\nsource = \"s\"\n[value]\nwire = \"str\"\n";

    #[test]
    fn a_registry_holds_its_layouts_and_frees_them() {
        let layout = Arc::new(metalayer_layout::parse("units_v0", UNITS).unwrap_or_else(|e| panic!("{e}")));
        let registry = Registry::new(vec![(Arc::clone(&layout), "units_v0.toml".into())]);
        let registry = registry.unwrap_or_else(|e| panic!("{e}"));
        assert!(Arc::strong_count(&layout) > 1);
        let Selected::Decoded(value) = registry.select("units", b"\xa1m") else {
            panic!("units_v0 reads a fixstr");
        };
        assert!(std::ptr::eq(value.layout(), &*layout));
        assert!(matches!(
            registry.select_vlmeta("units", b"\xa1m"),
            Selected::Decoded(_)
        ));
        drop(registry);
        assert_eq!(Arc::strong_count(&layout), 1);
    }

    #[test]
    fn registries_share_the_groups_of_the_builtins_they_keep() {
        let (a, b) = (Registry::builtin(), Registry::builtin());
        assert_eq!(a.groups.len(), b.groups.len());
        assert!(a.groups.iter().zip(&b.groups).all(|(x, y)| Arc::ptr_eq(x, y)));
        // A user layout of a built-in's schema name replaces it: that group alone is made again.
        let text = metalayer_layout::builtin("b2nd_v1").map(|b| b.text).unwrap_or_default();
        let layout = metalayer_layout::parse("b2nd_v1", text).unwrap_or_else(|e| panic!("{e}"));
        let user = Registry::new(vec![(layout.into(), "b2nd_v1.toml".into())]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(user.groups.len(), a.groups.len());
        for (x, y) in user.groups.iter().zip(&a.groups) {
            assert_eq!(x.name, y.name);
            assert_eq!(Arc::ptr_eq(x, y), x.name != "b2nd", "{}", x.name);
        }
    }
}
