// timerwheel::wheel: a tickless hierarchical timing wheel that fires timers in
// exact (deadline, scheduling order) order.
//
// Implementation
// --------------
// Time is an unsigned tick count. Level k holds 2^b_k slots, each 2^s_k ticks
// wide, where s_k = b_0 + ... + b_{k-1}. With the default configuration
// (eleven levels of 6 bits over 64-bit ticks):
//
//   level | slots | slot width | a timer sits here when deadline XOR now < ...
//   ------+-------+------------+----------------------------------------------
//     0   |  64   | 1 tick     | 2^6
//     1   |  64   | 2^6        | 2^12
//     2   |  64   | 2^12       | 2^18
//    ...  |  ...  | ...        | ...
//    10   |  64   | 2^60       | 2^64 (16 of its slots are reachable)
//
// Placement (HiTime): a timer sits at level k = the level holding the highest
// bit in which its deadline differs from now (level 0 when they are equal), in
// slot (deadline >> s_k) mod 2^b_k. It shares every bit above level k with
// now, so every timer at level k is later than every timer at a level below
// k, and the earliest timer lies in the first occupied slot, scanning from
// now's own slot, of the lowest non-empty level. A level-0 slot holds timers
// of one exact deadline.
//
// An occupancy bitmap per level (and a word of non-empty levels) finds that
// slot with count-trailing-zeros, so an advance jumps from occupied slot to
// occupied slot and empty time costs nothing. When now reaches the start of a
// coarse slot, its timers are placed again relative to now (a cascade) and
// land strictly lower; a timer moves down at most once per level.
//
// Exact order without a sequence number: every slot keeps its timers in
// scheduling order. A schedule appends (it is the newest), and a cascade runs
// only when every lower level is empty, distributing one slot's timers in
// order into slots that hold only timers newer than them. So a level-0 slot,
// drained front to back, fires equal deadlines first-scheduled first.
//
// A walk down a list takes one cache miss after another once its nodes are
// out of cache: the next node's address is in the node in hand. The two
// walks that dominate at a million timers go from both ends at once, two
// chains that overlap: a level-1 slot's cascade, and a pass that loads a
// level-0 slot's list before it fires front to back. A slot of level 2
// keeps a second list, its lead list, for what the front walk of a
// cascade from above brings (older than what the slot's own list holds),
// so that its own cascade, or the spreading's moves out of it, walks two
// lists from both ends: four chains (detail/lead_lists.hpp). A slot of
// level 2 that a cancel empties keeps a link of no timer, its keeper, until
// it starts, so that with few timers a schedule and a cancel do not open
// and close the slot over and over (detail/keepers.hpp).
//
// Spreading cascades: a coarse slot of thousands of timers would cascade in
// one advance. So every level keeps a spare bank of slots, and in the last
// quarter of the time before a level's next slot starts, that slot is
// diverted: new timers of it go to the spare bank of the level below, in the
// slots they will take there when it starts, and each advance that does work
// moves a few of the timers it holds there too (4, up to 32 when time runs
// short). At the start the spare bank becomes the active one (the two banks
// trade their lists) and only what was not moved yet cascades. Moves take
// the newest first and put each in front, new timers go behind, and what is
// left goes in front at the start, so timers of one deadline stay in
// scheduling order. Past its first few hundred moves a slot is walked from
// its front too, two chains of misses at once: those moves take the oldest
// first, to lists of their own that the start puts in front of the rest.
// The next slot of a level in its last slot is slot 0 of
// its own spare bank, filled from the level above, so the timers of a slot
// move down one level at a time, each ahead of its own start.
//
// A configuration whose levels do not cover the tick type keeps a far list of
// the timers beyond its top level, re-examined when now enters a new block of
// the top level's span (ccan/timer's `far`). Narrow ticks wrap: instants are
// read as the nearest one to now, and the top level is scanned cyclically.
//
// Costs (n pending timers, L levels): schedule and cancel O(1); advance
// O(L * spreading::most + timers fired + timers cascaded), whatever the ticks
// elapsed, and O(1) for an advance to before a cached lower bound of the
// next slot start; next_deadline O(L + timers in the earliest slots).
//
// This file is the algorithm: placement, advance, cascade, the spreading's
// moves. Beside it, in detail/: the occupancy bitmap (occupancy.hpp), the
// state of the diverted slots (spreading.hpp), the pull form's queue,
// expire_all's batch and the refusal of re-entry, shared with the reference
// schemes (expiry_shell.hpp), and check_invariants (wheel_check.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "concepts.hpp"
#include "detail/abi.hpp"
#include "detail/arrivals.hpp"
#include "detail/deposit.hpp"
#include "detail/expiry_shell.hpp"
#include "detail/inline.hpp"
#include "detail/keepers.hpp"
#include "detail/layout.hpp"
#include "detail/lead_lists.hpp"
#include "detail/link.hpp"
#include "detail/list_sort.hpp"
#include "detail/occupancy.hpp"
#include "detail/spreading.hpp"
#include "detail/ticks.hpp"
#include "levels.hpp"
#include "timer_hook.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI {

// `wheel<Config>`: an intrusive timer structure over `basic_timer_hook`s.
// Times are absolute ticks of `tick_type`. Neither copyable nor movable (its
// timers link to it by address). Not thread-safe.
template <class Config = default_config>
class wheel {
  using layout = detail::layout<Config>;
  using link = detail::link;
  using run = detail::run;
  using access = detail::hook_access;
  using shell_type = detail::expiry_shell<basic_timer_hook<typename Config::tick_type>, access>;

 public:
  using config_type = Config;
  using tick_type = typename Config::tick_type;
  using hook_type = basic_timer_hook<tick_type>;

  // An empty wheel whose time is `now` (ticks). O(slots). Throws nothing.
  explicit wheel(tick_type now = 0) noexcept : now_(now), lower_bound_(no_event()) {
    for (link& s : slots_) detail::list_init(s);
    detail::list_init(far_);
  }

  wheel(const wheel&) = delete;
  wheel& operator=(const wheel&) = delete;

  // Unlinks every timer still pending, as clear() does.
  ~wheel() { clear(); }

  // The current time (ticks). While a callback runs: that timer's deadline.
  tick_type now() const noexcept { return now_; }

  // Pending timers, those expired and not yet taken included. O(1) for a
  // `counted<...>` configuration; otherwise a walk over them, O(n + slots):
  // a count would cost every schedule and cancel a store (see levels.hpp).
  std::size_t size() const noexcept {
    if constexpr (layout::counted) {
      return size_;
    } else {
      std::size_t n = 0;
      for_each_pending([&n](const hook_type&) { ++n; });
      return n;
    }
  }

  // Whether no timer is pending. O(1); where the only occupancy bits left
  // are those of marks and keepers (see placeholders_alone()), a look at
  // those slots' lists, at most 64 a level.
  [[nodiscard]] bool empty() const noexcept {
    return (wheel_empty() || placeholders_alone()) && shell_.empty();
  }

  // START_TIMER: schedules `timer` to fire at `deadline` (absolute ticks). A
  // deadline before now is taken as now: the timer is due and fires at the
  // next advance, after those already due. A pending timer is moved and
  // counts as newly scheduled. O(1); throws nothing.
  TIMERWHEEL_ALWAYS_INLINE void schedule(hook_type& timer, tick_type deadline) noexcept {
    link& node = access::links(timer);
    if (node.next != nullptr)
      unlink(node);
    else
      count_timers(+1);
    if constexpr (!clamp_when_opening) {
      if (behind(deadline)) deadline = now_;
    }
    deadline = add(node, deadline, false);
    // Stored last: the compiler cannot tell the hook from now_, and would
    // read now_ again after the store.
    access::set_deadline(timer, deadline);
  }

  // Schedules `timer` at the tick of [earliest, latest] with the most
  // trailing zero bits: the one placed highest, so it fires with the fewest
  // cascades. A range that starts before now is cut to start at now; one
  // that ends before now makes the timer due now. Returns the deadline
  // chosen. O(1). Throws std::invalid_argument, changing nothing, when
  // `earliest` is after `latest`.
  tick_type schedule_in_range(hook_type& timer, tick_type earliest, tick_type latest) {
    if (later(earliest, latest))
      throw std::invalid_argument("timerwheel: schedule_in_range: earliest is after latest");
    schedule(timer, tick_math::pick_in_range(now_, earliest, latest));
    return timer.deadline();
  }

  // STOP_TIMER: cancels `timer`. Returns whether it was pending (waiting in
  // the wheel or expired and not yet taken); a no-op otherwise. O(1).
  TIMERWHEEL_ALWAYS_INLINE bool cancel(hook_type& timer) noexcept {
    link& node = access::links(timer);
    if (node.next == nullptr) return false;
    unlink<true>(node);
    count_timers(-1);
    return true;
  }

  // PER_TICK_BOOKKEEPING and EXPIRY_PROCESSING: first hands `on_expired`
  // every timer still queued by the pull form, then fires every timer with
  // deadline <= `to` (ticks) exactly once, in nondecreasing deadline order,
  // equal deadlines in scheduling order; then now() == to. Each timer is
  // unlinked before `on_expired(hook_type&)` runs; the callback may schedule
  // and cancel any timer, and one it schedules at or before `to` fires in
  // this advance, in order. Returns how many fired. O(levels + fired +
  // cascaded); O(1) when nothing is due. Throws std::invalid_argument,
  // changing nothing, when `to` is behind now, std::logic_error when called
  // from a callback, and whatever `on_expired` throws (the timers not yet
  // fired stay pending; now() is the deadline of the last one fired).
  template <expiry_callback<basic_timer_hook<typename Config::tick_type>> F>
  TIMERWHEEL_ALWAYS_INLINE std::size_t advance(tick_type to, F&& on_expired) {
    if (nothing_due_by(to)) [[likely]]
      return skip_to(to);
    return advance_due(to, on_expired);
  }

  // The pull form: queues, in order, every timer with deadline <= `to`
  // (ticks) for take_expired(); then now() == to. Returns how many it
  // queued. Same costs and errors as the callback form.
  TIMERWHEEL_ALWAYS_INLINE std::size_t advance(tick_type to) {
    if (nothing_due_by(to)) [[likely]]
      return skip_to(to);
    return queue_due(to);
  }

 private:
  // advance(to, f) past its O(1) path.
  template <class F>
  std::size_t advance_due(tick_type to, F& on_expired) {
    check_target(to);
    const detail::reentry_guard scope = shell_.enter();
    const tick_type from = now_;
    auto leave = leaving();
    std::size_t fired = shell_.fire_queued(leave, on_expired);
    fired += walk_to(to, [&](hook_type& timer) {
      count_timers(-1);
      on_expired(timer);
    });
    now_ = to;
    spread(from);
    return fired;
  }

  // advance_to_next() on a non-empty wheel with nothing queued: moves now
  // through the slot starts before the earliest deadline (seek), then
  // fires that deadline's level-0 slot front to back, as walk_to() would,
  // without asking next_event() again for what seek() found: one search
  // for the next occupied slot a hold, not three; or, where seek() found
  // the earliest timer alone in its level-1 slot, fires it from there
  // (take_lone()). Timers the callbacks schedule at now join the back of
  // now's level-0 slot and fire here too. Leaves the bound of the next
  // event at now (an advance recomputes it).
  template <class F>
  std::size_t fire_next(F& on_expired) {
    const tick_type from = now_;
    const next_step e = seek();
    link* list;
    link* lone = nullptr;
    if (e.what == next_step::kind::lone) {
      lone = &take_lone(e.slot);
      list = &slots_[slot_index(0, slot_number(now_, 0))];
    } else {
      now_ = lower_bound_ = slot_start(0, e.slot);
      list = &slots_[slot_index(0, e.slot)];
    }
    std::size_t fired = 0;
    do {
      // One place that unlinks: a second one made g++ put mark_empty() out
      // of line.
      link* node = lone;
      lone = nullptr;
      if (node == nullptr) {
        node = list->next;
        unlink_due(*node);
      }
      ++fired;
      count_timers(-1);
      on_expired(access::from_links<hook_type>(*node));
      // A list still holding timers after warm_after of them is long:
      // load the rest from both ends before firing on (see warm()). A
      // short one, most of a hold's pops, fires without the walk.
      if (fired == warm_after) [[unlikely]]
        warm_rest(*list);
    } while (!detail::list_empty(*list));
    if (wheel_empty()) forget_events();
    spread<true>(from);
    return fired;
  }

  // fire_next() for the lone timer of level-1 slot `slot` (now is the
  // slot's start; lone_at_level1() holds): unlinks it and moves now to its
  // deadline, to be fired from there with no stop in level 0 on the way.
  // Forced inline: most pops of a hold whose events lie a few level-1 slots
  // apart take it, and the call cost them more than the few instructions
  // it adds to the pops that do not.
  TIMERWHEEL_ALWAYS_INLINE link& take_lone(unsigned slot) noexcept {
    const std::size_t from = slot_index(1, slot);
    link& node = *slots_[from].next;
    detail::list_init(slots_[from]);
    mark_empty(from);
    node.next = nullptr;  // unlinked, as list_unlink() leaves it
    now_ = lower_bound_ = deadline_of(node);
    return node;
  }

  // take_lone() for walk_to(), out of line: inlined, it made walk_to's
  // loop larger for every advance.
  TIMERWHEEL_NOINLINE link& take_lone_out_of_line(unsigned slot) noexcept {
    return take_lone(slot);
  }

  // advance(to) past its O(1) path.
  std::size_t queue_due(tick_type to) {
    check_target(to);
    const detail::reentry_guard scope = shell_.enter();
    // A queued timer stays pending: no count changes.
    const tick_type from = now_;
    const std::size_t queued = walk_to(to, [this](hook_type& timer) { shell_.enqueue(timer); });
    now_ = to;
    spread(from);
    if (shell_.queued()) block_fast_path();
    return queued;
  }

 public:
  // Advances to the earliest pending deadline (or stays at now while a timer
  // is due or queued) and fires what is due there, as advance(to, f) does:
  // the pop of an event list. Returns how many fired; 0, changing nothing,
  // when the wheel is empty. O(levels + fired + cascaded): unlike
  // next_deadline(), it never scans a slot for its earliest timer. Throws
  // std::logic_error when called from a callback, and whatever `on_expired`
  // throws (as advance).
  template <expiry_callback<basic_timer_hook<typename Config::tick_type>> F>
  std::size_t advance_to_next(F&& on_expired) {
    // Queued timers are due: fire them and what is due at now.
    if (shell_.queued()) [[unlikely]]
      return advance(now_, on_expired);
    const detail::reentry_guard scope = shell_.enter();
    // Marks and keepers alone are no timer to seek (see placeholders_alone()).
    if (wheel_empty() || placeholders_alone()) return 0;
    return fire_next(on_expired);
  }

  // The next expired timer queued by the pull form, unlinked, in order;
  // nullptr when none is queued. O(1).
  [[nodiscard]] hook_type* take_expired() noexcept {
    hook_type* const timer = shell_.dequeue();
    if (timer != nullptr) count_timers(-1);
    return timer;
  }

  // The exact earliest deadline (ticks) of a pending timer: the first queued
  // one while the pull form's queue is not empty; none when empty. Timers
  // waiting in a running expire_all count as pending.
  // O(levels + timers in the earliest slots).
  std::optional<tick_type> next_deadline() const noexcept {
    if (shell_.queued()) return shell_.template first_queued<tick_type>();
    std::optional<tick_type> next = earliest_held();
    // expire_all's batch is in order: its front is its earliest.
    if (const std::optional<tick_type> first = shell_.template first_in_batch<tick_type>())
      if (!next || distance(*first) < distance(*next)) next = first;
    return next;
  }

  // How long (ticks) a poller may sleep: 0 when a timer is due or queued,
  // the largest tick value when the wheel is empty. Cost of next_deadline().
  tick_type time_until_next() const noexcept {
    if (shell_.queued()) return 0;
    const std::optional<tick_type> next = next_deadline();
    return next ? distance(*next) : std::numeric_limits<tick_type>::max();
  }

  // Fires every timer pending at the call, in order (queued ones first),
  // leaving now() unchanged; timers its callbacks schedule stay pending.
  // Returns how many fired. O(n log n) for the timers of coarse slots.
  // Throws std::logic_error when called from a callback, and whatever
  // `on_expired` throws (the timers not yet fired stay pending).
  template <expiry_callback<basic_timer_hook<typename Config::tick_type>> F>
  std::size_t expire_all(F&& on_expired) {
    return shell_.expire_all(
        [this](link& batch) {
          block_fast_path();
          take_all_in_order(batch);
        },
        [this](link& batch) { put_back(batch); }, leaving(), on_expired);
  }

  // Drops every pending timer; each hook becomes idle. O(n + slots).
  void clear() noexcept {
    end_diversions(~std::uint64_t{0});
    drop_keepers();
    occupied_.for_each([this](std::size_t index) { unlink_all(slots_[index]); });
    leads_.for_each([](link& lead) { unlink_all(lead); });
    occupied_.clear();
    active_levels_ = 0;
    spare_levels_ = 0;
    lower_bound_ = no_event();
    unlink_all(far_);
    shell_.drop_all([](hook_type&) {});
    if constexpr (layout::counted) size_ = 0;
  }

  // Calls f(const hook_type&) for every pending timer, in no promised order.
  // f may not schedule or cancel. O(n + slots).
  template <pending_visitor<basic_timer_hook<typename Config::tick_type>> F>
  void for_each_pending(F&& f) const {
    for_each_held(f);
    shell_.visit(f);
  }

  // Checks every invariant against a plain recomputation; throws
  // std::logic_error naming the first one broken. O(n + slots).
  void check_invariants() const;

 private:
  // --- time, read by the nearest-instant rule where ticks wrap ---

  using tick_math = detail::ticks<tick_type>;

  bool behind(tick_type t) const noexcept { return tick_math::behind(now_, t); }
  bool later(tick_type a, tick_type b) const noexcept { return tick_math::later(now_, a, b); }
  tick_type distance(tick_type t) const noexcept { return tick_math::distance(now_, t); }

  // The lower bound of the next event of an empty wheel: the largest tick for
  // plain numbers; with wrapping ticks a schedule into an empty wheel resets
  // the bound, so any value serves.
  static constexpr tick_type no_event() noexcept { return std::numeric_limits<tick_type>::max(); }

  // Whether an advance to `to` may take the O(1) path: `to` is at or after
  // now and before the lower bound of the next event, and nothing is
  // queued. With plain numbers one comparison says all of it: a `to` behind
  // now reads as a distance beyond any bound, and the bound is held at now
  // while timers are queued (see block_fast_path).
  TIMERWHEEL_ALWAYS_INLINE bool nothing_due_by(tick_type to) const noexcept {
    if constexpr (layout::wraps) {
      // An empty wheel's bound is stale and may read as far ahead.
      return !behind(to) && distance(to) < distance(lower_bound_) && !shell_.queued();
    } else {
      return distance(to) < distance(lower_bound_);
    }
  }

  // The O(1) path of an advance. Refused from a callback as every advance
  // is, by a check of its own: a callback may have emptied the wheel (clear,
  // cancels), and an empty wheel has no next event to stop an advance at.
  TIMERWHEEL_ALWAYS_INLINE std::size_t skip_to(tick_type to) {
    if (shell_.running()) [[unlikely]]
      detail::reentry_guard::refuse();
    now_ = to;
    return 0;
  }

  // Lowers the bound of the next event to now (a bound may always be
  // lowered), so that no advance takes the O(1) path until a checked advance
  // has recomputed it: done while timers are queued and before callbacks.
  void block_fast_path() noexcept { lower_bound_ = now_; }

  void check_target(tick_type to) const {
    if (behind(to)) throw std::invalid_argument("timerwheel: advance: the target is behind now");
  }

  // --- placement ---

  static tick_type deadline_of(const link& node) noexcept {
    return access::from_links<hook_type>(node).deadline();
  }

  // A word wide, as it indexes the banks: no narrowing copy on the way.
  std::size_t level_of(tick_type deadline) const noexcept {
    return layout::level_of_xor(static_cast<tick_type>(deadline ^ now_));
  }

  static std::size_t slot_of(tick_type t, std::size_t level) noexcept {
    return layout::slot_at(t, level);
  }

  // slot_of() where an unsigned is wanted: levels have at most 2^12 slots.
  static unsigned slot_number(tick_type t, std::size_t level) noexcept {
    return static_cast<unsigned>(slot_of(t, level));
  }

  static constexpr std::uint64_t bit(unsigned n) noexcept { return std::uint64_t{1} << n; }

  // The flat index of a slot's sentinel.
  std::size_t index_of(const link* slot) const noexcept {
    return static_cast<std::size_t>(slot - slots_.data());
  }

  // The flat index of the first slot of `level`'s active bank, of slot
  // `slot` of it, and of the first slot of its spare bank: constants, as the
  // banks trade their lists, not their places (see swap_banks()).
  static std::size_t base(std::size_t level) noexcept { return layout::active_base(level); }
  static std::size_t slot_index(unsigned level, unsigned slot) noexcept {
    return base(level) + slot;
  }
  static std::size_t spare_base(unsigned level) noexcept { return layout::spare_bank_base[level]; }

  // Whether word `word` of the bitmap belongs to an active bank.
  static bool active_word(std::size_t word) noexcept { return word < layout::total_words; }

  // The first tick of slot `slot` of `level`, which shares now's higher bits.
  tick_type slot_start(unsigned level, unsigned slot) const noexcept {
    return static_cast<tick_type>((now_ & layout::high_mask[level]) |
                                  (static_cast<tick_type>(slot) << layout::shift[level]));
  }

  // The first tick after now that starts a slot of `level` (1 or above):
  // where the next slot of the level starts, and the block that the spare
  // bank of the level below holds.
  tick_type next_start(unsigned level) const noexcept {
    return static_cast<tick_type>((now_ | tick_math::low_bits(layout::shift[level])) + 1);
  }

  // Links `node` where `deadline` (at or after now) belongs, at the back of
  // its list, or at the front to put back an older timer, and keeps the
  // lower bound of the next event at or before the event that will touch
  // it: its slot's start, or for the far list the start of its top-level
  // block. Every timer of a slot shares the slot's event, so the bound needs
  // a look only when a slot gains its first timer; and a diverted slot's own
  // list stays empty (see spread()). So a schedule into an occupied slot, the
  // common case, takes one test: the slot's list is not empty.
  //
  // Forced inline, with what a slot's first timer needs out of line (see
  // detail/inline.hpp): the common case is a handful of instructions.
  //
  // Returns the deadline taken: `deadline`, or now for one behind now where
  // clamp_when_opening holds (see there).
  //
  // With `BeforeLead`, a timer put in front goes in front of its slot's
  // lead list while that holds timers (a cascade from above level 2).
  template <bool BeforeLead = false>
  TIMERWHEEL_ALWAYS_INLINE tick_type place(link& node, tick_type deadline, bool at_front) noexcept {
    link* list;
    link* tail;
    if constexpr (layout::placed_by_table) {
      list = &slots_[layout::active_index(deadline, static_cast<tick_type>(deadline ^ now_))];
      // Empty when its tail is itself: the same test as list_empty, on the
      // word the append needs anyway, so a schedule reads the slot once.
      tail = list->prev;
      if (tail == list) [[unlikely]] {
        const opened o = open_slot(list, level_of(deadline), deadline);
        list = o.list;
        deadline = o.deadline;
        tail = list->prev;
      }
    } else if (const std::size_t level = level_of(deadline);
               !layout::has_far || level < layout::count) [[likely]] {
      list = &slots_[base(level) + slot_of(deadline, level)];
      tail = list->prev;
      if (tail == list) [[unlikely]] {
        list = open_slot(list, level, deadline).list;
        tail = list->prev;
      }
    } else {
      list = open_far(deadline, level);
      tail = list->prev;
    }
    if (at_front) {
      if constexpr (BeforeLead && leads::any) list = head_of(list);
      detail::list_push_front(*list, node);
    } else {
      detail::list_link_after_tail(*list, *tail, node);
    }
    return deadline;
  }

  // Whether a schedule may leave a deadline behind now to open_slot() rather
  // than take it as now before placing it: with plain numbers and placement
  // by table, such a deadline always lands in a slot that now has passed in
  // an active bank, which is empty (every timer of a level lies in now's
  // slot of it or a later one), so it takes the rare path anyway; and the
  // common path keeps the comparison with now off the way from the deadline
  // to its slot (docs/perf/2026-11-25-churn.md). Wrapping ticks scan their
  // top level cyclically, where a slot behind now's may hold timers, and a
  // far list takes such a deadline out of the levels: both compare first.
  static constexpr bool clamp_when_opening = layout::placed_by_table && !layout::wraps;

  // What open_slot() found: the list the timer goes to and the deadline it
  // is placed at.
  struct opened {
    link* list;
    tick_type deadline;
  };

  // place() for the first timer of slot `list` of `level`: marks it
  // occupied and lowers the bound of the next event; returns the list the
  // timer goes to (another one for a diverted slot, or now's level-0 slot
  // for a deadline behind now, see clamp_when_opening) and its deadline.
  TIMERWHEEL_NOINLINE opened open_slot(link* list, std::size_t level, tick_type deadline) noexcept {
    if constexpr (clamp_when_opening) {
      if (behind(deadline)) [[unlikely]] {
        deadline = now_;
        level = 0;
        list = &slots_[slot_index(0, slot_number(now_, 0))];
        if (list->prev != list) return {list, deadline};
      }
    }
    if (list != diverted_.slot(level)) [[likely]] {
      mark_occupied(active_levels_, level, index_of(list));
    } else if (arrivals_.accepts(level)) {
      // The first new timer of a diverted slot since it last took any:
      // from now on it takes them behind its mark (see keep_arrivals()).
      mark_slot(static_cast<unsigned>(level), index_of(list));
    } else {
      // The next slot of a level whose timers are moving ahead of time:
      // newer than all of them, this one waits behind them in a spare
      // bank.
      list = &past_diverted(static_cast<unsigned>(level), deadline);
    }
    lower_bound_to(event_of(deadline, level));
    return {list, deadline};
  }

  // place() for a timer beyond the top level: the far list.
  TIMERWHEEL_NOINLINE link* open_far(tick_type deadline, std::size_t level) noexcept {
    if (detail::list_empty(far_) || distance(deadline) < distance(far_lower_bound_))
      far_lower_bound_ = deadline;
    lower_bound_to(event_of(deadline, level));
    return &far_;
  }

  // The first tick of the slot at `level` (or for the far list, `count`:
  // of the top-level block) that holds `deadline`.
  static tick_type event_of(tick_type deadline, std::size_t level) noexcept {
    return static_cast<tick_type>(deadline & layout::event_mask[level]);
  }

  // Lowers the bound of the next event to `event` where that is earlier.
  void lower_bound_to(tick_type event) noexcept {
    if (distance(event) < distance(lower_bound_)) lower_bound_ = event;
  }

  // Places a timer that comes from outside the levels (a schedule, or one
  // that expire_all puts back) and keeps the lower bound of the next event.
  // Returns the deadline taken (see place()).
  TIMERWHEEL_ALWAYS_INLINE tick_type add(link& node, tick_type deadline, bool at_front) noexcept {
    if constexpr (layout::wraps) {
      if (wheel_empty()) {
        // An emptied wheel keeps no bound that would stop an advance at the
        // start of a diverted slot: the diversion ends with the timers.
        end_diversions(~std::uint64_t{0});
        // Distances from now drift as now moves: an empty wheel's stale
        // bound could read as nearer than a new event. The farthest tick
        // ahead reads as after every event.
        lower_bound_ = static_cast<tick_type>(now_ - 1);
      }
    }
    // Plain numbers: an emptied wheel's bound stays a bound, and walk_to
    // resets it to the largest tick when it finds the wheel empty.
    return place(node, deadline, at_front);
  }

  // Keeps the count of a counted<...> configuration; nothing otherwise.
  void count_timers(int delta) noexcept {
    if constexpr (layout::counted) size_ += static_cast<std::size_t>(delta);
  }

  // Takes a timer out for a cancel or a new schedule: a slot of level 2
  // that it empties keeps its keeper. With `Cancel`, a cancel's: the rare
  // case of a list it empties inline too (see
  // mark_empty_if_waiting_inline()).
  template <bool Cancel = false>
  TIMERWHEEL_ALWAYS_INLINE void unlink(link& node) noexcept {
    if (link* emptied = detail::list_unlink(node)) mark_empty_if_slot<Cancel, true>(emptied);
  }

  // unlink() for a timer about to fire, whose list is a level-0 slot of the
  // active bank.
  TIMERWHEEL_ALWAYS_INLINE void unlink_due(link& node) noexcept {
    if (link* emptied = detail::list_unlink(node))
      mark_empty(static_cast<std::size_t>(emptied - slots_.data()));
  }

  // An emptied list is a slot exactly when its sentinel lies in slots_, or
  // stands for a diverted slot when it is the list of timers waiting in one.
  // A slot of level 2, which may still hold timers in its lead list, takes
  // the rare path too (kept apart, so that this stays small enough to
  // inline); with `Cancel`, inline (see mark_empty_if_waiting_inline()).
  // With `Keep`, a slot of level 2 left empty keeps its keeper.
  template <bool Cancel = false, bool Keep = false>
  TIMERWHEEL_ALWAYS_INLINE void mark_empty_if_slot(const link* sentinel) noexcept {
    const std::uintptr_t offset = reinterpret_cast<std::uintptr_t>(sentinel) -
                                  reinterpret_cast<std::uintptr_t>(slots_.data());
    const std::size_t index = offset / sizeof(link);
    if (offset < sizeof(slots_) && index - leads::first >= leads::count)
      mark_empty(index);
    else if constexpr (Cancel)
      mark_empty_if_waiting_inline<Keep>(sentinel);
    else
      mark_empty_if_waiting<Keep>(sentinel);
  }

  // The rest of mark_empty_if_slot(): a slot of level 2, empty when its
  // lead list is too; a diverted slot's waiting list; a lead list, whose
  // slot is empty when its own list is too. A front list that a cancel
  // empties keeps its bit in the front lists' words (see front_lists): a
  // store here would cost the caller's loop of cancels and schedules a
  // reload a step.
  template <bool Keep>
  void mark_empty_if_waiting(const link* sentinel) noexcept {
    mark_empty_if_waiting_inline<Keep>(sentinel);
  }

  // mark_empty_if_waiting(), inline in a cancel though seldom taken: as a
  // call there, g++ -O2 took it to write anything of the wheel, and a
  // caller's loop of cancels and schedules read now and its own values from
  // memory every step (W1 at 1e3 and 1e5: 4-6% of a step). A schedule keeps
  // the call: inline there, the code it adds to a loop of pops and
  // schedules (W6) cost a hold 8 instructions more than it saved
  // (docs/perf/2026-11-29-glue-and-small-n.md).
  template <bool Keep>
  TIMERWHEEL_ALWAYS_INLINE void mark_empty_if_waiting_inline(const link* sentinel) noexcept {
    if constexpr (leads::any) {
      const std::uintptr_t offset = reinterpret_cast<std::uintptr_t>(sentinel) -
                                    reinterpret_cast<std::uintptr_t>(&slots_[leads::first]);
      if (offset < leads::count * sizeof(link)) {
        const std::size_t index = leads::first + offset / sizeof(link);
        if (!leads_.holds(index)) empty_level2<Keep>(index);
        return;
      }
    }
    if (const link* slot = diverted_.owner_of_waiting(sentinel)) {
      // A slot that holds its mark stays occupied (see keep_arrivals()).
      const std::size_t index = index_of(slot);
      if (!arrivals_.marked(layout::level_of_word[index / 64])) mark_empty(index);
      return;
    }
    if constexpr (leads::any) {
      const std::size_t index = leads_.slot_of(sentinel);
      if (index != 0 && detail::list_empty(slots_[index])) empty_level2<Keep>(index);
    }
  }

  // For slot `index` of level 2's active bank, which holds no timer any
  // more: with `Keep` (a cancel or a new schedule took its last), its
  // keeper goes in and the slot stays occupied; else its bit is cleared. A
  // slot emptied that way is never now's (which holds nothing once
  // started) nor diverted (whose own list keeps its mark or stays empty).
  template <bool Keep>
  void empty_level2(std::size_t index) noexcept {
    if constexpr (Keep)
      keepers_.keep(slots_[index], index);
    else
      mark_empty(index);
  }

  // Whether slot `index` holds its keeper and no timer.
  bool keeper_alone(std::size_t index) const noexcept {
    return keepers_.alone(slots_[index], index) && !leads_.holds(index);
  }

  // Takes the keeper out of slot `index` where it holds one, about to be
  // walked; the slot becomes empty where it held nothing else.
  void drop_keeper(std::size_t index) noexcept {
    if (keepers_.drop(index) && !slot_holds(slots_[index], index)) mark_empty(index);
  }

  // drop_keeper() for every slot that holds one.
  void drop_keepers() noexcept {
    for (std::uint64_t k = keepers_.kept(); k != 0; k &= k - 1)
      drop_keeper(leads::first + static_cast<std::size_t>(std::countr_zero(k)));
  }

  // The list that a timer older than every timer of slot `list` goes in
  // front of: the slot's lead list while that holds timers, else `list`
  // (any list of the wheel).
  link* head_of(link* list) noexcept {
    const std::uintptr_t offset = reinterpret_cast<std::uintptr_t>(list) -
                                  reinterpret_cast<std::uintptr_t>(&slots_[leads::first]);
    if (offset < leads::count * sizeof(link)) {
      link& lead = leads_.list(offset / sizeof(link));
      if (!detail::list_empty(lead)) return &lead;
    }
    return list;
  }

  // Puts the timers of the lead list of slot `index`, if it has one, in
  // front of the slot's own list: one list in order.
  void merge_lead(std::size_t index) noexcept {
    if constexpr (leads::any)
      if (link* lead = leads_.of(index); lead != nullptr && !detail::list_empty(*lead))
        detail::list_splice_front(slots_[index], *lead);
  }

  // Whether active slot `index`, whose own list is `sentinel`, holds timers.
  bool slot_holds(const link& sentinel, std::size_t index) const noexcept {
    if (!detail::list_empty(sentinel)) return true;
    if constexpr (leads::any) return leads_.holds(index);
    return false;
  }

  // The list of the timers that the walk from the front of the level above
  // moved towards spare slot `index` (see spread()); nullptr for a slot of
  // an active bank or of a level without one.
  // With `r`, the list of that walk (nullptr where the level has none).
  const link* front_of(std::size_t index, run r = run::front) const noexcept {
    if (index < layout::total_slots) return nullptr;
    const unsigned below = layout::level_of_word[index / 64];
    if (!fronts::walks_front(below + 1)) return nullptr;
    if (r != run::front && !fronts::walks_leads(below + 1)) return nullptr;
    return &fronts_.list(below + 1, index - spare_base(below), r);
  }

  // The timers of slot `index`: its own list, or for a diverted slot, the
  // timers waiting in it.
  const link& held_in(std::size_t index) const noexcept {
    return diverted_.held_in(slots_[index], layout::level_of_word[index / 64]);
  }

  // Marks slot `index` of `level` occupied; `mask` is active_levels_ for an
  // active bank, spare_levels_ for a spare one.
  void mark_occupied(std::uint64_t& mask, std::size_t level, std::size_t index) noexcept {
    occupied_.set(index);
    mask |= bit(static_cast<unsigned>(level));
  }

  TIMERWHEEL_ALWAYS_INLINE void mark_empty(std::size_t index) noexcept {
    if (!occupied_.reset(index)) return;
    const std::size_t word = index / 64;
    (active_word(word) ? active_levels_ : spare_levels_) &= ~bit(layout::level_of_word[word]);
  }

  bool level_occupied(unsigned level) const noexcept { return (active_levels_ >> level & 1) != 0; }

  // Whether the levels, their spare banks, the front lists and the far list
  // hold no timer (a spare slot's bit says only whether its own list holds
  // timers); a diverted slot's mark and a keeper count as one here (see
  // placeholders_alone()).
  bool wheel_empty() const noexcept {
    if ((active_levels_ | spare_levels_) != 0) return false;
    if constexpr (fronts::walks_any)
      // The mask first: the call alone, on every pop's path, cost a hold 11
      // instructions (W6 trace at 100 events).
      if (fronts_.levels() != 0 && fronts_.hold_any()) return false;
    if constexpr (layout::has_far) return detail::list_empty(far_);
    return true;
  }

  // Whether the wheel holds marks of diversions (see keep_arrivals()) or
  // keepers and no timer: every slot whose bit is set is a diverted slot
  // that holds its mark alone or a slot that holds its keeper alone, and
  // the spare banks, the front lists and the far list are empty.
  bool placeholders_alone() const noexcept {
    return (arrivals_.marked() | keepers_.kept()) != 0 && only_placeholders();
  }

  // placeholders_alone() past its first test, out of line.
  TIMERWHEEL_NOINLINE bool only_placeholders() const noexcept {
    std::uint64_t levels = arrivals_.marked();
    if constexpr (leads::any)
      if (keepers_.kept() != 0) levels |= bit(leads::level);
    if (spare_levels_ != 0 || (active_levels_ & ~levels) != 0) return false;
    if constexpr (fronts::walks_any)
      if (fronts_.levels() != 0 && fronts_.hold_any()) return false;
    if constexpr (layout::has_far)
      if (!detail::list_empty(far_)) return false;
    for (std::uint64_t m = active_levels_; m != 0; m &= m - 1) {
      const auto level = static_cast<unsigned>(std::countr_zero(m));
      const link* diverted = arrivals_.marked(level) ? diverted_.slot(level) : nullptr;
      for (std::size_t w = base(level) / 64; w < base(level) / 64 + layout::words[level]; ++w) {
        for (std::uint64_t slots = occupied_.word(w); slots != 0; slots &= slots - 1) {
          const std::size_t index = w * 64 + static_cast<std::size_t>(std::countr_zero(slots));
          if (&slots_[index] != diverted) {
            if (!keeper_alone(index)) return false;
            continue;
          }
          const link* mark = &arrivals_.mark(level);
          if (diverted->next != mark || diverted->prev != mark || diverted_.holds(level))
            return false;
        }
      }
    }
    return true;
  }

  // The first occupied slot of a non-empty bank that starts at flat slot
  // `base`, scanning cyclically from slot `from`: below the top level every
  // occupied slot of an active bank is at or after now's, and the cyclic
  // scan reads the top level across a wrap.
  unsigned first_occupied(std::size_t base, unsigned from) const noexcept {
    return occupied_.first(base, from);
  }

  // The earliest deadline in the levels, their spare banks and the far list.
  std::optional<tick_type> earliest_held() const noexcept {
    // The candidates: the earliest occupied slot of the lowest active level
    // and the first occupied slot of each spare bank. Each is at or after
    // its slot's start, so a slot starting at or after the best deadline
    // found is never scanned: a coarse slot may hold thousands of timers,
    // and timers moved into the banks below by the spreading come first.
    std::size_t active = no_slot;
    tick_type active_start = now_;  // for a top-level slot past a wrap, now
    for (std::uint64_t levels = active_levels_; levels != 0; levels &= levels - 1) {
      const unsigned k = static_cast<unsigned>(std::countr_zero(levels));
      const unsigned s = first_holding(k, slot_number(now_, k));
      if (s > layout::slot_mask[k]) continue;  // keepers alone
      // Level 0 lies before every spare bank's block.
      if (k == 0) return slot_start(0, s);
      active = slot_index(k, s);
      if (const tick_type start = slot_start(k, s); !behind(start)) active_start = start;
      break;
    }
    // A diverted slot whose mark is all it holds has no timer to offer, and
    // the earliest may lie anywhere after it: a walk over every timer finds
    // it (a wheel of a few timers, all cancelled but the far ones).
    if (active != no_slot && arrivals_.marked() != 0 && !earliest_of(active)) [[unlikely]]
      return earliest_of_all();
    std::optional<tick_type> best;
    // `index`: the slot to scan, or no_slot for a level-0 slot, whose start
    // is its timers' deadline.
    const auto consider = [&](tick_type start, std::size_t index) {
      if (best && distance(start) >= distance(*best)) return;
      const tick_type first = index == no_slot ? start : *earliest_of(index);
      if (!best || distance(first) < distance(*best)) best = first;
    };
    // The spare banks, in the order of their blocks, the active slot in its
    // place among them.
    std::uint64_t spares = spare_levels_;
    if constexpr (fronts::walks_any) spares |= fronts_.levels() >> 1;
    for (; spares != 0; spares &= spares - 1) {
      const unsigned j = static_cast<unsigned>(std::countr_zero(spares));
      const tick_type block = next_start(j + 1);
      if (best && distance(block) > distance(*best)) break;
      const std::size_t base = spare_base(j);
      const unsigned s = first_in_spare(j);
      if (s > layout::slot_mask[j]) continue;  // front lists that cancels emptied
      const tick_type start = static_cast<tick_type>(block | (tick_type{s} << layout::shift[j]));
      if (active != no_slot && distance(active_start) < distance(start)) {
        consider(active_start, active);
        active = no_slot;
      }
      consider(start, j == 0 ? no_slot : base + s);
    }
    if (active != no_slot) consider(active_start, active);
    if (best) return best;
    if constexpr (layout::has_far)
      if (!detail::list_empty(far_)) return earliest_in(far_);
    return std::nullopt;
  }

  // first_occupied() for the active bank of `level`, past the slots that
  // hold their keeper alone; beyond the level's slots where every occupied
  // one does.
  unsigned first_holding(unsigned level, unsigned from) const noexcept {
    if constexpr (leads::any) {
      if (level == leads::level && keepers_.kept() != 0) {
        // One word, below the top level: no occupied slot before now's.
        for (std::uint64_t slots = occupied_.word(base(level) / 64) >> from << from; slots != 0;
             slots &= slots - 1) {
          const auto s = static_cast<unsigned>(std::countr_zero(slots));
          if (!keeper_alone(slot_index(level, s))) return s;
        }
        return static_cast<unsigned>(layout::slot_mask[level]) + 1;
      }
    }
    return first_occupied(base(level), from);
  }

  // The earliest deadline of every timer the levels and the far list hold,
  // by a walk over all of them. O(n + slots).
  std::optional<tick_type> earliest_of_all() const noexcept {
    std::optional<tick_type> best;
    for_each_held([&](const hook_type& timer) {
      if (!best || distance(timer.deadline()) < distance(*best)) best = timer.deadline();
    });
    return best;
  }

  // Calls f for every timer the levels, their spare banks, the lists of
  // the spreading and the far list hold.
  template <class F>
  void for_each_held(F&& f) const {
    occupied_.for_each([&](std::size_t index) { visit_own(slots_[index], f); });
    for (unsigned level = 0; level < layout::count; ++level)
      shell_type::visit_list(diverted_.waiting(level), f);
    fronts_.for_each([&](const link& list) { shell_type::visit_list(list, f); });
    leads_.for_each([&](const link& lead) { shell_type::visit_list(lead, f); });
    shell_type::visit_list(diverted_.lead_waiting(), f);
    shell_type::visit_list(far_, f);
  }

  // The first slot of the spare bank of `level` that holds timers, in its
  // own list or in the front list of the level above.
  unsigned first_in_spare(unsigned level) const noexcept {
    unsigned s = std::numeric_limits<unsigned>::max();
    if ((spare_levels_ >> level & 1) != 0) s = first_occupied(spare_base(level), 0);
    if constexpr (fronts::walks_any) {
      if (fronts::walks_front(level + 1)) s = std::min(s, fronts_.first_held(level + 1));
    }
    return s;
  }

  // The earliest deadline of occupied slot `index`: in its list (for a
  // diverted slot, the timers waiting in it) and, for a spare slot, in the
  // front list of the level above (see spread()).
  // The lead list of an active slot of level 2 counts too.
  // None for a diverted slot whose mark is all it holds.
  std::optional<tick_type> earliest_of(std::size_t index) const noexcept {
    std::optional<tick_type> best;
    const auto keep = [&](tick_type deadline) {
      if (!best || distance(deadline) < distance(*best)) best = deadline;
    };
    const auto look = [&](const link* list) {
      if (list != nullptr && !detail::list_empty(*list)) keep(earliest_in(*list));
    };
    if (keepers_.kept(index))
      visit_own(slots_[index], [&](const hook_type& timer) { keep(timer.deadline()); });
    else
      look(&held_in(index));
    if (arrivals_.marked() != 0 && &held_in(index) != &slots_[index])
      visit_own(slots_[index], [&](const hook_type& timer) { keep(timer.deadline()); });
    look(front_of(index));
    look(front_of(index, run::lead_front));
    look(front_of(index, run::lead_back));
    look(leads_.of(index));
    if (&slots_[index] == diverted_.slot(leads::level)) look(&diverted_.lead_waiting());
    return best;
  }

  // Calls f for every timer of `sentinel`, a slot's own list, which may
  // hold the mark of a diversion (see keep_arrivals()) or a keeper.
  template <class F>
  void visit_own(const link& sentinel, F&& f) const {
    for (const link* n = sentinel.next; n != &sentinel; n = n->next)
      if (!arrivals_.is_mark(n) && !keepers_.is_keeper(n)) f(access::from_links<hook_type>(*n));
  }

  tick_type earliest_in(const link& sentinel) const noexcept {
    tick_type best = deadline_of(*sentinel.next);
    for (const link* n = sentinel.next->next; n != &sentinel; n = n->next)
      if (distance(deadline_of(*n)) < distance(best)) best = deadline_of(*n);
    return best;
  }

  // --- advancing ---

  // Walks now through every event up to `to` in time order: hands the
  // level-0 timers due to `sink` (unlinked, still counted), starts coarse
  // slots and brings far timers down. Leaves now at the last event; the
  // caller sets now = to. Returns how many timers it handed to `sink`.
  template <class Sink>
  std::size_t walk_to(tick_type to, Sink&& sink) {
    std::size_t fired = 0;
    std::optional<tick_type> warmed;  // the tick whose level-0 list warm() loaded
    while (distance(lower_bound_) <= distance(to)) {
      if (wheel_empty()) {
        forget_events();
        break;
      }
      const next_step e = next_event();
      if (distance(e.start) > distance(to)) {
        lower_bound_ = e.start;
        break;
      }
      now_ = lower_bound_ = e.start;
      if (e.what == next_step::kind::slot_start) {
        // The earliest timer alone in its level-1 slot, where the advance
        // passes the whole slot: taken from there, with no stop in level 0
        // on the way (see fire_next()).
        if (lone_passed_by(e, to)) [[unlikely]] {
          ++fired;
          sink(access::from_links<hook_type>(take_lone_out_of_line(e.slot)));
          continue;
        }
        start_slots_at(e);
        continue;
      }
      if (e.what == next_step::kind::far_block) {
        cascade(far_);
        continue;
      }
      link& list = slots_[slot_index(0, e.slot)];
      if (warmed != e.start) {
        warm(list);
        warmed = e.start;
      }
      link& node = *list.next;
      unlink_due(node);
      ++fired;
      sink(access::from_links<hook_type>(node));
    }
    return fired;
  }

  // For a wheel just found empty: no diversion and no next event, so that
  // no later advance stops at a slot start that has no timers.
  void forget_events() noexcept {
    end_diversions(~std::uint64_t{0});
    lower_bound_ = no_event();
  }

  // Loads every node of a list from both ends at once: two chains of misses
  // that overlap, where the walk that fires the list from the front would
  // take one miss after another (see docs/design.md, "Walking a list").
  // The walk's ends go to an empty asm, so the compiler keeps the walk.
  static void warm(const link& sentinel) noexcept {
    const link* front = sentinel.next;
    const link* back = sentinel.prev;
    while (front != back && front->next != back) {
      front = front->next;
      back = back->prev;
    }
#if defined(__GNUC__) || defined(__clang__)
    asm volatile("" : : "r"(front), "r"(back));
#endif
  }

  // warm() for what is left of a list fire_next() is firing, out of line:
  // inlined, its walk made the fire loop larger for every pop.
  TIMERWHEEL_NOINLINE static void warm_rest(const link& sentinel) noexcept { warm(sentinel); }

  struct next_step {
    // lone: the start of a level-1 slot whose lone timer is the earliest
    // (see lone_at_level1()).
    enum class kind { fire, slot_start, far_block, lone };
    tick_type start;  // when it happens
    unsigned slot;    // fire: the level-0 slot; lone: the level-1 slot
    kind what;
  };

  // Moves now through the slot starts and far blocks before the earliest
  // deadline of a non-empty wheel, and returns the firing there: a level-0
  // slot, or a level-1 slot's start whose lone timer it is (take_lone()).
  next_step seek() noexcept {
    for (;;) {
      const next_step e = next_event();
      if (e.what == next_step::kind::fire) return e;
      now_ = lower_bound_ = e.start;
      if (e.what == next_step::kind::slot_start) {
        if (level1_alone_starts(e)) {
          link& sentinel = slots_[slot_index(1, e.slot)];
          if (sentinel.next == sentinel.prev) return {e.start, e.slot, next_step::kind::lone};
          cascade_to_level0(sentinel);
        } else {
          start_slots(e.start);
        }
      } else {
        cascade(far_);
      }
    }
  }

  // Whether the slot start `e`, just reached, is one that start_slots()
  // would reduce to the cascade of a lone timer into an empty level 0: the
  // start of a level-1 slot holding one timer, with level 0 empty, no level
  // above starting here (every other slot start and spare block is then at
  // the next start of level 2 or later, after the whole slot), no spare
  // bank of level 0 to swap in and no diversion of level 1 to end. The
  // common case of a hold whose events lie a few level-1 slots apart.
  bool lone_at_level1(const next_step& e) const noexcept {
    if (!level1_alone_starts(e)) return false;
    const link& sentinel = slots_[slot_index(1, e.slot)];
    return sentinel.next == sentinel.prev;
  }

  // Whether the slot start `e`, just reached, is one that start_slots()
  // would reduce to the cascade of level-1 slot e.slot into an empty level
  // 0: the start of a level-1 slot (it holds timers: level 1 is the lowest
  // non-empty level), with level 0 empty, no level above starting here, no
  // spare bank of level 0 to swap in and no diversion of level 1 to end
  // (so no front lists of it either). What start_slots() would check and
  // find nothing to do for is then known: with few timers most slot starts
  // are such (W6 at N = 100, W2 at 1e3 with long steps).
  bool level1_alone_starts(const next_step& e) const noexcept {
    if constexpr (layout::count > 2) {
      if ((active_levels_ & 3) != 2 || ((spare_levels_ | diverted_.levels() >> 1) & 1) != 0)
        return false;
      if constexpr (fronts::walks_any)
        if ((fronts_.levels() & 2) != 0) return false;
      return (e.start & tick_math::low_bits(layout::shift[2])) != 0;
    } else {
      return false;
    }
  }

  // start_slots(e.start) for a slot start that next_event() found, with
  // the start of level 1 alone taken straight to its cascade (see
  // level1_alone_starts()).
  void start_slots_at(const next_step& e) noexcept {
    if (level1_alone_starts(e))
      cascade_to_level0(slots_[slot_index(1, e.slot)]);
    else
      start_slots(e.start);
  }

  // Whether the slot start `e`, just reached, is one that lone_at_level1()
  // takes, and an advance to `to` passes the whole of that level-1 slot, so
  // that its lone timer is due by then.
  bool lone_passed_by(const next_step& e, tick_type to) const noexcept {
    if constexpr (layout::count > 2)
      return distance(to) > layout::slot_width[1] && lone_at_level1(e);
    else
      return false;
  }

  // The next event of a non-empty wheel: the first occupied slot of the
  // lowest non-empty level (a firing at level 0, else a slot start), or the block
  // of the lowest spare bank in use if it starts earlier (it may, when a
  // level's next slot has been moved out), or with neither, the top-level
  // block of the earliest far timer.
  next_step next_event() const noexcept {
    if (layout::has_far && (active_levels_ | spare_levels_ | diverted_.levels()) == 0)
      return {event_of(far_lower_bound_, layout::count), 0, next_step::kind::far_block};
    next_step e{tick_type{}, 0, next_step::kind::slot_start};
    if (active_levels_ != 0) {
      const unsigned level = static_cast<unsigned>(std::countr_zero(active_levels_));
      e.slot = first_occupied(base(level), slot_number(now_, level));
      e.start = slot_start(level, e.slot);
      // Level 0 lies before every spare bank's block and every diverted
      // slot's start: each is at the start of a later level-1 slot.
      if (level == 0) return {e.start, e.slot, next_step::kind::fire};
    }
    // A diverted slot's start is an event even when nothing waits for it:
    // the diversion must end there.
    if (const std::uint64_t starts = spare_levels_ | diverted_.levels() >> 1; starts != 0) {
      const tick_type block = next_start(static_cast<unsigned>(std::countr_zero(starts)) + 1);
      // Past level 0 every event found is a slot start, as e already says.
      if (active_levels_ == 0 || distance(block) < distance(e.start)) e.start = block;
    }
    return e;
  }

  // Now has reached `start`, the first tick of a slot of level 1 or above.
  // The diversions into the slots that start here end, the spare banks
  // holding their blocks become active, then every slot that starts here
  // cascades to the front of the lists below, the lowest level first: what
  // is left in a slot was scheduled before every timer of its deadline that
  // moved out of it or was sent past it, and before what is left in the
  // slots below (all of which came from it). The timers a level's front walk
  // moved are older still: those of now's slot of the level below go in
  // front of the slot's own before it cascades (the level below cascades
  // first), the others in front of their lists after it.
  void start_slots(tick_type start) noexcept {
    const unsigned top = layout::level_of_start[static_cast<unsigned>(std::countr_zero(start))];
    const std::uint64_t ending = (~std::uint64_t{0} >> (63 - top)) & ~std::uint64_t{1};
    end_arrivals(ending);
    if (keepers_.kept() != 0) [[unlikely]]
      drop_starting_keeper(start, top);
    if constexpr (fronts::walks_any) {
      if ((fronts_.levels() & ending) != 0) [[unlikely]] {
        start_slots_with_fronts(start, top, ending);
        return;
      }
    }
    diverted_.end(ending);
    swap_banks_below(top);
    // Only the levels with timers, lowest first.
    for (std::uint64_t held = active_levels_ & (bit(top) * 2 - 2); held != 0; held &= held - 1) {
      const auto level = static_cast<unsigned>(std::countr_zero(held));
      const std::size_t index = slot_index(level, slot_number(start, level));
      if (!slot_holds(slots_[index], index)) continue;
      cascade_started(slots_[index], level);
    }
  }

  // Takes the keeper out of the slot of level 2 that starts at `start`
  // (where the slots up to level `top` start), if it holds one.
  void drop_starting_keeper(tick_type start, unsigned top) noexcept {
    if constexpr (leads::any)
      if (top >= leads::level)
        drop_keeper(slot_index(leads::level, slot_number(start, leads::level)));
  }

  // start_slots() where a diversion that ends here has front lists, out of
  // line (the start of a slot that spreading moved more than front_after
  // timers out of).
  TIMERWHEEL_NOINLINE void start_slots_with_fronts(tick_type start, unsigned top,
                                                   std::uint64_t ending) noexcept {
    const std::uint64_t fronted = fronts_.levels() & ending;
    for (std::uint64_t f = fronted; f != 0; f &= f - 1)
      return_front(static_cast<unsigned>(std::countr_zero(f)), 0);
    diverted_.end(ending);
    swap_banks_below(top);
    for (std::uint64_t held = (active_levels_ | fronted) & (bit(top) * 2 - 2); held != 0;
         held &= held - 1) {
      const auto level = static_cast<unsigned>(std::countr_zero(held));
      const std::size_t index = slot_index(level, slot_number(start, level));
      const bool with_fronts = (fronted >> level & 1) != 0;
      if (fronts::walks_leads(level) && with_fronts) {
        start_with_lead_runs(index);
        continue;
      }
      if (slot_holds(slots_[index], index)) cascade_started(slots_[index], level);
      if (with_fronts) {
        splice_fronts(level, run::front);
        fronts_.release(level);
      }
    }
  }

  // start_slots_with_fronts() for the slot of level 2 at `index`, whose
  // diversion walked from the front and may have walked its lead list from
  // both ends: each list a spare slot took (see spreading.hpp) goes in front
  // in turn, between the cascades of the two lists' timers still left, the
  // newest first: the own list's, the own list's front walk's, the lead
  // list's back walk's, the lead list's, its front walk's.
  void start_with_lead_runs(std::size_t index) noexcept {
    link& own = slots_[index];
    link& lead = leads_.list(index - leads::first);
    if (!detail::list_empty(own)) cascade_list_below(own, leads::level);
    splice_fronts(leads::level, run::front);
    splice_fronts(leads::level, run::lead_back);
    if (!detail::list_empty(lead)) cascade_list_below(lead, leads::level);
    splice_fronts(leads::level, run::lead_front);
    fronts_.release(leads::level);
  }

  // Cascades `sentinel`, a non-empty slot of `level` that starts now.
  void cascade_started(link& sentinel, unsigned level) noexcept {
    if (level == 1)
      cascade_to_level0(sentinel);
    else
      cascade_below(sentinel, level);
  }

  // Puts the timers of the lists of walk `r` of `level` (but the first,
  // which start_slots() has returned) in front of the lists of the level
  // below, whose bank became the active one at the start of the slot they
  // came from: in front of their lead lists at level 2, which hold what the
  // slot's cascade just walked from the front, newer than them.
  void splice_fronts(unsigned level, run r) noexcept {
    for (std::uint64_t used = fronts_.used(level) & ~std::uint64_t{1}; used != 0;
         used &= used - 1) {
      const auto s = static_cast<std::size_t>(std::countr_zero(used));
      link& front = fronts_.list(level, s, r);
      if (detail::list_empty(front)) continue;  // emptied by cancels
      const std::size_t index = base(level - 1) + s;
      link* list = &slots_[index];
      if constexpr (leads::any)
        if (level - 1 == leads::level) list = &leads_.list(s);
      mark_occupied(active_levels_, level - 1, index);
      detail::list_splice_front(*list, front);
    }
  }

  // Puts the timers of front list `s` of `level` back in front of the timers
  // still waiting in the diverted slot they came from (older than all of
  // them); at level 2, those of the walks of its lead list back in front
  // and at the back of the lead list's timers still waiting.
  void return_front(unsigned level, std::size_t s) noexcept {
    if (!fronts_.holds(level, s)) return;
    if (!diverted_.holds(level)) {
      const std::size_t source = index_of(diverted_.slot(level));
      mark_occupied(active_word(source / 64) ? active_levels_ : spare_levels_, level, source);
    }
    detail::list_splice_front(diverted_.waiting(level), fronts_.list(level, s));
    if (fronts::walks_leads(level)) {
      link& lead = diverted_.lead_waiting();
      detail::list_splice_front(lead, fronts_.list(level, s, run::lead_front));
      detail::list_splice_back(lead, fronts_.list(level, s, run::lead_back));
    }
  }

  // Ends the diversions of the levels in `levels` anywhere but at their
  // slots' start: the timers the front walks moved go back to their slots
  // with those still waiting there, in front.
  void end_diversions(std::uint64_t levels) noexcept {
    end_arrivals(levels);
    if constexpr (fronts::walks_any) {
      for (std::uint64_t f = fronts_.levels() & levels; f != 0; f &= f - 1) {
        const auto level = static_cast<unsigned>(std::countr_zero(f));
        for (std::uint64_t used = fronts_.used(level); used != 0; used &= used - 1)
          return_front(level, static_cast<std::size_t>(std::countr_zero(used)));
        fronts_.release(level);
      }
    }
    diverted_.end(levels);
  }

  // swap_banks() for every level below `top` whose spare bank holds timers.
  void swap_banks_below(unsigned top) noexcept {
    for (std::uint64_t spares = spare_levels_ & (bit(top) - 1); spares != 0; spares &= spares - 1)
      swap_banks(static_cast<unsigned>(std::countr_zero(spares)));
  }

  // Makes the spare bank of `level` the active one, at the start of the
  // block the spare holds, where the active bank is empty (its timers were
  // all earlier) and becomes the spare. The banks keep their places and the
  // spare's lists move to the active bank's sentinels, so that a schedule
  // finds the active bank at a constant offset: O(occupied slots of the
  // spare), each list's end nodes relinked to its new sentinel.
  void swap_banks(unsigned level) noexcept {
    const std::size_t active = base(level);
    const std::size_t spare = spare_base(level);
    for (std::size_t w = 0; w < layout::words[level]; ++w) {
      for (std::uint64_t slots = occupied_.word(spare / 64 + w); slots != 0; slots &= slots - 1) {
        const std::size_t s = w * 64 + static_cast<std::size_t>(std::countr_zero(slots));
        detail::list_move(slots_[active + s], slots_[spare + s]);
      }
    }
    occupied_.swap_banks(active, spare, level);
    const std::uint64_t b = bit(level);
    active_levels_ = (active_levels_ & ~b) | (spare_levels_ & b);
    spare_levels_ &= ~b;
  }

  // The flat index of the next slot of `level` (1 or above), the one that
  // starts at next_start(level): the following slot of the active bank, or
  // in a level's last slot, slot 0 of its spare bank; none (the top level in
  // its last slot) gives total_slots.
  std::size_t next_slot(unsigned level) const noexcept {
    const unsigned current = slot_number(now_, level);
    if (current < layout::slot_mask[level]) return slot_index(level, current + 1);
    if (level + 1 < layout::count) return spare_base(level);
    return no_slot;
  }

  // Spreads cascades over the advances before them (see spreading.hpp). In
  // the last quarter of the time before the next slot of a level (1 or
  // above) starts, that slot, unless it holds only a few timers, is
  // diverted: new timers of it go past it to the spare bank of the level
  // below (see place()), and every advance that does work moves a few of the
  // timers it still holds there too, newest first, each to the front of the
  // slot it will take there when the slot starts; past a diversion's first
  // front_after moves, every other move takes the oldest instead, to the
  // back of a front list of that slot (see move_from_both_ends()).
  // While diverted, the slot's bit stays set for the timers waiting in it.
  // So a spare slot holds, for each deadline, what moved from the back in
  // scheduling order and then what was sent past; whatever is left in the
  // slot is older than all of it, and its front list older still
  // (start_slots() puts both in front). Once diverted, a slot only shrinks,
  // by cancels and by the moves of each advance.
  //
  // Level k is in the last quarter of its slot exactly when the two bits of
  // now just below its slot width are set, so one AND finds the levels to
  // look at, and most advances (in no level's last quarter) stop at it,
  // inline. An advance from `from` looks only at the levels whose last
  // quarter is longer than its step: a step that long lands in the quarter
  // from before it, and the next advance is either shorter, and spreads, or
  // as long, and crosses the start, where the slot cascades anyway.
  //
  // With `Held` (the pop's path), only the levels that hold timers: see
  // held_quarters().
  template <bool Held = false>
  TIMERWHEEL_ALWAYS_INLINE void spread(tick_type from) noexcept {
    tick_type quarters = now_ & (now_ >> 1) & quarters_longer_than(now_ - from);
    if constexpr (Held) quarters &= held_quarters();
    if (quarters != 0) spread_in(quarters);
  }

  // The quarter bits of the levels that hold timers in either bank, or all
  // of them while a diverted slot holds a mark (whose checkpoints
  // spread_in() keeps): spread_level() returns at once for the others, so
  // a pop in their last quarter alone makes no call. The levels' bits
  // deposited onto the quarter bits, where every level above 0 has one and
  // the deposit is one instruction (BMI2); all bits otherwise. On the pop's
  // path only: with a hundred events many pops land in the last quarter of
  // a level that holds none (W6 1-4% a hold), where an advance of W2's,
  // with every level held, would pay the mask for nothing
  // (docs/perf/2026-11-29-glue-and-small-n.md).
  TIMERWHEEL_ALWAYS_INLINE tick_type held_quarters() const noexcept {
    if constexpr (detail::deposit_is_fast && std::popcount(quarter_bits) == layout::count - 1) {
      if (arrivals_.marked() != 0) return static_cast<tick_type>(~tick_type{0});
      return static_cast<tick_type>(
          detail::deposit((active_levels_ | spare_levels_) >> 1, quarter_bits));
    }
    return static_cast<tick_type>(~tick_type{0});
  }

  // spread() for the levels whose quarter bit is set in `quarters`, lowest
  // first. Unrolled, a copy of spread_level() a level: each level's branches
  // then sit apart from the other levels', and each level's slots behave
  // alike from one advance to the next (a level-1 next slot nearly empty, a
  // level-2 one diverted and moving), where one loop over the levels gave
  // the processor a mix of them to predict at every branch.
  TIMERWHEEL_NOINLINE void spread_in(tick_type quarters) noexcept {
    const std::uint64_t held = active_levels_ | spare_levels_;
    bool pressed = false;
    [&]<unsigned... K>(std::integer_sequence<unsigned, K...>) {
      ((pressed |= (quarters & quarter_bit(K + 1)) != 0 && spread_level(K + 1, held)), ...);
    }
    (std::make_integer_sequence<unsigned, layout::count - 1>{});
    if (arrivals_.marked() != 0) [[unlikely]]
      keep_all_arrivals();
    // While a near slot still holds timers, every advance moves some: none
    // takes the O(1) path.
    if (pressed) block_fast_path();
  }

  // keep_arrivals() for every diverted slot that takes new timers and has
  // reached its checkpoint; the others keep the bound of the next event at
  // theirs.
  TIMERWHEEL_NOINLINE void keep_all_arrivals() noexcept {
    for (std::uint64_t m = arrivals_.marked(); m != 0; m &= m - 1) {
      const auto level = static_cast<unsigned>(std::countr_zero(m));
      if (reached(arrivals_.checkpoint(level)))
        keep_arrivals(level, index_of(diverted_.slot(level)));
      else
        lower_bound_to(arrivals_.checkpoint(level));
    }
  }

  // spread_in() for `level`, in the last quarter before its next slot
  // starts; `held` has a bit for each level with timers in either bank.
  // Returns whether that slot still holds timers after this advance's moves.
  TIMERWHEEL_ALWAYS_INLINE bool spread_level(unsigned level, std::uint64_t held) noexcept {
    // Only in the last quarter: moved earlier, more of the slot's timers
    // would be cancelled after their move.
    if ((held >> level & 1) == 0) return false;
    const tick_type start = next_start(level);
    const std::size_t source = next_slot(level);
    if (source == no_slot) return false;
    if (diverted_.slot(level) == nullptr) {
      const bool lead_walks = lead_walked(level, source);
      // A slot of small_slot timers or fewer is not diverted (nor are the
      // slots of an empty level): cascaded at its start its few timers
      // cost no more than moved ahead of it one advance at a time, and
      // the diversion would make its start an event to stop at; the first
      // advance that finds it holding more diverts it.
      if (!lead_walks && few_timers(slots_[source])) return false;
      // More than small_slot timers: the slot stays occupied.
      if (level == leads::level) keepers_.drop(source);
      diverted_.begin(level, slots_[source]);
      if (takes_arrivals(level, source)) arrivals_.accept(level);
      if (lead_walks) diverted_.begin_lead(leads_.list(source - leads::first));
      if (distance(start) < distance(lower_bound_)) lower_bound_ = start;  // ends it there
    }
    link& from = diverted_.waiting(level);
    if (!diverted_.holds(level)) return false;
    const unsigned moves = spreading::moves(layout::slot_width[level], distance(start));
    // Past its first front_after moves, a diversion walks from both ends
    // (see move_from_both_ends()), but where the slot is slot 0 of the
    // level's own spare bank: the level above puts older timers in front
    // of it while it waits.
    unsigned back_alone = moves;
    if (fronts::walks_front(level) && source != spare_base(level))
      back_alone = moves_from_back_alone(level, moves);
    for (unsigned n = 0; n < back_alone && !detail::list_empty(from); ++n) move_back(level, from);
    // A configuration without front lists never walks from the front: kept
    // out of its build, where the walk's pushes would index an empty table.
    if constexpr (fronts::walks_any) {
      if (back_alone != moves) [[unlikely]]
        move_from_both_ends(level, moves - back_alone);
    }
    if (diverted_.holds(level)) return true;
    if (!arrivals_.marked(level)) mark_empty(source);
    return false;
  }

  // Whether the diversion of slot `source` of `level`, about to begin, may
  // take new timers in the slot's own list behind a mark, sending them past
  // it at each checkpoint (see keep_arrivals()), rather than sending each
  // past at its schedule: at levels 2 and up (whose quarters last 256 ticks
  // or more of checkpoints), where the slot is not slot 0 of the level's
  // own spare bank (which no schedule reaches).
  bool takes_arrivals(unsigned level, std::size_t source) const noexcept {
    return level >= 2 && source != spare_base(level);
  }

  // Puts the mark of `level` at the back of its diverted slot, at
  // `source`, which takes new timers from now on; the first checkpoint is
  // an interval away.
  void mark_slot(unsigned level, std::size_t source) noexcept {
    arrivals_.batch(level) = 0;
    detail::list_push_back(slots_[source], arrivals_.mark(level));
    arrivals_.set_marked(level, true);
    mark_occupied(active_levels_, level, source);
    next_checkpoint(level);
  }

  // Sets the next checkpoint of the diverted slot of `level` an interval
  // away, and keeps the bound of the next event at or before it.
  void next_checkpoint(unsigned level) noexcept {
    arrivals_.checkpoint(level) = static_cast<tick_type>(now_ + arrival_interval(level));
    lower_bound_to(arrivals_.checkpoint(level));
  }

  // Whether now has reached `tick`.
  bool reached(tick_type tick) const noexcept { return tick == now_ || behind(tick); }

  // The ticks between two checkpoints of a diversion of `level` that takes
  // new timers: checkpoint_ticks, or a 64th of the level's slot width where
  // that is shorter.
  static tick_type arrival_interval(unsigned level) noexcept {
    return static_cast<tick_type>(
        std::clamp<tick_type>(layout::slot_width[level] / 64, 1, checkpoint_ticks));
  }

  // The advance's part for a diverted slot of `level` that takes new timers
  // (at `source`), at a checkpoint: sends past it the timers in front of
  // its mark (those that came before the last checkpoint and are still
  // there), counts those behind it and moves the mark to the back. With
  // nothing on either side the slot stops taking new timers until one
  // comes; where every timer of the last checkpoint's count is still there
  // (none was cancelled or scheduled again: a hold, not churn), waiting
  // gains nothing, and the slot sends them all and declines new timers
  // until the diversion ends. Keeps the bound of the next event at the next
  // checkpoint.
  void keep_arrivals(unsigned level, std::size_t source) noexcept {
    link& own = slots_[source];
    link& mark = arrivals_.mark(level);
    if (own.next == &mark && own.prev == &mark) {
      unmark(level, source);
      return;
    }
    const std::size_t sent = send_before_mark(level, own, mark);
    std::size_t& batch = arrivals_.batch(level);
    if (sent != 0 && sent == batch) {
      send_all_arrivals(level);
      arrivals_.decline(level);
      return;
    }
    batch = 0;
    for (const link* n = mark.next; n != &own; n = n->next) ++batch;
    move_to_back(own, mark);
    next_checkpoint(level);
  }

  // Moves `mark` to the back of `own`, the list that holds it.
  static void move_to_back(link& own, link& mark) noexcept {
    detail::list_unlink(mark);
    detail::list_push_back(own, mark);
  }

  // Sends past the diverted slot of `level` the timers of its own list
  // `own` in front of `mark`, oldest first, each to the back of the spare
  // slot a schedule would have sent it to (see open_slot()). Returns how
  // many.
  std::size_t send_before_mark(unsigned level, link& own, link& mark) noexcept {
    std::size_t sent = 0;
    for (; own.next != &mark; ++sent) {
      link& node = *own.next;
      detail::list_unlink(node);
      detail::list_push_back(past_diverted(level, deadline_of(node)), node);
    }
    return sent;
  }

  // Takes the mark out of the own list of the diverted slot of `level` at
  // `source`, which holds nothing else.
  void unmark(unsigned level, std::size_t source) noexcept {
    link& mark = arrivals_.mark(level);
    detail::list_unlink(mark);
    mark.next = mark.prev = nullptr;
    arrivals_.set_marked(level, false);
    if (!diverted_.holds(level)) mark_empty(source);
  }

  // Sends past the diverted slot of `level`, which holds its mark, every
  // timer of its own list, and takes the mark out.
  void send_all_arrivals(unsigned level) noexcept {
    link& mark = arrivals_.mark(level);
    link& own = *diverted_.slot(level);
    move_to_back(own, mark);
    send_before_mark(level, own, mark);
    unmark(level, index_of(&own));
  }

  // Before the diversions of `levels` end: send_all_arrivals() for each
  // of their slots that holds its mark, and none takes new timers any more.
  void end_arrivals(std::uint64_t levels) noexcept {
    for (std::uint64_t m = arrivals_.marked() & levels; m != 0; m &= m - 1)
      send_all_arrivals(static_cast<unsigned>(std::countr_zero(m)));
    arrivals_.end(levels);
  }

  // Whether the diversion of slot `source` of `level`, about to begin,
  // walks its lead list as a list of its own (see move_from_four_ends()):
  // where both lists are long; a short lead list joins the slot's own.
  bool lead_walked(unsigned level, std::size_t source) noexcept {
    if constexpr (leads::any) {
      if (level != leads::level || !fronts::walks_leads(level)) return false;
      link* const lead = leads_.of(source);
      if (lead == nullptr || detail::list_empty(*lead)) return false;
      if (!few_timers(*lead) && !few_timers(slots_[source])) return true;
      detail::list_splice_front(slots_[source], *lead);
    }
    return false;
  }

  // How many of the next `moves` moves of the diversion of `level` take the
  // back alone: its first front_after (a slot of a few hundred timers takes
  // no front list, whose upkeep would cost it more than the overlap saves).
  unsigned moves_from_back_alone(unsigned level, unsigned moves) noexcept {
    std::uint32_t& moved = diverted_.moved(level);
    if (moved >= front_after) return 0;
    const unsigned alone = std::min(moves, front_after - moved);
    moved += moves;  // counted up to front_after, then left
    return alone;
  }

  // A move from the back of the diverted slot of `level`, whose waiting
  // list `from` holds timers: the newest, to the front of its spare slot.
  TIMERWHEEL_ALWAYS_INLINE void move_back(unsigned level, link& from) noexcept {
    link& node = *from.prev;
    detail::list_unlink(node);
    detail::list_push_front(spare_slot(level, deadline_of(node)), node);
  }

  // Up to `moves` moves of the diversion of `level`, from its front and its
  // back in turn: two walks, whose misses overlap where one walk waits for
  // each (see docs/design.md, "Walking a list"). Out of line: only a slot
  // of more than front_after timers takes it.
  TIMERWHEEL_NOINLINE void move_from_both_ends(unsigned level, unsigned moves) noexcept {
    if (fronts::walks_leads(level) && !detail::list_empty(diverted_.lead_waiting())) {
      move_from_four_ends(level, moves);
      return;
    }
    link& from = diverted_.waiting(level);
    for (unsigned n = 0; n < moves && !detail::list_empty(from); ++n) {
      if ((n & 1) == 0)
        move_front(level, *from.next);
      else
        move_back(level, from);
    }
  }

  // move_from_both_ends() for a diverted slot of level 2 whose lead list
  // waits too: both lists from both ends in turn, four walks (two once
  // one list is drained), each to a list of its own a spare slot (see
  // spreading.hpp).
  void move_from_four_ends(unsigned level, unsigned moves) noexcept {
    link& own = diverted_.waiting(level);
    link& lead = diverted_.lead_waiting();
    for (unsigned n = 0; n < moves; ++n) {
      const bool own_left = !detail::list_empty(own);
      const bool lead_left = !detail::list_empty(lead);
      if (!own_left && !lead_left) return;
      const unsigned walk = !own_left ? (n & 1) : !lead_left ? 2 + (n & 1) : (n & 3);
      switch (walk) {
        case 0:
          move_front(level, *lead.next, run::lead_front);
          break;
        case 1:
          move_front(level, *lead.prev, run::lead_back);
          break;
        case 2:
          move_front(level, *own.next);
          break;
        default:
          move_back(level, own);
          break;
      }
    }
  }

  // A move of the walk from the front: `node`, the oldest timer waiting in
  // the diverted slot of `level`, older than every timer of its deadline in
  // the spare bank below and in the slot, to the back of the front list of
  // its spare slot; or with `r`, a move of a walk of the lead list.
  TIMERWHEEL_ALWAYS_INLINE void move_front(unsigned level, link& node,
                                           run r = run::front) noexcept {
    detail::list_unlink(node);
    fronts_.push(level, slot_of(deadline_of(node), level - 1), node, r);
  }

  // Whether a slot holds at most small_slot timers: cascaded at its start,
  // they cost no more than moved ahead of it.
  static bool few_timers(const link& sentinel) noexcept {
    const link* n = &sentinel;
    for (unsigned k = 0; k <= small_slot; ++k)
      if ((n = n->next) == &sentinel) return true;
    return false;
  }

  // The list, its slot marked occupied, where a timer of `deadline` in the
  // next slot of `level` moves to: its slot in the spare bank of the level
  // below; or, while that slot is itself diverted (the next slot of a level
  // in its last slot), the timers waiting in it. Either way the timer goes
  // in front: it is older than every timer there.
  TIMERWHEEL_ALWAYS_INLINE link& spare_slot(unsigned level, tick_type deadline) noexcept {
    const std::size_t index = spare_base(level - 1) + slot_of(deadline, level - 1);
    link& list = diverted_.held_in(slots_[index], level - 1);
    if (detail::list_empty(list)) mark_occupied(spare_levels_, level - 1, index);
    return list;
  }

  // The list, its slot marked occupied, where a new timer of `deadline` in
  // the diverted next slot of `level` goes: the back of its slot in a
  // spare bank below (see detour()).
  link& past_diverted(unsigned level, tick_type deadline) noexcept {
    const std::size_t index = detour(level, deadline);
    if (detail::list_empty(slots_[index])) mark_occupied(spare_levels_, level, index);
    return slots_[index];
  }

  // The detour of a new timer of `deadline` in the diverted next slot of
  // `level`: the spare slot where it waits, and in `level`, the level of its
  // bank: the level below, or lower while that spare slot is itself the
  // diverted next slot of its level (one in its last slot).
  std::size_t detour(unsigned& level, tick_type deadline) const noexcept {
    std::size_t index;
    do {
      --level;
      index = spare_base(level) + slot_of(deadline, level);
    } while (&slots_[index] == diverted_.slot(level));
    return index;
  }

  // Puts the timers of every spare bank back at the back of the slot they
  // were moved from (they are newer, for each deadline, than what is left
  // there), lowest level first (a level's next slot may be slot 0 of its own
  // spare bank), so that the active banks alone hold them all.
  void return_spares() noexcept {
    for (unsigned level = 1; level < layout::count && spare_levels_ != 0; ++level) {
      if ((spare_levels_ >> (level - 1) & 1) == 0) continue;
      const std::size_t source = next_slot(level);
      occupied_.take_bank(spare_base(level - 1), level - 1, [&](std::size_t index) {
        detail::list_splice_back(slots_[source], slots_[index]);
      });
      spare_levels_ &= ~bit(level - 1);
      mark_occupied(active_word(source / 64) ? active_levels_ : spare_levels_, level, source);
    }
  }

  // Places every timer of a coarse slot that now has reached again relative
  // to now, the newest first, each at the front of its list: each lands
  // strictly lower, ahead of the newer timers of its deadline there (see
  // start_slots()). The far list at the start of a top-level block goes the same
  // way, into empty levels: its timers of this block come into the levels,
  // the rest back to it in order, with their lower bound recomputed.
  void cascade(link& sentinel) noexcept {
    link* node = sentinel.prev;
    detail::list_init(sentinel);
    mark_empty_if_slot(&sentinel);
    while (node != &sentinel) {
      link* const prev = node->prev;
      place<true>(*node, deadline_of(*node), true);
      node = prev;
    }
  }

  // cascade() for a non-empty slot of level 1, whose timers all go to level
  // 0: the same lists in the end, from two walks at once. A walk takes one miss
  // after another (the next node's address is in the node in hand); two
  // walks, one from each end, overlap theirs (see docs/design.md, "Walking a
  // list"). The walk from the back does what cascade() does: the newest
  // first, each in front of the newer timers of its deadline. The walk from
  // the front takes the oldest first and puts each behind the ones it put in
  // that list before, so every list gets, in order, the front walk's timers,
  // then the back walk's, then what it held.
  void cascade_to_level0(link& sentinel) noexcept {
    constexpr std::size_t level0_slots = std::size_t{layout::slot_mask[0]} + 1;
    // Where the front walk puts its next timer, per level-0 slot: 2 KB of
    // stack at most; wider level-0 banks take the one-ended walk.
    if constexpr (level0_slots > 256) {
      cascade(sentinel);
    } else {
      link* front = sentinel.next;
      link* back = sentinel.prev;
      detail::list_init(sentinel);
      mark_empty(index_of(&sentinel));
      link* const level0 = &slots_[base(0)];
      // A short list is walked from the back alone (as cascade() does); the
      // front walk's table would cost more than the overlap saves.
      for (unsigned n = 0; n < short_walk; ++n) {
        link* const prev = back->prev;
        detail::list_push_front(level0[level0_slot(deadline_of(*back))], *back);
        if (back == front) return;
        back = prev;
      }
      cascade_long_to_level0(front, back);
    }
  }

  // cascade_to_level0() for what is left of a long list, [front, back] in
  // list order, out of line: its table of 2 KB at most would cost every
  // cascade the stack's setup, the short ones (most) included.
  TIMERWHEEL_NOINLINE void cascade_long_to_level0(link* front, link* back) noexcept {
    constexpr std::size_t level0_slots = std::size_t{layout::slot_mask[0]} + 1;
    static_assert(layout::bank_base[0] == 0, "level 0's active bank is first");
    if constexpr (level0_slots <= 256)
      cascade_both_ends<level0_slots, false>(
          front, back, level0_slots, [this](tick_type d) { return base(0) + level0_slot(d); });
  }

  // cascade() for a slot of `level` (2 or above) that starts now, from both
  // ends as cascade_to_level0() does for level 1: its timers all go to the
  // active banks below it, flat slots [0, base(level)), which the front
  // walk's table holds when they are at most front_points; more take the
  // walk from the back alone.
  void cascade_below(link& sentinel, unsigned level) noexcept {
    if constexpr (leads::any) {
      if (level == leads::level) {
        link& lead = leads_.list(index_of(&sentinel) - leads::first);
        if (!detail::list_empty(lead)) {
          // Short lists take one walk from both ends: the four walks'
          // tables would cost more than their overlap saves.
          if (few_timers(lead) || few_timers(sentinel)) {
            detail::list_splice_front(sentinel, lead);
          } else {
            cascade_from_four_ends(sentinel, lead);
            return;
          }
        }
      }
    }
    cascade_list_below(sentinel, level);
  }

  // cascade_below() for the timers of list `sentinel` alone (a slot's own
  // list, or its lead list).
  void cascade_list_below(link& sentinel, unsigned level) noexcept {
    const std::size_t targets = base(level);
    if (targets > front_points) {
      cascade(sentinel);
      return;
    }
    link* front = sentinel.next;
    link* back = sentinel.prev;
    detail::list_init(sentinel);
    // `sentinel` is a slot's own list, or at level 2 its own or its lead
    // list.
    if (leads::any && level == leads::level)
      mark_empty_if_slot(&sentinel);
    else
      mark_empty(index_of(&sentinel));
    if (leads::any && level > leads::level) {
      // Into level 2, whose lead lists may hold timers: each in front of
      // them.
      if (cascade_from_back<true>(front, back)) return;
    } else {
      if (cascade_from_back<false>(front, back)) return;
    }
    cascade_long_below(front, back, targets);
  }

  // The first short_walk timers of [front, back], what is left of a
  // cascading list in list order, from the back alone, as cascade() takes
  // them; `back` moves to the next one. Returns whether none is left.
  template <bool BeforeLead>
  TIMERWHEEL_ALWAYS_INLINE bool cascade_from_back(link* front, link*& back) noexcept {
    for (unsigned n = 0; n < short_walk; ++n) {
      link* const prev = back->prev;
      place<BeforeLead>(*back, deadline_of(*back), true);
      if (back == front) return true;
      back = prev;
    }
    return false;
  }

  // cascade_below() for what is left of a long list, out of line as
  // cascade_long_to_level0() is.
  TIMERWHEEL_NOINLINE void cascade_long_below(link* front, link* back,
                                              std::size_t targets) noexcept {
    const auto target = [this](tick_type d) { return active_slot_opened(d); };
    // Cascades from above level 2 may fill its lead lists.
    if (leads::any && targets > leads::first)
      cascade_both_ends<front_points, true>(front, back, targets, target);
    else
      cascade_both_ends<front_points, false>(front, back, targets, target);
  }

  // Moves [front, back], what is left of a cascading list in list order, to
  // the front of the lists of flat slots [0, targets), where `target` sends
  // each deadline (and marks that list occupied), from both ends at once:
  // every list gets, in order, the front walk's timers, then the back
  // walk's, then what it held (see cascade_to_level0()). With `Leads`, a
  // slot of level 2 whose lead list is empty takes the front walk's timers
  // there and the back walk's in front of its own list, the same order in
  // two lists (see cascade_from_four_ends()); one whose lead list holds
  // timers takes both walks' in front of it.
  template <std::size_t Points, bool Leads, class Target>
  TIMERWHEEL_ALWAYS_INLINE void cascade_both_ends(link* front, link* back, std::size_t targets,
                                                  Target target) noexcept {
    // Where the front walk puts its next timer, per target list.
    std::array<link*, Points> after;
    for (std::size_t s = 0; s < targets; ++s) after[s] = &slots_[s];
    // Where the back walk puts its timers, where that is not after[s].
    [[maybe_unused]] std::array<link*, Leads ? leads::count : 1> own;
    if constexpr (Leads) {
      for (std::size_t s = 0; s < leads::count; ++s) {
        link& lead = leads_.list(s);
        own[s] = detail::list_empty(lead) ? &slots_[leads::first + s] : nullptr;
        after[leads::first + s] = &lead;
      }
    }
    const auto back_point = [&](std::size_t t) -> link& {
      if constexpr (Leads)
        if (t - leads::first < leads::count && own[t - leads::first] != nullptr)
          return *own[t - leads::first];
      return *after[t];
    };
    for (;;) {
      link* const ahead = front->next;
      link* const behind = back->prev;
      detail::list_insert_after(back_point(target(deadline_of(*back))), *back);
      if (front == back) return;
      link*& point = after[target(deadline_of(*front))];
      detail::list_insert_after(*point, *front);
      point = front;
      if (ahead == back) return;
      front = ahead;
      back = behind;
    }
  }

  // One list's walk from both ends in a cascade: what is left of it is
  // [front, back], in list order.
  struct both_ends {
    link* front;
    link* back;
  };

  // One step of `walk`, a walk from both ends as cascade_both_ends() takes
  // it, into the lists whose insertion points are `after`: moves the node
  // at the back, then the one at the front. Returns whether nodes are left.
  template <class Points, class Target>
  TIMERWHEEL_ALWAYS_INLINE static bool step_both_ends(both_ends& walk, Points& after,
                                                      Target& target) noexcept {
    link* const ahead = walk.front->next;
    link* const behind = walk.back->prev;
    detail::list_insert_after(*after[target(deadline_of(*walk.back))], *walk.back);
    if (walk.front == walk.back) return false;
    link*& point = after[target(deadline_of(*walk.front))];
    detail::list_insert_after(*point, *walk.front);
    point = walk.front;
    if (ahead == walk.back) return false;
    walk.front = ahead;
    walk.back = behind;
    return true;
  }

  // cascade_below() for a slot of level 2 whose lead list and own list
  // (`sentinel`) both hold timers: each walked from both ends, four walks
  // at once, where one list walked from both ends gives two (see
  // docs/design.md, "Four walks"). Every target list gets, in order, the
  // lead's front walk's timers, its back walk's, the own list's front
  // walk's, its back walk's, then what it held: the lead's go to a list of
  // their own a target, put in front at the end. Out of line: its tables
  // (4 KB for the 128 targets of levels 0 and 1) would cost every cascade
  // the stack's setup.
  TIMERWHEEL_NOINLINE void cascade_from_four_ends(link& sentinel, link& lead) noexcept {
    constexpr std::size_t targets = leads::first;
    both_ends lead_walk{lead.next, lead.prev};
    both_ends own_walk{sentinel.next, sentinel.prev};
    detail::list_init(lead);
    detail::list_init(sentinel);
    mark_empty(index_of(&sentinel));
    std::array<link, targets> early;  // the lead's timers, a target
    std::array<link*, targets> at_early;
    std::array<link*, targets> at_own;
    for (std::size_t s = 0; s < targets; ++s) {
      detail::list_init(early[s]);
      at_early[s] = &early[s];
      at_own[s] = &slots_[s];
    }
    auto target = [this](tick_type d) { return active_slot_opened(d); };
    bool lead_left = true;
    bool own_left = true;
    while (lead_left && own_left) {
      lead_left = step_both_ends(lead_walk, at_early, target);
      own_left = step_both_ends(own_walk, at_own, target);
    }
    while (lead_left) lead_left = step_both_ends(lead_walk, at_early, target);
    while (own_left) own_left = step_both_ends(own_walk, at_own, target);
    for (std::size_t s = 0; s < targets; ++s)
      if (!detail::list_empty(early[s])) detail::list_splice_front(slots_[s], early[s]);
  }

  // The flat index of the active slot of `deadline`, which lies in the
  // block of a slot starting now at a level above its own (no slot of its
  // level is diverted: start_slots() ended those), marked occupied as
  // place() marks the list it is about to fill.
  std::size_t active_slot_opened(tick_type deadline) noexcept {
    const std::size_t level = level_of(deadline);
    const std::size_t index = base(level) + slot_of(deadline, level);
    // The bit, not the list: a slot of level 2 may hold timers in its lead
    // list alone.
    if (!occupied_.test(index)) open_slot(&slots_[index], level, deadline);
    return index;
  }

  // The level-0 slot (of the active bank) of a deadline in now's level-0
  // block, marked occupied, as place() marks the list it is about to fill.
  std::size_t level0_slot(tick_type deadline) noexcept {
    const std::size_t slot = slot_of(deadline, 0);
    if (detail::list_empty(slots_[base(0) + slot])) {
      mark_occupied(active_levels_, 0, base(0) + slot);
      lower_bound_to(event_of(deadline, 0));
    }
    return slot;
  }

  // Moves every timer of the levels and the far list to the back of
  // `batch`, in (deadline, scheduling order).
  void take_all_in_order(link& batch) noexcept {
    // No slot is diverted while the batch runs: a timer its callbacks
    // schedule goes to its slot, behind whatever a throw puts back. The
    // timers left in a diverted slot go back first, ahead of those
    // return_spares() returns to it.
    end_diversions(~std::uint64_t{0});
    drop_keepers();
    return_spares();
    for (std::size_t s = 0; s < leads::count; ++s) merge_lead(leads::first + s);
    const auto earlier = [this](const link& a, const link& b) {
      return distance(deadline_of(a)) < distance(deadline_of(b));
    };
    for (unsigned level = 0; level < layout::count; ++level) {
      const unsigned from = slot_number(now_, level);
      while (level_occupied(level)) {
        const std::size_t index = slot_index(level, first_occupied(base(level), from));
        if (level != 0) detail::list_sort(slots_[index], earlier);
        detail::list_splice_back(batch, slots_[index]);
        mark_empty(index);
      }
    }
    if constexpr (layout::has_far) {
      detail::list_sort(far_, earlier);
      detail::list_splice_back(batch, far_);
    }
  }

  // Puts back the timers a throwing callback left in `batch`. They are older
  // than anything scheduled since, so each goes to the front of its list,
  // the last first, which keeps scheduling order.
  void put_back(link& batch) noexcept {
    while (!detail::list_empty(batch)) {
      link& node = *batch.prev;
      detail::list_unlink(node);
      add(node, deadline_of(node), true);
    }
  }

  static void unlink_all(link& sentinel) noexcept {
    constexpr auto nothing = [](hook_type&) {};
    shell_type::unlink_all(sentinel, nothing);
  }

  // What a timer leaving the wheel to fire changes: the count, where one
  // is kept.
  auto leaving() noexcept {
    return [this](hook_type&) noexcept { count_timers(-1); };
  }

  using spreading = detail::diversions<layout>;
  using fronts = detail::front_lists<layout>;
  using leads = detail::lead_lists<layout>;
  // Bit shift[k] - 2 of level k (1 or above) when its slots are 4 ticks
  // wide or more, else none: the level is in the last quarter of its slot
  // when that bit and the one above it are set in now (see spread()).
  static constexpr tick_type quarter_bit(unsigned k) noexcept {
    return layout::shift[k] >= 2 ? static_cast<tick_type>(tick_type{1} << (layout::shift[k] - 2))
                                 : tick_type{0};
  }
  // The quarter bits of every level.
  static constexpr tick_type quarter_bits = [] {
    tick_type bits = 0;
    for (unsigned k = 1; k < layout::count; ++k) bits |= quarter_bit(k);
    return bits;
  }();
  // The quarter bits of the levels whose last quarter is longer than `step`
  // ticks (see spread()).
  TIMERWHEEL_ALWAYS_INLINE static tick_type quarters_longer_than(tick_type step) noexcept {
    const auto width = static_cast<unsigned>(std::bit_width(step));
    return width < std::numeric_limits<tick_type>::digits
               ? quarter_bits & static_cast<tick_type>(~tick_type{0} << width)
               : tick_type{0};
  }
  static constexpr std::size_t no_slot = layout::all_slots;
  // Timers a level-1 cascade walks from the back alone before it walks from
  // both ends (see cascade_to_level0()).
  static constexpr unsigned short_walk = 8;
  // The most target lists whose front walk's table (8 bytes each, on the
  // stack) a cascade from both ends keeps (see cascade_below()).
  static constexpr std::size_t front_points =
      std::min<std::size_t>(layout::total_slots, std::size_t{1024});
  // Moves a diversion makes from the back alone before it walks from both
  // ends (see spread_level()).
  static constexpr std::uint32_t front_after = layout::front_walk_after;
  // The most ticks between two checkpoints of a diversion that takes new
  // timers (see keep_arrivals()): short enough that what a checkpoint sends
  // on was scheduled a few thousand operations before and is still in the
  // cache, long enough that timers cancelled within a few ticks never move
  // (docs/design.md, "Spreading cascades").
  static constexpr tick_type checkpoint_ticks = 16;
  // A slot of at most this many timers is not diverted (see spread_in()).
  static constexpr unsigned small_slot = 8;
  // Timers fire_next() fires from a level-0 list before it loads the rest
  // of the list (see there): a list of a few timers is in cache when its
  // timers are, and walking it first only delays the firing.
  static constexpr std::size_t warm_after = 8;

  std::array<link, layout::all_slots> slots_;  // the active banks, then the spare ones
  detail::occupancy<layout> occupied_;
  std::uint64_t active_levels_ = 0;  // bit k: level k's active bank is non-empty
  std::uint64_t spare_levels_ = 0;   // bit k: level k's spare bank is non-empty
  spreading diverted_;               // the diverted slots (see spread())
  tick_type now_;
  // A lower bound on the next event (a slot start or a far block start) of
  // every timer in the levels and the far list; meaningful while they hold one.
  tick_type lower_bound_;
  tick_type far_lower_bound_{};  // at or before every far deadline
  std::size_t size_ = 0;         // pending timers, kept by counted<...> configurations only
  link far_;
  shell_type shell_;  // the pull form's queue, expire_all's batch, re-entry
  fronts fronts_;     // the timers the spreading's front walks moved (see spread())
  leads leads_;       // level 2's lead lists (see cascade_from_four_ends())
  detail::arrivals<layout> arrivals_;  // the diverted slots that take new timers
  detail::keepers<layout> keepers_;    // level 2's slots kept open (see empty_level2())
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI

#include "detail/wheel_check.hpp"  // IWYU pragma: keep (wheel::check_invariants)
