//! The b2nd_v0 decoder, with owned and borrowed field types.
#![no_main]

use arrayvec::ArrayVec;
use libfuzzer_sys::fuzz_target;
use metalayer::b2nd::B2ndV0;
use metalayer::metalayer;
use metalayer_fuzz::{check_prefix, check_roundtrip};

#[metalayer(schema = "b2nd_v0")]
struct Borrowed<'a> {
    shape: ArrayVec<i64, 8>,
    chunkshape: ArrayVec<i32, 8>,
    blockshape: ArrayVec<i32, 8>,
    dtype: &'a str,
}

fuzz_target!(|data: &[u8]| {
    let owned = check_roundtrip::<B2ndV0>(data);
    let borrowed = check_roundtrip::<Borrowed>(data);
    assert_eq!(owned, borrowed, "owned and borrowed decoders disagree");
    check_prefix::<B2ndV0>(data);
});
