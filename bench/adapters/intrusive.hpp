// One adapter for every intrusive structure: the wheel, the seven reference schemes and the
// indexed heaps (2- and 4-ary). Each node derives from the structure's hook; the structure links
// the node by address, so the nodes live in one vector that never moves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "common.hpp"

namespace timerwheel_bench {

// Traits: a type with `static constexpr const char* value` (the name) and, optionally,
// `static constexpr limits limit` (the sizes it is run at).
template <class Structure, class Hook, class Traits>
class intrusive_adapter {
 public:
  using structure_type = Structure;
  using hook_type = Hook;
  using node = basic_node<Hook>;
  static constexpr const char* name = Traits::value;
  static constexpr std::size_t hook_bytes = sizeof(Hook);
  static constexpr limits limit = limits_of<Traits>();
  static_assert(sizeof(node) == node_bytes_for<Hook>(), "hook and payload in one node's bytes");

  explicit intrusive_adapter(std::size_t n) : nodes_(n) {
    if constexpr (requires { structure_.reserve(n); }) structure_.reserve(n);
  }

  bench_payload& payload(std::uint32_t i) noexcept { return nodes_[i].payload; }
  const bench_payload& payload(std::uint32_t i) const noexcept { return nodes_[i].payload; }
  TIMERWHEEL_BENCH_GLUE void schedule(std::uint32_t i, std::uint64_t deadline) {
    node& n = nodes_[i];
    n.payload.requested = deadline;
    structure_.schedule(n, deadline);
  }
  TIMERWHEEL_BENCH_GLUE bool cancel(std::uint32_t i) noexcept {
    return structure_.cancel(nodes_[i]);
  }
  template <class F>
  TIMERWHEEL_BENCH_GLUE std::size_t advance(std::uint64_t to, F&& f) {
    return structure_.advance(to, [this, &f](Hook& h) { f(index_of(static_cast<node&>(h))); });
  }
  // The structure's own pop of the earliest deadline, where it has one (the wheel): f(index)
  // per timer fired; now() is then that deadline.
  template <class F>
  requires requires(Structure& s) {
    s.advance_to_next([](Hook&) {});
  }
  TIMERWHEEL_BENCH_GLUE std::size_t advance_to_next(F&& f) {
    return structure_.advance_to_next([this, &f](Hook& h) { f(index_of(static_cast<node&>(h))); });
  }
  std::uint64_t now() const noexcept { return structure_.now(); }
  std::size_t size() const noexcept { return structure_.size(); }
  bool pending(std::uint32_t i) const noexcept { return nodes_[i].pending(); }
  std::uint64_t hook_deadline(std::uint32_t i) const noexcept {
    const Hook& h = nodes_[i];
    if constexpr (requires { structure_.deadline(h); }) {
      return structure_.deadline(h);  // a heap whose key lives only in its array
    } else if constexpr (requires { h.deadline(); }) {
      return h.deadline();
    } else {
      return h.deadline;
    }
  }
  std::optional<std::uint64_t> next_deadline() const { return structure_.next_deadline(); }
  void check_invariants() const {
    if constexpr (requires { structure_.check_invariants(); }) structure_.check_invariants();
  }

 private:
  std::uint32_t index_of(const node& n) const noexcept {
    return static_cast<std::uint32_t>(&n - nodes_.data());
  }
  // Declared first so that it is destroyed last: a structure unlinks its hooks when destroyed.
  std::vector<node> nodes_;
  Structure structure_;
};

}  // namespace timerwheel_bench
