// The conformance suite (conformance.hpp) on the wheel schemes of Varghese &
// Lauck (basic wheel, hashed wheels sorted and unordered, hierarchical
// arrays), over 64-bit and wrapping 32-bit ticks.
#include <cstdint>

#include "conformance.hpp"

namespace timerwheel_conformance {

template <class Tick>
using wheel_schemes =
    tt::structure_list<tt::twr::basic_wheel<Tick>, tt::twr::hashed_wheel_sorted<Tick>,
                       tt::twr::hashed_wheel_unordered<Tick>, tt::twr::hierarchical_arrays<Tick>>;
using Schemes =
    gtest_types<tt::concat_t<wheel_schemes<std::uint64_t>, wheel_schemes<std::uint32_t>>>::type;
INSTANTIATE_TYPED_TEST_SUITE_P(WheelScheme, Conformance, Schemes, structure_names);

}  // namespace timerwheel_conformance
