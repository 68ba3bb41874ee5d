// timerwheel::timer_service: timers that any thread may schedule and cancel;
// one worker thread owns the wheel and runs the callbacks.
// sharded_timer_service: a wheel and a worker per shard.
//
// How it works. A call from any thread takes an entry from a lock-free pool,
// writes the callback and deadline into it and pushes it on a lock-free
// multi-producer queue, the calling thread's lane of a few
// (detail/service_lanes.hpp): no lock per operation. Each
// entry carries one atomic state word (detail/service_state.hpp) that
// cancel and the worker change only by compare-and-swap, so that cancel's
// answer is the truth: true exactly when the callback will never run (again),
// false when it has run or is running. The entry is the timer: it embeds the
// wheel's hook, and the worker links the entry itself into its wheel, so a
// timer is stored once, in one object of two cache lines. A cancel that wins
// while the submission is still on the queue needs no message (the worker
// frees the entry when it takes it); one that wins while the timer sits in
// the wheel sends the entry back on the queue, and the worker unlinks it
// when it next wakes. The worker sleeps until the next expiry, exactly, or
// until a submission due earlier than that wakes it
// (detail/service_wake.hpp); nothing else wakes it, so an idle service costs
// nothing. A submitter that finds the worker late with a firing sleeps until
// it has fired, so that it gets a core (detail/service_gate.hpp).
//
// Time: deadlines round up to a tick edge, never early, as in timers<Clock>.
// A one-shot timer's deadline is taken when after() is called, and so is a
// periodic timer's start: its k-th firing is due k periods after the call.
//
// PERFORMANCE NOTE: after/at/every cost an entry from the pool (one CAS on
// the calling thread's own stack), the callback's move (no allocation up to
// four pointers of captures), one atomic exchange on the queue and, only
// when the deadline is the earliest, one wake-up of the worker. cancel is one
// CAS, plus one exchange on the queue when the timer is in the wheel. The
// worker takes each message, links the entry into its wheel (O(1)) and
// unlinks the cancelled ones (O(1)). An entry is 128 bytes on 64-bit
// targets, the whole of a pending timer; the pool grows and never shrinks
// until the service is destroyed.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "clock.hpp"
#include "detail/abi.hpp"
#include "detail/cpu_pause.hpp"
#include "detail/misuse.hpp"
#include "detail/mpsc_queue.hpp"
#include "detail/periodic.hpp"
#include "detail/service_gate.hpp"
#include "detail/service_lanes.hpp"
#include "detail/service_pool.hpp"
#include "detail/service_probe.hpp"
#include "detail/service_returns.hpp"
#include "detail/service_state.hpp"
#include "detail/service_wake.hpp"
#include "detail/unique_function.hpp"
#include "timer_hook.hpp"
#include "timers.hpp"  // missed_ticks, detail::next_fixed_rate_due
#include "wheel.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI {

// What shutdown() does with the timers still pending.
//   drop: destroys their callbacks without running them.
//   fire: runs each once, at once (before its deadline: that is what it asks
//         for), one-shot and periodic alike, in the order of their first
//         deadlines; then destroys them.
enum class shutdown_policy : std::uint8_t { drop, fire };

// Names one timer of a timer_service. A default id, an id of another service
// and a stale one (its timer finished, was cancelled, its entry reused) are
// refused by cancel, never mistaken for another timer.
struct service_timer_id {
  std::uint64_t service = 0;  // the service's serial number; 0 for none
  std::uint32_t index = 0;
  std::uint32_t generation = 0;

  friend bool operator==(service_timer_id, service_timer_id) = default;
};

// Thrown by after, at and every once the service is shut down (or shutting
// down): nothing was scheduled, and the callback will never run (it is
// destroyed at once, or by the service's destructor at the latest).
class timer_service_closed : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// How a service is built.
template <class Clock = std::chrono::steady_clock>
struct timer_service_options {
  // The length of a tick: deadlines round up to tick edges.
  typename Clock::duration tick = tick_clock<Clock>::default_tick();
  // What the destructor does with pending timers, if shutdown() was not called.
  shutdown_policy on_destroy = shutdown_policy::drop;
};

template <class Clock>
class basic_sharded_timer_service;

// `basic_timer_service<Clock>`: Clock is a std::chrono clock with a static
// now() (steady_clock by default, system_clock, boot_clock).
//
// Thread safety: every member may be called from any thread at once, callbacks
// included, except the destructor, which no call may overlap. Callbacks run
// on the worker, one at a time, in deadline order: FIFO among equal ticks
// for the timers one thread schedules; those of different threads at one
// tick in the order the worker takes them.
template <class Clock = std::chrono::steady_clock>
class basic_timer_service {
 public:
  using clock_type = Clock;
  using duration = typename Clock::duration;
  using time_point = typename Clock::time_point;
  using options = timer_service_options<Clock>;
  using error_handler = std::function<void(std::exception_ptr)>;

  // Starts the worker thread. Throws std::system_error when no thread can
  // be started, std::invalid_argument for a tick that is not positive.
  explicit basic_timer_service(options opts = {}) : basic_timer_service(opts, next_serial(1)) {}

  basic_timer_service(const basic_timer_service&) = delete;
  basic_timer_service& operator=(const basic_timer_service&) = delete;

  // shutdown(options.on_destroy) unless shutdown() was called, then destroys
  // every callback still held. No other call may overlap it, and a callback
  // may not destroy its own service (std::terminate).
  ~basic_timer_service() {
    if (on_worker()) std::terminate();
    shutdown(on_destroy_);
    drain_after_stop();
  }

  // --- scheduling (any thread) ---

  // A one-shot timer that calls `f()` once on the worker, `delay` (Clock's
  // duration or anything that converts to it) from now: at the first tick
  // edge at or after it. Returns its id. Lock-free: O(1), no allocation once
  // the pool has grown (and for a callback of up to four pointers of
  // captures). Throws timer_service_closed after shutdown (nothing
  // scheduled), std::bad_alloc, or what moving `f` throws.
  template <class F>
  service_timer_id after(duration delay, F&& f) {
    const time_point t = detail::saturating_add(Clock::now(), delay);
    return submit(timer_kind::once, t, duration::zero(), missed_ticks::skip, std::forward<F>(f));
  }

  // A one-shot timer at time point `t` (in the past: due at once). As after().
  template <class F>
  service_timer_id at(time_point t, F&& f) {
    return submit(timer_kind::once, t, duration::zero(), missed_ticks::skip, std::forward<F>(f));
  }

  // A fixed-rate periodic timer (see timers::every and missed_ticks): its
  // k-th firing is due k * `period` (Clock's duration) after the call, on an
  // exact grid. Fires until cancelled. Throws std::invalid_argument for a period that is
  // not positive, and as after().
  template <class F>
  service_timer_id every(duration period, F&& f, missed_ticks policy = missed_ticks::skip) {
    if (period <= duration::zero())
      throw std::invalid_argument("timerwheel: timer_service::every: the period must be positive");
    const time_point t = detail::saturating_add(Clock::now(), period);
    return submit(timer_kind::fixed_rate, t, period, policy, std::forward<F>(f));
  }

  // A fixed-delay periodic timer (see timers::every_fixed_delay): first due
  // `delay` after the call, then each time `delay` after its
  // callback returned. Fires until cancelled. Throws as every().
  template <class F>
  service_timer_id every_fixed_delay(duration delay, F&& f) {
    if (delay <= duration::zero())
      throw std::invalid_argument(
          "timerwheel: timer_service::every_fixed_delay: the delay must be positive");
    const time_point t = detail::saturating_add(Clock::now(), delay);
    return submit(timer_kind::fixed_delay, t, delay, missed_ticks::skip, std::forward<F>(f));
  }

  // --- cancelling (any thread) ---

  // Returns true exactly when the callback will never run, or, for a
  // periodic timer, never run again (when its callback is running, that run
  // finishes). False when it has run or is running (one-shot), was already
  // cancelled, or was dropped by shutdown; and, touching nothing, for a
  // default id, a stale one or one of another service. Lock-free: one CAS,
  // and one push on the queue when the timer is in the wheel (the worker
  // unlinks it and destroys its callback when it next wakes). Throws nothing.
  bool cancel(service_timer_id id) noexcept {
    std::uint64_t w = 0;
    return cancel_impl(id, w) != nullptr;
  }

  // As cancel(), and when the callback is running, waits until it has
  // returned. Called from a callback (on the worker thread) it never waits:
  // a callback that cancels itself gets cancel()'s answer at once, without
  // the deadlock that waiting for itself would be. Throws nothing.
  bool cancel_and_wait(service_timer_id id) noexcept {
    if (id.service != serial_ || id.service == 0) return false;
    entry* e = pool_.find(id.index);
    if (e == nullptr) return false;
    std::uint64_t w = 0;
    const bool cancelled = cancel_impl(id, w) != nullptr;
    if (!on_worker()) detail::wait_not_firing(e->word, id.generation);
    return cancelled;
  }

  // --- lifetime ---

  // Stops the service: refuses every later submission (timer_service_closed),
  // lets the worker take every submission made before, then drops or fires
  // the pending timers (see shutdown_policy) and joins the worker. When it
  // returns no callback runs any more, none ran twice, and every callback
  // the service took was either run or destroyed, or is a refused one whose
  // caller got the exception. Calls after the first only wait for the first
  // to finish. Throws std::logic_error from a callback (the worker cannot
  // join itself), and what joining throws.
  void shutdown(shutdown_policy policy) {
    if (on_worker())
      throw std::logic_error("timerwheel: timer_service::shutdown: called from a callback");
    const std::lock_guard lock(shutdown_mutex_);
    if (!closed_.load(std::memory_order_relaxed)) {
      policy_ = policy;
      closed_.store(true, std::memory_order_seq_cst);
      for (unsigned i = 0; i < detail::service_lanes::count; ++i) lanes_.push_to(i, stop_nodes_[i]);
      wake_.wake_now();
    }
    if (worker_.joinable()) worker_.join();
  }

  // Sets the handler that receives every exception a callback throws (on
  // the worker thread); the service goes on. An empty one (the default)
  // drops them; callback_errors() counts them either way. The handler must
  // not throw (std::terminate). Takes a mutex; throws what copying it throws.
  void set_error_handler(error_handler handler) {
    const std::lock_guard lock(handler_mutex_);
    handler_ = std::move(handler);
  }

  // --- observation ---

  // Exceptions thrown by callbacks so far.
  std::uint64_t callback_errors() const noexcept { return errors_.load(std::memory_order_relaxed); }
  // Times the worker woke from sleep (by a submission, a shutdown or its
  // own time): zero while idle, for tests and tuning.
  std::uint64_t wakeups() const noexcept { return wake_.wakeups(); }
  // Times a submitter slept to give the worker, late with a firing, the
  // processor (see detail/service_gate.hpp): for tests and tuning.
  std::uint64_t give_ways() const noexcept { return gate_.waits(); }
  // Timer entries the service has made (idle ones included): its memory is
  // 128 bytes (on 64-bit targets) times this, plus the worker's wheel (its
  // slots, a few tens of kilobytes). Lock-free.
  std::size_t capacity() const noexcept { return pool_.capacity(); }
  // The tick length and the clock deadlines are read on.
  const tick_clock<Clock>& clock() const noexcept { return clock_; }

  // The worker's rounds, when built with TIMERWHEEL_SERVICE_PROBE (see
  // detail/service_probe.hpp): read it only on the worker (in a callback) or
  // once the worker has stopped (after shutdown()).
  const detail::service_probe<Clock>& probe() const noexcept { return probe_; }

 private:
  friend class basic_sharded_timer_service<Clock>;

  enum class timer_kind : std::uint8_t { once, fixed_rate, fixed_delay };
  // What an entry is on the queue for (its mpsc_node's kind).
  enum node_kind : std::uint8_t { submit_kind, cancel_kind, stop_kind };

  using wheel_type = wheel<default_config>;
  using probe_type = detail::service_probe<Clock>;
  using hook_type = typename wheel_type::hook_type;
  using tick_type = typename wheel_type::tick_type;

  // One timer, whole: the pool's links, the queue's node (a submission, then
  // a cancel: never both on the queue at once, since a cancel is sent only
  // once the worker has taken the submission), the wheel's hook, the state
  // word and the callback. The worker's hot fields share the first cache
  // line; the callback and the times fill the second.
  struct alignas(64) entry : detail::service_slot, detail::mpsc_node, hook_type {
    std::atomic<std::uint64_t> word{0};
    detail::unique_function<void()> callback;
    // One-shot: the deadline asked for. Periodic: the time point of the next
    // firing (fixed rate: its grid point). Written by the submitter before
    // the push; then the worker's.
    time_point due{};
    duration period{};
    timer_kind type = timer_kind::once;
    missed_ticks policy = missed_ticks::skip;
  };
  static_assert(sizeof(void*) != 8 || sizeof(entry) <= 128,
                "timer_service: an entry is two cache lines on 64-bit targets");

  basic_timer_service(options opts, std::uint64_t serial)
      : serial_(serial),
        clock_(opts.tick),
        on_destroy_(opts.on_destroy),
        last_(Clock::now()),
        wheel_(clock_.elapsed_ticks(last_)) {
    for (auto& stop : stop_nodes_) stop.kind = stop_kind;
    worker_ = std::thread([this] { run(); });
  }

  static std::uint64_t next_serial(std::uint64_t count) noexcept {
    static std::atomic<std::uint64_t> next{1};
    return next.fetch_add(count, std::memory_order_relaxed);
  }

  bool on_worker() const noexcept { return current_service() == this; }
  static const void*& current_service() noexcept {
    thread_local const void* service = nullptr;
    return service;
  }

  template <class F>
  service_timer_id submit(timer_kind type, time_point deadline, duration period,
                          missed_ticks policy, F&& f) {
    static_assert(std::is_invocable_v<std::decay_t<F>&>,
                  "timer_service: a callback is called with no arguments");
    if (closed_.load(std::memory_order_acquire)) refuse();
    entry* idle = pool_.try_acquire();
    entry& e = idle != nullptr ? *idle : acquire_slow();
    const std::uint32_t generation = detail::service_word::generation(e.word.load());
    try {
      e.callback = detail::unique_function<void()>(std::forward<F>(f));
    } catch (...) {
      pool_.release(e);
      throw;
    }
    e.due = deadline;
    e.period = period;
    e.type = type;
    e.policy = policy;
    const std::uint64_t queued =
        detail::service_word::make(generation, detail::service_phase::queued,
                                   type == timer_kind::once ? 0 : detail::service_word::periodic);
    e.word.store(queued, std::memory_order_relaxed);
    e.kind = submit_kind;
    lanes_.push(e);
    count_message();
    if (closed_.load(std::memory_order_seq_cst)) {
      // Shutdown came between the first look and the push: withdraw, unless
      // the worker took the submission first (then it stands, and the
      // shutdown policy decides its fate).
      std::uint64_t expected = queued;
      if (e.word.compare_exchange_strong(
              expected, detail::service_word::with_phase(queued, detail::service_phase::withdrawn)))
        refuse();
    }
    wake_.submitted(clock_.ticks_at(deadline));
    throttle();
    return {serial_, e.index, generation};
  }

  // Messages pushed, counted on the pool shard of the pushing thread (so
  // that threads do not share a counter), against those the worker took.
  void count_message() noexcept {
    pushed_[detail::service_thread_number() % pushed_.size()].n.fetch_add(
        1, std::memory_order_relaxed);
  }
  std::uint64_t backlog() const noexcept {
    std::uint64_t pushed = 0;
    for (const auto& c : pushed_) pushed += c.n.load(std::memory_order_relaxed);
    const std::uint64_t taken = taken_.load(std::memory_order_relaxed);
    return pushed > taken ? pushed - taken : 0;
  }

  // Back-pressure: every 64th submission of a thread looks at the backlog;
  // past max_backlog messages (a few milliseconds of the worker's time) the
  // thread wakes the worker and yields to it until half of that is left, or
  // for at most backlog_wait. Without it, submitters faster than the worker
  // would fill the queue without bound, and every firing would wait behind
  // it. Else it gives way to a worker late with a firing. Never on the
  // worker itself.
  void throttle() {
    thread_local std::uint32_t calls = 0;
    if ((++calls & 63) != 0 || on_worker()) return;
    if (backlog() <= max_backlog) {
      give_way();
      return;
    }
    wake_.wake_now();
    const auto until = std::chrono::steady_clock::now() + backlog_wait;
    while (backlog() > max_backlog / 2 && std::chrono::steady_clock::now() < until)
      std::this_thread::yield();
  }

  // A firing owed for a quarter of a tick past its edge: the worker is
  // waiting for a core (detail/service_gate.hpp). Sleep until it has fired
  // it, so that it gets one: a tick at most, and no more than give_way_most
  // (with long ticks a worker that late is starved by more than its
  // submitters, and they check again 64 submissions later).
  void give_way() {
    const tick_type owed = gate_.owed();
    if (owed == detail::service_gate::never) return;
    if (Clock::now() - clock_.tick() / 4 < clock_.time_of(owed)) return;
    gate_.wait_fired(owed, std::min<duration>(clock_.tick(), give_way_most));
  }

  // The pool ran dry. If the worker holds far fewer timers than the pool
  // has entries, most entries wait on the queue to be recycled (cancels the
  // worker has not taken yet): wake it and give it the processor for a
  // while, rather than growing the pool without bound while it falls
  // behind. Else, or if nothing comes back, grow.
  entry& acquire_slow() {
    const std::size_t live = live_.load(std::memory_order_relaxed);
    if (pool_.capacity() > 2 * live + backlog_slack) {
      wake_.wake_now();
      for (int i = 0; i < backlog_yields; ++i) {
        std::this_thread::yield();
        if (entry* e = pool_.try_acquire()) return *e;
      }
    }
    return pool_.acquire();
  }

  [[noreturn]] static void refuse() {
    throw timer_service_closed(
        "timerwheel: timer_service: the service is shut down; the timer was not scheduled");
  }

  // Returns the entry when the cancel won (the callback will not run again).
  entry* cancel_impl(service_timer_id id, std::uint64_t& w) noexcept {
    if (id.service != serial_ || id.service == 0) return nullptr;
    entry* e = pool_.find(id.index);
    if (e == nullptr) return nullptr;
    switch (detail::cancel_word(e->word, id.generation, w)) {
      case detail::cancel_outcome::cancelled_armed:
        // The worker took the submission (the node is off the queue): the
        // same node carries the cancel.
        e->kind = cancel_kind;
        lanes_.push(*e);
        count_message();
        return e;
      case detail::cancel_outcome::cancelled_queued:
      case detail::cancel_outcome::stopped_firing:
        return e;
      default:
        return nullptr;
    }
  }

  // --- the worker ---

  // Submissions taken per round before due timers fire: under a flood of
  // submissions the worker still fires on time.
  static constexpr int drain_batch = 256;
  static constexpr int busy_spins = 8;

  // The backlog past which a producer that finds the pool dry waits for the
  // worker (entries beyond twice the timers in the wheel), and how long.
  static constexpr std::size_t backlog_slack = 4096;
  static constexpr int backlog_yields = 256;
  static constexpr std::uint64_t max_backlog = 8192;
  static constexpr std::chrono::milliseconds backlog_wait{10};
  static constexpr std::chrono::milliseconds give_way_most{2};

  void run() {
    current_service() = this;
    detail::probe_start how = detail::probe_start::loop;
    std::int64_t asked = 0;
    for (;;) {
      if constexpr (probe_type::enabled) probe_.begin(how, asked, backlog());
      how = detail::probe_start::loop;
      const int drained = drain(drain_batch);
      if constexpr (probe_type::enabled) probe_.drained(drained);
      if (drained < 0) break;
      run_due();
      if constexpr (probe_type::enabled) probe_.fired();
      returns_.flush_all();
      live_.store(armed_, std::memory_order_relaxed);
      // More to take: no need to publish a wake-up tick (while it reads 0,
      // no producer wakes the worker, which is awake).
      if (drained == drain_batch || !lanes_.empty()) continue;
      const std::int64_t scan0 = probe_type::now_ns();
      const std::optional<tick_type> next = earliest();
      if constexpr (probe_type::enabled) probe_.scanned(probe_type::now_ns() - scan0);
      if (next && *next <= clock_.elapsed_ticks(Clock::now())) continue;
      wake_.publish(next ? *next : detail::service_wake::never);
      if (!lanes_.empty()) {
        wake_.stay_awake();
        continue;
      }
      const bool kicked = wake_.sleep_until(next ? clock_.time_of(*next) : time_point{}, !next);
      if constexpr (probe_type::enabled) {
        how = kicked ? detail::probe_start::kicked : detail::probe_start::timed;
        asked = next ? probe_type::ns_of(clock_.time_of(*next)) : 0;
      }
    }
    gate_.owe_from(detail::service_gate::never);
    finish();
  }

  // Takes up to `limit` messages; returns how many, or -1 once every lane
  // gave its stop node.
  int drain(int limit) {
    int n = 0;
    while (n < limit) {
      detail::mpsc_node* node = nullptr;
      unsigned lane = 0;
      switch (lanes_.pop(node, lane)) {
        case detail::pop_status::empty:
          return n;
        case detail::pop_status::busy: {
          // Nothing else to take, and a producer is between the two steps
          // of its push, perhaps preempted there for a time slice: what is
          // due meanwhile fires first (the round goes on to run_due()).
          if (due_now()) return n;
          const std::int64_t t0 = probe_type::now_ns();
          // A producer running on another core links its node within
          // nanoseconds: wait a moment before yielding, which hands this
          // core to whatever else is runnable on it for up to a time slice.
          if (!spin_for_push()) std::this_thread::yield();
          if constexpr (probe_type::enabled) probe_.busy(probe_type::now_ns() - t0);
          continue;
        }
        case detail::pop_status::item:
          break;
      }
      ++n;
      if constexpr (probe_type::enabled) probe_.took();
      if (node->kind == stop_kind) {
        if (lanes_.close(lane)) return -1;
        continue;
      }
      taken_.store(taken_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      entry& e = static_cast<entry&>(*node);
      if (node->kind == submit_kind)
        take(e);
      else
        unlink_cancelled(e);
    }
    return n;
  }

  // Spins a moment (busy_spins pauses, a few microseconds) while every lane
  // is empty or busy; returns whether one has a node to give by then.
  bool spin_for_push() noexcept {
    for (int i = 0; i < busy_spins; ++i) {
      detail::cpu_pause();
      if (lanes_.ready()) return true;
    }
    return false;
  }

  // A submission: into the wheel, unless cancelled or withdrawn meanwhile
  // (then no message follows, and the entry is freed here).
  void take(entry& e) noexcept {
    using sw = detail::service_word;
    std::uint64_t w = e.word.load(std::memory_order_acquire);
    if (sw::phase(w) == detail::service_phase::queued &&
        e.word.compare_exchange_strong(w, sw::with_phase(w, detail::service_phase::armed),
                                       std::memory_order_acq_rel)) {
      // A cancel may win from here on and send the entry back on the queue;
      // the worker takes that message after this link.
      place(e, clock_.ticks_at(e.due));
      return;
    }
    release(e);
  }

  void place(entry& e, tick_type deadline) noexcept {
    wheel_.schedule(e, deadline);
    ++armed_;
    // The hook holds the deadline the wheel took (one behind now is now).
    if (earliest_known_ && (!earliest_ || e.deadline() < *earliest_)) earliest_ = e.deadline();
    if (e.deadline() < owed_from_) gate_.owe_from(owed_from_ = e.deadline());
  }

  // A cancel that won while the timer was in the wheel (or being fired: then
  // the wheel has unlinked it already).
  void unlink_cancelled(entry& e) noexcept {
    if (wheel_.cancel(e)) {
      --armed_;
      // Another timer may share the earliest deadline: ask the wheel again.
      if (earliest_ && e.deadline() == *earliest_) earliest_known_ = false;
    }
    release(e);
  }

  // The wheel's earliest deadline. The wheel's next_deadline() may scan a
  // coarse slot of many timers (milliseconds at a hundred thousand timers),
  // so the worker keeps the answer across its rounds and asks again only
  // after a change that can move it later: a firing at or before it, or the
  // cancel of a timer at it. A schedule can only lower it (place()).
  std::optional<tick_type> earliest() noexcept {
    if (!earliest_known_) {
      earliest_ = wheel_.next_deadline();
      earliest_known_ = true;
      const tick_type owed = earliest_.value_or(detail::service_gate::never);
      if (owed != owed_from_) gate_.owe_from(owed_from_ = owed);
    }
#if TIMERWHEEL_CHECKED
    if (earliest_ != wheel_.next_deadline())
      detail::misuse("timer_service: the worker's earliest deadline differs from the wheel's");
#endif
    return earliest_;
  }

  // Whether a timer in the wheel is due at the clock's tick.
  bool due_now() noexcept {
    const std::optional<tick_type> next = earliest();
    return next && *next <= clock_.elapsed_ticks(Clock::now());
  }

  // Reads the clock; a reading behind an earlier one counts as that one.
  time_point observe() noexcept {
    const time_point t = Clock::now();
    if (t > last_) last_ = t;
    return last_;
  }

  // Fires what is due by the clock's reading, in tick order.
  void run_due() noexcept {
    const time_point now = observe();
    tick_type to = clock_.elapsed_ticks(now);
    if (to < wheel_.now()) to = wheel_.now();
    run_now_ = now;
    run_edge_ = clock_.time_of(to);
    wheel_.advance(to, [this](hook_type& h) { fire_entry(static_cast<entry&>(h)); });
    if (earliest_ && *earliest_ <= to) earliest_known_ = false;
    // Nothing is due by `to` now; the earliest, if not known, is after it.
    // Published only when they change: once a tick, not once a round.
    const tick_type owed =
        earliest_known_ ? earliest_.value_or(detail::service_gate::never) : to + 1;
    if (owed != owed_from_) gate_.owe_from(owed_from_ = owed);
    if (to != fired_to_) gate_.fired_to(fired_to_ = to);
  }

  // The wheel says the timer is due (and has unlinked it).
  void fire_entry(entry& e) noexcept {
    using sw = detail::service_word;
    --armed_;
    if constexpr (probe_type::enabled) probe_.fire(probe_type::ns_of(e.due));
    std::uint64_t w = e.word.load(std::memory_order_acquire);
    do {
      // Cancelled, its message not taken yet: that message releases it.
      if (sw::phase(w) != detail::service_phase::armed) return;
    } while (!e.word.compare_exchange_weak(w, sw::with_phase(w, detail::service_phase::firing),
                                           std::memory_order_acq_rel));
    invoke(e);
    if (e.type == timer_kind::once) {
      release(e);
      return;
    }
    const time_point next = next_due(e);
    w = e.word.load(std::memory_order_acquire);
    for (;;) {
      if ((w & sw::stop) != 0) {
        release(e);
        return;
      }
      const std::uint64_t armed = sw::with_phase(w & ~sw::waiter, detail::service_phase::armed);
      if (e.word.compare_exchange_weak(w, armed, std::memory_order_acq_rel)) {
        e.due = next;
        // A firing due by this run's tick (missed_ticks::burst) fires in it.
        place(e, clock_.ticks_at(next));
        if ((w & sw::waiter) != 0) e.word.notify_all();
        return;
      }
    }
  }

  // A periodic timer's next firing, after the one that just ran: as
  // timers<Clock> reschedules.
  time_point next_due(const entry& e) noexcept {
    if (e.type == timer_kind::fixed_delay) return detail::saturating_add(observe(), e.period);
    return detail::next_fixed_rate_due(e.due, e.period, e.policy, run_edge_, run_now_);
  }

  void invoke(entry& e) noexcept {
    gate_.in_callback(true);
    try {
      e.callback();
    } catch (...) {
      report(std::current_exception());
    }
    gate_.in_callback(false);
  }

  void report(std::exception_ptr error) noexcept {
    errors_.fetch_add(1, std::memory_order_relaxed);
    error_handler handler;
    {
      const std::lock_guard lock(handler_mutex_);
      handler = handler_;  // a copy, so that the handler may replace itself
    }
    if (handler) handler(std::move(error));
  }

  // Destroys the callback, makes every id of the entry stale, wakes any
  // cancel_and_wait caller, and gives the entry back to the pool (in a
  // batch: see detail/service_returns.hpp). The worker only, or the
  // destructor once the worker has gone.
  void release(entry& e) noexcept {
    using sw = detail::service_word;
    e.callback.reset();
    const std::uint64_t w = e.word.load(std::memory_order_relaxed);
    const std::uint64_t free = sw::make(sw::generation(w) + 1, detail::service_phase::free);
    if (sw::phase(w) == detail::service_phase::firing) {
      // A cancel_and_wait caller may be setting `waiter` meanwhile.
      detail::publish_word(e.word, free);
    } else {
      // Cancelled, dropped or withdrawn: no other thread writes the word
      // any more (a cancel refuses it, a waiter waits only on `firing`), so
      // a store does: it does not stall on the line as an exchange would.
      e.word.store(free, std::memory_order_release);
    }
    returns_.put(e);
  }

  // At the stop node: drop or fire what is in the wheel, in deadline order
  // (FIFO among equal ticks), emptying it.
  void finish() {
    using sw = detail::service_word;
    const auto to = policy_ == shutdown_policy::fire ? detail::service_phase::firing
                                                     : detail::service_phase::dropped;
    wheel_.expire_all([&](hook_type& h) {
      entry& e = static_cast<entry&>(h);
      --armed_;
      // Only an armed timer is the worker's to fire or drop: one that a
      // cancel took (before the load, or between the load and the CAS) is
      // released by the cancel's message, still on the queue.
      std::uint64_t w = e.word.load(std::memory_order_acquire);
      bool taken = false;
      while (!taken && sw::phase(w) == detail::service_phase::armed)
        taken = e.word.compare_exchange_weak(w, sw::with_phase(w, to), std::memory_order_acq_rel,
                                             std::memory_order_acquire);
      if (!taken) return;
      if (policy_ == shutdown_policy::fire) invoke(e);
      release(e);
    });
    returns_.flush_all();
  }

  // After the worker has gone: what is left on the queue is refused
  // submissions and cancel messages; release their entries.
  void drain_after_stop() noexcept {
    lanes_.take_rest([this](detail::mpsc_node& node) {
      if (node.kind != stop_kind) release(static_cast<entry&>(node));
    });
    returns_.flush_all();
  }

  const std::uint64_t serial_;
  const tick_clock<Clock> clock_;
  const shutdown_policy on_destroy_;
  detail::service_pool<entry> pool_;
  detail::service_returns<entry> returns_{pool_};  // the worker's
  detail::service_lanes lanes_;
  detail::service_wake wake_;
  detail::service_gate gate_;
  std::array<detail::mpsc_node, detail::service_lanes::count> stop_nodes_;
  std::atomic<bool> closed_{false};
  shutdown_policy policy_ = shutdown_policy::drop;  // written before the stop node is pushed
  std::mutex shutdown_mutex_;
  std::mutex handler_mutex_;
  error_handler handler_;
  std::atomic<std::uint64_t> errors_{0};
  std::atomic<std::size_t> live_{0};  // timers in the worker's wheel, as of its last round
  struct alignas(64) padded_count {
    std::atomic<std::uint64_t> n{0};
  };
  std::array<padded_count, detail::service_pool<entry>::shards> pushed_{};
  alignas(64) std::atomic<std::uint64_t> taken_{0};  // messages the worker took; it alone writes
  // The worker's alone. The wheel after the pool: destroyed first, it
  // unlinks whatever hooks it still holds while their entries live.
  time_point last_;                    // the latest clock reading: the worker's time
  time_point run_now_{};               // during run_due: its reading
  time_point run_edge_{};              // during run_due: the tick edge it runs to
  std::size_t armed_ = 0;              // entries linked in the wheel
  std::optional<tick_type> earliest_;  // the wheel's earliest deadline, when known
  bool earliest_known_ = true;         // see earliest()
  // What the worker last published to gate_, kept here so that its rounds
  // and schedules compare against its own line, not the gate's, which the
  // submitters read (reading the gate's atomics instead cost quick W7 at
  // T = 1 a p99 above 2 ms in 6 runs of 14, against none).
  tick_type owed_from_ = detail::service_gate::never;
  tick_type fired_to_ = 0;
  [[no_unique_address]] probe_type probe_;  // empty unless TIMERWHEEL_SERVICE_PROBE
  wheel_type wheel_;
  std::thread worker_;  // last: started once everything else is built
};

using timer_service = basic_timer_service<>;

// `basic_sharded_timer_service<Clock>`: N services, each with its own worker
// and wheel, for users whom one worker cannot keep up with. A timer goes to
// the calling thread's shard (after, at, every), or to the one a key picks
// (for_key(key).after(...)): timers of one key then fire in order on one
// thread. cancel and cancel_and_wait from any thread go straight to the
// owning shard (the id names it): no global lock, no shared word.
// Thread safety as basic_timer_service.
template <class Clock = std::chrono::steady_clock>
class basic_sharded_timer_service {
 public:
  using service_type = basic_timer_service<Clock>;
  using duration = typename Clock::duration;
  using time_point = typename Clock::time_point;
  using options = timer_service_options<Clock>;

  // Starts `shards` workers. Throws std::invalid_argument for zero shards,
  // and what starting a thread throws (the workers started are stopped).
  explicit basic_sharded_timer_service(std::size_t shards, options opts = {}) {
    if (shards == 0) throw std::invalid_argument("timerwheel: sharded_timer_service: zero shards");
    first_ = service_type::next_serial(shards);
    shards_.reserve(shards);
    for (std::size_t i = 0; i < shards; ++i)
      shards_.emplace_back(new service_type(opts, first_ + i));
  }

  // The shard of the calling thread (the same one for the thread's life).
  service_type& for_this_thread() noexcept {
    return *shards_[detail::service_thread_number() % shards_.size()];
  }
  // The shard of `key`: key modulo the number of shards.
  service_type& for_key(std::uint64_t key) noexcept { return *shards_[key % shards_.size()]; }
  // Shard `i` (i < shards()).
  service_type& shard(std::size_t i) noexcept { return *shards_[i]; }
  std::size_t shards() const noexcept { return shards_.size(); }

  // As basic_timer_service's, on the calling thread's shard.
  template <class F>
  service_timer_id after(duration delay, F&& f) {
    return for_this_thread().after(delay, std::forward<F>(f));
  }
  template <class F>
  service_timer_id at(time_point t, F&& f) {
    return for_this_thread().at(t, std::forward<F>(f));
  }
  template <class F>
  service_timer_id every(duration period, F&& f, missed_ticks policy = missed_ticks::skip) {
    return for_this_thread().every(period, std::forward<F>(f), policy);
  }

  // As basic_timer_service's, on the shard that owns the id; an id of no
  // shard is refused with false. Lock-free; throws nothing.
  bool cancel(service_timer_id id) noexcept {
    service_type* s = owner(id);
    return s != nullptr && s->cancel(id);
  }
  bool cancel_and_wait(service_timer_id id) noexcept {
    service_type* s = owner(id);
    return s != nullptr && s->cancel_and_wait(id);
  }

  // Shuts every shard down (one after the other); see basic_timer_service.
  void shutdown(shutdown_policy policy) {
    for (auto& s : shards_) s->shutdown(policy);
  }
  // Sets the handler of every shard.
  void set_error_handler(const typename service_type::error_handler& handler) {
    for (auto& s : shards_) s->set_error_handler(handler);
  }

 private:
  service_type* owner(service_timer_id id) noexcept {
    const std::uint64_t i = id.service - first_;
    return id.service != 0 && i < shards_.size() ? shards_[i].get() : nullptr;
  }

  std::uint64_t first_ = 0;  // shard i has serial first_ + i
  std::vector<std::unique_ptr<service_type>> shards_;
};

using sharded_timer_service = basic_sharded_timer_service<>;

}  // namespace timerwheel::inline TIMERWHEEL_ABI
