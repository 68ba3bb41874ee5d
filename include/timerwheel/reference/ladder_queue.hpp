// timerwheel::reference::ladder_queue: the ladder queue of W. T. Tang, R. S.
// M. Goh and I. L.-J. Thng ("Ladder Queue: An O(1) Priority Queue Structure
// for Large-Scale Discrete Event Simulation", ACM TOMACS 15(3), 2005), under
// the contract of the timer schemes.
//
// Three tiers. Top: an unsorted list of the far future (every deadline at or
// after top_start). Ladder: up to
// `max_rungs` rungs of buckets, each an unsorted list; rung 0 is made from
// Top when the tiers below run dry (as many buckets as timers, so each holds
// about one), and a bucket of more than `threshold` timers spawns a finer
// rung below it instead of being sorted. Bottom: a short list sorted by
// (deadline, scheduling order), made from the first non-empty bucket of the
// finest rung; the dequeue takes its head. A schedule goes to Top when its
// deadline is at or after top_start, else to the coarsest rung whose current
// bucket it does not precede, else into Bottom, in order.
//
// Costs (n pending timers): START_TIMER O(1) amortized (an append, or a
// sorted insert into Bottom, which holds at most about `threshold` timers
// unless many timers are scheduled before every rung's current bucket);
// STOP_TIMER O(1) (unlink); the dequeue O(1) amortized: each timer is moved
// a bounded number of times (Top to a rung, down at most `max_rungs` rungs,
// into Bottom), and Bottom is sorted from at most `threshold` timers (or
// from a bucket of a rung that cannot split further). next_deadline scans
// the first non-empty bucket of the finest rung, or Top when the ladder is
// empty: O(n) at worst. A rung's buckets grow to the most it ever needed
// and are kept: the dequeue (so advance) may throw std::bad_alloc when a
// rung needs more than before, changing nothing.
//
// Exact order: buckets hold timers of a range of deadlines in no order;
// Bottom is sorted by (deadline, scheduling order) when it is filled.
// Timers of one deadline sit in one bucket (a bucket passed by its rung's
// cursor sends later equals to Bottom, where the bucket went), except at
// top_start, where the older ones are below Top and the newer in it: the
// tiers come out in that order. Deadlines are compared as distances from now, so wrapping
// 32-bit ticks work as 64-bit ones do: every held deadline, and every range
// of the ladder, lies within half the tick range ahead of the least of them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "../detail/abi.hpp"
#include "../detail/link.hpp"
#include "detail/scheme_base.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::reference {

template <class Tick = std::uint64_t, std::size_t Threshold = 50, std::size_t MaxRungs = 8>
class ladder_queue
    : public detail::scheme_base<ladder_queue<Tick, Threshold, MaxRungs>, Tick, true> {
  using base = detail::scheme_base<ladder_queue<Tick, Threshold, MaxRungs>, Tick, true>;
  friend base;
  using link = detail::link;
  using access = typename base::access;

  static_assert(Threshold >= 1 && MaxRungs >= 1, "a ladder needs a threshold and a rung");

 public:
  using typename base::hook_type;
  using typename base::tick_type;

  static constexpr std::size_t threshold = Threshold;
  static constexpr std::size_t max_rungs = MaxRungs;

  // An empty ladder whose time is `now` (ticks). Allocates nothing.
  explicit ladder_queue(tick_type now = 0) noexcept : base(now), top_start_(now) {
    timerwheel::detail::list_init(top_);
    timerwheel::detail::list_init(bottom_);
  }

  // Unlinks every timer still pending, as clear() does.
  ~ladder_queue() { this->clear(); }

  // The rungs in use now: for tests that look at the ladder's shape.
  std::size_t rungs() const noexcept { return rungs_in_use_; }

 private:
  static constexpr const char* name = "ladder_queue";
  // Where a held timer is (the hook's word).
  enum where : std::uint64_t { in_top = 0, in_bottom = 1, in_rung = 2 };

  struct rung {
    std::vector<link> buckets;  // the first `count` in use
    std::size_t count = 0;
    tick_type start = 0;      // the first tick of bucket 0
    tick_type width = 1;      // ticks per bucket
    std::size_t current = 0;  // the buckets before it have gone down
  };

  // Whether held deadline `a` is before tick `b` (which may lie behind now:
  // then it is not).
  bool before(tick_type a, tick_type b) const noexcept {
    return !this->behind(b) && this->distance(a) < this->distance(b);
  }

  bool ladder_empty() const noexcept {
    return rungs_in_use_ == 0 && timerwheel::detail::list_empty(bottom_);
  }

  // The bucket of rung `g` that takes deadline `d` (not before the rung's
  // start), or g.count when it lies outside the rung's range.
  static std::size_t bucket_of(const rung& g, tick_type d) noexcept {
    const tick_type offset = static_cast<tick_type>(d - g.start);
    const tick_type index = offset / g.width;
    return index < g.count ? static_cast<std::size_t>(index) : g.count;
  }

  static void append(link& list, link& node) noexcept {
    node.prev = list.prev;
    node.next = &list;
    list.prev->next = &node;
    list.prev = &node;
  }

  void place(hook_type& timer) noexcept { place(timer, false); }

  // An older timer (expire_all's restore) goes where a new one of its
  // deadline would, except that one at top_start goes below Top, where the
  // (newer) timers of that deadline moved down from Top are: it must come
  // out before them. Bottom is kept in order; the other tiers are sorted on
  // the way down.
  void place_old(hook_type& timer) noexcept { place(timer, true); }

  void place(hook_type& timer, bool old) noexcept {
    const tick_type d = timer.deadline();
    link& node = access::links(timer);
    if (ladder_empty() || (old ? before(top_start_, d) : !before(d, top_start_))) {
      append(top_, node);
      ++top_count_;
      access::set_word(timer, in_top);
      return;
    }
    for (std::size_t r = 0; r < rungs_in_use_; ++r) {
      rung& g = rungs_[r];
      if (before(d, g.start)) continue;
      const std::size_t b = bucket_of(g, d);
      if (b >= g.current && b < g.count) {
        append(g.buckets[b], node);
        access::set_word(timer, in_rung);
        return;
      }
    }
    this->insert_in_order(bottom_, node);
    access::set_word(timer, in_bottom);
  }

  void remove(hook_type& timer) noexcept {
    if (access::word(timer) == in_top) --top_count_;
    timerwheel::detail::list_unlink(access::links(timer));
  }

  hook_type* pop_due(tick_type to) {
    if (timerwheel::detail::list_empty(bottom_) && !refill()) return nullptr;
    link& node = *bottom_.next;
    if (this->distance(base::deadline_of(node)) > this->distance(to)) return nullptr;
    timerwheel::detail::list_unlink(node);
    return &base::hook_of(node);
  }

  // Fills Bottom from the ladder (or Top); returns false when nothing is
  // held. Each timer moves down a bounded number of times.
  bool refill() {
    for (;;) {
      while (rungs_in_use_ > 0) {
        rung& g = rungs_[rungs_in_use_ - 1];
        while (g.current < g.count && timerwheel::detail::list_empty(g.buckets[g.current]))
          ++g.current;
        if (g.current == g.count) {
          --rungs_in_use_;
          continue;
        }
        link& bucket = g.buckets[g.current];
        const std::size_t n = length_up_to(bucket, Threshold + 1);
        if (n > Threshold && g.width > 1 && rungs_in_use_ < MaxRungs) {
          spawn(g, n);  // may throw, changing nothing
          continue;
        }
        ++g.current;
        to_bottom(bucket);
        return true;
      }
      if (top_count_ == 0) return false;
      if (top_count_ <= Threshold) {
        top_start_ = *least_of(top_, true);
        top_count_ = 0;
        to_bottom(top_);
        return true;
      }
      from_top();  // may throw, changing nothing
    }
  }

  static std::size_t length_up_to(const link& list, std::size_t most) noexcept {
    std::size_t n = 0;
    for (const link* p = list.next; p != &list && n < most; p = p->next) ++n;
    return n;
  }

  // Moves a list into Bottom (empty), sorted.
  void to_bottom(link& list) noexcept {
    for (link* p = list.next; p != &list; p = p->next)
      access::set_word(base::hook_of(*p), in_bottom);
    timerwheel::detail::list_splice_back(bottom_, list);
    this->sort_by_firing_order(bottom_);
  }

  // Readies rung `r` with `count` empty buckets. Throws std::bad_alloc only
  // while the rung is unused.
  void ready(std::size_t r, std::size_t count) {
    rung& g = rungs_[r];
    if (g.buckets.size() < count) g.buckets.resize(count);
    // (A vector that grew moved its sentinels: each is made afresh.)
    for (std::size_t i = 0; i < count; ++i) timerwheel::detail::list_init(g.buckets[i]);
    g.count = count;
    g.current = 0;
  }

  // Moves every timer of rung `g`'s current bucket (more than Threshold of
  // them, `n` counted so far) into a finer rung below it.
  void spawn(rung& parent, std::size_t n) {
    const tick_type width = static_cast<tick_type>((parent.width + n - 1) / n);
    const auto count = static_cast<std::size_t>((parent.width + width - 1) / width);
    const std::size_t r = rungs_in_use_;
    ready(r, count);
    rung& child = rungs_[r];
    child.start = static_cast<tick_type>(parent.start +
                                         static_cast<tick_type>(parent.current) * parent.width);
    child.width = width;
    link& bucket = parent.buckets[parent.current];
    ++parent.current;
    ++rungs_in_use_;
    distribute(bucket, child);
  }

  // Moves Top into rung 0: one bucket per timer, over Top's exact range.
  void from_top() {
    tick_type least = base::deadline_of(*top_.next);
    tick_type most = least;
    for (const link* p = top_.next; p != &top_; p = p->next) {
      const tick_type d = base::deadline_of(*p);
      if (this->distance(d) < this->distance(least)) least = d;
      if (this->distance(d) > this->distance(most)) most = d;
    }
    const auto range = static_cast<tick_type>(most - least);
    const auto width = static_cast<tick_type>(range / static_cast<tick_type>(top_count_) + 1);
    ready(0, static_cast<std::size_t>(range / width) + 1);
    rung& g = rungs_[0];
    g.start = least;
    g.width = width;
    rungs_in_use_ = 1;
    top_start_ = most;
    top_count_ = 0;
    distribute(top_, g);
  }

  void distribute(link& list, rung& g) noexcept {
    while (!timerwheel::detail::list_empty(list)) {
      link& node = *list.next;
      timerwheel::detail::list_unlink(node);
      append(g.buckets[bucket_of(g, base::deadline_of(node))], node);
      access::set_word(base::hook_of(node), in_rung);
    }
  }

  std::optional<tick_type> earliest() const noexcept {
    if (!timerwheel::detail::list_empty(bottom_)) return base::deadline_of(*bottom_.next);
    for (std::size_t r = rungs_in_use_; r-- > 0;) {
      const rung& g = rungs_[r];
      for (std::size_t b = g.current; b < g.count; ++b)
        if (!timerwheel::detail::list_empty(g.buckets[b])) return least_of(g.buckets[b]);
    }
    if (top_count_ == 0) return std::nullopt;
    return least_of(top_);
  }

  // The least (or with `most`, the greatest) deadline of a list.
  std::optional<tick_type> least_of(const link& list, bool most = false) const noexcept {
    std::optional<tick_type> best;
    for (const link* p = list.next; p != &list; p = p->next) {
      const tick_type d = base::deadline_of(*p);
      if (!best || (most ? this->distance(d) > this->distance(*best)
                         : this->distance(d) < this->distance(*best)))
        best = d;
    }
    return best;
  }

  template <class F>
  void each_list(F&& f) {
    f(top_);
    for (std::size_t r = 0; r < rungs_in_use_; ++r)
      for (std::size_t b = 0; b < rungs_[r].count; ++b) f(rungs_[r].buckets[b]);
    f(bottom_);
  }

  void gather(link& batch) noexcept {
    link taken;
    timerwheel::detail::list_init(taken);
    each_list([&](link& l) { timerwheel::detail::list_splice_back(taken, l); });
    this->sort_by_firing_order(taken);
    timerwheel::detail::list_splice_back(batch, taken);
    rungs_in_use_ = 0;
    top_count_ = 0;
  }

  void drop_all() noexcept {
    each_list([](link& l) { base::unlink_all(l); });
    rungs_in_use_ = 0;
    top_count_ = 0;
  }

  template <class F>
  void visit_held(F& f) const {
    base::visit(top_, f);
    for (std::size_t r = 0; r < rungs_in_use_; ++r)
      for (std::size_t b = 0; b < rungs_[r].count; ++b) base::visit(rungs_[r].buckets[b], f);
    base::visit(bottom_, f);
  }

  std::size_t check_scheme() const {
    std::size_t counted = 0;
    // Top: beyond top_start while the ladder holds anything.
    const std::size_t in_top_list = base::check_links(top_);
    if (in_top_list != top_count_) base::fail("Top's count disagrees");
    for (const link* p = top_.next; p != &top_; p = p->next) {
      const hook_type& timer = base::hook_of(*p);
      this->check_held(timer);
      if (access::word(timer) != in_top) base::fail("a timer in Top is not marked so");
      if (!ladder_empty() && before(timer.deadline(), top_start_))
        base::fail("a timer in Top precedes top_start");
    }
    counted += in_top_list;
    // The rungs: each timer in its bucket, at or after the rung's cursor.
    if (rungs_in_use_ > MaxRungs) base::fail("too many rungs");
    for (std::size_t r = 0; r < rungs_in_use_; ++r) {
      const rung& g = rungs_[r];
      if (g.current > g.count || g.width == 0) base::fail("a rung's cursor or width is broken");
      for (std::size_t b = 0; b < g.count; ++b) {
        const link& bucket = g.buckets[b];
        const std::size_t n = base::check_links(bucket);
        if (b < g.current && n != 0) base::fail("a bucket behind its rung's cursor holds timers");
        for (const link* p = bucket.next; p != &bucket; p = p->next) {
          const hook_type& timer = base::hook_of(*p);
          this->check_held(timer);
          if (access::word(timer) != in_rung) base::fail("a timer in a rung is not marked so");
          if (before(timer.deadline(), g.start) || bucket_of(g, timer.deadline()) != b)
            base::fail("a timer sits in the wrong bucket");
          if (!before(timer.deadline(), top_start_) && top_start_ != timer.deadline())
            base::fail("a timer in a rung is beyond top_start");
        }
        counted += n;
      }
    }
    // Bottom: in firing order, before every rung's current bucket.
    counted += this->check_list(bottom_, false, [&](const hook_type& timer) {
      if (access::word(timer) != in_bottom) return false;
      for (std::size_t r = 0; r < rungs_in_use_; ++r) {
        const rung& g = rungs_[r];
        if (!before(timer.deadline(), g.start) && bucket_of(g, timer.deadline()) >= g.current &&
            bucket_of(g, timer.deadline()) < g.count)
          return false;
      }
      return true;
    });
    return counted;
  }

  link top_;
  std::size_t top_count_ = 0;
  tick_type top_start_;  // Top takes the deadlines at or after it
  std::array<rung, MaxRungs> rungs_;
  std::size_t rungs_in_use_ = 0;
  link bottom_;  // in firing order
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI::reference
