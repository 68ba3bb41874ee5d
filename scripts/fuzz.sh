#!/usr/bin/env bash
# Build the lockstep fuzzer (fuzz/lockstep_fuzz.cpp) with the `fuzz` preset
# (clang++, libFuzzer, ASan+UBSan) and run it for SECONDS (default 60) from
# the checked-in corpus (fuzz/corpus, read only; new inputs go to
# build/fuzz/corpus and are kept between runs). Exits non-zero on any finding:
# the input is saved under build/fuzz/findings/ and replays with
#   build/fuzz/fuzz/lockstep_fuzz FILE          (libFuzzer binary)
#   build/dev/fuzz/lockstep_fuzz_replay FILE    (any compiler, dev preset)
# Usage: scripts/fuzz.sh [SECONDS] [libFuzzer options...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds="${1:-60}"
shift $(($# > 0 ? 1 : 0))

bash scripts/deps.sh
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz --target lockstep_fuzz

mkdir -p build/fuzz/corpus build/fuzz/findings
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
status=0
build/fuzz/fuzz/lockstep_fuzz build/fuzz/corpus fuzz/corpus \
  -max_total_time="$seconds" -max_len=4096 -len_control=10 -timeout=60 \
  -artifact_prefix=build/fuzz/findings/ -print_final_stats=1 "$@" || status=$?
if ((status != 0)); then
  echo "fuzz.sh: the fuzzer found a problem (exit $status); the input is in build/fuzz/findings/" >&2
  echo "fuzz.sh: replay it with build/fuzz/fuzz/lockstep_fuzz FILE" >&2
fi
exit "$status"
