// timerwheel's clocks: tick_clock reads any std::chrono clock as a count of
// ticks for a wheel; manual_clock is a clock moved by hand, for tests;
// boot_clock (Linux) counts the time the machine spent suspended.
//
// Ticks count from the Clock's own epoch: tick k covers the instants
// [epoch + k * tick, epoch + (k + 1) * tick). Reading the time rounds down
// (the ticks that have fully elapsed) and converting a deadline rounds up
// (the first tick edge at or after it), so a timer is never due before its
// time point; a time point exactly on a tick edge is that tick, not the next.
// Time points before the epoch are clamped to tick 0, which is never in the
// future: a deadline there is due at once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <utility>

#if defined(__linux__)
#include <cerrno>
#include <system_error>
#include <time.h>
#endif

#include "detail/abi.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI {

// `tick_clock<Clock>`: a std::chrono clock read in ticks of a length chosen
// at construction. Clock's rep must be a signed integer (every standard clock
// and the two below qualify). A copy reads the same clock (for manual_clock:
// the same shared time). Not synchronised itself; reading it is as
// thread-safe as Clock::now().
template <class Clock = std::chrono::steady_clock>
class tick_clock {
  static_assert(std::is_integral_v<typename Clock::rep> && std::is_signed_v<typename Clock::rep>,
                "tick_clock: the Clock's rep must be a signed integer");

 public:
  using clock_type = Clock;
  using rep = typename Clock::rep;
  using duration = typename Clock::duration;
  using time_point = typename Clock::time_point;
  using tick_type = std::uint64_t;

  // The default tick: one millisecond, or the Clock's own unit if coarser.
  static constexpr duration default_tick() noexcept {
    return std::chrono::ceil<duration>(std::chrono::milliseconds(1));
  }

  // Reads `clock` in ticks of `tick` (in the Clock's duration). Throws
  // std::invalid_argument when `tick` is zero or negative.
  explicit tick_clock(duration tick = default_tick(), Clock clock = Clock{})
      : tick_(tick), clock_(std::move(clock)) {
    if (tick <= duration::zero())
      throw std::invalid_argument("timerwheel: tick_clock: the tick must be positive");
  }

  // The ticks elapsed since the Clock's epoch at its current reading (floor);
  // 0 while it reads before the epoch. One Clock::now(); throws what it throws.
  tick_type now() const { return elapsed_ticks(clock_.now()); }

  // The ticks elapsed by `t` (floor): the tick `t` lies in; 0 before the
  // epoch. O(1); throws nothing.
  tick_type elapsed_ticks(time_point t) const noexcept {
    const rep c = t.time_since_epoch().count();
    if (c <= 0) return 0;
    return static_cast<tick_type>(c) / static_cast<tick_type>(tick_.count());
  }

  // The tick of a deadline at `t` (ceil): the first tick edge at or after
  // `t`, so a timer there is never due early, and a `t` exactly on an edge is
  // that edge's tick. 0 for a `t` at or before the epoch. O(1); throws nothing.
  tick_type ticks_at(time_point t) const noexcept {
    const rep c = t.time_since_epoch().count();
    if (c <= 0) return 0;
    return (static_cast<tick_type>(c) - 1) / static_cast<tick_type>(tick_.count()) + 1;
  }

  // The time point where tick `k` starts: epoch + k * tick; the largest time
  // point when that is beyond the Clock's range. O(1); throws nothing.
  time_point time_of(tick_type k) const noexcept {
    const auto t = static_cast<tick_type>(tick_.count());
    if (k > static_cast<tick_type>(std::numeric_limits<rep>::max()) / t) return time_point::max();
    return time_point(duration(static_cast<rep>(k * t)));
  }

  // The length of a tick.
  duration tick() const noexcept { return tick_; }
  // The clock read.
  const Clock& clock() const noexcept { return clock_; }

 private:
  duration tick_;
  Clock clock_;
};

// `manual_clock`: a std::chrono clock that moves only when told (advance,
// set), for deterministic tests. Copies share one time, so a test keeps one
// copy and hands another to the code under test; a default-constructed clock
// has a time of its own. Reading and moving it are thread-safe (one atomic).
// Unlike the standard clocks, now() is a member: pass the instance.
class manual_clock {
 public:
  using rep = std::int64_t;
  using period = std::nano;
  using duration = std::chrono::nanoseconds;
  using time_point = std::chrono::time_point<manual_clock>;
  // set() may move it back.
  static constexpr bool is_steady = false;

  // A new time, starting at `start` (the epoch by default). Allocates the
  // shared time; throws std::bad_alloc.
  manual_clock() : manual_clock(time_point{}) {}
  explicit manual_clock(time_point start)
      : time_(std::make_shared<std::atomic<rep>>(start.time_since_epoch().count())) {}

  // The current time. Throws nothing.
  time_point now() const noexcept { return time_point(duration(time_->load())); }

  // Moves the time forward by `d` (nanoseconds or coarser). Throws
  // std::invalid_argument, changing nothing, for a negative `d` (set() moves
  // a clock back), and std::overflow_error past the largest time point.
  void advance(duration d) {
    if (d < duration::zero())
      throw std::invalid_argument("timerwheel: manual_clock::advance: a negative duration");
    rep t = time_->load();
    do {
      if (t > std::numeric_limits<rep>::max() - d.count())
        throw std::overflow_error("timerwheel: manual_clock::advance: past the largest time point");
    } while (!time_->compare_exchange_weak(t, t + d.count()));
  }

  // Sets the time to `t`, backwards too (to test what a clock that goes
  // back does). Throws nothing.
  void set(time_point t) noexcept { time_->store(t.time_since_epoch().count()); }

 private:
  std::shared_ptr<std::atomic<rep>> time_;
};

#if defined(__linux__) && defined(CLOCK_BOOTTIME)
// `boot_clock`: Linux's CLOCK_BOOTTIME, which, unlike steady_clock
// (CLOCK_MONOTONIC), keeps counting while the machine is suspended: a timer
// for "30 minutes from now" on it fires 30 minutes later by the wall, sleep
// or not. Its epoch is the boot.
struct boot_clock {
  using rep = std::int64_t;
  using period = std::nano;
  using duration = std::chrono::nanoseconds;
  using time_point = std::chrono::time_point<boot_clock>;
  static constexpr bool is_steady = true;

  // One clock_gettime(CLOCK_BOOTTIME). Throws std::system_error when the
  // kernel refuses it (before Linux 2.6.39).
  static time_point now() {
    ::timespec ts{};
    if (::clock_gettime(CLOCK_BOOTTIME, &ts) != 0)
      throw std::system_error(errno, std::system_category(),
                              "timerwheel: boot_clock: clock_gettime(CLOCK_BOOTTIME)");
    return time_point(std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec));
  }
};
#endif

}  // namespace timerwheel::inline TIMERWHEEL_ABI
