//! The facts of the Blosc2 chunk format that both the chunk reader (`vlmeta`,
//! when built) and the chunk writer (`frame::edit`, when built) rely on.

/// The length of a Blosc2 (extended) chunk header.
pub(crate) const EXTENDED_HEADER_LEN: usize = 32;

/// c-blosc2's `BLOSC2_MAXBLOCKSIZE`: the largest block it accepts.
pub(crate) const MAX_BLOCKSIZE: usize = 536_866_816;
