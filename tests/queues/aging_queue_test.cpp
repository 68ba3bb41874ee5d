// Tests of timerwheel::aging_queue: HiTime's starvation-free priority queue.
// Unit cases, HiTime's edge cases, a property test against a plain model
// (a std::map ordered by (due, push order)), and an adversarial flood.
#include <timerwheel/aging_queue.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "support/rng.hpp"

namespace {

namespace tw = timerwheel;
constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

TEST(AgingQueue, EmptyQueueAnswersAtOnce) {
  tw::aging_queue<int> q(5);
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.size(), 0U);
  // HiTime spins when it waits on an empty queue; here pop says none and
  // the counter stays, and there is no due count to wait for.
  EXPECT_EQ(q.pop(), std::nullopt);
  EXPECT_EQ(q.counter(), 5U);
  EXPECT_EQ(q.next_due(), std::nullopt);
  q.tick(3);
  EXPECT_EQ(q.counter(), 8U);
  EXPECT_EQ(q.pop(), std::nullopt);
  EXPECT_EQ(q.counter(), 8U);
  q.check_invariants();
}

TEST(AgingQueue, PopsByDueThenPushOrder) {
  tw::aging_queue<std::string> q;
  q.push("c", 4);  // due 4
  q.push("a", 1);  // due 1
  q.push("b", 1);  // due 1, pushed after a
  q.push("d", 4);  // due 4, after c
  EXPECT_EQ(q.next_due(), 1U);
  EXPECT_EQ(q.pop(), "a");  // nothing due at 0: the counter jumps to 1, then to 2
  EXPECT_EQ(q.counter(), 2U);
  EXPECT_EQ(q.pop(), "b");  // due 1 <= 2: no jump; counter 3
  EXPECT_EQ(q.counter(), 3U);
  EXPECT_EQ(q.pop(), "c");  // jumps to 4, then 5
  EXPECT_EQ(q.counter(), 5U);
  EXPECT_EQ(q.pop(), "d");
  EXPECT_EQ(q.counter(), 6U);
  EXPECT_TRUE(q.empty());
  q.check_invariants();
}

TEST(AgingQueue, PrioritiesAge) {
  // A low-priority item pushed early beats an urgent one pushed late.
  tw::aging_queue<int> q;
  q.push(1, 10);  // due 10
  q.tick(9);      // counter 9
  q.push(2, 2);   // due 11
  EXPECT_EQ(q.pop(), 1);
  EXPECT_EQ(q.pop(), 2);
}

TEST(AgingQueue, ImmediatePushGoesBehindWhatIsAlreadyDue) {
  // HiTime's edge case: an immediate-priority item put on the expiry list
  // while others wait there. Here priority 0 is due at the counter: behind
  // every item already due (earlier counts, or the same count pushed
  // before), never ahead of them.
  tw::aging_queue<int> q;
  q.push(1, 1);                         // due 1
  q.push(2, 3);                         // due 3
  q.push(3, 3);                         // due 3
  q.tick(5);                            // all three are due
  const auto immediate = q.push(4, 0);  // due 5
  EXPECT_EQ(q.due(immediate), 5U);
  EXPECT_EQ(q.pop(), 1);
  // An immediate push between pops of due items still waits its turn.
  q.push(5, 0);  // due 6 (the counter is 6 after one pop)
  EXPECT_EQ(q.pop(), 2);
  EXPECT_EQ(q.pop(), 3);
  EXPECT_EQ(q.pop(), 4);
  EXPECT_EQ(q.pop(), 5);
  EXPECT_TRUE(q.empty());
}

TEST(AgingQueue, ImmediatePushWhileItemsOfTheCounterAreQueued) {
  // Items of one due count are taken out of the wheel together; one pushed
  // at that count afterwards comes out after them.
  tw::aging_queue<int> q;
  for (int i = 0; i < 4; ++i) q.push(i, 0);  // all due 0
  EXPECT_EQ(q.pop(), 0);                     // queues 0..3; counter 1
  q.push(10, 0);                             // due 1
  q.push(11, 0);                             // due 1
  std::vector<int> order;
  while (auto v = q.pop()) order.push_back(*v);
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 10, 11}));
}

TEST(AgingQueue, RemoveAndStaleIds) {
  tw::aging_queue<std::unique_ptr<int>> q;
  const auto a = q.push(std::make_unique<int>(1), 2);
  const auto b = q.push(std::make_unique<int>(2), 2);
  EXPECT_TRUE(q.contains(a));
  ASSERT_NE(q.get(b), nullptr);
  EXPECT_EQ(**q.get(b), 2);
  EXPECT_TRUE(q.remove(a));
  EXPECT_FALSE(q.remove(a));  // stale: refused
  EXPECT_FALSE(q.contains(a));
  EXPECT_EQ(q.due(a), std::nullopt);
  EXPECT_EQ(q.size(), 1U);
  auto v = q.pop();
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(**v, 2);
  EXPECT_FALSE(q.remove(b));  // popped: stale
  EXPECT_EQ(q.get(b), nullptr);
  // A new item reusing the slot is not reached through the old id.
  const auto c = q.push(std::make_unique<int>(3), 0);
  EXPECT_FALSE(q.contains(b));
  EXPECT_TRUE(q.contains(c));
  EXPECT_FALSE(q.remove(tw::aging_queue<int>::item_id{}));
  q.check_invariants();
}

TEST(AgingQueue, RemoveAnItemQueuedForTheNextPop) {
  tw::aging_queue<int> q;
  q.push(1, 0);
  const auto second = q.push(2, 0);
  q.push(3, 0);
  EXPECT_EQ(q.pop(), 1);  // 2 and 3 wait, taken out of the wheel
  EXPECT_TRUE(q.remove(second));
  EXPECT_EQ(q.pop(), 3);
  EXPECT_EQ(q.pop(), std::nullopt);
  q.check_invariants();
}

TEST(AgingQueue, OverflowIsRefusedAndChangesNothing) {
  tw::aging_queue<int> q(kMax - 2);
  EXPECT_THROW(q.push(1, 3), std::overflow_error);
  EXPECT_TRUE(q.empty());
  EXPECT_THROW(q.tick(3), std::overflow_error);
  EXPECT_EQ(q.counter(), kMax - 2);
  q.push(1, 2);                                // due 2^64 - 1: allowed
  EXPECT_THROW(q.pop(), std::overflow_error);  // the counter would pass the top
  EXPECT_EQ(q.size(), 1U);
  EXPECT_EQ(q.counter(), kMax - 2);
  q.push(2, 0);
  EXPECT_EQ(q.pop(), 2);
  EXPECT_EQ(q.counter(), kMax - 1);
  q.check_invariants();
}

TEST(AgingQueue, ClearKeepsTheCounter) {
  tw::aging_queue<int> q;
  q.push(1, 5);
  q.tick(2);
  q.clear();
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.counter(), 2U);
  q.push(2, 0);
  EXPECT_EQ(q.pop(), 2);
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

TEST(AgingQueue, ThrowingMovesKeepTheQueueWhole) {
  tw::aging_queue<fragile> q;
  fragile::moves_until_throw = 0;  // the move into the node
  EXPECT_THROW(q.push(fragile(1), 0), std::runtime_error);
  EXPECT_TRUE(q.empty());  // strong: nothing pushed
  fragile::moves_until_throw = -1;
  const auto a = q.push(fragile(1), 2);
  q.push(fragile(2), 2);
  // The move out of the node throws: the item stays, with its id, now
  // behind the other item of its due count; the counter has jumped to that
  // count (nothing was due before it) but not stepped past it.
  fragile::moves_until_throw = 0;
  EXPECT_THROW(q.pop(), std::runtime_error);
  EXPECT_EQ(q.counter(), 2U);
  EXPECT_TRUE(q.contains(a));
  EXPECT_EQ(q.size(), 2U);
  q.check_invariants();
  fragile::moves_until_throw = -1;
  // An immediate push now is due at 2, behind both.
  q.push(fragile(3), 0);
  EXPECT_EQ(q.pop()->value, 2);
  EXPECT_EQ(q.counter(), 3U);
  EXPECT_EQ(q.pop()->value, 1);
  EXPECT_EQ(q.pop()->value, 3);
  // The move into the result throws: the item is gone, the counter moved.
  q.push(fragile(4), 0);
  fragile::moves_until_throw = 1;
  EXPECT_THROW(q.pop(), std::runtime_error);
  fragile::moves_until_throw = -1;
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.counter(), 6U);
  q.check_invariants();
}

// The property test: a random stream of pushes (priorities from 0 to far
// ahead), pops, removes and ticks, run in lockstep with a model that keeps
// the items ordered by (due, push order) and the counter by the rules of
// the opening of aging_queue.hpp.
struct model {
  std::uint64_t counter = 0;
  std::uint64_t pushes = 0;
  std::map<std::pair<std::uint64_t, std::uint64_t>, int> items;  // (due, push #) -> value
};

TEST(AgingQueue, PropertyMatchesTheModel) {
  for (const std::uint64_t seed : timerwheel_test::seeds_from_env({1, 2, 3, 42})) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " (TIMERWHEEL_SEED to replay)");
    timerwheel_test::rng rng(seed);
    const std::uint64_t start = rng.percent(50) ? 0 : rng.below(1ULL << 40);
    tw::aging_queue<int> q(start);
    model m;
    m.counter = start;
    std::vector<std::pair<tw::aging_queue<int>::item_id, std::pair<std::uint64_t, std::uint64_t>>>
        ids;
    const std::uint64_t steps = timerwheel_test::steps_from_env(20'000);
    int next_value = 0;
    for (std::uint64_t step = 0; step < steps; ++step) {
      const std::uint64_t op = rng.below(100);
      if (op < 45) {
        // Mostly small priorities, so that dues collide; some far ahead.
        std::uint64_t priority = rng.below(8);
        if (rng.percent(20)) priority = rng.below(5000);
        if (rng.percent(2)) priority = rng.below(1ULL << 36);
        const int value = next_value++;
        const auto id = q.push(value, priority);
        const auto key = std::make_pair(m.counter + priority, m.pushes++);
        m.items.emplace(key, value);
        ids.emplace_back(id, key);
      } else if (op < 80) {
        const std::optional<int> got = q.pop();
        if (m.items.empty()) {
          ASSERT_EQ(got, std::nullopt) << "step " << step;
        } else {
          const auto first = m.items.begin();
          ASSERT_EQ(got, first->second) << "step " << step;
          m.counter = std::max(m.counter, first->first.first) + 1;
          m.items.erase(first);
        }
        ASSERT_EQ(q.counter(), m.counter) << "step " << step;
      } else if (op < 92) {
        if (ids.empty()) continue;
        const std::size_t i = rng.below(ids.size());
        const bool held = m.items.erase(ids[i].second) == 1;
        ASSERT_EQ(q.remove(ids[i].first), held) << "step " << step;
        ids[i] = ids.back();
        ids.pop_back();
      } else {
        const std::uint64_t n = rng.percent(80) ? rng.below(4) : rng.below(10'000);
        q.tick(n);
        m.counter += n;
      }
      ASSERT_EQ(q.size(), m.items.size());
      if (m.items.empty()) {
        ASSERT_EQ(q.next_due(), std::nullopt);
      } else {
        ASSERT_EQ(q.next_due(), m.items.begin()->first.first) << "step " << step;
      }
      if (step % 997 == 0) q.check_invariants();
    }
    // Drain: everything comes out in model order.
    while (!m.items.empty()) {
      ASSERT_EQ(q.pop(), m.items.begin()->second);
      m.items.erase(m.items.begin());
    }
    EXPECT_TRUE(q.empty());
    q.check_invariants();
  }
}

// The adversarial flood: after an item of priority P is pushed, every pop
// comes with a burst of R priority-1 pushes, forever. The aged item must
// come out within its bound: the items due before it are those queued when
// it was pushed plus those pushed before the counter reached its due count,
// at most R in each of the P pops that take the counter there. A plain heap
// by priority (std::priority_queue, no aging) never pops it: shown beside.
TEST(AgingQueue, FloodOfUrgentItemsDoesNotStarveAnOldOne) {
  constexpr std::uint64_t kPriority = 1000;
  for (const std::uint64_t burst : {1ULL, 3ULL, 8ULL}) {
    SCOPED_TRACE("burst " + std::to_string(burst));
    tw::aging_queue<std::uint64_t> q;
    // Some items already waiting, some of them urgent.
    for (std::uint64_t i = 0; i < 50; ++i) q.push(1'000'000 + i, i % 7);
    const std::size_t ahead_at_push = q.size();
    constexpr std::uint64_t kOld = 0;
    const auto old = q.push(kOld, kPriority);
    const std::uint64_t due = *q.due(old);
    const std::uint64_t bound = ahead_at_push + burst * kPriority;

    std::priority_queue<std::pair<std::uint64_t, std::uint64_t>,
                        std::vector<std::pair<std::uint64_t, std::uint64_t>>, std::greater<>>
        heap;  // (priority, value): no aging
    heap.emplace(kPriority, kOld);

    std::uint64_t pops = 0;
    std::uint64_t value = 1;
    bool heap_popped_old = false;
    for (;;) {
      for (std::uint64_t b = 0; b < burst; ++b) {
        q.push(value, 1);
        heap.emplace(1, value);
        ++value;
      }
      const std::optional<std::uint64_t> got = q.pop();
      ASSERT_TRUE(got.has_value());
      ++pops;
      if (heap.top().second == kOld) heap_popped_old = true;
      heap.pop();
      if (*got == kOld) {
        // Nothing left behind it is due before it.
        q.for_each([&](tw::aging_queue<std::uint64_t>::item_id id, const std::uint64_t&) {
          EXPECT_GE(*q.due(id), due) << "an item due before the old one is still waiting";
        });
        break;
      }
      ASSERT_LE(pops, bound) << "the old item starves";
    }
    EXPECT_LE(pops, bound + 1);
    EXPECT_FALSE(heap_popped_old) << "the plain heap was expected to starve it";
    q.check_invariants();
  }
}

// Never overtaken by an item that became due after it: pop order is
// nondecreasing in due count, whatever the interleaving of pushes and pops.
TEST(AgingQueue, DueCountsOfPopsNeverDecrease) {
  for (const std::uint64_t seed : timerwheel_test::seeds_from_env({7, 8})) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " (TIMERWHEEL_SEED to replay)");
    timerwheel_test::rng rng(seed);
    tw::aging_queue<std::uint64_t> q;  // the value is the item's due count
    std::uint64_t last = 0;
    for (int step = 0; step < 20'000; ++step) {
      if (rng.percent(55)) {
        const std::uint64_t p = rng.percent(90) ? rng.below(3) : rng.below(300);
        q.push(q.counter() + p, p);
      } else if (auto got = q.pop()) {
        ASSERT_GE(*got, last) << "step " << step;
        last = *got;
        ASSERT_GT(q.counter(), last);
      }
    }
  }
}

}  // namespace
