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

class slot_lists {
 public:
  using node = basic_node<list_hook>;
  static constexpr const char* name = "slot_lists";
  static constexpr std::size_t hook_bytes = sizeof(list_hook);

  explicit slot_lists(std::size_t n) : nodes_(n) {
    for (list_hook& h : heads_) h.next = h.prev = &h;
  }
  slot_lists(const slot_lists&) = delete;
  slot_lists& operator=(const slot_lists&) = delete;

  bench_payload& payload(std::uint32_t i) noexcept { return nodes_[i].payload; }
  const bench_payload& payload(std::uint32_t i) const noexcept { return nodes_[i].payload; }

  void schedule(std::uint32_t i, std::uint64_t deadline) noexcept {
    node& x = nodes_[i];
    x.payload.requested = deadline;
    if (x.prev != nullptr) unlink(x);
    x.deadline = deadline;
    place(x);
  }

  bool cancel(std::uint32_t i) noexcept {
    node& x = nodes_[i];
    if (x.prev == nullptr) return false;
    unlink(x);
    return true;
  }

  template <class F>
  std::size_t advance(std::uint64_t to, F&& f) {
    std::size_t fired = 0;
    while (!occ_.empty()) {
      std::uint64_t start = 0;
      const std::uint32_t flat = occ_.next(now_, start);
      if (start > to) break;
      now_ = start;
      if (flat < slots_per_level) {
        fired += fire(flat, f);
      } else {
        cascade(flat);
      }
    }
    if (to > now_) now_ = to;
    return fired;
  }

  std::size_t size() const noexcept {
    std::size_t n = 0;
    for (const list_hook& h : heads_)
      for (const list_hook* p = h.next; p != &h; p = p->next) ++n;
    return n;
  }
  bool pending(std::uint32_t i) const noexcept { return nodes_[i].prev != nullptr; }
  std::uint64_t hook_deadline(std::uint32_t i) const noexcept { return nodes_[i].deadline; }
  std::size_t held_bytes() const noexcept { return 0; }

  std::optional<std::uint64_t> next_deadline() const noexcept {
    if (occ_.empty()) return std::nullopt;
    std::uint64_t start = 0;
    const std::uint32_t flat = occ_.next(now_, start);
    if (flat < slots_per_level) return start;
    std::uint64_t best = std::numeric_limits<std::uint64_t>::max();
    for (const list_hook* p = heads_[flat].next; p != &heads_[flat]; p = p->next)
      best = std::min(best, p->deadline);
    return best;
  }

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
  bool is_head(const list_hook* p) const noexcept {
    return p >= heads_.data() && p < heads_.data() + slot_count;
  }
  void place(list_hook& x) noexcept {
    const std::uint32_t flat = flat_slot(x.deadline < now_ ? now_ : x.deadline, now_);
    list_hook& h = heads_[flat];
    x.next = &h;
    x.prev = h.prev;
    h.prev->next = &x;
    h.prev = &x;
    occ_.set(flat);
  }
  void unlink(list_hook& x) noexcept {
    list_hook* const n = x.next;
    list_hook* const p = x.prev;
    p->next = n;
    n->prev = p;
    x.prev = nullptr;
    if (n == p && is_head(n)) [[unlikely]]
      occ_.clear(static_cast<std::uint32_t>(n - heads_.data()));
  }
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
      f(static_cast<std::uint32_t>(static_cast<node*>(p) - nodes_.data()));
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

  std::vector<node> nodes_;
  std::array<list_hook, slot_count> heads_;
  occupancy occ_;
  std::uint64_t now_ = 0;
};

}  // namespace timerwheel_bench::slots
