// The implementations W7 runs, one class each, behind one face:
//   X(threads, records, n)   ready for timers 0..n-1 (records[k] holds timer k)
//   void schedule(k)         timer k fires at records[k].deadline_ns (steady_clock)
//   bool cancel(k)           true exactly when timer k will not fire
//   the destructor           stops the threads it started
// schedule and cancel are called from many threads at once, each k from one
// thread only.
//
//   service       timerwheel::timer_service: the lock-free queue, one worker
//   sharded       timerwheel::sharded_timer_service, one shard per core
//   mutex_wheel   a mutex around timers<steady_clock> and a worker thread: the
//                 design the service's queue was measured against
//   mutex_heap    a mutex around an indexed binary heap and a worker thread:
//                 the naive service
//   asio          Boost.Asio steady_timer on one io_context run by `threads`
//                 threads
//   timerfd       one timerfd per timer in one epoll set, waited on by
//                 `threads` threads
#pragma once

#include <timerwheel/timer_service.hpp>
#include <timerwheel/timers.hpp>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <system_error>
#include <thread>
#include <unistd.h>
#include <vector>

#include "../indexed_binary_heap.hpp"
#include "record.hpp"

namespace timerwheel_w7 {

inline clock::time_point time_of(std::int64_t ns) {
  return clock::time_point(
      std::chrono::duration_cast<clock::duration>(std::chrono::nanoseconds(ns)));
}

class service_impl {
 public:
  static constexpr const char* name = "service";
  service_impl(int, record* r, std::size_t n, std::chrono::microseconds tick)
      : r_(r), ids_(n), s_({.tick = tick}) {}
  void schedule(std::size_t k) {
    record* r = &r_[k];
    ids_[k] = s_.at(time_of(r->deadline_ns), [r] { r->fired(); });
  }
  bool cancel(std::size_t k) { return s_.cancel(ids_[k]); }
  std::size_t entries() const { return s_.capacity(); }
#ifdef TIMERWHEEL_SERVICE_PROBE
  // Stops the worker (every timer has fired or been cancelled by then) and
  // returns its rounds.
  const auto& stop_and_probe() {
    s_.shutdown(timerwheel::shutdown_policy::drop);
    return s_.probe();
  }
#endif

 private:
  record* r_;
  std::vector<timerwheel::service_timer_id> ids_;
  timerwheel::timer_service s_;
};

class sharded_impl {
 public:
  static constexpr const char* name = "sharded";
  sharded_impl(int, record* r, std::size_t n, std::chrono::microseconds tick)
      : r_(r), ids_(n), s_(std::max(1u, std::thread::hardware_concurrency()), {.tick = tick}) {}
  void schedule(std::size_t k) {
    record* r = &r_[k];
    ids_[k] = s_.at(time_of(r->deadline_ns), [r] { r->fired(); });
  }
  bool cancel(std::size_t k) { return s_.cancel(ids_[k]); }

 private:
  record* r_;
  std::vector<timerwheel::service_timer_id> ids_;
  timerwheel::sharded_timer_service s_;
};

// A mutex around a structure and a worker that sleeps on a condition
// variable until the earliest deadline; callbacks run under the mutex, so a
// cancel that finds the timer pending is the truth.
class mutex_wheel_impl {
 public:
  static constexpr const char* name = "mutex_wheel";
  mutex_wheel_impl(int, record* r, std::size_t n, std::chrono::microseconds tick)
      : r_(r), ids_(n), t_(timerwheel::tick_clock<clock>(tick)) {
    // Told when a schedule or cancel moves the earliest expiry (under the
    // mutex): next_expiry() may scan a slot, too dear to read per schedule.
    t_.watch_next_expiry([this] { moved_ = true; });
    worker_ = std::thread([this] { run(); });
  }
  ~mutex_wheel_impl() {
    {
      const std::lock_guard lock(m_);
      stop_ = true;
    }
    cv_.notify_one();
    worker_.join();
  }
  void schedule(std::size_t k) {
    record* r = &r_[k];
    bool earliest = false;
    {
      const std::lock_guard lock(m_);
      moved_ = false;
      ids_[k] = t_.at(time_of(r->deadline_ns), [r] { r->fired(); });
      earliest = moved_;
    }
    if (earliest) cv_.notify_one();
  }
  bool cancel(std::size_t k) {
    const std::lock_guard lock(m_);
    return t_.cancel(ids_[k]);
  }

 private:
  void run() {
    std::unique_lock lock(m_);
    while (!stop_) {
      t_.run_due();
      const auto next = t_.next_expiry();
      if (next)
        cv_.wait_until(lock, *next);
      else
        cv_.wait(lock);
    }
  }

  record* r_;
  std::vector<timerwheel::timer_id> ids_;
  std::mutex m_;
  std::condition_variable cv_;
  timerwheel::timers<clock> t_;
  bool moved_ = false;
  bool stop_ = false;
  std::thread worker_;
};

class mutex_heap_impl {
 public:
  static constexpr const char* name = "mutex_heap";
  mutex_heap_impl(int, record* r, std::size_t n, std::chrono::microseconds)
      : r_(r), nodes_(n), heap_(static_cast<std::uint64_t>(ns_of(clock::now()))) {
    worker_ = std::thread([this] { run(); });
  }
  ~mutex_heap_impl() {
    {
      const std::lock_guard lock(m_);
      stop_ = true;
    }
    cv_.notify_one();
    worker_.join();
  }
  void schedule(std::size_t k) {
    const auto d = static_cast<std::uint64_t>(r_[k].deadline_ns);
    bool earliest = false;
    {
      const std::lock_guard lock(m_);
      heap_.schedule(nodes_[k], d);
      // At the top: the worker may sleep past it. (Not by its deadline: one
      // before the heap's now is moved to now.)
      earliest = nodes_[k].index == 0;
    }
    if (earliest) cv_.notify_one();
  }
  bool cancel(std::size_t k) {
    const std::lock_guard lock(m_);
    return heap_.cancel(nodes_[k]);
  }

 private:
  void run() {
    std::unique_lock lock(m_);
    while (!stop_) {
      const auto now = static_cast<std::uint64_t>(ns_of(clock::now()));
      if (now > heap_.now())
        heap_.advance(now, [this](timerwheel_bench::heap_index_node& n) {
          r_[static_cast<std::size_t>(&n - nodes_.data())].fired();
        });
      const auto next = heap_.next_deadline();
      if (next)
        cv_.wait_until(lock, time_of(static_cast<std::int64_t>(*next)));
      else
        cv_.wait(lock);
    }
  }

  record* r_;
  std::vector<timerwheel_bench::heap_index_node> nodes_;
  std::mutex m_;
  std::condition_variable cv_;
  timerwheel_bench::indexed_heap<> heap_;
  bool stop_ = false;
  std::thread worker_;
};

class asio_impl {
 public:
  static constexpr const char* name = "asio";
  asio_impl(int threads, record* r, std::size_t n, std::chrono::microseconds)
      : r_(r), timers_(n), ctx_(threads), guard_(ctx_.get_executor()) {
    for (int i = 0; i < threads; ++i) runners_.emplace_back([this] { ctx_.run(); });
  }
  ~asio_impl() {
    timers_.clear();
    guard_.reset();
    ctx_.stop();
    for (auto& t : runners_) t.join();
  }
  void schedule(std::size_t k) {
    record* r = &r_[k];
    timers_[k] = std::make_unique<boost::asio::steady_timer>(ctx_, time_of(r->deadline_ns));
    timers_[k]->async_wait([r](const boost::system::error_code& ec) {
      if (!ec) r->fired();
    });
  }
  // cancel() returns how many waits it aborted: 1 means the handler will
  // see operation_aborted and not fire; 0, that it is already on its way.
  bool cancel(std::size_t k) {
    const std::size_t aborted = timers_[k]->cancel();
    timers_[k].reset();
    return aborted == 1;
  }

 private:
  record* r_;
  std::vector<std::unique_ptr<boost::asio::steady_timer>> timers_;
  boost::asio::io_context ctx_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_;
  std::vector<std::thread> runners_;
};

// One timerfd per timer. Whoever claims the timer first (the epoll thread
// that sees it expire, or cancel) closes its descriptor.
class timerfd_impl {
 public:
  static constexpr const char* name = "timerfd";
  timerfd_impl(int threads, record* r, std::size_t n, std::chrono::microseconds)
      : r_(r), fds_(n, -1), claim_(n) {
    ep_ = ::epoll_create1(EPOLL_CLOEXEC);
    if (ep_ < 0) throw std::system_error(errno, std::system_category(), "epoll_create1");
    for (int i = 0; i < threads; ++i) waiters_.emplace_back([this] { run(); });
  }
  ~timerfd_impl() {
    stop_ = true;
    for (auto& t : waiters_) t.join();
    for (std::size_t k = 0; k < fds_.size(); ++k)
      if (claim_[k].load() == 0 && fds_[k] >= 0) ::close(fds_[k]);
    ::close(ep_);
  }
  void schedule(std::size_t k) {
    const int fd = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (fd < 0) throw std::system_error(errno, std::system_category(), "timerfd_create");
    fds_[k] = fd;
    ::itimerspec spec{};
    const std::int64_t d = r_[k].deadline_ns;
    spec.it_value.tv_sec = d / 1'000'000'000;
    spec.it_value.tv_nsec = d % 1'000'000'000;
    if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;
    if (::timerfd_settime(fd, TFD_TIMER_ABSTIME, &spec, nullptr) != 0)
      throw std::system_error(errno, std::system_category(), "timerfd_settime");
    ::epoll_event ev{};
    ev.events = EPOLLIN | EPOLLONESHOT;
    ev.data.u64 = k;
    if (::epoll_ctl(ep_, EPOLL_CTL_ADD, fd, &ev) != 0)
      throw std::system_error(errno, std::system_category(), "epoll_ctl");
  }
  bool cancel(std::size_t k) {
    std::uint8_t expected = 0;
    if (!claim_[k].compare_exchange_strong(expected, 2)) return false;
    ::close(fds_[k]);
    return true;
  }

 private:
  void run() {
    ::epoll_event events[64];
    while (!stop_.load()) {
      const int n = ::epoll_wait(ep_, events, 64, 10);
      for (int i = 0; i < n; ++i) {
        const auto k = static_cast<std::size_t>(events[i].data.u64);
        std::uint8_t expected = 0;
        if (!claim_[k].compare_exchange_strong(expected, 1)) continue;
        r_[k].fired();
        ::close(fds_[k]);
      }
    }
  }

  record* r_;
  std::vector<int> fds_;
  std::vector<std::atomic<std::uint8_t>> claim_;  // 0 armed, 1 fired, 2 cancelled
  int ep_ = -1;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> waiters_;
};

}  // namespace timerwheel_w7
