// Differential test of timerwheel::timer_queue against a plain model: a
// std::map keyed by (unwrapped deadline, scheduling sequence number). Every
// timer carries a std::unique_ptr naming it, so that a value handed to the
// wrong callback, lost or destroyed twice shows up (the last two through the
// sanitizers). Stale ids (fired, cancelled, slot reused) are tried all along.
//
// Replay a failure with TIMERWHEEL_SEED=<seed> (and TIMERWHEEL_STEPS=<n>).
#include <timerwheel/timer_queue.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "support/range_choice.hpp"
#include "support/rng.hpp"
#include "support/ticks.hpp"

namespace {

namespace tw = timerwheel;
using u64 = std::uint64_t;
using timerwheel_test::rng;

template <class Config>
class queue_run {
  using value = std::unique_ptr<u64>;  // holds the index of its logical timer
  using queue_type = tw::timer_queue<value, Config>;
  using Tick = typename queue_type::tick_type;
  using id_type = decltype(std::declval<queue_type&>().schedule(Tick{}, value{}));
  using T = timerwheel_test::ticks<Tick>;

 public:
  queue_run(u64 seed, u64 steps)
      : seed_(seed),
        steps_(steps),
        g_(seed),
        now_(T::wraps ? (u64{1} << T::digits) - 1 - g_.below(5000) : g_.below(u64{1} << 40)),
        q_(T::wrap(now_)) {}

  u64 fired() const { return fired_total_; }

  bool run() {
    for (step_ = 0; step_ < steps_ && !failed_; ++step_) {
      try {
        one_step();
      } catch (const std::exception& ex) {
        fail(std::string("unexpected exception: ") + ex.what());
      }
      if (!failed_) compare_all();
    }
    return !failed_;
  }

 private:
  enum class state { scheduled, queued, dead };
  // One logical timer: one schedule() call, until it fires or is cancelled.
  struct timer {
    id_type id{};
    state st = state::dead;
    u64 deadline = 0;
    u64 seq = 0;
    u64 gen = 0;
  };

  // ---- reporting --------------------------------------------------------

  void note(std::string what) {
    recent_.push_back(std::move(what));
    if (recent_.size() > 16) recent_.pop_front();
  }

  void fail(const std::string& what) {
    if (failed_) return;
    failed_ = true;
    std::ostringstream os;
    os << "seed " << seed_ << " (replay: TIMERWHEEL_SEED=" << seed_
       << " TIMERWHEEL_STEPS=" << steps_ << "), step " << step_ << ", model now " << now_ << ": "
       << what << "\nlast operations, oldest first:";
    for (const auto& r : recent_) os << "\n  " << r;
    ADD_FAILURE() << os.str();
  }

  void expect(bool ok, const std::string& what) {
    if (!ok) fail(what);
  }

  // ---- the model --------------------------------------------------------

  bool live(std::size_t t) const { return timers_[t].st != state::dead; }

  void m_unlink(std::size_t t) {
    timer& x = timers_[t];
    if (x.st == state::scheduled) sched_.erase({x.deadline, x.seq});
    if (x.st == state::queued) queue_.erase(std::find(queue_.begin(), queue_.end(), t));
    x.st = state::dead;
    ++x.gen;
  }

  void m_place(std::size_t t, Tick d) {
    if (live(t)) m_unlink(t);
    timer& x = timers_[t];
    x.deadline = std::max(T::unwrap(d, now_), now_);
    x.seq = seq_++;
    x.st = state::scheduled;
    ++x.gen;
    sched_.emplace(std::pair{x.deadline, x.seq}, t);
  }

  std::optional<Tick> m_next_deadline() const {
    if (!queue_.empty()) return T::wrap(timers_[queue_.front()].deadline);
    if (sched_.empty()) return std::nullopt;
    return T::wrap(sched_.begin()->first.first);
  }

  Tick m_time_until_next() const {
    if (!queue_.empty()) return 0;
    if (sched_.empty()) return std::numeric_limits<Tick>::max();
    const u64 d = sched_.begin()->first.first;
    return d <= now_ ? Tick{0} : T::wrap(d - now_);
  }

  // ---- random choices ---------------------------------------------------

  // Any logical timer so far, live or not (stale ids are part of the test).
  std::optional<std::size_t> any_timer() {
    if (timers_.empty()) return std::nullopt;
    return static_cast<std::size_t>(g_.below(timers_.size()));
  }

  std::optional<std::size_t> live_timer() {
    if (sched_.empty() && queue_.empty()) return any_timer();
    for (int tries = 0; tries < 16; ++tries) {
      // Recent timers are the likeliest to be live.
      const auto n = timers_.size();
      const auto t = n - 1 - static_cast<std::size_t>(g_.below(std::min<u64>(n, 512)));
      if (live(t)) return t;
    }
    return sched_.empty() ? queue_.front() : sched_.begin()->second;
  }

  Tick pick_deadline() {
    const u64 r = g_.below(100);
    u64 d = now_;
    if (r < 35) {
      d = T::ahead(now_, g_.below(64));
    } else if (r < 55) {
      d = T::ahead(now_, g_.below(1 << 14));
    } else if (r < 70) {
      d = T::ahead(now_, g_.below(u64{1} << g_.between(14, T::digits - 1)));
    } else if (r < 80) {
      d = T::behind(now_, 1 + g_.below(1000));
    } else if (r < 85) {
      d = T::horizon(now_);
    } else if (r < 95) {
      const auto t = live_timer();
      if (t && live(*t)) d = timers_[*t].deadline;  // a tie
    }
    return T::wrap(d);
  }

  u64 pick_advance_target() {
    const u64 r = g_.below(100);
    u64 to = now_;
    if (r < 15) {
      to = now_;
    } else if (r < 50) {
      to = T::ahead(now_, g_.below(64));
    } else if (r < 70) {
      to = T::ahead(now_, g_.below(1 << 14));
    } else if (r < 85 && !sched_.empty()) {
      to = std::max(now_, sched_.begin()->first.first);
    } else if (r < 98) {
      to = T::ahead(now_, g_.below(u64{1} << g_.between(14, T::wraps ? T::digits - 1 : 48)));
    } else {
      to = T::horizon(now_);
      if (!T::wraps) to = T::ahead(now_, u64{1} << 50);
    }
    if (T::wraps && !queue_.empty()) {
      // Keep queued deadlines within the half range behind now.
      to = std::max(now_, std::min(to, timers_[queue_.front()].deadline + (T::max_ahead >> 1)));
    }
    return std::min(to, T::horizon(now_));
  }

  // ---- operations on both -----------------------------------------------

  void do_schedule(Tick d) {
    const std::size_t t = timers_.size();
    timers_.emplace_back();
    note("schedule $" + std::to_string(t) + " at " + std::to_string(d));
    m_place(t, d);
    timers_[t].id = q_.schedule(d, std::make_unique<u64>(t));
    expect(q_.deadline(timers_[t].id) == std::optional<Tick>(T::wrap(timers_[t].deadline)),
           "deadline after schedule");
  }

  void do_schedule_in_range(Tick e, Tick l) {
    const u64 ee = T::unwrap(e, now_);
    const u64 le = T::unwrap(l, now_);
    note("schedule_in_range [" + std::to_string(e) + ", " + std::to_string(l) + "]");
    if (ee > le) {
      try {
        (void)q_.schedule_in_range(e, l, std::make_unique<u64>(~u64{0}));
        fail("schedule_in_range with earliest after latest did not throw");
      } catch (const std::invalid_argument&) {
      }
      return;
    }
    const u64 lo = std::max(ee, now_);
    const u64 choice = le < lo ? now_ : timerwheel_test::most_trailing_zeros_in(lo, le);
    const std::size_t t = timers_.size();
    timers_.emplace_back();
    m_place(t, T::wrap(choice));
    timers_[t].id = q_.schedule_in_range(e, l, std::make_unique<u64>(t));
    expect(q_.deadline(timers_[t].id) == std::optional<Tick>(T::wrap(choice)),
           "schedule_in_range choice");
  }

  void do_cancel(std::size_t t) {
    note("cancel $" + std::to_string(t));
    const bool want = live(t);
    if (want) m_unlink(t);
    expect(q_.cancel(timers_[t].id) == want, "cancel of $" + std::to_string(t));
  }

  void do_reschedule(std::size_t t, Tick d) {
    note("reschedule $" + std::to_string(t) + " at " + std::to_string(d));
    const bool want = live(t);
    if (want) m_place(t, d);
    expect(q_.reschedule(timers_[t].id, d) == want, "reschedule of $" + std::to_string(t));
  }

  // Checks a value handed out with its id against the model's expectation.
  void check_handed(std::optional<std::size_t> want, id_type id, const value& v, const char* form) {
    if (!want) {
      fail(std::string(form) + ": the queue handed out a timer the model does not fire");
      return;
    }
    if (v == nullptr || *v != *want) {
      fail(std::string(form) + ": the value of $" + (v ? std::to_string(*v) : "null") +
           " where the model expects $" + std::to_string(*want));
      return;
    }
    note(std::string(form) + ": $" + std::to_string(*want) + " at " + std::to_string(q_.now()));
    ++fired_total_;
    expect(id == timers_[*want].id, std::string(form) + ": the id does not match the value");
    expect(q_.now() == T::wrap(now_), std::string(form) + ": now()");
    // The id is stale already.
    expect(!q_.pending(id) && q_.get(id) == nullptr && !q_.deadline(id) && !q_.cancel(id) &&
               !q_.reschedule(id, q_.now()),
           std::string(form) + ": the id of a fired timer is not stale");
  }

  void callback_actions(u64 to, bool in_expire_all, value& v) {
    if (fires_ > 20000) return;
    const auto n = g_.percent(50) ? 0 : g_.between(1, 3);
    for (u64 k = 0; k < n && !failed_; ++k) {
      const u64 r = g_.below(100);
      if (r < 35) {
        const Tick d = g_.percent(50) && to >= now_
                           ? T::wrap(now_ + g_.below(std::min<u64>(to - now_, 4096) + 1))
                           : pick_deadline();
        if (g_.percent(30) && v != nullptr) {
          // Reuse the value handed in: it now names the new timer.
          const std::size_t t = timers_.size();
          timers_.emplace_back();
          *v = t;
          m_place(t, d);
          note("schedule $" + std::to_string(t) + " at " + std::to_string(d) + " (moved value)");
          timers_[t].id = q_.schedule(d, std::move(v));
        } else {
          do_schedule(d);
        }
      } else if (r < 80) {
        if (auto t = live_timer()) do_cancel(*t);
      } else if (!in_expire_all) {
        if (auto t = live_timer()) do_reschedule(*t, pick_deadline());
      }
    }
  }

  std::optional<std::size_t> m_pop_due(u64 to) {
    if (!queue_.empty()) {
      const auto t = queue_.front();
      m_unlink(t);
      return t;
    }
    if (sched_.empty() || sched_.begin()->first.first > to) return std::nullopt;
    const auto t = sched_.begin()->second;
    now_ = std::max(now_, timers_[t].deadline);
    m_unlink(t);
    return t;
  }

  void do_advance() {
    const u64 to = pick_advance_target();
    note("advance to " + std::to_string(T::wrap(to)) + " with a callback");
    fires_ = 0;
    const auto n = q_.advance(T::wrap(to), [&](id_type id, value&& v) {
      if (failed_) return;
      ++fires_;
      check_handed(m_pop_due(to), id, v, "advance");
      if (!failed_) callback_actions(to, false, v);
    });
    if (failed_) return;
    if (auto extra = m_pop_due(to)) fail("advance: the model fires $" + std::to_string(*extra));
    now_ = to;
    expect(n == fires_, "advance's return value");
  }

  void do_pull_advance() {
    const u64 to = pick_advance_target();
    note("advance to " + std::to_string(T::wrap(to)) + ", pull form");
    std::size_t moved = 0;
    while (!sched_.empty() && sched_.begin()->first.first <= to) {
      const auto t = sched_.begin()->second;
      m_unlink(t);
      timers_[t].st = state::queued;
      queue_.push_back(t);
      ++moved;
    }
    now_ = to;
    expect(q_.advance(T::wrap(to)) == moved, "pull advance's return value");
    do_take(g_.below(moved + 2));
  }

  void do_take(u64 count) {
    for (u64 k = 0; k < count && !failed_; ++k) {
      auto got = q_.take_expired();
      if (queue_.empty()) {
        expect(!got.has_value(), "take_expired returned a timer, the model none");
        return;
      }
      const auto want = queue_.front();
      m_unlink(want);
      if (!got) {
        fail("take_expired returned nothing, the model $" + std::to_string(want));
        return;
      }
      check_handed(want, got->first, got->second, "take_expired");
    }
  }

  void do_expire_all() {
    note("expire_all");
    std::vector<std::pair<std::size_t, u64>> snapshot;  // (timer, gen) in firing order
    for (auto t : queue_) snapshot.emplace_back(t, timers_[t].gen);
    for (const auto& entry : sched_) snapshot.emplace_back(entry.second, timers_[entry.second].gen);
    std::size_t pos = 0;
    auto pop = [&]() -> std::optional<std::size_t> {
      while (pos < snapshot.size()) {
        const auto [t, gen] = snapshot[pos++];
        if (timers_[t].gen == gen) {
          m_unlink(t);
          return t;
        }
      }
      return std::nullopt;
    };
    fires_ = 0;
    const u64 at = now_;
    const auto n = q_.expire_all([&](id_type id, value&& v) {
      if (failed_) return;
      ++fires_;
      check_handed(pop(), id, v, "expire_all");
      if (!failed_) callback_actions(at, true, v);
    });
    if (failed_) return;
    if (auto extra = pop()) fail("expire_all: the model fires $" + std::to_string(*extra));
    expect(n == fires_, "expire_all's return value");
  }

  void check_for_each_pending() {
    std::vector<std::size_t> seen;
    q_.for_each_pending([&](id_type id, const value& v) {
      if (v == nullptr || *v >= timers_.size() || !(timers_[*v].id == id)) {
        fail("for_each_pending: an id and a value that do not belong together");
        return;
      }
      seen.push_back(*v);
    });
    std::sort(seen.begin(), seen.end());
    std::vector<std::size_t> want;
    for (const auto& entry : sched_) want.push_back(entry.second);
    want.insert(want.end(), queue_.begin(), queue_.end());
    std::sort(want.begin(), want.end());
    expect(seen == want, "for_each_pending visits another set than the model's");
  }

  void one_step() {
    const u64 op = g_.below(1000);
    const std::size_t pending = sched_.size() + queue_.size();
    if (op < 300) {
      if (pending < 400) do_schedule(pick_deadline());
    } else if (op < 350) {
      const Tick e = pick_deadline();
      const u64 ee = T::unwrap(e, now_);
      const u64 span = g_.below(u64{1} << g_.below(T::wraps ? 30 : 62));
      if (g_.percent(10)) {
        if (ee > 0) do_schedule_in_range(e, T::wrap(T::behind(ee, 1 + span)));
      } else {
        do_schedule_in_range(e, T::wrap(std::min(T::ahead(ee, span), T::horizon(now_))));
      }
    } else if (op < 500) {
      if (auto t = g_.percent(80) ? live_timer() : any_timer()) do_cancel(*t);
    } else if (op < 600) {
      if (auto t = g_.percent(80) ? live_timer() : any_timer()) do_reschedule(*t, pick_deadline());
    } else if (op < 750) {
      do_advance();
    } else if (op < 830) {
      do_pull_advance();
    } else if (op < 860) {
      do_take(g_.below(4));
    } else if (op < 866) {
      do_expire_all();
    } else if (op < 868) {
      note("clear");
      while (!sched_.empty()) m_unlink(sched_.begin()->second);
      while (!queue_.empty()) m_unlink(queue_.front());
      q_.clear();
    } else if (op < 880) {
      check_for_each_pending();
    } else {
      // Query a timer, live or stale, and the id that is never valid.
      if (auto t = any_timer()) {
        const timer& x = timers_[*t];
        const id_type id = x.id;
        const bool is_live = live(*t);
        expect(q_.pending(id) == is_live, "pending($" + std::to_string(*t) + ")");
        expect(
            q_.deadline(id) == (is_live ? std::optional<Tick>(T::wrap(x.deadline)) : std::nullopt),
            "deadline($" + std::to_string(*t) + ")");
        const value* v = q_.get(id);
        expect(is_live ? (v != nullptr && *v != nullptr && **v == *t) : v == nullptr,
               "get($" + std::to_string(*t) + ")");
      }
      expect(!q_.pending(id_type{}) && q_.get(id_type{}) == nullptr && !q_.cancel(id_type{}),
             "a default id is valid");
    }
  }

  void compare_all() {
    const std::size_t size = sched_.size() + queue_.size();
    expect(q_.now() == T::wrap(now_), "now()");
    expect(q_.size() == size,
           "size(): queue " + std::to_string(q_.size()) + ", model " + std::to_string(size));
    expect(q_.empty() == (size == 0), "empty()");
    expect(q_.next_deadline() == m_next_deadline(), "next_deadline()");
    expect(q_.time_until_next() == m_time_until_next(), "time_until_next()");
    // Every live timer, and the most recent stale ones.
    for (std::size_t t = timers_.size(); t-- > 0 && !failed_;) {
      const bool is_live = live(t);
      if (!is_live && t + 64 < timers_.size()) continue;
      expect(q_.pending(timers_[t].id) == is_live, "pending($" + std::to_string(t) + ")");
      if (is_live) {
        expect(q_.deadline(timers_[t].id) == std::optional<Tick>(T::wrap(timers_[t].deadline)),
               "deadline($" + std::to_string(t) + ")");
      }
    }
    try {
      q_.check_invariants();
    } catch (const std::exception& ex) {
      fail(std::string("check_invariants: ") + ex.what());
    }
  }

  u64 seed_;
  u64 steps_;
  u64 step_ = 0;
  bool failed_ = false;
  std::deque<std::string> recent_;
  std::size_t fires_ = 0;
  u64 fired_total_ = 0;  // values handed out, by callbacks and take_expired

  rng g_;
  u64 now_;  // unwrapped
  std::vector<timer> timers_;
  std::map<std::pair<u64, u64>, std::size_t> sched_;
  std::deque<std::size_t> queue_;
  u64 seq_ = 0;

  queue_type q_;
};

template <class Config>
class TimerQueueModel : public ::testing::Test {};

using Configs = ::testing::Types<tw::default_config, tw::levels<std::uint32_t, 8, 8, 8, 8>>;
TYPED_TEST_SUITE(TimerQueueModel, Configs);

TYPED_TEST(TimerQueueModel, RandomOperationsMatchTheModel) {
  const u64 steps = timerwheel_test::steps_from_env(15000);
  const auto seeds = timerwheel_test::seeds_from_env({0x0E0E0001, 0x0E0E0002});
  for (const u64 seed : seeds) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " (TIMERWHEEL_SEED=" + std::to_string(seed) +
                 ")");
    queue_run<TypeParam> run(seed, steps);
    if (!run.run()) break;
    EXPECT_GT(run.fired(), steps / 10) << "a run that hands out next to nothing tests nothing";
  }
}

}  // namespace
