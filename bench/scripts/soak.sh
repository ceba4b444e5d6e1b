#!/usr/bin/env bash
# The soak of racing edits: cblosc2/tests/races.rs run for ROUNDS rounds (default 300) with the
# release `metalayer`, each round's result kept; then python-blosc2 opens every kept result and
# reads in it every change the round's processes made, and the data. The test itself checks, each
# round, that every process exited 0, that c-blosc2 and this project's reader read every change,
# that python's zipfile finds the store's CRC-32s right, and that nothing was left beside the file.
#
# Usage: bench/scripts/soak.sh [OUT.json]
#   OUT.json  where to write the results (default target/bench-results/soak.json)
# Environment:
#   ROUNDS    rounds per case (default 300)
#   PYTHON    the python used to create the virtual environment (default python3)
set -euo pipefail
caller=$(pwd)
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
repo=$(pwd)

out="${1:-$repo/target/bench-results/soak.json}"
[[ -z "${1:-}" || "$out" == /* ]] || out="$caller/$out"
rounds="${ROUNDS:-300}"
base_python="${PYTHON:-python3}"
kept="$repo/target/soak/rounds"
mkdir -p "$(dirname "$out")"
rm -rf "$kept"
mkdir -p "$kept"

echo "building the CLI (untimed) ..."
cargo build -q --release -p metalayer-cli
bin="${CARGO_TARGET_DIR:-$repo/target}/release/metalayer"

# shellcheck source=blosc2_venv.sh
source "$repo/bench/scripts/blosc2_venv.sh"
blosc2_venv "$repo" "$base_python"

start=$(date +%s%N)
METALAYER_BIN="$bin" METALAYER_RACE_ROUNDS="$rounds" METALAYER_KEEP_ROUNDS="$kept" \
  cargo test -q --release -p metalayer-cblosc2 --test races -- --test-threads 1
end=$(date +%s%N)

"$py" - "$kept" "$rounds" "$out" "$start" "$end" "$blosc2_version" <<'PY'
import json, sys
from pathlib import Path
import blosc2

kept, rounds, out = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
seconds = (int(sys.argv[5]) - int(sys.argv[4])) / 1e9
PROCESSES = 4  # as in cblosc2/tests/races.rs

def want(rnd, processes):
    return {f"p{i}": rnd * 10 + i for i in processes}

def check(arr, expected, what):
    vl = arr.schunk.vlmeta
    for k, v in expected.items():
        assert vl[k] == v, (what, k, vl[k], v)
    arr.schunk[:]  # every chunk decompresses
    return len(expected)

counts = {"frame": 0, "sparse": 0, "store": 0}
changes = 0
for d in sorted(kept.iterdir()):
    case, rnd = d.name.rsplit("-", 1)
    rnd = int(rnd)
    if case == "frame":
        changes += check(blosc2.open(str(d / "big.b2nd"), mode="r"), want(rnd, range(PROCESSES)), d)
    elif case == "sparse":
        changes += check(blosc2.open(str(d / "sparse_mixed.b2nd"), mode="r"), want(rnd, range(PROCESSES)), d)
    elif case == "store":
        store = blosc2.DictStore(str(d / "dictstore.b2z"), mode="r")
        for k, key in enumerate(["/big", "/dir/deeper/f8"]):
            changes += check(store[key], want(rnd, [i for i in range(PROCESSES) if i % 2 == k]), (d, key))
    counts[case] += 1
assert counts == {"frame": rounds, "sparse": rounds, "store": rounds}, counts
result = {"rounds": rounds, "processes": PROCESSES, "seconds": seconds, "python_blosc2": blosc2.__version__,
          "results_read_by_python_blosc2": sum(counts.values()), "changes_read": changes}
json.dump(result, open(out, "w"), indent=1)
print(f"python-blosc2 {blosc2.__version__} read all {sum(counts.values())} results of {rounds} rounds "
      f"x 3 cases ({PROCESSES} processes a round): {changes} changes, every one there; "
      f"the races took {seconds:.1f} s")
PY
