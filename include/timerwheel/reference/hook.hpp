// The intrusive hook of the reference schemes (timerwheel::reference).
//
// The core's basic_timer_hook is 24 bytes (two links and a deadline) and has
// no room for what some schemes of Varghese & Lauck keep with a timer: a heap
// index (scheme 3), a remainder (scheme 7). The reference schemes share this
// larger hook instead: the links, the deadline, a scheduling sequence number
// (which orders equal deadlines where a scheme keeps no scheduling order), a
// word for the scheme's own use and where the timer is held: 48 bytes with
// 64-bit ticks on 64-bit targets. Reference structures favour clarity over
// size; the core's hook stays at 24 bytes.
#pragma once

#include <cstdint>

#include "../detail/abi.hpp"
#include "../detail/link.hpp"
#include "../detail/misuse.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::reference {

namespace detail {
struct hook_access;

// Where a pending timer is: held by the scheme itself, or listed by the
// shared machinery (the pull form's queue, expire_all's batch).
enum class hook_state : std::uint8_t { idle, held, listed };
}  // namespace detail

// `basic_hook<Tick>`: embed one in each object that is a timer of a reference
// scheme; `S::hook_type` names it for scheme S. No allocation is made.
//
// A pending hook is linked into a structure by address: it may not be copied,
// moved, assigned to or destroyed until it fires or is cancelled. Debug builds
// (NDEBUG not defined, or TIMERWHEEL_CHECKED=1) catch each of these with a
// message and abort, as basic_timer_hook does. An idle hook may be copied; the
// copy is idle.
template <class Tick>
class basic_hook : private timerwheel::detail::link {
 public:
  using tick_type = Tick;

  basic_hook() noexcept = default;

  basic_hook(const basic_hook& other) noexcept : link{}, deadline_(other.deadline_) {
    check_idle(other, "copying or moving a pending timer hook");
  }

  basic_hook& operator=(const basic_hook& other) noexcept {
    check_idle(*this, "assigning to a pending timer hook");
    check_idle(other, "copying or moving a pending timer hook");
    deadline_ = other.deadline_;
    return *this;
  }

#if TIMERWHEEL_CHECKED
  ~basic_hook() { check_idle(*this, "destroying a pending timer hook (cancel it first)"); }
#else
  ~basic_hook() = default;
#endif

  // Whether the timer is scheduled: held by a scheme, or expired and waiting
  // to be taken by the pull form. O(1).
  bool pending() const noexcept { return state_ != detail::hook_state::idle; }

  // The deadline (ticks) of the last schedule; a deadline that was before
  // now reads as the now it was taken as. Meaningful once scheduled.
  Tick deadline() const noexcept { return deadline_; }

 private:
  friend struct detail::hook_access;

  static void check_idle([[maybe_unused]] const basic_hook& h,
                         [[maybe_unused]] const char* what) noexcept {
#if TIMERWHEEL_CHECKED
    if (h.pending()) timerwheel::detail::misuse(what);
#endif
  }

  Tick deadline_ = 0;
  std::uint64_t sequence_ = 0;  // scheduling order: larger is newer
  std::uint64_t word_ = 0;      // the scheme's: a heap index, a remainder
  detail::hook_state state_ = detail::hook_state::idle;
};

using hook = basic_hook<std::uint64_t>;

namespace detail {

// How the reference schemes reach a hook's parts.
struct hook_access {
  using link = timerwheel::detail::link;

  template <class Tick>
  static link& links(basic_hook<Tick>& h) noexcept {
    return h;
  }
  template <class Tick>
  static const link& links(const basic_hook<Tick>& h) noexcept {
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
  static void set_deadline(basic_hook<Tick>& h, Tick d) noexcept {
    h.deadline_ = d;
  }
  template <class Tick>
  static std::uint64_t sequence(const basic_hook<Tick>& h) noexcept {
    return h.sequence_;
  }
  template <class Tick>
  static void set_sequence(basic_hook<Tick>& h, std::uint64_t s) noexcept {
    h.sequence_ = s;
  }
  template <class Tick>
  static std::uint64_t word(const basic_hook<Tick>& h) noexcept {
    return h.word_;
  }
  template <class Tick>
  static void set_word(basic_hook<Tick>& h, std::uint64_t w) noexcept {
    h.word_ = w;
  }
  template <class Tick>
  static hook_state state(const basic_hook<Tick>& h) noexcept {
    return h.state_;
  }
  template <class Tick>
  static void set_state(basic_hook<Tick>& h, hook_state s) noexcept {
    h.state_ = s;
  }
};

}  // namespace detail
}  // namespace timerwheel::inline TIMERWHEEL_ABI::reference
