//! The Blosc2 chunk decoder of variable-length metalayers on any bytes: it decompresses to
//! exactly the `nbytes` the header states, never more than the limit, or names an offset inside
//! the chunk; it never panics; a block at a time, it gives the same bytes or the same error. The
//! first byte picks the limit, so that small limits are met too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use metalayer::vlmeta::{ChunkError, ChunkHeader, DEFAULT_LIMIT, decompress, decompress_blocks};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, chunk)) = data.split_first() else {
        return;
    };
    let limit = match selector % 3 {
        0 => DEFAULT_LIMIT,
        1 => 1 << 16,
        _ => usize::from(selector),
    };
    let whole = decompress(chunk, limit);
    let mut joined = Vec::new();
    let blocks = decompress_blocks(chunk, limit, |piece: &[u8]| {
        joined.extend_from_slice(piece);
        Ok::<(), ChunkError>(())
    });
    assert_eq!(blocks.map(|()| joined), whole);
    match whole {
        Ok(bytes) => {
            let header = ChunkHeader::parse(chunk).expect("a chunk that decompresses has a header");
            assert_eq!(bytes.len(), header.nbytes);
            assert!(bytes.len() <= limit);
            assert_eq!(header.cbytes, chunk.len());
        }
        Err(err) => {
            assert!(err.offset <= chunk.len(), "{err}");
            let _ = err.to_string();
        }
    }
});
