// timerwheel_bench_chains: what a walk of a linked list costs a node on this machine, by how
// many walks run at once. N nodes of 64 or 32 bytes in one array, linked in a random order into
// one cycle; `chains` walks start at evenly spaced points of the cycle and take one step each
// in turn until they have visited every node once. Each step loads the next node's address from
// the node in hand: a chain of misses once the nodes overflow the caches, which walks side by
// side overlap. The wheel's cascades and spreading moves walk lists so (docs/design.md, "Walking
// a list"); the figures say what more walks at once can gain
// (docs/perf/2026-11-28-w2-four-walks.md).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

namespace {

template <std::size_t Bytes>
struct alignas(Bytes) chain_node {
  chain_node* next;
};

template <std::size_t Bytes>
void walk(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto chains = static_cast<std::size_t>(state.range(1));
  std::vector<chain_node<Bytes>> nodes(n);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::shuffle(order.begin(), order.end(), std::mt19937_64{20261128});
  for (std::size_t i = 0; i < n; ++i) nodes[order[i]].next = &nodes[order[(i + 1) % n]];
  std::array<chain_node<Bytes>*, 8> at{};
  const std::size_t steps = n / chains;  // each walk's; N is a multiple of the walks
  for (auto _ : state) {
    for (std::size_t c = 0; c < chains; ++c) at[c] = &nodes[order[c * steps]];
    for (std::size_t step = 0; step < steps; ++step)
      for (std::size_t c = 0; c < chains; ++c) at[c] = at[c]->next;
    // Each walk ends where the next one began: a wrong walk fails here, not in a figure.
    for (std::size_t c = 0; c < chains; ++c)
      if (at[c] != &nodes[order[(c + 1) * steps % n]])
        state.SkipWithError("a walk did not end where the next one began");
    benchmark::DoNotOptimize(at);
  }
  state.counters["ns_a_node"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate |
                                                     benchmark::Counter::kInvert);
}

void sizes(benchmark::internal::Benchmark* b) {
  for (std::int64_t n : {4096, 65536, 262144, 1048576})
    for (std::int64_t chains : {1, 2, 4, 8}) b->Args({n, chains});
  b->Unit(benchmark::kMillisecond)->Repetitions(3)->ReportAggregatesOnly(true);
}

BENCHMARK(walk<64>)->Name("walk/64-byte")->Apply(sizes);
BENCHMARK(walk<32>)->Name("walk/32-byte")->Apply(sizes);

}  // namespace

BENCHMARK_MAIN();
