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
// PERFORMANCE NOTE: a node is the wheel's 24-byte hook, its index and
// generation, and the value: 40 bytes for an 8-byte T.
template <class T, class Config = default_config>
class timer_queue {
 public:
  using value_type = T;
  using config_type = Config;
  using tick_type = typename Config::tick_type;

 private:
  using hook_type = basic_timer_hook<tick_type>;

  struct node : hook_type {
    std::uint32_t index = 0;
    std::uint32_t generation = 1;  // never 0, so no node matches timer_id{}
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
  std::size_t size() const noexcept { return wheel_.size(); }
  bool empty() const noexcept { return wheel_.empty(); }

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
    node& n = acquire(std::move(value));
    wheel_.schedule(n, deadline);
    return {n.index, n.generation};
  }

  // Schedules at the tick of [earliest, latest] with the most trailing zero
  // bits (see wheel::schedule_in_range). Throws std::invalid_argument when
  // `earliest` is after `latest`, changing nothing.
  timer_id schedule_in_range(tick_type earliest, tick_type latest, T value) {
    node& n = acquire(std::move(value));
    try {
      wheel_.schedule_in_range(n, earliest, latest);
    } catch (...) {
      release(n);
      throw;
    }
    return {n.index, n.generation};
  }

  // Cancels the timer and destroys its value. Returns false, touching
  // nothing, for a stale id. O(1).
  bool cancel(timer_id id) noexcept {
    node* n = find(id);
    if (n == nullptr) return false;
    wheel_.cancel(*n);
    release(*n);
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
    std::optional<std::pair<timer_id, T>> taken(std::in_place, timer_id{n.index, n.generation},
                                                std::move(n.value));
    release(n);
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
        release(n);
      }
    }
  }

  // Calls f(timer_id, const T&) for every pending timer, in no promised order.
  template <class F>
  void for_each_pending(F&& f) const {
    wheel_.for_each_pending([&](const hook_type& h) {
      const node& n = static_cast<const node&>(h);
      f(timer_id{n.index, n.generation}, n.value);
    });
  }

  // The wheel's invariants, and that the pool's idle and live nodes add up.
  void check_invariants() const {
    wheel_.check_invariants();
    std::size_t live = 0;
    for (std::size_t i = 0; i < capacity_; ++i) {
      const node& n = at(static_cast<std::uint32_t>(i));
      if (n.index != i) throw std::logic_error("timerwheel: invariant broken: a node's index");
      live += n.pending() ? 1 : 0;
    }
    if (live != wheel_.size())
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

  // Chunk c starts at index 64 * (2^c - 1).
  node& at(std::uint32_t index) const noexcept {
    const std::size_t scaled = index / first_chunk_ + 1;
    const unsigned chunk = static_cast<unsigned>(std::bit_width(scaled)) - 1;
    const std::size_t offset = index - first_chunk_ * ((std::size_t{1} << chunk) - 1);
    return chunks_[chunk][offset];
  }

  node* find(timer_id id) const noexcept {
    if (id.index >= capacity_) return nullptr;
    node& n = at(id.index);
    return n.generation == id.generation && n.pending() ? &n : nullptr;
  }

  void grow() {
    const std::size_t count = first_chunk_ << chunks_.size();
    if (capacity_ + count > none_)
      throw std::length_error("timerwheel: timer_queue: more than 2^32 - 1 timers");
    chunks_.reserve(chunks_.size() + 1);
    auto chunk = std::make_unique<node[]>(count);
    // Link the new nodes in index order in front of the idle list.
    for (std::size_t i = 0; i < count; ++i) {
      chunk[i].index = static_cast<std::uint32_t>(capacity_ + i);
      chunk[i].next_free = i + 1 < count ? static_cast<std::uint32_t>(capacity_ + i + 1) : free_;
    }
    free_ = static_cast<std::uint32_t>(capacity_);
    chunks_.push_back(std::move(chunk));
    capacity_ += count;
  }

  node& acquire(T&& value) {
    if (free_ == none_) grow();
    node& n = at(free_);
    const std::uint32_t next = n.next_free;
    ::new (static_cast<void*>(std::addressof(n.value))) T(std::move(value));
    free_ = next;
    return n;
  }

  // Destroys the value of an unlinked node and makes every id of it stale.
  void release(node& n) noexcept {
    n.value.~T();
    if (++n.generation == 0) n.generation = 1;
    n.next_free = free_;
    free_ = n.index;
  }

  template <class F>
  void fire(node& n, F& f) {
    const timer_id id{n.index, n.generation};
    T value(std::move(n.value));
    release(n);
    f(id, std::move(value));
  }

  // Declared before the wheel: the wheel unlinks its hooks, which live in
  // these chunks, before the chunks are freed.
  std::vector<std::unique_ptr<node[]>> chunks_;
  std::size_t capacity_ = 0;
  std::uint32_t free_ = none_;
  wheel<Config> wheel_;
};

}  // namespace timerwheel
