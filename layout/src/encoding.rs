//! The bytes a layout fixes: constants, map record keys and fixed headers, encoded by the
//! runtime's encoder, the same code that encodes values. The code generator writes them as
//! literals, the command compares them, and the analysis that tells layouts apart reads them;
//! msgpack's rules stay in the runtime.

use metalayer_runtime::{Encoder, key_size};

use crate::model::{Const, Encoding, Node, Type, Wire};
use crate::size;

/// The `len` bytes the runtime's encoder writes with `write`.
fn encoded(len: usize, write: impl FnOnce(&mut Encoder<'_>)) -> Vec<u8> {
    let mut buf = vec![0; len];
    if let Ok(mut e) = Encoder::new(&mut buf, len, "") {
        write(&mut e);
    }
    buf
}

/// The bytes of a header of `wire` for a length or count `len`.
///
/// ```
/// use metalayer_layout::{Wire, encoding::header_bytes};
///
/// assert_eq!(header_bytes(Wire::FixArray, 3), [0x93]);
/// assert_eq!(header_bytes(Wire::Map16, 300), [0xde, 0x01, 0x2c]);
/// ```
pub fn header_bytes(wire: Wire, len: usize) -> Vec<u8> {
    encoded(wire.header_size(), |e| e.header(wire, len))
}

/// The bytes of a map record's key, as standard writers write a string.
///
/// ```
/// assert_eq!(metalayer_layout::encoding::key_bytes("ab"), [0xa2, b'a', b'b']);
/// ```
pub fn key_bytes(key: &str) -> Vec<u8> {
    encoded(key_size(key), |e| e.key(key))
}

/// The encoding of a constant of `node`'s type, marker included (empty for a type that has no
/// constants). A canonical encoding gives the smallest form, the only one a strict decoder
/// accepts.
///
/// ```
/// use metalayer_layout::{Const, encoding::const_bytes};
///
/// let layout = metalayer_layout::builtin("b2nd_v1").unwrap().layout().unwrap();
/// let version = &layout.root_record().unwrap().entries[0];
/// assert_eq!(const_bytes(&version.node, &Const::Int(0)), [0x00]);
/// ```
pub fn const_bytes(node: &Node, c: &Const) -> Vec<u8> {
    // The checker allows constants of scalar types only, whose size is known.
    let Some(len) = size::const_size(node, c) else {
        return Vec::new();
    };
    encoded(len, |e| match (&node.ty, c) {
        (_, Const::Nil) => e.byte(Wire::Nil.markers().0),
        (_, Const::Bool(b)) => e.byte(Wire::Bool.markers().0 + u8::from(*b)),
        (Type::Int(t), Const::Int(v)) => match t.encoding {
            Encoding::Fixed(w) => e.int_as(w, *v),
            Encoding::Canonical { .. } => e.any_int(*v),
        },
        (Type::Float(w), Const::Float(_)) => {
            e.byte(w.marker().unwrap_or_default());
            e.bytes(&const_payload(node, c));
        }
        (Type::Str(_) | Type::Bin(_), Const::Bytes(b)) => {
            let Some((encoding, family, _)) = node.ty.bytes_layout() else {
                return;
            };
            match encoding {
                Encoding::Fixed(w) => e.header(w, b.len()),
                Encoding::Canonical { .. } => e.any_header(family, b.len()),
            }
            e.bytes(b);
        }
        _ => {}
    })
}

/// The payload of a constant, as a decoder compares it: a string's bytes, a float's bits in the
/// width of its wire type (empty for other types).
///
/// ```
/// use metalayer_layout::{Const, Node, Type, Wire, encoding::const_payload};
///
/// let float32 = Node { ty: Type::Float(Wire::Float32), span: 0..0, file: 0 };
/// assert_eq!(const_payload(&float32, &Const::Float(1.0)), [0x3f, 0x80, 0, 0]);
/// ```
pub fn const_payload(node: &Node, c: &Const) -> Vec<u8> {
    match (&node.ty, c) {
        (Type::Float(Wire::Float32), Const::Float(f)) => (*f as f32).to_bits().to_be_bytes().to_vec(),
        (Type::Float(_), Const::Float(f)) => f.to_bits().to_be_bytes().to_vec(),
        (_, Const::Bytes(b)) => b.clone(),
        _ => Vec::new(),
    }
}
