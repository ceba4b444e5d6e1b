//! Timestamps as RFC 3339 text in JSON: `2026-11-25T17:24:48.5Z`, in UTC, with the nanoseconds
//! as a fraction of the second without trailing zeros (none for a whole second). Years outside
//! 0000..=9999, which msgpack's 96-bit form reaches, are written as ISO 8601 writes expanded
//! years: with a sign (`+10000-01-01T00:00:00Z`, `-0001-12-31T23:59:59Z`). Reading accepts
//! these, a `t` or a space for the `T`, a `z` for the `Z`, and an offset such as `+01:00`.
//!
//! Dates are proleptic Gregorian; the day conversions are Howard Hinnant's `days_from_civil`
//! and `civil_from_days` (<https://howardhinnant.github.io/date_algorithms.html>). They are
//! written here because a timestamp's seconds are any i64, some 292 billion years either way,
//! and the date crates stop far short of that (`time` and `jiff` at year 9999, `chrono` at
//! 262,143).

#[allow(unused_imports)]
use crate::std_prelude::*;

use metalayer_runtime::{NANOS_MAX, Timestamp};

const SECONDS_PER_DAY: i64 = 86_400;

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date of a number of days since 1970-01-01.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The time as RFC 3339 text in UTC, the nanoseconds as a fraction of the second without
/// trailing zeros (none for a whole second); a year outside 0000..=9999 with a sign, as ISO 8601
/// writes expanded years.
///
/// ```
/// use metalayer::Timestamp;
/// use metalayer::value::timestamp_text;
///
/// assert_eq!(timestamp_text(Timestamp { seconds: 0, nanoseconds: 0 }), "1970-01-01T00:00:00Z");
/// assert_eq!(timestamp_text(Timestamp { seconds: -1, nanoseconds: 500_000_000 }), "1969-12-31T23:59:59.5Z");
/// assert_eq!(timestamp_text(Timestamp { seconds: 253_402_300_800, nanoseconds: 0 }), "+10000-01-01T00:00:00Z");
/// ```
pub fn timestamp_text(t: Timestamp) -> String {
    let (days, secs) = (
        t.seconds.div_euclid(SECONDS_PER_DAY),
        t.seconds.rem_euclid(SECONDS_PER_DAY),
    );
    let (y, m, d) = civil_from_days(days);
    let year = if (0..=9999).contains(&y) {
        format!("{y:04}")
    } else if y < 0 {
        format!("-{:04}", y.unsigned_abs())
    } else {
        format!("+{y}")
    };
    let (hh, mm, ss) = (secs / 3600, secs / 60 % 60, secs % 60);
    let mut out = format!("{year}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}");
    if t.nanoseconds != 0 {
        let fraction = format!("{:09}", t.nanoseconds);
        out.push('.');
        out.push_str(fraction.trim_end_matches('0'));
    }
    out.push('Z');
    out
}

/// Reads RFC 3339 text as a timestamp: what [`timestamp_text`] writes, and also a `t` or a
/// space for the `T`, a `z` for the `Z`, and an offset such as `+01:00`; the error says what is
/// wrong with it.
///
/// ```
/// use metalayer::Timestamp;
/// use metalayer::value::parse_timestamp;
///
/// assert_eq!(parse_timestamp("1970-01-01T01:00:00.25+01:00"), Ok(Timestamp { seconds: 0, nanoseconds: 250_000_000 }));
/// assert!(parse_timestamp("1970-13-01T00:00:00Z").is_err());
/// ```
pub fn parse_timestamp(text: &str) -> Result<Timestamp, String> {
    let fail = || format!("expected an RFC 3339 time such as \"2026-01-31T12:00:00Z\", found {text:?}");
    let (date, rest) = text.split_at(text.find(['T', 't', ' ']).ok_or_else(fail)?);
    let (y, m, d) = parse_date(date).ok_or_else(fail)?;
    let rest = &rest[1..];
    let (time, offset) = split_offset(rest).ok_or_else(fail)?;
    let (hms, nanos) = match time.split_once('.') {
        Some((hms, fraction)) => (hms, parse_fraction(fraction).ok_or_else(fail)?),
        None => (time, 0),
    };
    let parts: Vec<&str> = hms.split(':').collect();
    let [h, mi, s] = parts[..] else {
        return Err(fail());
    };
    let (h, mi, s) = (two_digits(h, 23), two_digits(mi, 59), two_digits(s, 60));
    let (Some(h), Some(mi), Some(s)) = (h, mi, s) else {
        return Err(fail());
    };
    let seconds = days_from_civil(y, m, d)
        .checked_mul(SECONDS_PER_DAY)
        .and_then(|v| v.checked_add(i64::from(h * 3600 + mi * 60 + s)))
        .and_then(|v| v.checked_sub(offset))
        .ok_or_else(fail)?;
    Ok(Timestamp {
        seconds,
        nanoseconds: nanos,
    })
}

/// `YYYY-MM-DD`, or an expanded year with a sign; the day must exist.
fn parse_date(date: &str) -> Option<(i64, u32, u32)> {
    let (sign, unsigned) = match date.as_bytes().first()? {
        b'+' => (1, &date[1..]),
        b'-' => (-1, &date[1..]),
        _ => (1, date),
    };
    let mut parts = unsigned.rsplitn(3, '-');
    let (d, m, y) = (parts.next()?, parts.next()?, parts.next()?);
    if y.len() < 4 || !y.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let y = sign * y.parse::<i64>().ok()?;
    let (m, d) = (two_digits(m, 12)?, two_digits(d, 31)?);
    if m == 0 || d == 0 || civil_from_days(days_from_civil(y, m, d)) != (y, m, d) {
        return None;
    }
    Some((y, m, d))
}

/// Two ASCII digits, at most `max`.
fn two_digits(s: &str, max: u32) -> Option<u32> {
    if s.len() != 2 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok().filter(|&v| v <= max)
}

/// 1 to 9 digits of a second's fraction, as nanoseconds.
fn parse_fraction(fraction: &str) -> Option<u32> {
    if fraction.is_empty() || fraction.len() > 9 || !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u32 = format!("{fraction:0<9}").parse().ok()?;
    (n <= NANOS_MAX).then_some(n)
}

/// The time of day and the offset from UTC in seconds: `Z`, or `+hh:mm` / `-hh:mm`.
fn split_offset(rest: &str) -> Option<(&str, i64)> {
    if let Some(time) = rest.strip_suffix(['Z', 'z']) {
        return Some((time, 0));
    }
    let at = rest.rfind(['+', '-'])?;
    let (time, offset) = rest.split_at(at);
    let sign = if offset.starts_with('-') { -1 } else { 1 };
    let (h, m) = offset[1..].split_once(':')?;
    let (h, m) = (two_digits(h, 23)?, two_digits(m, 59)?);
    Some((time, sign * i64::from(h * 3600 + m * 60)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_round_trip_over_eras() {
        // 0000-03-01 is day -719468 (Hinnant's epoch shift); 2000-02-29 exists, 1900-02-29 not.
        assert_eq!(days_from_civil(0, 3, 1), -719_468);
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert!(parse_date("2000-02-29").is_some());
        assert!(parse_date("1900-02-29").is_none());
        for days in [-1_000_000_000i64, -719_469, -1, 0, 59, 2_932_896, 1_000_000_000] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
    }

    #[test]
    fn text_round_trips_at_the_edges() {
        for (seconds, nanoseconds) in [
            (0, 0),
            (4_294_967_295, 0),
            (4_294_967_296, 1),
            (17_179_869_183, 999_999_999),
            (-62_135_596_800, 0),
            (i64::MIN / 2, 7),
            (i64::MAX / 2, 10),
        ] {
            let t = Timestamp { seconds, nanoseconds };
            assert_eq!(parse_timestamp(&timestamp_text(t)), Ok(t), "{}", timestamp_text(t));
        }
        // 2^32 seconds is 2106-02-07T06:28:16Z, msgpack's first time past the 32-bit form.
        assert_eq!(
            timestamp_text(Timestamp {
                seconds: 1 << 32,
                nanoseconds: 0
            }),
            "2106-02-07T06:28:16Z"
        );
        assert!(parse_timestamp("2026-01-31T12:00:00.1234567891Z").is_err());
        assert!(parse_timestamp("2026-01-31 12:00").is_err());
    }
}
