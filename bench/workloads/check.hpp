// Checking a run's answer: every firing watched, the fired sequence hashed; and the clock of the
// timed regions.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <time.h>
#include <utility>
#include <vector>

#include "../adapters/common.hpp"

namespace timerwheel_bench {

// The clock of every timed region of many operations (W1, W1 start/stop, W2, W3, W6): the CPU
// time of the calling thread, not the wall. On a machine shared with other tenants a region is
// preempted about once a scheduler slice and then waits out the others' turns: a region of tens
// of milliseconds (the heap's, with its slower steps) waits every time and one of a millisecond
// (the wheel's) mostly not, so that the wall would charge the slower structure with the other
// tenants' time and move every ratio toward the faster one. The thread's CPU time counts what it
// ran, its cache misses included. Single advances (W5) and the paper table's short regions keep
// steady_clock: reading this clock is a system call, which would weigh on a region of a few
// hundred nanoseconds.
struct region_clock {
  using duration = std::chrono::nanoseconds;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<region_clock>;
  static constexpr bool is_steady = true;
  static time_point now() noexcept {
#if defined(CLOCK_THREAD_CPUTIME_ID)
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return time_point(std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec));
#else
    return time_point(
        std::chrono::duration_cast<duration>(std::chrono::steady_clock::now().time_since_epoch()));
#endif
  }
};

// The floor's node: no hook, only the deadline.
struct alignas(node_bytes) floor_node {
  bench_payload payload;
};

// Order-sensitive hash of the fired sequence: (node index, deadline) in fire order.
inline std::uint64_t mix_fired(std::uint64_t h, std::uint32_t index,
                               std::uint64_t deadline) noexcept {
  h ^= (static_cast<std::uint64_t>(index) + 1) * 0x9e3779b97f4a7c15ULL;
  h ^= deadline * 0xc2b2ae3d27d4eb4fULL;
  h = (h ^ (h >> 31)) * 0xff51afd7ed558ccdULL;
  return h ^ (h >> 29);
}

// Watches every firing: never early (deadline <= the advance's target), nondecreasing deadlines
// across the whole run, never twice for one scheduling; hashes the sequence. With exact = false
// (a structure that fires a batch out of order), the deadlines need not rise within one advance,
// only from one advance to the next.
struct fire_checker {
  bool exact = true;
  std::uint64_t last_to = 0;
  std::uint64_t last_deadline = 0;
  std::uint64_t fired = 0;
  std::uint64_t checksum = 0;
  std::uint64_t early = 0;
  std::uint64_t out_of_order = 0;
  std::uint64_t twice = 0;

  void on_fire(bench_payload& p, std::uint32_t index, std::uint64_t to) noexcept {
    const std::uint64_t d = p.requested;
    twice += d == bench_payload::fired;
    early += d != bench_payload::fired && d > to;
    if (exact) {
      out_of_order += d < last_deadline;
      last_deadline = d;
    } else {
      out_of_order += d < last_deadline && to != last_to;
      last_deadline = to != last_to ? d : std::max(last_deadline, d);
      last_to = to;
    }
    p.requested = bench_payload::fired;
    ++fired;
    checksum = mix_fired(checksum, index, d);
  }
  std::string error() const {
    std::string e;
    if (twice) e += std::to_string(twice) + " fired twice; ";
    if (early) e += std::to_string(early) + " fired early; ";
    if (out_of_order) e += std::to_string(out_of_order) + " fired out of deadline order; ";
    return e;
  }
};

// What one timed run measured and found.
struct run_result {
  double seconds = 0;     // the timed region only
  std::uint64_t ops = 0;  // W1: steps (cancel+schedule pairs); W3: advance calls
  std::uint64_t fired = 0;
  std::uint64_t checksum = 0;
  std::string error;         // empty when every check passed
  double part_seconds = -1;  // a second figure of the same run (W2: the firing alone), if any
};

// The checks every structure's end state shares: invariants, size, nothing pending.
template <class A>
void verify_empty(const A& a, std::size_t timers, std::string& e) {
  if (a.size() != 0) e += "size " + std::to_string(a.size()) + " after run; ";
  for (std::uint32_t i = 0; i < timers; ++i) {
    if (a.pending(i)) {
      e += "timer still pending after run; ";
      break;
    }
  }
  if (a.next_deadline().has_value()) e += "next_deadline() on an empty structure; ";
  try {
    a.check_invariants();
  } catch (const std::exception& ex) {
    e += std::string("check_invariants: ") + ex.what() + "; ";
  }
}

}  // namespace timerwheel_bench
