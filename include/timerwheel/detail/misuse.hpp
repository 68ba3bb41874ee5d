// Reports a misuse that cannot be an exception (a destructor, a noexcept
// copy) and stops the program: used by the checks of debug builds.
#pragma once

#include <cstdio>
#include <cstdlib>

#if !defined(TIMERWHEEL_CHECKED)
#if defined(NDEBUG)
#define TIMERWHEEL_CHECKED 0
#else
#define TIMERWHEEL_CHECKED 1
#endif
#endif

namespace timerwheel::detail {

[[noreturn]] inline void misuse(const char* what) noexcept {
  std::fprintf(stderr, "timerwheel: misuse: %s\n", what);
  std::fflush(stderr);
  std::abort();
}

}  // namespace timerwheel::detail
