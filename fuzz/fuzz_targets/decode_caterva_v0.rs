//! The caterva_v0 decoder, with owned, fixed-capacity and fixed-length field types.
#![no_main]

use arrayvec::ArrayVec;
use libfuzzer_sys::fuzz_target;
use metalayer::caterva::CatervaV0;
use metalayer::metalayer;
use metalayer_fuzz::{check_prefix, check_roundtrip};

#[metalayer(schema = "caterva_v0")]
struct Capacity {
    shape: ArrayVec<i64, 8>,
    chunkshape: ArrayVec<i32, 8>,
    blockshape: ArrayVec<i32, 8>,
}

#[metalayer(schema = "caterva_v0")]
struct ThreeDims {
    shape: [i64; 3],
    chunkshape: [i32; 3],
    blockshape: [i32; 3],
}

fuzz_target!(|data: &[u8]| {
    let owned = check_roundtrip::<CatervaV0>(data);
    let capacity = check_roundtrip::<Capacity>(data);
    assert_eq!(owned, capacity, "owned and fixed-capacity decoders disagree");
    if check_roundtrip::<ThreeDims>(data) {
        assert!(owned && data.get(2) == Some(&3));
    }
    check_prefix::<CatervaV0>(data);
});
