// Reports a misuse that cannot be an exception (a destructor, a noexcept
// copy) and stops the program: used by the checks of debug builds.
#pragma once

#include <cstdio>
#include <cstdlib>

#include "abi.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::detail {

[[noreturn]] inline void misuse(const char* what) noexcept {
  std::fprintf(stderr, "timerwheel: misuse: %s\n", what);
  std::fflush(stderr);
  std::abort();
}

}  // namespace timerwheel::inline TIMERWHEEL_ABI::detail
