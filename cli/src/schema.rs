//! Where layouts come from: the built-in schemas, schema files (with the files they extend or
//! include, relative to each other), and the choice of a built-in layout from a metalayer's
//! name and bytes.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use metalayer_layout::{BUILTINS, Layout, Source};
use metalayer_runtime::{Candidate, DispatchError};

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

fn builtins() -> &'static Builtins {
    static BUILTINS_TABLE: OnceLock<Builtins> = OnceLock::new();
    BUILTINS_TABLE.get_or_init(|| {
        // Newest first: messages list the layouts a reader most likely meant first.
        let layouts: Vec<Layout> = BUILTINS
            .iter()
            .rev()
            .filter_map(|b| metalayer_layout::builtin_layout(b.name))
            .collect();
        let candidate = |layout: &Layout, metalayer: &str| Candidate {
            schema: crate::value::intern::text(&layout.schema),
            metalayer: crate::value::intern::text(metalayer),
            // Once per built-in layout, for the life of the process.
            prefix: Box::leak(layout.fixed_prefix().into_boxed_slice()),
        };
        let mut candidates: Vec<Candidate> = layouts.iter().map(|l| candidate(l, &l.metalayer)).collect();
        for (schema, name) in ALSO_STORED_UNDER {
            if let Some(layout) = layouts.iter().find(|l| l.schema == *schema) {
                candidates.push(candidate(layout, name));
            }
        }
        Builtins { layouts, candidates }
    })
}

/// The checked built-in layout named `schema`.
pub fn builtin(schema: &str) -> Option<&'static Layout> {
    builtins().layouts.iter().find(|l| l.schema == schema)
}

/// The built-in layouts that dispatch picks among, newest first, each under its metalayer
/// name, then the layouts also stored under another name.
pub fn candidates() -> &'static [Candidate] {
    &builtins().candidates
}

/// The built-in layout of the metalayer stored under `name` whose fixed prefix fits `bytes`.
#[cfg_attr(not(feature = "inspect"), allow(dead_code))]
pub fn select(name: &str, bytes: &[u8]) -> Result<&'static Layout, DispatchError> {
    let candidates = candidates();
    let index = metalayer_runtime::select(candidates, name, bytes)?;
    match builtin(candidates[index].schema) {
        Some(layout) => Ok(layout),
        None => unreachable!("every candidate is a built-in layout"),
    }
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

    #[test]
    fn dispatch_by_name_and_bytes() {
        let schema = |name: &str, bytes: &[u8]| select(name, bytes).map(|l| l.schema.clone());
        assert_eq!(schema("b2nd", &[0x97, 0x00]), Ok("b2nd_v1".to_owned()));
        assert_eq!(schema("b2nd", &[0x96, 0x00]), Ok("b2nd_v0".to_owned()));
        assert_eq!(schema("b2nd", &[0x95, 0x00]), Ok("caterva_v0".to_owned()));
        assert_eq!(schema("caterva", &[0x95, 0x00]), Ok("caterva_v0".to_owned()));
        let err = select("b2nd", &[0x94]).err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some(
                "no b2nd layout fits: at byte 0x00 b2nd_v1 expects 0x97, b2nd_v0 expects 0x96, caterva_v0 expects 0x95; found 0x94"
            )
        );
        assert!(matches!(
            select("units", &[0xa0]),
            Err(DispatchError::UnknownName { .. })
        ));
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
