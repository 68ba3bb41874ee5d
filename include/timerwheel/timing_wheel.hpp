// timerwheel::timing_wheel: the priority-queue face of Jane Street's
// Timing_wheel (its Priority_queue: keys, a nondecreasing minimum allowed
// key, and increase_min_allowed_key removing what falls below it), over the
// exact wheel.
//
// Keys are 64-bit integers. Every key lies in [min_allowed_key(),
// max_allowed_key()]; min_allowed_key() never decreases, and raising it
// removes every element whose key falls below it, in (key, insertion) order.
// Where Jane Street's alarms of one interval come out in insertion order,
// here every element comes out in exact key order, and min_elt() is the
// element of the least key that was added (or re-keyed) first.
//
// Implementation: elements are hooks of a wheel<Config> whose deadlines are
// the keys. The wheel's time W trails the minimum allowed key m (W == m - 1
// once it has been raised past 0), so that raising m to k is an advance to
// k - 1, which removes exactly the keys below k. min_elt() needs the first of
// the least key, which the wheel keeps inside a slot: it advances the wheel
// to that key in the pull form and takes the elements of that key into a
// FIFO of its own (the front). Moving W ahead of m that way leaves keys in
// [m, W) that an add may still use; such an element (rare: only after a
// min_elt() whose key is above m) waits in an ordered map (the early map)
// instead. So every element is in exactly one of three places, ordered:
// early (keys in [m, W)), front (key W, added before any element of key W
// still in the wheel), wheel (keys >= W).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/abi.hpp"
#include "levels.hpp"
#include "timer_hook.hpp"
#include "wheel.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI {

// Names one element of a timing_wheel (Jane Street's Elt.t / Alarm.t). It
// stays safe after its element is removed: every member refuses it from then
// on (mem() is false), even once its storage holds another element. A
// default-constructed handle is never a member (Alarm.null). A handle means
// something only to the timing wheel that returned it.
struct timing_wheel_elt {
  std::uint32_t index = 0;
  std::uint32_t generation = 0;

  friend bool operator==(timing_wheel_elt, timing_wheel_elt) = default;
};

// `timing_wheel<T, Config>`: a priority queue of values of type T under
// 64-bit keys. Config is a wheel configuration over std::uint64_t ticks;
// its level bits (Jane Street's level_bits) tune speed only: a configuration
// whose levels cover fewer than 64 bits keeps the farthest keys in the
// wheel's far list, and every key up to 2^64 - 1 stays allowed. Not
// thread-safe; neither copyable nor movable.
//
// PERFORMANCE NOTE: an element costs its node (the wheel's 24-byte hook,
// the value, its key, a generation, its front links and an early-map
// position), allocated in chunks that never move; add() into the early map
// allocates a map node.
template <class T, class Config = default_config>
class timing_wheel {
  static_assert(std::is_same_v<typename Config::tick_type, std::uint64_t>,
                "timing_wheel: keys are 64 bits wide: use a configuration of std::uint64_t ticks");
  static_assert(std::is_nothrow_destructible_v<T>, "timing_wheel: T's destructor may not throw");
  static_assert(std::is_move_constructible_v<T>, "timing_wheel: T must be move constructible");

 public:
  using value_type = T;
  using config_type = Config;
  using key_type = std::uint64_t;
  using elt = timing_wheel_elt;

  // An empty timing wheel whose minimum allowed key is `min_allowed_key`.
  // O(slots). Throws nothing.
  explicit timing_wheel(key_type min_allowed_key = 0) noexcept
      : min_allowed_(min_allowed_key), wheel_(min_allowed_key == 0 ? 0 : min_allowed_key - 1) {}

  timing_wheel(const timing_wheel&) = delete;
  timing_wheel& operator=(const timing_wheel&) = delete;

  ~timing_wheel() { drop_all(); }

  // The bits of the configuration's levels together (Jane Street's
  // Level_bits.num_bits): max_allowed_key() - min_allowed_key() is at least
  // 2^num_bits - 1, or reaches max_representable_key().
  static constexpr unsigned num_bits() noexcept {
    unsigned sum = 0;
    for (unsigned b : Config::bits) sum += b;
    return sum;
  }

  // The largest key there is: 2^64 - 1.
  static constexpr key_type max_representable_key() noexcept {
    return std::numeric_limits<key_type>::max();
  }

  // The least key an element may have; it never decreases. O(1). Throws
  // nothing, as every query.
  key_type min_allowed_key() const noexcept { return min_allowed_; }

  // The greatest key an element may have: max_representable_key(), at
  // least min_allowed_key() + 2^num_bits() - 1 as Jane Street promises,
  // whatever the configuration (the far list holds what its levels do not).
  key_type max_allowed_key() const noexcept { return max_representable_key(); }

  // Elements held. O(1).
  std::size_t length() const noexcept { return live_; }
  [[nodiscard]] bool is_empty() const noexcept { return live_ == 0; }

  // Adds `value` under `key` and returns its handle. O(1) (a map insertion,
  // O(log e) in the e elements waiting there, for a key below the front's:
  // see the opening). Strong: throws std::out_of_range when `key` is below
  // min_allowed_key() or above max_allowed_key(), std::logic_error from a
  // handler of increase_min_allowed_key, std::bad_alloc, or what moving
  // `value` throws, changing nothing.
  elt add(key_type key, T value) {
    refuse_from_handler("add");
    check_key(key, "add");
    node& n = acquire();
    try {
      n.value.emplace(std::move(value));
      place(n, key);
    } catch (...) {
      n.value.reset();
      recycle(n);
      throw;
    }
    ++live_;
    return handle(n);
  }

  // Whether `e` names an element held. O(1).
  bool mem(elt e) const noexcept { return find(e) != nullptr; }

  // The key of a held element; none for a handle whose element is gone.
  std::optional<key_type> key(elt e) const noexcept {
    const node* n = find(e);
    if (n == nullptr) return std::nullopt;
    return n->key;
  }

  // The value of a held element; nullptr for a handle whose element is gone.
  T* value(elt e) noexcept {
    node* n = find(e);
    return n != nullptr ? &*n->value : nullptr;
  }
  const T* value(elt e) const noexcept {
    const node* n = find(e);
    return n != nullptr ? &*n->value : nullptr;
  }

  // Removes the element, destroying its value. Returns false, changing
  // nothing, for a handle whose element is gone (where Jane Street raises).
  // O(1) (O(log e) for an element of the early map). Throws
  // std::logic_error, changing nothing, from a handler of
  // increase_min_allowed_key.
  bool remove(elt e) {
    refuse_from_handler("remove");
    node* n = find(e);
    if (n == nullptr) return false;
    detach(*n);
    --live_;
    n->value.reset();
    recycle(*n);
    return true;
  }

  // Moves the element to `key`; it counts as newly added (last among the
  // elements of its key), even when the key is its own. Returns false,
  // changing nothing, for a handle whose element is gone. O(1), as add.
  // Strong: throws std::out_of_range for a key outside [min_allowed_key(),
  // max_allowed_key()], std::logic_error from a handler of
  // increase_min_allowed_key, and std::bad_alloc (a key that goes to the
  // early map), changing nothing.
  bool change_key(elt e, key_type key) {
    refuse_from_handler("change_key");
    node* n = find(e);
    if (n == nullptr) return false;
    check_key(key, "change_key");
    if (key < wheel_.now()) {
      // The map node first: the only step that can throw.
      const auto position = early_.emplace(key, n->index);
      detach(*n);
      n->key = key;
      n->where = place::early;
      n->early_position = position;
    } else {
      detach(*n);
      to_wheel(*n, key);
    }
    return true;
  }

  // The element of the least key, the first added among those of that key;
  // none when empty. Exact, where Jane Street's returns any element of the
  // least key. Amortized O(levels + elements of that key + elements
  // cascaded); O(1) while the front holds elements. It may move the least
  // key's elements into the front, which nothing observes. Throws
  // std::logic_error from a handler of increase_min_allowed_key.
  std::optional<elt> min_elt() {
    refuse_from_handler("min_elt");
    if (!early_.empty()) return handle(at(early_.begin()->second));
    if (front_head_ == nullptr) fill_front();
    if (front_head_ == nullptr) return std::nullopt;
    return handle(*front_head_);
  }

  // The least key held; none when empty. Exact. O(1) while the front or the
  // early map holds elements; otherwise the wheel's next_deadline(),
  // O(levels + elements in the earliest slot).
  std::optional<key_type> min_key() const noexcept {
    if (!early_.empty()) return early_.begin()->first;
    if (front_head_ != nullptr) return front_head_->key;
    return wheel_.next_deadline();
  }

  // Raises the minimum allowed key to `key`, first removing every element
  // whose key is below it, in (key, insertion) order, calling
  // handle_removed(elt, key, T&&) with each: its handle (already not a
  // member), its key, and its value as an rvalue, to keep or to drop. Does
  // nothing when `key` is not above min_allowed_key(). Returns how many it
  // removed. O(levels + removed + cascaded), whatever the keys skipped.
  // The handler may read the timing wheel but not change it: add, remove,
  // change_key, min_elt, clear and this member throw std::logic_error from
  // it, and min_allowed_key() reads the key of the element handed. Throws
  // std::logic_error when called from a handler, and what the handler
  // throws (basic: the element handed is gone, those not yet handed stay,
  // and min_allowed_key() is the key of the last one handed).
  template <class F>
  requires std::invocable<F&, elt, key_type, T&&> std::size_t increase_min_allowed_key(
      key_type key, F&& handle_removed) {
    refuse_from_handler("increase_min_allowed_key");
    if (key <= min_allowed_) return 0;
    running_ = true;
    const struct done {
      bool& running;
      ~done() { running = false; }
    } scope{running_};
    std::size_t removed = 0;
    // Early keys lie below the front's and the wheel's, in order in the map.
    while (!early_.empty() && early_.begin()->first < key) {
      node& n = at(early_.begin()->second);
      early_.erase(early_.begin());
      hand(n, handle_removed);
      ++removed;
    }
    if (wheel_.now() < key) {
      // The front's key is the wheel's time, below `key`; the elements of
      // that key still in the wheel were added after the front's.
      while (front_head_ != nullptr) {
        node& n = *front_head_;
        unlink_front(n);
        hand(n, handle_removed);
        ++removed;
      }
      removed += wheel_.advance(key - 1, [&](hook_type& h) { hand(owner(h), handle_removed); });
    }
    min_allowed_ = key;
    return removed;
  }

  // Removes every element, destroying the values; min_allowed_key() stays.
  // O(capacity). Throws std::logic_error, changing nothing, from a handler
  // of increase_min_allowed_key.
  void clear() {
    refuse_from_handler("clear");
    drop_all();
  }

  // Calls f(elt, key, const T&) for every element (Jane Street's iter), in
  // no promised order. f may not change the timing wheel. O(capacity).
  template <class F>
  requires std::invocable<F&, elt, key_type, const T&>
  void for_each(F&& f) const {
    for (const node& n : nodes_)
      if (n.where != place::idle) f(handle(n), n.key, *n.value);
  }

  // Checks the wheel's invariants and the places of the elements (see the
  // opening); throws std::logic_error naming the first one broken.
  // O(capacity + slots).
  void check_invariants() const {
    wheel_.check_invariants();
    const key_type w = wheel_.now();
    auto broken = [](const char* what) {
      throw std::logic_error(std::string("timerwheel: invariant broken: timing_wheel: ") + what);
    };
    if (min_allowed_ != 0 && w < min_allowed_ - 1) broken("the wheel's time is behind m - 1");
    std::size_t live = 0, in_wheel = 0, in_front = 0, in_early = 0;
    for (const node& n : nodes_) {
      if (n.where == place::idle) {
        if (n.value.has_value() || n.pending()) broken("an idle node holds a value or a timer");
        continue;
      }
      ++live;
      if (!n.value.has_value()) broken("an element without a value");
      if (n.key < min_allowed_) broken("a key below min_allowed_key");
      switch (n.where) {
        case place::wheel:
          ++in_wheel;
          if (!n.pending() || n.deadline() != n.key || n.key < w)
            broken("an element of the wheel is not pending at its key");
          break;
        case place::front:
          ++in_front;
          if (n.pending() || n.key != w) broken("a front element is not idle at the wheel's time");
          break;
        case place::early:
          ++in_early;
          if (n.pending() || n.key >= w || n.early_position->first != n.key ||
              n.early_position->second != n.index)
            broken("an early element is misplaced");
          break;
        case place::idle:
          break;
      }
    }
    if (live != live_) broken("the count of elements");
    if (in_wheel != wheel_.size()) broken("the wheel's size");
    if (in_early != early_.size()) broken("the early map's size");
    std::size_t walked = 0;
    const node* previous = nullptr;
    for (const node* n = front_head_; n != nullptr; n = n->next) {
      if (n->where != place::front || n->prev != previous || ++walked > in_front)
        broken("the front's links");
      previous = n;
    }
    if (walked != in_front || front_tail_ != previous) broken("the front's ends");
  }

 private:
  using hook_type = basic_timer_hook<key_type>;
  using early_map = std::multimap<key_type, std::uint32_t>;

  enum class place : unsigned char { idle, wheel, front, early };

  struct node : hook_type {
    std::optional<T> value;
    key_type key = 0;
    std::uint32_t index = 0;
    std::uint32_t generation = 1;  // never 0: no node matches elt{}
    place where = place::idle;
    node* prev = nullptr;  // the front's links
    node* next = nullptr;
    typename early_map::iterator early_position{};
  };

  static node& owner(hook_type& h) noexcept { return static_cast<node&>(h); }

  node& at(std::uint32_t index) noexcept { return nodes_[index]; }

  static elt handle(const node& n) noexcept { return {n.index, n.generation}; }

  node* find(elt e) noexcept {
    if (e.index >= nodes_.size()) return nullptr;
    node& n = nodes_[e.index];
    return n.generation == e.generation && n.where != place::idle ? &n : nullptr;
  }
  const node* find(elt e) const noexcept { return const_cast<timing_wheel*>(this)->find(e); }

  void check_key(key_type key, const char* what) const {
    if (key < min_allowed_)
      throw std::out_of_range(std::string("timerwheel: timing_wheel::") + what +
                              ": the key is below min_allowed_key()");
    if (key > max_allowed_key())
      throw std::out_of_range(std::string("timerwheel: timing_wheel::") + what +
                              ": the key is above max_allowed_key()");
  }

  void refuse_from_handler(const char* what) const {
    if (running_)
      throw std::logic_error(std::string("timerwheel: timing_wheel::") + what +
                             ": called from a handler of increase_min_allowed_key");
  }

  // An idle node, from the free list or new. Strong: throws std::bad_alloc
  // or std::length_error, changing nothing.
  node& acquire() {
    if (!free_.empty()) {
      node& n = at(free_.back());
      free_.pop_back();
      return n;
    }
    if (nodes_.size() >= std::numeric_limits<std::uint32_t>::max())
      throw std::length_error("timerwheel: timing_wheel: more than 2^32 - 1 elements");
    free_.reserve(nodes_.size() + 1);  // so that recycle() cannot throw
    node& n = nodes_.emplace_back();
    n.index = static_cast<std::uint32_t>(nodes_.size() - 1);
    return n;
  }

  // Makes every handle of an idle node stale and puts it on the free list.
  void recycle(node& n) noexcept {
    n.where = place::idle;
    if (++n.generation == 0) n.generation = 1;
    free_.push_back(n.index);  // never grows: reserved in acquire()
  }

  // Puts a node with a value where `key` belongs (see the opening). Strong:
  // throws std::bad_alloc (the early map), changing nothing.
  void place(node& n, key_type key) {
    if (key < wheel_.now()) {
      n.early_position = early_.emplace(key, n.index);
      n.key = key;
      n.where = place::early;
    } else {
      to_wheel(n, key);
    }
  }

  void to_wheel(node& n, key_type key) noexcept {
    n.key = key;
    n.where = place::wheel;
    wheel_.schedule(n, key);
  }

  // Takes a held node out of its place; it keeps its value.
  void detach(node& n) noexcept {
    switch (n.where) {
      case place::wheel:
        wheel_.cancel(n);
        break;
      case place::front:
        unlink_front(n);
        break;
      case place::early:
        early_.erase(n.early_position);
        break;
      case place::idle:
        break;
    }
    n.where = place::idle;
  }

  void unlink_front(node& n) noexcept {
    (n.prev != nullptr ? n.prev->next : front_head_) = n.next;
    (n.next != nullptr ? n.next->prev : front_tail_) = n.prev;
    n.prev = n.next = nullptr;
    n.where = place::idle;
  }

  void push_front_back(node& n) noexcept {
    n.prev = front_tail_;
    n.next = nullptr;
    (front_tail_ != nullptr ? front_tail_->next : front_head_) = &n;
    front_tail_ = &n;
    n.where = place::front;
  }

  // With the front and the early map empty: advances the wheel to its least
  // key in the pull form and takes that key's elements, in insertion order,
  // into the front. The advance is never behind: no key is below the
  // wheel's time.
  void fill_front() {
    const std::optional<key_type> least = wheel_.next_deadline();
    if (!least) return;
    wheel_.advance(*least);
    while (hook_type* h = wheel_.take_expired()) push_front_back(owner(*h));
  }

  // Hands a node taken out of its place to the handler, which sees it as
  // gone already, and recycles it when the handler returns or throws.
  template <class F>
  void hand(node& n, F& f) {
    n.where = place::idle;
    --live_;
    min_allowed_ = n.key;  // what min_allowed_key() reads while f runs
    const struct release {
      timing_wheel& self;
      node& n;
      ~release() {
        n.value.reset();
        self.recycle(n);
      }
    } scope{*this, n};
    f(handle(n), n.key, std::move(*n.value));
  }

  // Drops every element: the wheel first, which unlinks its hooks.
  void drop_all() noexcept {
    wheel_.clear();
    early_.clear();
    front_head_ = front_tail_ = nullptr;
    for (node& n : nodes_) {
      if (n.where == place::idle) continue;
      n.prev = n.next = nullptr;
      n.value.reset();
      recycle(n);
    }
    live_ = 0;
  }

  key_type min_allowed_;
  std::size_t live_ = 0;
  bool running_ = false;  // inside increase_min_allowed_key's handler
  node* front_head_ = nullptr;
  node* front_tail_ = nullptr;
  // Declared before the wheel: the wheel unlinks its hooks, which live in
  // these nodes, before the nodes are freed. A deque never moves them.
  std::deque<node> nodes_;
  std::vector<std::uint32_t> free_;
  early_map early_;
  wheel<Config> wheel_;
};

}  // namespace timerwheel::inline TIMERWHEEL_ABI
