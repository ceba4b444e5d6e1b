// An optional entry named `abstract`: the field is `r#abstract`, and the struct encodes and
// decodes with the entry present and absent.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/keyword_abstract.toml")]
#[derive(Debug, PartialEq)]
pub struct Summary {
    pub id: u8,
    pub r#abstract: Option<u16>,
}

fn main() {
    let value = Summary { id: 5, r#abstract: Some(0x1234) };
    let bytes = value.encode().unwrap();
    // fixarray of 2, fixint 5, uint16 0x1234.
    assert_eq!(bytes, [0x92, 0x05, 0xcd, 0x12, 0x34]);
    assert_eq!(Summary::decode(&bytes).unwrap(), value);
    let value = Summary { id: 5, r#abstract: None };
    let bytes = value.encode().unwrap();
    // fixarray of 1, fixint 5.
    assert_eq!(bytes, [0x91, 0x05]);
    assert_eq!(Summary::decode(&bytes).unwrap(), value);
}
