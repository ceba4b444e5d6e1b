//! Every built-in layout in one enum, chosen from a metalayer's name and bytes.

use crate::b2nd::{B2ndV0, B2ndV1};
use crate::caterva::CatervaV0;
use crate::metalayer;

/// A `b2nd` or `caterva` metalayer in whichever layout wrote it.
///
/// [`Known::decode`] takes the metalayer's name and bytes and picks the layout from the bytes'
/// first byte (the container marker tells these apart), then decodes strictly with it:
/// - `b2nd`: [`B2ndV1`] (`0x97`, every release), [`B2ndV0`] (`0x96`, February 2023), or the
///   caterva layout that early c-blosc2 stored under the name `b2nd` (`0x95`);
/// - `caterva`: [`CatervaV0`].
///
/// c-blosc2's broken bytes of February 8th, 2023 (marker `0x96` with 7 entries) are an error.
///
/// Later versions add layouts as writers add them, so a `match` needs a `_` arm.
///
/// ```
/// use metalayer::b2nd::{B2ndV0, B2ndV1};
/// use metalayer::{DispatchError, Known};
///
/// let v1 = B2ndV1 { shape: vec![4], chunkshape: vec![2], blockshape: vec![1], dtype_format: 0, dtype: "<i4".into() };
/// let v0 = B2ndV0 { shape: vec![4], chunkshape: vec![2], blockshape: vec![1], dtype: "int32".into() };
///
/// // Encoding both, each in its own layout: 7 entries (0x97) and 6 (0x96).
/// let one = Known::B2ndV1(v1.clone()).encode().unwrap();
/// let zero = Known::B2ndV0(v0.clone()).encode().unwrap();
/// assert_eq!((one[0], zero[0]), (0x97, 0x96));
///
/// // Decoding both: the bytes choose the variant.
/// match Known::decode("b2nd", &one)? {
///     Known::B2ndV1(meta) => assert_eq!(meta, v1),
///     other => panic!("decoded as {}", other.schema()),
/// }
/// assert_eq!(Known::decode("b2nd", &zero)?, Known::B2ndV0(v0));
///
/// let err = Known::decode("b2nd", &[0x94]).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "no b2nd layout fits: at byte 0x00 b2nd_v1 expects 0x97, b2nd_v0 expects 0x96, caterva_v0 expects 0x95; found 0x94"
/// );
/// assert_eq!(
///     Known::decode("units", &[0xa0]).unwrap_err().to_string(),
///     r#"no known layout for the metalayer name "units"; known names: b2nd caterva"#
/// );
/// # Ok::<(), DispatchError>(())
/// ```
#[metalayer(dispatch)]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Known {
    /// `b2nd`, 7 entries.
    #[metalayer(schema = "b2nd_v1")]
    B2ndV1(B2ndV1),
    /// `b2nd`, 6 entries.
    #[metalayer(schema = "b2nd_v0")]
    B2ndV0(B2ndV0),
    /// The caterva layout under the name `b2nd` (c-blosc2, January 2023).
    #[metalayer(schema = "caterva_v0", name = "b2nd")]
    B2ndCaterva(CatervaV0),
    /// `caterva`.
    #[metalayer(schema = "caterva_v0")]
    Caterva(CatervaV0),
}

impl Known {
    /// The array's shape, whichever layout holds it.
    ///
    /// ```
    /// use metalayer::Known;
    ///
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files/blosc2-4/dtype_i4le.b2nd");
    /// let bytes = std::fs::read(path).unwrap();
    /// // The b2nd metalayer's content: 0x35 bytes at 0x70 (see `metalayer::frame::FrameMetalayer`).
    /// let meta = Known::decode("b2nd", &bytes[0x70..0x70 + 0x35])?;
    /// // python-blosc2 wrote it with shape (3, 4), chunks (2, 2) and blocks (1, 2).
    /// assert_eq!((meta.shape(), meta.chunks(), meta.blocks()), (&[3, 4][..], &[2, 2][..], &[1, 2][..]));
    /// assert_eq!((meta.ndim(), meta.dtype()), (2, Some("<i4")));
    /// # Ok::<(), metalayer::DispatchError>(())
    /// ```
    pub fn shape(&self) -> &[i64] {
        match self {
            Known::B2ndV1(m) => &m.shape,
            Known::B2ndV0(m) => &m.shape,
            Known::B2ndCaterva(m) | Known::Caterva(m) => &m.shape,
        }
    }

    /// The shape of each chunk (`chunkshape`).
    pub fn chunks(&self) -> &[i32] {
        match self {
            Known::B2ndV1(m) => &m.chunkshape,
            Known::B2ndV0(m) => &m.chunkshape,
            Known::B2ndCaterva(m) | Known::Caterva(m) => &m.chunkshape,
        }
    }

    /// The shape of each block (`blockshape`).
    pub fn blocks(&self) -> &[i32] {
        match self {
            Known::B2ndV1(m) => &m.blockshape,
            Known::B2ndV0(m) => &m.blockshape,
            Known::B2ndCaterva(m) | Known::Caterva(m) => &m.blockshape,
        }
    }

    /// The number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape().len()
    }

    /// The dtype as stored: NumPy's `dtype.str` in `b2nd` (`"<i4"`), NumPy's repr in the
    /// short-lived 6-entry layout (`"int32"`); `None` for the caterva layout, which has none.
    ///
    /// ```
    /// use metalayer::Known;
    /// use metalayer::caterva::CatervaV0;
    ///
    /// let caterva = Known::Caterva(CatervaV0 { shape: vec![4], chunkshape: vec![2], blockshape: vec![1] });
    /// assert_eq!((caterva.dtype(), caterva.shape()), (None, &[4][..]));
    /// ```
    pub fn dtype(&self) -> Option<&str> {
        match self {
            Known::B2ndV1(m) => Some(&m.dtype),
            Known::B2ndV0(m) => Some(&m.dtype),
            Known::B2ndCaterva(_) | Known::Caterva(_) => None,
        }
    }
}
