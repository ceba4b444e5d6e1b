//! The `#[metalayer]` attribute. Use it through the `metalayer` crate, which documents it and
//! re-exports it with the runtime the generated code needs.
//!
//! Generated code calls the runtime (`metalayer-runtime`) through `<crate>::__private`, where
//! `<crate>` is `::metalayer` unless `crate = "path"` names another path. Here a module stands in
//! for the `metalayer` crate:
//!
//! ```
//! mod facade {
//!     pub mod __private {
//!         pub use metalayer_runtime::*;
//!     }
//! }
//!
//! use metalayer_macros::metalayer;
//! use metalayer_runtime::{Decode, Metalayer};
//!
//! #[metalayer(schema = "caterva_v0", crate = "crate::facade")]
//! #[derive(Debug, PartialEq)]
//! struct Caterva {
//!     shape: Vec<i64>,
//!     chunkshape: Vec<i32>,
//!     blockshape: Vec<i32>,
//! }
//!
//! fn main() {
//!     let meta = Caterva { shape: vec![10], chunkshape: vec![5], blockshape: vec![5] };
//!     assert_eq!(meta.encoded_len(), 6 + 19);
//!     let bytes = meta.encode().unwrap();
//!     assert_eq!(Caterva::decode(&bytes).unwrap(), meta);
//! }
//! ```

use proc_macro::TokenStream;

/// Generates a strict encoder and decoder for a struct from a metalayer schema.
///
/// See the `metalayer` crate's documentation for the arguments and the schema language.
#[proc_macro_attribute]
pub fn metalayer(args: TokenStream, item: TokenStream) -> TokenStream {
    metalayer_codegen::expand(args.into(), item.into()).into()
}
