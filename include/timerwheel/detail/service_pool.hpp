// The pool of a timer_service's timer entries: any thread takes one, the
// worker gives it back, no lock on either path. Entries live in chunks that
// never move and are freed only with the pool, so a stale id can always be
// followed to a live entry and refused by its generation.
//
// The idle entries sit on `shards` lock-free stacks (Treiber stacks whose
// head carries a counter beside the index, so that a head popped and pushed
// back meanwhile is not mistaken for the one read: no ABA). A thread takes
// from the stack its thread number picks and steals from the others when it
// runs dry; an entry goes back to the stack it came from. Only growing the
// pool (a new chunk, twice the size of the last) takes a lock.
#pragma once

#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "abi.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI {
namespace detail {

// The pool's part of an entry: Entry derives from it.
struct service_slot {
  std::atomic<std::uint32_t> next_free{0};  // idle: the next idle index + 1, 0 for none
  std::uint32_t index = 0;                  // the entry's own index, set once
  std::uint32_t shard = 0;                  // the stack it goes back to
};

// A small number for the calling thread, the same for its whole life.
inline std::uint32_t service_thread_number() noexcept {
  static std::atomic<std::uint32_t> next{0};
  thread_local const std::uint32_t number = next.fetch_add(1, std::memory_order_relaxed);
  return number;
}

template <class Entry>
class service_pool {
 public:
  static constexpr std::uint32_t shards = 16;

  service_pool() = default;
  service_pool(const service_pool&) = delete;
  service_pool& operator=(const service_pool&) = delete;

  ~service_pool() {
    for (auto& c : chunks_) delete[] c.load(std::memory_order_relaxed);
  }

  // An idle entry for the calling thread, or nullptr when every stack is
  // empty. Lock-free: a pop on the thread's own stack, steals from the
  // others when it is empty. Throws nothing.
  Entry* try_acquire() noexcept {
    const std::uint32_t home = service_thread_number() % shards;
    for (std::uint32_t i = 0; i < shards; ++i) {
      if (Entry* e = pop((home + i) % shards)) {
        e->shard = home;
        return e;
      }
    }
    return nullptr;
  }

  // An idle entry, growing the pool (a new chunk as big as all before it,
  // under a mutex) when every stack is empty. Throws std::bad_alloc, or
  // std::length_error beyond 2^31 entries.
  Entry& acquire() {
    for (;;) {
      const std::size_t seen = capacity();
      if (Entry* e = try_acquire()) return *e;
      grow(service_thread_number() % shards, seen);
    }
  }

  // Gives an entry back to its stack. Any thread; lock-free.
  void release(Entry& e) noexcept { release_chain(e, e, e.shard); }

  // Gives back a chain of entries of one stack at once: `first` ... `last`,
  // linked through next_free (index + 1), all of `shard`. One CAS for the
  // whole chain, where release() takes one per entry. Any thread; lock-free.
  void release_chain(Entry& first, Entry& last, std::uint32_t shard) noexcept {
    auto& head = heads_[shard].word;
    std::uint64_t h = head.load(std::memory_order_relaxed);
    do {
      last.next_free.store(static_cast<std::uint32_t>(h), std::memory_order_relaxed);
    } while (!head.compare_exchange_weak(h, ((h >> 32) + 1) << 32 | (first.index + 1),
                                         std::memory_order_release, std::memory_order_relaxed));
  }

  // The entry at `index`, or nullptr if the pool has none there. Lock-free.
  Entry* find(std::uint32_t index) const noexcept {
    const unsigned c = chunk_of(index);
    Entry* chunk = chunks_[c].load(std::memory_order_acquire);
    if (chunk == nullptr) return nullptr;
    return chunk + (index - chunk_start(c));
  }

  // Entries made so far (idle ones included).
  std::size_t capacity() const noexcept { return capacity_.load(std::memory_order_acquire); }

  // Calls f(Entry&) on every entry made so far. Only while no other thread
  // uses the pool.
  template <class F>
  void for_each(F&& f) {
    const std::size_t n = capacity();
    for (std::size_t i = 0; i < n; ++i)
      if (Entry* e = find(static_cast<std::uint32_t>(i))) f(*e);
  }

 private:
  static constexpr unsigned first_bits = 10;  // the first chunk: 1,024 entries
  // 2^31 entries at most, so that index + 1 (the stacks' links) fits 32 bits.
  static constexpr unsigned max_chunks = 32 - first_bits;

  static unsigned chunk_of(std::uint32_t index) noexcept {
    const unsigned w = static_cast<unsigned>(std::bit_width(index));
    return w <= first_bits ? 0 : w - first_bits;
  }
  static constexpr std::size_t chunk_start(unsigned c) noexcept {
    return c == 0 ? 0 : std::size_t{1} << (first_bits + c - 1);
  }
  static constexpr std::size_t chunk_size(unsigned c) noexcept {
    return c == 0 ? std::size_t{1} << first_bits : chunk_start(c);
  }

  Entry* pop(std::uint32_t shard) noexcept {
    auto& head = heads_[shard].word;
    std::uint64_t h = head.load(std::memory_order_acquire);
    for (;;) {
      const auto top = static_cast<std::uint32_t>(h);
      if (top == 0) return nullptr;
      Entry* e = find(top - 1);
      // Read before the CAS; if another thread took `e` meanwhile the
      // counter has moved and the CAS fails.
      const std::uint32_t next = e->next_free.load(std::memory_order_relaxed);
      if (head.compare_exchange_weak(h, ((h >> 32) + 1) << 32 | next, std::memory_order_acquire,
                                     std::memory_order_acquire))
        return e;
    }
  }

  // Adds a chunk, its entries on `shard`'s stack, unless another thread
  // grew the pool since the caller found it empty (`seen`: its size then).
  void grow(std::uint32_t shard, std::size_t seen) {
    const std::lock_guard lock(grow_mutex_);
    if (capacity() != seen) return;
    const unsigned c = chunks_used_;
    if (c == max_chunks)
      throw std::length_error("timerwheel: timer_service: more than 2^31 timers");
    const std::size_t n = chunk_size(c);
    auto chunk = std::make_unique<Entry[]>(n);
    const auto start = static_cast<std::uint32_t>(chunk_start(c));
    for (std::size_t i = 0; i < n; ++i) {
      chunk[i].index = start + static_cast<std::uint32_t>(i);
      chunk[i].shard = shard;
      // A chain start, start+1, ...; the last links to the old top below.
      chunk[i].next_free.store(start + static_cast<std::uint32_t>(i) + 2,
                               std::memory_order_relaxed);
    }
    Entry* raw = chunk.release();
    chunks_[c].store(raw, std::memory_order_release);
    chunks_used_ = c + 1;
    capacity_.store(chunk_start(c) + n, std::memory_order_release);  // after the chunk
    auto& head = heads_[shard].word;
    std::uint64_t h = head.load(std::memory_order_relaxed);
    do {
      raw[n - 1].next_free.store(static_cast<std::uint32_t>(h), std::memory_order_relaxed);
    } while (!head.compare_exchange_weak(h, ((h >> 32) + 1) << 32 | (start + 1),
                                         std::memory_order_release, std::memory_order_relaxed));
  }

  struct alignas(64) padded_head {
    std::atomic<std::uint64_t> word{0};  // counter << 32 | (top index + 1), 0: empty
  };

  std::array<padded_head, shards> heads_{};
  std::array<std::atomic<Entry*>, max_chunks> chunks_{};
  std::atomic<std::size_t> capacity_{0};
  std::mutex grow_mutex_;
  unsigned chunks_used_ = 0;  // under grow_mutex_
};

}  // namespace detail
}  // namespace timerwheel::inline TIMERWHEEL_ABI
