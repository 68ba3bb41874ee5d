// detail::mpsc_queue, the queue that carries timer_service's submissions:
// FIFO order, nodes pushed again once popped, and many producers against one
// consumer on real threads (every node taken exactly once, each producer's
// nodes in the order it pushed them; the consumer meets producers half-way
// through their pushes, pop_status::busy, and tries again).
//
// Tolerances: none; every check is exact. The threaded test's size is
// TIMERWHEEL_MPSC_STRESS nodes per producer (default 20,000).
#include <timerwheel/detail/mpsc_queue.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace {

namespace td = timerwheel::detail;

struct item : td::mpsc_node {
  std::uint32_t producer = 0;
  std::uint32_t seq = 0;
};

// Pops one node, trying again while a producer is half-way through its
// push; null when empty. Counts those tries in `busy`.
item* pop_one(td::mpsc_queue& q, int& busy) {
  for (;;) {
    td::mpsc_node* n = nullptr;
    switch (q.pop(n)) {
      case td::pop_status::item:
        return static_cast<item*>(n);
      case td::pop_status::empty:
        return nullptr;
      case td::pop_status::busy:
        ++busy;
        EXPECT_FALSE(q.empty()) << "a push half done is not an empty queue";
        std::this_thread::yield();
        continue;
    }
  }
}

TEST(MpscQueue, EmptyQueuePopsNothing) {
  td::mpsc_queue q;
  EXPECT_TRUE(q.empty());
  int busy = 0;
  EXPECT_EQ(pop_one(q, busy), nullptr);
  EXPECT_EQ(busy, 0);
}

// ready() says what pop() would do, without doing it: a node to give,
// alone (pop pushes the stub behind it) or with others behind it.
TEST(MpscQueue, ReadyWhenPopWouldGiveANode) {
  td::mpsc_queue q;
  EXPECT_FALSE(q.ready());
  std::vector<item> items(3);
  q.push(items[0]);
  EXPECT_TRUE(q.ready());
  q.push(items[1]);
  EXPECT_TRUE(q.ready());
  td::mpsc_node* n = nullptr;
  for (int k = 0; k < 2; ++k) {
    ASSERT_EQ(q.pop(n), td::pop_status::item);
    EXPECT_EQ(q.ready(), k == 0) << "after pop " << k;
  }
  q.push(items[2]);
  EXPECT_TRUE(q.ready());
  ASSERT_EQ(q.pop(n), td::pop_status::item);
  EXPECT_FALSE(q.ready());
  EXPECT_EQ(q.pop(n), td::pop_status::empty);
}

TEST(MpscQueue, FifoAcrossBatches) {
  td::mpsc_queue q;
  std::vector<item> items(10);
  for (std::uint32_t i = 0; i < 5; ++i) {
    items[i].seq = i;
    q.push(items[i]);
  }
  int busy = 0;
  EXPECT_FALSE(q.empty());
  EXPECT_EQ(pop_one(q, busy)->seq, 0u);
  // Pushed while a batch is being handed out: after it.
  for (std::uint32_t i = 5; i < 10; ++i) {
    items[i].seq = i;
    q.push(items[i]);
  }
  for (std::uint32_t i = 1; i < 10; ++i) {
    item* got = pop_one(q, busy);
    ASSERT_NE(got, nullptr);
    EXPECT_EQ(got->seq, i);
  }
  EXPECT_EQ(pop_one(q, busy), nullptr);
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(busy, 0) << "no push was half done";
}

// A node popped may be pushed again at once (timer_service sends a cancel on
// the node its submission came on), behind the nodes still queued.
TEST(MpscQueue, NodePushedAgainOncePopped) {
  td::mpsc_queue q;
  std::vector<item> items(3);
  for (std::uint32_t i = 0; i < 3; ++i) {
    items[i].seq = i;
    q.push(items[i]);
  }
  int busy = 0;
  item* first = pop_one(q, busy);
  ASSERT_EQ(first, &items[0]);
  q.push(*first);
  EXPECT_EQ(pop_one(q, busy), &items[1]);
  EXPECT_EQ(pop_one(q, busy), &items[2]);
  EXPECT_EQ(pop_one(q, busy), &items[0]);
  EXPECT_EQ(pop_one(q, busy), nullptr);
}

std::size_t stress_size() {
  if (const char* v = std::getenv("TIMERWHEEL_MPSC_STRESS")) return std::strtoull(v, nullptr, 10);
  return 20'000;
}

TEST(MpscQueue, ManyProducersOneConsumer) {
  constexpr std::uint32_t producers = 8;
  const std::size_t per = stress_size();
  td::mpsc_queue q;
  std::vector<std::unique_ptr<item[]>> items;
  for (std::uint32_t p = 0; p < producers; ++p) {
    items.emplace_back(new item[per]);
    for (std::size_t i = 0; i < per; ++i) {
      items[p][i].producer = p;
      items[p][i].seq = static_cast<std::uint32_t>(i);
    }
  }
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (std::uint32_t p = 0; p < producers; ++p)
    threads.emplace_back([&, p] {
      while (!go.load()) std::this_thread::yield();
      for (std::size_t i = 0; i < per; ++i) q.push(items[p][i]);
    });
  go = true;
  std::vector<std::uint32_t> next(producers, 0);
  std::size_t taken = 0;
  int busy = 0;
  std::size_t out_of_order = 0;
  while (taken < producers * per) {
    item* got = pop_one(q, busy);
    if (got == nullptr) {
      std::this_thread::yield();
      continue;
    }
    if (got->seq != next[got->producer]) ++out_of_order;
    next[got->producer] = got->seq + 1;
    ++taken;
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(out_of_order, 0u);
  for (std::uint32_t p = 0; p < producers; ++p) EXPECT_EQ(next[p], per) << "producer " << p;
  EXPECT_EQ(pop_one(q, busy), nullptr) << "a node taken twice";
  EXPECT_TRUE(q.empty());
}

}  // namespace
