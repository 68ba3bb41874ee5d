// Lockstep checking of timer structures against the model (timer_model.hpp).
//
// A `scenario` turns each operation into a record of what the model expects
// of it -- the deadline a schedule gives, what cancel returns, and for an
// advance or expire_all the whole script of fires: which timer, at which
// now(), with which size() and next_deadline(), and what its callback then
// does (schedule, cancel, check_invariants, or advance from inside: a
// std::logic_error), with what each of those calls must return. A `lane`
// holds one structure and its hooks and plays an operation record on it,
// checking every answer; after every operation `compare` checks everything
// observable against the model: now, size, empty, next_deadline,
// time_until_next, pending() and deadline() of every timer, and
// check_invariants. A `lockstep` runs one scenario on any number of lanes at
// once, so that the structures are compared with the model and, through it,
// with each other; it keeps a log of the operations, printed with the first
// mismatch.
//
// Every instant in a record is unwrapped (a plain 64-bit number, as the model
// keeps it); a lane converts it to its own tick type, so that 64-bit and
// wrapping 32-bit structures run the same stream (see `timeline`).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "range_choice.hpp"
#include "timer_model.hpp"

namespace timerwheel_test {

// One call on a structure, and what the model expects of it.
struct action {
  enum class kind : std::uint8_t { schedule, schedule_in_range, cancel, check_invariants, reenter };
  kind what = kind::schedule;
  std::size_t timer = 0;
  std::uint64_t a = 0;       // schedule: the deadline; range: earliest (unwrapped)
  std::uint64_t b = 0;       // range: latest (unwrapped)
  std::uint64_t expect = 0;  // schedule, range: the deadline taken; cancel: 1 if it was pending
  bool refused = false;      // range: earliest after latest (std::invalid_argument)
};

// One callback of an advance or expire_all.
struct fire {
  std::size_t timer = 0;
  std::uint64_t now = 0;              // now() during the callback (unwrapped)
  std::size_t size = 0;               // size() during the callback
  std::optional<std::uint64_t> next;  // next_deadline() during the callback
  std::optional<std::uint64_t> wait;  // time_until_next() (none: the largest tick)
  std::vector<action> actions;        // what the callback does
};

// One operation of a stream, and what the model expects of it.
struct operation {
  enum class kind : std::uint8_t {
    act,         // `single`
    advance,     // callback form to `to`: `fires`
    pull,        // pull form to `to`: queues `count`, then takes `taken` (+ one none)
    take,        // takes `taken` (+ one none)
    expire_all,  // `fires`
    clear,
    advance_behind,  // both forms to `to`, behind now: std::invalid_argument
    visit_pending,   // for_each_pending visits exactly the pending timers
  };
  kind what = kind::act;
  action single;
  std::uint64_t to = 0;
  bool to_next = false;  // advance: `to` is where advance_to_next() goes, used where it exists
  std::size_t count = 0;
  std::vector<fire> fires;
  std::vector<std::size_t> taken;
  bool then_none = false;  // one more take_expired returns nullptr
};

// Builds operation records from the model, updating it as the structures
// will be updated. Deadlines given to it may be anything: each is read as
// the structures of the stream read it (the nearest instant, for wrapping
// ticks) and kept within the stream's deadline limit (timeline::reachable).
class scenario {
 public:
  using u64 = std::uint64_t;

  scenario(timeline line, u64 start, std::size_t pool) : line_(line), model_(start, pool) {}

  const timeline& line() const { return line_; }
  const timer_model& model() const { return model_; }
  u64 now() const { return model_.now(); }

  // The instant structures read for deadline `d` scheduled now, within reach.
  u64 deadline_for(u64 d) const { return line_.reachable(line_.canonical(d, now()), now()); }

  action schedule(std::size_t i, u64 deadline) {
    action a;
    a.what = action::kind::schedule;
    a.timer = i;
    a.a = deadline_for(deadline);
    model_.place(i, a.a);
    a.expect = model_.at(i).deadline;
    return a;
  }

  action schedule_in_range(std::size_t i, u64 earliest, u64 latest) {
    action a;
    a.what = action::kind::schedule_in_range;
    a.timer = i;
    a.a = deadline_for(earliest);
    a.b = deadline_for(latest);
    if (a.a > a.b) {
      a.refused = true;
      return a;
    }
    const u64 lo = std::max(a.a, now());
    a.expect = a.b < lo ? now() : most_trailing_zeros_in(lo, a.b);
    model_.place(i, a.expect);
    return a;
  }

  action cancel(std::size_t i) {
    action a;
    a.what = action::kind::cancel;
    a.timer = i;
    a.expect = model_.pending(i) ? 1 : 0;
    if (a.expect != 0) model_.unlink(i);
    return a;
  }

  static action check_invariants() {
    action a;
    a.what = action::kind::check_invariants;
    return a;
  }

  static action reenter() {
    action a;
    a.what = action::kind::reenter;
    return a;
  }

  static operation act(action a) {
    operation op;
    op.what = operation::kind::act;
    op.single = a;
    return op;
  }

  // The callback form: on_fire(fire&, bool was_queued) may append actions
  // (built by this scenario) to the fire it is given, as the callback will
  // do them.
  template <class OnFire>
  operation advance(u64 to, OnFire&& on_fire) {
    operation op;
    op.what = operation::kind::advance;
    op.to = to;
    bool was_queued = false;
    while (const auto i = model_.pop_due(to, was_queued)) {
      op.fires.push_back(fired(*i));
      on_fire(op.fires.back(), was_queued);
    }
    model_.set_now(to);
    return op;
  }

  operation advance(u64 to) {
    return advance(to, [](fire&, bool) {});
  }

  // The pull form to `to`; takes none yet (see take_into).
  operation pull(u64 to) {
    operation op;
    op.what = operation::kind::pull;
    op.to = to;
    op.count = model_.queue_due(to);
    return op;
  }

  // Appends `count` take_expired calls to a pull or take operation.
  void take_into(operation& op, u64 count) {
    for (u64 k = 0; k < count; ++k) {
      const auto i = model_.take();
      if (!i) {
        op.then_none = true;
        return;
      }
      op.taken.push_back(*i);
    }
  }

  operation take(u64 count) {
    operation op;
    op.what = operation::kind::take;
    take_into(op, count);
    return op;
  }

  template <class OnFire>
  operation expire_all(OnFire&& on_fire) {
    operation op;
    op.what = operation::kind::expire_all;
    const auto order = model_.firing_order();
    for (const auto& [i, gen] : order) {
      if (model_.at(i).gen != gen) continue;  // cancelled or moved by a callback
      const bool was_queued = model_.at(i).st == timer_model::state::queued;
      model_.unlink(i);
      op.fires.push_back(fired(i));
      on_fire(op.fires.back(), was_queued);
    }
    return op;
  }

  operation clear() {
    model_.clear();
    operation op;
    op.what = operation::kind::clear;
    return op;
  }

  static operation advance_behind(u64 to) {
    operation op;
    op.what = operation::kind::advance_behind;
    op.to = to;
    return op;
  }

  static operation visit_pending() {
    operation op;
    op.what = operation::kind::visit_pending;
    return op;
  }

 private:
  // What the callback of timer i, just taken out, sees.
  fire fired(std::size_t i) const {
    return fire{i, now(), model_.size(), model_.next_deadline(), model_.time_until_next(), {}};
  }

  timeline line_;
  timer_model model_;
};

// Writes a record for the log. Instants are unwrapped; where the stream
// wraps, the narrowest structure's tick follows in brackets.
class record_printer {
 public:
  explicit record_printer(const timeline& line) : line_(line) {}

  std::string instant(std::uint64_t t) const {
    std::string s = std::to_string(t);
    if (line_.wraps()) s += " [" + std::to_string(line_.wrap(t)) + "]";
    return s;
  }

  std::string operator()(const action& a) const {
    const std::string timer = "#" + std::to_string(a.timer);
    switch (a.what) {
      case action::kind::schedule:
        return "schedule " + timer + " at " + instant(a.a) + " -> " + instant(a.expect);
      case action::kind::schedule_in_range:
        return "schedule_in_range " + timer + " [" + instant(a.a) + ", " + instant(a.b) + "] -> " +
               (a.refused ? std::string("std::invalid_argument") : instant(a.expect));
      case action::kind::cancel:
        return "cancel " + timer + " -> " + (a.expect != 0 ? "true" : "false");
      case action::kind::check_invariants:
        return "check_invariants";
      case action::kind::reenter:
        return "advance (both forms) and expire_all from the callback -> std::logic_error";
    }
    return "?";
  }

  std::string operator()(const operation& op, std::size_t max_fires = 64) const {
    std::ostringstream os;
    switch (op.what) {
      case operation::kind::act:
        return (*this)(op.single);
      case operation::kind::advance:
        os << "advance to " << instant(op.to) << ", callback form"
           << (op.to_next ? " (advance_to_next where it exists)" : "");
        break;
      case operation::kind::pull:
        os << "advance to " << instant(op.to) << ", pull form -> queues " << op.count;
        break;
      case operation::kind::take:
        os << "take_expired";
        break;
      case operation::kind::expire_all:
        os << "expire_all";
        break;
      case operation::kind::clear:
        return "clear";
      case operation::kind::advance_behind:
        return "advance to " + instant(op.to) + ", behind now -> std::invalid_argument";
      case operation::kind::visit_pending:
        return "for_each_pending";
    }
    std::size_t shown = 0;
    for (const fire& f : op.fires) {
      if (shown++ == max_fires) {
        os << "\n      ... " << op.fires.size() - max_fires << " more fires";
        break;
      }
      os << "\n      fires #" << f.timer << " at " << instant(f.now) << " (size " << f.size << ")";
      for (const action& a : f.actions) os << "\n        then " << (*this)(a);
    }
    if (op.what == operation::kind::pull || op.what == operation::kind::take) {
      for (auto i : op.taken) os << "\n      take_expired -> #" << i;
      if (op.then_none) os << "\n      take_expired -> nullptr";
    }
    return os.str();
  }

 private:
  timeline line_;
};

// Collects the first mismatch of a run.
class checker {
 public:
  bool failed() const { return failed_; }
  const std::string& message() const { return message_; }

  void fail(const std::string& where, const std::string& what) {
    if (failed_) return;
    failed_ = true;
    message_ = where + ": " + what;
  }

 private:
  bool failed_ = false;
  std::string message_;
};

template <class T>
std::string show(const std::optional<T>& v) {
  return v ? std::to_string(*v) : std::string("none");
}
template <class T>
std::string show(const T& v) {
  return std::to_string(v);
}

// What a lane of any structure type offers the lockstep.
class lane_base {
 public:
  lane_base() = default;
  lane_base(const lane_base&) = delete;
  lane_base& operator=(const lane_base&) = delete;
  virtual ~lane_base() = default;
  virtual std::string_view name() const = 0;
  // Plays one operation on the structure, checking every answer.
  virtual void apply(const operation& op, checker& c) = 0;
  // Checks everything observable against the model.
  // `invariants`: also run the structure's check_invariants (the costly part: it walks every
  // slot).
  virtual void compare(const timer_model& m, checker& c, bool invariants = true) = 0;
};

// One structure S (the contract of timerwheel::wheel) and its hooks.
template <class S>
class lane final : public lane_base {
  using tick = typename S::tick_type;
  using hook = typename S::hook_type;
  using u64 = std::uint64_t;

 public:
  // `name` must outlive the lane (a literal, or a static string).
  lane(std::string_view name, u64 start, std::size_t pool)
      : name_(name), hooks_(pool), s_(static_cast<tick>(start)) {}

  std::string_view name() const override { return name_; }
  S& structure() { return s_; }
  hook& timer(std::size_t i) { return hooks_[i]; }

  void apply(const operation& op, checker& c) override {
    c_ = &c;
    try {
      play(op);
    } catch (const std::exception& ex) {
      fail(std::string("unexpected exception: ") + ex.what());
    }
  }

  void compare(const timer_model& m, checker& c, bool invariants = true) override {
    c_ = &c;
    expect_eq(s_.now(), t(m.now()), "now()");
    expect_eq(s_.size(), m.size(), "size()");
    expect_eq(s_.empty(), m.size() == 0, "empty()");
    const auto next = m.next_deadline();
    expect_eq(s_.next_deadline(), next ? std::optional<tick>(t(*next)) : std::nullopt,
              "next_deadline()");
    const auto wait = m.time_until_next();
    expect_eq(s_.time_until_next(), wait ? t(*wait) : std::numeric_limits<tick>::max(),
              "time_until_next()");
    for (std::size_t i = 0; i < hooks_.size() && !c.failed(); ++i) {
      if (hooks_[i].pending() != m.pending(i)) {
        fail("pending() of #" + show(i) + ": " + show(hooks_[i].pending()) + ", model " +
             show(m.pending(i)));
      } else if (m.pending(i) && hooks_[i].deadline() != t(m.at(i).deadline)) {
        fail("deadline() of #" + show(i) + ": " + show(hooks_[i].deadline()) + ", model " +
             show(t(m.at(i).deadline)));
      }
    }
    if (invariants) check_invariants("check_invariants");
  }

 private:
  static tick t(u64 v) { return static_cast<tick>(v); }

  void fail(const std::string& what) { c_->fail(std::string(name_), what); }
  bool failed() const { return c_->failed(); }

  template <class A, class B>
  void expect_eq(const A& got, const B& want, const char* what) {
    if (!(got == want)) fail(std::string(what) + ": " + show(got) + ", model " + show(want));
  }

  void check_invariants(const char* where) {
    try {
      s_.check_invariants();
    } catch (const std::exception& ex) {
      fail(std::string(where) + ": " + ex.what());
    }
  }

  std::size_t index_of(const hook& h) {
    const auto i = static_cast<std::size_t>(&h - hooks_.data());
    if (i >= hooks_.size()) fail("a callback got a hook that is not one of the test's");
    return i;
  }

  template <class F>
  void expect_logic_error(F&& f, const char* what) {
    try {
      f();
      fail(std::string("no std::logic_error for ") + what + " inside a callback");
    } catch (const std::logic_error&) {
    }
  }

  void run(const action& a) {
    hook& h = hooks_[a.timer];
    switch (a.what) {
      case action::kind::schedule:
        s_.schedule(h, t(a.a));
        expect_eq(h.deadline(), t(a.expect), "deadline after schedule");
        expect_eq(h.pending(), true, "pending() after schedule");
        break;
      case action::kind::schedule_in_range:
        if (a.refused) {
          try {
            s_.schedule_in_range(h, t(a.a), t(a.b));
            fail("schedule_in_range with earliest after latest did not throw");
          } catch (const std::invalid_argument&) {
          }
        } else {
          expect_eq(s_.schedule_in_range(h, t(a.a), t(a.b)), t(a.expect),
                    "schedule_in_range's choice");
          expect_eq(h.deadline(), t(a.expect), "deadline after schedule_in_range");
        }
        break;
      case action::kind::cancel:
        expect_eq(s_.cancel(h), a.expect != 0, "cancel's result");
        break;
      case action::kind::check_invariants:
        check_invariants("check_invariants inside a callback");
        break;
      case action::kind::reenter:
        expect_logic_error([&] { s_.advance(s_.now(), [](hook&) {}); }, "advance");
        expect_logic_error([&] { s_.advance(s_.now()); }, "advance (pull form)");
        expect_logic_error([&] { s_.expire_all([](hook&) {}); }, "expire_all");
        break;
    }
  }

  // Runs the callbacks of an advance or expire_all against the script.
  auto script(const std::vector<fire>& fires, std::size_t& k, const char* form) {
    return [this, &fires, &k, form](hook& h) {
      if (failed()) return;
      const std::size_t got = index_of(h);
      if (k == fires.size()) {
        fail(std::string(form) + ": fired #" + show(got) + " at " + show(s_.now()) +
             " where the model fires nothing more");
        return;
      }
      const fire& f = fires[k++];
      if (got != f.timer) {
        fail(std::string(form) + ": fired #" + show(got) + ", the model #" + show(f.timer) +
             " (fire " + show(k - 1) + ")");
        return;
      }
      expect_eq(s_.now(), t(f.now), "now() inside a callback");
      expect_eq(h.pending(), false, "pending() of a timer inside its callback");
      expect_eq(s_.size(), f.size, "size() inside a callback");
      expect_eq(s_.next_deadline(), f.next ? std::optional<tick>(t(*f.next)) : std::nullopt,
                "next_deadline() inside a callback");
      expect_eq(s_.time_until_next(), f.wait ? t(*f.wait) : std::numeric_limits<tick>::max(),
                "time_until_next() inside a callback");
      for (const action& a : f.actions) {
        if (failed()) return;
        run(a);
      }
    };
  }

  void after_script(const std::vector<fire>& fires, std::size_t k, std::size_t returned,
                    const char* form) {
    if (failed()) return;
    if (k != fires.size()) {
      fail(std::string(form) + ": the model fires #" + show(fires[k].timer) +
           " next, the structure fired nothing more");
      return;
    }
    if (returned != fires.size())
      fail(std::string(form) + "'s return value: " + show(returned) + ", model " +
           show(fires.size()));
  }

  void takes(const operation& op) {
    for (const std::size_t want : op.taken) {
      hook* got = s_.take_expired();
      if (got == nullptr) {
        fail("take_expired returned nothing, the model #" + show(want));
        return;
      }
      expect_eq(index_of(*got), want, "take_expired");
      expect_eq(got->pending(), false, "pending() of a taken timer");
      if (failed()) return;
    }
    if (op.then_none) {
      if (hook* got = s_.take_expired())
        fail("take_expired returned #" + show(index_of(*got)) + ", the model nothing");
    }
  }

  void play(const operation& op) {
    switch (op.what) {
      case operation::kind::act:
        run(op.single);
        break;
      case operation::kind::advance: {
        std::size_t k = 0;
        std::size_t n = 0;
        if constexpr (requires { s_.advance_to_next([](hook&) {}); }) {
          if (op.to_next) {
            n = s_.advance_to_next(script(op.fires, k, "advance_to_next"));
            after_script(op.fires, k, n, "advance_to_next");
            expect_eq(s_.now(), t(op.to), "now after advance_to_next");
            break;
          }
        }
        n = s_.advance(t(op.to), script(op.fires, k, "advance"));
        after_script(op.fires, k, n, "advance");
        break;
      }
      case operation::kind::pull:
        expect_eq(s_.advance(t(op.to)), op.count, "pull advance's return value");
        if (!failed()) takes(op);
        break;
      case operation::kind::take:
        takes(op);
        break;
      case operation::kind::expire_all: {
        std::size_t k = 0;
        const std::size_t n = s_.expire_all(script(op.fires, k, "expire_all"));
        after_script(op.fires, k, n, "expire_all");
        break;
      }
      case operation::kind::clear:
        s_.clear();
        break;
      case operation::kind::advance_behind:
        try {
          s_.advance(t(op.to), [&](hook&) { fail("advance behind now fired a timer"); });
          fail("advance behind now did not throw");
        } catch (const std::invalid_argument&) {
        }
        try {
          s_.advance(t(op.to));
          fail("pull advance behind now did not throw");
        } catch (const std::invalid_argument&) {
        }
        break;
      case operation::kind::visit_pending: {
        std::vector<std::size_t> seen;
        s_.for_each_pending([&](const hook& h) { seen.push_back(index_of(h)); });
        std::sort(seen.begin(), seen.end());
        std::vector<std::size_t> want;
        for (std::size_t i = 0; i < hooks_.size(); ++i)
          if (hooks_[i].pending()) want.push_back(i);
        if (seen != want)
          fail("for_each_pending visited " + show(seen.size()) + " timers, " + show(want.size()) +
               " are pending (or a different set, or one twice)");
        break;
      }
    }
  }

  std::string_view name_;
  checker* c_ = nullptr;
  std::vector<hook> hooks_;  // before the structure: it is destroyed first
  S s_;
};

// One scenario played on many lanes, each operation on every lane in turn,
// everything compared with the model after each. Keeps the last operations
// (all of them when log_depth is 0) for the failure report.
class lockstep {
 public:
  using u64 = std::uint64_t;

  lockstep(timeline line, u64 start, std::size_t pool, std::size_t log_depth = 16)
      : scenario_(line, start, pool), log_depth_(log_depth) {
    log_.reserve(log_depth == 0 ? 8 : log_depth + 1);
  }

  scenario& scene() { return scenario_; }
  const scenario& scene() const { return scenario_; }
  const timer_model& model() const { return scenario_.model(); }

  // Adds a lane of structure S; `name` must outlive the lockstep.
  template <class S>
  lane<S>& add(std::string_view name) {
    auto l = std::make_unique<lane<S>>(name, model().now(), model().pool());
    lane<S>& ref = *l;
    lanes_.push_back(std::move(l));
    return ref;
  }

  bool failed() const { return checker_.failed(); }

  // Runs the structures' check_invariants after every `n`-th step only (n >= 1; every step by
  // default) and in compare(); everything else is compared after every step. For callers that
  // play long streams and want more of them a second (the fuzzer): a structure that breaks its
  // invariants is caught at most n - 1 steps later, or by the observable difference it makes.
  void check_invariants_every(std::size_t n) { invariant_interval_ = n == 0 ? 1 : n; }

  // Plays `op` (built by scene()) on every lane, then (unless told not to:
  // a caller that compares later) compares each with the model. Returns
  // false at the first mismatch (the op is kept as the last of the log).
  bool step(operation op, bool then_compare = true) {
    for (auto& l : lanes_) {
      l->apply(op, checker_);
      if (failed()) break;
    }
    ++steps_;
    const bool invariants = steps_ % invariant_interval_ == 0;
    if (!failed() && then_compare)
      for (auto& l : lanes_) {
        l->compare(model(), checker_, invariants);
        if (failed()) break;
      }
    log_.push_back(std::move(op));
    if (log_depth_ != 0 && log_.size() > log_depth_) log_.erase(log_.begin());
    return !failed();
  }

  // Compares every lane with the model (as after a step).
  bool compare() {
    for (auto& l : lanes_) {
      l->compare(model(), checker_);
      if (failed()) break;
    }
    return !failed();
  }

  // The first mismatch and the operations that led to it, oldest first.
  std::string report() const {
    std::ostringstream os;
    const record_printer print(scenario_.line());
    os << checker_.message() << "\nat operation " << steps_ << ", model now "
       << print.instant(model().now()) << ", " << lanes_.size() << " structures in lockstep";
    if (!log_.empty()) {
      os << "\n"
         << (steps_ > log_.size() ? "last operations" : "operations")
         << ", oldest first (the last one failed):";
      for (const operation& op : log_) os << "\n  " << print(op);
    }
    return os.str();
  }

 private:
  scenario scenario_;
  std::size_t log_depth_;
  std::vector<std::unique_ptr<lane_base>> lanes_;
  checker checker_;
  std::vector<operation> log_;
  u64 steps_ = 0;
  std::size_t invariant_interval_ = 1;
};

}  // namespace timerwheel_test
