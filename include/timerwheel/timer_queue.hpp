// timerwheel::timer_queue: timers that own a value each, kept in a pool,
// named by generation-checked ids.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "levels.hpp"
#include "wheel.hpp"

namespace timerwheel {

// Names one timer of a timer_queue. An id goes stale when its timer fires or
// is cancelled; a stale id is refused, never mistaken for a later timer that
// reuses the slot. A default-constructed id is never valid.
struct timer_id {
  std::uint32_t index = 0;
  std::uint32_t generation = 0;

  friend bool operator==(timer_id, timer_id) = default;
};

// `timer_queue<T, Config>`: a wheel whose timers carry a value of type T,
// stored in nodes the queue owns. Nodes come from a pool that grows
// geometrically and never moves them, so once it has reached a size no
// operation allocates. Times are absolute ticks. Not thread-safe.
//
// PERFORMANCE NOTE: a node is the wheel's 24-byte hook and the value, 32
// bytes for an 8-byte T; each node's 4-byte generation lives in an array
// beside its chunk, so a pending timer costs 36 bytes plus the pool's slack.
template <class T, class Config = default_config>
class timer_queue {
 public:
  using value_type = T;
  using config_type = Config;
  using tick_type = typename Config::tick_type;

 private:
  using hook_type = basic_timer_hook<tick_type>;

  struct node : hook_type {
    union {
      T value;
      std::uint32_t next_free;  // while idle: the next idle node, or none_
    };
    node() noexcept : next_free(0) {}
    node(const node&) = delete;
    node& operator=(const node&) = delete;
    ~node() {}  // the queue destroys live values itself
  };

 public:
  // An empty queue whose time is `now` (ticks). Allocates nothing.
  explicit timer_queue(tick_type now = 0) noexcept : wheel_(now) {}

  timer_queue(const timer_queue&) = delete;
  timer_queue& operator=(const timer_queue&) = delete;

  // Destroys the values of the timers still pending.
  ~timer_queue() { clear(); }

  tick_type now() const noexcept { return wheel_.now(); }
  // Pending timers, expired ones not yet taken included. O(1): the queue
  // counts the nodes it hands out.
  std::size_t size() const noexcept { return live_; }
  bool empty() const noexcept { return live_ == 0; }

  // Nodes held by the pool, idle ones included.
  std::size_t capacity() const noexcept { return capacity_; }

  // Grows the pool to hold at least `n` timers. Throws std::bad_alloc or
  // std::length_error (beyond 2^32 - 1 timers), changing nothing.
  void reserve(std::size_t n) {
    while (capacity_ < n) grow();
  }

  // Schedules a timer carrying `value` to fire at `deadline` (ticks; one
  // before now is taken as now). O(1), no allocation once the pool has
  // room. Throws what growing the pool or moving `value` throws, changing
  // nothing.
  timer_id schedule(tick_type deadline, T value) {
    const std::uint32_t index = acquire(std::move(value));
    wheel_.schedule(at(index), deadline);
    return {index, generation(index)};
  }

  // Schedules at the tick of [earliest, latest] with the most trailing zero
  // bits (see wheel::schedule_in_range). Throws std::invalid_argument when
  // `earliest` is after `latest`, changing nothing.
  timer_id schedule_in_range(tick_type earliest, tick_type latest, T value) {
    const std::uint32_t index = acquire(std::move(value));
    try {
      wheel_.schedule_in_range(at(index), earliest, latest);
    } catch (...) {
      release(at(index), index);
      throw;
    }
    return {index, generation(index)};
  }

  // Cancels the timer and destroys its value. Returns false, touching
  // nothing, for a stale id. O(1).
  bool cancel(timer_id id) noexcept {
    node* n = find(id);
    if (n == nullptr) return false;
    wheel_.cancel(*n);
    release(*n, id.index);
    return true;
  }

  // Moves the timer to `deadline` (ticks); it counts as newly scheduled.
  // Returns false, touching nothing, for a stale id. O(1).
  bool reschedule(timer_id id, tick_type deadline) noexcept {
    node* n = find(id);
    if (n == nullptr) return false;
    wheel_.schedule(*n, deadline);
    return true;
  }

  // Whether `id` names a pending timer. O(1).
  bool pending(timer_id id) const noexcept { return find(id) != nullptr; }

  // The deadline (ticks) of a pending timer; none for a stale id.
  std::optional<tick_type> deadline(timer_id id) const noexcept {
    const node* n = find(id);
    if (n == nullptr) return std::nullopt;
    return n->deadline();
  }

  // The value of a pending timer; nullptr for a stale id.
  T* get(timer_id id) noexcept {
    node* n = find(id);
    return n != nullptr ? std::addressof(n->value) : nullptr;
  }
  const T* get(timer_id id) const noexcept {
    const node* n = find(id);
    return n != nullptr ? std::addressof(n->value) : nullptr;
  }

  // Fires every timer due by `to` (ticks) in order, as wheel::advance,
  // calling f(timer_id, T&&). The id is already stale inside f and its node
  // may be reused by a timer f schedules. Same errors as wheel::advance.
  template <class F>
  std::size_t advance(tick_type to, F&& f) {
    return wheel_.advance(to, [&](hook_type& h) { fire(static_cast<node&>(h), f); });
  }

  // The pull form: queues what is due by `to` (ticks) for take_expired().
  std::size_t advance(tick_type to) { return wheel_.advance(to); }

  // The next timer queued by the pull form, with its value; none if none.
  std::optional<std::pair<timer_id, T>> take_expired() {
    hook_type* h = wheel_.take_expired();
    if (h == nullptr) return std::nullopt;
    node& n = static_cast<node&>(*h);
    const std::uint32_t index = index_of(n);
    std::optional<std::pair<timer_id, T>> taken(std::in_place, timer_id{index, generation(index)},
                                                std::move(n.value));
    release(n, index);
    return taken;
  }

  std::optional<tick_type> next_deadline() const noexcept { return wheel_.next_deadline(); }
  tick_type time_until_next() const noexcept { return wheel_.time_until_next(); }

  // Fires every timer pending at the call, in order, leaving now unchanged.
  template <class F>
  std::size_t expire_all(F&& f) {
    return wheel_.expire_all([&](hook_type& h) { fire(static_cast<node&>(h), f); });
  }

  // Cancels every timer, destroying the values. O(capacity).
  void clear() noexcept {
    for (std::size_t i = 0; i < capacity_; ++i) {
      node& n = at(static_cast<std::uint32_t>(i));
      if (n.pending()) {
        wheel_.cancel(n);
        release(n, static_cast<std::uint32_t>(i));
      }
    }
  }

  // Calls f(timer_id, const T&) for every pending timer, in no promised order.
  template <class F>
  void for_each_pending(F&& f) const {
    wheel_.for_each_pending([&](const hook_type& h) {
      const node& n = static_cast<const node&>(h);
      const std::uint32_t index = index_of(n);
      f(timer_id{index, generation(index)}, n.value);
    });
  }

  // The wheel's invariants, and that the pool's idle and live nodes add up.
  void check_invariants() const {
    wheel_.check_invariants();
    std::size_t live = 0;
    for (std::size_t i = 0; i < capacity_; ++i) {
      const node& n = at(static_cast<std::uint32_t>(i));
      if (index_of(n) != i) throw std::logic_error("timerwheel: invariant broken: a node's index");
      if (generation(static_cast<std::uint32_t>(i)) == 0)
        throw std::logic_error("timerwheel: invariant broken: a generation of 0");
      live += n.pending() ? 1 : 0;
    }
    if (live != live_ || live != wheel_.size())
      throw std::logic_error("timerwheel: invariant broken: live nodes disagree with size");
    std::size_t idle = 0;
    for (std::uint32_t i = free_; i != none_; i = at(i).next_free)
      if (++idle > capacity_ || at(i).pending())
        throw std::logic_error("timerwheel: invariant broken: the idle list");
    if (idle + live != capacity_)
      throw std::logic_error("timerwheel: invariant broken: idle and live nodes miss some");
  }

 private:
  static constexpr std::uint32_t none_ = ~std::uint32_t{0};
  static constexpr std::size_t first_chunk_ = 64;  // chunk c holds 64 << c nodes

  // Chunk c holds the nodes of indices from 64 * (2^c - 1) on, and their
  // generations (never 0, so no node matches timer_id{}).
  struct chunk {
    std::unique_ptr<node[]> nodes;
    std::unique_ptr<std::uint32_t[]> generations;
  };

  static unsigned chunk_of(std::uint32_t index) noexcept {
    return static_cast<unsigned>(std::bit_width(std::size_t{index} / first_chunk_ + 1)) - 1;
  }
  static std::size_t chunk_start(unsigned c) noexcept {
    return first_chunk_ * ((std::size_t{1} << c) - 1);
  }

  node& at(std::uint32_t index) const noexcept {
    const unsigned c = chunk_of(index);
    return chunks_[c].nodes[index - chunk_start(c)];
  }
  std::uint32_t& generation(std::uint32_t index) const noexcept {
    const unsigned c = chunk_of(index);
    return chunks_[c].generations[index - chunk_start(c)];
  }

  // The index of a node, from its address: the largest chunks, which hold
  // most nodes, are tried first.
  std::uint32_t index_of(const node& n) const noexcept {
    const auto address = reinterpret_cast<std::uintptr_t>(&n);
    for (unsigned c = static_cast<unsigned>(chunks_.size()); c-- > 0;) {
      const std::uintptr_t offset =
          address - reinterpret_cast<std::uintptr_t>(chunks_[c].nodes.get());
      if (offset < (first_chunk_ << c) * sizeof(node))
        return static_cast<std::uint32_t>(chunk_start(c) + offset / sizeof(node));
    }
    return none_;  // not reached: every node lives in a chunk
  }

  node* find(timer_id id) const noexcept {
    if (id.index >= capacity_) return nullptr;
    node& n = at(id.index);
    return generation(id.index) == id.generation && n.pending() ? &n : nullptr;
  }

  void grow() {
    const std::size_t count = first_chunk_ << chunks_.size();
    if (capacity_ + count > none_)
      throw std::length_error("timerwheel: timer_queue: more than 2^32 - 1 timers");
    chunks_.reserve(chunks_.size() + 1);
    chunk fresh{std::make_unique<node[]>(count), std::make_unique<std::uint32_t[]>(count)};
    // Link the new nodes in index order in front of the idle list.
    for (std::size_t i = 0; i < count; ++i) {
      fresh.nodes[i].next_free =
          i + 1 < count ? static_cast<std::uint32_t>(capacity_ + i + 1) : free_;
      fresh.generations[i] = 1;
    }
    free_ = static_cast<std::uint32_t>(capacity_);
    chunks_.push_back(std::move(fresh));
    capacity_ += count;
  }

  // Takes an idle node, constructs the value in it and returns its index.
  std::uint32_t acquire(T&& value) {
    if (free_ == none_) grow();
    const std::uint32_t index = free_;
    node& n = at(index);
    const std::uint32_t next = n.next_free;
    ::new (static_cast<void*>(std::addressof(n.value))) T(std::move(value));
    free_ = next;
    ++live_;
    return index;
  }

  // Destroys the value of an unlinked node and makes every id of it stale.
  void release(node& n, std::uint32_t index) noexcept {
    n.value.~T();
    std::uint32_t& g = generation(index);
    if (++g == 0) g = 1;
    n.next_free = free_;
    free_ = index;
    --live_;
  }

  template <class F>
  void fire(node& n, F& f) {
    const std::uint32_t index = index_of(n);
    const timer_id id{index, generation(index)};
    T value(std::move(n.value));
    release(n, index);
    f(id, std::move(value));
  }

  // Declared before the wheel: the wheel unlinks its hooks, which live in
  // these chunks, before the chunks are freed.
  std::vector<chunk> chunks_;
  std::size_t capacity_ = 0;
  std::uint32_t free_ = none_;
  std::size_t live_ = 0;  // nodes holding a value: the pending timers
  wheel<Config> wheel_;
};

}  // namespace timerwheel
