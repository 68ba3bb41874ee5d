// timerwheel::reference::hashed_wheel_sorted: scheme 5 of Varghese & Lauck,
// "Hashing with sorted lists in each bucket": a power-of-two table of
// TableSize slots, hashed on the low bits of the deadline, each slot a list
// sorted by deadline.
//
// Paper's costs (n pending timers, hashing uniform):
//   START_TIMER           O(1) average, O(n) worst   sorted insert into a slot
//   STOP_TIMER            O(1)                        unlink
//   PER_TICK_BOOKKEEPING  O(1)                        step to the next slot and
//                                                     compare its head
//
// The sorted insert searches the slot from its tail. advance steps one tick
// (one slot) at a time, so its cost grows with the ticks elapsed, as the
// paper's per-tick bookkeeping does; but after a whole revolution without a
// due timer every deadline is at least a revolution away, and the earliest is
// the least of the slots' heads (O(TableSize), the cost of the revolution
// just made), so the pointer jumps to it; an empty table jumps to the target.
// advance therefore costs O(min(ticks elapsed, 2 TableSize) per timer fired
// + fired). next_deadline is O(TableSize).
//
// Exact order: a slot is sorted by (deadline, scheduling order): a new timer
// goes after equal deadlines (FIFO), and equal deadlines share a slot, so the
// head of the slot of tick t, if its deadline is t, is the next to fire.
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
class hashed_wheel_sorted
    : public detail::scheme_base<hashed_wheel_sorted<Tick, TableSize>, Tick, true> {
  using base = detail::scheme_base<hashed_wheel_sorted<Tick, TableSize>, Tick, true>;
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
  explicit hashed_wheel_sorted(tick_type now = 0) noexcept : base(now) {
    for (link& s : slots_) timerwheel::detail::list_init(s);
  }

  // Unlinks every timer still pending, as clear() does.
  ~hashed_wheel_sorted() { this->clear(); }

 private:
  static constexpr const char* name = "hashed_wheel_sorted";
  static constexpr std::size_t mask = TableSize - 1;

  static std::size_t slot_of(tick_type t) noexcept { return static_cast<std::size_t>(t) & mask; }

  void place(hook_type& timer) noexcept {
    this->insert_in_order(slots_[slot_of(timer.deadline())], access::links(timer));
    ++held_;
  }

  // The (deadline, scheduling order) place is before equal deadlines.
  void place_old(hook_type& timer) noexcept { place(timer); }

  void remove(hook_type& timer) noexcept {
    timerwheel::detail::list_unlink(access::links(timer));
    --held_;
  }

  hook_type* pop_due(tick_type to) noexcept {
    if (held_ == 0) return nullptr;
    tick_type t = this->now_;
    for (std::size_t idle = 0;;) {
      link& slot = slots_[slot_of(t)];
      if (!timerwheel::detail::list_empty(slot) && base::deadline_of(*slot.next) == t) {
        link& node = *slot.next;
        timerwheel::detail::list_unlink(node);
        --held_;
        return &base::hook_of(node);
      }
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
    std::optional<tick_type> best;
    for (const link& s : slots_)
      if (!timerwheel::detail::list_empty(s) &&
          (!best || this->distance(base::deadline_of(*s.next)) < this->distance(*best)))
        best = base::deadline_of(*s.next);
    return best;
  }

  void gather(link& batch) noexcept {
    link taken;
    timerwheel::detail::list_init(taken);
    for (link& s : slots_) timerwheel::detail::list_splice_back(taken, s);
    this->sort_by_firing_order(taken);
    timerwheel::detail::list_splice_back(batch, taken);
    held_ = 0;
  }

  void drop_all() noexcept {
    for (link& s : slots_) base::unlink_all(s);
    held_ = 0;
  }

  template <class F>
  void visit_held(F& f) const {
    for (const link& s : slots_) base::visit(s, f);
  }

  std::size_t check_scheme() const {
    std::size_t counted = 0;
    for (std::size_t i = 0; i < TableSize; ++i)
      counted += this->check_list(
          slots_[i], false, [&](const hook_type& timer) { return slot_of(timer.deadline()) == i; });
    if (counted != held_) base::fail("the count of held timers disagrees");
    return counted;
  }

  std::array<link, TableSize> slots_;  // each in firing order
  std::size_t held_ = 0;
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI::reference
