// Unwrapped time for models: a model keeps every instant as a plain 64-bit
// number; these helpers convert to and from a wheel's tick type, which wraps
// when it is narrower than 64 bits (every instant is read as the nearest one
// to now).
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

namespace timerwheel_test {

template <class Tick>
struct ticks {
  static constexpr unsigned digits = std::numeric_limits<Tick>::digits;
  static constexpr bool wraps = digits < 64;
  // How far ahead of now an instant may lie and still read as ahead.
  static constexpr std::uint64_t max_ahead =
      wraps ? (std::uint64_t{1} << (digits - 1)) - 1 : std::numeric_limits<std::uint64_t>::max();
  // How far behind now an instant may lie and still read as behind.
  static constexpr std::uint64_t max_behind =
      wraps ? std::uint64_t{1} << (digits - 1) : std::numeric_limits<std::uint64_t>::max();

  static constexpr Tick wrap(std::uint64_t t) { return static_cast<Tick>(t); }

  // The unwrapped instant that tick t stands for, seen from unwrapped `ref`.
  static constexpr std::uint64_t unwrap(Tick t, std::uint64_t ref) {
    if constexpr (!wraps) {
      return t;
    } else {
      using signed_tick = std::make_signed_t<Tick>;
      const auto distance = static_cast<signed_tick>(static_cast<Tick>(t - wrap(ref)));
      return ref + static_cast<std::uint64_t>(static_cast<std::int64_t>(distance));
    }
  }

  // The latest unwrapped instant that reads as ahead of `now`.
  static constexpr std::uint64_t horizon(std::uint64_t now) {
    if constexpr (wraps) {
      return now + max_ahead;
    } else {
      return std::numeric_limits<std::uint64_t>::max();
    }
  }

  // now + delta, stopped at the horizon.
  static constexpr std::uint64_t ahead(std::uint64_t now, std::uint64_t delta) {
    return delta >= horizon(now) - now ? horizon(now) : now + delta;
  }

  // now - delta, stopped at the earliest instant that still reads as behind
  // (0 for 64-bit ticks).
  static constexpr std::uint64_t behind(std::uint64_t now, std::uint64_t delta) {
    const std::uint64_t limit = wraps ? max_behind : now;
    return now - (delta > limit ? limit : delta);
  }
};

}  // namespace timerwheel_test
