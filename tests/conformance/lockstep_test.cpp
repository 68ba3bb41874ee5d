// Differential test of every structure in lockstep: the wheel in each of its
// test configurations and the seven reference schemes (64-bit and wrapping
// 32-bit ticks) run ONE random operation stream together with the model
// (tests/support/op_generator.hpp, the generator of wheel_model_test), and
// must agree after every step on the fire sequence (timer and now() at each
// fire, size() inside each callback, what the callback's own calls return),
// return values, errors, next_deadline, time_until_next, size and every
// timer's pending() and deadline(), with check_invariants passing.
//
// Each group (tests/support/structures.hpp) runs the structures that share a
// horizon: `every` holds all of them, within basic_wheel's 2^16 ticks; the
// others give each structure its full horizon.
//
// Replay a failure with TIMERWHEEL_SEED=<seed> TIMERWHEEL_STEPS=<n> and
// --gtest_filter=<the test>; both are printed.
#include <cstdint>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "support/op_generator.hpp"
#include "support/rng.hpp"
#include "support/structures.hpp"

namespace {

namespace tt = timerwheel_test;
using u64 = std::uint64_t;

template <class Group>
void run_group(u64 default_steps) {
  const auto line = Group::common_timeline();
  const u64 steps = tt::steps_from_env(default_steps);
  const auto seeds = tt::seeds_from_env({0x10C5'7E90'0001, 0x10C5'7E90'0002, 0x10C5'7E90'0003});
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  for (const u64 seed : seeds) {
    const auto run =
        tt::run_random_stream(line, seed, steps, [](tt::lockstep& l) { Group::add_to(l); });
    const auto& t = run.tally;
    std::printf(
        "%s seed %llu: %llu steps, %llu fired, %llu nested, %llu taken, %llu wraps\n", test.c_str(),
        static_cast<unsigned long long>(seed), static_cast<unsigned long long>(run.steps),
        static_cast<unsigned long long>(t.fired), static_cast<unsigned long long>(t.nested),
        static_cast<unsigned long long>(t.taken), static_cast<unsigned long long>(t.wraps_crossed));
    if (!run.ok) {
      ADD_FAILURE() << "seed " << seed << " (replay: TIMERWHEEL_SEED=" << seed
                    << " TIMERWHEEL_STEPS=" << steps << " lockstep_test --gtest_filter=Lockstep."
                    << test << "): " << run.report;
      return;
    }
    // A stream that fires next to nothing, or never nests, tests next to nothing.
    EXPECT_GT(t.fired, steps / 10) << "seed " << seed;
    EXPECT_GT(t.nested, steps / 20) << "seed " << seed;
    EXPECT_GT(t.taken, steps / 100) << "seed " << seed;
    if (line.wraps() && steps >= 500) {
      EXPECT_GT(t.wraps_crossed, 0U) << "seed " << seed;
    }
  }
}

// (The groups holding basic_wheel run fewer steps: its check_invariants,
// run on every lane after every step, walks all its 2^17 slots.)
TEST(Lockstep, EveryStructureWithinBasicWheelsHorizon) { run_group<tt::group_every>(600); }

TEST(Lockstep, Every64BitStructureWithinBasicWheelsHorizon) { run_group<tt::group_bounded64>(600); }

TEST(Lockstep, Every64BitStructureOverAll64Bits) { run_group<tt::group_wide64>(5000); }

TEST(Lockstep, EveryStructureAcrossThe32BitWrap) { run_group<tt::group_wrap32>(5000); }

}  // namespace
