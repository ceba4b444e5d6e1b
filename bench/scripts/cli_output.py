#!/usr/bin/env python3
"""Size and speed of `metalayer inspect --jsonl` over python-blosc2's fixture frames.

Run by bench/scripts/cli_output.sh, which builds the CLI and makes python-blosc2's virtual
environment first; see that script for what is measured and how.

    cli_output.py --bin METALAYER --py VENV_PYTHON --out OUT.json [--n 1000] [--runs 5]
                  [--blosc2-version V]
"""

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from machine import machine
import cli_tree
from cli_tree import PY_LOOP, PY_PROBE, ensure_tree, measure, rel

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "files"
WORK = REPO / "target" / "cli-output"
MAGIC = b"\x9e\xa8b2frame\x00"
# The directories of each release's arrays (dtypes, shapes, user metalayers), whose .b2nd frames
# are the small b2nd frames.
SMALL_B2ND = ("blosc2-2", "blosc2-4")


def releases():
    """python-blosc2's fixture directories, every release."""
    return sorted(d for d in FIXTURES.glob("blosc2-*") if d.is_dir())


def input_bytes(root):
    """The bytes of the files `inspect` reads under root: frame files, the files of sparse frames
    (directories holding chunks.b2frame), and .b2z stores."""
    total = 0
    for dirpath, dirnames, filenames in os.walk(root):
        sparse = "chunks.b2frame" in filenames
        for name in filenames:
            p = Path(dirpath) / name
            with open(p, "rb") as f:
                head = f.read(10)
            if sparse or head == MAGIC or (name.endswith(".b2z") and head[:4] == b"PK\x03\x04"):
                total += p.stat().st_size
    return total


def undecodable_hex(value):
    """Characters of hex (with their quotes) that stand for bytes that decode to nothing further:
    an item's "hex" beside no value, an ext's "data" beside no value or frame, and a msgpack
    binary's {"bin": hex}, whose value is its bytes."""
    n = 0
    if isinstance(value, list):
        return sum(undecodable_hex(v) for v in value)
    if isinstance(value, dict):
        decoded = any(k in value for k in ("msgpack", "fields", "value", "frame", "schema"))
        for k, v in value.items():
            if k in ("hex", "data") and isinstance(v, str) and not decoded:
                n += len(v) + 2
            elif k == "bin" and len(value) == 1 and isinstance(v, str):
                n += len(v) + 2
            else:
                n += undecodable_hex(v)
    return n


def growth(value):
    """What decompression adds: each vlmetalayer's decompressed length ("len") over its chunk's
    ("chunk_len"), nested frames' included (their bytes are in the value that holds them)."""
    if isinstance(value, list):
        return sum(growth(v) for v in value)
    if isinstance(value, dict):
        n = sum(growth(v) for v in value.values())
        if isinstance(value.get("chunk_len"), int) and isinstance(value.get("len"), int):
            n += value["len"] - value["chunk_len"]
        return n
    return 0


def size(binary):
    """inspect --jsonl (and --hex) bytes over the files' bytes, per release directory."""
    rows = []
    for d in releases():
        files = input_bytes(d)
        row = {"dir": rel(d), "file_bytes": files}
        for key, extra in (("jsonl", []), ("jsonl_hex", ["--hex"])):
            out = subprocess.run([binary, "inspect", "--jsonl", *extra, str(d)], cwd=REPO, capture_output=True)
            lines = [json.loads(line) for line in out.stdout.splitlines()]
            row[key] = {"bytes": len(out.stdout), "frames": len(lines),
                        "undecodable_hex_bytes": sum(undecodable_hex(r) for r in lines),
                        "decompressed_growth": sum(growth(r) for r in lines), "exit_status": out.returncode}
        rows.append(row)
    total = {"file_bytes": sum(r["file_bytes"] for r in rows)}
    for key in ("jsonl", "jsonl_hex"):
        total[key] = {k: sum(r[key][k] for r in rows)
                      for k in ("bytes", "frames", "undecodable_hex_bytes", "decompressed_growth")}
    for r in rows + [total]:
        for key in ("jsonl", "jsonl_hex"):
            s = r[key]
            aside = s["bytes"] - s["undecodable_hex_bytes"]
            s["ratio"] = round(s["bytes"] / r["file_bytes"], 3)
            s["ratio_hex_aside"] = round(aside / r["file_bytes"], 3)
            # Over the bytes the report stands for: the files with their vlmetalayers decompressed.
            s["ratio_hex_aside_decompressed"] = round(aside / (r["file_bytes"] + s["decompressed_growth"]), 3)
    return rows, total


def probe(binary, py, candidates):
    """The candidates python-blosc2 and the CLI both read without an error."""
    out = subprocess.run([py, "-c", PY_PROBE, *candidates], cwd=REPO, capture_output=True, text=True,
                         check=True).stdout
    ok = [line.split("\t")[1] for line in out.splitlines() if line.startswith("ok\t")]
    cli = subprocess.run([binary, "inspect", "--jsonl", *ok], cwd=REPO, capture_output=True, text=True)
    bad = set()
    for line in cli.stdout.splitlines():
        report = json.loads(line)
        items = report.get("metalayers", []) + report.get("vlmetalayers", [])
        if "error" in report or any("error" in m for m in items):
            bad.add(report["path"])
    return [p for p in ok if p not in bad], len(candidates) - len(ok) + len(bad)


def frames_of(pred):
    """Frame files and sparse frames directly in the release directories that pred accepts."""
    found = []
    for d in releases():
        for p in sorted(d.iterdir()):
            if (p / "chunks.b2frame").is_file() or (p.is_file() and p.read_bytes()[:10] == MAGIC):
                if pred(p):
                    found.append(rel(p))
    return found


def race(binary, py, tree, n, runs):
    """Interleaved timed runs of both sides over the tree; the untimed first run of each is
    checked: n lines from each."""
    cli_argv = [binary, "inspect", "--jsonl", str(tree)]
    py_argv = [py, "-c", PY_LOOP, str(tree), str(n)]
    for argv, who in ((cli_argv, "CLI"), (py_argv, "python")):
        out = subprocess.run(argv, cwd=REPO, capture_output=True)
        lines = out.stdout.count(b"\n")
        if lines != n:
            sys.exit(f"error: {who} printed {lines} lines for {n} frames: {out.stderr[-500:]!r}")
    cli, pyr = [], []
    for _ in range(runs):
        measure(cli_argv)
        cli.append(measure(cli_argv))
        pyr.append(measure(py_argv))
    def med(rs, i):
        known = [r[i] for r in rs if r[i] is not None]
        return statistics.median(known) if known else 0

    c, p = med(cli, 0), med(pyr, 0)
    return {"cli_median_s": round(c, 4), "python_median_s": round(p, 4),
            "cli_runs_s": [round(r[0], 4) for r in cli], "python_runs_s": [round(r[0], 4) for r in pyr],
            "cli_us_per_frame": round(c / n * 1e6, 1), "python_us_per_frame": round(p / n * 1e6, 1),
            "cli_cpu_median_s": round(med(cli, 3), 4), "python_cpu_median_s": round(med(pyr, 3), 4),
            "cli_maxrss_kib": int(med(cli, 1) or 0), "python_maxrss_kib": int(med(pyr, 1) or 0),
            "speedup": round(p / c, 1), "speedup_cpu": round(med(pyr, 3) / max(med(cli, 3), 1e-9), 1)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--py", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--blosc2-version")
    a = ap.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    # Where cli_tree's measure has GNU time write the peak RSS.
    cli_tree.WORK.mkdir(parents=True, exist_ok=True)

    rows, total = size(a.bin)
    print("inspect --jsonl bytes / file bytes; that with the hex of bytes that decode to nothing aside;")
    print("that over the files with their vlmetalayers decompressed; --hex / file bytes:")
    for r in rows + [dict(total, dir="all")]:
        j = r["jsonl"]
        print(f"  {r['dir']:<36} {r['file_bytes']:>7} B {j['frames']:>4} frames  {j['ratio']:>6.2f}x"
              f"  {j['ratio_hex_aside']:>6.2f}x  {j['ratio_hex_aside_decompressed']:>5.2f}x"
              f"   --hex {r['jsonl_hex']['ratio']:.2f}x")

    results = {"size": {"dirs": rows, "all": total}, "trees": {}}
    trees = {
        "mixed": frames_of(lambda p: True),
        # Small b2nd frames: the arrays of each release, not the value and store fixtures.
        "b2nd": frames_of(lambda p: p.is_file() and p.suffix == ".b2nd" and p.parent.name in SMALL_B2ND),
    }
    for name, candidates in trees.items():
        ok, excluded = probe(a.bin, a.py, candidates)
        contiguous = [p for p in ok if (REPO / p).is_file()]
        sparse = [p for p in ok if (REPO / p).is_dir()] if name == "mixed" else []
        stamp = ensure_tree(a.n, contiguous, sparse, work=WORK, name=name)
        tree = WORK / f"{name}-n{a.n}"
        r = race(a.bin, a.py, tree, a.n, a.runs)
        r |= {"sources": len(ok), "excluded": excluded, "tree_bytes": stamp["bytes"]}
        results["trees"][name] = r
        print(f"{name} tree of {a.n} frames ({len(ok)} sources, {stamp['bytes']} bytes): CLI {r['cli_median_s']:.3f} s"
              f" ({r['cli_us_per_frame']} us/frame, {r['cli_maxrss_kib']} KiB), python-blosc2 {r['python_median_s']:.3f} s"
              f" ({r['python_us_per_frame']} us/frame): {r['speedup']}x (CPU {r['speedup_cpu']}x)")

    load = os.getloadavg()
    results["machine"] = machine(blosc2=a.blosc2_version, loadavg=[round(x, 2) for x in load])
    results["made"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    results["goals"] = {"size_hex_aside_max": 2.0, "mixed_speedup_min": 10, "b2nd_speedup_min": 40}
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(json.dumps(results, indent=2) + "\n")
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; results in {rel(Path(a.out))}")


if __name__ == "__main__":
    main()
