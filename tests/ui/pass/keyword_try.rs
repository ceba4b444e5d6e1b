// A count entry named `try`: the generated length formulas take `r#try`, and the struct
// encodes and decodes.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/keyword_try.toml")]
#[derive(Debug, PartialEq)]
pub struct Tries {
    pub shape: Vec<i64>,
}

fn main() {
    let value = Tries { shape: vec![1, -2] };
    let bytes = value.encode().unwrap();
    #[rustfmt::skip]
    let expected = [
        0x92,                                           // fixarray of 2
        0x02,                                           // try: 2
        0x92,                                           // shape: fixarray of 2
        0xd3, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, // int64 1
        0xd3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, // int64 -2
    ];
    assert_eq!(bytes, expected);
    assert_eq!(Tries::decode(&bytes).unwrap(), value);
    let r#try = 2;
    assert_eq!(Tries::encoded_len_for(r#try), expected.len());
    assert_eq!(Tries::shape_element_offset(r#try, 1), 12);
}
