// One adapter for every structure that keeps (deadline, sequence, index) keys and hands back a
// handle to each: std::multiset and Boost.Heap's mutable heaps. The node keeps the handle (to
// cancel by it) and the deadline; a policy type says how to push, erase, read the top and pop.
// Boost.Heap's policies: boost_heaps.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <stdexcept>
#include <vector>

#include "common.hpp"

namespace timerwheel_bench {

// (deadline, scheduling sequence) orders timers exactly: deadline, then FIFO.
struct timer_key {
  std::uint64_t deadline;
  std::uint64_t seq;
  std::uint32_t index;
  friend bool operator<(const timer_key& a, const timer_key& b) noexcept {
    return a.deadline != b.deadline ? a.deadline < b.deadline : a.seq < b.seq;
  }
  friend bool operator>(const timer_key& a, const timer_key& b) noexcept { return b < a; }
};

template <class Policy>
class keyed_adapter {
 public:
  using container = typename Policy::container;
  using handle = typename Policy::handle;
  struct hook {
    handle where{};
    std::uint64_t deadline = 0;
    bool pending = false;
  };
  using node = basic_node<hook>;
  static constexpr const char* name = Policy::value;
  static constexpr std::size_t hook_bytes = sizeof(hook);

  explicit keyed_adapter(std::size_t n) : nodes_(n) {}

  bench_payload& payload(std::uint32_t i) noexcept { return nodes_[i].payload; }
  const bench_payload& payload(std::uint32_t i) const noexcept { return nodes_[i].payload; }
  void schedule(std::uint32_t i, std::uint64_t deadline) {
    node& n = nodes_[i];
    n.payload.requested = deadline;
    if (deadline < now_) deadline = now_;
    if (n.pending) Policy::erase(c_, n.where);
    n.where = Policy::push(c_, timer_key{deadline, seq_++, i});
    n.deadline = deadline;
    n.pending = true;
  }
  bool cancel(std::uint32_t i) {
    node& n = nodes_[i];
    if (!n.pending) return false;
    Policy::erase(c_, n.where);
    n.pending = false;
    return true;
  }
  template <class F>
  std::size_t advance(std::uint64_t to, F&& f) {
    if (to < now_) throw std::invalid_argument("keyed_adapter::advance: time went back");
    std::size_t fired = 0;
    while (!c_.empty()) {
      const timer_key k = Policy::top(c_);
      if (k.deadline > to) break;
      Policy::pop(c_);
      if (k.deadline > now_) now_ = k.deadline;
      nodes_[k.index].pending = false;
      ++fired;
      f(k.index);
    }
    now_ = to;
    return fired;
  }
  std::size_t size() const noexcept { return c_.size(); }
  bool pending(std::uint32_t i) const noexcept { return nodes_[i].pending; }
  std::uint64_t hook_deadline(std::uint32_t i) const noexcept { return nodes_[i].deadline; }
  std::optional<std::uint64_t> next_deadline() const {
    if (c_.empty()) return std::nullopt;
    return Policy::top(c_).deadline;
  }
  void check_invariants() const {}

 private:
  std::vector<node> nodes_;
  container c_;
  std::uint64_t now_ = 0;
  std::uint64_t seq_ = 0;
};

struct multiset_policy {
  static constexpr const char* value = "multiset";
  using container = std::multiset<timer_key>;
  using handle = container::iterator;
  static handle push(container& c, const timer_key& k) { return c.insert(k); }
  static void erase(container& c, handle h) { c.erase(h); }
  static const timer_key& top(const container& c) { return *c.begin(); }
  static void pop(container& c) { c.erase(c.begin()); }
};

using multiset = keyed_adapter<multiset_policy>;

}  // namespace timerwheel_bench
