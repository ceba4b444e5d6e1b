#!/usr/bin/env python3
"""Prints the results of the project's benchmarks as markdown tables.

Each section is printed when its results exist (`bench/run.sh` makes them all):

- criterion (`cargo bench -p metalayer-bench`): the median's point estimate from
  `target/criterion/<group>/<bench>/new/estimates.json`, as absolute times per case, the ratios
  the project's goals are stated in and whether each goal is met, and the attribute's expansion
  time per struct;
- instructions per call under callgrind (`instructions.json`), and the same ratios in
  instructions, which do not depend on the machine's load;
- heap allocations per call (`allocs.json`, else `allocs.txt`);
- compile time of the attribute against binrw, and rebuilds after a schema change
  (`compile_time.json`, from bench/scripts/compile_time.sh);
- `metalayer inspect` against python-blosc2 over 1000 files (`cli.json`, from
  bench/scripts/cli_vs_python.sh);
- `metalayer inspect --jsonl` over directory trees of 1,000 and 100,000 frames against
  python-blosc2, time per file and peak RSS (`cli_tree.json`, from bench/scripts/cli_tree.sh);
- the machine, and when each part ran with the load average around it (`parts.json`).

    python3 bench/report.py [--criterion-dir DIR] [--results-dir DIR]
"""

import argparse
import datetime
import json
import os
import platform
import sys

from machine import cmd, cpu_model

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DIR = os.path.join(HERE, "..", "target", "criterion")
DEFAULT_RESULTS = os.path.join(HERE, "..", "target", "bench-results")
REPO = os.path.normpath(os.path.join(HERE, ".."))

# The cases the benchmarks run: (group suffix, label).
CASES = [
    ("ndim2_f8", 'ndim 2, "<f8"'),
    ("ndim8_f8", 'ndim 8, "<f8"'),
    ("ndim15_f8", 'ndim 15, "<f8"'),
    ("ndim8_struct", "ndim 8, structured dtype"),
]

DECODERS = [
    ("ours_borrowed", "ours, ArrayVec + &str"),
    ("ours_owned", "ours, Vec + String"),
    ("c_blosc2", "c-blosc2 b2nd_deserialize_meta + free"),
    ("rmp_serde", "rmp-serde, Vec + String"),
    ("rmp_serde_borrowed", "rmp-serde, ArrayVec + &str"),
    ("hand", "hand-written, ArrayVec + &str"),
    ("hand_owned", "hand-written, Vec + String"),
    ("binrw", "binrw"),
]

ENCODERS = [
    ("ours_encode_into", "ours encode_into (Vec fields)"),
    ("ours_encode_into_borrowed", "ours encode_into (ArrayVec fields)"),
    ("ours_encode_vec", "ours encode() -> Vec"),
    ("c_blosc2", "c-blosc2 b2nd_serialize_meta + free"),
    ("hand_encode_into", "hand-written encode_into"),
    ("binrw_slice", "binrw, Cursor<&mut [u8]>"),
    ("binrw_vec", "binrw, Cursor<Vec>"),
]

# (label, numerator, denominator, goal, "le" when the ratio must be at most the goal, "ge" at
# least). Each side is (kind, bench) with kind "decode" or "encode".
RATIOS = [
    ("ours borrowed / c-blosc2 decode", ("decode", "ours_borrowed"), ("decode", "c_blosc2"), 0.4, "le"),
    ("ours owned / c-blosc2 decode", ("decode", "ours_owned"), ("decode", "c_blosc2"), 1.5, "le"),
    # Like for like: each against ours decoding into the same types (no goal: the figures are
    # reported).
    ("rmp-serde / ours, both into Vec + String (speed-up)", ("decode", "rmp_serde"), ("decode", "ours_owned"), None, "ge"),
    ("rmp-serde / ours, both into ArrayVec + &str (speed-up)", ("decode", "rmp_serde_borrowed"), ("decode", "ours_borrowed"), None, "ge"),
    ("binrw / ours, both into Vec (speed-up)", ("decode", "binrw"), ("decode", "ours_owned"), None, "ge"),
    ("ours borrowed / hand-written", ("decode", "ours_borrowed"), ("decode", "hand"), 1.1, "le"),
    ("ours owned / hand-written owned", ("decode", "ours_owned"), ("decode", "hand_owned"), 1.1, "le"),
    ("ours encode_into / c-blosc2 serialize", ("encode", "ours_encode_into"), ("encode", "c_blosc2"), 0.4, "le"),
    ("ours encode() / c-blosc2 serialize", ("encode", "ours_encode_vec"), ("encode", "c_blosc2"), 1.0, "le"),
    ("ours encode_into / hand-written", ("encode", "ours_encode_into"), ("encode", "hand_encode_into"), 1.1, "le"),
]


def median_ns(root, group, bench):
    """The median point estimate in nanoseconds, or None when the benchmark has not run."""
    path = os.path.join(root, group, bench, "new", "estimates.json")
    try:
        with open(path) as f:
            return json.load(f)["median"]["point_estimate"]
    except (OSError, KeyError, ValueError):
        return None


def fmt_time(ns):
    if ns is None:
        return "–"
    if ns < 1000:
        return f"{ns:.1f} ns"
    if ns < 1_000_000:
        return f"{ns / 1000:.2f} µs"
    return f"{ns / 1_000_000:.2f} ms"


def fmt_ratio(r):
    return "–" if r is None else f"{r:.2f}x"


def times_table(root, kind, benches):
    header = "| " + kind + " | " + " | ".join(label for _, label in CASES) + " |"
    lines = [header, "|---" * (len(CASES) + 1) + "|"]
    for bench, label in benches:
        cells = [fmt_time(median_ns(root, f"{kind}_{case}", bench)) for case, _ in CASES]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def ratio_table(root):
    header = "| ratio | goal | " + " | ".join(label for _, label in CASES) + " | met |"
    lines = [header, "|---" * (len(CASES) + 3) + "|"]
    all_met = True
    for label, (nk, nb), (dk, db), goal, sense in RATIOS:
        cells, met = [], True
        for case, _ in CASES:
            num = median_ns(root, f"{nk}_{case}", nb)
            den = median_ns(root, f"{dk}_{case}", db)
            r = num / den if num is not None and den else None
            if r is None:
                met = None if met is True else met
            elif goal is not None and ((sense == "le" and r > goal) or (sense == "ge" and r < goal)):
                met = False
            cells.append(fmt_ratio(r))
        if goal is None:
            lines.append(f"| {label} | – | " + " | ".join(cells) + " | reported |")
            continue
        verdict = "no data" if met is None else ("met" if met else "NOT met")
        all_met = all_met and met is True
        goal_text = ("<= " if sense == "le" else ">= ") + f"{goal}x"
        lines.append(f"| {label} | {goal_text} | " + " | ".join(cells) + f" | {verdict} |")
    return lines, all_met


def expand_table(root):
    lines = ["| struct | macro expansion time |", "|---|---|"]
    for name in ["b2nd_v1", "b2nd_v0", "caterva_v0"]:
        lines.append(f"| {name} | {fmt_time(median_ns(root, 'expand', name))} |")
    return lines


# ---------------------------------------------------------------------------------------------
# Instructions per call (instructions.json, from bench/run.sh)
# ---------------------------------------------------------------------------------------------

# The codes of bench/examples/profile.rs, in the order of the table, with their labels.
CODES = [
    ("ours", "ours decode, ArrayVec + &str"),
    ("ours_owned", "ours decode, Vec + String"),
    ("hand", "hand-written decode, ArrayVec + &str"),
    ("hand_owned", "hand-written decode, Vec + String"),
    ("c", "c-blosc2 b2nd_deserialize_meta + free"),
    ("rmp", "rmp-serde, Vec + String"),
    ("rmp_borrowed", "rmp-serde, ArrayVec + &str"),
    ("binrw", "binrw read"),
    ("encode", "ours encode_into (Vec fields)"),
    ("encode_borrowed", "ours encode_into (ArrayVec fields)"),
    ("encode_vec", "ours encode() -> Vec"),
    ("hand_encode", "hand-written encode_into"),
    ("c_encode", "c-blosc2 b2nd_serialize_meta + free"),
    ("binrw_encode", "binrw write, Cursor<&mut [u8]>"),
    ("noop", "the loop alone"),
]

# The criterion benchmark each code measures, so that RATIOS applies to instructions too.
CODE_OF = {
    ("decode", "ours_borrowed"): "ours",
    ("decode", "ours_owned"): "ours_owned",
    ("decode", "c_blosc2"): "c",
    ("decode", "rmp_serde"): "rmp",
    ("decode", "rmp_serde_borrowed"): "rmp_borrowed",
    ("decode", "hand"): "hand",
    ("decode", "hand_owned"): "hand_owned",
    ("decode", "binrw"): "binrw",
    ("encode", "ours_encode_into"): "encode",
    ("encode", "ours_encode_into_borrowed"): "encode_borrowed",
    ("encode", "ours_encode_vec"): "encode_vec",
    ("encode", "c_blosc2"): "c_encode",
    ("encode", "hand_encode_into"): "hand_encode",
    ("encode", "binrw_slice"): "binrw_encode",
}


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def verdict(values, goal, sense):
    """"met" when every value meets the goal, "NOT met" when one does not, else "no data"."""
    if not values or any(v is None for v in values):
        return "no data"
    if goal is None:
        return "reported"
    ok = all(v <= goal if sense == "le" else v >= goal for v in values)
    return "met" if ok else "NOT met"


def goal_text(goal, sense, unit="x"):
    if goal is None:
        return "–"
    return ("<= " if sense == "le" else ">= ") + f"{goal}{unit}"


def instructions_section(data):
    ndims = data.get("ndims") or sorted({c["ndim"] for c in data["cases"]})
    per = {(c["code"], c["ndim"]): c["per_call"] for c in data["cases"]}
    what = {c["code"]: c.get("what", "") for c in data["cases"]}
    known = [code for code, _ in CODES]
    codes = [code for code in known if code in what] + [code for code in what if code not in known]
    labels = dict(CODES)

    def fmt(v):
        return "–" if v is None else f"{v:,.0f}"

    lines = ["| code | what | " + " | ".join(f"ndim {n}" for n in ndims) + " |", "|---" * (len(ndims) + 2) + "|"]
    for code in codes:
        cells = [fmt(per.get((code, n))) for n in ndims]
        lines.append(f"| `{code}` | {labels.get(code, what[code])} | " + " | ".join(cells) + " |")
    lines += ["", f"{data.get('method', '')}.", ""]

    lines += ["Ratios in instructions, against the goals stated for time (a ratio is met when it holds for "
              "every ndim):", ""]
    lines += ["| ratio | goal | " + " | ".join(f"ndim {n}" for n in ndims) + " | met |",
              "|---" * (len(ndims) + 3) + "|"]
    for label, num, den, goal, sense in RATIOS:
        a, b = CODE_OF.get(num), CODE_OF.get(den)
        values = []
        for n in ndims:
            x, y = per.get((a, n)), per.get((b, n))
            values.append(x / y if x is not None and y else None)
        cells = ["–" if v is None else f"{v:.3f}x" for v in values]
        lines.append(f"| {label} (`{a}` / `{b}`) | {goal_text(goal, sense)} | " + " | ".join(cells)
                     + f" | {verdict(values, goal, sense)} |")
    return lines


# ---------------------------------------------------------------------------------------------
# Allocations (allocs.json or allocs.txt, from tests/allocs.rs)
# ---------------------------------------------------------------------------------------------


def allocs_section(results):
    data = load_json(os.path.join(results, "allocs.json"))
    if data is None:
        try:
            with open(os.path.join(results, "allocs.txt")) as f:
                return f.read().rstrip("\n").splitlines()
        except OSError:
            return None
    ndims = data["ndims"]
    lines = [f'| operation (dtype "{data.get("dtype", "<f8")}") | ' + " | ".join(f"ndim {n}" for n in ndims)
             + " | not seen by Rust's allocator |", "|---" * (len(ndims) + 2) + "|"]
    for op in data["operations"]:
        cells = []
        for n in ndims:
            c = op["by_ndim"].get(str(n))
            cells.append("–" if c is None else f'{c["allocs"]} ({c["bytes"]} B)')
        lines.append(f'| {op["operation"]} | ' + " | ".join(cells) + f' | {op.get("note", "")} |')
    lines += ["", "Allocations (bytes requested) per call, counted by a global allocator in a "
              f'{data.get("profile", "release")} build; the malloc sizes in the last column are for the '
              "largest ndim."]
    return lines


# ---------------------------------------------------------------------------------------------
# Compile time (compile_time.json, from bench/scripts/compile_time.sh)
# ---------------------------------------------------------------------------------------------


def fmt_s(s):
    return "–" if s is None else f"{s:.2f} s"


def runs_text(runs, unit=" s"):
    return ", ".join(f"{r:.2f}" for r in runs) + unit if runs else "–"


def marginal_section(marginal):
    if not marginal:
        return []
    lines = ["", "Marginal cost in a crate that already derives serde (and so has built syn for serde_derive): "
             "clean builds of that crate alone and with each way of writing the three layouts added.", ""]
    lines += ["| crate | median | min | max | all runs | CPU (median) | crates compiled |",
              "|---|---|---|---|---|---|---|"]
    what = {"serde": "serde types", "serde_attr": "+ `#[metalayer]` layouts", "serde_binrw": "+ binrw layouts"}
    for crate in ("serde", "serde_attr", "serde_binrw"):
        c = marginal.get(crate)
        if c:
            lines.append(f'| {what[crate]} | {fmt_s(c["median_s"])} | {fmt_s(c.get("min_s"))} | '
                         f'{fmt_s(c.get("max_s"))} | {runs_text(c.get("runs_s"))} | {fmt_s(c.get("cpu_median_s"))} | '
                         f'{c.get("crates_compiled", "–")} |')
    lines += ["", "| added | run by run | median of the runs | CPU | registry crates it adds |", "|---|---|---|---|---|"]
    for name in ("attr", "binrw"):
        runs = marginal.get(f"{name}_marginal_runs_s")
        if runs is None:
            continue
        cpu = marginal.get(f"{name}_marginal_cpu_s")
        new = ", ".join(marginal.get(f"{name}_new_registry_dependencies", [])) or "none"
        lines.append(f'| {what["serde_" + name][2:]} | {", ".join(f"{d:+.2f}" for d in runs)} s | '
                     f'{marginal[f"{name}_marginal_paired_median_s"]:+.2f} s | '
                     f'{"–" if cpu is None else f"{cpu:+.2f} s"} | {new} |')
    if marginal.get("ratio_attr_over_binrw") is not None:
        cpu = marginal.get("cpu_ratio_attr_over_binrw")
        lines += ["", f'marginal attr / marginal binrw = **{marginal["ratio_attr_over_binrw"]:.3f}**'
                  + ("" if cpu is None else f" (in CPU seconds {cpu:.3f})")]
    return lines


def compile_section(data, top=10):
    clean = data.get("clean_build", {})
    lines = [f'Clean builds of three crates defining the built-in layouts ({data.get("profile", "debug")}); '
             f'{data.get("runs", "?")} timed runs each after {data.get("warmup_runs", "?")} warm-up.', ""]
    lines += ["| crate | median | all runs | crates compiled | registry dependencies |", "|---|---|---|---|---|"]
    what = {"attr": "attr (`#[metalayer]`)", "binrw": "binrw", "plain": "plain (no attribute)"}
    for crate in ("attr", "binrw", "plain"):
        c = clean.get(crate)
        if c:
            lines.append(f'| {what[crate]} | {fmt_s(c["median_s"])} | {runs_text(c.get("runs_s"))} | '
                         f'{c.get("crates_compiled", "–")} | {len(c.get("registry_dependencies", []))} |')
    attr, binrw, plain = (clean.get(c, {}).get("median_s") for c in ("attr", "binrw", "plain"))
    goal = clean.get("goal_ratio_max", 0.5)
    if attr is not None and binrw:
        ratio = attr / binrw
        lines += ["", f"attr / binrw = **{ratio:.3f}** (goal {goal_text(goal, 'le', '')}: "
                  f"{verdict([ratio], goal, 'le')})"]
        if plain is not None and binrw > plain:
            lines += [f"(attr - plain) / (binrw - plain) = {(attr - plain) / (binrw - plain):.3f}"]
        if clean.get("paired_ratios_attr_over_binrw"):
            lines += [f'run by run (the builds of a run are interleaved): '
                      f'{", ".join(f"{r:.2f}" for r in clean["paired_ratios_attr_over_binrw"])}, '
                      f'median {clean["paired_ratio_median"]:.3f}']
        if "cpu_ratio_attr_over_binrw" in clean:
            lines += [f'in CPU seconds (user + system, medians): attr {clean["attr"]["cpu_median_s"]:.2f} s, '
                      f'binrw {clean["binrw"]["cpu_median_s"]:.2f} s, ratio {clean["cpu_ratio_attr_over_binrw"]:.3f}']

    units = {c: clean.get(c, {}).get("unit_seconds_last_run") or [] for c in ("attr", "binrw")}
    if any(units.values()):
        lines += ["", f"Slowest compilation units of the last clean build (`cargo build --timings`; units "
                  f"overlap on several CPUs), top {top}:", ""]
        lines += ["| # | attr | s | binrw | s |", "|---|---|---|---|---|"]
        for i in range(min(top, max(len(u) for u in units.values()))):
            cells = []
            for c in ("attr", "binrw"):
                u = units[c]
                cells += [u[i][0], f"{u[i][1]:.2f}"] if i < len(u) else ["", ""]
            lines.append(f"| {i + 1} | " + " | ".join(cells) + " |")
        sums = [f"{c} {sum(s for _, s in units[c]):.2f} s ({len(units[c])} units)" for c in ("attr", "binrw")]
        lines += ["", "Sum of all units: " + ", ".join(sums) + "."]

    lines += marginal_section(data.get("marginal_over_serde"))

    rebuild = data.get("schema_rebuild")
    if rebuild:
        goal = rebuild.get("goal_max_s", 1.0)
        lines += ["", f"Rebuild of a binary crate after its schema file changes (goal {goal_text(goal, 'le', ' s')}):",
                  ""]
        lines += ["| change | median | all runs | crate recompiled | goal |", "|---|---|---|---|---|"]
        what = {"noop": "none (cargo's check)", "touch": "file touched", "description": "description edited",
                "name": "metalayer name edited"}
        for kind in ("noop", "touch", "description", "name"):
            r = rebuild.get(kind)
            if not r:
                continue
            rec = r.get("recompiled", [])
            rec_text = "all runs" if rec and all(rec) else ("no run" if not any(rec) else "some runs")
            v = "–" if kind == "noop" else verdict([r["median_s"]], goal, "le")
            lines.append(f'| {what[kind]} | {r["median_s"]:.3f} s | {runs_text(r.get("runs_s"))} | {rec_text} | {v} |')
    return lines


# ---------------------------------------------------------------------------------------------
# The CLI against python-blosc2 (cli.json, from bench/scripts/cli_vs_python.sh)
# ---------------------------------------------------------------------------------------------


def fmt_ms(ms):
    return "–" if ms is None else f"{ms:,.1f} ms"


def cli_section(data):
    m = data.get("machine", {})
    files = data.get("files", {})
    lines = [f'{files.get("count", "?")} files cycling {len(files.get("sources", []))} python-blosc2 4.x fixtures '
             f'({len(files.get("excluded", []))} excluded: python-blosc2 cannot read them); whole processes, '
             f'{data.get("runs", "?")} runs each; {m.get("python", "python ?")}, python-blosc2 {m.get("blosc2", "?")}.',
             ""]
    lines += ["| side | median | all runs | files read | command |", "|---|---|---|---|---|"]
    for key, label in (("cli", "metalayer inspect --json"), ("python", "python-blosc2 loop"),
                       ("python_import_only", "python + `import blosc2` alone")):
        s = data.get(key)
        if s:
            runs = ", ".join(f"{r:,.1f}" for r in s.get("runs_ms", [])) + " ms"
            lines.append(f'| {label} | {fmt_ms(s["median_ms"])} | {runs} | {s.get("files_read", "–")} | '
                         f'`{s.get("command", "")}` |')
    cli, py = data.get("cli", {}).get("median_ms"), data.get("python", {}).get("median_ms")
    goal = data.get("goal_ratio_min", 20)
    if cli and py:
        ratio = py / cli
        lines += ["", f"python / CLI = **{ratio:.1f}x** (goal {goal_text(goal, 'ge')}: {verdict([ratio], goal, 'ge')})"]
        imp = data.get("python_import_only", {}).get("median_ms")
        if imp is not None and py > imp:
            lines.append(f"(python's time beyond start-up and `import blosc2`, {py - imp:,.1f} ms, / CLI = "
                         f"{(py - imp) / cli:.1f}x)")

    reads = data.get("bytes_read")
    if reads:
        lines += ["", "Bytes read from the files (strace: bytes returned by read calls on them; rchar: the "
                  "process's I/O counter less the start-up's):", ""]
        lines += ["| files | count | file bytes | header bytes | CLI read (strace) | CLI rchar beyond start-up "
                  "| python read (strace) |", "|---|---|---|---|---|---|---|"]

        def strace(s):
            return "–" if not s else f'{s["read_bytes"]:,} in {s["read_calls"]:,} reads'

        for key in ("fixtures", "large"):
            r = reads.get(key)
            if not r:
                continue
            rchar = r.get("cli_rchar_minus_startup")
            lines.append(f'| {key} | {r["files"]} | {r["total_bytes"]:,} | {r["total_header_bytes"]:,} | '
                         f'{strace(r.get("cli_strace"))} | {"–" if rchar is None else f"{rchar:,}"} | '
                         f'{strace(r.get("python_strace"))} |')
        if reads.get("note"):
            lines += ["", reads["note"]]
    return lines


def fmt_kib(kib):
    return "–" if kib is None else f"{kib:,} KiB"


def fmt_us(us):
    return "–" if us is None else f"{us:,.1f} µs"


def cli_tree_section(data):
    m = data.get("machine", {})
    sizes = data.get("sizes", [])
    src = data.get("sources", {})
    layout = data.get("layout", {})
    lines = [f'Directory trees of N frames, real copies of {len(src.get("contiguous", []))} contiguous and '
             f'{len(src.get("sparse", []))} sparse python-blosc2 4.x fixtures ({len(src.get("excluded", []))} '
             f'excluded: python-blosc2 or the CLI cannot read them), {layout.get("files_per_dir", "?")} frames a '
             f'directory, one in {layout.get("sparse_every", "?")} a sparse frame. Whole processes, start-up '
             f'included, stdout to `/dev/null`, warm page cache; {m.get("python", "python ?")}, python-blosc2 '
             f'{m.get("blosc2", "?")}; peak RSS: {data.get("rss_source", "?")}.', ""]
    lines += ["| N | CLI total | CLI per file | CLI peak RSS | python frames | python total | python per file "
              "| python peak RSS | python / CLI per file | runs |", "|---" * 10 + "|"]
    goal = data.get("goal_ratio_min", 20)
    ratios = []
    for r in sizes:
        c, p = r.get("cli", {}), r.get("python", {})
        ratio = r.get("ratio_python_over_cli_per_file")
        ratios.append(ratio)
        lines.append(f'| {r["n"]:,} | {fmt_ms(c.get("median_s", 0) * 1e3)} | {fmt_us(c.get("per_file_us"))} | '
                     f'{fmt_kib(c.get("maxrss_kib_median"))} | {p.get("frames", 0):,} | '
                     f'{fmt_ms(p.get("median_s", 0) * 1e3)} | {fmt_us(p.get("per_file_us"))} | '
                     f'{fmt_kib(p.get("maxrss_kib_median"))} | '
                     f'{"–" if ratio is None else f"**{ratio:.1f}x**"} | {r.get("runs", "?")} |')
    lines += ["", f"python / CLI per file (goal {goal_text(goal, 'ge')}): {verdict(ratios, goal, 'ge')}."]
    cpu = [f'{r["n"]:,} frames: CLI {fmt_us(r["cli"].get("cpu_per_file_us"))}, python '
           f'{fmt_us(r["python"].get("cpu_per_file_us"))}' for r in sizes
           if r.get("cli", {}).get("cpu_per_file_us") is not None]
    if cpu:
        lines.append("CPU time (user + system) per file, less sensitive to the machine's load than wall time: "
                     + "; ".join(cpu) + ".")
    g = data.get("cli_rss_growth")
    if g:
        gr = g["ratio"]
        lines.append(f'CLI peak RSS at {g["n_high"]:,} / at {g["n_low"]:,} frames = **{gr:.3f}x** '
                     f'({g["difference_kib"]:+,} KiB; goal {goal_text(g.get("goal_ratio_max", 1.1), "le")}: '
                     f'{verdict([gr], g.get("goal_ratio_max", 1.1), "le")}).')
    fixed = []
    for key, label in (("floor", "`/bin/true`"), ("cli_startup_only", "`metalayer --version`"),
                       ("python_import_only", "python + `import blosc2`")):
        f = data.get(key)
        if f:
            fixed.append(f'{label} {fmt_ms(f["median_s"] * 1e3)}, {fmt_kib(f.get("maxrss_kib_median"))}')
    if fixed:
        lines += ["", "Fixed costs, measured the same way: " + "; ".join(fixed) + "."]
    rows = [r for r in sizes if r.get("tree")]
    if rows:
        lines += ["", "The trees (made once and reused; not part of the timed comparison):", "",
                  "| N | files | directories (besides sparse frames) | sparse frames | bytes | on disk | made in |", "|---" * 7 + "|"]
        for r in rows:
            t = r["tree"]
            lines.append(f'| {r["n"]:,} | {t.get("files", 0):,} | {t.get("directories", 0):,} | '
                         f'{t.get("sparse_frames", 0):,} | {t.get("bytes", 0):,} | {fmt_kib(t.get("disk_kib"))} | '
                         f'{t.get("generation_s", 0):.1f} s |')
    problems = [f'N = {r["n"]:,}: {p}' for r in sizes for p in r.get("check", {}).get("problems", [])]
    checked = all(r.get("check", {}).get("ok") for r in sizes)
    lines += ["", "Each side reads the same of every frame: the header's fields (sizes, codec, clevel, filters, "
              "split mode, ratio), every metalayer and every vlmetalayer, decompressed and decoded. Checked "
              "before timing: the CLI printed N JSON lines, none with an error, and python-blosc2 found the same "
              "metalayer and vlmetalayer names, nbytes, cbytes, codec and clevel in the same frames: "
              + ("yes." if checked and sizes else "NO.")]
    lines += [f"- {p}" for p in problems]
    return lines


# ---------------------------------------------------------------------------------------------
# The machine, and when each part ran
# ---------------------------------------------------------------------------------------------




def fmt_load(load):
    return "–" if not load else " ".join(f"{x:.2f}" for x in load)


def iso_mtime(path):
    t = os.path.getmtime(path)
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).isoformat(timespec="seconds")


def newest_estimate(root):
    newest = None
    for dirpath, _, files in os.walk(root):
        if "estimates.json" in files and os.path.basename(dirpath) == "new":
            t = os.path.getmtime(os.path.join(dirpath, "estimates.json"))
            newest = t if newest is None or t > newest else newest
    if newest is None:
        return None
    return datetime.datetime.fromtimestamp(newest, datetime.timezone.utc).isoformat(timespec="seconds")


def same_run(part, written):
    """Whether results written at `written` (ISO 8601) come from the run recorded in `part`."""
    try:
        start = datetime.datetime.fromisoformat(part["started"])
        end = start + datetime.timedelta(seconds=part["seconds"] + 60)
        return start - datetime.timedelta(seconds=5) <= datetime.datetime.fromisoformat(written) <= end
    except (KeyError, TypeError, ValueError):
        return False


def machine_section(root, results, loaded):
    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    try:
        load = list(os.getloadavg())
    except OSError:
        load = None
    lines = ["| | |", "|---|---|",
             f"| date of this report | {now} |",
             f'| rustc | {cmd("rustc", "--version") or "–"} |',
             f"| CPUs (nproc) | {os.cpu_count()} |",
             f"| CPU model | {cpu_model() or '–'} |",
             f"| OS | {platform.platform()} |",
             f"| load average (1, 5, 15 min) now | {fmt_load(load)} |"]

    parts = load_json(os.path.join(results, "parts.json")) or {}
    rows = []
    # (part, results, when they were written, load average, machine) for each result found.
    if os.path.isdir(root):
        rows.append(("criterion", os.path.relpath(root, REPO), newest_estimate(root), None, None))
    for name, key, fname in (("callgrind", "instructions", "instructions.json"), ("allocs", "allocs", "allocs.json"),
                             ("compile_time", "compile_time", "compile_time.json"), ("cli", "cli", "cli.json"),
                             ("cli_tree", "cli_tree", "cli_tree.json")):
        path = os.path.join(results, fname)
        if not os.path.exists(path):
            continue
        d = loaded.get(key) or {}
        mach = d.get("machine", {})
        mtext = None
        if mach:
            mtext = f'{mach.get("rustc", "?")}, {mach.get("nproc", "?")} CPUs'
        rows.append((name, os.path.relpath(path, REPO), d.get("date") or iso_mtime(path), mach.get("loadavg_at_end"),
                     mtext))
    if rows:
        lines += ["", "When each part's results were written, with the load average around the part when "
                  "`bench/run.sh` ran it (`parts.json`):", ""]
        lines += ["| part | results | written | took | load before | load after | measured with |",
                  "|---|---|---|---|---|---|---|"]
        for name, path, date, end_load, mtext in rows:
            p = parts.get(name, {})
            if not same_run(p, date):
                p = {}
            took = f'{p["seconds"]} s' if "seconds" in p else "–"
            before = fmt_load(p.get("loadavg_before"))
            after = fmt_load(p.get("loadavg_after") or end_load)
            note = f' ({p["note"]})' if p.get("note") else ""
            mtext = mtext or "–"
            lines.append(f"| {name}{note} | `{path}` | {date or '–'} | {took} | {before} | {after} | {mtext} |")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--criterion-dir", default=DEFAULT_DIR, help="criterion's output directory")
    parser.add_argument("--results-dir", default=DEFAULT_RESULTS,
                        help="where bench/run.sh and the scripts write their JSON files")
    args = parser.parse_args()
    root = os.path.normpath(args.criterion_dir)
    results = os.path.normpath(args.results_dir)

    loaded = {key: load_json(os.path.join(results, f"{key}.json"))
              for key in ("instructions", "allocs", "compile_time", "cli", "cli_tree")}
    have_allocs_txt = os.path.exists(os.path.join(results, "allocs.txt"))
    if not os.path.isdir(root) and not any(loaded.values()) and not have_allocs_txt:
        sys.exit(f"{root}, {results}: no results; run `bench/run.sh` first")

    out = ["# metalayer benchmarks", "", "## Machine", ""]
    out += machine_section(root, results, loaded)

    if os.path.isdir(root):
        out += ["", "## Decoding b2nd_v1 (median time per call)", ""]
        out += times_table(root, "decode", DECODERS)
        out += ["", "## Encoding b2nd_v1 (median time per call)", ""]
        out += times_table(root, "encode", ENCODERS)
        ratios, all_met = ratio_table(root)
        out += ["", "## Ratios and goals (a ratio is met when it holds for every case)", ""]
        out += ratios
        out += ["", "All goals met." if all_met else "Not every goal is met."]
        out += ["", "## Macro expansion per struct (`metalayer_codegen::expand_in`)", ""]
        out += expand_table(root)
    else:
        out += ["", "## Times (criterion)", "", f"No results in `{root}`: run `cargo bench -p metalayer-bench`."]

    out += ["", "## Instructions per call (callgrind)", ""]
    if loaded["instructions"]:
        out += instructions_section(loaded["instructions"])
    else:
        out += ["No `instructions.json`: run `bench/run.sh` with valgrind installed."]

    out += ["", "## Heap allocations per call", ""]
    out += allocs_section(results) or ["No `allocs.json`: run `bench/run.sh`."]

    out += ["", "## Compile time of the attribute", ""]
    if loaded["compile_time"]:
        out += compile_section(loaded["compile_time"])
    else:
        out += ["No `compile_time.json`: run `bench/scripts/compile_time.sh`."]

    out += ["", "## `metalayer inspect` against python-blosc2", ""]
    if loaded["cli"]:
        out += cli_section(loaded["cli"])
    else:
        out += ["No `cli.json`: run `bench/scripts/cli_vs_python.sh`."]

    out += ["", "## `metalayer inspect --jsonl` over a directory tree against python-blosc2", ""]
    if loaded["cli_tree"]:
        out += cli_tree_section(loaded["cli_tree"])
    else:
        out += ["No `cli_tree.json`: run `bench/scripts/cli_tree.sh`."]
    print("\n".join(out))


if __name__ == "__main__":
    main()
