// Prototype (a): the placement of placement.hpp with every slot an intrusive circular doubly
// linked list with a sentinel, as the wheel keeps them: a 24-byte hook (two links and the
// deadline), cancel by unlinking (the emptied slot found by its sentinel's address), cascades and
// expiry walking the list front to back, each next node's address read from the node in hand.
// Benchmark-only: callbacks of advance must not schedule or cancel (the workloads here do not).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

#include "../adapters/common.hpp"
#include "placement.hpp"

namespace timerwheel_bench::slots {

struct list_hook {
  list_hook* next = nullptr;
  list_hook* prev = nullptr;  // nullptr: not pending
  std::uint64_t deadline = 0;
};

// What the list prototypes share (this one and slot_walks.hpp): the nodes, `Lists` sentinels, the
// occupancy words and now, and the calls that only reach them. `Derived` places a timer
// (`place(list_hook&)`, its deadline set, at or after now), says what a list emptied by a cancel
// changes (`emptied(list)`), where a slot's lists are (`lists_of_slot(flat)`), and fires
// (`fire(flat, f)`) or cascades (`cascade(flat)`) a slot that starts.
template <class Derived, std::size_t Lists>
class list_prototype {
 public:
  using node = basic_node<list_hook>;
  static constexpr std::size_t hook_bytes = sizeof(list_hook);

  explicit list_prototype(std::size_t n) : nodes_(n) {
    for (list_hook& h : heads_) h.next = h.prev = &h;
  }
  list_prototype(const list_prototype&) = delete;
  list_prototype& operator=(const list_prototype&) = delete;

  bench_payload& payload(std::uint32_t i) noexcept { return nodes_[i].payload; }
  const bench_payload& payload(std::uint32_t i) const noexcept { return nodes_[i].payload; }

  void schedule(std::uint32_t i, std::uint64_t deadline) noexcept {
    node& x = nodes_[i];
    x.payload.requested = deadline;
    if (x.prev != nullptr) unlink(x);
    x.deadline = deadline;
    self().place(x);
  }

  bool cancel(std::uint32_t i) noexcept {
    node& x = nodes_[i];
    if (x.prev == nullptr) return false;
    unlink(x);
    return true;
  }

  template <class F>
  std::size_t advance(std::uint64_t to, F&& f) {
    return advance_slots(
        occ_, now_, to, [&](std::uint32_t flat) { return self().fire(flat, f); },
        [this](std::uint32_t flat) { self().cascade(flat); });
  }

  std::size_t size() const noexcept {
    std::size_t n = 0;
    for (const list_hook& h : heads_)
      for (const list_hook* p = h.next; p != &h; p = p->next) ++n;
    return n;
  }
  bool pending(std::uint32_t i) const noexcept { return nodes_[i].prev != nullptr; }
  std::uint64_t hook_deadline(std::uint32_t i) const noexcept { return nodes_[i].deadline; }

  // The next slot's start where it is of level 0, else the earliest deadline in its lists.
  std::optional<std::uint64_t> next_deadline() const noexcept {
    if (occ_.empty()) return std::nullopt;
    std::uint64_t start = 0;
    const std::uint32_t flat = occ_.next(now_, start);
    if (flat < slots_per_level) return start;
    std::uint64_t best = std::numeric_limits<std::uint64_t>::max();
    const auto [first, count] = Derived::lists_of_slot(flat);
    for (std::uint32_t l = first; l < first + count; ++l)
      for (const list_hook* p = heads_[l].next; p != &heads_[l]; p = p->next)
        best = std::min(best, p->deadline);
    return best;
  }

 protected:
  // The lists of a slot: the first's index and how many.
  struct lists {
    std::uint32_t first;
    std::uint32_t count;
  };

  static void push_back(list_hook& h, list_hook& x) noexcept {
    x.next = &h;
    x.prev = h.prev;
    h.prev->next = &x;
    h.prev = &x;
  }
  void unlink(list_hook& x) noexcept {
    list_hook* const n = x.next;
    list_hook* const p = x.prev;
    p->next = n;
    n->prev = p;
    x.prev = nullptr;
    if (n == p && n >= heads_.data() && n < heads_.data() + Lists) [[unlikely]]
      self().emptied(static_cast<std::uint32_t>(n - heads_.data()));
  }
  // The timer of node `p`, by its index.
  std::uint32_t index_of(list_hook* p) const noexcept {
    return static_cast<std::uint32_t>(static_cast<node*>(p) - nodes_.data());
  }

  std::vector<node> nodes_;
  std::array<list_hook, Lists> heads_;
  occupancy occ_;
  std::uint64_t now_ = 0;

 private:
  Derived& self() noexcept { return static_cast<Derived&>(*this); }
};

class slot_lists : public list_prototype<slot_lists, slot_count> {
 public:
  static constexpr const char* name = "slot_lists";

  explicit slot_lists(std::size_t n) : list_prototype(n) {}

  std::size_t held_bytes() const noexcept { return 0; }

  void check_invariants() const {
    for (std::uint32_t s = 0; s < slot_count; ++s) {
      const list_hook& h = heads_[s];
      if ((h.next != &h) != occ_.test(s)) throw std::logic_error("slot_lists: occupancy bit");
      std::uint64_t last = 0;
      for (const list_hook* p = h.next; p != &h; p = p->next) {
        if (p->next->prev != p) throw std::logic_error("slot_lists: links disagree");
        if (p->deadline < now_ || flat_slot(p->deadline, now_) != s)
          throw std::logic_error("slot_lists: a timer off its slot");
        if (s < slots_per_level && p != h.next && p->deadline != last)
          throw std::logic_error("slot_lists: a level-0 slot with two deadlines");
        last = p->deadline;
      }
    }
  }

 private:
  friend list_prototype;

  static lists lists_of_slot(std::uint32_t flat) noexcept { return {flat, 1}; }

  void place(list_hook& x) noexcept {
    const std::uint32_t flat = flat_slot(x.deadline < now_ ? now_ : x.deadline, now_);
    push_back(heads_[flat], x);
    occ_.set(flat);
  }
  void emptied(std::uint32_t flat) noexcept { occ_.clear(flat); }
  // Detaches the slot's list whole; returns its first node (the sentinel when empty).
  list_hook* take(std::uint32_t flat) noexcept {
    list_hook& h = heads_[flat];
    list_hook* const first = h.next;
    // The last node's next is the sentinel, which the walk stops at.
    h.next = h.prev = &h;
    occ_.clear(flat);
    return first;
  }
  template <class F>
  [[gnu::noinline]] std::size_t fire(std::uint32_t flat, F& f) {
    list_hook* const end = &heads_[flat];
    std::size_t fired = 0;
    for (list_hook* p = take(flat); p != end;) {
      list_hook* const next = p->next;
      p->prev = nullptr;
      f(index_of(p));
      ++fired;
      p = next;
    }
    return fired;
  }
  [[gnu::noinline]] void cascade(std::uint32_t flat) noexcept {
    list_hook* const end = &heads_[flat];
    for (list_hook* p = take(flat); p != end;) {
      list_hook* const next = p->next;
      place(*p);
      p = next;
    }
  }
};

}  // namespace timerwheel_bench::slots
