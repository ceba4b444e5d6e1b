// A count entry named `i`: the element offset function takes the count as `i` and the element
// index as `i_`.
use metalayer::prelude::*;

#[metalayer(schema_path = "tests/ui/schemas/count_named_i.toml")]
#[derive(Debug, PartialEq)]
pub struct Counted {
    pub shape: Vec<i32>,
}

fn main() {
    let value = Counted { shape: vec![7, -7] };
    let bytes = value.encode().unwrap();
    // fixarray of 2, i: 2, fixarray of 2, int32 7, int32 -7.
    assert_eq!(bytes, [0x92, 0x02, 0x92, 0xd2, 0, 0, 0, 7, 0xd2, 0xff, 0xff, 0xff, 0xf9]);
    assert_eq!(Counted::decode(&bytes).unwrap(), value);
    assert_eq!(Counted::encoded_len_for(2), 13);
    assert_eq!(Counted::shape_element_offset(2, 1), 8);
}
