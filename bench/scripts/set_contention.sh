#!/usr/bin/env bash
# Edits of ONE file by several processes at once: `metalayer set` against python-blosc2. Each of
# P processes sets its own vlmetalayer `pI` to 1, 2, ..., E, one edit a process start (`set`) or
# one edit a `vlmeta[k] = v` (python-blosc2, the file opened once per edit, mode "a"), all P
# started together on a fresh copy of one fixture. Reported: the wall time until the last
# process ends, edits per second over all processes, and what the file holds at the end: an edit
# is lost when a key is missing or holds less than E. P = 1 is the edit rate without contention.
#
# python-blosc2 (c-blosc2) takes no lock: its writers at once are expected to lose edits or
# leave a file it cannot open; `set` serializes them and must lose none.
#
# Usage: bench/scripts/set_contention.sh [OUT.json]
#   OUT.json  where to write the results (default target/bench-results/set_contention.json)
# Environment:
#   EDITS     edits per process (default 50)
#   PROCS     the process counts (default "1 2 4 8")
#   RUNS      runs per side and count (default 3; the median is reported)
#   PYTHON    the python used to create the virtual environment (default python3)
#   METALAYER_BIN  the `metalayer` to time (default: this checkout's, built --release), to
#             compare a change with what came before it
set -euo pipefail
caller=$(pwd)
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
repo=$(pwd)

out="${1:-$repo/target/bench-results/set_contention.json}"
[[ -z "${1:-}" || "$out" == /* ]] || out="$caller/$out"
edits="${EDITS:-50}"
procs="${PROCS:-1 2 4 8}"
runs="${RUNS:-3}"
base_python="${PYTHON:-python3}"
work="$repo/target/set-contention"
bin="${METALAYER_BIN:-${CARGO_TARGET_DIR:-$repo/target}/release/metalayer}"
log="$work/measurements.jsonl"
source_frame="$repo/tests/fixtures/files/blosc2-4-stores/dictstore.b2d/big.b2nd"

mkdir -p "$work" "$(dirname "$out")"
: > "$log"

echo "building the CLI (untimed) ..."
cargo build -q --release -p metalayer-cli

# shellcheck source=blosc2_venv.sh
source "$repo/bench/scripts/blosc2_venv.sh"
blosc2_venv "$repo" "$base_python"

# One python process: E edits of its key, each through its own open of the file.
edit_py='import sys, blosc2
path, key, edits = sys.argv[1], sys.argv[2], int(sys.argv[3])
for v in range(1, edits + 1):
    a = blosc2.open(path, mode="a")
    a.schunk.vlmeta[key] = v
    del a'

# What the file holds at the end, as python-blosc2 reads it: {"opens": bool, "values": {k: v}}.
read_py='import json, sys, blosc2
try:
    a = blosc2.open(sys.argv[1], mode="r")
    vl = a.schunk.vlmeta
    values = {k: vl[k] for k in vl.keys()}
    a[...]  # the data too
    print(json.dumps({"opens": True, "values": values}))
except Exception as e:
    print(json.dumps({"opens": False, "error": str(e)[:200]}))'

now_ns() { date +%s%N; }

run_one() { # run_one SIDE P RUN
  local side=$1 p=$2 run=$3 dir="$work/$1-$2-$3" file start end
  rm -rf "$dir"
  mkdir -p "$dir"
  file="$dir/big.b2nd"
  cp "$source_frame" "$file"
  sync
  local pids=() failed=0
  start=$(now_ns)
  for ((i = 0; i < p; i++)); do
    if [[ $side == cli ]]; then
      ( for ((v = 1; v <= edits; v++)); do "$bin" set --vlmeta "p$i=$v" "$file" > /dev/null 2>> "$dir/errors" || exit 1; done ) &
    else
      "$py" -c "$edit_py" "$file" "p$i" "$edits" 2>> "$dir/errors" &
    fi
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || failed=$((failed + 1)); done
  end=$(now_ns)
  local state
  state=$("$py" -c "$read_py" "$file")
  local left
  left=$(find "$dir" -mindepth 1 -maxdepth 1 ! -name big.b2nd ! -name errors | wc -l)
  python3 - "$log" "$side" "$p" "$run" "$start" "$end" "$failed" "$edits" "$state" "$left" <<'PY'
import json, sys
log, side, p, run, start, end, failed, edits, state, left = sys.argv[1:]
p, edits, state = int(p), int(edits), json.loads(state)
values = state.get("values", {})
lost = sum(edits - values.get(f"p{i}", 0) if isinstance(values.get(f"p{i}", 0), int) else edits
           for i in range(p)) if state["opens"] else p * edits
row = {"side": side, "processes": p, "run": int(run), "seconds": (int(end) - int(start)) / 1e9,
       "edits": p * edits, "failed_processes": int(failed), "opens": state["opens"],
       "lost_edits": lost, "files_left_beside": int(left)}
open(log, "a").write(json.dumps(row) + "\n")
print(f"  {side:7} P={p} run {run}: {row['seconds'] * 1e3:8.1f} ms, failed processes {failed}, "
      f"opens {state['opens']}, lost edits {lost}, files left beside {left}")
PY
}

echo "P processes x $edits edits of one file, $runs runs each:"
for p in $procs; do
  for ((r = 1; r <= runs; r++)); do
    run_one cli "$p" "$r"
    run_one python "$p" "$r"
  done
done

python3 - "$log" "$out" "$edits" "$blosc2_version" <<'PY'
import json, statistics, sys
log, out, edits, version = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
rows = [json.loads(l) for l in open(log)]
groups = {}
for r in rows:
    groups.setdefault((r["processes"], r["side"]), []).append(r)
print(f"\n{edits} edits a process on one file; python-blosc2 {version}; medians of the runs\n")
print("| processes | side | wall time | edits per second | lost edits (all runs) | runs that open | failed processes | files left beside |")
print("|---|---|---|---|---|---|---|---|")
result = []
for (p, side), rs in sorted(groups.items()):
    med = statistics.median(r["seconds"] for r in rs)
    total = rs[0]["edits"]
    lost = sum(r["lost_edits"] for r in rs)
    opens = sum(r["opens"] for r in rs)
    failed = sum(r["failed_processes"] for r in rs)
    left = sum(r["files_left_beside"] for r in rs)
    name = "`metalayer set`" if side == "cli" else "python-blosc2"
    print(f"| {p} | {name} | {med * 1e3:,.0f} ms | {total / med:,.0f} | {lost} of {total * len(rs)} "
          f"| {opens} of {len(rs)} | {failed} | {left} |")
    result.append({"processes": p, "side": side, "median_seconds": med, "edits_per_second": total / med,
                   "lost_edits": lost, "runs": rs})
json.dump(result, open(out, "w"), indent=1)
PY
