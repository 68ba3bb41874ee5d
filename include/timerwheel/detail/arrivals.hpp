// The diverted slots that take new timers (docs/design.md, "Spreading
// cascades"): a diverted slot of level 2 or above may keep the timers
// scheduled into it in its own list, behind a mark, and send on at each
// checkpoint those that came before the last one and are still there,
// rather than send each past the slot at its schedule. Under churn most
// are cancelled first, and a schedule never meets the diversion.
//
// The mark is a link of no timer: while it is in the slot's own list, no
// cancel empties that list, so the slot's occupancy bit stays set without a
// test on the cancel's path. Kept apart from the rest of the wheel's state,
// at the end of its object, so that the members a schedule reads keep
// their places.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "abi.hpp"
#include "link.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::detail {

// `Layout` is a detail::layout<Config>.
template <class Layout>
class arrivals {
  using tick = typename Layout::tick;

 public:
  arrivals() noexcept {
    for (link& m : mark_) m.next = m.prev = nullptr;
  }
  arrivals(const arrivals&) = delete;
  arrivals& operator=(const arrivals&) = delete;

  // The mark of the diverted slot of `level`; linked exactly while that
  // slot takes new timers.
  link& mark(unsigned level) noexcept { return mark_[level]; }
  const link& mark(unsigned level) const noexcept { return mark_[level]; }

  // Whether `node` is the mark of some level.
  bool is_mark(const link* node) const noexcept {
    return reinterpret_cast<std::uintptr_t>(node) - reinterpret_cast<std::uintptr_t>(mark_.data()) <
           sizeof(mark_);
  }

  // Bit k: the diverted slot of level k holds its mark.
  std::uint64_t marked() const noexcept { return marked_; }
  bool marked(std::size_t level) const noexcept { return (marked_ >> level & 1) != 0; }
  void set_marked(unsigned level, bool on) noexcept {
    const std::uint64_t b = std::uint64_t{1} << level;
    marked_ = on ? marked_ | b : marked_ & ~b;
  }

  // Whether the diverted slot of `level` takes a new timer behind its mark
  // rather than sending it past: from accept(), at its diversion's start,
  // until decline() or the diversion's end().
  bool accepts(std::size_t level) const noexcept { return (accepting_ >> level & 1) != 0; }
  void accept(unsigned level) noexcept { accepting_ |= std::uint64_t{1} << level; }
  void decline(unsigned level) noexcept { accepting_ &= ~(std::uint64_t{1} << level); }
  void end(std::uint64_t levels) noexcept { accepting_ &= ~levels; }

  // The next checkpoint of the diverted slot of `level` while it holds its
  // mark, and how many timers were behind the mark at the last one.
  tick& checkpoint(unsigned level) noexcept { return checkpoint_[level]; }
  std::size_t& batch(unsigned level) noexcept { return batch_[level]; }

 private:
  std::array<link, Layout::count> mark_;
  std::uint64_t marked_ = 0;
  std::uint64_t accepting_ = 0;
  std::array<tick, Layout::count> checkpoint_{};
  std::array<std::size_t, Layout::count> batch_{};
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI::detail
