// The random operation generator of the differential tests: schedules near,
// far, at now, in the past, at the largest instant ahead, on slot edges and
// tied with pending timers; ranges (and refused ones); cancels; advances of
// both forms by 0, 1, small, huge and exact-to-the-next-deadline jumps;
// partial pulls; expire_all; clear; advances behind now; and callbacks that
// schedule (often into the same advance), cancel, reschedule themselves,
// check invariants and try to advance from inside.
//
// It draws every choice from `Source`: the seeded `rng` (rng.hpp) in the
// tests, the fuzzer's input bytes in fuzz/ (any source with next(),
// below(n), between(lo, hi) and percent(p) serves). It builds each
// operation with a `scenario` (lockstep.hpp), whose timeline keeps every
// deadline within what the structures of the stream support.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>

#include "lockstep.hpp"
#include "rng.hpp"

namespace timerwheel_test {

// What a stream did, so that a run that quietly stopped exercising the
// structures shows.
struct stream_tally {
  std::uint64_t fired = 0;          // callbacks of advance and expire_all
  std::uint64_t nested = 0;         // operations from inside callbacks
  std::uint64_t taken = 0;          // take_expired of the pull form
  std::uint64_t handed_queued = 0;  // queued timers handed to a later callback advance
  std::uint64_t wraps_crossed = 0;  // times now crossed 0 (wrapping ticks)
};

template <class Source>
class op_generator {
 public:
  using u64 = std::uint64_t;
  static constexpr u64 default_max_fires_per_advance = 20000;

  // A stream's start (unwrapped): for wrapping ticks just below the wrap, so
  // that the run crosses it early (and then crosses it again every 2^digits
  // ticks); else 0, anywhere below 2^40, or just below the end of time.
  static u64 pick_start(Source& g, const timeline& line) {
    if (line.wraps()) return (u64{1} << line.digits) - 1 - g.below(5000);
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

  static std::size_t pick_pool_size(Source& g) {
    static constexpr std::size_t sizes[] = {8, 64, 256, 512};
    return sizes[g.below(4)];
  }

  // `steps` is the length of the stream (the end of time is drawn only in
  // its last fiftieth).
  op_generator(Source& g, scenario& sc, u64 steps,
               u64 max_fires_per_advance = default_max_fires_per_advance)
      : g_(g), sc_(sc), line_(sc.line()), steps_(steps), max_fires_(max_fires_per_advance) {}

  const stream_tally& tally() const { return tally_; }

  // The next operation of the stream (the scenario's model is updated).
  operation next() {
    const u64 before = line_.wrap(now());
    operation op = one_step();
    if (line_.wrap(now()) < before) ++tally_.wraps_crossed;
    ++step_;
    return op;
  }

 private:
  u64 now() const { return sc_.now(); }
  const timer_model& m() const { return sc_.model(); }

  std::size_t any_timer() { return static_cast<std::size_t>(g_.below(m().pool())); }

  // Prefers a pending timer; any timer if a few tries find none.
  std::size_t pending_timer() {
    for (int tries = 0; tries < 8; ++tries) {
      const auto i = any_timer();
      if (m().pending(i)) return i;
    }
    return any_timer();
  }

  // An unwrapped deadline: near, far, at now, in the past, at the largest
  // instant ahead, on a slot edge, or tied with a pending timer.
  u64 pick_deadline() {
    const u64 r = g_.below(100);
    if (r < 25) return line_.ahead(now(), g_.below(64));
    if (r < 40) return line_.ahead(now(), g_.below(4096));
    if (r < 50) return line_.ahead(now(), g_.below(u64{1} << 20));
    if (r < 58) return line_.ahead(now(), g_.below(u64{1} << g_.between(20, line_.digits - 1)));
    if (r < 64) {
      const auto i = pending_timer();
      if (m().pending(i)) return m().at(i).deadline;
      return now();
    }
    if (r < 69) return now();
    if (r < 74) return line_.behind(now(), 1 + g_.below(100));
    if (r < 77) return line_.behind(now(), 1 + g_.below(u64{1} << g_.between(1, line_.digits - 1)));
    if (r < 80) return line_.horizon(now());  // the largest tick (64-bit) or 2^31 - 1 ahead
    if (r < 90) {
      // Just around the edge of a slot at some level: a multiple of 2^b.
      const unsigned b = static_cast<unsigned>(g_.between(1, line_.digits - 2));
      const u64 unit = u64{1} << b;
      const u64 edge = line_.ahead(now(), unit - (now() & (unit - 1)));
      const u64 off = g_.below(3);
      return g_.percent(50) ? line_.ahead(edge, off) : std::max(now(), edge - off);
    }
    return line_.ahead(now(), g_.below(u64{1} << g_.below(line_.digits - 1)));
  }

  // A deadline for a timer scheduled from a callback of an advance to `to`:
  // often due within this same advance.
  u64 pick_callback_deadline(u64 to) {
    const u64 r = g_.below(100);
    if (r < 35 && to >= now()) return now() + g_.below(std::min<u64>(to - now(), 1 << 12) + 1);
    if (r < 45) return now();
    if (r < 55) return line_.behind(now(), 1 + g_.below(1000));
    if (r < 65 && to >= now()) return to;
    if (r < 75) return line_.ahead(to, 1 + g_.below(100));
    return pick_deadline();
  }

  // An unwrapped advance target (never behind now).
  u64 pick_advance_target(bool pull) {
    const u64 r = g_.below(100);
    const auto next = m().earliest_scheduled();
    u64 to = now();
    if (r < 12) {
      to = now();
    } else if (r < 25) {
      to = line_.ahead(now(), 1);
    } else if (r < 45) {
      to = line_.ahead(now(), g_.below(64));
    } else if (r < 57) {
      to = line_.ahead(now(), g_.below(4096));
    } else if (r < 64) {
      to = line_.ahead(now(), g_.below(u64{1} << 20));
    } else if (r < 74) {
      to = next ? std::max(*next, now()) : line_.ahead(now(), 1);
    } else if (r < 79) {
      to = next && *next > now() ? *next - 1 : now();
    } else if (r < 86) {
      to = next ? line_.ahead(std::max(*next, now()), g_.below(64)) : now();
    } else if (r < 96) {
      to = line_.ahead(now(),
                       g_.below(u64{1} << g_.between(20, line_.wraps() ? line_.digits - 1 : 50)));
    } else if (line_.wraps() || step_ * 50 > steps_ * 49) {
      to = line_.horizon(now());  // the end of time comes only near the end of a run
    } else {
      to = line_.ahead(now(), g_.below(u64{1} << 16));
    }
    to = std::min(to, line_.horizon(now()));  // (ahead() of a later base can pass now's horizon)
    if (line_.wraps() && pull && !m().queue().empty()) {
      // Keep queued timers, whose deadlines lie behind now, within the half
      // range behind it, where their ticks still read as behind.
      const u64 oldest = m().at(m().queue().front()).deadline;
      to = std::min(to, oldest + (line_.max_ahead() >> 1));
      to = std::max(to, now());
    }
    return to;
  }

  // What a callback does: schedule (maybe due in this same advance), cancel
  // (maybe a timer due in this same advance), reschedule itself, or try to
  // advance from inside (a usage error). Inside expire_all it schedules only
  // idle timers: what expire_all does with a timer pending at its call that
  // a callback moves is not part of the contract.
  void callback_actions(fire& f, u64 to, bool in_expire_all) {
    ++tally_.fired;
    if (++fires_ > max_fires_) return;  // keep chains of reschedules finite
    if (g_.percent(10)) f.actions.push_back(scenario::check_invariants());
    const auto n = g_.percent(50) ? 0 : g_.between(1, 3);
    for (u64 k = 0; k < n; ++k) {
      ++tally_.nested;
      const u64 r = g_.below(100);
      if (r < 30) {
        const auto j = any_timer();
        if (in_expire_all && m().pending(j)) continue;
        f.actions.push_back(sc_.schedule(j, pick_callback_deadline(to)));
      } else if (r < 42) {
        f.actions.push_back(sc_.schedule(f.timer, pick_callback_deadline(to)));
      } else if (r < 50) {
        const auto j = g_.percent(30) ? f.timer : any_timer();
        if (in_expire_all && m().pending(j)) continue;
        const u64 e = pick_callback_deadline(to);
        f.actions.push_back(
            sc_.schedule_in_range(j, e, line_.ahead(e, g_.below(u64{1} << g_.below(16)))));
      } else if (r < 92) {
        f.actions.push_back(sc_.cancel(g_.percent(70) ? pending_timer() : any_timer()));
      } else {
        f.actions.push_back(scenario::reenter());
      }
    }
  }

  operation do_advance() {
    // Sometimes to the earliest deadline, or to now while timers are queued:
    // where advance_to_next() goes.
    const auto next = m().earliest_scheduled();
    const bool to_next = (next || !m().queue().empty()) && g_.percent(15);
    u64 to = pick_advance_target(false);
    if (to_next) to = m().queue().empty() ? std::max(*next, now()) : now();
    fires_ = 0;
    operation op = sc_.advance(to, [&](fire& f, bool was_queued) {
      if (was_queued) ++tally_.handed_queued;
      callback_actions(f, to, false);
    });
    op.to_next = to_next;
    return op;
  }

  operation do_pull_advance() {
    const u64 to = pick_advance_target(true);
    operation op = sc_.pull(to);
    const u64 takes = g_.below(op.count + 2);
    sc_.take_into(op, takes);
    tally_.taken += op.taken.size();
    return op;
  }

  operation do_take(u64 count) {
    operation op = sc_.take(count);
    tally_.taken += op.taken.size();
    return op;
  }

  operation do_expire_all() {
    fires_ = 0;
    const u64 at = now();
    return sc_.expire_all([&](fire& f, bool) { callback_actions(f, at, true); });
  }

  operation do_advance_behind() {
    if (!line_.wraps() && now() == 0) return scenario::visit_pending();  // nothing is behind
    return scenario::advance_behind(
        line_.behind(now(), 1 + g_.below(u64{1} << g_.below(line_.digits))));
  }

  operation one_step() {
    const u64 op = g_.below(1000);
    if (op < 280) return random_schedule();
    if (op < 330) {
      const auto i = pending_timer();  // a tie with, or a move of, a pending timer
      const u64 d = m().pending(i) ? m().at(i).deadline : pick_deadline();
      const auto j = g_.percent(50) ? i : any_timer();
      return scenario::act(sc_.schedule(j, d));
    }
    if (op < 400) {
      const u64 e = pick_deadline();
      const u64 span = g_.below(u64{1} << g_.below(line_.wraps() ? 30 : 63));
      if (g_.percent(10)) {
        // Earliest after latest: refused, nothing changes.
        const u64 l = std::max(line_.behind(now(), u64{1} << 29), e - std::min(e, 1 + span));
        if (l < e) return scenario::act(sc_.schedule_in_range(any_timer(), e, l));
        return scenario::visit_pending();
      }
      const u64 l = line_.wraps() ? std::min(line_.ahead(e, span), line_.horizon(now()))
                                  : line_.ahead(e, span);
      return scenario::act(sc_.schedule_in_range(any_timer(), e, l));
    }
    if (op < 540) return scenario::act(sc_.cancel(g_.percent(80) ? pending_timer() : any_timer()));
    if (op < 700) return do_advance();
    if (op < 780) return do_pull_advance();
    if (op < 820) return do_take(g_.below(4));
    if (op < 828) return do_expire_all();
    if (op < 830) return sc_.clear();
    if (op < 845) return do_advance_behind();
    if (op < 860) return scenario::visit_pending();
    return random_schedule();
  }

  operation random_schedule() {
    const u64 d = pick_deadline();
    return scenario::act(sc_.schedule(any_timer(), d));
  }

  Source& g_;
  scenario& sc_;
  timeline line_;
  u64 steps_;
  u64 max_fires_;
  u64 step_ = 0;
  u64 fires_ = 0;
  stream_tally tally_;
};

// What run_random_stream found.
struct stream_result {
  bool ok = true;
  std::uint64_t steps = 0;  // operations played
  stream_tally tally;
  std::string report;  // the first mismatch and the operations before it
};

// Plays `steps` random operations drawn from `seed` on the structures that
// add_lanes(lockstep&) adds, against the model, over `line`; stops at the
// first mismatch.
template <class AddLanes>
stream_result run_random_stream(const timeline& line, std::uint64_t seed, std::uint64_t steps,
                                AddLanes&& add_lanes) {
  rng g(seed);
  const std::uint64_t start = op_generator<rng>::pick_start(g, line);
  const std::size_t pool = op_generator<rng>::pick_pool_size(g);
  lockstep run(line, start, pool);
  add_lanes(run);
  op_generator<rng> gen(g, run.scene(), steps);
  stream_result r;
  run.compare();
  while (r.steps < steps && !run.failed()) {
    run.step(gen.next());
    ++r.steps;
  }
  r.ok = !run.failed();
  r.tally = gen.tally();
  if (!r.ok) r.report = run.report();
  return r;
}

}  // namespace timerwheel_test
