//! Dispatch between the known layouts: the first byte picks the metalayer name, the rest is the
//! content. Whatever layout is chosen must re-encode to exactly the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use metalayer::{DispatchError, Known};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, content)) = data.split_first() else {
        return;
    };
    let name = match selector % 4 {
        0 | 1 => "b2nd",
        2 => "caterva",
        _ => "other",
    };
    match Known::decode(name, content) {
        Ok(known) => {
            assert_eq!(known.metalayer(), name);
            assert_eq!(known.encoded_len(), content.len());
            let mut buf = vec![0u8; content.len()];
            let n = known.encode_into(&mut buf).expect("a decoded value encodes");
            assert_eq!(&buf[..n], content, "{}: re-encodes to other bytes", known.schema());
        }
        Err(DispatchError::Decode(err)) => {
            assert!(err.offset() <= content.len());
            let _ = err.to_string();
        }
        Err(err) => {
            let _ = err.to_string();
        }
    }
});
