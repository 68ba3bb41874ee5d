// timerwheel::des: a discrete-event simulator whose event list is the wheel.
//
// Virtual time is a count of ticks (what a tick is worth is the model's
// choice) and jumps straight from one event to the next: an idle stretch
// costs nothing. Events run in (time, priority, scheduling order) order,
// as OMNeT++ orders them: the earliest time first; at one instant the
// smallest priority first; among equal priorities the one scheduled first.
//
// How priorities stay cheap. The wheel fires the timers of one deadline in
// scheduling order, which is already the order of priority-0 events at one
// instant. So every event waits in the wheel by its time alone; when time
// reaches an instant, advance_to_next() moves the instant's events, in
// scheduling order, into a small "instant batch", and the simulator runs
// the batch. The batch is a plain FIFO while it holds priority-0 events
// only (the common case: a push and a pop cost an index each); the first
// event of another priority turns it into a binary heap on (priority,
// scheduling order) for the rest of that instant. An event scheduled for
// the current instant (by a handler, or before the run starts) joins the
// batch directly, so it too runs in its place. docs/des.md says more.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/abi.hpp"
#include "levels.hpp"
#include "timer_hook.hpp"
#include "wheel.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::des {

// Names one scheduled event. It goes stale when the event runs or is
// cancelled; a stale id is refused, never mistaken for a later event that
// reuses the node. A default-constructed id is never valid.
struct event_id {
  std::uint32_t index = 0;
  std::uint32_t generation = 0;

  friend bool operator==(event_id, event_id) = default;
};

// An event's priority among events of the same instant: smaller runs first.
// 0 is the default and the fast case.
using priority_type = std::int32_t;

// Turns a real-valued delay (an exponential draw, say) into whole ticks
// without bias: `delay * ticks_per_unit` is rounded down or up at random,
// up with probability equal to its fractional part (stochastic rounding), so
// that the expected number of ticks is exactly delay * ticks_per_unit (to
// double precision), whatever the distribution of the delay. The rounding
// adds a variance of at most 1/4 tick^2 and never moves a delay by a whole
// tick or more. Rounding to the nearest tick instead is biased for any
// distribution that is not locally uniform at the tick's scale, and always
// rounding up or down is biased by half a tick.
//
// `delay` in the model's unit of time, `ticks_per_unit` the resolution
// (ticks per unit); `random` a uniform random bit generator, drawn once.
// Throws std::invalid_argument for a negative, NaN or infinite delay or
// resolution, or a result beyond 2^63 ticks.
template <class URBG>
std::uint64_t to_ticks(double delay, double ticks_per_unit, URBG& random) {
  if (!(delay >= 0) || !std::isfinite(delay))
    throw std::invalid_argument("timerwheel: des::to_ticks: the delay is negative or not finite");
  if (!(ticks_per_unit > 0) || !std::isfinite(ticks_per_unit))
    throw std::invalid_argument(
        "timerwheel: des::to_ticks: the resolution is not a positive finite number");
  const double scaled = delay * ticks_per_unit;
  if (!(scaled < 9.2233720368547758e18))
    throw std::invalid_argument("timerwheel: des::to_ticks: the delay exceeds 2^63 ticks");
  const double whole = std::floor(scaled);
  const double fraction = scaled - whole;
  const double u = std::generate_canonical<double, std::numeric_limits<double>::digits>(random);
  return static_cast<std::uint64_t>(whole) + (u < fraction ? 1u : 0u);
}

// `simulator<Event, Config>`: a discrete-event simulator over events of type
// Event (a struct or a std::variant of the model's events), stored in nodes
// the simulator owns. Time is absolute ticks of std::uint64_t; it never
// wraps. Once the node pool has grown to the most events pending at once
// (or after reserve()), no member allocates: an event costs no allocation.
// Not thread-safe.
//
// Handlers: run_until, run and step call `handler(Event&)` for each event,
// with the event where it lies in its node (take it by reference). Inside
// the handler now() is the event's time; the handler may schedule and cancel
// any event, at the current instant too (a cancelled one does not run; one
// scheduled at now() runs in this instant in its (priority, scheduling
// order) place). It may not call run_until, run or step.
template <class Event, class Config = default_config>
class simulator {
  static_assert(std::is_same_v<typename Config::tick_type, std::uint64_t>,
                "des::simulator: time is 64-bit ticks, which never wrap");
  static_assert(std::is_nothrow_destructible_v<Event>,
                "des::simulator: Event's destructor may not throw");
  static_assert(std::is_move_constructible_v<Event>,
                "des::simulator: Event must be move constructible");

 public:
  using event_type = Event;
  using time_type = std::uint64_t;

 private:
  using wheel_type = wheel<Config>;
  using hook_type = typename wheel_type::hook_type;

  enum class node_state : std::uint8_t { idle, waiting, batched, cancelled };

  struct node : hook_type {
    std::uint64_t sequence = 0;
    priority_type priority = 0;
    std::uint32_t generation = 1;  // 0 is never valid
    std::uint32_t next_idle = 0;
    std::uint32_t index = 0;  // its own, for the pool
    node_state state = node_state::idle;
    std::optional<Event> value;
  };

  static constexpr std::uint32_t chunk_bits = 8;  // nodes come 256 at a time
  static constexpr std::uint32_t chunk_size = std::uint32_t{1} << chunk_bits;
  static constexpr std::uint32_t no_node = std::numeric_limits<std::uint32_t>::max();

 public:
  // An empty simulator whose time is `start` (ticks). Allocates nothing.
  explicit simulator(time_type start = 0) noexcept : wheel_(start) {}

  simulator(const simulator&) = delete;
  simulator& operator=(const simulator&) = delete;

  // Destroys the events still pending. Throws nothing.
  ~simulator() { clear(); }

  // The current time (ticks): while a handler runs, its event's time.
  time_type now() const noexcept { return wheel_.now(); }

  // Events scheduled and neither run nor cancelled. O(1).
  std::size_t pending() const noexcept { return pending_; }

  // Events run since construction (a handler that threw counts). O(1).
  std::uint64_t events_run() const noexcept { return events_run_; }

  // Nodes held by the pool, idle ones included.
  std::size_t capacity() const noexcept { return chunks_.size() * chunk_size; }

  // Grows the pool to hold at least `n` pending events. Throws
  // std::length_error beyond 2^32 - 256 events, or std::bad_alloc; a throw
  // keeps what grew before it, changing nothing else.
  void reserve(std::size_t n) {
    while (capacity() < n) grow();
  }

  // Schedules `event` at `time` (ticks) with `priority` (smaller runs first
  // among events of one instant) and returns its id. O(1); no allocation
  // once the pool has room. Throws std::invalid_argument when `time` is
  // before now(), std::bad_alloc or std::length_error when the pool cannot
  // grow, and what moving the event throws; nothing changes when it throws.
  event_id schedule_at(time_type time, Event event, priority_type priority = 0) {
    if (time < now())
      throw std::invalid_argument(
          "timerwheel: des::simulator: schedule_at: the time is before now");
    if (idle_ == no_node) grow();
    const std::uint32_t index = idle_;
    node& n = at(index);
    n.value.emplace(std::move(event));
    idle_ = n.next_idle;
    n.sequence = next_sequence_++;
    n.priority = priority;
    ++pending_;
    if (time == now()) {
      batch_push(n);
    } else {
      n.state = node_state::waiting;
      wheel_.schedule(n, time);
    }
    return {index, n.generation};
  }

  // Schedules `event` `delay` ticks after now(): schedule_at(now() + delay).
  // Throws std::invalid_argument when that lies beyond the last tick, and
  // what schedule_at throws.
  event_id schedule_in(time_type delay, Event event, priority_type priority = 0) {
    if (delay > std::numeric_limits<time_type>::max() - now())
      throw std::invalid_argument("timerwheel: des::simulator: schedule_in: beyond the last tick");
    return schedule_at(now() + delay, std::move(event), priority);
  }

  // Cancels a pending event and destroys it. Returns false, touching
  // nothing, for a stale id (an event that ran or was cancelled). O(1).
  bool cancel(event_id id) noexcept {
    node* n = find(id);
    if (n == nullptr) return false;
    --pending_;
    if (n->state == node_state::waiting) {
      wheel_.cancel(*n);
      release(*n, id.index);
    } else {
      // In the instant batch: it stays there, stale, until the batch
      // reaches it (a batch entry cannot be unlinked in O(1)).
      n->value.reset();
      n->state = node_state::cancelled;
      ++n->generation;
    }
    return true;
  }

  // Whether `id` names a pending event. O(1).
  bool is_pending(event_id id) const noexcept {
    return const_cast<simulator*>(this)->find(id) != nullptr;
  }

  // The pending event `id` names; nullptr for a stale id. O(1).
  Event* get(event_id id) noexcept {
    node* n = find(id);
    return n != nullptr ? std::addressof(*n->value) : nullptr;
  }

  // The time (ticks) of the earliest pending event; none when nothing is
  // pending. O(levels + events in the wheel's earliest slots).
  std::optional<time_type> next_time() const noexcept {
    if (batch_live()) return now();
    return wheel_.next_deadline();
  }

  // Runs the next event, if any: time jumps to it. Returns whether one ran.
  // O(levels + events of the instant moved into the batch), amortized O(1)
  // per event. Throws std::logic_error from a handler, and what the
  // handler throws (the event has run; the rest stay pending, in order).
  template <class Handler>
  bool step(Handler&& handler) {
    const running_scope scope(*this, "step");
    return step_once(handler);
  }

  // Runs up to `n` events, in order; returns how many ran (fewer when the
  // list runs dry). Costs and throws as step.
  template <class Handler>
  std::uint64_t run(std::uint64_t n, Handler&& handler) {
    const running_scope scope(*this, "run");
    std::uint64_t ran = 0;
    while (ran < n && step_once(handler)) ++ran;
    return ran;
  }

  // Runs every event whose time is at or before `until` (ticks), in order,
  // those the handlers schedule included; then now() == until. Returns how
  // many ran. Costs as step, plus O(levels) for a marker scheduled at
  // `until`. Throws std::invalid_argument, changing nothing, when `until` is
  // before now(); std::logic_error from a handler; and what the handler
  // throws (now() is then the time of the event that threw).
  template <class Handler>
  std::uint64_t run_until(time_type until, Handler&& handler) {
    if (until < now())
      throw std::invalid_argument("timerwheel: des::simulator: run_until: the time is before now");
    const running_scope scope(*this, "run_until");
    // A marker timer at `until`: advance_to_next stops there at the latest,
    // so no event after `until` is ever taken out of the wheel.
    struct marker_scope {
      wheel_type& w;
      hook_type& h;
      ~marker_scope() { w.cancel(h); }
    };
    if (until > now()) wheel_.schedule(marker_, until);
    const marker_scope marker{wheel_, marker_};
    std::uint64_t ran = 0;
    for (;;) {
      while (node* n = batch_pop()) {
        run_one(*n, handler);
        ++ran;
      }
      if (until == now()) break;
      fill_batch();
    }
    return ran;
  }

  // Cancels every pending event and destroys them. O(capacity). Throws
  // nothing. Not from a handler.
  void clear() noexcept {
    for (std::size_t c = 0; c < chunks_.size(); ++c)
      for (std::uint32_t i = 0; i < chunk_size; ++i) {
        node& n = chunks_[c][i];
        if (n.state == node_state::waiting) wheel_.cancel(n);
        if (n.state != node_state::idle) release(n, static_cast<std::uint32_t>(c * chunk_size + i));
      }
    batch_.clear();
    head_ = 0;
    heap_ = false;
    pending_ = 0;
  }

  // Checks the simulator's accounting and its wheel; throws
  // std::logic_error naming the first broken invariant. O(capacity + slots).
  void check_invariants() const {
    wheel_.check_invariants();
    std::size_t live = 0;
    std::size_t waiting = 0;
    for (const auto& chunk : chunks_)
      for (std::uint32_t i = 0; i < chunk_size; ++i) {
        const node& n = chunk[i];
        if (n.state == node_state::waiting || n.state == node_state::batched) ++live;
        if (n.state == node_state::waiting) {
          ++waiting;
          if (!n.pending() || n.deadline() <= now())
            fail("an event waiting in the wheel is not after now");
        }
        // (A cancelled node may still hold the event whose handler runs.)
        if (n.state == node_state::idle && n.value.has_value()) fail("an idle node holds an event");
        if ((n.state == node_state::waiting || n.state == node_state::batched) &&
            !n.value.has_value())
          fail("a pending event has no value");
      }
    if (live != pending_) fail("the count of pending events disagrees");
    std::size_t batched = 0;
    for (std::size_t i = heap_ ? 0 : head_; i < batch_.size(); ++i)
      if (batch_[i]->state == node_state::batched) ++batched;
    if (batched + waiting != live) fail("an event is neither in the wheel nor in the batch");
  }

 private:
  // Marks a run; refuses one started from a handler.
  struct running_scope {
    simulator& s;
    running_scope(simulator& sim, const char* what) : s(sim) {
      if (s.running_)
        throw std::logic_error(std::string("timerwheel: des::simulator: ") + what +
                               " called from a handler");
      s.running_ = true;
    }
    ~running_scope() { s.running_ = false; }
    running_scope(const running_scope&) = delete;
    running_scope& operator=(const running_scope&) = delete;
  };

  [[noreturn]] static void fail(const char* what) {
    throw std::logic_error(std::string("timerwheel: des::simulator: invariant broken: ") + what);
  }

  node& at(std::uint32_t index) noexcept {
    return chunks_[index >> chunk_bits][index & (chunk_size - 1)];
  }

  node* find(event_id id) noexcept {
    if ((id.index >> chunk_bits) >= chunks_.size()) return nullptr;
    node& n = at(id.index);
    if (n.generation != id.generation) return nullptr;
    if (n.state != node_state::waiting && n.state != node_state::batched) return nullptr;
    return &n;
  }

  // Adds a chunk of idle nodes, and room in the batch for every node, so
  // that moving events into the batch never allocates (nor throws).
  void grow() {
    if (capacity() + chunk_size > std::size_t{no_node})
      throw std::length_error("timerwheel: des::simulator: more than 2^32 - 256 pending events");
    batch_.reserve(capacity() + chunk_size);
    auto chunk = std::make_unique<node[]>(chunk_size);
    const auto first = static_cast<std::uint32_t>(capacity());
    for (std::uint32_t i = 0; i < chunk_size; ++i) {
      chunk[i].index = first + i;
      chunk[i].next_idle = i + 1 < chunk_size ? first + i + 1 : idle_;
    }
    chunks_.push_back(std::move(chunk));
    idle_ = first;
  }

  void release(node& n, std::uint32_t index) noexcept {
    n.value.reset();
    if (n.state != node_state::cancelled) ++n.generation;
    n.state = node_state::idle;
    n.next_idle = idle_;
    idle_ = index;
  }

  // --- the instant batch ---

  static bool runs_before(const node* a, const node* b) noexcept {
    return a->priority != b->priority ? a->priority < b->priority : a->sequence < b->sequence;
  }
  // std::push_heap keeps the largest in front: "larger" is "runs later".
  static bool runs_later(const node* a, const node* b) noexcept { return runs_before(b, a); }

  bool batch_live() const noexcept {
    for (std::size_t i = heap_ ? 0 : head_; i < batch_.size(); ++i)
      if (batch_[i]->state == node_state::batched) return true;
    return false;
  }

  // Capacity for every node was reserved by grow(): never allocates.
  void batch_push(node& n) noexcept {
    n.state = node_state::batched;
    if (!heap_ && n.priority == 0) {
      batch_.push_back(&n);  // FIFO: the newest runs last among priority 0
      return;
    }
    if (!heap_) {
      batch_.erase(batch_.begin(), batch_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
      std::make_heap(batch_.begin(), batch_.end(), runs_later);
      heap_ = true;
    }
    batch_.push_back(&n);
    std::push_heap(batch_.begin(), batch_.end(), runs_later);
  }

  // The next live event of the instant, taken out of the batch; nullptr
  // when none is left. Cancelled entries met on the way go back to the pool.
  node* batch_pop() noexcept {
    for (;;) {
      node* n = nullptr;
      if (heap_) {
        if (batch_.empty()) {
          heap_ = false;
          return nullptr;
        }
        std::pop_heap(batch_.begin(), batch_.end(), runs_later);
        n = batch_.back();
        batch_.pop_back();
      } else {
        if (head_ == batch_.size()) {
          batch_.clear();
          head_ = 0;
          return nullptr;
        }
        n = batch_[head_++];
      }
      if (n->state == node_state::batched) return n;
      release(*n, n->index);  // cancelled while batched
    }
  }

  // Moves the events of the next instant from the wheel into the batch
  // (time jumps there). Returns whether there was one. Before a run_until's
  // target the marker may be what fires: then the batch stays empty and now
  // is the target.
  bool fill_batch() {
    return wheel_.advance_to_next([this](hook_type& h) {
      if (&h == &marker_) return;
      batch_push(static_cast<node&>(h));
    }) != 0;
  }

  template <class Handler>
  bool step_once(Handler& handler) {
    node* n = batch_pop();
    if (n == nullptr) {
      if (!fill_batch()) return false;
      n = batch_pop();
      if (n == nullptr) return false;  // never: every timer in the wheel is a live event
    }
    run_one(*n, handler);
    return true;
  }

  // Runs one event: its id goes stale first, its node goes back to the pool
  // when the handler returns or throws.
  template <class Handler>
  void run_one(node& n, Handler& handler) {
    struct release_scope {
      simulator& s;
      node& n;
      ~release_scope() { s.release(n, n.index); }
    };
    --pending_;
    ++events_run_;
    ++n.generation;
    n.state = node_state::cancelled;  // not pending; release() must not bump again
    const release_scope scope{*this, n};
    std::invoke(handler, *n.value);
  }

  std::vector<std::unique_ptr<node[]>> chunks_;  // before wheel_: it outlives the wheel
  wheel_type wheel_;
  hook_type marker_;          // run_until's stop
  std::vector<node*> batch_;  // the current instant's events
  std::size_t head_ = 0;      // FIFO mode: the next entry
  bool heap_ = false;         // heap mode: batch_ is a heap on (priority, sequence)
  bool running_ = false;
  std::uint32_t idle_ = no_node;  // the first idle node
  std::size_t pending_ = 0;
  std::uint64_t events_run_ = 0;
  std::uint64_t next_sequence_ = 0;
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI::des
