#!/usr/bin/env bash
# Runs every fuzz target for SECONDS seconds (default 600), JOBS at a time (default 2), starting
# from the committed seeds in corpus/<target> and growing a working corpus in work/<target>.
# Crashes land in artifacts/<target>. Needs cargo-fuzz (`cargo install cargo-fuzz`).
set -euo pipefail
cd "$(dirname "$0")"

SECONDS_PER_TARGET="${1:-600}"
JOBS="${JOBS:-2}"
TARGETS=(decode_b2nd_v1 decode_b2nd_v0 decode_caterva_v0 dispatch frame vlmeta schema value store)

# libFuzzer's instrumentation flags are unstable options: let the stable toolchain accept them.
export RUSTC_BOOTSTRAP=1
cargo fuzz build -O

mkdir -p work logs
run() {
    local t="$1"
    mkdir -p "work/$t"
    cargo fuzz run -O "$t" "work/$t" "corpus/$t" -- \
        -max_total_time="$SECONDS_PER_TARGET" -print_final_stats=1 > "logs/$t.log" 2>&1
    echo "$t: $(grep -E '^stat::number_of_executed_units' "logs/$t.log" | awk '{print $2}') executions"
}
export -f run
export SECONDS_PER_TARGET
printf '%s\n' "${TARGETS[@]}" | xargs -P "$JOBS" -I{} bash -c 'run {}'
