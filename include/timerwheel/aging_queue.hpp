// timerwheel::aging_queue: a starvation-free priority queue (HiTime's use of
// a timing wheel as a priority queue), exact where HiTime is loose.
//
// Priorities age. The queue keeps a counter; an item pushed with priority p
// (smaller is more urgent) is due at counter + p. pop() takes the item due
// first, first pushed first among items due at the same count; when nothing
// is due yet, the counter jumps to the earliest due item first. Each pop
// advances the counter by one, and tick(n) by n. So an item is never
// overtaken by one that became due after it: once the counter has reached
// an item's due count, every later push is due after it (or, at priority 0,
// at the same count and behind it), and however many urgent items keep
// arriving, a priority-p item waits for at most the items due before it,
// which are those already queued plus those pushed in the next p pops.
//
// The items live in a timer_queue whose deadlines are due counts; the
// wheel's time trails the counter and moves only when pop() needs the next
// item. Ids are the timer_queue's: generation-checked, safe to use after the
// item is popped or removed (they are refused).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "detail/abi.hpp"
#include "levels.hpp"
#include "timer_queue.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI {

// `aging_queue<T, Config>`: items of type T under aging priorities. Config
// is a wheel configuration over 64-bit ticks (its levels only tune speed).
// Not thread-safe; neither copyable nor movable.
template <class T, class Config = default_config>
class aging_queue {
  static_assert(std::is_same_v<typename Config::tick_type, std::uint64_t>,
                "aging_queue: the counter is 64 bits wide: use a configuration of std::uint64_t "
                "ticks");

 public:
  using value_type = T;
  using config_type = Config;
  // Names one pushed item; stale (refused) once it is popped or removed.
  using item_id = timer_id;

  // An empty queue whose counter starts at `counter`. Allocates nothing.
  explicit aging_queue(std::uint64_t counter = 0) noexcept : counter_(counter), items_(counter) {}

  aging_queue(const aging_queue&) = delete;
  aging_queue& operator=(const aging_queue&) = delete;

  // Pushes `value`, due at counter() + `priority` (counts; 0 is due now,
  // behind every item already due). Returns its id. O(1), no allocation
  // once the pool has room. Throws std::overflow_error, changing nothing,
  // when the due count would pass 2^64 - 1; otherwise as
  // timer_queue::schedule (std::bad_alloc, or what moving T throws; strong).
  item_id push(T value, std::uint64_t priority) {
    if (priority > std::numeric_limits<std::uint64_t>::max() - counter_)
      throw std::overflow_error(
          "timerwheel: aging_queue::push: counter + priority passes 2^64 - 1");
    return items_.schedule(counter_ + priority, std::move(value));
  }

  // Takes the item due first (the first pushed among those due at the same
  // count) and returns its value; none, changing nothing (the counter
  // included), when the queue is empty. If that item is not due yet, the
  // counter first jumps to its due count; then the counter advances by one.
  // O(levels + items in the earliest slot), amortized. Throws
  // std::overflow_error, changing nothing, when the counter would pass
  // 2^64 - 1. What moving T throws is basic: thrown while the item leaves
  // the queue, the item stays pending with its id, behind the items due at
  // the same count, and the counter has made its jump but not its step;
  // thrown while it moves into the result, the item is gone and the counter
  // has moved. T needs no move assignment.
  std::optional<T> pop() {
    constexpr std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
    if (items_.empty()) return std::nullopt;
    if (counter_ == top)
      throw std::overflow_error("timerwheel: aging_queue::pop: the counter passes 2^64 - 1");
    // Items queued by the pull form are due at the wheel's time, which they
    // were queued at, and were pushed before any other item due then: the
    // first of them is first.
    if (std::optional<std::pair<timer_id, T>> first = items_.take_expired())
      return popped(first->second);
    // None queued: queue, in push order, the items of the exact earliest due
    // count. The wheel's time never passes it: no item is due before it.
    const std::uint64_t due = *items_.next_deadline();
    if (due == top)
      throw std::overflow_error("timerwheel: aging_queue::pop: the counter passes 2^64 - 1");
    items_.advance(due);
    // The jump, made before the take: the wheel's time never passes the
    // counter, even when taking the item throws.
    counter_ = std::max(counter_, due);
    std::optional<std::pair<timer_id, T>> first = items_.take_expired();
    return popped(first->second);
  }

  // Removes a pending item, destroying its value. Returns false, touching
  // nothing, for a stale id. O(1). Throws nothing.
  bool remove(item_id id) noexcept { return items_.cancel(id); }

  // Advances the counter by `n` counts (ages every item by n). O(1): no
  // item moves. Throws std::overflow_error, changing nothing, when the
  // counter would pass 2^64 - 1.
  void tick(std::uint64_t n = 1) {
    if (n > std::numeric_limits<std::uint64_t>::max() - counter_)
      throw std::overflow_error("timerwheel: aging_queue::tick: the counter passes 2^64 - 1");
    counter_ += n;
  }

  // The counter. O(1); throws nothing, as every query below.
  std::uint64_t counter() const noexcept { return counter_; }

  // Pending items. O(1).
  std::size_t size() const noexcept { return items_.size(); }
  [[nodiscard]] bool empty() const noexcept { return items_.empty(); }

  // Whether `id` names a pending item. O(1).
  bool contains(item_id id) const noexcept { return items_.pending(id); }

  // The count at which a pending item is due; none for a stale id. O(1).
  std::optional<std::uint64_t> due(item_id id) const noexcept { return items_.deadline(id); }

  // The value of a pending item; nullptr for a stale id. O(1).
  T* get(item_id id) noexcept { return items_.get(id); }
  const T* get(item_id id) const noexcept { return items_.get(id); }

  // The earliest due count of a pending item (it may be at or behind the
  // counter: then something is due now); none when empty, where HiTime's
  // wait on an empty queue spins. O(levels + items in the earliest slot).
  std::optional<std::uint64_t> next_due() const noexcept { return items_.next_deadline(); }

  // Removes every item, destroying the values; the counter stays.
  // O(capacity). Throws nothing.
  void clear() noexcept { items_.clear(); }

  // Calls f(item_id, const T&) for every pending item, in no promised
  // order. f may not push or remove. O(n + slots).
  template <queue_pending_visitor<T> F>
  void for_each(F&& f) const {
    items_.for_each_pending(f);
  }

  // The timer_queue's invariants, and that the wheel's time does not pass
  // the counter. Throws std::logic_error naming the first one broken.
  void check_invariants() const {
    items_.check_invariants();
    if (items_.now() > counter_)
      throw std::logic_error(
          "timerwheel: invariant broken: aging_queue's wheel is ahead of its counter");
  }

 private:
  // The end of a pop: the counter moves past the item's due count, and its
  // value moves into the result (built in place: no further move).
  std::optional<T> popped(T& value) {
    counter_ = std::max(counter_, items_.now()) + 1;
    return std::optional<T>(std::move(value));
  }

  std::uint64_t counter_;
  timer_queue<T, Config> items_;
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI
