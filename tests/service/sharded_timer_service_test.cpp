// sharded_timer_service: timers go to the calling thread's shard or a key's,
// cancels from any thread reach the owning shard, foreign ids are refused,
// and shutdown stops every shard. Real threads, steady_clock; waits give up
// after 10 s, deadlines are at most 55 ms (50 ms out, so that all are in
// the future when the worker takes them: one already due fires at once, in
// the order taken).
#include <timerwheel/timer_service.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace {

namespace tw = timerwheel;
using namespace std::chrono_literals;
using clk = std::chrono::steady_clock;

template <class F>
bool eventually(F done) {
  const auto until = clk::now() + 10s;
  while (!done()) {
    if (clk::now() > until) return false;
    std::this_thread::sleep_for(200us);
  }
  return true;
}

TEST(ShardedTimerService, CancelsFromOtherThreadsReachTheOwningShard) {
  tw::sharded_timer_service s(4);
  constexpr int threads = 4;
  constexpr int per_thread = 2000;
  std::vector<tw::service_timer_id> ids(threads * per_thread);
  std::vector<std::atomic<int>> runs(threads * per_thread);
  std::vector<std::thread> makers;
  for (int t = 0; t < threads; ++t) {
    makers.emplace_back([&, t] {
      for (int i = 0; i < per_thread; ++i) {
        const int k = t * per_thread + i;
        ids[k] = s.after(i % 2 == 0 ? 1h : 1ms, [&runs, k] { runs[k].fetch_add(1); });
      }
    });
  }
  for (auto& m : makers) m.join();
  std::set<std::uint64_t> services;
  for (const auto& id : ids) services.insert(id.service);
  EXPECT_GE(services.size(), 2u) << "four threads all landed on one shard";

  // Each thread cancels the even timers of the next thread's range.
  std::atomic<int> wrong{0};
  std::vector<std::thread> cancellers;
  for (int t = 0; t < threads; ++t) {
    cancellers.emplace_back([&, t] {
      const int other = (t + 1) % threads;
      for (int i = 0; i < per_thread; i += 2)
        if (!s.cancel(ids[other * per_thread + i])) wrong.fetch_add(1);
    });
  }
  for (auto& c : cancellers) c.join();
  EXPECT_EQ(wrong.load(), 0);
  ASSERT_TRUE(eventually([&] {
    for (int k = 1; k < threads * per_thread; k += 2)
      if (runs[k].load() == 0) return false;
    return true;
  }));
  for (int k = 0; k < threads * per_thread; ++k) EXPECT_EQ(runs[k].load(), k % 2) << k;
}

TEST(ShardedTimerService, AKeyKeepsItsTimersOnOneWorkerInOrder) {
  tw::sharded_timer_service s(3);
  std::mutex m;
  std::vector<int> order;
  std::set<std::thread::id> workers;
  const auto start = clk::now();
  for (int i = 0; i < 20; ++i) {
    s.for_key(7).at(start + 50ms + (i % 5) * 1ms, [&, i] {
      const std::lock_guard lock(m);
      order.push_back(i);
      workers.insert(std::this_thread::get_id());
    });
  }
  ASSERT_TRUE(eventually([&] {
    const std::lock_guard lock(m);
    return order.size() == 20;
  }));
  const std::lock_guard lock(m);
  EXPECT_EQ(workers.size(), 1u);
  // Deadline order, FIFO among equal deadlines.
  std::vector<int> expected;
  for (int d = 0; d < 5; ++d)
    for (int i = d; i < 20; i += 5) expected.push_back(i);
  EXPECT_EQ(order, expected);
}

TEST(ShardedTimerService, RefusesIdsOfNoShardAndShutsEveryShardDown) {
  tw::sharded_timer_service a(2);
  tw::sharded_timer_service b(2);
  tw::timer_service lone;
  const auto id = a.after(1h, [] {});
  EXPECT_FALSE(b.cancel(id));
  EXPECT_FALSE(lone.cancel(id));
  EXPECT_FALSE(a.cancel(tw::service_timer_id{}));
  EXPECT_FALSE(a.cancel(lone.after(1h, [] {})));
  EXPECT_THROW(tw::sharded_timer_service(0), std::invalid_argument);

  std::atomic<int> ran{0};
  for (int k = 0; k < 8; ++k) a.for_key(k).after(1h, [&] { ran.fetch_add(1); });
  a.shutdown(tw::shutdown_policy::fire);
  EXPECT_EQ(ran.load(), 8);
  for (std::size_t i = 0; i < a.shards(); ++i)
    EXPECT_THROW(a.shard(i).after(1ms, [] {}), tw::timer_service_closed);
  EXPECT_FALSE(a.cancel(id)) << "dropped by shutdown: nothing to cancel";
}

}  // namespace
