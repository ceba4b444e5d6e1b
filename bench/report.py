#!/usr/bin/env python3
"""Prints the results of `cargo bench -p metalayer-bench` as markdown tables.

Reads criterion's `target/criterion/<group>/<bench>/new/estimates.json` (the median's point
estimate) and prints the absolute times per case, the ratios the project's goals are stated in,
and whether each goal is met, then the attribute's expansion time per struct.

    python3 bench/report.py [--criterion-dir DIR]
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DIR = os.path.join(HERE, "..", "target", "criterion")

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
    ("rmp_serde", "rmp-serde"),
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
    ("rmp-serde / ours borrowed (speed-up)", ("decode", "rmp_serde"), ("decode", "ours_borrowed"), 5.0, "ge"),
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
            elif (sense == "le" and r > goal) or (sense == "ge" and r < goal):
                met = False
            cells.append(fmt_ratio(r))
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--criterion-dir", default=DEFAULT_DIR, help="criterion's output directory")
    args = parser.parse_args()
    root = os.path.normpath(args.criterion_dir)
    if not os.path.isdir(root):
        sys.exit(f"{root}: no criterion results; run `cargo bench -p metalayer-bench` first")

    out = ["## Decoding b2nd_v1 (median time per call)", ""]
    out += times_table(root, "decode", DECODERS)
    out += ["", "## Encoding b2nd_v1 (median time per call)", ""]
    out += times_table(root, "encode", ENCODERS)
    ratios, all_met = ratio_table(root)
    out += ["", "## Ratios and goals (a ratio is met when it holds for every case)", ""]
    out += ratios
    out += ["", "## Macro expansion per struct (`metalayer_codegen::expand_in`)", ""]
    out += expand_table(root)
    out += ["", "All goals met." if all_met else "Not every goal is met."]
    print("\n".join(out))


if __name__ == "__main__":
    main()
