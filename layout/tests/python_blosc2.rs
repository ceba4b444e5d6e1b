//! python-blosc2's own metalayers: every built-in schema for them parses, its fixed prefix
//! accepts the values python-blosc2 wrote, and the whole of each value is what the schema
//! describes, entry by entry (read by a small msgpack walker of this test, independent of the
//! code generator).
//!
//! The values are copied from `tests/fixtures/expected.json` (the frame each comes from is named
//! beside it; python-blosc2 4.14.1 and 3.12.2 wrote them) or, for shapes no committed fixture has,
//! from python-blosc2 4.14.1 and msgpack 1.2.4 run by hand as stated. The tests read no file but
//! the example schemas.

use metalayer_layout::{
    ArrayType, Const, Count, Encoding, ExtType, Family, IntType, Layout, MapType, Node, Record, Role, StrType, Type,
    Wire, builtin, builtin_layout, parse,
};

/// The built-ins this file covers, with the metalayer name each describes.
const SCHEMAS: &[(&str, &str)] = &[
    ("b2o_v1", "b2o"),
    ("lazyarray_v0", "LazyArray"),
    ("proxy_source_local_v0", "proxy-source"),
    ("proxy_source_memory_v0", "proxy-source"),
    ("proxy_source_caterva2_v0", "proxy-source"),
    ("proxy_source_remote_v0", "proxy-source"),
    ("proxy_source_dataset_v0", "proxy-source"),
    ("batcharray_empty_v1", "batcharray"),
    ("batcharray_v1", "batcharray"),
    ("batcharray_arrow_v1", "batcharray"),
    ("vlarray_v1", "vlarray"),
    ("listarray_scalar_v1", "listarray"),
    ("listarray_string_v1", "listarray"),
    ("b2embed_v1", "b2embed"),
    ("b2dict_v1", "b2dict"),
    ("b2tree_v1", "b2tree"),
    ("proxy_source_custom_v0", "proxy-source"),
    ("proxy_source_untagged_local_v0", "proxy-source"),
    ("proxy_source_untagged_memory_v0", "proxy-source"),
    ("proxy_source_untagged_caterva2_v0", "proxy-source"),
    ("proxy_source_untagged_caterva2_auth_v0", "proxy-source"),
    ("ctable_varlen_scalar_v1", "ctable_varlen_scalar"),
];

/// (schema, raw metalayer content as hex), from the fixture frames named in the comments
/// (`tests/fixtures/files/...`, their `metalayers[].hex` in expected.json).
const FIXTURES: &[(&str, &str)] = &[
    // blosc2-4-own/batcharray.b2b: {"version": 1, "serializer": "msgpack", "items_per_block": 3, "arrow_schema": null}
    (
        "batcharray_v1",
        "84a776657273696f6e01aa73657269616c697a6572a76d73677061636baf6974656d735f7065725f626c6f636b03ac6172726f775f736368656d61c0",
    ),
    // blosc2-4-own/batcharray_sparse.b2b: {"version": 1, "serializer": "msgpack", "items_per_block": 2, "arrow_schema": null}
    (
        "batcharray_v1",
        "84a776657273696f6e01aa73657269616c697a6572a76d73677061636baf6974656d735f7065725f626c6f636b02ac6172726f775f736368656d61c0",
    ),
    // blosc2-4-own/c2array.b2nd: {"kind": "c2array", "version": 1}
    ("b2o_v1", "82a46b696e64a763326172726179a776657273696f6e01"),
    // blosc2-4-own/ctable_embed.b2e: {"version": 1}
    ("b2tree_v1", "81a776657273696f6e01"),
    // blosc2-4-own/dictstore_embed.b2e: {"version": 1}
    ("b2dict_v1", "81a776657273696f6e01"),
    // blosc2-4-own/embedstore.b2e: {"version": 1}
    ("b2embed_v1", "81a776657273696f6e01"),
    // blosc2-4-own/lazyexpr.b2nd (also lazyexpr_c2array.b2nd, lazyexpr_sparse.b2nd,
    // lazyexpr_user_vlmeta.b2nd): {"kind": "lazyexpr", "version": 1}
    ("b2o_v1", "82a46b696e64a86c617a7965787072a776657273696f6e01"),
    // blosc2-4-own/lazyudf_dsl.b2nd: {"kind": "lazyudf", "version": 1}
    ("b2o_v1", "82a46b696e64a76c617a79756466a776657273696f6e01"),
    // blosc2-4-own/lazyudf_legacy.b2nd: 1
    ("lazyarray_v0", "01"),
    // blosc2-4-own/listarray_batch.b2b: {"version": 1, "kind": "list", "item": {"kind": "int64"},
    // "nullable": false, "serializer": "msgpack", "batch_rows": 2048, "backend": "batch"}
    (
        "listarray_scalar_v1",
        "87a776657273696f6e01a46b696e64a46c697374a46974656d81a46b696e64a5696e743634a86e756c6c61626c65c2aa73657269616c697a6572a76d73677061636baa62617463685f726f7773cd0800a76261636b656e64a56261746368",
    ),
    // blosc2-4-own/listarray_batch.b2b: {"version": 1, "serializer": "msgpack", "items_per_block": 2, "arrow_schema": null}
    (
        "batcharray_v1",
        "84a776657273696f6e01aa73657269616c697a6572a76d73677061636baf6974656d735f7065725f626c6f636b02ac6172726f775f736368656d61c0",
    ),
    // blosc2-4-own/listarray_vl.b2f: {"version": 1, "kind": "list", "item": {"kind": "string", "max_length": 32},
    // "nullable": false, "serializer": "msgpack", "batch_rows": 2048, "backend": "vl"}
    (
        "listarray_string_v1",
        "87a776657273696f6e01a46b696e64a46c697374a46974656d82a46b696e64a6737472696e67aa6d61785f6c656e67746820a86e756c6c61626c65c2aa73657269616c697a6572a76d73677061636baa62617463685f726f7773cd0800a76261636b656e64a2766c",
    ),
    // blosc2-4-own/listarray_vl.b2f and objectarray.b2f: {"version": 1, "serializer": "msgpack"}
    (
        "vlarray_v1",
        "82a776657273696f6e01aa73657269616c697a6572a76d73677061636b",
    ),
    // blosc2-4-own/proxy_ndarray.b2nd: {"source_kind": "local", "local_abspath": "operand_a.b2nd",
    // "urlpath": null, "caterva2_env": false}
    (
        "proxy_source_local_v0",
        "84ab736f757263655f6b696e64a56c6f63616cad6c6f63616c5f61627370617468ae6f706572616e645f612e62326e64a775726c70617468c0ac63617465727661325f656e76c2",
    ),
    // blosc2-4-own/proxy_partial_sparse.b2nd: ... "local_abspath": "operand_b.b2nd" ...
    (
        "proxy_source_local_v0",
        "84ab736f757263655f6b696e64a56c6f63616cad6c6f63616c5f61627370617468ae6f706572616e645f622e62326e64a775726c70617468c0ac63617465727661325f656e76c2",
    ),
    // blosc2-4-own/proxy_schunk.b2f: ... "local_abspath": "operand_schunk.b2f" ...
    (
        "proxy_source_local_v0",
        "84ab736f757263655f6b696e64a56c6f63616cad6c6f63616c5f61627370617468b26f706572616e645f736368756e6b2e623266a775726c70617468c0ac63617465727661325f656e76c2",
    ),
    // blosc2-4-own/treestore_embed.b2e: {"version": 1}
    ("b2tree_v1", "81a776657273696f6e01"),
    // blosc2-4-own/proxy_custom.b2nd: {"source_kind": null, "local_abspath": null, "urlpath": null,
    // "caterva2_env": false}
    (
        "proxy_source_custom_v0",
        "84ab736f757263655f6b696e64c0ad6c6f63616c5f61627370617468c0a775726c70617468c0ac63617465727661325f656e76c2",
    ),
    // blosc2-4-own/proxy_memory.b2nd: {"source_kind": "local", "local_abspath": null, "urlpath": null,
    // "caterva2_env": false}
    (
        "proxy_source_memory_v0",
        "84ab736f757263655f6b696e64a56c6f63616cad6c6f63616c5f61627370617468c0a775726c70617468c0ac63617465727661325f656e76c2",
    ),
    // blosc2-4-own/proxy_c2array.b2nd: {"source_kind": "caterva2", "local_abspath": null,
    // "urlpath": ["__tuple__", "@public/examples/ds-1d-i4.b2nd", "https://cat2.cloud/demo/", null],
    // "caterva2_env": false}
    (
        "proxy_source_caterva2_v0",
        "84ab736f757263655f6b696e64a86361746572766132ad6c6f63616c5f61627370617468c0a775726c7061746894a95f5f7475706c655f5fbe407075626c69632f6578616d706c65732f64732d31642d69342e62326e64b868747470733a2f2f636174322e636c6f75642f64656d6f2fc0ac63617465727661325f656e76c2",
    ),
    // blosc2-4-stores/proxy_b2z.b2nd: {"source_kind": "b2z", "local_abspath": null, "urlpath":
    // "dictstore.b2z", "caterva2_env": false, "dataset": "big"}
    (
        "proxy_source_dataset_v0",
        "85ab736f757263655f6b696e64a362327aad6c6f63616c5f61627370617468c0a775726c70617468ad6469637473746f72652e62327aac63617465727661325f656e76c2a764617461736574a3626967",
    ),
    // blosc2-4-stores/ctable.b2d/_cols/vs.b2b: {"version": 1, "py_type": "str", "nullable": false,
    // "batch_rows": 2048}
    (
        "ctable_varlen_scalar_v1",
        "84a776657273696f6e01a770795f74797065a3737472a86e756c6c61626c65c2aa62617463685f726f7773cd0800",
    ),
    // blosc2-3-own/lazyexpr.b2nd (python-blosc2 3.12.2): 0
    ("lazyarray_v0", "00"),
    // blosc2-3-own/proxy_ndarray.b2nd: {"local_abspath": "operand_a.b2nd", "urlpath": null,
    // "caterva2_env": false}
    (
        "proxy_source_untagged_local_v0",
        "83ad6c6f63616c5f61627370617468ae6f706572616e645f612e62326e64a775726c70617468c0ac63617465727661325f656e76c2",
    ),
    // blosc2-3-own/proxy_memory.b2nd: {"local_abspath": null, "urlpath": null, "caterva2_env": false}
    (
        "proxy_source_untagged_memory_v0",
        "83ad6c6f63616c5f61627370617468c0a775726c70617468c0ac63617465727661325f656e76c2",
    ),
    // blosc2-3-own/proxy_c2array.b2nd: {"local_abspath": null, "urlpath": ["__tuple__",
    // "@public/examples/ds-1d-i4.b2nd", "https://cat2.cloud/demo/", null], "caterva2_env": false}
    (
        "proxy_source_untagged_caterva2_v0",
        "83ad6c6f63616c5f61627370617468c0a775726c7061746894a95f5f7475706c655f5fbe407075626c69632f6578616d706c65732f64732d31642d69342e62326e64b868747470733a2f2f636174322e636c6f75642f64656d6f2fc0ac63617465727661325f656e76c2",
    ),
    // blosc2-3-own/proxy_c2array_auth.b2nd: the same with the auth token "a-token"
    (
        "proxy_source_untagged_caterva2_auth_v0",
        "83ad6c6f63616c5f61627370617468c0a775726c7061746894a95f5f7475706c655f5fbe407075626c69632f6578616d706c65732f64732d31642d69342e62326e64b868747470733a2f2f636174322e636c6f75642f64656d6f2fa7612d746f6b656eac63617465727661325f656e76c2",
    ),
];

/// Shapes no committed fixture has, written by python-blosc2 4.14.1 (msgpack 1.2.4, pyarrow and
/// fsspec installed) and read back with `blosc2_ext.meta__getitem__`.
const HAND_RUNS: &[(&str, &str)] = &[
    // blosc2.Proxy(blosc2.FsspecNDSource("file:///tmp/b2play/plain.b2nd"), urlpath="fsproxy.b2nd"):
    // {"source_kind": "fsspec", "local_abspath": "file:///tmp/b2play/plain.b2nd", "urlpath": <the same>, "caterva2_env": False}
    (
        "proxy_source_remote_v0",
        "84ab736f757263655f6b696e64a6667373706563ad6c6f63616c5f61627370617468bd66696c653a2f2f2f746d702f6232706c61792f706c61696e2e62326e64a775726c70617468bd66696c653a2f2f2f746d702f6232706c61792f706c61696e2e62326e64ac63617465727661325f656e76c2",
    ),
    // blosc2.BatchArray(urlpath="empty.b2b", mode="w"), no batch appended:
    // {"version": 1, "serializer": "msgpack", "items_per_block": None, "arrow_schema": None}
    (
        "batcharray_empty_v1",
        "84a776657273696f6e01aa73657269616c697a6572a76d73677061636baf6974656d735f7065725f626c6f636bc0ac6172726f775f736368656d61c0",
    ),
    // blosc2.BatchArray(urlpath="arrow.b2b", mode="w", serializer="arrow") before any batch:
    // {"version": 1, "serializer": "arrow", "items_per_block": None, "arrow_schema": None}
    (
        "batcharray_empty_v1",
        "84a776657273696f6e01aa73657269616c697a6572a56172726f77af6974656d735f7065725f626c6f636bc0ac6172726f775f736368656d61c0",
    ),
    // blosc2.BatchArray(urlpath="ipb.b2b", mode="w", items_per_block=5):
    // {"version": 1, "serializer": "msgpack", "items_per_block": 5, "arrow_schema": None}
    (
        "batcharray_v1",
        "84a776657273696f6e01aa73657269616c697a6572a76d73677061636baf6974656d735f7065725f626c6f636b05ac6172726f775f736368656d61c0",
    ),
    // The same arrow.b2b after .append(pyarrow.array([1, 2, 3])), reopened:
    // {"version": 1, "serializer": "arrow", "items_per_block": 3, "arrow_schema": <136 bytes>}
    (
        "batcharray_arrow_v1",
        "84a776657273696f6e01aa73657269616c697a6572a56172726f77af6974656d735f7065725f626c6f636b03ac6172726f775f736368656d61c488ffffffff800000001000000000000a000c000600050008000a000000000104000c000000080008000000040008000000040000000100000014000000100014000800060007000c00000010001000000000000102100000002000000004000000000000000600000076616c756573000008000c000800070008000000000000014000000000000000",
    ),
    // blosc2.ListArray(item_spec=blosc2.int64(), urlpath="la.b2b", mode="w", storage="vl"):
    // {"version": 1, "kind": "list", "item": {"kind": "int64"}, "nullable": False,
    //  "serializer": "msgpack", "batch_rows": 2048, "backend": "vl"}
    (
        "listarray_scalar_v1",
        "87a776657273696f6e01a46b696e64a46c697374a46974656d81a46b696e64a5696e743634a86e756c6c61626c65c2aa73657269616c697a6572a76d73677061636baa62617463685f726f7773cd0800a76261636b656e64a2766c",
    ),
];

fn unhex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex: {s}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

fn layout(schema: &str) -> Layout {
    builtin_layout(schema).unwrap_or_else(|| {
        let text = builtin(schema).map_or("", |b| b.text);
        panic!("{schema}: {:#?}", parse(schema, text).err())
    })
}

/// Whether `bytes` starts with what `prefix` accepts.
fn prefix_accepts(prefix: &[(u8, u8)], bytes: &[u8]) -> Result<(), String> {
    if prefix.len() > bytes.len() {
        return Err(format!("prefix of {} bytes, value of {}", prefix.len(), bytes.len()));
    }
    for (i, (&(lo, hi), &b)) in prefix.iter().zip(bytes).enumerate() {
        if b < lo || b > hi {
            return Err(format!("byte {i} is {b:#04x}, the prefix wants {lo:#04x}..={hi:#04x}"));
        }
    }
    Ok(())
}

/// A msgpack reader that checks a value against a layout's node: the wire type (fixed, or the
/// smallest of its family for a canonical encoding), ranges, named values, constants, keys,
/// counts and UTF-8.
struct Walk<'a> {
    layout: &'a Layout,
    bytes: &'a [u8],
    at: usize,
}

impl Walk<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| format!("{n} bytes wanted at {:#x}, the value ends first", self.at))?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn uint(&mut self, width: usize) -> Result<u64, String> {
        Ok(self.take(width)?.iter().fold(0u64, |v, &b| (v << 8) | u64::from(b)))
    }

    /// The marker's wire type, which must be of `family`.
    fn marker(&mut self, family: Family, what: &str) -> Result<(u8, Wire), String> {
        let at = self.at;
        let m = self.take(1)?[0];
        let wire = Wire::of_marker(m).ok_or_else(|| format!("{what}: marker {m:#04x} at {at:#x}"))?;
        if wire.family() != family {
            return Err(format!(
                "{what}: marker {m:#04x} at {at:#x} is {}, not {}",
                wire.name(),
                family.name()
            ));
        }
        Ok((m, wire))
    }

    /// A str, bin, array or map header (or an ext's, without its type byte): the length.
    fn length(&mut self, m: u8, wire: Wire) -> Result<usize, String> {
        let n = match wire {
            Wire::FixStr => u64::from(m & 0x1f),
            Wire::FixArray | Wire::FixMap => u64::from(m & 0x0f),
            w => match w.fixext_len() {
                Some(n) => n as u64,
                None => self.uint(w.width())?,
            },
        };
        usize::try_from(n).map_err(|e| e.to_string())
    }

    fn encoding(enc: Encoding, wire: Wire, smallest: Option<Wire>, what: &str) -> Result<(), String> {
        match enc {
            Encoding::Fixed(w) if w != wire => {
                Err(format!("{what}: {} where the schema says {}", wire.name(), w.name()))
            }
            Encoding::Canonical { lenient: false } if smallest != Some(wire) => Err(format!(
                "{what}: {} is not the smallest encoding ({:?})",
                wire.name(),
                smallest.map(Wire::name)
            )),
            _ => Ok(()),
        }
    }

    fn node(&mut self, node: &Node, role: Option<&Role>, what: &str) -> Result<(), String> {
        let konst = match role {
            Some(Role::Const(c)) => Some(c),
            _ => None,
        };
        match &node.ty {
            Type::Nil => self.marker(Family::Nil, what).map(drop),
            Type::Bool => self.bool(konst, what),
            Type::Int(t) => self.int(t, konst, what),
            Type::Float(w) => self.float(*w, what),
            Type::Str(t) => self.str(t, konst, what),
            Type::Bin(b) => self.bytes(Family::Bin, b.encoding, what).map(drop),
            Type::Ext(t) => self.ext(t, what),
            Type::Array(a) => self.array(a, what),
            Type::Map(t) => self.map(t, what),
            Type::Record(r) => self.record(r, what),
            Type::Ref(i) => {
                let t = &self.layout.types[*i];
                self.record(&t.record, &format!("{what} ({})", t.name))
            }
        }
    }

    fn bool(&mut self, konst: Option<&Const>, what: &str) -> Result<(), String> {
        let (m, _) = self.marker(Family::Bool, what)?;
        if let Some(Const::Bool(b)) = konst
            && (m == 0xc3) != *b
        {
            return Err(format!("{what}: constant {b}, found {m:#04x}"));
        }
        Ok(())
    }

    fn int(&mut self, t: &IntType, konst: Option<&Const>, what: &str) -> Result<(), String> {
        let (m, wire) = self.marker(Family::Int, what)?;
        let v: i128 = match wire {
            Wire::PosFixInt => i128::from(m),
            Wire::NegFixInt => i128::from(m as i8),
            w if w.is_signed() => {
                let raw = self.uint(w.width())?;
                let bits = 64 - 8 * w.width() as u32;
                i128::from(((raw << bits) as i64) >> bits)
            }
            w => i128::from(self.uint(w.width())?),
        };
        Self::encoding(t.encoding, wire, Wire::smallest_int(v), what)?;
        if v < t.min || v > t.max {
            return Err(format!("{what}: {v} outside {}..={}", t.min, t.max));
        }
        if !t.values.is_empty() && !t.values.iter().any(|(_, x)| *x == v) {
            return Err(format!("{what}: {v} is not a named value"));
        }
        if let Some(Const::Int(c)) = konst
            && *c != v
        {
            return Err(format!("{what}: constant {c}, found {v}"));
        }
        Ok(())
    }

    fn float(&mut self, w: Wire, what: &str) -> Result<(), String> {
        let (_, wire) = self.marker(Family::Float, what)?;
        Self::encoding(Encoding::Fixed(w), wire, None, what)?;
        self.take(wire.width())?;
        Ok(())
    }

    /// A string's or bin's header and bytes, in `encoding`; the bytes.
    fn bytes(&mut self, family: Family, encoding: Encoding, what: &str) -> Result<Vec<u8>, String> {
        let (m, wire) = self.marker(family, what)?;
        let len = self.length(m, wire)?;
        Self::encoding(encoding, wire, Wire::smallest_len(family, len as u64), what)?;
        Ok(self.take(len)?.to_vec())
    }

    fn str(&mut self, t: &StrType, konst: Option<&Const>, what: &str) -> Result<(), String> {
        let s = self.bytes(Family::Str, t.encoding, what)?;
        if !t.raw {
            std::str::from_utf8(&s).map_err(|e| format!("{what}: {e}"))?;
        }
        if let Some(Const::Bytes(c)) = konst
            && *c != s
        {
            return Err(format!("{what}: constant {c:?}, found {s:?}"));
        }
        Ok(())
    }

    fn ext(&mut self, t: &ExtType, what: &str) -> Result<(), String> {
        let (m, wire) = self.marker(Family::Ext, what)?;
        let len = self.length(m, wire)?;
        Self::encoding(t.encoding, wire, Wire::smallest_len(Family::Ext, len as u64), what)?;
        let ty = self.take(1)?[0] as i8;
        if t.ext_type.is_some_and(|x| x != ty) {
            return Err(format!("{what}: ext type {ty}, the schema's is {:?}", t.ext_type));
        }
        self.take(len)?;
        Ok(())
    }

    fn array(&mut self, a: &ArrayType, what: &str) -> Result<(), String> {
        let (m, wire) = self.marker(Family::Array, what)?;
        let n = self.length(m, wire)?;
        Self::encoding(a.header, wire, Wire::smallest_len(Family::Array, n as u64), what)?;
        if let Count::Fixed(c) = a.count
            && c != n
        {
            return Err(format!("{what}: {n} elements, the schema fixes {c}"));
        }
        for i in 0..n {
            self.node(&a.element, None, &format!("{what}[{i}]"))?;
        }
        Ok(())
    }

    fn map(&mut self, t: &MapType, what: &str) -> Result<(), String> {
        let (m, wire) = self.marker(Family::Map, what)?;
        let n = self.length(m, wire)?;
        Self::encoding(t.header, wire, Wire::smallest_len(Family::Map, n as u64), what)?;
        for i in 0..n {
            self.node(&t.key, None, &format!("{what} key {i}"))?;
            self.node(&t.value, None, &format!("{what} value {i}"))?;
        }
        Ok(())
    }

    fn record(&mut self, r: &Record, what: &str) -> Result<(), String> {
        let (m, wire) = self.marker(r.form, what)?;
        let n = self.length(m, wire)?;
        Self::encoding(r.header, wire, Wire::smallest_len(r.form, n as u64), what)?;
        if n < r.required || n > r.entries.len() {
            return Err(format!(
                "{what}: {n} entries, the schema has {}..={}",
                r.required,
                r.entries.len()
            ));
        }
        for e in &r.entries[..n] {
            let path = format!("{what}.{}", e.name);
            if let Some(key) = &e.key {
                let (km, kw) = self.marker(Family::Str, &format!("{path} key"))?;
                let len = self.length(km, kw)?;
                let found = self.take(len)?;
                if found != key.as_bytes() {
                    return Err(format!(
                        "{path}: key {:?}, found {:?}",
                        key,
                        String::from_utf8_lossy(found)
                    ));
                }
            }
            self.node(&e.node, Some(&e.role), &path)?;
        }
        Ok(())
    }
}

/// Checks that `bytes` is exactly one value of the layout.
fn walk(layout: &Layout, bytes: &[u8]) -> Result<(), String> {
    let mut w = Walk { layout, bytes, at: 0 };
    w.node(&layout.root, None, &layout.schema)?;
    if w.at != bytes.len() {
        return Err(format!("{} bytes left after the value", bytes.len() - w.at));
    }
    Ok(())
}

#[test]
fn every_python_blosc2_schema_parses_and_names_its_metalayer() {
    for &(schema, metalayer) in SCHEMAS {
        let l = layout(schema);
        assert_eq!(l.metalayer, metalayer, "{schema}");
        assert_eq!(l.schema, schema);
        assert!(
            ["python-blosc2 4.14.1, blosc2/", "python-blosc2 3.12.2, blosc2/"]
                .iter()
                .any(|release| l.source.starts_with(release)),
            "{schema}: {}",
            l.source
        );
    }
    // Every shape is covered by a value python-blosc2 wrote.
    for &(schema, _) in SCHEMAS {
        assert!(
            FIXTURES.iter().chain(HAND_RUNS).any(|(s, _)| *s == schema),
            "{schema} has no value"
        );
    }
}

#[test]
fn fixed_prefixes_accept_the_values_python_blosc2_wrote() {
    for &(schema, hex) in FIXTURES.iter().chain(HAND_RUNS) {
        let bytes = unhex(hex);
        let prefix = layout(schema).fixed_prefix();
        prefix_accepts(&prefix, &bytes).unwrap_or_else(|e| panic!("{schema} {hex}: {e}"));
    }
}

#[test]
fn fixed_prefixes_reach_past_the_first_key() {
    // Hand derived: the fixmap header, then each key and constant up to the first value that
    // depends on the value (a canonical string or integer field ends the prefix).
    let cases: &[(&str, usize)] = &[
        ("b2o_v1", 1 + 5),                      // 0x82, "kind"
        ("b2embed_v1", 1 + 8 + 1),              // 0x81, "version", 0x01
        ("b2dict_v1", 1 + 8 + 1),               // same
        ("b2tree_v1", 1 + 8 + 1),               // same
        ("vlarray_v1", 1 + 8 + 1 + 11),         // 0x82, "version", 0x01, "serializer"
        ("batcharray_v1", 1 + 8 + 1 + 11),      // 0x84, ...
        ("listarray_scalar_v1", 1 + 8 + 1 + 5), // 0x87, "version", 0x01, "kind"
        ("proxy_source_local_v0", 1 + 12),      // 0x84, "source_kind"
        ("proxy_source_dataset_v0", 1 + 12),    // 0x85, "source_kind"
    ];
    for &(schema, at_least) in cases {
        let prefix = layout(schema).fixed_prefix();
        assert!(prefix.len() >= at_least, "{schema}: {prefix:02x?}");
    }
    assert_eq!(
        layout("b2o_v1").fixed_prefix()[..6],
        [0x82, 0xa4, b'k', b'i', b'n', b'd'].map(|b| (b, b))
    );
    // LazyArray is a canonical integer of 0..=1: its smallest encoding is the positive fixint
    // 0x00 or 0x01, one range, the whole value.
    assert_eq!(layout("lazyarray_v0").fixed_prefix(), [(0x00, 0x01)]);
}

#[test]
fn each_value_is_exactly_what_its_schema_describes() {
    for &(schema, hex) in FIXTURES.iter().chain(HAND_RUNS) {
        walk(&layout(schema), &unhex(hex)).unwrap_or_else(|e| panic!("{schema} {hex}: {e}"));
    }
}

#[test]
fn the_shapes_of_one_name_refuse_each_others_values() {
    let value = |schema: &str| {
        unhex(
            FIXTURES
                .iter()
                .chain(HAND_RUNS)
                .find(|(s, _)| *s == schema)
                .expect(schema)
                .1,
        )
    };
    let names: Vec<&str> = SCHEMAS.iter().map(|(s, _)| *s).collect();
    for (i, a) in names.iter().enumerate() {
        for b in &names[i + 1..] {
            if layout(a).metalayer != layout(b).metalayer {
                continue;
            }
            assert!(walk(&layout(a), &value(b)).is_err(), "{a} accepts {b}'s value");
            assert!(walk(&layout(b), &value(a)).is_err(), "{b} accepts {a}'s value");
        }
    }
}

#[test]
fn constants_and_ranges_refuse_other_values() {
    // b2embed with version 2 (the last byte): outside the prefix, and refused as a constant.
    let v2 = unhex("81a776657273696f6e02");
    assert!(prefix_accepts(&layout("b2embed_v1").fixed_prefix(), &v2).is_err());
    assert_eq!(
        walk(&layout("b2embed_v1"), &v2).unwrap_err(),
        "b2embed_v1.version: constant 1, found 2"
    );
    // vlarray with serializer "arrow": its serializer is a constant.
    let arrow = unhex("82a776657273696f6e01aa73657269616c697a6572a56172726f77");
    assert!(walk(&layout("vlarray_v1"), &arrow).unwrap_err().contains("constant"));
    // LazyArray 2 is neither expression nor UDF.
    assert_eq!(
        walk(&layout("lazyarray_v0"), &[0x02]).unwrap_err(),
        "lazyarray_v0: 2 outside 0..=1"
    );
    // LazyArray 1 as a uint8 (cc 01) is not msgpack.packb's encoding.
    assert!(
        walk(&layout("lazyarray_v0"), &[0xcc, 0x01])
            .unwrap_err()
            .contains("not the smallest")
    );
    // A b2o whose keys come in the other order.
    let swapped = unhex("82a776657273696f6e01a46b696e64a86c617a7965787072");
    assert!(walk(&layout("b2o_v1"), &swapped).unwrap_err().contains("key"));
}

/// The example schemas of `examples/schemas/` (not built-ins): the user metalayers of the
/// `meta_user` fixtures. That directory is not part of this crate's package; run from the
/// package, this test finds no schema and checks none.
#[test]
fn example_user_metalayer_schemas_describe_the_meta_user_fixtures() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/schemas");
    if !dir.is_dir() {
        eprintln!("{} is absent (a packaged crate): nothing to check", dir.display());
        return;
    }
    // blosc2-4/meta_user.b2nd (and sparse_meta.b2nd, blosc2-2/meta_user.b2nd,
    // caterva-0.7/meta_user.cat...): the metalayers after b2nd / caterva.
    let cases: &[(&str, &str, &str)] = &[
        ("units_v0", "units", "a66b656c76696e"), // "kelvin"
        ("scale_v0", "scale", "03"),             // 3
        ("tags_v0", "tags", "93010203"),         // [1, 2, 3]
        ("m_v0", "m", "81a16101"),               // {"a": 1}
    ];
    for &(schema, metalayer, hex) in cases {
        let path = dir.join(format!("{schema}.toml"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let l = parse(schema, &text).unwrap_or_else(|d| panic!("{schema}: {d}"));
        assert_eq!(l.metalayer, metalayer);
        let bytes = unhex(hex);
        prefix_accepts(&l.fixed_prefix(), &bytes).unwrap_or_else(|e| panic!("{schema}: {e}"));
        walk(&l, &bytes).unwrap_or_else(|e| panic!("{schema}: {e}"));
    }
}
