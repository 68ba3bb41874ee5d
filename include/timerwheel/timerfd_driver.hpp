// timerwheel::timerfd_driver: drives a timers<Clock> from one Linux timerfd
// that the user adds to an epoll set of their own.
//
// The timerfd is armed at the absolute time of the exact next expiry
// (timers::next_expiry()), re-armed only when that time changes, and
// disarmed when no timer is pending: an idle loop is never woken, and a loop
// with one timer is woken once, when it is due. When the descriptor is
// readable, on_readable() reads it, runs what is due and arms it again for
// what is left.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <time.h>
#include <type_traits>
#include <utility>

#include "clock.hpp"
#include "detail/abi.hpp"
#include "detail/linux.hpp"
#include "timers.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI {

// The Linux clock whose time `Clock::time_point::time_since_epoch()` reads,
// which the timerfd of a timerfd_driver<Clock> counts: CLOCK_MONOTONIC for
// std::chrono::steady_clock, CLOCK_BOOTTIME for boot_clock. Specialize it
// (with a static member `id`) for a clock of your own that reads one of the
// clocks a timerfd accepts; manual_clock has none (it is no kernel clock).
template <class Clock>
struct timerfd_clock;

template <>
struct timerfd_clock<std::chrono::steady_clock> {
  static constexpr clockid_t id = CLOCK_MONOTONIC;
};

#if defined(CLOCK_BOOTTIME)
template <>
struct timerfd_clock<boot_clock> {
  static constexpr clockid_t id = CLOCK_BOOTTIME;
};
#endif

// What a timerfd_driver did, for tests and tuning. Counts only grow.
struct timerfd_stats {
  std::uint64_t settime_calls = 0;  // timerfd_settime calls: arms and disarms
  std::uint64_t arms = 0;           // of which arming at a new expiry
  std::uint64_t disarms = 0;        // of which disarming (no timer pending)
  std::uint64_t wakeups = 0;        // on_readable calls that found the timerfd expired
  std::uint64_t spurious = 0;       // on_readable calls that found it not expired
  std::uint64_t fired = 0;          // timers run by on_readable
};

// `timerfd_driver<Clock>`: one timerfd (close-on-exec, non-blocking) on the
// clock of `timerfd_clock<Clock>`, kept armed at the next expiry of the
// timers<Clock> it drives. Add fd() to an epoll set for EPOLLIN and call
// on_readable() when it is ready (event_loop does both).
//
// The driver learns of every change to next_expiry() made outside run_due
// (after, at, every, cancel) through timers::watch_next_expiry, so it re-arms
// only when the earliest expiry moves; inside on_readable it re-arms once,
// after run_due. It holds that watcher for its lifetime: registering another
// one on the same timers would leave the timerfd stale. The timers must outlive the driver; the
// driver is neither copyable nor movable (the timers hold a callback into it), and it drives one
// timers object at a time. Not thread-safe: use it on the timers' thread.
template <class Clock = std::chrono::steady_clock>
class timerfd_driver {
 public:
  using clock_type = Clock;
  using timers_type = timers<Clock>;
  using time_point = typename Clock::time_point;

  // Creates the timerfd, arms it for whatever `t` already holds and asks `t`
  // to report changes of its next expiry. Throws std::system_error naming the
  // call if timerfd_create or timerfd_settime fails.
  explicit timerfd_driver(timers_type& t) : timers_(&t), fd_(detail::os::timerfd_create(clock_id)) {
    sync();
    timers_->watch_next_expiry([this] { sync(); });
  }

  // Stops watching the timers and closes the timerfd (the user removes it
  // from their epoll set first; epoll forgets a closed descriptor anyway).
  ~timerfd_driver() { timers_->watch_next_expiry({}); }

  timerfd_driver(const timerfd_driver&) = delete;
  timerfd_driver& operator=(const timerfd_driver&) = delete;

  // The timerfd, for the user's epoll set (EPOLLIN). Owned by the driver.
  int fd() const noexcept { return fd_.get(); }

  // Call when fd() is readable: reads it, runs the timers that are due
  // (timers::run_due) and arms the timerfd for the next expiry, or disarms
  // it. Returns how many timers ran. A call when the timerfd has not
  // expired costs one read and changes nothing. Throws what a callback
  // throws (the timerfd is still armed for what is left) and
  // std::system_error naming the call if read or timerfd_settime fails.
  std::size_t on_readable() {
    if (detail::os::timerfd_read(fd_.get()) == 0) {
      ++stats_.spurious;
      return 0;
    }
    ++stats_.wakeups;
    // The timerfd expired, so it is no longer armed at anything.
    armed_.reset();
    std::size_t n = 0;
    try {
      n = timers_->run_due();
    } catch (...) {
      // Arm for what is left, so that it still wakes the loop; the
      // callback's exception is the one to report.
      try {
        sync();
      } catch (...) {
      }
      throw;
    }
    stats_.fired += n;
    sync();
    return n;
  }

  // Arms (or disarms) the timerfd for the timers' next expiry if it is not
  // already armed there. The driver calls it itself; a user needs it only
  // after changing the timers in a way they do not report. Throws
  // std::system_error naming timerfd_settime if it fails.
  void sync() {
    const std::optional<time_point> next = timers_->next_expiry();
    if (next == armed_) return;
    if (next) {
      ++stats_.settime_calls;
      ++stats_.arms;
      detail::os::timerfd_arm_at(
          fd_.get(), std::chrono::ceil<std::chrono::nanoseconds>(next->time_since_epoch()));
    } else {
      ++stats_.settime_calls;
      ++stats_.disarms;
      detail::os::timerfd_disarm(fd_.get());
    }
    armed_ = next;
  }

  // The counts of settime calls, wake-ups and timers run so far.
  const timerfd_stats& stats() const noexcept { return stats_; }

  // The expiry the timerfd is armed at, if any.
  std::optional<time_point> armed_at() const noexcept { return armed_; }

 private:
  static constexpr clockid_t clock_id = timerfd_clock<Clock>::id;

  timers_type* timers_;
  detail::os::unique_fd fd_;
  std::optional<time_point> armed_;
  timerfd_stats stats_;
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI
