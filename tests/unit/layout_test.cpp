// Placement arithmetic (detail/layout.hpp): the level and slot of a deadline,
// computed from the leading zeros of (deadline XOR now), against a plain
// reading of the placement rule, for uniform and uneven configurations over
// every tick width. Built twice: once as is, once with the processor's count
// of leading zeros (-mlzcnt), which takes its own path at zero.
#include <timerwheel/detail/layout.hpp>
#include <timerwheel/levels.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "support/rng.hpp"

namespace {

namespace tw = timerwheel;

template <class Config>
class LayoutTest : public ::testing::Test {
 protected:
  using layout = tw::detail::layout<Config>;
  using tick = typename Config::tick_type;

  // The level holding the highest set bit of x (0 when x is 0), or `count`
  // for the far list: the placement rule as docs/design.md states it.
  static std::size_t expected_level(tick x) {
    if (x == 0) return 0;
    const unsigned top = static_cast<unsigned>(std::bit_width(x)) - 1;
    unsigned first = 0;
    for (std::size_t k = 0; k < layout::count; ++k) {
      if (top < first + Config::bits[k]) return k;
      first += Config::bits[k];
    }
    return layout::count;
  }

  static std::size_t expected_slot(tick t, std::size_t level) {
    unsigned first = 0;
    for (std::size_t k = 0; k < level; ++k) first += Config::bits[k];
    return static_cast<std::size_t>((t >> first) & ((tick{1} << Config::bits[level]) - 1));
  }

  // Every width from 0 to the tick's: its single bit, all bits below it set,
  // and random bits below it; then random values of every width.
  static std::vector<tick> samples() {
    timerwheel_test::rng rng(7);
    constexpr unsigned digits = layout::digits;
    std::vector<tick> xs{0};
    for (unsigned w = 1; w <= digits; ++w) {
      const tick bit = static_cast<tick>(tick{1} << (w - 1));
      xs.push_back(bit);
      xs.push_back(static_cast<tick>(bit | (bit - 1)));
      for (int i = 0; i < 8; ++i) xs.push_back(static_cast<tick>(bit | (rng.next() & (bit - 1))));
    }
    for (int i = 0; i < 4000; ++i) {
      const unsigned w = static_cast<unsigned>(rng.below(digits)) + 1;
      const auto mask = static_cast<tick>(~tick{0} >> (digits - w));
      xs.push_back(static_cast<tick>(rng.next() & mask));
    }
    return xs;
  }
};

using Configs =
    ::testing::Types<tw::default_config,                                 // 11 x 6, last partial
                     tw::levels<std::uint64_t, 8, 8, 8, 8, 8, 8, 8, 8>,  // exactly 64 bits
                     tw::levels<std::uint64_t, 12, 12, 12, 12, 12, 12>,  // widest levels
                     tw::levels<std::uint64_t, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5>,  // 65 bits
                     tw::levels<std::uint64_t, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7>,           // 70 bits
                     tw::levels<std::uint64_t, 8, 8>,                                   // far list
                     tw::levels<std::uint64_t, 6, 6, 6>,                                // far list
                     tw::levels<std::uint64_t, 1, 1, 1, 1, 1, 1, 1, 1>,  // 1-bit levels, far list
                     tw::levels<std::uint64_t, 8, 6, 6, 10>,             // uneven: the table
                     tw::levels<std::uint32_t, 8, 8, 8, 8>,              // wrapping 32-bit
                     tw::levels<std::uint32_t, 6, 6, 6, 6, 6, 6>,        // 36 bits
                     tw::levels<std::uint32_t, 5, 5>,                    // far list
                     tw::levels<std::uint16_t, 4, 4, 4, 4>, tw::levels<std::uint16_t, 3, 3>,
                     tw::levels<std::uint8_t, 3, 3, 3>, tw::levels<std::uint8_t, 2, 4>>;
TYPED_TEST_SUITE(LayoutTest, Configs);

TYPED_TEST(LayoutTest, LevelOfEveryWidthFollowsThePlacementRule) {
  for (const auto x : TestFixture::samples()) {
    ASSERT_EQ(TestFixture::layout::level_of_xor(x), TestFixture::expected_level(x))
        << "x = " << static_cast<std::uint64_t>(x);
  }
}

TYPED_TEST(LayoutTest, SlotIsTheLevelsDigitOfTheDeadline) {
  using shape = typename TestFixture::layout;
  for (const auto t : TestFixture::samples()) {
    for (std::size_t k = 0; k < shape::count; ++k) {
      ASSERT_EQ(shape::slot_at(t, k), TestFixture::expected_slot(t, k))
          << "t = " << static_cast<std::uint64_t>(t) << ", level " << k;
    }
  }
}

// The arithmetic form is what uniform configurations of 64-bit ticks use on
// the path of every schedule; the search for it must not come back empty.
TEST(LayoutAffine, FoundForEveryUniformWidth) {
  EXPECT_NE(tw::detail::layout<tw::default_config>::level_affine.factor, 0u);
  EXPECT_NE(
      (tw::detail::layout<tw::levels<std::uint64_t, 8, 8, 8, 8, 8, 8, 8, 8>>::level_affine.factor),
      0u);
  EXPECT_NE((tw::detail::layout<tw::levels<std::uint32_t, 8, 8, 8, 8>>::level_affine.factor), 0u);
}

}  // namespace
