#!/usr/bin/env bash
# Every benchmark of the project, then one report of all the figures.
#
#  a. criterion: `cargo bench -p metalayer-bench --bench compare` (target/criterion/).
#  b. instructions per call, with valgrind's callgrind (skipped, with a note, when valgrind is
#     not installed): bench/examples/profile.rs runs each of its codes for ndim 2, 8 and 15,
#     once with CALLS_LO and once with CALLS_HI calls; (Ir(CALLS_HI) - Ir(CALLS_LO)) /
#     (CALLS_HI - CALLS_LO) is the count per call without the start-up and the setup.
#     -> target/bench-results/instructions.json
#  c. heap allocations per call: `cargo test --release -p metalayer-bench --test allocs`.
#     -> target/bench-results/allocs.json and allocs.txt
#  d. compile time of the attribute: bench/scripts/compile_time.sh
#     -> target/bench-results/compile_time.json
#  e. the CLI against python-blosc2 over 1000 files: bench/scripts/cli_vs_python.sh
#     -> target/bench-results/cli.json
#  f. `metalayer inspect --jsonl` over trees of 1,000 and 100,000 frames against python-blosc2,
#     time per file and peak RSS: bench/scripts/cli_tree.sh (the 100,000-frame tree, about
#     420 MB under target/cli-tree/, is made once; python-blosc2 takes minutes over it)
#     -> target/bench-results/cli_tree.json
#  g. the report of whatever results exist: bench/report.py
#     -> target/bench-results/report.md, also printed
#
# Usage: bench/run.sh          (from any directory)
# Environment:
#   SKIP_CRITERION=1, SKIP_CALLGRIND=1, SKIP_ALLOCS=1, SKIP_COMPILE=1, SKIP_CLI=1, SKIP_CLI_TREE=1
#               skip a part; the report then uses that part's earlier results, if any
#   SKIP_REPORT=1   no report
#   CALLS_LO, CALLS_HI   calls per callgrind run (default 20000 and 40000)
#   RUNS        passed on to the three scripts (their defaults: 5 compile runs, 5 CLI runs, and for
#               the trees 5 runs at 1,000 frames and 3 at 100,000)
#   SIZES, PY_NFILES   passed on to bench/scripts/cli_tree.sh (tree sizes; a cap on python's frames)
#
# When each part ran, how long it took and the load average before and after it are kept in
# target/bench-results/parts.json, which the report shows. A failing part stops the run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$(pwd)
results="$repo/target/bench-results"
calls_lo="${CALLS_LO:-20000}"
calls_hi="${CALLS_HI:-40000}"
ndims=(2 8 15)
if ! [[ "$calls_lo" =~ ^[0-9]+$ && "$calls_hi" =~ ^[0-9]+$ ]] || ((calls_hi <= calls_lo)); then
  echo "error: CALLS_LO and CALLS_HI must be numbers with CALLS_LO < CALLS_HI" >&2
  exit 1
fi

# cargo's target directory (CARGO_TARGET_DIR or a config file may move it).
target_dir=$(cargo metadata --format-version 1 --no-deps --offline 2> /dev/null |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])' 2> /dev/null ||
  echo "$repo/target")

mkdir -p "$results"

skipped() { # skipped VAR: whether SKIP_<VAR> asks to skip a part
  local v="SKIP_$1"
  [[ -n "${!v:-}" && "${!v}" != 0 ]]
}

load() { cut -d' ' -f1-3 /proc/loadavg 2> /dev/null || echo "? ? ?"; }

# record_part NAME START-EPOCH LOAD-BEFORE NOTE: adds the part to parts.json.
record_part() {
  python3 - "$results/parts.json" "$1" "$2" "$3" "$(load)" "$4" <<'PY'
import datetime, json, sys, time
path, name, start, before, after, note = sys.argv[1:]
try:
    with open(path) as f:
        parts = json.load(f)
except (OSError, ValueError):
    parts = {}
start = int(start)
def floats(s):
    try:
        return [float(x) for x in s.split()]
    except ValueError:
        return None
parts[name] = {
    "started": datetime.datetime.fromtimestamp(start, datetime.timezone.utc).isoformat(timespec="seconds"),
    "seconds": round(time.time() - start),
    "loadavg_before": floats(before),
    "loadavg_after": floats(after),
}
if note:
    parts[name]["note"] = note
with open(path, "w") as f:
    json.dump(parts, f, indent=2)
    f.write("\n")
PY
}

# part NAME SKIP-VAR FUNCTION: runs a part unless it is skipped, and records it.
part() {
  if skipped "$2"; then
    echo "==> $1: skipped (SKIP_$2)"
    return
  fi
  echo "==> $1 (load average $(load))"
  local start before
  start=$(date +%s)
  before=$(load)
  part_note=""
  "$3"
  record_part "$1" "$start" "$before" "$part_note"
}

# ---------------------------------------------------------------------------------------------

run_criterion() {
  cargo bench -p metalayer-bench --bench compare
}

run_callgrind() {
  if ! command -v valgrind > /dev/null; then
    echo "valgrind is not installed: no instruction counts (an earlier instructions.json is kept)"
    part_note="skipped: valgrind is not installed"
    return
  fi
  cargo build --release -p metalayer-bench --example profile
  local bin="$target_dir/release/examples/profile" work="$repo/target/callgrind-bench"
  rm -rf "$work"
  mkdir -p "$work"
  "$bin" --list > "$work/codes.tsv"
  local code what ndim calls out n=0
  local total=$(($(wc -l < "$work/codes.tsv") * ${#ndims[@]}))
  : > "$work/runs.tsv"
  while IFS=$'\t' read -r code what; do
    for ndim in "${ndims[@]}"; do
      n=$((n + 1))
      printf '  [%2d/%d] %-16s ndim %2s:' "$n" "$total" "$code" "$ndim"
      for calls in "$calls_lo" "$calls_hi"; do
        out="$work/callgrind.$code.$ndim.$calls.out"
        if ! valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" "$code" "$ndim" "$calls" \
          < /dev/null > /dev/null 2> "$work/valgrind.$code.$ndim.$calls.log"; then
          echo
          cat "$work/valgrind.$code.$ndim.$calls.log" >&2
          echo "error: callgrind failed on $code $ndim $calls" >&2
          return 1
        fi
        printf '%s\t%s\t%s\t%s\n' "$code" "$ndim" "$calls" "$out" >> "$work/runs.tsv"
        printf ' %s' "$(awk '/^(summary|totals):/ {print $2; exit}' "$out")"
      done
      echo
    done
  done < "$work/codes.tsv"
  PYTHONPATH="$repo/bench" python3 - "$work/codes.tsv" "$work/runs.tsv" "$results/instructions.json" "$calls_lo" "$calls_hi" \
    "$(valgrind --version)" <<'PY'
import datetime, json, sys

from machine import machine

codes_tsv, runs_tsv, out, lo, hi, valgrind = sys.argv[1:]
lo, hi = int(lo), int(hi)
codes = [line.split("\t", 1) for line in open(codes_tsv).read().splitlines() if line]


def ir(path):
    """The total instruction count of a callgrind output file."""
    for line in open(path):
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise SystemExit(f"{path}: no instruction count")


counts = {}
for line in open(runs_tsv).read().splitlines():
    code, ndim, calls, path = line.split("\t")
    counts[(code, int(ndim), int(calls))] = ir(path)

ndims = sorted({n for _, n, _ in counts})
cases = []
for code, what in codes:
    for ndim in ndims:
        a, b = counts[(code, ndim, lo)], counts[(code, ndim, hi)]
        per_call = (b - a) / (hi - lo)
        cases.append({"code": code, "what": what, "ndim": ndim, "ir": {str(lo): a, str(hi): b},
                      "per_call": round(per_call, 2), "fixed": round(a - lo * per_call)})




result = {
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "machine": machine(valgrind=valgrind),
    "method": (f"valgrind --tool=callgrind target/release/examples/profile CODE NDIM CALLS for CALLS = {lo} "
               f"and {hi}; per_call = (Ir({hi}) - Ir({lo})) / {hi - lo}, which leaves out the start-up "
               f"and the setup (`fixed`); the input is sample(ndim, \"<f8\")"),
    "calls": [lo, hi],
    "ndims": ndims,
    "cases": cases,
}
with open(out, "w") as f:
    json.dump(result, f, indent=2)
    f.write("\n")
print(f"results: {out}")
PY
}

run_allocs() {
  METALAYER_BENCH_OUT="$results" cargo test --release -p metalayer-bench --test allocs -- --nocapture
}

run_compile() {
  bench/scripts/compile_time.sh "$results/compile_time.json"
}

run_cli() {
  bench/scripts/cli_vs_python.sh "$results/cli.json"
}

run_cli_tree() {
  bench/scripts/cli_tree.sh "$results/cli_tree.json"
}

run_report() {
  python3 bench/report.py --criterion-dir "$target_dir/criterion" --results-dir "$results" > "$results/report.md.tmp"
  mv "$results/report.md.tmp" "$results/report.md"
  echo
  cat "$results/report.md"
  echo
  echo "report: $results/report.md"
}

part criterion CRITERION run_criterion
part callgrind CALLGRIND run_callgrind
part allocs ALLOCS run_allocs
part compile_time COMPILE run_compile
part cli CLI run_cli
part cli_tree CLI_TREE run_cli_tree
if skipped REPORT; then
  echo "==> report: skipped (SKIP_REPORT)"
else
  echo "==> report"
  run_report
fi
