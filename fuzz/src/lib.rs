//! Shared checks of the fuzz targets: every input either gives a typed error, or decodes to a
//! value that encodes back to exactly the input (strict decoding is injective).

use metalayer::{Decode, Metalayer};

/// Decodes `data` as `T`; on success, checks that the value re-encodes to exactly `data`, both
/// through `encode_into` and through `encode`, and that `encoded_len` is right.
pub fn check_roundtrip<'de, T: Decode<'de> + Metalayer>(data: &'de [u8]) -> bool {
    match T::decode(data) {
        Ok(value) => {
            assert_eq!(
                value.encoded_len(),
                data.len(),
                "{}: encoded_len of a decoded value",
                T::SCHEMA
            );
            let mut buf = vec![0u8; data.len()];
            let n = value.encode_into(&mut buf).expect("a decoded value encodes");
            assert_eq!(
                &buf[..n],
                data,
                "{}: decoded value re-encodes to other bytes",
                T::SCHEMA
            );
            assert_eq!(value.encode().expect("a decoded value encodes"), data);
            true
        }
        Err(err) => {
            assert!(
                err.offset() <= data.len(),
                "{}: error offset {} past input {}",
                T::SCHEMA,
                err.offset(),
                data.len()
            );
            // Display must not panic either.
            let _ = err.to_string();
            false
        }
    }
}

/// Checks that the prefix decoder agrees with the whole-input decoder: it stops at the same
/// place a whole-input decode requires to be the end.
pub fn check_prefix<'de, T: Decode<'de> + Metalayer>(data: &'de [u8]) {
    if let Ok((value, used)) = T::decode_prefix(data) {
        assert!(used <= data.len());
        assert_eq!(value.encoded_len(), used, "{}: prefix length", T::SCHEMA);
        assert!(
            T::decode(&data[..used]).is_ok(),
            "{}: the decoded prefix decodes alone",
            T::SCHEMA
        );
    }
}
