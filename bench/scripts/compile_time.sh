#!/usr/bin/env bash
# Compile-time cost of the `#[metalayer]` attribute, measured end to end with cargo.
#
#  1. Clean debug builds of three small library crates that define the built-in layouts
#     (b2nd_v1, b2nd_v0, caterva_v0):
#       attr   `#[metalayer(schema = ...)]` structs as in src/b2nd.rs and src/caterva.rs, with a
#              path dependency on this repository's `metalayer` crate;
#       binrw  the same layouts written with binrw attributes, producing the same bytes
#              (bench/src/binrw_layouts.rs, copied verbatim), depending on binrw only;
#       plain  the same structs with no attribute and no dependency (the floor).
#     Each build starts from an empty target directory. The goal is attr / binrw <= 0.6.
#  2. The marginal cost of the attribute in a crate that already derives serde, whose build has
#     compiled syn and quote for serde_derive already: clean builds of
#       serde        three structs with `#[derive(Serialize, Deserialize)]`, depending on serde;
#       serde_attr   the same plus the attribute's layouts (as in `attr`);
#       serde_binrw  the same plus the binrw layouts (as in `binrw`).
#     The marginal cost of each is its median minus serde's.
#     Every build runs with CARGO_INCREMENTAL=0, as builds of registry dependencies do.
#  3. The rebuild of a binary crate whose struct uses the crate's own schemas/array_v1.toml
#     (a copy of layout/schemas/b2nd_v1.toml) after that file changes: touched only, its description
#     edited, its metalayer name edited (the binary then prints the new name). Each rebuild is
#     checked to have recompiled the crate. The goal is <= 1 s.
#
# Usage: bench/scripts/compile_time.sh [OUT.json]
#   OUT.json    where to write the results (default target/bench-results/compile_time.json)
# Environment:
#   RUNS        timed runs per measurement (default 5; the median is reported)
#   WARMUP      untimed clean builds of each crate before the timed ones (default 1)
#
# Crates are downloaded by one untimed `cargo fetch` per crate (into the usual CARGO_HOME), and
# the timed builds run with --offline. The generated crates start from the workspace's
# Cargo.lock, so they build the same versions of the dependencies they share with it.
# Everything generated goes under target/compile-bench/.
set -euo pipefail
caller=$(pwd)
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
repo=$(pwd)

# A relative OUT.json is relative to the directory the script was started from.
out="${1:-$repo/target/bench-results/compile_time.json}"
[[ -z "${1:-}" || "$out" == /* ]] || out="$caller/$out"
runs="${RUNS:-5}"
warmup="${WARMUP:-1}"
binrw_src=bench/src/binrw_layouts.rs
work="$repo/target/compile-bench"
log="$work/measurements.jsonl"

# A wrapper such as sccache would turn clean builds into cache lookups.
export RUSTC_WRAPPER=""
# Like for like: binrw and serde come from the registry, which cargo never builds incrementally,
# while this repository's crates are path dependencies here, which it would (about a quarter
# more time for a clean build). A user's build gets them from the registry too.
export CARGO_INCREMENTAL=0
export CARGO_TERM_COLOR=never
unset CARGO_TARGET_DIR CARGO_BUILD_TARGET_DIR

mkdir -p "$work" "$(dirname "$out")"
: > "$log"

now_ns() { date +%s%N; }
mtime_ns() { python3 -c 'import os, sys; print(os.stat(sys.argv[1]).st_mtime_ns)' "$1"; }

# ---------------------------------------------------------------------------------------------
# The generated crates
# ---------------------------------------------------------------------------------------------

# The binrw requirement the bench crate uses (its own dependency or the workspace's), else 0.15.
binrw_req=$(python3 - <<'PY'
import tomllib
from pathlib import Path

def load(p):
    try:
        return tomllib.loads(Path(p).read_text())
    except (FileNotFoundError, tomllib.TOMLDecodeError):
        return {}

def req(spec, ws):
    if isinstance(spec, str):
        return spec
    if isinstance(spec, dict):
        if spec.get("workspace"):
            return req(ws.get("workspace", {}).get("dependencies", {}).get("binrw"), {})
        return spec.get("version")
    return None

ws = load("Cargo.toml")
bench = load("bench/Cargo.toml")
found = None
for section in ("dependencies", "dev-dependencies"):
    found = found or req(bench.get(section, {}).get("binrw"), ws)
found = found or req(ws.get("workspace", {}).get("dependencies", {}).get("binrw"), {})
print(found or "0.15")
PY
)

# Writes a crate's manifest: write_manifest DIR NAME DEPENDENCY-LINES.
write_manifest() {
  mkdir -p "$1/src"
  cat > "$1/Cargo.toml" <<EOF
[package]
name = "$2"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
$3

# Its own workspace, not a member of the repository's.
[workspace]
EOF
}

# Starts the crate from a lock file so shared dependencies resolve to the same versions;
# cargo drops the entries the crate does not use.
seed_lock() {
  local lock="$repo/Cargo.lock"
  if [[ "$2" == binrw ]] && ! grep -q '^name = "binrw"$' "$lock" && [[ -f bench/Cargo.lock ]]; then
    lock="$repo/bench/Cargo.lock"
  fi
  cp "$lock" "$1/Cargo.lock"
}

structs_attr() {
  cat <<'EOF'
//! The three built-in layouts, generated by `#[metalayer]` from the built-in schemas.

use metalayer::prelude::*;

/// The 7-entry `b2nd` layout that every c-blosc2 release writes.
#[metalayer(schema = "b2nd_v1")]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct B2ndV1 {
    /// The array's shape.
    pub shape: Vec<i64>,
    /// The shape of each chunk.
    pub chunkshape: Vec<i32>,
    /// The shape of each block.
    pub blockshape: Vec<i32>,
    /// The dtype's format: 0 is NumPy.
    pub dtype_format: u8,
    /// The dtype, such as `"<i4"`.
    pub dtype: String,
}

/// The 6-entry `b2nd` layout of pre-release c-blosc2.
#[metalayer(schema = "b2nd_v0")]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct B2ndV0 {
    /// The array's shape.
    pub shape: Vec<i64>,
    /// The shape of each chunk.
    pub chunkshape: Vec<i32>,
    /// The shape of each block.
    pub blockshape: Vec<i32>,
    /// The dtype as NumPy's repr, such as `"uint8"`.
    pub dtype: String,
}

/// The 5-entry caterva layout.
#[metalayer(schema = "caterva_v0")]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct CatervaV0 {
    /// The array's shape.
    pub shape: Vec<i64>,
    /// The shape of each chunk.
    pub chunkshape: Vec<i32>,
    /// The shape of each block.
    pub blockshape: Vec<i32>,
}
EOF
}

# The same structs without the attribute.
structs_plain() {
  structs_attr | sed -e '/^use metalayer/d' -e '/^#\[metalayer(/d' \
    -e 's|^//! .*|//! The three built-in layouts as plain structs: no attribute, no dependency.|'
}

# The same structs deriving serde's traits, for the crates that measure the marginal cost.
structs_serde() {
  structs_plain | sed -e 's|^//! .*|//! The three layouts deriving serde'"'"'s traits: the crate the layouts are added to.|' \
    -e 's|^#\[derive(Debug, |#[derive(serde::Serialize, serde::Deserialize, Debug, |'
}

# lib.rs of a serde crate: the serde types, and the module MODULE when given.
serde_lib() {
  echo "//! Types deriving serde's traits${1:+, and the layouts in \`$1\`}."
  echo
  echo "pub mod serde_types;"
  [[ -z "$1" ]] || echo "pub mod $1;"
}

generate_crates() {
  write_manifest "$work/attr" layouts-attr "metalayer = { path = \"$repo\" }"
  seed_lock "$work/attr" attr
  structs_attr > "$work/attr/src/lib.rs"

  write_manifest "$work/plain" layouts-plain ""
  structs_plain > "$work/plain/src/lib.rs"

  write_manifest "$work/binrw" layouts-binrw "binrw = \"$binrw_req\""
  seed_lock "$work/binrw" binrw
  cp "$binrw_src" "$work/binrw/src/binrw_layouts.rs"
  cat > "$work/binrw/src/lib.rs" <<'EOF'
//! The three built-in layouts written with binrw attributes (bench/src/binrw_layouts.rs).

pub mod binrw_layouts;
EOF

  # The serde crate, then the same with each way of writing the layouts added as a module.
  local serde_dep='serde = { version = "1", features = ["derive"] }'
  write_manifest "$work/serde" layouts-serde "$serde_dep"
  seed_lock "$work/serde" attr
  structs_serde > "$work/serde/src/serde_types.rs"
  serde_lib "" > "$work/serde/src/lib.rs"

  write_manifest "$work/serde_attr" layouts-serde-attr "$serde_dep
metalayer = { path = \"$repo\" }"
  seed_lock "$work/serde_attr" attr
  structs_serde > "$work/serde_attr/src/serde_types.rs"
  structs_attr > "$work/serde_attr/src/layouts.rs"
  serde_lib "layouts" > "$work/serde_attr/src/lib.rs"

  write_manifest "$work/serde_binrw" layouts-serde-binrw "$serde_dep
binrw = \"$binrw_req\""
  seed_lock "$work/serde_binrw" binrw
  structs_serde > "$work/serde_binrw/src/serde_types.rs"
  cp "$binrw_src" "$work/serde_binrw/src/binrw_layouts.rs"
  serde_lib "binrw_layouts" > "$work/serde_binrw/src/lib.rs"

  local d="$work/incr"
  write_manifest "$d" schema-rebuild "metalayer = { path = \"$repo\" }"
  seed_lock "$d" attr
  mkdir -p "$d/schemas"
  cp layout/schemas/b2nd_v1.toml "$d/schemas/array_v1.toml"
  cat > "$d/src/main.rs" <<'EOF'
//! A struct bound to the crate's own schema, schemas/array_v1.toml.

use metalayer::prelude::*;

#[metalayer(schema = "array_v1")]
#[derive(Debug, Clone, PartialEq)]
struct ArrayMeta {
    shape: Vec<i64>,
    chunkshape: Vec<i32>,
    blockshape: Vec<i32>,
    dtype_format: u8,
    dtype: String,
}

fn main() {
    let meta = ArrayMeta {
        shape: vec![10, 20],
        chunkshape: vec![5, 20],
        blockshape: vec![5, 5],
        dtype_format: 0,
        dtype: "<f8".into(),
    };
    let bytes = meta.encode().expect("encode");
    assert_eq!(ArrayMeta::decode(&bytes).expect("decode"), meta);
    println!("{} {} {}", ArrayMeta::NAME, ArrayMeta::SCHEMA, bytes.len());
}
EOF
}

# ---------------------------------------------------------------------------------------------
# Measuring
# ---------------------------------------------------------------------------------------------

# GNU time, when installed, gives the CPU seconds of each build (user + system, all processes),
# which depend less than the wall time on what else the machine runs.
gnu_time=$(command -v /usr/bin/time || true)

# build CRATE-DIR STDERR-FILE [CARGO-ARGS...]: an offline debug build with the crate's own target
# directory; prints the elapsed nanoseconds, and writes the CPU seconds to CRATE-DIR/cpu-seconds.txt
# ("null" without GNU time).
build() {
  local start end timer=()
  echo null > "$1/cpu-seconds.txt"
  [[ -z "$gnu_time" ]] || timer=("$gnu_time" -o "$1/cpu-seconds.txt" -f '%U %S')
  start=$(now_ns)
  if ! CARGO_TARGET_DIR="$1/target" "${timer[@]}" cargo build --offline --manifest-path "$1/Cargo.toml" "${@:3}" 2> "$2"; then
    cat "$2" >&2
    echo "error: cargo build failed in $1" >&2
    exit 1
  fi
  end=$(now_ns)
  echo $((end - start))
}

# record KEY=VALUE...: one measurement as a JSON line (values are JSON).
record() {
  python3 - "$log" "$@" <<'PY'
import json, sys
rec = {}
for kv in sys.argv[2:]:
    k, v = kv.split("=", 1)
    rec[k] = json.loads(v)
with open(sys.argv[1], "a") as f:
    f.write(json.dumps(rec) + "\n")
PY
}

cpu_seconds() { awk 'NF == 2 {printf "%.2f", $1 + $2; ok = 1} END {if (!ok) printf "null"}' "$1/cpu-seconds.txt"; }

compiled_count() { grep -c '^ *Compiling ' "$1" || true; }

# The time of each compilation unit, from the report of `cargo build --timings`, as a JSON list
# of [unit, seconds], slowest first (an empty list if the report cannot be read).
unit_times() {
  python3 - "$1/target/cargo-timings/cargo-timing.html" <<'PY'
import json, sys
units = {}
try:
    text = open(sys.argv[1]).read()
    start = text.index("[", text.index("UNIT_DATA"))
    for u in json.JSONDecoder().raw_decode(text, start)[0]:
        target = u.get("target", "").strip()
        name = f'{u["name"]} {u["version"]}' + (f" ({target})" if target else "")
        units[name] = units.get(name, 0.0) + float(u["duration"])
except (OSError, ValueError, KeyError, TypeError):
    pass
print(json.dumps(sorted(([k, round(v, 2)] for k, v in units.items()), key=lambda kv: -kv[1])))
PY
}

clean_build() { # clean_build NAME RUN
  local dir="$work/$1" err="$work/$1/build-stderr.txt" ns
  rm -rf "$dir/target"
  ns=$(build "$dir" "$err" --timings)
  record group='"clean"' crate="\"$1\"" run="$2" seconds="$(awk -v n="$ns" 'BEGIN{printf "%.4f", n/1e9}')" \
    cpu_seconds="$(cpu_seconds "$dir")" compiled="$(compiled_count "$err")" units="$(unit_times "$dir")"
  awk -v c="$1" -v r="$2" -v n="$ns" -v cpu="$(cpu_seconds "$dir")" \
    'BEGIN{printf "  %-11s run %s: %7.2f s  (CPU %s s)\n", c, r, n/1e9, cpu}'
}

# edit_schema KIND K: changes schemas/array_v1.toml of the rebuild crate.
edit_schema() {
  local f="$work/incr/schemas/array_v1.toml"
  case "$1" in
    touch) touch "$f" ;;
    description | name)
      python3 - "$f" "$1" "$2" <<'PY'
import re, sys
from pathlib import Path
path, kind, k = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
text = path.read_text()
if kind == "description":
    new = re.sub(r'(?m)^description = .*$', f'description = "b2nd_v1 under another name, revision {k}"', text, count=1)
else:
    new = re.sub(r'(?m)^metalayer = .*$', f'metalayer = "array{k}"', text, count=1)
assert new != text, "the edit changed nothing"
path.write_text(new)
PY
      ;;
  esac
}

rebuild() { # rebuild KIND RUN K
  local dir="$work/incr" err="$work/incr/build-stderr.txt" bin="$work/incr/target/debug/schema-rebuild"
  local before after ns compiled=false changed=false output saw=null
  before=$(mtime_ns "$bin")
  [[ "$1" == noop ]] || edit_schema "$1" "$3"
  ns=$(build "$dir" "$err")
  after=$(mtime_ns "$bin")
  grep -q '^ *Compiling schema-rebuild ' "$err" && compiled=true
  [[ "$before" != "$after" ]] && changed=true
  output=$("$bin")
  if [[ "$1" == name ]]; then
    [[ "$output" == "array$3 "* ]] && saw=true || saw=false
  fi
  record group='"rebuild"' kind="\"$1\"" run="$2" seconds="$(awk -v n="$ns" 'BEGIN{printf "%.4f", n/1e9}')" \
    recompiled="$compiled" binary_changed="$changed" new_name_seen="$saw" output="$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$output")"
  awk -v c="$1" -v r="$2" -v n="$ns" -v rc="$compiled" -v bc="$changed" \
    'BEGIN{printf "  %-11s run %s: %6.3f s  (crate recompiled: %s, binary rewritten: %s)\n", c, r, n/1e9, rc, bc}'
}

# ---------------------------------------------------------------------------------------------

if [[ ! -f "$binrw_src" ]]; then
  echo "error: $binrw_src does not exist" >&2
  exit 1
fi

generate_crates
all_clean="attr binrw plain serde serde_attr serde_binrw"

echo "fetching dependencies (untimed) ..."
for c in $all_clean incr; do
  CARGO_TARGET_DIR="$work/$c/target" cargo fetch -q --manifest-path "$work/$c/Cargo.toml"
done

for ((i = 1; i <= warmup; i++)); do
  echo "warm-up clean builds (untimed) ..."
  for c in $all_clean; do
    rm -rf "$work/$c/target"
    build "$work/$c" "$work/$c/build-stderr.txt" > /dev/null
  done
done

echo "clean debug builds, $runs runs each (interleaved):"
for ((i = 1; i <= runs; i++)); do
  for c in $all_clean; do
    clean_build "$c" "$i"
  done
done

echo "rebuilds after a schema change, $runs runs each:"
build "$work/incr" "$work/incr/build-stderr.txt" > /dev/null # the full first build, untimed
k=0
for kind in noop touch description name; do
  for ((i = 1; i <= runs; i++)); do
    k=$((k + 1))
    rebuild "$kind" "$i" "$k"
  done
done

# ---------------------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------------------

PYTHONPATH="$repo/bench" python3 - "$log" "$out" "$work" "$runs" "$warmup" "$binrw_req" <<'PY'
import datetime, json, os, statistics, sys, tomllib
from pathlib import Path

from machine import cmd, machine

log, out, work, runs, warmup, binrw_req = sys.argv[1:]
recs = [json.loads(line) for line in open(log)]


def locked(crate):
    p = Path(work) / crate / "Cargo.lock"
    if not p.exists():
        return []
    pkgs = tomllib.loads(p.read_text()).get("package", [])
    return sorted(f'{p["name"]} {p["version"]}' for p in pkgs if "source" in p)

def summary(rs):
    secs = [r["seconds"] for r in rs]
    out = {"median_s": round(statistics.median(secs), 4), "min_s": min(secs), "max_s": max(secs), "runs_s": secs}
    cpu = [r["cpu_seconds"] for r in rs if r.get("cpu_seconds") is not None]
    if cpu and len(cpu) == len(rs):
        out |= {"cpu_median_s": round(statistics.median(cpu), 2), "cpu_runs_s": cpu}
    return out

clean = {}
for crate in ("attr", "binrw", "plain"):
    rs = [r for r in recs if r["group"] == "clean" and r["crate"] == crate]
    clean[crate] = summary(rs) | {
        "crates_compiled": rs[-1]["compiled"],
        # From `cargo build --timings` of the last run; units overlap on several CPUs.
        "unit_seconds_last_run": rs[-1]["units"],
        "registry_dependencies": locked(crate),
    }
a, b, p = (clean[c]["median_s"] for c in ("attr", "binrw", "plain"))
clean["ratio_attr_over_binrw"] = round(a / b, 3)


def paired(x, y):
    """x / y run by run: the builds of one run are interleaved, so they share the machine's load."""
    xs = {r["run"]: r["seconds"] for r in recs if r["group"] == "clean" and r["crate"] == x}
    ys = {r["run"]: r["seconds"] for r in recs if r["group"] == "clean" and r["crate"] == y}
    return [round(xs[i] / ys[i], 3) for i in sorted(xs) if i in ys and ys[i] > 0]


clean["paired_ratios_attr_over_binrw"] = paired("attr", "binrw")
clean["paired_ratio_median"] = round(statistics.median(clean["paired_ratios_attr_over_binrw"]), 3)
if "cpu_median_s" in clean["attr"] and "cpu_median_s" in clean["binrw"]:
    clean["cpu_ratio_attr_over_binrw"] = round(clean["attr"]["cpu_median_s"] / clean["binrw"]["cpu_median_s"], 3)
clean["ratio_above_plain"] = round((a - p) / (b - p), 3) if b > p else None
clean["goal_ratio_max"] = 0.6
clean["goal_met"] = a / b <= 0.6
clean["binrw_requirement"] = binrw_req

marginal = {}
for crate in ("serde", "serde_attr", "serde_binrw"):
    rs = [r for r in recs if r["group"] == "clean" and r["crate"] == crate]
    marginal[crate] = summary(rs) | {
        "crates_compiled": rs[-1]["compiled"],
        "unit_seconds_last_run": rs[-1]["units"],
        "registry_dependencies": locked(crate),
    }
s = marginal["serde"]["median_s"]
for name, crate in (("attr", "serde_attr"), ("binrw", "serde_binrw")):
    m = marginal[crate]
    marginal[f"{name}_marginal_s"] = round(m["median_s"] - s, 4)
    # The least and the most the medians' difference could be, from the runs' ranges.
    marginal[f"{name}_marginal_range_s"] = [round(m["min_s"] - marginal["serde"]["max_s"], 4),
                                            round(m["max_s"] - marginal["serde"]["min_s"], 4)]
    # Run by run, against the serde build of the same run.
    base = {r["run"]: r["seconds"] for r in recs if r["group"] == "clean" and r["crate"] == "serde"}
    diffs = [round(r["seconds"] - base[r["run"]], 4) for r in recs
             if r["group"] == "clean" and r["crate"] == crate and r["run"] in base]
    marginal[f"{name}_marginal_runs_s"] = diffs
    marginal[f"{name}_marginal_paired_median_s"] = round(statistics.median(diffs), 4)
    marginal[f"{name}_new_registry_dependencies"] = sorted(
        set(m["registry_dependencies"]) - set(marginal["serde"]["registry_dependencies"]))
if all("cpu_median_s" in marginal[c] for c in ("serde", "serde_attr", "serde_binrw")):
    for name, crate in (("attr", "serde_attr"), ("binrw", "serde_binrw")):
        marginal[f"{name}_marginal_cpu_s"] = round(marginal[crate]["cpu_median_s"] - marginal["serde"]["cpu_median_s"], 2)
# The medians of the run-by-run differences, which the machine's load moves least.
bm = marginal["binrw_marginal_paired_median_s"]
marginal["ratio_attr_over_binrw"] = round(marginal["attr_marginal_paired_median_s"] / bm, 3) if bm > 0 else None
if marginal.get("binrw_marginal_cpu_s", 0) > 0:
    marginal["cpu_ratio_attr_over_binrw"] = round(marginal["attr_marginal_cpu_s"] / marginal["binrw_marginal_cpu_s"], 3)

rebuild = {}
for kind in ("noop", "touch", "description", "name"):
    rs = [r for r in recs if r["group"] == "rebuild" and r["kind"] == kind]
    rebuild[kind] = summary(rs) | {
        "recompiled": [r["recompiled"] for r in rs],
        "binary_changed": [r["binary_changed"] for r in rs],
    }
    if kind == "name":
        rebuild[kind]["new_name_seen"] = [r["new_name_seen"] for r in rs]
rebuild["goal_max_s"] = 1.0
changes = ("touch", "description", "name")
rebuild["goal_met"] = all(rebuild[k]["median_s"] <= 1.0 for k in changes)
rebuild["all_rebuilds_recompiled"] = all(
    all(rebuild[k]["recompiled"]) and all(rebuild[k]["binary_changed"]) for k in changes
) and all(rebuild["name"]["new_name_seen"])

result = {
    "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "machine": machine(cargo=cmd("cargo", "--version"), loadavg_at_end=list(os.getloadavg())),
    "runs": int(runs),
    "warmup_runs": int(warmup),
    "profile": "dev (debug), cargo build --offline, empty target directory per clean build",
    "clean_build": clean,
    "marginal_over_serde": marginal,
    "schema_rebuild": rebuild,
}
Path(out).write_text(json.dumps(result, indent=2) + "\n")

print()
print(f'{result["machine"]["rustc"]}, {result["machine"]["nproc"]} CPUs ({result["machine"]["cpu_model"]})')
print(f"clean debug build, median of {runs}:")
def line(c, r):
    cpu = f', CPU {r["cpu_median_s"]:.2f} s' if "cpu_median_s" in r else ""
    print(f'  {c:11} {r["median_s"]:7.2f} s  (min {r["min_s"]:.2f}, max {r["max_s"]:.2f}{cpu})'
          f'   {r["crates_compiled"]:3} crates compiled')

for c in ("attr", "binrw", "plain"):
    line(c, clean[c])
    slowest = ", ".join(f"{u} {t:.1f} s" for u, t in clean[c]["unit_seconds_last_run"][:5])
    if slowest and c != "plain":
        print(f"         slowest units: {slowest}")
print(f'  attr / binrw = {clean["ratio_attr_over_binrw"]:.2f}  (goal <= 0.6: {"met" if clean["goal_met"] else "NOT met"})')
print(f'  run by run: attr / binrw = {", ".join(f"{r:.2f}" for r in clean["paired_ratios_attr_over_binrw"])}'
      f' (median {clean["paired_ratio_median"]:.2f})')
if "cpu_ratio_attr_over_binrw" in clean:
    print(f'  in CPU time: attr / binrw = {clean["cpu_ratio_attr_over_binrw"]:.2f}')
if clean["ratio_above_plain"] is not None:
    print(f'  (attr - plain) / (binrw - plain) = {clean["ratio_above_plain"]:.2f}')
print(f"marginal cost in a crate that derives serde, median of {runs}:")
for c in ("serde", "serde_attr", "serde_binrw"):
    line(c, marginal[c])
    slowest = ", ".join(f"{u} {t:.1f} s" for u, t in marginal[c]["unit_seconds_last_run"][:5])
    print(f"              slowest units: {slowest}")
for name in ("attr", "binrw"):
    lo, hi = marginal[f"{name}_marginal_range_s"]
    new = ", ".join(marginal[f"{name}_new_registry_dependencies"]) or "none"
    cpu = marginal.get(f"{name}_marginal_cpu_s")
    cpu = "" if cpu is None else f", CPU {cpu:+.2f} s"
    print(f'  + {name:5} {marginal[f"{name}_marginal_s"]:+6.2f} s  (runs allow {lo:+.2f} to {hi:+.2f}{cpu});'
          f' registry crates added: {new}')
    runs_text = ", ".join(f"{d:+.2f}" for d in marginal[f"{name}_marginal_runs_s"])
    print(f'          run by run: {runs_text} (median {marginal[f"{name}_marginal_paired_median_s"]:+.2f} s)')
if marginal["ratio_attr_over_binrw"] is not None:
    print(f'  marginal attr / marginal binrw = {marginal["ratio_attr_over_binrw"]:.2f} (run by run medians)')
if "cpu_ratio_attr_over_binrw" in marginal:
    print(f'  in CPU time: marginal attr / marginal binrw = {marginal["cpu_ratio_attr_over_binrw"]:.2f}')
print(f"rebuild after a schema change, median of {runs}:")
for k in ("noop", "touch", "description", "name"):
    print(f'  {k:11} {rebuild[k]["median_s"]:6.3f} s')
print(f'  goal <= 1 s: {"met" if rebuild["goal_met"] else "NOT met"}; '
      f'every change recompiled the crate: {rebuild["all_rebuilds_recompiled"]}')
print(f"results: {out}")
PY
