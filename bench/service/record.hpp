// W7's record of one timer: the deadline asked for, when it fired and how
// often, and whether a cancel said it would not. Every implementation's
// callback calls fired(); the checks read the records after the run.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace timerwheel_w7 {

using clock = std::chrono::steady_clock;

inline std::int64_t ns_of(clock::time_point t) noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

struct record {
  std::int64_t deadline_ns = 0;            // written before the timer is scheduled
  std::atomic<std::int64_t> fired_ns{0};   // the clock at the firing
  std::atomic<std::uint32_t> fires{0};     // must end at 0 or 1
  std::atomic<std::uint8_t> cancelled{0};  // 1: a cancel returned true
  std::uint8_t must_fire = 0;              // never cancelled: it must fire
  std::int64_t submitted_ns = 0;           // the probe's: when schedule() returned

  // Called by the implementation's callback, on whatever thread runs it.
  void fired() noexcept {
    fired_ns.store(ns_of(clock::now()), std::memory_order_relaxed);
    fires.fetch_add(1, std::memory_order_acq_rel);
  }
};

}  // namespace timerwheel_w7
