//! Encoders and decoders for the msgpack metalayers of Blosc2 files, generated from schema files.
//!
//! A Blosc2 frame stores an n-dimensional array's shape, chunk shape, block shape and dtype in a
//! small msgpack metalayer (`b2nd`, formerly `caterva`) with a fixed byte layout. Each layout
//! version is described once, in a TOML schema file; `#[metalayer(schema = "...")]` reads it at
//! compile time, checks the schema and the struct against each other, and generates a strict
//! decoder and an encoder that writes exactly the bytes c-blosc2 writes.
//!
//! ```
//! use metalayer::prelude::*;
//!
//! #[metalayer(schema = "b2nd_v1")]
//! #[derive(Debug, Clone, PartialEq)]
//! pub struct ArrayMeta {
//!     pub shape: Vec<i64>,
//!     pub chunkshape: Vec<i32>,
//!     pub blockshape: Vec<i32>,
//!     pub dtype_format: u8,
//!     pub dtype: String,
//! }
//!
//! let meta = ArrayMeta {
//!     shape: vec![400, 3],
//!     chunkshape: vec![110, 3],
//!     blockshape: vec![57, 3],
//!     dtype_format: 0,
//!     dtype: "|u1".into(),
//! };
//! let bytes = meta.encode()?;
//! assert_eq!(bytes.len(), 12 + 19 * 2 + 3);
//! assert_eq!(&bytes[..4], [0x97, 0x00, 0x02, 0x92]);
//! assert_eq!(ArrayMeta::decode(&bytes)?, meta);
//!
//! // Decoding is strict, and errors say where and why.
//! let mut bad = bytes.clone();
//! bad[0x0d] = 0xd2;
//! assert_eq!(
//!     ArrayMeta::decode(&bad).unwrap_err().to_string(),
//!     "b2nd_v1: at byte 0x0d in shape[1]: expected int64 marker 0xd3, found 0xd2"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The attribute
//!
//! - `schema = "name"` names a built-in schema (c-blosc2's `caterva_v0`, `b2nd_v0`, `b2nd_v1`;
//!   python-blosc2's `b2o_v1`, `lazyarray_v0`, `proxy_source_local_v0`, ...: with the feature
//!   `value`, `metalayer::report::builtin(name)` gives each one's layout) or else
//!   `schemas/name.toml` in the crate that uses it (under `CARGO_MANIFEST_DIR`). A crate file
//!   named like a built-in is an error; `schema_path` reads it.
//! - `schema_path = "rel/path.toml"` names a schema file relative to `CARGO_MANIFEST_DIR`. The
//!   files it extends or includes are found relative to it, and editing any of them rebuilds
//!   the crate.
//! - `layout = "type"`, beside `schema` or `schema_path`, binds the struct to the schema's named
//!   record type `[types.type]` instead of its top-level value: it implements [`Record`], and
//!   another struct's field of that record type holds it.
//! - `crate = "path"` names this crate where it is renamed (default `::metalayer`).
//! - `#[metalayer(dispatch)]` on an enum, with `#[metalayer(schema = "...")]` or
//!   `schema_path` (and optionally `name = "..."`, the metalayer name it is stored under) on each
//!   one-field variant, chooses the layout from a metalayer's name and bytes: see below, and
//!   [`Known`].
//!
//! A record's struct has one named field per entry whose value the user provides, named like the
//! entry. Constants (`version`) and counts (`ndim`) are not fields: the encoder derives them and
//! the decoder checks them. A schema whose top-level value is not a record (python-blosc2's
//! `LazyArray` is one integer) binds to a struct with one field, a tuple struct or one named
//! field. A field's type is checked through the trait of its kind, never by its spelling, so
//! aliases, newtypes and a user's own types bind too:
//!
//! | entry | trait | field types |
//! |---|---|---|
//! | integer | [`IntValue`] | any integer type whose range covers the entry's (a fixint binds to `u8`, `i8`, `u16`, ...); a canonical integer is checked against the type's range on decode |
//! | float32, float64 | [`FloatValue`] | `f32`, `f64` (the widths must match) |
//! | bool | [`BoolValue`] | `bool` |
//! | string | [`StrField`] | `String`, `Box<str>`, `&'a str` (borrowed from the input), `arrayvec::ArrayString<N>` (feature `arrayvec`) |
//! | bin, raw string, ext with a constant type | [`BinField`] | `Vec<u8>`, `Box<[u8]>`, `&'a [u8]`, `[u8; N]` (`[u8; 32]` for `len = 32`), `arrayvec::ArrayVec<u8, N>` |
//! | ext with its type byte | [`ExtField`] | [`Ext<B>`](Ext) with any byte-string type `B` |
//! | timestamp (ext -1) | [`TimestampField`] | [`Timestamp`], which converts to and from `std::time::SystemTime` |
//! | array | [`ArrayField`] | `Vec<T>`, `[T; N]` (N within the count's bounds), `arrayvec::ArrayVec<T, N>`, of any element type, arrays included |
//! | map | [`ArrayField`] of [`Pair`]s | `Vec<(K, V)>`, in stored order |
//! | record type | [`Record`] | a struct with `#[metalayer(schema = "...", layout = "type")]` |
//! | optional entry | [`OptionField`] | `Option<T>` |
//!
//! A schema of nested values, with a record type and optional entries
//! (`tests/schemas/nested_v0.toml` holds the rest of this layout):
//!
//! ```
//! use metalayer::prelude::*;
//! use metalayer::Ext;
//!
//! #[metalayer(schema_path = "tests/schemas/nested_v0.toml")]
//! #[derive(Debug, PartialEq)]
//! struct Nested {
//!     scale: f64,
//!     ratio: f32,
//!     enabled: bool,
//!     level: i32,
//!     tags: Vec<String>,
//!     grid: Vec<Vec<i64>>,
//!     operands: Vec<Operand>,
//!     blob: Vec<u8>,
//!     stamp: Ext<Vec<u8>>,
//!     attrs: Vec<(String, i64)>,
//!     note: Option<String>,
//!     origin: Option<[f64; 2]>,
//! }
//!
//! #[metalayer(schema_path = "tests/schemas/nested_v0.toml", layout = "operand")]
//! #[derive(Debug, PartialEq)]
//! struct Operand {
//!     kind: String,
//!     codec: u8,
//!     shape: Vec<u64>,
//! }
//!
//! let value = Nested {
//!     scale: 1.5, ratio: 0.25, enabled: true, level: 300,
//!     tags: vec!["a".into()], grid: vec![vec![1, -2]],
//!     operands: vec![Operand { kind: "x".into(), codec: 5, shape: vec![10] }],
//!     blob: vec![0xff], stamp: Ext { ty: 42, data: vec![1] }, attrs: vec![],
//!     note: None, origin: None,
//! };
//! let bytes = value.encode()?;
//! assert_eq!(bytes[0], 0x8b); // a map of the 11 entries present
//! assert_eq!(Nested::decode(&bytes)?, value);
//!
//! // python-blosc2's `LazyArray` metalayer is a single integer: a tuple struct holds it.
//! #[metalayer(schema = "lazyarray_v0")]
//! struct LazyArray(u8);
//! assert_eq!(LazyArray::decode(&[0x01])?.0, 1);
//! assert!(LazyArray::decode(&[0x02]).is_err()); // 0 (expr) or 1 (udf) only
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A borrowed or fixed-capacity struct decodes without allocating:
//!
//! ```
//! use metalayer::prelude::*;
//!
//! #[metalayer(schema = "b2nd_v1")]
//! struct Borrowed<'a> {
//!     shape: [i64; 2],
//!     chunkshape: [i32; 2],
//!     blockshape: [i32; 2],
//!     dtype_format: u8,
//!     dtype: &'a str,
//! }
//!
//! let bytes = metalayer::b2nd::B2ndV1 {
//!     shape: vec![400, 3],
//!     chunkshape: vec![110, 3],
//!     blockshape: vec![57, 3],
//!     dtype_format: 0,
//!     dtype: "|u1".into(),
//! }
//! .encode()?;
//! let meta = Borrowed::decode(&bytes)?;
//! assert_eq!((meta.shape, meta.dtype), ([400, 3], "|u1"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A dispatch enum holds one version of a metalayer among several. Its `decode` takes the name
//! the metalayer is stored under and its bytes, and decodes them strictly with the layout they
//! belong to; `encode`, `encode_into` and `encoded_len` write the value held in its own layout.
//! The layouts stored under one name must part somewhere, which the build checks: two
//! python-blosc2-style maps whose `version` comes after a name of any length part at the
//! version's byte (`tests/schemas/dispatch/store_v1.toml` and `store_v2.toml`):
//!
//! ```
//! use metalayer::prelude::*;
//!
//! // {"name": str, "version": 1, "size": int}
//! #[metalayer(schema_path = "tests/schemas/dispatch/store_v1.toml")]
//! #[derive(Debug, PartialEq)]
//! struct StoreV1 {
//!     name: String,
//!     size: u64,
//! }
//!
//! // {"name": str, "version": 2, "chunks": [int, ...]}
//! #[metalayer(schema_path = "tests/schemas/dispatch/store_v2.toml")]
//! #[derive(Debug, PartialEq)]
//! struct StoreV2 {
//!     name: String,
//!     chunks: Vec<u64>,
//! }
//!
//! /// Every version of the `store` metalayer.
//! #[metalayer(dispatch)]
//! #[derive(Debug, PartialEq)]
//! enum Store {
//!     #[metalayer(schema_path = "tests/schemas/dispatch/store_v1.toml")]
//!     V1(StoreV1),
//!     #[metalayer(schema_path = "tests/schemas/dispatch/store_v2.toml")]
//!     V2(StoreV2),
//! }
//!
//! // Encoding both, each in its own layout: 0x83, "name", "ab", "version", then the version.
//! let one = Store::V1(StoreV1 { name: "ab".into(), size: 5 }).encode()?;
//! let two = Store::V2(StoreV2 { name: "ab".into(), chunks: vec![300, 7] }).encode()?;
//! assert_eq!((one.len(), one[0x11]), (24, 0x01));
//! assert_eq!((two.len(), two[0x11]), (30, 0x02));
//!
//! // Decoding both: the bytes choose the variant.
//! assert_eq!(Store::decode("store", &one)?, Store::V1(StoreV1 { name: "ab".into(), size: 5 }));
//! match Store::decode("store", &two)? {
//!     Store::V2(v2) => assert_eq!(v2.chunks, [300, 7]),
//!     other => panic!("decoded as {}", other.schema()),
//! }
//!
//! // A version neither layout has: the error says what each expected, and where.
//! let mut three = one.clone();
//! three[0x11] = 0x03;
//! assert_eq!(
//!     Store::decode("store", &three).unwrap_err().to_string(),
//!     "no store layout fits: at byte 0x11 in version: store_v1 expects 0x01, store_v2 expects 0x02; found 0x03"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Two layouts that accept the same bytes cannot share a name: the enum does not build, and the
//! error says where they would need to differ (`` `caterva_v0` and `caterva_v0` cannot be told
//! apart from their bytes: they accept the same bytes throughout ``). `metalayer inspect
//! --schemas` refuses the same sets of schema files, with the same words.
//!
//! When the struct and the schema disagree, or the schema contradicts itself, the build fails
//! with every error at once, under the offending field or naming the schema file's line and
//! column. The schema language is documented in
//! [`schemas/README.md`](https://github.com/metalayer-rs/metalayer/blob/main/schemas/README.md),
//! which this crate's package also holds.
//!
//! # Features
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `std` | yes | the standard library (`frame` needs it) |
//! | `alloc` | with `std` | owned field types (`Vec`, `String`, `Box<str>`), the ready-made types [`b2nd`], [`caterva`] and [`Known`] |
//! | `frame` | no | `metalayer::frame`: the header, trailer and metalayers of Blosc2 frame files, and the check of the chunks' index between them (with `vlmeta`, which decompresses the index) |
//! | `edit` | no | `metalayer::frame::edit`: frames' metadata edited as c-blosc2 edits it, each file replaced under a lock through an exclusive temp file (with `frame`, `tempfile`, and on Unix `xattr`) |
//! | `store` | no | `metalayer::store`: python-blosc2's stores (`.b2z` zips, `.b2d` directories, EmbedStores) opened, their members listed with their places and read in place (with `frame`) |
//! | `tree` | no | `metalayer::tree`: a walk of a path (file, directory, `.b2z`, `.b2d`, the frames an EmbedStore holds) as a tree of typed nodes, streamed; `metalayer::Kind` and `metalayer::kind`: the class that wrote a frame or a store (with `store`) |
//! | `vlmeta` | no | `metalayer::vlmeta`: decompressing the Blosc2 chunks of variable-length metalayers (and of a frame's chunk index), in safe Rust |
//! | `value` | no | `metalayer::value`: any layout's values (read at run time) and plain msgpack as JSON or text, streamed through serde, and JSON encoded to a layout's bytes; `metalayer::report`: whole frames, nested ones included, reported as they are read (with `frame` and `vlmeta`, serde and serde_json with `preserve_order` and `float_roundtrip`) |
//! | `arrayvec` | no | `arrayvec::ArrayVec` and `ArrayString` as fixed-capacity field types |
//!
//! `frame` and `vlmeta` are off by default so that a crate that only defines or decodes
//! metalayers does not compile them; `frame` takes `vlmeta`, which `vlmeta` alone does not need.
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

// Generated code names `::metalayer::__private`; this makes that path resolve here too.
extern crate self as metalayer;

pub use metalayer_macros::metalayer;
/// The msgpack wire types and their marker bytes, which decoding errors name (a value not in its
/// smallest wire type).
pub use metalayer_runtime::wire;
pub use metalayer_runtime::{
    ArrayField, BinField, BoolValue, Candidate, CandidateOf, Decode, DecodeError, DecodeErrorKind, DecodeOwned,
    Decoder, DispatchError, DispatchErrorOf, EncodeError, EncodeErrorKind, Encoder, Ext, ExtField, Fit, FloatValue,
    Int, IntValue, Metalayer, MetalayerName, Name, OptionField, Pair, Path, Probe, ProbeOf, Record, StrField,
    Timestamp, TimestampField,
};

/// The schema language and its layouts (the crate `metalayer-layout`): the [`Layout`](layout::Layout)
/// that `value`, `report` and `frame::edit` take, read from a built-in schema or parsed from a
/// schema file at run time.
///
/// ```
/// let layout = metalayer::layout::parse("units_v0", "[schema]\nmetalayer = \"units\"\ndescription = \"d\"\nsource = \"s\"\n[value]\nwire = \"str\"\n").unwrap();
/// assert_eq!(layout.metalayer, "units");
/// ```
#[cfg(feature = "value")]
pub use metalayer_layout as layout;
/// serde, which values and reports serialize through.
#[cfg(feature = "value")]
pub use serde;
/// serde_json, whose `Value` the value engine and the editor take and give.
#[cfg(feature = "value")]
pub use serde_json;

/// The attribute and the traits: `use metalayer::prelude::*;` is all generated types need.
///
/// ```
/// use metalayer::prelude::*;
///
/// let meta = metalayer::caterva::CatervaV0 { shape: vec![4], chunkshape: vec![2], blockshape: vec![1] };
/// assert_eq!(meta.encoded_len(), 25);
/// ```
pub mod prelude {
    pub use metalayer_macros::metalayer;
    pub use metalayer_runtime::{Decode, DecodeOwned, Metalayer};
}

/// What generated code refers to. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use metalayer_runtime::*;
}

#[cfg(feature = "alloc")]
pub mod b2nd;
#[cfg(feature = "alloc")]
pub mod caterva;
#[cfg(feature = "alloc")]
mod known;
#[cfg(feature = "alloc")]
pub use known::Known;
#[cfg(any(feature = "frame", feature = "vlmeta"))]
mod chunk_format;
#[cfg(feature = "frame")]
pub mod frame;
/// What the standard library's prelude gives a crate that is not `no_std`, for the modules that
/// need the standard library.
#[cfg(feature = "value")]
mod std_prelude {
    pub use std::borrow::ToOwned;
    pub use std::boxed::Box;
    pub use std::string::{String, ToString};
    pub use std::vec::Vec;
    pub use std::{format, vec};
}

#[cfg(feature = "tree")]
pub mod kind;
#[cfg(feature = "value")]
pub mod report;
#[cfg(feature = "store")]
pub mod store;
#[cfg(feature = "tree")]
pub use kind::Kind;
#[cfg(feature = "tree")]
pub mod tree;
#[cfg(feature = "value")]
pub mod value;
#[cfg(feature = "vlmeta")]
pub mod vlmeta;
