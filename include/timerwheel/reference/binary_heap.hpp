// timerwheel::reference::binary_heap: scheme 3 of Varghese & Lauck, "Tree-based
// algorithms", as an indexed binary min-heap of timer pointers (the priority
// queue of most event loops: libuv, libevent, Boost.Asio).
//
// Paper's costs (n pending timers):
//   START_TIMER           O(log n)  sift the new timer up
//   STOP_TIMER            O(log n)  move the last timer into its place, sift
//   PER_TICK_BOOKKEEPING  O(1)      compare the root's deadline with the time
//
// Each hook keeps its index in the array, so STOP_TIMER needs no search.
// advance costs O(1) plus O(log n) per timer fired, whatever the ticks
// elapsed; next_deadline is O(1). The array grows by doubling (amortized,
// never per timer once warm); schedule reserves room for every pending timer
// before it changes anything, so a timer expire_all puts back never needs to
// allocate. schedule throws std::bad_alloc where the array cannot grow.
//
// Exact order: a heap is not stable, so the key is (deadline, scheduling
// sequence number); the sequence number is the hook's.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "../detail/abi.hpp"
#include "detail/scheme_base.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::reference {

template <class Tick = std::uint64_t>
class binary_heap : public detail::scheme_base<binary_heap<Tick>, Tick, false> {
  using base = detail::scheme_base<binary_heap<Tick>, Tick, false>;
  friend base;
  using link = detail::link;
  using access = typename base::access;

 public:
  using typename base::hook_type;
  using typename base::tick_type;

  // An empty heap whose time is `now` (ticks). O(1); allocates nothing.
  explicit binary_heap(tick_type now = 0) noexcept : base(now) {}

  // Unlinks every timer still pending, as clear() does.
  ~binary_heap() { this->clear(); }

 private:
  static constexpr const char* name = "binary_heap";

  static std::size_t index_of(const hook_type& timer) noexcept {
    return static_cast<std::size_t>(access::word(timer));
  }

  void set(std::size_t i, hook_type* timer) noexcept {
    heap_[i] = timer;
    access::set_word(*timer, i);
  }

  bool less(std::size_t a, std::size_t b) const noexcept {
    return this->fires_before(*heap_[a], *heap_[b]);
  }

  void sift_up(std::size_t i) noexcept {
    hook_type* const timer = heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / 2;
      if (!this->fires_before(*timer, *heap_[parent])) break;
      set(i, heap_[parent]);
      i = parent;
    }
    set(i, timer);
  }

  void sift_down(std::size_t i) noexcept {
    hook_type* const timer = heap_[i];
    const std::size_t n = heap_.size();
    for (;;) {
      std::size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && this->fires_before(*heap_[child + 1], *heap_[child])) ++child;
      if (!this->fires_before(*heap_[child], *timer)) break;
      set(i, heap_[child]);
      i = child;
    }
    set(i, timer);
  }

  // Room for every pending timer and one more, so that place, place_old and
  // the restore of expire_all never allocate.
  void admit(tick_type) {
    const std::size_t need = this->size() + 1;
    if (heap_.capacity() < need)
      heap_.reserve(std::max({need, 2 * heap_.capacity(), std::size_t{16}}));
  }

  void place(hook_type& timer) noexcept {
    heap_.push_back(&timer);
    sift_up(heap_.size() - 1);
  }

  // The key holds the sequence number, so an old timer needs no special place.
  void place_old(hook_type& timer) noexcept { place(timer); }

  void remove(hook_type& timer) noexcept {
    const std::size_t i = index_of(timer);
    hook_type* const last = heap_.back();
    heap_.pop_back();
    if (i == heap_.size()) return;
    set(i, last);
    if (i > 0 && less(i, (i - 1) / 2))
      sift_up(i);
    else
      sift_down(i);
  }

  hook_type* pop_due(tick_type to) noexcept {
    if (heap_.empty() || this->distance(heap_.front()->deadline()) > this->distance(to))
      return nullptr;
    hook_type* const timer = heap_.front();
    remove(*timer);
    return timer;
  }

  std::optional<tick_type> earliest() const noexcept {
    if (heap_.empty()) return std::nullopt;
    return heap_.front()->deadline();
  }

  void gather(link& batch) noexcept {
    link taken;
    timerwheel::detail::list_init(taken);
    for (hook_type* timer : heap_) timerwheel::detail::list_push_back(taken, access::links(*timer));
    heap_.clear();
    this->sort_by_firing_order(taken);
    timerwheel::detail::list_splice_back(batch, taken);
  }

  void drop_all() noexcept {
    for (hook_type* timer : heap_) access::set_state(*timer, detail::hook_state::idle);
    heap_.clear();
  }

  template <class F>
  void visit_held(F& f) const {
    for (const hook_type* timer : heap_) f(*timer);
  }

  std::size_t check_scheme() const {
    for (std::size_t i = 0; i < heap_.size(); ++i) {
      const hook_type& timer = *heap_[i];
      this->check_held(timer);
      if (index_of(timer) != i) base::fail("a timer's index disagrees with its place");
      if (access::links(timer).next != nullptr) base::fail("a timer in the heap is linked");
      if (i > 0 && less(i, (i - 1) / 2)) base::fail("a timer fires before its parent");
    }
    return heap_.size();
  }

  std::vector<hook_type*> heap_;
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI::reference
