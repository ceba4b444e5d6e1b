//! The b2nd_v1 decoder, with owned, borrowed and fixed-capacity field types.
#![no_main]

use arrayvec::{ArrayString, ArrayVec};
use libfuzzer_sys::fuzz_target;
use metalayer::b2nd::B2ndV1;
use metalayer::metalayer;
use metalayer_fuzz::{check_prefix, check_roundtrip};

#[metalayer(schema = "b2nd_v1")]
struct Borrowed<'a> {
    shape: ArrayVec<i64, 16>,
    chunkshape: ArrayVec<i32, 16>,
    blockshape: ArrayVec<i32, 16>,
    dtype_format: u8,
    dtype: &'a str,
}

#[metalayer(schema = "b2nd_v1")]
struct Fixed {
    shape: ArrayVec<i64, 4>,
    chunkshape: ArrayVec<i32, 4>,
    blockshape: ArrayVec<i32, 4>,
    dtype_format: u8,
    dtype: ArrayString<8>,
}

fuzz_target!(|data: &[u8]| {
    let owned = check_roundtrip::<B2ndV1>(data);
    let borrowed = check_roundtrip::<Borrowed>(data);
    assert_eq!(owned, borrowed, "owned and borrowed decoders disagree");
    // The small capacities may refuse what the others accept, never the other way round.
    if check_roundtrip::<Fixed>(data) {
        assert!(owned);
    }
    check_prefix::<B2ndV1>(data);
});
