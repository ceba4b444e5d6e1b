//! Completions, the examples of every subcommand's help, and raw bytes on stdout.

mod common;

use common::{run, stderr, stdout};

const SUBCOMMANDS: &[&str] = &[
    #[cfg(feature = "inspect")]
    "inspect",
    "decode",
    "encode",
    #[cfg(feature = "diagram")]
    "diagram",
    "schemas",
    "completions",
];

#[test]
fn completions_for_every_shell() {
    let out = run(&["completions", "bash"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    let bash = stdout(&out);
    assert!(bash.contains("_metalayer()"), "{bash}");
    assert!(bash.contains("complete -F _metalayer"), "{bash}");
    for sub in SUBCOMMANDS {
        assert!(bash.contains(sub), "bash completion lacks {sub}");
    }
    #[cfg(feature = "inspect")]
    assert!(bash.contains("--jsonl"), "{bash}");

    for (shell, marker) in [
        ("zsh", "#compdef metalayer"),
        ("fish", "complete -c metalayer"),
        ("elvish", "edit:completion:arg-completer[metalayer]"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let out = run(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}: {}", stderr(&out));
        let script = stdout(&out);
        assert!(script.contains(marker), "{shell}: {script}");
        assert!(script.contains("encode"), "{shell}");
    }

    for args in [
        &["completions"][..],
        &["completions", "tcsh"],
        &["completions", "bash", "zsh"],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(stdout(&out), "", "{args:?}");
        assert!(stderr(&out).starts_with("error: "), "{args:?}: {}", stderr(&out));
    }
}

#[test]
fn every_subcommand_help_has_an_example() {
    for sub in SUBCOMMANDS {
        for help in ["--help", "-h"] {
            let out = run(&[sub, help]);
            assert_eq!(out.status.code(), Some(0), "{sub} {help}");
            let text = stdout(&out);
            assert!(text.contains("\nExample"), "{sub} {help}:\n{text}");
            assert!(text.contains(&format!("  metalayer {sub} ")), "{sub} {help}:\n{text}");
        }
        let out = run(&["help", sub]);
        assert!(stdout(&out).contains("\nExample"), "help {sub}");
    }
}

/// `encode -o -` writes raw bytes to a pipe (the test's stdout is one), with or without
/// --force; a terminal is refused unless forced, which `output::refuses_binary`'s unit test
/// covers since no terminal is at hand here.
#[test]
fn raw_bytes_into_a_pipe() {
    let entries = r#"{"shape":[4],"chunkshape":[2],"blockshape":[1]}"#;
    // fixarray(5); version 0; ndim 1; shape [int64 4]; chunkshape [int32 2]; blockshape [int32 1].
    let want: &[u8] =
        b"\x95\x00\x01\x91\xd3\x00\x00\x00\x00\x00\x00\x00\x04\x91\xd2\x00\x00\x00\x02\x91\xd2\x00\x00\x00\x01";
    for args in [
        &["encode", "--schema", "caterva_v0", "-o", "-", entries][..],
        &["encode", "--schema", "caterva_v0", "-o", "-", "--force", entries],
        &["encode", "-f", "--schema", "caterva_v0", "--output", "-", entries],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert_eq!(out.stdout, want, "{args:?}");
        assert_eq!(stderr(&out), "", "{args:?}");
    }
    // --force changes nothing for hex output.
    let out = run(&["encode", "--schema", "caterva_v0", "--force", entries]);
    assert_eq!(stdout(&out), "95000191d3000000000000000491d20000000291d200000001\n");
    let help = stdout(&run(&["encode", "--help"]));
    assert!(help.contains("-f, --force"), "{help}");
}
