//! The impls `#[metalayer]` writes beside its compile errors. Not a public API.

/// Impls of the traits a `#[metalayer]` type has, with the right signatures and no behaviour,
/// which the attribute writes beside its compile errors so that code using the type does not
/// fail a second time. They are never called: the crate does not build. Not a public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __fallback_impls {
    (record impl [$($decode_generics:tt)*] $de:lifetime for [$($ty:tt)*] [$($where:tt)*]) => {
        #[automatically_derived]
        impl $($decode_generics)* $crate::Record<$de> for $($ty)* $($where)* {
            const LAYOUT: &'static str = "";
            const MIN_SIZE: usize = 1;
            fn decode_record(_: &mut $crate::Decoder<$de>) -> ::core::result::Result<Self, $crate::DecodeError> {
                ::core::unreachable!("the #[metalayer] attribute reported a compile error")
            }
            fn check_record(&self, _: &'static str) -> ::core::result::Result<(), $crate::EncodeError> {
                ::core::unreachable!("the #[metalayer] attribute reported a compile error")
            }
            fn record_len(&self) -> usize {
                ::core::unreachable!("the #[metalayer] attribute reported a compile error")
            }
            fn encode_record(&self, _: &mut $crate::Encoder<'_>) {
                ::core::unreachable!("the #[metalayer] attribute reported a compile error")
            }
        }
    };
    (
        impl [$($generics:tt)*] [$($decode_generics:tt)*] $de:lifetime
        for [$($ty:tt)*] [$($where:tt)*]
    ) => {
        #[automatically_derived]
        impl $($generics)* $crate::Metalayer for $($ty)* $($where)* {
            const NAME: &'static str = "";
            const SCHEMA: &'static str = "";
            fn encoded_len(&self) -> usize {
                ::core::unreachable!("the #[metalayer] attribute reported a compile error")
            }
            fn encode_into(&self, _: &mut [u8]) -> ::core::result::Result<usize, $crate::EncodeError> {
                ::core::unreachable!("the #[metalayer] attribute reported a compile error")
            }
        }
        #[automatically_derived]
        impl $($decode_generics)* $crate::Decode<$de> for $($ty)* $($where)* {
            fn decode_prefix(_: &$de [u8]) -> ::core::result::Result<(Self, usize), $crate::DecodeError> {
                ::core::unreachable!("the #[metalayer] attribute reported a compile error")
            }
        }
    };
}
