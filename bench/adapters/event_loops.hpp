// Timers of event loops through their own public APIs, for W1 start/stop only (their clocks are
// real; see workloads/startstop.hpp): libevent's evtimer (event_add with a timeout / event_del
// on an event_base, a binary min-heap), libuv's uv_timer (uv_timer_start / uv_timer_stop, a
// pairing heap in 1.44) and Boost.Asio's steady_timer (expires_after + async_wait / cancel, an
// indexed binary heap; a cancelled wait's handler is queued and run by io_context::poll, which
// the workload calls every 100 steps). Ticks are milliseconds, one hour added.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <event2/event.h>
#include <memory>
#include <stdexcept>
#include <string>
#include <uv.h>
#include <vector>

namespace timerwheel_bench {

inline constexpr std::uint64_t event_loop_base_ms = 3'600'000;

class libevent_timers {
 public:
  static constexpr const char* name = "libevent";
  explicit libevent_timers(std::size_t n) : base_(event_base_new()), events_(n) {
    if (base_ == nullptr) throw std::runtime_error("event_base_new failed");
    for (auto& e : events_) e = evtimer_new(base_, &on_timer, this);
  }
  ~libevent_timers() {
    for (event* e : events_) event_free(e);
    event_base_free(base_);
  }
  libevent_timers(const libevent_timers&) = delete;
  libevent_timers& operator=(const libevent_timers&) = delete;

  void start(std::uint32_t i, std::uint64_t ticks) {
    const std::uint64_t ms = event_loop_base_ms + ticks;
    const timeval tv{static_cast<time_t>(ms / 1000), static_cast<suseconds_t>(ms % 1000 * 1000)};
    if (evtimer_add(events_[i], &tv) != 0) errors_ += "evtimer_add failed; ";
  }
  bool stop(std::uint32_t i) {
    const bool was = evtimer_pending(events_[i], nullptr) != 0;
    evtimer_del(events_[i]);
    return was;
  }
  void poll() noexcept {}
  std::string finish() {
    std::string e = errors_;
    if (fired_ != 0) e += "a timer fired; ";
    return e;
  }

 private:
  static void on_timer(evutil_socket_t, short, void* self) {
    ++static_cast<libevent_timers*>(self)->fired_;
  }
  event_base* base_;
  std::vector<event*> events_;
  std::uint64_t fired_ = 0;
  std::string errors_;
};

class libuv_timers {
 public:
  static constexpr const char* name = "libuv";
  explicit libuv_timers(std::size_t n) : timers_(n) {
    uv_loop_init(&loop_);
    for (auto& t : timers_) uv_timer_init(&loop_, &t);
  }
  ~libuv_timers() {
    for (auto& t : timers_) uv_close(reinterpret_cast<uv_handle_t*>(&t), nullptr);
    uv_run(&loop_, UV_RUN_NOWAIT);
    uv_loop_close(&loop_);
  }
  libuv_timers(const libuv_timers&) = delete;
  libuv_timers& operator=(const libuv_timers&) = delete;

  void start(std::uint32_t i, std::uint64_t ticks) {
    if (uv_timer_start(&timers_[i], &on_timer, event_loop_base_ms + ticks, 0) != 0) {
      errors_ += "uv_timer_start failed; ";
    }
  }
  bool stop(std::uint32_t i) {
    const bool was = uv_is_active(reinterpret_cast<uv_handle_t*>(&timers_[i])) != 0;
    uv_timer_stop(&timers_[i]);
    return was;
  }
  void poll() noexcept {}
  std::string finish() { return errors_; }

 private:
  static void on_timer(uv_timer_t*) {}
  uv_loop_t loop_{};
  std::vector<uv_timer_t> timers_;
  std::string errors_;
};

class asio_timers {
 public:
  static constexpr const char* name = "asio";
  explicit asio_timers(std::size_t n) {
    timers_.reserve(n);
    for (std::size_t k = 0; k < n; ++k) timers_.emplace_back(io_);
  }

  void start(std::uint32_t i, std::uint64_t ticks) {
    auto& t = timers_[i];
    t.expires_after(std::chrono::milliseconds(event_loop_base_ms + ticks));
    t.async_wait([this](const boost::system::error_code& ec) {
      if (ec == boost::asio::error::operation_aborted) {
        ++aborted_;
      } else {
        ++fired_;
      }
    });
  }
  bool stop(std::uint32_t i) {
    ++stops_;
    return timers_[i].cancel() == 1;
  }
  void poll() { io_.poll(); }
  std::string finish() {
    io_.poll();
    std::string e;
    if (fired_ != 0) e += "a timer fired; ";
    if (aborted_ != stops_) e += "a cancelled wait's handler did not run once; ";
    return e;
  }

 private:
  boost::asio::io_context io_;
  std::vector<boost::asio::steady_timer> timers_;
  std::uint64_t stops_ = 0;
  std::uint64_t aborted_ = 0;
  std::uint64_t fired_ = 0;
};

}  // namespace timerwheel_bench
