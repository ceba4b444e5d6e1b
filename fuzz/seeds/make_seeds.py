#!/usr/bin/env python3
"""Builds the seed corpus of the fuzz targets from the committed fixture files.

Metalayer seeds are the metalayer contents of a spread of fixture files (every layout, ndim 0, 1,
mid and the maximum, short and long dtypes); frame seeds are the files' headers (the first
`header_len` bytes), and a few small whole frames with vlmetalayers (header, chunks and trailer);
vlmeta seeds are vlmetalayer chunks python-blosc2 wrote, one of each codec, flag byte and stored
or compressed form (`expected.json`).
Run from the repository root after `cargo build -p metalayer-cli`.
"""
import json
import pathlib
import struct
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
FILES = ROOT / "tests/fixtures/files"
CLI = ROOT / "target/debug/metalayer"
OUT = ROOT / "fuzz/corpus"


def header(path):
    data = path.read_bytes() if path.is_file() else (path / "chunks.b2frame").read_bytes()
    # header_len: an int32 after the 0xd2 marker at byte 0x0a.
    (length,) = struct.unpack(">i", data[11:15])
    return data[:length]


# Small whole frames whose trailers hold vlmetalayers, for the frame target's trailer reader.
WHOLE_FRAMES = [
    "blosc2-4-own/ctable_embed.b2e",
    "blosc2-4-own/treestore_group_vlmeta.b2f",
    "blosc2-2-vlmeta/save_tensor.b2f",
    "blosc2-4-vlmeta/sparse_schunk.b2f/chunks.b2frame",
]


def save_whole_frames():
    d = OUT / "frame"
    d.mkdir(parents=True, exist_ok=True)
    for rel in WHOLE_FRAMES:
        (d / ("whole-" + rel.replace("/", "-"))).write_bytes((FILES / rel).read_bytes())


def save_vlmeta_chunks():
    """One chunk of each (flags, codec format, memcpyed) python-blosc2 wrote, at most 4 KiB, after
    the target's limit selector byte 0 (64 MiB)."""
    d = OUT / "vlmeta"
    d.mkdir(parents=True, exist_ok=True)
    seen = set()
    for record in json.loads((ROOT / "tests/fixtures/expected.json").read_text()):
        for layer in record.get("vlmetalayers") or []:
            chunk = bytes.fromhex(layer["chunk_hex"])
            c = layer["chunk"]
            key = (c["flags"], c["compformat"], c["memcpyed"])
            if key in seen or len(chunk) > 4096:
                continue
            seen.add(key)
            stem = pathlib.Path(record["path"]).parent.name + "-" + pathlib.Path(record["path"]).stem
            (d / f"{stem}-{layer['name']}").write_bytes(b"\x00" + chunk)


def save(schema, name, stem, content):
    for target in (f"decode_{schema}", "dispatch"):
        d = OUT / target
        d.mkdir(parents=True, exist_ok=True)
        # The dispatch target's first byte selects the name: 0 is "b2nd", 2 is "caterva".
        prefix = b"" if target != "dispatch" else (b"\x02" if name == "caterva" else b"\x00")
        (d / f"{schema}-{stem}").write_bytes(prefix + content)


def main():
    frames = sorted(FILES.glob("*/*.b2nd")) + sorted(FILES.glob("*/*.cat"))
    seen = set()
    for path in frames:
        hdr = header(path)
        report = json.loads(subprocess.check_output([CLI, "inspect", "--json", path]))[0]
        for layer in report["metalayers"]:
            schema = layer.get("schema")
            if schema is None:
                continue
            fields = {k: v for k, v in layer["fields"].items() if k not in ("version", "ndim")}
            hex_ = subprocess.check_output([CLI, "encode", "--schema", schema, json.dumps(fields)], text=True).strip()
            content = bytes.fromhex(hex_)
            key = (schema, len(fields.get("shape", [])), len(fields.get("dtype", "")) // 8)
            if key in seen:
                continue
            seen.add(key)
            stem = f"{path.parent.name}-{path.stem}"
            contents = {schema: content}
            if schema == "b2nd_v1" and len(fields["shape"]) <= 8:
                # No producer wrote b2nd_v0 to a file that is still around; build it from the
                # same values (the layout without dtype_format).
                v0 = {k: v for k, v in fields.items() if k != "dtype_format"}
                hex_ = subprocess.check_output([CLI, "encode", "--schema", "b2nd_v0", json.dumps(v0)], text=True)
                contents["b2nd_v0"] = bytes.fromhex(hex_.strip())
            for schema, content in contents.items():
                save(schema, layer["name"], stem, content)
            d = OUT / "frame"
            d.mkdir(parents=True, exist_ok=True)
            (d / stem).write_bytes(hdr)
    save_whole_frames()
    save_vlmeta_chunks()
    d = OUT / "schema"
    d.mkdir(parents=True, exist_ok=True)
    for schema in sorted((ROOT / "schemas").glob("*.toml")) + sorted((ROOT / "tests/schemas").glob("*.toml")):
        (d / schema.name).write_bytes(schema.read_bytes())


if __name__ == "__main__":
    main()
