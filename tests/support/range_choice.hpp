// An independent model of schedule_in_range's choice: the value in [lo, hi]
// with the most trailing zero bits.
#pragma once

#include <cstdint>
#include <limits>

namespace timerwheel_test {

// Requires lo <= hi. Tries each power of two from the largest down: the first
// multiple of 2^t at or after lo that is still <= hi has the most trailing
// zeros (two distinct multiples of 2^t would enclose a multiple of 2^(t+1)).
inline std::uint64_t most_trailing_zeros_in(std::uint64_t lo, std::uint64_t hi) {
  if (lo == 0) return 0;  // 0 has every bit zero
  for (int t = 63; t >= 0; --t) {
    const std::uint64_t step = std::uint64_t{1} << t;
    const std::uint64_t down = lo & ~(step - 1);
    if (down == lo) return lo;  // lo is the first multiple of 2^t at or after lo
    if (down > std::numeric_limits<std::uint64_t>::max() - step) continue;
    if (down + step <= hi) return down + step;
  }
  return lo;  // not reached: t == 0 always returns
}

// The number of trailing zero bits of x, 64 for zero (a naive loop on purpose).
inline int trailing_zeros(std::uint64_t x) {
  if (x == 0) return 64;
  int n = 0;
  while ((x & 1U) == 0) {
    x >>= 1U;
    ++n;
  }
  return n;
}

}  // namespace timerwheel_test
