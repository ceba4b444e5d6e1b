//! Values of an edit given as JSON: encoded with a [`Layout`] read at run time, or packed as
//! plain msgpack (feature `value`).

use std::string::String;

use metalayer_layout::Layout;
use serde_json::Value;

use super::Edit;
use crate::value::{EncodeFailure, encode, pack};

/// The bytes of a JSON value: with `layout` when there is one, else plain msgpack.
fn bytes_of(layout: Option<&Layout>, json: &Value) -> Result<std::vec::Vec<u8>, EncodeFailure> {
    match layout {
        Some(layout) => encode(layout, json),
        None => pack(json),
    }
}

impl Edit {
    /// Sets the metalayer `name` to `json` encoded with `layout` (see the value module's JSON
    /// conventions), or packed as plain msgpack when `layout` is `None`.
    ///
    /// ```
    /// use metalayer::frame::{edit::Edit, Frame};
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
    /// let frame = std::fs::read(path).unwrap();
    /// // "scale" holds the msgpack int 3 (one byte, 0x03): 7 fits in it.
    /// let edited = Edit::new().meta_json("scale", None, &metalayer::serde_json::json!(7))?.apply(&frame)?;
    /// assert_eq!(Frame::parse(&edited.frame)?.metalayers[2].content, [0x07]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn meta_json(
        self,
        name: impl Into<String>,
        layout: Option<&Layout>,
        json: &Value,
    ) -> Result<Edit, EncodeFailure> {
        Ok(self.meta(name, bytes_of(layout, json)?))
    }

    /// Sets the vlmetalayer `name` to `json` encoded with `layout`, or packed as plain msgpack
    /// (as python-blosc2 stores its vlmeta values) when `layout` is `None`.
    ///
    /// ```
    /// use metalayer::frame::{edit::Edit, Frame};
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/meta_user.b2nd");
    /// let frame = std::fs::read(path).unwrap();
    /// let json = metalayer::serde_json::json!({"by": "calibration", "run": 12});
    /// let edited = Edit::new().vlmeta_json("provenance", None, &json)?.apply(&frame)?;
    /// let chunk = &Frame::parse(&edited.frame)?.vlmetalayers[0].content;
    /// let value = metalayer::vlmeta::decompress(chunk, 1 << 20)?;
    /// // python: msgpack.packb({"by": "calibration", "run": 12})
    /// assert_eq!(metalayer::value::json::hex(&value), "82a26279ab63616c6962726174696f6ea372756e0c");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn vlmeta_json(
        self,
        name: impl Into<String>,
        layout: Option<&Layout>,
        json: &Value,
    ) -> Result<Edit, EncodeFailure> {
        Ok(self.vlmeta(name, bytes_of(layout, json)?))
    }
}
