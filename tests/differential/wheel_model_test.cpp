// Differential test of timerwheel::wheel against a plain model: a std::map
// keyed by (unwrapped deadline, scheduling sequence number). Long random
// operation sequences run against both in lock step, including actions taken
// from inside callbacks; after every step the two must agree on everything
// observable.
//
// Replay a failure with TIMERWHEEL_SEED=<seed> (and TIMERWHEEL_STEPS=<n>).
#include <timerwheel/wheel.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <exception>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "../support/range_choice.hpp"
#include "../support/rng.hpp"
#include "../support/ticks.hpp"

namespace {

namespace tw = timerwheel;
using u64 = std::uint64_t;
using timerwheel_test::rng;

template <class T>
std::string show(const std::optional<T>& v) {
  return v ? std::to_string(*v) : std::string("none");
}
template <class T>
std::string show(const T& v) {
  return std::to_string(v);
}

template <class Config>
class wheel_run {
  using wheel_type = tw::wheel<Config>;
  using Tick = typename wheel_type::tick_type;
  using hook = typename wheel_type::hook_type;
  using T = timerwheel_test::ticks<Tick>;
  static constexpr u64 kMaxFiresPerAdvance = 20000;

 public:
  wheel_run(u64 seed, u64 steps)
      : seed_(seed),
        steps_(steps),
        g_(seed),
        now_(pick_start(g_)),
        model_(pick_pool_size(g_)),
        hooks_(model_.size()),
        w_(T::wrap(now_)) {}

  // Runs the steps; returns false after the first mismatch (reported).
  bool run() {
    compare_all();
    for (step_ = 0; step_ < steps_ && !failed_; ++step_) {
      const Tick before = T::wrap(now_);
      try {
        one_step();
      } catch (const std::exception& ex) {
        fail(std::string("unexpected exception: ") + ex.what());
      }
      if (!failed_) compare_all();
      if (T::wrap(now_) < before) ++tally_.wraps_crossed;
    }
    std::printf(
        "seed %llu: %llu steps, %llu fired, %llu nested operations, %llu taken, "
        "%llu queued handed to a callback, %llu wraps crossed\n",
        static_cast<unsigned long long>(seed_), static_cast<unsigned long long>(step_),
        static_cast<unsigned long long>(tally_.fired),
        static_cast<unsigned long long>(tally_.nested),
        static_cast<unsigned long long>(tally_.taken),
        static_cast<unsigned long long>(tally_.handed_queued),
        static_cast<unsigned long long>(tally_.wraps_crossed));
    return !failed_;
  }

  // What a run did, so that a run that quietly stopped exercising the
  // wheel shows (printed, and checked by the test).
  struct tally {
    u64 fired = 0;          // callbacks of advance and expire_all
    u64 nested = 0;         // operations from inside callbacks
    u64 taken = 0;          // take_expired of the pull form
    u64 handed_queued = 0;  // queued timers handed to a later callback advance
    u64 wraps_crossed = 0;  // times now crossed 0 (wrapping ticks)
  };
  const tally& counts() const { return tally_; }

 private:
  enum class state { idle, scheduled, queued };
  struct timer {
    state st = state::idle;
    u64 deadline = 0;  // unwrapped
    u64 seq = 0;
    u64 gen = 0;  // changes on every schedule and unlink
  };
  using key = std::pair<u64, u64>;  // (deadline, seq)

  static u64 pick_start(rng& g) {
    if constexpr (T::wraps) {
      // Just below the wrap, so that the run crosses it early (and then
      // crosses it again every 2^32 ticks).
      return (u64{1} << T::digits) - 1 - g.below(5000);
    } else {
      switch (g.below(8)) {
        case 0:
        case 1:
        case 2:
          return 0;
        case 7:
          return std::numeric_limits<u64>::max() - (u64{1} << 32) - g.below(1000);
        default:
          return g.below(u64{1} << 40);
      }
    }
  }

  static std::size_t pick_pool_size(rng& g) {
    static constexpr std::size_t sizes[] = {8, 64, 256, 512};
    return sizes[g.below(4)];
  }

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

  template <class A, class B>
  void expect_eq(const A& got, const B& want, const char* what) {
    if (!(got == want)) fail(std::string(what) + ": wheel " + show(got) + ", model " + show(want));
  }

  // ---- the model --------------------------------------------------------

  bool m_pending(std::size_t i) const { return model_[i].st != state::idle; }
  std::size_t m_size() const { return sched_.size() + queue_.size(); }

  void m_unlink(std::size_t i) {
    timer& t = model_[i];
    if (t.st == state::scheduled) sched_.erase({t.deadline, t.seq});
    if (t.st == state::queued) queue_.erase(std::find(queue_.begin(), queue_.end(), i));
    t.st = state::idle;
    ++t.gen;
  }

  void m_place(std::size_t i, u64 deadline) {
    m_unlink(i);
    timer& t = model_[i];
    t.deadline = std::max(deadline, now_);
    t.seq = seq_++;
    t.st = state::scheduled;
    ++t.gen;
    sched_.emplace(key{t.deadline, t.seq}, i);
  }

  std::optional<u64> m_next_deadline() const {
    if (!queue_.empty()) return model_[queue_.front()].deadline;
    if (sched_.empty()) return std::nullopt;
    return sched_.begin()->first.first;
  }

  Tick m_time_until_next() const {
    if (!queue_.empty()) return 0;
    if (sched_.empty()) return std::numeric_limits<Tick>::max();
    const u64 d = sched_.begin()->first.first;
    return d <= now_ ? Tick{0} : T::wrap(d - now_);
  }

  std::optional<Tick> wrapped(std::optional<u64> t) const {
    if (!t) return std::nullopt;
    return T::wrap(*t);
  }

  // ---- random choices ---------------------------------------------------

  std::size_t any_timer() { return static_cast<std::size_t>(g_.below(model_.size())); }

  // Prefers a pending timer; any timer if a few tries find none.
  std::size_t pending_timer() {
    for (int tries = 0; tries < 8; ++tries) {
      const auto i = any_timer();
      if (m_pending(i)) return i;
    }
    return any_timer();
  }

  // An unwrapped deadline: near, far, at now, in the past, at the largest
  // instant ahead, on a slot edge, or tied with a pending timer.
  u64 pick_deadline() {
    const u64 r = g_.below(100);
    if (r < 25) return T::ahead(now_, g_.below(64));
    if (r < 40) return T::ahead(now_, g_.below(4096));
    if (r < 50) return T::ahead(now_, g_.below(u64{1} << 20));
    if (r < 58) return T::ahead(now_, g_.below(u64{1} << g_.between(20, T::digits - 1)));
    if (r < 64) {
      const auto i = pending_timer();
      if (m_pending(i)) return model_[i].deadline;
      return now_;
    }
    if (r < 69) return now_;
    if (r < 74) return T::behind(now_, 1 + g_.below(100));
    if (r < 77) return T::behind(now_, 1 + g_.below(u64{1} << g_.between(1, T::digits - 1)));
    if (r < 80) return T::horizon(now_);  // the largest tick (64-bit) or 2^31 - 1 ahead
    if (r < 90) {
      // Just around the edge of a slot at some level: a multiple of 2^b.
      const unsigned b = static_cast<unsigned>(g_.between(1, T::digits - 2));
      const u64 unit = u64{1} << b;
      const u64 edge = T::ahead(now_, unit - (now_ & (unit - 1)));
      const u64 off = g_.below(3);
      return g_.percent(50) ? T::ahead(edge, off) : std::max(now_, edge - off);
    }
    return T::ahead(now_, g_.below(u64{1} << g_.below(T::digits - 1)));
  }

  // A deadline for a timer scheduled from a callback of an advance to `to`:
  // often due within this same advance.
  u64 pick_callback_deadline(u64 to) {
    const u64 r = g_.below(100);
    if (r < 35 && to >= now_) return now_ + g_.below(std::min<u64>(to - now_, 1 << 12) + 1);
    if (r < 45) return now_;
    if (r < 55) return T::behind(now_, 1 + g_.below(1000));
    if (r < 65 && to >= now_) return to;
    if (r < 75) return T::ahead(to, 1 + g_.below(100));
    return pick_deadline();
  }

  // An unwrapped advance target (never behind now).
  u64 pick_advance_target(bool pull) {
    const u64 r = g_.below(100);
    const auto next = sched_.empty() ? std::optional<u64>() : sched_.begin()->first.first;
    u64 to = now_;
    if (r < 12) {
      to = now_;
    } else if (r < 25) {
      to = T::ahead(now_, 1);
    } else if (r < 45) {
      to = T::ahead(now_, g_.below(64));
    } else if (r < 57) {
      to = T::ahead(now_, g_.below(4096));
    } else if (r < 64) {
      to = T::ahead(now_, g_.below(u64{1} << 20));
    } else if (r < 74) {
      to = next ? std::max(*next, now_) : T::ahead(now_, 1);
    } else if (r < 79) {
      to = next && *next > now_ ? *next - 1 : now_;
    } else if (r < 86) {
      to = next ? T::ahead(std::max(*next, now_), g_.below(64)) : now_;
    } else if (r < 96) {
      to = T::ahead(now_, g_.below(u64{1} << g_.between(20, T::wraps ? T::digits - 1 : 50)));
    } else if (T::wraps || step_ * 50 > steps_ * 49) {
      to = T::horizon(now_);  // the end of time comes only near the end of a run
    } else {
      to = T::ahead(now_, g_.below(u64{1} << 16));
    }
    to = std::min(to, T::horizon(now_));  // (ahead() of a later base can pass now's horizon)
    if (T::wraps && pull && !queue_.empty()) {
      // Keep queued timers, whose deadlines lie behind now, within the half
      // range behind it, where their ticks still read as behind.
      const u64 oldest = model_[queue_.front()].deadline;
      to = std::min(to, oldest + (T::max_ahead >> 1));
      to = std::max(to, now_);
    }
    return to;
  }

  // ---- operations on both -----------------------------------------------

  void do_schedule(std::size_t i, u64 deadline) {
    const Tick d = T::wrap(deadline);
    note("schedule #" + show(i) + " at " + show(d));
    m_place(i, T::unwrap(d, now_));
    w_.schedule(hooks_[i], d);
    expect_eq(hooks_[i].deadline(), T::wrap(model_[i].deadline), "deadline after schedule");
  }

  void do_schedule_in_range(std::size_t i, u64 earliest, u64 latest) {
    const Tick e = T::wrap(earliest);
    const Tick l = T::wrap(latest);
    note("schedule_in_range #" + show(i) + " [" + show(e) + ", " + show(l) + "]");
    const u64 ee = T::unwrap(e, now_);
    const u64 le = T::unwrap(l, now_);
    if (ee > le) {
      try {
        w_.schedule_in_range(hooks_[i], e, l);
        fail("schedule_in_range with earliest after latest did not throw");
      } catch (const std::invalid_argument&) {
      }
      return;
    }
    const u64 lo = std::max(ee, now_);
    const u64 choice = le < lo ? now_ : timerwheel_test::most_trailing_zeros_in(lo, le);
    m_place(i, choice);
    Tick got{};
    try {
      got = w_.schedule_in_range(hooks_[i], e, l);
    } catch (const std::exception& ex) {
      fail(std::string("schedule_in_range threw: ") + ex.what());
      return;
    }
    expect_eq(got, T::wrap(choice), "schedule_in_range choice");
    expect_eq(hooks_[i].deadline(), T::wrap(choice), "deadline after schedule_in_range");
  }

  void do_cancel(std::size_t i) {
    note("cancel #" + show(i));
    const bool want = m_pending(i);
    if (want) m_unlink(i);
    expect_eq(w_.cancel(hooks_[i]), want, "cancel result");
  }

  // The first timer whose callback is due, per the model, in an advance to
  // `to`: queued ones first, then (deadline, seq) order. Unlinks it and moves
  // model time to its deadline.
  std::optional<std::size_t> m_pop_due(u64 to) {
    if (!queue_.empty()) {
      ++tally_.handed_queued;
      const auto i = queue_.front();
      m_unlink(i);
      return i;
    }
    if (sched_.empty() || sched_.begin()->first.first > to) return std::nullopt;
    const auto i = sched_.begin()->second;
    now_ = std::max(now_, model_[i].deadline);
    m_unlink(i);
    return i;
  }

  std::size_t index_of(const hook& h) {
    const auto i = static_cast<std::size_t>(&h - hooks_.data());
    if (i >= hooks_.size()) fail("a callback got a hook that is not one of the test's");
    return i;
  }

  // Checks one fire of the wheel against the model's expectation.
  bool check_fire(hook& h, std::optional<std::size_t> want, const char* form) {
    const auto got = index_of(h);
    if (!want) {
      fail(std::string(form) + ": the wheel fired #" + show(got) + " at " + show(w_.now()) +
           " where the model fires nothing more");
      return false;
    }
    note(std::string(form) + " fires #" + show(got) + " at " + show(w_.now()));
    ++tally_.fired;
    if (got != *want) {
      fail(std::string(form) + ": the wheel fired #" + show(got) + ", the model #" + show(*want));
      return false;
    }
    expect_eq(w_.now(), T::wrap(now_), "now() inside a callback");
    expect_eq(h.pending(), false, "pending() of a timer inside its callback");
    expect_eq(w_.size(), m_size(), "size() inside a callback");
    return !failed_;
  }

  // What a callback does: schedule (maybe due in this same advance), cancel
  // (maybe a timer due in this same advance), reschedule itself, or try to
  // advance from inside (a usage error). Inside expire_all it schedules only
  // idle timers: what expire_all does with a timer pending at its call that
  // a callback moves is not part of the contract.
  void callback_actions(std::size_t self, u64 to, bool in_expire_all) {
    if (fires_ > kMaxFiresPerAdvance) return;  // keep chains of reschedules finite
    if (g_.percent(10)) {
      try {
        w_.check_invariants();
      } catch (const std::exception& ex) {
        fail(std::string("check_invariants inside a callback: ") + ex.what());
      }
    }
    const auto n = g_.percent(50) ? 0 : g_.between(1, 3);
    for (u64 k = 0; k < n && !failed_; ++k) {
      ++tally_.nested;
      const u64 r = g_.below(100);
      if (r < 30) {
        const auto j = any_timer();
        if (in_expire_all && m_pending(j)) continue;
        do_schedule(j, pick_callback_deadline(to));
      } else if (r < 42) {
        do_schedule(self, pick_callback_deadline(to));
      } else if (r < 50) {
        const auto j = g_.percent(30) ? self : any_timer();
        if (in_expire_all && m_pending(j)) continue;
        const u64 e = pick_callback_deadline(to);
        do_schedule_in_range(j, e, T::ahead(e, g_.below(u64{1} << g_.below(16))));
      } else if (r < 92) {
        do_cancel(g_.percent(70) ? pending_timer() : any_timer());
      } else {
        note("advance / expire_all from inside a callback");
        expect_throw_logic_error([&] { w_.advance(w_.now(), [](hook&) {}); });
        expect_throw_logic_error([&] { w_.advance(w_.now()); });
        expect_throw_logic_error([&] { w_.expire_all([](hook&) {}); });
      }
    }
  }

  template <class F>
  void expect_throw_logic_error(F&& f) {
    try {
      f();
      fail("no std::logic_error for advance or expire_all inside a callback");
    } catch (const std::logic_error&) {
    }
  }

  void do_advance() {
    const u64 to = pick_advance_target(false);
    note("advance to " + show(T::wrap(to)) + " with a callback");
    fires_ = 0;
    std::size_t fired = 0;
    const std::size_t n = w_.advance(T::wrap(to), [&](hook& h) {
      if (failed_) return;
      ++fires_;
      ++fired;
      if (!check_fire(h, m_pop_due(to), "advance")) return;
      callback_actions(index_of(h), to, false);
    });
    if (failed_) return;
    if (auto extra = m_pop_due(to)) {
      fail("advance: the model fires #" + show(*extra) + " next, the wheel fired nothing more");
      return;
    }
    now_ = to;
    expect_eq(n, fired, "advance's return value");
  }

  void do_pull_advance() {
    const u64 to = pick_advance_target(true);
    note("advance to " + show(T::wrap(to)) + ", pull form");
    std::size_t moved = 0;
    while (!sched_.empty() && sched_.begin()->first.first <= to) {
      const auto i = sched_.begin()->second;
      m_unlink(i);
      model_[i].st = state::queued;
      queue_.push_back(i);
      ++moved;
    }
    now_ = to;
    expect_eq(w_.advance(T::wrap(to)), moved, "pull advance's return value");
    if (!failed_) do_take(g_.below(moved + 2));
  }

  void do_take(u64 count) {
    for (u64 k = 0; k < count && !failed_; ++k) {
      hook* got = w_.take_expired();
      if (queue_.empty()) {
        if (got != nullptr) fail("take_expired returned #" + show(index_of(*got)) + ", model none");
        return;
      }
      const auto want = queue_.front();
      m_unlink(want);
      note("take_expired: #" + show(want));
      if (got == nullptr) {
        fail("take_expired returned nothing, the model #" + show(want));
        return;
      }
      expect_eq(index_of(*got), want, "take_expired");
      ++tally_.taken;
      expect_eq(got->pending(), false, "pending() of a taken timer");
    }
  }

  void do_expire_all() {
    note("expire_all");
    // The timers pending at the call, in the order they fire.
    std::vector<std::pair<std::size_t, u64>> snapshot;  // (timer, gen)
    for (auto i : queue_) snapshot.emplace_back(i, model_[i].gen);
    for (const auto& [k, i] : sched_) snapshot.emplace_back(i, model_[i].gen);
    std::size_t pos = 0;
    auto pop = [&]() -> std::optional<std::size_t> {
      while (pos < snapshot.size()) {
        const auto [i, gen] = snapshot[pos++];
        if (model_[i].gen == gen) {
          m_unlink(i);
          return i;
        }
      }
      return std::nullopt;
    };
    fires_ = 0;
    std::size_t fired = 0;
    const u64 at = now_;
    const std::size_t n = w_.expire_all([&](hook& h) {
      if (failed_) return;
      ++fired;
      ++fires_;
      if (!check_fire(h, pop(), "expire_all")) return;
      callback_actions(index_of(h), at, true);
    });
    if (failed_) return;
    if (auto extra = pop()) {
      fail("expire_all: the model fires #" + show(*extra) + " next, the wheel fired nothing more");
      return;
    }
    expect_eq(n, fired, "expire_all's return value");
  }

  void do_clear() {
    note("clear");
    for (std::size_t i = 0; i < model_.size(); ++i) m_unlink(i);
    w_.clear();
  }

  void do_advance_behind() {
    if (!T::wraps && now_ == 0) return;
    const u64 to = T::behind(now_, 1 + g_.below(u64{1} << g_.below(T::digits)));
    note("advance to " + show(T::wrap(to)) + ", behind now");
    try {
      w_.advance(T::wrap(to), [&](hook&) { fail("advance behind now fired a timer"); });
      fail("advance behind now did not throw");
    } catch (const std::invalid_argument&) {
    }
    try {
      w_.advance(T::wrap(to));
      fail("pull advance behind now did not throw");
    } catch (const std::invalid_argument&) {
    }
  }

  void check_for_each_pending() {
    std::vector<std::size_t> seen;
    w_.for_each_pending([&](const hook& h) { seen.push_back(index_of(h)); });
    std::sort(seen.begin(), seen.end());
    std::vector<std::size_t> want;
    for (std::size_t i = 0; i < model_.size(); ++i)
      if (m_pending(i)) want.push_back(i);
    if (seen != want) {
      fail("for_each_pending visited " + show(seen.size()) + " timers, the model has " +
           show(want.size()) + " pending (or a different set, or one twice)");
    }
  }

  void one_step() {
    const u64 op = g_.below(1000);
    if (op < 280) {
      do_schedule(any_timer(), pick_deadline());
    } else if (op < 330) {
      const auto i = pending_timer();  // a tie with, or a move of, a pending timer
      do_schedule(g_.percent(50) ? i : any_timer(),
                  m_pending(i) ? model_[i].deadline : pick_deadline());
    } else if (op < 400) {
      const u64 e = pick_deadline();
      const u64 span = g_.below(u64{1} << g_.below(T::wraps ? 30 : 63));
      if (g_.percent(10)) {
        // Earliest after latest: refused, nothing changes.
        const u64 l = std::max(T::behind(now_, u64{1} << 29), e - std::min(e, 1 + span));
        if (l < e) do_schedule_in_range(any_timer(), e, l);
      } else {
        const u64 l = T::wraps ? std::min(T::ahead(e, span), T::horizon(now_)) : T::ahead(e, span);
        do_schedule_in_range(any_timer(), e, l);
      }
    } else if (op < 540) {
      do_cancel(g_.percent(80) ? pending_timer() : any_timer());
    } else if (op < 700) {
      do_advance();
    } else if (op < 780) {
      do_pull_advance();
    } else if (op < 820) {
      do_take(g_.below(4));
    } else if (op < 828) {
      do_expire_all();
    } else if (op < 830) {
      do_clear();
    } else if (op < 845) {
      do_advance_behind();
    } else if (op < 860) {
      check_for_each_pending();
    } else {
      do_schedule(any_timer(), pick_deadline());
    }
  }

  void compare_all() {
    expect_eq(w_.now(), T::wrap(now_), "now()");
    expect_eq(w_.size(), m_size(), "size()");
    expect_eq(w_.empty(), m_size() == 0, "empty()");
    expect_eq(w_.next_deadline(), wrapped(m_next_deadline()), "next_deadline()");
    expect_eq(w_.time_until_next(), m_time_until_next(), "time_until_next()");
    for (std::size_t i = 0; i < model_.size() && !failed_; ++i) {
      if (hooks_[i].pending() != m_pending(i)) {
        fail("pending() of #" + show(i) + ": wheel " + show(hooks_[i].pending()) + ", model " +
             show(m_pending(i)));
      } else if (m_pending(i) && hooks_[i].deadline() != T::wrap(model_[i].deadline)) {
        fail("deadline() of #" + show(i) + ": wheel " + show(hooks_[i].deadline()) + ", model " +
             show(T::wrap(model_[i].deadline)));
      }
    }
    try {
      w_.check_invariants();
    } catch (const std::exception& ex) {
      fail(std::string("check_invariants: ") + ex.what());
    }
  }

  u64 seed_;
  u64 steps_;
  u64 step_ = 0;
  bool failed_ = false;
  std::deque<std::string> recent_;
  u64 fires_ = 0;
  tally tally_;

  rng g_;
  u64 now_;  // unwrapped
  std::vector<timer> model_;
  std::map<key, std::size_t> sched_;
  std::deque<std::size_t> queue_;
  u64 seq_ = 0;

  std::vector<hook> hooks_;  // before the wheel: it is destroyed first
  wheel_type w_;
};

template <class Config>
class WheelModel : public ::testing::Test {};

using Configs =
    ::testing::Types<tw::default_config, tw::levels<u64, 8, 8>, tw::levels<u64, 4, 6, 8, 10>,
                     tw::levels<std::uint32_t, 8, 8, 8, 8>, tw::levels<std::uint32_t, 2, 2>>;
TYPED_TEST_SUITE(WheelModel, Configs);

TYPED_TEST(WheelModel, RandomOperationsMatchTheModel) {
  const u64 steps = timerwheel_test::steps_from_env(20000);
  const auto seeds =
      timerwheel_test::seeds_from_env({0x5EED0001, 0x5EED0002, 0x9E3779B97F4A7C15ULL});
  for (const u64 seed : seeds) {
    SCOPED_TRACE("seed " + std::to_string(seed) + " (TIMERWHEEL_SEED=" + std::to_string(seed) +
                 ")");
    wheel_run<TypeParam> run(seed, steps);
    if (!run.run()) break;
    // A run that fires next to nothing, or never nests, tests next to nothing.
    EXPECT_GT(run.counts().fired, steps / 10);
    EXPECT_GT(run.counts().nested, steps / 20);
    EXPECT_GT(run.counts().taken, steps / 100);
    EXPECT_GT(run.counts().handed_queued, 0U);
    if (timerwheel_test::ticks<typename TypeParam::tick_type>::wraps && steps >= 1000) {
      EXPECT_GT(run.counts().wraps_crossed, 0U);
    }
  }
}

}  // namespace
