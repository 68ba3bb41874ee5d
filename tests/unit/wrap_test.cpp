// Wheels over 32-bit ticks, which wrap around: every instant is read as the
// nearest one to now (up to 2^31 - 1 ticks ahead, else behind). Each test
// starts just below 2^32 so that it crosses the wrap.
#include <timerwheel/wheel.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "support/range_choice.hpp"

namespace {

namespace tw = timerwheel;

constexpr std::uint32_t kStart = 0xFFFFFF9CU;  // 2^32 - 100
constexpr std::uint32_t kMaxAhead = 0x7FFFFFFFU;

// The tick `delta` ticks after `from`, modulo 2^32.
constexpr std::uint32_t after(std::uint32_t from, std::uint64_t delta) {
  return static_cast<std::uint32_t>(from + delta);
}

template <class Config>
class WrapTest : public ::testing::Test {
 protected:
  using wheel_type = tw::wheel<Config>;
  using hook = typename wheel_type::hook_type;
  static_assert(std::is_same_v<typename wheel_type::tick_type, std::uint32_t>);

  struct shot {
    std::size_t index;
    std::uint32_t now;
    bool operator==(const shot&) const = default;
  };

  std::vector<hook> hooks = std::vector<hook>(64);
  wheel_type wheel{kStart};
  std::vector<shot> shots;

  std::size_t index(const hook& h) const { return static_cast<std::size_t>(&h - hooks.data()); }
  auto record() {
    return [this](hook& h) { shots.push_back({index(h), wheel.now()}); };
  }
};

using Configs =
    ::testing::Types<tw::levels<std::uint32_t, 8, 8, 8, 8>, tw::levels<std::uint32_t, 2, 2>>;
TYPED_TEST_SUITE(WrapTest, Configs);

TYPED_TEST(WrapTest, TimersAcrossTheWrapFireInOrder) {
  auto& w = this->wheel;
  // Offsets from the start, scheduled in a scrambled order.
  const std::vector<std::uint64_t> offsets{150, 99,        1000,           100, 70000, 101, 50,
                                           99,  kMaxAhead, (1U << 24) + 5, 1,   16,    17};
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    w.schedule(this->hooks[i], after(kStart, offsets[i]));
    EXPECT_EQ(this->hooks[i].deadline(), after(kStart, offsets[i]));
  }
  w.check_invariants();
  std::vector<std::size_t> order(offsets.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return offsets[a] < offsets[b]; });
  EXPECT_EQ(w.next_deadline(), std::optional<std::uint32_t>(after(kStart, offsets[order[0]])));

  // Advance in uneven steps, each within the half range.
  std::uint64_t at = 0;
  for (std::uint64_t step : {60ULL, 40ULL, 1ULL, 1ULL, 1ULL << 20, 1ULL << 30, 1ULL << 30}) {
    at += step;
    w.advance(after(kStart, at), this->record());
    EXPECT_EQ(w.now(), after(kStart, at));
    w.check_invariants();
    // next_deadline names the next unfired one, time_until_next the distance.
    const auto fired_so_far = this->shots.size();
    if (fired_so_far < order.size()) {
      const auto next = offsets[order[fired_so_far]];
      EXPECT_EQ(w.next_deadline(), std::optional<std::uint32_t>(after(kStart, next)));
      EXPECT_EQ(w.time_until_next(), next - at);
    }
  }
  ASSERT_EQ(this->shots.size(), offsets.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    EXPECT_EQ(this->shots[k].index, order[k]) << k;
    EXPECT_EQ(this->shots[k].now, after(kStart, offsets[order[k]])) << k;
  }
  EXPECT_TRUE(w.empty());
}

TYPED_TEST(WrapTest, DeadlineMoreThanHalfTheRangeAheadIsReadAsBehind) {
  auto& w = this->wheel;
  auto& h = this->hooks;
  w.schedule(h[0], after(kStart, kMaxAhead));   // the farthest instant ahead
  w.schedule(h[1], after(kStart, 1ULL << 31));  // one more: behind, so due now
  w.schedule(h[2], after(kStart, (1ULL << 31) + 12345));
  w.schedule(h[3], kStart - 5);  // plainly behind
  EXPECT_EQ(h[0].deadline(), after(kStart, kMaxAhead));
  EXPECT_EQ(h[1].deadline(), kStart);
  EXPECT_EQ(h[2].deadline(), kStart);
  EXPECT_EQ(h[3].deadline(), kStart);
  EXPECT_EQ(w.next_deadline(), std::optional<std::uint32_t>(kStart));
  EXPECT_EQ(w.time_until_next(), 0U);
  w.check_invariants();
  EXPECT_EQ(w.advance(kStart, this->record()), 3U);
  EXPECT_EQ(this->shots,
            (std::vector<typename TestFixture::shot>{{1, kStart}, {2, kStart}, {3, kStart}}));
  EXPECT_EQ(w.time_until_next(), kMaxAhead);
  EXPECT_EQ(w.advance(after(kStart, kMaxAhead), this->record()), 1U);
  EXPECT_EQ(this->shots.back(), (typename TestFixture::shot{0, after(kStart, kMaxAhead)}));
}

TYPED_TEST(WrapTest, AdvanceToAnInstantBehindNowThrows) {
  auto& w = this->wheel;
  auto& h = this->hooks;
  w.schedule(h[0], after(kStart, 200));
  w.schedule(h[1], kStart);
  for (std::uint64_t behind : {(1ULL << 32) - 1, 1ULL << 31, (1ULL << 31) + 5, (1ULL << 32) - 99}) {
    SCOPED_TRACE(behind);
    EXPECT_THROW(w.advance(after(kStart, behind), this->record()), std::invalid_argument);
    EXPECT_THROW(w.advance(after(kStart, behind)), std::invalid_argument);
    EXPECT_EQ(w.now(), kStart);
    EXPECT_EQ(w.size(), 2U);
    EXPECT_TRUE(h[0].pending());
    EXPECT_TRUE(h[1].pending());
    EXPECT_EQ(w.take_expired(), nullptr);
    w.check_invariants();
  }
  EXPECT_TRUE(this->shots.empty());
  // The farthest instant ahead is fine, and fires both.
  EXPECT_EQ(w.advance(after(kStart, kMaxAhead), this->record()), 2U);
  EXPECT_EQ(this->shots,
            (std::vector<typename TestFixture::shot>{{1, kStart}, {0, after(kStart, 200)}}));
}

TYPED_TEST(WrapTest, AdvanceBehindNowThrowsOnAnEmptyWheelToo) {
  // Nothing pending (never, or no longer): no cached bound on the next event
  // may wave a target behind now through.
  auto& w = this->wheel;
  EXPECT_THROW(w.advance(after(kStart, 1ULL << 31), this->record()), std::invalid_argument);
  EXPECT_THROW(w.advance(kStart - 1), std::invalid_argument);
  EXPECT_EQ(w.now(), kStart);
  w.schedule(this->hooks[0], after(kStart, 1000));
  w.cancel(this->hooks[0]);
  w.advance(after(kStart, 2000));
  EXPECT_THROW(w.advance(after(kStart, 1500)), std::invalid_argument);
  EXPECT_THROW(w.advance(after(kStart, 3ULL << 30), this->record()), std::invalid_argument);
  EXPECT_EQ(w.now(), after(kStart, 2000));
  w.check_invariants();
}

TYPED_TEST(WrapTest, ScheduleInRangeAcrossTheWrap) {
  auto& w = this->wheel;
  auto& h = this->hooks;
  // [start + 10, start + 200] holds tick 0 (2^32), which has the most zeros.
  EXPECT_EQ(w.schedule_in_range(h[0], after(kStart, 10), after(kStart, 200)), 0U);
  EXPECT_EQ(h[0].deadline(), 0U);
  // The same choice computed on unwrapped values, for a range that stays
  // below the wrap and one that starts before now.
  const std::uint64_t ext = kStart;  // now, unwrapped
  EXPECT_EQ(w.schedule_in_range(h[1], after(kStart, 3), after(kStart, 40)),
            static_cast<std::uint32_t>(timerwheel_test::most_trailing_zeros_in(ext + 3, ext + 40)));
  EXPECT_EQ(w.schedule_in_range(h[2], kStart - 50, after(kStart, 20)),
            static_cast<std::uint32_t>(timerwheel_test::most_trailing_zeros_in(ext, ext + 20)));
  // A range ending before now: due now.
  EXPECT_EQ(w.schedule_in_range(h[3], kStart - 50, kStart - 10), kStart);
  // Both ends read as the nearest instant to now: an earliest that is
  // numerically before latest can still be after it.
  EXPECT_EQ(w.schedule_in_range(h[4], kStart - 30, kStart - 20), kStart);
  w.check_invariants();
  const auto size = w.size();
  // Earliest after latest, by the nearest-instant rule, even when the plain
  // numbers are the other way round.
  EXPECT_THROW(w.schedule_in_range(h[5], after(kStart, 200), after(kStart, 10)),
               std::invalid_argument);
  EXPECT_THROW(w.schedule_in_range(h[5], 5U, kStart + 50U), std::invalid_argument);
  EXPECT_FALSE(h[5].pending());
  EXPECT_EQ(w.size(), size);
  EXPECT_EQ(h[0].deadline(), 0U);
  w.check_invariants();
}

TYPED_TEST(WrapTest, ScheduleInRangeReadsBothEndsFromNow) {
  // DESIGN.md: with wrapping ticks "after" is read by the signed distance
  // from now. Latest 2^31 ticks ahead reads as 2^31 behind now, so earliest
  // (5 ahead) is after it, although latest is only 2^31 - 5 after earliest.
  auto& w = this->wheel;
  auto& h = this->hooks;
  w.schedule(h[0], after(kStart, 7));
  EXPECT_THROW(w.schedule_in_range(h[1], after(kStart, 5), after(kStart, 1ULL << 31)),
               std::invalid_argument);
  // Earliest 2^31 behind now and latest 2^30 ahead: in order, although
  // latest - earliest read on its own (3 * 2^30) is negative.
  std::uint32_t got = 0;
  EXPECT_NO_THROW(got = w.schedule_in_range(h[2], kStart - (1U << 31), after(kStart, 1ULL << 30)));
  const std::uint64_t ext = kStart;  // now, unwrapped
  EXPECT_EQ(got, static_cast<std::uint32_t>(
                     timerwheel_test::most_trailing_zeros_in(ext, ext + (1ULL << 30))));
  EXPECT_FALSE(h[1].pending());
  EXPECT_TRUE(h[2].pending());
  EXPECT_EQ(w.size(), 2U);
  w.check_invariants();
}

TYPED_TEST(WrapTest, NextDeadlineAcrossTheWrap) {
  auto& w = this->wheel;
  w.schedule(this->hooks[0], 5);  // 105 ticks ahead, after the wrap
  EXPECT_EQ(w.next_deadline(), std::optional<std::uint32_t>(5));
  EXPECT_EQ(w.time_until_next(), 105U);
  w.schedule(this->hooks[1], kStart + 99U);  // numerically larger, but earlier
  EXPECT_EQ(w.next_deadline(), std::optional<std::uint32_t>(kStart + 99U));
  EXPECT_EQ(w.time_until_next(), 99U);
  EXPECT_EQ(w.advance(3, this->record()), 1U);
  EXPECT_EQ(w.next_deadline(), std::optional<std::uint32_t>(5));
  EXPECT_EQ(w.time_until_next(), 2U);
  w.check_invariants();
}

TYPED_TEST(WrapTest, PeriodicTimersOverManyWraps) {
  auto& w = this->wheel;
  auto& h = this->hooks;
  // Unwrapped model time: the deadline of each periodic timer.
  const std::vector<std::uint64_t> periods{(1ULL << 30) + 7, 999'999'937ULL, 123'456'789ULL,
                                           (1ULL << 31) - 1};
  std::vector<std::uint64_t> next(periods.size());
  std::uint64_t now = kStart;
  for (std::size_t i = 0; i < periods.size(); ++i) {
    next[i] = now + periods[i];
    w.schedule(h[i], static_cast<std::uint32_t>(next[i]));
  }
  std::vector<std::pair<std::uint64_t, std::size_t>> expected;
  std::vector<std::pair<std::uint64_t, std::size_t>> got;
  for (int step = 0; step < 40; ++step) {
    const std::uint64_t to = now + (step % 3 == 0 ? kMaxAhead : (1ULL << 29) + 3);
    // What a model says fires: every periodic instant up to `to`, in order
    // (the periods differ, so no ties).
    for (;;) {
      const auto it = std::min_element(next.begin(), next.end());
      if (*it > to) break;
      const auto i = static_cast<std::size_t>(it - next.begin());
      expected.emplace_back(*it, i);
      next[i] += periods[i];
    }
    w.advance(static_cast<std::uint32_t>(to), [&](typename TestFixture::hook& fired) {
      const auto i = this->index(fired);
      // The unwrapped instant of now(): the nearest one to the model's now.
      const std::uint64_t t =
          now + static_cast<std::uint32_t>(w.now() - static_cast<std::uint32_t>(now));
      got.emplace_back(t, i);
      w.schedule(fired, static_cast<std::uint32_t>(t + periods[i]));
    });
    now = to;
    EXPECT_EQ(w.now(), static_cast<std::uint32_t>(now));
    w.check_invariants();
  }
  EXPECT_GT(now, 8ULL << 32) << "the run crosses the wrap several times";
  EXPECT_EQ(got, expected);
}

TYPED_TEST(WrapTest, PullFormAndExpireAllAcrossTheWrap) {
  auto& w = this->wheel;
  auto& h = this->hooks;
  w.schedule(h[0], 20);                 // after the wrap
  w.schedule(h[1], kStart + 10U);       // before it
  w.schedule(h[2], 0);                  // at it
  w.schedule(h[3], after(kStart, 99));  // just before it
  EXPECT_EQ(w.advance(10), 3U);
  std::vector<std::size_t> taken;
  while (auto* p = w.take_expired()) taken.push_back(this->index(*p));
  EXPECT_EQ(taken, (std::vector<std::size_t>{1, 3, 2}));

  w.schedule(h[4], 5000);
  w.schedule(h[5], 0xFFFFFFF0U);  // behind now (10): due
  EXPECT_EQ(h[5].deadline(), 10U);
  EXPECT_EQ(w.expire_all(this->record()), 3U);
  EXPECT_EQ(this->shots, (std::vector<typename TestFixture::shot>{{5, 10}, {0, 10}, {4, 10}}));
  EXPECT_EQ(w.now(), 10U);
  w.check_invariants();
}

}  // namespace
