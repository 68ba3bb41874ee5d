// timerwheel::timer_queue: timers that own a value each, kept in a pool,
// named by generation-checked ids.
#pragma once

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "concepts.hpp"
#include "detail/abi.hpp"
#include "detail/pool_chunks.hpp"
#include "levels.hpp"
#include "wheel.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI {

// Names one timer of a timer_queue. An id goes stale when its timer fires or
// is cancelled; a stale id is refused, never mistaken for a later timer that
// reuses the slot. A default-constructed id is never valid.
struct timer_id {
  std::uint32_t index = 0;
  std::uint32_t generation = 0;

  friend bool operator==(timer_id, timer_id) = default;
};

// A callback of timer_queue<T>'s advance and expire_all: called with each
// expired timer's id and its value, as an rvalue, in firing order (the
// queue's form of expiry_callback). What it returns is ignored.
template <class F, class T>
concept queue_expiry_callback = std::invocable<F&, timer_id, T&&>;

// A visitor of timer_queue<T>::for_each_pending: called with each pending
// timer's id and value (the queue's form of pending_visitor).
template <class F, class T>
concept queue_pending_visitor = std::invocable<F&, timer_id, const T&>;

// `timer_queue<T, Config>`: a wheel whose timers carry a value of type T,
// stored in nodes the queue owns. Nodes come from a pool that grows
// geometrically and never moves them, so once it has reached a size no
// operation allocates. Times are absolute ticks. Not thread-safe.
//
// PERFORMANCE NOTE: a node is the wheel's 24-byte hook and the value, 32
// bytes for an 8-byte T; each node's 4-byte generation lives in an array
// beside its chunk, so a pending timer costs 36 bytes plus the pool's slack.
//
// Exceptions: T's destructor may not throw; its move constructor may, and
// no member needs a move assignment. Each member says what it guarantees
// when something throws: "strong" is as if the call had not been made
// (capacity() aside, where it says so); "basic" says what it leaves. After
// any throw every timer is pending exactly once or gone, size() is exact,
// no value leaks and check_invariants() passes. The guarantees cost nothing
// on the paths that do not throw; with a T whose move cannot throw,
// take_expired() is noexcept.
template <class T, class Config = default_config>
class timer_queue {
  static_assert(std::is_nothrow_destructible_v<T>, "timer_queue: T's destructor may not throw");
  static_assert(std::is_move_constructible_v<T>, "timer_queue: T must be move constructible");

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

  // Destroys the values of the timers still pending. Throws nothing.
  ~timer_queue() { clear(); }

  // The current time (ticks). While a callback runs: that timer's deadline.
  tick_type now() const noexcept { return wheel_.now(); }
  // Pending timers, expired ones not yet taken included. O(1): the queue
  // counts the nodes it hands out.
  std::size_t size() const noexcept { return live_; }
  bool empty() const noexcept { return live_ == 0; }

  // Nodes held by the pool, idle ones included.
  std::size_t capacity() const noexcept { return capacity_; }

  // Grows the pool to hold at least `n` timers; never shrinks it. O(n)
  // when it grows. Strong: throws std::length_error (beyond 2^32 - 64
  // timers) or std::bad_alloc, changing nothing, capacity() included.
  void reserve(std::size_t n) {
    if (n > pool_layout::max_capacity())
      throw std::length_error("timerwheel: timer_queue: more than 2^32 - 64 timers");
    const std::size_t chunks = chunks_.size();
    const std::size_t capacity = capacity_;
    const std::uint32_t free = free_;
    try {
      while (capacity_ < n) grow();
    } catch (...) {
      // The chunks grown so far only put idle nodes in front of the idle
      // list: dropping them and the front restores the pool.
      chunks_.resize(chunks);
      capacity_ = capacity;
      free_ = free;
      throw;
    }
  }

  // Schedules a timer carrying `value` to fire at `deadline` (ticks; one
  // before now is taken as now), and returns its id: the only way to cancel
  // it, reschedule it or reach its value. O(1), no allocation once the pool
  // has room. Strong: throws what growing the pool throws (std::bad_alloc,
  // std::length_error) or what moving `value` into its node throws, changing
  // nothing but capacity(), which keeps a growth that came before a failed
  // move. `value` itself, taken by value, is gone either way.
  [[nodiscard]] timer_id schedule(tick_type deadline, T value) {
    const std::uint32_t index = acquire(std::move(value));
    wheel_.schedule(at(index), deadline);
    return {index, generation(index)};
  }

  // Schedules at the tick of [earliest, latest] with the most trailing zero
  // bits (see wheel::schedule_in_range) and returns the timer's id. O(1).
  // Strong, as schedule; also throws std::invalid_argument when `earliest`
  // is after `latest`.
  [[nodiscard]] timer_id schedule_in_range(tick_type earliest, tick_type latest, T value) {
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
  // nothing, for a stale id. O(1). Throws nothing.
  bool cancel(timer_id id) noexcept {
    node* n = find(id);
    if (n == nullptr) return false;
    wheel_.cancel(*n);
    release(*n, id.index);
    return true;
  }

  // Moves the timer to `deadline` (ticks); it counts as newly scheduled.
  // Returns false, touching nothing, for a stale id. O(1). Moves no value;
  // throws nothing.
  bool reschedule(timer_id id, tick_type deadline) noexcept {
    node* n = find(id);
    if (n == nullptr) return false;
    wheel_.schedule(*n, deadline);
    return true;
  }

  // Whether `id` names a pending timer. O(1). Throws nothing, as every
  // query below.
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
  // calling f(timer_id, T&&) with the value where it lies, in its node: the
  // queue moves no value, f may move it out. The id is already stale inside
  // f; the node goes back to the pool when f returns or throws. Returns how
  // many fired. Same costs as wheel::advance. Throws std::invalid_argument,
  // changing nothing, when `to` is behind now; std::logic_error when called
  // from a callback; and, basic, what f throws: the timer f was handed has
  // fired (its value is destroyed), those not yet handed stay pending, and
  // now() is the deadline of the last one handed. A move of T that throws is
  // f's: an f that takes T by value moves it in the call, and if that move
  // throws the timer has fired without f running.
  template <queue_expiry_callback<T> F>
  std::size_t advance(tick_type to, F&& f) {
    return wheel_.advance(to, [&](hook_type& h) { fire(static_cast<node&>(h), f); });
  }

  // The pull form: queues what is due by `to` (ticks) for take_expired(),
  // moving no value. Returns how many it queued. Strong: throws as the
  // callback form does when `to` is behind now or from a callback.
  std::size_t advance(tick_type to) { return wheel_.advance(to); }

  // The next timer queued by the pull form, taken out of the queue with its
  // value: its id is stale from then on, and the value is only in the
  // result. None if none is queued. O(1). Throws nothing when T's move
  // constructor cannot throw. Basic when it throws: the timer stays pending
  // with its id and its value (as the failed move left it), rescheduled at
  // now(): it is no longer queued, and the next advance, even to now(),
  // queues or fires it, after the timers queued before it.
  [[nodiscard]] std::optional<std::pair<timer_id, T>> take_expired() noexcept(
      std::is_nothrow_move_constructible_v<T>) {
    hook_type* h = wheel_.take_expired();
    if (h == nullptr) return std::nullopt;
    node& n = static_cast<node&>(*h);
    const std::uint32_t index = index_of(n);
    const taking scope(*this, n, index);
    // Built in place as the result: no move of T after the node is released.
    return std::optional<std::pair<timer_id, T>>(std::in_place, timer_id{index, generation(index)},
                                                 std::move(n.value));
  }

  // The exact earliest deadline (ticks) of a pending timer; none when empty.
  std::optional<tick_type> next_deadline() const noexcept { return wheel_.next_deadline(); }
  // How long (ticks) a poller may sleep; see wheel::time_until_next.
  tick_type time_until_next() const noexcept { return wheel_.time_until_next(); }

  // Fires every timer pending at the call, in order, leaving now unchanged,
  // calling f(timer_id, T&&) as advance does. Returns how many fired.
  // Throws std::logic_error when called from a callback and, basic, what f
  // throws: the timer f was handed has fired, those not yet handed stay
  // pending.
  template <queue_expiry_callback<T> F>
  std::size_t expire_all(F&& f) {
    return wheel_.expire_all([&](hook_type& h) { fire(static_cast<node&>(h), f); });
  }

  // Cancels every timer, destroying the values. O(capacity). Throws nothing.
  void clear() noexcept {
    for (std::size_t i = 0; i < capacity_; ++i) {
      node& n = at(static_cast<std::uint32_t>(i));
      if (n.pending()) {
        wheel_.cancel(n);
        release(n, static_cast<std::uint32_t>(i));
      }
    }
  }

  // Calls f(timer_id, const T&) for every pending timer, in no promised
  // order. f may not schedule or cancel. O(n + slots). Strong: throws what
  // f throws, having changed nothing.
  template <queue_pending_visitor<T> F>
  void for_each_pending(F&& f) const {
    wheel_.for_each_pending([&](const hook_type& h) {
      const node& n = static_cast<const node&>(h);
      const std::uint32_t index = index_of(n);
      f(timer_id{index, generation(index)}, n.value);
    });
  }

  // The wheel's invariants, and that the pool's idle and live nodes add up;
  // throws std::logic_error naming the first one broken. O(capacity).
  void check_invariants() const {
    wheel_.check_invariants();
    std::size_t live = 0;
    for (std::size_t i = 0; i < capacity_; ++i) {
      const node& n = at(static_cast<std::uint32_t>(i));
      if (index_of(n) != i) throw std::logic_error("timerwheel: invariant broken: a node's index");
      if (generation(static_cast<std::uint32_t>(i)) == 0)
        throw std::logic_error("timerwheel: invariant broken: a generation of 0");
      if (n.pending()) ++live;
    }
    if (live != live_ || live != wheel_.size())
      throw std::logic_error("timerwheel: invariant broken: live nodes disagree with size");
    std::size_t idle = 0;
    for (std::uint32_t i = free_; i != none_; i = at(i).next_free)
      if (++idle > capacity_ || at(i).pending())
        throw std::logic_error("timerwheel: invariant broken: the idle list");
    // A node whose value a callback holds is neither idle nor pending.
    if (idle + live + handing_ != capacity_)
      throw std::logic_error("timerwheel: invariant broken: idle and live nodes miss some");
  }

 private:
  using pool_layout = detail::pool_chunks;
  static constexpr std::uint32_t none_ = pool_layout::none;

  // Chunk c holds the nodes of indices from 64 * (2^c - 1) on, and their
  // generations (never 0, so no node matches timer_id{}).
  struct chunk {
    std::unique_ptr<node[]> nodes;
    std::unique_ptr<std::uint32_t[]> generations;
  };

  node& at(std::uint32_t index) const noexcept {
    const unsigned c = pool_layout::of(index);
    return chunks_[c].nodes[index - pool_layout::start(c)];
  }
  std::uint32_t& generation(std::uint32_t index) const noexcept {
    const unsigned c = pool_layout::of(index);
    return chunks_[c].generations[index - pool_layout::start(c)];
  }

  // The index of a node, from its address: the largest chunks, which hold
  // most nodes, are tried first.
  std::uint32_t index_of(const node& n) const noexcept {
    const auto address = reinterpret_cast<std::uintptr_t>(&n);
    for (unsigned c = static_cast<unsigned>(chunks_.size()); c-- > 0;) {
      const std::uintptr_t offset =
          address - reinterpret_cast<std::uintptr_t>(chunks_[c].nodes.get());
      if (offset < pool_layout::size(c) * sizeof(node))
        return static_cast<std::uint32_t>(pool_layout::start(c) + offset / sizeof(node));
    }
    return none_;  // not reached: every node lives in a chunk
  }

  node* find(timer_id id) const noexcept {
    if (id.index >= capacity_) return nullptr;
    node& n = at(id.index);
    return generation(id.index) == id.generation && n.pending() ? &n : nullptr;
  }

  void grow() {
    const std::size_t count = pool_layout::size(chunks_.size());
    if (capacity_ + count > none_)
      throw std::length_error("timerwheel: timer_queue: more than 2^32 - 64 timers");
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
  // Strong: when the move throws, the node stays idle.
  std::uint32_t acquire(T&& value) {
    if (free_ == none_) grow();
    const std::uint32_t index = free_;
    node& n = at(index);
    const std::uint32_t next = n.next_free;
    if constexpr (std::is_nothrow_move_constructible_v<T>) {
      ::new (static_cast<void*>(std::addressof(n.value))) T(std::move(value));
    } else {
      try {
        ::new (static_cast<void*>(std::addressof(n.value))) T(std::move(value));
      } catch (...) {
        // The value shares its storage with next_free, which a constructor
        // may have written before it threw.
        n.next_free = next;
        throw;
      }
    }
    free_ = next;
    ++live_;
    return index;
  }

  // Destroys the value of a node that no structure holds, makes every id of
  // it stale and puts it on the idle list.
  void recycle(node& n, std::uint32_t index) noexcept {
    n.value.~T();
    std::uint32_t& g = generation(index);
    if (++g == 0) g = 1;
    n.next_free = free_;
    free_ = index;
  }

  // recycle, for a node still counted as live.
  void release(node& n, std::uint32_t index) noexcept {
    recycle(n, index);
    --live_;
  }

  // While a callback holds a fired timer's value: the node is no longer
  // pending, and goes back to the pool when the callback returns or throws.
  class handing {
   public:
    handing(timer_queue& q, node& n, std::uint32_t index) noexcept : q_(q), n_(n), index_(index) {
      --q_.live_;
      ++q_.handing_;
    }
    handing(const handing&) = delete;
    handing& operator=(const handing&) = delete;
    ~handing() {
      --q_.handing_;
      q_.recycle(n_, index_);
    }

   private:
    timer_queue& q_;
    node& n_;
    std::uint32_t index_;
  };

  // While take_expired builds its result: releases the node once the value
  // is moved out, or, when the move throws, puts the timer back in the wheel.
  class taking {
   public:
    taking(timer_queue& q, node& n, std::uint32_t index) noexcept
        : q_(q),
          n_(n),
          index_(index),
          unwinding_(std::is_nothrow_move_constructible_v<T> ? 0 : std::uncaught_exceptions()) {}
    taking(const taking&) = delete;
    taking& operator=(const taking&) = delete;
    ~taking() {
      if constexpr (!std::is_nothrow_move_constructible_v<T>) {
        if (std::uncaught_exceptions() > unwinding_) {
          q_.wheel_.schedule(n_, q_.now());
          return;
        }
      }
      q_.release(n_, index_);
    }

   private:
    timer_queue& q_;
    node& n_;
    std::uint32_t index_;
    int unwinding_;
  };

  // Hands f the value where it lies: no move of T stands between the wheel
  // letting go of the timer and f receiving it, so none can throw there.
  template <class F>
  void fire(node& n, F& f) {
    const std::uint32_t index = index_of(n);
    const handing scope(*this, n, index);
    f(timer_id{index, generation(index)}, std::move(n.value));
  }

  // Declared before the wheel: the wheel unlinks its hooks, which live in
  // these chunks, before the chunks are freed.
  std::vector<chunk> chunks_;
  std::size_t capacity_ = 0;
  std::uint32_t free_ = none_;
  std::size_t live_ = 0;     // nodes holding a value: the pending timers
  std::size_t handing_ = 0;  // nodes whose value a callback holds
  wheel<Config> wheel_;
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI
