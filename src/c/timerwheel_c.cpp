// The C face of the wheel (include/timerwheel.h): C linkage outside, the C++
// wheel inside. Every entry point that can meet an exception catches every
// exception and returns a tw_status; none crosses into C.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>

#define TIMERWHEEL_C_BUILDING 1
#include <timerwheel/levels.hpp>
#include <timerwheel/wheel.hpp>

#include <timerwheel.h>

#include "timerwheel_internal.h"

namespace tw = timerwheel;

// The common head of every wheel the C face makes: which configuration it
// is, and the message of its last failure. The wheel itself follows it in
// a wheel_box of that configuration.
struct tw_wheel {
  tw_config config;
  mutable char message[200];
  // The allocator it was made with (alloc null: operator new), and the
  // block it returned, which the wheel lies in, aligned.
  tw_allocator allocator;
  void* block;
};

namespace {

using config_default = tw::default_config;
using config_counted = tw::counted<tw::default_config>;
using config_wrap32 = tw::levels<std::uint32_t, 8, 8, 8, 8>;

template <class Config>
struct wheel_box : tw_wheel {
  explicit wheel_box(typename Config::tick_type now) : tw_wheel{}, wheel(now) {}
  tw::wheel<Config> wheel;
};

template <class Config>
using hook_of = typename tw::wheel<Config>::hook_type;

// The wheel of `w`, known to be of the default configuration.
TIMERWHEEL_ALWAYS_INLINE tw::wheel<config_default>& default_wheel(tw_wheel* w) noexcept {
  return static_cast<wheel_box<config_default>*>(w)->wheel;
}

// A tw_timer's storage holds a hook: 64-bit ticks for the 64-bit wheels,
// 32-bit ticks for the wrapping wheel. Both keep their links first, where
// tw_timer keeps them, and fit in it.
static_assert(sizeof(hook_of<config_default>) <= sizeof(tw_timer));
static_assert(alignof(hook_of<config_default>) <= alignof(tw_timer));
static_assert(sizeof(hook_of<config_wrap32>) <= sizeof(tw_timer));
static_assert(alignof(hook_of<config_wrap32>) <= alignof(tw_timer));
static_assert(std::is_same_v<hook_of<config_default>, hook_of<config_counted>>);

template <class Config>
hook_of<Config>& hook(tw_timer* timer) noexcept {
  return *std::launder(reinterpret_cast<hook_of<Config>*>(timer));
}

template <class Config>
const hook_of<Config>& hook(const tw_timer* timer) noexcept {
  return *std::launder(reinterpret_cast<const hook_of<Config>*>(timer));
}

template <class Hook>
tw_timer* timer_of(Hook& h) noexcept {
  return reinterpret_cast<tw_timer*>(&h);
}

template <class Hook>
const tw_timer* timer_of(const Hook& h) noexcept {
  return reinterpret_cast<const tw_timer*>(&h);
}

// Calls f(wheel, Config{}) with the wheel of a configuration other than the
// default: out of line and cold, so that a hot entry point holds the
// default's code alone and pays for the others one predictable branch.
// `f` is taken by value: a lambda of a few captured values travels in
// registers, so that the hot path builds no object in memory for it.
template <class F>
[[gnu::noinline, gnu::cold]] decltype(auto) visit_other(tw_wheel* w, F f) {
  switch (w->config) {
    case TW_CONFIG_COUNTED:
      return f(static_cast<wheel_box<config_counted>*>(w)->wheel, config_counted{});
    case TW_CONFIG_WRAP32:
      return f(static_cast<wheel_box<config_wrap32>*>(w)->wheel, config_wrap32{});
    case TW_CONFIG_DEFAULT:
    default:
      return f(static_cast<wheel_box<config_default>*>(w)->wheel, config_default{});
  }
}

// Calls f(wheel, Config{}) with the wheel of `w`'s configuration. The
// default configuration is inline, behind one branch; the others are a call.
template <class F>
TIMERWHEEL_ALWAYS_INLINE decltype(auto) visit(tw_wheel* w, F&& f) {
  if (w->config == TW_CONFIG_DEFAULT) [[likely]]
    return f(static_cast<wheel_box<config_default>*>(w)->wheel, config_default{});
  return visit_other(w, f);
}

template <class F>
decltype(auto) visit(const tw_wheel* w, F&& f) {
  return visit(const_cast<tw_wheel*>(w),
               [&](const auto& wheel, auto config) { return f(wheel, config); });
}

template <class Config>
typename Config::tick_type tick(std::uint64_t t) noexcept {
  // Wrapping ticks are taken modulo 2^32, as the header says.
  return static_cast<typename Config::tick_type>(t);
}

tw_status fail(const tw_wheel* w, tw_status status, const char* call, const char* what) noexcept {
  if (w != nullptr) std::snprintf(w->message, sizeof w->message, "%s: %s", call, what);
  return status;
}

// fail() for an entry point on the hot path: out of line and cold, so that
// the hot path sets up no arguments and saves no register for it.
[[gnu::noinline, gnu::cold]] tw_status fail_cold(const tw_wheel* w, tw_status status,
                                                 const char* call, const char* what) noexcept {
  return fail(w, status, call, what);
}

// The status of the exception in flight, with its message kept in the
// wheel; called from a catch block. `invalid` is the status of
// std::invalid_argument: what the wheel throws for a target behind now or a
// reversed range. Out of line and cold: an entry point's hot path carries
// one catch-all handler and nothing else.
[[gnu::noinline, gnu::cold]] tw_status caught(const tw_wheel* w, const char* call,
                                              tw_status invalid) noexcept {
  try {
    throw;
  } catch (const std::invalid_argument& e) {
    return fail(w, invalid, call, e.what());
  } catch (const std::logic_error& e) {
    // The wheel's only other logic_error outside tw_check: re-entry.
    return fail(w, TW_EREENTRY, call, e.what());
  } catch (const std::bad_alloc&) {
    return fail(w, TW_ENOMEM, call, "out of memory");
  } catch (const std::exception& e) {
    return fail(w, TW_EINTERNAL, call, e.what());
  } catch (...) {
    return fail(w, TW_EINTERNAL, call, "an exception that is not a std::exception");
  }
}

// Runs `body` and maps whatever it throws to a status (see caught()).
template <class Body>
tw_status guarded(const tw_wheel* w, const char* call, tw_status invalid, Body&& body) noexcept {
  try {
    body();
    return TW_OK;
  } catch (...) {
    return caught(w, call, invalid);
  }
}

template <class Config>
tw_status make(tw_wheel** out, tw_config config, std::uint64_t now, const tw_allocator* allocator) {
  using box_type = wheel_box<Config>;
  box_type* box = nullptr;
  void* block = nullptr;
  if (allocator == nullptr) {
    box = new box_type(tick<Config>(now));
  } else {
    // The allocator promises malloc's alignment at most: ask for enough to
    // align the box within the block.
    std::size_t space = sizeof(box_type) + alignof(box_type) - 1;
    block = allocator->alloc(space, allocator->arg);
    if (block == nullptr) return TW_ENOMEM;
    void* at = block;
    std::align(alignof(box_type), sizeof(box_type), at, space);
    box = ::new (at) box_type(tick<Config>(now));
    box->allocator = *allocator;
  }
  box->config = config;
  box->message[0] = '\0';
  box->block = block;
  *out = box;
  return TW_OK;
}

template <class Config>
void destroy(tw_wheel* w) noexcept {
  auto* box = static_cast<wheel_box<Config>*>(w);
  if (box->allocator.alloc == nullptr) {
    delete box;  // the destructor clears the wheel and throws nothing
  } else {
    const tw_allocator allocator = box->allocator;
    void* const block = box->block;
    box->~wheel_box<Config>();
    allocator.release(block, allocator.arg);
  }
}

tw_status new_wheel(tw_wheel** out, tw_config config, std::uint64_t now,
                    const tw_allocator* allocator) noexcept {
  if (out == nullptr) return TW_EINVAL;
  if (allocator != nullptr && (allocator->alloc == nullptr || allocator->release == nullptr))
    return TW_EINVAL;
  try {
    switch (config) {
      case TW_CONFIG_DEFAULT:
        return make<config_default>(out, config, now, allocator);
      case TW_CONFIG_COUNTED:
        return make<config_counted>(out, config, now, allocator);
      case TW_CONFIG_WRAP32:
        return make<config_wrap32>(out, config, now, allocator);
    }
    return TW_EINVAL;
  } catch (const std::bad_alloc&) {
    return TW_ENOMEM;
  } catch (...) {
    return TW_EINTERNAL;
  }
}

// The callback form of an expiry, for the wheel's advance and expire_all.
struct c_callback {
  tw_callback cb;
  void* user;
  template <class Hook>
  void operator()(Hook& h) const {
    cb(timer_of(h), user);
  }
};

// tw_advance on a wheel of configuration Config. Forced inline into
// tw_advance for the default configuration: its common path (nothing due)
// is a few loads and a store, and what a throw needs is in caught().
template <class Config>
TIMERWHEEL_ALWAYS_INLINE tw_status advance_in(tw_wheel* w, std::uint64_t to, tw_callback cb,
                                              void* user, std::size_t* fired) noexcept {
  try {
    const std::size_t n =
        static_cast<wheel_box<Config>*>(w)->wheel.advance(tick<Config>(to), c_callback{cb, user});
    if (fired != nullptr) *fired = n;
    return TW_OK;
  } catch (...) {
    return caught(w, "tw_advance", TW_EBEHIND);
  }
}

// tw_advance for the configurations other than the default. Not through
// visit_other(): its five arguments would go to the stack as a lambda's
// captures, on the hot path too, where here they stay in registers.
[[gnu::noinline, gnu::cold]] tw_status advance_other(tw_wheel* w, std::uint64_t to, tw_callback cb,
                                                     void* user, std::size_t* fired) noexcept {
  switch (w->config) {
    case TW_CONFIG_COUNTED:
      return advance_in<config_counted>(w, to, cb, user, fired);
    case TW_CONFIG_WRAP32:
      return advance_in<config_wrap32>(w, to, cb, user, fired);
    case TW_CONFIG_DEFAULT:
    default:
      return advance_in<config_default>(w, to, cb, user, fired);
  }
}

// The work of tw_schedule and tw_take_expired on a wheel of the default
// configuration, for their internal counterparts (timerwheel_internal.h):
// forced inline, so that each holds the wheel's code itself, which a link
// with -flto then inlines into the drop-ins whole, with no call left inside.
TIMERWHEEL_ALWAYS_INLINE void schedule_default(tw_wheel* w, tw_timer* timer,
                                               std::uint64_t deadline) noexcept {
  default_wheel(w).schedule(hook<config_default>(timer), deadline);
}

TIMERWHEEL_ALWAYS_INLINE tw_timer* take_expired_default(tw_wheel* w) noexcept {
  auto* const h = default_wheel(w).take_expired();
  return h == nullptr ? nullptr : timer_of(*h);
}

// GCC's noipa (no inlining, cloning or propagation of what a function
// returns across the call); noinline for clang, which has no noipa.
#if defined(__GNUC__) && !defined(__clang__)
#define TW_NOIPA [[gnu::noipa]]
#else
#define TW_NOIPA [[gnu::noinline]]
#endif

// tw_cancel's and tw_take_expired's paths for a null argument and for the
// configurations other than the default: out of line and cold (each a tail
// call from its entry point), so that the entry point's own path is the
// default wheel's code behind compare-and-branches, and keeps its arguments
// in registers. No inlining or cloning across them (noipa): a constant
// answer propagated into the caller would fold tw_cancel's two null tests
// back into one flag computation (two sete and an or) on the hot path.
TW_NOIPA [[gnu::cold]] bool cancel_null() noexcept { return false; }

TW_NOIPA [[gnu::cold]] bool cancel_other(tw_wheel* w, tw_timer* timer) noexcept {
  return visit_other(
      w, [=](auto& wheel, auto config) { return wheel.cancel(hook<decltype(config)>(timer)); });
}

TW_NOIPA [[gnu::cold]] tw_timer* take_expired_other(tw_wheel* w) noexcept {
  return visit_other(w, [](auto& wheel, auto) -> tw_timer* {
    auto* const h = wheel.take_expired();
    return h == nullptr ? nullptr : timer_of(*h);
  });
}

}  // namespace

// TW_HOT marks the entry points of a program's hot loop (schedule, cancel,
// take_expired): `used` keeps each emitted and exported wherever a link with
// -flto (the static library's fat LTO objects, TIMERWHEEL_C_LTO) inlines it
// into its callers. Not declared inline, which would get them the inliner's
// larger budget but disagree with the header's declaration (C++ callers see
// it without inline); not always_inline, which fails a consumer's link where
// inlining is impossible (a caller built with other sanitizers, or without
// exceptions for an entry point that catches them).
#if defined(__GNUC__) && !defined(__clang__)
#define TW_HOT __attribute__((used))
#else
#define TW_HOT
#endif

extern "C" {

void tw_timer_init(tw_timer* timer) {
  if (timer != nullptr) ::new (static_cast<void*>(timer)) hook_of<config_default>();
}

bool tw_timer_pending(const tw_timer* timer) {
  return timer != nullptr && hook<config_default>(timer).pending();
}

uint64_t tw_timer_deadline(const tw_wheel* w, const tw_timer* timer) {
  if (w == nullptr || timer == nullptr) return 0;
  return visit(w, [&](const auto&, auto config) -> std::uint64_t {
    return hook<decltype(config)>(timer).deadline();
  });
}

tw_status tw_wheel_new(tw_wheel** out, tw_config config, uint64_t now) {
  return new_wheel(out, config, now, nullptr);
}

tw_status tw_wheel_new_with(tw_wheel** out, tw_config config, uint64_t now,
                            const tw_allocator* allocator) {
  if (allocator == nullptr) return TW_EINVAL;
  return new_wheel(out, config, now, allocator);
}

void tw_wheel_free(tw_wheel* w) {
  if (w == nullptr) return;
  switch (w->config) {
    case TW_CONFIG_COUNTED:
      destroy<config_counted>(w);
      break;
    case TW_CONFIG_WRAP32:
      destroy<config_wrap32>(w);
      break;
    case TW_CONFIG_DEFAULT:
    default:
      destroy<config_default>(w);
      break;
  }
}

tw_config tw_wheel_config(const tw_wheel* w) {
  return w == nullptr ? TW_CONFIG_DEFAULT : w->config;
}

uint64_t tw_now(const tw_wheel* w) {
  if (w == nullptr) return 0;
  return visit(w, [](const auto& wheel, auto) -> std::uint64_t { return wheel.now(); });
}

size_t tw_size(const tw_wheel* w) {
  if (w == nullptr) return 0;
  return visit(w, [](const auto& wheel, auto) { return wheel.size(); });
}

bool tw_empty(const tw_wheel* w) {
  if (w == nullptr) return true;
  return visit(w, [](const auto& wheel, auto) { return wheel.empty(); });
}

TW_HOT tw_status tw_schedule(tw_wheel* w, tw_timer* timer, uint64_t deadline) {
  if (w == nullptr || timer == nullptr) [[unlikely]]
    return fail_cold(w, TW_EINVAL, "tw_schedule", "a null wheel or timer");
  visit(w, [=](auto& wheel, auto config) {
    using C = decltype(config);
    wheel.schedule(hook<C>(timer), tick<C>(deadline));
  });
  return TW_OK;
}

tw_status tw_schedule_in_range(tw_wheel* w, tw_timer* timer, uint64_t earliest, uint64_t latest,
                               uint64_t* chosen) {
  if (w == nullptr || timer == nullptr)
    return fail(w, TW_EINVAL, "tw_schedule_in_range", "a null wheel or timer");
  return guarded(w, "tw_schedule_in_range", TW_ERANGE, [&] {
    const std::uint64_t at = visit(w, [&](auto& wheel, auto config) -> std::uint64_t {
      using C = decltype(config);
      return wheel.schedule_in_range(hook<C>(timer), tick<C>(earliest), tick<C>(latest));
    });
    if (chosen != nullptr) *chosen = at;
  });
}

TW_HOT bool tw_cancel(tw_wheel* w, tw_timer* timer) {
  if (w == nullptr) [[unlikely]]
    return cancel_null();
  if (timer == nullptr) [[unlikely]]
    return cancel_null();
  if (w->config != TW_CONFIG_DEFAULT) [[unlikely]]
    return cancel_other(w, timer);
  return tw_internal_cancel(w, timer);
}

tw_status tw_advance(tw_wheel* w, uint64_t to, tw_callback cb, void* user, size_t* fired) {
  if (w == nullptr || cb == nullptr) [[unlikely]]
    return fail_cold(w, TW_EINVAL, "tw_advance", "a null wheel or callback");
  if (w->config == TW_CONFIG_DEFAULT) [[likely]]
    return advance_in<config_default>(w, to, cb, user, fired);
  return advance_other(w, to, cb, user, fired);
}

tw_status tw_advance_pull(tw_wheel* w, uint64_t to, size_t* queued) {
  if (w == nullptr) [[unlikely]]
    return TW_EINVAL;
  return guarded(w, "tw_advance_pull", TW_EBEHIND, [=] {
    const std::size_t n = visit(
        w, [=](auto& wheel, auto config) { return wheel.advance(tick<decltype(config)>(to)); });
    if (queued != nullptr) *queued = n;
  });
}

TW_HOT tw_timer* tw_take_expired(tw_wheel* w) {
  if (w == nullptr) [[unlikely]]
    return nullptr;
  if (w->config != TW_CONFIG_DEFAULT) [[unlikely]]
    return take_expired_other(w);
  return take_expired_default(w);
}

void tw_internal_schedule(tw_wheel* w, tw_timer* timer, uint64_t deadline) {
  schedule_default(w, timer, deadline);
}

bool tw_internal_cancel(tw_wheel* w, tw_timer* timer) {
  // The idle test first, on its own: each answer is then a constant on its
  // own path (GCC otherwise merges them into a register set on both).
  auto& h = hook<config_default>(timer);
  if (!h.pending()) return false;
  default_wheel(w).cancel(h);
  return true;
}

tw_timer* tw_internal_take_expired(tw_wheel* w) { return take_expired_default(w); }

tw_status tw_advance_to_next(tw_wheel* w, tw_callback cb, void* user, size_t* fired) {
  if (w == nullptr || cb == nullptr)
    return fail(w, TW_EINVAL, "tw_advance_to_next", "a null wheel or callback");
  return guarded(w, "tw_advance_to_next", TW_EINTERNAL, [&] {
    const std::size_t n = visit(w, [&](auto& wheel, auto) {
      return wheel.advance_to_next(c_callback{cb, user});
    });
    if (fired != nullptr) *fired = n;
  });
}

bool tw_next_deadline(const tw_wheel* w, uint64_t* deadline) {
  if (w == nullptr) return false;
  const std::optional<std::uint64_t> next =
      visit(w, [](const auto& wheel, auto) -> std::optional<std::uint64_t> {
        if (const auto d = wheel.next_deadline()) return *d;
        return std::nullopt;
      });
  if (!next) return false;
  if (deadline != nullptr) *deadline = *next;
  return true;
}

uint64_t tw_time_until_next(const tw_wheel* w) {
  if (w == nullptr) return std::numeric_limits<std::uint64_t>::max();
  return visit(w, [](const auto& wheel, auto) -> std::uint64_t { return wheel.time_until_next(); });
}

tw_status tw_expire_all(tw_wheel* w, tw_callback cb, void* user, size_t* fired) {
  if (w == nullptr || cb == nullptr)
    return fail(w, TW_EINVAL, "tw_expire_all", "a null wheel or callback");
  return guarded(w, "tw_expire_all", TW_EINTERNAL, [&] {
    const std::size_t n = visit(w, [&](auto& wheel, auto) {
      return wheel.expire_all(c_callback{cb, user});
    });
    if (fired != nullptr) *fired = n;
  });
}

tw_status tw_for_each_pending(const tw_wheel* w, tw_visitor visitor, void* user) {
  if (w == nullptr || visitor == nullptr)
    return fail(w, TW_EINVAL, "tw_for_each_pending", "a null wheel or visitor");
  return guarded(w, "tw_for_each_pending", TW_EINTERNAL, [&] {
    visit(w, [&](const auto& wheel, auto) {
      wheel.for_each_pending([&](const auto& h) { visitor(timer_of(h), user); });
    });
  });
}

void tw_clear(tw_wheel* w) {
  if (w == nullptr) return;
  visit(w, [](auto& wheel, auto) { wheel.clear(); });
}

tw_status tw_check(const tw_wheel* w) {
  if (w == nullptr) return TW_EINVAL;
  try {
    visit(w, [](const auto& wheel, auto) { wheel.check_invariants(); });
    return TW_OK;
  } catch (const std::logic_error& e) {
    return fail(w, TW_ECHECK, "tw_check", e.what());
  } catch (const std::bad_alloc&) {
    return fail(w, TW_ENOMEM, "tw_check", "out of memory");
  } catch (...) {
    return fail(w, TW_EINTERNAL, "tw_check", "an unexpected exception");
  }
}

const char* tw_strerror(tw_status status) {
  switch (status) {
    case TW_OK:
      return "success";
    case TW_EINVAL:
      return "invalid argument (a null pointer or an unknown configuration)";
    case TW_ERANGE:
      return "the range's earliest tick is after its latest";
    case TW_EBEHIND:
      return "the advance's target is behind the wheel's now";
    case TW_EREENTRY:
      return "advance or expire_all called from one of the wheel's callbacks";
    case TW_ENOMEM:
      return "out of memory";
    case TW_ECHECK:
      return "an invariant of the wheel is broken";
    case TW_EINTERNAL:
      return "internal error (an unexpected exception)";
  }
  return "unknown tw_status";
}

const char* tw_last_error(const tw_wheel* w) { return w == nullptr ? "" : w->message; }

}  // extern "C"
