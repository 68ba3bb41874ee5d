// A stable merge sort of an intrusive circular list, used where a coarse slot
// must give up its timers in deadline order (expire_all): a slot keeps its
// timers in scheduling order, so a stable sort by deadline yields exactly
// (deadline, scheduling order).
#pragma once

#include <cstddef>

#include "abi.hpp"
#include "link.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::detail {

// Merges two null-terminated chains linked through `next`; on ties the node
// of `a` comes first, which keeps the sort stable.
template <class Less>
link* merge_chains(link* a, link* b, const Less& less) noexcept {
  link head;
  link* tail = &head;
  while (a != nullptr && b != nullptr) {
    if (less(*b, *a)) {
      tail->next = b;
      b = b->next;
    } else {
      tail->next = a;
      a = a->next;
    }
    tail = tail->next;
  }
  tail->next = a != nullptr ? a : b;
  return head.next;
}

// Sorts the list of `sentinel` stably by `less`: O(n log n), no allocation.
template <class Less>
void list_sort(link& sentinel, const Less& less) noexcept {
  if (sentinel.next == sentinel.prev) return;  // zero or one node
  // bins[i] holds a sorted run of 2^i nodes, earlier nodes in higher bins.
  link* bins[64] = {};
  link* rest = sentinel.next;
  sentinel.prev->next = nullptr;
  while (rest != nullptr) {
    link* run = rest;
    rest = rest->next;
    run->next = nullptr;
    std::size_t i = 0;
    for (; bins[i] != nullptr; ++i) {
      run = merge_chains(bins[i], run, less);
      bins[i] = nullptr;
    }
    bins[i] = run;
  }
  link* sorted = nullptr;
  for (link* bin : bins)
    if (bin != nullptr) sorted = merge_chains(bin, sorted, less);
  link* prev = &sentinel;
  for (link* n = sorted; n != nullptr; n = n->next) {
    prev->next = n;
    n->prev = prev;
    prev = n;
  }
  prev->next = &sentinel;
  sentinel.prev = prev;
}

}  // namespace timerwheel::inline TIMERWHEEL_ABI::detail
