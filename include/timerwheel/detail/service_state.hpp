// The state word of one timer_service timer: one 64-bit atomic holding the
// timer's generation (high 32 bits) and where it stands (low bits), changed
// only by compare-and-swap. Whoever moves it out of `queued` or `armed` owns
// the timer's fate: a cancel that wins means the callback never runs, a
// worker that wins (to `firing`) means it runs and no cancel can stop it.
//
//   queued ---worker takes the submission---> armed ---due---> firing ---> freed
//     |                                         |                |  (periodic: back to armed)
//     +--cancel--> cancelled                    +--cancel--> cancelled
//                                                   (message to the worker)
//   periodic and firing --cancel--> firing|stop: no run after this one
//   queued/armed --shutdown(drop)--> dropped;  queued --refused submission--> withdrawn
//
// A cancel_and_wait caller that finds the timer firing sets `waiter` and
// sleeps on the word; the worker wakes it when the callback has returned.
#pragma once

#include <atomic>
#include <cstdint>

#include "abi.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI {
namespace detail {

enum class service_phase : std::uint32_t {
  free = 0,   // in the pool; its generation is the next one handed out
  queued,     // submitted, not yet taken by the worker
  armed,      // in the worker's wheel
  firing,     // the callback is running
  cancelled,  // cancel won: it never runs (again)
  dropped,    // shutdown(drop) took it: it never runs
  withdrawn,  // its submission was refused (the service shut down): it never runs
};

struct service_word {
  static constexpr std::uint64_t phase_mask = 0xff;
  static constexpr std::uint64_t periodic = 1u << 8;  // set for the timer's whole life
  static constexpr std::uint64_t stop = 1u << 9;      // periodic, firing, cancelled meanwhile
  static constexpr std::uint64_t waiter = 1u << 10;   // a cancel_and_wait sleeps on the word

  static constexpr std::uint64_t make(std::uint32_t generation, service_phase phase,
                                      std::uint64_t flags = 0) noexcept {
    return (std::uint64_t{generation} << 32) | flags | static_cast<std::uint64_t>(phase);
  }
  static constexpr std::uint32_t generation(std::uint64_t w) noexcept {
    return static_cast<std::uint32_t>(w >> 32);
  }
  static constexpr service_phase phase(std::uint64_t w) noexcept {
    return static_cast<service_phase>(w & phase_mask);
  }
  static constexpr std::uint64_t with_phase(std::uint64_t w, service_phase p) noexcept {
    return (w & ~phase_mask) | static_cast<std::uint64_t>(p);
  }
};

// What a cancel found, and what it changed.
enum class cancel_outcome {
  refused,           // stale generation, already finished, cancelled, dropped: nothing changed
  running,           // a one-shot callback is running (or a periodic one already stopped)
  cancelled_queued,  // won before the worker took the submission: the worker frees it
  cancelled_armed,   // won while it sat in the wheel: the canceller must tell the worker
  stopped_firing,    // periodic, firing: this run finishes, no other starts
};

// The canceller's side: one CAS loop on the word, lock-free. `w` after the
// call holds what it last read (for cancel_and_wait).
inline cancel_outcome cancel_word(std::atomic<std::uint64_t>& word, std::uint32_t generation,
                                  std::uint64_t& w) noexcept {
  using sw = service_word;
  w = word.load(std::memory_order_acquire);
  for (;;) {
    if (sw::generation(w) != generation) return cancel_outcome::refused;
    std::uint64_t next = 0;
    cancel_outcome outcome = cancel_outcome::refused;
    switch (sw::phase(w)) {
      case service_phase::queued:
        next = sw::with_phase(w, service_phase::cancelled);
        outcome = cancel_outcome::cancelled_queued;
        break;
      case service_phase::armed:
        next = sw::with_phase(w, service_phase::cancelled);
        outcome = cancel_outcome::cancelled_armed;
        break;
      case service_phase::firing:
        if ((w & sw::periodic) == 0 || (w & sw::stop) != 0) return cancel_outcome::running;
        next = w | sw::stop;
        outcome = cancel_outcome::stopped_firing;
        break;
      default:
        return cancel_outcome::refused;
    }
    if (word.compare_exchange_weak(w, next, std::memory_order_acq_rel, std::memory_order_acquire)) {
      w = next;
      return outcome;
    }
  }
}

// Waits until the word no longer says that generation `generation` is
// firing (the callback returned). Called only off the worker's thread.
inline void wait_not_firing(std::atomic<std::uint64_t>& word, std::uint32_t generation) noexcept {
  using sw = service_word;
  std::uint64_t w = word.load(std::memory_order_acquire);
  for (;;) {
    if (sw::generation(w) != generation || sw::phase(w) != service_phase::firing) return;
    if ((w & sw::waiter) == 0) {
      if (!word.compare_exchange_weak(w, w | sw::waiter, std::memory_order_acq_rel,
                                      std::memory_order_acquire))
        continue;
      w |= sw::waiter;
    }
    word.wait(w, std::memory_order_acquire);
    w = word.load(std::memory_order_acquire);
  }
}

// The worker's side: stores `next` and wakes the cancel_and_wait callers
// sleeping on the old value, if any. Returns the old value.
inline std::uint64_t publish_word(std::atomic<std::uint64_t>& word, std::uint64_t next) noexcept {
  const std::uint64_t old = word.exchange(next, std::memory_order_acq_rel);
  if ((old & service_word::waiter) != 0) word.notify_all();
  return old;
}

}  // namespace detail
}  // namespace timerwheel::inline TIMERWHEEL_ABI
