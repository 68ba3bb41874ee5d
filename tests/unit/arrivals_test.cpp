// Unit tests of the policy of the diverted slots that take new timers behind
// a mark (docs/design.md, "New timers behind a mark"): a level takes them
// from its diversion's begin() until it declines them or the diversion
// ends; it declines where its checkpoints counted at least 16 timers and
// found more than seven in eight still there a checkpoint later; each
// decline in a row makes the level's next 1, 3, 7, then 15 diversions
// rest, and a checkpoint that finds waiting paying ends that.
#include <timerwheel/wheel.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace {

namespace tw = timerwheel;
using arrivals = tw::detail::arrivals<tw::detail::layout<tw::default_config>>;

constexpr unsigned level = 2;
constexpr std::uint64_t level_bit = std::uint64_t{1} << level;

// Begins and ends `diversions` diversions of `level`; returns, for each,
// whether it took new timers.
std::vector<bool> run(arrivals& a, std::size_t diversions) {
  std::vector<bool> took;
  for (std::size_t k = 0; k < diversions; ++k) {
    a.begin(level);
    took.push_back(a.accepts(level));
    a.end(level_bit);
    EXPECT_FALSE(a.accepts(level));
  }
  return took;
}

// Checkpoints of a hold: each finds all `counted` still there. Returns
// after how many the slot declined; 0 if it never did within `most`.
std::size_t checkpoints_until_declined(arrivals& a, std::size_t counted, std::size_t most = 20) {
  for (std::size_t k = 1; k <= most; ++k) {
    if (a.checked(level, counted, counted)) {
      EXPECT_FALSE(a.accepts(level));
      return k;
    }
    EXPECT_TRUE(a.accepts(level));
  }
  return 0;
}

// Begins diversions of `level` until one takes new timers, and holds until
// it declines them; returns how many diversions rested first.
std::size_t rest_then_decline(arrivals& a) {
  std::size_t rested = 0;
  for (a.begin(level); !a.accepts(level); a.begin(level)) ++rested;
  EXPECT_EQ(checkpoints_until_declined(a, 4), 4U);  // 16 counted
  a.end(level_bit);
  return rested;
}

TEST(Arrivals, ADiversionDeclinesWhereMostCountedTimersAreStillThereAtTheNextCheckpoint) {
  arrivals a;
  EXPECT_EQ(run(a, 5), std::vector<bool>(5, true));
  a.begin(level);
  EXPECT_TRUE(a.accepts(level));
  EXPECT_FALSE(a.accepts(level + 1));  // levels are apart
  // Fewer than 16 counted: no verdict, whatever stayed.
  EXPECT_FALSE(a.checked(level, 0, 0));
  EXPECT_FALSE(a.checked(level, 15, 15));
  // 32 counted, 28 (seven in eight) still there: waiting pays, barely.
  EXPECT_FALSE(a.checked(level, 13, 17));
  EXPECT_TRUE(a.accepts(level));
  // 48 counted, 44 still there: more than seven in eight.
  EXPECT_TRUE(a.checked(level, 16, 16));
  EXPECT_FALSE(a.accepts(level));
  a.end(level_bit);
  // Churn whose timers mostly go within a checkpoint never declines.
  run(a, 1);  // the rest that decline earned
  a.begin(level);
  ASSERT_TRUE(a.accepts(level));
  for (int k = 0; k < 1000; ++k) EXPECT_FALSE(a.checked(level, 80, 400));
  EXPECT_TRUE(a.accepts(level));
}

TEST(Arrivals, TheEvidenceIsThatOfTheDiversionAlone) {
  arrivals a;
  a.begin(level);
  EXPECT_FALSE(a.checked(level, 0, 40));  // all cancelled: waiting pays
  a.end(level_bit);
  a.begin(level);
  EXPECT_FALSE(a.checked(level, 10, 10));
  EXPECT_TRUE(a.checked(level, 10, 10));
}

TEST(Arrivals, DeclinesInARowRestOneThreeSevenThenFifteenDiversions) {
  arrivals a;
  EXPECT_EQ(rest_then_decline(a), 0U);
  EXPECT_EQ(rest_then_decline(a), 1U);
  EXPECT_EQ(rest_then_decline(a), 3U);
  EXPECT_EQ(rest_then_decline(a), 7U);
  EXPECT_EQ(rest_then_decline(a), 15U);
  EXPECT_EQ(rest_then_decline(a), 15U);
}

TEST(Arrivals, ADiversionThatEndsWithoutAVerdictAndLostNoTimerCountsAsADecline) {
  arrivals a;
  a.begin(level);
  EXPECT_FALSE(a.checked(level, 3, 3));
  a.end(level_bit);
  EXPECT_EQ(run(a, 2), (std::vector<bool>{false, true}));  // rested one
  // One that lost a timer, or counted none, does not.
  a.begin(level);
  EXPECT_FALSE(a.checked(level, 2, 3));
  a.end(level_bit);
  a.begin(level);
  EXPECT_FALSE(a.checked(level, 0, 0));
  a.end(level_bit);
  EXPECT_EQ(run(a, 2), (std::vector<bool>{true, true}));
  // Nor one that declined already: its rests are those of its decline.
  a.begin(level);
  EXPECT_TRUE(a.checked(level, 16, 16));
  a.end(level_bit);
  EXPECT_EQ(run(a, 4), (std::vector<bool>{false, false, false, true}));
}

TEST(Arrivals, WaitingThatPaysEndsTheLengtheningOfRests) {
  arrivals a;
  EXPECT_EQ(rest_then_decline(a), 0U);
  EXPECT_EQ(rest_then_decline(a), 1U);
  // The next diversion takes new timers; a checkpoint of it finds waiting
  // paying.
  EXPECT_EQ(run(a, 3), (std::vector<bool>{false, false, false}));
  a.begin(level);
  ASSERT_TRUE(a.accepts(level));
  EXPECT_FALSE(a.checked(level, 10, 40));
  a.end(level_bit);
  EXPECT_EQ(run(a, 2), (std::vector<bool>{true, true}));
  // A decline after it rests one diversion again, not seven.
  EXPECT_EQ(rest_then_decline(a), 0U);
  EXPECT_EQ(rest_then_decline(a), 1U);
  // Another level never rested.
  a.begin(level + 1);
  EXPECT_TRUE(a.accepts(level + 1));
}

}  // namespace
