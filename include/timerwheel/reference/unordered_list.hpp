// timerwheel::reference::unordered_list: scheme 1 of Varghese & Lauck,
// "Straightforward": timers in an unordered list.
//
// Paper's costs (n pending timers):
//   START_TIMER           O(1)   append to the list
//   STOP_TIMER            O(1)   unlink (doubly linked)
//   PER_TICK_BOOKKEEPING  O(n)   every timer is examined at every tick
//
// Here a timer keeps its absolute deadline, and the bookkeeping compares
// deadlines instead of decrementing intervals. A pass over the list at a tick
// where nothing expires finds nothing, so one pass per advance covers every
// tick up to the target: advance costs O(n) whatever the ticks elapsed (plus
// one more pass once the due timers are spent, to catch timers that callbacks
// scheduled). next_deadline is O(n).
//
// Exact order: the list is kept in scheduling order (append; a reschedule
// unlinks first). The pass moves every timer due by the target into a due
// list, in list order, and sorts it stably by deadline: that is (deadline,
// scheduling order). The ordering work is expiry's, never START_TIMER's,
// except that a timer scheduled while due timers wait, at or before the last
// of them (a callback scheduling into the current advance), is inserted into
// the due list in order. Every timer of the list is later than every due one.
#pragma once

#include <cstdint>
#include <optional>

#include "../detail/abi.hpp"
#include "../detail/link.hpp"
#include "detail/scheme_base.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::reference {

template <class Tick = std::uint64_t>
class unordered_list : public detail::scheme_base<unordered_list<Tick>, Tick, true> {
  using base = detail::scheme_base<unordered_list<Tick>, Tick, true>;
  friend base;
  using link = detail::link;
  using access = typename base::access;

 public:
  using typename base::hook_type;
  using typename base::tick_type;

  // An empty structure whose time is `now` (ticks). O(1).
  explicit unordered_list(tick_type now = 0) noexcept : base(now) {
    timerwheel::detail::list_init(timers_);
    timerwheel::detail::list_init(due_);
  }

  // Unlinks every timer still pending, as clear() does.
  ~unordered_list() { this->clear(); }

 private:
  static constexpr const char* name = "unordered_list";

  // Whether `deadline` belongs with the due timers: at or before the last.
  bool joins_due(tick_type deadline) const noexcept {
    return !timerwheel::detail::list_empty(due_) &&
           this->distance(deadline) <= this->distance(base::deadline_of(*due_.prev));
  }

  void place(hook_type& timer) noexcept {
    link& node = access::links(timer);
    if (joins_due(timer.deadline()))
      this->insert_in_order(due_, node);
    else
      timerwheel::detail::list_push_back(timers_, node);
  }

  void place_old(hook_type& timer) noexcept {
    link& node = access::links(timer);
    if (joins_due(timer.deadline()))
      this->insert_in_order(due_, node);
    else
      timerwheel::detail::list_push_front(timers_, node);
  }

  static void remove(hook_type& timer) noexcept {
    timerwheel::detail::list_unlink(access::links(timer));
  }

  hook_type* pop_due(tick_type to) noexcept {
    if (timerwheel::detail::list_empty(due_)) {
      // The bookkeeping pass: every timer is examined once.
      const tick_type horizon = this->distance(to);
      for (link* n = timers_.next; n != &timers_;) {
        link* const next = n->next;
        if (this->distance(base::deadline_of(*n)) <= horizon) {
          timerwheel::detail::list_unlink(*n);
          timerwheel::detail::list_push_back(due_, *n);
        }
        n = next;
      }
      sort_by_deadline(due_);
    }
    if (timerwheel::detail::list_empty(due_) ||
        this->distance(base::deadline_of(*due_.next)) > this->distance(to))
      return nullptr;
    link& node = *due_.next;
    timerwheel::detail::list_unlink(node);
    return &base::hook_of(node);
  }

  // A stable sort by deadline of a list in scheduling order.
  void sort_by_deadline(link& list) const noexcept {
    timerwheel::detail::list_sort(list, [this](const link& a, const link& b) {
      return this->distance(base::deadline_of(a)) < this->distance(base::deadline_of(b));
    });
  }

  std::optional<tick_type> earliest() const noexcept {
    if (!timerwheel::detail::list_empty(due_)) return base::deadline_of(*due_.next);
    if (timerwheel::detail::list_empty(timers_)) return std::nullopt;
    tick_type best = base::deadline_of(*timers_.next);
    for (const link* n = timers_.next->next; n != &timers_; n = n->next)
      if (this->distance(base::deadline_of(*n)) < this->distance(best))
        best = base::deadline_of(*n);
    return best;
  }

  void gather(link& batch) noexcept {
    sort_by_deadline(timers_);
    timerwheel::detail::list_splice_back(batch, due_);
    timerwheel::detail::list_splice_back(batch, timers_);
  }

  void drop_all() noexcept {
    base::unlink_all(due_);
    base::unlink_all(timers_);
  }

  template <class F>
  void visit_held(F& f) const {
    base::visit(due_, f);
    base::visit(timers_, f);
  }

  std::size_t check_scheme() const {
    const std::size_t due = this->check_list(due_, false, [](const hook_type&) { return true; });
    const bool any_due = due != 0;
    const tick_type last_due = any_due ? base::deadline_of(*due_.prev) : tick_type{};
    return due + this->check_list(timers_, true, [&](const hook_type& timer) {
      return !any_due || this->distance(timer.deadline()) > this->distance(last_due);
    });
  }

  link timers_;  // in scheduling order
  link due_;     // gathered by the bookkeeping, in firing order
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI::reference
