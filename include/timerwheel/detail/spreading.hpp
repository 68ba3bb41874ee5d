// The state of the spreading of cascades (docs/design.md, "Spreading
// cascades"): which slots are diverted, the timers each still holds, and how
// many of them an advance moves ahead of time.
//
// In the last quarter of the time before the next slot of a level (1 or
// above) starts, that slot is diverted: new timers of it go past it to the
// spare bank of the level below, and each advance that does work moves a few
// of the timers it still holds there too. While diverted, those timers wait
// in a list of the level's own, and the slot's list stays empty, so that the
// common schedule, into an occupied slot, never meets a diversion.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

#include "abi.hpp"
#include "inline.hpp"
#include "lead_lists.hpp"
#include "link.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::detail {

// `Layout` is a detail::layout<Config>.
template <class Layout>
class diversions {
  static constexpr unsigned lead_level = lead_lists<Layout>::level;

 public:
  diversions() noexcept {
    slot_.fill(nullptr);
    for (link& l : waiting_) list_init(l);
    list_init(lead_waiting_);
  }
  diversions(const diversions&) = delete;
  diversions& operator=(const diversions&) = delete;

  // The diverted slot of `level`; nullptr while it has none.
  link* slot(std::size_t level) const noexcept { return slot_[level]; }

  // Bit k: level k has a diverted slot.
  std::uint64_t levels() const noexcept { return levels_; }

  // Diverts `slot`, the next slot of `level`: the timers it holds wait in
  // waiting(level) from now on, and its own list stays empty.
  void begin(unsigned level, link& slot) noexcept {
    slot_[level] = &slot;
    moved_[level] = 0;
    levels_ |= std::uint64_t{1} << level;
    list_splice_back(waiting_[level], slot);
  }

  // Diverts the lead list `lead` of the slot of level 2 that begin() has
  // just diverted: its timers wait in lead_waiting() (see lead_lists.hpp).
  void begin_lead(link& lead) noexcept {
    lead_home_ = &lead;
    list_splice_back(lead_waiting_, lead);
  }

  // Ends the diversion of the levels in `levels`, putting back in each
  // diverted slot the timers still waiting in it (and in its lead list,
  // those waiting in lead_waiting()).
  void end(std::uint64_t levels) noexcept {
    for (std::uint64_t d = levels_ & levels; d != 0; d &= d - 1) {
      const unsigned level = static_cast<unsigned>(std::countr_zero(d));
      list_splice_back(*slot_[level], waiting_[level]);
      slot_[level] = nullptr;
      if (level == lead_level && lead_home_ != nullptr) {
        list_splice_back(*lead_home_, lead_waiting_);
        lead_home_ = nullptr;
      }
    }
    levels_ &= ~levels;
  }

  // The timers the lead list of the diverted slot of level 2 still holds;
  // empty where that slot's lead list joined its own list (or the level has
  // no lead lists).
  link& lead_waiting() noexcept { return lead_waiting_; }
  const link& lead_waiting() const noexcept { return lead_waiting_; }

  // Whether the diverted slot of `level` still holds timers.
  bool holds(unsigned level) const noexcept {
    return !list_empty(waiting_[level]) || (level == lead_level && !list_empty(lead_waiting_));
  }

  // The timers the diverted slot of `level` still holds.
  link& waiting(unsigned level) noexcept { return waiting_[level]; }

  // The moves the diversion of `level` has made so far.
  std::uint32_t& moved(unsigned level) noexcept { return moved_[level]; }
  const link& waiting(unsigned level) const noexcept { return waiting_[level]; }

  // The timers of `slot`, a slot of `level`: its own list, or for a
  // diverted slot, the timers waiting in it.
  const link& held_in(const link& slot, unsigned level) const noexcept {
    return &slot == slot_[level] ? waiting_[level] : slot;
  }
  link& held_in(link& slot, unsigned level) noexcept {
    return &slot == slot_[level] ? waiting_[level] : slot;
  }

  // The diverted slot that `list`, one of its waiting lists just emptied,
  // leaves holding no timer; nullptr when `list` is not one of them, or the
  // slot's other waiting list still holds timers. O(1).
  link* owner_of_waiting(const link* list) const noexcept {
    if (list == &lead_waiting_)
      return list_empty(waiting_[lead_level]) ? slot_[lead_level] : nullptr;
    const std::uintptr_t offset =
        reinterpret_cast<std::uintptr_t>(list) - reinterpret_cast<std::uintptr_t>(waiting_.data());
    if (offset >= sizeof(waiting_)) return nullptr;
    const std::size_t level = offset / sizeof(link);
    if (level == lead_level && !list_empty(lead_waiting_)) return nullptr;
    return slot_[level];
  }

  // How many timers `level`, whose slots are `width` ticks wide, moves in
  // an advance `left` ticks before its next slot starts: `least` through
  // the last quarter of the time, then, in the last sixteenth, in inverse
  // proportion to the time left, up to `most`. Each move is a miss that
  // waits for the one before (the next node's address is in the node
  // moved), so a slot still holding timers there drains on a ramp rather
  // than in a few advances of the most moves.
  template <class Tick>
  TIMERWHEEL_ALWAYS_INLINE static unsigned moves(Tick width, Tick left) noexcept {
    const std::uint64_t sixteenth = std::max<std::uint64_t>(width / 16, 1);
    if (left >= sixteenth) return least;
    const std::uint64_t ramp = least * sixteenth / std::max<std::uint64_t>(left, 1);
    return static_cast<unsigned>(std::min<std::uint64_t>(ramp, most));
  }

  static constexpr unsigned least = 4;
  static constexpr unsigned most = 32;

 private:
  std::array<link*, Layout::count> slot_;
  std::array<link, Layout::count> waiting_;
  std::array<std::uint32_t, Layout::count> moved_{};
  std::uint64_t levels_ = 0;
  link lead_waiting_;
  link* lead_home_ = nullptr;  // the lead list lead_waiting_ came from
};

// The lists of the walk from the front of a diverted slot (docs/design.md,
// "Spreading cascades"). Past its first moves (front_walk_after: 256 unless
// the configuration says), a diversion takes its timers from both ends of
// its waiting list: two chains of misses that overlap. The walk from the
// back puts each timer in front of its spare slot (the newest first, so in
// scheduling order); the walk from the front takes the oldest first, older
// than everything in the spare slots and than what is still waiting, so
// each goes to the back of a list of its own, one per spare slot of the
// level below, which the slot's start puts in front of the rest. A level
// has them when the bank below it has at most 64 slots (a list head of 16
// bytes each, and one word saying which may hold timers); the others walk
// from the back alone.
//
// A diverted slot of level 2 whose lead list holds timers too (see
// lead_lists.hpp) is walked from four ends: its lead list from both ends as
// well, to two more lists a spare slot, one for each of those walks. For
// each deadline a spare slot then holds, in order: the lead list's front
// walk's timers, its back walk's, the own list's front walk's, its back
// walk's (in the slot itself), then those sent past.
enum class run : unsigned {
  front,       // the own list's front walk: to the back of its list
  lead_front,  // the lead list's front walk: to the back of its list
  lead_back,   // the lead list's back walk: to the front of its list
};

template <class Layout>
class front_lists {
  static constexpr unsigned lead_level = lead_lists<Layout>::level;
  // The runs of level k: all three at level 2 where it keeps lead lists.
  static constexpr unsigned runs(unsigned k) noexcept { return k != 0 && k == lead_level ? 3 : 1; }
  // offset[k]: the first list of level k (1 or above); its lists for run r
  // follow at r times the bank's slots.
  static constexpr std::array<std::size_t, Layout::count + 1> offset = [] {
    std::array<std::size_t, Layout::count + 1> o{};
    for (unsigned k = 1; k < Layout::count; ++k) {
      const std::size_t below = Layout::bank_slots[k - 1];
      o[k + 1] = o[k] + (below <= 64 ? below * runs(k) : 0);
    }
    return o;
  }();

 public:
  // Whether any level walks from the front.
  static constexpr bool walks_any = offset[Layout::count] != 0;

  front_lists() noexcept {
    for (link& l : lists_) list_init(l);
  }
  front_lists(const front_lists&) = delete;
  front_lists& operator=(const front_lists&) = delete;

  // Whether `level` walks its diverted slot from the front too.
  static constexpr bool walks_front(unsigned level) noexcept {
    return level < Layout::count && offset[level + 1] != offset[level];
  }

  // Whether `level` keeps the lists of the walks of lead lists too.
  static constexpr bool walks_leads(unsigned level) noexcept {
    return level == lead_level && walks_front(level);
  }

  // The list of the timers the front walk of `level` (or walk `r` of it)
  // moved towards slot `s` of the spare bank below it.
  link& list(unsigned level, std::size_t s, run r = run::front) noexcept {
    return lists_[index(level, s, r)];
  }
  const link& list(unsigned level, std::size_t s, run r = run::front) const noexcept {
    return lists_[index(level, s, r)];
  }

  // Adds `node` to list `s` of `level` for walk `r`: at the back, or at the
  // front for run::lead_back (which takes the newest first).
  TIMERWHEEL_ALWAYS_INLINE void push(unsigned level, std::size_t s, link& node,
                                     run r = run::front) noexcept {
    used_[level] |= std::uint64_t{1} << s;
    levels_ |= std::uint64_t{1} << level;
    if (r == run::lead_back)
      list_push_front(list(level, s, r), node);
    else
      list_push_back(list(level, s, r), node);
  }

  // Whether list `s` of `level` holds timers, for any walk.
  bool holds(unsigned level, std::size_t s) const noexcept {
    for (unsigned r = 0; r < runs(level); ++r)
      if (!list_empty(list(level, s, static_cast<run>(r)))) return true;
    return false;
  }

  // Bit k: some front list of level k may hold timers. Bit s of used(k):
  // list s of level k may; a cancel that empties a list leaves its bits
  // (they are cleared when the level's diversion ends).
  std::uint64_t levels() const noexcept { return levels_; }
  std::uint64_t used(unsigned level) const noexcept { return used_[level]; }

  // The first list of `level` that holds timers; 64 when none does.
  unsigned first_held(unsigned level) const noexcept {
    for (std::uint64_t u = used_[level]; u != 0; u &= u - 1) {
      const auto s = static_cast<unsigned>(std::countr_zero(u));
      if (holds(level, s)) return s;
    }
    return 64;
  }

  // Whether any list holds timers.
  bool hold_any() const noexcept {
    for (std::uint64_t l = levels_; l != 0; l &= l - 1)
      if (first_held(static_cast<unsigned>(std::countr_zero(l))) != 64) return true;
    return false;
  }

  // Forgets the lists of `level`, all of them empty now.
  void release(unsigned level) noexcept {
    used_[level] = 0;
    levels_ &= ~(std::uint64_t{1} << level);
  }

  template <class F>
  void for_each(F&& f) const {
    for (const link& l : lists_) f(l);
  }

 private:
  static constexpr std::size_t index(unsigned level, std::size_t s, run r) noexcept {
    return offset[level] + static_cast<std::size_t>(r) * Layout::bank_slots[level - 1] + s;
  }

  std::array<link, offset[Layout::count]> lists_;
  std::uint64_t used_[Layout::count]{};
  std::uint64_t levels_ = 0;
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI::detail
