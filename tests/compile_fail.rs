//! Compile-fail tests for `#[metalayer]`: one case per error class under `tests/ui/`, each with
//! the exact compiler output it must produce (`TRYBUILD=overwrite` re-blesses them); and the
//! cases under `tests/ui/pass/`, which must build and run (schemas whose names generated code
//! can only write specially, such as keywords as raw identifiers).

use std::path::{Path, PathBuf};

/// The directory trybuild builds the ui cases in: `<target>/tests/trybuild/<crate name>/`.
/// It is the `CARGO_MANIFEST_DIR` the attribute sees there, so `schema_path` and `schema`
/// resolve against it, not against this repository.
fn trybuild_project_dir(repo: &Path) -> PathBuf {
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => repo.join(dir),
        None => repo.join("target"),
    };
    target.join("tests").join("trybuild").join(env!("CARGO_PKG_NAME"))
}

/// Makes `tests/ui/schemas/x.toml` resolve inside the trybuild project: its `tests` is a link to
/// this repository's `tests`. Nothing else is linked, so `schemas/` does not exist there and the
/// "schema not found" message lists no crate schemas on every machine.
fn link_tests_dir() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let project = trybuild_project_dir(repo);
    std::fs::create_dir_all(&project).expect("create the trybuild project directory");
    let link = project.join("tests");
    let tests = repo.join("tests");
    // A link left by a checkout elsewhere points at other tests: replace it.
    if std::fs::read_link(&link).is_ok_and(|target| target != tests) {
        let _ = std::fs::remove_file(&link);
    }
    match symlink_dir(&tests, &link) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => panic!("cannot link {} to the repository's tests: {e}", link.display()),
    }
    assert!(
        !project.join("schemas").exists(),
        "{} must not exist: the `schema = \"nope\"` case expects no crate schemas",
        project.join("schemas").display()
    );
}

#[cfg(unix)]
fn symlink_dir(original: &Path, link: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(original, link)
}

#[cfg(windows)]
fn symlink_dir(original: &Path, link: &Path) -> std::io::Result<()> {
    std::os::windows::fs::symlink_dir(original, link)
}

#[test]
fn ui() {
    // The expected output names the runtime's source files where the repository has them
    // (`runtime/src/value.rs`, in the compiler's list of the types that implement a trait);
    // built from its package, the runtime is elsewhere. The cases run from the repository.
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    if !repo.join("runtime").join("Cargo.toml").is_file() {
        eprintln!("not in the repository: the compile-fail cases run from the repository only");
        return;
    }
    link_tests_dir();
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
