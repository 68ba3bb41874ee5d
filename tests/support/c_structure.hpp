// The C API (timerwheel.h) dressed as a timer structure of the contract the
// lockstep runs (tests/support/lockstep.hpp): each call goes through the C
// functions of the compiled library, and each error code comes back as the
// exception the C++ wheel throws for it, so that the lockstep holds the C
// face to the same checks as the wheel itself. Needs timerwheel::c.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <timerwheel.h>
#include <type_traits>

#include "structures.hpp"

namespace timerwheel_test {

// A wheel of configuration `Config` through the C API, over ticks `Tick`
// (std::uint32_t for TW_CONFIG_WRAP32).
template <tw_config Config, class Tick>
class c_wheel {
 public:
  using tick_type = Tick;

  // A tw_timer, and the wheel it was last scheduled in (for its deadline).
  class hook_type {
   public:
    hook_type() noexcept { tw_timer_init(&timer_); }
    hook_type(const hook_type&) = delete;
    hook_type& operator=(const hook_type&) = delete;
    bool pending() const noexcept { return tw_timer_pending(&timer_); }
    Tick deadline() const noexcept { return static_cast<Tick>(tw_timer_deadline(wheel_, &timer_)); }

   private:
    friend class c_wheel;
    tw_timer timer_;
    const tw_wheel* wheel_ = nullptr;
  };

  explicit c_wheel(Tick now = 0) {
    if (tw_wheel_new(&w_, Config, now) != TW_OK) throw std::bad_alloc();
  }
  c_wheel(const c_wheel&) = delete;
  c_wheel& operator=(const c_wheel&) = delete;
  ~c_wheel() { tw_wheel_free(w_); }

  Tick now() const { return static_cast<Tick>(tw_now(w_)); }
  std::size_t size() const { return tw_size(w_); }
  bool empty() const { return tw_empty(w_); }

  void schedule(hook_type& h, Tick deadline) {
    h.wheel_ = w_;
    check(tw_schedule(w_, &h.timer_, deadline));
  }
  Tick schedule_in_range(hook_type& h, Tick earliest, Tick latest) {
    std::uint64_t chosen = 0;
    check(tw_schedule_in_range(w_, &h.timer_, earliest, latest, &chosen));
    h.wheel_ = w_;
    return static_cast<Tick>(chosen);
  }
  bool cancel(hook_type& h) { return tw_cancel(w_, &h.timer_); }

  template <class F>
  std::size_t advance(Tick to, F&& f) {
    return fire_through(f, [&](tw_callback cb, void* user, std::size_t* n) {
      return tw_advance(w_, to, cb, user, n);
    });
  }
  std::size_t advance(Tick to) {
    std::size_t n = 0;
    check(tw_advance_pull(w_, to, &n));
    return n;
  }
  template <class F>
  std::size_t advance_to_next(F&& f) {
    return fire_through(f, [&](tw_callback cb, void* user, std::size_t* n) {
      return tw_advance_to_next(w_, cb, user, n);
    });
  }
  hook_type* take_expired() { return owner(tw_take_expired(w_)); }
  template <class F>
  std::size_t expire_all(F&& f) {
    return fire_through(f, [&](tw_callback cb, void* user, std::size_t* n) {
      return tw_expire_all(w_, cb, user, n);
    });
  }

  std::optional<Tick> next_deadline() const {
    std::uint64_t d = 0;
    if (!tw_next_deadline(w_, &d)) return std::nullopt;
    return static_cast<Tick>(d);
  }
  Tick time_until_next() const {
    const std::uint64_t wait = tw_time_until_next(w_);
    // The C face says UINT32_MAX for an empty wrapping wheel: the largest tick.
    return static_cast<Tick>(wait);
  }
  void clear() { tw_clear(w_); }

  template <class F>
  void for_each_pending(F&& f) const {
    check(tw_for_each_pending(
        w_,
        [](const tw_timer* t, void* user) {
          (*static_cast<std::remove_reference_t<F>*>(user))(*owner(t));
        },
        &f));
  }

  void check_invariants() const {
    if (tw_check(w_) != TW_OK) throw std::logic_error(tw_last_error(w_));
  }

 private:
  static hook_type* owner(tw_timer* t) {
    return t == nullptr ? nullptr : reinterpret_cast<hook_type*>(t);
  }
  static const hook_type* owner(const tw_timer* t) { return reinterpret_cast<const hook_type*>(t); }

  // The error codes as the C++ wheel's exceptions.
  void check(tw_status s) const {
    switch (s) {
      case TW_OK:
        return;
      case TW_ERANGE:
      case TW_EBEHIND:
        throw std::invalid_argument(tw_last_error(w_));
      case TW_EREENTRY:
      case TW_ECHECK:
        throw std::logic_error(tw_last_error(w_));
      case TW_ENOMEM:
        throw std::bad_alloc();
      default:
        throw std::runtime_error(std::string(tw_strerror(s)) + ": " + tw_last_error(w_));
    }
  }

  // Runs `call` with a C callback that hands each timer to f; an exception
  // f throws is kept and thrown again once the C call has returned, never
  // through the library.
  template <class F, class Call>
  std::size_t fire_through(F& f, Call&& call) {
    struct context {
      F* f;
      std::exception_ptr error;
    } ctx{&f, nullptr};
    std::size_t n = 0;
    const tw_status s = call(
        [](tw_timer* t, void* user) {
          auto* c = static_cast<context*>(user);
          if (c->error) return;
          try {
            (*c->f)(*owner(t));
          } catch (...) {
            c->error = std::current_exception();
          }
        },
        &ctx, &n);
    if (ctx.error) std::rethrow_exception(ctx.error);
    check(s);
    return n;
  }

  tw_wheel* w_ = nullptr;
};

// hook_type is a tw_timer first: the C face hands back the tw_timer's
// address, which is the hook's.
static_assert(offsetof(tw_timer, tw_private_links) == 0);

using c_wheel_default = c_wheel<TW_CONFIG_DEFAULT, std::uint64_t>;
using c_wheel_counted = c_wheel<TW_CONFIG_COUNTED, std::uint64_t>;
using c_wheel_wrap32 = c_wheel<TW_CONFIG_WRAP32, std::uint32_t>;

template <tw_config Config, class Tick>
struct structure_traits<c_wheel<Config, Tick>> : unbounded {
  static std::string name() {
    return Config == TW_CONFIG_DEFAULT   ? "c_api_default"
           : Config == TW_CONFIG_COUNTED ? "c_api_counted"
                                         : "c_api_wrap32";
  }
};

// The C face's lanes: over 64-bit ticks, and over wrapping 32-bit ones.
using c_wheels64 = structure_list<c_wheel_default, c_wheel_counted>;
using c_wheels32 = structure_list<c_wheel_wrap32>;

}  // namespace timerwheel_test
