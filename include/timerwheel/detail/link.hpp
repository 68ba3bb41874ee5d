// Intrusive circular doubly linked list with a sentinel: the storage of every
// slot of the wheel, of its far list and of its queue of expired timers.
#pragma once

#include <cstddef>

#include "abi.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::detail {

// A node's links, or a list's sentinel. A node is linked exactly when `next`
// is not null; a sentinel of an empty list points at itself.
struct link {
  link* next = nullptr;
  link* prev = nullptr;
};

inline void list_init(link& sentinel) noexcept { sentinel.next = sentinel.prev = &sentinel; }

inline bool list_empty(const link& sentinel) noexcept { return sentinel.next == &sentinel; }

// Appends `node` to the list of `sentinel` whose tail (sentinel.prev) the
// caller has already read. The stores go in an order that keeps the compiler
// from pairing the node's two into one vector store (built from two
// registers, it takes more instructions than the two plain stores).
inline void list_link_after_tail(link& sentinel, link& tail, link& node) noexcept {
  node.prev = &tail;
  tail.next = &node;
  node.next = &sentinel;
  sentinel.prev = &node;
}

inline void list_push_back(link& sentinel, link& node) noexcept {
  list_link_after_tail(sentinel, *sentinel.prev, node);
}

// Links `node` right behind `point`, a node of a list or its sentinel.
inline void list_insert_after(link& point, link& node) noexcept {
  node.prev = &point;
  node.next = point.next;
  point.next->prev = &node;
  point.next = &node;
}

inline void list_push_front(link& sentinel, link& node) noexcept {
  list_insert_after(sentinel, node);
}

// Unlinks `node` and marks it unlinked (`prev` is left stale: only `next`
// says whether a node is linked). Returns the sentinel of its list when
// the list became empty, else nullptr: with a sentinel, the removed node's
// neighbours are the same node only when both are that sentinel. This lets a
// cancel find an emptied slot without storing the slot in the node.
inline link* list_unlink(link& node) noexcept {
  link* const next = node.next;
  link* const prev = node.prev;
  prev->next = next;
  next->prev = prev;
  node.next = nullptr;
  return next == prev ? next : nullptr;
}

// Moves every node of `from`, in order, to right behind `point` (a node of
// a list or its sentinel); `from` becomes empty.
inline void list_splice_after(link& point, link& from) noexcept {
  if (list_empty(from)) return;
  link* const first = from.next;
  link* const last = from.prev;
  last->next = point.next;
  point.next->prev = last;
  first->prev = &point;
  point.next = first;
  list_init(from);
}

// Moves every node of `from` to the back of `to`, in order; `from` becomes empty.
inline void list_splice_back(link& to, link& from) noexcept { list_splice_after(*to.prev, from); }

// Moves every node of `from` to the front of `to`, in order; `from` becomes empty.
inline void list_splice_front(link& to, link& from) noexcept { list_splice_after(to, from); }

// Moves the list of `from`, which holds nodes, to `to`, whose links are
// overwritten (an empty list's): O(1), the end nodes relinked; `from`
// becomes empty.
inline void list_move(link& to, link& from) noexcept {
  to = from;
  to.next->prev = &to;
  to.prev->next = &to;
  list_init(from);
}

// What list_length returns for a list whose links disagree.
inline constexpr std::size_t list_broken = ~std::size_t{0};

// The number of nodes of a list, checking every link on the way: a node's
// next must point back at it. list_broken where one does not. O(n).
inline std::size_t list_length(const link& sentinel) noexcept {
  std::size_t n = 0;
  for (const link* p = &sentinel;; p = p->next) {
    if (p->next == nullptr || p->next->prev != p) return list_broken;
    if (p->next == &sentinel) return n;
    ++n;
  }
}

}  // namespace timerwheel::inline TIMERWHEEL_ABI::detail
