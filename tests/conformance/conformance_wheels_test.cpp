// The conformance suite (conformance.hpp) on the wheel in every test
// configuration: 64-bit and wrapping 32-bit ticks, counted or not, with and
// without a far list.
#include "conformance.hpp"

namespace timerwheel_conformance {

using Wheels = gtest_types<tt::concat_t<tt::wheels64, tt::wheels32>>::type;
INSTANTIATE_TYPED_TEST_SUITE_P(Wheel, Conformance, Wheels, structure_names);

}  // namespace timerwheel_conformance
