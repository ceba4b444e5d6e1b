//! The decoder's reads for every msgpack family: fixed wire types (the schema names the marker)
//! and canonical ones (any wire type of the family, by default only its smallest encoding).

use crate::decode::Decoder;
use crate::error::{DecodeError, DecodeErrorKind, Int, Path};
use crate::name::Name;
use crate::wire::{Family, Wire, marker};

/// Big-endian bytes to an unsigned number.
#[inline(always)]
fn be(bytes: &[u8]) -> u64 {
    let mut v = 0u64;
    for &b in bytes {
        v = (v << 8) | u64::from(b);
    }
    v
}

impl<'de> Decoder<'de> {
    /// Reads the marker byte and returns it with its wire type, checking that it belongs to
    /// `family`.
    #[inline]
    fn family_marker(&mut self, family: Family, path: &Path) -> Result<(u8, Wire), DecodeError> {
        let at = self.position();
        let found = self.byte(path)?;
        match Wire::of_marker(found) {
            Some(w) if w.family() == family => Ok((found, w)),
            _ => Err(self.fail(
                at,
                path,
                DecodeErrorKind::Family {
                    expected: family,
                    found,
                },
            )),
        }
    }

    /// Reads `nil` (`0xc0`).
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// Decoder::new(&[0xc0], "x").nil(&Path::entry(&"n"))?;
    /// let err = Decoder::new(&[0xc2], "x").nil(&Path::entry(&"n")).unwrap_err();
    /// assert_eq!(err.to_string(), "x: at byte 0x00 in n: expected nil marker 0xc0, found 0xc2");
    /// # Ok::<(), metalayer_runtime::DecodeError>(())
    /// ```
    #[inline]
    pub fn nil(&mut self, path: &Path) -> Result<(), DecodeError> {
        self.marker(marker::NIL, "nil", path)
    }

    /// Reads a boolean (`0xc2` false, `0xc3` true).
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// assert!(Decoder::new(&[0xc3], "x").bool(&Path::entry(&"b"))?);
    /// let err = Decoder::new(&[0x01], "x").bool(&Path::entry(&"b")).unwrap_err();
    /// assert_eq!(err.to_string(), "x: at byte 0x00 in b: expected bool (0xc2..=0xc3), found 0x01 (fixint)");
    /// # Ok::<(), metalayer_runtime::DecodeError>(())
    /// ```
    #[inline]
    pub fn bool(&mut self, path: &Path) -> Result<bool, DecodeError> {
        let (found, _) = self.family_marker(Family::Bool, path)?;
        Ok(found == marker::TRUE)
    }

    /// Reads a negative fixint (`0xe0..=0xff`, -32..=-1).
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// assert_eq!(Decoder::new(&[0xfb], "x").neg_fixint(&Path::entry(&"v"))?, -5);
    /// assert!(Decoder::new(&[0x05], "x").neg_fixint(&Path::entry(&"v")).is_err());
    /// # Ok::<(), metalayer_runtime::DecodeError>(())
    /// ```
    #[inline]
    pub fn neg_fixint(&mut self, path: &Path) -> Result<i8, DecodeError> {
        let at = self.position();
        let found = self.byte(path)?;
        if found < marker::NEGFIXINT {
            return Err(self.fail(
                at,
                path,
                DecodeErrorKind::Marker {
                    wire: "negfixint",
                    expected: marker::NEGFIXINT,
                    found,
                },
            ));
        }
        Ok(found as i8)
    }

    /// Reads an integer of any integer wire type. With `smallest`, only the smallest encoding
    /// of the value is accepted, as standard msgpack writers produce it, so that every accepted
    /// input re-encodes to itself.
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// assert_eq!(Decoder::new(&[0xcd, 0x01, 0x2c], "x").any_int(true, &Path::entry(&"v"))?, 300);
    /// assert_eq!(Decoder::new(&[0xfb], "x").any_int(true, &Path::entry(&"v"))?, -5);
    /// let wide = [0xd3, 0, 0, 0, 0, 0, 0, 0, 3];
    /// assert_eq!(Decoder::new(&wide, "x").any_int(false, &Path::entry(&"v"))?, 3);
    /// let err = Decoder::new(&wide, "x").any_int(true, &Path::entry(&"v")).unwrap_err();
    /// assert_eq!(err.to_string(), "x: at byte 0x00 in v: expected the smallest encoding fixint, found int64");
    /// # Ok::<(), metalayer_runtime::DecodeError>(())
    /// ```
    #[inline]
    pub fn any_int(&mut self, smallest: bool, path: &Path) -> Result<i128, DecodeError> {
        let at = self.position();
        let (found, wire) = self.family_marker(Family::Int, path)?;
        let value = match wire {
            Wire::PosFixInt => i128::from(found),
            Wire::NegFixInt => i128::from(found as i8),
            _ => {
                let payload = self.bytes(wire.width(), path)?;
                let raw = be(payload);
                if wire.is_signed() {
                    // Sign-extend the big-endian payload of its width.
                    let shift = 64 - 8 * wire.width() as u32;
                    i128::from(((raw << shift) as i64) >> shift)
                } else {
                    i128::from(raw)
                }
            }
        };
        if smallest {
            let expected = Wire::smallest_int(value).unwrap_or(wire);
            if expected != wire {
                return Err(self.fail(at, path, DecodeErrorKind::NotSmallest { expected, found: wire }));
            }
        }
        Ok(value)
    }

    /// Reads `len` bytes.
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// let mut d = Decoder::new(b"abc", "x");
    /// assert_eq!(d.bytes(2, &Path::entry(&"v"))?, b"ab");
    /// assert!(d.bytes(2, &Path::entry(&"v")).is_err());
    /// # Ok::<(), metalayer_runtime::DecodeError>(())
    /// ```
    #[inline]
    pub fn bytes(&mut self, len: usize, path: &Path) -> Result<&'de [u8], DecodeError> {
        self.require(len, path)?;
        let start = self.position();
        self.advance(len);
        Ok(&self.input()[start..start + len])
    }

    /// Checks that `bytes`, which start at `start`, are UTF-8.
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// let d = Decoder::new(&[], "x");
    /// assert_eq!(d.utf8(b"ok", 0, &Path::entry(&"s"))?, "ok");
    /// let err = d.utf8(b"a\xff", 4, &Path::entry(&"s")).unwrap_err();
    /// assert_eq!(err.offset(), 5);
    /// # Ok::<(), metalayer_runtime::DecodeError>(())
    /// ```
    #[inline]
    pub fn utf8(&self, bytes: &'de [u8], start: usize, path: &Path) -> Result<&'de str, DecodeError> {
        core::str::from_utf8(bytes).map_err(|e| {
            let valid_up_to = e.valid_up_to();
            self.fail(start + valid_up_to, path, DecodeErrorKind::InvalidUtf8 { valid_up_to })
        })
    }

    /// Reads the header of a str, bin, array or map of the fixed wire type `wire` and returns
    /// its length or count. A fixstr, fixarray or fixmap marker carries the length itself.
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path, wire::Wire};
    ///
    /// assert_eq!(Decoder::new(&[0xa3], "x").header(Wire::FixStr, &Path::entry(&"s"))?, 3);
    /// assert_eq!(Decoder::new(&[0xdc, 0x01, 0x00], "x").header(Wire::Array16, &Path::entry(&"a"))?, 256);
    /// let err = Decoder::new(&[0xdd], "x").header(Wire::Array16, &Path::entry(&"a")).unwrap_err();
    /// assert_eq!(err.to_string(), "x: at byte 0x00 in a: expected array16 marker 0xdc, found 0xdd");
    /// # Ok::<(), metalayer_runtime::DecodeError>(())
    /// ```
    #[inline]
    pub fn header(&mut self, wire: Wire, path: &Path) -> Result<usize, DecodeError> {
        let at = self.position();
        match wire.marker() {
            Some(m) => {
                self.marker(m, wire.name(), path)?;
                let len = be(self.bytes(wire.width(), path)?);
                Ok(usize::try_from(len).unwrap_or(usize::MAX))
            }
            None => {
                let (lo, hi) = wire.markers();
                let found = self.byte(path)?;
                if found < lo || found > hi {
                    return Err(self.fail(
                        at,
                        path,
                        DecodeErrorKind::Marker {
                            wire: wire.name(),
                            expected: lo,
                            found,
                        },
                    ));
                }
                Ok(usize::from(found - lo))
            }
        }
    }

    /// Reads the header of a str, bin, array or map of any wire type of `family` and returns
    /// its length or count; with `smallest`, only the smallest header for that length.
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path, wire::Family};
    ///
    /// assert_eq!(Decoder::new(&[0x93], "x").any_header(Family::Array, true, &Path::entry(&"a"))?, 3);
    /// let err = Decoder::new(&[0xd9, 0x03], "x").any_header(Family::Str, true, &Path::entry(&"s")).unwrap_err();
    /// assert_eq!(err.to_string(), "x: at byte 0x00 in s: expected the smallest encoding fixstr, found str8");
    /// # Ok::<(), metalayer_runtime::DecodeError>(())
    /// ```
    #[inline]
    pub fn any_header(&mut self, family: Family, smallest: bool, path: &Path) -> Result<usize, DecodeError> {
        let at = self.position();
        let (found, wire) = self.family_marker(family, path)?;
        let len = match wire.marker() {
            Some(_) => be(self.bytes(wire.width(), path)?),
            None => u64::from(found - wire.markers().0),
        };
        if smallest {
            let expected = Wire::smallest_len(family, len).unwrap_or(wire);
            if expected != wire {
                return Err(self.fail(at, path, DecodeErrorKind::NotSmallest { expected, found: wire }));
            }
        }
        Ok(usize::try_from(len).unwrap_or(usize::MAX))
    }

    /// Reads an ext header of the fixed wire type `wire` and returns its type byte and data
    /// length.
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path, wire::Wire};
    ///
    /// let mut d = Decoder::new(&[0xd8, 0x06], "x");
    /// assert_eq!(d.ext_header(Wire::FixExt16, &Path::entry(&"filters"))?, (6, 16));
    /// # Ok::<(), metalayer_runtime::DecodeError>(())
    /// ```
    #[inline]
    pub fn ext_header(&mut self, wire: Wire, path: &Path) -> Result<(i8, usize), DecodeError> {
        let m = wire.marker().unwrap_or(marker::EXT32);
        self.marker(m, wire.name(), path)?;
        let len = match wire.fixext_len() {
            Some(n) => n,
            None => usize::try_from(be(self.bytes(wire.width(), path)?)).unwrap_or(usize::MAX),
        };
        let ty = self.byte(path)? as i8;
        Ok((ty, len))
    }

    /// Reads an ext header of any ext wire type and returns its type byte and data length; with
    /// `smallest`, only the smallest header for that length (a fixext where one fits).
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// let mut d = Decoder::new(&[0xc7, 0x03, 0x2a], "x");
    /// assert_eq!(d.any_ext_header(true, &Path::entry(&"e"))?, (42, 3));
    /// # Ok::<(), metalayer_runtime::DecodeError>(())
    /// ```
    #[inline]
    pub fn any_ext_header(&mut self, smallest: bool, path: &Path) -> Result<(i8, usize), DecodeError> {
        let at = self.position();
        let (_, wire) = self.family_marker(Family::Ext, path)?;
        let len = match wire.fixext_len() {
            Some(n) => n as u64,
            None => be(self.bytes(wire.width(), path)?),
        };
        if smallest {
            let expected = Wire::smallest_len(Family::Ext, len).unwrap_or(wire);
            if expected != wire {
                return Err(self.fail(at, path, DecodeErrorKind::NotSmallest { expected, found: wire }));
            }
        }
        let ty = self.byte(path)? as i8;
        Ok((ty, usize::try_from(len).unwrap_or(usize::MAX)))
    }

    /// Fails unless a header's count `found` equals `expected` (an earlier entry's value, named
    /// `count_entry`, or the schema's fixed count when `count_entry` is empty).
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// let d = Decoder::new(&[], "x");
    /// let err = d.count(1, 2, 3, "ndim", &Path::entry(&"shape")).unwrap_err();
    /// assert_eq!(err.to_string(), "x: at byte 0x01 in shape: expected a count of 2 (ndim), found 3");
    /// ```
    #[inline]
    pub fn count(
        &self,
        at: usize,
        expected: usize,
        found: usize,
        count_entry: &'static str,
        path: &Path,
    ) -> Result<(), DecodeError> {
        if expected != found {
            return Err(self.fail(
                at,
                path,
                DecodeErrorKind::Count {
                    count_entry: Name::new(count_entry),
                    expected: expected as u64,
                    found: found as u64,
                },
            ));
        }
        Ok(())
    }

    /// Fails when a record header's number of entries, `found`, read at `at`, ends between two
    /// optional entries that go together: past the earlier (index `first_at`, named `first`)
    /// and not past the later (`last_at`, `last`).
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// let d = Decoder::new(&[], "x");
    /// let err = d.together(0, 6, (5, "dtype_format"), (6, "dtype"), &Path::CONTAINER).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "x: at byte 0x00 in the container: expected dtype_format and dtype both present or both absent, found 6 entries, which end between them"
    /// );
    /// assert!(d.together(0, 7, (5, "dtype_format"), (6, "dtype"), &Path::CONTAINER).is_ok());
    /// ```
    #[inline]
    pub fn together(
        &self,
        at: usize,
        found: usize,
        (first_at, first): (usize, &'static str),
        (last_at, last): (usize, &'static str),
        path: &Path,
    ) -> Result<(), DecodeError> {
        if found > first_at && found <= last_at {
            return Err(self.fail(
                at,
                path,
                DecodeErrorKind::Together {
                    first: Name::new(first),
                    last: Name::new(last),
                    found,
                },
            ));
        }
        Ok(())
    }

    /// Fails unless a string's or byte string's length, `found`, read at `at`, is the one the
    /// schema fixes (`len`).
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// let d = Decoder::new(&[], "x");
    /// let err = d.length(0, 32, 31, &Path::entry(&"digest")).unwrap_err();
    /// assert_eq!(err.to_string(), "x: at byte 0x00 in digest: expected a length of 32 bytes, found 31");
    /// assert!(d.length(0, 32, 32, &Path::entry(&"digest")).is_ok());
    /// ```
    #[inline]
    pub fn length(&self, at: usize, expected: usize, found: usize, path: &Path) -> Result<(), DecodeError> {
        if expected != found {
            let kind = DecodeErrorKind::Length {
                expected: expected as u64,
                found: found as u64,
            };
            return Err(self.fail(at, path, kind));
        }
        Ok(())
    }

    /// Fails unless a record header's number of entries lies in `min..=max`.
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// let d = Decoder::new(&[], "x");
    /// let err = d.entries(0, 4, 5, 7, &Path::CONTAINER).unwrap_err();
    /// assert_eq!(err.to_string(), "x: at byte 0x00 in the container: expected 5..=7 entries, found 4");
    /// ```
    #[inline]
    pub fn entries(&self, at: usize, found: usize, min: usize, max: usize, path: &Path) -> Result<(), DecodeError> {
        if found < min || found > max {
            return Err(self.fail(
                at,
                path,
                DecodeErrorKind::Entries {
                    min,
                    max,
                    found: found as u64,
                },
            ));
        }
        Ok(())
    }

    /// Fails unless a sequence of `count` elements, each at least `min_size` bytes, can fit in
    /// what is left: a hostile count is refused before anything is allocated for it.
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// let d = Decoder::new(&[1, 2, 3], "x");
    /// assert!(d.fits(3, 1, &Path::entry(&"a")).is_ok());
    /// let err = d.fits(0xffff_ffff, 1, &Path::entry(&"a")).unwrap_err();
    /// assert_eq!(err.to_string(), "x: at byte 0x00 in a: expected 4294967295 more bytes, found 3");
    /// ```
    #[inline]
    pub fn fits(&self, count: usize, min_size: usize, path: &Path) -> Result<(), DecodeError> {
        self.require(count.saturating_mul(min_size), path)
    }

    /// Reads a map record's key, a str in its smallest encoding, and checks that it is
    /// `expected`.
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// Decoder::new(b"\xa4kind", "x").key("kind", &Path::entry(&"kind"))?;
    /// let err = Decoder::new(b"\xa4kine", "x").key("kind", &Path::entry(&"kind")).unwrap_err();
    /// assert_eq!(err.to_string(), "x: at byte 0x00 in kind: expected key \"kind\", found another key");
    /// # Ok::<(), metalayer_runtime::DecodeError>(())
    /// ```
    #[inline]
    pub fn key(&mut self, expected: &'static str, path: &Path) -> Result<(), DecodeError> {
        let at = self.position();
        let len = self.any_header(Family::Str, true, path)?;
        let bytes = self.bytes(len, path)?;
        if bytes != expected.as_bytes() {
            return Err(self.fail(
                at,
                path,
                DecodeErrorKind::Key {
                    expected: Name::new(expected),
                },
            ));
        }
        Ok(())
    }

    /// Fails unless `found` equals the schema's constant `expected` (a string's or byte
    /// string's content; a float's or bool's encoding); `at` is the value's offset.
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// let d = Decoder::new(&[], "x");
    /// let err = d.constant_bytes(1, b"b2frame\x01", b"b2frame\0", &Path::entry(&"magic")).unwrap_err();
    /// assert_eq!(err.to_string(), "x: at byte 0x01 in magic: expected constant \"b2frame\\0\", found another value");
    /// ```
    #[inline]
    pub fn constant_bytes(
        &self,
        at: usize,
        found: &[u8],
        expected: &'static [u8],
        path: &Path,
    ) -> Result<(), DecodeError> {
        if found != expected {
            return Err(self.fail(
                at,
                path,
                DecodeErrorKind::ConstantBytes {
                    expected: Name::new(expected),
                },
            ));
        }
        Ok(())
    }

    /// Fails unless `found` is one of `values`, the schema's named values (listed in `names`).
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// let d = Decoder::new(&[], "x");
    /// assert!(d.named(0, 0, &[0], "numpy = 0", &Path::entry(&"dtype_format")).is_ok());
    /// let err = d.named(0, 3, &[0], "numpy = 0", &Path::entry(&"dtype_format")).unwrap_err();
    /// assert_eq!(err.to_string(), "x: at byte 0x00 in dtype_format: expected one of numpy = 0, found 3");
    /// ```
    #[inline]
    pub fn named(
        &self,
        at: usize,
        found: i128,
        values: &[i128],
        names: &'static str,
        path: &Path,
    ) -> Result<(), DecodeError> {
        if !values.contains(&found) {
            return Err(self.fail(
                at,
                path,
                DecodeErrorKind::NotNamed {
                    names: Name::new(names),
                    found: Int::new(found),
                },
            ));
        }
        Ok(())
    }

    /// Fails unless an ext's type byte is the schema's.
    ///
    /// ```
    /// use metalayer_runtime::{Decoder, Path};
    ///
    /// let d = Decoder::new(&[], "x");
    /// let err = d.ext_type(1, 5, 6, &Path::entry(&"filters")).unwrap_err();
    /// assert_eq!(err.to_string(), "x: at byte 0x01 in filters: expected ext type 6, found 5");
    /// ```
    #[inline]
    pub fn ext_type(&self, at: usize, found: i8, expected: i8, path: &Path) -> Result<(), DecodeError> {
        if found != expected {
            return Err(self.fail(at, path, DecodeErrorKind::ExtType { expected, found }));
        }
        Ok(())
    }
}
