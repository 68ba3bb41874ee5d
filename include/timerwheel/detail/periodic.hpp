// The grid arithmetic of periodic timers, on std::chrono time points of a
// signed integer rep: exact integer steps, so a fixed-rate timer's k-th
// firing stays at start + k * period however many periods go by, and
// saturating, so a timer near the end of time stays there instead of
// wrapping to the past.
#pragma once

#include <cstdint>
#include <limits>

#include "abi.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI {
namespace detail {

// t + d, clamped to the time point's range. O(1); throws nothing.
template <class TimePoint>
TimePoint saturating_add(TimePoint t, typename TimePoint::duration d) noexcept {
  using rep = typename TimePoint::rep;
  const rep a = t.time_since_epoch().count();
  const rep b = d.count();
  if (b > 0 && a > std::numeric_limits<rep>::max() - b) return TimePoint::max();
  if (b < 0 && a < std::numeric_limits<rep>::min() - b) return TimePoint::min();
  return TimePoint(typename TimePoint::duration(a + b));
}

// The first point of the grid {due + m * period : m >= 1} that lies after
// `edge`, for due <= edge and period > 0; the largest time point when that is
// beyond the range. O(1) (one division, whatever the number of periods
// between them); throws nothing.
template <class TimePoint>
TimePoint next_grid_point_after(TimePoint due, typename TimePoint::duration period,
                                TimePoint edge) noexcept {
  using rep = typename TimePoint::rep;
  // Unsigned differences are exact for any two values of a signed rep.
  const auto start = static_cast<std::uint64_t>(due.time_since_epoch().count());
  const auto gap = static_cast<std::uint64_t>(edge.time_since_epoch().count()) - start;
  const auto p = static_cast<std::uint64_t>(period.count());
  const std::uint64_t m = gap / p + 1;
  const std::uint64_t room = static_cast<std::uint64_t>(std::numeric_limits<rep>::max()) - start;
  if (m > room / p) return TimePoint::max();
  return TimePoint(typename TimePoint::duration(static_cast<rep>(start + m * p)));
}

}  // namespace detail
}  // namespace timerwheel::inline TIMERWHEEL_ABI
