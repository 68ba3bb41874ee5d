// The configuration of a wheel: its tick type and the bits of each level.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "detail/abi.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI {

// `levels<Tick, Bits...>`: a wheel over ticks of type `Tick` (an unsigned
// integer) whose level k has 2^Bits[k] slots, lowest (finest) level first.
// Level k's slots are 2^(Bits[0] + ... + Bits[k-1]) ticks wide. Levels whose
// bits together cover the tick type need no far list; a configuration that
// covers fewer bits keeps one for the timers beyond its top level. Ticks
// narrower than 64 bits wrap around: every instant is read as the nearest one
// to now.
template <class Tick, unsigned... Bits>
struct levels {
  static_assert(std::is_unsigned_v<Tick> && !std::is_same_v<Tick, bool>,
                "the tick type must be an unsigned integer type");
  static_assert(std::numeric_limits<Tick>::digits <= 64, "ticks wider than 64 bits");
  static_assert(sizeof...(Bits) >= 1, "a wheel needs at least one level");
  static_assert(((Bits >= 1 && Bits <= 12) && ...), "each level has 1 to 12 bits");

  using tick_type = Tick;
  static constexpr unsigned count = sizeof...(Bits);
  static constexpr std::array<unsigned, count> bits{Bits...};
  // Whether the wheel keeps a count of its timers (see `counted`).
  static constexpr bool constant_time_size = false;
};

// A configuration may also name `static constexpr std::uint32_t
// front_walk_after`: how many timers the spreading of cascades moves out of
// a diverted slot from its back alone before it walks the slot from both
// ends (256 when left out; docs/design.md, "Spreading cascades"). Fewer
// take the front lists' upkeep on smaller slots, where the overlap of two
// chains of misses gains less; the tests set 0 to reach the front walks with
// a few timers.

// `counted<Config>`: `Config` whose wheel keeps a count of its pending
// timers, so that size() is O(1) instead of a walk over them. The count costs
// a store on every schedule of an idle timer and every cancel: a store that,
// with a million timers, waits behind the misses on the neighbours a cancel
// unlinks, and so slows churn there (measured in
// docs/perf/2026-11-churn-at-a-million-timers.md).
template <class Config>
struct counted : Config {
  static constexpr bool constant_time_size = true;
};

// 64-bit ticks in eleven levels of 64 slots: 66 bits, so no far list.
using default_config = levels<std::uint64_t, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6>;

}  // namespace timerwheel::inline TIMERWHEEL_ABI
