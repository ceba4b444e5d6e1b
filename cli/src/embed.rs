//! The frames an EmbedStore holds (a store's `embed.b2e`), read with `metalayer::store`: the
//! library tells an EmbedStore from its metalayers, reads where its map places each frame in
//! its data, and reads each frame there.

use std::path::PathBuf;

use metalayer::report::Reading;
use metalayer::store::{Entry, Store, is_embed_store};

use crate::output::chain;
use crate::walk::Source;

/// Whether a frame read is an EmbedStore's.
pub fn holds_frames(reading: &Reading) -> bool {
    match reading {
        Reading::Bytes(bytes) => bytes
            .frame()
            .is_ok_and(|f| is_embed_store(f.metalayers.iter().map(|m| m.name))),
        Reading::Whole(frame) => is_embed_store(frame.metalayers.iter().map(|m| &m.name)),
        Reading::Header { metalayers, .. } => is_embed_store(metalayers.iter().map(|m| &m.name)),
    }
}

/// One frame held by an EmbedStore.
pub struct Embedded {
    /// `.../embed.b2e/key` (the key starts with `/`).
    pub path: PathBuf,
    /// The frame, or why it cannot be read (the message names the EmbedStore's path and offset).
    pub reading: Result<Reading, String>,
}

/// The EmbedStore `source`, opened: a frame file, or a member of a `.b2z`.
fn open(source: &Source) -> Result<Store, String> {
    match source {
        Source::File(path) => Store::open_embed(path),
        Source::Member {
            path,
            store,
            offset,
            len,
        } => Store::open_embed_in(store, *offset, *len, path.clone()),
        _ => {
            return Err(format!(
                "{}: the frames an EmbedStore holds are read from contiguous files and store members only",
                source.shown()
            ));
        }
    }
    .map_err(|e| e.to_string())
}

/// The frames held by the EmbedStore `source`, in the order of its keys. `Err` when its map or
/// its data cannot be read (the message names the path and the byte).
pub fn embedded(source: &Source) -> Result<Vec<Embedded>, String> {
    let store = open(source)?;
    Ok(store
        .entries()
        .iter()
        .map(|entry| match entry {
            Entry::Member(m) => Embedded {
                path: store.member_path(m),
                reading: store.read_frame(m).map(Reading::Bytes).map_err(|e| {
                    format!(
                        "the embedded frame at byte {} of {}'s data: {}",
                        m.place.offset(),
                        source.shown(),
                        chain(&e)
                    )
                }),
            },
            Entry::Refused { raw_name, message, .. } => Embedded {
                path: store.entry_path(raw_name),
                reading: Err(message.clone()),
            },
        })
        .collect())
}
