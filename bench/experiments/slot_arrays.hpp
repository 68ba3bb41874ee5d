// Prototype (b): the placement of placement.hpp with every slot an array of {deadline, node*}
// entries, the node holding its slot and its index in that array (a 16-byte hook).
//
// - Cancel leaves a tombstone (the entry's node set to null), so the entries that remain keep
//   their scheduling order: exact FIFO among equal deadlines with no sequence number. A slot
//   whose tombstones outnumber its timers (at 64 entries or more) is compacted: the live entries
//   slide down in order and each node's index is rewritten. A slot emptied by cancels is
//   reset to length 0.
// - A cascade reads only the entries (the deadline is in the entry), appends each to its target
//   array and writes the node's new slot and index: stores into the nodes, independent of each
//   other, with the nodes a few entries ahead prefetched for writing; no load waits on a node.
// - Expiry walks the level-0 slot's entries with the nodes a few entries ahead prefetched, and
//   after firing a slot prefetches the first nodes of the next occupied level-0 slot.
// - Arrays grow by doubling (operator new, so that W4 counts them) and keep their capacity when
//   emptied.
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

struct array_hook {
  std::uint64_t deadline = 0;
  std::uint32_t slot = no_slot;  // no_slot: not pending
  std::uint32_t pos = 0;         // index of its entry in the slot's array
};

class slot_arrays {
 public:
  using node = basic_node<array_hook>;
  static constexpr const char* name = "slot_arrays";
  static constexpr std::size_t hook_bytes = sizeof(array_hook);
  // How many entries ahead the walks prefetch nodes.
  static constexpr std::uint32_t ahead = 8;

  explicit slot_arrays(std::size_t n) : nodes_(n) {}
  slot_arrays(const slot_arrays&) = delete;
  slot_arrays& operator=(const slot_arrays&) = delete;
  ~slot_arrays() {
    for (slot_array& a : arrays_) ::operator delete(a.data);
  }

  bench_payload& payload(std::uint32_t i) noexcept { return nodes_[i].payload; }
  const bench_payload& payload(std::uint32_t i) const noexcept { return nodes_[i].payload; }

  void schedule(std::uint32_t i, std::uint64_t deadline) {
    node& x = nodes_[i];
    x.payload.requested = deadline;
    if (x.slot != no_slot) remove(x);
    x.deadline = deadline;
    append(flat_slot(deadline < now_ ? now_ : deadline, now_), deadline, x);
  }

  bool cancel(std::uint32_t i) noexcept {
    node& x = nodes_[i];
    if (x.slot == no_slot) return false;
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
    return n;
  }
  bool pending(std::uint32_t i) const noexcept { return nodes_[i].slot != no_slot; }
  std::uint64_t hook_deadline(std::uint32_t i) const noexcept { return nodes_[i].deadline; }
  // Bytes of the slot arrays' capacity (what they hold from operator new).
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
    const slot_array& a = arrays_[flat];
    for (std::uint32_t k = 0; k < a.size; ++k)
      if (a.data[k].node != nullptr) best = std::min(best, a.data[k].deadline);
    return best;
  }

  void check_invariants() const {
    for (std::uint32_t s = 0; s < slot_count; ++s) {
      const slot_array& a = arrays_[s];
      if ((a.live != 0) != occ_.test(s)) throw std::logic_error("slot_arrays: occupancy bit");
      if (a.live == 0 && a.size != 0) throw std::logic_error("slot_arrays: empty slot not reset");
      std::uint32_t live = 0;
      for (std::uint32_t k = 0; k < a.size; ++k) {
        const entry& e = a.data[k];
        if (e.node == nullptr) continue;
        ++live;
        if (e.node->slot != s || e.node->pos != k || e.node->deadline != e.deadline)
          throw std::logic_error("slot_arrays: node and entry disagree");
        if (e.deadline < now_ || flat_slot(e.deadline, now_) != s)
          throw std::logic_error("slot_arrays: a timer off its slot");
      }
      if (live != a.live) throw std::logic_error("slot_arrays: live count");
    }
  }

 private:
  struct entry {
    std::uint64_t deadline;
    array_hook* node;  // nullptr: a tombstone
  };
  struct slot_array {
    entry* data = nullptr;
    std::uint32_t size = 0;  // entries, tombstones included
    std::uint32_t cap = 0;
    std::uint32_t live = 0;  // entries that are not tombstones
  };

  void append(std::uint32_t flat, std::uint64_t deadline, array_hook& x) {
    slot_array& a = arrays_[flat];
    if (a.size == a.cap) [[unlikely]]
      grow(a);
    a.data[a.size] = entry{deadline, &x};
    x.slot = flat;
    x.pos = a.size++;
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
  void remove(array_hook& x) noexcept {
    const std::uint32_t flat = x.slot;
    slot_array& a = arrays_[flat];
    a.data[x.pos].node = nullptr;
    x.slot = no_slot;
    if (--a.live == 0) {
      a.size = 0;
      occ_.clear(flat);
    } else if (a.size - a.live > a.live && a.size >= 64) [[unlikely]] {
      compact(a);
    }
  }
  // Branch-free: which entries are tombstones is random, and a branch on it mispredicted about
  // every other entry.
  [[gnu::noinline]] static void compact(slot_array& a) noexcept {
    array_hook sink;
    std::uint32_t j = 0;
    for (std::uint32_t k = 0; k < a.size; ++k) {
      const entry e = a.data[k];
      a.data[j] = e;
      // The node, or the sink for a tombstone, chosen by a mask: a conditional here was
      // compiled to a branch.
      const std::uintptr_t keep = std::uintptr_t{0} - (e.node != nullptr);
      reinterpret_cast<array_hook*>((reinterpret_cast<std::uintptr_t>(e.node) & keep) |
                                    (reinterpret_cast<std::uintptr_t>(&sink) & ~keep))
          ->pos = j;
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
      array_hook* const x = data[k].node;
      if (x == nullptr) continue;
      x->slot = no_slot;
      f(static_cast<std::uint32_t>(static_cast<node*>(x) - nodes_.data()));
      ++fired;
    }
    a.size = a.live = 0;
    occ_.clear(flat);
    prefetch_next_level0(flat);
    return fired;
  }
  // The nodes of the next occupied level-0 slot after `flat`, its first few: the next advance
  // that fires finds them on their way.
  void prefetch_next_level0(std::uint32_t flat) const noexcept {
    const std::uint64_t rest = flat + 1 < 64 ? occ_.word(0) & (~std::uint64_t{0} << (flat + 1)) : 0;
    if (rest == 0) return;
    const slot_array& b = arrays_[static_cast<unsigned>(std::countr_zero(rest))];
    for (std::uint32_t k = 0; k < b.size && k < ahead; ++k)
      if (b.data[k].node != nullptr) __builtin_prefetch(b.data[k].node, 1);
  }
  [[gnu::noinline]] void cascade(std::uint32_t flat) {
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

  std::vector<node> nodes_;
  std::array<slot_array, slot_count> arrays_{};
  occupancy occ_;
  std::uint64_t now_ = 0;
};

}  // namespace timerwheel_bench::slots
