// des::simulator: events run in (time, priority, scheduling order) order;
// handlers schedule and cancel, at the current instant too; run_until, run,
// step and the counts; ids go stale; errors change nothing.
#include <timerwheel/des.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "support/rng.hpp"

namespace {

using timerwheel::des::event_id;
using sim_type = timerwheel::des::simulator<int>;

struct ran {
  std::uint64_t time;
  int event;
  friend bool operator==(const ran&, const ran&) = default;
};

TEST(DesSimulator, RunsInTimePriorityAndSchedulingOrder) {
  sim_type sim;
  sim.schedule_at(10, 1);
  sim.schedule_at(5, 2);
  sim.schedule_at(10, 3, -1);
  sim.schedule_at(10, 4, 2);
  sim.schedule_at(10, 5);
  sim.schedule_at(10, 6, -1);
  sim.schedule_at(0, 7);
  std::vector<ran> order;
  EXPECT_EQ(sim.pending(), 7U);
  const auto n = sim.run_until(100, [&](int& e) { order.push_back({sim.now(), e}); });
  EXPECT_EQ(n, 7U);
  const std::vector<ran> expected{{0, 7}, {5, 2}, {10, 3}, {10, 6}, {10, 1}, {10, 5}, {10, 4}};
  EXPECT_EQ(order, expected);
  EXPECT_EQ(sim.now(), 100U);
  EXPECT_EQ(sim.pending(), 0U);
  EXPECT_EQ(sim.events_run(), 7U);
  sim.check_invariants();
}

TEST(DesSimulator, EventsScheduledAtTheCurrentInstantTakeTheirPlace) {
  sim_type sim;
  std::vector<ran> order;
  sim.schedule_at(3, 1);
  sim.schedule_at(3, 2);
  sim.schedule_at(3, 3, 5);
  sim.run_until(3, [&](int& e) {
    order.push_back({sim.now(), e});
    if (e == 1) {
      sim.schedule_in(0, 10, -3);  // before 2: more urgent
      sim.schedule_in(0, 11);      // after 2: same priority, newer
      sim.schedule_in(0, 12, 5);   // after 3: same priority, newer
    }
    if (e == 10) sim.schedule_at(sim.now(), 13);  // priority 0, newest of them
    sim.check_invariants();
  });
  const std::vector<ran> expected{{3, 1}, {3, 10}, {3, 2}, {3, 11}, {3, 13}, {3, 3}, {3, 12}};
  EXPECT_EQ(order, expected);
}

TEST(DesSimulator, CancelAtTheCurrentInstantAndLater) {
  sim_type sim;
  std::vector<int> order;
  event_id a = sim.schedule_at(7, 1);
  event_id b = sim.schedule_at(7, 2);
  event_id c = sim.schedule_at(7, 3, 4);
  event_id d = sim.schedule_at(9, 4);
  sim.run_until(20, [&](int& e) {
    order.push_back(e);
    if (e == 1) {
      EXPECT_FALSE(sim.cancel(a));  // itself: already stale
      EXPECT_TRUE(sim.cancel(b));   // due at this instant, in the batch
      EXPECT_TRUE(sim.cancel(c));   // due at this instant, priority 4
      EXPECT_FALSE(sim.cancel(b));
      EXPECT_TRUE(sim.cancel(d));  // in the wheel
      const event_id now_id = sim.schedule_in(0, 5);
      EXPECT_TRUE(sim.is_pending(now_id));
      EXPECT_TRUE(sim.cancel(now_id));
      sim.schedule_in(0, 6);
      EXPECT_EQ(sim.pending(), 1U);
      sim.check_invariants();
    }
  });
  EXPECT_EQ(order, (std::vector<int>{1, 6}));
  EXPECT_EQ(sim.events_run(), 2U);
  EXPECT_FALSE(sim.cancel(event_id{}));
  EXPECT_FALSE(sim.cancel(event_id{12345, 1}));
}

TEST(DesSimulator, StepRunAndRunUntil) {
  sim_type sim(100);
  EXPECT_EQ(sim.now(), 100U);
  for (int i = 0; i < 10; ++i) sim.schedule_in(static_cast<std::uint64_t>(10 * (i + 1)), i);
  std::vector<int> seen;
  const auto record = [&](int& e) { seen.push_back(e); };
  EXPECT_TRUE(sim.step(record));
  EXPECT_EQ(sim.now(), 110U);
  EXPECT_EQ(sim.run(3, record), 3U);
  EXPECT_EQ(sim.now(), 140U);
  EXPECT_EQ(sim.next_time(), std::optional<std::uint64_t>(150));
  EXPECT_EQ(sim.run_until(165, record), 2U);
  EXPECT_EQ(sim.now(), 165U);
  EXPECT_EQ(sim.pending(), 4U);
  EXPECT_EQ(sim.run_until(170, record), 1U);  // an event at the target runs
  EXPECT_EQ(sim.run(100, record), 3U);        // runs dry
  EXPECT_EQ(sim.now(), 200U);
  EXPECT_FALSE(sim.step(record));
  EXPECT_EQ(sim.run_until(200, record), 0U);
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(sim.events_run(), 10U);
  EXPECT_EQ(sim.next_time(), std::nullopt);
}

TEST(DesSimulator, ErrorsChangeNothing) {
  sim_type sim(50);
  sim.schedule_at(60, 1);
  EXPECT_THROW(sim.schedule_at(49, 2), std::invalid_argument);
  EXPECT_THROW(sim.schedule_in(~std::uint64_t{0}, 2), std::invalid_argument);
  EXPECT_THROW(sim.run_until(10, [](int&) {}), std::invalid_argument);
  EXPECT_EQ(sim.pending(), 1U);
  EXPECT_EQ(sim.now(), 50U);
  // A handler may not start another run.
  int nested = 0;
  sim.run_until(100, [&](int&) {
    EXPECT_THROW(sim.step([](int&) {}), std::logic_error);
    EXPECT_THROW(sim.run(1, [](int&) {}), std::logic_error);
    EXPECT_THROW(sim.run_until(100, [](int&) {}), std::logic_error);
    ++nested;
  });
  EXPECT_EQ(nested, 1);
  sim.check_invariants();
}

TEST(DesSimulator, AHandlerThatThrowsLeavesTheRestPending) {
  sim_type sim;
  sim.schedule_at(1, 1);
  sim.schedule_at(2, 2);
  sim.schedule_at(3, 3);
  EXPECT_THROW(sim.run_until(10,
                             [&](int& e) {
                               if (e == 2) throw std::runtime_error("model");
                             }),
               std::runtime_error);
  EXPECT_EQ(sim.now(), 2U);
  EXPECT_EQ(sim.pending(), 1U);
  EXPECT_EQ(sim.events_run(), 2U);
  sim.check_invariants();
  std::vector<int> rest;
  sim.run_until(10, [&](int& e) { rest.push_back(e); });
  EXPECT_EQ(rest, (std::vector<int>{3}));
}

TEST(DesSimulator, TypedEventsAndIds) {
  using event = std::variant<std::string, std::uint64_t>;
  timerwheel::des::simulator<event> sim;
  const event_id a = sim.schedule_at(4, event{std::string("hello")});
  const event_id b = sim.schedule_at(4, event{std::uint64_t{7}});
  ASSERT_NE(sim.get(a), nullptr);
  EXPECT_EQ(std::get<std::string>(*sim.get(a)), "hello");
  std::string text;
  std::uint64_t number = 0;
  sim.run_until(4, [&](event& e) {
    if (auto* s = std::get_if<std::string>(&e)) text = *s;
    if (auto* n = std::get_if<std::uint64_t>(&e)) number = *n;
  });
  EXPECT_EQ(text, "hello");
  EXPECT_EQ(number, 7U);
  EXPECT_EQ(sim.get(a), nullptr);
  EXPECT_FALSE(sim.is_pending(b));
  // A node is reused by a later event; the old id never reaches it.
  const event_id c = sim.schedule_at(5, event{std::uint64_t{1}});
  EXPECT_FALSE(sim.cancel(a));
  EXPECT_FALSE(sim.cancel(b));
  EXPECT_TRUE(sim.is_pending(c));
}

// Random models against a plain reference: a std::set ordered by (time,
// priority, scheduling order), with schedules and cancels from handlers.
TEST(DesSimulator, MatchesAnOrderedSetOnRandomModels) {
  for (const std::uint64_t seed : timerwheel_test::seeds_from_env({1, 2, 3, 4, 5})) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 random(seed);
    for (int round = 0; round < 4; ++round) {
      sim_type sim;
      using key = std::tuple<std::uint64_t, int, std::uint64_t>;  // time, priority, sequence
      std::set<key> model;
      std::map<int, std::pair<event_id, key>> live;  // event number -> id, key
      int next_event = 0;
      std::uint64_t sequence = 0;
      const auto add = [&](std::uint64_t delay) {
        const int priority = random() % 4 == 0 ? static_cast<int>(random() % 5) - 2 : 0;
        const int e = next_event++;
        const key k{sim.now() + delay, priority, sequence++};
        live[e] = {sim.schedule_in(delay, e, priority), k};
        model.insert(k);
      };
      for (int i = 0; i < 50; ++i) add(random() % 100);
      std::uint64_t ran_count = 0;
      sim.run_until(2000, [&](int& e) {
        ASSERT_FALSE(model.empty());
        const auto it = live.find(e);
        ASSERT_NE(it, live.end());
        EXPECT_EQ(*model.begin(), it->second.second);
        EXPECT_EQ(std::get<0>(it->second.second), sim.now());
        model.erase(model.begin());
        live.erase(it);
        ++ran_count;
        const int births = static_cast<int>(random() % 3);
        for (int b = 0; b < births && next_event < 3000; ++b)
          add(random() % 3 == 0 ? 0 : random() % 50);
        if (!live.empty() && random() % 3 == 0) {
          auto victim = live.begin();
          std::advance(victim, static_cast<long>(random() % live.size()));
          EXPECT_TRUE(sim.cancel(victim->second.first));
          model.erase(victim->second.second);
          live.erase(victim);
        }
        EXPECT_EQ(sim.pending(), model.size());
      });
      sim.check_invariants();
      for (const key& k : model) EXPECT_GT(std::get<0>(k), 2000U);
      EXPECT_EQ(sim.pending(), model.size());
      EXPECT_EQ(sim.events_run(), ran_count);
    }
  }
}

TEST(DesToTicks, RoundsWithoutBias) {
  std::mt19937_64 random(42);
  // 0.3 ticks: 0 or 1, up 30% of the time; the mean stays 0.3.
  double sum = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t t = timerwheel::des::to_ticks(0.003, 100.0, random);
    ASSERT_LE(t, 1U);
    sum += static_cast<double>(t);
  }
  // Binomial: sd of the mean sqrt(0.21 / n) ~ 0.001; 5 sd.
  EXPECT_NEAR(sum / n, 0.3, 0.0052);
  EXPECT_EQ(timerwheel::des::to_ticks(2.0, 1000.0, random), 2000U);  // whole: exact
  EXPECT_THROW(timerwheel::des::to_ticks(-1.0, 1.0, random), std::invalid_argument);
  EXPECT_THROW(timerwheel::des::to_ticks(1.0, 0.0, random), std::invalid_argument);
  EXPECT_THROW(timerwheel::des::to_ticks(1e300, 1.0, random), std::invalid_argument);
}

}  // namespace
