#!/usr/bin/env python3
"""`metalayer inspect --jsonl` over a directory tree of N small frames, against python-blosc2.

Run by bench/scripts/cli_tree.sh, which builds the CLI and makes python-blosc2's virtual
environment first; see that script for what is measured and how.

    cli_tree.py --bin METALAYER --py VENV_PYTHON --out OUT.json [--sizes 1000,100000]
                [--runs R] [--py-nfiles K] [--blosc2-version V]
"""

import argparse
import datetime
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from machine import cmd, machine

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "files"
WORK = REPO / "target" / "cli-tree"

# The tree: frame i is `{i // 10000:02d}/{i // 100 % 100:02d}/{i:07d}<ext>`, so 100 frames in each
# leaf directory, 100 leaf directories in each top one. Frame i is a sparse frame (a directory)
# when i % SPARSE_EVERY == SPARSE_AT, else a contiguous one; each kind cycles through its sources.
FILES_PER_DIR = 100
SPARSE_EVERY = 100
SPARSE_AT = 50
LAYOUT = 1  # bumped when the layout above changes, so that old trees are made again

# What python-blosc2 does for one frame, in one process for the whole tree: the same tree walk
# (os.walk with sorted names; a directory holding chunks.b2frame is one sparse frame), the file
# opened with blosc2.open, the header's fields read (sizes, codec, clevel, filters, split mode,
# ratio), every metalayer read (schunk.meta[key] for each key, which unpacks its msgpack), every
# vlmetalayer read (schunk.vlmeta.getall(), which decompresses and unpacks each), and one JSON
# line printed. A reference to the opened object is kept while it is read: a temporary one is
# freed before the lookup.
PY_LOOP = r'''import json, os, sys
import blosc2


def jsonable(v):
    return v.hex() if isinstance(v, (bytes, bytearray)) else repr(v)


root, limit = sys.argv[1], int(sys.argv[2])
write = sys.stdout.write
files = errors = 0


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
        a = blosc2.open(path)
        s = getattr(a, "schunk", a)
        line = json.dumps({"path": path, **read(s)}, default=jsonable)
    except Exception as e:
        errors += 1
        line = json.dumps({"path": path, "error": f"{type(e).__name__}: {e}"})
    write(line + "\n")


def walk():
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

# Which fixtures python-blosc2 reads with the loop's calls.
PY_PROBE = r'''import sys, blosc2
for p in sys.argv[1:]:
    try:
        a = blosc2.open(p)
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


def rel(p):
    return os.path.relpath(p, REPO)


# ---------------------------------------------------------------------------------------------
# Running a process: wall time and peak RSS
# ---------------------------------------------------------------------------------------------


def gnu_time():
    """/usr/bin/time when it is GNU time, else None."""
    path = "/usr/bin/time"
    if not os.path.exists(path):
        return None
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True)
    except OSError:
        return None
    return path if "GNU" in out.stdout + out.stderr else None


TIMER = gnu_time()
RSS_FILE = WORK / "maxrss.txt"


def measure(argv, stdout=subprocess.DEVNULL, stderr_path=None):
    """Runs argv from the repository's root: (seconds, peak RSS in KiB, exit status, CPU seconds).

    The wall time is from the fork to wait4's return; the CPU time is user + system from wait4
    (which includes the command's when GNU time runs it). The peak RSS is what GNU time prints as %M
    when /usr/bin/time is GNU time (argv then runs under it, which the wall time includes: about
    a millisecond, measured as `wrapper`), else the child's ru_maxrss from wait4. The latter
    is never below this (python) process's own RSS when it spawned the child: Linux carries the
    peak RSS of the address space a process replaces with exec into its ru_maxrss, and a
    spawned child starts in its parent's address space; GNU time, a small C program, forks
    the command from its own small one. `floor` measures what either way reports for
    /bin/true."""
    err = open(stderr_path, "wb") if stderr_path else subprocess.DEVNULL
    if TIMER:
        RSS_FILE.unlink(missing_ok=True)
        argv = [TIMER, "-f", "%M", "-o", str(RSS_FILE), *argv]
    try:
        start = time.perf_counter_ns()
        proc = subprocess.Popen(argv, cwd=REPO, stdin=subprocess.DEVNULL, stdout=stdout, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        end = time.perf_counter_ns()
        proc.returncode = os.waitstatus_to_exitcode(status)
    finally:
        if stderr_path:
            err.close()
    rss = usage.ru_maxrss
    if TIMER:
        # "Command exited with non-zero status N" may come first; %M is the last line.
        try:
            rss = int(RSS_FILE.read_text().split()[-1])
        except (OSError, ValueError, IndexError):
            rss = None
    return (end - start) / 1e9, rss, proc.returncode, usage.ru_utime + usage.ru_stime


def summary(runs):
    """Medians (and every run) of [(seconds, maxrss_kib, status)]."""
    secs = [r[0] for r in runs]
    rss = [r[1] for r in runs]
    known = [x for x in rss if x is not None]
    return {"median_s": round(statistics.median(secs), 4), "runs_s": [round(s, 4) for s in secs],
            "maxrss_kib_median": int(statistics.median(known)) if known else None, "maxrss_kib_runs": rss,
            "cpu_median_s": round(statistics.median(r[3] for r in runs), 4),
            "cpu_runs_s": [round(r[3], 4) for r in runs],
            "exit_status": sorted({r[2] for r in runs})}


# ---------------------------------------------------------------------------------------------
# The sources and the trees
# ---------------------------------------------------------------------------------------------


def probe_sources(binary, py):
    """The fixtures python-blosc2 and the CLI both read without an error, as
    (contiguous, sparse, excluded)."""
    # Frames only: contiguous frame files and sparse-frame directories (not the .b2z and .b2d
    # stores of blosc2-4-stores).
    candidates = sorted(str(rel(p)) for d in sorted(FIXTURES.glob("blosc2-4*")) if d.is_dir()
                        for p in d.iterdir()
                        if (p / "chunks.b2frame").is_file()
                        or (p.is_file() and p.read_bytes()[:10] == b"\x9e\xa8b2frame\x00"))
    out = subprocess.run([py, "-c", PY_PROBE, *candidates], cwd=REPO, capture_output=True, text=True,
                         check=True).stdout
    ok, excluded = [], []
    for line in out.splitlines():
        status, path, msg = line.split("\t")
        if status == "ok":
            ok.append(path)
        else:
            excluded.append({"path": path, "python_error": msg})
    # The CLI too must read each of them without an error.
    cli = subprocess.run([binary, "inspect", "--jsonl", *ok], cwd=REPO, capture_output=True, text=True)
    cli_bad = set()
    for line in cli.stdout.splitlines():
        report = json.loads(line)
        if "error" in report or any("error" in m for m in report["metalayers"] + report["vlmetalayers"]):
            cli_bad.add(report["path"])
    for path in sorted(cli_bad):
        excluded.append({"path": path, "cli_error": True})
    ok = [p for p in ok if p not in cli_bad]
    contiguous = [p for p in ok if (REPO / p).is_file()]
    sparse = [p for p in ok if (REPO / p).is_dir()]
    if not contiguous:
        sys.exit("error: python-blosc2 and the CLI read none of the contiguous fixtures")
    return contiguous, sparse, excluded


def digest(path):
    """sha256 of a file, or of a directory's files (names and contents, in name order)."""
    h = hashlib.sha256()
    p = REPO / path
    for f in ([p] if p.is_file() else sorted(x for x in p.iterdir() if x.is_file())):
        h.update(f.name.encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def frame_path(i, ext):
    return f"{i // (FILES_PER_DIR * 100):02d}/{i // FILES_PER_DIR % 100:02d}/{i:07d}{ext}"


def source_of(i, contiguous, sparse):
    if sparse and i % SPARSE_EVERY == SPARSE_AT:
        return sparse[(i // SPARSE_EVERY) % len(sparse)]
    return contiguous[i % len(contiguous)]


def ensure_tree(n, contiguous, sparse, work=WORK, name=None):
    """The tree of n frames under work/n<N> (work/<name>-n<N> when named), made unless the one
    there was made from the same sources with the same layout; returns its description (with how
    long it took to make)."""
    base = f"{name}-n{n}" if name else f"n{n}"
    label = name or f"N = {n}"
    root = work / base
    stamp_path = work / f"{base}.json"
    key = {"n": n, "layout": LAYOUT, "files_per_dir": FILES_PER_DIR, "sparse_every": SPARSE_EVERY,
           "sources": [[p, digest(p)] for p in contiguous + sparse]}
    try:
        stamp = json.loads(stamp_path.read_text())
    except (OSError, ValueError):
        stamp = None
    if stamp is not None and stamp.get("key") == key and root.is_dir():
        print(f"  {label}: reusing {rel(root)} (made in {stamp['generation_s']:.1f} s on {stamp['made']})")
        return stamp | {"reused": True}

    print(f"  {label}: making {rel(root)} ...", flush=True)
    stamp_path.unlink(missing_ok=True)
    tmp = work / f"{base}.tmp"
    for old in (tmp, root):
        if old.exists():
            shutil.rmtree(old)
    start = time.perf_counter()
    made_dirs = set()
    nbytes = files = nsparse = 0
    for i in range(n):
        src = REPO / source_of(i, contiguous, sparse)
        dest = tmp / frame_path(i, src.suffix)
        parent = dest.parent
        if parent not in made_dirs:
            parent.mkdir(parents=True, exist_ok=True)
            while parent not in made_dirs and parent != tmp.parent:
                made_dirs.add(parent)
                parent = parent.parent
        if src.is_dir():
            dest.mkdir()
            nsparse += 1
            for f in sorted(src.iterdir()):
                shutil.copyfile(f, dest / f.name)
                nbytes += f.stat().st_size
                files += 1
        else:
            shutil.copyfile(src, dest)
            nbytes += src.stat().st_size
            files += 1
    os.sync()
    tmp.rename(root)
    seconds = time.perf_counter() - start
    du = cmd("du", "-sk", str(root))
    stamp = {"key": key, "made": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
             "generation_s": round(seconds, 2), "frames": n, "sparse_frames": nsparse,
             "contiguous_frames": n - nsparse, "files": files, "directories": len(made_dirs),
             "bytes": nbytes, "disk_kib": int(du.split()[0]) if du else None}
    stamp_path.write_text(json.dumps(stamp, indent=2) + "\n")
    print(f"  {label}: made in {seconds:.1f} s ({files} files, {stamp['disk_kib']} KiB on disk)")
    return stamp | {"reused": False}


# ---------------------------------------------------------------------------------------------
# Checks (untimed)
# ---------------------------------------------------------------------------------------------


def check_outputs(n, cli_out, py_out, cli_status, cli_stderr):
    """The CLI printed n lines, each a JSON object with no error; python-blosc2 read the same
    frames and found in each the same metalayer names, vlmetalayer names, sizes, codec and
    clevel."""
    problems = []
    cli_names = {}
    lines = 0
    with open(cli_out, encoding="utf-8") as f:
        for line in f:
            lines += 1
            try:
                report = json.loads(line)
            except ValueError as e:
                problems.append(f"CLI line {lines} is not JSON: {e}")
                continue
            if "error" in report:
                problems.append(f'CLI: {report["path"]}: {report["error"]}')
                continue
            bad = [m["name"] for m in report["metalayers"] + report["vlmetalayers"] if "error" in m]
            if bad:
                problems.append(f'CLI: {report["path"]}: metalayers {bad} not decoded')
            h = report["header"]
            cli_names[report["path"]] = ([m["name"] for m in report["metalayers"]],
                                         sorted(m["name"] for m in report["vlmetalayers"]),
                                         [h["nbytes"], h["cbytes"], h["codec"], h["clevel"]])
    if lines != n:
        problems.append(f"CLI printed {lines} lines, expected {n}")
    if cli_status != 0:
        problems.append(f"CLI exit status {cli_status}")
    if cli_stderr.strip():
        problems.append(f"CLI stderr: {cli_stderr.strip()[:300]}")

    py_lines = py_same = py_errors = 0
    mismatched = []
    with open(py_out, encoding="utf-8") as f:
        for line in f:
            py_lines += 1
            report = json.loads(line)
            if "error" in report:
                py_errors += 1
                continue
            h = report["header"]
            py = (list(report["metalayers"]), sorted(report["vlmetalayers"]),
                  [h["nbytes"], h["cbytes"], h["codec"], h["clevel"]])
            if cli_names.get(report["path"]) == py:
                py_same += 1
            elif len(mismatched) < 5:
                mismatched.append(report["path"])
    if py_errors:
        problems.append(f"python-blosc2 failed on {py_errors} frames")
    if py_same != py_lines - py_errors:
        problems.append(f"metalayer and vlmetalayer names or header fields differ between the CLI "
                        f"and python-blosc2 for "
                        f"{py_lines - py_errors - py_same} frames, e.g. {mismatched}")
    return {"cli_lines": lines, "cli_lines_json_without_error": len(cli_names),
            "python_lines": py_lines, "python_errors": py_errors,
            "python_frames_with_the_cli_names_and_header": py_same, "problems": problems,
            "ok": not problems}


# ---------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True, help="the release metalayer binary")
    ap.add_argument("--py", required=True, help="python-blosc2's venv python")
    ap.add_argument("--out", required=True)
    ap.add_argument("--sizes", default="1000,100000")
    ap.add_argument("--runs", type=int, default=None,
                    help="timed runs per side (default 5 for N <= 10000, else 3)")
    ap.add_argument("--py-nfiles", type=int, default=0, help="at most this many frames for python (0: all)")
    ap.add_argument("--blosc2-version", default=None)
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.replace(",", " ").split()]
    binary, py = args.bin, args.py
    WORK.mkdir(parents=True, exist_ok=True)

    print("sources (untimed) ...")
    contiguous, sparse, excluded = probe_sources(binary, py)
    print(f"  {len(contiguous)} contiguous and {len(sparse)} sparse fixtures; {len(excluded)} excluded")

    print("trees (untimed) ...")
    trees = {n: ensure_tree(n, contiguous, sparse) for n in sizes}

    # Fixed costs: the CLI's start-up alone, python's start-up with `import blosc2` alone.
    fixed_runs = 5
    floor = summary([measure(["/bin/true"]) for _ in range(fixed_runs)])
    cli_startup = summary([measure([binary, "--version"]) for _ in range(fixed_runs)])
    py_import = summary([measure([py, "-c", "import blosc2"]) for _ in range(fixed_runs)])
    print(f"peak RSS from {TIMER + ' -f %M' if TIMER else 'wait4 (GNU time is not installed)'}; "
          f"/bin/true: {floor['median_s'] * 1e3:.1f} ms, {floor['maxrss_kib_median']} KiB; "
          f"metalayer --version: {cli_startup['median_s'] * 1e3:.1f} ms, {cli_startup['maxrss_kib_median']} KiB; "
          f"python -c 'import blosc2': {py_import['median_s'] * 1e3:.1f} ms, {py_import['maxrss_kib_median']} KiB")

    results = []
    for n in sizes:
        root = rel(WORK / f"n{n}")
        runs = args.runs or (5 if n <= 10000 else 3)
        py_n = min(n, args.py_nfiles) if args.py_nfiles else n
        cli_argv = [binary, "inspect", "--jsonl", root]
        py_argv = [py, "-c", PY_LOOP, root, str(py_n if py_n < n else 0)]

        # One untimed run of each, kept for the checks (and a warm-up: every run reads a warm
        # page cache).
        print(f"N = {n}: checking the outputs (untimed) ...", flush=True)
        cli_out, py_out = WORK / f"cli-n{n}.jsonl", WORK / f"py-n{n}.jsonl"
        with open(cli_out, "wb") as f:
            _, _, cli_status, _ = measure(cli_argv, stdout=f, stderr_path=WORK / "cli.stderr")
        with open(py_out, "wb") as f:
            measure(py_argv, stdout=f, stderr_path=WORK / "py.stderr")
        check = check_outputs(n, cli_out, py_out, cli_status, (WORK / "cli.stderr").read_text())
        check["python_stderr"] = (WORK / "py.stderr").read_text().strip()[-300:]
        for p in check["problems"]:
            print(f"  problem: {p}")
        cli_out.unlink()
        py_out.unlink()

        print(f"N = {n}: {runs} timed runs each (interleaved):", flush=True)
        cli_runs, py_runs = [], []
        for r in range(1, runs + 1):
            # The page cache can lose part of the tree during a long python run: an untimed run
            # of the CLI first reads it back, for both sides.
            measure(cli_argv)
            cli_runs.append(measure(cli_argv))
            py_runs.append(measure(py_argv))
            c, p = cli_runs[-1], py_runs[-1]
            print(f"  run {r}: CLI {c[0] * 1e3:9.1f} ms (CPU {c[3] * 1e3:8.1f} ms) {c[1]!s:>7} KiB (status {c[2]})   "
                  f"python {p[0] * 1e3:9.1f} ms (CPU {p[3] * 1e3:9.1f} ms) {p[1]!s:>7} KiB (status {p[2]})",
                  flush=True)
        cli, pyside = summary(cli_runs), summary(py_runs)
        cli_per = cli["median_s"] / n
        py_per = pyside["median_s"] / py_n
        tree = {k: v for k, v in trees[n].items() if k != "key"}
        results.append({
            "n": n, "root": root, "tree": tree, "runs": runs, "check": check,
            "cli": cli | {"command": f"{rel(binary)} inspect --jsonl {root} > /dev/null", "frames": n,
                          "per_file_us": round(cli_per * 1e6, 3),
                          "cpu_per_file_us": round(cli["cpu_median_s"] / n * 1e6, 3)},
            "python": pyside | {"command": f"{rel(py)} -c <loop> {root} > /dev/null", "frames": py_n,
                                "per_file_us": round(py_per * 1e6, 3),
                                "cpu_per_file_us": round(pyside["cpu_median_s"] / py_n * 1e6, 3)},
            "ratio_python_over_cli_per_file": round(py_per / cli_per, 2),
        })
        print(f"  CLI {cli['median_s'] * 1e3:.1f} ms ({cli_per * 1e6:.2f} µs/file, {cli['maxrss_kib_median']} KiB); "
              f"python {pyside['median_s'] * 1e3:.1f} ms for {py_n} ({py_per * 1e6:.2f} µs/file, "
              f"{pyside['maxrss_kib_median']} KiB); python / CLI per file = {py_per / cli_per:.1f}x")

    goal_ratio, goal_rss = 20, 1.1
    by_n = {r["n"]: r for r in results}
    growth = None
    lo, hi = min(by_n), max(by_n)
    a, b = by_n[lo]["cli"]["maxrss_kib_median"], by_n[hi]["cli"]["maxrss_kib_median"]
    if lo != hi and a and b:
        growth = {"n_low": lo, "n_high": hi, "maxrss_kib_low": a, "maxrss_kib_high": b,
                  "ratio": round(b / a, 3), "difference_kib": b - a, "goal_ratio_max": goal_rss,
                  "goal_met": b / a <= goal_rss}
    result = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine(python=cmd(py, "--version"), blosc2=args.blosc2_version,
                           loadavg_at_end=list(os.getloadavg())),
        "method": ("whole processes from the repository's root, stdout to /dev/null, warm page cache (one "
                   "untimed run of each side first, whose output is checked); CLI and python runs "
                   "interleaved, each CLI run after an untimed one that reads the tree back into the page cache; "
                   "wall time from fork to wait4 (under GNU time when it is installed, which adds its own "
                   "start-up: see `floor`), CPU time (user + system) from wait4; medians of the runs"),
        "rss_source": (f"GNU time: {TIMER} -f %M" if TIMER else
                       "ru_maxrss from wait4 (GNU time is not installed): never below the spawning "
                       "python process's RSS, see `floor`"),
        "floor": floor | {"command": "/bin/true",
                          "what": "the same measurement of /bin/true: the least either side can show"},
        "layout": {"files_per_dir": FILES_PER_DIR, "dirs_per_top_dir": 100, "sparse_every": SPARSE_EVERY,
                   "path": "{i // 10000:02d}/{i // 100 % 100:02d}/{i:07d}<ext of the source>"},
        "sources": {"contiguous": contiguous, "sparse": sparse, "excluded": excluded},
        "python_loop": PY_LOOP,
        "cli_startup_only": cli_startup | {"command": f"{rel(binary)} --version"},
        "python_import_only": py_import | {"command": f"{rel(py)} -c 'import blosc2'"},
        "sizes": results,
        "goal_ratio_min": goal_ratio,
        "goal_ratio_met": all(r["ratio_python_over_cli_per_file"] >= goal_ratio for r in results),
        "cli_rss_growth": growth,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    if growth:
        print(f"CLI peak RSS: {growth['maxrss_kib_low']} KiB at {growth['n_low']}, {growth['maxrss_kib_high']} KiB "
              f"at {growth['n_high']}: {growth['ratio']:.3f}x, {growth['difference_kib']:+d} KiB "
              f"(goal <= {goal_rss}x: {'met' if growth['goal_met'] else 'NOT met'})")
    print(f"results: {args.out}")
    if not all(r["check"]["ok"] for r in results):
        sys.exit("error: the outputs did not pass the checks (see `check` in the results)")


if __name__ == "__main__":
    main()
