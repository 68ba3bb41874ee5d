// W1 start/stop: the W1 sequence without advancing time (every 100 steps the loop is polled,
// which only the event loops need). It is what libevent, libuv and Boost.Asio timers can be
// measured on through their own APIs: their clocks are real, so the rest of the workloads
// cannot be replayed on them. Every structure runs it too, for the ratio. The figure: ns per
// stop+start pair on a random pending timer; deadlines are 1 + offset ticks from the start
// (milliseconds, plus one hour, for the event loops: nothing can come due during the run).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>

#include "w1.hpp"

namespace timerwheel_bench {

template <class S>
concept start_stop_timers = requires(S& s, std::uint32_t i, std::uint64_t ticks) {
  { S::name } -> std::convertible_to<const char*>;
  s.start(i, ticks);                            // (re)start timer i, ticks from the start
  { s.stop(i) } -> std::same_as<bool>;          // whether it was pending
  s.poll();                                     // let the loop run what stopping queued
  { s.finish() } -> std::same_as<std::string>;  // errors found at the end
};

// Any structure adapter, seen through start/stop.
template <structure_adapter A>
class as_start_stop {
 public:
  static constexpr const char* name = A::name;
  using node = typename A::node;
  explicit as_start_stop(std::size_t n) : a_(n), n_(n) {}
  void start(std::uint32_t i, std::uint64_t ticks) { a_.schedule(i, ticks); }
  bool stop(std::uint32_t i) { return a_.cancel(i); }
  void poll() noexcept {}
  std::string finish() {
    std::string e;
    if (a_.size() != n_) e += "size " + std::to_string(a_.size()) + " after run; ";
    return e;
  }

 private:
  A a_;
  std::size_t n_;
};

template <start_stop_timers S>
run_result run_startstop(const w1_sequence& s) {
  const w1_params& p = s.params;
  S x(p.timers);
  for (std::uint32_t i = 0; i < p.timers; ++i) x.start(i, s.initial[i]);
  std::uint64_t stopped = 0;
  auto steps = [&](std::size_t from, std::size_t to) {
    for (std::size_t block = from; block < to; block += w1_steps_per_tick) {
      for (std::size_t k = block; k < block + w1_steps_per_tick; ++k) {
        const std::uint32_t i = s.steps[k].index;
        stopped += x.stop(i);
        x.start(i, 1 + s.steps[k].offset);
      }
      x.poll();
    }
  };
  run_result r = time_w1_steps(p, steps);
  r.fired = stopped;  // compared across structures: every stop finds its timer pending
  r.error = x.finish();
  if (stopped != p.warm_steps + p.timed_steps) {
    r.error += std::to_string(p.warm_steps + p.timed_steps - stopped) +
               " stops found the timer not pending; ";
  }
  return r;
}

}  // namespace timerwheel_bench
