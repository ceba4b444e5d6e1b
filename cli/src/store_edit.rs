//! `metalayer set store.b2z/member`: the path that names a member of a `.b2z` store, and the
//! member edited through `metalayer::store::edit`, which rewrites the zip under its lock.

use std::path::{Path, PathBuf};

use metalayer::frame::Frame;
use metalayer::frame::edit::{Changed, Edit, WriteOptions};
use metalayer::store::ZIP_STORE_EXTENSION;
use metalayer::store::edit::{self, MemberEditError};

/// A path that names a member of a store: the `.b2z` file among its ancestors, and the rest.
pub fn member_path(path: &Path) -> Option<(PathBuf, String)> {
    if path.exists() {
        return None;
    }
    let zip = path
        .ancestors()
        .skip(1)
        .find(|a| a.is_file() && a.extension().is_some_and(|e| e == ZIP_STORE_EXTENSION))?;
    let rest = path.strip_prefix(zip).ok()?;
    let name: Vec<String> = rest
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Some((zip.to_path_buf(), name.join("/")))
}

/// Edits the member `name` of `zip` with the edit `build` makes from the member's frame; the
/// changes made and what `build` gave beside the edit.
pub fn edit_member<T>(
    zip: &Path,
    name: &str,
    options: &WriteOptions,
    build: impl FnMut(&Frame) -> Result<(Edit, T), String>,
) -> Result<(Vec<Changed>, T), String> {
    edit::edit_member(zip, name, options, build).map_err(|e| match e {
        MemberEditError::Refused(message) | MemberEditError::Build(message) => message,
        MemberEditError::Edit(e) => crate::set::explained(&e),
        other => other.to_string(),
    })
}
