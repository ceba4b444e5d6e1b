//! The schema an attribute names, found as the command finds schemas too (`metalayer_layout::load`):
//! `schema = "name"` is a built-in's name, or else the user crate's `schemas/<name>.toml`;
//! `schema_path` is a file relative to the crate's directory. A crate file named like a built-in
//! is an error rather than an override, unless it holds the built-in's very text. This module
//! adds what only the attribute does: its words for a schema not found, and the checks code
//! generation needs of the names.

use std::path::Path;

use metalayer_layout::{Diagnostic, Found, Layout, LoadError, Loader, report_order};

use crate::attr::SchemaRef;
use crate::names;

/// The loader of the crate at `manifest_dir` (`CARGO_MANIFEST_DIR`): names are built-ins, then
/// its `schemas/<name>.toml`; paths are relative to it, and messages show them so.
pub(crate) fn loader(manifest_dir: &Path) -> Loader {
    Loader::new().relative_to(manifest_dir).schemas_in("schemas")
}

/// Items that include every schema file `loader` read, so that cargo rebuilds the crate when
/// one of them changes.
pub(crate) fn track_files(loader: &Loader) -> proc_macro2::TokenStream {
    let mut items = proc_macro2::TokenStream::new();
    for path in loader.files() {
        if let Some(path) = path.to_str() {
            items.extend(quote::quote!(
                const _: &[u8] = include_bytes!(#path);
            ));
        }
    }
    items
}

/// Reads, parses and checks the schema `schema` names, then checks what code generation
/// requires of the names (see [`names::check_offset_fn_clashes`]). The errors are messages,
/// schema errors rendered with the file, line and column. The files read stay in `loader`, for
/// the generated code to track.
pub(crate) fn layout(schema: &SchemaRef, loader: &mut Loader) -> Result<Layout, Vec<String>> {
    let found = match schema {
        SchemaRef::Name(lit) => loader.find(&lit.value()),
        SchemaRef::Path(lit) => Ok(Found::File(lit.value().into())),
    };
    let source = found
        .and_then(|found| loader.read(&found))
        .map_err(|e| vec![message(&e)])?;
    // `schema error: <file>:<line>:<column>: <message>` and the line underlined.
    let render = |loader: &Loader, diags: &[Diagnostic]| -> Vec<String> {
        let mut messages = Vec::new();
        for d in diags {
            messages.push(format!("schema error: {}", loader.render(d, &source)));
        }
        messages
    };
    let layout = loader.layout(source.clone()).map_err(|diags| render(loader, &diags))?;
    let mut clashes = Vec::new();
    for clash in names::check_offset_fn_clashes(&layout) {
        let mut d = Diagnostic::new(clash.span, clash.message);
        d.origin = loader.origin(&layout, clash.file);
        clashes.push(d);
    }
    if !clashes.is_empty() {
        return Err(render(loader, &report_order(clashes)));
    }
    Ok(layout)
}

/// The attribute's words for a schema it names that is not found: they name its arguments
/// (`schema`, `schema_path`) and the crate's directory.
fn message(e: &LoadError) -> String {
    match e {
        LoadError::NotAName(name) => {
            format!("`schema` takes a schema name such as \"b2nd_v1\", not `{name}`; use `schema_path` for a file")
        }
        LoadError::Shadowed { name, file } => format!(
            "schema `{name}` is built in, and this crate also has `{file}`, which `schema = \"{name}\"` does not read: a built-in name always means the built-in schema\n  to use the file, write `schema_path = \"{file}\"`, or rename it and the `schema` argument"
        ),
        LoadError::NotFound {
            name,
            file: Some(file),
            files,
        } => {
            let own = if files.is_empty() {
                "none".to_string()
            } else {
                files.join(", ")
            };
            format!(
                "schema `{name}` not found; looked among the built-in schemas, then for `{file}` in this crate's directory (CARGO_MANIFEST_DIR)\n  built-in schemas: {}\n  schemas in this crate's `schemas/`: {own}",
                metalayer_layout::builtin_names()
            )
        }
        LoadError::NoFile(file) => format!(
            "schema file `{file}` not found; `schema_path` is relative to this crate's directory (CARGO_MANIFEST_DIR)"
        ),
        other => other.to_string(),
    }
}
