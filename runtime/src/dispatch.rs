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

/// Why a dispatch enum could not decode a metalayer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DispatchError {
    /// No layout of the enum is stored under this metalayer name.
    UnknownName {
        /// The enum's candidates.
        candidates: &'static [Candidate],
    },
    /// No layout's fixed prefix fits the bytes.
    NoLayoutFits {
        /// The metalayer name.
        metalayer: &'static str,
        /// The first offset where the candidates' expectations differ.
        offset: usize,
        /// The byte there, if the input is that long.
        found: Option<u8>,
        /// The enum's candidates (those under other names are not shown).
        candidates: &'static [Candidate],
    },
    /// The layout was chosen from its prefix, and its decoder failed.
    Decode(DecodeError),
}

impl fmt::Display for DispatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DispatchError::UnknownName { candidates } => {
                f.write_str("no known layout for this metalayer name; known names:")?;
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
            DispatchError::Decode(e) => Some(e),
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
/// the same prefix; the first that fits is the only one.
///
/// ```
/// use metalayer_runtime::{Candidate, select};
///
/// static CANDIDATES: [Candidate; 2] = [
///     Candidate { schema: "b2nd_v1", metalayer: "b2nd", prefix: &[(0x97, 0x97)] },
///     Candidate { schema: "b2nd_v0", metalayer: "b2nd", prefix: &[(0x96, 0x96)] },
/// ];
/// assert_eq!(select(&CANDIDATES, "b2nd", &[0x96, 0x00]), Ok(1));
/// assert_eq!(
///     select(&CANDIDATES, "b2nd", &[0x95]).unwrap_err().to_string(),
///     "no b2nd layout fits: at byte 0x00 b2nd_v1 expects 0x97, b2nd_v0 expects 0x96; found 0x95"
/// );
/// ```
pub fn select(candidates: &'static [Candidate], metalayer: &str, input: &[u8]) -> Result<usize, DispatchError> {
    let mut named = candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| c.metalayer == metalayer)
        .peekable();
    let Some(&(_, first)) = named.peek() else {
        return Err(DispatchError::UnknownName { candidates });
    };
    let mut longest = 0;
    for (i, c) in named.clone() {
        if c.accepts(input) {
            return Ok(i);
        }
        longest = longest.max(c.prefix.len());
    }
    // The first offset where the candidates' expectations are not all the same.
    let offset = (0..longest)
        .find(|&o| named.clone().any(|(_, c)| c.prefix.get(o) != first.prefix.get(o)))
        .unwrap_or(0);
    Err(DispatchError::NoLayoutFits {
        metalayer: first.metalayer,
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
