// timerwheel::event_loop: a small epoll loop for users who have none: file
// descriptors watched with callbacks, the timers of timers.hpp driven by a
// timerfd, run / run_once, and a stop callable from any thread.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <sys/epoll.h>
#include <unordered_map>
#include <utility>

#include "clock.hpp"
#include "detail/abi.hpp"
#include "detail/linux.hpp"
#include "timerfd_driver.hpp"
#include "timers.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI {

// `event_loop<Clock>`: one epoll instance, an eventfd for stop(), and a
// timers<Clock> driven by a timerfd_driver, all owned by the loop and
// closed with it. Everything but stop() belongs to the thread that runs the
// loop.
//
// Descriptors are watched level-triggered (add EPOLLET to `events` for edge
// triggering); their callbacks get the ready events (EPOLLIN, EPOLLOUT,
// EPOLLERR, EPOLLHUP, ...). A callback may watch, modify and unwatch any
// descriptor, its own included, schedule and cancel timers, and call stop():
// an event already reported for a descriptor unwatched in the meantime is
// dropped, even if a new watch reuses its number. The loop never owns a
// watched descriptor: close it after unwatching it.
//
// An exception thrown by a callback leaves the loop through run() or
// run_once(); the loop stays usable, and the events of that wait not yet
// dispatched are reported again by the next wait (level-triggered).
//
// PERFORMANCE NOTE: a watch allocates its callback's record (a
// std::function in a shared_ptr, kept alive while it runs) and a hash-map
// node; each ready descriptor costs a hash lookup and one indirect call. A
// wait takes up to 64 events. Timers cost what timers<Clock> says, plus a
// timerfd_settime whenever the earliest expiry moves.
template <class Clock = std::chrono::steady_clock>
class event_loop {
 public:
  using clock_type = Clock;
  using duration = typename Clock::duration;
  using time_point = typename Clock::time_point;
  using timers_type = ::timerwheel::timers<Clock>;
  // Called with the ready events of a watched descriptor (epoll's bits).
  using fd_callback = std::function<void(std::uint32_t events)>;

  // A loop whose timers count ticks of `tick` (1 ms by default) on `clock`.
  // Throws std::invalid_argument for a tick that is not positive, and
  // std::system_error naming the call if epoll_create1, eventfd,
  // timerfd_create or epoll_ctl fails.
  explicit event_loop(duration tick = tick_clock<Clock>::default_tick(), Clock clock = Clock{})
      : event_loop(tick_clock<Clock>(tick, std::move(clock))) {}

  // A loop whose timers read `clock` (see timers<Clock>). Throws as above.
  explicit event_loop(tick_clock<Clock> clock)
      : timers_(std::move(clock)),
        driver_(timers_),
        epoll_(detail::os::epoll_create()),
        wake_(detail::os::eventfd_create()) {
    detail::os::epoll_control(epoll_.get(), EPOLL_CTL_ADD, wake_.get(), EPOLLIN, wake_token);
    detail::os::epoll_control(epoll_.get(), EPOLL_CTL_ADD, driver_.fd(), EPOLLIN, timer_token);
  }

  event_loop(const event_loop&) = delete;
  event_loop& operator=(const event_loop&) = delete;

  // --- descriptors ----------------------------------------------------------

  // Watches `fd` for `events` (EPOLLIN, EPOLLOUT, ... : epoll's bits; errors
  // and hang-ups are always reported) and calls `on_ready` with the ready
  // events each time the loop finds it ready. O(1) amortized, one epoll_ctl.
  // Throws std::invalid_argument if `fd` is negative, one of the loop's own,
  // already watched or `on_ready` is empty, and std::system_error naming
  // epoll_ctl if the kernel refuses it (EPERM for a regular file); nothing
  // changes when it throws.
  void watch(int fd, std::uint32_t events, fd_callback on_ready) {
    if (fd < 0) throw std::invalid_argument("timerwheel: event_loop::watch: negative descriptor");
    if (fd == wake_.get() || fd == driver_.fd() || fd == epoll_.get()) {
      throw std::invalid_argument("timerwheel: event_loop::watch: the loop's own descriptor");
    }
    if (!on_ready) throw std::invalid_argument("timerwheel: event_loop::watch: empty callback");
    if (watchers_.contains(fd)) {
      throw std::invalid_argument("timerwheel: event_loop::watch: descriptor " +
                                  std::to_string(fd) + " is already watched");
    }
    auto w = std::make_shared<watcher>(watcher{next_generation(), std::move(on_ready)});
    const auto it = watchers_.emplace(fd, std::move(w)).first;
    try {
      detail::os::epoll_control(epoll_.get(), EPOLL_CTL_ADD, fd, events,
                                token(fd, it->second->generation));
    } catch (...) {
      watchers_.erase(it);
      throw;
    }
  }

  // Changes the events a watched `fd` is watched for. One epoll_ctl. Throws
  // std::invalid_argument if `fd` is not watched, and std::system_error
  // naming epoll_ctl if it fails.
  void modify(int fd, std::uint32_t events) {
    const auto it = watchers_.find(fd);
    if (it == watchers_.end()) {
      throw std::invalid_argument("timerwheel: event_loop::modify: descriptor " +
                                  std::to_string(fd) + " is not watched");
    }
    detail::os::epoll_control(epoll_.get(), EPOLL_CTL_MOD, fd, events,
                              token(fd, it->second->generation));
  }

  // Stops watching `fd`: its callback is not called again, not even for an
  // event already reported. Returns false (and does nothing) if it was not
  // watched. Call it before closing the descriptor. O(1); throws
  // std::system_error naming epoll_ctl only if the kernel refuses to forget
  // a descriptor that is still open (the loop forgets it all the same).
  bool unwatch(int fd) {
    const auto it = watchers_.find(fd);
    if (it == watchers_.end()) return false;
    watchers_.erase(it);
    detail::os::epoll_remove(epoll_.get(), fd);
    return true;
  }

  // Whether `fd` is watched. O(1).
  bool watching(int fd) const noexcept { return watchers_.contains(fd); }

  // How many descriptors are watched (the loop's own not counted).
  std::size_t watched() const noexcept { return watchers_.size(); }

  // --- timers ---------------------------------------------------------------

  // The loop's timers: after, at, every, cancel (timers.hpp). Their
  // callbacks run inside run() and run_once(), on the loop's thread. Leave
  // their watch_next_expiry alone: the loop's timerfd driver holds it.
  timers_type& timers() noexcept { return timers_; }
  const timers_type& timers() const noexcept { return timers_; }

  // The timerfd's counts: settime calls, wake-ups, timers run.
  const timerfd_stats& timer_stats() const noexcept { return driver_.stats(); }

  // --- running --------------------------------------------------------------

  // Runs until stop(): waits for descriptors and timers and calls their
  // callbacks. Returns how many callbacks it called (descriptor and timer
  // callbacks). A stop() made before the call makes it return at once, and
  // each stop() ends one run (the request is consumed). Throws what a
  // callback throws, and std::system_error naming epoll_wait if it fails.
  std::size_t run() {
    std::size_t handled = 0;
    while (!stop_requested_.exchange(false, std::memory_order_acquire)) {
      handled += wait_and_dispatch(-1);
    }
    return handled;
  }

  // Waits at most `max_wait` (rounded up to whole milliseconds; zero: do
  // not wait) for something to be ready, then calls the callbacks of what
  // is ready. Returns how many callbacks it called (0 if the wait ran out,
  // or stop() or a signal woke it). A stop() pending when it is called is
  // consumed, and it returns 0 at once; one made during its wait wakes it
  // and stays pending for the next run() or run_once(). Throws
  // std::invalid_argument for a negative `max_wait` (before waiting), what a
  // callback throws, and std::system_error naming epoll_wait if it fails.
  template <class Rep, class Period>
  std::size_t run_once(std::chrono::duration<Rep, Period> max_wait) {
    if (max_wait < max_wait.zero()) {
      throw std::invalid_argument("timerwheel: event_loop::run_once: negative max_wait");
    }
    if (stop_requested_.exchange(false, std::memory_order_acquire)) return 0;
    // In floating milliseconds, so that no duration overflows (hours::max()
    // included); exact for waits up to epoll's limit of INT_MAX ms.
    const std::chrono::duration<double, std::milli> wait = max_wait;
    const double ms = std::ceil(wait.count());
    return wait_and_dispatch(ms >= INT_MAX ? INT_MAX : static_cast<int>(ms));
  }

  // Makes the run() in progress return after the callbacks of its current
  // wait, or the next run() or run_once() return at once if none is in
  // progress. Callable from any thread and from a signal handler
  // (an atomic store and a write to an eventfd); never throws.
  void stop() noexcept {
    stop_requested_.store(true, std::memory_order_release);
    detail::os::eventfd_post(wake_.get());
  }

 private:
  struct watcher {
    std::uint32_t generation;
    fd_callback on_ready;
  };

  // epoll's datum of a descriptor: its number and the generation of its
  // watch, so that an event reported before an unwatch (and a new watch of
  // the same number) is recognised as stale. Generation 0 marks the loop's
  // own descriptors.
  static constexpr std::uint64_t token(int fd, std::uint32_t generation) noexcept {
    return (std::uint64_t{generation} << 32) | static_cast<std::uint32_t>(fd);
  }
  static constexpr std::uint64_t wake_token = 0;
  static constexpr std::uint64_t timer_token = 1;

  std::uint32_t next_generation() noexcept {
    if (++generation_ == 0) ++generation_;  // 0 is the loop's own
    return generation_;
  }

  // One epoll_wait of at most `timeout_ms` (-1: no limit) and the callbacks
  // of what it found ready.
  std::size_t wait_and_dispatch(int timeout_ms) {
    std::array<epoll_event, 64> events;
    const int n = detail::os::epoll_wait_for(epoll_.get(), events.data(),
                                             static_cast<int>(events.size()), timeout_ms);
    std::size_t handled = 0;
    for (int i = 0; i < n; ++i) {
      const epoll_event& e = events[static_cast<std::size_t>(i)];
      const std::uint64_t data = e.data.u64;
      if (data == wake_token) {
        detail::os::eventfd_drain(wake_.get());
        continue;
      }
      if (data == timer_token) {
        handled += driver_.on_readable();
        continue;
      }
      const int fd = static_cast<int>(static_cast<std::uint32_t>(data));
      const auto generation = static_cast<std::uint32_t>(data >> 32);
      const auto it = watchers_.find(fd);
      if (it == watchers_.end() || it->second->generation != generation) continue;  // stale
      // Held here so that the callback survives its own unwatch.
      const std::shared_ptr<watcher> w = it->second;
      ++handled;
      w->on_ready(e.events);
    }
    return handled;
  }

  timers_type timers_;
  timerfd_driver<Clock> driver_;
  detail::os::unique_fd epoll_;
  detail::os::unique_fd wake_;
  std::unordered_map<int, std::shared_ptr<watcher>> watchers_;
  std::uint32_t generation_ = 0;
  std::atomic<bool> stop_requested_{false};
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI
