//! The files of a schema: the schema itself, and those it extends or includes, read depth
//! first.

use super::{Ctx, LANGUAGE_DEFAULT, LANGUAGE_LATEST};
use crate::load::Source;
use crate::parse::{Sp, Table};

/// The keys of a schema file's top-level table.
const TOP_KEYS: &[&str] = &["schema", "container", "value", "entry", "types"];
/// The keys of the main schema's `[schema]` table.
const SCHEMA_KEYS: &[&str] = &["metalayer", "description", "source", "language", "extends", "include"];

/// Everything the files of a schema define, before checking.
#[derive(Default)]
pub(super) struct Gathered {
    /// Per file read, its index in the context's files and its parsed top-level table. The main
    /// schema is first; a schema that extends another has the base second.
    pub(super) tables: Vec<(usize, Table)>,
    /// The index in `tables` of the file the main schema extends, once read.
    pub(super) base: Option<usize>,
}

/// How a schema names another file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reference {
    /// `extends = "..."`: the schema starts with the other's entries.
    Extend,
    /// `include = [...]`: the schema uses the other's types.
    Include,
}

impl Reference {
    /// The verb messages use.
    fn verb(self) -> &'static str {
        match self {
            Reference::Extend => "extend",
            Reference::Include => "include",
        }
    }
}

/// Loads every file the schema at `gathered.tables[index]` extends or includes, depth first.
pub(super) fn gather(cx: &mut Ctx<'_, '_>, gathered: &mut Gathered, index: usize, is_main: bool) {
    let (file, table) = {
        let (f, t) = &gathered.tables[index];
        (*f, t.clone())
    };
    cx.check_known_keys(file, &table, "the schema file", TOP_KEYS);
    let Some((schema, _)) = cx.table(file, &table, "schema") else {
        return;
    };
    let schema = schema.clone();
    cx.check_known_keys(file, &schema, "[schema]", SCHEMA_KEYS);
    check_language_known(cx, file, &schema);
    let mut refs = Vec::new();
    if let Some(base) = cx.string(file, &schema, "extends") {
        refs.push((base, Reference::Extend));
    }
    if let Some(includes) = cx.strings(file, &schema, "include") {
        for r in includes.value {
            refs.push((r, Reference::Include));
        }
    }
    for (reference, how) in refs {
        let Some(source) = check_file_loads(cx, file, &reference, how) else {
            continue;
        };
        if !check_no_file_cycle(cx, file, &reference, &source, how) {
            continue;
        }
        // A file two others include (a diamond) is read once: its types are defined once.
        if cx.files.iter().any(|f| f.is_same_file(&source)) {
            continue;
        }
        let index = cx.files.len();
        let parsed = crate::parse::parse(&source.text);
        cx.files.push(source);
        let language = cx.languages[file];
        cx.languages.push(language);
        match parsed {
            Ok(t) => {
                gathered.tables.push((index, t));
                let next = gathered.tables.len() - 1;
                if is_main && how == Reference::Extend {
                    gathered.base = Some(next);
                }
                cx.stack.push(index);
                gather(cx, gathered, next, false);
                cx.stack.pop();
            }
            Err(diags) => {
                for d in diags {
                    cx.error(index, d.span, d.message);
                }
            }
        }
    }
}

/// Rule: `language` in `[schema]` names a version of the schema language: 2 (the default) or
/// 3. Sets the language file `file` is read in.
fn check_language_known(cx: &mut Ctx<'_, '_>, file: usize, schema: &Table) {
    let Some(v) = cx.integer(file, schema, "language") else {
        return;
    };
    if (LANGUAGE_DEFAULT..=LANGUAGE_LATEST).contains(&v.value) {
        cx.languages[file] = v.value;
    } else {
        cx.error(
            file,
            v.span,
            format!(
                "language {} is not a version of the schema language: {LANGUAGE_DEFAULT} (the default) or {LANGUAGE_LATEST}",
                v.value
            ),
        );
    }
}

/// Rule: a schema does not extend or include itself, directly or through the files it names.
/// Whether `source`, which `reference` in `file` names, is not one of the files being read.
fn check_no_file_cycle(
    cx: &mut Ctx<'_, '_>,
    file: usize,
    reference: &Sp<String>,
    source: &Source,
    how: Reference,
) -> bool {
    if !cx.stack.iter().any(|&f| cx.files[f].is_same_file(source)) {
        return true;
    }
    let mut chain = Vec::with_capacity(cx.stack.len());
    for &f in &cx.stack {
        chain.push(label(&cx.files[f], f));
    }
    let message = format!(
        "{} cycle: {} -> {} again",
        how.verb(),
        chain.join(" -> "),
        reference.value
    );
    cx.error(file, reference.span.clone(), message);
    false
}

/// How a cycle names a file: by the reference that named it, and the main schema by its file
/// name (`b2nd_v1.toml`), or its name when it is no file.
fn label(source: &Source, index: usize) -> &str {
    let file_name = source
        .path
        .as_deref()
        .filter(|_| index == 0)
        .and_then(|p| std::path::Path::new(p).file_name().and_then(|n| n.to_str()));
    file_name.unwrap_or(&source.name)
}

/// Rule: the files a schema extends or includes exist. Loads the file `reference` names (in
/// file `from`); `None`, with a diagnostic, when it cannot be found or read.
fn check_file_loads(cx: &mut Ctx<'_, '_>, from: usize, reference: &Sp<String>, how: Reference) -> Option<Source> {
    match (cx.resolve)(&reference.value, &cx.files[from]) {
        Ok(source) => Some(source),
        Err(message) => {
            cx.error(
                from,
                reference.span.clone(),
                format!("cannot {} `{}`: {message}", how.verb(), reference.value),
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::check::testing::{HEAD, at, problems_in, problems_with};

    #[test]
    fn check_no_file_cycle() {
        // The main schema (named `main`) extends itself: line 5, `extends = "main"`.
        let main = format!("{HEAD}extends = \"main\"\n[value]\nwire = \"int\"\n");
        assert_eq!(
            problems_with(&main, &[]),
            [("main".to_string(), at(5, 11, "extend cycle: main -> main again"))]
        );
        // `main` includes `b.toml`, which includes `main`: the error is in `b.toml`.
        let main = format!("{HEAD}include = [\"b.toml\"]\n[value]\nwire = \"int\"\n");
        let b = "[schema]\ninclude = [\"main\"]\n";
        assert_eq!(
            problems_with(&main, &[("b.toml", b)]),
            [(
                "b.toml".to_string(),
                at(2, 12, "include cycle: main -> b.toml -> main again")
            )]
        );
        // Two files including a third is no cycle, and the third is read once: its types are
        // not defined twice, and its errors are reported once.
        let d = "[types.p]\nwire = \"fixarray\"\n[[types.p.entry]]\nname = \"x\"\nwire = \"int65\"\n";
        let (b, c) = (
            "[schema]\ninclude = [\"d.toml\"]\n",
            "[schema]\ninclude = [\"d.toml\"]\n",
        );
        let main = format!("{HEAD}include = [\"b.toml\", \"c.toml\"]\n[value]\ntype = \"p\"\n");
        let found = problems_with(&main, &[("b.toml", b), ("c.toml", c), ("d.toml", d)]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].0.as_str(), found[0].1.0, found[0].1.1), ("d.toml", 5, 8));
        let fine = d.replace("int65", "int");
        assert_eq!(
            problems_with(&main, &[("b.toml", b), ("c.toml", c), ("d.toml", &fine)]),
            []
        );
        // Two files including a third is no cycle.
        let c = "[types.point]\nwire = \"fixarray\"\n[[types.point.entry]]\nname = \"x\"\nwire = \"int\"\n";
        let b = "[schema]\ninclude = [\"c.toml\"]\n";
        let main = format!("{HEAD}include = [\"b.toml\"]\n[value]\ntype = \"point\"\n");
        assert_eq!(problems_with(&main, &[("b.toml", b), ("c.toml", c)]), []);
    }

    #[test]
    fn check_language_known() {
        let text = format!("{HEAD}language = 4\n[value]\nwire = \"int\"\n");
        assert_eq!(
            problems_in(&text),
            [at(
                5,
                12,
                "language 4 is not a version of the schema language: 2 (the default) or 3"
            )]
        );
        // Language 2 is what a schema without `language` is read in: a key of language 3 is
        // refused there, and accepted under `language = 3`.
        let two = format!("{HEAD}[value]\nwire = \"bin\"\nlen = 32\n");
        assert_eq!(
            problems_in(&two),
            [at(7, 1, "`len` is language 3: state `language = 3` in [schema]")]
        );
        let three = format!("{HEAD}language = 3\n[value]\nwire = \"bin\"\nlen = 32\n");
        assert_eq!(problems_in(&three), []);
        let two = format!("{HEAD}language = 2\n[value]\nwire = \"int\"\n");
        assert_eq!(problems_in(&two), []);
        // A file of types without `language` is read in the language of the file including it;
        // one that states its own is read in that.
        let types = "[types.d]\nwire = \"fixarray\"\n[[types.d.entry]]\nname = \"sha\"\nwire = \"bin\"\nlen = 32\n";
        let main = |language: &str| format!("{HEAD}{language}include = [\"t.toml\"]\n[value]\ntype = \"d\"\n");
        assert_eq!(problems_with(&main("language = 3\n"), &[("t.toml", types)]), []);
        let in_types = (
            "t.toml".to_string(),
            at(6, 1, "`len` is language 3: state `language = 3` in [schema]"),
        );
        assert_eq!(problems_with(&main(""), &[("t.toml", types)]), [in_types]);
        let stated = format!("[schema]\nlanguage = 3\n{types}");
        assert_eq!(problems_with(&main(""), &[("t.toml", &stated)]), []);
        // The [schema] keys of every file are checked, not only the main schema's.
        let typo = format!("[schema]\nincude = [\"x\"]\n{types}");
        assert_eq!(
            problems_with(&main("language = 3\n"), &[("t.toml", &typo)]),
            [(
                "t.toml".to_string(),
                at(
                    2,
                    1,
                    "unknown key `incude` in [schema]; expected one of: metalayer, description, source, language, extends, include"
                )
            )]
        );
    }

    #[test]
    fn check_file_loads() {
        let text = format!("{HEAD}extends = \"b2nd_v9\"\n[value]\nwire = \"int\"\n");
        assert_eq!(
            problems_in(&text),
            [at(
                5,
                11,
                "cannot extend `b2nd_v9`: no built-in schema is named `b2nd_v9`"
            )]
        );
        let text = format!("{HEAD}include = [\"nope\"]\n[value]\nwire = \"int\"\n");
        assert_eq!(
            problems_in(&text),
            [at(5, 12, "cannot include `nope`: no built-in schema is named `nope`")]
        );
        // A file that does not parse: the TOML parser's error, placed in that file.
        let main = format!("{HEAD}include = [\"b.toml\"]\n[value]\nwire = \"int\"\n");
        let broken = "[types\n";
        let syntax = crate::parse::parse(broken).expect_err("not TOML");
        let found = problems_with(&main, &[("b.toml", broken)]);
        let expected: Vec<_> = syntax
            .iter()
            .map(|d| {
                let (line, column) = d.line_column(broken);
                ("b.toml".to_string(), (line, column, d.message.clone()))
            })
            .collect();
        assert_eq!(found, expected);
        assert_eq!(found.len(), 1);
        // A built-in extends nothing; extending it reads it.
        let text = format!("{HEAD}extends = \"b2nd_v1\"\n");
        assert_eq!(problems_in(&text), []);
    }
}
