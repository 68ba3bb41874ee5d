// The benchmark's indexed heaps (bench/indexed_binary_heap.hpp), every ratio's baseline and its
// peers, in each layout: keyed, read through the node, and compact (16-byte entries, the
// sequence number in the node, the root offset so that an entry's children share a cache
// line). Each runs random schedules, moves, cancels and advances against a plain model
// of (deadline, scheduling order), with deadlines drawn from a narrow range so that ties,
// which the compact layout alone resolves through the nodes, are common: the same firings in
// the same order, the same answers, and the invariants after every operation.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "../../bench/indexed_binary_heap.hpp"
#include "support/rng.hpp"

namespace {

namespace tb = timerwheel_bench;
using u64 = std::uint64_t;

template <class Heap>
void run_against_model(u64 seed, std::size_t timers, u64 spread) {
  using node = typename Heap::node_type;
  timerwheel_test::rng rng(seed);
  Heap heap(0);
  std::vector<node> nodes(timers);
  // The model: (deadline, scheduling order) -> node, and each pending node's key.
  std::map<std::pair<u64, u64>, std::size_t> model;
  std::vector<std::optional<std::pair<u64, u64>>> key(timers);
  u64 order = 0;
  u64 now = 0;
  const std::uint64_t steps = timerwheel_test::steps_from_env(20'000);
  for (std::uint64_t step = 0; step < steps; ++step) {
    const std::size_t i = rng.below(timers);
    const unsigned what = static_cast<unsigned>(rng.below(10));
    if (what < 6) {  // schedule, or move a pending node
      const u64 deadline = now + rng.below(spread);
      if (key[i]) model.erase(*key[i]);
      key[i] = std::pair{deadline, order++};
      model.emplace(*key[i], i);
      heap.schedule(nodes[i], deadline);
    } else if (what < 8) {  // cancel
      const bool pending = key[i].has_value();
      if (pending) model.erase(*key[i]);
      key[i].reset();
      ASSERT_EQ(heap.cancel(nodes[i]), pending) << "seed " << seed << " step " << step;
    } else {  // advance
      const u64 to = now + rng.below(spread / 4 + 1);
      std::vector<std::size_t> fired;
      const std::size_t count = heap.advance(
          to, [&](node& n) { fired.push_back(static_cast<std::size_t>(&n - &nodes[0])); });
      ASSERT_EQ(count, fired.size());
      for (const std::size_t f : fired) {
        ASSERT_FALSE(model.empty()) << "seed " << seed << " step " << step;
        ASSERT_LE(model.begin()->first.first, to);
        ASSERT_EQ(f, model.begin()->second) << "seed " << seed << " step " << step;
        key[f].reset();
        model.erase(model.begin());
      }
      ASSERT_TRUE(model.empty() || model.begin()->first.first > to);
      now = to;
    }
    ASSERT_EQ(heap.size(), model.size());
    const std::optional<u64> next = heap.next_deadline();
    ASSERT_EQ(next.has_value(), !model.empty());
    if (next) {
      ASSERT_EQ(*next, model.begin()->first.first);
    }
    heap.check_invariants();
  }
  heap.clear();
  for (const node& n : nodes) ASSERT_FALSE(n.pending());
}

template <class Heap>
void run_seeds() {
  for (const u64 seed : timerwheel_test::seeds_from_env({1, 2, 3})) {
    run_against_model<Heap>(seed, 64, 16);      // ties at nearly every comparison
    run_against_model<Heap>(seed, 1000, 4096);  // some ties, a deeper heap
  }
}

TEST(BenchHeaps, KeyedBinary) { run_seeds<tb::indexed_binary_heap<true>>(); }
TEST(BenchHeaps, KeyThroughTheNode) { run_seeds<tb::indexed_binary_heap<false>>(); }
TEST(BenchHeaps, KeyedFourAry) { run_seeds<tb::indexed_4ary_heap>(); }
TEST(BenchHeaps, CompactBinary) { run_seeds<tb::compact_binary_heap>(); }
TEST(BenchHeaps, CompactFourAry) { run_seeds<tb::compact_4ary_heap>(); }

}  // namespace
