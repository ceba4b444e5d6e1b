//! Where layouts come from: the built-in schemas and schema files, found as the attribute finds
//! them too (`metalayer_layout::load`), and the choice of a built-in layout from a metalayer's name
//! and bytes.

use std::path::{Path, PathBuf};

use metalayer_layout::{Found, Layout, Loader};

pub use metalayer::report::{builtin, candidates};

use crate::output::Out;

/// The layouts `inspect` decodes metalayers with: the built-ins and the schemas of `--schemas`
/// directories ([`metalayer::report::Registry`]).
#[cfg(feature = "inspect")]
pub use metalayer::report::Registry;

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

/// The built-in layouts with the schemas of `dirs` (every `*.toml` file directly in each, in
/// name order; a file whose schema has the name of a built-in replaces it).
#[cfg(feature = "inspect")]
pub fn load_registry(dirs: &[PathBuf]) -> Result<Registry, RegistryError> {
    let mut user = Vec::new();
    for dir in dirs {
        let files = Loader::schema_files(dir).map_err(|e| RegistryError::Load(LoadError::Read(e.to_string())))?;
        for path in files {
            let layout = load_file(&path).map_err(RegistryError::Load)?;
            user.push((layout.into(), path.display().to_string()));
        }
    }
    Registry::new(user).map_err(|e| RegistryError::Overlap(e.to_string()))
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
        match Loader::new().locate(arg) {
            Ok(Found::Builtin(b)) => Ok(SchemaArg::Builtin(b.name.to_owned())),
            Ok(Found::File(path)) => Ok(SchemaArg::File(path)),
            Err(e) => Err(e.to_string()),
        }
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
    let mut loader = Loader::new();
    let source = loader
        .read(&Found::File(path.to_owned()))
        .map_err(|e| LoadError::Read(e.to_string()))?;
    loader.layout(source.clone()).map_err(|errors| {
        LoadError::Schema(
            errors
                .iter()
                .map(|e| loader.render(e, &source))
                .collect::<Vec<_>>()
                .join("\n"),
        )
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
        assert!(metalayer_layout::builtins().all(|b| builtin(b.name).is_some()));
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
    fn schema_of(selected: metalayer::report::Selected) -> String {
        use metalayer::report::Selected;
        match selected {
            Selected::Decoded(value) => value.layout().schema.clone(),
            Selected::Failed(e) => format!("failed: {e}"),
            Selected::OtherShape(e) => format!("other shape: {e}"),
            Selected::Unknown => "unknown".to_owned(),
        }
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
        let registry = load_registry(&[dir.path().to_owned()]).unwrap_or_else(|_| panic!("loads"));
        assert_eq!(schema_of(registry.select("units", b"\xa1m")), "units_v0");
    }

    #[cfg(feature = "inspect")]
    #[test]
    fn layouts_that_cannot_be_told_apart_are_refused_when_loaded() {
        let dir = dir_with(&[
            ("a_v0.toml", &format!("{HEAD}[value]\nwire = \"str\"\n")),
            ("b_v0.toml", &format!("{HEAD}[value]\nwire = \"str\"\n")),
        ]);
        let Err(RegistryError::Overlap(text)) = load_registry(&[dir.path().to_owned()]) else {
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
        let Err(RegistryError::Overlap(text)) = load_registry(&[dir.path().to_owned()]) else {
            panic!("a copy of b2nd_v1 overlaps it");
        };
        assert!(text.contains("`b2nd_v1` and `my_b2nd` cannot be told apart"), "{text}");
        // Under the built-in's own name, it replaces the built-in.
        let dir = dir_with(&[("b2nd_v1.toml", copy)]);
        assert!(load_registry(&[dir.path().to_owned()]).is_ok());
    }

    #[cfg(feature = "inspect")]
    #[test]
    fn a_schema_that_does_not_check_is_an_error_at_its_place() {
        let dir = dir_with(&[("bad_v0.toml", &format!("{HEAD}[value]\nwire = \"int99\"\n"))]);
        let Err(RegistryError::Load(LoadError::Schema(text))) = load_registry(&[dir.path().to_owned()]) else {
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
        // Every built-in, c-blosc2's first and the frame's last.
        assert!(
            err.starts_with("not a built-in schema (caterva_v0, b2nd_v0, b2nd_v1, b2o_v1, lazyarray_v0, "),
            "{err}"
        );
        assert!(
            err.ends_with(", frame_header_v2, frame_trailer_v1) and not a schema file"),
            "{err}"
        );
    }
}
