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
#include "link.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::detail {

// `Layout` is a detail::layout<Config>.
template <class Layout>
class diversions {
 public:
  diversions() noexcept {
    slot_.fill(nullptr);
    for (link& l : waiting_) list_init(l);
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
    levels_ |= std::uint64_t{1} << level;
    list_splice_back(waiting_[level], slot);
  }

  // Ends the diversion of the levels in `levels`, putting back in each
  // diverted slot the timers still waiting in it.
  void end(std::uint64_t levels) noexcept {
    for (std::uint64_t d = levels_ & levels; d != 0; d &= d - 1) {
      const unsigned level = static_cast<unsigned>(std::countr_zero(d));
      list_splice_back(*slot_[level], waiting_[level]);
      slot_[level] = nullptr;
    }
    levels_ &= ~levels;
  }

  // The timers the diverted slot of `level` still holds.
  link& waiting(unsigned level) noexcept { return waiting_[level]; }
  const link& waiting(unsigned level) const noexcept { return waiting_[level]; }

  // The timers of `slot`, a slot of `level`: its own list, or for a
  // diverted slot, the timers waiting in it.
  const link& held_in(const link& slot, unsigned level) const noexcept {
    return &slot == slot_[level] ? waiting_[level] : slot;
  }
  link& held_in(link& slot, unsigned level) noexcept {
    return &slot == slot_[level] ? waiting_[level] : slot;
  }

  // The diverted slot whose waiting list is `list`; nullptr when `list` is
  // not one of them. O(1).
  link* owner_of_waiting(const link* list) const noexcept {
    const std::uintptr_t offset =
        reinterpret_cast<std::uintptr_t>(list) - reinterpret_cast<std::uintptr_t>(waiting_.data());
    return offset < sizeof(waiting_) ? slot_[offset / sizeof(link)] : nullptr;
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
  std::uint64_t levels_ = 0;
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI::detail
