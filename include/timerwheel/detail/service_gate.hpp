// How a timer_service's submitters give way to a worker that is late.
//
// On a machine with fewer cores than busy threads, the worker shares a core
// with the threads that feed it. It needs more than a fair share of the
// processor to keep up with them, and a fair scheduler (Linux's EEVDF) holds
// a thread that has run past its share until the others catch up: with
// eight busy submitters on two cores, the worker waited a millisecond and
// more at a time while timers fell due. Yielding does not help (a yield
// does not make the worker eligible); leaving the run queue does. So the
// worker publishes the earliest tick it owes a firing and the tick it has
// fired through, and a submitter that finds a firing owed for a while
// sleeps until the worker has fired it (or a tick at most).
//
// Not while the worker runs a callback: a slow callback would stall every
// submitter with it, and sleeping submitters cannot speed it up.
//
// Lost wake-ups: a waiter counts itself and then reads the fired tick under
// the mutex; the worker stores the fired tick and then reads the count.
// All four are sequentially consistent, so either the waiter sees the tick
// or the worker sees the waiter and notifies it under the mutex.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <limits>
#include <mutex>

#include "abi.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI {
namespace detail {

class service_gate {
 public:
  using tick_type = std::uint64_t;
  static constexpr tick_type never = std::numeric_limits<tick_type>::max();

  // The worker: nothing due before tick `t` (a lower bound of its earliest
  // deadline; `never` when it holds no timer).
  void owe_from(tick_type t) noexcept { owed_.store(t, std::memory_order_relaxed); }

  // The worker: everything due by tick `t` has fired. Wakes the submitters
  // that wait for it. One store and one load; a lock only when one waits.
  void fired_to(tick_type t) noexcept {
    fired_.store(t, std::memory_order_seq_cst);
    if (waiting_.load(std::memory_order_seq_cst) != 0) {
      { const std::lock_guard lock(mutex_); }
      cv_.notify_all();
    }
  }

  // The worker: around each callback it runs.
  void in_callback(bool running) noexcept { callback_.store(running, std::memory_order_relaxed); }

  // Any thread: the earliest tick the worker owes a firing, or `never`
  // (nothing owed, or the worker is in a callback). Whether it is late is
  // the caller's reading of the clock against that tick.
  tick_type owed() const noexcept {
    if (callback_.load(std::memory_order_relaxed)) return never;
    const tick_type t = owed_.load(std::memory_order_relaxed);
    return t > fired_.load(std::memory_order_relaxed) ? t : never;
  }

  // A submitter: sleeps until the worker has fired through tick `t`, or
  // for `longest` at most.
  template <class Duration>
  void wait_fired(tick_type t, Duration longest) {
    waits_.fetch_add(1, std::memory_order_relaxed);
    std::unique_lock lock(mutex_);
    waiting_.fetch_add(1, std::memory_order_seq_cst);
    cv_.wait_for(lock, longest, [&] { return fired_.load(std::memory_order_seq_cst) >= t; });
    waiting_.fetch_sub(1, std::memory_order_relaxed);
  }

  // How many waits wait_fired() began.
  std::uint64_t waits() const noexcept { return waits_.load(std::memory_order_relaxed); }

 private:
  alignas(64) std::atomic<tick_type> owed_{never};
  std::atomic<tick_type> fired_{0};
  std::atomic<bool> callback_{false};
  alignas(64) std::atomic<std::uint32_t> waiting_{0};
  std::atomic<std::uint64_t> waits_{0};
  std::mutex mutex_;
  std::condition_variable cv_;
};

}  // namespace detail
}  // namespace timerwheel::inline TIMERWHEEL_ABI
