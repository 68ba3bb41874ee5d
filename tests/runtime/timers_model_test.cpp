// timers<manual_clock> in lockstep with a plain model, on random operations:
// one-shot and periodic timers of every policy, cancels (stale ids
// included), callbacks that schedule, cancel others and cancel themselves,
// clock steps forward (stalls of many periods included) and back, and a
// watcher. The model keeps its timers in a vector and finds the next one by
// a linear scan; its periodic arithmetic steps a period at a time instead of
// dividing. Every firing is checked as it happens (which timer, at which
// tick), and after every step: size, pending, next_expiry, the watcher's
// calls. Seeds print on failure; TIMERWHEEL_SEED and TIMERWHEEL_STEPS
// replay or lengthen a run.
#include <timerwheel/timers.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/rng.hpp"

namespace {

namespace tw = timerwheel;
using namespace std::chrono_literals;
using manual = tw::manual_clock;
using tp = manual::time_point;
using ns = std::chrono::nanoseconds;

enum class kind { once, rate, delay_kind };

// What a timer's callback does, chosen when it is made.
enum class action { none, schedule_child, cancel_other, cancel_self };

struct model_timer {
  tw::timer_id id;
  kind type = kind::once;
  tw::missed_ticks policy = tw::missed_ticks::skip;
  std::uint64_t tick = 0;  // the wheel's deadline
  std::uint64_t seq = 0;   // scheduling order: ties fire FIFO
  tp due{};                // fixed rate: this firing's grid point
  ns period{};
  action act = action::none;
  std::uint64_t param = 0;  // the child's delay (ns), or which timer to cancel
  int cancel_after = 0;     // cancel_self: on this firing
  int firings = 0;
  bool alive = true;
};

class lockstep {
 public:
  lockstep(std::uint64_t seed, ns tick)
      : g_(seed), clock_(), t_(tw::tick_clock<manual>(tick, clock_)), tick_(tick) {
    t_.watch_next_expiry([this] { ++watcher_calls_; });
  }

  void step() {
    const std::uint64_t r = g_.below(100);
    if (r < 30) {
      add(random_kind());
    } else if (r < 45) {
      cancel_random();
    } else if (r < 85) {
      move_clock();
      run();
    } else if (r < 90) {
      clock_.set(clock_.now() - ns(static_cast<std::int64_t>(g_.below(20 * tick_ns()))));  // back
      run();
    } else {
      // A timer at a time point of its own, past ones (and before the epoch) too.
      const auto offset = static_cast<std::int64_t>(g_.below(40 * tick_ns())) -
                          static_cast<std::int64_t>(20 * tick_ns());
      add_at(clock_.now() + ns(offset));
    }
    check();
  }

  std::size_t fired() const { return fired_; }

 private:
  kind random_kind() {
    const std::uint64_t r = g_.below(10);
    return r < 6 ? kind::once : r < 9 ? kind::rate : kind::delay_kind;
  }

  ns random_delay() { return ns(static_cast<std::int64_t>(g_.below(20 * tick_ns()))) - tick_ / 2; }
  // Half a tick and up: a burst after a stall fires a bounded number of times.
  ns random_period() {
    return ns(static_cast<std::int64_t>((tick_ns() + 1) / 2 + g_.below(8 * tick_ns())));
  }
  std::uint64_t tick_ns() const { return static_cast<std::uint64_t>(tick_.count()); }

  // The model's time: the latest clock reading.
  tp observe() {
    if (clock_.now() > now_) now_ = clock_.now();
    return now_;
  }

  // The wheel takes a deadline before its now as its now.
  std::uint64_t place(tp t) const {
    const std::uint64_t k = t_.clock().ticks_at(t);
    return k < wheel_now_ ? wheel_now_ : k;
  }

  model_timer& make(kind type) {
    model_timer m;
    m.type = type;
    m.seq = ++seq_;
    const std::uint64_t r = g_.below(10);
    if (r < 2) {
      m.act = action::schedule_child;
      m.param = g_.below(10 * tick_ns());
    } else if (r < 4) {
      m.act = action::cancel_other;
      m.param = g_.next();
    } else if (r < 6 && type != kind::once) {
      m.act = action::cancel_self;
      m.cancel_after = 1 + static_cast<int>(g_.below(4));
    }
    timers_.push_back(m);
    return timers_.back();
  }

  // Schedules on both sides; outside a run, checks the watcher's call.
  void add(kind type) {
    const auto before = t_.next_expiry();
    const int calls = watcher_calls_;
    const std::size_t index = timers_.size();
    make(type);
    model_timer& m = timers_[index];
    const tp now = observe();
    if (type == kind::once) {
      const ns d = random_delay();
      m.tick = place(now + d);
      m.id = t_.after(d, callback(index));
    } else {
      m.period = random_period();
      m.due = now + m.period;
      m.tick = place(m.due);
      if (type == kind::rate) {
        m.policy = static_cast<tw::missed_ticks>(g_.below(3));
        m.id = t_.every(m.period, callback(index), m.policy);
      } else {
        m.id = t_.every_fixed_delay(m.period, callback(index));
      }
    }
    if (!running_) {
      EXPECT_EQ(watcher_calls_ - calls, before != t_.next_expiry() ? 1 : 0);
    }
  }

  void add_at(tp t) {
    const std::size_t index = timers_.size();
    make(kind::once);
    timers_[index].tick = place(t);
    timers_[index].id = t_.at(t, callback(index));
  }

  // Cancels timer `index` on both sides: the model says what cancel returns.
  void cancel(std::size_t index) {
    model_timer& m = timers_[index];
    const bool expected = m.alive && !(m.type == kind::once && firing_ == index);
    const auto before = t_.next_expiry();
    const int calls = watcher_calls_;
    EXPECT_EQ(t_.cancel(m.id), expected) << "timer " << index;
    if (expected) m.alive = false;
    if (!running_) {
      EXPECT_EQ(watcher_calls_ - calls, before != t_.next_expiry() ? 1 : 0);
    }
  }

  void cancel_random() {
    if (timers_.empty()) return;
    cancel(static_cast<std::size_t>(g_.below(timers_.size())));
  }

  void move_clock() {
    const std::uint64_t r = g_.below(100);
    std::uint64_t d = 0;
    if (r < 70) {
      d = g_.below(3 * tick_ns());
    } else if (r < 97) {
      d = g_.below(30 * tick_ns());
    } else {
      d = g_.below(200 * tick_ns());  // a stall of tens of periods
    }
    clock_.advance(ns(static_cast<std::int64_t>(d)));
  }

  // A timer's callback: tells the lockstep which timer fired.
  struct fire {
    lockstep* l;
    std::size_t index;
    void operator()(tw::timer_id id) const { l->on_fire(index, id); }
  };
  fire callback(std::size_t index) { return fire{this, index}; }

  // The model's next due timer by `to`: the least (tick, seq) among the
  // alive ones not firing.
  std::optional<std::size_t> next_due(std::uint64_t to) const {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < timers_.size(); ++i) {
      const model_timer& m = timers_[i];
      if (!m.alive || i == firing_ || m.tick > to) continue;
      if (!best || m.tick < timers_[*best].tick ||
          (m.tick == timers_[*best].tick && m.seq < timers_[*best].seq))
        best = i;
    }
    return best;
  }

  void run() {
    run_now_ = observe();
    std::uint64_t to = t_.clock().elapsed_ticks(run_now_);
    if (to < wheel_now_) to = wheel_now_;
    to_ = to;
    run_edge_ = t_.clock().time_of(to);
    running_ = true;
    ran_ = 0;
    const std::size_t n = t_.run_due();
    running_ = false;
    EXPECT_EQ(n, ran_);
    wheel_now_ = to;
    EXPECT_FALSE(next_due(to).has_value()) << "a due timer did not fire";
  }

  void on_fire(std::size_t index, tw::timer_id id) {
    const std::optional<std::size_t> expected = next_due(to_);
    ASSERT_TRUE(expected.has_value()) << "fired timer " << index << " that was not due";
    ASSERT_EQ(*expected, index) << "out of order";
    model_timer& m = timers_[index];
    ASSERT_EQ(id, m.id);
    EXPECT_GE(t_.now(), m.type == kind::rate ? m.due : t_.clock().time_of(m.tick));
    ++ran_;
    ++fired_;
    ++m.firings;
    wheel_now_ = m.tick;
    firing_ = index;
    if (m.type == kind::once) m.alive = false;
    switch (m.act) {
      case action::none:
        break;
      case action::schedule_child:
        add(kind::once);
        break;
      case action::cancel_other:
        cancel(static_cast<std::size_t>(m.param % timers_.size()));
        break;
      case action::cancel_self:
        if (m.firings == m.cancel_after) cancel(index);
        break;
    }
    firing_ = none_;
    model_timer& again = timers_[index];  // add() may have grown the vector
    if (again.type == kind::once || !again.alive) return;
    // The next period, a period at a time.
    tp next{};
    if (again.type == kind::delay_kind) {
      next = observe() + again.period;
    } else {
      next = again.due + again.period;
      if (next <= run_edge_) {
        if (again.policy == tw::missed_ticks::skip) {
          while (next <= run_edge_) next += again.period;
        } else if (again.policy == tw::missed_ticks::delay) {
          next = run_now_ + again.period;
        }
      }
    }
    again.due = next;
    again.tick = place(next);
    again.seq = ++seq_;
  }

  void check() {
    std::size_t alive = 0;
    std::optional<std::uint64_t> first;
    for (const model_timer& m : timers_) {
      ASSERT_EQ(t_.pending(m.id), m.alive);
      if (!m.alive) continue;
      ++alive;
      if (!first || m.tick < *first) first = m.tick;
    }
    ASSERT_EQ(t_.size(), alive);
    if (first) {
      ASSERT_EQ(t_.next_expiry(), t_.clock().time_of(*first));
    } else {
      ASSERT_EQ(t_.next_expiry(), std::nullopt);
    }
  }

  static constexpr std::size_t none_ = ~std::size_t{0};

  timerwheel_test::rng g_;
  manual clock_;
  tw::timers<manual> t_;
  ns tick_;
  std::vector<model_timer> timers_;
  std::uint64_t seq_ = 0;
  tp now_{};
  tp run_now_{};
  tp run_edge_{};
  std::uint64_t to_ = 0;
  std::uint64_t wheel_now_ = 0;
  std::size_t firing_ = none_;
  std::size_t ran_ = 0;
  std::size_t fired_ = 0;
  int watcher_calls_ = 0;
  bool running_ = false;
};

TEST(TimersModel, LockstepOnRandomOperations) {
  const std::uint64_t steps = timerwheel_test::steps_from_env(1000);
  const ns ticks[] = {1ms, 3ms, 1us, 7ns};
  for (const std::uint64_t seed : timerwheel_test::seeds_from_env({1, 2, 3, 4})) {
    const ns tick = ticks[seed % 4];
    SCOPED_TRACE("seed " + std::to_string(seed) + ", tick " + std::to_string(tick.count()) +
                 " ns (replay: TIMERWHEEL_SEED=" + std::to_string(seed) + ")");
    lockstep l(seed, tick);
    for (std::uint64_t i = 0; i < steps; ++i) {
      l.step();
      if (::testing::Test::HasFatalFailure()) return;
    }
    EXPECT_GT(l.fired(), steps / 10);
    std::printf("seed %llu: %zu firings\n", static_cast<unsigned long long>(seed), l.fired());
  }
}

}  // namespace
