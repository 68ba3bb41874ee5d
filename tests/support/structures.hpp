// Every structure under the timer contract, for the tests that run them all
// (tests/conformance, tests/exhaustive, fuzz/): the wheel in several
// configurations and the seven reference schemes of Varghese & Lauck, over
// 64-bit ticks and over wrapping 32-bit ticks.
//
// structure_traits<S> says what a test may ask of S: its name, and its "max
// horizon" (how far ahead of now a deadline may lie; basic_wheel refuses
// deadlines beyond its MaxInterval). Streams are generated within the
// smallest horizon of the structures that run them (timeline), never by
// weakening a check.
#pragma once

#include <timerwheel/reference.hpp>
#include <timerwheel/wheel.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "lockstep.hpp"

namespace timerwheel_test {

namespace tw = timerwheel;
namespace twr = timerwheel::reference;

template <class Tick>
std::string tick_name() {
  return std::is_same_v<Tick, std::uint64_t>   ? "u64"
         : std::is_same_v<Tick, std::uint32_t> ? "u32"
                                               : "u" + std::to_string(sizeof(Tick) * 8);
}

template <class S>
struct structure_traits;

// A structure that takes every deadline.
struct unbounded {
  static constexpr std::uint64_t max_ahead = timeline::unlimited;
};

template <class Tick, unsigned... Bits>
struct structure_traits<tw::wheel<tw::levels<Tick, Bits...>>> : unbounded {
  // e.g. "wheel_u64_8_8"; "wheel_default" for default_config.
  static std::string name() {
    if (std::is_same_v<tw::levels<Tick, Bits...>, tw::default_config>) return "wheel_default";
    return "wheel_" + tick_name<Tick>() + (("_" + std::to_string(Bits)) + ...);
  }
};

// e.g. "counted_wheel_default".
template <class Config>
struct structure_traits<tw::wheel<tw::counted<Config>>> : unbounded {
  static std::string name() { return "counted_" + structure_traits<tw::wheel<Config>>::name(); }
};

template <class Tick>
struct structure_traits<twr::unordered_list<Tick>> : unbounded {
  static std::string name() { return "unordered_list_" + tick_name<Tick>(); }
};

template <class Tick>
struct structure_traits<twr::ordered_list<Tick>> : unbounded {
  static std::string name() { return "ordered_list_" + tick_name<Tick>(); }
};

template <class Tick>
struct structure_traits<twr::binary_heap<Tick>> : unbounded {
  static std::string name() { return "binary_heap_" + tick_name<Tick>(); }
};

template <class Tick, std::size_t TableSize>
struct structure_traits<twr::hashed_wheel_sorted<Tick, TableSize>> : unbounded {
  static std::string name() {
    return "hashed_wheel_sorted_" + tick_name<Tick>() + "_" + std::to_string(TableSize);
  }
};

template <class Tick, std::size_t TableSize>
struct structure_traits<twr::hashed_wheel_unordered<Tick, TableSize>> : unbounded {
  static std::string name() {
    return "hashed_wheel_unordered_" + tick_name<Tick>() + "_" + std::to_string(TableSize);
  }
};

template <class Tick, std::size_t MaxInterval>
struct structure_traits<twr::basic_wheel<Tick, MaxInterval>> {
  static constexpr std::uint64_t max_ahead = MaxInterval;
  static std::string name() {
    return "basic_wheel_" + tick_name<Tick>() + "_" + std::to_string(MaxInterval);
  }
};

template <class Tick, std::uint64_t... Radices>
struct structure_traits<twr::hierarchical_arrays<Tick, twr::radices<Radices...>>> : unbounded {
  static std::string name() {
    return "hierarchical_arrays_" + tick_name<Tick>() + (("_" + std::to_string(Radices)) + ...);
  }
};

// The event lists of simulators (reference/calendar_queue.hpp, ladder_queue.hpp).
template <class Tick>
struct structure_traits<twr::calendar_queue<Tick>> : unbounded {
  static std::string name() { return "calendar_queue_" + tick_name<Tick>(); }
};

template <class Tick, std::size_t Threshold, std::size_t MaxRungs>
struct structure_traits<twr::ladder_queue<Tick, Threshold, MaxRungs>> : unbounded {
  static std::string name() {
    return "ladder_queue_" + tick_name<Tick>() + "_" + std::to_string(Threshold) + "_" +
           std::to_string(MaxRungs);
  }
};

// structure_traits<S>::name(), made once.
template <class S>
const std::string& name_of() {
  static const std::string name = structure_traits<S>::name();
  return name;
}

// A list of structure types.
template <class... S>
struct structure_list {
  static constexpr std::size_t size = sizeof...(S);

  // The timeline of a stream that all of them run: the narrowest tick type
  // and the smallest horizon.
  static timeline common_timeline() {
    timeline line;
    ((line.digits = std::min(
          line.digits, static_cast<unsigned>(std::numeric_limits<typename S::tick_type>::digits))),
     ...);
    ((line.deadline_limit = std::min(line.deadline_limit, structure_traits<S>::max_ahead)), ...);
    return line;
  }

  static void add_to(lockstep& run) { (run.add<S>(name_of<S>()), ...); }

  template <class... More>
  using plus = structure_list<S..., More...>;
};

// The structures of several lists, in order.
template <class... Lists>
struct concat;
template <class... A>
struct concat<structure_list<A...>> {
  using type = structure_list<A...>;
};
template <class... A, class... B, class... Rest>
struct concat<structure_list<A...>, structure_list<B...>, Rest...> {
  using type = typename concat<structure_list<A..., B...>, Rest...>::type;
};
template <class... Lists>
using concat_t = typename concat<Lists...>::type;

// The wheel configurations: the default (no far list, no count: size() is a
// walk), the default counting its timers, two levels with a far list, uneven
// levels (one of more than 6 bits: a summary word), wrapping 32-bit ticks,
// and a tiny wrapping one with a far list, counted.
using wheels64 =
    structure_list<tw::wheel<tw::default_config>, tw::wheel<tw::counted<tw::default_config>>,
                   tw::wheel<tw::levels<std::uint64_t, 8, 8>>,
                   tw::wheel<tw::levels<std::uint64_t, 4, 6, 8, 10>>>;
using wheels32 = structure_list<tw::wheel<tw::levels<std::uint32_t, 8, 8, 8, 8>>,
                                tw::wheel<tw::counted<tw::levels<std::uint32_t, 2, 2>>>>;

// The seven schemes with default parameters over `Tick`, but basic_wheel
// (whose horizon is 2^16 ticks), and the event lists of simulators.
template <class Tick>
using unbounded_schemes =
    structure_list<twr::unordered_list<Tick>, twr::ordered_list<Tick>, twr::binary_heap<Tick>,
                   twr::hashed_wheel_sorted<Tick>, twr::hashed_wheel_unordered<Tick>,
                   twr::hierarchical_arrays<Tick>, twr::calendar_queue<Tick>,
                   twr::ladder_queue<Tick>>;
template <class Tick>
using all_schemes = typename unbounded_schemes<Tick>::template plus<twr::basic_wheel<Tick>>;

// The seven schemes with tiny parameters, where a few ticks already cross
// tables and arrays: a basic wheel of BasicInterval ticks, hashed wheels of
// 4 slots, hierarchical arrays of 2 x 3 slots and an overflow list; and the
// event lists, the ladder splitting buckets of more than 2 timers into up to
// 3 rungs.
template <class Tick, std::size_t BasicInterval>
using tiny_schemes =
    structure_list<twr::unordered_list<Tick>, twr::ordered_list<Tick>, twr::binary_heap<Tick>,
                   twr::basic_wheel<Tick, BasicInterval>, twr::hashed_wheel_sorted<Tick, 4>,
                   twr::hashed_wheel_unordered<Tick, 4>,
                   twr::hierarchical_arrays<Tick, twr::radices<2, 3>>, twr::calendar_queue<Tick>,
                   twr::ladder_queue<Tick, 2, 3>>;

// The lockstep groups: the structures that run one stream, so that each runs
// at least once within its own horizon and at least once beside everything.
//   every:     every structure; 32-bit instants (started just below 2^32)
//              within basic_wheel's horizon of 2^16 ticks.
//   bounded64: every 64-bit structure, within 2^16 ticks, started at 0,
//              anywhere or just below the end of time.
//   wide64:    every 64-bit structure but basic_wheel, over all 64 bits.
//   wrap32:    every structure but basic_wheel, 32-bit instants up to
//              2^31 - 1 ahead, started just below 2^32.
using group_every =
    concat_t<wheels64, wheels32, all_schemes<std::uint64_t>, all_schemes<std::uint32_t>>;
using group_bounded64 = concat_t<wheels64, all_schemes<std::uint64_t>>;
using group_wide64 = concat_t<wheels64, unbounded_schemes<std::uint64_t>>;
using group_wrap32 = concat_t<wheels64, wheels32, unbounded_schemes<std::uint64_t>,
                              unbounded_schemes<std::uint32_t>>;

}  // namespace timerwheel_test
