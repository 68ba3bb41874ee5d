#!/usr/bin/env python3
"""Where W7's late firings came from, from timerwheel_bench_service_probe's files.

    W7_PROBE=DIR timerwheel_bench_service_probe --threads=8 --only=service,asio
    python3 bench/service/probe_report.py DIR [TICK_US]

For each service run (DIR/run-N-*.csv), over the timed part: the lateness
of the timers that fired, and past their tick edge; the worker's time
(taking messages, waiting on a half-pushed node, firing, between rounds:
asleep or preempted); and for the late tail (>= 0.9 of the run's p99), what
the worker was doing at the tick edge and how long until it fired: in a
round's message taking (a long one: the service's doing) or between rounds
(asleep past its time, or preempted: the machine's); and where the
producers ran: the share of them on the worker's core.

Rounds fire first and then take messages (older probes: take, then fire;
told apart by the columns' times).
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
        rows = list(csv.DictReader(open(base + "-rounds.csv")))
        rounds = [{k: int(v) for k, v in r.items()} for r in rows]
        for r in rounds:
            r.setdefault("busy", 0)
            r.setdefault("busy_ns", 0)
        rounds.sort(key=lambda r: r["begin"])
        fire_first = sum(1 for r in rounds if r["fired_at"] <= r["drained_at"]) > len(rounds) / 2
        for r in rounds:
            if fire_first:
                r["fire0"], r["take0"], r["take1"] = r["begin"], r["fired_at"], r["drained_at"]
            else:
                r["take0"], r["take1"], r["fire0"] = r["begin"], r["drained_at"], r["drained_at"]
            r["end"] = max(r["fired_at"], r["drained_at"])
        # deadline, fired, start, end[, submitted: when schedule() returned]
        fired = [[int(r["deadline"]), int(r["fired"]), int(r["start"]), int(r["end"]),
                  int(r.get("submitted") or 0)] for r in csv.DictReader(open(base + "-fired.csv"))]
        if not fired or not rounds:
            continue
        start, end = fired[0][2], fired[0][3]
        timed = [r for r in rounds if start <= r["begin"] <= end]
        span = max(1, end - start)
        ends = [r["fired_at"] for r in rounds]
        begins = [r["begin"] for r in rounds]
        late, tail = [], []
        for dl, f, _, _, sub in fired:
            if dl < start or dl > end:
                continue
            late.append(f - dl)
        p99 = pct(late, 0.99)
        seen = set()
        for dl, f, _, _, sub in fired:
            if dl < start or dl > end or f - dl < 0.9 * p99:
                continue
            edge = -(-dl // tick) * tick
            if edge in seen:
                continue
            seen.add(edge)
            if sub > edge:
                # Submitted after its own tick edge: the producer was off the
                # processor between taking its deadline and submitting.
                tail.append((f - edge, "submitted after its edge", 0, 0, 0, 0))
                continue
            i = bisect.bisect_right(begins, edge) - 1  # the last round begun by the edge
            j = bisect.bisect_left(ends, f)  # the round that fired it
            if i < 0 or j >= len(rounds):
                continue
            r = rounds[i]
            scan = r.get("next_ns", 0)
            if scan > 0 and r["end"] <= edge <= r["end"] + scan + 50_000:
                tail.append((f - edge, "in next_deadline()", 0, rounds[j]["start"], r["backlog"], 0))
                continue
            if edge <= r["end"]:
                what = "taking messages" if r["take0"] <= edge <= r["take1"] else "firing"
            else:
                what = "between rounds"
            pre = rounds[min(j + 1, len(rounds) - 1)]["nivcsw"] - r["nivcsw"]
            if what == "between rounds" and i + 1 < len(rounds) and rounds[i + 1]["start"] != 0:
                # It slept: woken by its time or a kick, and how late against the edge.
                nxt = rounds[i + 1]
                what = ("asleep, woke " if nxt["start"] == 1 else "asleep, kicked ") + \
                    f"{(nxt['begin'] - edge) / 1e3:.0f} us after the edge"
            tail.append((f - edge, what, pre, rounds[j]["start"], r["backlog"],
                         sum(x["busy_ns"] for x in rounds[i:j + 1])))
        post = [f - (-(-dl // tick) * tick) for dl, f, _, _, sub in fired if start <= dl <= end]
        print(f"run {run}: fired {len(late)}, lateness p50 {pct(late, .5)/1e3:.0f} us p99 {p99/1e3:.0f} us;"
              f" past the edge p50 {pct(post, .5)/1e3:.0f} p99 {pct(post, .99)/1e3:.0f} us")
        take = sum(r["take1"] - r["take0"] for r in timed)
        busy = sum(r["busy_ns"] for r in timed)
        fire = sum(r["fired_at"] - r["fire0"] for r in timed)
        print(f"   worker: {len(timed)} rounds; taking messages {take/span*100:.0f}% of the timed part"
              f" (of which waiting on half-pushed nodes {busy/span*100:.0f}%, {sum(r['busy'] for r in timed)} waits),"
              f" firing {fire/span*100:.0f}%, between rounds {100 - (take+fire)/span*100:.0f}%;"
              f" preempted {timed[-1]['nivcsw'] - timed[0]['nivcsw'] if timed else 0} times")
        scans = sorted(r.get("next_ns", 0) for r in timed if r.get("next_ns", 0) > 0)
        if scans:
            print(f"   the wheel's next_deadline() before sleeping: {len(scans)} calls,"
                  f" p50 {pct(scans, .5)/1e3:.1f} us, p99 {pct(scans, .99)/1e3:.0f} us,"
                  f" max {scans[-1]/1e3:.0f} us")
        # Producers beside the worker: at each round, the share of the
        # producers whose latest core sample was the worker's core.
        per = {}
        cpus = base + "-cpus.csv"
        if os.path.exists(cpus):
            for c in sorted(csv.DictReader(open(cpus)), key=lambda c: int(c["ns"])):
                ts, cs = per.setdefault(int(c["thread"]), ([], []))
                ts.append(int(c["ns"]))
                cs.append(int(c["cpu"]))
        shares = []
        for r in timed:
            k = n = 0
            for ts, cs in per.values():
                x = bisect.bisect_right(ts, r["begin"]) - 1
                if x >= 0:
                    n += 1
                    k += cs[x] == r["cpu"]
            if n:
                shares.append(k / n)
        if shares:
            print(f"   producers on the worker's core: {sum(shares) / len(shares):.2f} of them"
                  f" (mean over its rounds)")
        kinds = {}
        for t in tail:
            kinds.setdefault(t[1].split(",")[0], []).append(t)
        print(f"   late tail: {len(tail)} tick edges; at the edge the worker was: " +
              ", ".join(f"{k} {len(v)} (preempted in {sum(1 for t in v if t[2] > 0)},"
                        f" waiting on half-pushed nodes {sum(t[5] for t in v)/1e3:.0f} us in all)"
                        for k, v in kinds.items()))
        for t in sorted(tail, key=lambda t: -t[0])[:4]:
            print(f"     {t[0]/1e3:.0f} us past the edge: {t[1]}, preempted {t[2]}, backlog {t[4]},"
                  f" waited on half-pushed nodes {t[5]/1e3:.0f} us, fired in a round begun by"
                  f" {['a loop', 'a timed wake', 'a kick'][t[3]]}")


if __name__ == "__main__":
    main()
