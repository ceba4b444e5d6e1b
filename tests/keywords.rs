//! Every Rust keyword that can be a raw identifier names a count entry of
//! `tests/schemas/keywords_v0.toml`: the generated code builds (the formulas take `r#as`,
//! `r#try`, `r#gen`, ...) and works.

use metalayer::prelude::*;

#[metalayer(schema_path = "tests/schemas/keywords_v0.toml")]
#[derive(Debug, Clone, PartialEq)]
struct Keywords {
    as_items: Vec<u8>,
    break_items: Vec<u8>,
    const_items: Vec<u8>,
    continue_items: Vec<u8>,
    else_items: Vec<u8>,
    enum_items: Vec<u8>,
    extern_items: Vec<u8>,
    false_items: Vec<u8>,
    fn_items: Vec<u8>,
    for_items: Vec<u8>,
    if_items: Vec<u8>,
    impl_items: Vec<u8>,
    in_items: Vec<u8>,
    let_items: Vec<u8>,
    loop_items: Vec<u8>,
    match_items: Vec<u8>,
    mod_items: Vec<u8>,
    move_items: Vec<u8>,
    mut_items: Vec<u8>,
    pub_items: Vec<u8>,
    ref_items: Vec<u8>,
    return_items: Vec<u8>,
    static_items: Vec<u8>,
    struct_items: Vec<u8>,
    trait_items: Vec<u8>,
    true_items: Vec<u8>,
    type_items: Vec<u8>,
    unsafe_items: Vec<u8>,
    use_items: Vec<u8>,
    where_items: Vec<u8>,
    while_items: Vec<u8>,
    async_items: Vec<u8>,
    await_items: Vec<u8>,
    dyn_items: Vec<u8>,
    abstract_items: Vec<u8>,
    become_items: Vec<u8>,
    box_items: Vec<u8>,
    do_items: Vec<u8>,
    final_items: Vec<u8>,
    macro_items: Vec<u8>,
    override_items: Vec<u8>,
    priv_items: Vec<u8>,
    typeof_items: Vec<u8>,
    unsized_items: Vec<u8>,
    virtual_items: Vec<u8>,
    yield_items: Vec<u8>,
    try_items: Vec<u8>,
    gen_items: Vec<u8>,
}

/// Entry `k`'s array holds `k % 4` elements.
fn counts() -> [usize; 48] {
    core::array::from_fn(|k| k % 4)
}

fn value() -> Keywords {
    let counts = counts();
    let items = |k: usize| (0..counts[k] as u8).map(|i| i + k as u8).collect::<Vec<u8>>();
    Keywords {
        as_items: items(0),
        break_items: items(1),
        const_items: items(2),
        continue_items: items(3),
        else_items: items(4),
        enum_items: items(5),
        extern_items: items(6),
        false_items: items(7),
        fn_items: items(8),
        for_items: items(9),
        if_items: items(10),
        impl_items: items(11),
        in_items: items(12),
        let_items: items(13),
        loop_items: items(14),
        match_items: items(15),
        mod_items: items(16),
        move_items: items(17),
        mut_items: items(18),
        pub_items: items(19),
        ref_items: items(20),
        return_items: items(21),
        static_items: items(22),
        struct_items: items(23),
        trait_items: items(24),
        true_items: items(25),
        type_items: items(26),
        unsafe_items: items(27),
        use_items: items(28),
        where_items: items(29),
        while_items: items(30),
        async_items: items(31),
        await_items: items(32),
        dyn_items: items(33),
        abstract_items: items(34),
        become_items: items(35),
        box_items: items(36),
        do_items: items(37),
        final_items: items(38),
        macro_items: items(39),
        override_items: items(40),
        priv_items: items(41),
        typeof_items: items(42),
        unsized_items: items(43),
        virtual_items: items(44),
        yield_items: items(45),
        try_items: items(46),
        gen_items: items(47),
    }
}

#[test]
fn every_keyword_count_encodes_decodes_and_measures() {
    let counts = counts();
    // Written out from msgpack's rules: array16 of 96 entries, then per keyword its count as a
    // fixint and a fixarray of fixints `k`, `k + 1`, ...
    let mut expected = vec![0xdc, 0x00, 96];
    for (k, &n) in counts.iter().enumerate() {
        expected.push(n as u8);
        expected.push(0x90 + n as u8);
        expected.extend((0..n as u8).map(|i| i + k as u8));
    }
    let value = value();
    let bytes = value.encode().unwrap();
    assert_eq!(bytes, expected);
    assert_eq!(Keywords::decode(&bytes).unwrap(), value);
    assert_eq!(
        Keywords::encoded_len_for(
            counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], counts[6], counts[7], counts[8],
            counts[9], counts[10], counts[11], counts[12], counts[13], counts[14], counts[15], counts[16], counts[17],
            counts[18], counts[19], counts[20], counts[21], counts[22], counts[23], counts[24], counts[25], counts[26],
            counts[27], counts[28], counts[29], counts[30], counts[31], counts[32], counts[33], counts[34], counts[35],
            counts[36], counts[37], counts[38], counts[39], counts[40], counts[41], counts[42], counts[43], counts[44],
            counts[45], counts[46], counts[47]
        ),
        expected.len()
    );
    // The last array, `gen_items`, starts after the container's 3 bytes and 47 pairs of headers
    // with their elements, and its own count.
    let before: usize = counts[..47].iter().map(|n| 2 + n).sum();
    assert_eq!(
        Keywords::gen_items_offset(
            counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], counts[6], counts[7], counts[8],
            counts[9], counts[10], counts[11], counts[12], counts[13], counts[14], counts[15], counts[16], counts[17],
            counts[18], counts[19], counts[20], counts[21], counts[22], counts[23], counts[24], counts[25], counts[26],
            counts[27], counts[28], counts[29], counts[30], counts[31], counts[32], counts[33], counts[34], counts[35],
            counts[36], counts[37], counts[38], counts[39], counts[40], counts[41], counts[42], counts[43], counts[44],
            counts[45], counts[46], counts[47]
        ),
        3 + before + 1
    );
}
