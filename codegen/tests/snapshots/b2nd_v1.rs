#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
/**

# Layout

Generated from schema `b2nd_v1`; length `12 + 19*ndim + len(dtype)` bytes.

```text
The `b2nd` metalayer (schema b2nd_v1): b2nd, 7 entries: shape, chunkshape, blockshape, dtype_format and a NumPy dtype.str (every c-blosc2 release)
Source: c-blosc2 README_B2ND_METALAYER.rst; b2nd_serialize_meta in blosc/b2nd.c

|-0-|-1-|-2-|-3-|~~~~~~~~~~~~~~~~|---|~~~~~~~~~~~~~~~~|---|~~~~~~~~~~~~~~~~|
| 9X| v | nd| 9X| shape          | 9X| chunkshape     | 9X| blockshape     |
|---|---|---|---|~~~~~~~~~~~~~~~~|---|~~~~~~~~~~~~~~~~|---|~~~~~~~~~~~~~~~~|
  ^   ^   ^   ^                    ^                    ^
  |   |   |   |                    |                    |
  |   |   |   |                    |                    +--[msgpack] fixarray with X=nd elements; nd = 16 gives header 0xa0, not a fixarray
  |   |   |   |                    +--[msgpack] fixarray with X=nd elements; nd = 16 gives header 0xa0, not a fixarray
  |   |   |   +--[msgpack] fixarray with X=nd elements; nd = 16 gives header 0xa0, not a fixarray
  |   |   +--[msgpack] positive fixint for the number of dimensions (ndim, 0..=16)
  |   +--[msgpack] positive fixint for the metalayer format version (version, always 0)
  +---[msgpack] fixarray with X=7 elements

The `shape` section, shape of the array: nd elements, each an int64 of 9 bytes:

|---|--8 bytes---|---|--8 bytes---|~~~~~|---|--8 bytes---|
| d3| first_dim  | d3| second_dim | ... | d3| nth_dim    |
|---|------------|---|------------|~~~~~|---|------------|
  ^                ^                      ^
  |                |                      |
  |                |                      +--[msgpack] int64
  |                +--[msgpack] int64
  +--[msgpack] int64

The `chunkshape` section, shape of each chunk: nd elements, each an int32 of 5 bytes:

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

Finally, the `dtype_format` and `dtype` entries:
- dtype_format (fixint): dtype format; 0 means NumPy
- dtype (str32): dtype in the NumPy convention (dtype.str), such as "<i4"

|---|---|--4 bytes---|--------------|
| XX| db| dtype_len  | dtype_string |
|---|---|------------|--------------|
  ^   ^
  |   |
  |   +--[msgpack] str32
  +--[msgpack] positive fixint for the dtype format; 0 means NumPy (dtype_format, 0..=127)

Encoded length: 12 + 19*ndim + len(dtype) bytes.
```

```text
Offsets and sizes in bytes of `b2nd` (b2nd_v1); i is an element index, len(x) the byte length of string x.

entry          wire      offset             size                       value at
(container)    fixarray  0                  1                          -
version        fixint    1                  1                          1
ndim           fixint    2                  1                          2
shape          fixarray  3                  1 + 9*ndim                 -
shape[i]       int64     4 + 9*i            9                          5 + 9*i
chunkshape     fixarray  4 + 9*ndim         1 + 5*ndim                 -
chunkshape[i]  int32     5 + 9*ndim + 5*i   5                          6 + 9*ndim + 5*i
blockshape     fixarray  5 + 14*ndim        1 + 5*ndim                 -
blockshape[i]  int32     6 + 14*ndim + 5*i  5                          7 + 14*ndim + 5*i
dtype_format   fixint    6 + 19*ndim        1                          6 + 19*ndim
dtype          str32     7 + 19*ndim        5 + len(dtype)             12 + 19*ndim
(total)                                     12 + 19*ndim + len(dtype)
```*/
pub struct B2ndV1 {
    /// The array's shape.
    pub shape: Vec<i64>,
    /// The shape of each chunk.
    pub chunkshape: Vec<i32>,
    /// The shape of each block.
    pub blockshape: Vec<i32>,
    /// The dtype's format: 0 is NumPy.
    pub dtype_format: u8,
    /// The dtype, such as `"<i4"`.
    pub dtype: String,
}
const _: () = {
    const _: () = ::core::assert!(
        < Vec < i64 > as ::metalayer::__private::ArrayField > ::MIN_COUNT <= 16usize &&
        0usize <= < Vec < i64 > as ::metalayer::__private::ArrayField > ::MAX_COUNT,
        "`Vec<i64>` cannot hold entry `shape`: its number of elements is 0..=16, counted by `ndim`, and the type holds none of those counts"
    );
    const _: () = ::core::assert!(
        < < Vec < i64 > as ::metalayer::__private::ArrayField > ::Element as
        ::metalayer::__private::IntValue > ::MIN <= - 9223372036854775808i128 &&
        9223372036854775807i128 <= < < Vec < i64 > as ::metalayer::__private::ArrayField
        > ::Element as ::metalayer::__private::IntValue > ::MAX,
        "`Vec<i64>` cannot hold the elements of entry `shape`: it is int64, which takes every value of `i64`, and the type's range does not cover them"
    );
    const _: () = ::core::assert!(
        < Vec < i32 > as ::metalayer::__private::ArrayField > ::MIN_COUNT <= 16usize &&
        0usize <= < Vec < i32 > as ::metalayer::__private::ArrayField > ::MAX_COUNT,
        "`Vec<i32>` cannot hold entry `chunkshape`: its number of elements is 0..=16, counted by `ndim`, and the type holds none of those counts"
    );
    const _: () = ::core::assert!(
        < < Vec < i32 > as ::metalayer::__private::ArrayField > ::Element as
        ::metalayer::__private::IntValue > ::MIN <= - 2147483648i128 && 2147483647i128 <=
        < < Vec < i32 > as ::metalayer::__private::ArrayField > ::Element as
        ::metalayer::__private::IntValue > ::MAX,
        "`Vec<i32>` cannot hold the elements of entry `chunkshape`: it is int32, which takes every value of `i32`, and the type's range does not cover them"
    );
    const _: () = ::core::assert!(
        < Vec < i32 > as ::metalayer::__private::ArrayField > ::MIN_COUNT <= 16usize &&
        0usize <= < Vec < i32 > as ::metalayer::__private::ArrayField > ::MAX_COUNT,
        "`Vec<i32>` cannot hold entry `blockshape`: its number of elements is 0..=16, counted by `ndim`, and the type holds none of those counts"
    );
    const _: () = ::core::assert!(
        < < Vec < i32 > as ::metalayer::__private::ArrayField > ::Element as
        ::metalayer::__private::IntValue > ::MIN <= - 2147483648i128 && 2147483647i128 <=
        < < Vec < i32 > as ::metalayer::__private::ArrayField > ::Element as
        ::metalayer::__private::IntValue > ::MAX,
        "`Vec<i32>` cannot hold the elements of entry `blockshape`: it is int32, which takes every value of `i32`, and the type's range does not cover them"
    );
    const _: () = ::core::assert!(
        < u8 as ::metalayer::__private::IntValue > ::MIN <= 0i128 && 127i128 <= < u8 as
        ::metalayer::__private::IntValue > ::MAX,
        "`u8` cannot hold entry `dtype_format`: it is fixint, which takes every value of `u8`, and the type's range does not cover them"
    );
    #[automatically_derived]
    impl ::metalayer::__private::Metalayer for B2ndV1 {
        const NAME: &'static str = "b2nd";
        const SCHEMA: &'static str = "b2nd_v1";
        #[inline]
        fn encoded_len(&self) -> usize {
            (12usize
                + 19usize
                    * (((::metalayer::__private::ArrayField::elements(&self.shape).len()
                        as i64)) as usize)
                + 1usize * ::metalayer::__private::StrField::text(&self.dtype).len())
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
                16usize,
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
            let __v1 = ::metalayer::__private::IntValue::to_i128(self.dtype_format);
            #[allow(clippy::manual_range_contains)]
            if __v1 < 0i128 || __v1 > 127i128 {
                ::metalayer::__private::check_range(
                    __schema,
                    ::core::clone::Clone::clone(const {
                        &::metalayer::__private::Path::entry(&"dtype_format")
                    }),
                    __v1,
                    0i128,
                    127i128,
                )?;
            }
            ::metalayer::__private::check_str_len(
                __schema,
                &"dtype",
                "str32",
                ::metalayer::__private::StrField::text(&self.dtype),
                4294967295u64,
            )?;
            let __len = <Self as ::metalayer::__private::Metalayer>::encoded_len(self);
            let mut __encoder = ::metalayer::__private::Encoder::new(
                __buf,
                __len,
                __schema,
            )?;
            {
                let __e = &mut __encoder;
                __e.byte(151u8);
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
                __e.byte(
                    ::metalayer::__private::IntValue::to_i128(self.dtype_format) as u8,
                );
                {
                    let __bytes = ::metalayer::__private::StrField::text(&self.dtype)
                        .as_bytes();
                    __e.header(::metalayer::__private::wire::Wire::Str32, __bytes.len());
                    __e.bytes(__bytes);
                }
            }
            ::core::result::Result::Ok(__encoder.finish())
        }
    }
    #[automatically_derived]
    impl<'de> ::metalayer::__private::Decode<'de> for B2ndV1 {
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
                151u8,
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
                16i128,
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
            let __field_dtype_format: u8 = {
                let __at1 = __d.position();
                let __v1: i128 = i128::from(
                    __d
                        .fixint(const {
                            &::metalayer::__private::Path::entry(&"dtype_format")
                        })?,
                );
                <u8 as ::metalayer::__private::IntValue>::from_i128(__v1)
            };
            let __field_dtype: String = {
                let __at1 = __d.position();
                let __text = __d
                    .str::<
                        4usize,
                    >(
                        219u8,
                        "str32",
                        const { &::metalayer::__private::Path::entry(&"dtype") },
                    )?;
                <String as ::metalayer::__private::StrField<'de>>::from_text(__text)
                    .map_err(|__capacity| {
                        __d.error_at(
                            __at1,
                            ::core::clone::Clone::clone(const {
                                &::metalayer::__private::Path::entry(&"dtype")
                            }),
                            ::metalayer::__private::DecodeErrorKind::StrCapacity {
                                capacity: __capacity,
                                found: __text.len(),
                            },
                        )
                    })?
            };
            let __used = __d.position();
            ::core::result::Result::Ok((
                Self {
                    shape: __field_shape,
                    chunkshape: __field_chunkshape,
                    blockshape: __field_blockshape,
                    dtype_format: __field_dtype_format,
                    dtype: __field_dtype,
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
                151u8,
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
                16i128,
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
            let __field_dtype_format: u8 = {
                let __at1 = __d.position();
                let __v1: i128 = i128::from(
                    __d
                        .fixint(const {
                            &::metalayer::__private::Path::entry(&"dtype_format")
                        })?,
                );
                <u8 as ::metalayer::__private::IntValue>::from_i128(__v1)
            };
            let __field_dtype: String = {
                let __at1 = __d.position();
                let __text = __d
                    .str::<
                        4usize,
                    >(
                        219u8,
                        "str32",
                        const { &::metalayer::__private::Path::entry(&"dtype") },
                    )?;
                <String as ::metalayer::__private::StrField<'de>>::from_text(__text)
                    .map_err(|__capacity| {
                        __d.error_at(
                            __at1,
                            ::core::clone::Clone::clone(const {
                                &::metalayer::__private::Path::entry(&"dtype")
                            }),
                            ::metalayer::__private::DecodeErrorKind::StrCapacity {
                                capacity: __capacity,
                                found: __text.len(),
                            },
                        )
                    })?
            };
            __d.end()?;
            ::core::result::Result::Ok(Self {
                shape: __field_shape,
                chunkshape: __field_chunkshape,
                blockshape: __field_blockshape,
                dtype_format: __field_dtype_format,
                dtype: __field_dtype,
            })
        }
    }
    impl B2ndV1 {
        /// The encoded length as a formula of the counts and string lengths.
        pub const LENGTH_FORMULA: &'static str = "12 + 19*ndim + len(dtype)";
        ///The encoded length: `12 + 19*ndim + len(dtype)` bytes. Arguments: `ndim`, `dtype_len`.
        #[allow(clippy::identity_op, clippy::erasing_op, clippy::too_many_arguments)]
        pub const fn encoded_len_for(ndim: usize, dtype_len: usize) -> usize {
            let _ = (ndim, dtype_len);
            12usize + 19usize * ndim + 1usize * dtype_len
        }
        ///The offset of entry `version`: byte `1`. Arguments: `ndim`, `dtype_len`.
        #[allow(clippy::identity_op, clippy::erasing_op, clippy::too_many_arguments)]
        pub const fn version_offset(ndim: usize, dtype_len: usize) -> usize {
            let _ = (ndim, dtype_len);
            1usize
        }
        ///The offset of entry `ndim`: byte `2`. Arguments: `ndim`, `dtype_len`.
        #[allow(clippy::identity_op, clippy::erasing_op, clippy::too_many_arguments)]
        pub const fn ndim_offset(ndim: usize, dtype_len: usize) -> usize {
            let _ = (ndim, dtype_len);
            2usize
        }
        ///The offset of entry `shape`: byte `3`. Arguments: `ndim`, `dtype_len`.
        #[allow(clippy::identity_op, clippy::erasing_op, clippy::too_many_arguments)]
        pub const fn shape_offset(ndim: usize, dtype_len: usize) -> usize {
            let _ = (ndim, dtype_len);
            3usize
        }
        ///The offset of element `i` of `shape` (its marker): byte `4 + 9*i`. Arguments: `ndim`, `dtype_len`.
        #[allow(clippy::identity_op, clippy::erasing_op, clippy::too_many_arguments)]
        pub const fn shape_element_offset(
            ndim: usize,
            dtype_len: usize,
            i: usize,
        ) -> usize {
            let _ = (ndim, dtype_len);
            4usize + 9usize * i
        }
        ///The offset of entry `chunkshape`: byte `4 + 9*ndim`. Arguments: `ndim`, `dtype_len`.
        #[allow(clippy::identity_op, clippy::erasing_op, clippy::too_many_arguments)]
        pub const fn chunkshape_offset(ndim: usize, dtype_len: usize) -> usize {
            let _ = (ndim, dtype_len);
            4usize + 9usize * ndim
        }
        ///The offset of element `i` of `chunkshape` (its marker): byte `5 + 9*ndim + 5*i`. Arguments: `ndim`, `dtype_len`.
        #[allow(clippy::identity_op, clippy::erasing_op, clippy::too_many_arguments)]
        pub const fn chunkshape_element_offset(
            ndim: usize,
            dtype_len: usize,
            i: usize,
        ) -> usize {
            let _ = (ndim, dtype_len);
            5usize + 9usize * ndim + 5usize * i
        }
        ///The offset of entry `blockshape`: byte `5 + 14*ndim`. Arguments: `ndim`, `dtype_len`.
        #[allow(clippy::identity_op, clippy::erasing_op, clippy::too_many_arguments)]
        pub const fn blockshape_offset(ndim: usize, dtype_len: usize) -> usize {
            let _ = (ndim, dtype_len);
            5usize + 14usize * ndim
        }
        ///The offset of element `i` of `blockshape` (its marker): byte `6 + 14*ndim + 5*i`. Arguments: `ndim`, `dtype_len`.
        #[allow(clippy::identity_op, clippy::erasing_op, clippy::too_many_arguments)]
        pub const fn blockshape_element_offset(
            ndim: usize,
            dtype_len: usize,
            i: usize,
        ) -> usize {
            let _ = (ndim, dtype_len);
            6usize + 14usize * ndim + 5usize * i
        }
        ///The offset of entry `dtype_format`: byte `6 + 19*ndim`. Arguments: `ndim`, `dtype_len`.
        #[allow(clippy::identity_op, clippy::erasing_op, clippy::too_many_arguments)]
        pub const fn dtype_format_offset(ndim: usize, dtype_len: usize) -> usize {
            let _ = (ndim, dtype_len);
            6usize + 19usize * ndim
        }
        ///The offset of entry `dtype`: byte `7 + 19*ndim`. Arguments: `ndim`, `dtype_len`.
        #[allow(clippy::identity_op, clippy::erasing_op, clippy::too_many_arguments)]
        pub const fn dtype_offset(ndim: usize, dtype_len: usize) -> usize {
            let _ = (ndim, dtype_len);
            7usize + 19usize * ndim
        }
    }
};
