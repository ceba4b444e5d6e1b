//! msgpack's timestamp extension (ext type -1): seconds since the Unix epoch and nanoseconds,
//! in one of three forms. The specification's forms, by their data:
//!
//! | form | wire | data |
//! |---|---|---|
//! | timestamp 32 | fixext4 (`d6 ff`) | seconds, uint32 |
//! | timestamp 64 | fixext8 (`d7 ff`) | nanoseconds in the upper 30 bits, seconds in the lower 34 bits of a uint64 |
//! | timestamp 96 | ext8 of 12 bytes (`c7 0c ff`) | nanoseconds, uint32, then seconds, int64 |
//!
//! Writers choose the smallest form that holds the value, as python's `msgpack.packb` does: 32
//! bits for whole seconds in 0..=2^32-1, 64 bits for seconds in 0..2^34, 96 bits otherwise.

use crate::decode::Decoder;
use crate::encode::Encoder;
use crate::error::{DecodeError, DecodeErrorKind, EncodeError, EncodeErrorKind, Path};
use crate::wire::Wire;

/// The ext type of msgpack's timestamps.
pub const TIMESTAMP_EXT_TYPE: i8 = -1;

/// The names schemas give a timestamp's forms, with the wire type each fixes: the smallest form
/// (`timestamp`, no fixed wire type), then the 32-, 64- and 96-bit forms.
///
/// ```
/// use metalayer_runtime::{TIMESTAMP_FORMS, wire::Wire};
///
/// assert_eq!(TIMESTAMP_FORMS[2], ("timestamp64", Some(Wire::FixExt8)));
/// ```
pub const TIMESTAMP_FORMS: [(&str, Option<Wire>); 4] = [
    ("timestamp", None),
    ("timestamp32", Some(Wire::FixExt4)),
    ("timestamp64", Some(Wire::FixExt8)),
    ("timestamp96", Some(Wire::Ext8)),
];

/// The largest number of nanoseconds a timestamp holds: one second less one nanosecond.
pub const NANOS_MAX: u32 = 999_999_999;

/// A point in time as msgpack's timestamp extension holds it: whole seconds since
/// 1970-01-01T00:00:00Z (negative before) and nanoseconds within the second (0..=999999999).
///
/// ```
/// use metalayer_runtime::{Timestamp, wire::Wire};
///
/// let t = Timestamp { seconds: 1, nanoseconds: 5 };
/// assert_eq!(t.smallest_wire(), Wire::FixExt8);
/// assert_eq!(Timestamp { seconds: 1, nanoseconds: 0 }.smallest_wire(), Wire::FixExt4);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Timestamp {
    /// Seconds since the Unix epoch.
    pub seconds: i64,
    /// Nanoseconds within the second, 0..=999999999.
    pub nanoseconds: u32,
}

impl Timestamp {
    /// The wire type of the smallest form that holds the time: [`Wire::FixExt4`] (32 bits),
    /// [`Wire::FixExt8`] (64 bits) or [`Wire::Ext8`] (96 bits).
    ///
    /// ```
    /// use metalayer_runtime::{Timestamp, wire::Wire};
    ///
    /// // 2106-02-07T06:28:16Z is 2^32 seconds: past the 32-bit form.
    /// assert_eq!(Timestamp { seconds: 1 << 32, nanoseconds: 0 }.smallest_wire(), Wire::FixExt8);
    /// assert_eq!(Timestamp { seconds: -1, nanoseconds: 0 }.smallest_wire(), Wire::Ext8);
    /// ```
    pub const fn smallest_wire(self) -> Wire {
        if self.seconds >= 0 && self.seconds >> 34 == 0 {
            if self.nanoseconds == 0 && self.seconds >> 32 == 0 {
                Wire::FixExt4
            } else {
                Wire::FixExt8
            }
        } else {
            Wire::Ext8
        }
    }

    /// Whether the form of `wire` holds the time (and its nanoseconds are in range).
    ///
    /// ```
    /// use metalayer_runtime::{Timestamp, wire::Wire};
    ///
    /// let t = Timestamp { seconds: 1, nanoseconds: 5 };
    /// assert!(!t.fits(Wire::FixExt4) && t.fits(Wire::FixExt8) && t.fits(Wire::Ext8));
    /// ```
    pub const fn fits(self, wire: Wire) -> bool {
        if self.nanoseconds > NANOS_MAX {
            return false;
        }
        match wire {
            Wire::FixExt4 => self.nanoseconds == 0 && self.seconds >= 0 && self.seconds >> 32 == 0,
            Wire::FixExt8 => self.seconds >= 0 && self.seconds >> 34 == 0,
            Wire::Ext8 => true,
            _ => false,
        }
    }

    /// The number of data bytes of the form of `wire`: 4, 8 or 12.
    ///
    /// ```
    /// use metalayer_runtime::{Timestamp, wire::Wire};
    ///
    /// assert_eq!(Timestamp::data_len(Wire::Ext8), 12);
    /// ```
    pub const fn data_len(wire: Wire) -> usize {
        match wire {
            Wire::FixExt4 => 4,
            Wire::FixExt8 => 8,
            _ => 12,
        }
    }

    /// The data of the form of `wire`, in its first [`data_len`](Self::data_len) bytes. The
    /// time must fit the form ([`fits`](Self::fits)); bits that do not fit are dropped.
    ///
    /// ```
    /// use metalayer_runtime::{Timestamp, wire::Wire};
    ///
    /// let t = Timestamp { seconds: 1, nanoseconds: 5 };
    /// // (5 << 34) | 1, big-endian: python's packb(Timestamp(1, 5)) is d7 ff 00000014 00000001.
    /// assert_eq!(t.data(Wire::FixExt8)[..8], [0, 0, 0, 0x14, 0, 0, 0, 1]);
    /// ```
    pub const fn data(self, wire: Wire) -> [u8; 12] {
        let mut out = [0u8; 12];
        match wire {
            Wire::FixExt4 => {
                let b = (self.seconds as u32).to_be_bytes();
                let mut i = 0;
                while i < 4 {
                    out[i] = b[i];
                    i += 1;
                }
            }
            Wire::FixExt8 => {
                let v = ((self.nanoseconds as u64) << 34) | (self.seconds as u64 & ((1 << 34) - 1));
                let b = v.to_be_bytes();
                let mut i = 0;
                while i < 8 {
                    out[i] = b[i];
                    i += 1;
                }
            }
            _ => {
                let (n, s) = (self.nanoseconds.to_be_bytes(), self.seconds.to_be_bytes());
                let mut i = 0;
                while i < 4 {
                    out[i] = n[i];
                    i += 1;
                }
                while i < 12 {
                    out[i] = s[i - 4];
                    i += 1;
                }
            }
        }
        out
    }

    /// The time the data of a timestamp holds, by its length (4, 8 or 12 bytes); the
    /// nanoseconds must be in range.
    ///
    /// ```
    /// use metalayer_runtime::{DecodeErrorKind, Timestamp};
    ///
    /// assert_eq!(Timestamp::from_data(&[0, 0, 0, 1]), Ok(Timestamp { seconds: 1, nanoseconds: 0 }));
    /// assert_eq!(
    ///     Timestamp::from_data(&[0xff; 8]),
    ///     Err(DecodeErrorKind::Nanoseconds { found: 1_073_741_823 })
    /// );
    /// assert_eq!(Timestamp::from_data(&[0; 5]), Err(DecodeErrorKind::TimestampLength { found: 5 }));
    /// ```
    pub fn from_data(data: &[u8]) -> Result<Self, DecodeErrorKind> {
        let t = match *data {
            [a, b, c, d] => Timestamp {
                seconds: i64::from(u32::from_be_bytes([a, b, c, d])),
                nanoseconds: 0,
            },
            [a, b, c, d, e, f, g, h] => {
                let v = u64::from_be_bytes([a, b, c, d, e, f, g, h]);
                Timestamp {
                    seconds: (v & ((1 << 34) - 1)) as i64,
                    nanoseconds: (v >> 34) as u32,
                }
            }
            [a, b, c, d, e, f, g, h, i, j, k, l] => Timestamp {
                seconds: i64::from_be_bytes([e, f, g, h, i, j, k, l]),
                nanoseconds: u32::from_be_bytes([a, b, c, d]),
            },
            _ => return Err(DecodeErrorKind::TimestampLength { found: data.len() }),
        };
        if t.nanoseconds > NANOS_MAX {
            return Err(DecodeErrorKind::Nanoseconds { found: t.nanoseconds });
        }
        Ok(t)
    }
}

#[cfg(feature = "std")]
impl TryFrom<std::time::SystemTime> for Timestamp {
    type Error = std::time::SystemTimeError;

    /// The time, unless it lies more than 2^63 seconds from the epoch.
    ///
    /// ```
    /// use std::time::{Duration, UNIX_EPOCH};
    /// use metalayer_runtime::Timestamp;
    ///
    /// let t = Timestamp::try_from(UNIX_EPOCH + Duration::new(5, 7)).unwrap();
    /// assert_eq!(t, Timestamp { seconds: 5, nanoseconds: 7 });
    /// let t = Timestamp::try_from(UNIX_EPOCH - Duration::new(0, 1)).unwrap();
    /// assert_eq!(t, Timestamp { seconds: -1, nanoseconds: 999_999_999 });
    /// ```
    fn try_from(time: std::time::SystemTime) -> Result<Self, Self::Error> {
        use std::time::UNIX_EPOCH;
        match time.duration_since(UNIX_EPOCH) {
            Ok(d) => Ok(Timestamp {
                seconds: i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
                nanoseconds: d.subsec_nanos(),
            }),
            Err(e) => {
                let before = e.duration();
                let (s, n) = (before.as_secs(), before.subsec_nanos());
                let seconds = i64::try_from(s).map_err(|_| e.clone())?;
                Ok(match n {
                    0 => Timestamp {
                        seconds: -seconds,
                        nanoseconds: 0,
                    },
                    n => Timestamp {
                        seconds: -seconds - 1,
                        nanoseconds: 1_000_000_000 - n,
                    },
                })
            }
        }
    }
}

#[cfg(feature = "std")]
impl TryFrom<Timestamp> for std::time::SystemTime {
    type Error = Timestamp;

    /// The time, unless the platform's `SystemTime` cannot hold it or its nanoseconds are out
    /// of range; the error is the timestamp itself.
    ///
    /// ```
    /// use std::time::{Duration, SystemTime, UNIX_EPOCH};
    /// use metalayer_runtime::Timestamp;
    ///
    /// let t = SystemTime::try_from(Timestamp { seconds: -1, nanoseconds: 5 }).unwrap();
    /// assert_eq!(t, UNIX_EPOCH - Duration::new(0, 999_999_995));
    /// ```
    fn try_from(t: Timestamp) -> Result<Self, Self::Error> {
        use std::time::{Duration, UNIX_EPOCH};
        if t.nanoseconds > NANOS_MAX {
            return Err(t);
        }
        let time = if t.seconds >= 0 {
            UNIX_EPOCH.checked_add(Duration::new(t.seconds as u64, t.nanoseconds))
        } else {
            UNIX_EPOCH
                .checked_sub(Duration::from_secs(t.seconds.unsigned_abs()))
                .and_then(|s| s.checked_add(Duration::from_nanos(u64::from(t.nanoseconds))))
        };
        time.ok_or(t)
    }
}

/// A field type that holds a timestamp.
///
/// ```
/// use metalayer_runtime::{Timestamp, TimestampField};
///
/// let t = Timestamp { seconds: 3, nanoseconds: 0 };
/// assert_eq!(<Timestamp as TimestampField>::from_timestamp(t).to_timestamp(), t);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold a timestamp entry",
    label = "the schema gives this field a timestamp wire type",
    note = "use `metalayer::Timestamp`, which converts to and from `std::time::SystemTime`"
)]
pub trait TimestampField: Sized {
    /// The field's value from a decoded timestamp.
    fn from_timestamp(t: Timestamp) -> Self;
    /// The timestamp to encode.
    fn to_timestamp(&self) -> Timestamp;
}

impl TimestampField for Timestamp {
    #[inline]
    fn from_timestamp(t: Timestamp) -> Self {
        t
    }
    #[inline]
    fn to_timestamp(&self) -> Timestamp {
        *self
    }
}

impl Decoder<'_> {
    /// Reads a timestamp: in the form of `wire` when the schema fixes one
    /// ([`Wire::FixExt4`], [`Wire::FixExt8`] or [`Wire::Ext8`]), else in any of the three,
    /// and then, with `smallest`, only in the smallest form for its time, as msgpack writers
    /// choose it.
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path, Timestamp};
    ///
    /// let mut d = Decoder::new(&[0xd6, 0xff, 0, 0, 0, 1], "x");
    /// assert_eq!(d.timestamp(None, true, &Path::entry(&"t"))?, Timestamp { seconds: 1, nanoseconds: 0 });
    /// let mut d = Decoder::new(&[0xd7, 0xff, 0, 0, 0, 0, 0, 0, 0, 1], "x");
    /// let err = d.timestamp(None, true, &Path::entry(&"t")).unwrap_err();
    /// assert_eq!(err.to_string(), "x: at byte 0x00 in t: expected the smallest encoding fixext4, found fixext8");
    /// # Ok::<(), metalayer_runtime::DecodeError>(())
    /// ```
    pub fn timestamp(&mut self, wire: Option<Wire>, smallest: bool, path: &Path) -> Result<Timestamp, DecodeError> {
        let at = self.position();
        let (ty, len) = match wire {
            Some(w) => self.ext_header(w, path)?,
            None => self.any_ext_header(smallest, path)?,
        };
        self.ext_type(at, ty, TIMESTAMP_EXT_TYPE, path)?;
        let form = match len {
            4 => Wire::FixExt4,
            8 => Wire::FixExt8,
            _ => Wire::Ext8,
        };
        if !matches!(len, 4 | 8 | 12) || wire.is_some_and(|w| w != form) {
            return Err(self.fail(at, path, DecodeErrorKind::TimestampLength { found: len }));
        }
        let data_at = self.position();
        let data = self.bytes(len, path)?;
        let t = Timestamp::from_data(data).map_err(|kind| self.fail(data_at, path, kind))?;
        if smallest && wire.is_none() && t.smallest_wire() != form {
            let kind = DecodeErrorKind::NotSmallest {
                expected: t.smallest_wire(),
                found: form,
            };
            return Err(self.fail(at, path, kind));
        }
        Ok(t)
    }
}

impl Encoder<'_> {
    /// Writes a timestamp in the form of `wire`, or in its smallest form when `wire` is
    /// `None`. The time must fit the form ([`check_timestamp`] says whether it does).
    ///
    /// ```
    /// use metalayer_runtime::{Encoder, Timestamp};
    ///
    /// let mut buf = [0u8; 6];
    /// let mut e = Encoder::new(&mut buf, 6, "x")?;
    /// e.timestamp(Timestamp { seconds: 1, nanoseconds: 0 }, None);
    /// assert_eq!(e.finish(), 6);
    /// assert_eq!(buf, [0xd6, 0xff, 0, 0, 0, 1]);
    /// # Ok::<(), metalayer_runtime::EncodeError>(())
    /// ```
    pub fn timestamp(&mut self, t: Timestamp, wire: Option<Wire>) {
        let w = wire.unwrap_or(t.smallest_wire());
        let len = Timestamp::data_len(w);
        self.ext_header(w, TIMESTAMP_EXT_TYPE, len);
        self.bytes(&t.data(w)[..len]);
    }
}

/// Fails unless the timestamp's nanoseconds are in range and, when the schema fixes the form
/// `wire`, that form holds it (the 32-bit form holds whole seconds 0..=2^32-1, the 64-bit form
/// seconds 0..2^34).
///
/// ```
/// use metalayer_runtime::{Path, Timestamp, check_timestamp, wire::Wire};
///
/// let t = Timestamp { seconds: 1, nanoseconds: 5 };
/// let err = check_timestamp("x", Path::entry(&"t"), t, Some(Wire::FixExt4)).unwrap_err();
/// assert_eq!(err.to_string(), "x: in t: expected a time that timestamp32 holds, found 1 s + 5 ns");
/// assert!(check_timestamp("x", Path::entry(&"t"), t, None).is_ok());
/// ```
pub fn check_timestamp(schema: &'static str, path: Path, t: Timestamp, wire: Option<Wire>) -> Result<(), EncodeError> {
    let w = wire.unwrap_or(Wire::Ext8);
    if t.fits(w) {
        return Ok(());
    }
    let form = TIMESTAMP_FORMS
        .iter()
        .find(|(_, fixed)| *fixed == Some(w))
        .map_or("timestamp96", |(name, _)| name);
    let kind = EncodeErrorKind::Timestamp {
        form,
        seconds: t.seconds,
        nanoseconds: t.nanoseconds,
    };
    Err(EncodeError::new(schema, path, kind))
}
