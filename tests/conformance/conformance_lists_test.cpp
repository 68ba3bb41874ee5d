// The conformance suite (conformance.hpp) on the list and heap schemes of
// Varghese & Lauck (unordered list, ordered list, binary heap), over 64-bit
// and wrapping 32-bit ticks.
#include <cstdint>

#include "conformance.hpp"

namespace timerwheel_conformance {

template <class Tick>
using list_schemes = tt::structure_list<tt::twr::unordered_list<Tick>, tt::twr::ordered_list<Tick>,
                                        tt::twr::binary_heap<Tick>>;
using Lists =
    gtest_types<tt::concat_t<list_schemes<std::uint64_t>, list_schemes<std::uint32_t>>>::type;
INSTANTIATE_TYPED_TEST_SUITE_P(ListOrHeap, Conformance, Lists, structure_names);

}  // namespace timerwheel_conformance
