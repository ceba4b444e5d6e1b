//! Every error type's message and `source()` together: walking the chain of each, no message
//! repeats the message of an error further down, so a program that prints the whole chain
//! (`anyhow`, `metalayer inspect`) shows each part once.
//!
//! The errors: `DecodeError`, `EncodeError` and their kinds, `DispatchError`, `FrameError`, and
//! `metalayer_layout::{Diagnostic, Diagnostics}`, each triggered through the public API.

use std::error::Error;

use metalayer::b2nd::B2ndV1;
use metalayer::frame::{FrameErrorKind, parse_header, read_metalayers};
use metalayer::prelude::*;
use metalayer::{DecodeError, DispatchError, EncodeError, Known};

/// The messages of `error` and of each of its sources, outermost first.
fn chain(error: &dyn Error) -> Vec<String> {
    let mut messages = vec![error.to_string()];
    let mut source = error.source();
    while let Some(e) = source {
        messages.push(e.to_string());
        source = e.source();
    }
    messages
}

/// Asserts that no message of `error`'s chain contains a message further down, and returns the
/// chain's length.
fn assert_not_repeated(what: &str, error: &dyn Error) -> usize {
    let messages = chain(error);
    for (i, outer) in messages.iter().enumerate() {
        assert!(!outer.is_empty(), "{what}: an empty message in {messages:?}");
        for inner in &messages[i + 1..] {
            assert!(
                !outer.contains(inner.as_str()),
                "{what}: {outer:?} repeats its source {inner:?}"
            );
        }
    }
    messages.len()
}

fn v1() -> B2ndV1 {
    B2ndV1 {
        shape: vec![10, 20],
        chunkshape: vec![5, 20],
        blockshape: vec![5, 5],
        dtype_format: 0,
        dtype: "<f8".into(),
    }
}

fn decode_errors() -> Vec<DecodeError> {
    let bytes = v1().encode().unwrap();
    let mut marker = bytes.clone();
    marker[0x0d] = 0xd2;
    let mut trailing = bytes.clone();
    trailing.push(0);
    vec![
        B2ndV1::decode(&marker).unwrap_err(),
        B2ndV1::decode(&bytes[..10]).unwrap_err(),
        B2ndV1::decode(&trailing).unwrap_err(),
        B2ndV1::decode(&[0x96]).unwrap_err(),
    ]
}

fn encode_errors() -> Vec<EncodeError> {
    let mut mismatch = v1();
    mismatch.chunkshape.push(1);
    let mut too_many = v1();
    too_many.shape = vec![1; 17];
    too_many.chunkshape = vec![1; 17];
    too_many.blockshape = vec![1; 17];
    vec![
        mismatch.encode().unwrap_err(),
        too_many.encode().unwrap_err(),
        v1().encode_into(&mut [0; 4]).unwrap_err(),
    ]
}

#[test]
fn decode_and_encode_errors() {
    for e in decode_errors() {
        assert_eq!(assert_not_repeated("DecodeError", &e), 1);
        assert_eq!(assert_not_repeated("DecodeErrorKind", &e.kind()), 1);
    }
    for e in encode_errors() {
        assert_eq!(assert_not_repeated("EncodeError", &e), 1);
        assert_eq!(assert_not_repeated("EncodeErrorKind", &e.kind()), 1);
    }
}

#[test]
fn dispatch_errors() {
    let bytes = v1().encode().unwrap();
    let mut marker = bytes.clone();
    marker[0x0d] = 0xd2;
    let errors: Vec<DispatchError> = vec![
        Known::decode("units", &bytes).unwrap_err(),
        Known::decode("b2nd", &[0x94]).unwrap_err(),
        Known::decode("b2nd", &marker).unwrap_err(),
    ];
    assert!(matches!(errors[0], DispatchError::UnknownName { .. }));
    assert!(matches!(errors[1], DispatchError::NoLayoutFits { .. }));
    let DispatchError::Decode(inner) = errors[2].clone() else {
        panic!("{:?}", errors[2])
    };
    for e in &errors {
        assert_not_repeated("DispatchError", e);
    }
    // The decoder's error is shown once: as the message, not again as the source.
    assert_eq!(chain(&errors[2]), [inner.to_string()]);
    // The unknown name is in the message.
    assert!(errors[0].to_string().contains(r#""units""#), "{}", errors[0]);
}

#[test]
fn frame_errors() {
    let dir = std::env::temp_dir().join(format!("metalayer-error-chain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let missing = dir.join("missing.b2nd");
    let io = read_metalayers(&missing).unwrap_err();
    let not_sparse = read_metalayers(&dir).unwrap_err();
    std::fs::remove_dir(&dir).unwrap();

    assert!(matches!(io.kind(), FrameErrorKind::Io { .. }));
    // The path in the message, the reason in the source, each once.
    assert_eq!(assert_not_repeated("FrameError::Io", &io), 2);
    assert_eq!(chain(&io)[0], format!("cannot read {}", missing.display()));

    assert!(matches!(not_sparse.kind(), FrameErrorKind::NotSparseFrame { .. }));
    assert_eq!(assert_not_repeated("FrameError::NotSparseFrame", &not_sparse), 1);
    let bad_magic = parse_header(&[0; 24]).unwrap_err();
    assert_eq!(assert_not_repeated("FrameError::BadMagic", &bad_magic), 1);
}

#[test]
fn schema_errors() {
    let text = metalayer_layout::builtin("b2nd_v1")
        .unwrap()
        .text
        .replace("marker = 0xd3", "marker = 0xd2")
        .replace("marker = 0x97", "marker = 0x96");
    let errors = metalayer_layout::parse("b2nd_v1", &text).unwrap_err();
    assert!(errors.len() >= 2, "{errors}");
    assert_eq!(assert_not_repeated("Diagnostics", &errors), 1);
    for d in &errors {
        assert_eq!(assert_not_repeated("Diagnostic", d), 1);
    }

    // `?` into `Box<dyn Error>` works, and keeps every problem.
    fn parse_boxed(text: &str) -> Result<metalayer_layout::Layout, Box<dyn Error>> {
        Ok(metalayer_layout::parse("b2nd_v1", text)?)
    }
    let boxed = parse_boxed(&text).unwrap_err();
    assert_eq!(boxed.to_string().lines().count(), errors.len());
}
