// Bit deposit: the low bits of a value placed, in order, at the set bits of
// a mask (BMI2's PDEP), with the instruction where the build has it.
#pragma once

#include <cstdint>
#include <type_traits>

#include "abi.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::detail {

// Whether deposit() is one instruction in this build: callers on a hot
// path use it only then.
inline constexpr bool deposit_is_fast =
#if defined(__BMI2__) && defined(__x86_64__)
    true;
#else
    false;
#endif

// Bit i of `x` goes to the i-th lowest set bit of `mask`; the bits of `x`
// beyond the mask's count are dropped.
constexpr std::uint64_t deposit(std::uint64_t x, std::uint64_t mask) noexcept {
#if defined(__BMI2__) && defined(__x86_64__)
  if (!std::is_constant_evaluated()) return __builtin_ia32_pdep_di(x, mask);
#endif
  std::uint64_t out = 0;
  for (std::uint64_t m = mask; m != 0; m &= m - 1, x >>= 1)
    if ((x & 1) != 0) out |= m & (0 - m);
  return out;
}

}  // namespace timerwheel::inline TIMERWHEEL_ABI::detail
