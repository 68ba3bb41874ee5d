// Differential test of timerwheel::wheel against a plain model: a std::map
// keyed by (unwrapped deadline, scheduling sequence number)
// (tests/support/timer_model.hpp). Long random operation sequences
// (tests/support/op_generator.hpp) run against both in lock step, including
// actions taken from inside callbacks; after every step the two must agree
// on everything observable (tests/support/lockstep.hpp).
//
// Replay a failure with TIMERWHEEL_SEED=<seed> (and TIMERWHEEL_STEPS=<n>).
#include <timerwheel/wheel.hpp>

#include <cstdint>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "support/op_generator.hpp"
#include "support/rng.hpp"

// The steps of each seed unless TIMERWHEEL_STEPS says.
#ifndef WHEEL_MODEL_STEPS
#define WHEEL_MODEL_STEPS 20000
#endif

namespace {

namespace tw = timerwheel;
using u64 = std::uint64_t;

template <class Config>
class WheelModel : public ::testing::Test {};

using Configs =
    ::testing::Types<tw::default_config, tw::levels<u64, 8, 8>, tw::levels<u64, 4, 6, 8, 10>,
                     tw::levels<std::uint32_t, 8, 8, 8, 8>, tw::levels<std::uint32_t, 2, 2>,
                     tw::counted<tw::default_config>, tw::counted<tw::levels<std::uint32_t, 2, 2>>>;
TYPED_TEST_SUITE(WheelModel, Configs);

TYPED_TEST(WheelModel, RandomOperationsMatchTheModel) {
  using wheel_type = tw::wheel<TypeParam>;
  const auto line = timerwheel_test::timeline::of<typename wheel_type::tick_type>();
  const u64 steps = timerwheel_test::steps_from_env(WHEEL_MODEL_STEPS);
  const auto seeds =
      timerwheel_test::seeds_from_env({0x5EED0001, 0x5EED0002, 0x9E3779B97F4A7C15ULL});
  for (const u64 seed : seeds) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " (TIMERWHEEL_SEED=" + std::to_string(seed) +
                 ")");
    const auto run = timerwheel_test::run_random_stream(
        line, seed, steps, [](timerwheel_test::lockstep& l) { l.add<wheel_type>("wheel"); });
    const auto& t = run.tally;
    std::printf(
        "seed %llu: %llu steps, %llu fired, %llu nested operations, %llu taken, "
        "%llu queued handed to a callback, %llu wraps crossed\n",
        static_cast<unsigned long long>(seed), static_cast<unsigned long long>(run.steps),
        static_cast<unsigned long long>(t.fired), static_cast<unsigned long long>(t.nested),
        static_cast<unsigned long long>(t.taken), static_cast<unsigned long long>(t.handed_queued),
        static_cast<unsigned long long>(t.wraps_crossed));
    if (!run.ok) {
      ADD_FAILURE() << "seed " << seed << " (replay: TIMERWHEEL_SEED=" << seed
                    << " TIMERWHEEL_STEPS=" << steps << "): " << run.report;
      break;
    }
    // A run that fires next to nothing, or never nests, tests next to nothing.
    EXPECT_GT(t.fired, steps / 10);
    EXPECT_GT(t.nested, steps / 20);
    EXPECT_GT(t.taken, steps / 100);
    EXPECT_GT(t.handed_queued, 0U);
    if (line.wraps() && steps >= 1000) {
      EXPECT_GT(t.wraps_crossed, 0U);
    }
  }
}

}  // namespace
