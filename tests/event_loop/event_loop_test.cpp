// event_loop on one thread: descriptors watched with callbacks (real pipes),
// timers on the real clock through the loop's timerfd, run_once's wait, and
// no descriptor leaked.
#include <timerwheel/event_loop.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fcntl.h>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <sys/epoll.h>
#include <system_error>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

#include "fd_count.hpp"

namespace {

using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;
using loop_type = timerwheel::event_loop<>;

// Scheduling on a shared machine may delay a wake-up; no test depends on a
// wake-up coming sooner than this after its time.
constexpr auto slack = 2s;

// A pipe, closed on destruction; write() makes the read end readable.
struct pipe_pair {
  int fds[2] = {-1, -1};
  pipe_pair() {
    if (::pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0)
      throw std::system_error(errno, std::system_category(), "pipe2");
  }
  ~pipe_pair() {
    for (int fd : fds) {
      if (fd >= 0) ::close(fd);
    }
  }
  pipe_pair(const pipe_pair&) = delete;
  pipe_pair& operator=(const pipe_pair&) = delete;
  int in() const { return fds[0]; }
  void write() const { ASSERT_EQ(::write(fds[1], "x", 1), 1); }
  void drain() const {
    char buf[64];
    while (::read(fds[0], buf, sizeof buf) > 0) {
    }
  }
};

TEST(EventLoop, WatchedDescriptorCallsBackWithItsEvents) {
  loop_type loop;
  pipe_pair p;
  std::vector<std::uint32_t> seen;
  loop.watch(p.in(), EPOLLIN, [&](std::uint32_t ev) {
    seen.push_back(ev);
    p.drain();
  });
  EXPECT_TRUE(loop.watching(p.in()));
  EXPECT_EQ(loop.watched(), 1u);
  EXPECT_EQ(loop.run_once(0ms), 0u) << "nothing is ready yet";
  p.write();
  EXPECT_EQ(loop.run_once(slack), 1u);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_TRUE(seen[0] & EPOLLIN);
  // Level-triggered: drained, it stays quiet.
  EXPECT_EQ(loop.run_once(20ms), 0u);
  EXPECT_EQ(seen.size(), 1u);
}

TEST(EventLoop, ModifyChangesTheEventsWatched) {
  loop_type loop;
  pipe_pair p;
  int calls = 0;
  // The write end of an empty pipe is always writable.
  loop.watch(p.fds[1], 0, [&](std::uint32_t ev) {
    EXPECT_TRUE(ev & EPOLLOUT);
    ++calls;
  });
  EXPECT_EQ(loop.run_once(20ms), 0u);
  loop.modify(p.fds[1], EPOLLOUT);
  EXPECT_EQ(loop.run_once(slack), 1u);
  EXPECT_EQ(calls, 1);
}

TEST(EventLoop, UnwatchedDescriptorIsNotCalledAgain) {
  loop_type loop;
  pipe_pair p;
  int calls = 0;
  loop.watch(p.in(), EPOLLIN, [&](std::uint32_t) { ++calls; });
  EXPECT_TRUE(loop.unwatch(p.in()));
  EXPECT_FALSE(loop.unwatch(p.in())) << "a second unwatch finds nothing";
  EXPECT_FALSE(loop.watching(p.in()));
  p.write();
  EXPECT_EQ(loop.run_once(30ms), 0u);
  EXPECT_EQ(calls, 0);
  // And it can be watched again.
  loop.watch(p.in(), EPOLLIN, [&](std::uint32_t) {
    ++calls;
    p.drain();
  });
  EXPECT_EQ(loop.run_once(slack), 1u);
  EXPECT_EQ(calls, 1);
}

TEST(EventLoop, EventOfADescriptorUnwatchedInTheSameWaitIsDropped) {
  loop_type loop;
  pipe_pair a;
  pipe_pair b;
  int calls = 0;
  // Both are ready in the same wait; whichever runs first unwatches the
  // other, whose event, already reported, must not reach its callback.
  loop.watch(a.in(), EPOLLIN, [&](std::uint32_t) {
    ++calls;
    loop.unwatch(b.in());
  });
  loop.watch(b.in(), EPOLLIN, [&](std::uint32_t) {
    ++calls;
    loop.unwatch(a.in());
  });
  a.write();
  b.write();
  EXPECT_EQ(loop.run_once(slack), 1u);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(loop.watched(), 1u);
}

TEST(EventLoop, AReusedDescriptorNumberDoesNotGetTheOldEvent) {
  loop_type loop;
  std::unique_ptr<pipe_pair> pipes[2] = {std::make_unique<pipe_pair>(),
                                         std::make_unique<pipe_pair>()};
  const int numbers[2] = {pipes[0]->in(), pipes[1]->in()};
  std::unique_ptr<pipe_pair> fresh;
  int first = -1;
  int fresh_calls = 0;
  // Both pipes are ready in one wait. Whichever callback runs first
  // unwatches and closes the other pipe and opens a new one, readable at
  // once, which gets the lowest free numbers: the closed read end's. The
  // closed pipe's event, already reported in this wait, must reach neither
  // the new descriptor's callback nor its own.
  auto on_ready = [&](int self) {
    return [&, self](std::uint32_t) {
      if (first >= 0) {
        ADD_FAILURE() << "the closed pipe's stale event ran its callback";
        return;
      }
      first = self;
      pipes[self]->drain();
      loop.unwatch(numbers[1 - self]);
      pipes[1 - self].reset();
      fresh = std::make_unique<pipe_pair>();
      fresh->write();
      loop.watch(fresh->in(), EPOLLIN, [&](std::uint32_t) {
        ++fresh_calls;
        fresh->drain();
      });
    };
  };
  loop.watch(numbers[0], EPOLLIN, on_ready(0));
  loop.watch(numbers[1], EPOLLIN, on_ready(1));
  pipes[0]->write();
  pipes[1]->write();
  EXPECT_EQ(loop.run_once(slack), 1u);
  ASSERT_GE(first, 0);
  EXPECT_EQ(fresh_calls, 0) << "the new descriptor (" << fresh->in() << ", the closed one was "
                            << numbers[1 - first] << ") got the closed one's event";
  // Its own readiness comes in the next wait.
  EXPECT_EQ(loop.run_once(slack), 1u);
  EXPECT_EQ(fresh_calls, 1);
}

TEST(EventLoop, CallbackMayUnwatchItself) {
  loop_type loop;
  pipe_pair p;
  std::string state = "alive";  // captured by value below: ASan sees any use after free
  int calls = 0;
  loop.watch(p.in(), EPOLLIN, [&, state](std::uint32_t) {
    loop.unwatch(p.in());
    ++calls;
    EXPECT_EQ(state, "alive");
  });
  p.write();
  EXPECT_EQ(loop.run_once(slack), 1u);
  EXPECT_EQ(loop.run_once(20ms), 0u);
  EXPECT_EQ(calls, 1);
}

TEST(EventLoop, BadArgumentsAreRefusedAndChangeNothing) {
  loop_type loop;
  pipe_pair p;
  loop.watch(p.in(), EPOLLIN, [](std::uint32_t) {});
  EXPECT_THROW(loop.watch(-1, EPOLLIN, [](std::uint32_t) {}), std::invalid_argument);
  try {
    loop.watch(p.in(), EPOLLIN, [](std::uint32_t) {});
    ADD_FAILURE() << "watched twice";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("already watched"), std::string::npos) << e.what();
  }
  EXPECT_THROW(loop.watch(p.fds[1], EPOLLOUT, loop_type::fd_callback{}), std::invalid_argument);
  EXPECT_THROW(loop.modify(p.fds[1], EPOLLOUT), std::invalid_argument);
  EXPECT_THROW(loop.run_once(-1ms), std::invalid_argument);
  // A regular file cannot be watched: epoll_ctl says EPERM, and the message
  // names the call.
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  try {
    loop.watch(::fileno(file), EPOLLIN, [](std::uint32_t) {});
    ADD_FAILURE() << "a regular file was watched";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EPERM);
    EXPECT_NE(std::string(e.what()).find("epoll_ctl"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(loop.watching(::fileno(file)));
  std::fclose(file);
  EXPECT_EQ(loop.watched(), 1u);
  EXPECT_TRUE(loop.watching(p.in()));
}

TEST(EventLoop, TimersFireThroughTheLoopNeverEarly) {
  loop_type loop;
  const auto start = steady::now();
  std::vector<int> order;
  int early = 0;
  for (int k : {40, 10, 30, 20}) {
    const auto requested = start + std::chrono::milliseconds(k);
    loop.timers().at(requested, [&, k, requested] {
      early += steady::now() < requested;
      order.push_back(k);
    });
  }
  std::size_t handled = 0;
  while (order.size() < 4 && steady::now() < start + 40ms + slack) handled += loop.run_once(1s);
  EXPECT_EQ(order, (std::vector<int>{10, 20, 30, 40}));
  EXPECT_EQ(early, 0);
  EXPECT_EQ(handled, 4u);
  EXPECT_GE(loop.timer_stats().wakeups, 1u);
  EXPECT_LE(loop.timer_stats().wakeups, 4u);
}

TEST(EventLoop, DescriptorAndTimerCallbacksDriveEachOther) {
  loop_type loop;
  pipe_pair p;
  int reads = 0;
  // Each read schedules a timer 10 ms later that writes to the pipe again:
  // three rounds of descriptor, timer, descriptor.
  loop.watch(p.in(), EPOLLIN, [&](std::uint32_t) {
    p.drain();
    if (++reads < 3) loop.timers().after(10ms, [&] { p.write(); });
  });
  p.write();
  const auto start = steady::now();
  while (reads < 3 && steady::now() < start + 30ms + slack) loop.run_once(1s);
  EXPECT_EQ(reads, 3);
  // Each timer was armed by the descriptor callback (outside run_due: one
  // settime each) and woke the loop once.
  EXPECT_EQ(loop.timer_stats().wakeups, 2u);
  EXPECT_EQ(loop.timer_stats().settime_calls, 2u);
  EXPECT_TRUE(loop.timers().empty());
}

TEST(EventLoop, IdleLoopMakesNoTimerfdWakeUps) {
  loop_type loop;
  const auto start = steady::now();
  // 200 ms with no timer: the timerfd is never armed and never wakes.
  while (steady::now() < start + 200ms) loop.run_once(50ms);
  EXPECT_EQ(loop.timer_stats().settime_calls, 0u);
  EXPECT_EQ(loop.timer_stats().wakeups, 0u);
  EXPECT_EQ(loop.timer_stats().spurious, 0u);
}

TEST(EventLoop, OneTimerMakesOneWakeUp) {
  loop_type loop;
  bool fired = false;
  loop.timers().after(30ms, [&] { fired = true; });
  const auto start = steady::now();
  while (!fired && steady::now() < start + 30ms + slack) loop.run_once(1s);
  ASSERT_TRUE(fired);
  // Then 100 ms more of running.
  const auto after = steady::now();
  while (steady::now() < after + 100ms) loop.run_once(50ms);
  // Expected exactly: one settime (armed when the timer was scheduled; the
  // timerfd disarms itself when it expires, so nothing is left to disarm)
  // and one wake-up (the timer's).
  EXPECT_EQ(loop.timer_stats().settime_calls, 1u);
  EXPECT_EQ(loop.timer_stats().wakeups, 1u);
  EXPECT_EQ(loop.timer_stats().spurious, 0u);
}

TEST(EventLoop, RunOnceWaitsAtMostItsLimit) {
  loop_type loop;
  const auto start = steady::now();
  EXPECT_EQ(loop.run_once(60ms), 0u);
  const auto waited = steady::now() - start;
  EXPECT_GE(waited, 60ms);
  EXPECT_LT(waited, 60ms + slack);
}

TEST(EventLoop, RunOnceTakesAnyDuration) {
  loop_type loop;
  pipe_pair p;
  int calls = 0;
  loop.watch(p.in(), EPOLLIN, [&](std::uint32_t) {
    ++calls;
    p.drain();
  });
  p.write();
  // The longest waits clamp to epoll's limit instead of overflowing; a
  // ready descriptor ends them at once.
  EXPECT_EQ(loop.run_once(std::chrono::hours::max()), 1u);
  p.write();
  EXPECT_EQ(loop.run_once(std::chrono::nanoseconds::max()), 1u);
  // A wait of 1 ns is rounded up to 1 ms, not down to a poll.
  const auto start = steady::now();
  EXPECT_EQ(loop.run_once(1ns), 0u);
  EXPECT_GE(steady::now() - start, 1ms);
  EXPECT_EQ(calls, 2);
}

TEST(EventLoop, StopEndsRunFromACallbackAndBeforeRun) {
  loop_type loop;
  // A stop made before run() makes it return at once, and is consumed.
  loop.stop();
  EXPECT_EQ(loop.run(), 0u);
  // From a timer's callback: run() returns after that wait's callbacks.
  int runs = 0;
  loop.timers().after(10ms, [&] {
    ++runs;
    loop.stop();
  });
  loop.timers().after(5s, [&] { ++runs; });
  EXPECT_EQ(loop.run(), 1u);
  EXPECT_EQ(runs, 1);
  // A pending stop makes run_once return 0 at once.
  loop.stop();
  const auto start = steady::now();
  EXPECT_EQ(loop.run_once(5s), 0u);
  EXPECT_LT(steady::now() - start, slack);
}

TEST(EventLoop, ACallbackExceptionLeavesTheLoopUsable) {
  loop_type loop;
  pipe_pair p;
  loop.watch(p.in(), EPOLLIN, [&](std::uint32_t) {
    p.drain();
    throw std::runtime_error("from a descriptor");
  });
  p.write();
  EXPECT_THROW(loop.run_once(slack), std::runtime_error);
  bool fired = false;
  loop.timers().after(1ms, [] { throw std::runtime_error("from a timer"); });
  loop.timers().after(20ms, [&] { fired = true; });
  const auto start = steady::now();
  EXPECT_THROW(
      {
        while (steady::now() < start + slack) loop.run_once(1s);
      },
      std::runtime_error);
  while (!fired && steady::now() < start + 20ms + slack) loop.run_once(1s);
  EXPECT_TRUE(fired);
}

TEST(EventLoop, LeaksNoDescriptor) {
  const std::size_t before = timerwheel_test::open_descriptors();
  {
    loop_type loop;
    // epoll, eventfd and timerfd.
    EXPECT_EQ(timerwheel_test::open_descriptors(), before + 3);
    pipe_pair p;
    loop.watch(p.in(), EPOLLIN, [&](std::uint32_t) { p.drain(); });
    loop.timers().after(5ms, [] {});
    loop.timers().after(1h, [] {});
    p.write();
    for (int k = 0; k < 5; ++k) loop.run_once(10ms);
    loop.stop();
    loop.run();
  }
  {
    timerwheel::event_loop<timerwheel::boot_clock> boot_loop;
    boot_loop.timers().after(1ms, [] {});
    boot_loop.run_once(slack);
  }
  EXPECT_EQ(timerwheel_test::open_descriptors(), before);
}

}  // namespace
