// The entries a timer_service's worker gives back to the pool, gathered per
// stack and returned a chain at a time: one CAS on a stack's head per
// `batch` entries instead of one per entry. Each head is a cache line that
// the producers taking from that stack also write, so every CAS the worker
// saves is a line that does not travel between the two cores.
//
// Entries held here are idle (their ids already stale) but not yet
// available to producers: the worker flushes them at the end of every
// round, before it sleeps, so at most a round's worth are held back.
#pragma once

#include <array>
#include <cstdint>

#include "abi.hpp"
#include "service_pool.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI {
namespace detail {

template <class Entry>
class service_returns {
 public:
  // Entries gathered for one stack before they go back together.
  static constexpr std::uint32_t batch = 32;

  explicit service_returns(service_pool<Entry>& pool) noexcept : pool_(pool) {}
  service_returns(const service_returns&) = delete;
  service_returns& operator=(const service_returns&) = delete;

  // The worker only: holds `e` for its stack; returns the stack's chain
  // when it reaches `batch`. O(1); throws nothing.
  void put(Entry& e) noexcept {
    chain& c = chains_[e.shard];
    e.next_free.store(c.first == nullptr ? 0 : c.first->index + 1, std::memory_order_relaxed);
    if (c.first == nullptr) c.last = &e;
    c.first = &e;
    if (++c.count == batch) flush(e.shard);
  }

  // The worker only: gives every held entry back to the pool. O(stacks).
  void flush_all() noexcept {
    for (std::uint32_t s = 0; s < chains_.size(); ++s)
      if (chains_[s].first != nullptr) flush(s);
  }

 private:
  struct chain {
    Entry* first = nullptr;
    Entry* last = nullptr;
    std::uint32_t count = 0;
  };

  void flush(std::uint32_t shard) noexcept {
    chain& c = chains_[shard];
    pool_.release_chain(*c.first, *c.last, shard);
    c = chain{};
  }

  service_pool<Entry>& pool_;
  std::array<chain, service_pool<Entry>::shards> chains_{};
};

}  // namespace detail
}  // namespace timerwheel::inline TIMERWHEEL_ABI
