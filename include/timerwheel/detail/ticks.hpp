// Tick arithmetic shared by every structure: the nearest-instant rule for
// wrapping ticks, distances from now, and the choice of a deadline in a range.
#pragma once

#include <bit>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "abi.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::detail {

template <class Tick>
struct ticks {
  static_assert(std::is_unsigned_v<Tick> && !std::is_same_v<Tick, bool>,
                "the tick type must be an unsigned integer type");
  static_assert(std::numeric_limits<Tick>::digits <= 64, "ticks wider than 64 bits");

  static constexpr unsigned digits = std::numeric_limits<Tick>::digits;
  // Narrow ticks wrap and are read by the nearest-instant rule: up to
  // 2^(digits-1) - 1 ticks ahead of now is ahead, else behind. 64-bit ticks
  // are plain numbers that never wrap in practice.
  static constexpr bool wraps = digits < 64;

  // The tick bits below bit n (all of them when n reaches the width).
  static constexpr Tick low_bits(unsigned n) noexcept {
    return n >= digits ? static_cast<Tick>(~Tick{0}) : static_cast<Tick>((Tick{1} << n) - 1);
  }

  // Ticks from `now` to `t`, for `t` at or after now.
  static constexpr Tick distance(Tick now, Tick t) noexcept { return static_cast<Tick>(t - now); }

  // Whether `t` is before `now`.
  static constexpr bool behind(Tick now, Tick t) noexcept {
    if constexpr (wraps)
      return static_cast<std::make_signed_t<Tick>>(distance(now, t)) < 0;
    else
      return t < now;
  }

  // Whether instant `a` is after instant `b`, each read relative to `now`.
  static constexpr bool later(Tick now, Tick a, Tick b) noexcept {
    if constexpr (wraps) {
      using signed_tick = std::make_signed_t<Tick>;
      return static_cast<signed_tick>(distance(now, a)) >
             static_cast<signed_tick>(distance(now, b));
    } else {
      return a > b;
    }
  }

  // The tick of [earliest, latest], cut to start at now, with the most
  // trailing zero bits; now when the range ends before now. Requires
  // !later(now, earliest, latest).
  static constexpr Tick pick_in_range(Tick now, Tick earliest, Tick latest) noexcept {
    if (behind(now, latest)) return now;
    if (behind(now, earliest)) earliest = now;
    if (earliest == latest) return earliest;
    if (wraps && latest < earliest) return 0;  // the range wraps through 0
    const unsigned top =
        static_cast<unsigned>(std::bit_width(static_cast<Tick>(earliest ^ latest))) - 1;
    // `latest` has bit `top` set and `earliest` has not: the multiple of
    // 2^top in the range is latest with its low bits cleared, unless
    // earliest is itself a multiple of 2^(top+1).
    if ((earliest & low_bits(top + 1)) == 0) return earliest;
    return static_cast<Tick>(latest & ~low_bits(top));
  }
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI::detail
