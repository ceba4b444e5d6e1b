//! The frame reader: the header length from the fixed prefix, and the metalayers from a header.
#![no_main]

use libfuzzer_sys::fuzz_target;
use metalayer::frame::{MAX_HEADER_LEN, MAX_METALAYERS, MIN_HEADER_LEN, header_len, parse_header};

fuzz_target!(|data: &[u8]| {
    match header_len(data) {
        Ok(len) => assert!((MIN_HEADER_LEN..=MAX_HEADER_LEN).contains(&len)),
        Err(err) => {
            let _ = err.to_string();
        }
    }
    match parse_header(data) {
        Ok(layers) => {
            assert!(layers.len() <= MAX_METALAYERS);
            for layer in &layers {
                // The content is a slice of the header, at the offset reported.
                let start = usize::try_from(layer.offset).expect("offset fits");
                assert_eq!(data.get(start..start + layer.content.len()), Some(&layer.content[..]));
            }
        }
        Err(err) => {
            let _ = err.to_string();
        }
    }
});
