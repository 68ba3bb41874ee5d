// The intrusive hook a timer embeds to be kept by a wheel.
#pragma once

#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "detail/abi.hpp"
#include "detail/link.hpp"
#include "detail/misuse.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI {

namespace detail {
struct hook_access;
}

// `basic_timer_hook<Tick>`: embed one in each object that is a timer. The
// structure that keeps the timer links it in place; no allocation is made.
//
// A pending hook is linked into a structure by address: it may not be copied,
// moved, assigned to or destroyed until it fires or is cancelled. Debug builds
// (NDEBUG not defined, or TIMERWHEEL_CHECKED=1) catch each of these with a
// message and abort. An idle hook may be copied; the copy is idle. Checked
// and unchecked hooks are different types (detail/abi.hpp), so translation
// units built with and without NDEBUG may share a program.
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

// --- owner_of: from a hook to the object that embeds it ---------------------

namespace detail {

// Stands in for the types of a member pointer that names no hook, so that
// owner_of's constraint, not a failed substitution, is what refuses it.
struct not_a_hook_member {};

template <class P>
struct member_pointer_traits {
  using owner = not_a_hook_member;
  using member = not_a_hook_member;
};
template <class C, class M>
struct member_pointer_traits<M C::*> {
  using owner = C;
  using member = std::remove_cv_t<M>;
};

// Whether H is basic_timer_hook<H::tick_type> or derives from it publicly
// and not virtually, so that the hook a structure hands out casts down to it.
template <class H, class = void>
inline constexpr bool is_timer_hook = false;
template <class H>
inline constexpr bool
    is_timer_hook<H, std::void_t<decltype(static_cast<H&>(
                         std::declval<basic_timer_hook<typename H::tick_type>&>()))>> =
        std::derived_from<H, basic_timer_hook<typename H::tick_type>>;

// The hook type a structure hands its callbacks, for a hook member's type.
template <class M, bool = is_timer_hook<M>>
struct handed_hook {
  using type = not_a_hook_member;
};
template <class M>
struct handed_hook<M, true> {
  using type = basic_timer_hook<typename M::tick_type>;
};

template <auto Member>
using owner_t = typename member_pointer_traits<decltype(Member)>::owner;
template <auto Member>
using member_t = typename member_pointer_traits<decltype(Member)>::member;
template <auto Member>
using handed_hook_t = typename handed_hook<member_t<Member>>::type;

// The offset of a data member in bytes, read from the member pointer's
// representation, which the ABI fixes: no object is needed, and none is
// made up (the classic &(((C*)0)->*member) reads through a null pointer).
template <auto Member>
std::ptrdiff_t member_offset() noexcept {
#if defined(_MSC_VER)
  // Microsoft ABI: a data member pointer of a class without virtual bases is
  // the member's offset in an int; with virtual bases it holds more.
  static_assert(sizeof(Member) == sizeof(int), "owner_of: a class with virtual bases");
  return std::bit_cast<int>(Member);
#elif defined(__GNUC__) || defined(__clang__)
  // Itanium C++ ABI (2.3): a data member pointer is the member's offset, as
  // a ptrdiff_t.
  static_assert(sizeof(Member) == sizeof(std::ptrdiff_t));
  return std::bit_cast<std::ptrdiff_t>(Member);
#else
  static_assert(sizeof(Member) == 0, "owner_of: no known representation of member pointers");
  return 0;
#endif
}

}  // namespace detail

// A timer hook type: basic_timer_hook<Tick>, or a class derived from one
// publicly and not virtually.
template <class H>
concept timer_hook_type = detail::is_timer_hook<H>;

// A pointer to a data member whose type is a timer hook type.
template <class P>
concept hook_member_pointer = std::is_member_object_pointer_v<P> &&
    timer_hook_type<typename detail::member_pointer_traits<P>::member>;

// owner_of<&C::m>(hook): the object of class C whose data member m is
// `hook`, as the hook a wheel hands its callback:
//
//   struct connection { int fd; timerwheel::timer_hook idle_timer; };
//   wheel.advance(now, [](timerwheel::timer_hook& h) {
//     connection& c = timerwheel::owner_of<&connection::idle_timer>(h);
//   });
//
// `Member` must be a pointer to a data member whose type is a timer hook
// type of the hook's tick type (hook_member_pointer); anything else fails
// the constraint at the call, and a null one a static_assert. The
// precondition, unchecked: `hook` is that member of a live C. O(1): one
// subtraction of a constant.
//
// A member declared in a base B makes &C::m a member pointer of B, and gives
// the B, from which static_cast<C&> gives the C. A hook that is a base class
// subobject (struct c : timer_hook) is not for owner_of: static_cast<c&>(hook)
// reaches its object, as the language defines.
//
// How: a hook keeps its links in a base and its deadline in itself, so no
// class that embeds one is standard-layout; offsetof is only conditionally
// supported there and takes a name, not a member pointer. The offset is read
// instead from the member pointer as the ABI represents it (Itanium: GCC,
// Clang; Microsoft: MSVC, for classes without virtual bases), and the owner
// lies that many bytes before the member: the container_of that intrusive
// containers rely on, which the standard leaves to the implementation.
template <hook_member_pointer auto Member>
detail::owner_t<Member>& owner_of(detail::handed_hook_t<Member>& hook) noexcept {
  static_assert(Member != nullptr, "owner_of: a null member pointer");
  auto* const at = reinterpret_cast<unsigned char*>(&static_cast<detail::member_t<Member>&>(hook));
  return *reinterpret_cast<detail::owner_t<Member>*>(at - detail::member_offset<Member>());
}

template <hook_member_pointer auto Member>
const detail::owner_t<Member>& owner_of(const detail::handed_hook_t<Member>& hook) noexcept {
  return owner_of<Member>(const_cast<detail::handed_hook_t<Member>&>(hook));
}

}  // namespace timerwheel::inline TIMERWHEEL_ABI
