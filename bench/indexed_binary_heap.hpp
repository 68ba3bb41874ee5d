// Indexed binary min-heap of timers: the baseline every benchmark ratio is taken against; and
// the same with 4 children per entry (libev's 4-heap), by the Arity parameter.
//
// This is the structure Boost.Asio (detail/timer_queue.hpp) and libuv keep: a binary heap in
// one array, each timer knowing its own position in it, so that cancel is O(log n) by index
// (move the last entry into the hole, sift it up or down) instead of a lazy deletion that
// leaves dead entries behind. Unlike Asio, ties are broken by an insertion sequence number, so
// the order is exact (deadline, then FIFO), the same order the wheel promises.
//
// Two layouts, chosen by `KeyInArray`:
//   true  (default, Asio's): the array holds {deadline, seq, node*}; every comparison reads
//         only the array, and a node is touched once per entry moved (to store its index). The
//         node holds its index and nothing else (heap_index_node, 8 bytes): the key lives only
//         in the array, so that a user who packs timers in small objects packs the heap's
//         tighter than any hook that keeps its deadline.
//   false (libuv-like): the array holds node* only and every comparison reads the key through
//         the node (heap_keyed_node, 24 bytes), a likely cache miss per comparison once the
//         nodes outgrow the cache.
// bench/main.cpp --all-heaps runs both side by side; on W1 churn the array-keyed one is as fast
// or faster at every size (docs/perf/2026-11-bench-baselines.md), so it is the baseline.
//
// PERFORMANCE NOTE: schedule is O(log n) (sift up), cancel O(log n), advance O(log n) per
// timer fired plus O(1). Nothing allocates once the array has grown to the largest number of
// pending timers (reserve() it to the expected count up front).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
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

// The node of the layout that reads keys through the nodes: the key beside the index.
struct heap_keyed_node : heap_index_node {
  std::uint64_t deadline = 0;
  std::uint64_t seq = 0;  // insertion order among equal deadlines (FIFO)
};

template <bool KeyInArray = true, std::size_t Arity = 2>
class indexed_heap {
  static_assert(Arity >= 2);

 public:
  using tick_type = std::uint64_t;
  using node_type = std::conditional_t<KeyInArray, heap_index_node, heap_keyed_node>;
  using heap_node = node_type;

  explicit indexed_heap(tick_type now = 0) : now_(now) {}
  indexed_heap(const indexed_heap&) = delete;
  indexed_heap& operator=(const indexed_heap&) = delete;
  ~indexed_heap() { clear(); }

  // Grows the array so that up to n pending timers need no allocation.
  void reserve(std::size_t n) { heap_.reserve(n); }

  tick_type now() const noexcept { return now_; }
  std::size_t size() const noexcept { return heap_.size(); }
  bool empty() const noexcept { return heap_.empty(); }

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
    while (!heap_.empty() && key_deadline(0) <= to) {
      heap_node& n = top_node();
      if (key_deadline(0) > now_) now_ = key_deadline(0);
      remove_at(0);
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
    if (heap_.empty()) return std::nullopt;
    return key_deadline(0);
  }

  // Makes every pending node not pending, keeping the array's capacity.
  void clear() noexcept {
    for (std::size_t i = 0; i < heap_.size(); ++i) node_at(i).index = heap_node::npos;
    heap_.clear();
  }

  // Throws std::logic_error if the heap order or a node's index is wrong. O(n).
  void check_invariants() const {
    for (std::size_t i = 0; i < heap_.size(); ++i) {
      const heap_node& n = node_at(i);
      if (n.index != i) throw std::logic_error("indexed_binary_heap: node index mismatch");
      if (i > 0 && less(heap_[i], heap_[(i - 1) / Arity])) {
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
  using entry = std::conditional_t<KeyInArray, keyed_entry, heap_node*>;

  // The entry of n with this key (stored in the node too where the array holds no key).
  static entry make_entry(heap_node& n, std::uint64_t deadline, std::uint64_t seq) noexcept {
    if constexpr (KeyInArray) {
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
    if constexpr (KeyInArray) {
      return e.seq;
    } else {
      return e->seq;
    }
  }
  // (deadline, seq) lexicographic; written without short-circuit so that it compiles to
  // flag arithmetic rather than a second branch.
  static bool less(const entry& a, const entry& b) noexcept {
    const std::uint64_t da = deadline_of(a);
    const std::uint64_t db = deadline_of(b);
    return (da < db) | ((da == db) & (seq_of(a) < seq_of(b)));
  }

  heap_node& node_at(std::size_t i) const noexcept { return node_of(heap_[i]); }
  heap_node& top_node() const noexcept { return node_at(0); }
  std::uint64_t key_deadline(std::size_t i) const noexcept { return deadline_of(heap_[i]); }

  // Places e at the hole i or above it. Each entry moved down tells its node its new index.
  void sift_up(std::size_t i, entry e) noexcept {
    while (i > 0) {
      const std::size_t parent = (i - 1) / Arity;
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
      const std::size_t first = Arity * i + 1;
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
    if (i > 0 && less(last, heap_[(i - 1) / Arity])) {
      sift_up(i, last);
    } else {
      sift_down(i, last);
    }
  }

  std::vector<entry> heap_;
  tick_type now_;
  std::uint64_t next_seq_ = 0;
};

// The baseline (Boost.Asio's and libuv's layout) and libev's 4-ary heap.
template <bool KeyInArray = true>
using indexed_binary_heap = indexed_heap<KeyInArray, 2>;
using indexed_4ary_heap = indexed_heap<true, 4>;

}  // namespace timerwheel_bench
