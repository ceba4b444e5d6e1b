//! The `#[metalayer]` attribute. Use it through the `metalayer` crate, which documents it and
//! re-exports it with the runtime the generated code needs.
//!
//! ```
//! use metalayer::prelude::*;
//!
//! #[metalayer(schema = "caterva_v0")]
//! struct Caterva {
//!     shape: Vec<i64>,
//!     chunkshape: Vec<i32>,
//!     blockshape: Vec<i32>,
//! }
//!
//! let meta = Caterva { shape: vec![10], chunkshape: vec![5], blockshape: vec![5] };
//! assert_eq!(meta.encoded_len(), 6 + 19);
//! ```

use proc_macro::TokenStream;

/// Generates a strict encoder and decoder for a struct from a metalayer schema.
///
/// See the `metalayer` crate's documentation for the arguments and the schema language.
#[proc_macro_attribute]
pub fn metalayer(args: TokenStream, item: TokenStream) -> TokenStream {
    metalayer_codegen::expand(args.into(), item.into()).into()
}
