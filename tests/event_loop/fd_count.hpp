// The number of descriptors the process has open, from /proc/self/fd (the
// directory's own descriptor, open while it is read, left out).
#pragma once

#include <cstddef>
#include <filesystem>

namespace timerwheel_test {

inline std::size_t open_descriptors() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    ++n;
  }
  return n - 1;
}

}  // namespace timerwheel_test
