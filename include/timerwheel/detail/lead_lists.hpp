// The lead lists of level 2 (docs/design.md, "Four walks"): a second list a
// slot of the level's active bank, which holds the timers that the walk from
// the front of a cascade from above brought there, older than every timer of
// their deadline in the slot's own list. A slot's timers are its lead list,
// then its own list, in scheduling order for each deadline; its occupancy bit
// says whether either holds a timer. When the slot starts, its two lists
// cascade from both ends each: four chains of misses that overlap, where one
// list would give two. Schedules never touch them: they join the own list.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "abi.hpp"
#include "link.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::detail {

// `Layout` is a detail::layout<Config>.
template <class Layout>
class lead_lists {
 public:
  // The level whose active slots keep lead lists: 2, where the levels go on
  // above it (a cascade from above fills its slots) and both it and the
  // banks below it are small enough for the tables of a cascade from four
  // ends (64 slots, and 128 below); otherwise none (0).
  static constexpr unsigned level =
      Layout::count > 3 && Layout::bank_slots[2] == 64 && Layout::bank_base[2] <= 128 ? 2 : 0;
  static constexpr bool any = level != 0;
  // The flat index of the level's first active slot.
  static constexpr std::size_t first = any ? Layout::bank_base[level] : 0;
  static constexpr std::size_t count = any ? 64 : 0;

  lead_lists() noexcept {
    for (link& l : lists_) list_init(l);
  }
  lead_lists(const lead_lists&) = delete;
  lead_lists& operator=(const lead_lists&) = delete;

  // The lead list of slot `s` of the level.
  link& list(std::size_t s) noexcept { return lists_[s]; }

  // The lead list of flat slot `index`; nullptr for a slot without one.
  link* of(std::size_t index) noexcept {
    return index - first < count ? &lists_[index - first] : nullptr;
  }
  const link* of(std::size_t index) const noexcept {
    return index - first < count ? &lists_[index - first] : nullptr;
  }

  // Whether flat slot `index` has a lead list holding timers.
  bool holds(std::size_t index) const noexcept {
    const link* lead = of(index);
    return lead != nullptr && !list_empty(*lead);
  }

  // The flat slot whose lead list is `sentinel`; 0 when it is none (flat
  // slot 0, of level 0, has none).
  std::size_t slot_of(const link* sentinel) const noexcept {
    if constexpr (!any) return 0;
    const std::uintptr_t offset = reinterpret_cast<std::uintptr_t>(sentinel) -
                                  reinterpret_cast<std::uintptr_t>(lists_.data());
    return offset < sizeof(lists_) ? first + offset / sizeof(link) : 0;
  }

  template <class F>
  void for_each(F&& f) const {
    for (const link& l : lists_) f(l);
  }
  template <class F>
  void for_each(F&& f) {
    for (link& l : lists_) f(l);
  }

 private:
  std::array<link, count> lists_;
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI::detail
