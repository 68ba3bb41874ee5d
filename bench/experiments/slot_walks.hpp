// Prototype (e): the lists of slot_lists.hpp, with cascades that walk several lists at once.
//
// - slot_walks<level_count> ("slot_walks2"): one list a slot, and a cascade walks it from both
//   ends at once, as the wheel's cascades do: two chains of misses.
// - slot_walks<2> ("slot_walks4") and slot_walks<3> ("slot_walks4_3"): at the levels from 2 (or
//   3) up, two lists a slot, split by the deadline bit just below the slot's digit (the top bit
//   of the level below). Timers of different deadlines need no order between them, and every
//   timer of one deadline is in one of the two lists, so the two are independent; a cascade
//   walks both, each from both ends: four chains. The slot's occupancy bit stands for both lists.
// All three place a timer with the same code (a table a level: the field of the deadline that
// names its list), so that what differs between them is the tables' contents alone
// (docs/perf/2026-11-28-w2-four-walks.md).
//
// Either way a cascade keeps exact order: it fills only lists that are empty (a slot that starts
// holds every timer of its range), the walk from the front puts each timer behind the ones it put
// in that list before, and the walk from the back puts each right behind the front walk's (the
// newest first), so every list gets its timers oldest first.
// Benchmark-only: callbacks of advance must not schedule or cancel (the workloads here do not).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

#include "../adapters/common.hpp"
#include "placement.hpp"
#include "slot_lists.hpp"

namespace timerwheel_bench::slots {

// The lists of slot_walks<PairedFrom>: one a slot below level PairedFrom, two from it up.
constexpr std::size_t walk_lists(unsigned paired_from) noexcept {
  const unsigned single = paired_from < level_count ? paired_from : level_count;
  return slots_per_level * (single + 2 * (level_count - single));
}

template <unsigned PairedFrom, bool Cascaded = false>
class slot_walks : public list_prototype<slot_walks<PairedFrom, Cascaded>, walk_lists(PairedFrom)> {
  using base = list_prototype<slot_walks<PairedFrom, Cascaded>, walk_lists(PairedFrom)>;

 public:
  static constexpr bool Pairs = PairedFrom < level_count;
  static constexpr const char* name = !Pairs            ? "slot_walks2"
                                      : Cascaded        ? "slot_walks4c"
                                      : PairedFrom == 2 ? "slot_walks4"
                                                        : "slot_walks4_3";

  explicit slot_walks(std::size_t n) : base(n) {}

  void check_invariants() const {
    for (std::uint32_t flat = 0; flat < slot_count; ++flat) {
      bool held = false;
      const std::uint32_t first = first_list(flat);
      for (std::uint32_t l = first; l < first + lists_of(flat); ++l) {
        const list_hook& h = heads_[l];
        held |= h.next != &h;
        std::uint64_t last = 0;
        for (const list_hook* p = h.next; p != &h; p = p->next) {
          if (p->next->prev != p) throw std::logic_error("slot_walks: links disagree");
          const spot w = where(p->deadline);
          if (p->deadline < now_ || w.slot != flat || (w.list != l && !(Cascaded && l == first)))
            throw std::logic_error("slot_walks: a timer off its list");
          if (flat < slots_per_level && p != h.next && p->deadline != last)
            throw std::logic_error("slot_walks: a level-0 slot with two deadlines");
          last = p->deadline;
        }
      }
      if (held != occ_.test(flat)) throw std::logic_error("slot_walks: occupancy bit");
    }
  }

 private:
  // The levels below PairedFrom keep one list a slot, the others two.
  static constexpr bool paired(unsigned level) noexcept { return level >= PairedFrom; }
  static constexpr std::uint32_t lists_in(unsigned level) noexcept {
    return paired(level) ? 2 * slots_per_level : slots_per_level;
  }
  // list_base[k]: the index of level k's first list; list_base[level_count]: every list.
  static constexpr std::array<std::uint32_t, level_count + 1> list_base = [] {
    std::array<std::uint32_t, level_count + 1> b{};
    for (unsigned k = 0; k < level_count; ++k) b[k + 1] = b[k] + lists_in(k);
    return b;
  }();
  static constexpr std::uint32_t list_count = list_base[level_count];

  static std::uint32_t lists_of(std::uint32_t flat) noexcept {
    return paired(flat / slots_per_level) ? 2 : 1;
  }
  static typename base::lists lists_of_slot(std::uint32_t flat) noexcept {
    return {first_list(flat), lists_of(flat)};
  }
  static std::uint32_t first_list(std::uint32_t flat) noexcept {
    const unsigned level = flat / slots_per_level;
    return list_base[level] + (flat % slots_per_level) * lists_of(flat);
  }
  // A level's lists: list (at >> shift) & mask of the level's, from its first list `base`;
  // the slot's digit is that field shifted right by `pair` (1 where a slot has two lists).
  struct geometry {
    unsigned shift;
    std::uint32_t mask;
    std::uint32_t base;
    unsigned pair;
  };
  static constexpr std::array<geometry, level_count> geometries = [] {
    std::array<geometry, level_count> g{};
    for (unsigned k = 0; k < level_count; ++k)
      g[k] = {k * level_bits - (paired(k) ? 1 : 0), lists_in(k) - 1, list_base[k],
              paired(k) ? 1u : 0u};
    return g;
  }();
  struct spot {
    std::uint32_t list;
    std::uint32_t slot;  // flat
  };
  // Where a timer of deadline `at` (at or after now) goes: the level of placement.hpp's
  // flat_slot(), then the level's list field of the deadline.
  // With `first`, the slot's first list whatever the bit (where slot_walks4c's schedules go).
  spot where(std::uint64_t at, bool first = false) const noexcept {
    const std::uint64_t x = at ^ now_;
    const unsigned level = x == 0 ? 0 : (63u - static_cast<unsigned>(std::countl_zero(x))) / 6;
    const geometry& g = geometries[level];
    const auto field = static_cast<std::uint32_t>(at >> g.shift) & g.mask;
    return {g.base + (first ? field & ~g.pair : field),
            level * slots_per_level + (field >> g.pair)};
  }
  // The flat slot of list `l`: with pairs, level k >= 2 starts at list 128 (k - 1), so slot
  // 64 k + field / 2 is (l + 128) / 2.
  static std::uint32_t slot_of_list(std::uint32_t l) noexcept {
    constexpr std::uint32_t unpaired = PairedFrom * slots_per_level;
    if constexpr (Pairs) return l < unpaired ? l : (l + unpaired) / 2;
    return l;
  }

  friend base;
  using base::heads_;
  using base::now_;
  using base::occ_;

  void place(list_hook& x) noexcept {
    const spot p = where(x.deadline < now_ ? now_ : x.deadline, Cascaded);
    list_hook& h = heads_[p.list];
    // A slot's bit is set by its lists' first timers, as the wheel sets it: the same code for one
    // list a slot and for two, whose difference is then the tables' contents alone.
    if (h.prev == &h) occ_.set(p.slot);
    base::push_back(h, x);
  }
  static void insert_after(list_hook& at, list_hook& x) noexcept {
    x.prev = &at;
    x.next = at.next;
    at.next->prev = &x;
    at.next = &x;
  }
  // List `l` has just emptied: its slot's bit goes when the slot's other list is empty too.
  void emptied(std::uint32_t l) noexcept {
    if constexpr (Pairs) {
      // The pair's lists are 2j and 2j + 1 (every level's first list is even).
      const list_hook& other = heads_[l ^ 1];
      if (l >= PairedFrom * slots_per_level && other.next != &other) return;
    }
    occ_.clear(slot_of_list(l));
  }

  template <class F>
  [[gnu::noinline]] std::size_t fire(std::uint32_t flat, F& f) {
    list_hook& h = heads_[flat];  // level 0: list index == flat index
    list_hook* p = h.next;
    h.next = h.prev = &h;
    occ_.clear(flat);
    std::size_t fired = 0;
    while (p != &h) {
      list_hook* const next = p->next;
      p->prev = nullptr;
      f(this->index_of(p));
      ++fired;
      p = next;
    }
    return fired;
  }

  // One list being cascaded: [front, back] left to walk, in list order.
  struct walk {
    list_hook* front = nullptr;
    list_hook* back = nullptr;
    bool done = true;
  };
  static walk take(list_hook& h) noexcept {
    walk w;
    if (h.next == &h) return w;
    w = {h.next, h.prev, false};
    h.next = h.prev = &h;
    return w;
  }

  // Per target list (the lists of the levels below): where the front walk of a list puts its
  // next timer, in the list's front part; and for slot_walks4c, whose schedules join a slot's
  // first list behind what its second list's timers came down with, the first timer the back
  // walk of a first list put in the list's back part (nullptr: none yet). A target list gets
  // its front part (second lists' timers: front walks', then back walks'), then its back part
  // (first lists': front walks', then back walks').
  struct points {
    std::array<list_hook*, list_count> after;
    std::array<list_hook*, list_count> back;
  };

  void place_in(points& pt, list_hook& x, bool front, bool behind) noexcept {
    const spot p = where(x.deadline);
    occ_.set(p.slot);
    if (!behind) {
      insert_after(*pt.after[p.list], x);
      if (front) pt.after[p.list] = &x;
      return;
    }
    list_hook*& first_back = pt.back[p.list];
    if (first_back != nullptr)
      insert_after(*first_back->prev, x);
    else
      base::push_back(heads_[p.list], x);
    if (!front) first_back = &x;
  }
  // One step of each end of `w`; `behind`: into the target lists' back parts.
  void step(points& pt, walk& w, bool behind) noexcept {
    list_hook* const ahead = w.front->next;
    list_hook* const back = w.back->prev;
    place_in(pt, *w.back, false, behind);
    if (w.front == w.back) {
      w.done = true;
      return;
    }
    place_in(pt, *w.front, true, behind);
    if (ahead == w.back) {
      w.done = true;
      return;
    }
    w.front = ahead;
    w.back = back;
  }

  [[gnu::noinline]] void cascade(std::uint32_t flat) noexcept {
    const unsigned level = flat / slots_per_level;
    const std::uint32_t first = first_list(flat);
    walk a = take(heads_[first]);
    walk b = lists_of(flat) == 2 ? take(heads_[first + 1]) : walk{};
    occ_.clear(flat);
    points pt;
    for (std::uint32_t l = 0; l < list_base[level]; ++l) pt.after[l] = &heads_[l];
    if constexpr (Cascaded)
      for (std::uint32_t l = 0; l < list_base[level]; ++l) pt.back[l] = nullptr;
    while (!a.done && !b.done) {
      step(pt, a, Cascaded);
      step(pt, b, false);
    }
    while (!a.done) step(pt, a, Cascaded);
    while (!b.done) step(pt, b, false);
  }

  static_assert(list_count == walk_lists(PairedFrom));
};

}  // namespace timerwheel_bench::slots
