// timerwheel::reference::ordered_list: scheme 2 of Varghese & Lauck,
// "Ordered List / Timer Queues": one doubly linked list sorted by deadline.
//
// Paper's costs (n pending timers):
//   START_TIMER           O(n)   search the list for the timer's place
//   STOP_TIMER            O(1)   unlink (doubly linked)
//   PER_TICK_BOOKKEEPING  O(1)   compare the head's deadline with the time
//
// START_TIMER searches from the tail (the latest deadline), where timers of
// growing deadlines belong; the worst case stays O(n). advance costs O(1)
// plus O(1) per timer fired, whatever the ticks elapsed; next_deadline is
// O(1).
//
// Exact order: the list is kept sorted by (deadline, scheduling order): a new
// timer goes after every timer of an equal deadline (FIFO), so the head is
// always the next to fire and expiry needs no ordering work of its own.
#pragma once

#include <cstdint>
#include <optional>

#include "../detail/abi.hpp"
#include "../detail/link.hpp"
#include "detail/scheme_base.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::reference {

template <class Tick = std::uint64_t>
class ordered_list : public detail::scheme_base<ordered_list<Tick>, Tick, true> {
  using base = detail::scheme_base<ordered_list<Tick>, Tick, true>;
  friend base;
  using link = detail::link;
  using access = typename base::access;

 public:
  using typename base::hook_type;
  using typename base::tick_type;

  // An empty structure whose time is `now` (ticks). O(1).
  explicit ordered_list(tick_type now = 0) noexcept : base(now) {
    timerwheel::detail::list_init(timers_);
  }

  // Unlinks every timer still pending, as clear() does.
  ~ordered_list() { this->clear(); }

 private:
  static constexpr const char* name = "ordered_list";

  // The newest timer goes after equal deadlines; an old one (restored by
  // expire_all) before them: both are the (deadline, scheduling order) place.
  void place(hook_type& timer) noexcept { this->insert_in_order(timers_, access::links(timer)); }
  void place_old(hook_type& timer) noexcept { place(timer); }

  static void remove(hook_type& timer) noexcept {
    timerwheel::detail::list_unlink(access::links(timer));
  }

  hook_type* pop_due(tick_type to) noexcept {
    if (timerwheel::detail::list_empty(timers_) ||
        this->distance(base::deadline_of(*timers_.next)) > this->distance(to))
      return nullptr;
    link& node = *timers_.next;
    timerwheel::detail::list_unlink(node);
    return &base::hook_of(node);
  }

  std::optional<tick_type> earliest() const noexcept {
    if (timerwheel::detail::list_empty(timers_)) return std::nullopt;
    return base::deadline_of(*timers_.next);
  }

  void gather(link& batch) noexcept { timerwheel::detail::list_splice_back(batch, timers_); }

  void drop_all() noexcept { base::unlink_all(timers_); }

  template <class F>
  void visit_held(F& f) const {
    base::visit(timers_, f);
  }

  std::size_t check_scheme() const {
    return this->check_list(timers_, false, [](const hook_type&) { return true; });
  }

  link timers_;  // in firing order
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI::reference
