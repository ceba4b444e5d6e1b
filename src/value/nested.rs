//! What a value written inside a frame's report asks of that report: the report implements
//! [`Nested`], so that values are written without knowing reports.

use std::convert::Infallible;
use std::ops::Range;

use serde::ser::SerializeMap;

/// A frame held in an ext 42 of a value, to be shown after the value's line.
#[derive(Debug, Clone)]
pub(crate) struct Queued {
    /// The ext's offset in the item's bytes.
    pub at: usize,
    /// Where the frame's bytes are in the item's bytes.
    pub data: Range<usize>,
    /// How deep the frame is.
    pub depth: usize,
}

/// The report a value is written in: where its errors are noted and its frames reported.
pub(crate) trait Nested {
    /// Notes an error at the report's current place.
    fn error(&self, message: &str);

    /// Notes a frame a text line's value holds, to show it after the line.
    fn queue_frame(&self, frame: Queued);

    /// The entries of an ext 42 that holds a frame, `depth` levels down, at byte `at` of its
    /// value: `"frame"` with the frame's report, or `"data"` (its bytes) and `"error"`. With
    /// `hex`, `"data"` comes before `"frame"` too.
    fn nested_frame_entry<M: SerializeMap>(
        &self,
        map: &mut M,
        data: &[u8],
        at: usize,
        depth: usize,
        hex: bool,
    ) -> Result<(), M::Error>;
}

/// A value on its own, in no report: there is no such report, so a value of this kind never
/// asks one anything.
impl Nested for Infallible {
    fn error(&self, _: &str) {
        match *self {}
    }

    fn queue_frame(&self, _: Queued) {
        match *self {}
    }

    fn nested_frame_entry<M: SerializeMap>(
        &self,
        _: &mut M,
        _: &[u8],
        _: usize,
        _: usize,
        _: bool,
    ) -> Result<(), M::Error> {
        match *self {}
    }
}
