// What every structure adapter shares: the payload each node carries beside the structure's own
// hook, the node size, and the concept a workload asks of an adapter.
#pragma once

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>

// The adapters' glue between a workload and a structure (an index to its node, the payload's
// bookkeeping): forced inline, so that whether a structure's own calls are inlined into a
// workload's loop is the structure's doing, never the optimiser's budget for the glue around
// them, which differs from one translation unit to another (at -O2 g++ kept the wheel adapter's
// schedule out of line in W2's, W3's, W5's and W6's loops here, and in W1's in a program of
// W1 alone: docs/perf/2026-11-29-glue-and-small-n.md).
#if defined(__GNUC__) || defined(__clang__)
#define TIMERWHEEL_BENCH_GLUE [[gnu::always_inline]] inline
#else
#define TIMERWHEEL_BENCH_GLUE inline
#endif

namespace timerwheel_bench {

// What the workload keeps in each node, beside the structure's hook.
struct bench_payload {
  static constexpr std::uint64_t fired = std::numeric_limits<std::uint64_t>::max();
  // The deadline last asked for (ticks); `fired` once the timer has fired and until it is
  // scheduled again, which is how a second firing is caught.
  std::uint64_t requested = fired;
};

// The node layout. TIMERWHEEL_BENCH_NODE_BYTES = 64 (timerwheel_bench, the default): every node
// 64 bytes and aligned to them, one cache line per object, as a real object holding a timer
// takes. Below a line (32 in timerwheel_bench_packed): packed, every node the smallest power of
// two that holds its hook and the payload, at most that many bytes, as users who embed a hook in
// a small struct have it: the wheel's 24-byte hook in 32 bytes, two objects a line, and a heap's
// 8-byte index in 16, so that each structure packs as tightly as its own hook allows. A
// structure whose node does not fit (the reference schemes' 48-byte hook) is left out of the runs
// (fits_layout below) and the table says why.
#ifndef TIMERWHEEL_BENCH_NODE_BYTES
#define TIMERWHEEL_BENCH_NODE_BYTES 64
#endif
inline constexpr std::size_t node_bytes = TIMERWHEEL_BENCH_NODE_BYTES;
static_assert(node_bytes >= 32 && (node_bytes & (node_bytes - 1)) == 0,
              "TIMERWHEEL_BENCH_NODE_BYTES: a power of two, at least 32");
inline constexpr bool packed_layout = node_bytes < 64;

template <class Hook>
constexpr std::size_t node_bytes_for() {
  if constexpr (packed_layout) {
    return std::bit_ceil(sizeof(Hook) + sizeof(bench_payload));
  } else {
    return node_bytes;
  }
}

// A node: the hook (whatever the structure keeps per timer) and the payload.
template <class Hook>
struct alignas(node_bytes_for<Hook>()) basic_node : Hook {
  bench_payload payload;
};

// The bytes of each timer's object in A's runs; 0 where the structure allocates its own (the
// event loops' timers).
template <class A>
constexpr std::size_t node_size_of() {
  if constexpr (requires { typename A::node; }) {
    return sizeof(typename A::node);
  } else {
    return 0;
  }
}

// Whether A's node fits this layout: a figure taken with larger nodes is not comparable with
// the rest of its table.
template <class A>
constexpr bool fits_layout() {
  return node_size_of<A>() <= node_bytes;
}

// A callable that takes the index of a fired node; used only to state the concept.
struct index_sink {
  void operator()(std::uint32_t) const noexcept {}
};

// What a structure must offer to be benchmarked: nodes addressed by index, the deadline in
// ticks (absolute). hook_bytes: what the structure keeps inside each timer's object (W4 adds
// it to what the structure allocates).
template <class A>
concept structure_adapter = requires(A& a, const A& ca, std::uint32_t i, std::uint64_t t,
                                     index_sink f) {
  { A::name } -> std::convertible_to<const char*>;
  { A::hook_bytes } -> std::convertible_to<std::size_t>;
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

// Whether A fires in exact deadline order. A peer that fires a batch in another order (HiTime's
// scheme: a bin at a time) declares `static constexpr bool exact_order = false`: the checks then
// allow any order within one advance, and its fired sequence is compared with its own untimed
// run instead of the heap's.
template <class A>
constexpr bool exact_order_of() {
  if constexpr (requires { A::exact_order; }) {
    return A::exact_order;
  } else {
    return true;
  }
}

// Which sizes a structure is run at: a scheme whose cost grows with N (or with the range) is
// skipped where one run would take minutes, and the table says so. max_timers: the largest N;
// max_range: the largest deadline distance it can hold or run at in reasonable time.
struct limits {
  std::size_t max_timers = std::numeric_limits<std::size_t>::max();
  std::uint64_t max_range = std::numeric_limits<std::uint64_t>::max();
  // Advances of one tick across the whole range (W2 with 1-tick steps) are hopeless for
  // schemes whose advance is O(n): the largest N they are run at there.
  std::size_t max_timers_tick_steps = std::numeric_limits<std::size_t>::max();
  const char* why = "";
  // W2 sweeps the whole range (2^20 ticks) and W6 asks next_deadline() before every hold:
  // the largest N at which a scheme whose cost grows with the ticks elapsed, or whose
  // next_deadline() is O(n), is run there.
  std::size_t max_timers_sweep = std::numeric_limits<std::size_t>::max();
  std::size_t max_timers_hold = std::numeric_limits<std::size_t>::max();
};

template <class A>
constexpr limits limits_of() {
  if constexpr (requires { A::limit; }) {
    return A::limit;
  } else {
    return limits{};
  }
}

}  // namespace timerwheel_bench
