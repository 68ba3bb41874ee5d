// detail::unique_function<R(Args...)>: a move-only callable with an inline
// buffer, so that a small lambda (up to four pointers of captures) is kept
// without an allocation. Bigger callables, or ones whose move may throw, live
// on the heap. Unlike std::function it holds move-only callables; unlike
// std::move_only_function (C++23) it is available in C++20.
#pragma once

#include <cstddef>
#include <functional>
#include <new>
#include <type_traits>
#include <utility>

#include "abi.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI {
namespace detail {

template <class Signature>
class unique_function;

template <class R, class... Args>
class unique_function<R(Args...)> {
 public:
  // Bytes a callable may take and still be kept inline.
  static constexpr std::size_t inline_size = 4 * sizeof(void*);

  // Empty: calling it is a precondition violation. Throws nothing.
  unique_function() noexcept = default;
  unique_function(std::nullptr_t) noexcept {}

  // Takes `f`, inline when it fits (see inline_size) and its move cannot
  // throw, else on the heap. Throws what moving `f` throws, and
  // std::bad_alloc when it goes to the heap.
  template <class F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, unique_function> &&
           std::is_invocable_r_v<R, std::decay_t<F>&, Args...> &&
           std::is_constructible_v<std::decay_t<F>, F>)
      unique_function(F&& f) {  // NOLINT(google-explicit-constructor): a callable converts
    using D = std::decay_t<F>;
    if constexpr (std::is_pointer_v<D> || std::is_member_pointer_v<D>) {
      if (f == nullptr) return;
    }
    if constexpr (fits_inline<D>()) {
      ::new (static_cast<void*>(buffer_)) D(std::forward<F>(f));
      ops_ = &inline_ops<D>;
    } else {
      *reinterpret_cast<D**>(buffer_) = new D(std::forward<F>(f));
      ops_ = &heap_ops<D>;
    }
  }

  unique_function(unique_function&& other) noexcept : ops_(other.ops_) {
    if (ops_ != nullptr) {
      ops_->relocate(other.buffer_, buffer_);
      other.ops_ = nullptr;
    }
  }

  unique_function& operator=(unique_function&& other) noexcept {
    if (this != &other) {
      reset();
      if (other.ops_ != nullptr) {
        other.ops_->relocate(other.buffer_, buffer_);
        ops_ = other.ops_;
        other.ops_ = nullptr;
      }
    }
    return *this;
  }

  unique_function& operator=(std::nullptr_t) noexcept {
    reset();
    return *this;
  }

  unique_function(const unique_function&) = delete;
  unique_function& operator=(const unique_function&) = delete;

  ~unique_function() { reset(); }

  // Destroys the callable held, if any. Throws nothing.
  void reset() noexcept {
    if (ops_ != nullptr) {
      ops_->destroy(buffer_);
      ops_ = nullptr;
    }
  }

  explicit operator bool() const noexcept { return ops_ != nullptr; }

  // Calls the callable held; it must not be empty. Throws what it throws.
  R operator()(Args... args) { return ops_->invoke(buffer_, std::forward<Args>(args)...); }

 private:
  struct ops {
    R (*invoke)(void*, Args&&...);
    void (*relocate)(void* from, void* to) noexcept;  // move to `to`, destroy `from`
    void (*destroy)(void*) noexcept;
  };

  template <class D>
  static constexpr bool fits_inline() noexcept {
    return sizeof(D) <= inline_size && alignof(D) <= alignof(void*) &&
           std::is_nothrow_move_constructible_v<D>;
  }

  template <class D>
  static constexpr ops inline_ops{[](void* p, Args&&... args) -> R {
                                    return std::invoke(*static_cast<D*>(p),
                                                       std::forward<Args>(args)...);
                                  },
                                  [](void* from, void* to) noexcept {
                                    D* d = static_cast<D*>(from);
                                    ::new (to) D(std::move(*d));
                                    d->~D();
                                  },
                                  [](void* p) noexcept { static_cast<D*>(p)->~D(); }};

  template <class D>
  static constexpr ops heap_ops{
      [](void* p, Args&&... args) -> R {
        return std::invoke(**static_cast<D**>(p), std::forward<Args>(args)...);
      },
      [](void* from, void* to) noexcept { *static_cast<D**>(to) = *static_cast<D**>(from); },
      [](void* p) noexcept { delete *static_cast<D**>(p); }};

  const ops* ops_ = nullptr;
  alignas(void*) unsigned char buffer_[inline_size];
};

}  // namespace detail
}  // namespace timerwheel::inline TIMERWHEEL_ABI
