// W1 churn and its floor.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "check.hpp"
#include "rng.hpp"

namespace timerwheel_bench {

inline constexpr std::size_t w1_steps_per_tick = 100;

struct w1_params {
  std::size_t timers;                  // N
  std::uint64_t range;                 // R: deadlines uniform [now + 1, now + R]
  std::size_t warm_steps;              // run before timing, from the same sequence
  std::size_t timed_steps;             // both multiples of w1_steps_per_tick
  std::size_t refire_pool = 1u << 18;  // power of two
};

// One step, its two numbers side by side: the loop that runs the steps then keeps one pointer
// to them in a register, not two (with every structure's own state live, a second one spills).
struct w1_step {
  std::uint32_t index;   // the node cancelled and scheduled again
  std::uint32_t offset;  // its new deadline = now + 1 + offset
};

struct w1_sequence {
  w1_params params;
  std::vector<std::uint64_t> initial;  // deadline of node i at the start (now = 0)
  std::vector<w1_step> steps;
  std::vector<std::uint32_t> refire;  // cyclic: a fired node's new deadline = now + 1 + refire[k]
};

inline w1_sequence make_w1_sequence(const w1_params& p, std::uint64_t seed) {
  xoshiro256ss rng(seed);
  w1_sequence s;
  s.params = p;
  s.initial.resize(p.timers);
  for (auto& d : s.initial) d = rng.uniform(1, p.range);
  const std::size_t steps = p.warm_steps + p.timed_steps;
  s.steps.resize(steps);
  for (w1_step& step : s.steps) {
    step.index = static_cast<std::uint32_t>(rng.uniform(0, p.timers - 1));
    step.offset = static_cast<std::uint32_t>(rng.uniform(0, p.range - 1));
  }
  s.refire.resize(p.refire_pool);
  for (auto& o : s.refire) o = static_cast<std::uint32_t>(rng.uniform(0, p.range - 1));
  return s;
}

struct w1_state {
  std::uint64_t now = 0;
  std::uint64_t missed = 0;    // cancels that found the timer not pending
  std::uint64_t reported = 0;  // sum of what advance returned
  std::size_t refire_pos = 0;
  std::vector<std::uint32_t> fired;  // this advance's fired nodes, rescheduled after it
  fire_checker check;
};

// Steps [from, to) of the sequence: each step cancels its node and schedules it again; every
// w1_steps_per_tick steps time advances one tick, and the timers that fired are scheduled again
// from the refire pool, in fire order.
// With `advance_ns`, each advance is timed alone and its time appended (W5).
template <structure_adapter A>
void run_w1_steps(A& a, const w1_sequence& s, std::size_t from, std::size_t to, w1_state& st,
                  std::vector<double>* advance_ns = nullptr) {
  const w1_step* const steps = s.steps.data();
  const std::size_t mask = s.refire.size() - 1;
  for (std::size_t block = from; block < to; block += w1_steps_per_tick) {
    // No store of the harness's own in a step but the payload's: the compiler cannot tell st
    // from the nodes the structure writes to, and a count kept in st (or spilled) costs a store
    // each step, which a structure whose steps are bound by stores waiting on misses would pay.
    const std::uint64_t before = st.now;
    for (std::size_t k = block; k < block + w1_steps_per_tick; ++k) {
      const std::uint32_t i = steps[k].index;
      if (!a.cancel(i)) [[unlikely]]
        ++st.missed;
      a.schedule(i, before + 1 + steps[k].offset);
    }
    const std::uint64_t now = ++st.now;
    st.fired.clear();
    const auto fire = [&](std::uint32_t i) {
      st.check.on_fire(a.payload(i), i, now);
      st.fired.push_back(i);
    };
    if (advance_ns == nullptr) {
      st.reported += a.advance(now, fire);
    } else {
      const auto t0 = std::chrono::steady_clock::now();
      st.reported += a.advance(now, fire);
      const auto t1 = std::chrono::steady_clock::now();
      advance_ns->push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
    }
    for (const std::uint32_t i : st.fired) {
      a.schedule(i, now + 1 + s.refire[st.refire_pos++ & mask]);
    }
  }
}

// After a W1 run: every timer pending, at the deadline last asked for, after now, and the
// structure's next deadline the true earliest.
template <structure_adapter A>
std::string verify_w1(const A& a, const w1_sequence& s, const w1_state& st) {
  std::string e = st.check.error();
  if (st.missed != 0) e += std::to_string(st.missed) + " cancels missed a pending timer; ";
  if (st.reported != st.check.fired) {
    e += "advance returned " + std::to_string(st.reported) + " but fired " +
         std::to_string(st.check.fired) + "; ";
  }
  if (a.size() != s.params.timers) e += "size " + std::to_string(a.size()) + " after run; ";
  std::uint64_t earliest = std::numeric_limits<std::uint64_t>::max();
  std::size_t bad = 0;
  for (std::uint32_t i = 0; i < s.params.timers; ++i) {
    const std::uint64_t d = a.payload(i).requested;
    bad += !a.pending(i) || d <= st.now || a.hook_deadline(i) != d;
    earliest = std::min(earliest, d);
  }
  if (bad) e += std::to_string(bad) + " timers not pending at their deadline after run; ";
  if (a.next_deadline() != std::optional<std::uint64_t>(earliest)) {
    e += "next_deadline() is not the earliest deadline; ";
  }
  try {
    a.check_invariants();
  } catch (const std::exception& ex) {
    e += std::string("check_invariants: ") + ex.what() + "; ";
  }
  return e;
}

// One W1 run: build the N timers, run the warm-up steps, time the rest, verify.
template <structure_adapter A>
run_result run_w1(const w1_sequence& s) {
  const w1_params& p = s.params;
  A a(p.timers);
  for (std::uint32_t i = 0; i < p.timers; ++i) a.schedule(i, s.initial[i]);
  w1_state st;
  st.check.exact = exact_order_of<A>();
  st.fired.reserve(1024);
  run_w1_steps(a, s, 0, p.warm_steps, st);
  const auto t0 = region_clock::now();
  run_w1_steps(a, s, p.warm_steps, p.warm_steps + p.timed_steps, st);
  const auto t1 = region_clock::now();
  run_result r;
  r.seconds = std::chrono::duration<double>(t1 - t0).count();
  r.ops = p.timed_steps;
  r.fired = st.check.fired;
  r.checksum = st.check.checksum;
  r.error = verify_w1(a, s, st);
  return r;
}

// Runs `steps(from, to)` over the sequence's warm-up steps, then over the rest timed: a
// run_result with the timed seconds and steps. For the loops that are not a structure_adapter.
template <class Steps>
run_result time_w1_steps(const w1_params& p, Steps&& steps) {
  steps(std::size_t{0}, p.warm_steps);
  const auto t0 = region_clock::now();
  steps(p.warm_steps, p.warm_steps + p.timed_steps);
  const auto t1 = region_clock::now();
  run_result r;
  r.seconds = std::chrono::duration<double>(t1 - t0).count();
  r.ops = p.timed_steps;
  return r;
}

// The floor: the same steps touching only the deadline in each step's node. Returns the sum of
// the deadlines it read, which the caller compares across repetitions.
inline run_result run_w1_floor(const w1_sequence& s) {
  const w1_params& p = s.params;
  std::vector<floor_node> nodes(p.timers);
  for (std::size_t i = 0; i < p.timers; ++i) nodes[i].payload.requested = s.initial[i];
  std::uint64_t now = 0;
  std::uint64_t sum = 0;
  auto steps = [&](std::size_t from, std::size_t to) {
    for (std::size_t block = from; block < to; block += w1_steps_per_tick) {
      for (std::size_t k = block; k < block + w1_steps_per_tick; ++k) {
        bench_payload& q = nodes[s.steps[k].index].payload;
        sum += q.requested;
        q.requested = now + 1 + s.steps[k].offset;
      }
      ++now;
    }
  };
  run_result r = time_w1_steps(p, steps);
  r.checksum = sum;
  return r;
}

// The list floor: the least that any structure keeping its timers in doubly linked lists does a
// step. The step's node leaves its list (its two neighbours written) and joins the back of one of
// four lists, chosen by two bits of its new deadline (where W1's coarsest slots put most timers:
// the tails stay in the cache, as the wheel's and HiTime's do). No placement, no bookkeeping,
// nothing fires: the wheel's distance from it is its own work; its distance from the floor is
// the two neighbours a list costs. Returns the floor's sum, and fails if the lists lost or
// crossed a node.
struct list_floor_links {
  list_floor_links* prev;
  list_floor_links* next;
};
struct alignas(node_bytes_for<list_floor_links>()) list_floor_node : list_floor_links {
  bench_payload payload;
};

inline run_result run_w1_list_floor(const w1_sequence& s) {
  const w1_params& p = s.params;
  std::vector<list_floor_node> nodes(p.timers);
  std::array<list_floor_links, 4> lists;
  for (list_floor_links& l : lists) l.prev = l.next = &l;
  const auto list_of = [&](std::uint64_t deadline) -> list_floor_links& {
    return lists[(deadline >> 18) & 3];
  };
  const auto push_back = [](list_floor_links& list, list_floor_links& n) {
    list_floor_links* const tail = list.prev;
    n.prev = tail;
    n.next = &list;
    tail->next = &n;
    list.prev = &n;
  };
  for (std::size_t i = 0; i < p.timers; ++i) {
    nodes[i].payload.requested = s.initial[i];
    push_back(list_of(s.initial[i]), nodes[i]);
  }
  std::uint64_t now = 0;
  std::uint64_t sum = 0;
  auto steps = [&](std::size_t from, std::size_t to) {
    for (std::size_t block = from; block < to; block += w1_steps_per_tick) {
      for (std::size_t k = block; k < block + w1_steps_per_tick; ++k) {
        list_floor_node& n = nodes[s.steps[k].index];
        n.prev->next = n.next;
        n.next->prev = n.prev;
        sum += n.payload.requested;
        const std::uint64_t deadline = now + 1 + s.steps[k].offset;
        n.payload.requested = deadline;
        push_back(list_of(deadline), n);
      }
      ++now;
    }
  };
  run_result r = time_w1_steps(p, steps);
  r.checksum = sum;
  std::size_t linked = 0;
  for (const list_floor_links& l : lists) {
    for (const list_floor_links* n = l.next; n != &l && linked <= p.timers; n = n->next) {
      if (n->next->prev != n) r.error = "the list floor's links disagree; ";
      ++linked;
    }
  }
  if (linked != p.timers) {
    r.error += "the list floor holds " + std::to_string(linked) + " of " +
               std::to_string(p.timers) + " nodes; ";
  }
  return r;
}

}  // namespace timerwheel_bench
