#!/usr/bin/env python3
"""Where W7's late firings came from, from timerwheel_bench_service_probe's files.

    W7_PROBE=DIR timerwheel_bench_service_probe --threads=8 --only=service,asio
    python3 bench/service/probe_report.py DIR [TICK_US]

For each service run (DIR/run-N-*.csv): the lateness past the tick edge of
each timer that fired in the timed part, split at the round of the worker
that fired it into: the edge to the round's start (the worker busy with an
earlier round, asleep past its time, or preempted), the round's start to
the end of its message taking (the drain), and the drain's end to the
firing; and, for the late ones (past the run's p99), whether the worker was
preempted meanwhile (its involuntary context switches rose) and what it was
doing.
"""
import bisect
import csv
import glob
import os
import sys


def pct(v, p):
    if not v:
        return 0.0
    v = sorted(v)
    return v[int(p * (len(v) - 1))]


def main():
    d = sys.argv[1]
    tick = int(sys.argv[2]) * 1000 if len(sys.argv) > 2 else 1_000_000
    runs = sorted({int(os.path.basename(f).split("-")[1]) for f in glob.glob(d + "/run-*-rounds.csv")})
    for run in runs:
        base = f"{d}/run-{run}"
        rounds = [[int(x) for x in r] for r in list(csv.reader(open(base + "-rounds.csv")))[1:]]
        # start,asked,begin,drained_at,fired_at,first_due,backlog,drained,fired,busy,busy_ns,cpu,nivcsw
        rounds.sort(key=lambda r: r[2])
        fired = [[int(x) for x in r] for r in list(csv.reader(open(base + "-fired.csv")))[1:]]
        if not fired:
            continue
        start, end = fired[0][2], fired[0][3]
        ends = [r[4] for r in rounds]
        late, parts = [], []
        for dl, f, _, _ in fired:
            if dl < start or dl > end:
                continue
            edge = -(-dl // tick) * tick
            i = bisect.bisect_left(ends, f)
            if i >= len(rounds):
                continue
            r = rounds[i]
            # r[12]: involuntary switches at this round's start; the next round's tells
            # whether the worker was preempted from the edge to the firing.
            prev = rounds[i - 1] if i > 0 else r
            nxt = rounds[i + 1] if i + 1 < len(rounds) else r
            pre = nxt[12] - prev[12]
            late.append(f - dl)
            parts.append((f - edge, r[2] - edge, r[3] - r[2], f - r[3], r[0], r[6], r[7], pre, r[9],
                          r[2] - prev[4]))
        p99 = pct(late, 0.99)
        post = [p[0] for p in parts]
        print(f"run {run}: fired {len(late)}, lateness p50 {pct(late, .5)/1e3:.0f} us p99 {p99/1e3:.0f} us; "
              f"past the edge p50 {pct(post, .5)/1e3:.0f} p99 {pct(post, .99)/1e3:.0f} us")
        tail = [p for p, l in zip(parts, late) if l >= p99 * 0.9]
        tail_rounds = {}
        for p in tail:
            tail_rounds.setdefault((p[1], p[2]), p)
        w = [p[1] for p in parts]
        dr = [p[2] for p in parts]
        print(f"   all firings: edge->round start p50 {pct(w,.5)/1e3:.0f} p99 {pct(w,.99)/1e3:.0f} us;"
              f" drain p50 {pct(dr,.5)/1e3:.1f} p99 {pct(dr,.99)/1e3:.0f} us")
        pre = sum(1 for p in tail_rounds.values() if p[7] > 0)
        print(f"   late tail (>= 0.9 p99): {len(tail)} firings in {len(tail_rounds)} rounds, "
              f"{pre} of those rounds with the worker preempted around them")
        for p in sorted(tail_rounds.values(), key=lambda p: -p[0])[:6]:
            how = ["loop", "timed", "kicked"][p[4]]
            print(f"     past edge {p[0]/1e3:.0f} us = edge->start {p[1]/1e3:.0f} + drain {p[2]/1e3:.0f}"
                  f" + fire {p[3]/1e3:.0f}; start {how}, backlog {p[5]}, drained {p[6]},"
                  f" preempted {p[7]}, busy pops {p[8]}, gap since last round {p[9]/1e3:.0f} us")


if __name__ == "__main__":
    main()
