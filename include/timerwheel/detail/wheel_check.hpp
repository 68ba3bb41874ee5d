// wheel::check_invariants(): every invariant of the wheel (docs/design.md,
// "Invariants") checked against a plain recomputation from the timers it
// holds. Tests and the fuzzer call it after every step. Included at the end
// of wheel.hpp; not a header of its own.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "abi.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI {

template <class Config>
void wheel<Config>::check_invariants() const {
  const auto fail = [](const char* what) {
    throw std::logic_error(std::string("timerwheel: invariant broken: ") + what);
  };
  const auto check_links = [&](const link& sentinel) {
    const std::size_t n = detail::list_length(sentinel);
    if (n == detail::list_broken) fail("a list's links disagree");
    return n;
  };
  const bool any = !wheel_empty();
  if (any && behind(lower_bound_)) fail("the lower bound of the next event is behind now");
  if (!layout::wraps && shell_.queued() && lower_bound_ != now_)
    fail("timers are queued but an advance could skip them");
  std::size_t held = 0;
  std::uint64_t levels_seen = 0;
  std::uint64_t spares_seen = 0;
  for (unsigned level = 0; level < layout::count; ++level) {
    for (const bool active : {true, false}) {
      const std::size_t first = active ? base(level) : spare_base(level);
      // A spare bank holds the block of the next slot of the level above.
      const bool spare_in_use =
          !active && level + 1 < layout::count && next_slot(level + 1) != no_slot;
      const tick_type block = spare_in_use ? next_start(level + 1) : tick_type{};
      std::uint64_t summary = 0;
      for (std::size_t word = first / 64; word < first / 64 + layout::words[level]; ++word) {
        for (unsigned b = 0; b < 64; ++b) {
          const std::size_t index = word * 64 + b;
          const link& sentinel = held_in(index);
          // A diverted slot that takes new timers holds them in its own
          // list, with its mark.
          const bool takes = &sentinel != &slots_[index] && arrivals_.marked(level);
          std::size_t arrivals = 0;
          if (takes) {
            bool found = false;
            for (const link* p = slots_[index].next; p != &slots_[index]; p = p->next)
              found = found || p == &arrivals_.mark(level);
            if (!found) fail("a diverted slot that takes new timers lacks its mark");
            arrivals = check_links(slots_[index]) - 1;
          } else if (&sentinel != &slots_[index] && check_links(slots_[index]) != 0) {
            fail("a diverted slot's own list holds timers");
          }
          // A keeper, in the own list of a slot of level 2's active bank
          // that has not started and is not diverted.
          const bool kept = keepers_.kept(index);
          if (kept) {
            if (&sentinel != &slots_[index]) fail("a diverted slot holds its keeper");
            if (!active || slot_number(now_, level) >= index - first)
              fail("a slot that has started holds its keeper");
            std::size_t found = 0;
            for (const link* p = sentinel.next; p != &sentinel; p = p->next)
              found += keepers_.is_keeper(p) ? 1 : 0;
            if (found != 1) fail("a slot that keeps its keeper does not hold it once");
            if (distance(slot_start(level, static_cast<unsigned>(index - first))) <
                distance(lower_bound_))
              fail("the lower bound is after a kept slot's start");
          }
          // The timers the front walk of the level above (and the walks of
          // its lead lists) moved towards it, which its occupancy bit does
          // not count.
          const std::array<const link*, 3> runs{front_of(index), front_of(index, run::lead_front),
                                                front_of(index, run::lead_back)};
          std::size_t moved = 0;
          for (const link* front : runs)
            if (front != nullptr) moved += check_links(*front);
          if (moved != 0 && (diverted_.levels() >> (level + 1) & 1) == 0)
            fail("a front list holds timers of a level that is not diverted");
          if (moved != 0 && (fronts_.used(level + 1) >> (index - first) & 1) == 0)
            fail("a front list holds timers its bit does not say");
          // The lead list of a slot of level 2, which its bit counts; while
          // the slot is diverted, its timers waiting apart.
          const link* lead = leads_.of(index);
          const std::size_t early = lead == nullptr ? 0 : check_links(*lead);
          if (early != 0 && &sentinel != &slots_[index]) fail("a diverted slot keeps a lead list");
          if (&slots_[index] == diverted_.slot(leads::level)) lead = &diverted_.lead_waiting();
          const std::size_t lead_timers = lead == nullptr ? 0 : check_links(*lead);
          const std::size_t own = check_links(sentinel) - (kept ? 1 : 0) + lead_timers + arrivals;
          const std::size_t n = own + moved;
          const bool marked = occupied_.test(index);
          if (marked != (own != 0 || takes || kept))
            fail("an occupancy bit disagrees with its slot");
          if (n != 0 && index - first > layout::slot_mask[level])
            fail("a timer sits in a slot beyond its level");
          if (n != 0 && !active && !spare_in_use) fail("a spare bank holds timers of no block");
          const auto timers = [&](const auto& visit) {
            for (const link* p = sentinel.next; p != &sentinel; p = p->next)
              if (!keepers_.is_keeper(p)) visit(p);
            if (takes)
              for (const link* p = slots_[index].next; p != &slots_[index]; p = p->next)
                if (p != &arrivals_.mark(level)) visit(p);
            for (const link* front : runs)
              if (front != nullptr)
                for (const link* p = front->next; p != front; p = p->next) visit(p);
            if (lead_timers != 0)
              for (const link* p = lead->next; p != lead; p = p->next) visit(p);
          };
          timers([&](const link* p) {
            const tick_type d = deadline_of(*p);
            if (behind(d)) fail("a waiting timer's deadline is behind now");
            if (active) {
              if (level_of(d) != level) fail("a timer sits at the wrong level");
              if (slot_index(level, slot_number(d, level)) != index)
                fail("a timer sits in the wrong slot");
              const tick_type event = event_of(d, level);
              if (distance(event) < distance(lower_bound_))
                fail("the lower bound is after a slot's start");
            } else {
              if (event_of(d, level + 1) != block)
                fail("a spare bank holds a timer outside its block");
              if (first + slot_of(d, level) != index) fail("a timer sits in the wrong spare slot");
              if (distance(block) < distance(lower_bound_))
                fail("the lower bound is after a spare bank's block");
            }
          });
          held += n;
        }
        if (occupied_.word(word) != 0) summary |= std::uint64_t{1} << layout::word_in_bank[word];
      }
      if (!layout::single_word && summary != occupied_.summary(layout::bank_of_word[first / 64]))
        fail("a bank's summary disagrees with its words");
      if (summary != 0) (active ? levels_seen : spares_seen) |= std::uint64_t{1} << level;
    }
  }
  if (levels_seen != active_levels_) fail("the mask of non-empty levels disagrees");
  for (std::size_t s = 0; s < decltype(keepers_)::count; ++s)
    if ((keepers_.of(s).next != nullptr) != keepers_.kept(decltype(keepers_)::first + s))
      fail("the mask of kept slots disagrees with their keepers");
  if (spares_seen != spare_levels_) fail("the mask of spare banks in use disagrees");
  if ((fronts_.levels() & ~diverted_.levels()) != 0)
    fail("a level that is not diverted keeps front lists");
  for (unsigned level = 1; level < layout::count; ++level)
    if (((fronts_.levels() >> level & 1) != 0) != (fronts_.used(level) != 0))
      fail("the mask of levels with front lists disagrees with their bits");
  for (unsigned level = 0; level < layout::count; ++level) {
    const bool diverted = (diverted_.levels() >> level & 1) != 0;
    if (diverted != (diverted_.slot(level) != nullptr))
      fail("the mask of diverted slots disagrees");
    const bool takes = arrivals_.marked(level);
    if (takes != (arrivals_.mark(level).next != nullptr))
      fail("the mask of diversions that take new timers disagrees with their marks");
    if (takes && !diverted) fail("a slot that is not diverted keeps a mark");
    if (!diverted && check_links(diverted_.waiting(level)) != 0)
      fail("timers are left of a slot that is not diverted");
    if (level == leads::level && !diverted && check_links(diverted_.lead_waiting()) != 0)
      fail("timers are left of a lead list that is not diverted");
    if (!diverted) continue;
    if (level == 0 || diverted_.slot(level) != slots_.data() + next_slot(level))
      fail("a diverted slot is not its level's next slot");
    if (any && distance(next_start(level)) < distance(lower_bound_))
      fail("the lower bound is after a diverted slot's start");
  }
  const std::size_t far = check_links(far_);
  if (far != 0 && !layout::has_far) fail("a far list in a configuration that covers its ticks");
  for (const link* p = far_.next; p != &far_; p = p->next) {
    const tick_type d = deadline_of(*p);
    if (behind(d)) fail("a far timer's deadline is behind now");
    if (level_of(d) != layout::count) fail("a far timer belongs in the levels");
    if (distance(d) < distance(far_lower_bound_)) fail("the far lower bound is after a far timer");
    const tick_type event = event_of(d, layout::count);
    if (distance(event) < distance(lower_bound_))
      fail("the lower bound is after a far block's start");
  }
  held += far + shell_.check([](const hook_type&) {}, fail);
  if (layout::counted && held != size_) fail("size disagrees with the timers held");
  if (empty() != (held == 0)) fail("empty() disagrees with the timers held");
}

}  // namespace timerwheel::inline TIMERWHEEL_ABI
