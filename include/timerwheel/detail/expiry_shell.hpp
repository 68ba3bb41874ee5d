// What every timer structure of the library keeps beside its own placement of
// timers, written once: the pull form's queue of expired timers, expire_all's
// batch, and the flag that refuses an advance from inside a callback. The
// wheel and each reference scheme hold one, and say through small functions
// what a timer leaving them means for their own bookkeeping (a count, a
// state in the hook).
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>

#include "abi.hpp"
#include "link.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI::detail {

// Sets a structure's "running" flag for the length of an advance or an
// expire_all, and refuses to start one from inside a callback, where it
// would fire timers out of order.
class reentry_guard {
 public:
  explicit reentry_guard(bool& running) : running_(running) {
    if (running) refuse();
    running = true;
  }
  reentry_guard(const reentry_guard&) = delete;
  reentry_guard& operator=(const reentry_guard&) = delete;
  ~reentry_guard() { running_ = false; }

  [[noreturn]] static void refuse() {
    throw std::logic_error("timerwheel: advance or expire_all called from a callback");
  }

 private:
  bool& running_;
};

// `Hook` derives from `link`, privately: `Access::from_links<Hook>` reaches it.
template <class Hook, class Access>
class expiry_shell {
 public:
  expiry_shell() noexcept { list_init(queue_); }
  expiry_shell(const expiry_shell&) = delete;
  expiry_shell& operator=(const expiry_shell&) = delete;

  // Whether an advance or expire_all is under way (a callback may be running).
  bool running() const noexcept { return running_; }

  // Marks an advance or expire_all under way until the guard goes; throws
  // std::logic_error, changing nothing, when one already is.
  [[nodiscard]] reentry_guard enter() { return reentry_guard(running_); }

  // --- the pull form's queue, in firing order ---

  bool queued() const noexcept { return !list_empty(queue_); }

  // Whether no timer is queued or waits in a running expire_all's batch.
  bool empty() const noexcept { return !queued() && (batch_ == nullptr || list_empty(*batch_)); }

  void enqueue(Hook& timer) noexcept { list_push_back(queue_, Access::links(timer)); }

  // The first queued timer, unlinked; nullptr when none is queued.
  Hook* dequeue() noexcept {
    if (list_empty(queue_)) return nullptr;
    link& node = *queue_.next;
    list_unlink(node);
    return &hook_of(node);
  }

  // The deadline of the first queued timer; none when none is queued.
  template <class Tick>
  std::optional<Tick> first_queued() const noexcept {
    if (!queued()) return std::nullopt;
    return hook_of(*queue_.next).deadline();
  }

  // The deadline of expire_all's next timer, while it runs; none otherwise.
  template <class Tick>
  std::optional<Tick> first_in_batch() const noexcept {
    if (batch_ == nullptr || list_empty(*batch_)) return std::nullopt;
    return hook_of(*batch_->next).deadline();
  }

  // Hands every queued timer to `on_expired`, front first, each unlinked
  // and passed to `leave` before its callback runs. Returns how many.
  template <class Leave, class F>
  std::size_t fire_queued(Leave& leave, F& on_expired) {
    return fire_list(queue_, leave, on_expired);
  }

  // expire_all: `take_all(batch)` moves every timer the structure holds to
  // the back of `batch` in firing order; the queued ones fire first, then
  // the batch, each passed to `leave` before its callback. What a throwing
  // callback leaves in the batch goes back through `put_back(batch)`.
  // Returns how many fired. Throws std::logic_error from a callback.
  template <class TakeAll, class PutBack, class Leave, class F>
  std::size_t expire_all(TakeAll take_all, PutBack put_back, Leave leave, F& on_expired) {
    const reentry_guard scope = enter();
    link batch;
    list_init(batch);
    take_all(batch);
    batch_ = &batch;
    std::size_t fired = 0;
    try {
      fired = fire_list(queue_, leave, on_expired);
      fired += fire_list(batch, leave, on_expired);
    } catch (...) {
      batch_ = nullptr;
      put_back(batch);
      throw;
    }
    batch_ = nullptr;
    return fired;
  }

  // Unlinks every timer queued or in the batch, passing each to `drop`.
  template <class Drop>
  void drop_all(Drop drop) noexcept {
    unlink_all(queue_, drop);
    if (batch_ != nullptr) unlink_all(*batch_, drop);
  }

  // Calls f(const Hook&) for every timer queued or in the batch.
  template <class F>
  void visit(F& f) const {
    visit_list(queue_, f);
    if (batch_ != nullptr) visit_list(*batch_, f);
  }

  // Checks the links of the queue and the batch, calling `check(hook)` on
  // each timer; returns how many they hold. `fail(what)` throws.
  template <class Check, class Fail>
  std::size_t check(Check check, Fail fail) const {
    std::size_t n = 0;
    for (const link* list : {&queue_, static_cast<const link*>(batch_)}) {
      if (list == nullptr) continue;
      const std::size_t length = list_length(*list);
      if (length == list_broken) fail("a list's links disagree");
      for (const link* p = list->next; p != list; p = p->next) check(hook_of(*p));
      n += length;
    }
    return n;
  }

  // Unlinks every timer of `list`, passing each to `drop`; the list becomes
  // empty.
  template <class Drop>
  static void unlink_all(link& list, Drop& drop) noexcept {
    for (link* n = list.next; n != &list;) {
      link* const next = n->next;
      n->next = n->prev = nullptr;
      drop(hook_of(*n));
      n = next;
    }
    list_init(list);
  }

  // Calls f(const Hook&) for every timer of `list`, front first.
  template <class F>
  static void visit_list(const link& list, F& f) {
    for (const link* n = list.next; n != &list; n = n->next) f(hook_of(*n));
  }

  // Hands every timer of `list` to `on_expired`, front first, each unlinked
  // and passed to `leave` before its callback runs. Returns how many.
  template <class Leave, class F>
  static std::size_t fire_list(link& list, Leave& leave, F& on_expired) {
    std::size_t fired = 0;
    while (!list_empty(list)) {
      link& node = *list.next;
      list_unlink(node);
      Hook& timer = hook_of(node);
      leave(timer);
      ++fired;
      on_expired(timer);
    }
    return fired;
  }

  static Hook& hook_of(link& node) noexcept { return Access::template from_links<Hook>(node); }
  static const Hook& hook_of(const link& node) noexcept {
    return Access::template from_links<Hook>(node);
  }

 private:
  link queue_;             // the pull form's queue, in firing order
  link* batch_ = nullptr;  // expire_all's batch while it runs
  bool running_ = false;   // inside advance or expire_all
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI::detail
