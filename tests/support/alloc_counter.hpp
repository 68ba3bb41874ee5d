// Counting replacements of the global operator new / delete. Link
// alloc_counter.cpp into a test binary to use them; only that binary's
// allocations are replaced. Counting happens only between start() and stop(),
// so that the test framework's own allocations stay out of the figures.
#pragma once

#include <cstddef>

namespace timerwheel_test::alloc {

struct counts {
  std::size_t allocations = 0;    // calls to any operator new while counting
  std::size_t deallocations = 0;  // calls to any operator delete while counting
  std::size_t bytes_allocated = 0;
  // Bytes allocated while counting and not yet freed (whenever freed).
  std::size_t live_bytes = 0;
  std::size_t peak_live_bytes = 0;
};

// Resets every figure and starts counting.
void start() noexcept;
// Stops counting and returns the figures.
counts stop() noexcept;
// The figures so far, counting or not.
counts current() noexcept;

// Counts while it lives.
class scope {
 public:
  scope() noexcept { start(); }
  ~scope() { stop(); }
  scope(const scope&) = delete;
  scope& operator=(const scope&) = delete;
};

}  // namespace timerwheel_test::alloc
