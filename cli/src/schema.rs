//! Where layouts come from: the built-in schemas, schema files (with the files they extend or
//! include, relative to each other), and the choice of a built-in layout from a metalayer's
//! name and bytes.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use metalayer_layout::{BUILTINS, Layout, PYTHON_BLOSC2, Source};
use metalayer_runtime::Candidate;

use crate::output::Out;

/// Layouts stored under another metalayer name than their own, with the reason: dispatch by
/// name tries them there too.
const ALSO_STORED_UNDER: &[(&str, &str)] = &[
    // c-blosc2 briefly (January 2023) wrote the caterva layout under the name `b2nd`; c-blosc2
    // itself reads it back as a b2nd metalayer without a dtype.
    ("caterva_v0", "b2nd"),
];

/// The built-in layouts, checked once, and the candidates dispatch picks among.
struct Builtins {
    layouts: Vec<Layout>,
    candidates: Vec<Candidate>,
}

/// A layout's dispatch candidate under the metalayer name `metalayer`.
fn candidate(layout: &Layout, metalayer: &str) -> Candidate {
    Candidate {
        schema: crate::value::intern::text(&layout.schema),
        metalayer: crate::value::intern::text(metalayer),
        // Once per layout, for the life of the process.
        prefix: Box::leak(layout.fixed_prefix().into_boxed_slice()),
    }
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
        let mut candidates: Vec<Candidate> = layouts.iter().map(|l| candidate(l, &l.metalayer)).collect();
        for (schema, name) in ALSO_STORED_UNDER {
            if let Some(layout) = layouts.iter().find(|l| l.schema == *schema) {
                candidates.push(candidate(layout, name));
            }
        }
        Builtins { layouts, candidates }
    })
}

/// The checked built-in layout named `schema`: c-blosc2's metalayers, python-blosc2's, and the
/// frame's header and trailer.
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

/// The layouts of the frame header and trailer, checked once.
fn frame() -> &'static [&'static Layout] {
    static TABLE: OnceLock<Vec<&'static Layout>> = OnceLock::new();
    TABLE.get_or_init(|| checked(metalayer_layout::FRAME))
}

/// The checked layouts of `list`, kept for the life of the process.
fn checked(list: &[metalayer_layout::Builtin]) -> Vec<&'static Layout> {
    list.iter()
        .filter_map(|b| metalayer_layout::builtin_layout(b.name))
        .map(|l| &*Box::leak(Box::new(l)))
        .collect()
}

/// The built-in layouts that dispatch picks among, newest first, each under its metalayer
/// name, then the layouts also stored under another name.
pub fn candidates() -> &'static [Candidate] {
    &builtins().candidates
}

/// The layouts `inspect` decodes metalayers with, by metalayer name: the built-ins (c-blosc2's
/// and python-blosc2's) and the schemas of `--schemas` directories. The layouts stored under one
/// name all part ([`Layout::parting`]), so at most one of them reads a metalayer's bytes.
///
/// Variable-length metalayers are decoded with the schemas of `--schemas` directories only: a
/// vlmetalayer's name is a user's key (`array.vlmeta["k"]`), which may be the name of a built-in
/// layout without holding what that layout describes.
#[cfg(feature = "inspect")]
pub struct Registry {
    /// Each metalayer name with its layouts, in the order they are tried.
    groups: Vec<Group>,
    /// The same for vlmetalayers: the layouts of `--schemas` files only.
    vl_groups: Vec<Group>,
}

/// The layouts stored under one metalayer name.
#[cfg(feature = "inspect")]
struct Group {
    name: String,
    layouts: Vec<&'static Layout>,
    /// The same layouts as dispatch candidates, for the message when none reads the bytes.
    candidates: &'static [Candidate],
}

/// What a registry makes of one metalayer.
#[cfg(feature = "inspect")]
pub enum Selected {
    /// The layout that reads the bytes, and their value.
    Decoded(&'static Layout, serde_json::Value),
    /// The name has layouts, but none reads the bytes: the error of the one that reads furthest.
    Failed(String),
    /// No layout is stored under the name.
    Unknown,
}

/// A `--schemas` directory that did not load.
#[derive(Debug)]
#[cfg(feature = "inspect")]
pub enum RegistryError {
    /// A schema file or the directory could not be read, or does not check.
    Load(LoadError),
    /// Two layouts stored under one name cannot be told apart; the path is the first schema
    /// file among them.
    Overlap(String),
}

#[cfg(feature = "inspect")]
impl RegistryError {
    /// Reports the error on stderr.
    pub fn report(&self, out: &mut Out) {
        match self {
            RegistryError::Load(e) => e.report(out),
            RegistryError::Overlap(text) => out.error(text),
        }
    }
}

#[cfg(feature = "inspect")]
impl Registry {
    /// The built-in layouts with the schemas of `dirs` (every `*.toml` file directly in each,
    /// in name order; a file whose schema has the name of a built-in replaces it).
    pub fn load(dirs: &[PathBuf]) -> Result<Registry, RegistryError> {
        let mut layouts: Vec<(&'static Layout, Option<String>)> = builtins()
            .layouts
            .iter()
            .chain(python_blosc2().iter().copied())
            .map(|l| (l, None))
            .collect();
        for dir in dirs {
            for path in schema_files(dir).map_err(RegistryError::Load)? {
                let layout: &'static Layout = Box::leak(Box::new(load_file(&path).map_err(RegistryError::Load)?));
                let shown = path.display().to_string();
                match layouts.iter_mut().find(|(l, _)| l.schema == layout.schema) {
                    // A file of the same schema name replaces the built-in (or an earlier file).
                    Some(slot) => *slot = (layout, Some(shown)),
                    None => layouts.push((layout, Some(shown))),
                }
            }
        }
        let vl_layouts: Vec<_> = layouts.iter().filter(|(_, path)| path.is_some()).cloned().collect();
        Ok(Registry {
            groups: groups(&layouts)?,
            vl_groups: groups(&vl_layouts)?,
        })
    }

    /// Decodes a metalayer stored under `name` with the layout of that name that reads `bytes`.
    pub fn select(&self, name: &str, bytes: &[u8]) -> Selected {
        select_in(&self.groups, name, bytes)
    }

    /// Decodes a vlmetalayer stored under `name` (its bytes decompressed) with the layout of
    /// that name from a `--schemas` file that reads `bytes`.
    pub fn select_vlmeta(&self, name: &str, bytes: &[u8]) -> Selected {
        select_in(&self.vl_groups, name, bytes)
    }
}

/// Groups layouts (each with the schema file it came from, if any) by the metalayer names they
/// are stored under, checking that the layouts of each name part.
#[cfg(feature = "inspect")]
fn groups(layouts: &[(&'static Layout, Option<String>)]) -> Result<Vec<Group>, RegistryError> {
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
    for (schema, name) in ALSO_STORED_UNDER {
        if let Some((layout, path)) = layouts.iter().find(|(l, _)| l.schema == *schema) {
            add(layout, name, path.clone());
        }
    }
    for (group, paths) in groups.iter_mut().zip(&paths) {
        for (i, a) in group.layouts.iter().enumerate() {
            for (j, b) in group.layouts.iter().enumerate().skip(i + 1) {
                if let Err(overlap) = a.parting(b) {
                    let file = paths[i].as_ref().or(paths[j].as_ref());
                    let text = match file {
                        Some(file) => format!("{file}: {overlap}"),
                        None => overlap.to_string(),
                    };
                    return Err(RegistryError::Overlap(text));
                }
            }
        }
        let candidates: Vec<Candidate> = group.layouts.iter().map(|l| candidate(l, &group.name)).collect();
        group.candidates = Box::leak(candidates.into_boxed_slice());
    }
    Ok(groups)
}

/// Decodes bytes stored under `name` with the layout of that name in `groups` that reads them.
#[cfg(feature = "inspect")]
fn select_in(groups: &[Group], name: &str, bytes: &[u8]) -> Selected {
    let Some(group) = groups.iter().find(|g| g.name == name) else {
        return Selected::Unknown;
    };
    // The error of the layout whose prefix fits and that reads furthest.
    let mut failure: Option<(usize, String)> = None;
    for (layout, candidate) in group.layouts.iter().zip(group.candidates) {
        if !candidate.accepts(bytes) {
            continue;
        }
        match crate::value::decode_all(layout, bytes) {
            Ok(value) => return Selected::Decoded(layout, value),
            Err(e) => {
                let offset = e.offset();
                if failure.as_ref().is_none_or(|(at, _)| offset > *at) {
                    failure = Some((offset, crate::output::chain(&e)));
                }
            }
        }
    }
    match failure {
        Some((_, error)) => Selected::Failed(error),
        // No prefix fits: the dispatch error names what each layout expects where.
        None => match metalayer_runtime::select(group.candidates, name, bytes) {
            Err(e) => Selected::Failed(crate::output::chain(&e)),
            Ok(_) => unreachable!("no candidate's prefix fits"),
        },
    }
}

/// The `*.toml` files directly in `dir`, in name order.
#[cfg(feature = "inspect")]
fn schema_files(dir: &Path) -> Result<Vec<PathBuf>, LoadError> {
    let shown = dir.display();
    let entries = std::fs::read_dir(dir).map_err(|e| LoadError::Read(format!("cannot read {shown}: {e}")))?;
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| LoadError::Read(format!("cannot read {shown}: {e}")))?;
        let path = entry.path();
        if path.extension().is_some_and(|x| x == "toml") && path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// A `--schema` argument: a built-in name, or the path of a schema file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SchemaArg {
    /// A built-in schema (`b2nd_v1`).
    Builtin(String),
    /// A schema file.
    File(PathBuf),
}

impl SchemaArg {
    /// Parses a command-line argument: a built-in name, else a path that exists.
    pub fn parse(arg: &str) -> Result<SchemaArg, String> {
        if builtin(arg).is_some() {
            return Ok(SchemaArg::Builtin(arg.to_owned()));
        }
        let path = Path::new(arg);
        if path.exists() {
            return Ok(SchemaArg::File(path.to_owned()));
        }
        let names: Vec<&str> = BUILTINS.iter().map(|b| b.name).collect();
        Err(format!(
            "not a built-in schema ({}) and not a schema file",
            names.join(", ")
        ))
    }

    /// The checked layout.
    pub fn load(&self) -> Result<Layout, LoadError> {
        match self {
            SchemaArg::Builtin(name) => builtin(name)
                .cloned()
                .ok_or_else(|| LoadError::Read(format!("{name}: the built-in schema does not check"))),
            SchemaArg::File(path) => load_file(path),
        }
    }
}

/// Why a schema did not load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// The file could not be read.
    Read(String),
    /// The schema does not check: every problem as `path:line:column: message`, with the line
    /// underlined.
    Schema(String),
}

impl LoadError {
    /// Reports the error on stderr; the problems of a schema start their lines with their place.
    pub fn report(&self, out: &mut Out) {
        match self {
            LoadError::Read(message) => out.error(message),
            LoadError::Schema(problems) => out.located_errors(problems),
        }
    }
}

/// Reads and checks a schema file. The files it extends or includes are built-in names or paths
/// relative to the directory of the file that names them.
pub fn load_file(path: &Path) -> Result<Layout, LoadError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| LoadError::Read(format!("cannot read {shown}: {e}")))?;
    let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or(&shown).to_owned();
    let source = Source {
        name,
        path: Some(shown.clone()),
        text: text.clone(),
    };
    metalayer_layout::parse_with(source, &mut load_reference).map_err(|errors| {
        LoadError::Schema(
            errors
                .iter()
                .map(|e| e.render(&shown, &text))
                .collect::<Vec<_>>()
                .join("\n"),
        )
    })
}

/// Finds a file a schema extends or includes: a built-in name always means the built-in (as for
/// `#[metalayer]`); anything else is a path relative to the naming file's directory.
fn load_reference(reference: &str, from: &Source) -> Result<Source, String> {
    if let Some(b) = metalayer_layout::builtin(reference) {
        return Ok(Source {
            name: b.name.to_owned(),
            path: None,
            text: b.text.to_owned(),
        });
    }
    let dir = from
        .path
        .as_deref()
        .and_then(|p| Path::new(p).parent())
        .unwrap_or(Path::new(""));
    let path = dir.join(reference);
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {shown}: {e}"))?;
    Ok(Source {
        name: reference.to_owned(),
        path: Some(shown),
        text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_checks_and_is_a_candidate() {
        let names: Vec<&str> = candidates().iter().map(|c| c.schema).collect();
        assert_eq!(names, ["b2nd_v1", "b2nd_v0", "caterva_v0", "caterva_v0"]);
        let stored: Vec<&str> = candidates().iter().map(|c| c.metalayer).collect();
        assert_eq!(stored, ["b2nd", "b2nd", "caterva", "b2nd"]);
        assert_eq!(builtins().layouts.len(), BUILTINS.len());
    }

    #[cfg(feature = "inspect")]
    #[test]
    fn dispatch_by_name_and_bytes() {
        let registry = Registry::load(&[]).unwrap_or_else(|_| panic!("the built-ins part"));
        let b2nd = |ndim: u8, marker: u8| {
            // An n-dimensional array of zeros: version 0, ndim, three arrays of n zeros
            // (int64, int32, int32).
            let n = usize::from(ndim);
            let mut bytes = vec![marker, 0x00, ndim];
            for width in [9, 5, 5] {
                bytes.push(0x90 + ndim);
                for _ in 0..n {
                    bytes.push(if width == 9 { 0xd3 } else { 0xd2 });
                    bytes.extend(std::iter::repeat_n(0, width - 1));
                }
            }
            bytes
        };
        // dtype_format 0 (b2nd_v1 only), then the dtype as a str32.
        let v1 = [b2nd(1, 0x97), vec![0x00, 0xdb, 0, 0, 0, 3], b"<f8".to_vec()].concat();
        let v0 = [b2nd(1, 0x96), vec![0xdb, 0, 0, 0, 5], b"uint8".to_vec()].concat();
        let caterva = b2nd(1, 0x95);
        assert_eq!(schema_of(registry.select("b2nd", &v1)), "b2nd_v1");
        assert_eq!(schema_of(registry.select("b2nd", &v0)), "b2nd_v0");
        assert_eq!(schema_of(registry.select("b2nd", &caterva)), "caterva_v0");
        assert_eq!(schema_of(registry.select("caterva", &caterva)), "caterva_v0");
        assert_eq!(
            schema_of(registry.select("caterva", &v1)).split(':').next(),
            Some("failed")
        );
    }

    #[cfg(feature = "inspect")]
    fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("a temporary directory");
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).expect("write a schema");
        }
        dir
    }

    #[cfg(feature = "inspect")]
    fn schema_of(selected: Selected) -> String {
        match selected {
            Selected::Decoded(layout, _) => layout.schema.clone(),
            Selected::Failed(e) => format!("failed: {e}"),
            Selected::Unknown => "unknown".to_owned(),
        }
    }

    #[cfg(feature = "inspect")]
    #[test]
    fn the_registry_tries_every_layout_of_a_name() {
        let registry = Registry::load(&[]).unwrap_or_else(|_| panic!("the built-ins part"));
        // python-blosc2's batcharray: {"version": 1, "serializer": "msgpack",
        // "items_per_block": nil | 1, "arrow_schema": nil}, as msgpack.packb writes it.
        let head: &[u8] = b"\x84\xa7version\x01\xaaserializer\xa7msgpack\xafitems_per_block";
        let empty = [head, b"\xc0\xacarrow_schema\xc0"].concat();
        let batches = [head, b"\x01\xacarrow_schema\xc0"].concat();
        assert_eq!(schema_of(registry.select("batcharray", &empty)), "batcharray_empty_v1");
        assert_eq!(schema_of(registry.select("batcharray", &batches)), "batcharray_v1");
        // items_per_block must be at least 1: no shape reads 0, and the error is that of a
        // layout that read up to it.
        let zero = [head, b"\x00\xacarrow_schema\xc0"].concat();
        let failed = schema_of(registry.select("batcharray", &zero));
        assert!(failed.starts_with("failed: batcharray_"), "{failed}");
        assert!(failed.contains("items_per_block"), "{failed}");
        // No prefix fits: the dispatch error.
        assert_eq!(
            schema_of(registry.select("b2nd", &[0x94])),
            "failed: no b2nd layout fits: at byte 0x00 b2nd_v1 expects 0x97, b2nd_v0 expects 0x96, caterva_v0 expects 0x95; found 0x94"
        );
        assert_eq!(schema_of(registry.select("units", b"\xa1m")), "unknown");
    }

    #[cfg(feature = "inspect")]
    const HEAD: &str = "[schema]\nmetalayer = \"units\"\ndescription = \"d\"\nsource = \"s\"\n";

    #[cfg(feature = "inspect")]
    #[test]
    fn user_schemas_join_the_built_ins() {
        let dir = dir_with(&[
            ("units_v0.toml", &format!("{HEAD}[value]\nwire = \"str\"\n")),
            ("notes.txt", "not a schema"),
        ]);
        let registry = Registry::load(&[dir.path().to_owned()]).unwrap_or_else(|_| panic!("loads"));
        assert_eq!(schema_of(registry.select("units", b"\xa1m")), "units_v0");
    }

    #[cfg(feature = "inspect")]
    #[test]
    fn layouts_that_cannot_be_told_apart_are_refused_when_loaded() {
        let dir = dir_with(&[
            ("a_v0.toml", &format!("{HEAD}[value]\nwire = \"str\"\n")),
            ("b_v0.toml", &format!("{HEAD}[value]\nwire = \"str\"\n")),
        ]);
        let Err(RegistryError::Overlap(text)) = Registry::load(&[dir.path().to_owned()]) else {
            panic!("two str layouts under one name overlap");
        };
        let path = dir.path().join("a_v0.toml");
        assert_eq!(
            text,
            format!(
                "{}: `a_v0` and `b_v0` cannot be told apart from their bytes: they accept the same bytes throughout",
                path.display()
            )
        );
        // Against a built-in: a copy of b2nd_v1 under another name.
        let copy = metalayer_layout::builtin("b2nd_v1").map(|b| b.text).unwrap_or_default();
        let dir = dir_with(&[("my_b2nd.toml", copy)]);
        let Err(RegistryError::Overlap(text)) = Registry::load(&[dir.path().to_owned()]) else {
            panic!("a copy of b2nd_v1 overlaps it");
        };
        assert!(text.contains("`b2nd_v1` and `my_b2nd` cannot be told apart"), "{text}");
        // Under the built-in's own name, it replaces the built-in.
        let dir = dir_with(&[("b2nd_v1.toml", copy)]);
        assert!(Registry::load(&[dir.path().to_owned()]).is_ok());
    }

    #[cfg(feature = "inspect")]
    #[test]
    fn a_schema_that_does_not_check_is_an_error_at_its_place() {
        let dir = dir_with(&[("bad_v0.toml", &format!("{HEAD}[value]\nwire = \"int99\"\n"))]);
        let Err(RegistryError::Load(LoadError::Schema(text))) = Registry::load(&[dir.path().to_owned()]) else {
            panic!("int99 is no wire type");
        };
        let place = format!("{}:6:8:", dir.path().join("bad_v0.toml").display());
        assert!(text.starts_with(&place), "{text}");
    }

    #[test]
    fn arguments() {
        assert_eq!(
            SchemaArg::parse("b2nd_v1"),
            Ok(SchemaArg::Builtin("b2nd_v1".to_owned()))
        );
        let err = SchemaArg::parse("b2nd_v9").err().unwrap_or_default();
        assert_eq!(
            err,
            "not a built-in schema (caterva_v0, b2nd_v0, b2nd_v1) and not a schema file"
        );
    }
}
