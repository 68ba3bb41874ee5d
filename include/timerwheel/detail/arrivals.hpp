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
#include <bit>
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
  // rather than sending it past: from begin(), at its diversion's start,
  // until decline() or the diversion's end().
  bool accepts(std::size_t level) const noexcept { return (accepting_ >> level & 1) != 0; }

  // The diversions of `levels` end. One that took new timers to its end
  // with too few counted for a verdict (see checked()), none of them gone
  // a checkpoint later, counts as a decline: it only paid the marks.
  void end(std::uint64_t levels) noexcept {
    for (std::uint64_t m = accepting_ & levels; m != 0; m &= m - 1) {
      const auto level = static_cast<unsigned>(std::countr_zero(m));
      if (counted_[level] != 0 && sent_[level] == counted_[level]) rest_after_decline(level);
    }
    accepting_ &= ~levels;
  }

  // A diversion of `level` that may take new timers begins: it takes them,
  // unless it rests. Each decline of a level makes its next 1, 3, 7, then
  // at most 15 diversions rest, so that where waiting does not pay, the
  // marks cost a sixteenth of the diversions; a checkpoint that finds it
  // paying ends the lengthening.
  void begin(unsigned level) noexcept {
    if (rest_[level] != 0) {
      --rest_[level];
      return;
    }
    accepting_ |= std::uint64_t{1} << level;
    sent_[level] = counted_[level] = 0;
  }

  // A checkpoint of the diverted slot of `level` sent on `sent` timers, those
  // still there of the `counted` that its last checkpoint counted behind the
  // mark. Returns whether the slot declines new timers from now on: where,
  // over the diversion's checkpoints so far, at least evidence timers were
  // counted and more than seven in eight of them were still there a
  // checkpoint later. Each of those was linked twice, where sent past at its
  // schedule it would have been linked once: waiting pays only where most
  // are cancelled first (docs/design.md, "New timers behind a mark"). A
  // hold (none cancelled) declines as soon as it has counted evidence
  // timers.
  bool checked(unsigned level, std::size_t sent, std::size_t counted) noexcept {
    sent_[level] += sent;
    counted_[level] += counted;
    if (counted_[level] < evidence) return false;
    if (8 * sent_[level] <= 7 * counted_[level]) {  // waiting pays
      declines_[level] = 0;
      return false;
    }
    accepting_ &= ~(std::uint64_t{1} << level);
    rest_after_decline(level);
    return true;
  }

  // The next checkpoint of the diverted slot of `level` while it holds its
  // mark, and how many timers were behind the mark at the last one.
  tick& checkpoint(unsigned level) noexcept { return checkpoint_[level]; }
  std::size_t& batch(unsigned level) noexcept { return batch_[level]; }

 private:
  void rest_after_decline(unsigned level) noexcept {
    if (declines_[level] < max_declines) ++declines_[level];
    rest_[level] = static_cast<std::uint8_t>((1u << declines_[level]) - 1);
  }

  std::array<link, Layout::count> mark_;
  std::uint64_t marked_ = 0;
  std::uint64_t accepting_ = 0;
  std::array<tick, Layout::count> checkpoint_{};
  std::array<std::size_t, Layout::count> batch_{};
  static constexpr std::size_t evidence = 16;
  static constexpr std::uint8_t max_declines = 4;
  // This diversion's checkpoints: the timers they sent on, and those counted
  // a checkpoint before.
  std::array<std::size_t, Layout::count> sent_{};
  std::array<std::size_t, Layout::count> counted_{};
  std::array<std::uint8_t, Layout::count> declines_{};  // declines in a row, at most max_declines
  std::array<std::uint8_t, Layout::count> rest_{};      // diversions left to rest
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI::detail
