// What a timer_service's worker did, round by round, for measuring where
// lateness comes from: how late the worker woke against the time it asked
// for (the operating system's share), how long it took messages before it
// reached the due timers (the service's share), the backlog at each wake-up,
// the core it ran on and how often it was preempted.
//
// Off unless TIMERWHEEL_SERVICE_PROBE is defined before the first include
// of timer_service.hpp (benchmarks only): then every call below is an empty
// inline function, and the worker makes each call under `if constexpr
// (enabled)`, so that its code is as without the probe. On, the worker reads the clock three times
// a round, asks the kernel for its core (sched_getcpu) and its thread's involuntary context
// switches (getrusage) once a round, and appends a record to a vector reserved up front (rounds
// past its capacity are counted, not recorded). Linux only.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "abi.hpp"

#ifdef TIMERWHEEL_SERVICE_PROBE
#include <sched.h>
#include <sys/resource.h>
#include <vector>
#endif

namespace timerwheel::inline TIMERWHEEL_ABI {
namespace detail {

// How a round began.
enum class probe_start : std::uint8_t {
  loop,   // straight on from the last round: the worker did not sleep
  timed,  // woke at the time it asked for
  kicked  // woken by a producer (an earlier deadline, back-pressure, shutdown)
};

// One round of the worker: wake (or loop), take messages, fire what is due.
// Times are nanoseconds since the epoch of the service's clock.
struct probe_round {
  std::int64_t asked_ns = 0;      // the wake-up time asked for (timed, kicked)
  std::int64_t begin_ns = 0;      // the round's start: awake again, or looping
  std::int64_t drained_ns = 0;    // messages taken (from begin_ns on)
  std::int64_t fired_ns = 0;      // due timers fired (from drained_ns on)
  std::int64_t first_due_ns = 0;  // the earliest deadline fired this round (0: none)
  std::uint32_t backlog = 0;      // messages pushed and not yet taken at the start
  std::uint32_t drained = 0;      // messages taken
  std::uint32_t fired = 0;        // timers fired
  std::uint32_t busy = 0;         // pops that found a push half done (each yielded)
  std::int64_t busy_ns = 0;       // the time those yields took
  std::int64_t next_ns = 0;       // the wheel's next_deadline() after it (0: not asked)
  std::int32_t cpu = -1;          // the core at the round's start
  std::uint32_t nivcsw = 0;       // the thread's involuntary switches so far
  probe_start start = probe_start::loop;
};

#ifdef TIMERWHEEL_SERVICE_PROBE

template <class Clock>
class service_probe {
 public:
  static constexpr bool enabled = true;

  service_probe() { rounds_.reserve(capacity); }

  static std::int64_t ns_of(typename Clock::time_point t) noexcept {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  }
  static std::int64_t now_ns() noexcept { return ns_of(Clock::now()); }

  // The worker, at the top of a round. `asked_ns`: the time it slept until
  // (0 when it did not sleep or slept with nothing pending).
  void begin(probe_start how, std::int64_t asked_ns, std::uint64_t backlog) noexcept {
    cur_ = probe_round{};
    cur_.start = how;
    cur_.asked_ns = asked_ns;
    cur_.begin_ns = now_ns();
    cur_.backlog = static_cast<std::uint32_t>(backlog);
    cur_.cpu = ::sched_getcpu();
    ::rusage u{};
    ::getrusage(RUSAGE_THREAD, &u);
    cur_.nivcsw = static_cast<std::uint32_t>(u.ru_nivcsw);
  }
  // A pop found a push half done; the yield that followed took `ns`.
  void busy(std::int64_t ns) noexcept {
    ++cur_.busy;
    cur_.busy_ns += ns;
  }
  // Each message taken.
  void took() noexcept { ++messages_; }
  void drained(int n) noexcept {
    cur_.drained = static_cast<std::uint32_t>(n < 0 ? 0 : n);
    cur_.drained_ns = now_ns();
  }
  // The end of the round: due timers fired.
  void fired() noexcept {
    cur_.fired_ns = now_ns();
    if (rounds_.size() < capacity)
      rounds_.push_back(cur_);
    else
      ++overflow_;
  }
  // After fired(): the worker asked the wheel for its next deadline, which
  // took `ns` (a scan of the earliest slots).
  void scanned(std::int64_t ns) noexcept {
    if (!rounds_.empty()) rounds_.back().next_ns = ns;
  }
  void fire(std::int64_t due_ns) noexcept {
    if (cur_.fired == 0 || due_ns < cur_.first_due_ns) cur_.first_due_ns = due_ns;
    ++cur_.fired;
  }

  // After the worker has been joined (or between runs, with care): the rounds.
  const std::vector<probe_round>& rounds() const noexcept { return rounds_; }
  std::uint64_t overflow() const noexcept { return overflow_; }
  // Messages the worker has taken so far (read on the worker, or after it).
  std::uint64_t messages() const noexcept { return messages_; }

 private:
  static constexpr std::size_t capacity = std::size_t{1} << 21;
  std::vector<probe_round> rounds_;
  probe_round cur_;
  std::uint64_t overflow_ = 0;
  std::uint64_t messages_ = 0;
};

#else

template <class Clock>
class service_probe {
 public:
  static constexpr bool enabled = false;
  static std::int64_t ns_of(typename Clock::time_point) noexcept { return 0; }
  static std::int64_t now_ns() noexcept { return 0; }
  void begin(probe_start, std::int64_t, std::uint64_t) noexcept {}
  void fired() noexcept {}
  void busy(std::int64_t) noexcept {}
  void scanned(std::int64_t) noexcept {}
  void took() noexcept {}
  void drained(int) noexcept {}
  void fire(std::int64_t) noexcept {}
};

#endif

}  // namespace detail
}  // namespace timerwheel::inline TIMERWHEEL_ABI
