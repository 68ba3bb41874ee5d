// How a timer_service's worker sleeps and who wakes it. The worker publishes
// the tick it will wake at (its next deadline) and sleeps until then; a
// producer wakes it only when its timer's deadline is earlier, lowering the
// published tick first so that producers behind it with later deadlines do
// not wake it again. While the worker is awake the published tick is 0 and
// no producer wakes it. So an idle service makes no wake-ups at all, and a
// busy one makes one per earlier deadline, never one per operation.
//
// Lost wake-ups: the worker publishes its tick and then checks the
// submission queue; a producer pushes to the queue and then reads the tick.
// All four are sequentially consistent, so at least one of the two sees the
// other: either the worker finds the submission and does not sleep, or the
// producer finds the tick and wakes it. The mutex and condition variable are
// taken only to sleep and to wake, never per operation.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <limits>
#include <mutex>

#include "abi.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI {
namespace detail {

class service_wake {
 public:
  using tick_type = std::uint64_t;
  // The tick published while the worker sleeps with nothing pending.
  static constexpr tick_type never = std::numeric_limits<tick_type>::max();

  // Any thread, after pushing a submission due at tick `deadline`: wakes
  // the worker if it sleeps past `deadline`. Returns whether it woke it.
  // Lock-free unless it wakes (then one mutex and one notify).
  bool submitted(tick_type deadline) noexcept {
    tick_type t = target_.load(std::memory_order_seq_cst);
    while (deadline < t) {
      if (target_.compare_exchange_weak(t, deadline, std::memory_order_seq_cst)) {
        kick();
        return true;
      }
    }
    return false;
  }

  // Any thread: wakes the worker if it sleeps (to recycle, to shut down).
  // The kick is kept if it is not sleeping yet: its next sleep returns at once.
  void wake_now() noexcept {
    target_.store(0, std::memory_order_seq_cst);
    kick();
  }

  // The worker: publishes the tick it means to wake at. Then it must check
  // its queue once more and call sleep_until() only if it is empty.
  void publish(tick_type wake_tick) noexcept {
    target_.store(wake_tick, std::memory_order_seq_cst);
  }

  // The worker: sleeps until `until` (a time point of any clock whose
  // time_point the condition variable takes) or a kick, whichever is first;
  // `forever` sleeps until a kick. Then it is awake: the published tick is
  // 0 again. Returns whether a kick (rather than the time) ended it.
  template <class TimePoint>
  bool sleep_until(TimePoint until, bool forever) {
    bool kicked = false;
    {
      std::unique_lock lock(mutex_);
      if (forever) {
        cv_.wait(lock, [&] { return kicked_; });
      } else {
        cv_.wait_until(lock, until, [&] { return kicked_; });
      }
      kicked = kicked_;
      kicked_ = false;
    }
    target_.store(0, std::memory_order_seq_cst);
    wakeups_.fetch_add(1, std::memory_order_relaxed);
    return kicked;
  }

  // The worker: awake again without sleeping (it found work on its check).
  void stay_awake() noexcept { target_.store(0, std::memory_order_seq_cst); }

  // Times the worker has come back from sleep (by a kick or by its time).
  std::uint64_t wakeups() const noexcept { return wakeups_.load(std::memory_order_relaxed); }

 private:
  void kick() noexcept {
    {
      const std::lock_guard lock(mutex_);
      kicked_ = true;
    }
    cv_.notify_one();
  }

  alignas(64) std::atomic<tick_type> target_{0};
  alignas(64) std::mutex mutex_;
  std::condition_variable cv_;
  bool kicked_ = false;  // under mutex_
  std::atomic<std::uint64_t> wakeups_{0};
};

}  // namespace detail
}  // namespace timerwheel::inline TIMERWHEEL_ABI
