//! Choosing a layout from a metalayer's name and bytes, for the dispatch enums that
//! `#[metalayer(dispatch)]` generates.

use core::fmt;

use crate::error::DecodeError;

/// One layout a dispatch enum can decode: its schema, the metalayer name it is stored under,
/// and the bytes its fixed prefix accepts, one inclusive range per offset.
///
/// ```
/// use metalayer_runtime::Candidate;
///
/// // A layout that starts 0x97 0x00 then a fixint in 0..=16.
/// let c = Candidate { schema: "b2nd_v1", metalayer: "b2nd", prefix: &[(0x97, 0x97), (0, 0), (0, 16)] };
/// assert!(c.accepts(&[0x97, 0x00, 0x02, 0xff]));
/// assert!(!c.accepts(&[0x96]));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    /// The schema (`b2nd_v1`).
    pub schema: &'static str,
    /// The metalayer name it is stored under (`b2nd`).
    pub metalayer: &'static str,
    /// For each offset of the fixed prefix, the bytes the layout accepts there.
    pub prefix: &'static [(u8, u8)],
}

impl Candidate {
    /// Whether `input` fits the fixed prefix (a short input fits as far as it goes).
    ///
    /// ```
    /// use metalayer_runtime::Candidate;
    ///
    /// let c = Candidate { schema: "s", metalayer: "m", prefix: &[(0x95, 0x95), (0, 0)] };
    /// assert!(c.accepts(&[0x95]));
    /// ```
    pub fn accepts(&self, input: &[u8]) -> bool {
        self.prefix.iter().zip(input).all(|(&(lo, hi), &b)| lo <= b && b <= hi)
    }
}

/// A metalayer name as a [`DispatchError`] keeps it, without allocating: up to
/// [`MetalayerName::CAPACITY`] bytes, as many as c-blosc2 stores. A longer name is cut at the
/// last character boundary that fits, and shown with `...` after it.
///
/// ```
/// use metalayer_runtime::MetalayerName;
///
/// let name = MetalayerName::new("units");
/// assert_eq!((name.as_str(), name.is_cut()), ("units", false));
/// assert_eq!(format!("{name:?}"), r#""units""#);
///
/// let long = MetalayerName::new(&"é".repeat(20));
/// assert_eq!((long.as_str().len(), long.is_cut()), (30, true));
/// assert_eq!(long.to_string(), format!("{}...", "é".repeat(15)));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct MetalayerName {
    bytes: [u8; MetalayerName::CAPACITY],
    len: u8,
    cut: bool,
}

impl MetalayerName {
    /// The most bytes kept: c-blosc2 stores names of at most 31 bytes (a msgpack fixstr).
    ///
    /// ```
    /// assert_eq!(metalayer_runtime::MetalayerName::CAPACITY, 31);
    /// ```
    pub const CAPACITY: usize = 31;

    /// Keeps `name`, or as much of it as fits.
    ///
    /// ```
    /// assert_eq!(metalayer_runtime::MetalayerName::new("b2nd").as_str(), "b2nd");
    /// ```
    pub fn new(name: &str) -> Self {
        let mut len = name.len().min(Self::CAPACITY);
        while !name.is_char_boundary(len) {
            len -= 1;
        }
        let mut bytes = [0; Self::CAPACITY];
        bytes[..len].copy_from_slice(&name.as_bytes()[..len]);
        MetalayerName {
            bytes,
            len: len as u8,
            cut: len < name.len(),
        }
    }

    /// The name, or its start if it was longer than [`MetalayerName::CAPACITY`] bytes.
    ///
    /// ```
    /// let name = metalayer_runtime::MetalayerName::new(&"x".repeat(40));
    /// assert_eq!(name.as_str(), "x".repeat(31));
    /// ```
    pub fn as_str(&self) -> &str {
        // The bytes end at a character boundary of a `str`, so they are UTF-8.
        core::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }

    /// Whether the name was longer than [`MetalayerName::CAPACITY`] bytes and was cut.
    ///
    /// ```
    /// use metalayer_runtime::MetalayerName;
    ///
    /// assert!(!MetalayerName::new(&"x".repeat(31)).is_cut());
    /// assert!(MetalayerName::new(&"x".repeat(32)).is_cut());
    /// ```
    pub const fn is_cut(&self) -> bool {
        self.cut
    }
}

impl fmt::Display for MetalayerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())?;
        if self.cut {
            f.write_str("...")?;
        }
        Ok(())
    }
}

impl fmt::Debug for MetalayerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)?;
        if self.cut {
            f.write_str("...")?;
        }
        Ok(())
    }
}

/// Why a dispatch enum could not decode a metalayer.
///
/// ```
/// use metalayer_runtime::{Candidate, DispatchError, select};
///
/// static CANDIDATES: [Candidate; 1] = [Candidate { schema: "b2nd_v1", metalayer: "b2nd", prefix: &[(0x97, 0x97)] }];
/// let err = select(&CANDIDATES, "units", &[0xa6]).unwrap_err();
/// assert!(matches!(err, DispatchError::UnknownName { name, .. } if name.as_str() == "units"));
/// assert_eq!(err.to_string(), r#"no known layout for the metalayer name "units"; known names: b2nd"#);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DispatchError {
    /// No layout of the enum is stored under this metalayer name.
    UnknownName {
        /// The name asked for.
        name: MetalayerName,
        /// The enum's candidates.
        candidates: &'static [Candidate],
    },
    /// No layout's fixed prefix fits the bytes, and the bytes do not single one out: no layout
    /// fits their first byte, or the layouts that fit them furthest all refuse the byte at the
    /// same offset.
    NoLayoutFits {
        /// The metalayer name.
        metalayer: &'static str,
        /// Where the layouts that fit the bytes furthest refuse them.
        offset: usize,
        /// The byte there, if the input is that long.
        found: Option<u8>,
        /// The enum's candidates (those under other names are not shown).
        candidates: &'static [Candidate],
    },
    /// The layout was chosen from its prefix, and its decoder failed. The error is shown as the
    /// decoder's error, which names the layout: its message is this error's message, and it is
    /// not returned again by `source()`.
    Decode(DecodeError),
}

impl fmt::Display for DispatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DispatchError::UnknownName { name, candidates } => {
                write!(f, "no known layout for the metalayer name {name:?}; known names:")?;
                for (i, c) in candidates.iter().enumerate() {
                    if candidates[..i].iter().all(|o| o.metalayer != c.metalayer) {
                        write!(f, " {}", c.metalayer)?;
                    }
                }
                Ok(())
            }
            DispatchError::NoLayoutFits {
                metalayer,
                offset,
                found,
                candidates,
            } => {
                write!(f, "no {metalayer} layout fits: at byte {offset:#04x}")?;
                let mut first = true;
                for c in candidates.iter().filter(|c| c.metalayer == *metalayer) {
                    let sep = if first { " " } else { ", " };
                    first = false;
                    match c.prefix.get(*offset) {
                        Some(&(lo, hi)) if lo == hi => write!(f, "{sep}{} expects {lo:#04x}", c.schema)?,
                        Some(&(lo, hi)) => write!(f, "{sep}{} expects {lo:#04x}..={hi:#04x}", c.schema)?,
                        None => write!(f, "{sep}{} expects any byte", c.schema)?,
                    }
                }
                match found {
                    Some(b) => write!(f, "; found {b:#04x}"),
                    None => f.write_str("; found the end of the input"),
                }
            }
            DispatchError::Decode(e) => fmt::Display::fmt(e, f),
        }
    }
}

impl core::error::Error for DispatchError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            // Transparent: the message is the decoder error's, so its source is this one's.
            DispatchError::Decode(e) => core::error::Error::source(e),
            _ => None,
        }
    }
}

impl From<DecodeError> for DispatchError {
    fn from(e: DecodeError) -> Self {
        DispatchError::Decode(e)
    }
}

/// Picks the candidate stored under `metalayer` whose fixed prefix fits `input`.
///
/// Dispatch enums are checked at compile time so that no two candidates under one name accept
/// the same prefix; the first that fits is the only one. When none fits, the candidate that fits
/// the longest start of `input`, at least its first byte, is picked if it is the only one that
/// fits that far: the bytes single it out, and its strict decoder then says what is wrong.
/// Otherwise the error names the offset where the candidates that fit furthest all refuse the
/// input.
///
/// ```
/// use metalayer_runtime::{Candidate, select};
///
/// static CANDIDATES: [Candidate; 2] = [
///     Candidate { schema: "b2nd_v1", metalayer: "b2nd", prefix: &[(0x97, 0x97), (0, 0)] },
///     Candidate { schema: "b2nd_v0", metalayer: "b2nd", prefix: &[(0x96, 0x96), (0, 0)] },
/// ];
/// assert_eq!(select(&CANDIDATES, "b2nd", &[0x96, 0x00]), Ok(1));
/// assert_eq!(
///     select(&CANDIDATES, "b2nd", &[0x95]).unwrap_err().to_string(),
///     "no b2nd layout fits: at byte 0x00 b2nd_v1 expects 0x97, b2nd_v0 expects 0x96; found 0x95"
/// );
/// // 0x96 singles out b2nd_v0, whose decoder reports the byte after it.
/// assert_eq!(select(&CANDIDATES, "b2nd", &[0x96, 0x01]), Ok(1));
/// ```
pub fn select(candidates: &'static [Candidate], metalayer: &str, input: &[u8]) -> Result<usize, DispatchError> {
    // The candidate that fits the longest start of the input, where it refuses the input, and
    // whether another candidate fits as far.
    let mut best: Option<(usize, usize)> = None;
    let mut tied = false;
    for (i, c) in candidates.iter().enumerate().filter(|(_, c)| c.metalayer == metalayer) {
        let Some(refused_at) = c.prefix.iter().zip(input).position(|(&(lo, hi), &b)| b < lo || b > hi) else {
            return Ok(i);
        };
        match best {
            Some((at, _)) if refused_at < at => {}
            Some((at, _)) if refused_at == at => tied = true,
            _ => {
                best = Some((refused_at, i));
                tied = false;
            }
        }
    }
    let Some((offset, i)) = best else {
        return Err(DispatchError::UnknownName {
            name: MetalayerName::new(metalayer),
            candidates,
        });
    };
    if !tied && offset > 0 {
        return Ok(i);
    }
    Err(DispatchError::NoLayoutFits {
        metalayer: candidates[i].metalayer,
        offset,
        found: input.get(offset).copied(),
        candidates,
    })
}

/// Compares two strings in a `const` context (for compile-time checks in generated code).
///
/// ```
/// const SAME: bool = metalayer_runtime::str_eq("b2nd_v1", "b2nd_v1");
/// assert!(SAME);
/// assert!(!metalayer_runtime::str_eq("b2nd_v1", "b2nd_v0"));
/// ```
pub const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}
