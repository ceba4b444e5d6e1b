//! Finding schemas, for everything that reads them: the `#[metalayer]` attribute, the
//! `metalayer` command and [`parse`](crate::parse).
//!
//! A schema's name means the built-in schema of that name, and only then a file `<name>.toml`
//! of a directory ([`Loader::find`]); a command-line argument means a built-in's name, and only
//! then a path ([`Loader::locate`]). A reference in a schema (`extends`, `include`) means a
//! built-in's name, and only then a path relative to the file that writes it
//! ([`Loader::reference`]); a schema that is no file names built-ins only. The [`Loader`] keeps
//! what it read, so that a build can track the files ([`Loader::files`]) and messages can show
//! where each problem is ([`Loader::render`]).
//!
//! A file named like a built-in is refused where a name is looked up, rather than taken in its
//! place. Cargo rebuilds a crate when a file its generated code includes changes, but it cannot
//! watch for a file that does not exist yet: had the file taken precedence, adding it beside a
//! struct that used the built-in would change nothing until some other change rebuilt the
//! crate. With the built-in always winning, a build that has not seen the new file yet means
//! what a fresh build means, and the fresh build says the file is ignored. A file that holds
//! the built-in's very text is that same schema, and is read (this repository's own crate has
//! the built-ins in its `schemas/`).

use std::fmt;
use std::path::{Path, PathBuf};

use crate::builtin::{Builtin, builtin, builtin_names};
use crate::diagnostic::{Diagnostic, Diagnostics, Origin};
use crate::model::{Layout, SchemaFile};

/// A schema's text, and where it came from.
///
/// ```
/// let source = metalayer_layout::Source::builtin(metalayer_layout::builtin("b2nd_v1").unwrap());
/// assert_eq!((source.name.as_str(), source.path), ("b2nd_v1", None));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The schema's name (its file stem) or the reference it was loaded by.
    pub name: String,
    /// Its path on disk, if it has one (built-ins have none).
    pub path: Option<String>,
    /// Its text.
    pub text: String,
}

impl Source {
    /// A built-in schema's source.
    ///
    /// ```
    /// let b = metalayer_layout::builtin("caterva_v0").unwrap();
    /// assert_eq!(metalayer_layout::Source::builtin(b).text, b.text);
    /// ```
    pub fn builtin(b: &Builtin) -> Source {
        Source {
            name: b.name.to_string(),
            path: None,
            text: b.text.to_string(),
        }
    }

    /// Whether `other` is the same schema file: the same file on disk, or, without a path, the
    /// same name. Extending or including a file that is being read is a cycle.
    ///
    /// ```
    /// use metalayer_layout::Source;
    ///
    /// let file = |path: &str| Source { name: "x".into(), path: Some(path.into()), text: String::new() };
    /// assert!(file("a/b.toml").is_same_file(&file("a/b.toml")));
    /// assert!(!file("a/b.toml").is_same_file(&file("a/c.toml")));
    /// let b2nd = Source::builtin(metalayer_layout::builtin("b2nd_v1").unwrap());
    /// assert!(b2nd.is_same_file(&b2nd.clone()));
    /// ```
    pub fn is_same_file(&self, other: &Source) -> bool {
        match (&self.path, &other.path) {
            (Some(a), Some(b)) => {
                a == b
                    || matches!(
                        (std::fs::canonicalize(a), std::fs::canonicalize(b)),
                        (Ok(a), Ok(b)) if a == b
                    )
            }
            (None, None) => self.name == other.name,
            _ => false,
        }
    }
}

/// Where a schema is: built in, or in a file. [`Loader::find`] and [`Loader::locate`] say
/// which; [`Loader::read`] reads it.
///
/// ```
/// use metalayer_layout::{Found, Loader};
///
/// assert!(matches!(Loader::new().locate("b2nd_v1"), Ok(Found::Builtin(b)) if b.name == "b2nd_v1"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// A built-in schema.
    Builtin(&'static Builtin),
    /// A schema file: its path, relative to the loader's base directory if it has one.
    File(PathBuf),
}

/// Why a schema was not found or not read. Its `Display` is the message; a reader with words of
/// its own for the lookup (the attribute names its arguments) matches on it.
///
/// ```
/// let err = metalayer_layout::Loader::new().find("a/b").unwrap_err();
/// assert_eq!(err, metalayer_layout::LoadError::NotAName("a/b".into()));
/// assert_eq!(err.to_string(), "`a/b` is not a schema name such as `b2nd_v1`: a name has no `/`, `\\` or `.`");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// A name to look up that is empty or holds `/`, `\` or `.`: a path, not a name.
    NotAName(String),
    /// A built-in's name, while the directory names are looked up in also has a file of that
    /// name that is another schema, which the name does not read.
    Shadowed {
        /// The name.
        name: String,
        /// The file, as messages show it.
        file: String,
    },
    /// No built-in schema and no file has the name.
    NotFound {
        /// The name looked up.
        name: String,
        /// The file looked for, as messages show it: none where the name is a path that is not
        /// there ([`Loader::locate`]).
        file: Option<String>,
        /// The schema files of the directory looked in, by name.
        files: Vec<String>,
    },
    /// No file is at the path (shown as messages show it).
    NoFile(String),
    /// The file or directory could not be read.
    Read {
        /// The file or directory, as messages show it.
        file: String,
        /// What went wrong.
        error: String,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::NotAName(name) => write!(
                f,
                "`{name}` is not a schema name such as `b2nd_v1`: a name has no `/`, `\\` or `.`"
            ),
            LoadError::Shadowed { name, file } => write!(
                f,
                "schema `{name}` is built in, and `{file}` is another schema of that name, which `{name}` does not \
                 read: a built-in name always means the built-in schema"
            ),
            LoadError::NotFound {
                name,
                file: Some(file),
                files,
            } => write!(
                f,
                "schema `{name}` not found; looked among the built-in schemas, then for `{file}`\n  built-in schemas: \
                 {}\n  schema files there: {}",
                builtin_names(),
                list_or_none(files)
            ),
            LoadError::NotFound { file: None, .. } => {
                write!(f, "not a built-in schema ({}) and not a schema file", builtin_names())
            }
            LoadError::NoFile(file) => write!(f, "schema file `{file}` not found"),
            LoadError::Read { file, error } => write!(f, "cannot read `{file}`: {error}"),
        }
    }
}

impl std::error::Error for LoadError {}

/// `names` joined with commas, or `none`.
fn list_or_none(names: &[String]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// Finds schemas and the files they extend or include, keeping what it read. See the
/// [module](self) for the order in which names and references are looked up.
///
/// ```
/// use metalayer_layout::Loader;
///
/// let dir = std::env::temp_dir().join(format!("metalayer-loader-doc-{}", std::process::id()));
/// std::fs::create_dir_all(dir.join("schemas")).unwrap();
/// let head = "[schema]\nmetalayer = \"units\"\ndescription = \"d\"\nsource = \"s\"\n";
/// std::fs::write(dir.join("schemas/units_v0.toml"), format!("{head}include = [\"common.toml\"]\n[value]\ntype = \"unit\"\n")).unwrap();
/// std::fs::write(dir.join("schemas/common.toml"), "[types.unit]\nwire = \"fixarray\"\n[[types.unit.entry]]\nname = \"name\"\nwire = \"str\"\n").unwrap();
///
/// // As the attribute finds schemas: built-ins first, then the crate's `schemas/<name>.toml`.
/// let mut loader = Loader::new().relative_to(&dir).schemas_in("schemas");
/// let found = loader.find("units_v0").unwrap();
/// let source = loader.read(&found).unwrap();
/// let layout = loader.layout(source).unwrap();
/// assert_eq!(layout.types[0].name, "unit");
/// // Both files were read, to be tracked.
/// assert_eq!(loader.files().len(), 2);
/// assert!(loader.files()[1].ends_with("schemas/common.toml"));
///
/// // A built-in's name means the built-in, and no file is read for it.
/// let mut loader = Loader::new().relative_to(&dir).schemas_in("schemas");
/// let b2nd = loader.find("b2nd_v1").and_then(|found| loader.read(&found)).unwrap();
/// assert_eq!(b2nd.path, None);
/// assert!(loader.files().is_empty());
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
#[derive(Debug, Clone, Default)]
pub struct Loader {
    /// The directory [`Loader::find`] looks in for `<name>.toml`, relative to `base`.
    dir: Option<PathBuf>,
    /// The directory relative paths are taken from, and messages show paths relative to.
    base: Option<PathBuf>,
    /// Every source read or loaded, in order.
    sources: Vec<Source>,
    /// Every file read, in order.
    files: Vec<PathBuf>,
}

impl Loader {
    /// A loader of the built-in schemas and of files at the paths given, relative to the
    /// working directory.
    ///
    /// ```
    /// let mut loader = metalayer_layout::Loader::new();
    /// assert!(loader.locate("caterva_v0").is_ok());
    /// ```
    pub fn new() -> Loader {
        Loader::default()
    }

    /// Takes relative paths relative to `base`, and shows paths under it relative to it (the
    /// attribute's crate directory, `CARGO_MANIFEST_DIR`).
    ///
    /// ```
    /// let loader = metalayer_layout::Loader::new().relative_to("/crate");
    /// assert_eq!(loader.shown(std::path::Path::new("/crate/schemas/x.toml")), "schemas/x.toml");
    /// ```
    pub fn relative_to(mut self, base: impl Into<PathBuf>) -> Loader {
        self.base = Some(base.into());
        self
    }

    /// Looks names up in `dir` (relative to the base) after the built-ins: `<dir>/<name>.toml`.
    ///
    /// ```
    /// let mut loader = metalayer_layout::Loader::new().relative_to("/nowhere").schemas_in("schemas");
    /// let err = loader.find("units_v0").unwrap_err();
    /// assert!(err.to_string().starts_with("schema `units_v0` not found; looked among the built-in schemas, then for `schemas/units_v0.toml`"));
    /// ```
    pub fn schemas_in(mut self, dir: impl Into<PathBuf>) -> Loader {
        self.dir = Some(dir.into());
        self
    }

    /// The path `path` names: relative to the base.
    fn real(&self, path: &Path) -> PathBuf {
        match &self.base {
            Some(base) => base.join(path),
            None => path.to_path_buf(),
        }
    }

    /// `path` as messages show it: relative to the base when it is under it.
    ///
    /// ```
    /// use std::path::Path;
    ///
    /// let loader = metalayer_layout::Loader::new();
    /// assert_eq!(loader.shown(Path::new("dir/x.toml")), "dir/x.toml");
    /// ```
    pub fn shown(&self, path: &Path) -> String {
        let relative = self.base.as_ref().and_then(|base| path.strip_prefix(base).ok());
        relative.unwrap_or(path).display().to_string()
    }

    /// Where the schema named `name` is: the built-in of that name, or else the file
    /// `<name>.toml` of the directory of [`Loader::schemas_in`]. A name with `/`, `\` or `.` is
    /// a path, not a name; a file of a built-in's name that is another schema is an error.
    ///
    /// ```
    /// use metalayer_layout::{Found, LoadError, Loader};
    ///
    /// let loader = Loader::new();
    /// assert!(matches!(loader.find("b2o_v1"), Ok(Found::Builtin(_))));
    /// assert!(matches!(loader.find("b2nd_v9"), Err(LoadError::NotFound { file: None, .. })));
    /// ```
    pub fn find(&self, name: &str) -> Result<Found, LoadError> {
        if name.is_empty() || name.contains(['/', '\\', '.']) {
            return Err(LoadError::NotAName(name.to_string()));
        }
        let file = self.dir.as_ref().map(|dir| dir.join(format!("{name}.toml")));
        let real = file.as_deref().map(|f| self.real(f));
        if let Some(b) = builtin(name) {
            return match (file, real) {
                (Some(file), Some(real)) if real.exists() => {
                    if std::fs::read_to_string(&real).is_ok_and(|text| text == b.text) {
                        Ok(Found::File(file))
                    } else {
                        Err(LoadError::Shadowed {
                            name: name.to_string(),
                            file: self.shown(&real),
                        })
                    }
                }
                _ => Ok(Found::Builtin(b)),
            };
        }
        match (file, real) {
            (Some(file), Some(real)) if real.is_file() => Ok(Found::File(file)),
            (_, real) => Err(LoadError::NotFound {
                name: name.to_string(),
                file: real.as_deref().map(|r| self.shown(r)),
                files: self.names_in_dir(),
            }),
        }
    }

    /// The names of the schema files of the directory of [`Loader::schemas_in`], if it can be
    /// read: what a name not found could have been.
    fn names_in_dir(&self) -> Vec<String> {
        let Some(dir) = &self.dir else {
            return Vec::new();
        };
        let files = Loader::schema_files(&self.real(dir)).unwrap_or_default();
        let mut names = Vec::with_capacity(files.len());
        for f in &files {
            if let Some(name) = f.file_stem().and_then(|stem| stem.to_str()) {
                names.push(name.to_string());
            }
        }
        names
    }

    /// Where the schema a command-line argument names is: the built-in of that name, or else
    /// the file at that path.
    ///
    /// ```
    /// use metalayer_layout::{Found, Loader};
    ///
    /// let loader = Loader::new();
    /// assert!(matches!(loader.locate("b2nd_v0"), Ok(Found::Builtin(_))));
    /// let err = loader.locate("no/such/file.toml").unwrap_err();
    /// assert!(err.to_string().starts_with("not a built-in schema (caterva_v0, b2nd_v0, b2nd_v1, "));
    /// ```
    pub fn locate(&self, arg: &str) -> Result<Found, LoadError> {
        if let Some(b) = builtin(arg) {
            return Ok(Found::Builtin(b));
        }
        if self.real(Path::new(arg)).exists() {
            return Ok(Found::File(PathBuf::from(arg)));
        }
        Err(LoadError::NotFound {
            name: arg.to_string(),
            file: None,
            files: Vec::new(),
        })
    }

    /// Reads the schema `found` names. A file's schema is named by its file stem.
    ///
    /// ```
    /// use metalayer_layout::{Found, LoadError, Loader};
    ///
    /// let mut loader = Loader::new().relative_to("/nowhere");
    /// let err = loader.read(&Found::File("x_v0.toml".into())).unwrap_err();
    /// assert_eq!(err, LoadError::NoFile("x_v0.toml".into()));
    /// ```
    pub fn read(&mut self, found: &Found) -> Result<Source, LoadError> {
        let source = match found {
            Found::Builtin(b) => Source::builtin(b),
            Found::File(path) => {
                let real = self.real(path);
                let name = real
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or_default()
                    .to_string();
                let text = self.read_file(&real)?;
                Source {
                    name,
                    path: Some(real.display().to_string()),
                    text,
                }
            }
        };
        self.sources.push(source.clone());
        Ok(source)
    }

    /// The text of the file at `real`, which is kept among the files read.
    fn read_file(&mut self, real: &Path) -> Result<String, LoadError> {
        match std::fs::read_to_string(real) {
            Ok(text) => {
                self.files.push(real.to_path_buf());
                Ok(text)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(LoadError::NoFile(self.shown(real))),
            Err(e) => Err(LoadError::Read {
                file: self.shown(real),
                error: e.to_string(),
            }),
        }
    }

    /// Reads the schema that `from` extends or includes by `reference`: the built-in of that
    /// name, or else the file at that path relative to `from`'s directory. A schema that is no
    /// file names built-ins only. The message of the error is what the checker reports at the
    /// reference.
    ///
    /// ```
    /// use metalayer_layout::{Loader, Source};
    ///
    /// let mut loader = Loader::new();
    /// let from = Source { name: "m".into(), path: None, text: String::new() };
    /// assert_eq!(loader.reference("b2nd_v1", &from).unwrap().name, "b2nd_v1");
    /// assert_eq!(loader.reference("common.toml", &from).unwrap_err(), "no built-in schema is named `common.toml`");
    /// let from = Source { name: "m".into(), path: Some("/nowhere/m.toml".into()), text: String::new() };
    /// assert_eq!(
    ///     loader.reference("common.toml", &from).unwrap_err(),
    ///     "schema file `/nowhere/common.toml` not found"
    /// );
    /// ```
    pub fn reference(&mut self, reference: &str, from: &Source) -> Result<Source, String> {
        let source = match (builtin(reference), &from.path) {
            (Some(b), _) => Source::builtin(b),
            (None, None) => return Err(format!("no built-in schema is named `{reference}`")),
            (None, Some(from)) => {
                let dir = Path::new(from).parent().unwrap_or(Path::new(""));
                let path = dir.join(reference);
                let text = self.read_file(&path).map_err(|e| e.to_string())?;
                Source {
                    name: reference.to_string(),
                    path: Some(path.display().to_string()),
                    text,
                }
            }
        };
        self.sources.push(source.clone());
        Ok(source)
    }

    /// Parses and checks the schema `source`, reading the files it extends or includes
    /// ([`Loader::reference`]).
    ///
    /// ```
    /// use metalayer_layout::Loader;
    ///
    /// let mut loader = Loader::new();
    /// let source = loader.read(&loader.locate("b2nd_v1").unwrap()).unwrap();
    /// assert_eq!(loader.layout(source).unwrap().metalayer, "b2nd");
    /// ```
    pub fn layout(&mut self, source: Source) -> Result<Layout, Diagnostics> {
        crate::parse_with(source, &mut |reference, from| self.reference(reference, from))
    }

    /// The files read so far, in the order read (a file read twice is listed twice): what a
    /// build tracks, so that editing one rebuilds what was generated from it.
    ///
    /// ```
    /// let mut loader = metalayer_layout::Loader::new();
    /// let source = loader.read(&loader.locate("caterva_v0").unwrap()).unwrap();
    /// loader.layout(source).unwrap();
    /// assert!(loader.files().is_empty());
    /// ```
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// The source this loader read for `file`, a file of a layout it loaded.
    fn source_of(&self, file: &SchemaFile) -> Option<&Source> {
        self.sources.iter().find(|s| s.name == file.name && s.path == file.path)
    }

    /// The problem `d` of the schema `main` as `file:line:column: message`, with the line
    /// underlined ([`Diagnostic::render`]); files are shown as [`Loader::shown`] shows them,
    /// a built-in as `schemas/<name>.toml (built in)`.
    ///
    /// ```
    /// use metalayer_layout::{Loader, Source};
    ///
    /// let loader = Loader::new().relative_to("/crate");
    /// let text = "[schema]\nmetalayer = 3\n";
    /// let main = Source { name: "x".into(), path: Some("/crate/schemas/x.toml".into()), text: text.into() };
    /// let d = metalayer_layout::Diagnostic::new(21..22, "expected a string for `metalayer`, found an integer");
    /// assert!(loader.render(&d, &main).starts_with("schemas/x.toml:2:13: expected a string"));
    /// ```
    pub fn render(&self, d: &Diagnostic, main: &Source) -> String {
        let mut d = d.clone();
        if let Some(origin) = &mut d.origin
            && let Some(path) = &origin.path
        {
            origin.path = Some(self.shown(Path::new(path)));
        }
        d.render(&self.display(main), &main.text)
    }

    /// How messages name the schema `source`: its file, or a built-in's file in this crate.
    fn display(&self, source: &Source) -> String {
        match &source.path {
            Some(path) => self.shown(Path::new(path)),
            None if builtin(&source.name).is_some_and(|b| b.text == source.text) => {
                format!("schemas/{}.toml (built in)", source.name)
            }
            None => source.name.clone(),
        }
    }

    /// Where a problem about the file `file` of `layout` is, when that is not the schema
    /// itself but a file this loader read for it: for a [`Diagnostic`] found after checking.
    ///
    /// ```
    /// let mut loader = metalayer_layout::Loader::new();
    /// let source = loader.read(&loader.locate("b2nd_v1").unwrap()).unwrap();
    /// let layout = loader.layout(source).unwrap();
    /// assert_eq!(loader.origin(&layout, 0), None);
    /// ```
    pub fn origin(&self, layout: &Layout, file: usize) -> Option<Box<Origin>> {
        let f = layout.files.get(file).filter(|_| file > 0)?;
        let source = self.source_of(f)?;
        Some(Box::new(Origin {
            name: source.name.clone(),
            path: source.path.clone(),
            text: source.text.clone(),
        }))
    }

    /// The schema files of `dir`: every `*.toml` file directly in it, in name order, but files
    /// of types alone: a file with none of `[container]`, `[[entry]]` and `[value]` describes no
    /// metalayer, and is there for schemas to `include`. A file that is not TOML is listed, so
    /// that reading it reports why.
    ///
    /// ```
    /// let err = metalayer_layout::Loader::schema_files(std::path::Path::new("/no/such/dir")).unwrap_err();
    /// assert!(err.to_string().starts_with("cannot read `/no/such/dir`: "));
    /// ```
    pub fn schema_files(dir: &Path) -> Result<Vec<PathBuf>, LoadError> {
        let read_error = |e: std::io::Error| LoadError::Read {
            file: dir.display().to_string(),
            error: e.to_string(),
        };
        let mut files = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(read_error)? {
            let path = entry.map_err(read_error)?.path();
            if path.extension().is_some_and(|x| x == "toml") && path.is_file() && !is_types_file(&path) {
                files.push(path);
            }
        }
        files.sort();
        Ok(files)
    }
}

/// Whether the file at `path` is a file of types alone: TOML with none of `[container]`,
/// `[[entry]]` and `[value]`.
fn is_types_file(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    match crate::parse::parse(&text) {
        Ok(table) => ["container", "entry", "value"].iter().all(|k| table.get(k).is_none()),
        Err(_) => false,
    }
}
