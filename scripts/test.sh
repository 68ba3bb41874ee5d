#!/usr/bin/env bash
# Configure, build and test with the `dev` preset (Debug, ASan/UBSan, -Werror),
# then fuzz for a minute (scripts/fuzz.sh: the `fuzz` preset, clang++).
# Extra arguments go to ctest, e.g. scripts/test.sh -L package
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/deps.sh
cmake --preset dev
cmake --build --preset dev
ctest --preset dev "$@"
bash scripts/fuzz.sh 60
