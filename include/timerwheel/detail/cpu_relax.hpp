// A hint to the processor inside a spin-wait loop: on x86 the pause
// instruction (it saves power and lets a sibling hardware thread run), and
// elsewhere nothing.
#pragma once

#include "abi.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace timerwheel::inline TIMERWHEEL_ABI {
namespace detail {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

}  // namespace detail
}  // namespace timerwheel::inline TIMERWHEEL_ABI
