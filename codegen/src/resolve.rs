//! Finding a schema: a built-in name means the built-in, any other name the user crate's
//! `schemas/<name>.toml`; or a path relative to the crate's manifest directory.
//!
//! A crate file named like a built-in is an error rather than an override. Cargo rebuilds a crate
//! when a file the generated code includes changes, but it cannot watch for a file that does not
//! exist yet: had the file taken precedence, adding it beside a struct that used the built-in
//! would change nothing until some other change rebuilt the crate. With the built-in always
//! winning, a build that has not seen the new file yet means what a fresh build means, and the
//! fresh build says the file is ignored. A crate file that holds the built-in's very text is the
//! same schema, and is read.

use std::path::{Path, PathBuf};

use metalayer_layout::{BUILTINS, Diagnostic, FRAME, Layout, Origin, PYTHON_BLOSC2};

use crate::attr::SchemaRef;
use crate::names;

/// A schema's text and where it came from.
pub(crate) struct Source {
    /// The schema's name: the file stem.
    pub name: String,
    /// How to show the file in messages (relative to the manifest directory).
    pub display: String,
    /// The file on disk, which generated code tracks so that editing it rebuilds the crate;
    /// `None` for a built-in, which the macro carries.
    pub file: Option<PathBuf>,
    pub text: String,
}

/// Reads the schema an attribute names, or returns the message for a schema that is not there.
pub(crate) fn find(schema: &SchemaRef, manifest_dir: &Path) -> Result<Source, String> {
    match schema {
        SchemaRef::Name(lit) => {
            let name = lit.value();
            if name.is_empty() || name.contains(['/', '\\', '.']) {
                return Err(format!(
                    "`schema` takes a schema name such as \"b2nd_v1\", not `{name}`; use `schema_path` for a file"
                ));
            }
            let relative = format!("schemas/{name}.toml");
            let path = manifest_dir.join(&relative);
            if let Some(builtin) = metalayer_layout::builtin(&name) {
                // A file that holds the built-in's very text is that schema, not another one
                // (this repository's own crate has the built-ins in its `schemas/`): it is read,
                // so that editing it rebuilds the crate and reports the difference.
                if path.is_file() && std::fs::read_to_string(&path).is_ok_and(|text| text == builtin.text) {
                    return read(&path, name, relative);
                }
                if path.exists() {
                    return Err(format!(
                        "schema `{name}` is built in, and this crate also has `{relative}`, which `schema = \"{name}\"` does not read: a built-in name always means the built-in schema\n  to use the file, write `schema_path = \"{relative}\"`, or rename it and the `schema` argument"
                    ));
                }
                return Ok(Source {
                    name,
                    display: format!("schemas/{}.toml (built in)", builtin.name),
                    file: None,
                    text: builtin.text.to_string(),
                });
            }
            if path.is_file() {
                return read(&path, name, relative);
            }
            let builtins: Vec<&str> = BUILTINS
                .iter()
                .chain(PYTHON_BLOSC2)
                .chain(FRAME)
                .map(|b| b.name)
                .collect();
            let own = list_schemas(&manifest_dir.join("schemas"));
            let own = if own.is_empty() {
                "none".to_string()
            } else {
                own.join(", ")
            };
            Err(format!(
                "schema `{name}` not found; looked among the built-in schemas, then for `{relative}` in this crate's directory (CARGO_MANIFEST_DIR)\n  built-in schemas: {}\n  schemas in this crate's `schemas/`: {own}",
                builtins.join(", ")
            ))
        }
        SchemaRef::Path(lit) => {
            let relative = lit.value();
            let path = manifest_dir.join(&relative);
            if !path.is_file() {
                return Err(format!(
                    "schema file `{relative}` not found; `schema_path` is relative to this crate's directory (CARGO_MANIFEST_DIR)"
                ));
            }
            let name = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default()
                .to_string();
            read(&path, name, relative)
        }
    }
}

fn read(path: &Path, name: String, display: String) -> Result<Source, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Source {
            name,
            display,
            file: Some(path.to_path_buf()),
            text,
        }),
        Err(e) => Err(format!("cannot read schema file `{display}`: {e}")),
    }
}

fn list_schemas(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let p = e.path();
            (p.extension()? == "toml").then(|| p.file_stem()?.to_str().map(str::to_string))?
        })
        .collect();
    names.sort();
    names
}

/// Parses and checks a schema, reading the files it extends or includes: a built-in's name
/// means the built-in, anything else a file relative to the schema that names it. Then checks
/// what code generation requires of the names (see [`names::check_offset_fn_clashes`]). Errors
/// are rendered with the file, line and column. Also returns the files read, for the generated
/// code to track.
pub(crate) fn layout(source: &Source, manifest_dir: &Path) -> Result<(Layout, Vec<PathBuf>), Vec<String>> {
    let mut read: Vec<PathBuf> = Vec::new();
    let mut loaded: Vec<metalayer_layout::Source> = Vec::new();
    let main = metalayer_layout::Source {
        name: source.name.clone(),
        path: source.file.as_ref().map(|f| f.display().to_string()),
        text: source.text.clone(),
    };
    let parsed = metalayer_layout::parse_with(main, &mut |reference, from| {
        let found = load(reference, from, manifest_dir, &mut read)?;
        loaded.push(found.clone());
        Ok(found)
    });
    let render = |diags: &[Diagnostic]| -> Vec<String> {
        diags
            .iter()
            .map(|d| render_schema_error(d, source, manifest_dir))
            .collect()
    };
    let layout = parsed.map_err(|diags| render(&diags))?;
    let mut clashes: Vec<Diagnostic> = names::check_offset_fn_clashes(&layout)
        .into_iter()
        .map(|clash| {
            let mut d = Diagnostic::new(clash.span, clash.message);
            d.origin = origin(&layout, clash.file, &loaded);
            d
        })
        .collect();
    if !clashes.is_empty() {
        clashes.sort_by_key(|d| (d.origin.is_some(), d.span.start));
        return Err(render(&clashes));
    }
    Ok((layout, read))
}

/// Reads the file a schema names (`reference`, in the schema `from`): a built-in's name means
/// the built-in, anything else a file relative to `from`, whose path is added to `read`.
fn load(
    reference: &str,
    from: &metalayer_layout::Source,
    manifest_dir: &Path,
    read: &mut Vec<PathBuf>,
) -> Result<metalayer_layout::Source, String> {
    if let Some(b) = metalayer_layout::builtin(reference) {
        return Ok(metalayer_layout::Source {
            name: b.name.to_string(),
            path: None,
            text: b.text.to_string(),
        });
    }
    let Some(from_path) = &from.path else {
        return Err(format!(
            "`{reference}` is not a built-in schema, and a built-in schema can name built-ins only"
        ));
    };
    let dir = Path::new(from_path).parent().unwrap_or(Path::new("."));
    let path = dir.join(reference);
    // Messages show paths as the attribute's are written: relative to the crate.
    let shown = path.strip_prefix(manifest_dir).unwrap_or(&path).display().to_string();
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read `{shown}`: {e}"))?;
    read.push(path.clone());
    Ok(metalayer_layout::Source {
        name: reference.to_string(),
        path: Some(path.display().to_string()),
        text,
    })
}

/// Where a diagnostic about file `file` of `layout` is, when that is not the schema itself but
/// one of the files `loaded` for it.
fn origin(layout: &Layout, file: usize, loaded: &[metalayer_layout::Source]) -> Option<Box<Origin>> {
    let f = layout.files.get(file).filter(|_| file > 0)?;
    let source = loaded.iter().find(|s| s.name == f.name && s.path == f.path)?;
    Some(Box::new(Origin {
        name: source.name.clone(),
        path: source.path.clone(),
        text: source.text.clone(),
    }))
}

/// `schema error: <file>:<line>:<column>: <message>` and the line underlined, the file shown
/// as the attribute names it (relative to the crate's directory).
fn render_schema_error(d: &Diagnostic, source: &Source, manifest_dir: &Path) -> String {
    let mut d = d.clone();
    if let Some(origin) = &mut d.origin
        && let Some(path) = &origin.path
    {
        origin.path = Some(
            Path::new(path)
                .strip_prefix(manifest_dir)
                .unwrap_or(Path::new(path))
                .display()
                .to_string(),
        );
    }
    format!("schema error: {}", d.render(&source.display, &source.text))
}
