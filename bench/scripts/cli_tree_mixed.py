#!/usr/bin/env python3
"""`metalayer inspect --jsonl` over a tree of small frames and a tree of mixed frames against
python-blosc2, and the peak RSS of `metalayer inspect` on a 64 MiB vlmetalayer.

Run by bench/scripts/cli_tree_mixed.sh, which builds the CLI (unless it is given one) and makes
python-blosc2's virtual environment first; see that script for what is measured and how.

    cli_tree_mixed.py --bin METALAYER --py VENV_PYTHON --out OUT.json [--n 1000] [--runs R]
                      [--small-dirs blosc2-4] [--trees small,mixed] [--no-big]
                      [--tree-timeout S] [--big-timeout S] [--blosc2-version V]
"""

import argparse
import datetime
import hashlib
import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from machine import cmd, machine

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "files"
WORK = REPO / "target" / "cli-tree-mixed"
FRAMES = WORK / "frames"  # what mixed_frames.py writes
GENERATOR = HERE / "mixed_frames.py"

sys.path.insert(0, str(HERE))
# The trees are laid out and made as cli_tree.py lays them out and makes them: frame i is
# `{i // 10000:02d}/{i // 100 % 100:02d}/{i:07d}<ext>`, 100 frames a leaf directory; frame i is a
# sparse frame when i % 100 == 50, else a contiguous one, each kind cycling through its sources.
from cli_tree import FILES_PER_DIR, SPARSE_EVERY, check_outputs, ensure_tree, gnu_time  # noqa: E402

VALUE_64M = (64 << 20) - 1024  # the big values (mixed_frames.VALUE_64M)
GOAL_RSS_KIB = (2 * VALUE_64M + (32 << 20)) // 1024  # peak RSS < 2 x value + 32 MiB

# What python-blosc2 does for one frame, in one process for the whole tree: cli_tree.py's loop
# (os.walk with sorted names, a directory holding chunks.b2frame is one sparse frame; a file
# given as the root is one frame), with the frame opened with deserialize="full" (python-blosc2
# 4.x refuses to unpack ext 42 and 43 values, whole frames and references, otherwise), and the
# values that JSON has no type for written as what they hold: a nested frame (ext 42: an NDArray,
# SChunk, ObjectArray, BatchArray, EmbedStore) as its header, metalayers and vlmetalayers, as the
# CLI shows it; a NumPy array as dtype, shape and values; bytes as hex; complex numbers, sets and
# NumPy scalars as lists and numbers; anything else as its repr.
PY_LOOP = r'''import json, os, sys
import blosc2
import numpy as np

root, limit, deserialize = sys.argv[1], int(sys.argv[2]), sys.argv[3]
write = sys.stdout.write
files = errors = 0


def as_schunk(v):
    if isinstance(v, blosc2.SChunk):
        return v
    for attr in ("schunk", "_store"):  # NDArray, ObjectArray, BatchArray; EmbedStore
        s = getattr(v, attr, None)
        if isinstance(s, blosc2.SChunk):
            return s
    return None


def jsonable(v):
    if isinstance(v, (bytes, bytearray)):
        return v.hex()
    if isinstance(v, np.ndarray):
        return {"dtype": v.dtype.str, "shape": v.shape, "values": v.tolist()}
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, complex):
        return [v.real, v.imag]
    if isinstance(v, (set, frozenset)):
        return sorted(v, key=repr)
    s = as_schunk(v)
    if s is not None:
        return read(s)
    return repr(v)


def read(s):
    cp = s.cparams
    header = {"nbytes": s.nbytes, "cbytes": s.cbytes, "ratio": s.cratio, "typesize": s.typesize,
              "blocksize": s.blocksize, "chunksize": s.chunksize, "nchunks": s.nchunks,
              "codec": cp.codec.name, "clevel": cp.clevel, "splitmode": cp.splitmode.name,
              "filters": [f.name for f in cp.filters], "contiguous": s.contiguous}
    meta = s.meta
    return {"header": header, "metalayers": {k: meta[k] for k in meta.keys()},
            "vlmetalayers": s.vlmeta.getall()}


def frame(path):
    global files, errors
    files += 1
    try:
        a = blosc2.open(path, deserialize=deserialize)
        s = getattr(a, "schunk", a)
        line = json.dumps({"path": path, **read(s)}, default=jsonable)
    except Exception as e:
        errors += 1
        line = json.dumps({"path": path, "error": f"{type(e).__name__}: {e}"})
    write(line + "\n")


def walk():
    if os.path.isfile(root):
        frame(root)
        return
    for dirpath, dirnames, filenames in os.walk(root):
        if "chunks.b2frame" in filenames:
            dirnames.clear()
            frame(dirpath)
            if files == limit:
                return
            continue
        dirnames.sort()
        for name in sorted(filenames):
            frame(os.path.join(dirpath, name))
            if files == limit:
                return


walk()
sys.stdout.flush()
print(f"{files} frames, {errors} errors", file=sys.stderr)
'''

# Which sources python-blosc2 reads with the loop's calls.
PY_PROBE = r'''import sys, blosc2
deserialize = sys.argv[1]
for p in sys.argv[2:]:
    try:
        a = blosc2.open(p, deserialize=deserialize)
        s = getattr(a, "schunk", a)
        cp = s.cparams
        (s.nbytes, s.cbytes, s.cratio, s.nchunks, cp.codec.name, cp.splitmode.name)
        meta = s.meta
        {k: meta[k] for k in meta.keys()}
        s.vlmeta.getall()
        print(f"ok\t{p}\t")
    except Exception as e:
        msg = f"{type(e).__name__}: {e}".replace("\n", " ").replace("\t", " ")
        print(f"fail\t{p}\t{msg}")
'''

DESERIALIZE = "full"


def rel(p):
    return os.path.relpath(p, REPO)


# ---------------------------------------------------------------------------------------------
# Running a process: wall time, CPU time and peak RSS, with a time limit
# ---------------------------------------------------------------------------------------------

TIMER = gnu_time()
RSS_FILE = WORK / "maxrss.txt"


def measure(argv, stdout=subprocess.DEVNULL, stderr_path=None, timeout=None):
    """Runs argv from the repository's root: (seconds, peak RSS in KiB, exit status, CPU seconds,
    timed out).

    As cli_tree.measure: the wall time is from the fork to wait4's return; the CPU time is user +
    system from wait4; the peak RSS is GNU time's %M when /usr/bin/time is GNU time (argv then
    runs under it), else the child's ru_maxrss from wait4 (never below this process's RSS when it
    spawned the child: see cli_tree.measure and `floor`). After `timeout` seconds the process
    group is killed (SIGKILL) from another thread, which costs the measured process nothing."""
    err = open(stderr_path, "wb") if stderr_path else subprocess.DEVNULL
    if TIMER:
        RSS_FILE.unlink(missing_ok=True)
        argv = [TIMER, "-f", "%M", "-o", str(RSS_FILE), *argv]
    killed = threading.Event()
    try:
        start = time.perf_counter_ns()
        proc = subprocess.Popen(argv, cwd=REPO, stdin=subprocess.DEVNULL, stdout=stdout, stderr=err,
                                start_new_session=True)
        timer = None
        if timeout:
            def kill():
                killed.set()
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            timer = threading.Timer(timeout, kill)
            timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        end = time.perf_counter_ns()
        if timer:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
    finally:
        if stderr_path:
            err.close()
    rss = usage.ru_maxrss
    if TIMER:
        try:
            rss = int(RSS_FILE.read_text().split()[-1])
        except (OSError, ValueError, IndexError):
            rss = None
    return (end - start) / 1e9, rss, proc.returncode, usage.ru_utime + usage.ru_stime, killed.is_set()


def summary(runs):
    secs = [r[0] for r in runs]
    known = [r[1] for r in runs if r[1] is not None]
    return {"median_s": round(statistics.median(secs), 4), "runs_s": [round(s, 4) for s in secs],
            "maxrss_kib_median": int(statistics.median(known)) if known else None,
            "maxrss_kib_runs": [r[1] for r in runs],
            "cpu_median_s": round(statistics.median(r[3] for r in runs), 4),
            "cpu_runs_s": [round(r[3], 4) for r in runs],
            "exit_status": sorted({r[2] for r in runs}), "timed_out_runs": sum(1 for r in runs if r[4])}


def describe(r):
    t = "TIMED OUT " if r[4] else ""
    return f"{t}{r[0] * 1e3:9.1f} ms (CPU {r[3] * 1e3:8.1f} ms) {r[1]!s:>7} KiB (status {r[2]})"


# ---------------------------------------------------------------------------------------------
# The mixed frames, the sources and the trees
# ---------------------------------------------------------------------------------------------


def sha256_file(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def ensure_frames(py, blosc2_version):
    """Runs mixed_frames.py with python-blosc2 unless its output there was made by the same
    script with the same python-blosc2."""
    stamp_path = FRAMES / "stamp.json"
    key = {"generator_sha256": sha256_file(GENERATOR), "blosc2": blosc2_version}
    try:
        stamp = json.loads(stamp_path.read_text())
    except (OSError, ValueError):
        stamp = None
    if stamp and stamp.get("key") == key and (FRAMES / "manifest.json").is_file():
        print(f"  reusing {rel(FRAMES)} (made on {stamp['made']})")
        return json.loads((FRAMES / "manifest.json").read_text()) | {"generation_s": stamp["generation_s"],
                                                                      "reused": True}
    print(f"  making {rel(FRAMES)} with {rel(GENERATOR)} ...", flush=True)
    stamp_path.unlink(missing_ok=True)
    start = time.perf_counter()
    subprocess.run([py, str(GENERATOR), str(FRAMES)], cwd=REPO, check=True)
    seconds = round(time.perf_counter() - start, 2)
    stamp_path.write_text(json.dumps({"key": key, "generation_s": seconds, "made": datetime.datetime.now(
        datetime.timezone.utc).isoformat(timespec="seconds")}) + "\n")
    return json.loads((FRAMES / "manifest.json").read_text()) | {"generation_s": seconds, "reused": False}


def probe_sources(binary, py, candidates):
    """The candidates python-blosc2 and the CLI both read without an error, as
    (contiguous, sparse, excluded)."""
    out = subprocess.run([py, "-c", PY_PROBE, DESERIALIZE, *candidates], cwd=REPO, capture_output=True,
                         text=True, check=True).stdout
    ok, excluded = [], []
    for line in out.splitlines():
        status, path, msg = line.split("\t")
        if status == "ok":
            ok.append(path)
        else:
            excluded.append({"path": path, "python_error": msg})
    cli_bad = {}
    for path in ok:  # one at a time, so that one the CLI fails on does not hide the others
        try:
            cli = subprocess.run([binary, "inspect", "--jsonl", path], cwd=REPO, capture_output=True,
                                 timeout=60)
        except subprocess.TimeoutExpired:
            cli_bad[path] = "timed out (60 s)"
            continue
        lines = cli.stdout.splitlines()
        if cli.returncode != 0 or len(lines) != 1:
            cli_bad[path] = f"exit status {cli.returncode}: {cli.stderr.decode(errors='replace').strip()[:300]}"
            continue
        report = json.loads(lines[0])
        if "error" in report or any("error" in m for m in report["metalayers"] + report["vlmetalayers"]):
            cli_bad[path] = "an error in its JSON line"
    for path, why in sorted(cli_bad.items()):
        excluded.append({"path": path, "cli_error": why})
    ok = [p for p in ok if p not in cli_bad]
    contiguous = [p for p in ok if (REPO / p).is_file()]
    sparse = [p for p in ok if (REPO / p).is_dir()]
    return contiguous, sparse, excluded


# ---------------------------------------------------------------------------------------------
# Checks (untimed), each in a child process so that parsing gigabytes of JSON lines does not
# raise this process's RSS (which ru_maxrss carries into the children it spawns)
# ---------------------------------------------------------------------------------------------


def run_check(n, cli_out, py_out, cli_status, cli_stderr_path):
    out = subprocess.run([sys.executable, __file__, "--check", str(n), str(cli_out), str(py_out), str(cli_status),
                          str(cli_stderr_path)], capture_output=True, text=True,
                         env=os.environ | {"PYTHONPATH": str(REPO / "bench")})
    if out.returncode != 0:
        return {"ok": False, "problems": [f"the check failed: {out.stderr.strip()[-500:]}"]}
    return json.loads(out.stdout)


def check_main(argv):
    n, cli_out, py_out, status, stderr_path = argv
    print(json.dumps(check_outputs(int(n), cli_out, py_out, int(status), Path(stderr_path).read_text())))


def check_big(mode, out_path):
    """What the untimed run of the CLI printed for a big frame: its size and, for --json, that it
    is one JSON array whose frame has the vlmetalayer "big", decoded without an error, holding
    the whole value."""
    code = r'''import json, sys
mode, path = sys.argv[1], sys.argv[2]
r = {"stdout_bytes": __import__("os").path.getsize(path)}
if mode == "json":
    doc = json.load(open(path, encoding="utf-8"))
    vl = {v["name"]: v for v in doc[0]["vlmetalayers"]}
    big = vl.get("big", {})
    r["vlmetalayer_big_error"] = big.get("error")
    def longest(v):
        if isinstance(v, str):
            return len(v)
        if isinstance(v, dict):
            return max((longest(x) for x in v.values()), default=0)
        if isinstance(v, list):
            return max((longest(x) for x in v), default=0)
        return 0
    r["longest_string_in_big"] = longest(big)
    r["ok"] = "big" in vl and "error" not in big and "error" not in doc[0]
else:
    text = open(path, encoding="utf-8", errors="replace").read()
    r["ok"] = "vlmeta big" in text and "error" not in text.lower()
print(json.dumps(r))
'''
    out = subprocess.run([sys.executable, "-c", code, mode, str(out_path)], capture_output=True, text=True)
    if out.returncode != 0:
        return {"ok": False, "problem": out.stderr.strip()[-500:]}
    return json.loads(out.stdout)


# ---------------------------------------------------------------------------------------------


def bench_tree(name, n, binary, py, runs, tree, timeout, py_nfiles):
    root = rel(WORK / f"{name}-n{n}")
    py_n = min(n, py_nfiles) if py_nfiles else n
    cli_argv = [binary, "inspect", "--jsonl", root]
    py_argv = [py, "-c", PY_LOOP, root, str(py_n if py_n < n else 0), DESERIALIZE]

    print(f"{name}: checking the outputs (untimed) ...", flush=True)
    cli_out, py_out = WORK / f"cli-{name}.jsonl", WORK / f"py-{name}.jsonl"
    with open(cli_out, "wb") as f:
        c = measure(cli_argv, stdout=f, stderr_path=WORK / "cli.stderr", timeout=timeout)
    with open(py_out, "wb") as f:
        p = measure(py_argv, stdout=f, stderr_path=WORK / "py.stderr", timeout=timeout)
    print(f"  untimed: CLI {describe(c)}, {cli_out.stat().st_size:,} bytes out; "
          f"python {describe(p)}, {py_out.stat().st_size:,} bytes out", flush=True)
    check = run_check(n, cli_out, py_out, c[2], WORK / "cli.stderr")
    check["cli_stdout_bytes"] = cli_out.stat().st_size
    check["python_stdout_bytes"] = py_out.stat().st_size
    check["cli_timed_out"], check["python_timed_out"] = c[4], p[4]
    check["python_stderr"] = (WORK / "py.stderr").read_text(errors="replace").strip()[-300:]
    for prob in check["problems"]:
        print(f"  problem: {prob}")
    cli_out.unlink()
    py_out.unlink()

    print(f"{name}: {runs} timed runs each (interleaved):", flush=True)
    cli_runs, py_runs = [], []
    for r in range(1, runs + 1):
        measure(cli_argv, timeout=timeout)  # reads the tree back into the page cache, untimed
        cli_runs.append(measure(cli_argv, timeout=timeout))
        py_runs.append(measure(py_argv, timeout=timeout))
        print(f"  run {r}: CLI {describe(cli_runs[-1])}   python {describe(py_runs[-1])}", flush=True)
    cli, pyside = summary(cli_runs), summary(py_runs)
    cli_per = cli["median_s"] / n
    py_per = pyside["median_s"] / py_n
    return {
        "tree": name, "n": n, "root": root, "runs": runs,
        "made": {k: v for k, v in tree.items() if k != "key"}, "check": check,
        "cli": cli | {"command": f"{binary} inspect --jsonl {root} > /dev/null", "frames": n,
                      "per_file_us": round(cli_per * 1e6, 3),
                      "cpu_per_file_us": round(cli["cpu_median_s"] / n * 1e6, 3)},
        "python": pyside | {"command": f"{rel(py)} -c <loop> {root} 0 {DESERIALIZE} > /dev/null", "frames": py_n,
                            "per_file_us": round(py_per * 1e6, 3),
                            "cpu_per_file_us": round(pyside["cpu_median_s"] / py_n * 1e6, 3)},
        "ratio_python_over_cli_per_file": round(py_per / cli_per, 2),
    }


def bench_big(frames_manifest, binary, py, runs, timeout):
    results = []
    for f in frames_manifest:
        path = rel(FRAMES / "big" / f["path"])
        for mode, argv in (("text", [binary, "inspect", path]), ("json", [binary, "inspect", "--json", path]),
                           ("python", [py, "-c", PY_LOOP, path, "0", DESERIALIZE])):
            print(f"{f['path']}, {mode}:", flush=True)
            out_path = WORK / f"big-{mode}.out"
            with open(out_path, "wb") as out:
                first = measure(argv, stdout=out, stderr_path=WORK / "big.stderr", timeout=timeout)
            stderr = (WORK / "big.stderr").read_text(errors="replace").strip()
            check = ({"stdout_bytes": out_path.stat().st_size, "ok": first[2] == 0 and not first[4]}
                     if mode == "python" else check_big(mode, out_path))
            check["exit_status"], check["timed_out"], check["stderr"] = first[2], first[4], stderr[-500:]
            out_path.unlink()
            print(f"  untimed: {describe(first)}; {check}", flush=True)
            if first[4] or first[2] != 0:
                # Failed or over the limit: reported, not run again.
                results.append({"frame": f["path"], "mode": mode, "command": " ".join(argv[:-1] + [path]) if mode != "python"
                                else f"{rel(py)} -c <loop> {path} 0 {DESERIALIZE}",
                                "check": check, "untimed": {"s": round(first[0], 4), "maxrss_kib": first[1]},
                                "timed": None})
                continue
            timed = [measure(argv, timeout=timeout) for _ in range(runs)]
            for i, r in enumerate(timed, 1):
                print(f"  run {i}: {describe(r)}", flush=True)
            s = summary(timed)
            rss = s["maxrss_kib_median"]
            results.append({
                "frame": f["path"], "what": f["what"], "value_bytes": f["value_bytes"], "file_bytes": f["bytes"],
                "mode": mode, "command": (" ".join(argv[:-1] + [path]) + " > /dev/null") if mode != "python"
                else f"{rel(py)} -c <loop> {path} 0 {DESERIALIZE} > /dev/null",
                "check": check, "timed": s,
                "goal_maxrss_kib_max": GOAL_RSS_KIB if mode != "python" else None,
                "goal_met": (rss is not None and rss < GOAL_RSS_KIB) if mode != "python" else None,
                "maxrss_over_value": round(rss * 1024 / f["value_bytes"], 3) if rss else None,
            })
    return results


def report_lines(result):
    """A short markdown summary of the results (printed at the end)."""
    lines = ["", "| tree | frames | CLI per file | python per file | python / CLI | CLI peak RSS | python peak RSS | check |",
             "|---|---|---|---|---|---|---|---|"]
    for t in result["trees"]:
        lines.append(f"| {t['tree']} | {t['n']:,} | {t['cli']['per_file_us']:,.1f} µs | {t['python']['per_file_us']:,.1f} µs | "
                     f"{t['ratio_python_over_cli_per_file']:.2f}x | {t['cli']['maxrss_kib_median']:,} KiB | "
                     f"{t['python']['maxrss_kib_median']:,} KiB | {'ok' if t['check']['ok'] else 'PROBLEMS'} |")
    if result.get("big"):
        lines += ["", f"| 64 MiB frame | mode | wall (median) | peak RSS (median) | RSS / value | goal < {GOAL_RSS_KIB:,} KiB |",
                  "|---|---|---|---|---|---|"]
        for b in result["big"]:
            if b["timed"] is None:
                why = "timed out" if b["check"]["timed_out"] else f"exit status {b['check']['exit_status']}"
                lines.append(f"| {b['frame']} | {b['mode']} | {why} after {b['untimed']['s']:.2f} s | "
                             f"{b['untimed']['maxrss_kib']} KiB | – | – |")
                continue
            t = b["timed"]
            goal = "–" if b["goal_met"] is None else ("met" if b["goal_met"] else "NOT met")
            lines.append(f"| {b['frame']} | {b['mode']} | {t['median_s'] * 1e3:,.1f} ms | {t['maxrss_kib_median']:,} KiB | "
                         f"{b['maxrss_over_value']}x | {goal} |")
    return lines


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--check":
        return check_main(sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True, help="the metalayer binary")
    ap.add_argument("--py", required=True, help="python-blosc2's venv python")
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=1000, help="frames in each tree")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--trees", default="small,mixed")
    ap.add_argument("--small-dirs", default="blosc2-4",
                    help="fixture directories (under tests/fixtures/files) of the small tree")
    ap.add_argument("--no-big", action="store_true", help="leave out the 64 MiB frames")
    ap.add_argument("--tree-timeout", type=float, default=600, help="seconds for one run over a tree")
    ap.add_argument("--big-timeout", type=float, default=60, help="seconds for one run on a 64 MiB frame")
    ap.add_argument("--py-nfiles", type=int, default=0)
    ap.add_argument("--blosc2-version", default=None)
    args = ap.parse_args()
    binary = str(Path(args.bin).resolve())
    py = args.py
    trees_wanted = [t for t in args.trees.replace(",", " ").split() if t]
    WORK.mkdir(parents=True, exist_ok=True)

    print(f"CLI: {binary} ({cmd(binary, '--version')})")
    print("the mixed frames (untimed) ...")
    manifest = ensure_frames(py, args.blosc2_version)

    print("sources (untimed) ...")
    sources = {}
    for name in trees_wanted:
        if name == "small":
            dirs = [FIXTURES / d for d in args.small_dirs.replace(",", " ").split()]
            candidates = sorted(rel(p) for d in dirs for p in d.iterdir())
        elif name == "mixed":
            candidates = sorted(rel(p) for p in (FRAMES / "sources").iterdir())
        else:
            sys.exit(f"error: unknown tree {name!r} (small, mixed)")
        contiguous, sparse, excluded = probe_sources(binary, py, candidates)
        sources[name] = {"contiguous": contiguous, "sparse": sparse, "excluded": excluded}
        print(f"  {name}: {len(contiguous)} contiguous and {len(sparse)} sparse sources; {len(excluded)} excluded")
        for e in excluded:
            print(f"    excluded {e['path']}: {e.get('python_error') or 'CLI: ' + e['cli_error']}")
        if not contiguous:
            sys.exit(f"error: python-blosc2 and the CLI read none of the contiguous sources of {name}")

    print("trees (untimed) ...")
    made = {name: ensure_tree(args.n, s["contiguous"], s["sparse"], work=WORK, name=name)
            for name, s in sources.items()}

    fixed_runs = 5
    floor = summary([measure(["/bin/true"]) for _ in range(fixed_runs)])
    cli_startup = summary([measure([binary, "--version"]) for _ in range(fixed_runs)])
    py_import = summary([measure([py, "-c", "import blosc2"]) for _ in range(fixed_runs)])
    print(f"peak RSS from {TIMER + ' -f %M' if TIMER else 'wait4 (GNU time is not installed)'}; "
          f"/bin/true: {floor['median_s'] * 1e3:.1f} ms, {floor['maxrss_kib_median']} KiB; "
          f"metalayer --version: {cli_startup['median_s'] * 1e3:.1f} ms, {cli_startup['maxrss_kib_median']} KiB; "
          f"python -c 'import blosc2': {py_import['median_s'] * 1e3:.1f} ms, {py_import['maxrss_kib_median']} KiB")

    trees = [bench_tree(name, args.n, binary, py, args.runs, made[name], args.tree_timeout, args.py_nfiles)
             for name in sources]
    for t in trees:
        print(f"{t['tree']}: CLI {t['cli']['per_file_us']:.1f} µs/file ({t['cli']['maxrss_kib_median']} KiB), "
              f"python {t['python']['per_file_us']:.1f} µs/file ({t['python']['maxrss_kib_median']} KiB): "
              f"python / CLI = {t['ratio_python_over_cli_per_file']:.2f}x")
    big = None if args.no_big else bench_big(manifest["big"], binary, py, args.runs, args.big_timeout)

    result = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine(python=cmd(py, "--version"), blosc2=args.blosc2_version,
                           loadavg_at_end=list(os.getloadavg())),
        "cli": {"binary": binary, "version": cmd(binary, "--version")},
        "method": ("whole processes from the repository's root, stdout to /dev/null, warm page cache (one "
                   "untimed run of each side first, whose output is checked); CLI and python runs "
                   "interleaved, each CLI run after an untimed one; wall time from fork to wait4 (under GNU time "
                   "when it is installed: see `floor`), CPU time (user + system) from wait4; medians of the runs. "
                   "The 64 MiB frames: one untimed run whose output is checked, then the timed runs; "
                   f"a run over a tree is killed after {args.tree_timeout:g} s, one on a 64 MiB frame after "
                   f"{args.big_timeout:g} s"),
        "rss_source": (f"GNU time: {TIMER} -f %M" if TIMER else
                       "ru_maxrss from wait4 (GNU time is not installed): never below the spawning "
                       "python process's RSS, see `floor`"),
        "floor": floor | {"command": "/bin/true"},
        "cli_startup_only": cli_startup | {"command": f"{binary} --version"},
        "python_import_only": py_import | {"command": f"{rel(py)} -c 'import blosc2'"},
        "python_loop": PY_LOOP, "python_deserialize": DESERIALIZE,
        "layout": {"files_per_dir": FILES_PER_DIR, "sparse_every": SPARSE_EVERY,
                   "path": "{i // 10000:02d}/{i // 100 % 100:02d}/{i:07d}<ext of the source>"},
        "sources": sources,
        "mixed_frames": {k: v for k, v in manifest.items()},
        "trees": trees,
        "big": big,
        "big_goal": {"maxrss_kib_max": GOAL_RSS_KIB, "value_bytes": VALUE_64M,
                     "what": "peak RSS < 2 x value + 32 MiB"},
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print("\n".join(report_lines(result)))
    print(f"\nresults: {args.out}")
    if not all(t["check"]["ok"] for t in trees):
        sys.exit("error: the outputs did not pass the checks (see `check` in the results)")


if __name__ == "__main__":
    main()
