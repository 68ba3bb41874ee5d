#!/usr/bin/env bash
# Configure, build and test with the `dev` preset (Debug, ASan/UBSan, -Werror; all but the
# exhaustive enumeration and the corpus replay, which the fuzz stage covers; the benchmarks in
# one node layout), then with `clang-release` (clang++, Release at -O2, -Werror, no
# sanitizers; every test), then the tests that start threads under ThreadSanitizer (`tsan`),
# then fuzz for a minute (scripts/fuzz.sh: the `fuzz` preset, clang++).
# Extra arguments go to both ctest runs, e.g. scripts/test.sh -L package
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/deps.sh
cmake --preset dev
cmake --build --preset dev
# The exhaustive enumeration (label exhaustive) runs in the clang -O2 stage below, where it takes
# seconds instead of minutes; sanitizers watch the same code through every other test and the fuzzer.
ctest --preset dev -LE exhaustive "$@"

cmake --preset clang-release
cmake --build --preset clang-release
ctest --preset clang-release "$@"

# ThreadSanitizer over every test that starts a thread (label `threads`): only those binaries
# are built (target timerwheel_threaded_tests).
cmake --preset tsan
cmake --build --preset tsan --target timerwheel_threaded_tests
ctest --preset tsan -L threads

bash scripts/fuzz.sh 60
