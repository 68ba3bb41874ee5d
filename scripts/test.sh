#!/usr/bin/env bash
# Configure, build and test with the `dev` preset (Debug, ASan/UBSan, -Werror),
# then with `clang-release` (clang++, Release at -O2, -Werror, no sanitizers),
# then fuzz for a minute (scripts/fuzz.sh: the `fuzz` preset, clang++).
# Extra arguments go to both ctest runs, e.g. scripts/test.sh -L package
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/deps.sh
cmake --preset dev
cmake --build --preset dev
ctest --preset dev "$@"

cmake --preset clang-release
cmake --build --preset clang-release
ctest --preset clang-release "$@"

bash scripts/fuzz.sh 60
