//! Finding schemas (`metalayer_layout::Loader`): the order names and references are looked up
//! in, the errors for what is not found, and the files read. Every schema file is written by the
//! test into a directory of its own; every expected message is written out by hand.

use std::path::{Path, PathBuf};

use metalayer_layout::{Found, LoadError, Loader, builtin};

/// A directory with the given files, removed on drop.
struct Dir(PathBuf);

impl Dir {
    fn new(test: &str, files: &[(&str, &str)]) -> Dir {
        let dir = std::env::temp_dir().join(format!("metalayer-load-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for (name, text) in files {
            let path = dir.join(name);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("create the directory");
            std::fs::write(path, text).expect("write a schema");
        }
        std::fs::create_dir_all(&dir).expect("create the directory");
        Dir(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const HEAD: &str = "[schema]\nmetalayer = \"units\"\ndescription = \"d\"\nsource = \"s\"\n";

/// `units_v0`: a string, in four lines of `[schema]` and two of `[value]`.
fn units() -> String {
    format!("{HEAD}[value]\nwire = \"str\"\n")
}

/// A loader of `dir` as the attribute has it: relative to it, names in its `schemas/`.
fn crate_loader(dir: &Dir) -> Loader {
    Loader::new().relative_to(dir.path()).schemas_in("schemas")
}

#[test]
fn a_name_is_a_built_in_first_then_a_file_of_the_directory() {
    let dir = Dir::new("order", &[("schemas/units_v0.toml", &units())]);
    let loader = crate_loader(&dir);
    assert_eq!(loader.find("units_v0"), Ok(Found::File("schemas/units_v0.toml".into())));
    let b2nd = builtin("b2nd_v1").expect("built in");
    assert_eq!(loader.find("b2nd_v1"), Ok(Found::Builtin(b2nd)));
    // Without a directory, only the built-ins have names.
    assert_eq!(
        Loader::new().find("units_v0"),
        Err(LoadError::NotFound {
            name: "units_v0".into(),
            file: None,
            files: Vec::new()
        })
    );
}

#[test]
fn a_name_is_not_a_path() {
    let loader = Loader::new();
    for name in ["", "schemas/units_v0", "units_v0.toml", "a\\b"] {
        assert_eq!(loader.find(name), Err(LoadError::NotAName(name.into())), "{name:?}");
    }
}

#[test]
fn a_file_named_like_a_built_in_is_refused_unless_it_is_the_built_in() {
    let b2nd = builtin("b2nd_v1").expect("built in").text;
    let dir = Dir::new(
        "shadow",
        &[
            ("schemas/b2nd_v1.toml", &b2nd.replacen("b2nd, 7 entries", "mine", 1)),
            ("schemas/b2nd_v0.toml", builtin("b2nd_v0").expect("built in").text),
        ],
    );
    let loader = crate_loader(&dir);
    let err = loader.find("b2nd_v1").unwrap_err();
    assert_eq!(
        err,
        LoadError::Shadowed {
            name: "b2nd_v1".into(),
            file: "schemas/b2nd_v1.toml".into()
        }
    );
    assert_eq!(
        err.to_string(),
        "schema `b2nd_v1` is built in, and `schemas/b2nd_v1.toml` is another schema of that name, which `b2nd_v1` \
         does not read: a built-in name always means the built-in schema"
    );
    // The very text of the built-in: the same schema, read from the file.
    assert_eq!(loader.find("b2nd_v0"), Ok(Found::File("schemas/b2nd_v0.toml".into())));
}

#[test]
fn a_name_not_found_lists_the_built_ins_and_the_files_of_the_directory() {
    let dir = Dir::new(
        "missing",
        &[
            ("schemas/units_v0.toml", &units()),
            ("schemas/scale_v0.toml", &units()),
            ("schemas/notes.txt", "not a schema"),
        ],
    );
    let err = crate_loader(&dir).find("nope").unwrap_err();
    assert_eq!(
        err,
        LoadError::NotFound {
            name: "nope".into(),
            file: Some("schemas/nope.toml".into()),
            files: vec!["scale_v0".into(), "units_v0".into()],
        }
    );
    let text = err.to_string();
    assert!(
        text.starts_with(
            "schema `nope` not found; looked among the built-in schemas, then for `schemas/nope.toml`\n  built-in \
             schemas: caterva_v0, b2nd_v0, b2nd_v1, b2o_v1, "
        ),
        "{text}"
    );
    assert!(
        text.ends_with("frame_trailer_v1\n  schema files there: scale_v0, units_v0"),
        "{text}"
    );
}

#[test]
fn an_argument_is_a_built_in_first_then_a_path() {
    let dir = Dir::new("arg", &[("b2nd_v1", &units())]);
    let loader = Loader::new().relative_to(dir.path());
    // A file named like a built-in is no argument for it: the name is the built-in's.
    assert!(matches!(loader.locate("b2nd_v1"), Ok(Found::Builtin(b)) if b.name == "b2nd_v1"));
    let dir = Dir::new("arg_file", &[("units_v0.toml", &units())]);
    let loader = Loader::new().relative_to(dir.path());
    assert_eq!(loader.locate("units_v0.toml"), Ok(Found::File("units_v0.toml".into())));
    assert!(matches!(
        loader.locate("units_v9.toml"),
        Err(LoadError::NotFound { file: None, .. })
    ));
}

#[test]
fn includes_are_built_ins_first_then_files_beside_the_schema_and_every_file_read_is_kept() {
    let main = format!("{HEAD}include = [\"common/point.toml\"]\n[value]\ntype = \"point\"\n");
    let point = "[schema]\ninclude = [\"more.toml\"]\n[types.point]\nwire = \"fixarray\"\n[[types.point.entry]]\nname = \"x\"\nwire = \"int\"\n";
    let more = "[schema]\nextends = \"b2nd_v1\"\n";
    let dir = Dir::new(
        "include",
        &[
            ("schemas/units_v0.toml", &main),
            ("schemas/common/point.toml", point),
            ("schemas/common/more.toml", more),
        ],
    );
    let mut loader = crate_loader(&dir);
    let found = loader.find("units_v0").expect("found");
    let source = loader.read(&found).expect("read");
    let layout = loader.layout(source).expect("checks");
    assert_eq!(layout.types[0].name, "point");
    let files: Vec<PathBuf> = ["units_v0.toml", "common/point.toml", "common/more.toml"]
        .iter()
        .map(|f| dir.path().join("schemas").join(f))
        .collect();
    assert_eq!(loader.files(), files);
}

#[test]
fn an_include_not_found_is_reported_at_the_reference_with_the_path_tried() {
    let main = format!("{HEAD}include = [\"common.toml\"]\n[value]\nwire = \"int\"\n");
    let dir = Dir::new("include_missing", &[("schemas/units_v0.toml", &main)]);
    let mut loader = crate_loader(&dir);
    let source = loader.read(&Found::File("schemas/units_v0.toml".into())).expect("read");
    let errors = loader.layout(source.clone()).unwrap_err();
    assert_eq!(errors.len(), 1);
    assert_eq!(
        loader.render(&errors[0], &source),
        "schemas/units_v0.toml:5:12: cannot include `common.toml`: schema file `schemas/common.toml` not found\n  \
         |\n5 | include = [\"common.toml\"]\n  |            ^^^^^^^^^^^^^"
    );
}

#[test]
fn a_cycle_is_found_however_the_file_is_spelled() {
    let main = format!("{HEAD}include = [\"b.toml\"]\n[value]\nwire = \"int\"\n");
    // `./a_v0.toml` is the main schema under another spelling.
    let b = "[schema]\ninclude = [\"./a_v0.toml\"]\n";
    let dir = Dir::new("cycle", &[("a_v0.toml", &main), ("b.toml", b)]);
    let mut loader = Loader::new().relative_to(dir.path());
    let source = loader.read(&Found::File("a_v0.toml".into())).expect("read");
    let errors = loader.layout(source.clone()).unwrap_err();
    let rendered: Vec<String> = errors.iter().map(|e| loader.render(e, &source)).collect();
    assert_eq!(
        rendered,
        [
            "b.toml:2:12: include cycle: a_v0.toml -> b.toml -> ./a_v0.toml again\n  |\n2 | include = \
          [\"./a_v0.toml\"]\n  |            ^^^^^^^^^^^^^"
        ]
    );
}

#[test]
fn schema_files_are_the_toml_files_of_a_directory_in_name_order() {
    let dir = Dir::new(
        "files",
        &[
            ("b_v0.toml", &units()),
            ("a_v0.toml", &units()),
            ("notes.txt", ""),
            ("sub/c_v0.toml", &units()),
            // Types for schemas to include: no schema of its own.
            (
                "common.toml",
                "[types.point]\nwire = \"fixarray\"\n[[types.point.entry]]\nname = \"x\"\nwire = \"int\"\n",
            ),
            // Not TOML: listed, so that reading it says why.
            ("broken_v0.toml", "[schema"),
        ],
    );
    let files = Loader::schema_files(dir.path()).expect("listed");
    assert_eq!(
        files,
        [
            dir.path().join("a_v0.toml"),
            dir.path().join("b_v0.toml"),
            dir.path().join("broken_v0.toml")
        ]
    );
    let missing = dir.path().join("none");
    let err = Loader::schema_files(&missing).unwrap_err();
    assert!(
        err.to_string()
            .starts_with(&format!("cannot read `{}`: ", missing.display())),
        "{err}"
    );
}
