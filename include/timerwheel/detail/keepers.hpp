// The keepers of level 2 (docs/design.md, "Keepers"): a link of no timer a
// slot of the level's active bank. A cancel that empties such a slot links
// the slot's keeper into its own list rather than clearing its occupancy
// bit, so the slot stays open: the next schedule into it appends on the
// common path and the cancel of its last timer finds a neighbour, where
// with few timers a slot would otherwise be opened and emptied again and
// again, each time on a branch the processor seldom predicts. The keeper
// leaves when the slot starts or is diverted, or when the wheel is emptied
// or drained; until then the slot's start is an event like any other.
//
// Kept apart from the rest of the wheel's state, at the end of its object,
// as the marks of the arrivals are.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "abi.hpp"
#include "lead_lists.hpp"
#include "link.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::detail {

// `Layout` is a detail::layout<Config>.
template <class Layout>
class keepers {
  using leads = lead_lists<Layout>;

 public:
  // The slots that keep one: those with a lead list, level 2's active bank.
  static constexpr bool any = leads::any;
  static constexpr std::size_t first = leads::first;
  static constexpr std::size_t count = leads::count;

  keepers() noexcept {
    for (link& k : links_) k.next = k.prev = nullptr;
  }
  keepers(const keepers&) = delete;
  keepers& operator=(const keepers&) = delete;

  // Bit s: slot s of the level holds its keeper.
  std::uint64_t kept() const noexcept { return kept_; }

  // Whether flat slot `index` holds its keeper.
  bool kept(std::size_t index) const noexcept {
    return index - first < count && (kept_ >> (index - first) & 1) != 0;
  }

  // The keeper of slot `s` of the level.
  const link& of(std::size_t s) const noexcept { return links_[s]; }

  // Whether `node` is a keeper.
  bool is_keeper(const link* node) const noexcept {
    return reinterpret_cast<std::uintptr_t>(node) -
               reinterpret_cast<std::uintptr_t>(links_.data()) <
           count * sizeof(link);
  }

  // Links the keeper of flat slot `index` (one of the level's) into `own`,
  // the slot's own list, which a cancel has just emptied.
  void keep(link& own, std::size_t index) noexcept {
    list_push_back(own, links_[index - first]);
    kept_ |= std::uint64_t{1} << (index - first);
  }

  // Unlinks the keeper of flat slot `index` where it holds it. Returns
  // whether it did.
  bool drop(std::size_t index) noexcept {
    if (!kept(index)) return false;
    link& k = links_[index - first];
    list_unlink(k);
    k.prev = nullptr;
    kept_ &= ~(std::uint64_t{1} << (index - first));
    return true;
  }

  // Whether `own`, the own list of flat slot `index`, holds its keeper and
  // nothing else.
  bool alone(const link& own, std::size_t index) const noexcept {
    if (!kept(index)) return false;
    const link* k = &links_[index - first];
    return own.next == k && own.prev == k;
  }

 private:
  std::array<link, count> links_;
  std::uint64_t kept_ = 0;
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI::detail
