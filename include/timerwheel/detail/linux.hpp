// The runtime's only OS-specific code: thin wrappers over Linux's epoll,
// timerfd and eventfd, and an owning file descriptor. Every failing call
// throws std::system_error carrying errno and naming the call; EINTR is
// retried where a call may be interrupted. Nothing here knows about timers:
// timerfd_driver.hpp and event_loop.hpp are written against these functions
// alone, so a port to another system replaces this file.
#pragma once

#if !defined(__linux__)
#error "timerwheel's runtime (timerfd_driver, event_loop) needs Linux: epoll, timerfd, eventfd"
#endif

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <system_error>
#include <time.h>
#include <unistd.h>
#include <utility>

#include "abi.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::detail::os {

// Throws std::system_error for errno, its message naming the failed call.
[[noreturn]] inline void throw_errno(const char* call) {
  throw std::system_error(errno, std::system_category(), call);
}

// An owned file descriptor, closed on destruction. Move-only. A close that
// fails on destruction is ignored (the descriptor is gone either way on
// Linux, and a destructor may not throw).
class unique_fd {
 public:
  unique_fd() noexcept = default;
  explicit unique_fd(int fd) noexcept : fd_(fd) {}
  unique_fd(unique_fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  unique_fd& operator=(unique_fd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;
  ~unique_fd() { reset(); }

  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }

  // Closes the descriptor now, if any. Never retries on EINTR: on Linux the
  // descriptor is released even then, and a retry could close a descriptor
  // another thread has just been given.
  void reset() noexcept {
    if (fd_ >= 0) ::close(std::exchange(fd_, -1));
  }

 private:
  int fd_ = -1;
};

// --- epoll ------------------------------------------------------------------

// A new epoll instance, close-on-exec.
inline unique_fd epoll_create() {
  const int fd = ::epoll_create1(EPOLL_CLOEXEC);
  if (fd < 0) throw_errno("epoll_create1");
  return unique_fd(fd);
}

// epoll_ctl(op) for `fd` with `events` and the 64-bit user datum `data`.
inline void epoll_control(int epfd, int op, int fd, std::uint32_t events, std::uint64_t data) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = data;
  if (::epoll_ctl(epfd, op, fd, &ev) != 0) {
    switch (op) {
      case EPOLL_CTL_ADD:
        throw_errno("epoll_ctl(EPOLL_CTL_ADD)");
      case EPOLL_CTL_MOD:
        throw_errno("epoll_ctl(EPOLL_CTL_MOD)");
      default:
        throw_errno("epoll_ctl(EPOLL_CTL_DEL)");
    }
  }
}

// Removes `fd` from the epoll set. A descriptor already closed (EBADF) or
// not in the set (ENOENT) is not an error: epoll forgets a closed one itself.
inline void epoll_remove(int epfd, int fd) {
  if (::epoll_ctl(epfd, EPOLL_CTL_DEL, fd, nullptr) != 0 && errno != EBADF && errno != ENOENT) {
    throw_errno("epoll_ctl(EPOLL_CTL_DEL)");
  }
}

// Waits for events up to `timeout_ms` milliseconds (-1: no limit, 0: poll).
// Returns how many it stored in `out` (0 on timeout or on a signal, which
// counts as a spurious wake-up rather than an error).
inline int epoll_wait_for(int epfd, epoll_event* out, int capacity, int timeout_ms) {
  const int n = ::epoll_wait(epfd, out, capacity, timeout_ms);
  if (n < 0) {
    if (errno == EINTR) return 0;
    throw_errno("epoll_wait");
  }
  return n;
}

// --- timerfd ----------------------------------------------------------------

// A new non-blocking, close-on-exec timerfd on `clock_id` (CLOCK_MONOTONIC
// or CLOCK_BOOTTIME).
inline unique_fd timerfd_create(clockid_t clock_id) {
  const int fd = ::timerfd_create(clock_id, TFD_NONBLOCK | TFD_CLOEXEC);
  if (fd < 0) throw_errno("timerfd_create");
  return unique_fd(fd);
}

// Arms `fd` to expire once at the absolute time `since_epoch` of its clock
// (nanoseconds since that clock's epoch, as clock_gettime reads it). A time
// already past makes it readable at once. A time of zero would disarm, so
// it is taken as 1 ns, which is past as well.
inline void timerfd_arm_at(int fd, std::chrono::nanoseconds since_epoch) {
  auto ns = since_epoch.count();
  if (ns <= 0) ns = 1;
  itimerspec spec{};
  spec.it_value.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
  spec.it_value.tv_nsec = static_cast<long>(ns % 1'000'000'000);
  if (::timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, nullptr) != 0) {
    throw_errno("timerfd_settime");
  }
}

// Disarms `fd`: it will not expire until armed again.
inline void timerfd_disarm(int fd) {
  const itimerspec spec{};
  if (::timerfd_settime(fd, 0, &spec, nullptr) != 0) throw_errno("timerfd_settime");
}

// Reads the expiration count of a non-blocking timerfd: 0 if it has not
// expired since the last read (EAGAIN, or ECANCELED, which only a
// TFD_TIMER_CANCEL_ON_SET timer reports).
inline std::uint64_t timerfd_read(int fd) {
  std::uint64_t expirations = 0;
  for (;;) {
    const ssize_t n = ::read(fd, &expirations, sizeof expirations);
    if (n == static_cast<ssize_t>(sizeof expirations)) return expirations;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == ECANCELED)) return 0;
    if (n >= 0) errno = EIO;
    throw_errno("read(timerfd)");
  }
}

// --- eventfd ----------------------------------------------------------------

// A new non-blocking, close-on-exec eventfd with a count of zero.
inline unique_fd eventfd_create() {
  const int fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (fd < 0) throw_errno("eventfd");
  return unique_fd(fd);
}

// Adds 1 to the eventfd's count, making it readable. Async-signal-safe and
// callable from any thread; never throws: a full count (EAGAIN, after 2^64-2
// posts nobody read) still leaves the descriptor readable, which is all a
// wake-up needs.
inline void eventfd_post(int fd) noexcept {
  const std::uint64_t one = 1;
  while (::write(fd, &one, sizeof one) < 0 && errno == EINTR) {
  }
}

// Reads and resets the eventfd's count; 0 if it was not readable.
inline std::uint64_t eventfd_drain(int fd) {
  std::uint64_t count = 0;
  for (;;) {
    const ssize_t n = ::read(fd, &count, sizeof count);
    if (n == static_cast<ssize_t>(sizeof count)) return count;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return 0;
    if (n >= 0) errno = EIO;
    throw_errno("read(eventfd)");
  }
}

// --- clocks -----------------------------------------------------------------

// The time of `clock_id` (nanoseconds since its epoch), as a timerfd reads it.
inline std::chrono::nanoseconds clock_now(clockid_t clock_id) {
  timespec ts{};
  if (::clock_gettime(clock_id, &ts) != 0) throw_errno("clock_gettime");
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

}  // namespace timerwheel::inline TIMERWHEEL_ABI::detail::os
