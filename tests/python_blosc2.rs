//! python-blosc2's own metalayers, and the user metalayers of the fixtures, through structs bound
//! to their schemas: every python-blosc2 schema built in by name (`b2o_v1`, `proxy_source_*_v0`,
//! `batcharray_*_v1`, `listarray_*_v1`...) and every example user schema
//! (`examples/schemas/{units,scale,tags,m}_v0.toml`).
//!
//! For every value of those metalayers in the fixture frames (`tests/fixtures/files/`, read with
//! `metalayer::frame::read_metalayers`), and for the shapes no fixture holds, values
//! python-blosc2 4.14.1 wrote by hand (see [`HAND_RUNS`]):
//!
//! 1. the struct decodes the bytes;
//! 2. the decoded struct equals python's own decoding of the value (`msgpack.unpackb`, recorded
//!    in `tests/fixtures/expected.json` in the tagged JSON of `tests/fixtures/README.md`),
//!    converted field by field by [`FromPython`]: nothing of ours renders or re-reads the value,
//!    and every constant of the schema is checked against python's value;
//! 3. encoding the struct gives back exactly the original bytes.
//!
//! Then, for each schema, a value with one byte changed in a key or a constant is refused with
//! an error naming the entry (the `[value]` user schemas have neither: a byte changed in a
//! marker instead), and each of the metalayers written in several shapes refuses the other
//! shapes' values at the entry where they differ.

mod common;

use std::collections::BTreeSet;
use std::fmt::Debug;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::unhex;
use metalayer::frame::read_metalayers;
use metalayer::prelude::*;
use metalayer::{DecodeError, IntValue};
use serde_json::{Map, Value as Json};

// ---------------------------------------------------------------------------------------------
// The structs, one (or two) per schema
// ---------------------------------------------------------------------------------------------

/// `b2o_v1`: `{"kind": str, "version": 1}`.
#[metalayer(schema = "b2o_v1")]
#[derive(Debug, Clone, PartialEq)]
struct B2o {
    kind: String,
}

/// `b2o_v1` again, borrowing the kind from the input.
#[metalayer(schema = "b2o_v1")]
#[derive(Debug, Clone, PartialEq)]
struct B2oBorrowed<'a> {
    kind: &'a str,
}

/// `lazyarray_v0`: the single integer 0 (expression) or 1 (UDF).
#[metalayer(schema = "lazyarray_v0")]
#[derive(Debug, Clone, PartialEq)]
struct LazyArray(pub u8);

/// `proxy_source_local_v0`: `{"source_kind": "local", "local_abspath": str, "urlpath": nil,
/// "caterva2_env": bool}`.
#[metalayer(schema = "proxy_source_local_v0")]
#[derive(Debug, Clone, PartialEq)]
struct ProxySourceLocal {
    local_abspath: String,
    caterva2_env: bool,
}

/// `proxy_source_memory_v0`: the same with `"local_abspath": nil`.
#[metalayer(schema = "proxy_source_memory_v0")]
#[derive(Debug, Clone, PartialEq)]
struct ProxySourceMemory {
    caterva2_env: bool,
}

/// `proxy_source_caterva2_v0`: `urlpath` is the tuple `["__tuple__", path, urlbase, nil]`.
#[metalayer(schema = "proxy_source_caterva2_v0")]
#[derive(Debug, Clone, PartialEq)]
struct ProxySourceCaterva2 {
    urlpath: C2ArrayAddress,
    caterva2_env: bool,
}

/// The `c2array_address` record type of `proxy_source_caterva2_v0`.
#[metalayer(schema = "proxy_source_caterva2_v0", layout = "c2array_address")]
#[derive(Debug, Clone, PartialEq)]
struct C2ArrayAddress {
    path: String,
    urlbase: String,
}

/// `proxy_source_remote_v0`: an fsspec or Zarr source, every key but `caterva2_env` a string.
#[metalayer(schema = "proxy_source_remote_v0")]
#[derive(Debug, Clone, PartialEq)]
struct ProxySourceRemote {
    source_kind: String,
    local_abspath: String,
    urlpath: String,
    caterva2_env: bool,
}

/// `proxy_source_dataset_v0`: a .b2z or HDF5 dataset, with a fifth key.
#[metalayer(schema = "proxy_source_dataset_v0")]
#[derive(Debug, Clone, PartialEq)]
struct ProxySourceDataset {
    source_kind: Box<str>,
    urlpath: Box<str>,
    caterva2_env: bool,
    dataset: Box<str>,
}

/// `proxy_source_custom_v0`: a source of the user's own, every key but `caterva2_env` nil.
#[metalayer(schema = "proxy_source_custom_v0")]
#[derive(Debug, Clone, PartialEq)]
struct ProxySourceCustom {
    caterva2_env: bool,
}

/// `proxy_source_untagged_local_v0`: python-blosc2 3.x's `{"local_abspath": str, "urlpath":
/// nil, "caterva2_env": bool}`.
#[metalayer(schema = "proxy_source_untagged_local_v0")]
#[derive(Debug, Clone, PartialEq)]
struct ProxySourceUntaggedLocal {
    local_abspath: String,
    caterva2_env: bool,
}

/// `proxy_source_untagged_memory_v0`: the same with `"local_abspath": nil`.
#[metalayer(schema = "proxy_source_untagged_memory_v0")]
#[derive(Debug, Clone, PartialEq)]
struct ProxySourceUntaggedMemory {
    caterva2_env: bool,
}

/// `proxy_source_untagged_caterva2_v0`: `urlpath` is `["__tuple__", path, urlbase, nil]`.
#[metalayer(schema = "proxy_source_untagged_caterva2_v0")]
#[derive(Debug, Clone, PartialEq)]
struct ProxySourceUntaggedCaterva2 {
    urlpath: UntaggedC2ArrayAddress,
    caterva2_env: bool,
}

/// The `c2array_address` record type of `proxy_source_untagged_caterva2_v0`.
#[metalayer(schema = "proxy_source_untagged_caterva2_v0", layout = "c2array_address")]
#[derive(Debug, Clone, PartialEq)]
struct UntaggedC2ArrayAddress {
    path: String,
    urlbase: String,
}

/// `proxy_source_untagged_caterva2_auth_v0`: `urlpath` is `["__tuple__", path, urlbase,
/// auth_token]`.
#[metalayer(schema = "proxy_source_untagged_caterva2_auth_v0")]
#[derive(Debug, Clone, PartialEq)]
struct ProxySourceUntaggedCaterva2Auth {
    urlpath: AuthC2ArrayAddress,
    caterva2_env: bool,
}

/// The `c2array_address` record type of `proxy_source_untagged_caterva2_auth_v0`.
#[metalayer(schema = "proxy_source_untagged_caterva2_auth_v0", layout = "c2array_address")]
#[derive(Debug, Clone, PartialEq)]
struct AuthC2ArrayAddress {
    path: String,
    urlbase: String,
    auth_token: String,
}

/// `ctable_varlen_scalar_v1`: `{"version": 1, "py_type": str, "nullable": bool, "batch_rows":
/// int}`.
#[metalayer(schema = "ctable_varlen_scalar_v1")]
#[derive(Debug, Clone, PartialEq)]
struct CtableVarlenScalar {
    py_type: String,
    nullable: bool,
    batch_rows: u32,
}

/// `batcharray_empty_v1`: `items_per_block` and `arrow_schema` nil.
#[metalayer(schema = "batcharray_empty_v1")]
#[derive(Debug, Clone, PartialEq)]
struct BatchArrayEmpty {
    serializer: String,
}

/// `batcharray_v1`: `items_per_block` an integer, `arrow_schema` nil.
#[metalayer(schema = "batcharray_v1")]
#[derive(Debug, Clone, PartialEq)]
struct BatchArray {
    serializer: String,
    items_per_block: u64,
}

/// `batcharray_arrow_v1`: the Arrow IPC schema as bin.
#[metalayer(schema = "batcharray_arrow_v1")]
#[derive(Debug, Clone, PartialEq)]
struct BatchArrayArrow<'a> {
    serializer: &'a str,
    items_per_block: u32,
    arrow_schema: &'a [u8],
}

/// `vlarray_v1`: `{"version": 1, "serializer": "msgpack"}`, all constants.
#[metalayer(schema = "vlarray_v1")]
#[derive(Debug, Clone, PartialEq)]
struct VlArray {}

/// `listarray_scalar_v1`: an item spec with its kind alone.
#[metalayer(schema = "listarray_scalar_v1")]
#[derive(Debug, Clone, PartialEq)]
struct ListArrayScalar {
    item: ScalarItem,
    nullable: bool,
    serializer: String,
    batch_rows: u64,
    backend: String,
}

/// The `item` record type of `listarray_scalar_v1`.
#[metalayer(schema = "listarray_scalar_v1", layout = "item")]
#[derive(Debug, Clone, PartialEq)]
struct ScalarItem {
    kind: String,
}

/// `listarray_string_v1`: a string or bytes item spec with its `max_length`.
#[metalayer(schema = "listarray_string_v1")]
#[derive(Debug, Clone, PartialEq)]
struct ListArrayString {
    item: StringItem,
    nullable: bool,
    serializer: String,
    batch_rows: u32,
    backend: String,
}

/// The `item` record type of `listarray_string_v1`.
#[metalayer(schema = "listarray_string_v1", layout = "item")]
#[derive(Debug, Clone, PartialEq)]
struct StringItem {
    kind: String,
    max_length: u32,
}

/// `b2embed_v1`: `{"version": 1}`.
#[metalayer(schema = "b2embed_v1")]
#[derive(Debug, Clone, PartialEq)]
struct B2Embed {}

/// `b2dict_v1`: `{"version": 1}`.
#[metalayer(schema = "b2dict_v1")]
#[derive(Debug, Clone, PartialEq)]
struct B2Dict {}

/// `b2tree_v1`: `{"version": 1}`.
#[metalayer(schema = "b2tree_v1")]
#[derive(Debug, Clone, PartialEq)]
struct B2Tree {}

/// `units_v0`: a string.
#[metalayer(schema_path = "examples/schemas/units_v0.toml")]
#[derive(Debug, Clone, PartialEq)]
struct Units(pub String);

/// `scale_v0`: an integer, any msgpack integer.
#[metalayer(schema_path = "examples/schemas/scale_v0.toml")]
#[derive(Debug, Clone, PartialEq)]
struct Scale(pub PyInt);

/// `tags_v0`: an array of integers.
#[metalayer(schema_path = "examples/schemas/tags_v0.toml")]
#[derive(Debug, Clone, PartialEq)]
struct Tags(pub Vec<i64>);

/// `m_v0`: a map of strings to integers, in stored order.
#[metalayer(schema_path = "examples/schemas/m_v0.toml")]
#[derive(Debug, Clone, PartialEq)]
struct M(pub Vec<(String, PyInt)>);

/// An integer as python's msgpack holds one: anything from -2^63 to 2^64-1, the whole range of a
/// canonical `int` entry.
#[derive(Debug, Clone, Copy, PartialEq)]
struct PyInt(i128);

impl IntValue for PyInt {
    const MIN: i128 = i64::MIN as i128;
    const MAX: i128 = u64::MAX as i128;
    fn to_i128(self) -> i128 {
        self.0
    }
    fn from_i128(v: i128) -> Self {
        PyInt(v)
    }
}

// ---------------------------------------------------------------------------------------------
// Python's decoding, field by field
// ---------------------------------------------------------------------------------------------

/// The struct for python's decoding of a value (`msgpack.unpackb`, in the tagged JSON of
/// `tests/fixtures/README.md`). Each implementation checks that the value has exactly the keys
/// of the schema, that the constants hold the schema's values, and takes each field from its key.
trait FromPython: Sized {
    fn from_python(value: &Json) -> Self;
}

/// The object `value` is, with exactly the keys `keys`.
fn object<'j>(value: &'j Json, keys: &[&str]) -> &'j Map<String, Json> {
    let map = value
        .as_object()
        .unwrap_or_else(|| panic!("expected a map, python has {value}"));
    let found: BTreeSet<&str> = map.keys().map(String::as_str).collect();
    let wanted: BTreeSet<&str> = keys.iter().copied().collect();
    assert_eq!(found, wanted, "the keys of {value}");
    map
}

fn string(value: &Json) -> String {
    value
        .as_str()
        .unwrap_or_else(|| panic!("expected a str, python has {value}"))
        .to_owned()
}

/// An exact integer (JSON keeps python's integers exact).
fn int(value: &Json) -> i128 {
    value
        .as_i64()
        .map(i128::from)
        .or_else(|| value.as_u64().map(i128::from))
        .unwrap_or_else(|| panic!("expected an integer, python has {value}"))
}

fn boolean(value: &Json) -> bool {
    value
        .as_bool()
        .unwrap_or_else(|| panic!("expected a bool, python has {value}"))
}

/// A python `bytes`: `{"$bytes": "hex"}`.
fn bytes(value: &Json) -> Vec<u8> {
    let tagged = object(value, &["$bytes"]);
    unhex(tagged["$bytes"].as_str().expect("hex"))
}

fn nil(value: &Json) {
    assert!(value.is_null(), "expected nil, python has {value}");
}

/// A constant of the schema: python's value must be it.
fn constant(value: &Json, expected: Json) {
    assert_eq!(*value, expected, "the schema's constant");
}

fn narrow<T: TryFrom<i128>>(v: i128) -> T {
    T::try_from(v).unwrap_or_else(|_| panic!("{v} does not fit the field"))
}

impl FromPython for B2o {
    fn from_python(value: &Json) -> Self {
        let o = object(value, &["kind", "version"]);
        constant(&o["version"], 1.into());
        B2o {
            kind: string(&o["kind"]),
        }
    }
}

impl FromPython for LazyArray {
    fn from_python(value: &Json) -> Self {
        LazyArray(narrow(int(value)))
    }
}

impl FromPython for ProxySourceLocal {
    fn from_python(value: &Json) -> Self {
        let o = object(value, &["source_kind", "local_abspath", "urlpath", "caterva2_env"]);
        constant(&o["source_kind"], "local".into());
        nil(&o["urlpath"]);
        ProxySourceLocal {
            local_abspath: string(&o["local_abspath"]),
            caterva2_env: boolean(&o["caterva2_env"]),
        }
    }
}

impl FromPython for ProxySourceMemory {
    fn from_python(value: &Json) -> Self {
        let o = object(value, &["source_kind", "local_abspath", "urlpath", "caterva2_env"]);
        constant(&o["source_kind"], "local".into());
        nil(&o["local_abspath"]);
        nil(&o["urlpath"]);
        ProxySourceMemory {
            caterva2_env: boolean(&o["caterva2_env"]),
        }
    }
}

impl FromPython for ProxySourceCaterva2 {
    fn from_python(value: &Json) -> Self {
        let o = object(value, &["source_kind", "local_abspath", "urlpath", "caterva2_env"]);
        constant(&o["source_kind"], "caterva2".into());
        nil(&o["local_abspath"]);
        let tuple = o["urlpath"].as_array().expect("urlpath is an array");
        assert_eq!(tuple.len(), 4, "urlpath: {tuple:?}");
        constant(&tuple[0], "__tuple__".into());
        nil(&tuple[3]);
        ProxySourceCaterva2 {
            urlpath: C2ArrayAddress {
                path: string(&tuple[1]),
                urlbase: string(&tuple[2]),
            },
            caterva2_env: boolean(&o["caterva2_env"]),
        }
    }
}

impl FromPython for ProxySourceRemote {
    fn from_python(value: &Json) -> Self {
        let o = object(value, &["source_kind", "local_abspath", "urlpath", "caterva2_env"]);
        ProxySourceRemote {
            source_kind: string(&o["source_kind"]),
            local_abspath: string(&o["local_abspath"]),
            urlpath: string(&o["urlpath"]),
            caterva2_env: boolean(&o["caterva2_env"]),
        }
    }
}

impl FromPython for ProxySourceDataset {
    fn from_python(value: &Json) -> Self {
        let o = object(
            value,
            &["source_kind", "local_abspath", "urlpath", "caterva2_env", "dataset"],
        );
        nil(&o["local_abspath"]);
        ProxySourceDataset {
            source_kind: string(&o["source_kind"]).into(),
            urlpath: string(&o["urlpath"]).into(),
            caterva2_env: boolean(&o["caterva2_env"]),
            dataset: string(&o["dataset"]).into(),
        }
    }
}

impl FromPython for ProxySourceCustom {
    fn from_python(value: &Json) -> Self {
        let o = object(value, &["source_kind", "local_abspath", "urlpath", "caterva2_env"]);
        nil(&o["source_kind"]);
        nil(&o["local_abspath"]);
        nil(&o["urlpath"]);
        ProxySourceCustom {
            caterva2_env: boolean(&o["caterva2_env"]),
        }
    }
}

const UNTAGGED_KEYS: [&str; 3] = ["local_abspath", "urlpath", "caterva2_env"];

impl FromPython for ProxySourceUntaggedLocal {
    fn from_python(value: &Json) -> Self {
        let o = object(value, &UNTAGGED_KEYS);
        nil(&o["urlpath"]);
        ProxySourceUntaggedLocal {
            local_abspath: string(&o["local_abspath"]),
            caterva2_env: boolean(&o["caterva2_env"]),
        }
    }
}

impl FromPython for ProxySourceUntaggedMemory {
    fn from_python(value: &Json) -> Self {
        let o = object(value, &UNTAGGED_KEYS);
        nil(&o["local_abspath"]);
        nil(&o["urlpath"]);
        ProxySourceUntaggedMemory {
            caterva2_env: boolean(&o["caterva2_env"]),
        }
    }
}

/// The tuple python-blosc2 3.x stores a C2Array's address as: `["__tuple__", path, urlbase,
/// auth_token]`.
fn c2array_tuple(value: &Json) -> &[Json] {
    let tuple = value.as_array().expect("urlpath is an array");
    assert_eq!(tuple.len(), 4, "urlpath: {tuple:?}");
    constant(&tuple[0], "__tuple__".into());
    tuple
}

impl FromPython for ProxySourceUntaggedCaterva2 {
    fn from_python(value: &Json) -> Self {
        let o = object(value, &UNTAGGED_KEYS);
        nil(&o["local_abspath"]);
        let tuple = c2array_tuple(&o["urlpath"]);
        nil(&tuple[3]);
        ProxySourceUntaggedCaterva2 {
            urlpath: UntaggedC2ArrayAddress {
                path: string(&tuple[1]),
                urlbase: string(&tuple[2]),
            },
            caterva2_env: boolean(&o["caterva2_env"]),
        }
    }
}

impl FromPython for ProxySourceUntaggedCaterva2Auth {
    fn from_python(value: &Json) -> Self {
        let o = object(value, &UNTAGGED_KEYS);
        nil(&o["local_abspath"]);
        let tuple = c2array_tuple(&o["urlpath"]);
        ProxySourceUntaggedCaterva2Auth {
            urlpath: AuthC2ArrayAddress {
                path: string(&tuple[1]),
                urlbase: string(&tuple[2]),
                auth_token: string(&tuple[3]),
            },
            caterva2_env: boolean(&o["caterva2_env"]),
        }
    }
}

impl FromPython for CtableVarlenScalar {
    fn from_python(value: &Json) -> Self {
        let o = object(value, &["version", "py_type", "nullable", "batch_rows"]);
        constant(&o["version"], 1.into());
        CtableVarlenScalar {
            py_type: string(&o["py_type"]),
            nullable: boolean(&o["nullable"]),
            batch_rows: narrow(int(&o["batch_rows"])),
        }
    }
}

const BATCHARRAY_KEYS: [&str; 4] = ["version", "serializer", "items_per_block", "arrow_schema"];

impl FromPython for BatchArrayEmpty {
    fn from_python(value: &Json) -> Self {
        let o = object(value, &BATCHARRAY_KEYS);
        constant(&o["version"], 1.into());
        nil(&o["items_per_block"]);
        nil(&o["arrow_schema"]);
        BatchArrayEmpty {
            serializer: string(&o["serializer"]),
        }
    }
}

impl FromPython for BatchArray {
    fn from_python(value: &Json) -> Self {
        let o = object(value, &BATCHARRAY_KEYS);
        constant(&o["version"], 1.into());
        nil(&o["arrow_schema"]);
        BatchArray {
            serializer: string(&o["serializer"]),
            items_per_block: narrow(int(&o["items_per_block"])),
        }
    }
}

/// The owned side of [`BatchArrayArrow`], which borrows: python's value lives in the JSON.
#[derive(Debug, PartialEq)]
struct BatchArrayArrowOwned {
    serializer: String,
    items_per_block: u32,
    arrow_schema: Vec<u8>,
}

impl FromPython for BatchArrayArrowOwned {
    fn from_python(value: &Json) -> Self {
        let o = object(value, &BATCHARRAY_KEYS);
        constant(&o["version"], 1.into());
        BatchArrayArrowOwned {
            serializer: string(&o["serializer"]),
            items_per_block: narrow(int(&o["items_per_block"])),
            arrow_schema: bytes(&o["arrow_schema"]),
        }
    }
}

impl PartialEq<BatchArrayArrowOwned> for BatchArrayArrow<'_> {
    fn eq(&self, other: &BatchArrayArrowOwned) -> bool {
        self.serializer == other.serializer
            && self.items_per_block == other.items_per_block
            && self.arrow_schema == other.arrow_schema
    }
}

impl PartialEq<B2o> for B2oBorrowed<'_> {
    fn eq(&self, other: &B2o) -> bool {
        self.kind == other.kind
    }
}

impl FromPython for VlArray {
    fn from_python(value: &Json) -> Self {
        let o = object(value, &["version", "serializer"]);
        constant(&o["version"], 1.into());
        constant(&o["serializer"], "msgpack".into());
        VlArray {}
    }
}

const LISTARRAY_KEYS: [&str; 7] = [
    "version",
    "kind",
    "item",
    "nullable",
    "serializer",
    "batch_rows",
    "backend",
];

impl FromPython for ListArrayScalar {
    fn from_python(value: &Json) -> Self {
        let o = object(value, &LISTARRAY_KEYS);
        constant(&o["version"], 1.into());
        constant(&o["kind"], "list".into());
        let item = object(&o["item"], &["kind"]);
        ListArrayScalar {
            item: ScalarItem {
                kind: string(&item["kind"]),
            },
            nullable: boolean(&o["nullable"]),
            serializer: string(&o["serializer"]),
            batch_rows: narrow(int(&o["batch_rows"])),
            backend: string(&o["backend"]),
        }
    }
}

impl FromPython for ListArrayString {
    fn from_python(value: &Json) -> Self {
        let o = object(value, &LISTARRAY_KEYS);
        constant(&o["version"], 1.into());
        constant(&o["kind"], "list".into());
        let item = object(&o["item"], &["kind", "max_length"]);
        ListArrayString {
            item: StringItem {
                kind: string(&item["kind"]),
                max_length: narrow(int(&item["max_length"])),
            },
            nullable: boolean(&o["nullable"]),
            serializer: string(&o["serializer"]),
            batch_rows: narrow(int(&o["batch_rows"])),
            backend: string(&o["backend"]),
        }
    }
}

/// `{"version": 1}`, the value of the three store markers.
fn version_one(value: &Json) {
    let o = object(value, &["version"]);
    constant(&o["version"], 1.into());
}

impl FromPython for B2Embed {
    fn from_python(value: &Json) -> Self {
        version_one(value);
        B2Embed {}
    }
}

impl FromPython for B2Dict {
    fn from_python(value: &Json) -> Self {
        version_one(value);
        B2Dict {}
    }
}

impl FromPython for B2Tree {
    fn from_python(value: &Json) -> Self {
        version_one(value);
        B2Tree {}
    }
}

impl FromPython for Units {
    fn from_python(value: &Json) -> Self {
        Units(string(value))
    }
}

impl FromPython for Scale {
    fn from_python(value: &Json) -> Self {
        Scale(PyInt(int(value)))
    }
}

impl FromPython for Tags {
    fn from_python(value: &Json) -> Self {
        let items = value
            .as_array()
            .unwrap_or_else(|| panic!("expected an array, python has {value}"));
        Tags(items.iter().map(|v| narrow(int(v))).collect())
    }
}

impl FromPython for M {
    fn from_python(value: &Json) -> Self {
        // A plain JSON object is a map with string keys (a map with other keys would be `$map`).
        let map = value
            .as_object()
            .unwrap_or_else(|| panic!("expected a map, python has {value}"));
        assert!(
            !map.keys().any(|k| k.starts_with('$')),
            "a tagged value, not a map: {value}"
        );
        M(map.iter().map(|(k, v)| (k.clone(), PyInt(int(v)))).collect())
    }
}

// ---------------------------------------------------------------------------------------------
// The values
// ---------------------------------------------------------------------------------------------

/// Every value of a python-blosc2 metalayer or of an example user metalayer in the fixture
/// frames: (schema, frame under `tests/fixtures/`, metalayer name).
const FIXTURES: &[(&str, &str, &str)] = &[
    ("b2o_v1", "files/blosc2-4-own/c2array.b2nd", "b2o"),
    ("b2o_v1", "files/blosc2-4-own/lazyexpr.b2nd", "b2o"),
    ("b2o_v1", "files/blosc2-4-own/lazyexpr_c2array.b2nd", "b2o"),
    ("b2o_v1", "files/blosc2-4-own/lazyexpr_sparse.b2nd", "b2o"),
    ("b2o_v1", "files/blosc2-4-own/lazyexpr_user_vlmeta.b2nd", "b2o"),
    ("b2o_v1", "files/blosc2-4-own/lazyudf_dsl.b2nd", "b2o"),
    ("lazyarray_v0", "files/blosc2-4-own/lazyudf_legacy.b2nd", "LazyArray"),
    (
        "proxy_source_local_v0",
        "files/blosc2-4-own/proxy_ndarray.b2nd",
        "proxy-source",
    ),
    (
        "proxy_source_local_v0",
        "files/blosc2-4-own/proxy_partial_sparse.b2nd",
        "proxy-source",
    ),
    (
        "proxy_source_local_v0",
        "files/blosc2-4-own/proxy_schunk.b2f",
        "proxy-source",
    ),
    ("batcharray_v1", "files/blosc2-4-own/batcharray.b2b", "batcharray"),
    (
        "batcharray_v1",
        "files/blosc2-4-own/batcharray_sparse.b2b",
        "batcharray",
    ),
    ("batcharray_v1", "files/blosc2-4-own/listarray_batch.b2b", "batcharray"),
    ("vlarray_v1", "files/blosc2-4-own/listarray_vl.b2f", "vlarray"),
    ("vlarray_v1", "files/blosc2-4-own/objectarray.b2f", "vlarray"),
    (
        "listarray_scalar_v1",
        "files/blosc2-4-own/listarray_batch.b2b",
        "listarray",
    ),
    (
        "listarray_string_v1",
        "files/blosc2-4-own/listarray_vl.b2f",
        "listarray",
    ),
    ("b2embed_v1", "files/blosc2-4-own/embedstore.b2e", "b2embed"),
    ("b2dict_v1", "files/blosc2-4-own/dictstore_embed.b2e", "b2dict"),
    ("b2tree_v1", "files/blosc2-4-own/treestore_embed.b2e", "b2tree"),
    ("b2tree_v1", "files/blosc2-4-own/ctable_embed.b2e", "b2tree"),
    // python-blosc2 3.12.2 and 2.7.1's frames, 4.14.1's other sources, and the member files of
    // the .b2d stores.
    ("b2dict_v1", "files/blosc2-4-stores/dictstore.b2d/embed.b2e", "b2dict"),
    ("b2embed_v1", "files/blosc2-3-own/embedstore.b2e", "b2embed"),
    ("b2embed_v1", "files/blosc2-3-stores/dictstore.b2d/embed.b2e", "b2embed"),
    ("b2embed_v1", "files/blosc2-3-stores/treestore.b2d/embed.b2e", "b2embed"),
    ("b2tree_v1", "files/blosc2-4-stores/ctable.b2d/embed.b2e", "b2tree"),
    ("b2tree_v1", "files/blosc2-4-stores/treestore.b2d/embed.b2e", "b2tree"),
    (
        "batcharray_v1",
        "files/blosc2-4-stores/ctable.b2d/_cols/d_dict.b2b",
        "batcharray",
    ),
    (
        "batcharray_v1",
        "files/blosc2-4-stores/ctable.b2d/_cols/ln.b2b",
        "batcharray",
    ),
    (
        "batcharray_v1",
        "files/blosc2-4-stores/ctable.b2d/_cols/ob.b2b",
        "batcharray",
    ),
    (
        "batcharray_v1",
        "files/blosc2-4-stores/ctable.b2d/_cols/st.b2b",
        "batcharray",
    ),
    (
        "batcharray_v1",
        "files/blosc2-4-stores/ctable.b2d/_cols/vb.b2b",
        "batcharray",
    ),
    (
        "batcharray_v1",
        "files/blosc2-4-stores/ctable.b2d/_cols/vs.b2b",
        "batcharray",
    ),
    (
        "batcharray_v1",
        "files/blosc2-4-stores/dictstore.b2d/batches.b2b",
        "batcharray",
    ),
    (
        "ctable_varlen_scalar_v1",
        "files/blosc2-4-stores/ctable.b2d/_cols/d_dict.b2b",
        "ctable_varlen_scalar",
    ),
    (
        "ctable_varlen_scalar_v1",
        "files/blosc2-4-stores/ctable.b2d/_cols/ob.b2b",
        "ctable_varlen_scalar",
    ),
    (
        "ctable_varlen_scalar_v1",
        "files/blosc2-4-stores/ctable.b2d/_cols/st.b2b",
        "ctable_varlen_scalar",
    ),
    (
        "ctable_varlen_scalar_v1",
        "files/blosc2-4-stores/ctable.b2d/_cols/vb.b2b",
        "ctable_varlen_scalar",
    ),
    (
        "ctable_varlen_scalar_v1",
        "files/blosc2-4-stores/ctable.b2d/_cols/vs.b2b",
        "ctable_varlen_scalar",
    ),
    ("lazyarray_v0", "files/blosc2-3-own/lazyexpr.b2nd", "LazyArray"),
    ("lazyarray_v0", "files/blosc2-3-own/lazyexpr_c2array.b2nd", "LazyArray"),
    ("lazyarray_v0", "files/blosc2-3-own/lazyexpr_meta.b2nd", "LazyArray"),
    ("lazyarray_v0", "files/blosc2-3-own/lazyexpr_sparse.b2nd", "LazyArray"),
    ("lazyarray_v0", "files/blosc2-3-own/lazyudf.b2nd", "LazyArray"),
    (
        "listarray_string_v1",
        "files/blosc2-4-stores/ctable.b2d/_cols/ln.b2b",
        "listarray",
    ),
    (
        "proxy_source_caterva2_v0",
        "files/blosc2-4-own/proxy_c2array.b2nd",
        "proxy-source",
    ),
    (
        "proxy_source_custom_v0",
        "files/blosc2-4-own/proxy_custom.b2nd",
        "proxy-source",
    ),
    (
        "proxy_source_custom_v0",
        "files/blosc2-4-own/proxy_custom_schunk.b2f",
        "proxy-source",
    ),
    (
        "proxy_source_dataset_v0",
        "files/blosc2-4-stores/proxy_b2z.b2nd",
        "proxy-source",
    ),
    (
        "proxy_source_local_v0",
        "files/blosc2-4-own/proxy_meta.b2nd",
        "proxy-source",
    ),
    (
        "proxy_source_memory_v0",
        "files/blosc2-4-own/proxy_memory.b2nd",
        "proxy-source",
    ),
    (
        "proxy_source_memory_v0",
        "files/blosc2-4-own/proxy_memory_schunk.b2f",
        "proxy-source",
    ),
    (
        "proxy_source_untagged_caterva2_auth_v0",
        "files/blosc2-3-own/proxy_c2array_auth.b2nd",
        "proxy-source",
    ),
    (
        "proxy_source_untagged_caterva2_v0",
        "files/blosc2-3-own/proxy_c2array.b2nd",
        "proxy-source",
    ),
    (
        "proxy_source_untagged_local_v0",
        "files/blosc2-3-own/proxy_caterva2_env.b2nd",
        "proxy-source",
    ),
    (
        "proxy_source_untagged_local_v0",
        "files/blosc2-3-own/proxy_ndarray.b2nd",
        "proxy-source",
    ),
    (
        "proxy_source_untagged_local_v0",
        "files/blosc2-3-own/proxy_partial_sparse.b2nd",
        "proxy-source",
    ),
    (
        "proxy_source_untagged_local_v0",
        "files/blosc2-3-own/proxy_schunk.b2f",
        "proxy-source",
    ),
    (
        "proxy_source_untagged_memory_v0",
        "files/blosc2-3-own/proxy_custom.b2nd",
        "proxy-source",
    ),
    (
        "proxy_source_untagged_memory_v0",
        "files/blosc2-3-own/proxy_custom_schunk.b2f",
        "proxy-source",
    ),
    (
        "proxy_source_untagged_memory_v0",
        "files/blosc2-3-own/proxy_memory.b2nd",
        "proxy-source",
    ),
    (
        "proxy_source_untagged_memory_v0",
        "files/blosc2-3-own/proxy_memory_schunk.b2f",
        "proxy-source",
    ),
    (
        "vlarray_v1",
        "files/blosc2-4-stores/dictstore.b2d/objects.b2f",
        "vlarray",
    ),
    ("units_v0", "files/blosc2-4/meta_user.b2nd", "units"),
    ("units_v0", "files/blosc2-4/sparse_meta.b2nd", "units"),
    ("units_v0", "files/blosc2-4/ndim16_meta.b2nd", "units"),
    ("units_v0", "files/blosc2-2/meta_user.b2nd", "units"),
    ("units_v0", "files/blosc2-2/sparse_meta.b2nd", "units"),
    ("units_v0", "files/caterva-0.7/meta_user.cat", "units"),
    ("units_v0", "files/caterva-0.7/sparse_meta.cat", "units"),
    ("scale_v0", "files/blosc2-4/meta_user.b2nd", "scale"),
    ("scale_v0", "files/blosc2-4/sparse_meta.b2nd", "scale"),
    ("scale_v0", "files/blosc2-2/meta_user.b2nd", "scale"),
    ("scale_v0", "files/blosc2-2/sparse_meta.b2nd", "scale"),
    ("scale_v0", "files/caterva-0.7/meta_user.cat", "scale"),
    ("scale_v0", "files/caterva-0.7/sparse_meta.cat", "scale"),
    ("tags_v0", "files/blosc2-4/meta_user.b2nd", "tags"),
    ("tags_v0", "files/blosc2-4/sparse_meta.b2nd", "tags"),
    ("tags_v0", "files/blosc2-2/meta_user.b2nd", "tags"),
    ("tags_v0", "files/blosc2-2/sparse_meta.b2nd", "tags"),
    ("tags_v0", "files/caterva-0.7/meta_user.cat", "tags"),
    ("tags_v0", "files/caterva-0.7/sparse_meta.cat", "tags"),
    ("m_v0", "files/blosc2-4/meta_user.b2nd", "m"),
    ("m_v0", "files/blosc2-4/sparse_meta.b2nd", "m"),
    ("m_v0", "files/blosc2-2/meta_user.b2nd", "m"),
    ("m_v0", "files/blosc2-2/sparse_meta.b2nd", "m"),
    ("m_v0", "files/caterva-0.7/meta_user.cat", "m"),
    ("m_v0", "files/caterva-0.7/sparse_meta.cat", "m"),
];

/// Metalayers of the fixtures that no schema of this file describes, and why.
const NOT_COVERED: &[(&str, &str, &str)] = &[
    (
        "files/blosc2-3-own/lazyexpr_meta.b2nd",
        "user",
        "[1, \"two\"]; no example schema is named for it",
    ),
    (
        "files/blosc2-4-own/proxy_meta.b2nd",
        "user",
        "[1, \"two\"]; no example schema is named for it",
    ),
    (
        "files/blosc2-4/ndim16_meta.b2nd",
        "n",
        "the integer 16; no example schema is named for it (scale_v0's layout would fit)",
    ),
    (
        "files/blosc2-4-vlmeta/schunk_meta.b2f",
        "user",
        "[1, \"two\"]; no example schema is named for it",
    ),
    (
        "files/blosc2-2-vlmeta/schunk_meta.b2f",
        "user",
        "[1, \"two\"]; no example schema is named for it",
    ),
];

/// Values of the shapes no fixture frame holds, written by python-blosc2 4.14.1 (msgpack 1.2.4,
/// numpy 2.4.6; pyarrow 26.0.1 and fsspec 2026.9.0 where needed) and read back raw with
/// `blosc2_ext.meta__getitem__(blosc2_ext.open(path, mode="r", offset=0).schunk, name)`:
/// (schema, metalayer name, what python ran, the bytes, `msgpack.unpackb` of them in tagged
/// JSON).
const HAND_RUNS: &[(&str, &str, &str, &str, &str)] = &[
    (
        "proxy_source_remote_v0",
        "proxy-source",
        r#"blosc2.Proxy(blosc2.FsspecNDSource("file:///tmp/b2play/plain.b2nd"), urlpath="fsproxy.b2nd", mode="w")"#,
        "84ab736f757263655f6b696e64a6667373706563ad6c6f63616c5f61627370617468bd66696c653a2f2f2f746d702f6232706c61792f706c61696e2e62326e64a775726c70617468bd66696c653a2f2f2f746d702f6232706c61792f706c61696e2e62326e64ac63617465727661325f656e76c2",
        r#"{"source_kind": "fsspec", "local_abspath": "file:///tmp/b2play/plain.b2nd", "urlpath": "file:///tmp/b2play/plain.b2nd", "caterva2_env": false}"#,
    ),
    (
        "batcharray_empty_v1",
        "batcharray",
        r#"blosc2.BatchArray(urlpath="empty.b2b", mode="w")"#,
        "84a776657273696f6e01aa73657269616c697a6572a76d73677061636baf6974656d735f7065725f626c6f636bc0ac6172726f775f736368656d61c0",
        r#"{"version": 1, "serializer": "msgpack", "items_per_block": null, "arrow_schema": null}"#,
    ),
    (
        "batcharray_empty_v1",
        "batcharray",
        r#"blosc2.BatchArray(urlpath="arrow.b2b", mode="w", serializer="arrow")"#,
        "84a776657273696f6e01aa73657269616c697a6572a56172726f77af6974656d735f7065725f626c6f636bc0ac6172726f775f736368656d61c0",
        r#"{"version": 1, "serializer": "arrow", "items_per_block": null, "arrow_schema": null}"#,
    ),
    (
        "batcharray_v1",
        "batcharray",
        r#"blosc2.BatchArray(urlpath="ipb.b2b", mode="w", items_per_block=5)"#,
        "84a776657273696f6e01aa73657269616c697a6572a76d73677061636baf6974656d735f7065725f626c6f636b05ac6172726f775f736368656d61c0",
        r#"{"version": 1, "serializer": "msgpack", "items_per_block": 5, "arrow_schema": null}"#,
    ),
    (
        "batcharray_arrow_v1",
        "batcharray",
        r#"ba = blosc2.BatchArray(urlpath="arrow.b2b", mode="w", serializer="arrow"); ba.append(pyarrow.array([1, 2, 3]))"#,
        "84a776657273696f6e01aa73657269616c697a6572a56172726f77af6974656d735f7065725f626c6f636b03ac6172726f775f736368656d61c488ffffffff800000001000000000000a000c000600050008000a000000000104000c000000080008000000040008000000040000000100000014000000100014000800060007000c00000010001000000000000102100000002000000004000000000000000600000076616c756573000008000c000800070008000000000000014000000000000000",
        r#"{"version": 1, "serializer": "arrow", "items_per_block": 3, "arrow_schema": {"$bytes": "ffffffff800000001000000000000a000c000600050008000a000000000104000c000000080008000000040008000000040000000100000014000000100014000800060007000c00000010001000000000000102100000002000000004000000000000000600000076616c756573000008000c000800070008000000000000014000000000000000"}}"#,
    ),
    (
        "listarray_scalar_v1",
        "listarray",
        r#"blosc2.ListArray(item_spec=blosc2.int64(), urlpath="la.b2b", mode="w", storage="vl")"#,
        "87a776657273696f6e01a46b696e64a46c697374a46974656d81a46b696e64a5696e743634a86e756c6c61626c65c2aa73657269616c697a6572a76d73677061636baa62617463685f726f7773cd0800a76261636b656e64a2766c",
        r#"{"version": 1, "kind": "list", "item": {"kind": "int64"}, "nullable": false, "serializer": "msgpack", "batch_rows": 2048, "backend": "vl"}"#,
    ),
];

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// `tests/fixtures/expected.json`, read once.
fn expected() -> &'static [Json] {
    static EXPECTED: OnceLock<Vec<Json>> = OnceLock::new();
    EXPECTED.get_or_init(|| {
        let text = std::fs::read_to_string(fixtures_dir().join("expected.json")).expect("expected.json");
        let json: Json = serde_json::from_str(&text).expect("expected.json is JSON");
        // The frame records; store records (`"store"`) describe .b2z and .b2d stores.
        let records = json.as_array().expect("expected.json is an array");
        records.iter().filter(|r| r.get("store").is_none()).cloned().collect()
    })
}

/// The expected.json record of one metalayer of one frame.
fn expected_metalayer(path: &str, name: &str) -> &'static Json {
    let record = expected()
        .iter()
        .find(|r| r["path"] == path)
        .unwrap_or_else(|| panic!("expected.json has no {path}"));
    let mut found = record["metalayers"]
        .as_array()
        .expect("metalayers")
        .iter()
        .filter(|m| m["name"] == name);
    let metalayer = found.next().unwrap_or_else(|| panic!("{path} has no metalayer {name}"));
    assert!(found.next().is_none(), "{path} has two metalayers {name}");
    metalayer
}

/// One value to check: where it comes from, its metalayer name, its bytes and python's decoding.
struct Case {
    context: String,
    name: &'static str,
    bytes: Vec<u8>,
    python: Json,
}

/// Every value of `schema`, from the fixture frames and the hand runs.
fn cases(schema: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    for &(_, path, name) in FIXTURES.iter().filter(|c| c.0 == schema) {
        let context = format!("{schema}: {path} {name}");
        let metalayers = read_metalayers(fixtures_dir().join(path)).unwrap_or_else(|e| panic!("{context}: {e}"));
        let mut found = metalayers.into_iter().filter(|m| m.name == name);
        let metalayer = found.next().unwrap_or_else(|| panic!("{context}: not in the frame"));
        assert!(found.next().is_none(), "{context}: twice in the frame");
        let expected = expected_metalayer(path, name);
        // The frame reader agrees with python-blosc2 on the bytes.
        assert_eq!(
            hex(&metalayer.content),
            expected["hex"].as_str().expect("hex"),
            "{context}: the content"
        );
        assert!(
            expected["msgpack_error"].is_null(),
            "{context}: python could not decode it"
        );
        cases.push(Case {
            context,
            name,
            bytes: metalayer.content,
            python: expected["msgpack"].clone(),
        });
    }
    for &(_, name, ran, value, python) in HAND_RUNS.iter().filter(|c| c.0 == schema) {
        cases.push(Case {
            context: format!("{schema}: {ran}"),
            name,
            bytes: unhex(value),
            python: serde_json::from_str(python).expect("JSON"),
        });
    }
    cases
}

/// Checks (1) to (3) for one value: `T` decodes the bytes to python's value, and encodes back.
fn check<'a, T, P>(case: &'a Case)
where
    T: Decode<'a> + PartialEq<P> + Debug,
    P: FromPython + Debug,
{
    let context = &case.context;
    assert_eq!(T::NAME, case.name, "{context}: the schema's metalayer name");
    let decoded = T::decode(&case.bytes).unwrap_or_else(|e| panic!("{context}: {e}"));
    let expected = P::from_python(&case.python);
    assert!(
        decoded == expected,
        "{context}: decoded {decoded:?}, python has {expected:?}"
    );
    assert_eq!(decoded.encoded_len(), case.bytes.len(), "{context}: encoded_len");
    let encoded = decoded.encode().unwrap_or_else(|e| panic!("{context}: {e}"));
    assert_eq!(hex(&encoded), hex(&case.bytes), "{context}: encode");
    common::engine_agrees::<T>(&case.bytes, Some(encoded));
}

/// Checks every value of `schema` through `T` (which must be bound to it); returns how many
/// there were.
fn check_schema<T, P>(schema: &str) -> usize
where
    T: DecodeOwned + PartialEq<P> + Debug,
    P: FromPython + Debug,
{
    assert_eq!(T::SCHEMA, schema);
    let cases = cases(schema);
    for case in &cases {
        check::<T, P>(case);
    }
    cases.len()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

// ---------------------------------------------------------------------------------------------
// (1) to (3), per schema
// ---------------------------------------------------------------------------------------------

#[test]
fn b2o_v1() {
    assert_eq!(check_schema::<B2o, B2o>("b2o_v1"), 6);
    for case in &cases("b2o_v1") {
        check::<B2oBorrowed, B2o>(case);
    }
}

#[test]
fn lazyarray_v0() {
    assert_eq!(check_schema::<LazyArray, LazyArray>("lazyarray_v0"), 6);
}

#[test]
fn proxy_source_local_v0() {
    assert_eq!(
        check_schema::<ProxySourceLocal, ProxySourceLocal>("proxy_source_local_v0"),
        4
    );
}

#[test]
fn proxy_source_memory_v0() {
    assert_eq!(
        check_schema::<ProxySourceMemory, ProxySourceMemory>("proxy_source_memory_v0"),
        2
    );
}

#[test]
fn proxy_source_caterva2_v0() {
    assert_eq!(
        check_schema::<ProxySourceCaterva2, ProxySourceCaterva2>("proxy_source_caterva2_v0"),
        1
    );
}

#[test]
fn proxy_source_remote_v0() {
    assert_eq!(
        check_schema::<ProxySourceRemote, ProxySourceRemote>("proxy_source_remote_v0"),
        1
    );
}

#[test]
fn proxy_source_dataset_v0() {
    assert_eq!(
        check_schema::<ProxySourceDataset, ProxySourceDataset>("proxy_source_dataset_v0"),
        1
    );
}

#[test]
fn proxy_source_custom_v0() {
    assert_eq!(
        check_schema::<ProxySourceCustom, ProxySourceCustom>("proxy_source_custom_v0"),
        2
    );
}

#[test]
fn proxy_source_untagged_local_v0() {
    assert_eq!(
        check_schema::<ProxySourceUntaggedLocal, ProxySourceUntaggedLocal>("proxy_source_untagged_local_v0"),
        4
    );
}

#[test]
fn proxy_source_untagged_memory_v0() {
    assert_eq!(
        check_schema::<ProxySourceUntaggedMemory, ProxySourceUntaggedMemory>("proxy_source_untagged_memory_v0"),
        4
    );
}

#[test]
fn proxy_source_untagged_caterva2_v0() {
    assert_eq!(
        check_schema::<ProxySourceUntaggedCaterva2, ProxySourceUntaggedCaterva2>("proxy_source_untagged_caterva2_v0"),
        1
    );
}

#[test]
fn proxy_source_untagged_caterva2_auth_v0() {
    assert_eq!(
        check_schema::<ProxySourceUntaggedCaterva2Auth, ProxySourceUntaggedCaterva2Auth>(
            "proxy_source_untagged_caterva2_auth_v0"
        ),
        1
    );
}

#[test]
fn ctable_varlen_scalar_v1() {
    assert_eq!(
        check_schema::<CtableVarlenScalar, CtableVarlenScalar>("ctable_varlen_scalar_v1"),
        5
    );
}

#[test]
fn batcharray_empty_v1() {
    assert_eq!(
        check_schema::<BatchArrayEmpty, BatchArrayEmpty>("batcharray_empty_v1"),
        2
    );
}

#[test]
fn batcharray_v1() {
    assert_eq!(check_schema::<BatchArray, BatchArray>("batcharray_v1"), 11);
}

#[test]
fn batcharray_arrow_v1() {
    assert_eq!(<BatchArrayArrow as Metalayer>::SCHEMA, "batcharray_arrow_v1");
    let cases = cases("batcharray_arrow_v1");
    assert_eq!(cases.len(), 1);
    for case in &cases {
        check::<BatchArrayArrow, BatchArrayArrowOwned>(case);
    }
}

#[test]
fn vlarray_v1() {
    assert_eq!(check_schema::<VlArray, VlArray>("vlarray_v1"), 3);
}

#[test]
fn listarray_scalar_v1() {
    assert_eq!(
        check_schema::<ListArrayScalar, ListArrayScalar>("listarray_scalar_v1"),
        2
    );
}

#[test]
fn listarray_string_v1() {
    assert_eq!(
        check_schema::<ListArrayString, ListArrayString>("listarray_string_v1"),
        2
    );
}

#[test]
fn b2embed_v1() {
    assert_eq!(check_schema::<B2Embed, B2Embed>("b2embed_v1"), 4);
}

#[test]
fn b2dict_v1() {
    assert_eq!(check_schema::<B2Dict, B2Dict>("b2dict_v1"), 2);
}

#[test]
fn b2tree_v1() {
    assert_eq!(check_schema::<B2Tree, B2Tree>("b2tree_v1"), 4);
}

#[test]
fn units_v0() {
    assert_eq!(check_schema::<Units, Units>("units_v0"), 7);
}

#[test]
fn scale_v0() {
    assert_eq!(check_schema::<Scale, Scale>("scale_v0"), 6);
}

#[test]
fn tags_v0() {
    assert_eq!(check_schema::<Tags, Tags>("tags_v0"), 6);
}

#[test]
fn m_v0() {
    assert_eq!(check_schema::<M, M>("m_v0"), 6);
}

/// Every metalayer of the frames of python-blosc2's own metalayers, and every user metalayer of
/// the fixtures, is in [`FIXTURES`] or in [`NOT_COVERED`]; every schema has a test above.
#[test]
fn every_fixture_value_is_covered() {
    let mut seen = BTreeSet::new();
    for record in expected() {
        let path = record["path"].as_str().expect("path");
        for metalayer in record["metalayers"].as_array().expect("metalayers") {
            let name = metalayer["name"].as_str().expect("name");
            if name == "b2nd" || name == "caterva" {
                continue;
            }
            let covered = FIXTURES.iter().any(|c| c.1 == path && c.2 == name)
                || NOT_COVERED.iter().any(|c| c.0 == path && c.1 == name);
            assert!(covered, "{path} {name}: no schema checks it");
            assert!(seen.insert((path, name)), "{path} {name} twice");
        }
    }
    assert_eq!(
        seen.len(),
        FIXTURES.len() + NOT_COVERED.len(),
        "a listed value is not in expected.json"
    );
    let schemas: BTreeSet<&str> = FIXTURES
        .iter()
        .map(|c| c.0)
        .chain(HAND_RUNS.iter().map(|c| c.0))
        .collect();
    assert_eq!(
        schemas,
        BTreeSet::from([
            "b2dict_v1",
            "b2embed_v1",
            "b2o_v1",
            "b2tree_v1",
            "batcharray_arrow_v1",
            "batcharray_empty_v1",
            "batcharray_v1",
            "ctable_varlen_scalar_v1",
            "lazyarray_v0",
            "listarray_scalar_v1",
            "listarray_string_v1",
            "m_v0",
            "proxy_source_caterva2_v0",
            "proxy_source_custom_v0",
            "proxy_source_dataset_v0",
            "proxy_source_local_v0",
            "proxy_source_memory_v0",
            "proxy_source_remote_v0",
            "proxy_source_untagged_caterva2_auth_v0",
            "proxy_source_untagged_caterva2_v0",
            "proxy_source_untagged_local_v0",
            "proxy_source_untagged_memory_v0",
            "scale_v0",
            "tags_v0",
            "units_v0",
            "vlarray_v1",
        ])
    );
}

// ---------------------------------------------------------------------------------------------
// One byte changed in a key or a constant
// ---------------------------------------------------------------------------------------------

/// The bytes of the first value of `schema` (a fixture's if it has one).
fn value_of(schema: &str) -> Vec<u8> {
    if let Some(&(_, path, name)) = FIXTURES.iter().find(|c| c.0 == schema) {
        let hex = expected_metalayer(path, name)["hex"].as_str().expect("hex");
        return unhex(hex);
    }
    let &(_, _, _, hex, _) = HAND_RUNS.iter().find(|c| c.0 == schema).expect("a value");
    unhex(hex)
}

/// Where `needle` starts in `bytes` (it must occur once).
fn find(bytes: &[u8], needle: &[u8]) -> usize {
    let mut at = (0..=bytes.len() - needle.len()).filter(|&i| &bytes[i..i + needle.len()] == needle);
    let first = at
        .next()
        .unwrap_or_else(|| panic!("{} not in {}", hex(needle), hex(bytes)));
    assert!(at.next().is_none(), "{} twice in {}", hex(needle), hex(bytes));
    first
}

/// `schema`'s value with the byte at `needle` + `offset` set to `byte`, decoded by `T`: the
/// error's path must be `path` and its text `expected`, with `{at}` standing for the changed
/// byte's offset and `{key}` for the needle's.
fn refuse<T>(schema: &str, needle: &[u8], offset: usize, byte: u8, path: &str, expected: &str)
where
    T: DecodeOwned + Debug,
{
    refuse_with(schema, |b| T::decode(b).map(drop), needle, offset, byte, path, expected);
}

/// [`refuse`] with a decoding function (for a borrowing `T`).
fn refuse_with(
    schema: &str,
    decode: impl Fn(&[u8]) -> Result<(), DecodeError>,
    needle: &[u8],
    offset: usize,
    byte: u8,
    path: &str,
    expected: &str,
) {
    let mut bytes = value_of(schema);
    let start = find(&bytes, needle);
    let at = start + offset;
    assert_ne!(bytes[at], byte, "{schema}: not a change");
    bytes[at] = byte;
    let err = decode(&bytes).expect_err(&format!("{schema}: {} decoded", hex(&bytes)));
    // The run-time engine refuses the same bytes with the same error.
    match metalayer::value::to_json_value(common::engine_layout(err.schema()), &bytes) {
        Err(metalayer::value::DecodeFailure::Wire(engine)) => assert_eq!(engine, err, "{schema}: the engine"),
        other => panic!("{schema}: the engine gives {other:?} where generated code refuses with {err}"),
    }
    assert_eq!(err.path().to_string(), path, "{schema}: {err}");
    assert_eq!(
        err.to_string(),
        expected
            .replace("{at}", &format!("{at:#04x}"))
            .replace("{key}", &format!("{start:#04x}")),
        "{schema}: {}",
        hex(&bytes)
    );
}

#[test]
fn b2o_v1_refuses_a_changed_key_or_constant() {
    refuse::<B2o>(
        "b2o_v1",
        b"\xa4kind",
        1,
        b'K',
        "kind",
        "b2o_v1: at byte {key} in kind: expected key \"kind\", found another key",
    );
    refuse::<B2o>(
        "b2o_v1",
        b"\xa7version\x01",
        8,
        0x02,
        "version",
        "b2o_v1: at byte {at} in version: expected constant 1, found 2",
    );
    refuse_with(
        "b2o_v1",
        |b| B2oBorrowed::decode(b).map(drop),
        b"\xa7version",
        7,
        b'N',
        "version",
        "b2o_v1: at byte {key} in version: expected key \"version\", found another key",
    );
}

#[test]
fn lazyarray_v0_refuses_a_changed_value() {
    // The value is a single integer: no key, no constant, but only two values. The path of a
    // top-level value is the metalayer's name.
    refuse::<LazyArray>(
        "lazyarray_v0",
        b"\x01",
        0,
        0x02,
        "LazyArray",
        "lazyarray_v0: at byte {at} in LazyArray: expected a value in 0..=1, found 2",
    );
}

#[test]
fn proxy_source_local_v0_refuses_a_changed_key_or_constant() {
    let schema = "proxy_source_local_v0";
    refuse::<ProxySourceLocal>(
        schema,
        b"\xabsource_kind",
        1,
        b'S',
        "source_kind",
        "proxy_source_local_v0: at byte {key} in source_kind: expected key \"source_kind\", found another key",
    );
    refuse::<ProxySourceLocal>(
        schema,
        b"\xa5local",
        5,
        b'e',
        "source_kind",
        "proxy_source_local_v0: at byte {key} in source_kind: expected constant \"local\", found another value",
    );
    refuse::<ProxySourceLocal>(
        schema,
        b"\xa7urlpath\xc0",
        8,
        0xc2,
        "urlpath",
        "proxy_source_local_v0: at byte {at} in urlpath: expected nil marker 0xc0, found 0xc2",
    );
    refuse::<ProxySourceLocal>(
        schema,
        b"\xaccaterva2_env",
        9,
        b'3',
        "caterva2_env",
        "proxy_source_local_v0: at byte {key} in caterva2_env: expected key \"caterva2_env\", found another key",
    );
}

#[test]
fn proxy_source_memory_v0_refuses_a_changed_key_or_constant() {
    let schema = "proxy_source_memory_v0";
    refuse::<ProxySourceMemory>(
        schema,
        b"\xadlocal_abspath\xc0",
        14,
        0xa0,
        "local_abspath",
        "proxy_source_memory_v0: at byte {at} in local_abspath: expected nil marker 0xc0, found 0xa0",
    );
    refuse::<ProxySourceMemory>(
        schema,
        b"\xadlocal_abspath",
        6,
        b'-',
        "local_abspath",
        "proxy_source_memory_v0: at byte {key} in local_abspath: expected key \"local_abspath\", found another key",
    );
}

#[test]
fn proxy_source_caterva2_v0_refuses_a_changed_key_or_constant() {
    let schema = "proxy_source_caterva2_v0";
    refuse::<ProxySourceCaterva2>(
        schema,
        b"\xa8caterva2",
        8,
        b'3',
        "source_kind",
        "proxy_source_caterva2_v0: at byte {key} in source_kind: expected constant \"caterva2\", found another value",
    );
    // Inside the tuple, a record of its own: the path names the entry within it.
    refuse::<ProxySourceCaterva2>(
        schema,
        b"\xa9__tuple__",
        3,
        b'T',
        "urlpath.tuple",
        "proxy_source_caterva2_v0: at byte {key} in urlpath.tuple: expected constant \"__tuple__\", found another value",
    );
    refuse::<ProxySourceCaterva2>(
        schema,
        b"demo/\xc0",
        5,
        0xc3,
        "urlpath.auth",
        "proxy_source_caterva2_v0: at byte {at} in urlpath.auth: expected nil marker 0xc0, found 0xc3",
    );
    refuse::<ProxySourceCaterva2>(
        schema,
        b"\xa7urlpath",
        1,
        b'U',
        "urlpath",
        "proxy_source_caterva2_v0: at byte {key} in urlpath: expected key \"urlpath\", found another key",
    );
}

#[test]
fn proxy_source_remote_v0_refuses_a_changed_key() {
    // No constant: every value is a field.
    refuse::<ProxySourceRemote>(
        "proxy_source_remote_v0",
        b"\xa7urlpath",
        4,
        b'P',
        "urlpath",
        "proxy_source_remote_v0: at byte {key} in urlpath: expected key \"urlpath\", found another key",
    );
}

#[test]
fn proxy_source_dataset_v0_refuses_a_changed_key_or_constant() {
    let schema = "proxy_source_dataset_v0";
    refuse::<ProxySourceDataset>(
        schema,
        b"\xa7dataset",
        1,
        b'D',
        "dataset",
        "proxy_source_dataset_v0: at byte {key} in dataset: expected key \"dataset\", found another key",
    );
    refuse::<ProxySourceDataset>(
        schema,
        b"\xadlocal_abspath\xc0",
        14,
        0xc2,
        "local_abspath",
        "proxy_source_dataset_v0: at byte {at} in local_abspath: expected nil marker 0xc0, found 0xc2",
    );
}

#[test]
fn proxy_source_custom_v0_refuses_a_changed_key_or_constant() {
    let schema = "proxy_source_custom_v0";
    refuse::<ProxySourceCustom>(
        schema,
        b"\xabsource_kind\xc0",
        12,
        0xc2,
        "source_kind",
        "proxy_source_custom_v0: at byte {at} in source_kind: expected nil marker 0xc0, found 0xc2",
    );
    refuse::<ProxySourceCustom>(
        schema,
        b"\xaccaterva2_env",
        1,
        b'C',
        "caterva2_env",
        "proxy_source_custom_v0: at byte {key} in caterva2_env: expected key \"caterva2_env\", found another key",
    );
}

#[test]
fn proxy_source_untagged_local_v0_refuses_a_changed_key_or_constant() {
    let schema = "proxy_source_untagged_local_v0";
    refuse::<ProxySourceUntaggedLocal>(
        schema,
        b"\xadlocal_abspath",
        1,
        b'L',
        "local_abspath",
        "proxy_source_untagged_local_v0: at byte {key} in local_abspath: expected key \"local_abspath\", found another key",
    );
    refuse::<ProxySourceUntaggedLocal>(
        schema,
        b"\xa7urlpath\xc0",
        8,
        0xc2,
        "urlpath",
        "proxy_source_untagged_local_v0: at byte {at} in urlpath: expected nil marker 0xc0, found 0xc2",
    );
}

#[test]
fn proxy_source_untagged_memory_v0_refuses_a_changed_key_or_constant() {
    let schema = "proxy_source_untagged_memory_v0";
    refuse::<ProxySourceUntaggedMemory>(
        schema,
        b"\xadlocal_abspath\xc0",
        14,
        0xa0,
        "local_abspath",
        "proxy_source_untagged_memory_v0: at byte {at} in local_abspath: expected nil marker 0xc0, found 0xa0",
    );
    refuse::<ProxySourceUntaggedMemory>(
        schema,
        b"\xa7urlpath",
        7,
        b'S',
        "urlpath",
        "proxy_source_untagged_memory_v0: at byte {key} in urlpath: expected key \"urlpath\", found another key",
    );
}

#[test]
fn proxy_source_untagged_caterva2_v0_refuses_a_changed_key_or_constant() {
    let schema = "proxy_source_untagged_caterva2_v0";
    refuse::<ProxySourceUntaggedCaterva2>(
        schema,
        b"\xa9__tuple__",
        3,
        b'T',
        "urlpath.tuple",
        "proxy_source_untagged_caterva2_v0: at byte {key} in urlpath.tuple: expected constant \"__tuple__\", found another value",
    );
    refuse::<ProxySourceUntaggedCaterva2>(
        schema,
        b"demo/\xc0",
        5,
        0xc3,
        "urlpath.auth_token",
        "proxy_source_untagged_caterva2_v0: at byte {at} in urlpath.auth_token: expected nil marker 0xc0, found 0xc3",
    );
}

#[test]
fn proxy_source_untagged_caterva2_auth_v0_refuses_a_changed_key_or_constant() {
    let schema = "proxy_source_untagged_caterva2_auth_v0";
    refuse::<ProxySourceUntaggedCaterva2Auth>(
        schema,
        b"\xa9__tuple__",
        9,
        b'-',
        "urlpath.tuple",
        "proxy_source_untagged_caterva2_auth_v0: at byte {key} in urlpath.tuple: expected constant \"__tuple__\", found another value",
    );
    refuse::<ProxySourceUntaggedCaterva2Auth>(
        schema,
        b"\xaccaterva2_env",
        12,
        b'V',
        "caterva2_env",
        "proxy_source_untagged_caterva2_auth_v0: at byte {key} in caterva2_env: expected key \"caterva2_env\", found another key",
    );
}

#[test]
fn ctable_varlen_scalar_v1_refuses_a_changed_key_or_constant() {
    let schema = "ctable_varlen_scalar_v1";
    refuse::<CtableVarlenScalar>(
        schema,
        b"\xa7version\x01",
        8,
        0x02,
        "version",
        "ctable_varlen_scalar_v1: at byte {at} in version: expected constant 1, found 2",
    );
    refuse::<CtableVarlenScalar>(
        schema,
        b"\xa7py_type",
        1,
        b'P',
        "py_type",
        "ctable_varlen_scalar_v1: at byte {key} in py_type: expected key \"py_type\", found another key",
    );
}

#[test]
fn batcharray_empty_v1_refuses_a_changed_key_or_constant() {
    let schema = "batcharray_empty_v1";
    refuse::<BatchArrayEmpty>(
        schema,
        b"\xa7version\x01",
        8,
        0x00,
        "version",
        "batcharray_empty_v1: at byte {at} in version: expected constant 1, found 0",
    );
    refuse::<BatchArrayEmpty>(
        schema,
        b"\xafitems_per_block\xc0",
        16,
        0x05,
        "items_per_block",
        "batcharray_empty_v1: at byte {at} in items_per_block: expected nil marker 0xc0, found 0x05",
    );
    refuse::<BatchArrayEmpty>(
        schema,
        b"\xacarrow_schema",
        6,
        b'-',
        "arrow_schema",
        "batcharray_empty_v1: at byte {key} in arrow_schema: expected key \"arrow_schema\", found another key",
    );
}

#[test]
fn batcharray_v1_refuses_a_changed_key_or_constant() {
    let schema = "batcharray_v1";
    refuse::<BatchArray>(
        schema,
        b"\xa7version\x01",
        8,
        0x7f,
        "version",
        "batcharray_v1: at byte {at} in version: expected constant 1, found 127",
    );
    refuse::<BatchArray>(
        schema,
        b"\xafitems_per_block",
        15,
        b's',
        "items_per_block",
        "batcharray_v1: at byte {key} in items_per_block: expected key \"items_per_block\", found another key",
    );
    refuse::<BatchArray>(
        schema,
        b"\xacarrow_schema\xc0",
        13,
        0xc2,
        "arrow_schema",
        "batcharray_v1: at byte {at} in arrow_schema: expected nil marker 0xc0, found 0xc2",
    );
}

#[test]
fn batcharray_arrow_v1_refuses_a_changed_key_or_constant() {
    let schema = "batcharray_arrow_v1";
    let decode = |b: &[u8]| BatchArrayArrow::decode(b).map(drop);
    refuse_with(
        schema,
        decode,
        b"\xa7version\x01",
        8,
        0x02,
        "version",
        "batcharray_arrow_v1: at byte {at} in version: expected constant 1, found 2",
    );
    refuse_with(
        schema,
        decode,
        b"\xacarrow_schema",
        1,
        b'A',
        "arrow_schema",
        "batcharray_arrow_v1: at byte {key} in arrow_schema: expected key \"arrow_schema\", found another key",
    );
}

#[test]
fn vlarray_v1_refuses_a_changed_key_or_constant() {
    let schema = "vlarray_v1";
    refuse::<VlArray>(
        schema,
        b"\xa7msgpack",
        7,
        b'K',
        "serializer",
        "vlarray_v1: at byte {key} in serializer: expected constant \"msgpack\", found another value",
    );
    refuse::<VlArray>(
        schema,
        b"\xa7version\x01",
        8,
        0x02,
        "version",
        "vlarray_v1: at byte {at} in version: expected constant 1, found 2",
    );
    refuse::<VlArray>(
        schema,
        b"\xaaserializer",
        10,
        b'R',
        "serializer",
        "vlarray_v1: at byte {key} in serializer: expected key \"serializer\", found another key",
    );
}

#[test]
fn listarray_scalar_v1_refuses_a_changed_key_or_constant() {
    let schema = "listarray_scalar_v1";
    refuse::<ListArrayScalar>(
        schema,
        b"\xa4list",
        1,
        b'L',
        "kind",
        "listarray_scalar_v1: at byte {key} in kind: expected constant \"list\", found another value",
    );
    // The item spec's own key, one record down.
    refuse::<ListArrayScalar>(
        schema,
        b"\xa4kind\xa5",
        1,
        b'K',
        "item.kind",
        "listarray_scalar_v1: at byte {key} in item.kind: expected key \"kind\", found another key",
    );
    refuse::<ListArrayScalar>(
        schema,
        b"\xaabatch_rows",
        6,
        b'-',
        "batch_rows",
        "listarray_scalar_v1: at byte {key} in batch_rows: expected key \"batch_rows\", found another key",
    );
}

#[test]
fn listarray_string_v1_refuses_a_changed_key_or_constant() {
    let schema = "listarray_string_v1";
    refuse::<ListArrayString>(
        schema,
        b"\xaamax_length",
        4,
        b'-',
        "item.max_length",
        "listarray_string_v1: at byte {key} in item.max_length: expected key \"max_length\", found another key",
    );
    refuse::<ListArrayString>(
        schema,
        b"\xa7version\x01",
        8,
        0x02,
        "version",
        "listarray_string_v1: at byte {at} in version: expected constant 1, found 2",
    );
}

/// The three stores' markers, `{"version": 1}`.
fn refuse_version_one<T: DecodeOwned + Debug>(schema: &str) {
    refuse::<T>(
        schema,
        b"\xa7version\x01",
        8,
        0x00,
        "version",
        &format!("{schema}: at byte {{at}} in version: expected constant 1, found 0"),
    );
    refuse::<T>(
        schema,
        b"\xa7version",
        1,
        b'V',
        "version",
        &format!("{schema}: at byte {{key}} in version: expected key \"version\", found another key"),
    );
}

#[test]
fn b2embed_v1_refuses_a_changed_key_or_constant() {
    refuse_version_one::<B2Embed>("b2embed_v1");
}

#[test]
fn b2dict_v1_refuses_a_changed_key_or_constant() {
    refuse_version_one::<B2Dict>("b2dict_v1");
}

#[test]
fn b2tree_v1_refuses_a_changed_key_or_constant() {
    refuse_version_one::<B2Tree>("b2tree_v1");
}

// The user schemas are single values with neither key nor constant: one byte changed in a
// marker instead, to a marker of another family.

#[test]
fn units_v0_refuses_a_changed_marker() {
    refuse::<Units>(
        "units_v0",
        b"\xa6kelvin",
        0,
        0xc4,
        "units",
        "units_v0: at byte {at} in units: expected str (0xa0..=0xbf, 0xd9..=0xdb), found 0xc4 (bin8)",
    );
}

#[test]
fn scale_v0_refuses_a_changed_marker() {
    refuse::<Scale>(
        "scale_v0",
        b"\x03",
        0,
        0xc3,
        "scale",
        "scale_v0: at byte {at} in scale: expected int (0x00..=0x7f, 0xcc..=0xd3, 0xe0..=0xff), found 0xc3 (bool)",
    );
}

#[test]
fn tags_v0_refuses_a_changed_marker() {
    refuse::<Tags>(
        "tags_v0",
        b"\x93\x01\x02\x03",
        2,
        0xc0,
        "tags[1]",
        "tags_v0: at byte {at} in tags[1]: expected int (0x00..=0x7f, 0xcc..=0xd3, 0xe0..=0xff), found 0xc0 (nil)",
    );
}

#[test]
fn m_v0_refuses_a_changed_marker() {
    refuse::<M>(
        "m_v0",
        b"\x81\xa1a\x01",
        1,
        0xc4,
        "m[0]",
        "m_v0: at byte {at} in m[0]: expected str (0xa0..=0xbf, 0xd9..=0xdb), found 0xc4 (bin8)",
    );
}

// ---------------------------------------------------------------------------------------------
// The shapes of one metalayer tell each other apart
// ---------------------------------------------------------------------------------------------

/// Each schema of a metalayer written in several shapes refuses the values of the others, at the
/// entry where the shapes differ.
#[test]
fn each_shape_refuses_the_others_at_the_entry_where_they_differ() {
    fn refused<T: DecodeOwned + Debug>(value_schema: &str) -> String {
        let bytes = value_of(value_schema);
        common::engine_agrees::<T>(&bytes, None);
        let err = T::decode(&bytes).expect_err(value_schema);
        format!("{} at {}: {err}", err.path(), err.offset())
    }
    let cases: [(String, &str); 17] = [
        (
            refused::<BatchArrayEmpty>("batcharray_v1"),
            "items_per_block at 45: batcharray_empty_v1: at byte 0x2d in items_per_block: expected nil marker 0xc0, found 0x03",
        ),
        (
            refused::<BatchArray>("batcharray_empty_v1"),
            "items_per_block at 45: batcharray_v1: at byte 0x2d in items_per_block: expected int (0x00..=0x7f, 0xcc..=0xd3, 0xe0..=0xff), found 0xc0 (nil)",
        ),
        (
            refused::<BatchArray>("batcharray_arrow_v1"),
            "arrow_schema at 57: batcharray_v1: at byte 0x39 in arrow_schema: expected nil marker 0xc0, found 0xc4",
        ),
        (
            refused::<BatchArrayArrowOwnedProbe>("batcharray_v1"),
            "arrow_schema at 59: batcharray_arrow_v1: at byte 0x3b in arrow_schema: expected bin (0xc4..=0xc6), found 0xc0 (nil)",
        ),
        (
            refused::<ProxySourceMemory>("proxy_source_local_v0"),
            "local_abspath at 33: proxy_source_memory_v0: at byte 0x21 in local_abspath: expected nil marker 0xc0, found 0xae",
        ),
        (
            refused::<ProxySourceLocal>("proxy_source_memory_v0"),
            "local_abspath at 33: proxy_source_local_v0: at byte 0x21 in local_abspath: expected str (0xa0..=0xbf, 0xd9..=0xdb), found 0xc0 (nil)",
        ),
        (
            refused::<ProxySourceCaterva2>("proxy_source_local_v0"),
            "source_kind at 13: proxy_source_caterva2_v0: at byte 0x0d in source_kind: expected constant \"caterva2\", found another value",
        ),
        (
            refused::<ProxySourceLocal>("proxy_source_caterva2_v0"),
            "source_kind at 13: proxy_source_local_v0: at byte 0x0d in source_kind: expected constant \"local\", found another value",
        ),
        (
            refused::<ProxySourceRemote>("proxy_source_local_v0"),
            "urlpath at 56: proxy_source_remote_v0: at byte 0x38 in urlpath: expected str (0xa0..=0xbf, 0xd9..=0xdb), found 0xc0 (nil)",
        ),
        (
            refused::<ProxySourceRemote>("proxy_source_dataset_v0"),
            "the container at 0: proxy_source_remote_v0: at byte 0x00 in the container: expected fixmap marker 0x84, found 0x85",
        ),
        (
            refused::<ProxySourceCustom>("proxy_source_memory_v0"),
            "source_kind at 13: proxy_source_custom_v0: at byte 0x0d in source_kind: expected nil marker 0xc0, found 0xa5",
        ),
        (
            refused::<ProxySourceUntaggedLocal>("proxy_source_local_v0"),
            "the container at 0: proxy_source_untagged_local_v0: at byte 0x00 in the container: expected fixmap marker 0x83, found 0x84",
        ),
        (
            refused::<ProxySourceUntaggedMemory>("proxy_source_untagged_local_v0"),
            "local_abspath at 15: proxy_source_untagged_memory_v0: at byte 0x0f in local_abspath: expected nil marker 0xc0, found 0xae",
        ),
        (
            refused::<ProxySourceUntaggedCaterva2>("proxy_source_untagged_memory_v0"),
            "urlpath at 24: proxy_source_untagged_caterva2_v0: at byte 0x18 in urlpath: expected fixarray marker 0x94, found 0xc0",
        ),
        (
            refused::<ProxySourceUntaggedCaterva2>("proxy_source_untagged_caterva2_auth_v0"),
            "urlpath.auth_token at 91: proxy_source_untagged_caterva2_v0: at byte 0x5b in urlpath.auth_token: expected nil marker 0xc0, found 0xa7",
        ),
        (
            refused::<ListArrayString>("listarray_scalar_v1"),
            "item at 25: listarray_string_v1: at byte 0x19 in item: expected fixmap marker 0x82, found 0x81",
        ),
        (
            refused::<ListArrayScalar>("listarray_string_v1"),
            "item at 25: listarray_scalar_v1: at byte 0x19 in item: expected fixmap marker 0x81, found 0x82",
        ),
    ];
    for (found, expected) in cases {
        assert_eq!(found, expected);
    }
}

/// [`BatchArrayArrow`] with owned fields, for decoding values that do not outlive a call.
#[metalayer(schema = "batcharray_arrow_v1")]
#[derive(Debug)]
struct BatchArrayArrowOwnedProbe {
    serializer: String,
    items_per_block: u64,
    arrow_schema: Vec<u8>,
}
