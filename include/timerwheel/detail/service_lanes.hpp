// The lanes a timer_service's messages travel on: a few lock-free queues
// (mpsc_queue.hpp), each thread pushing onto its own lane, one consumer
// taking from them in turn.
//
// One queue would do, but for two things that only show under load. A
// producer preempted between the two steps of its push (a time slice, a
// millisecond and more where busy threads outnumber the cores) leaves the
// queue busy: nothing behind its node can be taken until it runs again,
// and the worker waits with every submission after it. With lanes only
// that producer's lane waits; the worker takes from the others. And
// producers on different lanes do not contend for one head.
//
// Order: a lane is FIFO, so the messages of one thread reach the consumer
// in the order they were pushed; those of different threads in no promised
// order. The consumer stays on a lane while it yields nodes, for at most
// `burst` of them, then moves on: no lane waits behind a busy one for long.
//
// Shutdown closes each lane with a stop node of its own: whatever a lane
// holds before its stop node is taken, whatever comes after is not.
#pragma once

#include <array>
#include <cstdint>

#include "abi.hpp"
#include "mpsc_queue.hpp"
#include "service_pool.hpp"  // service_thread_number

namespace timerwheel::inline TIMERWHEEL_ABI {
namespace detail {

class service_lanes {
 public:
  static constexpr unsigned count = 8;
  static constexpr unsigned burst = 32;

  // Any thread: onto the calling thread's lane. As mpsc_queue::push.
  void push(mpsc_node& n) noexcept { lanes_[service_thread_number() % count].push(n); }
  // Any thread: onto lane `lane` (a stop node).
  void push_to(unsigned lane, mpsc_node& n) noexcept { lanes_[lane].push(n); }

  // The consumer: the next node of the open lanes, taken in turn, and the
  // lane it came from; empty when every open lane is empty; busy when none
  // gave a node and one of them is busy (a push half done).
  pop_status pop(mpsc_node*& out, unsigned& lane) noexcept {
    bool busy = false;
    for (unsigned k = 0; k < count; ++k) {
      const unsigned i = cursor_;
      if (open(i)) {
        const pop_status s = lanes_[i].pop(out);
        if (s == pop_status::item) {
          if (++taken_here_ == burst) next_lane();
          lane = i;
          return s;
        }
        busy = busy || s == pop_status::busy;
      }
      next_lane();
    }
    return busy ? pop_status::busy : pop_status::empty;
  }

  // The consumer: lane `lane` gave its stop node; nothing more is taken
  // from it. Returns whether every lane is closed now.
  bool close(unsigned lane) noexcept {
    closed_ |= 1u << lane;
    return closed_ == all;
  }

  // The consumer: whether an open lane has a node to give now (a node
  // linked behind its tail).
  bool ready() const noexcept {
    for (unsigned i = 0; i < count; ++i)
      if (open(i) && lanes_[i].ready()) return true;
    return false;
  }

  // The consumer: whether every open lane is empty. Sequentially
  // consistent, as mpsc_queue::empty.
  bool empty() const noexcept {
    for (unsigned i = 0; i < count; ++i)
      if (open(i) && !lanes_[i].empty()) return false;
    return true;
  }

  // The consumer, once no producer pushes any more: hands every node left
  // on any lane, open or closed, to f(mpsc_node&).
  template <class F>
  void take_rest(F&& f) {
    for (auto& lane : lanes_) {
      mpsc_node* node = nullptr;
      while (lane.pop(node) == pop_status::item) f(*node);
    }
  }

 private:
  static constexpr std::uint32_t all = (1u << count) - 1;

  bool open(unsigned lane) const noexcept { return (closed_ >> lane & 1) == 0; }

  void next_lane() noexcept {
    cursor_ = (cursor_ + 1) % count;
    taken_here_ = 0;
  }

  std::array<mpsc_queue, count> lanes_;
  // The consumer's.
  unsigned cursor_ = 0;
  unsigned taken_here_ = 0;
  std::uint32_t closed_ = 0;
};

}  // namespace detail
}  // namespace timerwheel::inline TIMERWHEEL_ABI
