#!/usr/bin/env bash
# Instructions per operation under callgrind, for W1 (churn) and W2 (expiry) at N = 1e5, of the
# wheel and the indexed binary heap, and their ratio: figures that do not move with the load of
# a shared machine. Each figure is the difference of two runs divided by the difference of their
# operations, which cancels the setup (building the structure, scheduling the N timers):
#   W1: STEPS and STEPS/2 cancel+schedule steps on the same N timers
#   W2: N timers and N/2 timers (so the figure is the marginal cost per timer around N), fired
#       in steps of R/1024 (W2) and of 1 tick (W2/1)
# Usage: bench/callgrind.sh [N (default 100000)] [W1 steps (default 200000)] [structures...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

n=${1:-100000}
steps=${2:-200000}
shift $(($# > 2 ? 2 : $#)) || true
structures=("$@")
((${#structures[@]})) || structures=(wheel6 heap)

bash scripts/deps.sh valgrind
cmake --preset release >/dev/null
cmake --build --preset release --target timerwheel_callgrind -j 2 >/dev/null
bin=build/release/bench/timerwheel_callgrind
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# instructions STRUCTURE WORKLOAD N STEPS -> "Ir ops"
instructions() {
  local out="$tmp/cg.$1.$2.$3.$4"
  valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out" \
    "$bin" "$1" "$2" "$3" "$4" >"$out.stdout" 2>"$out.stderr" || {
    cat "$out.stderr" >&2
    echo "callgrind.sh: $* failed" >&2
    exit 1
  }
  local ir ops
  ir=$(awk '/^totals:/ {print $2}' "$out")
  ops=$(awk '/^ops/ {print $2}' "$out.stdout")
  echo "$ir $ops"
}

declare -A per_op
printf '%-8s %-10s %14s\n' workload structure 'instr/op'
workloads=(W1 W2 W2/1)
for w in "${workloads[@]}"; do
  for s in "${structures[@]}"; do
    if [ $w = W1 ]; then
      read -r ir1 ops1 < <(instructions "$s" W1 "$n" "$steps")
      read -r ir0 ops0 < <(instructions "$s" W1 "$n" $((steps / 2)))
    else
      step=0
      [ $w = W2/1 ] && step=1
      read -r ir1 ops1 < <(instructions "$s" W2 "$n" $step)
      read -r ir0 ops0 < <(instructions "$s" W2 $((n / 2)) $step)
    fi
    per_op[$w.$s]=$(awk -v a="$ir1" -v b="$ir0" -v x="$ops1" -v y="$ops0" \
      'BEGIN { printf "%.1f", (a - b) / (x - y) }')
    printf '%-8s %-10s %14s\n' "$w" "$s" "${per_op[$w.$s]}"
  done
done
base=${structures[${#structures[@]} - 1]}
echo
for w in "${workloads[@]}"; do
  for s in "${structures[@]}"; do
    [ "$s" = "$base" ] && continue
    awk -v w="$w" -v s="$s" -v b="$base" -v x="${per_op[$w.$s]}" -v y="${per_op[$w.$base]}" \
      'BEGIN { printf "%s N='"$n"': %s / %s = %.3f instructions per op\n", w, s, b, x / y }'
  done
done
