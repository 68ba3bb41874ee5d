// The wheel under test: the default configuration (6-bit levels) and one with 8-bit levels.
#pragma once

#include <timerwheel/wheel.hpp>

#include <cstdint>

#include "intrusive.hpp"

namespace timerwheel_bench {

struct wheel6_name {
  static constexpr const char* value = "wheel6";
};
struct wheel8_name {
  static constexpr const char* value = "wheel8";
};

template <class Config, class Name>
using wheel_adapter = intrusive_adapter<timerwheel::wheel<Config>,
                                        typename timerwheel::wheel<Config>::hook_type, Name>;

using wheel8_config = timerwheel::levels<std::uint64_t, 8, 8, 8, 8, 8, 8, 8, 8>;
using wheel6 = wheel_adapter<timerwheel::default_config, wheel6_name>;
using wheel8 = wheel_adapter<wheel8_config, wheel8_name>;

}  // namespace timerwheel_bench
