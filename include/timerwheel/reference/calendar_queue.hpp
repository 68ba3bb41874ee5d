// timerwheel::reference::calendar_queue: the calendar queue of R. Brown
// ("Calendar Queues: A Fast O(1) Priority Queue Implementation for the
// Simulation Event Set Problem", CACM 31(10), 1988), the event list that
// simulators reach for beside the heap (ns-3 ships one as its calendar
// scheduler), under the contract of the timer schemes.
//
// A year of `buckets` days, each day `width` ticks wide; a deadline t goes to
// day (t / width) mod buckets, into a list sorted by (deadline, scheduling
// order). The dequeue walks the days from the current one, taking the head
// of a day when it falls within this year's pass over that day; after a
// whole year with none, it takes the least head directly. The number of
// days doubles when the timers exceed twice of them and halves when they
// fall below half of them, and at each resize the width is set to three
// times the mean gap between the earliest (up to 25) deadlines, ignoring gaps
// more than twice the mean, as Brown's sampling does.
//
// Costs (n pending timers, deadlines spread as the sample predicts):
//   START_TIMER   O(1) average (a sorted insert into a short day); O(n) when
//                 it triggers a resize, amortized O(1)
//   STOP_TIMER    O(1) (unlink), amortized O(1) with the resizes
//   dequeue       O(1) average; O(buckets) after a year without a timer
//   next_deadline O(1) average, the same walk without taking
// A resize allocates: schedule may throw std::bad_alloc (changing nothing);
// a shrink that cannot allocate is skipped.
//
// Ticks: the width and the number of days are powers of two, so that the
// day of a tick is (t >> shift) & mask, consistent across the wrap of a
// narrower tick type (2^bits is a multiple of a year); a year never exceeds
// half the tick range. Every comparison of deadlines is a distance from
// now, as in every scheme; so wrapping 32-bit ticks work as 64-bit ones do.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "../detail/abi.hpp"
#include "../detail/link.hpp"
#include "detail/scheme_base.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::reference {

template <class Tick = std::uint64_t>
class calendar_queue : public detail::scheme_base<calendar_queue<Tick>, Tick, false> {
  using base = detail::scheme_base<calendar_queue<Tick>, Tick, false>;
  friend base;
  using link = detail::link;
  using access = typename base::access;
  using traits = detail::tick_traits<Tick>;

 public:
  using typename base::hook_type;
  using typename base::tick_type;

  // An empty calendar of two days one tick wide, whose time is `now`
  // (ticks). Allocates its two days: throws std::bad_alloc.
  explicit calendar_queue(tick_type now = 0) : base(now), days_(2), cursor_(now) {
    for (link& d : days_) timerwheel::detail::list_init(d);
  }

  // Unlinks every timer still pending, as clear() does.
  ~calendar_queue() { this->clear(); }

  // The current number of days and their width (ticks): for tests and
  // benchmarks that look at the calendar's shape.
  std::size_t buckets() const noexcept { return days_.size(); }
  tick_type bucket_width() const noexcept { return tick_type{1} << shift_; }

 private:
  static constexpr const char* name = "calendar_queue";
  static constexpr tick_type far = std::numeric_limits<tick_type>::max();
  static constexpr std::size_t sample_size = 25;

  std::size_t day_of(tick_type t) const noexcept {
    return static_cast<std::size_t>(t >> shift_) & (days_.size() - 1);
  }

  // Distances that saturate at `far`, which stands for "beyond every
  // pending deadline".
  static tick_type add(tick_type d, tick_type w) noexcept { return d > far - w ? far : d + w; }

  // Where the dequeue's walk starts: no held deadline lies before it.
  tick_type start() const noexcept { return this->behind(cursor_) ? this->now_ : cursor_; }

  // Grows before a schedule that would overfill the calendar: the only
  // step of a schedule that may throw, taken before anything changes.
  void admit(tick_type) {
    if (held_ + 1 > 2 * days_.size()) resize(2 * days_.size());
  }

  void place(hook_type& timer) noexcept {
    this->insert_in_order(days_[day_of(timer.deadline())], access::links(timer));
    ++held_;
    if (this->distance(timer.deadline()) < this->distance(start())) cursor_ = timer.deadline();
  }

  // (deadline, scheduling order) places an older timer before newer equals.
  void place_old(hook_type& timer) noexcept { place(timer); }

  void remove(hook_type& timer) noexcept {
    timerwheel::detail::list_unlink(access::links(timer));
    --held_;
    shrink_if_sparse();
  }

  // The earliest held timer, by Brown's walk over the days; nullptr when
  // none is held. When `limit` (a distance) is given, the walk stops at a
  // day starting beyond it and returns nullptr, setting `*stop` to that
  // day's start (a lower bound on every held deadline).
  const hook_type* find(tick_type limit, tick_type* stop) const noexcept {
    if (held_ == 0) return nullptr;
    const tick_type from = start();
    const tick_type width = bucket_width();
    const std::size_t first = day_of(from);
    tick_type window_start = this->distance(from);
    tick_type top = add(window_start, width - (from & (width - 1)));
    for (std::size_t k = 0; k < days_.size(); ++k) {
      if (k > 0 && window_start > limit) {
        *stop = static_cast<tick_type>(this->now_ + window_start);
        return nullptr;
      }
      const link& day = days_[(first + k) & (days_.size() - 1)];
      if (!timerwheel::detail::list_empty(day)) {
        const hook_type& head = base::hook_of(*day.next);
        if (top == far || this->distance(head.deadline()) < top) return &head;
      }
      window_start = top;
      top = add(top, width);
    }
    // A year without a timer in its pass: the least head.
    const hook_type* best = nullptr;
    for (const link& day : days_)
      if (!timerwheel::detail::list_empty(day)) {
        const hook_type& head = base::hook_of(*day.next);
        if (best == nullptr || this->fires_before(head, *best)) best = &head;
      }
    return best;
  }

  hook_type* pop_due(tick_type to) noexcept {
    if (held_ == 0) {
      cursor_ = to;
      return nullptr;
    }
    tick_type stop = 0;
    const tick_type limit = this->distance(to);
    const hook_type* found = find(limit, &stop);
    if (found == nullptr) {
      cursor_ = stop;
      return nullptr;
    }
    cursor_ = found->deadline();
    if (this->distance(found->deadline()) > limit) return nullptr;
    hook_type& timer = const_cast<hook_type&>(*found);
    timerwheel::detail::list_unlink(access::links(timer));
    --held_;
    shrink_if_sparse();
    return &timer;
  }

  std::optional<tick_type> earliest() const noexcept {
    tick_type unused = 0;
    const hook_type* found = find(far, &unused);
    if (found == nullptr) return std::nullopt;
    return found->deadline();
  }

  void gather(link& batch) noexcept {
    link taken;
    timerwheel::detail::list_init(taken);
    for (link& d : days_) timerwheel::detail::list_splice_back(taken, d);
    this->sort_by_firing_order(taken);
    timerwheel::detail::list_splice_back(batch, taken);
    held_ = 0;
  }

  void drop_all() noexcept {
    for (link& d : days_) base::unlink_all(d);
    held_ = 0;
  }

  template <class F>
  void visit_held(F& f) const {
    for (const link& d : days_) base::visit(d, f);
  }

  std::size_t check_scheme() const {
    if (days_.size() < 2 || !std::has_single_bit(days_.size()))
      base::fail("the number of days is not a power of two of at least 2");
    if (shift_ + static_cast<unsigned>(std::countr_zero(days_.size())) > traits::digits - 1)
      base::fail("a year exceeds half the tick range");
    std::size_t counted = 0;
    const tick_type from = this->distance(start());
    for (std::size_t i = 0; i < days_.size(); ++i)
      counted += this->check_list(days_[i], false, [&](const hook_type& timer) {
        return day_of(timer.deadline()) == i && this->distance(timer.deadline()) >= from;
      });
    if (counted != held_) base::fail("the count of held timers disagrees");
    return counted;
  }

  // Halves the calendar when the timers fall below half its days; skipped
  // when the smaller calendar cannot be allocated.
  void shrink_if_sparse() noexcept {
    if (days_.size() <= 2 || held_ >= days_.size() / 2) return;
    try {
      resize(days_.size() / 2);
    } catch (...) {
      // Keeping the larger calendar is correct, only slower.
    }
  }

  // A calendar of `count` days whose width comes from the gaps between the
  // earliest deadlines. Allocates first; moves the timers only once nothing
  // can throw.
  void resize(std::size_t count) {
    std::vector<link> fresh(count);
    sample_.clear();
    sample_.reserve(held_);
    for (const link& d : days_)
      for (const link* p = d.next; p != &d; p = p->next)
        sample_.push_back(this->distance(base::deadline_of(*p)));
    for (link& d : fresh) timerwheel::detail::list_init(d);
    shift_ = width_shift(count);
    days_.swap(fresh);  // the sentinels' addresses stay with their buffers
    for (link& old : fresh)
      while (!timerwheel::detail::list_empty(old)) {
        link& node = *old.next;
        timerwheel::detail::list_unlink(node);
        this->insert_in_order(days_[day_of(base::deadline_of(node))], node);
      }
  }

  // Brown's width: three times the mean gap between the earliest deadlines,
  // recomputed without the gaps above twice the first mean; rounded up to a
  // power of two, and kept so that a year is at most half the tick range.
  unsigned width_shift(std::size_t count) {
    unsigned shift = shift_;
    const std::size_t n = std::min(sample_.size(), sample_size);
    if (n >= 2) {
      std::nth_element(sample_.begin(), sample_.begin() + static_cast<std::ptrdiff_t>(n - 1),
                       sample_.end());
      std::sort(sample_.begin(), sample_.begin() + static_cast<std::ptrdiff_t>(n));
      const double mean =
          static_cast<double>(sample_[n - 1] - sample_[0]) / static_cast<double>(n - 1);
      double sum = 0;
      std::size_t kept = 0;
      for (std::size_t i = 1; i < n; ++i) {
        const auto gap = static_cast<double>(sample_[i] - sample_[i - 1]);
        if (gap <= 2 * mean) {
          sum += gap;
          ++kept;
        }
      }
      const double width = kept > 0 ? 3 * sum / static_cast<double>(kept) : 1;
      shift = 0;
      while (shift < traits::digits - 2 && static_cast<double>(tick_type{1} << shift) < width)
        ++shift;
    }
    const auto day_bits = static_cast<unsigned>(std::countr_zero(count));
    return std::min(shift, traits::digits - 1 - day_bits);
  }

  std::vector<link> days_;         // each in firing order
  std::vector<tick_type> sample_;  // resize's scratch
  unsigned shift_ = 0;             // width = 2^shift_ ticks
  tick_type cursor_;               // no held deadline before it (unless behind now)
  std::size_t held_ = 0;
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI::reference
