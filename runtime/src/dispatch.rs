//! Choosing a layout from a metalayer's name and bytes, for the dispatch enums that
//! `#[metalayer(dispatch)]` generates.

use core::fmt;

use crate::error::DecodeError;
use crate::wire::Wire;

/// One step of what a dispatcher checks of an input for one layout: the layouts stored under
/// one name are walked side by side, so that step `i` of each stands at the same byte of any
/// input (`metalayer_layout::probes` computes them from the layouts). Byte sets are inclusive
/// ranges; `entry` is the entry the step belongs to (empty for the top-level value).
///
/// ```
/// use metalayer_runtime::Probe;
///
/// // A fixmap of 1, the key "a", then any msgpack value, then 1 or 2.
/// static STEPS: [Probe; 5] = [
///     Probe::Byte { bytes: &[(0x81, 0x81)], entry: "" },
///     Probe::Byte { bytes: &[(0xa1, 0xa1)], entry: "a" },
///     Probe::Byte { bytes: &[(b'a', b'a')], entry: "a" },
///     Probe::Value { first: &[(0x00, 0xff)], entry: "a" },
///     Probe::Byte { bytes: &[(0x01, 0x02)], entry: "b" },
/// ];
/// assert_eq!(STEPS[4].to_string(), "0x01..=0x02");
/// assert_eq!(Probe::Byte { bytes: &[(0x00, 0x7f), (0xcc, 0xcc)], entry: "" }.to_string(), "0x00..=0x7f or 0xcc");
/// assert_eq!(Probe::End.to_string(), "the end of the input");
/// ```
pub type Probe = ProbeOf<'static>;

/// A [`Probe`] whose byte sets and entry name are borrowed for `'c` rather than `'static`: the
/// probe of a layout read at run time, held by whatever holds the layout.
///
/// ```
/// use metalayer_runtime::ProbeOf;
///
/// let entry = String::from("ndim");
/// let bytes = vec![(0x00, 0x10)];
/// let step = ProbeOf::Byte { bytes: &bytes, entry: &entry };
/// assert_eq!((step.entry(), step.to_string()), ("ndim", "0x00..=0x10".to_owned()));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeOf<'c> {
    /// One byte, in one of these ranges.
    Byte {
        /// The bytes accepted.
        bytes: &'c [(u8, u8)],
        /// The entry.
        entry: &'c str,
    },
    /// One whole msgpack value, whose first byte is in one of these ranges; its header says
    /// where it ends.
    Value {
        /// The first bytes accepted.
        first: &'c [(u8, u8)],
        /// The entry.
        entry: &'c str,
    },
    /// The end of the input.
    End,
}

impl<'c> ProbeOf<'c> {
    /// The entry the step belongs to (empty for the top-level value and the end).
    ///
    /// ```
    /// use metalayer_runtime::Probe;
    ///
    /// assert_eq!(Probe::Byte { bytes: &[(0, 8)], entry: "ndim" }.entry(), "ndim");
    /// assert_eq!(Probe::End.entry(), "");
    /// ```
    pub const fn entry(&self) -> &'c str {
        match self {
            ProbeOf::Byte { entry, .. } | ProbeOf::Value { entry, .. } => entry,
            ProbeOf::End => "",
        }
    }
}

impl fmt::Display for ProbeOf<'_> {
    /// What the step expects at its byte: `0x97`, `0x90..=0xa0`, `0x00..=0x7f or 0xcc`, or
    /// `the end of the input`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (ProbeOf::Byte { bytes: ranges, .. } | ProbeOf::Value { first: ranges, .. }) = self else {
            return f.write_str("the end of the input");
        };
        for (i, &(lo, hi)) in ranges.iter().enumerate() {
            if i > 0 {
                f.write_str(" or ")?;
            }
            if lo == hi {
                write!(f, "{lo:#04x}")?;
            } else {
                write!(f, "{lo:#04x}..={hi:#04x}")?;
            }
        }
        Ok(())
    }
}

/// How far an input fits a [`Candidate`]'s probe.
///
/// ```
/// use metalayer_runtime::{Candidate, Fit, Probe};
///
/// let c = Candidate {
///     schema: "s",
///     metalayer: "m",
///     prefix: &[(0x92, 0x92)],
///     probe: &[
///         Probe::Byte { bytes: &[(0x92, 0x92)], entry: "" },
///         Probe::Value { first: &[(0xa0, 0xbf)], entry: "name" },
///         Probe::Byte { bytes: &[(0x01, 0x01)], entry: "version" },
///     ],
/// };
/// assert_eq!(c.fit(&[0x92, 0xa2, b'h', b'i', 0x01]), Fit::Whole);
/// assert_eq!(c.fit(&[0x92, 0xa2, b'h']), Fit::Short);
/// // The string "hi" is passed over whole: step 2 stands at byte 4.
/// assert_eq!(c.fit(&[0x92, 0xa2, b'h', b'i', 0x02]), Fit::Refused { offset: 4, step: 2 });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    /// Every step accepts the input (or a value the probe passes over is not msgpack, which the
    /// layout's decoder then reports).
    Whole,
    /// The input ends before the probe does, and fits as far as it goes.
    Short,
    /// Step `step`, which stands at byte `offset` of the input, refuses it.
    Refused {
        /// The offset of the byte refused.
        offset: usize,
        /// The index of the refusing step in [`CandidateOf::probe`].
        step: usize,
    },
}

/// One layout a dispatch enum can decode: its schema, the metalayer name it is stored under,
/// its fixed prefix, and the probe that tells it from the other layouts stored under that name.
///
/// ```
/// use metalayer_runtime::{Candidate, Probe};
///
/// // A layout that starts 0x97 0x00 then a fixint in 0..=16.
/// let c = Candidate {
///     schema: "b2nd_v1",
///     metalayer: "b2nd",
///     prefix: &[(0x97, 0x97), (0, 0), (0, 16)],
///     probe: &[
///         Probe::Byte { bytes: &[(0x97, 0x97)], entry: "" },
///         Probe::Byte { bytes: &[(0, 0)], entry: "version" },
///         Probe::Byte { bytes: &[(0, 16)], entry: "ndim" },
///     ],
/// };
/// assert!(c.accepts(&[0x97, 0x00, 0x02, 0xff]));
/// assert!(!c.accepts(&[0x96]));
/// ```
pub type Candidate = CandidateOf<'static>;

/// A [`Candidate`] whose names, prefix and probe are borrowed for `'c` rather than `'static`:
/// the candidate of a layout read at run time, which [`select`] takes as it takes the
/// candidates of a dispatch enum.
///
/// ```
/// use metalayer_runtime::{CandidateOf, ProbeOf, select};
///
/// let (schema, metalayer) = (String::from("units_v0"), String::from("units"));
/// let probe = vec![ProbeOf::Byte { bytes: &[(0xa0, 0xbf)], entry: "" }];
/// let candidates = [CandidateOf { schema: &schema, metalayer: &metalayer, prefix: &[(0xa0, 0xbf)], probe: &probe }];
/// assert!(candidates[0].accepts(b"\xa1m"));
/// assert_eq!(select(&candidates, "units", b"\xa1m"), Ok(0));
/// assert_eq!(
///     select(&candidates, "units", &[0x00]).unwrap_err().to_string(),
///     "no units layout fits: at byte 0x00 units_v0 expects 0xa0..=0xbf; found 0x00"
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CandidateOf<'c> {
    /// The schema (`b2nd_v1`).
    pub schema: &'c str,
    /// The metalayer name it is stored under (`b2nd`).
    pub metalayer: &'c str,
    /// For each offset of the layout's fixed prefix (`Layout::fixed_prefix`), the bytes it
    /// accepts there: the layout alone, for tools that show it.
    pub prefix: &'c [(u8, u8)],
    /// What dispatch checks of an input: the fixed prefix, and on to where the layout parts from
    /// the others stored under its name. Every input the layout's decoder reads passes it.
    pub probe: &'c [ProbeOf<'c>],
}

impl CandidateOf<'_> {
    /// Whether `input` fits the probe, as far as it goes ([`Fit::Whole`] or [`Fit::Short`]).
    ///
    /// ```
    /// use metalayer_runtime::{Candidate, Probe};
    ///
    /// let c = Candidate {
    ///     schema: "s",
    ///     metalayer: "m",
    ///     prefix: &[(0x95, 0x95), (0, 0)],
    ///     probe: &[Probe::Byte { bytes: &[(0x95, 0x95)], entry: "" }, Probe::Byte { bytes: &[(0, 0)], entry: "v" }],
    /// };
    /// assert!(c.accepts(&[0x95]));
    /// ```
    pub fn accepts(&self, input: &[u8]) -> bool {
        !matches!(self.fit(input), Fit::Refused { .. })
    }

    /// How far `input` fits the probe, and where it is refused.
    ///
    /// ```
    /// use metalayer_runtime::{Candidate, Fit, Probe};
    ///
    /// let c = Candidate {
    ///     schema: "s",
    ///     metalayer: "m",
    ///     prefix: &[(0xc0, 0xc0)],
    ///     probe: &[Probe::Byte { bytes: &[(0xc0, 0xc0)], entry: "" }, Probe::End],
    /// };
    /// assert_eq!(c.fit(&[0xc0]), Fit::Whole);
    /// assert_eq!(c.fit(&[0xc0, 0x00]), Fit::Refused { offset: 1, step: 1 });
    /// ```
    pub fn fit(&self, input: &[u8]) -> Fit {
        let mut at = 0;
        for (step, probe) in self.probe.iter().enumerate() {
            let ranges = match probe {
                ProbeOf::End if at == input.len() => return Fit::Whole,
                ProbeOf::End => return Fit::Refused { offset: at, step },
                ProbeOf::Byte { bytes: ranges, .. } | ProbeOf::Value { first: ranges, .. } => ranges,
            };
            let Some(&b) = input.get(at) else {
                return Fit::Short;
            };
            if !ranges.iter().any(|&(lo, hi)| lo <= b && b <= hi) {
                return Fit::Refused { offset: at, step };
            }
            at = match probe {
                ProbeOf::Value { .. } => match value_end(input, at) {
                    Ok(end) => end,
                    Err(Skip::Short) => return Fit::Short,
                    // Not msgpack: the decoder says where.
                    Err(Skip::Unreadable) => return Fit::Whole,
                },
                _ => at + 1,
            };
        }
        Fit::Whole
    }
}

/// Why a value cannot be passed over.
enum Skip {
    /// The input ends inside it.
    Short,
    /// A byte that starts no msgpack value (0xc1).
    Unreadable,
}

/// The offset after the msgpack value that starts at `at`, read by its headers alone.
fn value_end(input: &[u8], at: usize) -> Result<usize, Skip> {
    // A big-endian length of `n` bytes at `at`.
    let len = |at: usize, n: usize| -> Result<u64, Skip> {
        let bytes = input.get(at..at + n).ok_or(Skip::Short)?;
        Ok(bytes.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b)))
    };
    let mut at = at;
    // Values still to pass over: one, and the elements and pairs of the containers met.
    let mut pending: u64 = 1;
    while pending > 0 {
        let &m = input.get(at).ok_or(Skip::Short)?;
        pending -= 1;
        // The header's size, the payload's length, and the values the container holds.
        let (header, payload, held): (usize, u64, u64) = match m {
            0x00..=0x7f | 0xc0 | 0xc2 | 0xc3 | 0xe0..=0xff => (1, 0, 0),
            0x80..=0x8f => (1, 0, 2 * u64::from(m & 0x0f)),
            0x90..=0x9f => (1, 0, u64::from(m & 0x0f)),
            0xa0..=0xbf => (1, u64::from(m & 0x1f), 0),
            0xc1 => return Err(Skip::Unreadable),
            0xc4 | 0xd9 => (2, len(at + 1, 1)?, 0),
            0xc5 | 0xda => (3, len(at + 1, 2)?, 0),
            0xc6 | 0xdb => (5, len(at + 1, 4)?, 0),
            // ext: the length, then the type byte.
            0xc7 => (3, len(at + 1, 1)?, 0),
            0xc8 => (4, len(at + 1, 2)?, 0),
            0xc9 => (6, len(at + 1, 4)?, 0),
            0xca => (5, 0, 0),
            0xcb => (9, 0, 0),
            0xcc | 0xd0 => (2, 0, 0),
            0xcd | 0xd1 => (3, 0, 0),
            0xce | 0xd2 => (5, 0, 0),
            0xcf | 0xd3 => (9, 0, 0),
            // fixext: the type byte, then 1, 2, 4, 8 or 16 bytes.
            0xd4..=0xd8 => (2, 1 << (m - 0xd4), 0),
            0xdc => (3, 0, len(at + 1, 2)?),
            0xdd => (5, 0, len(at + 1, 4)?),
            0xde => (3, 0, 2 * len(at + 1, 2)?),
            0xdf => (5, 0, 2 * len(at + 1, 4)?),
        };
        let end = u64::try_from(at + header).unwrap_or(u64::MAX).saturating_add(payload);
        let left = u64::try_from(input.len()).unwrap_or(u64::MAX);
        // Each value held takes a byte at least.
        if end > left || pending.saturating_add(held) > left - end {
            return Err(Skip::Short);
        }
        at = end as usize;
        pending += held;
    }
    Ok(at)
}

/// The longest metalayer name c-blosc2 stores, in bytes (`BLOSC2_METALAYER_NAME_MAXLEN` in
/// blosc2.h): a frame's header holds each name as a msgpack fixstr, whose marker states the
/// length. The schema checker refuses a longer `metalayer`, and [`MetalayerName`] keeps this
/// many bytes.
///
/// ```
/// use metalayer_runtime::{METALAYER_NAME_MAX_LEN, wire::Wire};
///
/// assert_eq!(METALAYER_NAME_MAX_LEN, 31);
/// assert_eq!(Wire::FixStr.max_len(), Some(31));
/// ```
pub const METALAYER_NAME_MAX_LEN: usize = match Wire::FixStr.max_len() {
    Some(len) => len as usize,
    None => 0,
};

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
    /// The most bytes kept: the longest name c-blosc2 stores, [`METALAYER_NAME_MAX_LEN`].
    ///
    /// ```
    /// assert_eq!(metalayer_runtime::MetalayerName::CAPACITY, 31);
    /// ```
    pub const CAPACITY: usize = METALAYER_NAME_MAX_LEN;

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
/// use metalayer_runtime::{Candidate, DispatchError, Probe, select};
///
/// static CANDIDATES: [Candidate; 1] = [Candidate {
///     schema: "b2nd_v1",
///     metalayer: "b2nd",
///     prefix: &[(0x97, 0x97)],
///     probe: &[Probe::Byte { bytes: &[(0x97, 0x97)], entry: "" }],
/// }];
/// let err = select(&CANDIDATES, "units", &[0xa6]).unwrap_err();
/// assert!(matches!(err, DispatchError::UnknownName { name, .. } if name.as_str() == "units"));
/// assert_eq!(err.to_string(), r#"no known layout for the metalayer name "units"; known names: b2nd"#);
/// ```
pub type DispatchError = DispatchErrorOf<'static>;

/// A [`DispatchError`] over candidates borrowed for `'c` ([`CandidateOf`]), as [`select`] gives
/// it for the candidates of layouts read at run time.
///
/// ```
/// use metalayer_runtime::{CandidateOf, DispatchErrorOf, ProbeOf, select};
///
/// let schema = String::from("units_v0");
/// let probe = [ProbeOf::Byte { bytes: &[(0xa0, 0xbf)], entry: "" }];
/// let candidates = [CandidateOf { schema: &schema, metalayer: "units", prefix: &[(0xa0, 0xbf)], probe: &probe }];
/// let err: DispatchErrorOf<'_> = select(&candidates, "unit", b"\xa1m").unwrap_err();
/// assert_eq!(err.to_string(), r#"no known layout for the metalayer name "unit"; known names: units"#);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DispatchErrorOf<'c> {
    /// No layout of the enum is stored under this metalayer name.
    UnknownName {
        /// The name asked for.
        name: MetalayerName,
        /// The enum's candidates.
        candidates: &'c [CandidateOf<'c>],
    },
    /// No layout's probe fits the bytes, and the bytes do not single one out: no layout fits
    /// their first byte, or the layouts that fit them furthest all refuse the byte at the same
    /// offset.
    NoLayoutFits {
        /// The metalayer name.
        metalayer: &'c str,
        /// Where the layouts that fit the bytes furthest refuse them.
        offset: usize,
        /// The step of the candidates' probes that stands at that offset: what each layout
        /// expects there is its [`CandidateOf::probe`]`[step]`.
        step: usize,
        /// The byte there, if the input is that long.
        found: Option<u8>,
        /// The enum's candidates (those under other names are not shown).
        candidates: &'c [CandidateOf<'c>],
    },
    /// The layout was chosen from the bytes, and its decoder failed. The error is shown as the
    /// decoder's error, which names the layout: its message is this error's message, and it is
    /// not returned again by `source()`.
    Decode(DecodeError),
}

impl fmt::Display for DispatchErrorOf<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DispatchErrorOf::UnknownName { name, candidates } => {
                write!(f, "no known layout for the metalayer name {name:?}; known names:")?;
                for (i, c) in candidates.iter().enumerate() {
                    if candidates[..i].iter().all(|o| o.metalayer != c.metalayer) {
                        write!(f, " {}", c.metalayer)?;
                    }
                }
                Ok(())
            }
            DispatchErrorOf::NoLayoutFits {
                metalayer,
                offset,
                step,
                found,
                candidates,
            } => {
                write!(f, "no {metalayer} layout fits: at byte {offset:#04x}")?;
                let named = || candidates.iter().filter(|c| c.metalayer == *metalayer);
                // The entry the byte belongs to, when it is the same one in every layout.
                let entries = || named().filter_map(|c| c.probe.get(*step)).map(ProbeOf::entry);
                let shared = entries().next().filter(|e| entries().all(|o| o == *e));
                if let Some(entry) = shared.filter(|e| !e.is_empty()) {
                    write!(f, " in {entry}:")?;
                }
                for (i, c) in named().enumerate() {
                    let sep = if i == 0 { " " } else { ", " };
                    match c.probe.get(*step) {
                        Some(probe) => {
                            write!(f, "{sep}{} expects {probe}", c.schema)?;
                            if shared.is_none() && !probe.entry().is_empty() {
                                write!(f, " in {}", probe.entry())?;
                            }
                        }
                        None => write!(f, "{sep}{} expects any byte", c.schema)?,
                    }
                }
                match found {
                    Some(b) => write!(f, "; found {b:#04x}"),
                    None => f.write_str("; found the end of the input"),
                }
            }
            DispatchErrorOf::Decode(e) => fmt::Display::fmt(e, f),
        }
    }
}

impl core::error::Error for DispatchErrorOf<'_> {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            // Transparent: the message is the decoder error's, so its source is this one's.
            DispatchErrorOf::Decode(e) => core::error::Error::source(e),
            _ => None,
        }
    }
}

impl From<DecodeError> for DispatchErrorOf<'_> {
    fn from(e: DecodeError) -> Self {
        DispatchErrorOf::Decode(e)
    }
}

/// The candidates stored under `metalayer`, with their indices.
fn named<'a, 'c>(
    candidates: &'a [CandidateOf<'c>],
    metalayer: &'a str,
) -> impl Iterator<Item = (usize, &'a CandidateOf<'c>)> + 'a {
    candidates
        .iter()
        .enumerate()
        .filter(move |(_, c)| c.metalayer == metalayer)
}

/// When no candidate's probe fits `input`: the candidate whose probe fits the longest start of
/// it, at least its first byte, if it is the only one that fits that far; otherwise the error
/// that says what each expects where they refuse it.
fn singled_out<'c>(
    candidates: &'c [CandidateOf<'c>],
    metalayer: &str,
    input: &[u8],
) -> Result<usize, DispatchErrorOf<'c>> {
    // The furthest refusal (offset, step, candidate), and whether another is as far.
    let mut best: Option<(usize, usize, usize)> = None;
    let mut tied = false;
    for (i, c) in named(candidates, metalayer) {
        let Fit::Refused { offset, step } = c.fit(input) else {
            continue;
        };
        match best {
            Some((at, ..)) if offset < at => {}
            Some((at, ..)) if offset == at => tied = true,
            _ => {
                best = Some((offset, step, i));
                tied = false;
            }
        }
    }
    let Some((offset, step, i)) = best else {
        return Err(DispatchErrorOf::UnknownName {
            name: MetalayerName::new(metalayer),
            candidates,
        });
    };
    if !tied && offset > 0 {
        return Ok(i);
    }
    Err(DispatchErrorOf::NoLayoutFits {
        metalayer: candidates[i].metalayer,
        offset,
        step,
        found: input.get(offset).copied(),
        candidates,
    })
}

/// Picks the candidate stored under `metalayer` that [`dispatch`] tries first on `input`: the
/// first whose probe the input fits whole, else the first it fits as far as it goes. When none
/// fits, the candidate whose probe fits the longest start of `input`, at least its first byte,
/// is picked if it is the only one that fits that far: the bytes single it out, and its strict
/// decoder then says what is wrong. Otherwise the error names the offset where the candidates
/// that fit furthest all refuse the input, and what each expects there.
///
/// ```
/// use metalayer_runtime::{Candidate, Probe, select};
///
/// static V1: [Probe; 2] = [Probe::Byte { bytes: &[(0x97, 0x97)], entry: "" }, Probe::Byte { bytes: &[(0, 0)], entry: "version" }];
/// static V0: [Probe; 2] = [Probe::Byte { bytes: &[(0x96, 0x96)], entry: "" }, Probe::Byte { bytes: &[(0, 0)], entry: "version" }];
/// static CANDIDATES: [Candidate; 2] = [
///     Candidate { schema: "b2nd_v1", metalayer: "b2nd", prefix: &[(0x97, 0x97), (0, 0)], probe: &V1 },
///     Candidate { schema: "b2nd_v0", metalayer: "b2nd", prefix: &[(0x96, 0x96), (0, 0)], probe: &V0 },
/// ];
/// assert_eq!(select(&CANDIDATES, "b2nd", &[0x96, 0x00]), Ok(1));
/// assert_eq!(
///     select(&CANDIDATES, "b2nd", &[0x95]).unwrap_err().to_string(),
///     "no b2nd layout fits: at byte 0x00 b2nd_v1 expects 0x97, b2nd_v0 expects 0x96; found 0x95"
/// );
/// // 0x96 singles out b2nd_v0, whose decoder reports the byte after it.
/// assert_eq!(select(&CANDIDATES, "b2nd", &[0x96, 0x01]), Ok(1));
/// ```
pub fn select<'c>(
    candidates: &'c [CandidateOf<'c>],
    metalayer: &str,
    input: &[u8],
) -> Result<usize, DispatchErrorOf<'c>> {
    let mut short = None;
    for (i, c) in named(candidates, metalayer) {
        match c.fit(input) {
            Fit::Whole => return Ok(i),
            Fit::Short => {
                short.get_or_insert(i);
            }
            Fit::Refused { .. } => {}
        }
    }
    match short {
        Some(i) => Ok(i),
        None => singled_out(candidates, metalayer, input),
    }
}

/// A candidate's strict decoder, as [`dispatch`] takes it: the whole input, to a value of the
/// dispatch enum.
///
/// ```
/// use metalayer_runtime::{DecodeFn, Decoder, Path};
///
/// let fixint: DecodeFn<'_, u8> = |input| {
///     let mut d = Decoder::new(input, "x_v0");
///     let v = d.fixint(&Path::CONTAINER)?;
///     d.end()?;
///     Ok(v)
/// };
/// assert_eq!(fixint(&[0x05]), Ok(5));
/// ```
pub type DecodeFn<'de, T> = fn(&'de [u8]) -> Result<T, DecodeError>;

/// Decodes `input`, stored under `metalayer`, with the candidate whose decoder reads it;
/// `decoders[i]` is `candidates[i]`'s strict decoder. This is what the `decode` of a
/// `#[metalayer(dispatch)]` enum does.
///
/// The decoders of the candidates whose probe the input fits whole are tried in order, and the
/// first that reads the input wins. The layouts stored under one name part (checked when the
/// enum is built), so at most one decoder reads any input, and the probes, which reach to where
/// the layouts part, mostly leave one to try. When every decoder tried fails, the error is that
/// of the one that read furthest. When the input fits no probe whole, the candidates it fits as
/// far as it goes are tried the same way (it is short), and when it fits none, the error is
/// [`select`]'s, or the decoder error of the candidate the bytes single out.
///
/// ```
/// use metalayer_runtime::{Candidate, DecodeError, Decoder, DispatchError, Path, Probe, dispatch};
///
/// // Two versions of a layout: fixarray(2) holding a string, then 1 or 2.
/// fn version(input: &[u8], v: u8, schema: &'static str) -> Result<u8, DecodeError> {
///     let mut d = Decoder::new(input, schema);
///     d.container(0x92)?;
///     let _ = d.str::<1>(0xd9, "str8", &Path::entry(&"name"))?;
///     let at = d.position();
///     let found = d.fixint(&Path::entry(&"version"))?;
///     d.constant(at, found.into(), v.into(), &Path::entry(&"version"))?;
///     d.end()?;
///     Ok(v)
/// }
/// static STEPS_1: [Probe; 3] = [
///     Probe::Byte { bytes: &[(0x92, 0x92)], entry: "" },
///     Probe::Value { first: &[(0xd9, 0xd9)], entry: "name" },
///     Probe::Byte { bytes: &[(1, 1)], entry: "version" },
/// ];
/// static STEPS_2: [Probe; 3] = [
///     Probe::Byte { bytes: &[(0x92, 0x92)], entry: "" },
///     Probe::Value { first: &[(0xd9, 0xd9)], entry: "name" },
///     Probe::Byte { bytes: &[(2, 2)], entry: "version" },
/// ];
/// static CANDIDATES: [Candidate; 2] = [
///     Candidate { schema: "v_1", metalayer: "v", prefix: &[(0x92, 0x92), (0xd9, 0xd9)], probe: &STEPS_1 },
///     Candidate { schema: "v_2", metalayer: "v", prefix: &[(0x92, 0x92), (0xd9, 0xd9)], probe: &STEPS_2 },
/// ];
/// fn decode(input: &[u8]) -> Result<u8, DispatchError> {
///     dispatch(&CANDIDATES, "v", input, &[|i| version(i, 1, "v_1"), |i| version(i, 2, "v_2")])
/// }
///
/// assert_eq!(decode(&[0x92, 0xd9, 0x01, b'x', 0x02]), Ok(2));
/// // Version 3: both refuse the byte after the string, at offset 4.
/// assert_eq!(
///     decode(&[0x92, 0xd9, 0x01, b'x', 0x03]).unwrap_err().to_string(),
///     "no v layout fits: at byte 0x04 in version: v_1 expects 0x01, v_2 expects 0x02; found 0x03"
/// );
/// // A version 2 that is one byte longer: its probe fits, and its decoder says what is wrong.
/// assert_eq!(
///     decode(&[0x92, 0xd9, 0x01, b'x', 0x02, 0x00]).unwrap_err().to_string(),
///     "v_2: at byte 0x05 after the last entry: expected end of input, found 1 trailing byte"
/// );
/// ```
pub fn dispatch<'de, T>(
    candidates: &'static [Candidate],
    metalayer: &str,
    input: &'de [u8],
    decoders: &[DecodeFn<'de, T>],
) -> Result<T, DispatchError> {
    for wanted in [Fit::Whole, Fit::Short] {
        let mut failed: Option<DecodeError> = None;
        for (i, c) in named(candidates, metalayer) {
            let Some(decode) = decoders.get(i).filter(|_| c.fit(input) == wanted) else {
                continue;
            };
            match decode(input) {
                Ok(value) => return Ok(value),
                Err(e) if failed.as_ref().is_none_or(|f| e.offset() > f.offset()) => failed = Some(e),
                Err(_) => {}
            }
        }
        if let Some(e) = failed {
            return Err(DispatchErrorOf::Decode(e));
        }
    }
    let i = singled_out(candidates, metalayer, input)?;
    match decoders.get(i) {
        Some(decode) => decode(input).map_err(DispatchErrorOf::Decode),
        None => Err(DispatchErrorOf::UnknownName {
            name: MetalayerName::new(metalayer),
            candidates,
        }),
    }
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

/// The `impl` of a `#[metalayer(dispatch)]` enum: its candidates, `decode`, and the methods on
/// the value held, for the variants listed (each with its type, schema and metalayer name).
/// `#[metalayer(dispatch)]` writes the invocation. Not a public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __dispatch_impl {
    (
        impl [$($generics:tt)*] for [$($ty:tt)*] [$($where:tt)*];
        input $input:ty; decode $lt:lifetime;
        candidates [$($candidates:tt)*];
        $($variant:ident($variant_ty:ty) $schema:literal $metalayer:literal;)*
    ) => {
        impl $($generics)* $($ty)* $($where)* {
            /// The layouts this enum decodes, in variant order: schema, metalayer name, fixed
            /// prefix, and what `decode` checks of an input for each.
            pub const CANDIDATES: &'static [$crate::Candidate] = &[$($candidates)*];

            /// Decodes a metalayer stored under `name`. The bytes are checked against the
            /// probe of each layout stored under that name (its fixed prefix, and on to where
            /// it parts from the others), and the strict decoders of the layouts they fit are
            /// tried in order: the layouts part, as the build checked, so at most one reads
            /// them. When none does, the error says what each layout expected where, or is
            /// the decoder error of the layout the bytes single out.
            pub fn decode(name: &str, input: $input) -> ::core::result::Result<Self, $crate::DispatchError> {
                $crate::dispatch(Self::CANDIDATES, name, input, &[$(
                    |input: $input| <$variant_ty as $crate::Decode<$lt>>::decode(input).map(Self::$variant),
                )*])
            }

            /// The schema of the layout held.
            pub fn schema(&self) -> &'static str {
                match self {
                    $(Self::$variant(_) => $schema,)*
                }
            }

            /// The metalayer name the layout is stored under.
            pub fn metalayer(&self) -> &'static str {
                match self {
                    $(Self::$variant(_) => $metalayer,)*
                }
            }

            /// The length of the held value's encoding.
            pub fn encoded_len(&self) -> usize {
                match self {
                    $(Self::$variant(held) => $crate::Metalayer::encoded_len(held),)*
                }
            }

            /// Encodes the held value, in the layout of the variant that holds it, into the
            /// front of `buf`, and returns the number of bytes written.
            pub fn encode_into(&self, buf: &mut [u8]) -> ::core::result::Result<usize, $crate::EncodeError> {
                match self {
                    $(Self::$variant(held) => $crate::Metalayer::encode_into(held, buf),)*
                }
            }

            $crate::__dispatch_encode!();
        }
    };
}

/// The `encode` method of a `#[metalayer(dispatch)]` enum, written inside its `impl`. It returns
/// a `Vec`, so it exists where this crate's `alloc` feature is on, as [`Metalayer::encode`]
/// does; without it this writes nothing. Not a public API.
#[cfg(feature = "alloc")]
#[doc(hidden)]
#[macro_export]
macro_rules! __dispatch_encode {
    () => {
        /// Encodes the held value, in the layout of the variant that holds it, into a new `Vec`
        /// of exactly [`encoded_len`](Self::encoded_len) bytes.
        pub fn encode(&self) -> ::core::result::Result<$crate::__alloc::Vec<u8>, $crate::EncodeError> {
            $crate::encode_to_vec(self.encoded_len(), |buf| self.encode_into(buf))
        }
    };
}

/// Without the `alloc` feature a dispatch enum has no `encode`: see the definition above.
#[cfg(not(feature = "alloc"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __dispatch_encode {
    () => {};
}

#[cfg(test)]
mod tests {
    use super::{Skip, value_end};

    /// The length of the value at the start of `bytes`, or how it cannot be passed over.
    fn end(bytes: &[u8]) -> Result<usize, &'static str> {
        value_end(bytes, 0).map_err(|e| match e {
            Skip::Short => "short",
            Skip::Unreadable => "unreadable",
        })
    }

    // The encodings below are written from the msgpack specification, one per format.

    #[test]
    fn scalars_take_their_header_and_payload() {
        let cases: &[(&[u8], usize)] = &[
            (&[0x05], 1),                                                        // positive fixint
            (&[0xff], 1),                                                        // negative fixint -1
            (&[0xc0], 1),                                                        // nil
            (&[0xc2], 1),                                                        // false
            (&[0xc3], 1),                                                        // true
            (&[0xcc, 0xff], 2),                                                  // uint8
            (&[0xcd, 0x01, 0x00], 3),                                            // uint16
            (&[0xce, 0, 1, 0, 0], 5),                                            // uint32
            (&[0xcf, 0, 0, 0, 1, 0, 0, 0, 0], 9),                                // uint64
            (&[0xd0, 0x80], 2),                                                  // int8
            (&[0xd1, 0xff, 0x00], 3),                                            // int16
            (&[0xd2, 0xff, 0xff, 0, 0], 5),                                      // int32
            (&[0xd3, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0], 9),                    // int64
            (&[0xca, 0x3f, 0x80, 0, 0], 5),                                      // float32 1.0
            (&[0xcb, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0], 9),                          // float64 1.0
            (&[0xa2, b'h', b'i'], 3),                                            // fixstr "hi"
            (&[0xd9, 0x02, b'h', b'i'], 4),                                      // str8
            (&[0xda, 0x00, 0x02, b'h', b'i'], 5),                                // str16
            (&[0xdb, 0, 0, 0, 0x02, b'h', b'i'], 7),                             // str32
            (&[0xc4, 0x02, 1, 2], 4),                                            // bin8
            (&[0xc5, 0x00, 0x01, 1], 4),                                         // bin16
            (&[0xc6, 0, 0, 0, 0x01, 1], 6),                                      // bin32
            (&[0xd4, 0x05, 1], 3),                                               // fixext1: type, 1 byte
            (&[0xd5, 0x05, 1, 2], 4),                                            // fixext2
            (&[0xd6, 0x05, 1, 2, 3, 4], 6),                                      // fixext4
            (&[0xd7, 0x05, 0, 0, 0, 0, 0, 0, 0, 0], 10),                         // fixext8
            (&[0xd8, 0x05, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 18), // fixext16
            (&[0xc7, 0x01, 0x05, 1], 4),                                         // ext8: length, type, data
            (&[0xc8, 0x00, 0x01, 0x05, 1], 5),                                   // ext16
            (&[0xc9, 0, 0, 0, 0x01, 0x05, 1], 7),                                // ext32
        ];
        for &(bytes, len) in cases {
            assert_eq!(end(bytes), Ok(len), "{bytes:02x?}");
            // What follows the value is not part of it.
            assert_eq!(
                end(&[bytes, &[0xc0, 0xc0]].concat()),
                Ok(len),
                "{bytes:02x?} then nil nil"
            );
        }
    }

    #[test]
    fn containers_take_what_they_hold() {
        let cases: &[(&[u8], usize)] = &[
            (&[0x90], 1),                               // []
            (&[0x92, 0x01, 0x02], 3),                   // [1, 2]
            (&[0x80], 1),                               // {}
            (&[0x81, 0xa1, b'a', 0x01], 4),             // {"a": 1}
            (&[0xdc, 0x00, 0x02, 0x01, 0x02], 5),       // array16 [1, 2]
            (&[0xdd, 0, 0, 0, 0x01, 0xc0], 6),          // array32 [nil]
            (&[0xde, 0x00, 0x01, 0xa1, b'a', 0x01], 6), // map16 {"a": 1}
            (&[0xdf, 0, 0, 0, 0x01, 0x01, 0x02], 7),    // map32 {1: 2}
            // [[1], [2, {"a": nil}], "x"]
            (&[0x93, 0x91, 0x01, 0x92, 0x02, 0x81, 0xa1, b'a', 0xc0, 0xa1, b'x'], 11),
        ];
        for &(bytes, len) in cases {
            assert_eq!(end(bytes), Ok(len), "{bytes:02x?}");
            assert_eq!(end(&[bytes, &[0x07]].concat()), Ok(len), "{bytes:02x?} then 7");
        }
    }

    #[test]
    fn a_value_the_input_cuts_is_short() {
        let cases: &[&[u8]] = &[
            &[],
            &[0xa2, b'h'],                   // fixstr of 2 with 1 byte
            &[0xd9],                         // str8 without its length
            &[0xcb, 0, 0],                   // float64 of 2 bytes
            &[0x92, 0x01],                   // [1, ...]
            &[0xdc, 0x00],                   // array16 without its whole count
            &[0xdd, 0xff, 0xff, 0xff, 0xff], // 4294967295 elements in no bytes
            &[0xdf, 0xff, 0xff, 0xff, 0xff, 0x01],
            &[0xc6, 0xff, 0xff, 0xff, 0xff, 0x00],
        ];
        for &bytes in cases {
            assert_eq!(end(bytes), Err("short"), "{bytes:02x?}");
        }
    }

    #[test]
    fn a_byte_that_starts_no_value_is_unreadable() {
        assert_eq!(end(&[0xc1]), Err("unreadable"));
        assert_eq!(end(&[0x92, 0x01, 0xc1]), Err("unreadable"));
        // From an offset.
        assert_eq!(value_end(&[0xc1, 0xa1, b'a'], 1).ok(), Some(3));
    }
}
