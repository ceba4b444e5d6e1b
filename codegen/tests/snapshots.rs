//! The code the attribute generates for the three built-in array layouts, on the structs the
//! `metalayer` crate defines for them (`B2ndV1`, `B2ndV0`, `CatervaV0`), compared with the files
//! under `tests/snapshots/`.
//!
//! The snapshot files are reviewed like trybuild's `.stderr` files: they are the expected output,
//! read by a person when they are first written and whenever a change to the generator changes
//! them, and committed with that change. A test run never writes them unless asked to:
//!
//! ```sh
//! METALAYER_BLESS=1 cargo test -p metalayer-codegen --test snapshots
//! ```
//!
//! rewrites the files that differ; review `git diff` before committing them.

use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;

/// The attribute's arguments and the struct it is on, as `src/b2nd.rs` and `src/caterva.rs`
/// write them.
const CASES: &[(&str, &str, &str)] = &[
    (
        "b2nd_v1",
        r#"schema = "b2nd_v1""#,
        r#"
        #[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
        pub struct B2ndV1 {
            /// The array's shape.
            pub shape: Vec<i64>,
            /// The shape of each chunk.
            pub chunkshape: Vec<i32>,
            /// The shape of each block.
            pub blockshape: Vec<i32>,
            /// The dtype's format: 0 is NumPy.
            pub dtype_format: u8,
            /// The dtype, such as `"<i4"`.
            pub dtype: String,
        }
        "#,
    ),
    (
        "b2nd_v0",
        r#"schema = "b2nd_v0""#,
        r#"
        #[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
        pub struct B2ndV0 {
            /// The array's shape.
            pub shape: Vec<i64>,
            /// The shape of each chunk.
            pub chunkshape: Vec<i32>,
            /// The shape of each block.
            pub blockshape: Vec<i32>,
            /// The dtype as NumPy's repr, such as `"uint8"`.
            pub dtype: String,
        }
        "#,
    ),
    (
        "caterva_v0",
        r#"schema = "caterva_v0""#,
        r#"
        #[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
        pub struct CatervaV0 {
            /// The array's shape.
            pub shape: Vec<i64>,
            /// The shape of each chunk.
            pub chunkshape: Vec<i32>,
            /// The shape of each block.
            pub blockshape: Vec<i32>,
        }
        "#,
    ),
];

/// The expansion of `item` under `#[metalayer(args)]`, as formatted Rust source.
fn expand(args: &str, item: &str) -> String {
    let args: TokenStream = args.parse().expect("argument tokens");
    let item: TokenStream = item.parse().expect("item tokens");
    // Built-in schemas are read from the macro, never from the crate directory.
    let out = metalayer_codegen::expand_in(args, item, Path::new(env!("CARGO_MANIFEST_DIR")));
    match syn2::parse2::<syn2::File>(out.clone()) {
        Ok(file) => prettyplease::unparse(&file),
        Err(e) => panic!("the expansion is not a Rust file ({e}):\n{out}"),
    }
}

fn snapshot_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.rs"))
}

/// The lines that differ between `expected` and `found`, as a line diff: `-` for a line only the
/// snapshot has, `+` for one only the expansion has, each with its line number in its file
/// (the longest common subsequence of lines is left out).
fn line_diff(expected: &str, found: &str) -> String {
    let (old, new): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), found.lines().collect());
    // common[i][j]: the length of the longest common subsequence of old[i..] and new[j..].
    let mut common = vec![vec![0u32; new.len() + 1]; old.len() + 1];
    for i in (0..old.len()).rev() {
        for j in (0..new.len()).rev() {
            common[i][j] = if old[i] == new[j] {
                common[i + 1][j + 1] + 1
            } else {
                common[i + 1][j].max(common[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out, mut shown) = (0, 0, String::new(), 0);
    while (i < old.len() || j < new.len()) && shown < 60 {
        if i < old.len() && j < new.len() && old[i] == new[j] {
            (i, j) = (i + 1, j + 1);
        } else if i < old.len() && (j == new.len() || common[i + 1][j] >= common[i][j + 1]) {
            out.push_str(&format!("{:>5} - {}\n", i + 1, old[i]));
            (i, shown) = (i + 1, shown + 1);
        } else {
            out.push_str(&format!("{:>5} + {}\n", j + 1, new[j]));
            (j, shown) = (j + 1, shown + 1);
        }
    }
    if i < old.len() || j < new.len() {
        out.push_str("  ... (more lines differ)\n");
    }
    out
}

#[test]
fn generated_code_matches_the_reviewed_snapshots() {
    let bless = std::env::var_os("METALAYER_BLESS").is_some_and(|v| v == "1");
    let mut failures = Vec::new();
    for (name, args, item) in CASES {
        let found = expand(args, item);
        let path = snapshot_path(name);
        let expected = std::fs::read_to_string(&path).unwrap_or_default();
        if expected == found {
            continue;
        }
        if bless {
            std::fs::create_dir_all(path.parent().expect("a parent directory")).expect("create tests/snapshots");
            std::fs::write(&path, &found).expect("write the snapshot");
            eprintln!("wrote {}", path.display());
            continue;
        }
        let diff = if expected.is_empty() {
            "  (no snapshot yet)\n".to_string()
        } else {
            line_diff(&expected, &found)
        };
        failures.push(format!("{} differs from the expansion:\n{diff}", path.display()));
    }
    assert!(
        failures.is_empty(),
        "{}\nIf the change is intended, rerun with METALAYER_BLESS=1 and review the new files.",
        failures.join("\n")
    );
}

/// The comparison fails on a change: a snapshot with one line edited no longer matches.
#[test]
fn a_changed_line_is_reported() {
    let (_, args, item) = CASES[2];
    let found = expand(args, item);
    let edited = found.replacen("CatervaV0", "CatervaV9", 1);
    assert_ne!(edited, found);
    let diff = line_diff(&edited, &found);
    let changed: Vec<&str> = diff.lines().collect();
    assert_eq!(changed.len(), 2, "{diff}");
    assert!(
        changed.iter().any(|l| l.contains(" - ") && l.contains("CatervaV9")),
        "{diff}"
    );
    assert!(
        changed.iter().any(|l| l.contains(" + ") && l.contains("CatervaV0")),
        "{diff}"
    );
    // A line taken out shows as that line alone, not as every line after it.
    let shorter: String = found.lines().skip(1).map(|l| format!("{l}\n")).collect();
    assert_eq!(line_diff(&found, &shorter).lines().count(), 1);
}
