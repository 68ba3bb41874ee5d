#!/usr/bin/env bash
# The main job: build the benchmarks with the `release` preset and run the comparison in both
# node layouts (bench/adapters/common.hpp):
#   timerwheel_bench         64-byte nodes, one cache line per object: every workload and peer
#   timerwheel_bench_packed  packed nodes (the wheel's hook and the payload in 32 bytes, the
#                            heaps' in 16): W1 at every N, W2 and W6, on the wheels, the binary
#                            and 4-ary heaps in both their layouts (keyed and compact), HiTime's
#                            scheme and the two floors
# It prints both tables and writes only under results/ (ignored by git), never a tracked file:
#   results/latest.txt       both runs' output
#   results/latest.csv       both tables, one row per figure (columns layout and node_bytes)
#   results/line64/, results/packed32/   each run's own CSV and plot data
#   results/plots/*.png      the plots (64-byte nodes; w1packed.png: W1 with packed nodes)
#   results/lateness.txt     W7a: the event loop's lateness beside Boost.Asio, libuv and libev
#
# Usage: bash scripts/bench.sh [--full] [--publish] [--out=DIR] [benchmark arguments...]
#   quick by default (about 6 minutes on 2 cores); --full runs the whole sweep
#   --publish   also copy both tables to docs/bench/latest.txt and small plots to docs/bench/,
#               the figures the README quotes (only a whole run publishes: no filter,
#               --no-extras or --out with it)
#   --out=DIR   results under DIR instead of results/
#   other arguments go to both binaries after the script's own, e.g. --benchmark_filter=W1
# Instruction counts (callgrind): bash bench/callgrind.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

out=results
publish=0
partial=
args=()
for a in "$@"; do
  case "$a" in
    --full) full=1 ;;
    --publish) publish=1 ;;
    --out=*) out=${a#--out=} partial=$a ;;
    --benchmark_filter* | --no-extras) args+=("$a") partial=$a ;;
    *) args+=("$a") ;;
  esac
done
if ((publish)) && [ -n "$partial" ]; then
  echo "bench.sh: --publish publishes a whole run only; drop $partial" >&2
  exit 2
fi
mode=(--quick)
[ -n "${full:-}" ] && mode=()

# The peers (Boost.Heap and Boost.Asio, libevent, libuv) and gnuplot for the plots.
bash scripts/deps.sh libboost-dev libevent-dev libuv1-dev libev-dev pkg-config gnuplot-nox
cmake --preset release >/dev/null
jobs=$(nproc)
((jobs > 2)) && jobs=2
cmake --build --preset release --target timerwheel_bench timerwheel_bench_packed -j "$jobs"

bin=build/release/bench
mkdir -p "$out/line64" "$out/packed32"
# Both layouts' runs on one core, the one this script runs on now (a --cpu=N among the
# arguments, passed after this one, picks another): see pin_to_cpu in bench/main.cpp.
cpu=$(awk '{print $39}' /proc/self/stat)
status=0
# 64-byte nodes: everything.
start=$SECONDS
"$bin/timerwheel_bench" "${mode[@]}" --out="$out/line64" --cpu="$cpu" "${args[@]}" |
  tee "$out/line64/output.txt" || status=$?
# Packed nodes: the workloads whose figures the layout moves (a node touched per step or per
# timer), on the structures the goals compare; no extras (W4's bytes do not depend on the
# layout, W5 and the paper table stay with the 64-byte run).
packed_structures='heap|heap4|heap_compact|heap4_compact|wheel6|wheel8|hitime_scheme|floor|list_floor'
"$bin/timerwheel_bench_packed" "${mode[@]}" --out="$out/packed32" --no-extras --cpu="$cpu" \
  --benchmark_filter="^(W1/churn|W1/period|W2/expiry|W6/hold)/.*/($packed_structures)/" \
  "${args[@]}" | tee "$out/packed32/output.txt" || status=$?
echo "bench.sh: both runs took $((SECONDS - start)) s"

cat "$out/line64/output.txt" "$out/packed32/output.txt" >"$out/latest.txt"
csvs=()
for f in "$out/line64/latest.csv" "$out/packed32/latest.csv"; do
  [ -s "$f" ] && csvs+=("$f")
done
if ((${#csvs[@]})); then
  # One header, then every row of both layouts.
  awk 'FNR > 1 || NR == 1' "${csvs[@]}" >"$out/latest.csv"
fi

rm -rf "$out/plots"
mkdir -p "$out/plots"
[ -d "$out/line64/plots/data" ] && cp -r "$out/line64/plots/data" "$out/plots/data"
[ -s "$out/packed32/plots/data/w1.dat" ] && cp "$out/packed32/plots/data/w1.dat" \
  "$out/plots/data/w1packed.dat"
plot_args=("$out")
((publish)) && plot_args+=(--publish)
bash bench/plot.sh "${plot_args[@]}" || status=1

# W7a lateness (docs/workloads.md): a plain program, the event loop's timers beside Boost.Asio,
# libuv and libev doing the same job; built only when they are found.
if cmake --build --preset release --target timerwheel_bench_lateness -j "$jobs"; then
  build/release/bench/lateness/timerwheel_bench_lateness | tee "$out/lateness.txt" || status=$?
else
  echo "bench.sh: timerwheel_bench_lateness not built (Boost.Asio, libuv or libev missing?)" >&2
  status=1
fi

if ((publish)); then
  # The tables only (from each header on), without Google Benchmark's own lines.
  for f in "$out/line64/output.txt" "$out/packed32/output.txt"; do
    sed -n '/^=== timerwheel benchmark ===/,$p' "$f" | grep -v '^wrote '
  done >docs/bench/latest.txt
  echo "published: docs/bench/latest.txt and docs/bench/*.png"
fi

# W7, the thread-safe service against Boost.Asio, timerfd and mutex-guarded structures
# (bench/service): one repetition in quick mode, three with --full. Exits 1 on a lost, repeated
# or early firing.
w7=(--quick)
[ -n "${full:-}" ] && w7=()
if cmake --build --preset release --target timerwheel_bench_service -j "$jobs"; then
  "$bin/service/timerwheel_bench_service" "${w7[@]}" | tee "$out/w7.txt" || status=1
fi
exit "$status"
