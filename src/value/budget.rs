//! What one input may cost: levels, values, decompressed bytes held and decompression work,
//! counted across every level of it (msgpack nesting, ext payloads, nested frames) and every
//! time a content is reached, aliases included.

#[allow(unused_imports)]
use crate::std_prelude::*;

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use crate::vlmeta::{self, ChunkError, ChunkErrorKind, ChunkHeader};

/// The most levels one input is read through: msgpack arrays and maps, python-blosc2 ext
/// payloads and frames nested in values count together, and so do a layout's arrays, maps and
/// records. A schema's values nest at most [`metalayer::layout::NESTING_LIMIT`] levels, no more
/// than this limit: only a layout made deeper by hand reaches it through its records alone.
///
/// ```
/// assert_eq!(metalayer::value::DEPTH_LIMIT, 64);
/// ```
pub const DEPTH_LIMIT: usize = 64;

// Every value a checked schema describes can be read whole.
const _: () = assert!(DEPTH_LIMIT >= metalayer_layout::NESTING_LIMIT);

/// The most msgpack values one input is read through, each container and each element
/// counted, every time it is reached.
///
/// ```
/// assert_eq!(metalayer::value::VALUE_LIMIT, 16_777_216);
/// ```
pub const VALUE_LIMIT: usize = 1 << 24;

/// The most decompressed bytes one input holds at once. A vlmetalayer decompresses to at most
/// [`vlmeta::DEFAULT_LIMIT`] (64 MiB); frames nested in it hold theirs beside it.
///
/// ```
/// assert_eq!(metalayer::value::LIVE_LIMIT, 160 << 20);
/// ```
pub const LIVE_LIMIT: usize = 160 << 20;

/// The most work one input may take, in bytes worked through, however often the same bytes
/// are reached: each chunk decompressed costs its [`ChunkHeader::work`], each metalayer read
/// its length, each frame stored in a value is opened for [`ITEM_WORK`], and none of these
/// costs less than [`ITEM_WORK`].
///
/// ```
/// assert_eq!(metalayer::value::WORK_LIMIT, 1 << 30);
/// ```
pub const WORK_LIMIT: usize = 1 << 30;

/// The least work reading one metalayer, one vlmetalayer or one frame stored in a value costs:
/// what reporting it costs beyond its bytes. A file whose names all point at one small content
/// is bounded by it.
///
/// ```
/// use metalayer::value::{Budget, ITEM_WORK};
///
/// // Reading one byte costs as much as reading 16 KiB.
/// let budget = Budget::with_limits(0, 0, 2 * ITEM_WORK);
/// assert!(budget.read(1).is_ok());
/// assert!(budget.read(1).is_ok());
/// assert!(budget.read(1).is_err());
/// ```
pub const ITEM_WORK: usize = 16 << 10;

/// What one input (a file, with all the frames nested in it) may still cost. Views and reports
/// of one input share one budget; each input gets a new one.
///
/// ```
/// use metalayer::value::{Budget, VALUE_LIMIT};
///
/// let budget = Budget::new();
/// assert_eq!(budget.values_left(), VALUE_LIMIT);
/// ```
#[derive(Debug)]
pub struct Budget {
    values: Cell<usize>,
    live: Cell<usize>,
    work: Cell<usize>,
    limits: [usize; 3],
}

impl Default for Budget {
    fn default() -> Self {
        Budget::new()
    }
}

/// A limit of a [`Budget`].
///
/// ```
/// use metalayer::value::{Budget, Limit};
///
/// assert_eq!(Budget::new().limit(Limit::Live), 160 << 20);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Limit {
    /// [`DEPTH_LIMIT`] levels.
    Depth,
    /// The msgpack values ([`VALUE_LIMIT`]).
    Values,
    /// The decompressed bytes held at once ([`LIVE_LIMIT`]).
    Live,
    /// The decompression work ([`WORK_LIMIT`]).
    Work,
}

impl Budget {
    /// The budget of one input: [`VALUE_LIMIT`] values, [`LIVE_LIMIT`] bytes held, [`WORK_LIMIT`]
    /// bytes of work.
    pub fn new() -> Budget {
        Budget::with_limits(VALUE_LIMIT, LIVE_LIMIT, WORK_LIMIT)
    }

    /// A budget with other limits: `values` msgpack values, `live` decompressed bytes held at
    /// once, `work` bytes of decompression work.
    ///
    /// ```
    /// use metalayer::value::{Budget, Msgpack};
    ///
    /// // [1, 2, 3] is four values.
    /// let budget = Budget::with_limits(3, 0, 0);
    /// let err = Msgpack::new(b"\x93\x01\x02\x03", &budget).unwrap_err();
    /// assert_eq!(err.to_string(), "more than 3 msgpack values in this input");
    /// ```
    pub fn with_limits(values: usize, live: usize, work: usize) -> Budget {
        Budget {
            values: Cell::new(values),
            live: Cell::new(0),
            work: Cell::new(work),
            limits: [values, live, work],
        }
    }

    /// How many more msgpack values may be read.
    pub fn values_left(&self) -> usize {
        self.values.get()
    }

    /// Takes one value; `false` when none is left.
    pub(crate) fn take_value(&self) -> bool {
        match self.values.get().checked_sub(1) {
            Some(left) => {
                self.values.set(left);
                true
            }
            None => false,
        }
    }

    /// The number a limit of this budget stands at.
    ///
    /// ```
    /// use metalayer::value::{Budget, Limit, DEPTH_LIMIT, WORK_LIMIT};
    ///
    /// assert_eq!(Budget::new().limit(Limit::Work), WORK_LIMIT);
    /// assert_eq!(Budget::new().limit(Limit::Depth), DEPTH_LIMIT);
    /// ```
    pub fn limit(&self, limit: Limit) -> usize {
        match limit {
            Limit::Depth => DEPTH_LIMIT,
            Limit::Values => self.limits[0],
            Limit::Live => self.limits[1],
            Limit::Work => self.limits[2],
        }
    }

    /// Spends the work of reading `len` bytes (at least [`ITEM_WORK`]); an error when the budget
    /// cannot pay it.
    pub fn read(&self, len: usize) -> Result<(), DecompressError> {
        let work = len.max(ITEM_WORK);
        match self.work.get().checked_sub(work) {
            Some(left) => {
                self.work.set(left);
                Ok(())
            }
            None => Err(DecompressError::Budget {
                limit: Limit::Work,
                value: self.limits[2],
                nbytes: len,
            }),
        }
    }

    /// Holds `bytes` (read from a file, say) within the decompressed bytes one input may hold
    /// at once, until the [`Held`] is dropped; an error, and nothing held, when they do not fit.
    /// Check with [`room`](Self::room) before reading them.
    ///
    /// ```
    /// use metalayer::value::Budget;
    ///
    /// let budget = Budget::with_limits(0, 10, 0);
    /// assert!(budget.room(11).is_err());
    /// let held = budget.hold(vec![7; 6])?;
    /// assert!(budget.room(5).is_err());
    /// drop(held);
    /// assert!(budget.room(10).is_ok());
    /// # Ok::<(), metalayer::value::DecompressError>(())
    /// ```
    pub fn hold(&self, bytes: Vec<u8>) -> Result<Held<'_, 'static>, DecompressError> {
        self.room(bytes.len())?;
        self.live.set(self.live.get() + bytes.len());
        Ok(Held {
            budget: self,
            bytes: Cow::Owned(bytes),
        })
    }

    /// Whether `len` more bytes may be held at once.
    pub fn room(&self, len: usize) -> Result<(), DecompressError> {
        let live_left = self.limits[1].saturating_sub(self.live.get());
        if len > live_left {
            return Err(DecompressError::Budget {
                limit: Limit::Live,
                value: self.limits[1],
                nbytes: len,
            });
        }
        Ok(())
    }

    /// Decompresses a Blosc2 chunk (a vlmetalayer's) within this budget: its `nbytes` are held
    /// until the [`Held`] is dropped, and its work is spent for good. A memcpyed chunk is
    /// borrowed, not copied.
    pub fn decompress<'c>(&self, chunk: &'c [u8]) -> Result<Held<'_, 'c>, DecompressError> {
        let header = ChunkHeader::parse(chunk).map_err(DecompressError::Chunk)?;
        // A chunk over the 64 MiB any chunk may hold is refused by `decompress` itself, and a
        // memcpyed chunk's bytes are borrowed.
        let borrowed = header.memcpyed() && header.special() == Ok(vlmeta::Special::None);
        if !borrowed && header.nbytes <= vlmeta::DEFAULT_LIMIT {
            self.room(header.nbytes)?;
        }
        let work = header.work().max(ITEM_WORK);
        if work > self.work.get() {
            return Err(DecompressError::Budget {
                limit: Limit::Work,
                value: self.limits[2],
                nbytes: header.nbytes,
            });
        }
        let bytes = vlmeta::decompress_borrowed(chunk, vlmeta::DEFAULT_LIMIT).map_err(DecompressError::Chunk)?;
        self.work.set(self.work.get() - work);
        // Borrowed bytes (a memcpyed chunk's) take no memory of their own.
        self.live.set(self.live.get() + held_len(&bytes));
        Ok(Held { budget: self, bytes })
    }
}

/// Decompressed bytes, counted against their [`Budget`] while they are held.
///
/// ```
/// use metalayer::value::Budget;
///
/// let budget = Budget::with_limits(0, 8, 0);
/// let held = budget.hold(vec![1, 2, 3])?;
/// assert_eq!(&*held, [1, 2, 3]);
/// assert!(budget.room(6).is_err());
/// drop(held);
/// assert!(budget.room(8).is_ok());
/// # Ok::<(), metalayer::value::DecompressError>(())
/// ```
#[derive(Debug)]
pub struct Held<'b, 'c> {
    budget: &'b Budget,
    bytes: Cow<'c, [u8]>,
}

impl std::ops::Deref for Held<'_, '_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Drop for Held<'_, '_> {
    fn drop(&mut self) {
        let live = self.budget.live.get();
        self.budget.live.set(live.saturating_sub(held_len(&self.bytes)));
    }
}

/// The bytes decompressed bytes hold of their own: none when they are borrowed.
#[allow(clippy::ptr_arg)] // Whether they are borrowed is the question.
fn held_len(bytes: &Cow<'_, [u8]>) -> usize {
    match bytes {
        Cow::Borrowed(_) => 0,
        Cow::Owned(v) => v.len(),
    }
}

/// Why a chunk was not decompressed.
///
/// ```
/// use metalayer::value::Budget;
///
/// // A chunk header claiming 2^31 - 1 bytes, more than a chunk may hold.
/// let mut chunk = vec![5, 1, 0x07, 1];
/// chunk.extend_from_slice(&0x7fff_ffffu32.to_le_bytes()); // nbytes
/// chunk.extend_from_slice(&65536u32.to_le_bytes()); // blocksize
/// chunk.extend_from_slice(&32u32.to_le_bytes()); // cbytes
/// chunk.extend_from_slice(&[0, 0, 0, 0, 0, 1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
/// let err = Budget::new().decompress(&chunk).unwrap_err();
/// assert!(err.is_limit(), "{err}");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecompressError {
    /// The chunk is not one this crate decompresses.
    Chunk(ChunkError),
    /// Decompressing it would pass a limit of the input's budget.
    Budget {
        /// Which.
        limit: Limit,
        /// The limit's value.
        value: usize,
        /// The chunk's `nbytes`.
        nbytes: usize,
    },
}

impl fmt::Display for DecompressError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecompressError::Chunk(e) => fmt::Display::fmt(e, f),
            DecompressError::Budget { limit, value, nbytes } => match limit {
                Limit::Work => write!(
                    f,
                    "not read: its {nbytes} bytes would pass the {value} bytes of work one input may take"
                ),
                _ => write!(
                    f,
                    "not decompressed: its {nbytes} bytes would pass the {value} decompressed bytes one input may hold at once"
                ),
            },
        }
    }
}

impl std::error::Error for DecompressError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            // The chunk's error is this one's text.
            DecompressError::Chunk(e) => std::error::Error::source(e),
            DecompressError::Budget { .. } => None,
        }
    }
}

impl DecompressError {
    /// Whether a limit (of the budget, or the 64 MiB a chunk may hold) refused the chunk.
    pub fn is_limit(&self) -> bool {
        match self {
            DecompressError::Budget { .. } => true,
            DecompressError::Chunk(e) => matches!(e.kind, ChunkErrorKind::Limit { .. }),
        }
    }
}
