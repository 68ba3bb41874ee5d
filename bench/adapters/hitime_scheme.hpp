// HiTime's scheme as a peer of the wheel, written here from its published design and compiled
// with the benchmark (inlined, as the header-only wheel is), so that the two are compared on
// equal terms. (The adapter named "hitime" in c_api.hpp is something else: the HiTime drop-in of
// the C face, which runs on the wheel.)
//
// The design: 32 bins; a timer sits in bin k = the highest bit in which its deadline differs
// from the time of the last advance (`last`), capped at 31; each bin is an intrusive doubly
// linked list, and one bit word says which bins are occupied. Every timer of bin k shares every
// bit above k with `last` and has 1 at bit k where `last` has 0, so every timer of a bin is later
// than every timer of a lower bin. An advance to `to` looks at b = the highest bit in which `to`
// differs from `last`: the timers of bins below b are all due (bulk expiry: their lists are
// spliced onto the due list whole), those of bin b are due or move to a lower bin, and the bins
// above b keep their place. About 544 bytes of state, against the wheel's slot heads and bitmaps.
//
// It fires the due list in bin order: bins in increasing order, but within a bin in the order the
// timers came there, not in deadline order. exact_order = false tells the benchmark's checks
// (workloads/check.hpp): firings may be out of order within one advance, never across advances,
// never early; and this adapter counts a firing late (due at an earlier advance already), which
// check_invariants reports.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common.hpp"

namespace timerwheel_bench {

// What each timer's object holds: the list links and the deadline (ticks), 24 bytes as the
// wheel's hook. Pending while prev != nullptr.
struct hitime_hook {
  hitime_hook* next = nullptr;
  hitime_hook* prev = nullptr;
  std::uint64_t when = 0;
};

class hitime_scheme {
 public:
  using node = basic_node<hitime_hook>;
  static constexpr const char* name = "hitime_scheme";
  static constexpr std::size_t hook_bytes = sizeof(hitime_hook);
  static constexpr bool exact_order = false;
  static constexpr unsigned bins = 32;
  static_assert(sizeof(node) == node_bytes_for<hitime_hook>(), "hook and payload in one node");

  explicit hitime_scheme(std::size_t n) : nodes_(n) {
    for (hitime_hook& h : heads_) h.next = h.prev = &h;
  }
  hitime_scheme(const hitime_scheme&) = delete;
  hitime_scheme& operator=(const hitime_scheme&) = delete;

  bench_payload& payload(std::uint32_t i) noexcept { return nodes_[i].payload; }
  const bench_payload& payload(std::uint32_t i) const noexcept { return nodes_[i].payload; }

  // A deadline at or before `last` goes to the due list and fires at the next advance.
  void schedule(std::uint32_t i, std::uint64_t deadline) noexcept {
    node& x = nodes_[i];
    x.payload.requested = deadline;
    if (x.prev != nullptr) unlink(x);
    x.when = deadline;
    const unsigned k = deadline <= last_ ? due : bin_of(deadline ^ last_);
    hitime_hook& head = heads_[k];
    x.next = &head;
    x.prev = head.prev;
    head.prev->next = &x;
    head.prev = &x;
    occupied_ |= std::uint64_t{1} << k;
  }

  bool cancel(std::uint32_t i) noexcept {
    node& x = nodes_[i];
    if (x.prev == nullptr) return false;
    unlink(x);
    return true;
  }

  // Fires every timer due at `to` (ticks), bin by bin. The callback may schedule and cancel.
  template <class F>
  std::size_t advance(std::uint64_t to, F&& f) {
    const std::uint64_t before = last_;
    if (to > last_) {
      const unsigned b = bin_of(to ^ last_);
      last_ = to;
      hitime_hook& due_head = heads_[due];
      // Bins below b: all due, spliced whole in bin order.
      std::uint64_t below = occupied_ & ((std::uint64_t{1} << b) - 1);
      occupied_ &= ~below;
      while (below != 0) {
        const unsigned k = static_cast<unsigned>(std::countr_zero(below));
        below &= below - 1;
        splice_back(heads_[k], due_head);
      }
      // Bin b: each timer due, or placed again relative to `to` (a lower bin).
      if (occupied_ >> b & 1) {
        occupied_ &= ~(std::uint64_t{1} << b);
        hitime_hook& head = heads_[b];
        hitime_hook* h = head.next;
        head.next = head.prev = &head;
        while (h != &head) {
          hitime_hook* const next = h->next;
          const unsigned k = h->when <= to ? due : bin_of(h->when ^ to);
          hitime_hook& dst = heads_[k];
          h->next = &dst;
          h->prev = dst.prev;
          dst.prev->next = h;
          dst.prev = h;
          occupied_ |= std::uint64_t{1} << k;
          h = next;
        }
      }
      if (due_head.next != &due_head) occupied_ |= std::uint64_t{1} << due;
    }
    std::size_t fired = 0;
    hitime_hook& due_head = heads_[due];
    while (due_head.next != &due_head) {
      node& x = static_cast<node&>(*due_head.next);
      unlink(x);
      late_ += x.payload.requested <= before && x.payload.requested != bench_payload::fired;
      ++fired;
      f(static_cast<std::uint32_t>(&x - nodes_.data()));
    }
    return fired;
  }

  std::uint64_t now() const noexcept { return last_; }
  // A walk of every bin, O(n): no count is kept, which would cost every schedule and cancel a
  // store (the wheel's default configuration keeps none either).
  std::size_t size() const noexcept {
    std::size_t n = 0;
    for (const hitime_hook& head : heads_)
      for (const hitime_hook* h = head.next; h != &head; h = h->next) ++n;
    return n;
  }
  bool pending(std::uint32_t i) const noexcept { return nodes_[i].prev != nullptr; }
  std::uint64_t hook_deadline(std::uint32_t i) const noexcept { return nodes_[i].when; }

  // The earliest deadline: in the lowest occupied bin (the due list first), found by a walk of
  // that bin. O(timers in it).
  std::optional<std::uint64_t> next_deadline() const noexcept {
    const std::uint64_t occ = occupied_ >> due & 1 ? std::uint64_t{1} << due : occupied_;
    if (occ == 0) return std::nullopt;
    const hitime_hook& head = heads_[std::countr_zero(occ)];
    std::uint64_t best = head.next->when;
    for (const hitime_hook* h = head.next; h != &head; h = h->next) best = std::min(best, h->when);
    return best;
  }

  // Every bin's timers where the design puts them, the bit word and the size right, and no
  // firing late. O(n). Throws std::logic_error naming what is wrong.
  void check_invariants() const {
    for (unsigned k = 0; k <= due; ++k) {
      const hitime_hook& head = heads_[k];
      if ((head.next != &head) != (occupied_ >> k & 1)) fail("bit word disagrees with bin");
      for (const hitime_hook* h = head.next; h != &head; h = h->next) {
        if (h->next->prev != h) fail("broken list");
        const bool here =
            k == due ? h->when <= last_ : h->when > last_ && bin_of(h->when ^ last_) == k;
        if (!here) fail("timer in bin " + std::to_string(k) + " that is not its own");
      }
    }
    if (late_ != 0) fail(std::to_string(late_) + " timers fired after an advance they were due at");
  }

 private:
  static constexpr unsigned due = bins;  // heads_[due]: the due list, bit `due` of occupied_

  static unsigned bin_of(std::uint64_t x) noexcept {
    const unsigned top = 63u - static_cast<unsigned>(std::countl_zero(x));
    return top < bins - 1 ? top : bins - 1;
  }
  [[noreturn]] static void fail(const std::string& what) {
    throw std::logic_error("hitime_scheme: " + what);
  }

  // Out of its list; the bin's bit cleared when the list is left empty (then both neighbours
  // are its head).
  void unlink(hitime_hook& x) noexcept {
    hitime_hook* const prev = x.prev;
    hitime_hook* const next = x.next;
    prev->next = next;
    next->prev = prev;
    if (prev == next) occupied_ &= ~(std::uint64_t{1} << (prev - heads_));
    x.prev = x.next = nullptr;
  }
  // The whole list of `from` to the back of `to`; `from` left empty.
  static void splice_back(hitime_hook& from, hitime_hook& to) noexcept {
    hitime_hook* const first = from.next;
    hitime_hook* const last = from.prev;
    first->prev = to.prev;
    to.prev->next = first;
    last->next = &to;
    to.prev = last;
    from.next = from.prev = &from;
  }

  std::vector<node> nodes_;
  hitime_hook heads_[bins + 1];
  std::uint64_t occupied_ = 0;
  std::uint64_t last_ = 0;
  std::uint64_t late_ = 0;
};

}  // namespace timerwheel_bench
