// The seven schemes of Varghese & Lauck (include/timerwheel/reference), and the calendar and
// ladder queues of simulators, as shipped, each with
// the sizes where it is hopeless left out (the table says which and why).
#pragma once

#include <timerwheel/reference.hpp>

#include <cstdint>

#include "intrusive.hpp"

namespace timerwheel_bench {

namespace ref = timerwheel::reference;

// The basic wheel needs one slot per tick of the range: 2^20 ticks ahead (W1's R = 2^20).
inline constexpr std::size_t basic_wheel_interval = std::size_t{1} << 20;

using basic_wheel_type = ref::basic_wheel<std::uint64_t, basic_wheel_interval>;

#define TIMERWHEEL_BENCH_SCHEME(alias, label, type, ...) \
  struct alias##_traits {                                \
    static constexpr const char* value = label;          \
    static constexpr limits limit{__VA_ARGS__};          \
  };                                                     \
  using alias = intrusive_adapter<type, typename type::hook_type, alias##_traits>;

// limits{max_timers, max_range, max_timers_tick_steps, why, max_timers_sweep, max_timers_hold}
// (what each cost at the sizes skipped: docs/perf/2026-11-bench-baselines.md)
TIMERWHEEL_BENCH_SCHEME(unordered_list, "s1_unordered", ref::unordered_list<>, 10'000, ~0ull, 0,
                        "advance and next_deadline are O(n)", ~std::size_t{0}, 100)
TIMERWHEEL_BENCH_SCHEME(ordered_list, "s2_ordered", ref::ordered_list<>, 10'000, ~0ull, ~0ull,
                        "START_TIMER is O(n)", ~std::size_t{0}, 100)
TIMERWHEEL_BENCH_SCHEME(ref_binary_heap, "s3_heap", ref::binary_heap<>)
TIMERWHEEL_BENCH_SCHEME(basic_wheel, "s4_basic", basic_wheel_type, ~std::size_t{0},
                        basic_wheel_interval, ~0ull, "one slot per tick of the range")
TIMERWHEEL_BENCH_SCHEME(hashed_sorted, "s5_hash_sorted", ref::hashed_wheel_sorted<>, 10'000, ~0ull,
                        ~0ull, "START_TIMER is O(n / 256)")
TIMERWHEEL_BENCH_SCHEME(hashed_unordered, "s6_hash_unord", ref::hashed_wheel_unordered<>,
                        ~std::size_t{0}, ~0ull, 1'000,
                        "each tick examines n / 256 timers, next_deadline is O(n)", 1'000, 100)
TIMERWHEEL_BENCH_SCHEME(hierarchical, "s7_hier", ref::hierarchical_arrays<>)
// The event lists of simulators (W6 hold).
TIMERWHEEL_BENCH_SCHEME(calendar, "calendar", ref::calendar_queue<>)
TIMERWHEEL_BENCH_SCHEME(ladder, "ladder", ref::ladder_queue<>)

#undef TIMERWHEEL_BENCH_SCHEME

}  // namespace timerwheel_bench
