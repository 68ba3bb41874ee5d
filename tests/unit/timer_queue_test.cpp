// Unit tests of timerwheel::timer_queue: the owning layer with
// generation-checked ids and a value per timer.
#include <timerwheel/timer_queue.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <set>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "support/rng.hpp"

namespace {

namespace tw = timerwheel;
constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

// A value that counts how many of it are alive and notices being destroyed
// twice, or used after being destroyed.
struct tracked {
  static constexpr std::uint64_t kAlive = 0xA11FEA11FEULL;
  static constexpr std::uint64_t kDead = 0xDEADDEADULL;
  static inline long live = 0;
  static inline long errors = 0;

  std::uint64_t magic = kAlive;
  int value = 0;

  explicit tracked(int v) : value(v) { ++live; }
  tracked(const tracked& o) : value(o.value) {
    check(o);
    ++live;
  }
  tracked(tracked&& o) noexcept : value(o.value) {
    check(o);
    ++live;
  }
  tracked& operator=(const tracked& o) {
    check(*this);
    check(o);
    value = o.value;
    return *this;
  }
  tracked& operator=(tracked&& o) noexcept {
    check(*this);
    check(o);
    value = o.value;
    return *this;
  }
  ~tracked() {
    check(*this);
    magic = kDead;
    --live;
  }
  static void check(const tracked& t) {
    if (t.magic != kAlive) ++errors;
  }
};

// Every test that uses `tracked` checks on the way out that nothing leaked
// and nothing died twice.
class TimerQueue : public ::testing::Test {
 protected:
  void SetUp() override {
    tracked::live = 0;
    tracked::errors = 0;
  }
  void TearDown() override {
    EXPECT_EQ(tracked::live, 0) << "values leaked or destroyed twice";
    EXPECT_EQ(tracked::errors, 0) << "a value was used or destroyed after its destruction";
  }
};

// The id type a queue hands out (whether it is named inside the queue or
// beside it).
template <class Q>
using id_of = decltype(std::declval<Q&>().schedule(typename Q::tick_type{},
                                                   std::declval<typename Q::value_type>()));

using queue = tw::timer_queue<tracked>;
using id_type = id_of<queue>;
using up_queue = tw::timer_queue<std::unique_ptr<int>>;
using up_id = id_of<up_queue>;

static_assert(std::is_default_constructible_v<id_type>);
static_assert(std::is_copy_constructible_v<id_type>);
static_assert(std::is_copy_assignable_v<id_type>);
static_assert(std::is_same_v<queue::tick_type, std::uint64_t>);

// A callback of the wrong shape is refused where it is passed, by the
// concepts, rather than deep inside the wheel: each call below is well-formed
// exactly when the callback fits.
template <class Q, class F>
concept advance_takes = requires(Q& q, F f) {
  q.advance(typename Q::tick_type{}, f);
};
template <class Q, class F>
concept expire_all_takes = requires(Q& q, F f) {
  q.expire_all(f);
};
template <class Q, class F>
concept for_each_pending_takes = requires(const Q& q, F f) {
  q.for_each_pending(f);
};

struct takes_rvalue {
  void operator()(id_type, tracked&&) const;
};
struct takes_value {
  void operator()(id_type, tracked) const;
};
struct takes_const_ref {
  void operator()(id_type, const tracked&) const;
};
struct takes_ref {  // cannot bind the value handed as an rvalue
  void operator()(id_type, tracked&) const;
};
struct takes_no_id {
  void operator()(tracked&&) const;
};
struct takes_hook {  // the wheel's callback
  void operator()(tw::timer_hook&) const;
};

static_assert(tw::queue_expiry_callback<takes_rvalue, tracked>);
static_assert(advance_takes<queue, takes_rvalue>);
static_assert(advance_takes<queue, takes_value>);
static_assert(advance_takes<queue, takes_const_ref>);
static_assert(!advance_takes<queue, takes_ref>);
static_assert(!advance_takes<queue, takes_no_id>);
static_assert(!advance_takes<queue, takes_hook>);
static_assert(expire_all_takes<queue, takes_rvalue>);
static_assert(!expire_all_takes<queue, takes_ref>);
static_assert(!expire_all_takes<queue, takes_no_id>);
static_assert(!expire_all_takes<queue, takes_hook>);
static_assert(tw::queue_pending_visitor<takes_const_ref, tracked>);
static_assert(for_each_pending_takes<queue, takes_const_ref>);
static_assert(!for_each_pending_takes<queue, takes_rvalue>);
static_assert(!for_each_pending_takes<queue, takes_ref>);
static_assert(!for_each_pending_takes<queue, takes_no_id>);
static_assert(!for_each_pending_takes<queue, takes_hook>);

// Everything a stale id must be refused by, without effect.
template <class Q>
void expect_refused(Q& q, id_of<Q> id) {
  const auto size = q.size();
  EXPECT_FALSE(q.pending(id));
  EXPECT_EQ(q.deadline(id), std::nullopt);
  EXPECT_EQ(q.get(id), nullptr);
  EXPECT_FALSE(q.cancel(id));
  EXPECT_FALSE(q.reschedule(id, q.now()));
  EXPECT_EQ(q.size(), size);
}

TEST_F(TimerQueue, EmptyQueue) {
  queue q;
  EXPECT_EQ(q.now(), 0U);
  EXPECT_EQ(q.size(), 0U);
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.next_deadline(), std::nullopt);
  EXPECT_EQ(q.time_until_next(), kMax);
  EXPECT_FALSE(q.take_expired().has_value());
  q.check_invariants();
  queue at(500);
  EXPECT_EQ(at.now(), 500U);
}

TEST_F(TimerQueue, DefaultIdIsNeverValid) {
  queue q;
  const id_type none{};
  EXPECT_EQ(none, id_type{});
  expect_refused(q, none);
  // Not even once slots are in use.
  std::vector<id_type> ids;
  for (int i = 0; i < 10; ++i) ids.push_back(q.schedule(5, tracked(i)));
  for (const auto& id : ids) EXPECT_FALSE(id == none);
  expect_refused(q, none);
  for (auto& id : ids) EXPECT_TRUE(q.cancel(id));
  expect_refused(q, none);
  q.check_invariants();
}

TEST_F(TimerQueue, ScheduleAndQuery) {
  queue q(10);
  const auto a = q.schedule(20, tracked(1));
  const auto b = q.schedule(15, tracked(2));
  const auto c = q.schedule(3, tracked(3));  // in the past: taken as now
  EXPECT_FALSE(a == b);
  EXPECT_FALSE(a == c);
  EXPECT_FALSE(b == c);
  EXPECT_TRUE(a == a);
  EXPECT_EQ(q.size(), 3U);
  EXPECT_FALSE(q.empty());
  EXPECT_TRUE(q.pending(a));
  EXPECT_EQ(q.deadline(a), std::optional<std::uint64_t>(20));
  EXPECT_EQ(q.deadline(b), std::optional<std::uint64_t>(15));
  EXPECT_EQ(q.deadline(c), std::optional<std::uint64_t>(10));
  ASSERT_NE(q.get(a), nullptr);
  EXPECT_EQ(q.get(a)->value, 1);
  EXPECT_EQ(q.get(b)->value, 2);
  q.get(b)->value = 22;  // get gives access to the stored value
  EXPECT_EQ(q.get(b)->value, 22);
  EXPECT_EQ(tracked::live, 3);
  EXPECT_EQ(q.next_deadline(), std::optional<std::uint64_t>(10));
  EXPECT_EQ(q.time_until_next(), 0U);
  q.check_invariants();
}

TEST_F(TimerQueue, ScheduleInRange) {
  queue q;
  const auto a = q.schedule_in_range(100, 200, tracked(1));
  EXPECT_EQ(q.deadline(a), std::optional<std::uint64_t>(128));
  const auto b = q.schedule_in_range(0xF0, 0x10F, tracked(2));
  EXPECT_EQ(q.deadline(b), std::optional<std::uint64_t>(0x100));
  const auto live = tracked::live;
  EXPECT_THROW((void)q.schedule_in_range(60, 40, tracked(3)), std::invalid_argument);
  EXPECT_EQ(tracked::live, live) << "the refused value is not kept";
  EXPECT_EQ(q.size(), 2U);
  q.check_invariants();
}

TEST_F(TimerQueue, CancelDestroysTheValueAndOnlyThatOne) {
  queue q;
  const auto a = q.schedule(10, tracked(1));
  const auto b = q.schedule(10, tracked(2));
  const auto c = q.schedule(30, tracked(3));
  EXPECT_EQ(tracked::live, 3);
  EXPECT_TRUE(q.cancel(b));
  EXPECT_EQ(tracked::live, 2);
  expect_refused(q, b);
  EXPECT_TRUE(q.pending(a));
  EXPECT_TRUE(q.pending(c));
  EXPECT_EQ(q.get(a)->value, 1);
  EXPECT_EQ(q.get(c)->value, 3);
  EXPECT_EQ(q.size(), 2U);
  q.check_invariants();
  std::vector<int> fired;
  EXPECT_EQ(q.advance(100, [&](id_type, tracked&& v) { fired.push_back(v.value); }), 2U);
  EXPECT_EQ(fired, (std::vector<int>{1, 3}));
}

TEST_F(TimerQueue, RescheduleMovesAndCountsAsNew) {
  queue q;
  const auto a = q.schedule(10, tracked(1));
  const auto b = q.schedule(10, tracked(2));
  const auto c = q.schedule(50, tracked(3));
  EXPECT_TRUE(q.reschedule(a, 10));  // same deadline: now after b
  EXPECT_TRUE(q.reschedule(c, 5));
  EXPECT_EQ(q.deadline(c), std::optional<std::uint64_t>(5));
  EXPECT_EQ(q.size(), 3U);
  EXPECT_EQ(tracked::live, 3);
  q.check_invariants();
  std::vector<int> fired;
  q.advance(7, [&](id_type, tracked&& v) { fired.push_back(v.value); });
  EXPECT_TRUE(q.reschedule(b, 2));  // behind now: due at 7
  EXPECT_EQ(q.deadline(b), std::optional<std::uint64_t>(7));
  q.advance(20, [&](id_type, tracked&& v) { fired.push_back(v.value); });
  EXPECT_EQ(fired, (std::vector<int>{3, 2, 1}));
  expect_refused(q, a);
}

TEST_F(TimerQueue, AdvanceHandsValuesInOrderAndTheIdIsAlreadyStale) {
  up_queue q;
  std::map<int, up_id> ids;
  const std::uint64_t deadlines[] = {40, 10, 30, 10, 20, 1000};
  for (int i = 0; i < 6; ++i) {
    ids[i] = q.schedule(deadlines[i], std::make_unique<int>(i));
  }
  std::vector<std::pair<int, std::uint64_t>> fired;
  std::vector<std::unique_ptr<int>> kept;
  const auto n = q.advance(40, [&](up_id id, std::unique_ptr<int>&& v) {
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(id, ids[*v]);
    // Inside the callback the id is already stale.
    EXPECT_FALSE(q.pending(id));
    EXPECT_EQ(q.get(id), nullptr);
    EXPECT_EQ(q.deadline(id), std::nullopt);
    EXPECT_FALSE(q.cancel(id));
    EXPECT_FALSE(q.reschedule(id, 1000));
    fired.emplace_back(*v, q.now());
    kept.push_back(std::move(v));  // the value can be moved out
    q.check_invariants();
  });
  EXPECT_EQ(n, 5U);
  EXPECT_EQ(fired, (std::vector<std::pair<int, std::uint64_t>>{
                       {1, 10}, {3, 10}, {4, 20}, {2, 30}, {0, 40}}));
  EXPECT_EQ(kept.size(), 5U);
  EXPECT_EQ(q.size(), 1U);
  EXPECT_EQ(q.now(), 40U);
  for (int i = 0; i < 5; ++i) expect_refused(q, ids[i]);
  EXPECT_TRUE(q.pending(ids[5]));
  EXPECT_EQ(**q.get(ids[5]), 5);
}

TEST_F(TimerQueue, CallbacksMayScheduleCancelAndReschedule) {
  queue q;
  const auto a = q.schedule(5, tracked(1));
  const auto b = q.schedule(8, tracked(2));
  const auto c = q.schedule(9, tracked(3));
  const auto d = q.schedule(50, tracked(4));
  id_type fresh{};
  std::vector<std::pair<int, std::uint64_t>> fired;
  const auto n = q.advance(10, [&](id_type id, tracked&& v) {
    fired.emplace_back(v.value, q.now());
    if (v.value == 1) {
      EXPECT_TRUE(q.cancel(b));
      EXPECT_TRUE(q.reschedule(d, 6));  // pulled into this advance
      fresh = q.schedule(7, tracked(5));
      EXPECT_FALSE(fresh == id) << "a reused slot gives a new id";
      expect_refused(q, id);
    }
  });
  EXPECT_EQ(n, 4U);
  EXPECT_EQ(fired, (std::vector<std::pair<int, std::uint64_t>>{{1, 5}, {4, 6}, {5, 7}, {3, 9}}));
  for (const auto& id : {a, b, c, d, fresh}) expect_refused(q, id);
  EXPECT_TRUE(q.empty());
  q.check_invariants();
}

TEST_F(TimerQueue, StaleIdsAfterSlotReuseAreRefusedWithoutTouchingOthers) {
  queue q;
  std::vector<id_type> old_ids;
  for (int i = 0; i < 16; ++i)
    old_ids.push_back(q.schedule(static_cast<std::uint64_t>(100 + i), tracked(i)));
  for (auto& id : old_ids) EXPECT_TRUE(q.cancel(id));
  EXPECT_EQ(tracked::live, 0);
  // The freed slots are reused by new timers.
  std::vector<id_type> new_ids;
  for (int i = 0; i < 16; ++i)
    new_ids.push_back(q.schedule(static_cast<std::uint64_t>(200 + i), tracked(100 + i)));
  for (const auto& old_id : old_ids) {
    for (const auto& new_id : new_ids) EXPECT_FALSE(old_id == new_id);
    expect_refused(q, old_id);
  }
  // The new timers are untouched by all of that.
  for (int i = 0; i < 16; ++i) {
    const auto& id = new_ids[static_cast<std::size_t>(i)];
    EXPECT_TRUE(q.pending(id));
    EXPECT_EQ(q.deadline(id), std::optional<std::uint64_t>(200 + i));
    EXPECT_EQ(q.get(id)->value, 100 + i);
  }
  EXPECT_EQ(q.size(), 16U);
  q.check_invariants();

  // Ids of fired timers are stale too, also after their slots are reused.
  std::vector<id_type> fired;
  q.advance(207, [&](id_type id, tracked&&) { fired.push_back(id); });
  EXPECT_EQ(fired.size(), 8U);
  std::vector<id_type> newer;
  for (int i = 0; i < 8; ++i) newer.push_back(q.schedule(300, tracked(i)));
  for (const auto& id : fired) expect_refused(q, id);
  for (const auto& id : newer) EXPECT_TRUE(q.pending(id));
  EXPECT_EQ(q.size(), 16U);
  q.clear();
}

TEST_F(TimerQueue, PoolGrowsBeyondItsInitialCapacity) {
  queue q;
  const auto initial = q.capacity();
  const std::size_t n = std::max<std::size_t>(initial * 8, 20000);
  std::vector<id_type> ids;
  std::set<std::size_t> capacities{initial};
  timerwheel_test::rng g(5);
  std::vector<std::uint64_t> deadlines;
  for (std::size_t i = 0; i < n; ++i) {
    deadlines.push_back(g.below(1'000'000));
    ids.push_back(q.schedule(deadlines.back(), tracked(static_cast<int>(i))));
    EXPECT_GE(q.capacity(), q.size());
    capacities.insert(q.capacity());
  }
  EXPECT_GT(q.capacity(), initial);
  // Geometric growth: only a logarithmic number of distinct capacities.
  EXPECT_LE(capacities.size(), 40U);
  q.check_invariants();
  // Every value and deadline survived the growth.
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_NE(q.get(ids[i]), nullptr);
    ASSERT_EQ(q.get(ids[i])->value, static_cast<int>(i));
    ASSERT_EQ(q.deadline(ids[i]), std::optional<std::uint64_t>(deadlines[i]));
  }
  std::uint64_t last = 0;
  std::size_t count = 0;
  q.advance(1'000'000, [&](id_type, tracked&& v) {
    EXPECT_GE(q.now(), last);
    EXPECT_EQ(q.now(), deadlines[static_cast<std::size_t>(v.value)]);
    last = q.now();
    ++count;
  });
  EXPECT_EQ(count, n);
}

TEST_F(TimerQueue, ReserveSetsCapacity) {
  queue q;
  q.reserve(1000);
  EXPECT_GE(q.capacity(), 1000U);
  const auto cap = q.capacity();
  for (int i = 0; i < 1000; ++i) (void)q.schedule(static_cast<std::uint64_t>(i), tracked(i));
  EXPECT_EQ(q.capacity(), cap);
  q.reserve(10);  // never shrinks
  EXPECT_EQ(q.capacity(), cap);
  q.check_invariants();
}

TEST_F(TimerQueue, PullForm) {
  queue q;
  const auto a = q.schedule(3, tracked(1));
  const auto b = q.schedule(1, tracked(2));
  const auto c = q.schedule(2, tracked(3));
  const auto d = q.schedule(2, tracked(4));
  const auto e = q.schedule(9, tracked(5));
  EXPECT_EQ(q.advance(5), 4U);
  EXPECT_EQ(q.now(), 5U);
  EXPECT_EQ(q.size(), 5U);
  EXPECT_TRUE(q.pending(a)) << "queued timers are pending";
  EXPECT_EQ(q.next_deadline(), std::optional<std::uint64_t>(1));
  EXPECT_EQ(q.time_until_next(), 0U);
  q.check_invariants();

  auto first = q.take_expired();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->first, b);
  EXPECT_EQ(first->second.value, 2);
  expect_refused(q, b);

  EXPECT_TRUE(q.cancel(d)) << "cancel takes a queued timer out";
  EXPECT_EQ(tracked::live, 4);  // a, c, e and the one taken
  EXPECT_TRUE(q.reschedule(a, 7)) << "reschedule moves a queued timer back";
  EXPECT_EQ(q.deadline(a), std::optional<std::uint64_t>(7));
  q.check_invariants();

  auto second = q.take_expired();
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->first, c);
  EXPECT_EQ(second->second.value, 3);
  EXPECT_FALSE(q.take_expired().has_value());
  EXPECT_EQ(q.size(), 2U);
  EXPECT_EQ(q.next_deadline(), std::optional<std::uint64_t>(7));
  EXPECT_TRUE(q.pending(e));
  q.clear();
}

TEST_F(TimerQueue, PullThenCallbackAdvanceHandsQueuedFirst) {
  up_queue q;
  (void)q.schedule(1, std::make_unique<int>(1));
  (void)q.schedule(2, std::make_unique<int>(2));
  (void)q.schedule(4, std::make_unique<int>(4));
  EXPECT_EQ(q.advance(3), 2U);
  (void)q.schedule(0, std::make_unique<int>(3));  // due at 3, behind the queued ones
  std::vector<std::pair<int, std::uint64_t>> fired;
  EXPECT_EQ(q.advance(5, [&](up_id, std::unique_ptr<int>&& v) { fired.emplace_back(*v, q.now()); }),
            4U);
  EXPECT_EQ(fired, (std::vector<std::pair<int, std::uint64_t>>{{1, 3}, {2, 3}, {3, 3}, {4, 4}}));
}

TEST_F(TimerQueue, ExpireAllFiresEverythingAndLeavesNow) {
  queue q(100);
  (void)q.schedule(kMax, tracked(3));
  (void)q.schedule(150, tracked(2));
  (void)q.schedule(120, tracked(1));
  std::vector<int> fired;
  EXPECT_EQ(q.expire_all([&](id_type, tracked&& v) {
    fired.push_back(v.value);
    EXPECT_EQ(q.now(), 100U);
  }),
            3U);
  EXPECT_EQ(fired, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(q.now(), 100U);
  EXPECT_TRUE(q.empty());
}

TEST_F(TimerQueue, ClearDestroysValuesAndStalesIds) {
  queue q;
  std::vector<id_type> ids;
  for (int i = 0; i < 20; ++i) ids.push_back(q.schedule(static_cast<std::uint64_t>(i), tracked(i)));
  q.advance(5);  // some queued
  q.clear();
  EXPECT_EQ(tracked::live, 0);
  EXPECT_TRUE(q.empty());
  EXPECT_FALSE(q.take_expired().has_value());
  for (const auto& id : ids) expect_refused(q, id);
  q.check_invariants();
  const auto again = q.schedule(7, tracked(7));
  EXPECT_TRUE(q.pending(again));
  q.clear();
}

TEST_F(TimerQueue, ForEachPendingVisitsIdsAndValues) {
  queue q;
  std::map<int, id_type> ids;
  for (int i = 0; i < 30; ++i)
    ids[i] = q.schedule(static_cast<std::uint64_t>(i * 1000), tracked(i));
  q.cancel(ids[7]);
  q.advance(2000);  // three queued
  std::map<int, id_type> seen;
  q.for_each_pending([&](id_type id, const tracked& v) {
    EXPECT_TRUE(seen.emplace(v.value, id).second) << "visited twice";
    EXPECT_EQ(q.get(id), &v);
  });
  ids.erase(7);
  EXPECT_EQ(seen, ids);
  q.clear();
}

TEST_F(TimerQueue, DestructorDestroysPendingAndQueuedValues) {
  {
    queue q;
    for (int i = 0; i < 50; ++i) (void)q.schedule(static_cast<std::uint64_t>(i), tracked(i));
    q.advance(10);
    EXPECT_EQ(tracked::live, 50);
  }
  EXPECT_EQ(tracked::live, 0);
}

TEST_F(TimerQueue, AdvanceBehindNowThrowsAndChangesNothing) {
  queue q(10);
  const auto a = q.schedule(10, tracked(1));
  EXPECT_THROW(q.advance(9, [](id_type, tracked&&) {}), std::invalid_argument);
  EXPECT_THROW(q.advance(9), std::invalid_argument);
  EXPECT_EQ(q.now(), 10U);
  EXPECT_TRUE(q.pending(a));
  q.check_invariants();
  q.clear();
}

TEST_F(TimerQueue, ExceptionFromACallbackKeepsTheRest) {
  queue q;
  for (int i = 1; i <= 6; ++i) (void)q.schedule(static_cast<std::uint64_t>(i), tracked(i));
  std::vector<int> fired;
  EXPECT_THROW(q.advance(6,
                         [&](id_type, tracked&& v) {
                           fired.push_back(v.value);
                           if (v.value == 3) throw std::runtime_error("boom");
                         }),
               std::runtime_error);
  q.check_invariants();
  EXPECT_EQ(q.size(), 3U);
  EXPECT_EQ(tracked::live, 3);
  q.advance(6, [&](id_type, tracked&& v) { fired.push_back(v.value); });
  EXPECT_EQ(fired, (std::vector<int>{1, 2, 3, 4, 5, 6}));
}

TEST_F(TimerQueue, RandomChurnNeitherLeaksNorDestroysTwice) {
  timerwheel_test::rng g(99);
  queue q;
  std::vector<id_type> ids;
  for (int step = 0; step < 20000; ++step) {
    const auto op = g.below(10);
    if (op < 5 || ids.empty()) {
      ids.push_back(q.schedule(q.now() + g.below(5000), tracked(step)));
    } else if (op < 7) {
      q.cancel(ids[g.below(ids.size())]);
    } else if (op < 8) {
      q.reschedule(ids[g.below(ids.size())], q.now() + g.below(5000));
    } else if (op < 9) {
      q.advance(q.now() + g.below(300), [&](id_type, tracked&& v) {
        tracked::check(v);
        if (g.percent(30)) ids.push_back(q.schedule(q.now() + g.below(100), std::move(v)));
      });
    } else {
      q.advance(q.now() + g.below(300));
      for (auto n = g.below(4); n > 0; --n) (void)q.take_expired();
    }
    if (step % 1000 == 0) q.check_invariants();
  }
  EXPECT_EQ(static_cast<std::size_t>(tracked::live), q.size());
}

// --- exception guarantees ---------------------------------------------------
//
// `thrower` is a value whose moves throw on command: arm(k) makes the k-th
// move from then on (0: the next) throw. It counts the live instances and
// marks the dead ones, so that a leak, a double destruction or a use after
// destruction shows. Its move assignment is deleted: the queue never assigns
// a value, it only constructs and destroys them.
struct move_error : std::exception {};

struct thrower {
  static constexpr std::uint64_t kAlive = 0x7A11FEA11FEULL;
  static constexpr std::uint64_t kDead = 0xDEADDEADULL;
  static inline long live = 0;
  static inline long errors = 0;
  static inline long moves = 0;
  static inline long countdown = -1;  // moves left before the one that throws; -1: none

  // First, so that it shares its bytes with whatever the storage held
  // before: a constructor that throws has written it already.
  int value = 0;
  std::uint64_t magic = kAlive;

  explicit thrower(int v) : value(v) { ++live; }
  thrower(thrower&& o) : value(o.value) {
    check(o);
    ++moves;
    if (countdown >= 0 && countdown-- == 0) throw move_error();
    ++live;
  }
  thrower(const thrower&) = delete;
  thrower& operator=(thrower&&) = delete;
  thrower& operator=(const thrower&) = delete;
  ~thrower() {
    check(*this);
    magic = kDead;
    --live;
  }
  static void check(const thrower& t) {
    if (t.magic != kAlive) ++errors;
  }
  static void arm(long k) { countdown = k; }
};

using tqueue = tw::timer_queue<thrower>;
using tid = id_of<tqueue>;

// The pool's growth fails on command: fail_allocation(k) makes the k-th
// allocation from then on (0: the next) throw std::bad_alloc. This binary
// replaces the global operator new for that (below, outside this namespace).
long allocation_countdown = -1;
void fail_allocation(long k) { allocation_countdown = k; }

// Checks what every throw must leave: the invariants, a size that counts
// the live values, and every id of `pending` (tag -> id) still naming its
// timer and value.
void expect_intact(const tqueue& q, const std::map<int, tid>& pending) {
  EXPECT_NO_THROW(q.check_invariants());
  EXPECT_EQ(q.size(), pending.size());
  EXPECT_EQ(static_cast<std::size_t>(thrower::live), pending.size());
  for (const auto& [tag, id] : pending) {
    EXPECT_TRUE(q.pending(id)) << "timer " << tag;
    const thrower* v = q.get(id);
    ASSERT_NE(v, nullptr) << "timer " << tag;
    EXPECT_EQ(v->value, tag);
  }
}

// Drives the queue to its end and expects each timer of `pending` to fire
// exactly once, with its own id, and nothing else.
void expect_each_fires_once(tqueue& q, const std::map<int, tid>& pending) {
  thrower::arm(-1);
  std::map<int, int> fired;
  q.advance(kMax, [&](tid id, thrower&& v) {
    ++fired[v.value];
    const auto it = pending.find(v.value);
    ASSERT_NE(it, pending.end()) << "timer " << v.value << " was not pending";
    EXPECT_EQ(id, it->second);
  });
  while (auto taken = q.take_expired()) ++fired[taken->second.value];
  for (const auto& [tag, id] : pending) EXPECT_EQ(fired[tag], 1) << "timer " << tag;
  EXPECT_EQ(fired.size(), pending.size());
  EXPECT_TRUE(q.empty());
  q.check_invariants();
}

class ThrowingMoves : public ::testing::Test {
 protected:
  void SetUp() override {
    thrower::live = 0;
    thrower::errors = 0;
    thrower::moves = 0;
    thrower::arm(-1);
    fail_allocation(-1);
  }
  void TearDown() override {
    thrower::arm(-1);
    fail_allocation(-1);
    EXPECT_EQ(thrower::live, 0) << "values leaked or destroyed twice";
    EXPECT_EQ(thrower::errors, 0) << "a value was used or destroyed after its destruction";
  }
};

TEST_F(ThrowingMoves, ScheduleLeavesTheQueueAsItWas) {
  tqueue q;
  std::map<int, tid> pending;
  for (int i = 0; i < 3; ++i)
    pending[i] = q.schedule(10 + static_cast<std::uint64_t>(i), thrower(i));
  const auto capacity = q.capacity();
  thrower::arm(0);
  // The argument is constructed in place; the move into the node throws.
  // Its tag is that of a live node, so that the bytes its constructor wrote
  // over the idle node's link would point the idle list at a live node.
  EXPECT_THROW((void)q.schedule(5, thrower(1)), move_error);
  EXPECT_EQ(q.capacity(), capacity);
  expect_intact(q, pending);
  EXPECT_EQ(q.next_deadline(), std::optional<std::uint64_t>(10));
  // The node the throw went through is handed out again, sound: fill the pool.
  for (int i = 3; i < static_cast<int>(capacity); ++i)
    pending[i] = q.schedule(100 + static_cast<std::uint64_t>(i), thrower(i));
  EXPECT_EQ(q.capacity(), capacity);
  expect_intact(q, pending);
  expect_each_fires_once(q, pending);
}

TEST_F(ThrowingMoves, ScheduleInRangeLeavesTheQueueAsItWas) {
  tqueue q;
  std::map<int, tid> pending;
  for (int i = 0; i < 3; ++i) pending[i] = q.schedule_in_range(10, 20, thrower(i));
  thrower::arm(0);
  EXPECT_THROW((void)q.schedule_in_range(30, 40, thrower(1)), move_error);
  expect_intact(q, pending);
  for (int i = 3; i < 10; ++i) pending[i] = q.schedule_in_range(30, 40, thrower(i));
  expect_intact(q, pending);
  EXPECT_EQ(q.deadline(pending[9]), std::optional<std::uint64_t>(32));
  expect_each_fires_once(q, pending);
}

TEST_F(ThrowingMoves, GrowingThePoolMovesNoValue) {
  tqueue q;
  std::map<int, tid> pending;
  int tag = 0;
  while (q.size() < q.capacity() || q.capacity() == 0) {
    pending[tag] = q.schedule(static_cast<std::uint64_t>(tag), thrower(tag));
    ++tag;
  }
  const auto capacity = q.capacity();
  // The next schedule grows the pool; the values in place stay where they are.
  thrower::moves = 0;
  pending[tag] = q.schedule(5, thrower(tag));
  ++tag;
  EXPECT_GT(q.capacity(), capacity);
  EXPECT_EQ(thrower::moves, 1) << "only the new value moves, into its node";
  expect_intact(q, pending);
  expect_each_fires_once(q, pending);
}

TEST_F(ThrowingMoves, ScheduleThatGrowsThePoolThenThrowsKeepsEveryTimer) {
  tqueue q;
  std::map<int, tid> pending;
  int tag = 0;
  while (q.size() < q.capacity() || q.capacity() == 0) {
    pending[tag] = q.schedule(static_cast<std::uint64_t>(tag % 7), thrower(tag));
    ++tag;
  }
  const auto capacity = q.capacity();
  thrower::arm(0);
  EXPECT_THROW((void)q.schedule(3, thrower(0)), move_error);
  EXPECT_GT(q.capacity(), capacity) << "the pool grew before the move threw; documented";
  expect_intact(q, pending);
  for (int i = 0; i < 100; ++i, ++tag) pending[tag] = q.schedule(3, thrower(tag));
  expect_intact(q, pending);
  expect_each_fires_once(q, pending);
}

TEST_F(ThrowingMoves, FailedGrowthChangesNothing) {
  tqueue q;
  std::map<int, tid> pending;
  for (int i = 0; i < 10; ++i) pending[i] = q.schedule(static_cast<std::uint64_t>(i), thrower(i));
  const auto capacity = q.capacity();
  // reserve grows chunk after chunk; each chunk takes two allocations. Fail
  // each allocation in turn until reserve gets through.
  for (long k = 0;; ++k) {
    fail_allocation(k);
    try {
      q.reserve(capacity * 20);
      fail_allocation(-1);
      break;
    } catch (const std::bad_alloc&) {
      fail_allocation(-1);
      EXPECT_EQ(q.capacity(), capacity) << "allocation " << k;
      expect_intact(q, pending);
    }
    ASSERT_LT(k, 100);
  }
  EXPECT_GE(q.capacity(), capacity * 20);
  expect_intact(q, pending);
  EXPECT_THROW(q.reserve(std::size_t{1} << 33), std::length_error);
  EXPECT_GE(q.capacity(), capacity * 20);
  expect_intact(q, pending);

  // A schedule whose growth fails changes nothing either.
  for (int tag = 10; q.size() < q.capacity(); ++tag)
    pending[tag] = q.schedule(static_cast<std::uint64_t>(tag), thrower(tag));
  const auto full = q.capacity();
  fail_allocation(0);
  EXPECT_THROW((void)q.schedule(1, thrower(-1)), std::bad_alloc);
  fail_allocation(-1);
  EXPECT_EQ(q.capacity(), full);
  expect_intact(q, pending);
  expect_each_fires_once(q, pending);
}

// A callback that moves the value out (the usual thing to do with a T&&),
// with the move armed to throw at the `throw_at`-th timer handed: checks
// what the throw leaves, then that each timer fires once in all.
void callback_move_throws(bool expire_all) {
  tqueue q(100);
  std::map<int, tid> pending;
  for (int i = 0; i < 10; ++i)
    pending[i] = q.schedule(100 + static_cast<std::uint64_t>(i / 2), thrower(i));
  std::vector<int> handed;
  std::vector<int> kept;
  const auto take = [&](tid id, thrower&& v) {
    EXPECT_EQ(id, pending.at(v.value));
    EXPECT_FALSE(q.pending(id)) << "the id is stale inside the callback";
    EXPECT_NO_THROW(q.check_invariants());
    handed.push_back(v.value);
    const thrower mine(std::move(v));
    kept.push_back(mine.value);
  };
  thrower::arm(3);
  if (expire_all) {
    EXPECT_THROW(q.expire_all(take), move_error);
    EXPECT_EQ(q.now(), 100U);
  } else {
    EXPECT_THROW(q.advance(200, take), move_error);
    EXPECT_EQ(q.now(), 101U) << "the deadline of the last timer handed";
  }
  // Four timers were handed to the callback: they have fired, the fourth
  // with the throw of its callback. Their ids are stale.
  EXPECT_EQ(handed, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(kept, (std::vector<int>{0, 1, 2}));
  for (int tag : handed) {
    EXPECT_FALSE(q.pending(pending[tag]));
    EXPECT_EQ(q.get(pending[tag]), nullptr);
    pending.erase(tag);
  }
  expect_intact(q, pending);
  expect_each_fires_once(q, pending);
}

TEST_F(ThrowingMoves, AdvanceCallbackWhoseMoveThrows) { callback_move_throws(false); }
TEST_F(ThrowingMoves, ExpireAllCallbackWhoseMoveThrows) { callback_move_throws(true); }

TEST_F(ThrowingMoves, CallbackTakingTheValueByValue) {
  // The move into the callback's parameter is the first move of a firing:
  // when it throws, the callback never runs and the timer counts as fired,
  // as if the callback had thrown (documented).
  tqueue q;
  std::map<int, tid> pending;
  for (int i = 0; i < 6; ++i) pending[i] = q.schedule(static_cast<std::uint64_t>(i), thrower(i));
  std::vector<int> seen;
  thrower::arm(2);
  EXPECT_THROW(q.advance(10, [&](tid, thrower v) { seen.push_back(v.value); }), move_error);
  EXPECT_EQ(seen, (std::vector<int>{0, 1}));
  for (int tag : {0, 1, 2}) {
    EXPECT_FALSE(q.pending(pending[tag]));
    pending.erase(tag);
  }
  expect_intact(q, pending);
  expect_each_fires_once(q, pending);
}

TEST_F(ThrowingMoves, TakeExpiredKeepsTheTimer) {
  tqueue q;
  std::map<int, tid> pending;
  for (int i = 0; i < 5; ++i) pending[i] = q.schedule(static_cast<std::uint64_t>(i), thrower(i));
  pending[9] = q.schedule(50, thrower(9));
  EXPECT_EQ(q.advance(10), 5U);
  auto first = q.take_expired();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->second.value, 0);
  pending.erase(0);
  first.reset();

  thrower::arm(0);
  EXPECT_THROW((void)q.take_expired(), move_error);
  // The timer stays pending, with its id and value, due at now.
  expect_intact(q, pending);
  EXPECT_EQ(q.deadline(pending[1]), std::optional<std::uint64_t>(10));
  // It comes back after the timers queued before the throw.
  std::vector<int> taken;
  while (auto t = q.take_expired()) taken.push_back(t->second.value);
  EXPECT_EQ(taken, (std::vector<int>{2, 3, 4}));
  for (int tag : taken) pending.erase(tag);
  expect_intact(q, pending);
  EXPECT_EQ(q.next_deadline(), std::optional<std::uint64_t>(10));
  EXPECT_EQ(q.advance(10), 1U);
  auto again = q.take_expired();
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->first, pending[1]);
  EXPECT_EQ(again->second.value, 1);
  pending.erase(1);
  again.reset();
  expect_intact(q, pending);
  expect_each_fires_once(q, pending);
}

// Random operations with moves that throw at random: after every throw the
// queue is intact, and in the end every timer still pending fires once.
TEST_F(ThrowingMoves, RandomThrowsLoseNoTimer) {
  timerwheel_test::rng g(2024);
  tqueue q;
  std::map<int, tid> pending;
  int next_tag = 0;
  long throws = 0;
  for (int step = 0; step < 4000; ++step) {
    thrower::arm(g.percent(20) ? static_cast<long>(g.below(3)) : -1);
    const auto op = g.below(10);
    try {
      if (op < 4 || pending.empty()) {
        const int tag = next_tag++;
        const tid id = g.percent(50)
                           ? q.schedule(q.now() + g.below(2000), thrower(tag))
                           : q.schedule_in_range(q.now() + g.below(1000),
                                                 q.now() + 1000 + g.below(1000), thrower(tag));
        pending[tag] = id;
      } else if (op < 6) {
        auto it = pending.begin();
        std::advance(it, static_cast<long>(g.below(pending.size())));
        EXPECT_TRUE(q.cancel(it->second));
        pending.erase(it);
      } else if (op < 8) {
        q.advance(q.now() + g.below(200), [&](tid id, thrower&& v) {
          EXPECT_EQ(pending.at(v.value), id);
          pending.erase(v.value);  // handed: fired, whatever happens next
          const thrower mine(std::move(v));
        });
      } else {
        q.advance(q.now() + g.below(200));
        for (auto n = g.below(4); n > 0; --n) {
          auto t = q.take_expired();
          if (!t) break;
          EXPECT_EQ(pending.at(t->second.value), t->first);
          pending.erase(t->second.value);
        }
      }
    } catch (const move_error&) {
      ++throws;
      thrower::arm(-1);
      expect_intact(q, pending);
      if (::testing::Test::HasFailure()) break;
    }
  }
  EXPECT_GT(throws, 100);
  thrower::arm(-1);
  expect_intact(q, pending);
  expect_each_fires_once(q, pending);
}

}  // namespace

// The replaceable global allocation functions, with a failure on command
// (fail_allocation above). The array and sized forms call these.
void* operator new(std::size_t size) {
  if (allocation_countdown >= 0 && allocation_countdown-- == 0) throw std::bad_alloc();
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
