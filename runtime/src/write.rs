//! The encoder's writes for every msgpack family, fixed and canonical.

use crate::encode::Encoder;
use crate::wire::{Family, Wire, marker};

/// Big-endian bytes of `v`, the last `width` of them.
#[inline(always)]
fn write_be(e: &mut Encoder<'_>, v: u64, width: usize) {
    e.bytes(&v.to_be_bytes()[8 - width..]);
}

impl Encoder<'_> {
    /// Writes an integer in its smallest encoding; `v` lies in int64 ∪ uint64, which the
    /// generated code has checked.
    ///
    /// ```
    /// use metalayer_runtime::Encoder;
    ///
    /// let mut buf = [0u8; 5];
    /// let mut e = Encoder::new(&mut buf, 5, "x")?;
    /// e.any_int(300);
    /// e.any_int(-5);
    /// e.any_int(3);
    /// assert_eq!(e.finish(), 5);
    /// assert_eq!(buf, [0xcd, 0x01, 0x2c, 0xfb, 0x03]);
    /// # Ok::<(), metalayer_runtime::EncodeError>(())
    /// ```
    #[inline]
    pub fn any_int(&mut self, v: i128) {
        let wire = Wire::smallest_int(v).unwrap_or(Wire::Int64);
        self.int_as(wire, v);
    }

    /// Writes an integer as `wire`; `v` lies in the wire type's range, which the generated code
    /// has checked.
    ///
    /// ```
    /// use metalayer_runtime::{Encoder, wire::Wire};
    ///
    /// let mut buf = [0u8; 5];
    /// let mut e = Encoder::new(&mut buf, 5, "x")?;
    /// e.int_as(Wire::Int32, -2);
    /// assert_eq!(buf, [0xd2, 0xff, 0xff, 0xff, 0xfe]);
    /// # Ok::<(), metalayer_runtime::EncodeError>(())
    /// ```
    #[inline]
    pub fn int_as(&mut self, wire: Wire, v: i128) {
        match wire.marker() {
            None => self.byte(v as u8),
            Some(m) => {
                self.byte(m);
                write_be(self, v as u64, wire.width());
            }
        }
    }

    /// Writes the header of a str, bin, array or map of the fixed wire type `wire` for `len`,
    /// which fits it (the generated code has checked).
    ///
    /// ```
    /// use metalayer_runtime::{Encoder, wire::Wire};
    ///
    /// let mut buf = [0u8; 4];
    /// let mut e = Encoder::new(&mut buf, 4, "x")?;
    /// e.header(Wire::FixStr, 3);
    /// e.header(Wire::Map16, 2);
    /// assert_eq!(buf, [0xa3, 0xde, 0x00, 0x02]);
    /// # Ok::<(), metalayer_runtime::EncodeError>(())
    /// ```
    #[inline]
    pub fn header(&mut self, wire: Wire, len: usize) {
        match wire.marker() {
            Some(m) => {
                self.byte(m);
                write_be(self, len as u64, wire.width());
            }
            None => self.byte(wire.markers().0.wrapping_add(len as u8)),
        }
    }

    /// Writes the smallest header of `family` for `len`.
    ///
    /// ```
    /// use metalayer_runtime::{Encoder, wire::Family};
    ///
    /// let mut buf = [0u8; 3];
    /// let mut e = Encoder::new(&mut buf, 3, "x")?;
    /// e.any_header(Family::Array, 16);
    /// assert_eq!(buf, [0xdc, 0x00, 0x10]);
    /// # Ok::<(), metalayer_runtime::EncodeError>(())
    /// ```
    #[inline]
    pub fn any_header(&mut self, family: Family, len: usize) {
        let wires = family.wires();
        let wire = Wire::smallest_len(family, len as u64).unwrap_or(wires[wires.len() - 1]);
        self.header(wire, len);
    }

    /// Writes an ext header of the fixed wire type `wire`: marker, length (not for a fixext)
    /// and type byte.
    ///
    /// ```
    /// use metalayer_runtime::{Encoder, wire::Wire};
    ///
    /// let mut buf = [0u8; 2];
    /// let mut e = Encoder::new(&mut buf, 2, "x")?;
    /// e.ext_header(Wire::FixExt16, 6, 16);
    /// assert_eq!(buf, [0xd8, 0x06]);
    /// # Ok::<(), metalayer_runtime::EncodeError>(())
    /// ```
    #[inline]
    pub fn ext_header(&mut self, wire: Wire, ty: i8, len: usize) {
        self.byte(wire.marker().unwrap_or(marker::EXT32));
        if wire.fixext_len().is_none() {
            write_be(self, len as u64, wire.width());
        }
        self.byte(ty as u8);
    }

    /// Writes the smallest ext header for `len` data bytes.
    ///
    /// ```
    /// let mut buf = [0u8; 3];
    /// let mut e = metalayer_runtime::Encoder::new(&mut buf, 3, "x")?;
    /// e.any_ext_header(42, 3);
    /// assert_eq!(buf, [0xc7, 0x03, 0x2a]);
    /// # Ok::<(), metalayer_runtime::EncodeError>(())
    /// ```
    #[inline]
    pub fn any_ext_header(&mut self, ty: i8, len: usize) {
        let wire = Wire::smallest_len(Family::Ext, len as u64).unwrap_or(Wire::Ext32);
        self.ext_header(wire, ty, len);
    }

    /// Writes a map record's key: a str in its smallest encoding.
    ///
    /// ```
    /// let mut buf = [0u8; 5];
    /// let mut e = metalayer_runtime::Encoder::new(&mut buf, 5, "x")?;
    /// e.key("kind");
    /// assert_eq!(&buf, b"\xa4kind");
    /// # Ok::<(), metalayer_runtime::EncodeError>(())
    /// ```
    #[inline]
    pub fn key(&mut self, key: &str) {
        self.any_header(Family::Str, key.len());
        self.bytes(key.as_bytes());
    }
}

/// The encoded size of a map record's key: the smallest str header and the key's bytes.
///
/// ```
/// assert_eq!(metalayer_runtime::key_size("kind"), 5);
/// ```
#[inline]
pub const fn key_size(key: &str) -> usize {
    Wire::smallest_header_size(Family::Str, key.len() as u64) + key.len()
}
