#!/usr/bin/env bash
# `metalayer set` over 1,000 .b2nd files against python-blosc2 making the same edits, both timed
# as whole processes (start-up and `import blosc2` included): one CLI process for all the files
# against one python process looping over them.
#
# The edits, on every file: the vlmetalayer "calibration" set to {"gain": 1.5, "run": 12} and
# "units" to "K" (both added: the files have none). python-blosc2 opens each file (mode "a") and
# sets `schunk.vlmeta[k] = v` twice; c-blosc2 rewrites the trailer in place each time, without
# syncing. `metalayer set` writes each file once, beside the original, syncs it, renames it over
# the original and syncs the directory; a third side, python followed by an fsync of each file,
# shows what the sync costs python.
#
# The files are the contiguous python-blosc2 4.x fixtures (tests/fixtures/files/blosc2-4) that
# python-blosc2 opens for writing, copied round-robin to target/set-bench/<side>/0000.b2nd ..
# 0999, afresh before every run (untimed). After the runs, python-blosc2 reads the CLI's files
# back and the CLI's result is checked against python's: the same vlmetalayers in every file.
#
# Usage: bench/scripts/set_vs_python.sh [OUT.json]
#   OUT.json  where to write the results (default target/bench-results/set.json)
# Environment:
#   RUNS      timed runs per side (default 5; the median is reported)
#   NFILES    number of files (default 1000)
#   PYTHON    the python used to create the virtual environment (default python3)
#   METALAYER_BIN  the `metalayer` to time (default: this checkout's, built --release), to
#             compare a change with what came before it
set -euo pipefail
caller=$(pwd)
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
repo=$(pwd)

out="${1:-$repo/target/bench-results/set.json}"
[[ -z "${1:-}" || "$out" == /* ]] || out="$caller/$out"
runs="${RUNS:-5}"
nfiles="${NFILES:-1000}"
base_python="${PYTHON:-python3}"
work="$repo/target/set-bench"
bin="${METALAYER_BIN:-${CARGO_TARGET_DIR:-$repo/target}/release/metalayer}"
log="$work/measurements.jsonl"

mkdir -p "$work" "$(dirname "$out")"
: > "$log"

echo "building the CLI (untimed) ..."
cargo build -q --release -p metalayer-cli

# shellcheck source=blosc2_venv.sh
source "$repo/bench/scripts/blosc2_venv.sh"
blosc2_venv "$repo" "$base_python"

# The 4.x fixtures python-blosc2 can edit.
mapfile -t candidates < <(find tests/fixtures/files/blosc2-4 -maxdepth 1 -type f -name '*.b2nd' | sort)
mapfile -t sources < <("$py" - "$work/probe" "${candidates[@]}" <<'PY'
import shutil, sys, blosc2
probe = sys.argv[1]
for p in sys.argv[2:]:
    try:
        shutil.copyfile(p, probe)
        a = blosc2.open(probe, mode="a")
        a.schunk.vlmeta["probe"] = 1
        print(p)
    except Exception:
        pass
PY
)
(( ${#sources[@]} > 0 )) || { echo "error: python-blosc2 edits none of the fixtures" >&2; exit 1; }

copy_files() { # copy_files DIR: the NFILES copies, afresh
  rm -rf "$1"
  mkdir -p "$1"
  python3 - "$1" "$nfiles" "${sources[@]}" <<'PY'
import shutil, sys
from pathlib import Path
dest, n, sources = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
for i in range(n):
    shutil.copyfile(sources[i % len(sources)], dest / f"{i:04d}.b2nd")
PY
}

edit_py='import os, sys, blosc2
fsync = sys.argv[1] == "fsync"
for p in sys.argv[2:]:
    a = blosc2.open(p, mode="a")  # kept: the vlmeta of a freed array cannot be set
    a.schunk.vlmeta["calibration"] = {"gain": 1.5, "run": 12}
    a.schunk.vlmeta["units"] = "K"
    del a
    if fsync:
        fd = os.open(p, os.O_RDONLY)
        os.fsync(fd)
        os.close(fd)'

now_ns() { date +%s%N; }

time_side() { # time_side SIDE RUN
  local dir="$work/$1" start end status=0
  copy_files "$dir"
  mapfile -t files < <(find "$dir" -type f -name '*.b2nd' | sort)
  sync
  start=$(now_ns)
  # The builtin `time` gives the CPU time (user and system) the side took, which the disk's
  # other writers do not change, beside the wall-clock time, which they do (fsync waits).
  local TIMEFORMAT='%U %S'
  { time case "$1" in
    cli) "$bin" set --vlmeta 'calibration={"gain":1.5,"run":12}' --vlmeta 'units="K"' "${files[@]}" > /dev/null || status=$? ;;
    python) "$py" -c "$edit_py" nosync "${files[@]}" || status=$? ;;
    python-fsync) "$py" -c "$edit_py" fsync "${files[@]}" || status=$? ;;
  esac ; } 2> "$work/cpu.txt"
  end=$(now_ns)
  python3 - "$log" "$1" "$2" "$start" "$end" "$status" "$(tail -1 "$work/cpu.txt")" <<'PY'
import json, sys
log, side, run, start, end, status, cpu = sys.argv[1:]
user, system = (float(x) for x in cpu.split())
with open(log, "a") as f:
    f.write(json.dumps({"side": side, "run": int(run), "seconds": (int(end) - int(start)) / 1e9,
                        "cpu_seconds": user + system, "exit_status": int(status)}) + "\n")
PY
  awk -v s="$1" -v r="$2" -v a="$start" -v b="$end" -v st="$status" \
    'BEGIN{printf "  %-13s run %s: %8.1f ms  (exit status %s)\n", s, r, (b - a) / 1e6, st}'
}

echo "timing ${nfiles} files, $runs runs each (interleaved):"
for ((i = 1; i <= runs; i++)); do
  time_side cli "$i"
  time_side python "$i"
  time_side python-fsync "$i"
done

# The same vlmetalayers in every file, as python-blosc2 reads them back.
"$py" - "$work/cli" "$work/python" <<'PY'
import sys, blosc2
from pathlib import Path
cli, python = (sorted(Path(d).glob("*.b2nd")) for d in sys.argv[1:3])
assert len(cli) == len(python) > 0
for a, b in zip(cli, python):
    fa, fb = blosc2.open(str(a), mode="r"), blosc2.open(str(b), mode="r")
    va, vb = fa.schunk.vlmeta, fb.schunk.vlmeta
    assert list(va.keys()) == list(vb.keys()) == ["calibration", "units"], (a, list(va.keys()))
    assert va["calibration"] == vb["calibration"] and va["units"] == vb["units"] == "K"
print(f"checked: python-blosc2 reads the same vlmetalayers in all {len(cli)} files the CLI edited")
PY

python3 - "$log" "$out" "$nfiles" "$blosc2_version" "${#sources[@]}" <<'PY'
import json, statistics, sys
log, out, n, version, nsources = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
rows = [json.loads(l) for l in open(log)]
sides, cpus = {}, {}
for r in rows:
    sides.setdefault(r["side"], []).append(r["seconds"])
    cpus.setdefault(r["side"], []).append(r["cpu_seconds"])
result = {"files": n, "fixtures": int(nsources), "python_blosc2": version, "sides": {}}
print(f"\n{n} files cycling {nsources} python-blosc2 {version} fixtures; whole processes\n")
print("| side | median | edits per second | fastest run | CPU time (median) | all runs |")
print("|---|---|---|---|---|---|")
for side, secs in sides.items():
    med, best, cpu = statistics.median(secs), min(secs), statistics.median(cpus[side])
    result["sides"][side] = {"median_seconds": med, "runs": secs, "files_per_second": n / med,
                             "fastest_seconds": best, "cpu_seconds": cpus[side]}
    runs = ", ".join(f"{s * 1e3:,.0f}" for s in secs)
    print(f"| {side} | {med * 1e3:,.0f} ms | {n / med:,.0f} | {best * 1e3:,.0f} ms ({n / best:,.0f}/s) "
          f"| {cpu * 1e3:,.0f} ms | {runs} ms |")
ratio = lambda key, f: f(result["sides"]["python"][key]) / f(result["sides"]["cli"][key])
fsync = lambda key, f: f(result["sides"]["python-fsync"][key]) / f(result["sides"]["cli"][key])
med, best, cpu = (lambda v: v), min, statistics.median
print(f"\npython / CLI: median {ratio('median_seconds', med):.2f}x, fastest {ratio('runs', best):.2f}x, "
      f"CPU {ratio('cpu_seconds', cpu):.2f}x")
print(f"python with fsync / CLI: median {fsync('median_seconds', med):.2f}x, fastest {fsync('runs', best):.2f}x, "
      f"CPU {fsync('cpu_seconds', cpu):.2f}x")
json.dump(result, open(out, "w"), indent=1)
PY
