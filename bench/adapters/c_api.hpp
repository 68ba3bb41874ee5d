// The C face under the standard workloads: the C API (timerwheel.h) and the two drop-ins on it,
// ccan/timer (compat/ccan/timer/timer.h) and HiTime (compat/hitime.h), each called as a C
// program calls it, through the compiled library timerwheel::c (in timerwheel_bench_lto, as a
// program built with -flto calls it: the library's fat LTO objects inline). Compared with
// wheel6, the C++ wheel of the same configuration, in the same run (goal: within 10%).
#pragma once

#include <timerwheel/levels.hpp>
#include <timerwheel/wheel.hpp>

#include <ccan/timer/timer.h>
#include <cstddef>
#include <cstdint>
#include <hitime.h>
#include <optional>
#include <stdexcept>
#include <string>
#include <timerwheel.h>
#include <vector>

#include "../../src/c/timerwheel_internal.h"
#include "../c_floor.h"
#include "common.hpp"

namespace timerwheel_bench {

// A node: the structure's C struct and the workload's payload in one object of the layout's
// size, as intrusive_adapter's nodes are.
template <class Hook>
struct alignas(node_bytes_for<Hook>()) c_node {
  Hook hook;
  bench_payload payload;
};

inline void c_api_check(tw_status status, const char* call) {
  if (status != TW_OK) throw std::runtime_error(std::string(call) + ": " + tw_strerror(status));
}

// The index of the node whose hook is `hook`: the hook is the node's first member.
template <class Hook>
std::uint32_t c_node_index(const std::vector<c_node<Hook>>& nodes, const Hook* hook) noexcept {
  return static_cast<std::uint32_t>(reinterpret_cast<const c_node<Hook>*>(hook) - nodes.data());
}

// Shared by the three: nodes in one vector that never moves.
template <class Hook>
class c_adapter_base {
 public:
  using node = c_node<Hook>;
  static constexpr std::size_t hook_bytes = sizeof(Hook);
  static_assert(sizeof(node) == node_bytes_for<Hook>(), "hook and payload in one node's bytes");

  explicit c_adapter_base(std::size_t n) : nodes_(n) {}
  bench_payload& payload(std::uint32_t i) noexcept { return nodes_[i].payload; }
  const bench_payload& payload(std::uint32_t i) const noexcept { return nodes_[i].payload; }

 protected:
  std::vector<node> nodes_;
};

// tw_ directly: tw_schedule, tw_cancel, tw_advance with a callback.
class c_api_adapter : public c_adapter_base<tw_timer> {
 public:
  static constexpr const char* name = "c_api";

  explicit c_api_adapter(std::size_t n) : c_adapter_base(n) {
    c_api_check(tw_wheel_new(&wheel_, TW_CONFIG_DEFAULT, 0), "tw_wheel_new");
    for (node& x : nodes_) tw_timer_init(&x.hook);
  }
  c_api_adapter(const c_api_adapter&) = delete;
  c_api_adapter& operator=(const c_api_adapter&) = delete;
  ~c_api_adapter() { tw_wheel_free(wheel_); }

  void schedule(std::uint32_t i, std::uint64_t deadline) {
    node& x = nodes_[i];
    x.payload.requested = deadline;
    tw_schedule(wheel_, &x.hook, deadline);
  }
  bool cancel(std::uint32_t i) noexcept { return tw_cancel(wheel_, &nodes_[i].hook); }
  template <class F>
  std::size_t advance(std::uint64_t to, F&& f) {
    using callable = std::remove_reference_t<F>;
    struct context {
      c_api_adapter* self;
      callable* f;
    } ctx{this, &f};
    std::size_t fired = 0;
    c_api_check(tw_advance(
                    wheel_, to,
                    [](tw_timer* t, void* user) {
                      auto* c = static_cast<context*>(user);
                      (*c->f)(c_node_index(c->self->nodes_, t));
                    },
                    &ctx, &fired),
                "tw_advance");
    return fired;
  }
  std::uint64_t now() const noexcept { return tw_now(wheel_); }
  std::size_t size() const noexcept { return tw_size(wheel_); }
  // The harness's checks (not the workload's calls) read the hook's first link, null when idle
  // (TW_TIMER_INIT), rather than call tw_timer_pending: what checking costs the C++ wheel.
  bool pending(std::uint32_t i) const noexcept {
    return nodes_[i].hook.tw_private_links[0] != nullptr;
  }
  std::uint64_t hook_deadline(std::uint32_t i) const noexcept {
    return tw_timer_deadline(wheel_, &nodes_[i].hook);
  }
  std::optional<std::uint64_t> next_deadline() const {
    std::uint64_t d = 0;
    if (!tw_next_deadline(wheel_, &d)) return std::nullopt;
    return d;
  }
  void check_invariants() const { c_api_check(tw_check(wheel_), "tw_check"); }

 protected:
  tw_wheel* wheel_ = nullptr;
};

// The floor of the C API's checks: c_api with its schedule and cancel through the library's
// internal entry points (src/c/timerwheel_internal.h), out of line as tw_schedule and tw_cancel
// are but without their null tests and configuration test. Not a C API (a null pointer or
// another configuration is not caught): what the calls and the wheel cost without the checks.
class c_bare_adapter : public c_api_adapter {
 public:
  static constexpr const char* name = "c_bare";
  using c_api_adapter::c_api_adapter;

  void schedule(std::uint32_t i, std::uint64_t deadline) {
    node& x = nodes_[i];
    x.payload.requested = deadline;
    tw_internal_schedule(wheel_, &x.hook, deadline);
  }
  bool cancel(std::uint32_t i) noexcept { return tw_internal_cancel(wheel_, &nodes_[i].hook); }
};

// The floor of any out-of-line call: wheel6's own work, inline, and before each schedule and
// cancel a call with the same arguments (a wheel pointer loaded from the adapter, the timer, the
// deadline) to an empty function that no optimisation sees into (bench/c_floor.c). Its excess
// over wheel6 is what the calls alone cost the harness: argument set-up, call and return, and
// the registers they clobber, which the caller reloads.
class c_call_floor_adapter
    : public c_adapter_base<timerwheel::wheel<timerwheel::default_config>::hook_type> {
 public:
  static constexpr const char* name = "c_call_floor";

  explicit c_call_floor_adapter(std::size_t n) : c_adapter_base(n) {}
  c_call_floor_adapter(const c_call_floor_adapter&) = delete;
  c_call_floor_adapter& operator=(const c_call_floor_adapter&) = delete;

  void schedule(std::uint32_t i, std::uint64_t deadline) {
    node& x = nodes_[i];
    x.payload.requested = deadline;
    timerwheel_bench_empty_schedule(handle_, &x.hook, deadline);
    wheel_.schedule(x.hook, deadline);
  }
  bool cancel(std::uint32_t i) noexcept {
    node& x = nodes_[i];
    timerwheel_bench_empty_cancel(handle_, &x.hook);
    return wheel_.cancel(x.hook);
  }
  template <class F>
  std::size_t advance(std::uint64_t to, F&& f) {
    return wheel_.advance(to, [this, &f](hook_type& h) { f(c_node_index(nodes_, &h)); });
  }
  std::uint64_t now() const noexcept { return wheel_.now(); }
  std::size_t size() const noexcept { return wheel_.size(); }
  bool pending(std::uint32_t i) const noexcept { return nodes_[i].hook.pending(); }
  std::uint64_t hook_deadline(std::uint32_t i) const noexcept { return nodes_[i].hook.deadline(); }
  std::optional<std::uint64_t> next_deadline() const { return wheel_.next_deadline(); }
  void check_invariants() const { wheel_.check_invariants(); }

 private:
  using hook_type = timerwheel::wheel<timerwheel::default_config>::hook_type;
  // Declared after nodes_ (in the base): destroyed first, while the hooks are alive.
  timerwheel::wheel<timerwheel::default_config> wheel_{0};
  void* handle_ = &wheel_;
};

// ccan/timer: ticks are its grains (microseconds by default), handed over as struct timemono;
// an advance is timers_expire called until it returns NULL, one timer per call.
class ccan_timer_adapter : public c_adapter_base<timer> {
 public:
  static constexpr const char* name = "ccan_timer";

  explicit ccan_timer_adapter(std::size_t n) : c_adapter_base(n) {
    timers_init(&timers_, at(0));
    for (node& x : nodes_) timer_init(&x.hook);
  }
  ccan_timer_adapter(const ccan_timer_adapter&) = delete;
  ccan_timer_adapter& operator=(const ccan_timer_adapter&) = delete;
  ~ccan_timer_adapter() { timers_cleanup(&timers_); }

  void schedule(std::uint32_t i, std::uint64_t deadline) {
    node& x = nodes_[i];
    x.payload.requested = deadline;
    timer_addmono(&timers_, &x.hook, at(deadline));
  }
  bool cancel(std::uint32_t i) noexcept {
    // timer_del says nothing of whether the timer was added, and a ccan/timer program does not
    // ask; the workload's check of it reads the hook's first link (null when idle, as
    // TW_TIMER_INIT shows), which costs what the check costs the other structures.
    timer& t = nodes_[i].hook;
    const bool was = t.tw.tw_private_links[0] != nullptr;
    timer_del(&timers_, &t);
    return was;
  }
  template <class F>
  std::size_t advance(std::uint64_t to, F&& f) {
    const timemono when = at(to);
    std::size_t fired = 0;
    while (timer* t = timers_expire(&timers_, when)) {
      ++fired;
      f(c_node_index(nodes_, t));
    }
    return fired;
  }
  std::uint64_t now() const noexcept { return tw_now(timers_.wheel); }
  std::size_t size() const noexcept { return tw_size(timers_.wheel); }
  bool pending(std::uint32_t i) const noexcept {
    return nodes_[i].hook.tw.tw_private_links[0] != nullptr;
  }
  std::uint64_t hook_deadline(std::uint32_t i) const noexcept {
    return tw_timer_deadline(timers_.wheel, &nodes_[i].hook.tw);
  }
  std::optional<std::uint64_t> next_deadline() const {
    timemono first{};
    if (!timer_earliest(const_cast<timers*>(&timers_), &first)) return std::nullopt;
    return static_cast<std::uint64_t>(first.ts.tv_sec) * per_sec +
           static_cast<std::uint64_t>(first.ts.tv_nsec) / TIMER_GRANULARITY;
  }
  void check_invariants() const {
    if (timers_check(&timers_, nullptr) == nullptr)
      throw std::runtime_error(std::string("timers_check: ") + tw_last_error(timers_.wheel));
  }

 private:
  static constexpr std::uint64_t per_sec = 1'000'000'000 / TIMER_GRANULARITY;
  static timemono at(std::uint64_t ticks) noexcept {
    timemono m{};
    m.ts.tv_sec = static_cast<time_t>(ticks / per_sec);
    m.ts.tv_nsec = static_cast<long>(ticks % per_sec * TIMER_GRANULARITY);
    return m;
  }
  timers timers_{};
};

// HiTime: hitime_start, hitime_stop, and an advance that is hitime_timeout followed by
// hitime_get_next until it returns NULL.
class hitime_adapter : public c_adapter_base<hitimeout_t> {
 public:
  static constexpr const char* name = "hitime";

  explicit hitime_adapter(std::size_t n) : c_adapter_base(n) {
    hitime_init(&h_);
    for (node& x : nodes_) hitimeout_init(&x.hook);
  }
  hitime_adapter(const hitime_adapter&) = delete;
  hitime_adapter& operator=(const hitime_adapter&) = delete;
  ~hitime_adapter() { hitime_destroy(&h_); }

  // A deadline at or before now expires at once in HiTime, and fires at the next advance in
  // the workloads: the same.
  void schedule(std::uint32_t i, std::uint64_t deadline) {
    node& x = nodes_[i];
    x.payload.requested = deadline;
    hitime_touch(&h_, &x.hook, deadline);
  }
  bool cancel(std::uint32_t i) noexcept {
    // The workload's check, as for ccan_timer: the links read directly.
    hitimeout_t& t = nodes_[i].hook;
    const bool was = t.node.next != nullptr || t.timer.tw_private_links[0] != nullptr;
    hitime_stop(&h_, &t);
    return was;
  }
  template <class F>
  std::size_t advance(std::uint64_t to, F&& f) {
    std::size_t fired = 0;
    if (hitime_timeout(&h_, to)) {
      while (hitimeout_t* t = hitime_get_next(&h_)) {
        ++fired;
        f(c_node_index(nodes_, t));
      }
    }
    return fired;
  }
  std::uint64_t now() const noexcept { return h_.last; }
  std::size_t size() const noexcept { return tw_size(h_.wheel); }
  bool pending(std::uint32_t i) const noexcept {
    const hitimeout_t& t = nodes_[i].hook;
    return t.node.next != nullptr || t.timer.tw_private_links[0] != nullptr;
  }
  std::uint64_t hook_deadline(std::uint32_t i) const noexcept { return nodes_[i].hook.when; }
  std::optional<std::uint64_t> next_deadline() const {
    std::uint64_t d = 0;
    if (!tw_next_deadline(h_.wheel, &d)) return std::nullopt;
    return d;
  }
  void check_invariants() const { c_api_check(tw_check(h_.wheel), "tw_check"); }

 private:
  hitime_t h_{};
};

}  // namespace timerwheel_bench
