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

  // Every level keeps two banks of slots: the active one, placed relative to
  // now, and a spare that holds the next slot of the level above split ahead
  // of time (see wheel.hpp, "Spreading cascades"). Bank b of level k starts
  // at flat slot bank_base[k] + b * bank_slots[k]; flat slot i lies in word
  // i / 64 of the occupancy bitmap.
  static constexpr std::array<std::size_t, count> bank_slots = [] {
    std::array<std::size_t, count> n{};
    for (unsigned k = 0; k < count; ++k) n[k] = words[k] * std::size_t{64};
    return n;
  }();
  static constexpr std::array<std::size_t, count> bank_base = [] {
    std::array<std::size_t, count> b{};
    for (unsigned k = 0; k < count; ++k) b[k] = 2 * word_offset[k] * std::size_t{64};
    return b;
  }();
  // base XOR bank_toggle[k] turns the start of one bank of level k into the other's.
  static constexpr std::array<std::size_t, count> bank_toggle = [] {
    std::array<std::size_t, count> t{};
    for (unsigned k = 0; k < count; ++k) t[k] = bank_base[k] ^ (bank_base[k] + bank_slots[k]);
    return t;
  }();
  static constexpr unsigned all_words = 2 * total_words;
  static constexpr std::size_t all_slots = 2 * std::size_t{total_slots};

  // Per word of the bitmap: its level, its bank (2k + b) and its place in the bank.
  static constexpr std::array<std::uint8_t, all_words> level_of_word = [] {
    std::array<std::uint8_t, all_words> l{};
    for (unsigned k = 0; k < count; ++k)
      for (unsigned w = 2 * word_offset[k]; w < 2 * word_offset[k + 1]; ++w)
        l[w] = static_cast<std::uint8_t>(k);
    return l;
  }();
  static constexpr std::array<std::uint8_t, all_words> bank_of_word = [] {
    std::array<std::uint8_t, all_words> b{};
    for (unsigned k = 0; k < count; ++k)
      for (unsigned w = 0; w < 2 * words[k]; ++w)
        b[2 * word_offset[k] + w] = static_cast<std::uint8_t>(2 * k + w / words[k]);
    return b;
  }();
  static constexpr std::array<std::uint8_t, all_words> word_in_bank = [] {
    std::array<std::uint8_t, all_words> r{};
    for (unsigned k = 0; k < count; ++k)
      for (unsigned w = 0; w < 2 * words[k]; ++w)
        r[2 * word_offset[k] + w] = static_cast<std::uint8_t>(w % words[k]);
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
  // Shifting and masking act bit by bit, so single bits check slot_at whole.
  static_assert(
      [] {
        for (unsigned w = 0; w <= digits; ++w)
          if (level_of_xor(w == 0 ? 0 : tick{1} << (w - 1)) != level_of_width[w]) return false;
        for (unsigned k = 0; k < count; ++k)
          for (unsigned bit = 0; bit < digits; ++bit)
            if (slot_at(tick{1} << bit, k) != (((tick{1} << bit) >> shift[k]) & slot_mask[k]))
              return false;
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
