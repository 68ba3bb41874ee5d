// timerwheel::reference::hashed_wheel_unordered: scheme 6 of Varghese & Lauck,
// "Hashing with unsorted lists in each bucket": a power-of-two table of
// TableSize slots, hashed on the low bits of the deadline, each slot an
// unordered list examined whole at every tick.
//
// Paper's costs (n pending timers, hashing uniform):
//   START_TIMER           O(1)              append to a slot
//   STOP_TIMER            O(1)              unlink
//   PER_TICK_BOOKKEEPING  O(n / TableSize)  examine every timer of the slot
//
// The paper keeps a count of revolutions with each timer and decrements it;
// here a timer keeps its absolute deadline and the bookkeeping compares it
// with the tick. advance steps one tick (one slot) at a time, so its cost
// grows with the ticks elapsed; after a whole revolution without a due timer
// (which examined every timer once) the earliest deadline is found by one
// more pass over every timer, O(n + TableSize), and the pointer jumps to it;
// an empty table jumps to the target. next_deadline is O(n + TableSize).
//
// Exact order: each slot is kept in scheduling order (append; a reschedule
// unlinks first). At tick t the bookkeeping moves the slot's timers of
// deadline t, in list order, to a due list and fires it front first: equal
// deadlines share a slot, so that is scheduling order. A timer that a
// callback schedules for the same tick is appended to the slot and found
// by the next examination, after the due list: it is newer.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "../detail/abi.hpp"
#include "../detail/link.hpp"
#include "detail/scheme_base.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::reference {

template <class Tick = std::uint64_t, std::size_t TableSize = 256>
class hashed_wheel_unordered
    : public detail::scheme_base<hashed_wheel_unordered<Tick, TableSize>, Tick, true> {
  using base = detail::scheme_base<hashed_wheel_unordered<Tick, TableSize>, Tick, true>;
  friend base;
  using link = detail::link;
  using access = typename base::access;

  static_assert(TableSize >= 1 && std::has_single_bit(TableSize), "TableSize is a power of two");
  static_assert(static_cast<unsigned>(std::countr_zero(TableSize)) <=
                    detail::tick_traits<Tick>::digits,
                "TableSize exceeds the tick type's range");

 public:
  using typename base::hook_type;
  using typename base::tick_type;

  static constexpr std::size_t table_size = TableSize;

  // An empty table whose time is `now` (ticks). O(TableSize).
  explicit hashed_wheel_unordered(tick_type now = 0) noexcept : base(now) {
    for (link& s : slots_) timerwheel::detail::list_init(s);
    timerwheel::detail::list_init(due_);
  }

  // Unlinks every timer still pending, as clear() does.
  ~hashed_wheel_unordered() { this->clear(); }

 private:
  static constexpr const char* name = "hashed_wheel_unordered";
  static constexpr std::size_t mask = TableSize - 1;

  static std::size_t slot_of(tick_type t) noexcept { return static_cast<std::size_t>(t) & mask; }

  void place(hook_type& timer) noexcept {
    timerwheel::detail::list_push_back(slots_[slot_of(timer.deadline())], access::links(timer));
    ++held_;
  }

  void place_old(hook_type& timer) noexcept {
    link& node = access::links(timer);
    if (!timerwheel::detail::list_empty(due_) && base::deadline_of(*due_.next) == timer.deadline())
      timerwheel::detail::list_push_front(due_, node);
    else
      timerwheel::detail::list_push_front(slots_[slot_of(timer.deadline())], node);
    ++held_;
  }

  void remove(hook_type& timer) noexcept {
    timerwheel::detail::list_unlink(access::links(timer));
    --held_;
  }

  hook_type* take_due() noexcept {
    link& node = *due_.next;
    timerwheel::detail::list_unlink(node);
    --held_;
    return &base::hook_of(node);
  }

  hook_type* pop_due(tick_type to) noexcept {
    if (!timerwheel::detail::list_empty(due_)) return take_due();  // due at now
    if (held_ == 0) return nullptr;
    tick_type t = this->now_;
    for (std::size_t idle = 0;;) {
      // The bookkeeping of tick t: examine every timer of its slot.
      link& slot = slots_[slot_of(t)];
      for (link* n = slot.next; n != &slot;) {
        link* const next = n->next;
        if (base::deadline_of(*n) == t) {
          timerwheel::detail::list_unlink(*n);
          timerwheel::detail::list_push_back(due_, *n);
        }
        n = next;
      }
      if (!timerwheel::detail::list_empty(due_)) return take_due();
      if (t == to) return nullptr;
      if (++idle == TableSize) {
        // A revolution found nothing due: jump to the earliest deadline.
        const tick_type next = *earliest();
        if (this->distance(next) > this->distance(to)) return nullptr;
        t = next;
        idle = 0;
        continue;
      }
      ++t;
    }
  }

  std::optional<tick_type> earliest() const noexcept {
    if (!timerwheel::detail::list_empty(due_)) return base::deadline_of(*due_.next);
    std::optional<tick_type> best;
    for (const link& s : slots_)
      for (const link* n = s.next; n != &s; n = n->next)
        if (!best || this->distance(base::deadline_of(*n)) < this->distance(*best))
          best = base::deadline_of(*n);
    return best;
  }

  void gather(link& batch) noexcept {
    link taken;
    timerwheel::detail::list_init(taken);
    timerwheel::detail::list_splice_back(taken, due_);
    for (link& s : slots_) timerwheel::detail::list_splice_back(taken, s);
    this->sort_by_firing_order(taken);
    timerwheel::detail::list_splice_back(batch, taken);
    held_ = 0;
  }

  void drop_all() noexcept {
    base::unlink_all(due_);
    for (link& s : slots_) base::unlink_all(s);
    held_ = 0;
  }

  template <class F>
  void visit_held(F& f) const {
    base::visit(due_, f);
    for (const link& s : slots_) base::visit(s, f);
  }

  std::size_t check_scheme() const {
    std::size_t counted = this->check_list(
        due_, true, [&](const hook_type& timer) { return timer.deadline() == this->now_; });
    for (std::size_t i = 0; i < TableSize; ++i)
      counted += this->check_list(
          slots_[i], true, [&](const hook_type& timer) { return slot_of(timer.deadline()) == i; });
    if (counted != held_) base::fail("the count of held timers disagrees");
    return counted;
  }

  std::array<link, TableSize> slots_;  // each in scheduling order
  link due_;  // the timers due at now found by the bookkeeping, in scheduling order
  std::size_t held_ = 0;
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI::reference
