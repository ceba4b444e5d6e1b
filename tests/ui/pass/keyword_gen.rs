// A string entry named `gen` (a keyword in this crate's edition, 2024): the field is `r#gen`,
// the length formulas take `gen_len`, and the struct encodes and decodes.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/keyword_gen.toml")]
#[derive(Debug, PartialEq)]
pub struct Generation {
    pub r#gen: String,
}

fn main() {
    let value = Generation { r#gen: "abc".into() };
    let bytes = value.encode().unwrap();
    // fixarray of 2, version 1, str8 of 3 bytes.
    assert_eq!(bytes, [0x92, 0x01, 0xd9, 0x03, b'a', b'b', b'c']);
    assert_eq!(Generation::decode(&bytes).unwrap(), value);
    assert_eq!(Generation::encoded_len_for(3), 7);
    assert_eq!(Generation::gen_offset(3), 2);
}
