// The standard workloads (docs: ../shared/WORKLOADS.md), defined once as templates over a
// structure adapter, so that the same operation sequence from the same seed drives every
// structure.
//
// Every random choice of a run (which timer, which deadline, where time jumps to) is drawn
// before timing into arrays that all structures then read in the same order: the PRNG stays out
// of the measured loop, and a structure's callbacks cannot perturb the sequence. Every run
// checks its own answer (see fire_checker and the verify_* functions) and the caller compares
// the fired count and the order-sensitive checksum across structures.
//
// Nodes: each structure gets a std::vector of node_bytes-sized, node_bytes-aligned nodes (64 by
// default, one cache line: the structure's hook plus a bench_payload holding the deadline the
// workload asked for), so that every structure, and the floor, touches exactly one line per
// random node.
#pragma once

#include <timerwheel/wheel.hpp>

#include <algorithm>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "indexed_binary_heap.hpp"

namespace timerwheel_bench {

// ---------------------------------------------------------------------------------------------
// Random numbers: splitmix64 to seed, xoshiro256** to draw.

inline std::uint64_t splitmix64(std::uint64_t& state) noexcept {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class xoshiro256ss {
 public:
  explicit xoshiro256ss(std::uint64_t seed) noexcept {
    for (auto& word : s_) word = splitmix64(seed);
  }
  std::uint64_t operator()() noexcept {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform in [lo, hi] (inclusive). The modulo bias is below 2^-23 for every range used here.
  std::uint64_t uniform(std::uint64_t lo, std::uint64_t hi) noexcept {
    const std::uint64_t span = hi - lo;
    if (span == std::numeric_limits<std::uint64_t>::max()) return (*this)();
    return lo + (*this)() % (span + 1);
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

// A per-workload seed: the printed run seed mixed with a tag naming the workload and size, so
// that each workload has its own stream and every structure of it the same one.
inline std::uint64_t derive_seed(std::uint64_t seed, const std::string& tag) noexcept {
  std::uint64_t h = seed;
  for (const char c : tag) {
    h ^= static_cast<unsigned char>(c);
    h = splitmix64(h);
  }
  return h;
}

// ---------------------------------------------------------------------------------------------
// Nodes and adapters.

// What the workload keeps in each node, beside the structure's hook.
struct bench_payload {
  static constexpr std::uint64_t fired = std::numeric_limits<std::uint64_t>::max();
  // The deadline last asked for (ticks); `fired` once the timer has fired and until it is
  // scheduled again, which is how a second firing is caught.
  std::uint64_t requested = fired;
};

// The size and alignment of every node (a power of two, at least 32: the 24-byte wheel hook or
// heap node plus the payload). 64 by default: one cache line per object, as a real object
// holding a timer takes; -DTIMERWHEEL_BENCH_NODE_BYTES=32 packs two nodes per line.
#ifndef TIMERWHEEL_BENCH_NODE_BYTES
#define TIMERWHEEL_BENCH_NODE_BYTES 64
#endif
inline constexpr std::size_t node_bytes = TIMERWHEEL_BENCH_NODE_BYTES;

// A callable that takes the index of a fired node; used only to state the concept.
struct index_sink {
  void operator()(std::uint32_t) const noexcept {}
};

// What a structure must offer to be benchmarked: nodes addressed by index, the deadline in
// ticks (absolute).
template <class A>
concept structure_adapter = requires(A& a, const A& ca, std::uint32_t i, std::uint64_t t,
                                     index_sink f) {
  { A::name } -> std::convertible_to<const char*>;
  { a.payload(i) } -> std::same_as<bench_payload&>;
  { ca.payload(i) } -> std::same_as<const bench_payload&>;
  { a.schedule(i, t) } -> std::same_as<void>;  // writes payload(i).requested = t too
  { a.cancel(i) } -> std::same_as<bool>;
  { a.advance(t, f) } -> std::same_as<std::size_t>;  // f(index) per timer fired, in order
  { ca.size() } -> std::convertible_to<std::size_t>;
  { ca.pending(i) } -> std::same_as<bool>;
  { ca.hook_deadline(i) } -> std::same_as<std::uint64_t>;
  { ca.next_deadline() } -> std::same_as<std::optional<std::uint64_t>>;
  ca.check_invariants();
};

template <class Config>
struct wheel_name;
template <>
struct wheel_name<timerwheel::default_config> {
  static constexpr const char* value = "wheel6";
};
template <>
struct wheel_name<timerwheel::levels<std::uint64_t, 8, 8, 8, 8, 8, 8, 8, 8>> {
  static constexpr const char* value = "wheel8";
};

// timerwheel::wheel<Config>: the node derives from the wheel's hook.
template <class Config>
class wheel_adapter {
 public:
  using wheel_type = timerwheel::wheel<Config>;
  using hook_type = typename wheel_type::hook_type;
  static constexpr const char* name = wheel_name<Config>::value;

  struct alignas(node_bytes) node : hook_type {
    bench_payload payload;
  };
  static_assert(sizeof(node) == node_bytes, "hook plus payload must fit node_bytes");

  explicit wheel_adapter(std::size_t n) : nodes_(n) {}

  bench_payload& payload(std::uint32_t i) noexcept { return nodes_[i].payload; }
  const bench_payload& payload(std::uint32_t i) const noexcept { return nodes_[i].payload; }
  void schedule(std::uint32_t i, std::uint64_t deadline) {
    node& n = nodes_[i];
    n.payload.requested = deadline;
    wheel_.schedule(n, deadline);
  }
  bool cancel(std::uint32_t i) noexcept { return wheel_.cancel(nodes_[i]); }
  template <class F>
  std::size_t advance(std::uint64_t to, F&& f) {
    return wheel_.advance(to, [this, &f](hook_type& h) { f(index_of(static_cast<node&>(h))); });
  }
  std::size_t size() const noexcept { return wheel_.size(); }
  bool pending(std::uint32_t i) const noexcept { return nodes_[i].pending(); }
  std::uint64_t hook_deadline(std::uint32_t i) const noexcept { return nodes_[i].deadline(); }
  std::optional<std::uint64_t> next_deadline() const { return wheel_.next_deadline(); }
  void check_invariants() const {
    if constexpr (requires { wheel_.check_invariants(); }) wheel_.check_invariants();
  }

 private:
  std::uint32_t index_of(const node& n) const noexcept {
    return static_cast<std::uint32_t>(&n - nodes_.data());
  }
  // Declared first so that it is destroyed last: the wheel unlinks its hooks when destroyed.
  std::vector<node> nodes_;
  wheel_type wheel_;
};

// The indexed binary heap (the baseline): the node derives from heap_node.
template <bool KeyInArray>
class heap_adapter {
 public:
  using heap_type = indexed_binary_heap<KeyInArray>;
  static constexpr const char* name = KeyInArray ? "heap" : "heap_nodekey";

  struct alignas(node_bytes) node : heap_node {
    bench_payload payload;
  };
  static_assert(sizeof(node) == node_bytes, "hook plus payload must fit node_bytes");

  explicit heap_adapter(std::size_t n) : nodes_(n) { heap_.reserve(n); }

  bench_payload& payload(std::uint32_t i) noexcept { return nodes_[i].payload; }
  const bench_payload& payload(std::uint32_t i) const noexcept { return nodes_[i].payload; }
  void schedule(std::uint32_t i, std::uint64_t deadline) {
    node& n = nodes_[i];
    n.payload.requested = deadline;
    heap_.schedule(n, deadline);
  }
  bool cancel(std::uint32_t i) noexcept { return heap_.cancel(nodes_[i]); }
  template <class F>
  std::size_t advance(std::uint64_t to, F&& f) {
    return heap_.advance(to, [this, &f](heap_node& h) { f(index_of(static_cast<node&>(h))); });
  }
  std::size_t size() const noexcept { return heap_.size(); }
  bool pending(std::uint32_t i) const noexcept { return nodes_[i].pending(); }
  std::uint64_t hook_deadline(std::uint32_t i) const noexcept { return nodes_[i].deadline; }
  std::optional<std::uint64_t> next_deadline() const { return heap_.next_deadline(); }
  void check_invariants() const { heap_.check_invariants(); }

 private:
  std::uint32_t index_of(const node& n) const noexcept {
    return static_cast<std::uint32_t>(&n - nodes_.data());
  }
  std::vector<node> nodes_;
  heap_type heap_;
};

// The floor's node: no hook, only the deadline.
struct alignas(node_bytes) floor_node {
  bench_payload payload;
};

// ---------------------------------------------------------------------------------------------
// Checking.

// Order-sensitive hash of the fired sequence: (node index, deadline) in fire order.
inline std::uint64_t mix_fired(std::uint64_t h, std::uint32_t index,
                               std::uint64_t deadline) noexcept {
  h ^= (static_cast<std::uint64_t>(index) + 1) * 0x9e3779b97f4a7c15ULL;
  h ^= deadline * 0xc2b2ae3d27d4eb4fULL;
  h = (h ^ (h >> 31)) * 0xff51afd7ed558ccdULL;
  return h ^ (h >> 29);
}

// Watches every firing: never early (deadline <= the advance's target), nondecreasing deadlines
// across the whole run, never twice for one scheduling; hashes the sequence.
struct fire_checker {
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
    out_of_order += d < last_deadline;
    last_deadline = d;
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
  std::string error;  // empty when every check passed
};

// ---------------------------------------------------------------------------------------------
// W1 churn.

inline constexpr std::size_t w1_steps_per_tick = 100;

struct w1_params {
  std::size_t timers;                  // N
  std::uint64_t range;                 // R: deadlines uniform [now + 1, now + R]
  std::size_t warm_steps;              // run before timing, from the same sequence
  std::size_t timed_steps;             // both multiples of w1_steps_per_tick
  std::size_t refire_pool = 1u << 18;  // power of two
};

struct w1_sequence {
  w1_params params;
  std::vector<std::uint64_t> initial;  // deadline of node i at the start (now = 0)
  std::vector<std::uint32_t> index;    // per step: the node cancelled and scheduled again
  std::vector<std::uint32_t> offset;   // per step: new deadline = now + 1 + offset
  std::vector<std::uint32_t> refire;   // cyclic: a fired node's new deadline = now + 1 + refire[k]
};

inline w1_sequence make_w1_sequence(const w1_params& p, std::uint64_t seed) {
  xoshiro256ss rng(seed);
  w1_sequence s;
  s.params = p;
  s.initial.resize(p.timers);
  for (auto& d : s.initial) d = rng.uniform(1, p.range);
  const std::size_t steps = p.warm_steps + p.timed_steps;
  s.index.resize(steps);
  s.offset.resize(steps);
  for (std::size_t k = 0; k < steps; ++k) {
    s.index[k] = static_cast<std::uint32_t>(rng.uniform(0, p.timers - 1));
    s.offset[k] = static_cast<std::uint32_t>(rng.uniform(0, p.range - 1));
  }
  s.refire.resize(p.refire_pool);
  for (auto& o : s.refire) o = static_cast<std::uint32_t>(rng.uniform(0, p.range - 1));
  return s;
}

struct w1_state {
  std::uint64_t now = 0;
  std::uint64_t cancelled = 0;  // cancels that found the timer pending
  std::uint64_t reported = 0;   // sum of what advance returned
  std::size_t refire_pos = 0;
  std::vector<std::uint32_t> fired;  // this advance's fired nodes, rescheduled after it
  fire_checker check;
};

// Steps [from, to) of the sequence: each step cancels its node and schedules it again; every
// w1_steps_per_tick steps time advances one tick, and the timers that fired are scheduled again
// from the refire pool, in fire order.
template <structure_adapter A>
void run_w1_steps(A& a, const w1_sequence& s, std::size_t from, std::size_t to, w1_state& st) {
  const std::uint32_t* const index = s.index.data();
  const std::uint32_t* const offset = s.offset.data();
  const std::size_t mask = s.refire.size() - 1;
  for (std::size_t block = from; block < to; block += w1_steps_per_tick) {
    for (std::size_t k = block; k < block + w1_steps_per_tick; ++k) {
      const std::uint32_t i = index[k];
      st.cancelled += a.cancel(i);
      a.schedule(i, st.now + 1 + offset[k]);
    }
    const std::uint64_t now = ++st.now;
    st.fired.clear();
    st.reported += a.advance(now, [&](std::uint32_t i) {
      st.check.on_fire(a.payload(i), i, now);
      st.fired.push_back(i);
    });
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
  const std::size_t steps = s.params.warm_steps + s.params.timed_steps;
  if (st.cancelled != steps) {
    e += std::to_string(steps - st.cancelled) + " cancels missed a pending timer; ";
  }
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
  st.fired.reserve(1024);
  run_w1_steps(a, s, 0, p.warm_steps, st);
  const auto t0 = std::chrono::steady_clock::now();
  run_w1_steps(a, s, p.warm_steps, p.warm_steps + p.timed_steps, st);
  const auto t1 = std::chrono::steady_clock::now();
  run_result r;
  r.seconds = std::chrono::duration<double>(t1 - t0).count();
  r.ops = p.timed_steps;
  r.fired = st.check.fired;
  r.checksum = st.check.checksum;
  r.error = verify_w1(a, s, st);
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
        bench_payload& q = nodes[s.index[k]].payload;
        sum += q.requested;
        q.requested = now + 1 + s.offset[k];
      }
      ++now;
    }
  };
  steps(0, p.warm_steps);
  const auto t0 = std::chrono::steady_clock::now();
  steps(p.warm_steps, p.warm_steps + p.timed_steps);
  const auto t1 = std::chrono::steady_clock::now();
  run_result r;
  r.seconds = std::chrono::duration<double>(t1 - t0).count();
  r.ops = p.timed_steps;
  r.checksum = sum;
  return r;
}

// ---------------------------------------------------------------------------------------------
// W3 idle jumps.

struct w3_params {
  std::size_t timers;  // 1,000
  std::uint64_t span;  // timers uniform [1, span]; time goes 0 -> span
  std::size_t jumps;   // advance calls per pass
  std::size_t passes;  // independent passes per run (fresh structure, same sequence), timed
                       // together, so that one run is long enough to ride out noise
};

struct w3_sequence {
  w3_params params;
  std::vector<std::uint64_t> initial;  // deadline of node i
  // The jumps: advance call k goes to gap[0] + ... + gap[k]; the last target is span. Kept as
  // 32-bit gaps rather than 64-bit targets to halve the stream the timed loop reads: an O(1)
  // advance costs a few ns, so reading 8 bytes per call already shows on a shared machine's
  // memory bandwidth.
  std::vector<std::uint32_t> gaps;
};

// Targets: jumps - 1 uniform cut points of [1, span], sorted, then span itself; the jumps
// between them are exponentially distributed, from 0 ticks to many times the mean.
inline w3_sequence make_w3_sequence(const w3_params& p, std::uint64_t seed) {
  xoshiro256ss rng(seed);
  w3_sequence s;
  s.params = p;
  s.initial.resize(p.timers);
  for (auto& d : s.initial) d = rng.uniform(1, p.span);
  std::vector<std::uint64_t> targets(p.jumps);
  for (std::size_t k = 0; k + 1 < p.jumps; ++k) targets[k] = rng.uniform(1, p.span);
  std::sort(targets.begin(), targets.end() - 1);
  targets.back() = p.span;
  s.gaps.resize(p.jumps);
  std::uint64_t prev = 0;
  for (std::size_t k = 0; k < p.jumps; ++k) {
    const std::uint64_t gap = targets[k] - prev;
    if (gap > std::numeric_limits<std::uint32_t>::max()) {
      throw std::length_error("make_w3_sequence: a jump does not fit 32 bits; use more jumps");
    }
    s.gaps[k] = static_cast<std::uint32_t>(gap);
    prev = targets[k];
  }
  return s;
}

// One W3 pass: schedule the timers (untimed), time the advances (fired timers are not
// scheduled again), verify that all fired exactly once, in order, never early.
template <structure_adapter A>
run_result run_w3_pass(const w3_sequence& s) {
  const w3_params& p = s.params;
  A a(p.timers);
  for (std::uint32_t i = 0; i < p.timers; ++i) a.schedule(i, s.initial[i]);
  fire_checker check;
  std::uint64_t reported = 0;
  std::uint64_t to = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (const std::uint32_t gap : s.gaps) {
    to += gap;
    reported += a.advance(to, [&](std::uint32_t i) { check.on_fire(a.payload(i), i, to); });
  }
  const auto t1 = std::chrono::steady_clock::now();
  run_result r;
  r.seconds = std::chrono::duration<double>(t1 - t0).count();
  r.ops = p.jumps;
  r.fired = check.fired;
  r.checksum = check.checksum;
  r.error = check.error();
  if (check.fired != p.timers) {
    r.error += std::to_string(check.fired) + " of " + std::to_string(p.timers) + " fired; ";
  }
  if (reported != check.fired) r.error += "advance's return values disagree with the firings; ";
  if (to != p.span) r.error += "the jumps do not end at span; ";
  if (a.size() != 0) r.error += "size " + std::to_string(a.size()) + " after run; ";
  for (std::uint32_t i = 0; i < p.timers; ++i) {
    if (a.pending(i)) {
      r.error += "timer still pending after run; ";
      break;
    }
  }
  if (a.next_deadline().has_value()) r.error += "next_deadline() on an empty structure; ";
  try {
    a.check_invariants();
  } catch (const std::exception& ex) {
    r.error += std::string("check_invariants: ") + ex.what() + "; ";
  }
  return r;
}

// One W3 run: `passes` passes, their timed regions summed; every pass must fire the same
// sequence.
template <structure_adapter A>
run_result run_w3(const w3_sequence& s) {
  run_result total;
  for (std::size_t k = 0; k < std::max<std::size_t>(1, s.params.passes); ++k) {
    const run_result r = run_w3_pass<A>(s);
    if (k == 0) {
      total = r;
      continue;
    }
    total.seconds += r.seconds;
    total.ops += r.ops;
    total.error += r.error;
    if (r.fired != total.fired || r.checksum != total.checksum) {
      total.error += "passes over the same sequence fired differently; ";
    }
  }
  return total;
}

}  // namespace timerwheel_bench
