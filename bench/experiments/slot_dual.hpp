// Prototype (d): lists for churn, arrays for cascades, in every slot. The placement of
// placement.hpp; every slot has two parts: a list (as in slot_lists.hpp), which every schedule
// appends to, and an array of {deadline, node*} (as in slot_arrays.hpp), which only cascades
// append to. A timer scheduled and cancelled before its slot starts (almost every timer of a
// churning workload) never leaves its list; one that comes down is walked out of its list once,
// by its first cascade (or its expiry), and from then on sits in arrays, read without waiting on
// its node.
//
// Order: a cascade fills slots that are entirely empty (every level below the cascading one is),
// taking the source's array part first, then its list part; a schedule appends to the list part.
// So in every slot the array part is older than the list part, each part is in scheduling order
// (tombstones, as in slot_arrays.hpp, keep the array's order), and taking the array part first,
// then the list part, in a cascade and in an expiry keeps exact FIFO among equal deadlines.
//
// The hook stays at 24 bytes, as in slot_hybrid.hpp: {next, prev, deadline} in a list, {slot and
// index, the tag 1, deadline} in an array, prev null when not pending. The schedule's path is the
// list's; a cancel tests the tag, which under churn is almost always "list".
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
#include "slot_hybrid.hpp"

namespace timerwheel_bench::slots {

template <bool TwoEnded>
struct dual_name {
  static constexpr const char* value = "slot_dual";
};
template <>
struct dual_name<true> {
  static constexpr const char* value = "slot_dual2";
};

// TwoEnded: a cascade gathers its list part from both ends at once (two independent chains of
// loads, as the wheel's level-1 cascade walks), into a scratch vector, then places the timers in
// order; otherwise it walks the list from the front, placing each timer as it goes.
template <bool TwoEnded>
class slot_dual {
 public:
  using node = basic_node<hybrid_hook>;
  static constexpr const char* name = dual_name<TwoEnded>::value;
  static constexpr std::size_t hook_bytes = sizeof(hybrid_hook);
  static constexpr std::uint32_t ahead = 8;
  static constexpr std::uintptr_t in_array = 1;

  explicit slot_dual(std::size_t n) : nodes_(n) {
    for (hybrid_hook& h : heads_) h.link = h.prev = addr(&h);
  }
  slot_dual(const slot_dual&) = delete;
  slot_dual& operator=(const slot_dual&) = delete;
  ~slot_dual() {
    for (slot_array& a : arrays_) ::operator delete(a.data);
  }

  bench_payload& payload(std::uint32_t i) noexcept { return nodes_[i].payload; }
  const bench_payload& payload(std::uint32_t i) const noexcept { return nodes_[i].payload; }

  void schedule(std::uint32_t i, std::uint64_t deadline) noexcept {
    node& x = nodes_[i];
    x.payload.requested = deadline;
    if (x.prev != 0) remove(x);
    x.deadline = deadline;
    const std::uint32_t flat = flat_slot(deadline < now_ ? now_ : deadline, now_);
    hybrid_hook& h = heads_[flat];
    x.link = addr(&h);
    x.prev = h.prev;
    hook_at(h.prev)->link = addr(&x);
    h.prev = addr(&x);
    occ_.set(flat);
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
        [this](std::uint32_t flat) { cascade(flat); });
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
  // Bytes of the slot arrays' capacity and of the two-ended walk's scratch vectors.
  std::size_t held_bytes() const noexcept {
    std::size_t n = (front_.capacity() + back_.capacity()) * sizeof(std::uintptr_t);
    for (const slot_array& a : arrays_) n += std::size_t{a.cap} * sizeof(entry);
    return n;
  }

  std::optional<std::uint64_t> next_deadline() const noexcept {
    if (occ_.empty()) return std::nullopt;
    std::uint64_t start = 0;
    const std::uint32_t flat = occ_.next(now_, start);
    if (flat < slots_per_level) return start;
    std::uint64_t best = std::numeric_limits<std::uint64_t>::max();
    const slot_array& a = arrays_[flat];
    for (std::uint32_t k = 0; k < a.size; ++k)
      if (a.data[k].node != nullptr) best = std::min(best, a.data[k].deadline);
    const hybrid_hook& h = heads_[flat];
    for (std::uintptr_t p = h.link; p != addr(&h); p = hook_at(p)->link)
      best = std::min(best, hook_at(p)->deadline);
    return best;
  }

  void check_invariants() const {
    for (std::uint32_t s = 0; s < slot_count; ++s) {
      const slot_array& a = arrays_[s];
      const hybrid_hook& h = heads_[s];
      const bool list = h.link != addr(&h);
      if ((a.live != 0 || list) != occ_.test(s)) throw std::logic_error("slot_dual: occupancy bit");
      if (a.live == 0 && a.size != 0) throw std::logic_error("slot_dual: empty array not reset");
      std::uint32_t live = 0;
      std::uint64_t last = 0;
      for (std::uint32_t k = 0; k < a.size; ++k) {
        const entry& e = a.data[k];
        if (e.node == nullptr) continue;
        ++live;
        if (e.node->prev != in_array || e.node->link != pack(s, k) ||
            e.node->deadline != e.deadline)
          throw std::logic_error("slot_dual: node and entry disagree");
        if (e.deadline < now_ || flat_slot(e.deadline, now_) != s)
          throw std::logic_error("slot_dual: a timer off its slot");
        last = e.deadline;
      }
      if (live != a.live) throw std::logic_error("slot_dual: live count");
      for (std::uintptr_t p = h.link; p != addr(&h); p = hook_at(p)->link) {
        const hybrid_hook* x = hook_at(p);
        if (hook_at(x->link)->prev != p) throw std::logic_error("slot_dual: links disagree");
        if (x->deadline < now_ || flat_slot(x->deadline, now_) != s)
          throw std::logic_error("slot_dual: a timer off its slot");
        last = x->deadline;
      }
      (void)last;
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
  bool list_empty(std::uint32_t flat) const noexcept {
    return heads_[flat].link == addr(&heads_[flat]);
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
      if (n == p && is_head(n)) [[unlikely]] {
        const auto flat = static_cast<std::uint32_t>(hook_at(n) - heads_.data());
        if (arrays_[flat].live == 0) occ_.clear(flat);
      }
      return;
    }
    remove_entry(x);
  }
  [[gnu::noinline]] void remove_entry(hybrid_hook& x) noexcept {
    const std::uint32_t flat = static_cast<std::uint32_t>(x.link);
    slot_array& a = arrays_[flat];
    a.data[x.link >> 32].node = nullptr;
    x.prev = 0;
    if (--a.live == 0) {
      a.size = 0;
      if (list_empty(flat)) occ_.clear(flat);
    } else if (a.size - a.live > a.live && a.size >= 64) {
      compact(a, flat);
    }
  }
  // Branch-free, as slot_arrays::compact.
  static void compact(slot_array& a, std::uint32_t flat) noexcept {
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
  void prefetch_entries(const slot_array& a, std::uint32_t count) const noexcept {
    for (std::uint32_t k = 0; k < a.size && k < count; ++k)
      if (a.data[k].node != nullptr) __builtin_prefetch(a.data[k].node, 1);
  }
  template <class F>
  [[gnu::noinline]] std::size_t fire(std::uint32_t flat, F& f) {
    slot_array& a = arrays_[flat];
    const std::uint32_t n = a.size;
    const entry* const data = a.data;
    prefetch_entries(a, ahead);
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
    hybrid_hook& h = heads_[flat];
    const std::uintptr_t end = addr(&h);
    std::uintptr_t p = h.link;
    h.link = h.prev = end;
    while (p != end) {
      hybrid_hook* const x = hook_at(p);
      p = x->link;
      x->prev = 0;
      f(static_cast<std::uint32_t>(static_cast<node*>(x) - nodes_.data()));
      ++fired;
    }
    occ_.clear(flat);
    // The next occupied level-0 slot's first nodes, for the next advance that fires.
    const std::uint64_t rest = flat + 1 < 64 ? occ_.word(0) & (~std::uint64_t{0} << (flat + 1)) : 0;
    if (rest != 0) {
      const auto next = static_cast<std::uint32_t>(std::countr_zero(rest));
      prefetch_entries(arrays_[next], ahead);
      if (!list_empty(next)) __builtin_prefetch(hook_at(heads_[next].link), 1);
    }
    return fired;
  }
  [[gnu::noinline]] void cascade(std::uint32_t flat) {
    slot_array& a = arrays_[flat];
    const std::uint32_t n = a.size;
    const entry* const data = a.data;
    prefetch_entries(a, ahead);
    for (std::uint32_t k = 0; k < n; ++k) {
      if (k + ahead < n && data[k + ahead].node != nullptr)
        __builtin_prefetch(data[k + ahead].node, 1);
      const entry e = data[k];
      if (e.node == nullptr) continue;
      append(flat_slot(e.deadline, now_), e.deadline, *e.node);
    }
    a.size = a.live = 0;
    hybrid_hook& h = heads_[flat];
    const std::uintptr_t end = addr(&h);
    std::uintptr_t p = h.link;
    if constexpr (TwoEnded) {
      front_.clear();
      back_.clear();
      if (p != end) gather(p, h.prev);
      h.link = h.prev = end;
      for (const std::uintptr_t q : front_) place_in_array(*hook_at(q));
      for (auto q = back_.rbegin(); q != back_.rend(); ++q) place_in_array(*hook_at(*q));
    } else {
      h.link = h.prev = end;
      while (p != end) {
        hybrid_hook* const x = hook_at(p);
        p = x->link;
        place_in_array(*x);
      }
    }
    occ_.clear(flat);
  }
  void place_in_array(hybrid_hook& x) { append(flat_slot(x.deadline, now_), x.deadline, x); }
  // The list from `first` to `last` (non-empty) walked from both ends until they meet: front_
  // gets the first half in order, back_ the second half from the back.
  void gather(std::uintptr_t first, std::uintptr_t last) {
    std::uintptr_t f = first;
    std::uintptr_t b = last;
    for (;;) {
      front_.push_back(f);
      if (f == b) break;
      back_.push_back(b);
      f = hook_at(f)->link;
      if (f == b) break;
      b = hook_at(b)->prev;
      if (b == f) {
        front_.push_back(f);
        break;
      }
    }
  }

  std::vector<node> nodes_;
  std::array<slot_array, slot_count> arrays_{};
  std::array<hybrid_hook, slot_count> heads_;
  std::vector<std::uintptr_t> front_;
  std::vector<std::uintptr_t> back_;
  occupancy occ_;
  std::uint64_t now_ = 0;
};

}  // namespace timerwheel_bench::slots
