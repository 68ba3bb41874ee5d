#!/usr/bin/env bash
# Build the lockstep fuzzer (fuzz/lockstep_fuzz.cpp) with the `fuzz` preset
# (clang++, libFuzzer, ASan+UBSan) and run it for SECONDS (default 60) from
# the checked-in corpus (fuzz/corpus, read only; new inputs go to
# build/fuzz/corpus and are kept between runs). Exits non-zero on any finding:
# the input is saved under build/fuzz/findings/ and replays with
#   build/fuzz/fuzz/lockstep_fuzz FILE          (libFuzzer binary)
#   build/dev/fuzz/lockstep_fuzz_replay FILE    (any compiler, dev preset; built on demand)
#
# On a non-zero exit it prints, for every file in build/fuzz/findings/, its
# name, its bytes in base64 and the commands that recreate and replay it, then
# replays it so that the mismatch's report is in the log: a CI machine's build
# directory goes with its clone, the log stays.
#
# libFuzzer's exit codes: 77 for a crash (an abort: the harness's report of a
# mismatch, a misuse check, an uncaught exception), a leak or the target
# calling exit(); 70 for a timeout; 71 for out-of-memory (-rss_limit_mb,
# -malloc_limit_mb); 1 for an AddressSanitizer or UBSan report.
#
# Usage: scripts/fuzz.sh [SECONDS] [libFuzzer options...]
# Environment: FUZZ_BUILD_DIR (default build/fuzz) and REPLAY_BUILD_DIR
# (default build/dev) name other binary directories.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds="${1:-60}"
shift $(($# > 0 ? 1 : 0))

dir="${FUZZ_BUILD_DIR:-build/fuzz}"
replay_dir="${REPLAY_BUILD_DIR:-build/dev}"
findings="$dir/findings"

bash scripts/deps.sh
cmake --preset fuzz -B "$dir" >/dev/null
cmake --build "$dir" --target lockstep_fuzz

mkdir -p "$dir/corpus" "$findings"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
log="$dir/last-run.log"
status=0
"$dir/fuzz/lockstep_fuzz" "$dir/corpus" fuzz/corpus \
  -max_total_time="$seconds" -max_len=4096 -len_control=10 -timeout=60 \
  -artifact_prefix="$findings/" -print_final_stats=1 "$@" 2>&1 | tee "$log" || status=${PIPESTATUS[0]}
((status == 0)) && exit 0

# The replay binary: the dev build's when there is one (as in CI, after
# scripts/test.sh built it), else one built here with the fuzzer's compiler.
replay="$replay_dir/fuzz/lockstep_fuzz_replay"
if [[ -f "$replay_dir/CMakeCache.txt" ]] &&
  cmake --build "$replay_dir" --target lockstep_fuzz_replay >/dev/null 2>&1; then
  :
else
  replay="$dir/fuzz/lockstep_fuzz_replay"
  cmake --build "$dir" --target lockstep_fuzz_replay >/dev/null 2>&1 || replay=""
fi

{
  echo
  echo "======== fuzz.sh: the fuzzer exited with $status ========"
  case "$status" in
    77) echo "(libFuzzer: a crash -- an abort such as the harness's mismatch report --, a leak, or exit())" ;;
    70) echo "(libFuzzer: a timeout: one input ran longer than -timeout)" ;;
    71) echo "(libFuzzer: out of memory: -rss_limit_mb or -malloc_limit_mb)" ;;
    1) echo "(an AddressSanitizer or UndefinedBehaviorSanitizer report)" ;;
  esac
  echo "---- the last 60 lines of the fuzzer's output ($log) ----"
  tail -n 60 "$log"
  shopt -s nullglob
  files=("$findings"/{crash,leak,timeout,oom,slow-unit}-*)
  if ((${#files[@]} == 0)); then
    echo "---- no crash-*, leak-*, timeout-*, oom-* or slow-unit-* file in $findings/ ----"
  fi
  for f in "${files[@]}"; do
    name=$(basename "$f")
    echo
    echo "---- finding $name ($(wc -c <"$f") bytes, $(date -r "$f" -u +%FT%TZ)) ----"
    echo "base64:"
    base64 -w0 "$f"
    echo
    echo "recreate and replay it:"
    echo "  echo '$(base64 -w0 "$f")' | base64 -d > $name"
    echo "  $dir/fuzz/lockstep_fuzz $name                 # libFuzzer binary (fuzz preset)"
    echo "  build/dev/fuzz/lockstep_fuzz_replay $name     # any compiler (dev preset)"
    if [[ -n "$replay" ]]; then
      echo "---- $replay $f ----"
      rc=0
      timeout 300 "$replay" "$f" >"$dir/replay.log" 2>&1 || rc=$?
      # A mismatch report lists every operation of the input: its head says
      # what differed, its tail what led to it.
      lines=$(wc -l <"$dir/replay.log")
      if ((lines <= 300)); then
        cat "$dir/replay.log"
      else
        head -n 150 "$dir/replay.log"
        echo "... ($((lines - 250)) lines left out; replay it for all of them) ..."
        tail -n 100 "$dir/replay.log"
      fi
      echo "---- the replay exited with $rc ----"
    else
      echo "---- no replay binary could be built ----"
    fi
  done
  echo "======== fuzz.sh: end of the findings ========"
} >&2
exit "$status"
