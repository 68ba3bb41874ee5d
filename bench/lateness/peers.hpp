// W7a lateness on the peers, through their own public APIs: Boost.Asio's
// steady_timer on an io_context (absolute expiry, expires_at), libuv's
// uv_timer (a delay in whole milliseconds from the loop's cached time, which
// uv_update_time refreshes before each arming) and libev's ev_timer (a delay
// in seconds from the loop's cached time, which ev_now_update refreshes
// before each arming). The requested time of those two is read just before
// their loop's time, so that it is never after the time they count from:
// an early firing of theirs is theirs, not a preemption between readings.
// Each runs the job on a loop of its own and returns what went wrong
// (empty: nothing).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstddef>
#include <ev.h>
#include <string>
#include <uv.h>
#include <vector>

#include "job.hpp"

namespace timerwheel_lateness {

inline std::string run_asio(const job& j, recorder& rec) {
  boost::asio::io_context io;
  std::vector<boost::asio::steady_timer> timers;
  timers.reserve(j.delays.size());
  std::string errors;
  for (std::size_t i = 0; i < j.delays.size(); ++i) {
    const auto requested = clock::now() + j.delays[i];
    rec.armed(i, requested);
    auto& t = timers.emplace_back(io);
    t.expires_at(requested);
    t.async_wait([&rec, &errors, i](const boost::system::error_code& ec) {
      if (ec) {
        errors += "asio: a wait ended with " + ec.message() + "; ";
        return;
      }
      rec.fired(i);
    });
  }
  rec.arming_done();
  io.run();
  return errors;
}

struct timer_slot {
  recorder* rec;
  std::size_t index;
};

inline std::string run_libuv(const job& j, recorder& rec) {
  uv_loop_t loop;
  if (uv_loop_init(&loop) != 0) return "uv_loop_init failed; ";
  std::vector<uv_timer_t> timers(j.delays.size());
  std::vector<timer_slot> slots(j.delays.size());
  std::string errors;
  for (std::size_t i = 0; i < j.delays.size(); ++i) {
    uv_timer_init(&loop, &timers[i]);
    slots[i] = {&rec, i};
    timers[i].data = &slots[i];
    // The clock first, then the loop's: a preemption between the two
    // readings then makes the timer late, never falsely early.
    const auto requested = clock::now() + j.delays[i];
    uv_update_time(&loop);
    rec.armed(i, requested);
    const auto ms = static_cast<std::uint64_t>(j.delays[i].count());
    if (uv_timer_start(
            &timers[i],
            [](uv_timer_t* t) {
              auto* s = static_cast<timer_slot*>(t->data);
              s->rec->fired(s->index);
            },
            ms, 0) != 0) {
      errors += "uv_timer_start failed; ";
    }
  }
  rec.arming_done();
  uv_run(&loop, UV_RUN_DEFAULT);
  for (auto& t : timers) uv_close(reinterpret_cast<uv_handle_t*>(&t), nullptr);
  uv_run(&loop, UV_RUN_DEFAULT);
  if (uv_loop_close(&loop) != 0) errors += "uv_loop_close failed; ";
  return errors;
}

inline std::string run_libev(const job& j, recorder& rec) {
  struct ev_loop* loop = ev_loop_new(EVFLAG_AUTO);
  if (loop == nullptr) return "ev_loop_new failed; ";
  std::vector<ev_timer> timers(j.delays.size());
  std::vector<timer_slot> slots(j.delays.size());
  for (std::size_t i = 0; i < j.delays.size(); ++i) {
    slots[i] = {&rec, i};
    const auto requested = clock::now() + j.delays[i];
    ev_now_update(loop);
    rec.armed(i, requested);
    const double seconds = static_cast<double>(j.delays[i].count()) / 1e3;
    ev_timer_init(
        &timers[i],
        [](struct ev_loop*, ev_timer* t, int) {
          auto* s = static_cast<timer_slot*>(t->data);
          s->rec->fired(s->index);
        },
        seconds, 0.);
    timers[i].data = &slots[i];
    ev_timer_start(loop, &timers[i]);
  }
  rec.arming_done();
  ev_run(loop, 0);
  ev_loop_destroy(loop);
  return {};
}

}  // namespace timerwheel_lateness
