#!/usr/bin/env bash
# `metalayer inspect --json` over 1,000 .b2nd files against python-blosc2 reading `meta["b2nd"]`
# from the same files, both timed as whole processes (start-up and, for python, `import blosc2`
# included): one CLI process for all the files against one python process looping over them.
# The goal is python / CLI >= 20. python's start-up with `import blosc2` alone is timed too: the
# fixed part of the python side.
#
# The files are the contiguous python-blosc2 4.x fixtures (tests/fixtures/files/blosc2-4) that
# python-blosc2 itself can read, copied round-robin to target/cli-bench/files/0000.b2nd .. 0999.
# python-blosc2 runs in target/bench-venvs/blosc2, made with the pins tests/fixtures/generate.py
# uses for those fixtures (and reused when the pins match).
#
# It also counts the bytes each side reads from the files: exactly, with strace when it is
# installed (the bytes returned by read calls on the bench files), and always from the
# process's I/O counter (rchar in /proc/<pid>/io, which also counts the start-up's reads of
# shared libraries; the start-up's share is measured with `metalayer --version`). The fixtures
# are small, so their headers are most of each file; 20 files of 1 MiB of random float64 each
# (about 0.9 MB compressed), written with python-blosc2 to target/cli-bench/large/ and kept, show
# the header-only reads more plainly.
#
# Usage: bench/scripts/cli_vs_python.sh [OUT.json]
#   OUT.json  where to write the results (default target/bench-results/cli.json)
# Environment:
#   RUNS      timed runs per side (default 5; the median is reported)
#   NFILES    number of files (default 1000)
#   PYTHON    the python used to create the virtual environment (default python3; 3.11 is
#             what the fixture pins were chosen for)
set -euo pipefail
caller=$(pwd)
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
repo=$(pwd)

# A relative OUT.json is relative to the directory the script was started from.
out="${1:-$repo/target/bench-results/cli.json}"
[[ -z "${1:-}" || "$out" == /* ]] || out="$caller/$out"
runs="${RUNS:-5}"
nfiles="${NFILES:-1000}"
base_python="${PYTHON:-python3}"
work="$repo/target/cli-bench"
bin="${CARGO_TARGET_DIR:-$repo/target}/release/metalayer"
log="$work/measurements.jsonl"

mkdir -p "$work" "$(dirname "$out")"
: > "$log"
rm -f "$work"/strace-*

now_ns() { date +%s%N; }

# ---------------------------------------------------------------------------------------------
# The CLI and python-blosc2
# ---------------------------------------------------------------------------------------------

echo "building the CLI (untimed) ..."
cargo build -q --release -p metalayer-cli

# shellcheck source=blosc2_venv.sh
source "$repo/bench/scripts/blosc2_venv.sh"
blosc2_venv "$repo" "$base_python"

# ---------------------------------------------------------------------------------------------
# The files
# ---------------------------------------------------------------------------------------------

# Which contiguous 4.x fixtures python-blosc2 reads with the timed call (a reference to the
# array is kept: a temporary one is freed before its meta lookup).
mapfile -t candidates < <(find tests/fixtures/files/blosc2-4 -maxdepth 1 -type f -name '*.b2nd' | sort)
"$py" - "${candidates[@]}" > "$work/probe.tsv" <<'PY'
import sys, blosc2
for p in sys.argv[1:]:
    try:
        a = blosc2.open(p)
        a.schunk.meta["b2nd"]
        print(f"ok\t{p}\t")
    except Exception as e:
        msg = f"{type(e).__name__}: {e}".replace("\n", " ").replace("\t", " ")
        print(f"fail\t{p}\t{msg}")
PY
mapfile -t sources < <(awk -F'\t' '$1 == "ok" {print $2}' "$work/probe.tsv")
if (( ${#sources[@]} == 0 )); then
  echo "error: python-blosc2 reads none of the fixtures" >&2
  exit 1
fi

rm -rf "$work/files"
mkdir -p "$work/files"
python3 - "$work/files" "$nfiles" "${sources[@]}" <<'PY'
import shutil, sys
from pathlib import Path
dest, n, sources = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
for i in range(n):
    shutil.copyfile(sources[i % len(sources)], dest / f"{i:04d}.b2nd")
PY
# Relative paths keep the command lines short (about 30 bytes a file).
mapfile -t paths < <(cd "$repo" && find target/cli-bench/files -type f -name '*.b2nd' | sort)

# Large files: 1 MiB of random float64 each, written once and kept.
nlarge=20
mkdir -p "$work/large"
"$py" - "$work/large" "$nlarge" <<'PY'
import sys
from pathlib import Path
import blosc2, numpy as np
dest, n = Path(sys.argv[1]), int(sys.argv[2])
for i in range(n):
    p = dest / f"{i:02d}.b2nd"
    if p.exists() and p.stat().st_size > 1 << 19:  # about 0.9 MB compressed
        continue
    data = np.random.default_rng(i).random(1 << 17)  # 1 MiB, incompressible
    blosc2.asarray(data, urlpath=str(p), mode="w", contiguous=True)
PY
mapfile -t large < <(cd "$repo" && find target/cli-bench/large -type f -name '*.b2nd' | sort)

# ---------------------------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------------------------

loop='import sys, blosc2
n = 0
for p in sys.argv[1:]:
    try:
        a = blosc2.open(p)
        a.schunk.meta["b2nd"]
        n += 1
    except Exception:
        pass
print(n)'

run_cli() { "$bin" inspect --json "$@"; }
run_py() { "$py" -c "$loop" "$@"; }

time_side() { # time_side NAME RUN: one timed process over all the files
  local start end status=0
  start=$(now_ns)
  case "$1" in
    cli) run_cli "${paths[@]}" > /dev/null 2> "$work/cli.stderr" || status=$? ;;
    python) run_py "${paths[@]}" > "$work/py.stdout" 2> "$work/py.stderr" || status=$? ;;
    # python's start-up and `import blosc2` alone: the part of the loop's time that is fixed.
    python-import) "$py" -c 'import blosc2' > /dev/null 2>&1 || status=$? ;;
  esac
  end=$(now_ns)
  python3 - "$log" "$1" "$2" "$start" "$end" "$status" <<'PY'
import json, sys
log, side, run, start, end, status = sys.argv[1:]
with open(log, "a") as f:
    f.write(json.dumps({"side": side, "run": int(run), "seconds": (int(end) - int(start)) / 1e9,
                        "exit_status": int(status)}) + "\n")
PY
  awk -v s="$1" -v r="$2" -v a="$start" -v b="$end" -v st="$status" \
    'BEGIN{printf "  %-13s run %s: %8.1f ms  (exit status %s)\n", s, r, (b - a) / 1e6, st}'
}

# What each side read successfully (untimed).
run_cli "${paths[@]}" > "$work/cli.json" 2> "$work/cli.stderr" || true
run_py "${paths[@]}" > "$work/py.stdout" 2> "$work/py.stderr" || true

echo "timing ${#paths[@]} files, $runs runs each after one warm-up (interleaved):"
run_cli "${paths[@]}" > /dev/null 2>&1 || true
run_py "${paths[@]}" > /dev/null 2>&1 || true
for ((i = 1; i <= runs; i++)); do
  time_side cli "$i"
  time_side python "$i"
  time_side python-import "$i"
done

# ---------------------------------------------------------------------------------------------
# Bytes read
# ---------------------------------------------------------------------------------------------

have_strace=false
command -v strace > /dev/null && have_strace=true

trace() { # trace NAME COMMAND...: an strace log of the command's file reads
  local name=$1
  shift
  if $have_strace; then
    if ! strace -f -qq -s 0 -e trace=open,openat,read,pread64,readv,preadv,mmap,close \
      -o "$work/strace-$name.txt" "$@" > /dev/null 2> "$work/strace-$name.stderr"; then
      # A failing read of some file is reported elsewhere; a failing strace leaves no trace.
      [[ -s "$work/strace-$name.txt" ]] || { cat "$work/strace-$name.stderr" >&2; rm -f "$work/strace-$name.txt"; }
    fi
  fi
}
if $have_strace; then
  trace cli-files "$bin" inspect --json "${paths[@]}"
  trace py-files "$py" -c "$loop" "${paths[@]}"
  trace cli-large "$bin" inspect --json "${large[@]}"
  trace py-large "$py" -c "$loop" "${large[@]}"
fi

# ---------------------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------------------

PYTHONPATH="$repo/bench" python3 - "$log" "$out" "$work" "$bin" "$py" "$have_strace" "$runs" "$blosc2_version" "$loop" \
  "${#paths[@]}" "${paths[@]}" "${large[@]}" <<'PY'
import datetime, json, os, re, statistics, struct, subprocess, sys
from pathlib import Path

from machine import cmd, machine

log, out, work, binary, py, have_strace, runs, blosc2_version, loop, n = sys.argv[1:11]
n = int(n)
paths, large = sys.argv[11:11 + n], sys.argv[11 + n:]
work = Path(work)
have_strace = have_strace == "true"
recs = [json.loads(line) for line in open(log)]


def median_of(side):
    secs = [r["seconds"] for r in recs if r["side"] == side]
    return {"median_ms": round(statistics.median(secs) * 1e3, 2),
            "runs_ms": [round(s * 1e3, 2) for s in secs],
            "exit_status": sorted({r["exit_status"] for r in recs if r["side"] == side})}


def header_len(p):
    with open(p, "rb") as f:
        head = f.read(15)
    return struct.unpack(">i", head[11:15])[0]


def file_stats(ps):
    return {"files": len(ps), "total_bytes": sum(os.path.getsize(p) for p in ps),
            "total_header_bytes": sum(header_len(p) for p in ps)}


def strace_bytes(name, dirname):
    """Bytes returned by read calls on files under target/cli-bench/<dirname>/ (and any mmap).

    Descriptors are matched by number alone: the threads of a process share them, and neither
    side forks while it reads the files."""
    path = work / f"strace-{name}.txt"
    if not path.exists():
        return None
    prefix = str(work / dirname)
    fds, pending = {}, {}
    got = {"read_bytes": 0, "read_calls": 0, "files_opened": 0, "mmap_bytes": 0}
    for line in path.read_text().splitlines():
        m = re.match(r"(\d+)\s+(.*)$", line)
        pid, rest = (m.group(1), m.group(2)) if m else ("0", line)
        if rest.endswith("<unfinished ...>"):
            pending[pid] = rest[: -len("<unfinished ...>")]
            continue
        r = re.match(r"<\.\.\. \w+ resumed>(.*)$", rest)
        if r:
            rest = pending.pop(pid, "") + r.group(1)
        c = re.match(r"(\w+)\((.*)$", rest)
        if not c or " = " not in rest:
            continue
        call, args = c.group(1), c.group(2)
        ret = rest.rsplit(" = ", 1)[1].split()[0]
        try:
            ret = int(ret, 0)
        except ValueError:
            continue
        if call in ("open", "openat") and ret >= 0:
            q = re.search(r'"((?:[^"\\]|\\.)*)"', args)
            target = q.group(1) if q else ""
            full = os.path.normpath(os.path.join(os.getcwd(), target))
            if full.startswith(prefix + os.sep):
                fds[ret] = full
                got["files_opened"] += 1
            else:
                fds.pop(ret, None)
        elif call == "close":
            fd = args.split(")")[0].strip()
            if fd.isdigit():
                fds.pop(int(fd), None)
        elif call in ("read", "pread64", "readv", "preadv") and ret > 0:
            fd = args.split(",")[0].strip()
            if fd.isdigit() and int(fd) in fds:
                got["read_bytes"] += ret
                got["read_calls"] += 1
        elif call == "mmap":
            parts = [a.strip() for a in args.split(",")]
            if len(parts) >= 5 and parts[4].lstrip("-").isdigit() and int(parts[4]) in fds:
                got["mmap_bytes"] += int(parts[1], 0)
    return got


def rchar_of(cmd):
    """rchar of a child process: the growth of this process's counter across waiting for it."""
    def rchar():
        for line in open("/proc/self/io"):
            if line.startswith("rchar:"):
                return int(line.split()[1])
        return 0
    try:
        before = rchar()
    except OSError:
        return None
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return rchar() - before


def cli_ok(report):
    ok = 0
    for entry in report:
        metas = entry.get("metalayers", [])
        if "error" not in entry and metas and all("error" not in m for m in metas) \
                and any(m["name"] == "b2nd" and "schema" in m for m in metas):
            ok += 1
    return ok


try:
    cli_read = cli_ok(json.loads((work / "cli.json").read_text()))
except (OSError, ValueError):
    cli_read = 0
try:
    py_read = int((work / "py.stdout").read_text().split()[-1])
except (OSError, ValueError, IndexError):
    py_read = 0

probe = [line.split("\t") for line in (work / "probe.tsv").read_text().splitlines()]
cli_side, py_side, import_side = median_of("cli"), median_of("python"), median_of("python-import")
ratio = py_side["median_ms"] / cli_side["median_ms"]

startup = rchar_of([binary, "--version"])
reads = {}
for label, ps in (("fixtures", paths), ("large", large)):
    cli_rchar = rchar_of([binary, "inspect", "--json", *ps])
    reads[label] = file_stats(ps) | {
        "cli_rchar": cli_rchar,
        "cli_rchar_minus_startup": None if cli_rchar is None or startup is None else cli_rchar - startup,
        "cli_strace": strace_bytes(f"cli-{'files' if label == 'fixtures' else 'large'}",
                                   "files" if label == "fixtures" else "large"),
        "python_strace": strace_bytes(f"py-{'files' if label == 'fixtures' else 'large'}",
                                      "files" if label == "fixtures" else "large"),
    }
reads["cli_startup_rchar"] = startup
reads["method"] = ("strace: bytes returned by read/pread64/readv/preadv on descriptors opened on "
                   "the bench files; rchar: /proc/self/io of a parent across waiting for the "
                   "child, which includes the child's start-up reads (shared libraries)")
if not have_strace:
    reads["note"] = "strace is not installed: only rchar was measured"




result = {
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "machine": machine(python=cmd(py, "--version"), blosc2=blosc2_version,
                       loadavg_at_end=list(os.getloadavg())),
    "files": {"count": len(paths), "dir": "target/cli-bench/files",
              "sources": [p for ok, p, _ in probe if ok == "ok"],
              "excluded": [{"path": p, "python_error": e} for ok, p, e in probe if ok != "ok"]},
    "runs": int(runs),
    "cli": cli_side | {"command": f"{os.path.relpath(binary)} inspect --json <{len(paths)} files> > /dev/null",
                       "files_read": cli_read},
    "python": py_side | {"command": f"{os.path.relpath(py)} -c <loop> <{len(paths)} files>",
                         "loop": loop, "files_read": py_read},
    "python_import_only": import_side | {"command": f"{os.path.relpath(py)} -c 'import blosc2'"},
    "ratio_python_over_cli": round(ratio, 1),
    "goal_ratio_min": 20,
    "goal_met": ratio >= 20,
    "bytes_read": reads,
}
Path(out).write_text(json.dumps(result, indent=2) + "\n")

print()
print(f'{result["machine"]["rustc"]}, {result["machine"]["python"]}, python-blosc2 {blosc2_version}, '
      f'{result["machine"]["nproc"]} CPUs ({result["machine"]["cpu_model"]})')
print(f"{len(paths)} files, cycling {len(result['files']['sources'])} fixtures "
      f"({len(result['files']['excluded'])} excluded: python-blosc2 cannot read them)")
print(f'  metalayer inspect --json  {cli_side["median_ms"]:8.1f} ms  (median of {runs}; {cli_read} files read)')
print(f'  python-blosc2 loop        {py_side["median_ms"]:8.1f} ms  (median of {runs}; {py_read} files read)')
print(f'  (python start-up and `import blosc2` alone: {import_side["median_ms"]:.1f} ms)')
print(f'  python / CLI = {ratio:.1f}x  (goal >= 20x: {"met" if ratio >= 20 else "NOT met"})')
for label in ("fixtures", "large"):
    r = reads[label]
    print(f"bytes read, {label} ({r['files']} files, {r['total_bytes']} bytes, "
          f"headers {r['total_header_bytes']} bytes):")
    if r["cli_strace"]:
        s = r["cli_strace"]
        print(f"  CLI (strace):    {s['read_bytes']} bytes in {s['read_calls']} reads, "
              f"{s['files_opened']} files opened")
    if r["python_strace"]:
        s = r["python_strace"]
        print(f"  python (strace): {s['read_bytes']} bytes in {s['read_calls']} reads"
              + (f", {s['mmap_bytes']} bytes mapped" if s["mmap_bytes"] else ""))
    if r["cli_rchar"] is not None:
        print(f"  CLI (rchar):     {r['cli_rchar']} bytes, {r['cli_rchar_minus_startup']} "
              f"beyond the {startup} bytes of `metalayer --version`")
print(f"results: {out}")
PY
