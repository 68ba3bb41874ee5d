#!/usr/bin/env bash
# The main job: build the benchmarks with the `release` preset, run the comparison, print its
# table (results/latest.csv holds the same figures) and render the plots (results/plots/*.png,
# small copies in docs/bench/, the table in docs/bench/latest.txt).
# Quick by default (under 2 minutes on 2 cores); --full runs the whole sweep.
# Other arguments go to the benchmark binary, e.g. --benchmark_filter=W1 or --no-extras.
# Instruction counts (callgrind): bash bench/callgrind.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The peers (Boost.Heap and Boost.Asio, libevent, libuv) and gnuplot for the plots.
bash scripts/deps.sh libboost-dev libevent-dev libuv1-dev pkg-config gnuplot-nox
cmake --preset release >/dev/null
jobs=$(nproc)
((jobs > 2)) && jobs=2
cmake --build --preset release --target timerwheel_bench -j "$jobs"

args=(--quick)
for a in "$@"; do
  if [ "$a" = "--full" ]; then args=(); else args+=("$a"); fi
done
mkdir -p results
status=0
build/release/bench/timerwheel_bench "${args[@]}" | tee results/latest.txt || status=$?
publish=--publish
for a in "$@"; do
  case "$a" in --benchmark_filter*|--out=*|--no-extras) publish= ;; esac
done
bash bench/plot.sh results $publish || status=1
if [ -n "$publish" ]; then
  # The table only (from the header on), without Google Benchmark's own lines.
  sed -n '/^=== timerwheel benchmark ===/,$p' results/latest.txt | grep -v '^wrote ' \
    >docs/bench/latest.txt
fi
exit "$status"
