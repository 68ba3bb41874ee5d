// Prototype (c): lists for churn, arrays for cascades. The placement of placement.hpp; the slots
// of levels ListFrom and above are lists, as in slot_lists.hpp (where almost every timer of a
// churning workload is scheduled, and cancelled before it comes down), the slots of the levels
// below are arrays of {deadline, node*}, as in slot_arrays.hpp (where every timer that fires
// arrives by cascades, which then read entries and overlap their node stores). A timer walks a
// list once, when its list slot cascades into the arrays; every later cascade, and the expiry,
// reads an array.
//
// The hook stays at 24 bytes: in a list its words are {next, prev, deadline}; in an array
// {slot and index, the tag 1 where prev would be, deadline}; not pending, prev is null.
// Tombstones and compaction as in slot_arrays.hpp (exact FIFO among equal deadlines).
// Benchmark-only: callbacks of advance must not schedule or cancel (the workloads here do not).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <optional>
#include <stdexcept>
#include <vector>

#include "../adapters/common.hpp"
#include "placement.hpp"

namespace timerwheel_bench::slots {

struct hybrid_hook {
  // In a list: the next node. In an array: the slot (low half) and the index (high half).
  std::uintptr_t link = 0;
  // In a list: the previous node. In an array: in_array. Not pending: 0.
  std::uintptr_t prev = 0;
  std::uint64_t deadline = 0;
};

template <unsigned ListFrom>
struct hybrid_name;
template <>
struct hybrid_name<2> {
  static constexpr const char* value = "slot_hybrid2";
};
template <>
struct hybrid_name<3> {
  static constexpr const char* value = "slot_hybrid3";
};

template <unsigned ListFrom>
class slot_hybrid {
 public:
  using node = basic_node<hybrid_hook>;
  static constexpr const char* name = hybrid_name<ListFrom>::value;
  static constexpr std::size_t hook_bytes = sizeof(hybrid_hook);
  static constexpr std::uint32_t first_list_slot = ListFrom * slots_per_level;
  static constexpr std::uint32_t ahead = 8;
  static constexpr std::uintptr_t in_array = 1;

  explicit slot_hybrid(std::size_t n) : nodes_(n) {
    for (hybrid_hook& h : heads_) h.link = h.prev = addr(&h);
  }
  slot_hybrid(const slot_hybrid&) = delete;
  slot_hybrid& operator=(const slot_hybrid&) = delete;
  ~slot_hybrid() {
    for (slot_array& a : arrays_) ::operator delete(a.data);
  }

  bench_payload& payload(std::uint32_t i) noexcept { return nodes_[i].payload; }
  const bench_payload& payload(std::uint32_t i) const noexcept { return nodes_[i].payload; }

  void schedule(std::uint32_t i, std::uint64_t deadline) {
    node& x = nodes_[i];
    x.payload.requested = deadline;
    if (x.prev != 0) remove(x);
    x.deadline = deadline;
    place(x);
  }

  bool cancel(std::uint32_t i) noexcept {
    node& x = nodes_[i];
    if (x.prev == 0) return false;
    remove(x);
    return true;
  }

  template <class F>
  std::size_t advance(std::uint64_t to, F&& f) {
    return advance_slots(
        occ_, now_, to, [&](std::uint32_t flat) { return fire(flat, f); },
        [this](std::uint32_t flat) {
          if (flat < first_list_slot)
            cascade_array(flat);
          else
            cascade_list(flat);
        });
  }

  std::size_t size() const noexcept {
    std::size_t n = 0;
    for (const slot_array& a : arrays_) n += a.live;
    for (const hybrid_hook& h : heads_)
      for (std::uintptr_t p = h.link; p != addr(&h); p = hook_at(p)->link) ++n;
    return n;
  }
  bool pending(std::uint32_t i) const noexcept { return nodes_[i].prev != 0; }
  std::uint64_t hook_deadline(std::uint32_t i) const noexcept { return nodes_[i].deadline; }
  std::size_t held_bytes() const noexcept {
    std::size_t n = 0;
    for (const slot_array& a : arrays_) n += std::size_t{a.cap} * sizeof(entry);
    return n;
  }

  std::optional<std::uint64_t> next_deadline() const noexcept {
    if (occ_.empty()) return std::nullopt;
    std::uint64_t start = 0;
    const std::uint32_t flat = occ_.next(now_, start);
    if (flat < slots_per_level) return start;
    std::uint64_t best = std::numeric_limits<std::uint64_t>::max();
    if (flat < first_list_slot) {
      const slot_array& a = arrays_[flat];
      for (std::uint32_t k = 0; k < a.size; ++k)
        if (a.data[k].node != nullptr) best = std::min(best, a.data[k].deadline);
    } else {
      const hybrid_hook& h = heads_[flat - first_list_slot];
      for (std::uintptr_t p = h.link; p != addr(&h); p = hook_at(p)->link)
        best = std::min(best, hook_at(p)->deadline);
    }
    return best;
  }

  void check_invariants() const {
    for (std::uint32_t s = 0; s < first_list_slot; ++s) {
      const slot_array& a = arrays_[s];
      if ((a.live != 0) != occ_.test(s)) throw std::logic_error("slot_hybrid: occupancy bit");
      if (a.live == 0 && a.size != 0) throw std::logic_error("slot_hybrid: empty slot not reset");
      std::uint32_t live = 0;
      for (std::uint32_t k = 0; k < a.size; ++k) {
        const entry& e = a.data[k];
        if (e.node == nullptr) continue;
        ++live;
        if (e.node->prev != in_array || e.node->link != pack(s, k) ||
            e.node->deadline != e.deadline)
          throw std::logic_error("slot_hybrid: node and entry disagree");
        if (e.deadline < now_ || flat_slot(e.deadline, now_) != s)
          throw std::logic_error("slot_hybrid: a timer off its slot");
      }
      if (live != a.live) throw std::logic_error("slot_hybrid: live count");
    }
    for (std::uint32_t s = first_list_slot; s < slot_count; ++s) {
      const hybrid_hook& h = heads_[s - first_list_slot];
      if ((h.link != addr(&h)) != occ_.test(s)) throw std::logic_error("slot_hybrid: list bit");
      for (std::uintptr_t p = h.link; p != addr(&h); p = hook_at(p)->link) {
        const hybrid_hook* x = hook_at(p);
        if (hook_at(x->link)->prev != p) throw std::logic_error("slot_hybrid: links disagree");
        if (x->deadline < now_ || flat_slot(x->deadline, now_) != s)
          throw std::logic_error("slot_hybrid: a timer off its slot");
      }
    }
  }

 private:
  struct entry {
    std::uint64_t deadline;
    hybrid_hook* node;  // nullptr: a tombstone
  };
  struct slot_array {
    entry* data = nullptr;
    std::uint32_t size = 0;
    std::uint32_t cap = 0;
    std::uint32_t live = 0;
  };

  static std::uintptr_t addr(const hybrid_hook* h) noexcept {
    return reinterpret_cast<std::uintptr_t>(h);
  }
  static hybrid_hook* hook_at(std::uintptr_t p) noexcept {
    return reinterpret_cast<hybrid_hook*>(p);
  }
  static std::uintptr_t pack(std::uint32_t slot, std::uint32_t pos) noexcept {
    return slot | (static_cast<std::uintptr_t>(pos) << 32);
  }
  bool is_head(std::uintptr_t p) const noexcept {
    return p >= addr(heads_.data()) && p < addr(heads_.data() + heads_.size());
  }

  void place(hybrid_hook& x) {
    const std::uint32_t flat = flat_slot(x.deadline < now_ ? now_ : x.deadline, now_);
    if (flat >= first_list_slot) [[likely]] {
      hybrid_hook& h = heads_[flat - first_list_slot];
      x.link = addr(&h);
      x.prev = h.prev;
      hook_at(h.prev)->link = addr(&x);
      h.prev = addr(&x);
      occ_.set(flat);
    } else {
      append(flat, x.deadline, x);
    }
  }
  void append(std::uint32_t flat, std::uint64_t deadline, hybrid_hook& x) {
    slot_array& a = arrays_[flat];
    if (a.size == a.cap) [[unlikely]]
      grow(a);
    a.data[a.size] = entry{deadline, &x};
    x.link = pack(flat, a.size++);
    x.prev = in_array;
    if (a.live++ == 0) occ_.set(flat);
  }
  [[gnu::noinline]] static void grow(slot_array& a) {
    const std::uint32_t cap = a.cap == 0 ? 16 : a.cap * 2;
    auto* const data = static_cast<entry*>(::operator new(sizeof(entry) * cap));
    if (a.size != 0) std::memcpy(data, a.data, sizeof(entry) * a.size);
    ::operator delete(a.data);
    a.data = data;
    a.cap = cap;
  }
  void remove(hybrid_hook& x) noexcept {
    if (x.prev != in_array) [[likely]] {
      const std::uintptr_t n = x.link;
      const std::uintptr_t p = x.prev;
      hook_at(p)->link = n;
      hook_at(n)->prev = p;
      x.prev = 0;
      if (n == p && is_head(n)) [[unlikely]]
        occ_.clear(first_list_slot + static_cast<std::uint32_t>(hook_at(n) - heads_.data()));
      return;
    }
    const std::uint32_t flat = static_cast<std::uint32_t>(x.link);
    slot_array& a = arrays_[flat];
    a.data[x.link >> 32].node = nullptr;
    x.prev = 0;
    if (--a.live == 0) {
      a.size = 0;
      occ_.clear(flat);
    } else if (a.size - a.live > a.live && a.size >= 64) [[unlikely]] {
      compact(a, flat);
    }
  }
  // Branch-free, as slot_arrays::compact.
  [[gnu::noinline]] static void compact(slot_array& a, std::uint32_t flat) noexcept {
    hybrid_hook sink;
    std::uint32_t j = 0;
    for (std::uint32_t k = 0; k < a.size; ++k) {
      const entry e = a.data[k];
      a.data[j] = e;
      // The node, or the sink for a tombstone, chosen by a mask: a conditional here was
      // compiled to a branch.
      const std::uintptr_t keep = std::uintptr_t{0} - (e.node != nullptr);
      reinterpret_cast<hybrid_hook*>((reinterpret_cast<std::uintptr_t>(e.node) & keep) |
                                     (reinterpret_cast<std::uintptr_t>(&sink) & ~keep))
          ->link = pack(flat, j);
      j += e.node != nullptr;
    }
    a.size = j;
  }

  template <class F>
  [[gnu::noinline]] std::size_t fire(std::uint32_t flat, F& f) {
    slot_array& a = arrays_[flat];
    const std::uint32_t n = a.size;
    const entry* const data = a.data;
    for (std::uint32_t k = 0; k < n && k < ahead; ++k)
      if (data[k].node != nullptr) __builtin_prefetch(data[k].node, 1);
    std::size_t fired = 0;
    for (std::uint32_t k = 0; k < n; ++k) {
      if (k + ahead < n && data[k + ahead].node != nullptr)
        __builtin_prefetch(data[k + ahead].node, 1);
      hybrid_hook* const x = data[k].node;
      if (x == nullptr) continue;
      x->prev = 0;
      f(static_cast<std::uint32_t>(static_cast<node*>(x) - nodes_.data()));
      ++fired;
    }
    a.size = a.live = 0;
    occ_.clear(flat);
    const std::uint64_t rest = flat + 1 < 64 ? occ_.word(0) & (~std::uint64_t{0} << (flat + 1)) : 0;
    if (rest != 0) {
      const slot_array& b = arrays_[static_cast<unsigned>(std::countr_zero(rest))];
      for (std::uint32_t k = 0; k < b.size && k < ahead; ++k)
        if (b.data[k].node != nullptr) __builtin_prefetch(b.data[k].node, 1);
    }
    return fired;
  }
  [[gnu::noinline]] void cascade_array(std::uint32_t flat) {
    slot_array& a = arrays_[flat];
    const std::uint32_t n = a.size;
    const entry* const data = a.data;
    for (std::uint32_t k = 0; k < n && k < ahead; ++k)
      if (data[k].node != nullptr) __builtin_prefetch(data[k].node, 1);
    for (std::uint32_t k = 0; k < n; ++k) {
      if (k + ahead < n && data[k + ahead].node != nullptr)
        __builtin_prefetch(data[k + ahead].node, 1);
      const entry e = data[k];
      if (e.node == nullptr) continue;
      append(flat_slot(e.deadline, now_), e.deadline, *e.node);
    }
    a.size = a.live = 0;
    occ_.clear(flat);
  }
  [[gnu::noinline]] void cascade_list(std::uint32_t flat) {
    hybrid_hook& h = heads_[flat - first_list_slot];
    const std::uintptr_t end = addr(&h);
    std::uintptr_t p = h.link;
    h.link = h.prev = end;
    occ_.clear(flat);
    while (p != end) {
      hybrid_hook* const x = hook_at(p);
      p = x->link;
      place(*x);
    }
  }

  std::vector<node> nodes_;
  std::array<slot_array, first_list_slot> arrays_{};
  std::array<hybrid_hook, slot_count - first_list_slot> heads_;
  occupancy occ_;
  std::uint64_t now_ = 0;
};

}  // namespace timerwheel_bench::slots
