//! The header's codec, filters and split mode, by the names python-blosc2 gives them
//! (`blosc2.Codec`, `blosc2.Filter`, `blosc2.SplitMode`) and the numbers c-blosc2 stores.

use core::fmt;

/// Declares a code enum: its named variants with their numbers and names, and `Other(u8)`.
macro_rules! codes {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $number:literal, $text:literal;)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name {
            $($(#[$vdoc])* $variant,)*
            /// A number python-blosc2 gives no name (a user's plugin, or a later release's).
            Other(u8),
        }

        impl $name {
            /// The value of a stored number.
            pub const fn from_number(number: u8) -> $name {
                match number {
                    $($number => $name::$variant,)*
                    other => $name::Other(other),
                }
            }

            /// The number c-blosc2 stores.
            pub const fn number(self) -> u8 {
                match self {
                    $($name::$variant => $number,)*
                    $name::Other(number) => number,
                }
            }

            /// python-blosc2's name, or `None` for [`Other`](Self::Other).
            pub const fn name(self) -> Option<&'static str> {
                match self {
                    $($name::$variant => Some($text),)*
                    $name::Other(_) => None,
                }
            }
        }

        /// python-blosc2's name, or the number for [`Other`](Self::Other).
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self.name() {
                    Some(name) => f.write_str(name),
                    None => write!(f, "{}", self.number()),
                }
            }
        }
    };
}

codes! {
    /// The codec that compressed a frame's chunks, numbered as c-blosc2 numbers it in the header
    /// (`BLOSC_ZSTD` is 5; a chunk's own header numbers its stream formats otherwise, see
    /// `vlmeta::Codec`). [`Header::codec`](super::Header::codec) gives it.
    ///
    /// ```
    /// use metalayer::frame::Codec;
    ///
    /// assert_eq!(Codec::from_number(5), Codec::Zstd);
    /// assert_eq!(Codec::Zstd.to_string(), "ZSTD");
    /// assert_eq!((Codec::from_number(200).name(), Codec::from_number(200).to_string()), (None, "200".into()));
    /// ```
    Codec {
        /// BloscLZ.
        BloscLz = 0, "BLOSCLZ";
        /// LZ4.
        Lz4 = 1, "LZ4";
        /// LZ4HC.
        Lz4Hc = 2, "LZ4HC";
        /// Zlib.
        Zlib = 4, "ZLIB";
        /// Zstd.
        Zstd = 5, "ZSTD";
        /// NDLZ (a c-blosc2 plugin).
        NdLz = 32, "NDLZ";
        /// ZFP, fixed accuracy.
        ZfpAcc = 33, "ZFP_ACC";
        /// ZFP, fixed precision.
        ZfpPrec = 34, "ZFP_PREC";
        /// ZFP, fixed rate.
        ZfpRate = 35, "ZFP_RATE";
        /// OpenHTJ2K.
        OpenHtj2k = 36, "OPENHTJ2K";
        /// Grok.
        Grok = 37, "GROK";
        /// OpenZL.
        OpenZl = 38, "OPENZL";
        /// JPEG 2000.
        J2k = 39, "J2K";
        /// High-throughput JPEG 2000.
        Htj2k = 40, "HTJ2K";
    }
}

codes! {
    /// A filter of a frame's pipeline. [`Header::filters`](super::Header::filters) gives them.
    ///
    /// ```
    /// use metalayer::frame::Filter;
    ///
    /// assert_eq!(Filter::from_number(35).to_string(), "BYTEDELTA");
    /// assert_eq!(Filter::Shuffle.number(), 1);
    /// ```
    Filter {
        /// No filter.
        NoFilter = 0, "NOFILTER";
        /// Byte shuffle.
        Shuffle = 1, "SHUFFLE";
        /// Bit shuffle.
        BitShuffle = 2, "BITSHUFFLE";
        /// Delta.
        Delta = 3, "DELTA";
        /// Truncated precision.
        TruncPrec = 4, "TRUNC_PREC";
        /// NDCELL (a c-blosc2 plugin).
        NdCell = 32, "NDCELL";
        /// NDMEAN (a c-blosc2 plugin).
        NdMean = 33, "NDMEAN";
        /// Byte delta.
        ByteDelta = 35, "BYTEDELTA";
        /// Integer truncation.
        IntTrunc = 36, "INT_TRUNC";
    }
}

codes! {
    /// How blocks are split into streams. [`Header::split_mode`](super::Header::split_mode)
    /// gives it.
    ///
    /// ```
    /// use metalayer::frame::SplitMode;
    ///
    /// assert_eq!(SplitMode::from_number(3).to_string(), "AUTO_SPLIT");
    /// ```
    SplitMode {
        /// Always split.
        Always = 1, "ALWAYS_SPLIT";
        /// Never split.
        Never = 2, "NEVER_SPLIT";
        /// Split as c-blosc2 judges best.
        Auto = 3, "AUTO_SPLIT";
        /// Split as c-blosc2 releases before 2.8 did.
        ForwardCompat = 4, "FORWARD_COMPAT_SPLIT";
    }
}
