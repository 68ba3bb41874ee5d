#!/usr/bin/env python3
"""The README's two tables from several runs of scripts/bench.sh.

Usage: python3 bench/readme_tables.py RUN_DIR... [--big W2_DIR...]

Each RUN_DIR is a bench.sh --out directory (its line64/latest.csv and
packed32/latest.csv); each W2_DIR after --big is the --out directory of a
timerwheel_bench or timerwheel_bench_packed run of W2 at N = 1e6 (not in the
quick run), told apart by their layout column.

Every figure is the median over the runs of each run's median; a range
follows where the runs' figures differ by more than 25%. Every ratio is
taken within a run (one process, one sequence) and given as the median of
the runs' ratios with their range. "x binary heap" and "x 4-ary heap" are
against the faster of each heap's two layouts (keyed and compact) in that
run, as the report's goals read them. A goal is judged on the median ratio.
"""

import csv
import os
import statistics
import sys

# (workload label, N label, CSV workload, CSV size, goal): goal is
# (peer, bound, text) where peer is "heap" (the binary heap), "heap4" or
# "hitime_scheme" (a bound on the ratio), or "self" (on the wheel's own
# figure), or None.
ROWS = [
    ("W1 churn: cancel + schedule", "1e2", "W1 churn", "N=100 R=2^20", ("heap", 0.15, "≤ 0.15 x heap")),
    ("W1 churn: cancel + schedule", "1e3", "W1 churn", "N=1e3 R=2^20", ("heap", 0.15, "≤ 0.15 x heap")),
    ("W1 churn: cancel + schedule", "1e5", "W1 churn", "N=1e5 R=2^20", ("heap", 0.15, "≤ 0.15 x heap")),
    ("W1 churn: cancel + schedule", "1e6", "W1 churn", "N=1e6 R=2^20", ("heap", 0.25, "≤ 0.25 x heap")),
    ("W1 churn: cancel + schedule", "1e6, R = 2^32", "W1 churn", "N=1e6 R=2^32", ("heap", 0.25, "≤ 0.25 x heap")),
    ("W1 start/stop only", "1e5", "W1 start/stop", "N=1e5 R=2^20", None),
    ("W2 schedule + fire", "1e3 1-tick steps", "W2 expiry", "N=1e3 step=1", ("heap4", 1.0, "≤ 4-ary")),
    ("W2 schedule + fire", "1e3 steps of R/1024", "W2 expiry", "N=1e3 step=R/1024", ("heap4", 1.0, "≤ 4-ary")),
    ("W2 schedule + fire", "1e5 1-tick steps", "W2 expiry", "N=1e5 step=1", ("heap4", 1.0, "≤ 4-ary")),
    ("W2 schedule + fire", "1e5 steps of R/1024", "W2 expiry", "N=1e5 step=R/1024", ("heap4", 1.0, "≤ 4-ary")),
    ("W2 schedule + fire †", "1e6 1-tick steps", "W2 expiry", "N=1e6 step=1", ("heap4", 0.4, "≤ 0.4 x 4-ary")),
    ("W2 schedule + fire †", "1e6 steps of R/1024", "W2 expiry", "N=1e6 step=R/1024", ("heap4", 0.4, "≤ 0.4 x 4-ary")),
    ("W3 one advance across idle time", "1e3 span 2^40", "W3 idle jumps", "N=1e3 span=2^40", ("heap", 2.0, "≤ 2 x heap")),
    ("W3 one advance across idle time", "1e3 span 2^21", "W3 idle jumps", "N=1e3 span=2^21", ("heap", 2.0, "≤ 2 x heap")),
    ("W4 memory per pending timer", "1e6", "W4 memory", "N=1e6", ("self", 24.0, "≤ 24 bytes")),
    ("W5 single 1-tick advance", "1e6 p50", "W5 tail", "N=1e6 R=2^20 p50", None),
    ("W5 single 1-tick advance", "1e6 p99.9", "W5 tail", "N=1e6 R=2^20 p99.9", ("heap", 1.0, "≤ heap")),
    ("W5 single 1-tick advance", "1e6 max", "W5 tail", "N=1e6 R=2^20 max", None),
    ("W6 hold", "1e2 exp", "W6 hold", "N=100 exp", None),
    ("W6 hold", "1e2 trace", "W6 hold", "N=100 trace", None),
    ("W6 hold", "1e4 exp", "W6 hold", "N=1e4 exp", ("heap", 0.5, "≤ 0.5 x heap")),
    ("W6 hold", "1e6 exp", "W6 hold", "N=1e6 exp", ("heap", 0.5, "≤ 0.5 x heap")),
    ("W6 hold", "1e6 trace", "W6 hold", "N=1e6 trace", ("heap", 0.5, "≤ 0.5 x heap")),
]

# The structures whose faster layout stands for each heap.
LAYOUTS = {"heap": ("heap", "heap_compact"), "heap4": ("heap4", "heap4_compact")}


def load(path, table):
    """Adds path's rows to table[(layout, workload, size, structure)] -> list of ns."""
    if not os.path.exists(path):
        return
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["median_ns"] in ("", "-"):
                continue
            layout = "packed" if row["layout"].startswith("packed") else "line"
            key = (layout, row["workload"], row["size"], row["structure"])
            table.setdefault(key, []).append(float(row["median_ns"]))


def fmt(x):
    if x >= 1000:
        return f"{x:,.0f}"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}" if x < 20 else f"{x:.0f}"
    if x >= 1:
        return f"{x:.2f}" if x < 2 else f"{x:.1f}"
    return f"{x:.3f}"


def spread(values):
    """Median, with the range where the values differ by more than 25%."""
    m = statistics.median(values)
    lo, hi = min(values), max(values)
    if lo > 0 and hi / lo > 1.25:
        return f"{fmt(m)} ({fmt(lo)}-{fmt(hi)})"
    return fmt(m)


def ratio_text(values):
    m = statistics.median(values)
    lo, hi = min(values), max(values)
    if len(values) > 1 and hi - lo > 0.005 * m:
        return f"{fmt(m)} ({fmt(lo)}-{fmt(hi)})", m
    return fmt(m), m


def runs_of(table, layout, workload, size, structure):
    return table.get((layout, workload, size, structure), [])


def peer_per_run(table, layout, workload, size, peer):
    """The peer's figure in each run: the faster of its layouts for a heap."""
    names = LAYOUTS.get(peer, (peer,))
    series = [runs_of(table, layout, workload, size, n) for n in names]
    series = [s for s in series if s]
    if not series:
        return []
    count = min(len(s) for s in series)
    return [min(s[k] for s in series) for k in range(count)]


def table_for(table, layout):
    out = [
        "| workload | N | wheel (6-bit levels) | x binary heap | x 4-ary heap | x HiTime's scheme | goal |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for label, n, workload, size, goal in ROWS:
        wheel = runs_of(table, layout, workload, size, "wheel6")
        if not wheel:
            continue
        unit = " bytes" if workload == "W4 memory" else " ns"
        cells = [label, n, spread(wheel) + unit]
        medians = {}
        for peer in ("heap", "heap4", "hitime_scheme"):
            other = peer_per_run(table, layout, workload, size, peer)
            count = min(len(other), len(wheel))
            if count == 0:
                cells.append("-")
                continue
            text, m = ratio_text([wheel[k] / other[k] for k in range(count)])
            medians[peer] = m
            cells.append(text)
        if goal is None:
            cells.append("")
        else:
            peer, bound, text = goal
            if peer == "self":
                # W4's figure spreads the wheel's fixed bytes over its million timers (0.04 a
                # timer); the goal is on the hook, as the report reads it.
                met = round(statistics.median(wheel), 1) <= bound
                cells.append(f"{text}: {'met' if met else 'missed'}")
            elif peer in medians:
                cells.append(f"{text}: {'met' if medians[peer] <= bound else 'missed'}")
            else:
                cells.append(text)
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 2
    runs, big = argv, []
    if "--big" in argv:
        i = argv.index("--big")
        runs, big = argv[:i], argv[i + 1:]
    table = {}
    for d in runs:
        load(os.path.join(d, "line64", "latest.csv"), table)
        load(os.path.join(d, "packed32", "latest.csv"), table)
    for d in big:
        load(os.path.join(d, "latest.csv"), table)
    print(f"{len(runs)} runs, {len(big)} runs of W2 at 1e6\n")
    print("64-byte nodes:\n")
    print(table_for(table, "line"))
    print("\nPacked nodes:\n")
    print(table_for(table, "packed"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
