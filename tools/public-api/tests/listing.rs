//! The listing of small crates whose listings were written by hand.

use std::path::Path;

use metalayer_public_api::{Error, diff, listing, render};

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

#[test]
fn sample_crate_lists_as_written_by_hand() {
    let root = fixture("sample");
    let expected = std::fs::read_to_string(root.join("expected.txt")).unwrap();
    let got = listing("sample", &root.join("src/lib.rs")).unwrap();
    assert!(
        got == expected,
        "difference (- expected, + listed):\n{}",
        diff(&expected, &got).join("\n")
    );
}

#[test]
fn a_module_without_its_file_is_an_error_naming_the_files_looked_for() {
    let dir = std::env::temp_dir().join(format!("public-api-missing-{}", std::process::id()));
    // Made here, so that removing it removes nothing another process made.
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("lib.rs"), "pub mod gone;\n").unwrap();
    let err = listing("x", &dir.join("lib.rs")).unwrap_err();
    assert!(matches!(&err, Error::MissingModule { name, tried, .. } if name == "gone" && tried.len() == 2));
    let message = err.to_string();
    assert!(message.contains("`mod gone;` names no file"), "{message}");
    assert!(message.contains("gone.rs") && message.contains("mod.rs"), "{message}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_that_is_not_rust_is_an_error_with_its_line() {
    let dir = std::env::temp_dir().join(format!("public-api-bad-{}", std::process::id()));
    // Made here, so that removing it removes nothing another process made.
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("lib.rs"), "pub fn ok() {}\npub fn (\n").unwrap();
    let err = listing("x", &dir.join("lib.rs")).unwrap_err();
    assert!(matches!(&err, Error::Parse { line: 2, .. }), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tokens_are_spaced_as_rustfmt_spaces_signatures() {
    let cases = [
        ("& 'a [u8]", "&'a [u8]"),
        ("Result < () , E >", "Result<(), E>"),
        (
            "impl FnOnce (& mut [u8]) -> Result < usize , E >",
            "impl FnOnce(&mut [u8]) -> Result<usize, E>",
        ),
        ("T : ? Sized + 'static", "T: ?Sized + 'static"),
        ("core :: fmt :: Formatter < '_ >", "core::fmt::Formatter<'_>"),
        ("[u8 ; 4]", "[u8; 4]"),
        ("Option < Vec < (String , i64) > >", "Option<Vec<(String, i64)>>"),
        ("* const u8", "*const u8"),
        ("fn (& [u8]) -> bool", "fn(&[u8]) -> bool"),
        ("x = - 1", "x = -1"),
    ];
    for (tokens, expected) in cases {
        let stream: proc_macro2::TokenStream = tokens.parse().unwrap();
        assert_eq!(render(stream), expected, "{tokens}");
    }
}

#[test]
fn the_difference_names_each_line_once_with_its_side() {
    let old = "a\nb\nd\n";
    let new = "a\nc\nd\ne\n";
    assert_eq!(diff(old, new), ["- b", "+ c", "+ e"]);
    assert!(diff(old, old).is_empty());
}

#[test]
fn doc_stub_carries_each_documented_code_block_under_its_conditions() {
    let root = fixture("docs");
    let expected = std::fs::read_to_string(root.join("expected_stub.rs")).unwrap();
    let got = metalayer_public_api::doc_stub(&root.join("src/lib.rs")).unwrap();
    assert_eq!(got, expected);
}

#[test]
fn types_that_signatures_name_and_no_path_reaches_are_found() {
    let dir = std::env::temp_dir().join(format!("public-api-unreachable-{}", std::process::id()));
    // Made here, so that removing it removes nothing another process made.
    std::fs::create_dir(&dir).unwrap();
    let source = r#"
mod private {
    pub struct Hidden;
    pub struct Shown;
    pub trait Bound {}
}
pub use private::Shown;
#[doc(hidden)]
pub struct Secret;
pub fn make(x: Shown) -> private::Hidden {
    private::Hidden
}
pub fn bounded<T: private::Bound>(t: T) -> Option<Secret> {
    None
}
impl Shown {
    pub fn hidden(&self) -> Vec<private::Hidden> {
        Vec::new()
    }
    fn private(&self) -> private::Hidden {
        private::Hidden
    }
}
"#;
    std::fs::write(dir.join("lib.rs"), source).unwrap();
    let found = metalayer_public_api::unreachable_types("x", &dir.join("lib.rs")).unwrap();
    assert_eq!(
        found,
        [
            "`Bound` in x::bounded",
            "`Hidden` in x::Shown::hidden",
            "`Hidden` in x::make",
            "`Secret` in x::bounded",
        ]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
