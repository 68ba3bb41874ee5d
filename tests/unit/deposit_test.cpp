// detail::deposit: the low bits of a value placed at a mask's set bits, as
// BMI2's PDEP does. Built twice (tests/unit/CMakeLists.txt): as plain C++,
// and with -mbmi2, where it is the instruction; both against a reference
// written bit by bit and against the compile-time evaluation.
#include <timerwheel/detail/deposit.hpp>

#include <cstdint>

#include <gtest/gtest.h>

#include "support/rng.hpp"

namespace {

namespace twd = timerwheel::detail;
using u64 = std::uint64_t;

// Bit i of x to the position of the mask's i-th set bit, one position at a time.
u64 reference(u64 x, u64 mask) {
  u64 out = 0;
  unsigned i = 0;
  for (unsigned pos = 0; pos < 64; ++pos) {
    if ((mask >> pos & 1) == 0) continue;
    if ((x >> i & 1) != 0) out |= u64{1} << pos;
    ++i;
  }
  return out;
}

static_assert(twd::deposit(0b101, 0b11100) == 0b10100);
static_assert(twd::deposit(~u64{0}, 0) == 0);
static_assert(twd::deposit(~u64{0}, ~u64{0}) == ~u64{0});
static_assert(twd::deposit(0b1, u64{1} << 63) == u64{1} << 63);

TEST(Deposit, MatchesTheBitByBitReference) {
  timerwheel_test::rng rng(0xDE905175);
  for (int k = 0; k < 100000; ++k) {
    const u64 x = rng.next();
    // Sparse, dense and full masks alike.
    const u64 mask = k % 3 == 0 ? rng.next() & rng.next() : k % 3 == 1 ? rng.next() : ~rng.next();
    ASSERT_EQ(twd::deposit(x, mask), reference(x, mask)) << "x " << x << " mask " << mask;
  }
}

// The wheel's use: the levels' bits (level 1 first) onto each level's
// quarter bit, bit 6k - 2 for 6-bit levels.
TEST(Deposit, LevelsOntoTheirQuarterBits) {
  u64 quarter_bits = 0;
  for (unsigned k = 1; k < 11; ++k) quarter_bits |= u64{1} << (6 * k - 2);
  for (unsigned k = 1; k < 11; ++k)
    EXPECT_EQ(twd::deposit(u64{1} << (k - 1), quarter_bits), u64{1} << (6 * k - 2)) << k;
}

}  // namespace
