// Tables derived at compile time from a `levels<...>` configuration.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "abi.hpp"
#include "ticks.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::detail {

template <class Config>
struct layout {
  using tick = typename Config::tick_type;

  static constexpr unsigned digits = ticks<tick>::digits;
  static constexpr unsigned count = Config::count;
  static_assert(count <= 64, "at most 64 levels");
  static constexpr bool wraps = ticks<tick>::wraps;
  // A configuration of the user's own may leave it out: no count then.
  static constexpr bool counted = [] {
    if constexpr (requires { Config::constant_time_size; })
      return bool{Config::constant_time_size};
    else
      return false;
  }();
  // The moves a diverted slot makes from its back alone before the
  // spreading walks it from both ends (see levels.hpp); 256 unless the
  // configuration says.
  static constexpr std::uint32_t front_walk_after = [] {
    if constexpr (requires { Config::front_walk_after; })
      return std::uint32_t{Config::front_walk_after};
    else
      return std::uint32_t{256};
  }();

  // shift[k]: the first tick bit of level k; shift[count]: the bits covered.
  static constexpr std::array<unsigned, count + 1> shift = [] {
    std::array<unsigned, count + 1> s{};
    for (unsigned k = 0; k < count; ++k) s[k + 1] = s[k] + Config::bits[k];
    return s;
  }();
  static_assert(shift[count - 1] < digits, "a level lies entirely beyond the tick type");

  static constexpr bool has_far = shift[count] < digits;

  // Every level starts on a word of the occupancy bitmap, so a slot's flat
  // index gives its bit and word directly (levels of under 64 slots pad).
  static constexpr std::array<unsigned, count> words = [] {
    std::array<unsigned, count> w{};
    for (unsigned k = 0; k < count; ++k) w[k] = ((1u << Config::bits[k]) + 63) / 64;
    return w;
  }();
  static constexpr std::array<unsigned, count + 1> word_offset = [] {
    std::array<unsigned, count + 1> o{};
    for (unsigned k = 0; k < count; ++k) o[k + 1] = o[k] + words[k];
    return o;
  }();
  static constexpr unsigned total_words = word_offset[count];
  static constexpr unsigned total_slots = total_words * 64;
  // With one word a level (6 bits or fewer each), each bank is one word and
  // no summary of words is kept.
  static constexpr bool single_word = total_words == count;

  // Every level keeps two banks of slots at fixed places: the active one,
  // placed relative to now, and a spare that holds the next slot of the
  // level above split ahead of time (see wheel.hpp, "Spreading cascades").
  // The active banks of all levels come first, level by level, then the
  // spare banks in the same order: the active bank of level k starts at
  // flat slot bank_base[k], its spare at spare_bank_base[k], and flat slot i
  // lies in word i / 64 of the occupancy bitmap. When a spare bank becomes
  // the active one, the two banks' lists trade places (the wheel's
  // swap_banks), so that a schedule finds its bank at a constant offset
  // rather than through a pointer it must load.
  static constexpr std::array<std::size_t, count> bank_slots = [] {
    std::array<std::size_t, count> n{};
    for (unsigned k = 0; k < count; ++k) n[k] = words[k] * std::size_t{64};
    return n;
  }();
  static constexpr std::array<std::size_t, count> bank_base = [] {
    std::array<std::size_t, count> b{};
    for (unsigned k = 0; k < count; ++k) b[k] = word_offset[k] * std::size_t{64};
    return b;
  }();
  static constexpr std::array<std::size_t, count> spare_bank_base = [] {
    std::array<std::size_t, count> b{};
    for (unsigned k = 0; k < count; ++k) b[k] = (total_words + word_offset[k]) * std::size_t{64};
    return b;
  }();
  static constexpr unsigned all_words = 2 * total_words;
  static constexpr std::size_t all_slots = 2 * std::size_t{total_slots};

  // Per word of the bitmap: its level, its bank (2k for the active bank of
  // level k, 2k + 1 for its spare) and its place in the bank.
  static constexpr std::array<std::uint8_t, all_words> level_of_word = [] {
    std::array<std::uint8_t, all_words> l{};
    for (unsigned k = 0; k < count; ++k)
      for (unsigned w = word_offset[k]; w < word_offset[k + 1]; ++w)
        l[w] = l[total_words + w] = static_cast<std::uint8_t>(k);
    return l;
  }();
  static constexpr std::array<std::uint8_t, all_words> bank_of_word = [] {
    std::array<std::uint8_t, all_words> b{};
    for (unsigned k = 0; k < count; ++k)
      for (unsigned w = word_offset[k]; w < word_offset[k + 1]; ++w) {
        b[w] = static_cast<std::uint8_t>(2 * k);
        b[total_words + w] = static_cast<std::uint8_t>(2 * k + 1);
      }
    return b;
  }();
  static constexpr std::array<std::uint8_t, all_words> word_in_bank = [] {
    std::array<std::uint8_t, all_words> r{};
    for (unsigned k = 0; k < count; ++k)
      for (unsigned w = word_offset[k]; w < word_offset[k + 1]; ++w)
        r[w] = r[total_words + w] = static_cast<std::uint8_t>(w - word_offset[k]);
    return r;
  }();

  // The highest level of which a tick with z trailing zero bits starts a
  // slot (z = digits: the tick 0).
  static constexpr std::array<std::uint8_t, digits + 1> level_of_start = [] {
    std::array<std::uint8_t, digits + 1> l{};
    for (unsigned z = 0; z <= digits; ++z) {
      unsigned k = 0;
      while (k + 1 < count && shift[k + 1] <= z) ++k;
      l[z] = static_cast<std::uint8_t>(k);
    }
    return l;
  }();

  // The level of a deadline whose XOR with now has bit width w (w = 0: the
  // deadline is now); `count` stands for the far list.
  static constexpr std::array<std::uint8_t, digits + 1> level_of_width = [] {
    std::array<std::uint8_t, digits + 1> l{};
    for (unsigned w = 1; w <= digits; ++w) {
      unsigned k = 0;
      while (k < count && w - 1 >= shift[k + 1]) ++k;
      l[w] = static_cast<std::uint8_t>(k);
    }
    return l;
  }();

  // The same, indexed by the count of leading zero bits of (XOR | 1): one
  // instruction fewer on the path of every schedule, and no test for zero
  // (the low bit changes no level: level 0 holds widths 0 and 1 alike).
  static constexpr std::array<std::uint8_t, digits> level_of_clz = [] {
    std::array<std::uint8_t, digits> l{};
    for (unsigned z = 0; z < digits; ++z) l[z] = level_of_width[digits - z];
    return l;
  }();

  static constexpr tick low_bits(unsigned n) noexcept { return ticks<tick>::low_bits(n); }

  static constexpr std::array<tick, count> slot_mask = [] {
    std::array<tick, count> m{};
    for (unsigned k = 0; k < count; ++k) m[k] = low_bits(Config::bits[k]);
    return m;
  }();

  // slot_width[k]: the ticks of one slot of level k.
  static constexpr std::array<tick, count> slot_width = [] {
    std::array<tick, count> w{};
    for (unsigned k = 0; k < count; ++k) w[k] = static_cast<tick>(low_bits(shift[k]) + 1);
    return w;
  }();

  // event_mask[k]: clears the bits below level k, turning a deadline at level
  // k into its slot's first tick (k = count: the far list's block).
  static constexpr std::array<tick, count + 1> event_mask = [] {
    std::array<tick, count + 1> m{};
    for (unsigned k = 0; k <= count; ++k) m[k] = static_cast<tick>(~low_bits(shift[k]));
    return m;
  }();

  // Whether every level has the same bits. Then a deadline's level and slot
  // come from arithmetic on the leading-zero count rather than from two
  // table reads in a row: those reads sit on the path from the deadline to
  // its slot's sentinel, and at a million timers that path is a churn step's
  // critical one (docs/design.md, "What limits churn at a million timers").
  static constexpr bool uniform = [] {
    for (unsigned k = 1; k < count; ++k)
      if (Config::bits[k] != Config::bits[0]) return false;
    return true;
  }();

  // For uniform levels: the level of a deadline whose XOR with now has
  // `clz` leading zero bits (clz = digits: the deadline is now), before the
  // far list's clamp, is (offset - factor * clz) >> shift for every clz in
  // [0, digits]. One multiply and an add: no division by the level's bits,
  // and no OR 1 ahead of the leading-zero count to keep it below digits.
  // Searched at compile time; factor 0: none found, the table serves.
  struct affine_level {
    std::uint64_t factor = 0, offset = 0;
    unsigned shift = 0;
  };
  static constexpr unsigned natural_level(unsigned clz) noexcept {
    return clz >= digits ? 0 : (digits - 1 - clz) / Config::bits[0];
  }
  static constexpr affine_level level_affine = [] {
    for (unsigned s = 8; s <= 24; ++s) {
      const std::int64_t unit = std::int64_t{1} << s;
      const std::int64_t top = unit / Config::bits[0];
      for (std::int64_t m = top; m > 0 && m > top - unit / 16; --m) {
        // Each clz bounds the offset c from both sides:
        // level * unit <= c - m * clz < (level + 1) * unit.
        std::int64_t lo = 0, hi = std::int64_t{1} << 31;
        for (unsigned z = 0; z <= digits; ++z) {
          const std::int64_t l = natural_level(z);
          lo = std::max(lo, l * unit + m * z);
          hi = std::min(hi, (l + 1) * unit + m * z);
        }
        if (lo < hi)
          return affine_level{static_cast<std::uint64_t>(m), static_cast<std::uint64_t>(lo), s};
      }
    }
    return affine_level{};
  }();

  // std::countl_zero(x), without the test for zero that the library puts
  // before a count undefined at zero, where the processor's own count is
  // defined there (LZCNT: digits).
  static constexpr std::size_t leading_zeros(tick x) noexcept {
#if defined(__LZCNT__)
    if (!std::is_constant_evaluated()) {
      if constexpr (digits == 64) return __builtin_ia32_lzcnt_u64(x);
      if constexpr (digits == 32) return __builtin_ia32_lzcnt_u32(x);
    }
#endif
    // x | 1 counts one fewer at zero, which changes no level.
    return static_cast<std::size_t>(std::countl_zero(static_cast<tick>(x | 1)));
  }

  // The level of a deadline whose XOR with now is `x`; `count` stands for
  // the far list.
  static constexpr std::size_t level_of_xor(tick x) noexcept {
    if constexpr (uniform && level_affine.factor != 0) {
      // offset - factor * clz as a multiply by the negated factor (an
      // immediate) and an add: no register to subtract from.
      const std::size_t clz = leading_zeros(x);
      const std::size_t level =
          (level_affine.offset + clz * (0 - level_affine.factor)) >> level_affine.shift;
      if constexpr (has_far) return level < count ? level : count;
      return level;
    } else {
      // x | 1: the low bit changes no level, and the count stays below digits.
      return level_of_clz[static_cast<std::size_t>(std::countl_zero(static_cast<tick>(x | 1)))];
    }
  }
  // A timer's slot at level k (below count): bits shift[k] and up of its deadline.
  static constexpr std::size_t slot_at(tick t, std::size_t level) noexcept {
    if constexpr (uniform) {
      return static_cast<std::size_t>((t >> (level * Config::bits[0])) & slot_mask[0]);
    } else {
      return static_cast<std::size_t>((t >> shift[level]) & slot_mask[level]);
    }
  }
  // The flat index of the first slot of level k's active bank: for uniform
  // levels a multiply by a constant (a shift), not a read of bank_base.
  static constexpr std::size_t active_base(std::size_t level) noexcept {
    if constexpr (uniform) {
      return level * bank_slots[0];
    } else {
      return bank_base[level];
    }
  }
  static_assert(
      [] {
        for (unsigned k = 0; k < count; ++k)
          if (active_base(k) != bank_base[k]) return false;
        return true;
      }(),
      "a level's active bank starts where bank_base says");
  // Placement by one read, for uniform levels without a far list: the flat
  // index of a deadline's slot in the active banks is ((t >> shift) & mask)
  // + base, where the level's shift and its bank's first flat slot depend
  // only on the leading zeros of deadline XOR now. A table indexed by that
  // count holds both in one entry: the base (a multiple of 64, as banks
  // start on a word) plus the shift (below 64). From the leading-zero count
  // to the slot's sentinel that is one read of a hot 130-byte table and
  // three operations, where the arithmetic level (a multiply, an add, a
  // shift) and the shift and base derived from it take nine, all in a row
  // on the path of every schedule (docs/perf/2026-11-25-churn.md).
  static constexpr bool placed_by_table = uniform && !has_far;
  using place_entry = std::conditional_t<(all_slots <= 0xffc0), std::uint16_t, std::uint32_t>;
  static constexpr std::array<place_entry, digits + 1> place_of_clz = [] {
    std::array<place_entry, digits + 1> t{};
    for (unsigned z = 0; z <= digits; ++z) {
      const unsigned k = level_of_width[digits - z];
      t[z] = static_cast<place_entry>(bank_base[k] + shift[k]);
    }
    return t;
  }();
  // The flat index of the slot of `t` in the active bank of its level, for
  // `x` = t XOR now; placed_by_table configurations only.
  static constexpr std::size_t active_index(tick t, tick x) noexcept {
    const std::size_t e = place_of_clz[leading_zeros(x)];
    return static_cast<std::size_t>((t >> (e & 63)) & slot_mask[0]) + (e & ~std::size_t{63});
  }
  // Shifting and masking act bit by bit, so single bits check slot_at whole.
  static_assert(
      [] {
        for (unsigned w = 0; w <= digits; ++w)
          if (level_of_xor(w == 0 ? 0 : tick{1} << (w - 1)) != level_of_width[w]) return false;
        for (unsigned k = 0; k < count; ++k)
          for (unsigned bit = 0; bit < digits; ++bit)
            if (slot_at(tick{1} << bit, k) != (((tick{1} << bit) >> shift[k]) & slot_mask[k]))
              return false;
        // One deadline a width (all its bits set) against a now of 0: its
        // index by the table is its level's base plus its slot there.
        if constexpr (placed_by_table)
          for (unsigned w = 0; w <= digits; ++w) {
            const tick t = w == 0 ? tick{0} : static_cast<tick>(low_bits(w));
            const std::size_t k = level_of_width[w];
            if (active_index(t, t) != bank_base[k] + slot_at(t, k)) return false;
          }
        return true;
      }(),
      "the arithmetic placement of uniform levels agrees with the tables");

  // The bits above level k: what every timer at level k shares with now.
  static constexpr std::array<tick, count> high_mask = [] {
    std::array<tick, count> m{};
    for (unsigned k = 0; k < count; ++k) m[k] = static_cast<tick>(~low_bits(shift[k + 1]));
    return m;
  }();
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI::detail
