// timerwheel::timers<Clock>: timers on a real (or manual) clock for the one
// thread that runs a loop: one-shot and periodic timers owning move-only
// callbacks, kept on a wheel of ticks read through a tick_clock.
//
// The loop calls run_due() whenever it wakes, and sleeps for
// time_until_next() (or arms a timerfd at next_expiry()) in between; a
// driver that must learn when the earliest expiry moves registers with
// watch_next_expiry().
//
// Time: deadlines are time points of Clock, rounded up to a tick edge (see
// tick_clock), so no timer fires before its time point, and one fires at the
// first run_due() whose clock reading is at or past that edge. The timers'
// own time is the latest clock reading seen: a clock that goes backwards
// (manual_clock::set, a broken Clock) is clamped, not followed: run_due()
// fires nothing new until the clock is past its latest reading again, and
// after() counts from that latest reading. No timer is lost or fired early
// by the timers' time.
#pragma once

#include <bit>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "clock.hpp"
#include "detail/abi.hpp"
#include "detail/periodic.hpp"
#include "detail/pool_chunks.hpp"
#include "detail/unique_function.hpp"
#include "levels.hpp"
#include "timer_hook.hpp"
#include "timer_queue.hpp"  // timer_id
#include "wheel.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI {

// What a fixed-rate periodic timer does when run_due() comes so late that
// one or more later periods are due too (a stall). Its k-th firing is due at
// start + k * period. Timeline of a 10 ms timer started at 0 whose loop
// stalls from 15 ms to 42 ms (fires at 10, then run_due() at 42):
//   skip  (default; Go's ticker): fires once at 42, then 50, 60, ...: the
//         missed periods are dropped and the timer stays on its grid.
//   burst (tokio's default): fires for 20, 30 and 40 at 42, one after
//         another, then 50, 60, ...: every period fires, late ones at once.
//   delay: fires once at 42, then 52, 62, ...: the grid moves to the late
//         firing (the run_due() reading plus a period).
// A firing that is late by less than a period changes nothing: the next one
// stays on the grid under every policy.
enum class missed_ticks : std::uint8_t { skip, burst, delay };

namespace detail {

// The firing after a fixed-rate timer's firing due at `due`, run by a
// run_due() that read `now` and ran to the tick edge `edge`: due + period, or
// when that is due already (a stall), what `policy` says (see missed_ticks).
// O(1); throws nothing.
template <class TimePoint>
TimePoint next_fixed_rate_due(TimePoint due, typename TimePoint::duration period,
                              missed_ticks policy, TimePoint edge, TimePoint now) noexcept {
  const TimePoint next = saturating_add(due, period);
  if (next > edge) return next;
  switch (policy) {
    case missed_ticks::burst:
      return next;
    case missed_ticks::skip:
      return next_grid_point_after(due, period, edge);
    case missed_ticks::delay:
      return saturating_add(now, period);
  }
  return next;
}

}  // namespace detail

// A timer's callback: called with no arguments, or with the timer's own id
// (which lets a periodic timer cancel itself).
template <class F>
concept timer_callback = std::move_constructible<std::decay_t<F>> &&
    std::constructible_from<std::decay_t<F>, F> &&
    (std::invocable<std::decay_t<F>&> || std::invocable<std::decay_t<F>&, timer_id>);

// `timers<Clock>`: the timers of one thread. Not thread-safe: every member,
// callbacks included, runs on that thread. Callbacks may call after, at,
// every, cancel (their own timer's too) and the queries; run_due() from a
// callback is refused, and destroying the timers from a callback is
// undefined.
//
// PERFORMANCE NOTE: a timer is a node of about 96 bytes in a pool that grows
// geometrically and never moves its nodes: once it has grown, after, at,
// every and cancel allocate nothing for a callback of up to four pointers of
// captures (bigger ones are kept on the heap). Scheduling and cancelling are
// O(1) on the wheel; a cancelled timer's node is reusable at once.
template <class Clock = std::chrono::steady_clock>
class timers {
 public:
  using clock_type = Clock;
  using time_point = typename Clock::time_point;
  using duration = typename Clock::duration;
  using tick_type = std::uint64_t;

  // Timers on `clock` (by default steady_clock in 1 ms ticks). Reads the
  // clock once; allocates nothing. Throws what Clock::now() throws.
  explicit timers(tick_clock<Clock> clock = tick_clock<Clock>())
      : clock_(std::move(clock)),
        last_(clock_.clock().now()),
        wheel_(clock_.elapsed_ticks(last_)) {}

  timers(const timers&) = delete;
  timers& operator=(const timers&) = delete;

  // Destroys the callbacks of the timers still pending, without running them.
  ~timers() = default;

  // --- scheduling ---

  // A one-shot timer that calls `f` once, `delay` (in Clock's duration, or
  // anything that converts to it) after the current time: the first tick
  // edge at or after it. A zero or negative delay makes it due at once: it
  // fires at the next run_due(), never inside after(). Returns its id. Reads
  // the clock once; O(1). Strong: throws std::bad_alloc (growing the pool,
  // or a big callback), std::length_error (beyond 2^32 - 64 timers) or what
  // moving `f` throws, changing nothing.
  template <timer_callback F>
  timer_id after(duration delay, F&& f) {
    const time_point t = detail::saturating_add(observe(), delay);
    return add(clock_.ticks_at(t), kind::once, t, duration::zero(), missed_ticks::skip,
               wrap(std::forward<F>(f)));
  }

  // A one-shot timer at time point `t`: it fires at the first run_due() at
  // or after the tick edge at or after `t`. A `t` in the past (or before the
  // Clock's epoch) makes it due at once. O(1); throws as after().
  template <timer_callback F>
  timer_id at(time_point t, F&& f) {
    return add(clock_.ticks_at(t), kind::once, t, duration::zero(), missed_ticks::skip,
               wrap(std::forward<F>(f)));
  }

  // A fixed-rate periodic timer: its k-th firing (k = 1, 2, ...) is due at
  // start + k * `period`, start being the current time, exactly, with no
  // drift however many periods go by and whether or not the period is a
  // whole number of ticks. After a stall, `policy` says what happens (see
  // missed_ticks). It fires until cancelled; cancelling it from its own
  // callback (take a timer_id parameter) stops it. O(1) per firing, O(1)
  // after a stall under skip and delay; burst fires once per missed period.
  // Throws std::invalid_argument, changing nothing, for a zero or negative
  // period, and as after().
  template <timer_callback F>
  timer_id every(duration period, F&& f, missed_ticks policy = missed_ticks::skip) {
    check_period(period, "timerwheel: timers::every: the period must be positive");
    const time_point t = detail::saturating_add(observe(), period);
    return add(clock_.ticks_at(t), kind::fixed_rate, t, period, policy, wrap(std::forward<F>(f)));
  }

  // A fixed-delay periodic timer: first due `delay` after the current time,
  // then each time `delay` after its callback returned (the clock is read
  // when it returns), so the callback's own run time and any lateness push
  // the later firings back. It fires until cancelled. O(1) and one clock
  // reading per firing. Throws std::invalid_argument, changing nothing, for a
  // zero or negative delay, and as after().
  template <timer_callback F>
  timer_id every_fixed_delay(duration delay, F&& f) {
    check_period(delay, "timerwheel: timers::every_fixed_delay: the delay must be positive");
    const time_point t = detail::saturating_add(observe(), delay);
    return add(clock_.ticks_at(t), kind::fixed_delay, t, delay, missed_ticks::skip,
               wrap(std::forward<F>(f)));
  }

  // Cancels the timer: returns true when it was pending, or is a periodic
  // timer whose callback is running (from that callback, or one it calls):
  // either way it will not run again. False, touching nothing, for a stale
  // id: a fired one-shot timer (its id is stale once its callback starts) or
  // a cancelled one. An id means something only to the timers that issued
  // it, as a timer_queue's does. A pending timer's callback is
  // destroyed and its node reusable at once; a running one's when it
  // returns. O(1), plus a look for the next expiry when the earliest timer
  // goes and a watcher is registered. Throws only what the watcher throws.
  bool cancel(timer_id id) {
    node* n = find(id);
    if (n == nullptr) return false;
    --live_;
    if (n->status == state::firing) {
      n->status = state::cancelled;
      return true;
    }
    const tick_type deadline = n->deadline();
    wheel_.cancel(*n);
    release(*n);
    if (watcher_ && !running_ && reported_ == deadline) report(wheel_.next_deadline());
    return true;
  }

  // --- running ---

  // Reads the clock once and fires every timer due by that reading, in
  // order of their ticks (FIFO among equal ticks); a callback that schedules
  // a timer already due sees it fire in the same run, after it returns.
  // Returns how many callbacks ran. O(levels + fired + cascaded); O(1) when
  // nothing is due. A reading behind an earlier one fires nothing new (see
  // the top of this file). Throws std::logic_error when called from a
  // callback, and what a callback throws: the timers not yet fired stay
  // pending, the one that threw has fired (a periodic one is scheduled for
  // its next period as if it had returned).
  std::size_t run_due() {
    if (running_) throw std::logic_error("timerwheel: timers::run_due: called from a callback");
    const time_point now = observe();
    tick_type to = clock_.elapsed_ticks(now);
    if (to < wheel_.now()) to = wheel_.now();  // a tick_clock may not be monotonic
    run_now_ = now;
    run_edge_ = clock_.time_of(to);
    running_ = true;
    const run_scope scope(*this);
    return wheel_.advance(to, [this](hook_type& h) { fire(static_cast<node&>(h)); });
  }

  // --- queries ---

  // The time point at which the earliest timer is due: the tick edge its
  // deadline was rounded up to, where the first run_due() at or past it
  // fires it (so never earlier than the time asked for, and less than a tick
  // later). None when no timer is pending. O(levels + timers in the
  // earliest slot); throws nothing.
  std::optional<time_point> next_expiry() const noexcept {
    const std::optional<tick_type> d = wheel_.next_deadline();
    if (!d) return std::nullopt;
    return clock_.time_of(*d);
  }

  // How long a poller may sleep: from the clock's current reading to
  // next_expiry(), zero when a timer is due, duration::max() when none is
  // pending. A sleep of at least that long always finds the timer due;
  // convert it to a coarser unit with std::chrono::ceil, never a cast that
  // rounds down. Reads the clock once; cost of next_expiry(). Throws what
  // Clock::now() throws.
  duration time_until_next() const {
    const std::optional<tick_type> d = wheel_.next_deadline();
    if (!d) return duration::max();
    if (*d <= clock_.elapsed_ticks(last_)) return duration::zero();
    const time_point due = clock_.time_of(*d);
    const time_point now = clock_.clock().now();
    if (due <= now) return duration::zero();
    if (now < time_point{} && due.time_since_epoch() > duration::max() + now.time_since_epoch())
      return duration::max();
    return due - now;
  }

  // Pending timers: one-shot timers not yet fired and periodic timers not
  // cancelled (a running one included). O(1); throws nothing.
  std::size_t size() const noexcept { return live_; }
  bool empty() const noexcept { return live_ == 0; }

  // Whether `id` names a timer that may still run: a pending one, or a
  // running periodic one not cancelled. O(1); throws nothing.
  bool pending(timer_id id) const noexcept { return find(id) != nullptr; }

  // The clock the timers run on, in ticks.
  const tick_clock<Clock>& clock() const noexcept { return clock_; }

  // The latest clock reading the timers have taken (by run_due, after,
  // every and every_fixed_delay): their own time, which never goes back.
  time_point now() const noexcept { return last_; }

  // Grows the pool to hold `n` timers, so that scheduling up to that many
  // allocates nothing (callbacks bigger than the inline buffer aside).
  // Strong: throws std::bad_alloc or std::length_error, changing nothing.
  void reserve(std::size_t n) {
    if (n > pool_layout::max_capacity())
      throw std::length_error("timerwheel: timers: more than 2^32 - 64 timers");
    const std::size_t chunks = chunks_.size();
    const std::size_t capacity = capacity_;
    const std::uint32_t free = free_;
    try {
      while (capacity_ < n) grow();
    } catch (...) {
      chunks_.resize(chunks);
      capacity_ = capacity;
      free_ = free;
      throw;
    }
  }

  // --- for drivers ---

  // Registers `on_change`, replacing any earlier one (an empty one
  // unregisters). It is called after an after, at, every, every_fixed_delay
  // or cancel made outside run_due() changed next_expiry(), and only then;
  // never during run_due(), whose caller reads next_expiry() afterwards.
  // A timerfd driver re-arms its fd from it. It may schedule and cancel
  // (each change calls it again, nested), but not replace itself. What it
  // throws leaves the call that changed the expiry, whose change stands.
  // Registering throws nothing.
  void watch_next_expiry(detail::unique_function<void()> on_change) noexcept {
    watcher_ = std::move(on_change);
    reported_ = watcher_ ? wheel_.next_deadline() : std::nullopt;
  }

 private:
  using wheel_type = wheel<default_config>;
  using hook_type = basic_timer_hook<tick_type>;
  using callback_type = detail::unique_function<void(timer_id)>;

  enum class kind : std::uint8_t { once, fixed_rate, fixed_delay };
  // idle: in the pool; pending: in the wheel; firing: its callback runs
  // (a periodic timer; a one-shot one is `done` by then); cancelled: a
  // periodic timer cancelled while its callback runs.
  enum class state : std::uint8_t { idle, pending, firing, done, cancelled };

  struct node : hook_type {
    callback_type callback;
    time_point due{};              // fixed rate: the grid point of the next firing
    duration period{};             // periodic timers: the period or the delay
    std::uint32_t index = 0;       // its place in the pool
    std::uint32_t generation = 1;  // never 0, so no node matches timer_id{}
    std::uint32_t next_free = 0;   // while idle: the next idle node
    kind type = kind::once;
    missed_ticks policy = missed_ticks::skip;
    state status = state::idle;
  };
  static_assert(sizeof(void*) != 8 || sizeof(node) <= 96,
                "timers: a node is 96 bytes on 64-bit targets (see the performance note)");

  using pool_layout = detail::pool_chunks;
  static constexpr std::uint32_t none_ = pool_layout::none;

  static void check_period(duration period, const char* message) {
    if (period <= duration::zero()) throw std::invalid_argument(message);
  }

  // A callback taking no arguments is adapted to take the id it ignores.
  template <class F>
  static callback_type wrap(F&& f) {
    using D = std::decay_t<F>;
    if constexpr (std::invocable<D&, timer_id>) {
      return callback_type(std::forward<F>(f));
    } else {
      return callback_type([g = D(std::forward<F>(f))](timer_id) mutable { g(); });
    }
  }

  // The clock's reading, or the latest one when the clock went back.
  time_point observe() {
    const time_point t = clock_.clock().now();
    if (t > last_) last_ = t;
    return last_;
  }

  timer_id add(tick_type deadline, kind type, time_point due, duration period, missed_ticks policy,
               callback_type&& callback) {
    const std::uint32_t index = acquire();
    node& n = at(index);
    n.callback = std::move(callback);
    n.due = due;
    n.period = period;
    n.type = type;
    n.policy = policy;
    n.status = state::pending;
    ++live_;
    wheel_.schedule(n, deadline);
    if (watcher_ && !running_ && (!reported_ || n.deadline() < *reported_)) report(n.deadline());
    return {index, n.generation};
  }

  void report(std::optional<tick_type> next) {
    if (next == reported_) return;
    reported_ = next;
    watcher_();
  }

  // Runs a due timer's callback. The wheel has unlinked it; a one-shot
  // timer's id is stale from here on.
  void fire(node& n) {
    const timer_id id{n.index, n.generation};
    if (n.type == kind::once) {
      n.status = state::done;
      --live_;
      const release_scope scope(*this, n);
      n.callback(id);
      return;
    }
    n.status = state::firing;
    periodic_scope scope(*this, n);
    n.callback(id);
    scope.end(n.type == kind::fixed_delay ? observe() : run_now_);
  }

  // After a periodic timer's callback: its next firing, or its release when
  // it was cancelled. `end` is the reading the fixed-delay form counts from.
  void reschedule(node& n, time_point end) noexcept {
    if (n.status == state::cancelled) {
      release(n);
      return;
    }
    const time_point next =
        n.type == kind::fixed_delay
            ? detail::saturating_add(end, n.period)
            : detail::next_fixed_rate_due(n.due, n.period, n.policy, run_edge_, run_now_);
    n.due = next;
    n.status = state::pending;
    wheel_.schedule(n, clock_.ticks_at(next));
  }

  class release_scope {
   public:
    release_scope(timers& t, node& n) noexcept : t_(t), n_(n) {}
    release_scope(const release_scope&) = delete;
    release_scope& operator=(const release_scope&) = delete;
    ~release_scope() { t_.release(n_); }

   private:
    timers& t_;
    node& n_;
  };

  // Reschedules a periodic timer when its callback returns (end() gives the
  // fixed-delay reading) or throws (the run's reading stands in).
  class periodic_scope {
   public:
    periodic_scope(timers& t, node& n) noexcept : t_(t), n_(n) {}
    periodic_scope(const periodic_scope&) = delete;
    periodic_scope& operator=(const periodic_scope&) = delete;
    void end(time_point reading) noexcept {
      done_ = true;
      t_.reschedule(n_, reading);
    }
    ~periodic_scope() {
      if (!done_) t_.reschedule(n_, t_.run_now_);
    }

   private:
    timers& t_;
    node& n_;
    bool done_ = false;
  };

  // Ends a run, however it ends: callbacks may schedule and cancel without
  // reporting, so the watcher's view is brought up to date here, silently.
  class run_scope {
   public:
    explicit run_scope(timers& t) noexcept : t_(t) {}
    run_scope(const run_scope&) = delete;
    run_scope& operator=(const run_scope&) = delete;
    ~run_scope() {
      t_.running_ = false;
      if (t_.watcher_) t_.reported_ = t_.wheel_.next_deadline();
    }

   private:
    timers& t_;
  };

  // --- the pool ---

  node& at(std::size_t index) const noexcept {
    const unsigned c = pool_layout::of(index);
    return chunks_[c][index - pool_layout::start(c)];
  }

  node* find(timer_id id) const noexcept {
    if (id.index >= capacity_) return nullptr;
    node& n = at(id.index);
    if (n.generation != id.generation) return nullptr;
    return n.status == state::pending || n.status == state::firing ? &n : nullptr;
  }

  void grow() {
    const std::size_t count = pool_layout::size(chunks_.size());
    if (capacity_ + count > none_)
      throw std::length_error("timerwheel: timers: more than 2^32 - 64 timers");
    chunks_.reserve(chunks_.size() + 1);
    auto fresh = std::make_unique<node[]>(count);
    for (std::size_t i = 0; i < count; ++i) {
      fresh[i].index = static_cast<std::uint32_t>(capacity_ + i);
      fresh[i].next_free = i + 1 < count ? static_cast<std::uint32_t>(capacity_ + i + 1) : free_;
    }
    free_ = static_cast<std::uint32_t>(capacity_);
    chunks_.push_back(std::move(fresh));
    capacity_ += count;
  }

  std::uint32_t acquire() {
    if (free_ == none_) grow();
    const std::uint32_t index = free_;
    free_ = at(index).next_free;
    return index;
  }

  // Destroys the callback, makes every id of the node stale and puts it back
  // in the pool.
  void release(node& n) noexcept {
    n.callback.reset();
    n.status = state::idle;
    if (++n.generation == 0) n.generation = 1;
    n.next_free = free_;
    free_ = n.index;
  }

  tick_clock<Clock> clock_;
  time_point last_;                    // the latest clock reading: the timers' time
  time_point run_now_{};               // during run_due: its reading
  time_point run_edge_{};              // during run_due: the tick edge it runs to
  std::optional<tick_type> reported_;  // the next deadline the watcher knows
  detail::unique_function<void()> watcher_;
  bool running_ = false;
  std::size_t live_ = 0;
  // Declared before the wheel: the wheel unlinks the hooks, which live in
  // these chunks, before the chunks are freed.
  std::vector<std::unique_ptr<node[]>> chunks_;
  std::size_t capacity_ = 0;
  std::uint32_t free_ = none_;
  wheel_type wheel_;
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI
