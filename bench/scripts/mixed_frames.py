#!/usr/bin/env python3
"""Writes the frames of the `mixed` tree and the 64 MiB frames of bench/scripts/cli_tree_mixed.sh.

Run with python-blosc2 4.x (the virtual environment bench/scripts/blosc2_venv.sh makes, which
has the pins tests/fixtures/generate.py uses for the 4.x fixtures):

    mixed_frames.py OUTDIR

writes into OUTDIR (target/cli-tree-mixed/frames when cli_tree_mixed.py runs it):

    sources/m<NN>_<what>.b2nd|.b2f   contiguous frames (the tree cycles through them)
    sources/s<NN>_<what>.b2nd        sparse frames (directories with chunks.b2frame)
    big/big_bin_random.b2nd          one vlmetalayer "big": a msgpack bin of 64 MiB - 1 KiB,
                                     random bytes (the chunk is stored uncompressed, ~64 MiB)
    big/big_str_text.b2nd            one vlmetalayer "big": a msgpack str of 64 MiB - 1 KiB,
                                     ASCII words (the chunk compresses)
    manifest.json                    what each frame holds, its size and python-blosc2's version

Together the sources hold every kind of msgpack value python-blosc2 writes into a vlmetalayer:
nil, bools, ints of every width and sign, floats (NaN and infinities too), strings and binaries
of 100 KB and more (up to 1 MiB), arrays and maps (large, deep, heterogeneous), tuples,
python-blosc2's extension types (42: whole frames, nested up to 3 deep; 43: references; 44:
complex numbers; 45: sets; 46: NumPy arrays), vlmetalayer chunks made by every codec, the most
vlmetalayers a frame holds (16), and frame headers over 64 KiB (many or large metalayers).
Every value is made from a seeded generator: the same bytes on every run with the same pins.

Values python-blosc2 4.x reads only with `blosc2.open(..., deserialize="full")` (ext 42 and 43)
are in the frames: the python side of the benchmark opens every frame that way. Lazy
expressions and other ext 43 records that would open files or the network when read are left
out (so is anything python-blosc2 cannot read back, such as maps with int keys).
"""

import json
import os
import shutil
import sys
from pathlib import Path

import blosc2
import msgpack
import numpy as np

VALUE_64M = (64 << 20) - 1024  # the big values: 64 MiB - 1 KiB (the msgpack adds 5 bytes)
WORDS = ("blosc frame chunk metalayer vlmeta msgpack header trailer array shape dtype codec "
         "zstd lz4 zlib shuffle bitshuffle delta split block typesize nbytes cbytes ratio").split()


def rng(seed):
    return np.random.default_rng(seed)


def random_bytes(n, seed):
    return rng(seed).bytes(n)


def text(n, seed):
    """n ASCII characters of words from WORDS, separated by spaces (compresses ~3-4x)."""
    r = rng(seed)
    idx = r.integers(0, len(WORDS), size=n // 4 + 16)
    s = " ".join(WORDS[i] for i in idx)
    while len(s) < n:
        s += " " + s
    return s[:n]


def utf8_text(n_chars, seed):
    """Mixed-script text: ASCII words, accented Latin, CJK and emoji (multi-byte UTF-8)."""
    r = rng(seed)
    pieces = WORDS + ["Grüße", "naïve", "señal", "世界", "データ", "🌍", "λ", "Ωmega", "—"]
    idx = r.integers(0, len(pieces), size=n_chars // 3 + 16)
    s = " ".join(pieces[i] for i in idx)
    return s[:n_chars]


def pin_threads(n):
    # As tests/fixtures/generate.py does: the thread counts python-blosc2 writes into the header
    # follow the machine's otherwise.
    blosc2.set_nthreads(n)
    blosc2.nthreads = n


def ndarray(path, dtype="<f8", n=64, contiguous=True, meta=None, codec=blosc2.Codec.ZSTD, clevel=5):
    kw = dict(urlpath=str(path), mode="w", chunks=(max(n // 4, 1),), blocks=(max(n // 8, 1),),
              cparams={"codec": codec, "clevel": clevel}, contiguous=contiguous)
    if meta is not None:
        kw["meta"] = meta
    return blosc2.asarray(np.arange(n).astype(dtype), **kw)


def inline_ndarray(n, dtype="<i4", vlmeta=None, meta=None):
    """An in-memory NDArray (stored in a vlmetalayer as a whole frame: msgpack ext 42)."""
    kw = {"chunks": (max(n // 4, 1),), "blocks": (max(n // 16, 1),)}
    if meta is not None:
        kw["meta"] = meta
    a = blosc2.asarray(np.arange(n).astype(dtype), **kw)
    for k, v in (vlmeta or {}).items():
        a.schunk.vlmeta[k] = v
    return a


# ---------------------------------------------------------------------------------------------
# The frames. Each function returns (vlmeta values, what) for the frame it was given; ext 42
# values are made inside it, as they must outlive the frame that stores them.
# ---------------------------------------------------------------------------------------------


def scalars():
    return {
        "nil": None, "true": True, "false": False,
        "fixint": 7, "negfixint": -7, "uint8": 200, "uint16": 60000, "uint32": 4_000_000_000,
        "uint64_max": 2**64 - 1, "int8": -100, "int16": -30000, "int32": -2_000_000_000,
        "int64_min": -2**63,
        "floats": [0.0, -0.0, 1.5, 0.1, 1e300, 5e-324, float("nan"), float("inf"), float("-inf")],
        "np_scalars": [np.float32(0.1), np.int64(-5), np.bool_(True), np.uint8(255)],
        "str_100k": text(100_000, 1),
    }, "every scalar kind (nil, bools, ints of each width, floats with NaN/inf, NumPy scalars) and a 100 KB str"


def strings_large():
    return {
        "ascii_100k": text(100_000, 2),
        "ascii_300k": text(300_000, 3),
        "utf8_200k_chars": utf8_text(200_000, 4),
        "ascii_1m": text(1 << 20, 5),
        "empty": "", "short": "a short string", "nul_inside": "a\x00b",
        "len_65536": text(65_536, 6),
    }, "strings of 100 KB, 300 KB, 200 K UTF-8 characters, 1 MiB, 64 KiB and short ones"


def binaries_large():
    return {
        "random_100k": random_bytes(100_000, 7),
        "random_512k": random_bytes(512 << 10, 8),
        "zeros_1m": bytes(1 << 20),
        "pattern_200k": bytes(range(256)) * 800,
        "empty": b"", "one": b"\x00", "bytearray": bytearray(b"\x01\x02\xff"),
    }, "binaries: 100 KB and 512 KiB random, 1 MiB of zeros, 200 KB pattern, empty"


def containers():
    r = rng(9)
    ints = [int(x) for x in r.integers(-2**40, 2**40, size=20_000)]
    deep = "leaf"
    for i in range(40):
        deep = [i, deep] if i % 2 else {"level": i, "next": deep}
    records = [{"id": i, "name": f"item{i}", "tags": ["a", "b", "c"][: i % 4], "score": i * 0.5,
                "ok": i % 3 == 0, "none": None} for i in range(2_000)]
    return {
        "map_2000_keys": {f"key{i:05d}": i for i in range(2_000)},
        "ints_20000": ints,
        "deep_40": deep,
        "records_2000": records,
        "tuple": (1, "a", None, (2.5, b"\x00")),
        "list_empty": [], "map_empty": {},
        "mixed": [1, "a", None, True, 2.5, b"\x01", {"k": [1, {"x": None}]}],
    }, "containers: a map of 2,000 keys, 20,000 ints, 40 levels of nesting, 2,000 records, tuples"


def ext_frames():
    inner = inline_ndarray(8, "<i2", vlmeta={"deep": "third level", "blob": random_bytes(20_000, 10)})
    mid = inline_ndarray(16, "<f4", vlmeta={"inner": inner, "note": "second level"}, meta={"user": [1, "two"]})
    big = inline_ndarray(65_536, "<f8", vlmeta={"text": text(100_000, 11)})
    sc = blosc2.SChunk(chunksize=1024, data=random_bytes(8192, 12), cparams={"typesize": 1})
    sc.vlmeta["k"] = {"a": [1, 2, 3]}
    oa = blosc2.ObjectArray()
    oa.append({"a": 1})
    oa.append([1, "x"])
    ba = blosc2.BatchArray()
    ba.append([1, 2, 3])
    es = blosc2.EmbedStore()
    es["/x"] = np.arange(3, dtype="<i4")
    return {
        "nested_3_levels": mid, "ndarray_512k": big, "schunk": sc, "objectarray": oa,
        "batcharray": ba, "embedstore": es, "list_with_frames": [inner, 1, "x"],
    }, "ext 42 (whole frames): NDArrays nested 3 deep, an NDArray of 512 KiB data, an SChunk, ObjectArray, BatchArray, EmbedStore"


def ext_other():
    r = rng(13)
    return {
        "complex": 1.5 - 2j, "complex_nan_inf": complex(float("nan"), float("inf")),
        "np_complex64": np.complex64(1 + 2j),
        "set": {3, 1, 2}, "frozenset": frozenset({4, 5}), "set_empty": set(),
        "np_f8_100k": r.standard_normal(12_800),
        "np_i4_2d": np.arange(20_000, dtype="<i4").reshape(100, 200),
        "np_f8_be": np.array([1.5, -2.0], dtype=">f8"),
        "np_struct": np.zeros(1000, dtype=[("a", "<i4"), ("b", "<f8"), ("c", "S4")]),
        "np_object": np.array([1, "a", None], dtype=object),
        "ref_urlpath": blosc2.Ref.urlpath_ref("operand.b2nd"),
        "ref_dictstore_key": blosc2.Ref.dictstore_key("store.b2z", "/node"),
    }, "ext 43 (references), 44 (complex), 45 (sets), 46 (NumPy arrays of up to 100 KB)"


def header_many_meta():
    meta = {f"meta{i:02d}": random_bytes(5_000, 100 + i) for i in range(15)}
    return meta, {"note": "15 user metalayers of 5,000 random bytes each", "str": text(100_000, 14)}, \
        "15 user metalayers (header ~75 KiB) and a 100 KB str vlmetalayer"


def header_big_meta():
    meta = {"big_bin": random_bytes(200_000, 15), "big_str": text(100_000, 16),
            "list": list(range(5_000))}
    return meta, {"bin": random_bytes(150_000, 17), "map": {"a": 1}}, \
        "metalayers of a 200 KB bin, a 100 KB str and 5,000 ints (header ~320 KiB); a 150 KB bin vlmetalayer"


def sixteen():
    r = rng(18)
    vals = {}
    for i in range(16):
        kind = i % 8
        v = [text(40_000, 200 + i), random_bytes(40_000, 300 + i), list(range(5_000)),
             {f"k{j}": j * 1.5 for j in range(2_000)}, r.standard_normal(4_000),
             (None, True, False, -1), 1 + 1j, {1, 2, 3}][kind]
        vals[f"v{i:02d}_{['str', 'bin', 'ints', 'map', 'np', 'tuple', 'complex', 'set'][kind]}"] = v
    return vals, "16 vlmetalayers (the most a frame holds) of 8 kinds, up to 40 KB each"


RAW_CODECS = [
    ("blosclz_5", dict(codec=blosc2.Codec.BLOSCLZ, clevel=5, typesize=1)),
    ("lz4_5_typesize8", dict(codec=blosc2.Codec.LZ4, clevel=5, typesize=8)),
    ("lz4hc_9", dict(codec=blosc2.Codec.LZ4HC, clevel=9, typesize=1)),
    ("zlib_1_shuffle4", dict(codec=blosc2.Codec.ZLIB, clevel=1, typesize=4, filters=[blosc2.Filter.SHUFFLE])),
    ("zstd_9", dict(codec=blosc2.Codec.ZSTD, clevel=9, typesize=1)),
    ("clevel_0_memcpy", dict(codec=blosc2.Codec.ZSTD, clevel=0, typesize=1)),
]


def codecs_payload():
    return [{"id": i, "name": f"item{i}", "tags": ["a", "b"], "v": i * 0.25} for i in range(6_000)]


def floats_array():
    r = rng(19)
    return {"floats_50000": [float(x) for x in r.standard_normal(50_000)],
            "ints_small": list(range(1000))}, "50,000 floats in a msgpack array, 1,000 small ints"


def everything():
    inner = inline_ndarray(32, "<u2", vlmeta={"x": 1})
    return {
        "all": {"nil": None, "bool": [True, False], "int": [0, -1, 2**63, -2**63], "float": [1.5, float("nan")],
                "str": text(120_000, 20), "bin": random_bytes(120_000, 21), "map": {"a": {"b": {}}},
                "array": [[], [[]]], "tuple": (1, 2), "complex": 3j, "set": {9}, "np": np.arange(10),
                "frame": inner},
    }, "one map holding one value of every kind (120 KB str and bin, a nested frame)"


def make_sources(out: Path):
    src = out / "sources"
    frames = []

    def record(path, what, obj_kind):
        path = Path(path)
        size = (sum(f.stat().st_size for f in path.iterdir()) if path.is_dir() else path.stat().st_size)
        frames.append({"path": path.name, "what": what, "object": obj_kind, "bytes": size,
                       "sparse": path.is_dir()})

    def vl_frame(name, make, dtype="<f8", contiguous=True, meta=None):
        vals, what = make()
        path = src / name
        a = ndarray(path, dtype, contiguous=contiguous, meta=meta)
        for k, v in vals.items():
            a.schunk.vlmeta[k] = v
        del a, vals
        record(path, what, "NDArray")

    vl_frame("m00_scalars.b2nd", scalars)
    vl_frame("m01_strings_large.b2nd", strings_large, "<i4")
    vl_frame("m02_binaries_large.b2nd", binaries_large, "|u1")
    vl_frame("m03_containers.b2nd", containers, "<u8")
    vl_frame("m04_ext_frames.b2nd", ext_frames, "<c16")
    vl_frame("m05_ext_other.b2nd", ext_other, ">i8")
    for name, make in (("m06_header_many_meta.b2nd", header_many_meta), ("m07_header_big_meta.b2nd", header_big_meta)):
        meta, vals, what = make()
        a = ndarray(src / name, "<f4", meta=meta)
        for k, v in vals.items():
            a.schunk.vlmeta[k] = v
        del a
        record(src / name, what, "NDArray")
    vl_frame("m08_sixteen_vlmeta.b2nd", sixteen, "<i2")

    # Raw msgpack through the low-level set_vlmeta, one chunk per codec (python's
    # vlmeta[k] = v always compresses with ZSTD, clevel 5, typesize 1).
    raw = msgpack.packb(codecs_payload(), use_bin_type=True)
    a = ndarray(src / "m09_chunk_codecs.b2nd", "<f8")
    for name, kw in RAW_CODECS:
        a.schunk.vlmeta.set_vlmeta(name, raw, **kw)
    del a
    record(src / "m09_chunk_codecs.b2nd",
           f"one {len(raw):,}-byte msgpack array of maps in a chunk of each codec (BloscLZ, LZ4, LZ4HC, Zlib, Zstd, memcpy)",
           "NDArray")

    vl_frame("m10_floats_array.b2nd", floats_array, "<f8")
    vl_frame("m11_everything.b2nd", everything, "<i8")

    # An SChunk (not an NDArray) with a user metalayer.
    sc = blosc2.SChunk(chunksize=4096, data=np.arange(4096, dtype="<u4").tobytes(),
                       urlpath=str(src / "m12_schunk.b2f"), mode="w", cparams={"typesize": 4},
                       meta={"user": {"a": [1, "two"], "b": random_bytes(2_000, 22)}})
    for k, v in {"bin": random_bytes(100_000, 23), "str": text(150_000, 24), "list": list(range(3000)),
                 "np": np.arange(5000, dtype="<f4")}.items():
        sc.vlmeta[k] = v
    del sc
    record(src / "m12_schunk.b2f", "an SChunk with a user metalayer; a 100 KB bin, a 150 KB str, a list, a NumPy array",
           "SChunk")

    # Sparse frames (the tree has one in 100).
    vl_frame("s00_sparse_strings.b2nd", strings_large, "<i4", contiguous=False)
    meta, vals, what = header_many_meta()
    a = ndarray(src / "s01_sparse_header.b2nd", "<f8", contiguous=False, meta=meta)
    for k, v in vals.items():
        a.schunk.vlmeta[k] = v
    del a
    record(src / "s01_sparse_header.b2nd", what, "NDArray (sparse)")
    return frames


def make_big(out: Path):
    big = out / "big"
    frames = []
    for name, make, what in (
            ("big_bin_random.b2nd", lambda: random_bytes(VALUE_64M, 30),
             "one vlmetalayer: a msgpack bin of 64 MiB - 1 KiB of random bytes (stored uncompressed)"),
            ("big_str_text.b2nd", lambda: text(VALUE_64M, 31),
             "one vlmetalayer: a msgpack str of 64 MiB - 1 KiB of ASCII words (compressed)")):
        value = make()
        a = ndarray(big / name, "<f8", n=16)
        a.schunk.vlmeta["big"] = value
        del a
        packed = len(msgpack.packb(value, use_bin_type=True))
        del value
        frames.append({"path": name, "what": what, "value_bytes": VALUE_64M, "msgpack_bytes": packed,
                       "bytes": (big / name).stat().st_size})
    return frames


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    out = Path(sys.argv[1])
    pin_threads(2)
    for d in ("sources", "big"):
        if (out / d).exists():
            shutil.rmtree(out / d)
        (out / d).mkdir(parents=True)
    manifest = {"blosc2": blosc2.__version__, "numpy": np.__version__, "msgpack": msgpack.version,
                "sources": make_sources(out), "big": make_big(out)}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, default=str) + "\n")
    total = sum(f["bytes"] for f in manifest["sources"])
    print(f"{len(manifest['sources'])} frames ({total:,} bytes) in {out / 'sources'}, "
          f"{len(manifest['big'])} big frames in {out / 'big'}")


if __name__ == "__main__":
    os.environ.setdefault("BLOSC_NTHREADS", "2")
    main()
