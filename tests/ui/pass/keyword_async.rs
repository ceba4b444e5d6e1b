// A map entry named `async`: the field is `r#async`, the key written is "async", and the
// struct encodes and decodes.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/keyword_async.toml")]
#[derive(Debug, PartialEq)]
pub struct Flags {
    pub r#async: bool,
}

fn main() {
    let value = Flags { r#async: true };
    let bytes = value.encode().unwrap();
    // fixmap of 1, fixstr "async", true.
    assert_eq!(bytes, [0x81, 0xa5, b'a', b's', b'y', b'n', b'c', 0xc3]);
    assert_eq!(Flags::decode(&bytes).unwrap(), value);
    let value = Flags { r#async: false };
    assert_eq!(Flags::decode(&value.encode().unwrap()).unwrap(), value);
}
