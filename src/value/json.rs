//! The JSON form of msgpack values: exact integers, shortest floats, hex for bytes. The
//! [module documentation](super) states the conventions; these functions are their one
//! implementation, for values written straight to a serializer and for [`metalayer::serde_json::Value`]s.

#[allow(unused_imports)]
use crate::std_prelude::*;

use std::fmt;

use serde::{Serialize, Serializer};
use serde_json::{Number, Value};

/// Bytes shown as lowercase hex, written a piece at a time: it serializes as a string through
/// the serializer's `collect_str`, which serde_json streams without building the whole string.
/// Every serializer gets the same string: nothing about the serializer running is assumed.
///
/// ```
/// use metalayer::value::json::Hex;
///
/// assert_eq!(Hex(&[0x00, 0xab, 0x7f]).to_string(), "00ab7f");
/// assert_eq!(metalayer::serde_json::to_string(&Hex(b"\x01\x02"))?, r#""0102""#);
/// let mut out = Vec::new();
/// metalayer::value::write_json(&mut out, &Hex(b"\x01\x02"))?;
/// assert_eq!(out, br#""0102""#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Hex<'a>(pub &'a [u8]);

/// Each byte's two hex digits.
const PAIRS: [[u8; 2]; 256] = {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut pairs = [[0u8; 2]; 256];
    let mut b = 0;
    while b < 256 {
        pairs[b] = [DIGITS[b >> 4], DIGITS[b & 0x0f]];
        b += 1;
    }
    pairs
};

/// Writes the hex of `bytes`, a buffer at a time, to `write` (which takes ASCII).
pub(crate) fn write_hex<E>(bytes: &[u8], mut write: impl FnMut(&[u8]) -> Result<(), E>) -> Result<(), E> {
    let mut buf = [0u8; 4096];
    for piece in bytes.chunks(buf.len() / 2) {
        for (pair, &b) in buf.chunks_exact_mut(2).zip(piece) {
            pair.copy_from_slice(&PAIRS[usize::from(b)]);
        }
        write(&buf[..piece.len() * 2])?;
    }
    Ok(())
}

impl fmt::Display for Hex<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_hex(self.0, |ascii| {
            // Hex digits are ASCII, so always UTF-8.
            f.write_str(std::str::from_utf8(ascii).map_err(|_| fmt::Error)?)
        })
    }
}

impl Serialize for Hex<'_> {
    /// A string of the hex digits, through the serializer's `collect_str`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Writes an integer as [`int`] shows it.
///
/// ```
/// let mut out = Vec::new();
/// metalayer::value::json::serialize_int(-5, &mut metalayer::serde_json::Serializer::new(&mut out))?;
/// assert_eq!(out, b"-5");
/// # Ok::<(), metalayer::serde_json::Error>(())
/// ```
pub fn serialize_int<S: Serializer>(value: i128, serializer: S) -> Result<S::Ok, S::Error> {
    if let Ok(v) = i64::try_from(value) {
        serializer.serialize_i64(v)
    } else if let Ok(v) = u64::try_from(value) {
        serializer.serialize_u64(v)
    } else {
        serializer.collect_str(&value)
    }
}

/// Writes a float64 as [`f64()`] shows it.
///
/// ```
/// let mut out = Vec::new();
/// metalayer::value::json::serialize_f64(f64::NAN, &mut metalayer::serde_json::Serializer::new(&mut out))?;
/// assert_eq!(out, br#""NaN""#);
/// # Ok::<(), metalayer::serde_json::Error>(())
/// ```
pub fn serialize_f64<S: Serializer>(value: f64, serializer: S) -> Result<S::Ok, S::Error> {
    if value.is_finite() {
        serializer.serialize_f64(value)
    } else {
        serializer.serialize_str(non_finite_text(value))
    }
}

/// Writes a float32 as [`f32()`] shows it.
///
/// ```
/// let mut out = Vec::new();
/// metalayer::value::json::serialize_f32(0.1, &mut metalayer::serde_json::Serializer::new(&mut out))?;
/// assert_eq!(out, b"0.1");
/// # Ok::<(), metalayer::serde_json::Error>(())
/// ```
pub fn serialize_f32<S: Serializer>(value: f32, serializer: S) -> Result<S::Ok, S::Error> {
    if value.is_finite() {
        serializer.serialize_f64(shortest_f32(value))
    } else {
        serializer.serialize_str(non_finite_text(f64::from(value)))
    }
}

/// An integer as an exact JSON number: every int64 and uint64 value fits one. Wider values,
/// which no msgpack wire type holds, become their decimal text.
///
/// ```
/// use metalayer::value::json::int;
///
/// assert_eq!(int(-5), metalayer::serde_json::json!(-5));
/// assert_eq!(int(i128::from(u64::MAX)).to_string(), "18446744073709551615");
/// ```
pub fn int(value: i128) -> Value {
    if let Ok(v) = i64::try_from(value) {
        Value::Number(Number::from(v))
    } else if let Ok(v) = u64::try_from(value) {
        Value::Number(Number::from(v))
    } else {
        Value::String(value.to_string())
    }
}

/// A JSON number as an exact integer; `None` for floats (`1.0` included) and non-numbers.
///
/// ```
/// use metalayer::value::json::as_int;
///
/// assert_eq!(as_int(&metalayer::serde_json::json!(7)), Some(7));
/// assert_eq!(as_int(&metalayer::serde_json::json!(7.0)), None);
/// ```
pub fn as_int(value: &Value) -> Option<i128> {
    let n = value.as_number()?;
    n.as_i64().map(i128::from).or_else(|| n.as_u64().map(i128::from))
}

/// The strings that stand for the non-finite floats.
const NAN: &str = "NaN";
const INF: &str = "inf";
const NEG_INF: &str = "-inf";

/// A float64 as the shortest JSON number that reads back to it; NaN and the infinities as the
/// strings `"NaN"`, `"inf"` and `"-inf"`.
///
/// ```
/// assert_eq!(metalayer::value::json::f64(f64::INFINITY), metalayer::serde_json::json!("inf"));
/// ```
pub fn f64(value: f64) -> Value {
    match Number::from_f64(value) {
        Some(n) => Value::Number(n),
        None => non_finite(value),
    }
}

/// A float32 as the shortest decimal that reads back to it as a float32 (`0.1`, not the
/// float64 `0.10000000149011612` it widens to).
///
/// ```
/// assert_eq!(metalayer::value::json::f32(0.1).to_string(), "0.1");
/// ```
pub fn f32(value: f32) -> Value {
    if !value.is_finite() {
        return non_finite(f64::from(value));
    }
    f64(shortest_f32(value))
}

/// The float64 nearest to the shortest decimal of `value` as a float32. Rust prints floats
/// with the fewest digits that read back to the same value.
fn shortest_f32(value: f32) -> f64 {
    value.to_string().parse().unwrap_or(f64::from(value))
}

fn non_finite_text(value: f64) -> &'static str {
    if value.is_nan() {
        NAN
    } else if value > 0.0 {
        INF
    } else {
        NEG_INF
    }
}

fn non_finite(value: f64) -> Value {
    Value::String(non_finite_text(value).to_owned())
}

/// A JSON number or one of the strings `"NaN"`, `"inf"`, `"-inf"` as a float64.
///
/// ```
/// use metalayer::value::json::as_f64;
///
/// assert_eq!(as_f64(&metalayer::serde_json::json!(1.5)), Some(1.5));
/// assert!(as_f64(&metalayer::serde_json::json!("NaN")).is_some_and(f64::is_nan));
/// ```
pub fn as_f64(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) if s == NAN => Some(f64::NAN),
        Value::String(s) if s == INF => Some(f64::INFINITY),
        Value::String(s) if s == NEG_INF => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

/// The float32 that [`f32()`] prints as `value`, or else the float32 nearest to `value`; `None`
/// when a finite `value` lies beyond float32's range.
///
/// Rounding the float64 to a float32 would be enough but for the rare decimals that lie a hair
/// from the midpoint of two float32s, where rounding twice can pick the wrong one: the two
/// neighbours of the rounded value are tried too.
///
/// ```
/// use metalayer::value::json::to_f32;
///
/// assert_eq!(to_f32(0.1), Some(0.1f32));
/// assert_eq!(to_f32(1e300), None);
/// ```
pub fn to_f32(value: f64) -> Option<f32> {
    let nearest = value as f32;
    if value.is_finite() && !nearest.is_finite() {
        return None;
    }
    if value.is_nan() || !value.is_finite() {
        return Some(nearest);
    }
    let printed_as = |x: f32| x.is_finite() && shortest_f32(x).to_bits() == value.to_bits();
    [nearest, nearest.next_down(), nearest.next_up()]
        .into_iter()
        .find(|&x| printed_as(x))
        .or(Some(nearest))
}

/// Lowercase hex of `bytes`, without separators.
///
/// ```
/// assert_eq!(metalayer::value::json::hex(&[0x00, 0xab]), "00ab");
/// ```
pub fn hex(bytes: &[u8]) -> String {
    Hex(bytes).to_string()
}

/// Parses hex text: digit pairs in either case; whitespace between them and a `0x` prefix are
/// ignored.
///
/// ```
/// use metalayer::value::json::parse_hex;
///
/// assert_eq!(parse_hex("0x00 AB"), Ok(vec![0x00, 0xab]));
/// assert!(parse_hex("abc").is_err());
/// ```
pub fn parse_hex(text: &str) -> Result<Vec<u8>, String> {
    let text = text.trim();
    let text = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .unwrap_or(text);
    let digits: Vec<(usize, char)> = text.char_indices().filter(|(_, c)| !c.is_whitespace()).collect();
    if !digits.len().is_multiple_of(2) {
        return Err(format!("odd number of hex digits ({})", digits.len()));
    }
    digits
        .chunks_exact(2)
        .map(|pair| {
            let mut byte = 0u8;
            for &(at, c) in pair {
                let nibble = c
                    .to_digit(16)
                    .ok_or_else(|| format!("not a hex digit at character {at}: {c:?}"))?;
                // A hex digit is below 16, so it fits a nibble.
                byte = (byte << 4) | u8::try_from(nibble).unwrap_or(0);
            }
            Ok(byte)
        })
        .collect()
}

/// What a JSON value is, for messages: `the number 10.5`, `the string "10"`, `an array`.
///
/// ```
/// use metalayer::value::json::kind;
///
/// assert_eq!(kind(&metalayer::serde_json::json!(10.5)), "the number 10.5");
/// assert_eq!(kind(&metalayer::serde_json::json!([])), "an array");
/// ```
pub fn kind(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {}", Value::String(s.clone())),
        Value::Array(_) => "an array".to_owned(),
        Value::Object(_) => "an object".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_are_exact() {
        assert_eq!(int(9_007_199_254_740_993).to_string(), "9007199254740993");
        assert_eq!(int(i128::from(u64::MAX)).to_string(), "18446744073709551615");
        assert_eq!(int(-5).to_string(), "-5");
        assert_eq!(
            as_int(&serde_json::json!(18446744073709551615u64)),
            Some(i128::from(u64::MAX))
        );
        assert_eq!(as_int(&serde_json::json!(1.0)), None);
    }

    #[test]
    fn float32_prints_its_own_shortest_decimal() {
        assert_eq!(f32(0.1).to_string(), "0.1");
        assert_eq!(f64(f64::from(0.1f32)).to_string(), "0.10000000149011612");
        assert_eq!(f32(1.0).to_string(), "1.0");
        assert_eq!(f32(-0.0).to_string(), "-0.0");
        assert_eq!(f32(f32::MAX).to_string(), "3.4028235e+38");
        assert_eq!(f32(f32::NAN), Value::String("NaN".into()));
        assert_eq!(f32(f32::NEG_INFINITY), Value::String("-inf".into()));
        assert_eq!(f64(f64::INFINITY), Value::String("inf".into()));
    }

    #[test]
    fn every_float32_reads_back() {
        // Powers of two, their neighbours, subnormals, and values with 9 significant digits.
        let mut values = vec![
            f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::MAX,
            16_777_217.0,
            1e-45,
            3.4e38,
        ];
        for e in -149..128 {
            let p = 2f32.powi(e);
            values.extend([p, p.next_up(), p.next_down(), -p]);
        }
        for bits in (0..0x7f80_0000u32).step_by(0x0001_0f01) {
            values.push(f32::from_bits(bits));
        }
        for x in values {
            let printed = f32(x).to_string();
            let read: Value = serde_json::from_str(&printed).unwrap_or(Value::Null);
            let back = as_f64(&read).and_then(to_f32);
            assert_eq!(back.map(f32::to_bits), Some(x.to_bits()), "{x:e} printed as {printed}");
        }
        assert_eq!(to_f32(1e300), None);
        assert_eq!(to_f32(f64::INFINITY), Some(f32::INFINITY));
    }

    #[test]
    fn hex_round_trip() {
        assert_eq!(hex(&[0x00, 0xab, 0x7f]), "00ab7f");
        let every: Vec<u8> = (0..=255).collect();
        let by_format: String = every.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex(&every), by_format);
        assert_eq!(parse_hex("0x00 ab\n7F"), Ok(vec![0x00, 0xab, 0x7f]));
        assert!(parse_hex("abc").is_err());
        assert!(parse_hex("zz").is_err());
    }
}
