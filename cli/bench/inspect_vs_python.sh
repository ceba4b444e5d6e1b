#!/usr/bin/env bash
# Times `metalayer inspect --json` over every fixture next to a python-blosc2 loop reading
# `meta["b2nd"]` from the same files, both including process start-up. Needs the python-blosc2
# 4.x virtual environment that tests/fixtures/generate.py creates (target/fixture-venvs/blosc2-4).
set -euo pipefail
cd "$(dirname "$0")/../.."
python="${PYTHON:-target/fixture-venvs/blosc2-4/bin/python}"
runs="${RUNS:-5}"
cargo build -q --release -p metalayer-cli
mapfile -t paths < <(python3 -c 'import json; [print("tests/fixtures/" + f["path"]) for f in json.load(open("tests/fixtures/expected.json"))]')
# python-blosc2 4.x reads b2nd files; caterva files have no b2nd metalayer, so it reads those
# (and python-blosc2 2.x files, which 4.x opens too) through the same call and skips failures.
cat > target/inspect_loop.py <<'PY'
import sys, blosc2
n = 0
for p in sys.argv[1:]:
    try:
        a = blosc2.open(p)
        meta = a.schunk.meta
        v = meta["b2nd"] if "b2nd" in meta else meta["caterva"]
        n += 1
    except Exception as e:
        pass
print(n, "of", len(sys.argv) - 1, "read", file=sys.stderr)
PY
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_it() {
  for _ in $(seq "$runs"); do
    s=$(date +%s%N); "$@" > /dev/null 2>/tmp/time_it.err || true; e=$(date +%s%N)
    echo $(( (e - s) / 1000 ))
  done | median
}
rust_us=$(time_it target/release/metalayer inspect --json "${paths[@]}")
py_us=$(time_it "$python" target/inspect_loop.py "${paths[@]}")
"$python" target/inspect_loop.py "${paths[@]}" > /dev/null
echo "files: ${#paths[@]}"
echo "metalayer inspect --json: ${rust_us} us (median of $runs)"
echo "python-blosc2 loop:       ${py_us} us (median of $runs)"
awk -v r="$rust_us" -v p="$py_us" 'BEGIN {printf "ratio: python / metalayer = %.1fx\n", p / r}'
