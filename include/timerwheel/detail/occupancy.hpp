// The occupancy bitmap of a wheel's slots: a bit a slot, a word for every 64
// slots, and, where a bank of slots takes more than one word, a summary word
// per bank whose bit w says that word w of the bank is not zero. So the first
// occupied slot of a bank is at most two counts of trailing zeros away.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <utility>

#include "abi.hpp"
#include "inline.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::detail {

// `Layout` is a detail::layout<Config>: slots are named by their flat index,
// and the banks of every level start on a word (levels.hpp, layout.hpp).
template <class Layout>
class occupancy {
 public:
  // Marks slot `index` occupied. O(1).
  void set(std::size_t index) noexcept {
    const std::size_t word = index / 64;
    words_[word] |= bit(static_cast<unsigned>(index % 64));
    if constexpr (!Layout::single_word)
      summary_[Layout::bank_of_word[word]] |= bit(Layout::word_in_bank[word]);
  }

  // Marks slot `index` empty; returns whether its bank became empty. O(1).
  TIMERWHEEL_ALWAYS_INLINE bool reset(std::size_t index) noexcept {
    const std::size_t word = index / 64;
    words_[word] &= ~bit(static_cast<unsigned>(index % 64));
    if (words_[word] != 0) return false;
    if constexpr (!Layout::single_word) {
      std::uint64_t& summary = summary_[Layout::bank_of_word[word]];
      summary &= ~bit(Layout::word_in_bank[word]);
      return summary == 0;
    }
    return true;
  }

  bool test(std::size_t index) const noexcept {
    return (words_[index / 64] >> (index % 64) & 1) != 0;
  }

  // The first occupied slot, as an offset from `base`, of the non-empty
  // bank that starts at flat slot `base`, scanning cyclically from offset
  // `from`. O(1).
  unsigned first(std::size_t base, unsigned from) const noexcept {
    const std::uint64_t* words = words_ + base / 64;
    if constexpr (Layout::single_word) {
      const std::uint64_t ahead = words[0] & (~std::uint64_t{0} << from);
      return static_cast<unsigned>(std::countr_zero(ahead != 0 ? ahead : words[0]));
    }
    const unsigned word = from / 64;
    if (const std::uint64_t ahead = words[word] & (~std::uint64_t{0} << (from % 64)))
      return word * 64 + static_cast<unsigned>(std::countr_zero(ahead));
    const std::uint64_t summary = summary_[Layout::bank_of_word[base / 64]];
    const std::uint64_t later = word + 1 < 64 ? summary & (~std::uint64_t{0} << (word + 1)) : 0;
    const unsigned next = static_cast<unsigned>(std::countr_zero(later != 0 ? later : summary));
    return next * 64 + static_cast<unsigned>(std::countr_zero(words[next]));
  }

  // Calls f(index) for every occupied slot, in index order. O(slots / 64
  // + occupied slots). f may not change the bitmap.
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t w = 0; w < Layout::all_words; ++w) visit_word(w, f);
  }

  // Calls f(index) for every occupied slot of the bank of `level` that
  // starts at flat slot `base`, then marks the whole bank empty.
  template <class F>
  void take_bank(std::size_t base, unsigned level, F&& f) {
    for (std::size_t w = base / 64; w < base / 64 + Layout::words[level]; ++w) {
      visit_word(w, f);
      words_[w] = 0;
    }
    if constexpr (!Layout::single_word) summary_[Layout::bank_of_word[base / 64]] = 0;
  }

  // Swaps the bits of the two banks of `level`, the active one that starts
  // at flat slot `active` and the spare at `spare`, summaries included.
  // O(words of a bank).
  void swap_banks(std::size_t active, std::size_t spare, unsigned level) noexcept {
    for (std::size_t w = 0; w < Layout::words[level]; ++w)
      std::swap(words_[active / 64 + w], words_[spare / 64 + w]);
    if constexpr (!Layout::single_word)
      std::swap(summary_[Layout::bank_of_word[active / 64]],
                summary_[Layout::bank_of_word[spare / 64]]);
  }

  // Marks every slot empty. O(slots / 64).
  void clear() noexcept {
    std::fill(std::begin(words_), std::end(words_), 0);
    std::fill(std::begin(summary_), std::end(summary_), 0);
  }

  // For the invariant checker: word `w` of the bitmap and the summary of
  // bank `bank` (zero where banks take one word).
  std::uint64_t word(std::size_t w) const noexcept { return words_[w]; }
  std::uint64_t summary(std::size_t bank) const noexcept { return summary_[bank]; }

 private:
  static constexpr std::uint64_t bit(unsigned n) noexcept { return std::uint64_t{1} << n; }

  template <class F>
  void visit_word(std::size_t w, F& f) const {
    for (std::uint64_t bits = words_[w]; bits != 0; bits &= bits - 1)
      f(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
  }

  // Plain arrays: g++ reaches an element of a std::array through a returned
  // reference and then no longer tells which member of the wheel a store to
  // it hits. A cancel that empties a slot stores a word here; with std::array
  // that store could alias the wheel's now, and a caller's loop of cancels
  // and schedules read now from memory at every schedule instead of keeping
  // it in a register.
  std::uint64_t words_[Layout::all_words]{};
  std::uint64_t summary_[2 * Layout::count]{};  // per bank
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI::detail
