// std::priority_queue with lazy deletion: cancel only marks the node (a generation count), the
// stale entry stays in the queue and is skipped when it reaches the top. When stale entries
// outnumber live ones the queue is rebuilt without them (otherwise W1 would grow it without
// bound), as lazy-deletion timer queues do.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <stdexcept>
#include <vector>

#include "common.hpp"

namespace timerwheel_bench {

class lazy_pq {
 public:
  struct hook {
    std::uint64_t deadline = 0;
    std::uint32_t generation = 0;  // entries of older generations are stale
    bool pending = false;
  };
  using node = basic_node<hook>;
  static constexpr const char* name = "pq_lazy";
  static constexpr std::size_t hook_bytes = sizeof(hook);

  explicit lazy_pq(std::size_t n) : nodes_(n) {}

  bench_payload& payload(std::uint32_t i) noexcept { return nodes_[i].payload; }
  const bench_payload& payload(std::uint32_t i) const noexcept { return nodes_[i].payload; }
  void schedule(std::uint32_t i, std::uint64_t deadline) {
    node& n = nodes_[i];
    n.payload.requested = deadline;
    if (deadline < now_) deadline = now_;
    if (n.pending) {
      ++n.generation;
    } else {
      ++live_;
    }
    n.deadline = deadline;
    n.pending = true;
    q_.push(entry{deadline, seq_++, i, n.generation});
    if (q_.size() > 2 * live_ + 1024) q_.compact(nodes_);
  }
  bool cancel(std::uint32_t i) noexcept {
    node& n = nodes_[i];
    if (!n.pending) return false;
    n.pending = false;
    ++n.generation;
    --live_;
    return true;
  }
  template <class F>
  std::size_t advance(std::uint64_t to, F&& f) {
    if (to < now_) throw std::invalid_argument("lazy_pq::advance: time went back");
    std::size_t fired = 0;
    while (!q_.empty() && q_.top().deadline <= to) {
      const entry e = q_.top();
      q_.pop();
      node& n = nodes_[e.index];
      if (!n.pending || n.generation != e.generation) continue;  // stale
      if (e.deadline > now_) now_ = e.deadline;
      n.pending = false;
      ++n.generation;
      --live_;
      ++fired;
      f(e.index);
    }
    now_ = to;
    return fired;
  }
  std::size_t size() const noexcept { return live_; }
  bool pending(std::uint32_t i) const noexcept { return nodes_[i].pending; }
  std::uint64_t hook_deadline(std::uint32_t i) const noexcept { return nodes_[i].deadline; }
  std::optional<std::uint64_t> next_deadline() const {
    // Drops the stale entries on top first (logically const: the pending set is unchanged).
    while (!q_.empty()) {
      const entry& e = q_.top();
      const node& n = nodes_[e.index];
      if (n.pending && n.generation == e.generation) return e.deadline;
      q_.pop();
    }
    return std::nullopt;
  }
  void check_invariants() const {}

 private:
  struct entry {
    std::uint64_t deadline;
    std::uint64_t seq;
    std::uint32_t index;
    std::uint32_t generation;
    friend bool operator>(const entry& a, const entry& b) noexcept {
      return a.deadline != b.deadline ? a.deadline > b.deadline : a.seq > b.seq;
    }
  };
  struct queue : std::priority_queue<entry, std::vector<entry>, std::greater<entry>> {
    void compact(const std::vector<node>& nodes) {
      std::erase_if(c, [&](const entry& e) {
        const node& n = nodes[e.index];
        return !n.pending || n.generation != e.generation;
      });
      std::make_heap(c.begin(), c.end(), comp);
    }
  };

  std::vector<node> nodes_;
  mutable queue q_;
  std::size_t live_ = 0;
  std::uint64_t now_ = 0;
  std::uint64_t seq_ = 0;
};

}  // namespace timerwheel_bench
