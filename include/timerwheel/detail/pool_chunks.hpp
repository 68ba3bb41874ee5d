// The layout of a node pool that grows by chunks and never moves a node,
// as timer_queue's and timers' pools do: chunk c holds `size(c)` = 64 << c
// nodes, from index `start(c)` = 64 * (2^c - 1) on. Indices are 32-bit, and
// `none` is no index.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

#include "abi.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI {
namespace detail {

struct pool_chunks {
  static constexpr std::uint32_t none = ~std::uint32_t{0};
  static constexpr std::size_t first = 64;

  static constexpr std::size_t size(std::size_t c) noexcept { return first << c; }
  static constexpr std::size_t start(unsigned c) noexcept {
    return first * ((std::size_t{1} << c) - 1);
  }
  // The chunk that holds `index`.
  static constexpr unsigned of(std::size_t index) noexcept {
    return static_cast<unsigned>(std::bit_width(index / first + 1)) - 1;
  }
  // The most nodes whole chunks hold below `none`: 2^32 - 64.
  static constexpr std::size_t max_capacity() noexcept {
    unsigned c = 0;
    while (start(c + 1) <= none) ++c;
    return start(c);
  }
};

}  // namespace detail
}  // namespace timerwheel::inline TIMERWHEEL_ABI
