#!/usr/bin/env bash
# Renders the plots of a benchmark run with gnuplot: ns per operation against N (log-log, one
# line per structure) for W1, W2 and W6, and the W5 distribution of single-advance times.
# Reads DIR/plots/data/*.dat (written by timerwheel_bench --out=DIR; w1packed.dat, W1 with packed
# nodes, is timerwheel_bench_packed's w1.dat, which scripts/bench.sh copies there), writes
# DIR/plots/*.png, and small copies to docs/bench/ with --publish.
# Usage: bench/plot.sh [DIR (default results)] [--publish]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

dir=results
publish=0
for a in "$@"; do
  case "$a" in
    --publish) publish=1 ;;
    *) dir="$a" ;;
  esac
done
data="$dir/plots/data"
if ! command -v gnuplot >/dev/null 2>&1; then
  echo "plot.sh: gnuplot not found; no plots (scripts/bench.sh installs it)" >&2
  exit 0
fi

# plot NAME TITLE YLABEL XLABEL [extra gnuplot settings]
plot() {
  local name=$1 title=$2 ylabel=$3 xlabel=$4 extra=${5:-}
  [ -s "$data/$name.dat" ] || return 0
  for size in big small; do
    local out="$dir/plots/$name.png" term="pngcairo size 1000,650 font ',10'"
    if [ $size = small ]; then
      [ $publish = 1 ] || continue
      out="docs/bench/$name.png"
      term="pngcairo size 640,420 font ',8'"
    fi
    gnuplot <<GP
set terminal $term noenhanced
set output '$out'
set title '$title'
set logscale xy
set xlabel '$xlabel'
set ylabel '$ylabel'
set key outside right top
set grid
set colorsequence podo
$extra
plot for [i=0:*] '$data/$name.dat' index i using 1:2 with linespoints title columnheader(1)
GP
  done
}

mkdir -p "$dir/plots"
[ $publish = 1 ] && mkdir -p docs/bench
plot w1 'W1 churn (R = 2^20): cancel + schedule' 'ns per pair' 'N pending timers' \
  'set xrange [50:2e6]'
plot w1packed 'W1 churn (R = 2^20), packed nodes: cancel + schedule' 'ns per pair' \
  'N pending timers' 'set xrange [50:2e6]'
plot w2 'W2 expiry (step R/1024): schedule + fire' 'ns per timer' 'N timers' \
  'set xrange [50:2e6]'
plot w2fire 'W2 expiry (step R/1024): fire alone' 'ns per timer' 'N timers' \
  'set xrange [50:2e6]'
plot w6 'W6 hold (exponential increments)' 'ns per hold' 'N events' \
  'set xrange [50:2e6]'
plot w6unif 'W6 hold (uniform increments)' 'ns per hold' 'N events' 'set xrange [50:2e6]'
plot w6bimodal 'W6 hold (bimodal increments)' 'ns per hold' 'N events' 'set xrange [50:2e6]'
plot w6tri 'W6 hold (triangular increments)' 'ns per hold' 'N events' 'set xrange [50:2e6]'
plot w6trace 'W6 hold (packet-link trace)' 'ns per hold' 'N events' 'set xrange [50:2e6]'
plot w1ss 'W1 start/stop without advancing (event loops)' 'ns per pair' 'N pending timers' \
  'set xrange [50:2e6]'
plot w5 'W5 tail: single 1-tick advances, W1 at N = 1e6' 'fraction of advances slower' \
  'ns per advance'
echo "plots: $dir/plots/*.png$([ $publish = 1 ] && echo ' and docs/bench/*.png')"
