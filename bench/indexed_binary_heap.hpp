// Indexed binary min-heap of timers: the baseline every benchmark ratio is taken against; and
// the same with 4 children per entry (libev's 4-heap), by the Arity parameter.
//
// This is the structure Boost.Asio (detail/timer_queue.hpp) and libuv keep: a binary heap in
// one array, each timer knowing its own position in it, so that cancel is O(log n) by index
// (move the last entry into the hole, sift it up or down) instead of a lazy deletion that
// leaves dead entries behind. Unlike Asio, ties are broken by an insertion sequence number, so
// the order is exact (deadline, then FIFO), the same order the wheel promises.
//
// Three layouts, chosen by `KeyInArray` and `SeqInNode`:
//   keyed (KeyInArray, the default, Asio's): the array holds {deadline, seq, node*}, 24 bytes;
//         every comparison reads only the array, and a node is touched once per entry moved (to
//         store its index). The node holds its index and nothing else (heap_index_node, 8
//         bytes): the key lives only in the array, so that a user who packs timers in small
//         objects packs the heap's tighter than any hook that keeps its deadline.
//   compact (KeyInArray and SeqInNode, libev's entry): the array holds {deadline, node*}, 16
//         bytes, four of them a cache line; the sequence number lives in the node (heap_seq_node,
//         16 bytes) and is read only when two deadlines tie. Fewer lines an operation, so faster
//         where ties are rare (churn); slower where they are common (a million deadlines over
//         2^20 ticks, W2), each tie two nodes read.
//   through the node (libuv-like): the array holds node* only and every comparison reads the
//         key through the node (heap_keyed_node, 24 bytes), a likely cache miss per comparison
//         once the nodes outgrow the cache.
// bench/main.cpp --all-heaps runs the last beside the others; on W1 churn the array-keyed one is
// as fast or faster at every size (docs/perf/2026-11-bench-baselines.md). The keyed binary heap
// is the baseline every ratio is taken against; the compact heaps run beside it as peers, and
// the goals are read against the faster layout of each (docs/workloads.md, "The structures").
//
// PERFORMANCE NOTE: schedule is O(log n) (sift up), cancel O(log n), advance O(log n) per
// timer fired plus O(1). Nothing allocates once the array has grown to the largest number of
// pending timers (reserve() it to the expected count up front).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace timerwheel_bench {

// Intrusive nodes of the indexed heap: embed one in (or derive from) the object that owns the
// timer. A pending node must not move in memory: the heap holds its address.
struct heap_index_node {
  static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();

  std::size_t index = npos;  // position in the heap array; npos when not pending

  bool pending() const noexcept { return index != npos; }
};

// The node of the compact layout: the index, and the sequence number that breaks ties, read
// only when two deadlines are equal.
struct heap_seq_node : heap_index_node {
  std::uint64_t seq = 0;
};

// The node of the layout that reads keys through the nodes: the key beside the index.
struct heap_keyed_node : heap_index_node {
  std::uint64_t deadline = 0;
  std::uint64_t seq = 0;  // insertion order among equal deadlines (FIFO)
};

// An allocator whose arrays start on a cache line.
template <class T>
struct line_allocator {
  using value_type = T;
  static constexpr std::align_val_t line{64};
  line_allocator() = default;
  template <class U>
  line_allocator(const line_allocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), line)); }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, line); }
  friend bool operator==(const line_allocator&, const line_allocator&) noexcept { return true; }
};

template <bool KeyInArray = true, std::size_t Arity = 2, bool SeqInNode = false>
class indexed_heap {
  static_assert(Arity >= 2);
  static_assert(KeyInArray || !SeqInNode);

 public:
  using tick_type = std::uint64_t;
  using node_type =
      std::conditional_t<KeyInArray, std::conditional_t<SeqInNode, heap_seq_node, heap_index_node>,
                         heap_keyed_node>;
  using heap_node = node_type;

  explicit indexed_heap(tick_type now = 0) : heap_(root), now_(now) {}
  indexed_heap(const indexed_heap&) = delete;
  indexed_heap& operator=(const indexed_heap&) = delete;
  ~indexed_heap() { clear(); }

  // Grows the array so that up to n pending timers need no allocation.
  void reserve(std::size_t n) { heap_.reserve(root + n); }

  tick_type now() const noexcept { return now_; }
  std::size_t size() const noexcept { return heap_.size() - root; }
  bool empty() const noexcept { return heap_.size() == root; }

  // Schedules `n` at `deadline` (ticks, absolute; one before now is taken as now). A pending
  // node is moved, and counts as newly scheduled for FIFO order. O(log n).
  void schedule(heap_node& n, tick_type deadline) {
    if (deadline < now_) deadline = now_;
    const std::uint64_t seq = next_seq_++;
    if (n.pending()) {
      // The key only decreases when the deadline does (seq always grows).
      const bool earlier = deadline < deadline_of(heap_[n.index]);
      const entry e = make_entry(n, deadline, seq);
      if (earlier) {
        sift_up(n.index, e);
      } else {
        sift_down(n.index, e);
      }
      return;
    }
    const entry e = make_entry(n, deadline, seq);
    heap_.emplace_back();  // the hole; filled by sift_up
    sift_up(heap_.size() - 1, e);
  }

  // Removes `n` if pending; returns whether it was. O(log n).
  bool cancel(heap_node& n) noexcept {
    if (!n.pending()) return false;
    remove_at(n.index);
    return true;
  }

  // Fires every timer with deadline <= to (ticks, absolute), in (deadline, FIFO) order,
  // calling f(heap_node&) after taking the timer out; f may schedule and cancel any timer,
  // and one it schedules at a deadline <= to fires in this call, in order. While f runs,
  // now() is the fired timer's deadline. Returns how many fired. Throws std::invalid_argument
  // if to is before now().
  template <class F>
  std::size_t advance(tick_type to, F&& f) {
    if (to < now_) throw std::invalid_argument("indexed_binary_heap::advance: time went back");
    std::size_t fired = 0;
    while (!empty() && key_deadline(root) <= to) {
      heap_node& n = top_node();
      if (key_deadline(root) > now_) now_ = key_deadline(root);
      remove_at(root);
      ++fired;
      f(n);
    }
    now_ = to;
    return fired;
  }

  // The deadline of a pending node (ticks, absolute). O(1).
  tick_type deadline(const heap_node& n) const noexcept { return deadline_of(heap_[n.index]); }

  // The earliest deadline, or none if empty. O(1).
  std::optional<tick_type> next_deadline() const noexcept {
    if (empty()) return std::nullopt;
    return key_deadline(root);
  }

  // Makes every pending node not pending, keeping the array's capacity.
  void clear() noexcept {
    for (std::size_t i = root; i < heap_.size(); ++i) node_at(i).index = heap_node::npos;
    heap_.resize(root);
  }

  // Throws std::logic_error if the heap order or a node's index is wrong. O(n).
  void check_invariants() const {
    for (std::size_t i = root; i < heap_.size(); ++i) {
      const heap_node& n = node_at(i);
      if (n.index != i) throw std::logic_error("indexed_binary_heap: node index mismatch");
      if (i > root && less(heap_[i], heap_[parent_of(i)])) {
        throw std::logic_error("indexed_binary_heap: heap order violated");
      }
      if (key_deadline(i) < now_) {
        throw std::logic_error("indexed_binary_heap: pending timer overdue");
      }
    }
  }

 private:
  struct keyed_entry {
    std::uint64_t deadline;
    std::uint64_t seq;
    heap_node* node;
  };
  struct compact_entry {
    std::uint64_t deadline;
    heap_node* node;
  };
  using entry =
      std::conditional_t<KeyInArray, std::conditional_t<SeqInNode, compact_entry, keyed_entry>,
                         heap_node*>;

  // The entry of n with this key (stored in the node too where the array holds no key).
  static entry make_entry(heap_node& n, std::uint64_t deadline, std::uint64_t seq) noexcept {
    if constexpr (SeqInNode) {
      n.seq = seq;
      return entry{deadline, &n};
    } else if constexpr (KeyInArray) {
      return entry{deadline, seq, &n};
    } else {
      n.deadline = deadline;
      n.seq = seq;
      return &n;
    }
  }
  static heap_node& node_of(const entry& e) noexcept {
    if constexpr (KeyInArray) {
      return *e.node;
    } else {
      return *e;
    }
  }
  static std::uint64_t deadline_of(const entry& e) noexcept {
    if constexpr (KeyInArray) {
      return e.deadline;
    } else {
      return e->deadline;
    }
  }
  static std::uint64_t seq_of(const entry& e) noexcept {
    if constexpr (SeqInNode) {
      return e.node->seq;
    } else if constexpr (KeyInArray) {
      return e.seq;
    } else {
      return e->seq;
    }
  }
  // (deadline, seq) lexicographic. With the key in the array, written without short-circuit so
  // that it compiles to flag arithmetic rather than a second branch.
  static bool less(const entry& a, const entry& b) noexcept {
    const std::uint64_t da = deadline_of(a);
    const std::uint64_t db = deadline_of(b);
    if constexpr (SeqInNode) {
      // The nodes only on a tie: a branch, where reading them every time would miss. The tie
      // is a call out of line, so that no build turns the branch into loads of both nodes.
      if (da != db) [[likely]]
        return da < db;
      return tie_less(a, b);
    } else {
      return (da < db) | ((da == db) & (seq_of(a) < seq_of(b)));
    }
  }

  [[gnu::noinline]] static bool tie_less(const entry& a, const entry& b) noexcept {
    return seq_of(a) < seq_of(b);
  }

  heap_node& node_at(std::size_t i) const noexcept { return node_of(heap_[i]); }
  heap_node& top_node() const noexcept { return node_at(root); }
  static std::size_t parent_of(std::size_t i) noexcept { return (i - root - 1) / Arity + root; }
  static std::size_t first_child(std::size_t i) noexcept { return Arity * (i - root) + root + 1; }
  std::uint64_t key_deadline(std::size_t i) const noexcept { return deadline_of(heap_[i]); }

  // Places e at the hole i or above it. Each entry moved down tells its node its new index.
  void sift_up(std::size_t i, entry e) noexcept {
    while (i > root) {
      const std::size_t parent = parent_of(i);
      if (!less(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      node_at(i).index = i;
      i = parent;
    }
    heap_[i] = e;
    node_of(e).index = i;
  }

  // Places e at the hole i or below it.
  void sift_down(std::size_t i, entry e) noexcept {
    const std::size_t n = heap_.size();
    for (;;) {
      const std::size_t first = first_child(i);
      if (first >= n) break;
      std::size_t child = first;
      const std::size_t end = std::min(n, first + Arity);
      for (std::size_t c = first + 1; c < end; ++c) {
        if (less(heap_[c], heap_[child])) child = c;
      }
      if (!less(heap_[child], e)) break;
      heap_[i] = heap_[child];
      node_at(i).index = i;
      i = child;
    }
    heap_[i] = e;
    node_of(e).index = i;
  }

  // Takes the entry at i out: the last entry fills the hole and moves up or down.
  void remove_at(std::size_t i) noexcept {
    node_at(i).index = heap_node::npos;
    const entry last = heap_.back();
    heap_.pop_back();
    if (i == heap_.size()) return;  // it was the last one
    if (i > root && less(last, heap_[parent_of(i)])) {
      sift_up(i, last);
    } else {
      sift_down(i, last);
    }
  }

  // The compact layout keeps its root at Arity - 1 (the places before it unused) and its array
  // on a cache line, so that the children of an entry share one line (libev's 4-heap): four
  // 16-byte entries, or two.
  static constexpr std::size_t root = SeqInNode ? Arity - 1 : 0;
  using allocator = std::conditional_t<SeqInNode, line_allocator<entry>, std::allocator<entry>>;
  std::vector<entry, allocator> heap_;
  tick_type now_;
  std::uint64_t next_seq_ = 0;
};

// The baseline (Boost.Asio's and libuv's layout) and libev's 4-ary heap.
template <bool KeyInArray = true>
using indexed_binary_heap = indexed_heap<KeyInArray, 2>;
using indexed_4ary_heap = indexed_heap<true, 4>;
// The same with 16-byte entries, the sequence number in the node.
using compact_binary_heap = indexed_heap<true, 2, true>;
using compact_4ary_heap = indexed_heap<true, 4, true>;

}  // namespace timerwheel_bench
