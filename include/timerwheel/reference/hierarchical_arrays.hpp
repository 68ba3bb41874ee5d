// timerwheel::reference::hierarchical_arrays: scheme 7 of Varghese & Lauck,
// "Exploiting hierarchy": arrays of different granularity, by default the
// paper's 60 seconds, 60 minutes, 24 hours and 100 days (one tick is a
// second), with the remainder stored with the timer and an overflow list
// beyond the top array.
//
// Paper's costs (m arrays):
//   START_TIMER           O(m)   find the array of the deadline's highest
//                                digit that differs from now's, link into the
//                                slot of that digit, store the lower digits
//                                (the remainder) with the timer
//   STOP_TIMER            O(1)   unlink (O(m) here: the array's count is kept,
//                                and the array is recomputed from the deadline)
//   PER_TICK_BOOKKEEPING  O(1) average: step the seconds pointer and fire its
//                                slot; when a coarser pointer moves (the finer
//                                array turned over), move the timers of its new
//                                slot down to the array their remainder names
//
// Time is read in mixed radix: digit k of tick t is (t / span_k) mod
// radix_k, span_k the product of the radices below k. A timer sits in the
// array of the highest digit in which its deadline differs from now, in the
// slot of that digit (the paper's "11 - 10 hours ahead"), or in the overflow
// list when it differs above the top array; it stores its deadline modulo
// span_k. When pointer k moves to a slot (now reaches the slot's start), each
// of its timers is placed again at now + remainder: a cascade, always into a
// finer array. Overflow timers are placed again when the top array turns
// over into their block.
//
// Wrapping ticks: the mixed-radix digits of a wrapping tick would jump at
// the wrap, so the scheme reads time on an unwrapped 64-bit clock of its own
// that starts at the initial now and moves with it; a deadline is the clock
// plus its distance from now.
//
// advance is tick-driven, as the paper's per-tick bookkeeping: it steps the
// seconds pointer one tick at a time while the seconds array holds a timer.
// The paper keeps a timer in each finer array to move the coarser pointers
// even when nothing is pending; here, while the arrays below k are empty,
// nothing can happen until pointer k next moves, so the clock jumps there;
// with only overflow timers it jumps to the block of the earliest; an empty
// structure jumps to the target. So advance costs O(ticks at which the
// seconds array is non-empty + pointer moves of the lowest non-empty array +
// fired + cascaded), bounded by the radices per coarser step whatever the
// ticks elapsed. next_deadline is O(slots + timers in the earliest slot, or
// the overflow list).
//
// Exact order: every list is kept in scheduling order (append; a reschedule
// unlinks first), and a cascade runs only when the finer arrays are empty
// (everything before the slot's start has fired), moving one slot's timers,
// in order, into empty lists; the overflow is brought in when every array is
// empty. So a seconds slot, which holds one deadline, drained front first
// fires equal deadlines in scheduling order; this is the wheel's argument.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>

#include "../detail/abi.hpp"
#include "../detail/link.hpp"
#include "detail/scheme_base.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::reference {

// The slots of each array, finest first: radices<60, 60, 24, 100> is the
// paper's seconds, minutes, hours and days.
template <std::uint64_t... Radices>
struct radices {
  static_assert(sizeof...(Radices) >= 1, "at least one array");
  static_assert(((Radices >= 2) && ...), "every array has at least two slots");
  static constexpr std::size_t count = sizeof...(Radices);
  static constexpr std::array<std::uint64_t, count> values{Radices...};
};

using paper_radices = radices<60, 60, 24, 100>;

template <class Tick = std::uint64_t, class Radices = paper_radices>
class hierarchical_arrays
    : public detail::scheme_base<hierarchical_arrays<Tick, Radices>, Tick, true> {
  using base = detail::scheme_base<hierarchical_arrays<Tick, Radices>, Tick, true>;
  friend base;
  using link = detail::link;
  using access = typename base::access;
  using clock_type = std::uint64_t;

 public:
  using typename base::hook_type;
  using typename base::tick_type;
  using radices_type = Radices;

  // The arrays, finest first.
  static constexpr std::size_t levels = Radices::count;

  // span[k]: the ticks of one slot of array k; span[levels]: the ticks the
  // arrays cover together (a block; beyond it, the overflow list).
  static constexpr std::array<clock_type, levels + 1> span = [] {
    std::array<clock_type, levels + 1> s{};
    s[0] = 1;
    for (std::size_t k = 0; k < levels; ++k)
      s[k + 1] = Radices::values[k] <= std::numeric_limits<clock_type>::max() / s[k]
                     ? s[k] * Radices::values[k]
                     : 0;  // refused below
    return s;
  }();

  // An empty structure whose time is `now` (ticks). O(slots).
  explicit hierarchical_arrays(tick_type now = 0) noexcept : base(now), clock_(now) {
    for (link& s : slots_) timerwheel::detail::list_init(s);
    timerwheel::detail::list_init(overflow_);
  }

  // Unlinks every timer still pending, as clear() does.
  ~hierarchical_arrays() { this->clear(); }

 private:
  static constexpr const char* name = "hierarchical_arrays";

  static constexpr bool spans_fit = [] {
    for (clock_type s : span)
      if (s == 0) return false;
    return true;
  }();
  static_assert(spans_fit, "the radices multiply beyond 64 bits");

  static constexpr std::array<std::size_t, levels + 1> offset = [] {
    std::array<std::size_t, levels + 1> o{};
    for (std::size_t k = 0; k < levels; ++k)
      o[k + 1] = o[k] + static_cast<std::size_t>(Radices::values[k]);
    return o;
  }();

  static std::size_t digit(clock_type t, std::size_t k) noexcept {
    return static_cast<std::size_t>(t / span[k] % Radices::values[k]);
  }

  // The deadline of a held timer on the unwrapped clock. (Inside pop_due
  // the clock runs ahead of now; every held deadline is at or after it.)
  clock_type unwrapped(tick_type deadline) const noexcept {
    return clock_ + static_cast<tick_type>(deadline - static_cast<tick_type>(clock_));
  }

  // The array of `t` (at or after the clock): that of the highest digit in
  // which it differs from the clock; `levels` for the overflow list.
  std::size_t level_of(clock_type t) const noexcept {
    std::size_t k = 0;
    while (k < levels && t / span[k + 1] != clock_ / span[k + 1]) ++k;
    return k;
  }

  link& slot(std::size_t level, std::size_t d) noexcept { return slots_[offset[level] + d]; }

  // START_TIMER proper: links the timer due at `t` into its array and slot,
  // the remainder stored with it; at the front to put back an older timer.
  void place_at(hook_type& timer, clock_type t, bool at_front) noexcept {
    const std::size_t k = level_of(t);
    link* list = &overflow_;
    if (k < levels) {
      list = &slot(k, digit(t, k));
      access::set_word(timer, t % span[k]);
      ++counts_[k];
    } else {
      access::set_word(timer, 0);
      ++overflow_count_;
    }
    if (at_front)
      timerwheel::detail::list_push_front(*list, access::links(timer));
    else
      timerwheel::detail::list_push_back(*list, access::links(timer));
  }

  void place(hook_type& timer) noexcept {
    place_at(timer, unwrapped(timer.deadline()), false);
    ++held_;
  }

  void place_old(hook_type& timer) noexcept {
    place_at(timer, unwrapped(timer.deadline()), true);
    ++held_;
  }

  void remove(hook_type& timer) noexcept {
    const std::size_t k = level_of(unwrapped(timer.deadline()));
    timerwheel::detail::list_unlink(access::links(timer));
    if (k < levels)
      --counts_[k];
    else
      --overflow_count_;
    --held_;
  }

  // The first multiple of `step` after `t`, if the clock reaches it.
  static bool next_multiple(clock_type t, clock_type step, clock_type& out) noexcept {
    const clock_type start = t - t % step;
    if (start > std::numeric_limits<clock_type>::max() - step) return false;
    out = start + step;
    return true;
  }

  hook_type* pop_due(tick_type to) noexcept {
    const clock_type target = clock_ + this->distance(to);
    for (;;) {
      link& current = slot(0, digit(clock_, 0));
      if (!timerwheel::detail::list_empty(current)) {
        link& node = *current.next;  // due at the clock: the slot holds one deadline
        timerwheel::detail::list_unlink(node);
        --counts_[0];
        --held_;
        return &base::hook_of(node);
      }
      // When anything next happens: the next tick while the seconds array
      // holds a timer, else the next move of the lowest non-empty array's
      // pointer, else the block of the earliest overflow timer.
      std::size_t k = 0;
      while (k < levels && counts_[k] == 0) ++k;
      clock_type next = 0;
      bool reached = held_ != 0;
      if (reached && k < levels) {
        reached = next_multiple(clock_, span[k], next);
      } else if (reached) {
        const clock_type first = earliest_overflow();
        next = first - first % span[levels];
      }
      if (!reached || next > target) {
        clock_ = target;
        return nullptr;
      }
      clock_ = next;
      turn();
    }
  }

  // The clock has reached a tick: moves the pointers that move at it, the
  // coarsest first (each cascade lands in the finer arrays, whose pointers
  // then move to the same tick).
  void turn() noexcept {
    if (clock_ % span[levels] == 0 && overflow_count_ != 0) bring_overflow();
    for (std::size_t k = levels; k-- > 1;)
      if (clock_ % span[k] == 0) cascade(k);
  }

  // Pointer k has moved to a slot: its timers go down, each at the slot's
  // start (the clock) plus its remainder.
  void cascade(std::size_t k) noexcept {
    link moving;
    timerwheel::detail::list_init(moving);
    timerwheel::detail::list_splice_back(moving, slot(k, digit(clock_, k)));
    while (!timerwheel::detail::list_empty(moving)) {
      link& node = *moving.next;
      timerwheel::detail::list_unlink(node);
      --counts_[k];
      hook_type& timer = base::hook_of(node);
      place_at(timer, clock_ + access::word(timer), false);
    }
  }

  // The top array has turned over into a new block: its overflow timers come in.
  void bring_overflow() noexcept {
    for (link* n = overflow_.next; n != &overflow_;) {
      link* const next = n->next;
      const clock_type t = unwrapped(base::deadline_of(*n));
      if (t / span[levels] == clock_ / span[levels]) {
        timerwheel::detail::list_unlink(*n);
        --overflow_count_;
        place_at(base::hook_of(*n), t, false);
      }
      n = next;
    }
  }

  clock_type earliest_overflow() const noexcept {
    clock_type best = std::numeric_limits<clock_type>::max();
    for (const link* n = overflow_.next; n != &overflow_; n = n->next) {
      const clock_type t = unwrapped(base::deadline_of(*n));
      if (t < best) best = t;
    }
    return best;
  }

  std::optional<tick_type> earliest() const noexcept {
    if (held_ == 0) return std::nullopt;
    for (std::size_t k = 0; k < levels; ++k) {
      if (counts_[k] == 0) continue;
      // Every timer of the lowest non-empty array is earlier than any of a
      // coarser array; its first occupied slot from the pointer holds the
      // earliest.
      for (std::size_t d = digit(clock_, k); d < Radices::values[k]; ++d) {
        const link& s = slots_[offset[k] + d];
        if (timerwheel::detail::list_empty(s)) continue;
        tick_type best = base::deadline_of(*s.next);
        for (const link* n = s.next->next; n != &s; n = n->next)
          if (this->distance(base::deadline_of(*n)) < this->distance(best))
            best = base::deadline_of(*n);
        return best;
      }
    }
    const clock_type first = earliest_overflow();
    return static_cast<tick_type>(first);
  }

  void gather(link& batch) noexcept {
    link taken;
    timerwheel::detail::list_init(taken);
    for (link& s : slots_) timerwheel::detail::list_splice_back(taken, s);
    timerwheel::detail::list_splice_back(taken, overflow_);
    this->sort_by_firing_order(taken);
    timerwheel::detail::list_splice_back(batch, taken);
    counts_ = {};
    overflow_count_ = 0;
    held_ = 0;
  }

  void drop_all() noexcept {
    for (link& s : slots_) base::unlink_all(s);
    base::unlink_all(overflow_);
    counts_ = {};
    overflow_count_ = 0;
    held_ = 0;
  }

  template <class F>
  void visit_held(F& f) const {
    for (const link& s : slots_) base::visit(s, f);
    base::visit(overflow_, f);
  }

  std::size_t check_scheme() const {
    if (static_cast<tick_type>(clock_) != this->now_)
      base::fail("the unwrapped clock disagrees with now");
    std::size_t total = 0;
    for (std::size_t k = 0; k < levels; ++k) {
      std::size_t in_level = 0;
      for (std::size_t d = 0; d < Radices::values[k]; ++d) {
        in_level += this->check_list(slots_[offset[k] + d], true, [&](const hook_type& timer) {
          const clock_type t = unwrapped(timer.deadline());
          if (access::word(timer) != t % span[k]) base::fail("a timer's remainder is wrong");
          return level_of(t) == k && digit(t, k) == d;
        });
      }
      if (in_level != counts_[k]) base::fail("an array's count disagrees");
      total += in_level;
    }
    const std::size_t over = this->check_list(overflow_, true, [&](const hook_type& timer) {
      return level_of(unwrapped(timer.deadline())) == levels;
    });
    if (over != overflow_count_) base::fail("the overflow count disagrees");
    total += over;
    if (total != held_) base::fail("the count of held timers disagrees");
    return total;
  }

  std::array<link, offset[levels]> slots_;  // array k's slots from offset[k]
  link overflow_;                           // beyond the top array
  std::array<std::size_t, levels> counts_{};
  std::size_t overflow_count_ = 0;
  std::size_t held_ = 0;
  clock_type clock_;  // now, unwrapped: every timer is placed relative to it
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI::reference
