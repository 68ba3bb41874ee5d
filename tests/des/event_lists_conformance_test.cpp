// The conformance suite (tests/conformance/conformance.hpp) on the event
// lists of simulators: the calendar queue and the ladder queue (default and
// tiny parameters), over 64-bit and wrapping 32-bit ticks.
#include <cstdint>

#include "conformance/conformance.hpp"

namespace timerwheel_conformance {

template <class Tick>
using event_lists = tt::structure_list<tt::twr::calendar_queue<Tick>, tt::twr::ladder_queue<Tick>,
                                       tt::twr::ladder_queue<Tick, 2, 3>>;
using EventLists =
    gtest_types<tt::concat_t<event_lists<std::uint64_t>, event_lists<std::uint32_t>>>::type;
INSTANTIATE_TYPED_TEST_SUITE_P(EventList, Conformance, EventLists, structure_names);

}  // namespace timerwheel_conformance
