// cpu_pause(): a spin-wait hint to the processor, for a wait of a few
// hundred cycles at most (a no-op where the processor has none).
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "abi.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::detail {

inline void cpu_pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace timerwheel::inline TIMERWHEEL_ABI::detail
