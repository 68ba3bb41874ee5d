#!/usr/bin/env bash
# Install the Debian 12 packages timerwheel needs, but only those missing.
# Usage: scripts/deps.sh [extra-package...]     (quiet when nothing is missing)
set -euo pipefail

# clang: the clang-release preset and scripts/fuzz.sh, with libclang-rt-14-dev
# (libFuzzer's runtime) and llvm-14 (llvm-symbolizer, for the stack traces of
# the fuzzer's and the sanitizers' reports).
packages=(cmake ninja-build g++ libgtest-dev libgmock-dev libbenchmark-dev clang libclang-rt-14-dev
  llvm-14 pkg-config "$@")

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "deps.sh: dpkg not found (not Debian?); install manually: ${packages[*]}" >&2
  exit 0
fi

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$pkg")
  fi
done

((${#missing[@]} == 0)) && exit 0

echo "deps.sh: installing missing packages: ${missing[*]}" >&2
if [[ $(id -u) -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "deps.sh: not root and no sudo; please install: ${missing[*]}" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
