// What the two slot-storage prototypes share (slot_lists.hpp, slot_arrays.hpp): the wheel's
// tickless placement with 6-bit levels over 64-bit ticks (a timer sits at the level of the
// highest bit in which its deadline differs from now, in the slot of its digit there), the
// occupancy words, and the search for the next slot that starts. No spreading of cascades and no
// far list: eleven levels of 64 slots cover every 64-bit deadline. Only the storage of a slot
// differs between the two, so that their difference is the storage's.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>

namespace timerwheel_bench::slots {

inline constexpr unsigned level_bits = 6;
inline constexpr unsigned slots_per_level = 1u << level_bits;
inline constexpr unsigned level_count = 11;  // 66 bits cover the 64-bit tick
inline constexpr unsigned slot_count = level_count * slots_per_level;
inline constexpr std::uint32_t no_slot = ~std::uint32_t{0};

// The flat slot (level * 64 + digit) of `deadline` when the time is `now`; deadline >= now.
inline std::uint32_t flat_slot(std::uint64_t deadline, std::uint64_t now) noexcept {
  const std::uint64_t x = deadline ^ now;
  const unsigned level = x == 0 ? 0 : (63u - static_cast<unsigned>(std::countl_zero(x))) / 6;
  const unsigned digit = static_cast<unsigned>(deadline >> (level * level_bits)) & 63u;
  return level * slots_per_level + digit;
}

// Which slots hold timers: a word a level, and a word of the non-empty levels.
class occupancy {
 public:
  void set(std::uint32_t flat) noexcept {
    words_[flat / 64] |= std::uint64_t{1} << (flat % 64);
    levels_ |= 1u << (flat / 64);
  }
  void clear(std::uint32_t flat) noexcept {
    std::uint64_t& w = words_[flat / 64];
    w &= ~(std::uint64_t{1} << (flat % 64));
    if (w == 0) levels_ &= ~(1u << (flat / 64));
  }
  bool test(std::uint32_t flat) const noexcept { return (words_[flat / 64] >> (flat % 64)) & 1u; }
  bool empty() const noexcept { return levels_ == 0; }

  // The next slot to start at or after `now`: the first occupied slot of the lowest non-empty
  // level, from now's digit on (every timer of level k > 0 has a digit above now's, and a
  // level-0 timer's digit is at least now's). Its flat index, and its start in `start`.
  // Requires !empty().
  std::uint32_t next(std::uint64_t now, std::uint64_t& start) const noexcept {
    const unsigned k = static_cast<unsigned>(std::countr_zero(levels_));
    const unsigned shift = k * level_bits;
    const unsigned digit = static_cast<unsigned>(now >> shift) & 63u;
    const unsigned s =
        static_cast<unsigned>(std::countr_zero(words_[k] & (~std::uint64_t{0} << digit)));
    const unsigned above = shift + level_bits;
    const std::uint64_t high = above >= 64 ? 0 : ~((std::uint64_t{1} << above) - 1);
    start = (now & high) | (static_cast<std::uint64_t>(s) << shift);
    return k * slots_per_level + s;
  }

  // Words of the level, for the look-ahead of the next level-0 slots.
  std::uint64_t word(unsigned level) const noexcept { return words_[level]; }

 private:
  std::uint64_t words_[level_count] = {};
  std::uint32_t levels_ = 0;
};

// The advance of every prototype here: every slot that starts at or before `to`, in order, now
// moved to its start; a level-0 slot fires (`fire(flat)` returns how many), a slot above it
// cascades (`cascade(flat)`). Then now is `to`.
template <class Fire, class Cascade>
std::size_t advance_slots(const occupancy& occ, std::uint64_t& now, std::uint64_t to, Fire&& fire,
                          Cascade&& cascade) {
  std::size_t fired = 0;
  while (!occ.empty()) {
    std::uint64_t start = 0;
    const std::uint32_t flat = occ.next(now, start);
    if (start > to) break;
    now = start;
    if (flat < slots_per_level)
      fired += fire(flat);
    else
      cascade(flat);
  }
  if (to > now) now = to;
  return fired;
}

}  // namespace timerwheel_bench::slots
