#!/usr/bin/env bash
# Build the benchmarks with the `release` preset and run them.
# Arguments go to the benchmark binary, e.g. scripts/bench.sh --benchmark_filter=advance
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/deps.sh
cmake --preset release >/dev/null

if ! ninja -C build/release -t query timerwheel_bench >/dev/null 2>&1; then
  echo "bench.sh: no 'timerwheel_bench' target (bench/CMakeLists.txt missing or TIMERWHEEL_BUILD_BENCH=OFF)" >&2
  exit 1
fi

cmake --build --preset release --target timerwheel_bench
exec build/release/bench/timerwheel_bench "$@"
