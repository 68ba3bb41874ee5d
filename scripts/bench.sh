#!/usr/bin/env bash
# The main job: build the benchmarks with the `release` preset, run the
# comparison and print its table (results/latest.csv holds the same figures).
# Quick by default (about a minute on 2 cores); --full runs the whole sweep.
# Other arguments go to the benchmark binary, e.g. --benchmark_filter=W1.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target timerwheel_bench -j "$(nproc)"

args=(--quick)
for a in "$@"; do
  if [ "$a" = "--full" ]; then args=(); else args+=("$a"); fi
done
exec build/release/bench/timerwheel_bench "${args[@]}"
