#!/usr/bin/env bash
# What `metalayer inspect --jsonl` writes and how fast, against python-blosc2, in one run:
#
# 1. Size: over the repository's python-blosc2 fixture frames of every release
#    (tests/fixtures/files/blosc2-*: frame files, sparse frames, .b2z and .b2d stores), the bytes
#    `inspect --jsonl` writes over the bytes of the files it reads, each directory and in all;
#    apart, the hex of bytes that decode to nothing further (an item's "hex" without a value,
#    an ext's "data" without one, a msgpack binary's {"bin": hex}), and the same with --hex (the bytes of format 1). Goal: at most 2x,
#    that hex aside.
# 2. Speed: a tree of 1,000 of those frames (the ones python-blosc2 and the CLI both read
#    without an error, cycled; one in 100 a sparse frame), and a tree of 1,000 small b2nd frames
#    (the contiguous .b2nd array fixtures of blosc2-2 and blosc2-4, cycled): `metalayer inspect --jsonl TREE`
#    against one python-blosc2 process walking the same tree and reading the same (the header's
#    fields, every metalayer, every vlmetalayer; cli_tree.py's loop), both as whole processes,
#    start-up included, interleaved, RUNS timed runs each after an untimed one; medians reported.
#    Goals: python / CLI >= 10 on the mixed tree, >= 40 on the b2nd tree.
#
# Usage: bench/scripts/cli_output.sh [OUT.json]
#   OUT.json  where to write the results (default target/bench-results/cli_output.json)
# Environment:
#   RUNS      timed runs per side and tree (default 5)
#   N         frames per tree (default 1000)
#   PYTHON    the python used to create the virtual environment (default python3)
set -euo pipefail
caller=$(pwd)
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
repo=$(pwd)

out="${1:-$repo/target/bench-results/cli_output.json}"
[[ -z "${1:-}" || "$out" == /* ]] || out="$caller/$out"
bin="${CARGO_TARGET_DIR:-$repo/target}/release/metalayer"

echo "building the CLI (untimed) ..."
cargo build -q --release -p metalayer-cli

# shellcheck source=blosc2_venv.sh
source "$repo/bench/scripts/blosc2_venv.sh"
blosc2_venv "$repo" "${PYTHON:-python3}"

args=(--bin "$bin" --py "$py" --out "$out" --n "${N:-1000}" --runs "${RUNS:-5}" --blosc2-version "$blosc2_version")
PYTHONPATH="$repo/bench:$repo/bench/scripts" python3 "$repo/bench/scripts/cli_output.py" "${args[@]}"
