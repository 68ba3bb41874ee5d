// Every adapter of the benchmark checked at compile time against what the workloads ask of it
// (structure_adapter, or start_stop_timers for the event loops' own timers), and every timerwheel
// structure an adapter wraps against the library's contract (timerwheel::timer_structure), so
// that an adapter or a structure that drifts from either fails here, by name, and not deep inside
// a workload's template.
#pragma once

#include <timerwheel/concepts.hpp>

#if TIMERWHEEL_BENCH_PEERS
#include "boost_heaps.hpp"
#include "event_loops.hpp"
#endif
#include "../workloads/startstop.hpp"
#include "common.hpp"
#include "heaps.hpp"
#include "hitime_scheme.hpp"
#include "keyed.hpp"
#include "lazy_pq.hpp"
#include "reference.hpp"
#include "wheel.hpp"

namespace timerwheel_bench::checks {

// The wheels and the seven reference schemes: the adapter, and the structure it wraps.
static_assert(structure_adapter<wheel6>);
static_assert(timerwheel::timer_structure<wheel6::structure_type>);
static_assert(structure_adapter<wheel8>);
static_assert(timerwheel::timer_structure<wheel8::structure_type>);
static_assert(structure_adapter<unordered_list>);
static_assert(timerwheel::timer_structure<unordered_list::structure_type>);
static_assert(structure_adapter<ordered_list>);
static_assert(timerwheel::timer_structure<ordered_list::structure_type>);
static_assert(structure_adapter<ref_binary_heap>);
static_assert(timerwheel::timer_structure<ref_binary_heap::structure_type>);
static_assert(structure_adapter<basic_wheel>);
static_assert(timerwheel::timer_structure<basic_wheel::structure_type>);
static_assert(structure_adapter<hashed_sorted>);
static_assert(timerwheel::timer_structure<hashed_sorted::structure_type>);
static_assert(structure_adapter<hashed_unordered>);
static_assert(timerwheel::timer_structure<hashed_unordered::structure_type>);
static_assert(structure_adapter<hierarchical>);
static_assert(timerwheel::timer_structure<hierarchical::structure_type>);

// The bench's own heaps and the standard library's structures.
static_assert(structure_adapter<heap>);
static_assert(structure_adapter<heap_nodekey>);
static_assert(structure_adapter<heap4>);
static_assert(structure_adapter<hitime_scheme>);
static_assert(structure_adapter<lazy_pq>);
static_assert(structure_adapter<multiset>);

// W1 start/stop: any adapter through start/stop, and the event loops' timers.
static_assert(start_stop_timers<as_start_stop<heap>>);
static_assert(start_stop_timers<as_start_stop<wheel6>>);

#if TIMERWHEEL_BENCH_PEERS
static_assert(structure_adapter<boost_dary>);
static_assert(structure_adapter<boost_pairing>);
static_assert(start_stop_timers<libevent_timers>);
static_assert(start_stop_timers<libuv_timers>);
static_assert(start_stop_timers<asio_timers>);
#endif

}  // namespace timerwheel_bench::checks
