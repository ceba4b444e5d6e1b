#!/usr/bin/env bash
# `metalayer inspect --jsonl TREE > /dev/null` over directory trees of 1,000 and 100,000 small
# frames, against python-blosc2 walking the same tree in one process: wall time per file
# (start-up included) and peak RSS of each side. The goals: python / CLI per file >= 20, and the
# CLI's peak RSS at 100,000 frames within 1.1x of its peak RSS at 1,000 (memory that does not
# grow with the number of files).
#
# The trees, target/cli-tree/n<N>/, are real copies of the python-blosc2 4.x fixtures
# (tests/fixtures/files/blosc2-4*/) that python-blosc2 and the CLI both read without an error:
# frame i is {i // 10000:02d}/{i // 100 % 100:02d}/{i:07d}<ext>, 100 frames a directory; one frame
# in 100 is a sparse frame (a directory with chunks.b2frame), the others are contiguous frames,
# each kind cycling through its fixtures. A tree is made once and reused while its N, its layout
# and the fixtures' bytes are the same (target/cli-tree/n<N>.json records how long it took to
# make: the 100,000-frame tree takes a while; it is not part of the timed comparison).
#
# Each side runs as a whole process from the repository's root with stdout to /dev/null:
#   CLI:    target/release/metalayer inspect --jsonl target/cli-tree/n<N>
#   python: python-blosc2 4.x (target/bench-venvs/blosc2, the fixture pins) walking the tree
#           with os.walk (sorted), blosc2.open on each frame, the header's fields read
#           (schunk.cparams, nbytes, cbytes, cratio, ...), every key of schunk.meta and
#           schunk.vlmeta.getall() read, and one JSON line printed per frame (the loop is in
#           cli_tree.py and in the results). The CLI reads the same: header, metalayers and
#           vlmetalayers.
# One untimed run of each comes first (so every timed run reads a warm page cache); its output
# is checked: N lines from the CLI, each a JSON object without an error, and python-blosc2
# finding the same metalayer and vlmetalayer names, sizes, codec and clevel in the same frames.
# Then RUNS timed runs of each side, interleaved, each CLI run after an untimed one (the page cache may lose the tree during a
# long python run); the medians of wall time and CPU time (user + system) are reported. The peak RSS is the child's ru_maxrss from wait4 (what
# GNU time prints as %M), cross-checked once per N with `/usr/bin/time -f %M` when GNU time is
# installed. The CLI's start-up alone (`metalayer --version`) and python's `import blosc2`
# alone are timed too.
#
# Usage: bench/scripts/cli_tree.sh [OUT.json]
#   OUT.json  where to write the results (default target/bench-results/cli_tree.json)
# Environment:
#   SIZES      tree sizes (default "1000 100000")
#   RUNS       timed runs per side and size (default 5 for N <= 10,000, 3 above)
#   PY_NFILES  at most this many frames for python-blosc2 at each size (default: all of them);
#              its time per file is then over the frames it read
#   PYTHON     the python used to create the virtual environment (default python3)
set -euo pipefail
caller=$(pwd)
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
repo=$(pwd)

out="${1:-$repo/target/bench-results/cli_tree.json}"
[[ -z "${1:-}" || "$out" == /* ]] || out="$caller/$out"
bin="${CARGO_TARGET_DIR:-$repo/target}/release/metalayer"

echo "building the CLI (untimed) ..."
cargo build -q --release -p metalayer-cli

# shellcheck source=blosc2_venv.sh
source "$repo/bench/scripts/blosc2_venv.sh"
blosc2_venv "$repo" "${PYTHON:-python3}"

args=(--bin "$bin" --py "$py" --out "$out" --sizes "${SIZES:-1000 100000}" --blosc2-version "$blosc2_version")
[[ -z "${RUNS:-}" ]] || args+=(--runs "$RUNS")
[[ -z "${PY_NFILES:-}" ]] || args+=(--py-nfiles "$PY_NFILES")
PYTHONPATH="$repo/bench" python3 "$repo/bench/scripts/cli_tree.py" "${args[@]}"
