// Tests of timerwheel::timing_wheel: Jane Street's Timing_wheel as a
// priority queue. Unit cases for each member and its errors, and a
// differential test against a plain model (a std::map ordered by (key,
// insertion order)) over random operation streams, on the default
// configuration and on narrow levels with a far list.
#include <timerwheel/timing_wheel.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "support/rng.hpp"

namespace {

namespace tw = timerwheel;
constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

using removed_list = std::vector<std::pair<std::uint64_t, std::string>>;

// increase_min_allowed_key, collecting (key, value) of what it removes.
template <class W>
removed_list raise_to(W& w, std::uint64_t key) {
  removed_list out;
  w.increase_min_allowed_key(key, [&](typename W::elt e, std::uint64_t k, std::string&& v) {
    EXPECT_FALSE(w.mem(e)) << "a removed element is still a member in its handler";
    out.emplace_back(k, std::move(v));
  });
  return out;
}

TEST(TimingWheel, StartsEmpty) {
  tw::timing_wheel<std::string> w;
  EXPECT_TRUE(w.is_empty());
  EXPECT_EQ(w.length(), 0U);
  EXPECT_EQ(w.min_allowed_key(), 0U);
  EXPECT_EQ(w.min_elt(), std::nullopt);
  EXPECT_EQ(w.min_key(), std::nullopt);
  EXPECT_EQ(raise_to(w, 100), removed_list{});
  EXPECT_EQ(w.min_allowed_key(), 100U);
  w.check_invariants();
}

TEST(TimingWheel, MaxAllowedKeyKeepsJaneStreetsPromise) {
  // At least min_allowed_key + 2^B - 1 for B the configured bits, or the
  // largest key there is.
  auto check = [](auto& w) {
    const std::uint64_t bits = std::remove_reference_t<decltype(w)>::num_bits();
    const std::uint64_t span = bits >= 64 ? kMax : (std::uint64_t{1} << bits) - 1;
    const std::uint64_t promised =
        w.min_allowed_key() > kMax - span ? kMax : w.min_allowed_key() + span;
    EXPECT_GE(w.max_allowed_key(), promised);
    EXPECT_LE(w.max_allowed_key(), w.max_representable_key());
  };
  tw::timing_wheel<int> wide(12345);
  check(wide);
  EXPECT_EQ(decltype(wide)::num_bits(), 66U);
  tw::timing_wheel<int, tw::levels<std::uint64_t, 4, 4>> narrow(kMax - 3);
  EXPECT_EQ(decltype(narrow)::num_bits(), 8U);
  check(narrow);
  // Keys beyond the narrow levels' reach live in the far list, in order.
  tw::timing_wheel<int, tw::levels<std::uint64_t, 4, 4>> far;
  far.add(1'000'000, 3);
  far.add(300, 2);
  far.add(1ULL << 40, 4);
  far.add(5, 1);
  const auto top = far.add(kMax, 6);
  far.add(kMax - 1, 5);
  std::vector<int> order;
  far.increase_min_allowed_key(kMax, [&](auto, std::uint64_t, int&& v) { order.push_back(v); });
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 4, 5}));
  // The largest key stays: nothing lies above it.
  EXPECT_EQ(far.min_elt(), top);
  EXPECT_EQ(far.min_key(), kMax);
  far.check_invariants();
}

TEST(TimingWheel, KeysOutsideTheAllowedRangeAreRefused) {
  tw::timing_wheel<std::string> w(50);
  try {
    w.add(49, "x");
    FAIL() << "a key below min_allowed_key was accepted";
  } catch (const std::out_of_range& e) {
    EXPECT_NE(std::string(e.what()).find("below min_allowed_key"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(w.is_empty());
  const auto e = w.add(50, "a");  // the minimum itself is allowed
  EXPECT_THROW(w.change_key(e, 10), std::out_of_range);
  EXPECT_EQ(w.key(e), 50U);             // unchanged
  const auto top = w.add(kMax, "top");  // max_allowed_key itself is allowed
  EXPECT_EQ(w.key(top), kMax);
  EXPECT_EQ(w.length(), 2U);
  w.check_invariants();
}

TEST(TimingWheel, IncreaseMinAllowedKeyRemovesBelowInKeyOrder) {
  tw::timing_wheel<std::string> w;
  w.add(30, "c1");
  w.add(10, "a");
  w.add(30, "c2");
  w.add(20, "b");
  w.add(40, "d");
  w.add(1ULL << 50, "far");
  // Keys below 31 go, in (key, insertion) order; 40 stays.
  EXPECT_EQ(raise_to(w, 31), (removed_list{{10, "a"}, {20, "b"}, {30, "c1"}, {30, "c2"}}));
  EXPECT_EQ(w.min_allowed_key(), 31U);
  EXPECT_EQ(w.length(), 2U);
  // A key equal to the new minimum stays.
  EXPECT_EQ(raise_to(w, 40), removed_list{});
  EXPECT_EQ(w.min_key(), 40U);
  // Not above the minimum: nothing happens.
  EXPECT_EQ(raise_to(w, 12), removed_list{});
  EXPECT_EQ(w.min_allowed_key(), 40U);
  EXPECT_EQ(raise_to(w, kMax), (removed_list{{40, "d"}, {1ULL << 50, "far"}}));
  EXPECT_TRUE(w.is_empty());
  w.check_invariants();
}

TEST(TimingWheel, MinEltIsExactAndFirstAdded) {
  // Jane Street's min_elt returns some element of the least key; here it
  // is the one of the least key added first.
  tw::timing_wheel<std::string> w;
  const auto b = w.add(700, "b");
  const auto a1 = w.add(300, "a1");
  const auto a2 = w.add(300, "a2");
  EXPECT_EQ(w.min_key(), 300U);
  EXPECT_EQ(w.min_elt(), a1);
  EXPECT_EQ(w.min_elt(), a1);  // asking again changes nothing
  EXPECT_TRUE(w.remove(a1));
  EXPECT_EQ(w.min_elt(), a2);
  // change_key counts as a new add: last among its key.
  const auto a3 = w.add(300, "a3");
  EXPECT_TRUE(w.change_key(a2, 300));
  EXPECT_EQ(w.min_elt(), a3);
  EXPECT_TRUE(w.remove(a3));
  EXPECT_EQ(w.min_elt(), a2);
  // A key below the least one, added after min_elt looked ahead, comes first.
  const auto early = w.add(5, "early");
  EXPECT_EQ(w.min_key(), 5U);
  EXPECT_EQ(w.min_elt(), early);
  EXPECT_EQ(raise_to(w, 301), (removed_list{{5, "early"}, {300, "a2"}}));
  EXPECT_EQ(w.min_elt(), b);
  EXPECT_EQ(*w.value(b), "b");
  w.check_invariants();
}

TEST(TimingWheel, HandlesStaySafeAfterRemoval) {
  tw::timing_wheel<std::unique_ptr<int>> w;
  const auto e = w.add(10, std::make_unique<int>(1));
  EXPECT_TRUE(w.mem(e));
  EXPECT_TRUE(w.remove(e));
  EXPECT_FALSE(w.mem(e));
  EXPECT_FALSE(w.remove(e));  // refused, where Jane Street raises
  EXPECT_FALSE(w.change_key(e, 20));
  EXPECT_EQ(w.key(e), std::nullopt);
  EXPECT_EQ(w.value(e), nullptr);
  // Its storage holds another element now; the old handle still misses it.
  const auto f = w.add(10, std::make_unique<int>(2));
  EXPECT_EQ(f.index, e.index);
  EXPECT_FALSE(w.mem(e));
  EXPECT_TRUE(w.mem(f));
  EXPECT_FALSE(w.mem(tw::timing_wheel<int>::elt{}));  // Alarm.null
  // Removed through increase_min_allowed_key: stale too.
  w.increase_min_allowed_key(11, [](auto, std::uint64_t, std::unique_ptr<int>&&) {});
  EXPECT_FALSE(w.mem(f));
  EXPECT_FALSE(w.remove(f));
  w.check_invariants();
}

TEST(TimingWheel, HandlerMayReadButNotChange) {
  tw::timing_wheel<int> w;
  const auto a = w.add(1, 1);
  w.add(2, 2);
  w.add(9, 9);
  std::vector<std::uint64_t> minimums;
  std::vector<std::uint64_t> least;
  w.increase_min_allowed_key(5, [&](auto, std::uint64_t, int&&) {
    minimums.push_back(w.min_allowed_key());
    EXPECT_THROW(w.add(7, 7), std::logic_error);
    EXPECT_THROW(w.remove(a), std::logic_error);
    EXPECT_THROW(w.min_elt(), std::logic_error);
    EXPECT_THROW(w.clear(), std::logic_error);
    EXPECT_THROW(w.increase_min_allowed_key(8, [](auto, std::uint64_t, int&&) {}),
                 std::logic_error);
    least.push_back(w.min_key().value_or(0));  // readable: what is left
  });
  EXPECT_EQ(minimums, (std::vector<std::uint64_t>{1, 2}));
  EXPECT_EQ(least, (std::vector<std::uint64_t>{2, 9}));
  EXPECT_EQ(w.length(), 1U);
  EXPECT_EQ(w.min_allowed_key(), 5U);
  w.check_invariants();
}

TEST(TimingWheel, HandlerThatThrowsLeavesTheRestInPlace) {
  tw::timing_wheel<int> w;
  for (int k = 1; k <= 6; ++k) w.add(static_cast<std::uint64_t>(k), k);
  int seen = 0;
  EXPECT_THROW(w.increase_min_allowed_key(10,
                                          [&](auto, std::uint64_t, int&&) {
                                            if (++seen == 3) throw std::runtime_error("stop");
                                          }),
               std::runtime_error);
  EXPECT_EQ(w.length(), 3U);           // 1, 2, 3 handed (3 threw), 4..6 stay
  EXPECT_EQ(w.min_allowed_key(), 3U);  // the key of the last one handed
  EXPECT_EQ(w.min_key(), 4U);
  w.check_invariants();
  std::vector<int> rest;
  w.increase_min_allowed_key(10, [&](auto, std::uint64_t, int&& v) { rest.push_back(v); });
  EXPECT_EQ(rest, (std::vector<int>{4, 5, 6}));
}

TEST(TimingWheel, ClearAndIteration) {
  tw::timing_wheel<int> w(100);
  std::map<std::uint64_t, int> expected;
  for (int i = 0; i < 50; ++i) {
    const std::uint64_t key = 100 + static_cast<std::uint64_t>(i) * 977;
    w.add(key, i);
    expected[key] = i;
  }
  w.min_elt();  // moves the least key's elements into the front
  std::map<std::uint64_t, int> seen;
  w.for_each([&](tw::timing_wheel<int>::elt e, std::uint64_t key, const int& v) {
    EXPECT_TRUE(w.mem(e));
    seen[key] = v;
  });
  EXPECT_EQ(seen, expected);
  w.clear();
  EXPECT_TRUE(w.is_empty());
  EXPECT_EQ(w.min_allowed_key(), 100U);
  EXPECT_EQ(w.min_elt(), std::nullopt);
  w.check_invariants();
}

// A value whose move constructor throws when told to.
struct fragile {
  static inline int moves_until_throw = -1;  // -1: never
  int value = 0;
  explicit fragile(int v) : value(v) {}
  fragile(fragile&& o) : value(o.value) {
    if (moves_until_throw >= 0 && moves_until_throw-- == 0) throw std::runtime_error("move");
  }
  fragile(const fragile&) = delete;
  fragile& operator=(const fragile&) = delete;
  fragile& operator=(fragile&&) = delete;
  ~fragile() = default;
};

TEST(TimingWheel, AddIsStrongWhenTheValuesMoveThrows) {
  tw::timing_wheel<fragile> w;
  const auto a = w.add(5, fragile(1));
  w.min_elt();  // the front holds key 5: a key below 5 would go to the early map
  fragile::moves_until_throw = 0;
  EXPECT_THROW(w.add(7, fragile(2)), std::runtime_error);
  fragile::moves_until_throw = -1;
  EXPECT_EQ(w.length(), 1U);
  EXPECT_EQ(w.min_elt(), a);
  w.check_invariants();
  // The slot the failed add took is reused cleanly.
  const auto b = w.add(6, fragile(3));
  EXPECT_EQ(w.value(b)->value, 3);
  EXPECT_EQ(w.length(), 2U);
  w.check_invariants();
}

// The differential test: random streams of every operation, in lockstep
// with a model that keeps (key, insertion number) -> value and the minimum
// allowed key. Keys range from the minimum itself to far ahead, so that the
// early map, the front, cascades and (on narrow levels) the far list are all
// exercised; handles of removed elements are reused to check they stay safe.
template <class Config>
void run_differential(std::uint64_t seed, std::uint64_t steps) {
  SCOPED_TRACE("seed " + std::to_string(seed) + " (TIMERWHEEL_SEED to replay)");
  using wheel_type = tw::timing_wheel<std::uint64_t, Config>;
  timerwheel_test::rng rng(seed);
  const std::uint64_t start = rng.percent(50) ? 0 : rng.below(1ULL << 40);
  wheel_type w(start);
  std::uint64_t min_allowed = start;
  std::uint64_t inserted = 0;
  std::size_t peak = 0;
  using model_key = std::pair<std::uint64_t, std::uint64_t>;  // (key, insertion #)
  struct entry {
    std::uint64_t value;
    std::size_t slot;  // its handle's index in `handles`, or kNone
  };
  constexpr std::size_t kNone = ~std::size_t{0};
  std::map<model_key, entry> model;
  struct tracked {
    typename wheel_type::elt e;
    model_key at;
    bool live;
  };
  std::vector<tracked> handles;  // at most kSlots; a new one may replace an old one
  constexpr std::size_t kSlots = 2048;
  // The model forgets an element: its handle, if tracked, goes stale.
  auto forget = [&](typename std::map<model_key, entry>::iterator it) {
    if (it->second.slot != kNone) handles[it->second.slot].live = false;
    model.erase(it);
  };

  auto pick_key = [&]() {
    const std::uint64_t r = rng.below(100);
    std::uint64_t offset = 0;
    if (r < 40) {
      offset = rng.below(8);
    } else if (r < 75) {
      offset = rng.below(300);
    } else if (r < 95) {
      offset = rng.below(1ULL << 20);
    } else {
      offset = rng.below(1ULL << 44);
    }
    return min_allowed + offset;
  };

  for (std::uint64_t step = 0; step < steps; ++step) {
    std::uint64_t op = rng.below(1000);
    // Phases of 4096 steps: in every other one the minimum rarely moves, so
    // that thousands of elements build up across the levels.
    const bool growing = (step / 4096) % 2 == 1;
    if (growing && op >= 800 && op < 950 && rng.percent(95)) op = 0;
    if (op < 350) {
      const std::uint64_t key = pick_key();
      const std::uint64_t value = inserted;
      const auto e = w.add(key, value);
      const model_key at{key, inserted++};
      std::size_t slot = handles.size();
      if (slot < kSlots) {
        handles.push_back({e, at, true});
      } else {
        slot = rng.below(kSlots);
        if (handles[slot].live) model.at(handles[slot].at).slot = kNone;
        handles[slot] = {e, at, true};
      }
      model.emplace(at, entry{value, slot});
    } else if (op < 450) {
      if (handles.empty()) continue;
      tracked& h = handles[rng.below(handles.size())];
      ASSERT_EQ(w.remove(h.e), h.live) << "step " << step;
      if (h.live) forget(model.find(h.at));
    } else if (op < 550) {
      if (handles.empty()) continue;
      tracked& h = handles[rng.below(handles.size())];
      const std::uint64_t key = pick_key();
      ASSERT_EQ(w.change_key(h.e, key), h.live) << "step " << step;
      if (h.live) {
        const entry moved = model.at(h.at);
        model.erase(h.at);
        h.at = {key, inserted++};
        model.emplace(h.at, moved);
      }
    } else if (op < 800) {
      const std::optional<typename wheel_type::elt> got = w.min_elt();
      if (model.empty()) {
        ASSERT_EQ(got, std::nullopt) << "step " << step;
      } else {
        ASSERT_TRUE(got.has_value()) << "step " << step;
        ASSERT_EQ(w.key(*got), model.begin()->first.first) << "step " << step;
        ASSERT_EQ(*w.value(*got), model.begin()->second.value) << "step " << step;
        // The pop of an event list, now and then.
        if (rng.percent(50)) {
          ASSERT_TRUE(w.remove(*got));
          forget(model.begin());
        }
      }
    } else if (op < 950) {
      // Raise the minimum: usually a little, sometimes past many keys.
      std::uint64_t to = min_allowed + rng.below(rng.percent(80) ? 16 : 1ULL << 21);
      if (rng.percent(30) && !model.empty()) to = model.begin()->first.first + rng.below(3);
      if (growing) to = min_allowed + rng.below(4);
      std::vector<std::pair<std::uint64_t, std::uint64_t>> expected;
      if (to > min_allowed) {
        while (!model.empty() && model.begin()->first.first < to) {
          expected.emplace_back(model.begin()->first.first, model.begin()->second.value);
          forget(model.begin());
        }
        min_allowed = to;
      }
      std::vector<std::pair<std::uint64_t, std::uint64_t>> got;
      const std::size_t n =
          w.increase_min_allowed_key(to, [&](typename wheel_type::elt, std::uint64_t k,
                                             std::uint64_t&& v) { got.emplace_back(k, v); });
      ASSERT_EQ(got, expected) << "step " << step << " raising to " << to;
      ASSERT_EQ(n, got.size());
    } else if (op < 952) {
      if (growing || !rng.percent(10)) continue;  // rare: about twice in 20,000 steps
      w.clear();
      model.clear();
      for (tracked& h : handles) h.live = false;  // rare: a walk is fine
    } else {
      // Queries on any handle, live or not.
      if (handles.empty()) continue;
      const tracked& h = handles[rng.below(handles.size())];
      ASSERT_EQ(w.mem(h.e), h.live) << "step " << step;
      if (h.live) {
        ASSERT_EQ(w.key(h.e), h.at.first);
        ASSERT_EQ(*w.value(h.e), model.at(h.at).value);
      } else {
        ASSERT_EQ(w.key(h.e), std::nullopt);
      }
    }
    ASSERT_EQ(w.length(), model.size()) << "step " << step;
    ASSERT_EQ(w.min_allowed_key(), min_allowed) << "step " << step;
    if (model.empty()) {
      ASSERT_EQ(w.min_key(), std::nullopt) << "step " << step;
    } else {
      ASSERT_EQ(w.min_key(), model.begin()->first.first) << "step " << step;
    }
    if (step % 1009 == 0) w.check_invariants();
    peak = std::max(peak, model.size());
  }
  // The stream built up a population worth the name.
  EXPECT_GT(peak, steps >= 20'000 ? 800U : 0U);
  w.check_invariants();
  // Drain everything, in order.
  std::vector<std::uint64_t> got;
  w.increase_min_allowed_key(
      kMax, [&](typename wheel_type::elt, std::uint64_t, std::uint64_t&& v) { got.push_back(v); });
  std::vector<std::uint64_t> expected;
  for (const auto& [at, v] : model) expected.push_back(v.value);
  ASSERT_EQ(got, expected);
  EXPECT_TRUE(w.is_empty());
  w.check_invariants();
}

TEST(TimingWheel, DifferentialDefaultLevels) {
  for (const std::uint64_t seed : timerwheel_test::seeds_from_env({1, 2, 3, 4}))
    run_differential<tw::default_config>(seed, timerwheel_test::steps_from_env(20'000));
}

TEST(TimingWheel, DifferentialNarrowLevelsWithFarList) {
  // Jane Street's level_bits, small: 2^12 keys in the levels, the rest far.
  for (const std::uint64_t seed : timerwheel_test::seeds_from_env({5, 6}))
    run_differential<tw::levels<std::uint64_t, 4, 4, 4>>(seed,
                                                         timerwheel_test::steps_from_env(20'000));
}

TEST(TimingWheel, DifferentialUnevenLevels) {
  for (const std::uint64_t seed : timerwheel_test::seeds_from_env({7}))
    run_differential<tw::levels<std::uint64_t, 11, 10, 10, 10, 10, 10>>(
        seed, timerwheel_test::steps_from_env(20'000));
}

}  // namespace
