// The intrusive hook a timer embeds to be kept by a wheel.
#pragma once

#include <cstdint>

#include "detail/link.hpp"
#include "detail/misuse.hpp"

namespace timerwheel {

namespace detail {
struct hook_access;
}

// `basic_timer_hook<Tick>`: embed one in each object that is a timer. The
// structure that keeps the timer links it in place; no allocation is made.
//
// A pending hook is linked into a structure by address: it may not be copied,
// moved, assigned to or destroyed until it fires or is cancelled. Debug builds
// (NDEBUG not defined, or TIMERWHEEL_CHECKED=1) catch each of these with a
// message and abort. An idle hook may be copied; the copy is idle. Every
// translation unit of a program must agree on TIMERWHEEL_CHECKED.
template <class Tick>
class basic_timer_hook : private detail::link {
 public:
  using tick_type = Tick;

  basic_timer_hook() noexcept = default;

  basic_timer_hook(const basic_timer_hook& other) noexcept : link{}, deadline_(other.deadline_) {
    check_idle(other, "copying or moving a pending timer hook");
  }

  basic_timer_hook& operator=(const basic_timer_hook& other) noexcept {
    check_idle(*this, "assigning to a pending timer hook");
    check_idle(other, "copying or moving a pending timer hook");
    deadline_ = other.deadline_;
    return *this;
  }

#if TIMERWHEEL_CHECKED
  ~basic_timer_hook() { check_idle(*this, "destroying a pending timer hook (cancel it first)"); }
#else
  ~basic_timer_hook() = default;
#endif

  // Whether the timer is scheduled: waiting in a structure, or expired and
  // waiting to be taken by the pull form. O(1).
  bool pending() const noexcept { return next != nullptr; }

  // The deadline (ticks) of the last schedule; a deadline that was before
  // now reads as the now it was taken as. Meaningful once scheduled.
  Tick deadline() const noexcept { return deadline_; }

 private:
  friend struct detail::hook_access;

  static void check_idle([[maybe_unused]] const basic_timer_hook& h,
                         [[maybe_unused]] const char* what) noexcept {
#if TIMERWHEEL_CHECKED
    if (h.pending()) detail::misuse(what);
#endif
  }

  Tick deadline_ = 0;
};

using timer_hook = basic_timer_hook<std::uint64_t>;

static_assert(sizeof(timer_hook) <= 32, "a timer hook must fit in 32 bytes");
static_assert(sizeof(timer_hook) == 3 * sizeof(void*) || sizeof(void*) != 8,
              "on 64-bit targets a timer hook is 24 bytes: two links and a deadline");

namespace detail {

// How the structures of the library reach a hook's links and deadline.
struct hook_access {
  template <class Tick>
  static link& links(basic_timer_hook<Tick>& h) noexcept {
    return h;
  }
  template <class Tick>
  static const link& links(const basic_timer_hook<Tick>& h) noexcept {
    return h;
  }
  template <class Hook>
  static Hook& from_links(link& l) noexcept {
    return static_cast<Hook&>(l);
  }
  template <class Hook>
  static const Hook& from_links(const link& l) noexcept {
    return static_cast<const Hook&>(l);
  }
  template <class Tick>
  static void set_deadline(basic_timer_hook<Tick>& h, Tick d) noexcept {
    h.deadline_ = d;
  }
};

}  // namespace detail
}  // namespace timerwheel
