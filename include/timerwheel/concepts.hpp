// The contract of a timer structure as C++20 concepts: what the wheel, every
// reference scheme and every adapter of the benchmarks are checked against,
// and what the callbacks handed to them must be. docs/contract.md says what
// each member promises; these concepts say only what it is called.
#pragma once

#include <concepts>
#include <cstddef>
#include <optional>

#include "detail/abi.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI {

// A callback of an advance or expire_all: called with each expired timer's
// hook, in firing order. What it returns is ignored.
template <class F, class Hook>
concept expiry_callback = std::invocable<F&, Hook&>;

// A visitor of for_each_pending: called with each pending timer's hook.
template <class F, class Hook>
concept pending_visitor = std::invocable<F&, const Hook&>;

namespace detail {
// Stand-ins used only to state the concept below.
template <class Hook>
struct expiry_callback_archetype {
  void operator()(Hook&) const noexcept {}
};
template <class Hook>
struct pending_visitor_archetype {
  void operator()(const Hook&) const noexcept {}
};
}  // namespace detail

// A timer structure: intrusive hooks of `hook_type`, absolute deadlines in
// unsigned ticks of `tick_type`, and the members of the contract
// (docs/contract.md): START_TIMER, STOP_TIMER, both forms of an advance, the
// exact next deadline, expire_all, clear, iteration and an invariant check.
template <class S>
concept timer_structure = std::unsigned_integral<typename S::tick_type> &&
    requires(S& s, const S& cs, typename S::hook_type& hook, const typename S::hook_type& chook,
             typename S::tick_type t,
             detail::expiry_callback_archetype<typename S::hook_type> on_expired,
             detail::pending_visitor_archetype<typename S::hook_type> visit) {
  { chook.pending() } -> std::same_as<bool>;
  { chook.deadline() } -> std::same_as<typename S::tick_type>;
  { cs.now() } -> std::same_as<typename S::tick_type>;
  { cs.size() } -> std::same_as<std::size_t>;
  { cs.empty() } -> std::same_as<bool>;
  { s.schedule(hook, t) } -> std::same_as<void>;
  { s.schedule_in_range(hook, t, t) } -> std::same_as<typename S::tick_type>;
  { s.cancel(hook) }
  noexcept->std::same_as<bool>;
  { s.advance(t, on_expired) } -> std::same_as<std::size_t>;
  { s.advance(t) } -> std::same_as<std::size_t>;
  { s.take_expired() }
  noexcept->std::same_as<typename S::hook_type*>;
  { cs.next_deadline() }
  noexcept->std::same_as<std::optional<typename S::tick_type>>;
  { cs.time_until_next() }
  noexcept->std::same_as<typename S::tick_type>;
  { s.expire_all(on_expired) } -> std::same_as<std::size_t>;
  { s.clear() }
  noexcept->std::same_as<void>;
  cs.for_each_pending(visit);
  cs.check_invariants();
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI
