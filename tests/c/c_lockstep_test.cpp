// The C API in lockstep with the C++ wheel and the model: the wheel's
// configurations reached through timerwheel.h (tests/support/c_structure.hpp)
// run one random operation stream beside the C++ wheels of the same
// configurations, and must agree with the model after every step on every
// fire, return value, error, next_deadline, time_until_next, size and every
// timer's pending() and deadline(), with tw_check passing. The re-entrant
// callbacks of the stream schedule, cancel and try to advance through the
// C API from inside its own callbacks.
//
// Replay a failure with TIMERWHEEL_SEED=<seed> TIMERWHEEL_STEPS=<n>.
#include <cstdint>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "support/c_structure.hpp"
#include "support/op_generator.hpp"
#include "support/rng.hpp"
#include "support/structures.hpp"

namespace {

namespace tt = timerwheel_test;
namespace tw = timerwheel;
using u64 = std::uint64_t;

template <class Group>
void run_group(u64 default_steps) {
  const auto line = Group::common_timeline();
  const u64 steps = tt::steps_from_env(default_steps);
  const auto seeds = tt::seeds_from_env({0xC0FA'CE00'0001, 0xC0FA'CE00'0002});
  for (const u64 seed : seeds) {
    const auto run =
        tt::run_random_stream(line, seed, steps, [](tt::lockstep& l) { Group::add_to(l); });
    const auto& t = run.tally;
    std::printf("seed %llu: %llu steps, %llu fired, %llu nested, %llu taken\n",
                static_cast<unsigned long long>(seed), static_cast<unsigned long long>(run.steps),
                static_cast<unsigned long long>(t.fired), static_cast<unsigned long long>(t.nested),
                static_cast<unsigned long long>(t.taken));
    if (!run.ok) {
      ADD_FAILURE() << "seed " << seed << " (replay: TIMERWHEEL_SEED=" << seed
                    << " TIMERWHEEL_STEPS=" << steps << "): " << run.report;
      return;
    }
    EXPECT_GT(t.fired, steps / 10) << "seed " << seed;
    EXPECT_GT(t.nested, steps / 20) << "seed " << seed;
    EXPECT_GT(t.taken, steps / 100) << "seed " << seed;
  }
}

using c_and_wheels64 =
    tt::structure_list<tw::wheel<tw::default_config>, tt::c_wheel_default, tt::c_wheel_counted>;
using c_and_wheels32 = tt::structure_list<tw::wheel<tw::levels<std::uint32_t, 8, 8, 8, 8>>,
                                          tt::c_wheel_wrap32, tt::c_wheel_default>;

TEST(CLockstep, SixtyFourBitWheelsOverAll64Bits) { run_group<c_and_wheels64>(2000); }

TEST(CLockstep, AcrossThe32BitWrap) { run_group<c_and_wheels32>(2000); }

}  // namespace
