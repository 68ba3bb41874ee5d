// The plain model of the timer contract that the differential, lockstep,
// exhaustive and fuzz tests check every structure against: a std::map keyed
// by (unwrapped deadline, scheduling sequence number), the pull form's queue
// as a vector, and time as an unwrapped 64-bit number.
//
// A `timeline` says how one operation stream's instants read for the
// structures that run it: the narrowest tick type among them (every instant
// is the nearest one to now when it wraps), and how far ahead a deadline may
// be scheduled (the smallest "max horizon" among them).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace timerwheel_test {

// The instants of an operation stream, all kept unwrapped (plain 64-bit
// numbers); `wrap` gives the tick of the narrowest structure that runs it.
struct timeline {
  using u64 = std::uint64_t;
  static constexpr u64 unlimited = std::numeric_limits<u64>::max();

  unsigned digits = 64;            // bits of the narrowest tick type of the stream
  u64 deadline_limit = unlimited;  // how far ahead of now a deadline may be scheduled

  template <class Tick>
  static timeline of(u64 limit = unlimited) {
    return timeline{static_cast<unsigned>(std::numeric_limits<Tick>::digits), limit};
  }

  bool wraps() const { return digits < 64; }
  // How far ahead of now an instant may lie and still read as ahead.
  u64 max_ahead() const { return wraps() ? (u64{1} << (digits - 1)) - 1 : unlimited; }
  // How far behind now an instant may lie and still read as behind.
  u64 max_behind() const { return wraps() ? u64{1} << (digits - 1) : unlimited; }

  u64 wrap(u64 t) const { return wraps() ? t & ((u64{1} << digits) - 1) : t; }

  // The unwrapped instant that tick t stands for, seen from unwrapped `ref`.
  u64 unwrap(u64 t, u64 ref) const {
    if (!wraps()) return t;
    const u64 d = wrap(t - ref);
    return d > max_ahead() ? ref - ((u64{1} << digits) - d) : ref + d;
  }

  // The unwrapped instant the structures read for `t`, seen from `now`.
  u64 canonical(u64 t, u64 now) const { return unwrap(wrap(t), now); }

  // The latest unwrapped instant that reads as ahead of `now`.
  u64 horizon(u64 now) const { return wraps() ? now + max_ahead() : unlimited; }

  // now + delta, stopped at the horizon.
  u64 ahead(u64 now, u64 delta) const {
    return delta >= horizon(now) - now ? horizon(now) : now + delta;
  }

  // now - delta, stopped at the earliest instant that still reads as behind
  // (0 for 64-bit ticks).
  u64 behind(u64 now, u64 delta) const {
    const u64 limit = wraps() ? max_behind() : now;
    return now - (delta > limit ? limit : delta);
  }

  // A deadline the stream may schedule at `now`: `d` itself when it lies
  // within deadline_limit of now (or behind now); else folded back into
  // reach, the farthest instant ahead standing for itself, so that a
  // structure with a short horizon still sees deadlines spread over all of
  // it.
  u64 reachable(u64 d, u64 now) const {
    if (d <= now || d - now <= deadline_limit) return d;
    if (d == horizon(now)) return now + deadline_limit;
    return now + (d - now) % (deadline_limit + 1);
  }
};

// The model: pool timers, numbered 0..n-1, each idle, scheduled or queued
// (expired by the pull form and not yet taken).
class timer_model {
 public:
  using u64 = std::uint64_t;
  using key = std::pair<u64, u64>;  // (deadline, seq)
  enum class state { idle, scheduled, queued };
  struct timer {
    state st = state::idle;
    u64 deadline = 0;  // unwrapped
    u64 seq = 0;
    u64 gen = 0;  // changes on every schedule and unlink
  };

  timer_model(u64 now, std::size_t pool) : now_(now), timers_(pool) {}

  u64 now() const { return now_; }
  void set_now(u64 now) { now_ = now; }
  std::size_t pool() const { return timers_.size(); }
  const timer& at(std::size_t i) const { return timers_[i]; }
  bool pending(std::size_t i) const { return timers_[i].st != state::idle; }
  std::size_t size() const { return sched_.size() + queue_.size(); }
  const std::map<key, std::size_t>& scheduled() const { return sched_; }
  const std::vector<std::size_t>& queue() const { return queue_; }

  void unlink(std::size_t i) {
    timer& t = timers_[i];
    if (t.st == state::scheduled) sched_.erase({t.deadline, t.seq});
    if (t.st == state::queued) queue_.erase(std::find(queue_.begin(), queue_.end(), i));
    t.st = state::idle;
    ++t.gen;
  }

  // Schedules (or moves) timer i; a deadline before now is taken as now.
  void place(std::size_t i, u64 deadline) {
    unlink(i);
    timer& t = timers_[i];
    t.deadline = std::max(deadline, now_);
    t.seq = seq_++;
    t.st = state::scheduled;
    ++t.gen;
    sched_.emplace(key{t.deadline, t.seq}, i);
  }

  std::optional<u64> next_deadline() const {
    if (!queue_.empty()) return timers_[queue_.front()].deadline;
    if (sched_.empty()) return std::nullopt;
    return sched_.begin()->first.first;
  }

  // The earliest deadline of a timer not queued.
  std::optional<u64> earliest_scheduled() const {
    if (sched_.empty()) return std::nullopt;
    return sched_.begin()->first.first;
  }

  // Ticks a poller may sleep: none when nothing is pending.
  std::optional<u64> time_until_next() const {
    if (!queue_.empty()) return 0;
    if (sched_.empty()) return std::nullopt;
    const u64 d = sched_.begin()->first.first;
    return d <= now_ ? 0 : d - now_;
  }

  // The next timer whose callback runs in an advance to `to`: queued ones
  // first, then (deadline, seq) order; unlinks it and moves time to its
  // deadline. `was_queued` says which.
  std::optional<std::size_t> pop_due(u64 to, bool& was_queued) {
    was_queued = !queue_.empty();
    if (was_queued) {
      const auto i = queue_.front();
      unlink(i);
      return i;
    }
    if (sched_.empty() || sched_.begin()->first.first > to) return std::nullopt;
    const auto i = sched_.begin()->second;
    now_ = std::max(now_, timers_[i].deadline);
    unlink(i);
    return i;
  }

  // The pull form: queues, in order, every timer due by `to`; now = to.
  std::size_t queue_due(u64 to) {
    std::size_t moved = 0;
    while (!sched_.empty() && sched_.begin()->first.first <= to) {
      const auto i = sched_.begin()->second;
      unlink(i);
      timers_[i].st = state::queued;
      queue_.push_back(i);
      ++moved;
    }
    now_ = to;
    return moved;
  }

  std::optional<std::size_t> take() {
    if (queue_.empty()) return std::nullopt;
    const auto i = queue_.front();
    unlink(i);
    return i;
  }

  // The timers pending now in the order expire_all fires them, each with its
  // generation (a timer whose generation has changed since was cancelled or
  // moved, and is skipped).
  std::vector<std::pair<std::size_t, u64>> firing_order() const {
    std::vector<std::pair<std::size_t, u64>> order;
    for (auto i : queue_) order.emplace_back(i, timers_[i].gen);
    for (const auto& [k, i] : sched_) order.emplace_back(i, timers_[i].gen);
    return order;
  }

  void clear() {
    for (std::size_t i = 0; i < timers_.size(); ++i) unlink(i);
  }

 private:
  u64 now_;  // unwrapped
  std::vector<timer> timers_;
  std::map<key, std::size_t> sched_;
  std::vector<std::size_t> queue_;  // (a deque would allocate even when empty)
  u64 seq_ = 0;
};

}  // namespace timerwheel_test
