// The lanes of timer_service's messages (detail/service_lanes.hpp): every
// node pushed is taken once, each thread's in the order it pushed them; a
// long lane does not hold back another; a closed lane gives nothing more to
// pop, and the rest comes out after.
//
// Real threads. No tolerances on time: the checks count and order nodes.
#include <timerwheel/detail/service_lanes.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace {

namespace d = timerwheel::detail;

struct message : d::mpsc_node {
  std::uint32_t producer = 0;
  std::uint32_t seq = 0;
};

TEST(ServiceLanes, EveryNodeOnceInEachThreadsOrder) {
  constexpr std::uint32_t producers = 12;  // more than lanes: some share one
  constexpr std::uint32_t per_producer = 20'000;
  std::vector<std::unique_ptr<message[]>> nodes;
  for (std::uint32_t p = 0; p < producers; ++p) {
    nodes.emplace_back(new message[per_producer]);
    for (std::uint32_t i = 0; i < per_producer; ++i) {
      nodes[p][i].producer = p;
      nodes[p][i].seq = i;
    }
  }
  d::service_lanes lanes;
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (std::uint32_t p = 0; p < producers; ++p)
    threads.emplace_back([&, p] {
      while (!go.load()) std::this_thread::yield();
      for (std::uint32_t i = 0; i < per_producer; ++i) lanes.push(nodes[p][i]);
    });
  go = true;
  std::vector<std::uint32_t> next(producers, 0);
  std::size_t taken = 0;
  while (taken < std::size_t{producers} * per_producer) {
    d::mpsc_node* node = nullptr;
    unsigned lane = 0;
    const d::pop_status s = lanes.pop(node, lane);
    if (s != d::pop_status::item) {
      std::this_thread::yield();
      continue;
    }
    const auto& m = static_cast<const message&>(*node);
    ASSERT_LT(lane, d::service_lanes::count);
    ASSERT_EQ(m.seq, next[m.producer]) << "producer " << m.producer << " out of order";
    ++next[m.producer];
    ++taken;
  }
  for (auto& t : threads) t.join();
  d::mpsc_node* node = nullptr;
  unsigned lane = 0;
  EXPECT_EQ(lanes.pop(node, lane), d::pop_status::empty);
  EXPECT_TRUE(lanes.empty());
}

TEST(ServiceLanes, ALongLaneDoesNotHoldBackAnother) {
  d::service_lanes lanes;
  std::vector<message> backlog(1'000);
  message other;
  for (auto& m : backlog) lanes.push_to(0, m);
  lanes.push_to(1, other);
  d::mpsc_node* node = nullptr;
  unsigned lane = 0;
  std::size_t position = 0;
  for (;; ++position) {
    ASSERT_EQ(lanes.pop(node, lane), d::pop_status::item);
    if (node == &other) break;
  }
  EXPECT_EQ(lane, 1u);
  EXPECT_LE(position, std::size_t{d::service_lanes::burst});
}

TEST(ServiceLanes, AClosedLaneGivesNothingMoreUntilTheRest) {
  d::service_lanes lanes;
  message before, stop, after, elsewhere;
  lanes.push_to(2, before);
  lanes.push_to(2, stop);
  lanes.push_to(2, after);
  d::mpsc_node* node = nullptr;
  unsigned lane = 0;
  ASSERT_EQ(lanes.pop(node, lane), d::pop_status::item);
  EXPECT_EQ(node, &before);
  ASSERT_EQ(lanes.pop(node, lane), d::pop_status::item);
  EXPECT_EQ(node, &stop);
  EXPECT_FALSE(lanes.close(lane)) << "one lane closed of several";
  EXPECT_EQ(lanes.pop(node, lane), d::pop_status::empty) << "`after` is behind the stop node";
  EXPECT_TRUE(lanes.empty());
  lanes.push_to(5, elsewhere);
  EXPECT_FALSE(lanes.empty());
  ASSERT_EQ(lanes.pop(node, lane), d::pop_status::item);
  EXPECT_EQ(node, &elsewhere);
  bool all = false;
  for (unsigned i = 0; i < d::service_lanes::count; ++i)
    if (i != 2) all = lanes.close(i);
  EXPECT_TRUE(all);
  std::vector<d::mpsc_node*> rest;
  lanes.take_rest([&](d::mpsc_node& n) { rest.push_back(&n); });
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0], &after);
}

}  // namespace
