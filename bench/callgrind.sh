#!/usr/bin/env bash
# Instructions per operation under callgrind, for W1 (churn) and W2 (expiry) at N = 1e5, of the
# wheel and the indexed binary heap, and their ratio: figures that do not move with the load of
# a shared machine. Each figure is the difference of two runs divided by the difference of their
# operations, which cancels the setup (building the structure, scheduling the N timers):
#   W1: STEPS and STEPS/2 cancel+schedule steps on the same N timers
#   W2: N timers and N/2 timers (so the figure is the marginal cost per timer around N), fired
#       in steps of R/1024 (W2) and of 1 tick (W2/1)
# Usage: bench/callgrind.sh [N (default 100000)] [W1 steps (default 200000)] [structures...]
# With CACHE=1, W1 also under callgrind's cache model (--cache-sim=yes: no prefetching, no
# out-of-order): data reads and writes a step and L1 / last-level misses a step, beside the
# instructions.
#
# W6 hold: bench/callgrind.sh W6 [holds (default 100000)] [structures...] gives instructions per
# hold (and with CACHE=1, D1 and last-level misses per hold under --cache-sim=yes) at N = 1e2,
# 1e4 and 1e6 (W6_SIZES) for every increment distribution (W6_DISTS), of wheel6, wheel8,
# calendar, ladder and heap by default: each the difference of HOLDS and HOLDS/2 holds after the
# same max(N, 10000) holds of warm-up, over the difference of their holds.
#
# CALLGRIND_TARGET=timerwheel_callgrind_lto runs the same on the binary built with -flto, whose
# C face's adapters inline the C library's hot calls as a C program built with -flto does
# (GCC; docs/c.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/deps.sh valgrind
cmake --preset release >/dev/null
target=${CALLGRIND_TARGET:-timerwheel_callgrind}
cmake --build --preset release --target "$target" -j 2 >/dev/null
bin=build/release/bench/$target
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ "${1:-}" = W6 ]; then
  holds=${2:-100000}
  shift $(($# > 2 ? 2 : $#)) || true
  w6_structures=("$@")
  ((${#w6_structures[@]})) || w6_structures=(wheel6 wheel8 calendar ladder heap)
  cache=()
  [ "${CACHE:-0}" = 1 ] && cache=(--cache-sim=yes)
  # counts STRUCTURE DIST N HOLDS -> "Ir D1mr+D1mw LLmr+LLmw holds"
  counts() {
    local out="$tmp/cg.$1.$2.$3.$4"
    valgrind --tool=callgrind --instr-atstart=no "${cache[@]}" --callgrind-out-file="$out" \
      "$bin" "$1" "W6/$2" "$3" "$4" >"$out.stdout" 2>"$out.stderr" || {
      cat "$out.stderr" >&2
      echo "callgrind.sh: W6 $* failed" >&2
      exit 1
    }
    awk '/^events:/ {for (i = 2; i <= NF; i++) col[$i] = i}
         /^totals:/ {d = col["D1mr"] ? $col["D1mr"] + $col["D1mw"] : 0
                     l = col["DLmr"] ? $col["DLmr"] + $col["DLmw"] : 0
                     printf "%s %s %s ", $2, d, l}' "$out"
    awk '/^ops/ {print $2}' "$out.stdout"
  }
  printf '%-8s %-8s %-9s %12s' N dist structure 'instr/hold'
  [ ${#cache[@]} -gt 0 ] && printf ' %10s %10s' 'D1 miss' 'LL miss'
  echo
  for n in ${W6_SIZES:-100 10000 1000000}; do
    for d in ${W6_DISTS:-exp unif bimodal tri trace}; do
      for s in "${w6_structures[@]}"; do
        read -r i1 d1 l1 h1 < <(counts "$s" "$d" "$n" "$holds")
        read -r i0 d0 l0 h0 < <(counts "$s" "$d" "$n" $((holds / 2)))
        awk -v n="$n" -v d="$d" -v s="$s" -v c=${#cache[@]} \
          -v i1="$i1" -v i0="$i0" -v d1="$d1" -v d0="$d0" -v l1="$l1" -v l0="$l0" \
          -v h1="$h1" -v h0="$h0" 'BEGIN {
            printf "%-8s %-8s %-9s %12.1f", n, d, s, (i1 - i0) / (h1 - h0)
            if (c) printf " %10.2f %10.2f", (d1 - d0) / (h1 - h0), (l1 - l0) / (h1 - h0)
            printf "\n" }'
      done
    done
  done
  exit 0
fi

n=${1:-100000}
steps=${2:-200000}
shift $(($# > 2 ? 2 : $#)) || true
structures=("$@")
((${#structures[@]})) || structures=(wheel6 heap)


cache=${CACHE:-0}

# instructions STRUCTURE WORKLOAD N STEPS -> "Ir ops", or with CACHE=1 for W1:
# "Ir ops Dr Dw D1mr D1mw DLmr"
instructions() {
  local out="$tmp/cg.$1.$2.$3.$4"
  local sim=()
  [ "$cache" = 1 ] && [ "$2" = W1 ] && sim=(--cache-sim=yes)
  valgrind --tool=callgrind --instr-atstart=no "${sim[@]}" --callgrind-out-file="$out" \
    "$bin" "$1" "$2" "$3" "$4" >"$out.stdout" 2>"$out.stderr" || {
    cat "$out.stderr" >&2
    echo "callgrind.sh: $* failed" >&2
    exit 1
  }
  local ir ops
  ir=$(awk '/^totals:/ {print $2}' "$out")
  ops=$(awk '/^ops/ {print $2}' "$out.stdout")
  if [ ${#sim[@]} -gt 0 ]; then
    # events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
    echo "$ir $ops $(awk '/^totals:/ {print $3, $4, $6, $7, $9}' "$out")"
  else
    echo "$ir $ops"
  fi
}

declare -A per_op
printf '%-8s %-10s %14s\n' workload structure 'instr/op'
workloads=(W1 W2 W2/1)
for w in "${workloads[@]}"; do
  for s in "${structures[@]}"; do
    if [ $w = W1 ]; then
      read -r ir1 ops1 m1 < <(instructions "$s" W1 "$n" "$steps")
      read -r ir0 ops0 m0 < <(instructions "$s" W1 "$n" $((steps / 2)))
      if [ "$cache" = 1 ]; then
        echo "$m1 $m0" | awk -v x="$ops1" -v y="$ops0" -v s="$s" '{ d = x - y
          printf "W1 %s a step: reads %.2f writes %.2f D1 read misses %.3f D1 write misses %.3f LL read misses %.3f\n",
            s, ($1 - $6) / d, ($2 - $7) / d, ($3 - $8) / d, ($4 - $9) / d, ($5 - $10) / d }' >&2
      fi
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
