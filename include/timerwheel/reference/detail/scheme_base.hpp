// The contract that every reference scheme shares with timerwheel::wheel,
// written once: what is not the scheme itself.
//
// A scheme `S` derives from `scheme_base<S, Tick, NothrowSchedule>` (CRTP),
// which gives it the whole public face of `wheel`: deadline clamping and the
// nearest-instant rule of wrapping ticks, schedule_in_range's choice, the pull
// form's queue and take_expired, the advance driver (both forms) with its
// re-entrancy guard and expire_all (through detail/expiry_shell.hpp, which the
// wheel shares), size accounting, for_each_pending and the shared part of check_invariants.
//
// The scheme keeps the timers that are neither queued by the pull form nor in
// expire_all's batch ("held" timers) and provides, privately (befriending the
// base):
//
//   static constexpr const char* name;       for messages
//   void admit(tick_type deadline);          may refuse a deadline (throws),
//                                            before anything changes; optional
//   void place(hook_type&);                  START_TIMER of the newest timer
//   void place_old(hook_type&) noexcept;     puts back a timer older than all
//                                            held (expire_all's restore)
//   void remove(hook_type&) noexcept;        STOP_TIMER of a held timer
//   hook_type* pop_due(tick_type to);        PER_TICK_BOOKKEEPING: takes out
//                                            and returns the first held timer in
//                                            (deadline, scheduling order) if its
//                                            deadline <= to, else nullptr
//   std::optional<tick_type> earliest() const;  exact earliest held deadline
//   void gather(link& batch);                moves every held timer to batch's
//                                            back, in order
//   void drop_all() noexcept;                drops every held timer (hooks idle)
//   template <class F> void visit_held(F&) const;
//   std::size_t check_scheme() const;        checks the scheme's structure
//                                            (through fail()), returns how
//                                            many timers it holds
//
// Every held timer's deadline is at or after now: now moves only to the
// deadline of a timer being fired, or to an advance's target once nothing
// held is due by it. So, with wrapping ticks, every held deadline lies within
// [now, now + 2^(bits-1) - 1] and "distance from now" orders them: the order
// stays the same as now moves forward. All comparisons of deadlines go
// through distance().
//
// pop_due is called repeatedly during an advance, with callbacks in between
// that may schedule and cancel anything; after each returned timer, now is
// that timer's deadline, and after nullptr, now is `to`. A tick-driven
// scheme's bookkeeping therefore starts from now on every call; it may keep
// a cursor of its own as long as the cursor equals now whenever pop_due
// returns (one that runs ahead of now inside pop_due reads deadlines
// relative to itself, not to now).
//
// Costs added to the scheme's: O(1) for every operation, except expire_all
// (a sort of the gathered timers where the scheme does not hand them over in
// order, and of what a throwing callback leaves, by sequence number) and
// for_each_pending, clear and check_invariants (O(n)).
//
// The hook's sequence number, assigned at every schedule, is what "scheduling
// order" means: schemes that keep lists in scheduling order need it only to
// check that they do; binary_heap orders by it.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "../../concepts.hpp"
#include "../../detail/abi.hpp"
#include "../../detail/expiry_shell.hpp"
#include "../../detail/link.hpp"
#include "../../detail/list_sort.hpp"
#include "../../detail/ticks.hpp"
#include "../hook.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::reference::detail {

using timerwheel::detail::link;

// Tick arithmetic shared by the schemes.
template <class Tick>
struct tick_traits : timerwheel::detail::ticks<Tick> {
  using base = timerwheel::detail::ticks<Tick>;
  // The farthest a deadline may lie ahead of now.
  static constexpr Tick max_ahead = base::wraps
                                        ? static_cast<Tick>((Tick{1} << (base::digits - 1)) - 1)
                                        : std::numeric_limits<Tick>::max();
};

template <class Derived, class Tick, bool NothrowSchedule>
class scheme_base {
 protected:
  using traits = tick_traits<Tick>;
  using access = hook_access;
  using state = hook_state;
  using shell_type = timerwheel::detail::expiry_shell<basic_hook<Tick>, hook_access>;

 public:
  using tick_type = Tick;
  using hook_type = basic_hook<Tick>;

  scheme_base(const scheme_base&) = delete;
  scheme_base& operator=(const scheme_base&) = delete;

  // The current time (ticks). While a callback runs: that timer's deadline.
  tick_type now() const noexcept { return now_; }

  // Pending timers, those expired and not yet taken included. O(1).
  std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }

  // START_TIMER: schedules `timer` to fire at `deadline` (absolute ticks). A
  // deadline before now is taken as now: the timer is due and fires at the
  // next advance, after those already due. A pending timer is moved and
  // counts as newly scheduled. Cost: the scheme's START_TIMER. Throws only
  // where the scheme refuses the deadline (or cannot grow), changing nothing.
  void schedule(hook_type& timer, tick_type deadline) noexcept(NothrowSchedule) {
    if (behind(deadline)) deadline = now_;
    self().admit(deadline);
    if (timer.pending())
      detach(timer);
    else
      ++size_;
    access::set_deadline(timer, deadline);
    access::set_sequence(timer, next_sequence_++);
    access::set_state(timer, state::held);
    self().place(timer);
  }

  // Schedules `timer` at the tick of [earliest, latest] with the most
  // trailing zero bits, as the wheel chooses. A range that starts before now
  // is cut to start at now; one that ends before now makes the timer due now.
  // Returns the deadline chosen. Throws std::invalid_argument, changing
  // nothing, when `earliest` is after `latest`, and what schedule throws.
  tick_type schedule_in_range(hook_type& timer, tick_type earliest, tick_type latest) {
    if (later(earliest, latest))
      throw std::invalid_argument("timerwheel: schedule_in_range: earliest is after latest");
    schedule(timer, traits::pick_in_range(now_, earliest, latest));
    return timer.deadline();
  }

  // STOP_TIMER: cancels `timer`. Returns whether it was pending (held or
  // expired and not yet taken); a no-op otherwise. Cost: the scheme's
  // STOP_TIMER.
  bool cancel(hook_type& timer) noexcept {
    if (!timer.pending()) return false;
    detach(timer);
    access::set_state(timer, state::idle);
    --size_;
    return true;
  }

  // PER_TICK_BOOKKEEPING and EXPIRY_PROCESSING: first hands `on_expired`
  // every timer still queued by the pull form, then fires every timer with
  // deadline <= `to` (ticks) exactly once, in nondecreasing deadline order,
  // equal deadlines in scheduling order; then now() == to. Each timer is
  // taken out before `on_expired(hook_type&)` runs; the callback may schedule
  // and cancel any timer, and one it schedules at or before `to` fires in
  // this advance, in order. Returns how many fired. Cost: the scheme's
  // bookkeeping over the ticks passed, plus expiry. Throws
  // std::invalid_argument, changing nothing, when `to` is behind now,
  // std::logic_error when called from a callback, and whatever `on_expired`
  // throws (the timers not yet fired stay pending; now() is the deadline of
  // the last one fired).
  template <expiry_callback<basic_hook<Tick>> F>
  std::size_t advance(tick_type to, F&& on_expired) {
    check_target(to);
    const timerwheel::detail::reentry_guard scope = shell_.enter();
    auto leave = leaving();
    std::size_t fired = shell_.fire_queued(leave, on_expired);
    while (hook_type* timer = self().pop_due(to)) {
      now_ = timer->deadline();
      access::set_state(*timer, state::idle);
      --size_;
      ++fired;
      on_expired(*timer);
    }
    now_ = to;
    return fired;
  }

  // The pull form: queues, in order, every timer with deadline <= `to`
  // (ticks) for take_expired(); then now() == to. Returns how many it
  // queued. Same costs and errors as the callback form.
  std::size_t advance(tick_type to) {
    check_target(to);
    const timerwheel::detail::reentry_guard scope = shell_.enter();
    std::size_t queued = 0;
    while (hook_type* timer = self().pop_due(to)) {
      now_ = timer->deadline();
      access::set_state(*timer, state::listed);
      shell_.enqueue(*timer);
      ++queued;
    }
    now_ = to;
    return queued;
  }

  // The next expired timer queued by the pull form, taken out, in order;
  // nullptr when none is queued. O(1).
  [[nodiscard]] hook_type* take_expired() noexcept {
    hook_type* const timer = shell_.dequeue();
    if (timer == nullptr) return nullptr;
    access::set_state(*timer, state::idle);
    --size_;
    return timer;
  }

  // The exact earliest deadline (ticks) of a pending timer: the first queued
  // one while the pull form's queue is not empty; none when empty. Cost: the
  // scheme's search for its earliest timer.
  std::optional<tick_type> next_deadline() const noexcept {
    if (shell_.queued()) return shell_.template first_queued<tick_type>();
    return earliest_pending();
  }

  // How long (ticks) a poller may sleep: 0 when a timer is due or queued,
  // the largest tick value when nothing is pending. Cost of next_deadline().
  tick_type time_until_next() const noexcept {
    if (shell_.queued()) return 0;
    const std::optional<tick_type> next = earliest_pending();
    return next ? distance(*next) : std::numeric_limits<tick_type>::max();
  }

  // Fires every timer pending at the call, in order (queued ones first),
  // leaving now() unchanged; timers its callbacks schedule stay pending.
  // Returns how many fired. O(n log n) at most (the gathered timers are
  // sorted). Throws std::logic_error when called from a callback, and
  // whatever `on_expired` throws (the timers not yet fired stay pending, in
  // their old scheduling order).
  template <expiry_callback<basic_hook<Tick>> F>
  std::size_t expire_all(F&& on_expired) {
    return shell_.expire_all(
        [this](link& batch) {
          self().gather(batch);
          for (link* n = batch.next; n != &batch; n = n->next)
            access::set_state(hook_of(*n), state::listed);
        },
        [this](link& batch) { put_back(batch); }, leaving(), on_expired);
  }

  // Drops every pending timer; each hook becomes idle. O(n), plus the
  // scheme's table.
  void clear() noexcept {
    self().drop_all();
    shell_.drop_all([](hook_type& timer) { access::set_state(timer, state::idle); });
    size_ = 0;
  }

  // Calls f(const hook_type&) for every pending timer, in no promised order.
  // f may not schedule or cancel. O(n), plus the scheme's table.
  template <pending_visitor<basic_hook<Tick>> F>
  void for_each_pending(F&& f) const {
    self().visit_held(f);
    shell_.visit(f);
  }

  // Checks the scheme's structure and the shared accounting against a plain
  // recomputation; throws std::logic_error naming the first invariant broken.
  void check_invariants() const {
    std::size_t counted = self().check_scheme();
    // (A queued timer's deadline may lie anywhere: with wrapping ticks one
    // queued long ago reads as ahead.)
    counted += shell_.check(
        [](const hook_type& timer) {
          if (access::state(timer) != state::listed)
            fail("a timer queued or in expire_all's batch is not marked so");
        },
        fail);
    if (counted != size_) fail("size disagrees with the timers held");
  }

 protected:
  explicit scheme_base(tick_type now) noexcept : now_(now) {}
  ~scheme_base() = default;

  // A scheme that takes every deadline keeps this admit().
  void admit(tick_type) const noexcept {}

  // --- for the schemes ---

  Derived& self() noexcept { return static_cast<Derived&>(*this); }
  const Derived& self() const noexcept { return static_cast<const Derived&>(*this); }

  static hook_type& hook_of(link& node) noexcept { return access::from_links<hook_type>(node); }
  static const hook_type& hook_of(const link& node) noexcept {
    return access::from_links<hook_type>(node);
  }
  static tick_type deadline_of(const link& node) noexcept { return hook_of(node).deadline(); }
  static std::uint64_t sequence_of(const hook_type& timer) noexcept {
    return access::sequence(timer);
  }

  // Time read as the wheel reads it (timerwheel/detail/ticks.hpp).
  bool behind(tick_type t) const noexcept { return traits::behind(now_, t); }
  bool later(tick_type a, tick_type b) const noexcept { return traits::later(now_, a, b); }
  tick_type distance(tick_type t) const noexcept { return traits::distance(now_, t); }

  // Whether held timer `a` fires before held timer `b`: (deadline,
  // scheduling order).
  bool fires_before(const hook_type& a, const hook_type& b) const noexcept {
    const tick_type da = distance(a.deadline());
    const tick_type db = distance(b.deadline());
    return da != db ? da < db : sequence_of(a) < sequence_of(b);
  }

  // Sorts a list of held timers into firing order. O(n log n).
  void sort_by_firing_order(link& list) const noexcept {
    timerwheel::detail::list_sort(list, [this](const link& a, const link& b) {
      return fires_before(hook_of(a), hook_of(b));
    });
  }

  // Links `node` into `list`, kept in firing order, searching from the back
  // (latest) for its place. O(length of the list).
  void insert_in_order(link& list, link& node) const noexcept {
    link* after = list.prev;
    while (after != &list && fires_before(hook_of(node), hook_of(*after))) after = after->prev;
    // Link after `after`: before its successor.
    node.prev = after;
    node.next = after->next;
    after->next->prev = &node;
    after->next = &node;
  }

  // Unlinks every timer of a list, making each hook idle; the list becomes empty.
  static void unlink_all(link& sentinel) noexcept {
    constexpr auto idle = [](hook_type& timer) { access::set_state(timer, state::idle); };
    shell_type::unlink_all(sentinel, idle);
  }

  template <class F>
  static void visit(const link& sentinel, F& f) {
    shell_type::visit_list(sentinel, f);
  }

  // --- checking ---

  [[noreturn]] static void fail(const char* what) {
    throw std::logic_error(std::string("timerwheel: reference::") + Derived::name +
                           ": invariant broken: " + what);
  }

  // Checks a list's links; returns how many nodes it holds.
  static std::size_t check_links(const link& sentinel) {
    const std::size_t n = timerwheel::detail::list_length(sentinel);
    if (n == timerwheel::detail::list_broken) fail("a list's links disagree");
    return n;
  }

  // Checks what every held timer satisfies.
  void check_held(const hook_type& timer) const {
    if (access::state(timer) != state::held) fail("a held timer is not marked held");
    if (behind(timer.deadline())) fail("a held timer's deadline is behind now");
    if (sequence_of(timer) >= next_sequence_) fail("a sequence number from the future");
  }

  // Checks a list of held timers whose every timer satisfies `ok`, in
  // scheduling order (the order of equal deadlines at expiry) when
  // `scheduling_order`, else in firing order. Returns its length.
  template <class Ok>
  std::size_t check_list(const link& sentinel, bool scheduling_order, Ok ok) const {
    const std::size_t n = check_links(sentinel);
    const hook_type* prev = nullptr;
    for (const link* p = sentinel.next; p != &sentinel; p = p->next) {
      const hook_type& timer = hook_of(*p);
      check_held(timer);
      if (!ok(timer)) fail("a timer sits in the wrong list");
      if (prev != nullptr) {
        if (scheduling_order && sequence_of(*prev) >= sequence_of(timer))
          fail("a list is out of scheduling order");
        if (!scheduling_order && !fires_before(*prev, timer)) fail("a sorted list is out of order");
      }
      prev = &timer;
    }
    return n;
  }

  tick_type now_;

 private:
  // The earliest deadline held by the scheme or waiting in expire_all's
  // batch (in order, so its front is its earliest).
  std::optional<tick_type> earliest_pending() const noexcept {
    std::optional<tick_type> next = self().earliest();
    if (const std::optional<tick_type> first = shell_.template first_in_batch<tick_type>())
      if (!next || distance(*first) < distance(*next)) next = first;
    return next;
  }

  // Puts back the timers a throwing callback left in `batch`. They are older
  // than every timer held since (those were scheduled during expire_all), so
  // they go back newest first, each older than all held.
  void put_back(link& batch) noexcept {
    timerwheel::detail::list_sort(batch, [](const link& a, const link& b) {
      return sequence_of(hook_of(a)) < sequence_of(hook_of(b));
    });
    while (!timerwheel::detail::list_empty(batch)) {
      link& node = *batch.prev;
      timerwheel::detail::list_unlink(node);
      hook_type& timer = hook_of(node);
      access::set_state(timer, state::held);
      self().place_old(timer);
    }
  }

  // Takes a pending timer out of wherever it is; its state is left to the caller.
  void detach(hook_type& timer) noexcept {
    if (access::state(timer) == state::held)
      self().remove(timer);
    else
      timerwheel::detail::list_unlink(access::links(timer));
  }

  // What a timer leaving the scheme to fire changes: its state and the count.
  auto leaving() noexcept {
    return [this](hook_type& timer) noexcept {
      access::set_state(timer, state::idle);
      --size_;
    };
  }

  void check_target(tick_type to) const {
    if (behind(to)) throw std::invalid_argument("timerwheel: advance: the target is behind now");
  }

  std::size_t size_ = 0;
  std::uint64_t next_sequence_ = 0;
  shell_type shell_;  // the pull form's queue, expire_all's batch, re-entry
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI::reference::detail
