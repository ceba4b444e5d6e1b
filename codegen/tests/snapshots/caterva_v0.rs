#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
/**

# Layout

Generated from schema `caterva_v0`; length `6 + 19*ndim` bytes.

```text
The `caterva` metalayer (schema caterva_v0): caterva, 5 entries: shape, chunkshape and blockshape, no dtype (caterva, early c-blosc2)
Source: caterva CATERVA_METALAYER.rst; caterva_serialize_meta in caterva 0.x

|-0-|-1-|-2-|-3-|~~~~~~~~~~~~~~~~|---|~~~~~~~~~~~~~~~~|---|~~~~~~~~~~~~~~~~|
| 9X| v | nd| 9X| shape          | 9X| chunkshape     | 9X| blockshape     |
|---|---|---|---|~~~~~~~~~~~~~~~~|---|~~~~~~~~~~~~~~~~|---|~~~~~~~~~~~~~~~~|
  ^   ^   ^   ^                    ^                    ^
  |   |   |   |                    |                    |
  |   |   |   |                    |                    +--[msgpack] fixarray with X=nd elements
  |   |   |   |                    +--[msgpack] fixarray with X=nd elements
  |   |   |   +--[msgpack] fixarray with X=nd elements
  |   |   +--[msgpack] positive fixint for the number of dimensions (ndim, 0..=8)
  |   +--[msgpack] positive fixint for the metalayer format version (version, always 0)
  +---[msgpack] fixarray with X=5 elements

The `shape` section, shape of the array: nd elements, each an int64 of 9 bytes:

|---|--8 bytes---|---|--8 bytes---|~~~~~|---|--8 bytes---|
| d3| first_dim  | d3| second_dim | ... | d3| nth_dim    |
|---|------------|---|------------|~~~~~|---|------------|
  ^                ^                      ^
  |                |                      |
  |                |                      +--[msgpack] int64
  |                +--[msgpack] int64
  +--[msgpack] int64

The `chunkshape` section, shape of each chunk (partshape in the oldest document): nd elements, each an int32 of 5 bytes:

|---|--4 bytes---|---|--4 bytes---|~~~~~|---|--4 bytes---|
| d2| first_dim  | d2| second_dim | ... | d2| nth_dim    |
|---|------------|---|------------|~~~~~|---|------------|
  ^                ^                      ^
  |                |                      |
  |                |                      +--[msgpack] int32
  |                +--[msgpack] int32
  +--[msgpack] int32

The `blockshape` section, shape of each block: nd elements, each an int32 of 5 bytes:

|---|--4 bytes---|---|--4 bytes---|~~~~~|---|--4 bytes---|
| d2| first_dim  | d2| second_dim | ... | d2| nth_dim    |
|---|------------|---|------------|~~~~~|---|------------|
  ^                ^                      ^
  |                |                      |
  |                |                      +--[msgpack] int32
  |                +--[msgpack] int32
  +--[msgpack] int32

Encoded length: 6 + 19*ndim bytes.
```

```text
Offsets and sizes in bytes of `caterva` (caterva_v0); i is an element index, len(x) the byte length of string x.

entry          wire      offset             size         value at
(container)    fixarray  0                  1            -
version        fixint    1                  1            1
ndim           fixint    2                  1            2
shape          fixarray  3                  1 + 9*ndim   -
shape[i]       int64     4 + 9*i            9            5 + 9*i
chunkshape     fixarray  4 + 9*ndim         1 + 5*ndim   -
chunkshape[i]  int32     5 + 9*ndim + 5*i   5            6 + 9*ndim + 5*i
blockshape     fixarray  5 + 14*ndim        1 + 5*ndim   -
blockshape[i]  int32     6 + 14*ndim + 5*i  5            7 + 14*ndim + 5*i
(total)                                     6 + 19*ndim
```*/
pub struct CatervaV0 {
    /// The array's shape.
    pub shape: Vec<i64>,
    /// The shape of each chunk.
    pub chunkshape: Vec<i32>,
    /// The shape of each block.
    pub blockshape: Vec<i32>,
}
const _: () = {
    const _: () = ::core::assert!(
        < Vec < i64 > as ::metalayer::__private::ArrayField > ::MIN_COUNT <= 8usize &&
        0usize <= < Vec < i64 > as ::metalayer::__private::ArrayField > ::MAX_COUNT,
        "`Vec<i64>` cannot hold entry `shape`: its number of elements is 0..=8, counted by `ndim`, and the type holds none of those counts"
    );
    const _: () = ::core::assert!(
        < < Vec < i64 > as ::metalayer::__private::ArrayField > ::Element as
        ::metalayer::__private::IntValue > ::MIN <= - 9223372036854775808i128 &&
        9223372036854775807i128 <= < < Vec < i64 > as ::metalayer::__private::ArrayField
        > ::Element as ::metalayer::__private::IntValue > ::MAX,
        "`Vec<i64>` cannot hold the elements of entry `shape`: it is int64, which takes every value of `i64`, and the type's range does not cover them"
    );
    const _: () = ::core::assert!(
        < Vec < i32 > as ::metalayer::__private::ArrayField > ::MIN_COUNT <= 8usize &&
        0usize <= < Vec < i32 > as ::metalayer::__private::ArrayField > ::MAX_COUNT,
        "`Vec<i32>` cannot hold entry `chunkshape`: its number of elements is 0..=8, counted by `ndim`, and the type holds none of those counts"
    );
    const _: () = ::core::assert!(
        < < Vec < i32 > as ::metalayer::__private::ArrayField > ::Element as
        ::metalayer::__private::IntValue > ::MIN <= - 2147483648i128 && 2147483647i128 <=
        < < Vec < i32 > as ::metalayer::__private::ArrayField > ::Element as
        ::metalayer::__private::IntValue > ::MAX,
        "`Vec<i32>` cannot hold the elements of entry `chunkshape`: it is int32, which takes every value of `i32`, and the type's range does not cover them"
    );
    const _: () = ::core::assert!(
        < Vec < i32 > as ::metalayer::__private::ArrayField > ::MIN_COUNT <= 8usize &&
        0usize <= < Vec < i32 > as ::metalayer::__private::ArrayField > ::MAX_COUNT,
        "`Vec<i32>` cannot hold entry `blockshape`: its number of elements is 0..=8, counted by `ndim`, and the type holds none of those counts"
    );
    const _: () = ::core::assert!(
        < < Vec < i32 > as ::metalayer::__private::ArrayField > ::Element as
        ::metalayer::__private::IntValue > ::MIN <= - 2147483648i128 && 2147483647i128 <=
        < < Vec < i32 > as ::metalayer::__private::ArrayField > ::Element as
        ::metalayer::__private::IntValue > ::MAX,
        "`Vec<i32>` cannot hold the elements of entry `blockshape`: it is int32, which takes every value of `i32`, and the type's range does not cover them"
    );
    #[automatically_derived]
    impl ::metalayer::__private::Metalayer for CatervaV0 {
        const NAME: &'static str = "caterva";
        const SCHEMA: &'static str = "caterva_v0";
        #[inline]
        fn encoded_len(&self) -> usize {
            (6usize
                + 19usize
                    * (((::metalayer::__private::ArrayField::elements(&self.shape).len()
                        as i64)) as usize))
        }
        #[inline]
        fn encode_into(
            &self,
            __buf: &mut [u8],
        ) -> ::core::result::Result<usize, ::metalayer::__private::EncodeError> {
            let __schema: &'static str = <Self as ::metalayer::__private::Metalayer>::SCHEMA;
            let __count_ndim = ::metalayer::__private::ArrayField::elements(&self.shape)
                .len();
            ::metalayer::__private::check_count(
                __schema,
                "ndim",
                &"shape",
                __count_ndim,
                0usize,
                8usize,
            )?;
            ::metalayer::__private::check_same_len(
                __schema,
                "ndim",
                "shape",
                __count_ndim,
                &"chunkshape",
                ::metalayer::__private::ArrayField::elements(&self.chunkshape).len(),
            )?;
            ::metalayer::__private::check_same_len(
                __schema,
                "ndim",
                "shape",
                __count_ndim,
                &"blockshape",
                ::metalayer::__private::ArrayField::elements(&self.blockshape).len(),
            )?;
            for (__i1, __x1) in ::metalayer::__private::ArrayField::elements(&self.shape)
                .iter()
                .enumerate()
            {
                let __v2 = ::metalayer::__private::IntValue::to_i128((*__x1));
                #[allow(clippy::manual_range_contains)]
                if __v2 < -9223372036854775808i128 || __v2 > 9223372036854775807i128 {
                    ::metalayer::__private::check_range(
                        __schema,
                        ::core::clone::Clone::clone(
                            &::metalayer::__private::Path::index(
                                ::core::clone::Clone::clone(const {
                                    &::metalayer::__private::Path::entry(&"shape")
                                }),
                                __i1,
                            ),
                        ),
                        __v2,
                        -9223372036854775808i128,
                        9223372036854775807i128,
                    )?;
                }
            }
            for (__i1, __x1) in ::metalayer::__private::ArrayField::elements(
                    &self.chunkshape,
                )
                .iter()
                .enumerate()
            {
                let __v2 = ::metalayer::__private::IntValue::to_i128((*__x1));
                #[allow(clippy::manual_range_contains)]
                if __v2 < -2147483648i128 || __v2 > 2147483647i128 {
                    ::metalayer::__private::check_range(
                        __schema,
                        ::core::clone::Clone::clone(
                            &::metalayer::__private::Path::index(
                                ::core::clone::Clone::clone(const {
                                    &::metalayer::__private::Path::entry(&"chunkshape")
                                }),
                                __i1,
                            ),
                        ),
                        __v2,
                        -2147483648i128,
                        2147483647i128,
                    )?;
                }
            }
            for (__i1, __x1) in ::metalayer::__private::ArrayField::elements(
                    &self.blockshape,
                )
                .iter()
                .enumerate()
            {
                let __v2 = ::metalayer::__private::IntValue::to_i128((*__x1));
                #[allow(clippy::manual_range_contains)]
                if __v2 < -2147483648i128 || __v2 > 2147483647i128 {
                    ::metalayer::__private::check_range(
                        __schema,
                        ::core::clone::Clone::clone(
                            &::metalayer::__private::Path::index(
                                ::core::clone::Clone::clone(const {
                                    &::metalayer::__private::Path::entry(&"blockshape")
                                }),
                                __i1,
                            ),
                        ),
                        __v2,
                        -2147483648i128,
                        2147483647i128,
                    )?;
                }
            }
            let __len = <Self as ::metalayer::__private::Metalayer>::encoded_len(self);
            let mut __encoder = ::metalayer::__private::Encoder::new(
                __buf,
                __len,
                __schema,
            )?;
            {
                let __e = &mut __encoder;
                __e.byte(149u8);
                __e.bytes(&[0u8]);
                __e.byte(
                    (::metalayer::__private::ArrayField::elements(&self.shape).len())
                        as u8,
                );
                __e.header(
                    ::metalayer::__private::wire::Wire::FixArray,
                    ::metalayer::__private::ArrayField::elements(&self.shape).len(),
                );
                __e.int_array(
                    211u8,
                    ::metalayer::__private::ArrayField::elements(&self.shape)
                        .iter()
                        .map(::metalayer::__private::be_payload::<_, i64, 8usize>),
                );
                __e.header(
                    ::metalayer::__private::wire::Wire::FixArray,
                    ::metalayer::__private::ArrayField::elements(&self.chunkshape).len(),
                );
                __e.int_array(
                    210u8,
                    ::metalayer::__private::ArrayField::elements(&self.chunkshape)
                        .iter()
                        .map(::metalayer::__private::be_payload::<_, i32, 4usize>),
                );
                __e.header(
                    ::metalayer::__private::wire::Wire::FixArray,
                    ::metalayer::__private::ArrayField::elements(&self.blockshape).len(),
                );
                __e.int_array(
                    210u8,
                    ::metalayer::__private::ArrayField::elements(&self.blockshape)
                        .iter()
                        .map(::metalayer::__private::be_payload::<_, i32, 4usize>),
                );
            }
            ::core::result::Result::Ok(__encoder.finish())
        }
    }
    #[automatically_derived]
    impl<'de> ::metalayer::__private::Decode<'de> for CatervaV0 {
        #[inline]
        fn decode_prefix(
            __input: &'de [u8],
        ) -> ::core::result::Result<(Self, usize), ::metalayer::__private::DecodeError> {
            let mut __decoder = ::metalayer::__private::Decoder::new(
                __input,
                <Self as ::metalayer::__private::Metalayer>::SCHEMA,
            );
            let __d = &mut __decoder;
            __d.marker(
                149u8,
                "fixarray",
                const { &::metalayer::__private::Path::CONTAINER },
            )?;
            let __at1 = __d.position();
            let __v1: i128 = i128::from(
                __d.fixint(const { &::metalayer::__private::Path::entry(&"version") })?,
            );
            __d.constant(
                __at1,
                __v1,
                0i128,
                const { &::metalayer::__private::Path::entry(&"version") },
            )?;
            let __at1 = __d.position();
            let __v1: i128 = i128::from(
                __d.fixint(const { &::metalayer::__private::Path::entry(&"ndim") })?,
            );
            __d.range(
                __at1,
                __v1,
                0i128,
                8i128,
                const { &::metalayer::__private::Path::entry(&"ndim") },
            )?;
            let __count_ndim = __v1 as usize;
            let __field_shape: Vec<i64> = {
                let mut __a1 = <Vec<i64> as ::metalayer::__private::ArrayField>::empty();
                __d.array::<
                        Vec<i64>,
                        i64,
                        8usize,
                    >(&mut __a1, __count_ndim, "ndim", 211u8, "int64", &"shape")?;
                __a1
            };
            let __field_chunkshape: Vec<i32> = {
                let mut __a1 = <Vec<i32> as ::metalayer::__private::ArrayField>::empty();
                __d.array::<
                        Vec<i32>,
                        i32,
                        4usize,
                    >(&mut __a1, __count_ndim, "ndim", 210u8, "int32", &"chunkshape")?;
                __a1
            };
            let __field_blockshape: Vec<i32> = {
                let mut __a1 = <Vec<i32> as ::metalayer::__private::ArrayField>::empty();
                __d.array::<
                        Vec<i32>,
                        i32,
                        4usize,
                    >(&mut __a1, __count_ndim, "ndim", 210u8, "int32", &"blockshape")?;
                __a1
            };
            let __used = __d.position();
            ::core::result::Result::Ok((
                Self {
                    shape: __field_shape,
                    chunkshape: __field_chunkshape,
                    blockshape: __field_blockshape,
                },
                __used,
            ))
        }
        #[inline]
        fn decode(
            __input: &'de [u8],
        ) -> ::core::result::Result<Self, ::metalayer::__private::DecodeError> {
            let mut __decoder = ::metalayer::__private::Decoder::new(
                __input,
                <Self as ::metalayer::__private::Metalayer>::SCHEMA,
            );
            let __d = &mut __decoder;
            __d.marker(
                149u8,
                "fixarray",
                const { &::metalayer::__private::Path::CONTAINER },
            )?;
            let __at1 = __d.position();
            let __v1: i128 = i128::from(
                __d.fixint(const { &::metalayer::__private::Path::entry(&"version") })?,
            );
            __d.constant(
                __at1,
                __v1,
                0i128,
                const { &::metalayer::__private::Path::entry(&"version") },
            )?;
            let __at1 = __d.position();
            let __v1: i128 = i128::from(
                __d.fixint(const { &::metalayer::__private::Path::entry(&"ndim") })?,
            );
            __d.range(
                __at1,
                __v1,
                0i128,
                8i128,
                const { &::metalayer::__private::Path::entry(&"ndim") },
            )?;
            let __count_ndim = __v1 as usize;
            let __field_shape: Vec<i64> = {
                let mut __a1 = <Vec<i64> as ::metalayer::__private::ArrayField>::empty();
                __d.array::<
                        Vec<i64>,
                        i64,
                        8usize,
                    >(&mut __a1, __count_ndim, "ndim", 211u8, "int64", &"shape")?;
                __a1
            };
            let __field_chunkshape: Vec<i32> = {
                let mut __a1 = <Vec<i32> as ::metalayer::__private::ArrayField>::empty();
                __d.array::<
                        Vec<i32>,
                        i32,
                        4usize,
                    >(&mut __a1, __count_ndim, "ndim", 210u8, "int32", &"chunkshape")?;
                __a1
            };
            let __field_blockshape: Vec<i32> = {
                let mut __a1 = <Vec<i32> as ::metalayer::__private::ArrayField>::empty();
                __d.array::<
                        Vec<i32>,
                        i32,
                        4usize,
                    >(&mut __a1, __count_ndim, "ndim", 210u8, "int32", &"blockshape")?;
                __a1
            };
            __d.end()?;
            ::core::result::Result::Ok(Self {
                shape: __field_shape,
                chunkshape: __field_chunkshape,
                blockshape: __field_blockshape,
            })
        }
    }
    impl CatervaV0 {
        /// The encoded length as a formula of the counts and string lengths.
        pub const LENGTH_FORMULA: &'static str = "6 + 19*ndim";
        ///The encoded length: `6 + 19*ndim` bytes. Arguments: `ndim`.
        #[allow(clippy::identity_op, clippy::erasing_op, clippy::too_many_arguments)]
        pub const fn encoded_len_for(ndim: usize) -> usize {
            let _ = (ndim,);
            6usize + 19usize * ndim
        }
        ///The offset of entry `version`: byte `1`. Arguments: `ndim`.
        #[allow(clippy::identity_op, clippy::erasing_op, clippy::too_many_arguments)]
        pub const fn version_offset(ndim: usize) -> usize {
            let _ = (ndim,);
            1usize
        }
        ///The offset of entry `ndim`: byte `2`. Arguments: `ndim`.
        #[allow(clippy::identity_op, clippy::erasing_op, clippy::too_many_arguments)]
        pub const fn ndim_offset(ndim: usize) -> usize {
            let _ = (ndim,);
            2usize
        }
        ///The offset of entry `shape`: byte `3`. Arguments: `ndim`.
        #[allow(clippy::identity_op, clippy::erasing_op, clippy::too_many_arguments)]
        pub const fn shape_offset(ndim: usize) -> usize {
            let _ = (ndim,);
            3usize
        }
        ///The offset of element `i` of `shape` (its marker): byte `4 + 9*i`. Arguments: `ndim`.
        #[allow(clippy::identity_op, clippy::erasing_op, clippy::too_many_arguments)]
        pub const fn shape_element_offset(ndim: usize, i: usize) -> usize {
            let _ = (ndim,);
            4usize + 9usize * i
        }
        ///The offset of entry `chunkshape`: byte `4 + 9*ndim`. Arguments: `ndim`.
        #[allow(clippy::identity_op, clippy::erasing_op, clippy::too_many_arguments)]
        pub const fn chunkshape_offset(ndim: usize) -> usize {
            let _ = (ndim,);
            4usize + 9usize * ndim
        }
        ///The offset of element `i` of `chunkshape` (its marker): byte `5 + 9*ndim + 5*i`. Arguments: `ndim`.
        #[allow(clippy::identity_op, clippy::erasing_op, clippy::too_many_arguments)]
        pub const fn chunkshape_element_offset(ndim: usize, i: usize) -> usize {
            let _ = (ndim,);
            5usize + 9usize * ndim + 5usize * i
        }
        ///The offset of entry `blockshape`: byte `5 + 14*ndim`. Arguments: `ndim`.
        #[allow(clippy::identity_op, clippy::erasing_op, clippy::too_many_arguments)]
        pub const fn blockshape_offset(ndim: usize) -> usize {
            let _ = (ndim,);
            5usize + 14usize * ndim
        }
        ///The offset of element `i` of `blockshape` (its marker): byte `6 + 14*ndim + 5*i`. Arguments: `ndim`.
        #[allow(clippy::identity_op, clippy::erasing_op, clippy::too_many_arguments)]
        pub const fn blockshape_element_offset(ndim: usize, i: usize) -> usize {
            let _ = (ndim,);
            6usize + 14usize * ndim + 5usize * i
        }
    }
};
