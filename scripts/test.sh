#!/usr/bin/env bash
# Configure, build and test with the `dev` preset (Debug, ASan/UBSan, -Werror; all but the
# exhaustive enumeration, the headers' compile tests and the corpus replay, which the other
# stages cover; the random streams at a quarter of their steps; the benchmarks in one node
# layout), then with `clang-release` (clang++, Release at -O2, -Werror, no sanitizers; every
# test), then the tests that start threads under ThreadSanitizer (`tsan`),
# then fuzz for a minute (scripts/fuzz.sh: the `fuzz` preset, clang++).
# Extra arguments go to both ctest runs, e.g. scripts/test.sh -L package
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/deps.sh
cmake --preset dev
cmake --build --preset dev
# The exhaustive enumeration (not built in dev) and the headers' self-containment (label headers)
# run in the clang -O2 stage below, the first in seconds instead of minutes; the sanitizers watch
# the same code through every other test, whose random streams run a quarter of their steps here
# (TIMERWHEEL_STEPS_PERCENT in the dev test preset), and through the fuzzer.
ctest --preset dev -LE headers "$@"

cmake --preset clang-release
cmake --build --preset clang-release
ctest --preset clang-release "$@"

# ThreadSanitizer over every test that starts a thread (label `threads`): only those binaries
# are built (target timerwheel_threaded_tests).
cmake --preset tsan
cmake --build --preset tsan --target timerwheel_threaded_tests
ctest --preset tsan -L threads

bash scripts/fuzz.sh 60
