#!/usr/bin/env bash
# `metalayer inspect --jsonl TREE > /dev/null` over two trees of 1,000 frames, each against ONE
# python-blosc2 process reading the same, medians side by side in one run; then the peak RSS and
# wall time of `metalayer inspect` (text and --json) on a frame holding one 64 MiB vlmetalayer.
#
# The trees (target/cli-tree-mixed/<tree>-n<N>/, laid out as cli_tree.sh's: 100 frames a
# directory, one frame in 100 a sparse frame, each kind cycling through its sources, real copies):
#   small  the python-blosc2 4.x fixtures of tests/fixtures/files/blosc2-4 (SMALL_DIRS): small
#          frames holding b2nd and a few user metalayers, no vlmetalayers.
#   mixed  13 contiguous and 2 sparse frames written by bench/scripts/mixed_frames.py with
#          python-blosc2 4.x (into target/cli-tree-mixed/frames, at benchmark time; made again
#          when the generator or python-blosc2's version changes), whose vlmetalayers hold every
#          kind of msgpack value: nil, bools, ints of each width, floats, strings and binaries of
#          100 KB to 1 MiB, maps and arrays (large, deep), tuples, ext 42 (whole frames, nested 3
#          deep), 43 (references), 44, 45, 46, chunks of every codec, 16 vlmetalayers; and frame
#          headers over 64 KiB (15 metalayers of 5,000 bytes; metalayers of 200 KB and 100 KB).
#          Its manifest.json says what each frame holds.
# A source python-blosc2 or the CLI cannot read without an error is left out (and listed).
#
# Each side runs as a whole process from the repository's root with stdout to /dev/null:
#   CLI:    $METALAYER_BIN inspect --jsonl target/cli-tree-mixed/<tree>-n<N>
#   python: python-blosc2 4.x (target/bench-venvs/blosc2, the fixture pins) walking the tree as
#           cli_tree.sh's loop does, in one process, start-up included: blosc2.open (with
#           deserialize="full": python-blosc2 4.x refuses ext 42 and 43 values otherwise), the
#           header's fields, every key of meta, vlmeta.getall(), one JSON line per frame (a
#           nested frame written as its header, metalayers and vlmetalayers, as the CLI shows it).
# One untimed run of each first, whose output is checked (N JSON lines from the CLI without an
# error; python-blosc2 finding the same metalayer and vlmetalayer names, sizes, codec and clevel
# in the same frames); then RUNS timed runs of each side, interleaved. Medians of wall time, CPU
# time and peak RSS (GNU time's %M when /usr/bin/time is GNU time, else the child's ru_maxrss
# from wait4), as cli_tree.sh.
#
# The 64 MiB frames (target/cli-tree-mixed/frames/big/, made by mixed_frames.py): one
# vlmetalayer "big" holding a msgpack bin of 64 MiB - 1 KiB random bytes (stored uncompressed),
# or a str of 64 MiB - 1 KiB ASCII words (compressed); 64 MiB decompressed is the most a
# vlmetalayer may hold (metalayer::vlmeta::DEFAULT_LIMIT). Measured: `metalayer inspect FILE`
# and `metalayer inspect --json FILE` (stdout to /dev/null), and for reference python-blosc2's
# loop on the file; one untimed run whose output is checked, then RUNS timed runs; the goal
# reported against: peak RSS < 2 x value + 32 MiB. A run on a big frame is killed after
# BIG_TIMEOUT seconds (a run over a tree after TREE_TIMEOUT) and reported as such.
#
# Nothing here asserts a time: the script fails only when the outputs do not pass the checks.
#
# Usage: bench/scripts/cli_tree_mixed.sh [METALAYER_BIN [OUT.json]]
#   METALAYER_BIN  the CLI to measure (or the environment variable METALAYER_BIN); default
#                  target/release/metalayer (under CARGO_TARGET_DIR when set), built first with
#                  `cargo build --release -p metalayer-cli`. A binary given is not built.
#   OUT.json       where to write the results (default target/bench-results/cli_tree_mixed.json)
# Environment:
#   N             frames in each tree (default 1000)
#   RUNS          timed runs per side (default 5)
#   TREES         which trees (default "small mixed")
#   SMALL_DIRS    fixture directories of the small tree (default "blosc2-4")
#   NO_BIG        set to 1 to leave out the 64 MiB frames
#   TREE_TIMEOUT  seconds for one run over a tree (default 600)
#   BIG_TIMEOUT   seconds for one run on a 64 MiB frame (default 60)
#   PYTHON        the python used to create the virtual environment (default python3)
set -euo pipefail
caller=$(pwd)
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
repo=$(pwd)

abs() { [[ "$1" == /* ]] && printf '%s' "$1" || printf '%s/%s' "$caller" "$1"; }

bin="${1:-${METALAYER_BIN:-}}"
out="$repo/target/bench-results/cli_tree_mixed.json"
[[ -z "${2:-}" ]] || out=$(abs "$2")
if [[ -z "$bin" ]]; then
  bin="${CARGO_TARGET_DIR:-$repo/target}/release/metalayer"
  echo "building the CLI (untimed) ..."
  cargo build -q --release -p metalayer-cli
else
  bin=$(abs "$bin")
  [[ -x "$bin" ]] || { echo "error: $bin is not an executable" >&2; exit 2; }
fi

# shellcheck source=blosc2_venv.sh
source "$repo/bench/scripts/blosc2_venv.sh"
blosc2_venv "$repo" "${PYTHON:-python3}"

args=(--bin "$bin" --py "$py" --out "$out" --blosc2-version "$blosc2_version"
      --n "${N:-1000}" --runs "${RUNS:-5}" --trees "${TREES:-small mixed}"
      --small-dirs "${SMALL_DIRS:-blosc2-4}"
      --tree-timeout "${TREE_TIMEOUT:-600}" --big-timeout "${BIG_TIMEOUT:-60}")
[[ "${NO_BIG:-0}" == 0 ]] || args+=(--no-big)
PYTHONPATH="$repo/bench" python3 "$repo/bench/scripts/cli_tree_mixed.py" "${args[@]}"
