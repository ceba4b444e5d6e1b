//! `metalayer-public-api write` writes the listing of each crate's public API to
//! `api/<crate>.txt`; `metalayer-public-api check` compares the listings with the sources and
//! fails, showing the difference, where one is stale. See the library's documentation for what
//! a listing holds.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The crates listed: each name, and its root file relative to the repository.
const CRATES: &[(&str, &str)] = &[
    ("metalayer", "src/lib.rs"),
    ("metalayer-runtime", "runtime/src/lib.rs"),
    ("metalayer-layout", "layout/src/lib.rs"),
    ("metalayer-codegen", "codegen/src/lib.rs"),
    ("metalayer-macros", "macros/src/lib.rs"),
];

const USAGE: &str = "usage: metalayer-public-api (write | check | unreachable | doc-stub) [--root <repository>]

  write        writes api/<crate>.txt for each crate
  check        fails, showing the difference, where api/<crate>.txt differs from the sources
  unreachable  lists the crates' own types that public signatures name and no public path
               reaches (a user of the crate cannot name them), and fails if there is one
  doc-stub     prints the documentation of metalayer without its code, a crate whose
               doctests run against metalayer alone (.ci/doc-alone)

The repository defaults to the one this tool is in.";

const REGENERATE: &str = "cargo run --manifest-path tools/public-api/Cargo.toml -- write";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut mode = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "write" | "check" | "doc-stub" | "unreachable" if mode.is_none() => mode = Some(arg.clone()),
            "--root" => match rest.next() {
                Some(r) => root = PathBuf::from(r),
                None => return usage("--root needs a directory"),
            },
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => return usage(&format!("unexpected argument `{other}`")),
        }
    }
    let Some(mode) = mode else {
        return usage("say `write`, `check` or `doc-stub`");
    };
    if mode == "unreachable" {
        let mut found = 0;
        for (name, lib_rs) in CRATES {
            match metalayer_public_api::unreachable_types(&name.replace('-', "_"), &root.join(lib_rs)) {
                Ok(types) => {
                    for t in &types {
                        println!("{name}: {t}");
                    }
                    found += types.len();
                }
                Err(e) => {
                    eprintln!("error: {name}: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
        if found > 0 {
            eprintln!("error: {found} type(s) in public signatures that no public path reaches");
            return ExitCode::FAILURE;
        }
        return ExitCode::SUCCESS;
    }
    if mode == "doc-stub" {
        return match metalayer_public_api::doc_stub(&root.join("src/lib.rs")) {
            Ok(stub) => {
                print!("{stub}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: metalayer: {e}");
                ExitCode::FAILURE
            }
        };
    }

    let mut stale = 0;
    for (name, lib_rs) in CRATES {
        let listing = match metalayer_public_api::listing(&name.replace('-', "_"), &root.join(lib_rs)) {
            Ok(listing) => listing,
            Err(e) => {
                eprintln!("error: {name}: {e}");
                return ExitCode::FAILURE;
            }
        };
        let file = root.join("api").join(format!("{name}.txt"));
        if mode == "write" {
            if let Err(e) = std::fs::create_dir_all(root.join("api")).and_then(|()| std::fs::write(&file, &listing)) {
                eprintln!("error: {}: {e}", file.display());
                return ExitCode::FAILURE;
            }
            println!("api/{name}.txt: {} items", listing.lines().count());
            continue;
        }
        let old = std::fs::read_to_string(&file).unwrap_or_default();
        if old == listing {
            println!("api/{name}.txt: up to date ({} items)", listing.lines().count());
            continue;
        }
        stale += 1;
        eprintln!("api/{name}.txt differs from the sources (- listed, + in the sources):");
        for line in metalayer_public_api::diff(&old, &listing) {
            eprintln!("{line}");
        }
    }
    if stale > 0 {
        eprintln!("error: {stale} listing(s) of the public API are stale: run `{REGENERATE}` and review the change");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

fn usage(problem: &str) -> ExitCode {
    eprintln!("error: {problem}\n\n{USAGE}");
    ExitCode::from(2)
}
