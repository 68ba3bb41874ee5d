// timerwheel::reference::basic_wheel: scheme 4 of Varghese & Lauck, "Basic
// scheme": a circular array with one slot per tick, as far ahead as
// MaxInterval ticks.
//
// Paper's costs:
//   START_TIMER           O(1)   link into the slot of the deadline
//   STOP_TIMER            O(1)   unlink
//   PER_TICK_BOOKKEEPING  O(1)   step the pointer to the next slot, fire what
//                                it holds
//
// A deadline more than MaxInterval ticks ahead of now is refused with
// std::invalid_argument, changing nothing (the scheme has no place for it).
// The array has the power of two of slots above MaxInterval, indexed by the
// deadline's low bits, so a slot holds timers of one deadline only (every
// pending deadline lies in [now, now + MaxInterval]).
//
// advance steps the pointer one tick at a time: its cost grows with the ticks
// elapsed, as the paper's per-tick bookkeeping does, but the pointer never
// walks more than MaxInterval ticks past now before it meets a timer, and an
// empty wheel jumps straight to the target. So advance costs O(min(ticks
// elapsed, MaxInterval) + fired). next_deadline, for_each_pending and clear
// walk the slots from now: O(MaxInterval) at most; check_invariants
// O(slots + n).
//
// Exact order: each slot is kept in scheduling order (append; a reschedule
// unlinks first) and holds one deadline, so draining it front first is
// (deadline, scheduling order).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include "../detail/abi.hpp"
#include "../detail/link.hpp"
#include "detail/scheme_base.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::reference {

namespace detail {
// 2^16 ticks, or as far ahead as a wrapping tick type reaches.
template <class Tick>
inline constexpr std::size_t default_max_interval = static_cast<std::size_t>(
    std::min<std::uint64_t>(std::uint64_t{1} << 16, tick_traits<Tick>::max_ahead));
}  // namespace detail

template <class Tick = std::uint64_t, std::size_t MaxInterval = detail::default_max_interval<Tick>>
class basic_wheel : public detail::scheme_base<basic_wheel<Tick, MaxInterval>, Tick, false> {
  using base = detail::scheme_base<basic_wheel<Tick, MaxInterval>, Tick, false>;
  friend base;
  using link = detail::link;
  using access = typename base::access;

  static_assert(MaxInterval >= 1, "MaxInterval is at least one tick");
  static_assert(MaxInterval <= detail::tick_traits<Tick>::max_ahead,
                "MaxInterval lies beyond the nearest-instant range of the tick type");
  static_assert(MaxInterval < (std::size_t{1} << (sizeof(std::size_t) * 8 - 2)),
                "MaxInterval is too large for an array");

 public:
  using typename base::hook_type;
  using typename base::tick_type;

  // The farthest ahead of now (ticks) a deadline may lie.
  static constexpr std::size_t max_interval = MaxInterval;
  static constexpr std::size_t slot_count = std::bit_ceil(MaxInterval + 1);

  // An empty wheel whose time is `now` (ticks). O(slots); allocates the
  // slots (throws std::bad_alloc).
  explicit basic_wheel(tick_type now = 0) : base(now), slots_(slot_count) {
    for (link& s : slots_) timerwheel::detail::list_init(s);
  }

  // Unlinks every timer still pending, as clear() does.
  ~basic_wheel() { this->clear(); }

 private:
  static constexpr const char* name = "basic_wheel";
  static constexpr std::size_t mask = slot_count - 1;

  static std::size_t slot_of(tick_type t) noexcept { return static_cast<std::size_t>(t) & mask; }

  void admit(tick_type deadline) const {
    if (this->distance(deadline) > MaxInterval)
      throw std::invalid_argument(
          "timerwheel: reference::basic_wheel: the deadline is more than MaxInterval ticks ahead");
  }

  void place(hook_type& timer) noexcept {
    timerwheel::detail::list_push_back(slots_[slot_of(timer.deadline())], access::links(timer));
    ++held_;
  }

  void place_old(hook_type& timer) noexcept {
    timerwheel::detail::list_push_front(slots_[slot_of(timer.deadline())], access::links(timer));
    ++held_;
  }

  void remove(hook_type& timer) noexcept {
    timerwheel::detail::list_unlink(access::links(timer));
    --held_;
  }

  hook_type* pop_due(tick_type to) noexcept {
    if (held_ == 0) return nullptr;
    // The bookkeeping: one slot a tick, from now. A timer lies at most
    // MaxInterval ticks ahead, so the walk ends there at the latest.
    for (tick_type t = this->now_;; ++t) {
      link& slot = slots_[slot_of(t)];
      if (!timerwheel::detail::list_empty(slot)) {
        link& node = *slot.next;
        timerwheel::detail::list_unlink(node);
        --held_;
        return &base::hook_of(node);
      }
      if (t == to) return nullptr;
    }
  }

  // Calls f(slot) for each occupied slot in time order from now, until every
  // held timer has been met. f may empty the slot.
  template <class F>
  void walk(F f) const {
    std::size_t left = held_;
    for (tick_type t = this->now_; left != 0; ++t) {
      const link& slot = slots_[slot_of(t)];
      std::size_t n = 0;
      for (const link* p = slot.next; p != &slot; p = p->next) ++n;
      if (n != 0) f(slot_of(t));
      left -= n;
    }
  }

  std::optional<tick_type> earliest() const noexcept {
    if (held_ == 0) return std::nullopt;
    for (tick_type t = this->now_;; ++t)
      if (!timerwheel::detail::list_empty(slots_[slot_of(t)])) return t;
  }

  void gather(link& batch) noexcept {
    walk([&](std::size_t i) { timerwheel::detail::list_splice_back(batch, slots_[i]); });
    held_ = 0;
  }

  void drop_all() noexcept {
    walk([&](std::size_t i) { base::unlink_all(slots_[i]); });
    held_ = 0;
  }

  template <class F>
  void visit_held(F& f) const {
    walk([&](std::size_t i) { base::visit(slots_[i], f); });
  }

  std::size_t check_scheme() const {
    std::size_t counted = 0;
    for (std::size_t i = 0; i < slot_count; ++i)
      counted += this->check_list(slots_[i], true, [&](const hook_type& timer) {
        return slot_of(timer.deadline()) == i && this->distance(timer.deadline()) <= MaxInterval;
      });
    if (counted != held_) base::fail("the count of held timers disagrees");
    return counted;
  }

  std::vector<link> slots_;  // each in scheduling order, one deadline each
  std::size_t held_ = 0;
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI::reference
