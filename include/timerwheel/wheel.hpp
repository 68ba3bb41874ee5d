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
// level-0 slot's list before it fires front to back.
//
// Spreading cascades: a coarse slot of thousands of timers would cascade in
// one advance. So every level keeps a spare bank of slots, and in the last
// quarter of the time before a level's next slot starts, that slot is
// diverted: new timers of it go to the spare bank of the level below, in the
// slots they will take there when it starts, and each advance that does work
// moves a few of the timers it holds there too (4, up to 32 when time runs
// short). At the start the spare bank becomes the active one (an O(1) swap)
// and only what was not moved yet cascades. Moves take the newest first and
// put each in front, new timers go behind, and what is left goes in front at
// the start, so timers of one deadline stay in scheduling order. The next
// slot of a level in its last slot is slot 0 of its own spare bank, filled
// from the level above, so the timers of a slot move down one level at a
// time, each ahead of its own start.
//
// A configuration whose levels do not cover the tick type keeps a far list of
// the timers beyond its top level, re-examined when now enters a new block of
// the top level's span (ccan/timer's `far`). Narrow ticks wrap: instants are
// read as the nearest one to now, and the top level is scanned cyclically.
//
// Costs (n pending timers, L levels): schedule and cancel O(1); advance
// O(L * max_stage_budget + timers fired + timers cascaded), whatever the ticks
// elapsed, and O(1) for an advance to before a cached lower bound of the
// next slot start; next_deadline O(L + timers in the earliest slots).
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

#include "detail/layout.hpp"
#include "detail/link.hpp"
#include "detail/list_sort.hpp"
#include "detail/ticks.hpp"
#include "levels.hpp"
#include "timer_hook.hpp"

namespace timerwheel {

// `wheel<Config>`: an intrusive timer structure over `basic_timer_hook`s.
// Times are absolute ticks of `tick_type`. Neither copyable nor movable (its
// timers link to it by address). Not thread-safe.
template <class Config = default_config>
class wheel {
  using layout = detail::layout<Config>;
  using link = detail::link;
  using access = detail::hook_access;

 public:
  using config_type = Config;
  using tick_type = typename Config::tick_type;
  using hook_type = basic_timer_hook<tick_type>;

  // An empty wheel whose time is `now` (ticks). O(slots). Throws nothing.
  explicit wheel(tick_type now = 0) noexcept : now_(now), lower_bound_(no_event()) {
    for (link& s : slots_) detail::list_init(s);
    for (unsigned k = 0; k < layout::count; ++k) bank_[k] = &slots_[layout::bank_base[k]];
    divert_.fill(nullptr);
    for (link& l : leftover_) detail::list_init(l);
    detail::list_init(far_);
    detail::list_init(expired_);
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

  // Whether no timer is pending. O(1).
  bool empty() const noexcept {
    return wheel_empty() && detail::list_empty(expired_) &&
           (batch_ == nullptr || detail::list_empty(*batch_));
  }

  // START_TIMER: schedules `timer` to fire at `deadline` (absolute ticks). A
  // deadline before now is taken as now: the timer is due and fires at the
  // next advance, after those already due. A pending timer is moved and
  // counts as newly scheduled. O(1); throws nothing.
  void schedule(hook_type& timer, tick_type deadline) noexcept {
    link& node = access::links(timer);
    if (node.next != nullptr)
      unlink(node);
    else
      count_timers(+1);
    if (behind(deadline)) deadline = now_;
    insert(node, deadline, false);
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
  bool cancel(hook_type& timer) noexcept {
    link& node = access::links(timer);
    if (node.next == nullptr) return false;
    unlink(node);
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
  template <class F>
  std::size_t advance(tick_type to, F&& on_expired) {
    if (nothing_due_by(to)) return skip_to(to);
    check_target(to);
    const detail::reentry_guard scope(running_);
    std::size_t fired = drain(expired_, on_expired);
    fired += collect(to, [&](hook_type& timer) {
      count_timers(-1);
      on_expired(timer);
    });
    now_ = to;
    stage();
    return fired;
  }

  // The pull form: queues, in order, every timer with deadline <= `to`
  // (ticks) for take_expired(); then now() == to. Returns how many it
  // queued. Same costs and errors as the callback form.
  std::size_t advance(tick_type to) {
    if (nothing_due_by(to)) return skip_to(to);
    check_target(to);
    const detail::reentry_guard scope(running_);
    // A queued timer stays pending: no count changes.
    const std::size_t queued = collect(
        to, [this](hook_type& timer) { detail::list_push_back(expired_, access::links(timer)); });
    now_ = to;
    stage();
    if (!detail::list_empty(expired_)) block_fast_path();
    return queued;
  }

  // Advances to the earliest pending deadline (or stays at now while a timer
  // is due or queued) and fires what is due there, as advance(to, f) does:
  // the pop of an event list. Returns how many fired; 0, changing nothing,
  // when the wheel is empty. O(levels + fired + cascaded): unlike
  // next_deadline(), it never scans a slot for its earliest timer. Throws
  // std::logic_error when called from a callback, and whatever `on_expired`
  // throws (as advance).
  template <class F>
  std::size_t advance_to_next(F&& on_expired) {
    tick_type to = now_;
    {
      const detail::reentry_guard scope(running_);
      if (!detail::list_empty(expired_)) {
        // Queued timers are due: fire them and what is due at now.
      } else if (wheel_empty()) {
        return 0;
      } else {
        to = seek();  // turns to the coarse slots on the way
      }
    }
    return advance(to, on_expired);
  }

  // The next expired timer queued by the pull form, unlinked, in order;
  // nullptr when none is queued. O(1).
  hook_type* take_expired() noexcept {
    if (detail::list_empty(expired_)) return nullptr;
    link& node = *expired_.next;
    detail::list_unlink(node);
    count_timers(-1);
    return &access::from_links<hook_type>(node);
  }

  // The exact earliest deadline (ticks) of a pending timer: the first queued
  // one while the pull form's queue is not empty; none when empty. Timers
  // waiting in a running expire_all count as pending.
  // O(levels + timers in the earliest slots).
  std::optional<tick_type> next_deadline() const noexcept {
    if (!detail::list_empty(expired_)) return deadline_of(*expired_.next);
    std::optional<tick_type> next = earliest_held();
    if (batch_ != nullptr && !detail::list_empty(*batch_)) {
      // expire_all's batch is in order: its front is its earliest.
      const tick_type first = deadline_of(*batch_->next);
      if (!next || distance(first) < distance(*next)) next = first;
    }
    return next;
  }

  // How long (ticks) a poller may sleep: 0 when a timer is due or queued,
  // the largest tick value when the wheel is empty. Cost of next_deadline().
  tick_type time_until_next() const noexcept {
    if (!detail::list_empty(expired_)) return 0;
    const std::optional<tick_type> next = next_deadline();
    return next ? distance(*next) : std::numeric_limits<tick_type>::max();
  }

  // Fires every timer pending at the call, in order (queued ones first),
  // leaving now() unchanged; timers its callbacks schedule stay pending.
  // Returns how many fired. O(n log n) for the timers of coarse slots.
  // Throws std::logic_error when called from a callback, and whatever
  // `on_expired` throws (the timers not yet fired stay pending).
  template <class F>
  std::size_t expire_all(F&& on_expired) {
    const detail::reentry_guard scope(running_);
    block_fast_path();
    link batch;
    detail::list_init(batch);
    const batch_scope restore(*this, batch);
    std::size_t fired = drain(expired_, on_expired);
    return fired + drain(batch, on_expired);
  }

  // Drops every pending timer; each hook becomes idle. O(n + slots).
  void clear() noexcept {
    stop_diverting(~std::uint64_t{0});
    for (unsigned w = 0; w < layout::all_words; ++w)
      for (std::uint64_t bits = occupied_[w]; bits != 0; bits &= bits - 1)
        unlink_all(slots_[w * 64 + static_cast<unsigned>(std::countr_zero(bits))]);
    occupied_ = {};
    summary_ = {};
    level_mask_ = 0;
    staged_mask_ = 0;
    lower_bound_ = no_event();
    unlink_all(far_);
    unlink_all(expired_);
    if (batch_ != nullptr) unlink_all(*batch_);
    if constexpr (layout::counted) size_ = 0;
  }

  // Calls f(const hook_type&) for every pending timer, in no promised order.
  // f may not schedule or cancel. O(n + slots).
  template <class F>
  void for_each_pending(F&& f) const {
    for (unsigned w = 0; w < layout::all_words; ++w)
      for (std::uint64_t bits = occupied_[w]; bits != 0; bits &= bits - 1)
        visit(slots_[w * 64 + static_cast<unsigned>(std::countr_zero(bits))], f);
    for (const link& l : leftover_) visit(l, f);
    visit(far_, f);
    visit(expired_, f);
    if (batch_ != nullptr) visit(*batch_, f);
  }

  // Checks every invariant against a plain recomputation; throws
  // std::logic_error naming the first one broken. O(n + slots).
  void check_invariants() const;

 private:
  // expire_all's batch: takes every timer of the wheel in order, and puts
  // back whatever a throwing callback left unfired.
  class batch_scope {
   public:
    batch_scope(wheel& w, link& batch) noexcept : wheel_(w), batch_(batch) {
      w.gather(batch);
      w.batch_ = &batch;
    }
    batch_scope(const batch_scope&) = delete;
    batch_scope& operator=(const batch_scope&) = delete;
    ~batch_scope() {
      wheel_.batch_ = nullptr;
      wheel_.restore(batch_);
    }

   private:
    wheel& wheel_;
    link& batch_;
  };

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
  bool nothing_due_by(tick_type to) const noexcept {
    if constexpr (layout::wraps) {
      // An empty wheel's bound is stale and may read as far ahead.
      return !behind(to) && distance(to) < distance(lower_bound_) && detail::list_empty(expired_);
    } else {
      return distance(to) < distance(lower_bound_);
    }
  }

  // The O(1) path of an advance. Refused from a callback as every advance
  // is, by a check of its own: a callback may have emptied the wheel (clear,
  // cancels), and an empty wheel has no next event to stop an advance at.
  std::size_t skip_to(tick_type to) {
    if (running_) [[unlikely]]
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

  static constexpr std::uint64_t bit(unsigned n) noexcept { return std::uint64_t{1} << n; }

  // The flat index of a slot's sentinel.
  std::size_t index_of(const link* slot) const noexcept {
    return static_cast<std::size_t>(slot - slots_.data());
  }

  // The flat index of the first slot of `level`'s active bank, of slot
  // `slot` of it, and of the first slot of its spare bank.
  std::size_t base(unsigned level) const noexcept { return index_of(bank_[level]); }
  std::size_t slot_index(unsigned level, unsigned slot) const noexcept {
    return base(level) + slot;
  }
  std::size_t spare_base(unsigned level) const noexcept {
    return base(level) ^ layout::bank_toggle[level];
  }

  // Whether word `word` of the bitmap belongs to an active bank.
  bool active_word(std::size_t word) const noexcept {
    const unsigned level = layout::level_of_word[word];
    return word * 64 - base(level) < layout::bank_slots[level];
  }

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
  // list stays empty (see stage()). So a schedule into an occupied slot, the
  // common case, takes one test: the slot's list is not empty.
  void place(link& node, tick_type deadline, bool at_front) noexcept {
    const std::size_t level = level_of(deadline);
    link* list = &far_;
    if (!layout::has_far || level < layout::count) {
      list = bank_[level] + slot_of(deadline, level);
      if (detail::list_empty(*list)) {
        if (list != divert_[level]) [[likely]] {
          mark_occupied(level_mask_, level, index_of(list));
        } else {
          // The next slot of a level whose timers are moving ahead of time:
          // newer than all of them, this one waits behind them in a spare
          // bank.
          auto below = static_cast<unsigned>(level);
          const std::size_t index = diverted_slot(below, deadline);
          list = &slots_[index];
          if (detail::list_empty(*list)) mark_occupied(staged_mask_, below, index);
        }
        lower_bound_to(event_of(deadline, level));
      }
    } else {
      if (detail::list_empty(far_) || distance(deadline) < distance(far_lower_bound_))
        far_lower_bound_ = deadline;
      lower_bound_to(event_of(deadline, level));
    }
    if (at_front)
      detail::list_push_front(*list, node);
    else
      detail::list_push_back(*list, node);
  }

  // The first tick of the slot at `level` (or for the far list, `count`:
  // of the top-level block) that holds `deadline`.
  static tick_type event_of(tick_type deadline, unsigned level) noexcept {
    return static_cast<tick_type>(deadline & layout::event_mask[level]);
  }

  // Lowers the bound of the next event to `event` where that is earlier.
  void lower_bound_to(tick_type event) noexcept {
    if (distance(event) < distance(lower_bound_)) lower_bound_ = event;
  }

  // Places a timer and keeps the lower bound of the next event.
  void insert(link& node, tick_type deadline, bool at_front) noexcept {
    if constexpr (layout::wraps) {
      if (wheel_empty()) {
        // An emptied wheel keeps no bound that would stop an advance at the
        // start of a diverted slot: the diversion ends with the timers.
        stop_diverting(~std::uint64_t{0});
        // Distances from now drift as now moves: an empty wheel's stale
        // bound could read as nearer than a new event. The farthest tick
        // ahead reads as after every event.
        lower_bound_ = static_cast<tick_type>(now_ - 1);
      }
    }
    // Plain numbers: an emptied wheel's bound stays a bound, and collect
    // resets it to the largest tick when it finds the wheel empty.
    place(node, deadline, at_front);
  }

  // Keeps the count of a counted<...> configuration; nothing otherwise.
  void count_timers(int delta) noexcept {
    if constexpr (layout::counted) size_ += static_cast<std::size_t>(delta);
  }

  void unlink(link& node) noexcept {
    if (link* emptied = detail::list_unlink(node)) mark_empty_if_slot(emptied);
  }

  // An emptied list is a slot exactly when its sentinel lies in slots_, or
  // stands for a diverted slot when it is one of leftover_.
  void mark_empty_if_slot(const link* sentinel) noexcept {
    const std::uintptr_t offset = byte_offset(sentinel, slots_.data());
    if (offset < sizeof(slots_)) {
      mark_empty(offset / sizeof(link));
    } else if (const std::uintptr_t left = byte_offset(sentinel, leftover_.data());
               left < sizeof(leftover_)) {
      mark_empty(index_of(divert_[left / sizeof(link)]));
    }
  }

  static std::uintptr_t byte_offset(const link* p, const link* from) noexcept {
    return reinterpret_cast<std::uintptr_t>(p) - reinterpret_cast<std::uintptr_t>(from);
  }

  // The timers of slot `index`: its own list, or for a diverted slot, the
  // timers left of it in leftover_.
  const link& held_in(std::size_t index) const noexcept {
    const unsigned level = layout::level_of_word[index / 64];
    return &slots_[index] == divert_[level] ? leftover_[level] : slots_[index];
  }

  // Marks slot `index` of `level` occupied; `mask` is level_mask_ for an
  // active bank, staged_mask_ for a spare one.
  void mark_occupied(std::uint64_t& mask, std::size_t level, std::size_t index) noexcept {
    const std::size_t word = index / 64;
    occupied_[word] |= bit(index % 64);
    if constexpr (!layout::single_word)
      summary_[layout::bank_of_word[word]] |= bit(layout::word_in_bank[word]);
    mask |= bit(level);
  }

  void mark_empty(std::size_t index) noexcept {
    const std::size_t word = index / 64;
    occupied_[word] &= ~bit(index % 64);
    if (occupied_[word] != 0) return;
    if constexpr (!layout::single_word) {
      std::uint64_t& summary = summary_[layout::bank_of_word[word]];
      summary &= ~bit(layout::word_in_bank[word]);
      if (summary != 0) return;
    }
    const unsigned level = layout::level_of_word[word];
    (active_word(word) ? level_mask_ : staged_mask_) &= ~bit(level);
  }

  bool level_occupied(unsigned level) const noexcept { return (level_mask_ >> level & 1) != 0; }

  bool wheel_empty() const noexcept {
    if constexpr (layout::has_far)
      return (level_mask_ | staged_mask_) == 0 && detail::list_empty(far_);
    return (level_mask_ | staged_mask_) == 0;
  }

  // The first occupied slot of a non-empty bank that starts at flat slot
  // `base`, scanning cyclically from slot `from`: below the top level every
  // occupied slot of an active bank is at or after now's, and the cyclic
  // scan reads the top level across a wrap.
  unsigned first_occupied(std::size_t base, unsigned from) const noexcept {
    const std::uint64_t* words = occupied_.data() + base / 64;
    if constexpr (layout::single_word) {
      const std::uint64_t ahead = words[0] & (~std::uint64_t{0} << from);
      return static_cast<unsigned>(std::countr_zero(ahead != 0 ? ahead : words[0]));
    }
    const unsigned word = from / 64;
    if (const std::uint64_t ahead = words[word] & (~std::uint64_t{0} << (from % 64)))
      return word * 64 + static_cast<unsigned>(std::countr_zero(ahead));
    const std::uint64_t summary = summary_[layout::bank_of_word[base / 64]];
    const std::uint64_t later = word + 1 < 64 ? summary & (~std::uint64_t{0} << (word + 1)) : 0;
    const unsigned next = static_cast<unsigned>(std::countr_zero(later != 0 ? later : summary));
    return next * 64 + static_cast<unsigned>(std::countr_zero(words[next]));
  }

  // The earliest deadline in the levels, their spare banks and the far list.
  std::optional<tick_type> earliest_held() const noexcept {
    std::optional<tick_type> best;
    if (level_mask_ != 0) {
      const unsigned k = static_cast<unsigned>(std::countr_zero(level_mask_));
      const unsigned s = first_occupied(base(k), slot_of(now_, k));
      // Level 0 lies before every spare bank's block.
      if (k == 0) return slot_start(0, s);
      best = earliest_in(held_in(slot_index(k, s)));
    }
    // The spare banks, in the order of their blocks; a bank's first
    // occupied slot holds its earliest timer.
    for (std::uint64_t spares = staged_mask_; spares != 0; spares &= spares - 1) {
      const unsigned j = static_cast<unsigned>(std::countr_zero(spares));
      const tick_type block = next_start(j + 1);
      if (best && distance(block) > distance(*best)) break;
      const std::size_t base = spare_base(j);
      const unsigned s = first_occupied(base, 0);
      const tick_type first =
          j == 0 ? static_cast<tick_type>(block | s) : earliest_in(held_in(base + s));
      if (!best || distance(first) < distance(*best)) best = first;
    }
    if (best) return best;
    if constexpr (layout::has_far)
      if (!detail::list_empty(far_)) return earliest_in(far_);
    return std::nullopt;
  }

  tick_type earliest_in(const link& sentinel) const noexcept {
    tick_type best = deadline_of(*sentinel.next);
    for (const link* n = sentinel.next->next; n != &sentinel; n = n->next)
      if (distance(deadline_of(*n)) < distance(best)) best = deadline_of(*n);
    return best;
  }

  // --- advancing ---

  // Moves now through every event up to `to` in time order: fires level-0
  // timers through `sink` (unlinked, still counted), turns to coarse
  // slots and brings far timers down. Leaves now at the last event; the
  // caller sets now = to. Returns how many timers it handed to `sink`.
  template <class Sink>
  std::size_t collect(tick_type to, Sink&& sink) {
    std::size_t fired = 0;
    std::optional<tick_type> warmed;  // the tick whose level-0 list warm() loaded
    while (distance(lower_bound_) <= distance(to)) {
      if (wheel_empty()) {
        stop_diverting(~std::uint64_t{0});
        lower_bound_ = no_event();
        break;
      }
      const next_step e = next_event();
      if (distance(e.start) > distance(to)) {
        lower_bound_ = e.start;
        break;
      }
      now_ = lower_bound_ = e.start;
      if (e.what == next_step::kind::turn) {
        turn(e.start);
        continue;
      }
      if (e.what == next_step::kind::far) {
        cascade(far_);
        continue;
      }
      link& list = slots_[slot_index(0, e.slot)];
      if (warmed != e.start) {
        warm(list);
        warmed = e.start;
      }
      link& node = *list.next;
      unlink(node);
      ++fired;
      sink(access::from_links<hook_type>(node));
    }
    return fired;
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

  // Moves now through the turns and far pulls before the earliest deadline
  // of a non-empty wheel, and returns that deadline.
  tick_type seek() noexcept {
    for (;;) {
      const next_step e = next_event();
      if (e.what == next_step::kind::fire) return e.start;
      now_ = lower_bound_ = e.start;
      if (e.what == next_step::kind::turn)
        turn(e.start);
      else
        cascade(far_);
    }
  }

  struct next_step {
    enum class kind { fire, turn, far };
    tick_type start;  // when it happens
    unsigned slot;    // fire: the level-0 slot
    kind what;
  };

  // The next event of a non-empty wheel: the first occupied slot of the
  // lowest non-empty level (a firing at level 0, else a turn), or the block
  // of the lowest spare bank in use if it starts earlier (it may, when a
  // level's next slot has been moved out), or with neither, the top-level
  // block of the earliest far timer.
  next_step next_event() const noexcept {
    if (layout::has_far && (level_mask_ | staged_mask_ | diverting_) == 0)
      return {event_of(far_lower_bound_, layout::count), 0, next_step::kind::far};
    next_step e{tick_type{}, 0, next_step::kind::turn};
    if (level_mask_ != 0) {
      const unsigned level = static_cast<unsigned>(std::countr_zero(level_mask_));
      e.slot = first_occupied(base(level), slot_of(now_, level));
      e.start = slot_start(level, e.slot);
      if (level == 0) e.what = next_step::kind::fire;
    }
    // A diverted slot's start is a turn even when nothing waits for it:
    // the diversion must end there.
    if (const std::uint64_t turns = staged_mask_ | diverting_ >> 1; turns != 0) {
      const tick_type block = next_start(static_cast<unsigned>(std::countr_zero(turns)) + 1);
      if (level_mask_ == 0 || distance(block) < distance(e.start)) {
        e.start = block;
        e.what = next_step::kind::turn;
      }
    }
    return e;
  }

  // Now has reached `start`, the first tick of a slot of level 1 or above.
  // The diversions into the slots that start here end, the spare banks
  // holding their blocks become active, then every slot that starts here
  // cascades to the front of the lists below, the lowest level first: what
  // is left in a slot was scheduled before every timer of its deadline that
  // moved out of it or was sent past it, and before what is left in the
  // slots below (all of which came from it).
  void turn(tick_type start) noexcept {
    const unsigned top = layout::level_of_start[std::countr_zero(start)];
    stop_diverting((~std::uint64_t{0} >> (63 - top)) & ~std::uint64_t{1});
    for (std::uint64_t spares = staged_mask_ & (bit(top) - 1); spares != 0; spares &= spares - 1)
      swap_banks(static_cast<unsigned>(std::countr_zero(spares)));
    for (unsigned level = 1; level <= top; ++level) {
      if (!level_occupied(level)) continue;
      link& sentinel = slots_[slot_index(level, slot_of(start, level))];
      if (detail::list_empty(sentinel)) continue;
      if (level == 1)
        cascade_to_level0(sentinel);
      else
        cascade(sentinel);
    }
  }

  // Makes the spare bank of `level` the active one; the active bank, empty
  // at the start of the block the spare holds, becomes the spare.
  void swap_banks(unsigned level) noexcept {
    bank_[level] = &slots_[spare_base(level)];
    const std::uint64_t b = bit(level);
    const std::uint64_t was_active = level_mask_ & b;
    level_mask_ = (level_mask_ & ~b) | (staged_mask_ & b);
    staged_mask_ = (staged_mask_ & ~b) | was_active;
  }

  // The flat index of the next slot of `level` (1 or above), the one that
  // starts at next_start(level): the following slot of the active bank, or
  // in a level's last slot, slot 0 of its spare bank; none (the top level in
  // its last slot) gives total_slots.
  std::size_t next_slot(unsigned level) const noexcept {
    const unsigned current = slot_of(now_, level);
    if (current < layout::slot_mask[level]) return slot_index(level, current + 1);
    if (level + 1 < layout::count) return spare_base(level);
    return no_slot;
  }

  // Spreads cascades over the advances before them. In the last quarter of
  // the time before the next slot of a level (1 or above) starts, new timers
  // of that slot go past it to the spare bank of the level below (the
  // slot is diverted: see place()), and every advance that does work moves
  // a few of the timers it still holds there too, newest first, each to the
  // front of the slot it will take there when the slot starts. While
  // diverted, the timers the slot still holds wait in its level's leftover_
  // list, its bit still set, and its own list stays empty: place() then
  // meets the diversion only on its path for an empty slot. So a spare
  // slot holds, for each deadline, what moved in scheduling order and then
  // what was sent past, and whatever is left in the slot is older than all
  // of it (turn() puts it in front). Once diverted, a slot only shrinks, by
  // cancels and by stage_moves() an advance.
  void stage() noexcept {
    bool pressed = false;
    for (std::uint64_t levels = (level_mask_ | staged_mask_) & ~std::uint64_t{1}; levels != 0;
         levels &= levels - 1) {
      const unsigned level = static_cast<unsigned>(std::countr_zero(levels));
      const tick_type start = next_start(level);
      // Only in the last quarter: moved earlier, more of the slot's timers
      // would be cancelled after their move.
      if (distance(start) > layout::slot_width[level] / 4) continue;
      const std::size_t source = next_slot(level);
      if (source == no_slot) continue;
      link& from = leftover_[level];
      if (divert_[level] == nullptr) {
        divert_[level] = &slots_[source];
        diverting_ |= bit(level);
        if (distance(start) < distance(lower_bound_)) lower_bound_ = start;  // ends it there
        detail::list_splice_back(from, slots_[source]);
      }
      if (detail::list_empty(from)) continue;
      const unsigned moves = stage_moves(level, distance(start));
      for (unsigned n = 0; n < moves && !detail::list_empty(from); ++n) {
        link& node = *from.prev;
        detail::list_unlink(node);
        detail::list_push_front(spare_slot(level, deadline_of(node)), node);
      }
      if (detail::list_empty(from))
        mark_empty(source);
      else
        pressed = true;
    }
    // While a near slot still holds timers, every advance moves some: none
    // takes the O(1) path.
    if (pressed) block_fast_path();
  }

  // How many timers `level` moves in an advance `left` ticks before its next
  // slot starts: stage_budget through the last quarter of the time, then, in
  // the last sixteenth, in inverse proportion to the time left, up to
  // max_stage_budget. Each move is a miss that waits for the one before (the
  // next node's address is in the node moved), so a slot still holding
  // timers there drains on a ramp rather than in a few advances of the most
  // moves: doubling the moves after each advance that left timers made the
  // slowest 0.1% of W5's advances (docs/design.md, "Spreading cascades").
  static unsigned stage_moves(unsigned level, tick_type left) noexcept {
    const std::uint64_t sixteenth = std::max<std::uint64_t>(layout::slot_width[level] / 16, 1);
    if (left >= sixteenth) return stage_budget;
    const std::uint64_t ramp = stage_budget * sixteenth / std::max<std::uint64_t>(left, 1);
    return static_cast<unsigned>(std::min<std::uint64_t>(ramp, max_stage_budget));
  }

  // The slot, marked occupied, where a timer of `deadline` in the next slot
  // of `level` moves to: in the spare bank of the level below.
  link& spare_slot(unsigned level, tick_type deadline) noexcept {
    const std::size_t index = spare_base(level - 1) + slot_of(deadline, level - 1);
    if (detail::list_empty(slots_[index])) mark_occupied(staged_mask_, level - 1, index);
    return slots_[index];
  }

  // The spare slot where a new timer of `deadline` in the diverted next slot
  // of `level` waits, and in `level`, the level of its bank: the level
  // below, or lower while that spare slot is itself the diverted next slot
  // of its level (one in its last slot).
  std::size_t diverted_slot(unsigned& level, tick_type deadline) const noexcept {
    std::size_t index;
    do {
      --level;
      index = spare_base(level) + slot_of(deadline, level);
    } while (&slots_[index] == divert_[level]);
    return index;
  }

  // Ends the diversion of the levels in `levels`, putting back in each
  // diverted slot (empty while diverted) the timers left of it: done where
  // their next slots change (turn), before every timer is gathered, and
  // where no timer is left to keep order with.
  void stop_diverting(std::uint64_t levels) noexcept {
    for (std::uint64_t d = diverting_ & levels; d != 0; d &= d - 1) {
      const unsigned level = static_cast<unsigned>(std::countr_zero(d));
      detail::list_splice_back(*divert_[level], leftover_[level]);
      divert_[level] = nullptr;
    }
    diverting_ &= ~levels;
  }

  // Puts the timers of every spare bank back at the back of the slot they
  // were moved from (they are newer, for each deadline, than what is left
  // there), lowest level first (a level's next slot may be slot 0 of its own
  // spare bank), so that the active banks alone hold them all.
  void unstage() noexcept {
    for (unsigned level = 1; level < layout::count && staged_mask_ != 0; ++level) {
      if ((staged_mask_ >> (level - 1) & 1) == 0) continue;
      const std::size_t source = next_slot(level);
      const std::size_t spare = spare_base(level - 1);
      for (std::size_t w = spare / 64; w < spare / 64 + layout::words[level - 1]; ++w) {
        for (std::uint64_t bits = occupied_[w]; bits != 0; bits &= bits - 1)
          detail::list_splice_back(slots_[source],
                                   slots_[w * 64 + static_cast<unsigned>(std::countr_zero(bits))]);
        occupied_[w] = 0;
      }
      if constexpr (!layout::single_word) summary_[layout::bank_of_word[spare / 64]] = 0;
      staged_mask_ &= ~bit(level - 1);
      mark_occupied(active_word(source / 64) ? level_mask_ : staged_mask_, level, source);
    }
  }

  // Places every timer of a coarse slot that now has reached again relative
  // to now, the newest first, each at the front of its list: each lands
  // strictly lower, ahead of the newer timers of its deadline there (see
  // turn()). The far list at the start of a top-level block goes the same
  // way, into empty levels: its timers of this block come into the levels,
  // the rest back to it in order, with their lower bound recomputed.
  void cascade(link& sentinel) noexcept {
    link* node = sentinel.prev;
    detail::list_init(sentinel);
    mark_empty_if_slot(&sentinel);
    while (node != &sentinel) {
      link* const prev = node->prev;
      place(*node, deadline_of(*node), true);
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
      mark_empty_if_slot(&sentinel);
      link* const level0 = bank_[0];
      // A short list is walked from the back alone (as cascade() does); the
      // front walk's table would cost more than the overlap saves.
      for (unsigned n = 0; n < short_walk; ++n) {
        link* const prev = back->prev;
        detail::list_push_front(level0[level0_slot(deadline_of(*back))], *back);
        if (back == front) return;
        back = prev;
      }
      std::array<link*, level0_slots> after;
      for (std::size_t s = 0; s < level0_slots; ++s) after[s] = level0 + s;
      // [front, back] is what is left, in list order.
      for (;;) {
        link* const ahead = front->next;
        link* const behind = back->prev;
        detail::list_insert_after(*after[level0_slot(deadline_of(*back))], *back);
        if (front == back) return;
        link*& point = after[level0_slot(deadline_of(*front))];
        detail::list_insert_after(*point, *front);
        point = front;
        if (ahead == back) return;
        front = ahead;
        back = behind;
      }
    }
  }

  // The level-0 slot (of the active bank) of a deadline in now's level-0
  // block, marked occupied, as place() marks the list it is about to fill.
  std::size_t level0_slot(tick_type deadline) noexcept {
    const std::size_t slot = slot_of(deadline, 0);
    if (detail::list_empty(bank_[0][slot])) {
      mark_occupied(level_mask_, 0, index_of(&bank_[0][slot]));
      lower_bound_to(event_of(deadline, 0));
    }
    return slot;
  }

  // Hands every timer of `list` to `on_expired`, front first.
  template <class F>
  std::size_t drain(link& list, F& on_expired) {
    std::size_t fired = 0;
    while (!detail::list_empty(list)) {
      link& node = *list.next;
      detail::list_unlink(node);
      count_timers(-1);
      ++fired;
      on_expired(access::from_links<hook_type>(node));
    }
    return fired;
  }

  // Moves every timer of the levels and the far list to the back of
  // `batch`, in (deadline, scheduling order).
  void gather(link& batch) noexcept {
    // No slot is diverted while the batch runs: a timer its callbacks
    // schedule goes to its slot, behind whatever a throw puts back. The
    // timers left in a diverted slot go back first, ahead of those unstage
    // returns to it.
    stop_diverting(~std::uint64_t{0});
    unstage();
    const auto earlier = [this](const link& a, const link& b) {
      return distance(deadline_of(a)) < distance(deadline_of(b));
    };
    for (unsigned level = 0; level < layout::count; ++level) {
      const unsigned from = slot_of(now_, level);
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
  void restore(link& batch) noexcept {
    while (!detail::list_empty(batch)) {
      link& node = *batch.prev;
      detail::list_unlink(node);
      insert(node, deadline_of(node), true);
    }
  }

  static void unlink_all(link& sentinel) noexcept {
    for (link* n = sentinel.next; n != &sentinel;) {
      link* const next = n->next;
      n->next = n->prev = nullptr;
      n = next;
    }
    detail::list_init(sentinel);
  }

  template <class F>
  static void visit(const link& sentinel, F& f) {
    for (const link* n = sentinel.next; n != &sentinel; n = n->next)
      f(access::from_links<hook_type>(*n));
  }

  // Timers moved per level by each advance that does work, to spread the
  // cascades of coarse slots (see stage()).
  static constexpr unsigned stage_budget = 4;
  static constexpr unsigned max_stage_budget = 32;
  static constexpr std::size_t no_slot = layout::all_slots;
  // Timers a level-1 cascade walks from the back alone before it walks from
  // both ends (see cascade_to_level0()).
  static constexpr unsigned short_walk = 8;

  std::array<link, layout::all_slots> slots_;  // two banks a level
  std::array<std::uint64_t, layout::all_words> occupied_{};
  std::array<std::uint64_t, 2 * layout::count>
      summary_{};                          // per bank: bit w: its word w is non-zero
  std::array<link*, layout::count> bank_;  // first slot of each level's active bank
  std::uint64_t level_mask_ = 0;           // bit k: level k's active bank is non-empty
  std::uint64_t staged_mask_ = 0;          // bit k: level k's spare bank is non-empty
  // Per level: its next slot while diverted (see stage()), null otherwise;
  // bit k of diverting_: level k's is.
  std::array<link*, layout::count> divert_;
  std::array<link, layout::count> leftover_;  // per level: what its diverted slot still holds
  std::uint64_t diverting_ = 0;
  tick_type now_;
  // A lower bound on the next event (a slot start or a far block start) of
  // every timer in the levels and the far list; meaningful while they hold one.
  tick_type lower_bound_;
  tick_type far_lower_bound_{};  // at or before every far deadline
  std::size_t size_ = 0;         // pending timers, kept by counted<...> configurations only
  link far_;
  link expired_;           // the pull form's queue, in firing order
  link* batch_ = nullptr;  // expire_all's batch while it runs
  bool running_ = false;   // inside advance or expire_all
};

template <class Config>
void wheel<Config>::check_invariants() const {
  const auto fail = [](const char* what) {
    throw std::logic_error(std::string("timerwheel: invariant broken: ") + what);
  };
  const auto check_links = [&](const link& sentinel) {
    std::size_t n = 0;
    for (const link* p = &sentinel;; p = p->next) {
      if (p->next == nullptr || p->next->prev != p) fail("a list's links disagree");
      if (p->next == &sentinel) return n;
      ++n;
    }
  };
  const bool any = !wheel_empty();
  if (any && behind(lower_bound_)) fail("the lower bound of the next event is behind now");
  if (!layout::wraps && !detail::list_empty(expired_) && lower_bound_ != now_)
    fail("timers are queued but an advance could skip them");
  std::size_t held = 0;
  std::uint64_t levels_seen = 0;
  std::uint64_t spares_seen = 0;
  for (unsigned level = 0; level < layout::count; ++level) {
    for (const bool active : {true, false}) {
      const std::size_t first = active ? base(level) : spare_base(level);
      if (first != layout::bank_base[level] &&
          first != layout::bank_base[level] + layout::bank_slots[level])
        fail("a bank starts off its level");
      // A spare bank holds the block of the next slot of the level above.
      const bool spare_in_use =
          !active && level + 1 < layout::count && next_slot(level + 1) != no_slot;
      const tick_type block = spare_in_use ? next_start(level + 1) : tick_type{};
      std::uint64_t summary = 0;
      for (std::size_t word = first / 64; word < first / 64 + layout::words[level]; ++word) {
        for (unsigned b = 0; b < 64; ++b) {
          const std::size_t index = word * 64 + b;
          const link& sentinel = held_in(index);
          if (&sentinel != &slots_[index] && check_links(slots_[index]) != 0)
            fail("a diverted slot's own list holds timers");
          const std::size_t n = check_links(sentinel);
          const bool marked = (occupied_[word] >> b & 1) != 0;
          if (marked != (n != 0)) fail("an occupancy bit disagrees with its slot");
          if (n != 0 && index - first > layout::slot_mask[level])
            fail("a timer sits in a slot beyond its level");
          if (n != 0 && !active && !spare_in_use) fail("a spare bank holds timers of no block");
          for (const link* p = sentinel.next; p != &sentinel; p = p->next) {
            const tick_type d = deadline_of(*p);
            if (behind(d)) fail("a waiting timer's deadline is behind now");
            if (active) {
              if (level_of(d) != level) fail("a timer sits at the wrong level");
              if (slot_index(level, slot_of(d, level)) != index)
                fail("a timer sits in the wrong slot");
              const tick_type event = event_of(d, level);
              if (distance(event) < distance(lower_bound_))
                fail("the lower bound is after a slot's start");
            } else {
              if (event_of(d, level + 1) != block)
                fail("a spare bank holds a timer outside its block");
              if (first + slot_of(d, level) != index) fail("a timer sits in the wrong spare slot");
              if (distance(block) < distance(lower_bound_))
                fail("the lower bound is after a spare bank's block");
            }
          }
          held += n;
        }
        if (occupied_[word] != 0) summary |= std::uint64_t{1} << layout::word_in_bank[word];
      }
      if (!layout::single_word && summary != summary_[layout::bank_of_word[first / 64]])
        fail("a bank's summary disagrees with its words");
      if (summary != 0) (active ? levels_seen : spares_seen) |= std::uint64_t{1} << level;
    }
  }
  if (levels_seen != level_mask_) fail("the mask of non-empty levels disagrees");
  if (spares_seen != staged_mask_) fail("the mask of spare banks in use disagrees");
  for (unsigned level = 0; level < layout::count; ++level) {
    const bool diverted = (diverting_ >> level & 1) != 0;
    if (diverted != (divert_[level] != nullptr)) fail("the mask of diverted slots disagrees");
    if (!diverted && check_links(leftover_[level]) != 0)
      fail("timers are left of a slot that is not diverted");
    if (!diverted) continue;
    if (level == 0 || divert_[level] != slots_.data() + next_slot(level))
      fail("a diverted slot is not its level's next slot");
    if (any && distance(next_start(level)) < distance(lower_bound_))
      fail("the lower bound is after a diverted slot's start");
  }
  const std::size_t far = check_links(far_);
  if (far != 0 && !layout::has_far) fail("a far list in a configuration that covers its ticks");
  for (const link* p = far_.next; p != &far_; p = p->next) {
    const tick_type d = deadline_of(*p);
    if (behind(d)) fail("a far timer's deadline is behind now");
    if (level_of(d) != layout::count) fail("a far timer belongs in the levels");
    if (distance(d) < distance(far_lower_bound_)) fail("the far lower bound is after a far timer");
    const tick_type event = event_of(d, layout::count);
    if (distance(event) < distance(lower_bound_))
      fail("the lower bound is after a far block's start");
  }
  held += far + check_links(expired_);
  if (batch_ != nullptr) held += check_links(*batch_);
  if (layout::counted && held != size_) fail("size disagrees with the timers held");
  if (empty() != (held == 0)) fail("empty() disagrees with the timers held");
}

}  // namespace timerwheel
