// An intrusive multi-producer single-consumer queue (Vyukov's design): any
// thread pushes with one atomic exchange and one store, no lock and no
// allocation; one thread pops. timer_service's submissions travel on it.
//
// Producers exchange the head and then link the node they replaced to the new
// one. Between those two steps the chain is briefly broken: the consumer then
// sees the queue as busy (pop_status::busy) rather than empty, and tries
// again a moment later. A node may be pushed again only after it was popped.
#pragma once

#include <atomic>
#include <cstdint>

#include "abi.hpp"

namespace timerwheel::inline TIMERWHEEL_ABI {
namespace detail {

// Embed in whatever travels on the queue; `kind` lets the consumer tell
// apart several nodes embedded in one object.
struct mpsc_node {
  std::atomic<mpsc_node*> next{nullptr};
  std::uint8_t kind = 0;
};

enum class pop_status { item, empty, busy };

class mpsc_queue {
 public:
  mpsc_queue() noexcept : head_(&stub_), tail_(&stub_) {}
  mpsc_queue(const mpsc_queue&) = delete;
  mpsc_queue& operator=(const mpsc_queue&) = delete;

  // Any thread. O(1), wait-free: one exchange on the head, one store. The
  // exchange is sequentially consistent: a producer that then reads a word
  // the consumer wrote before checking empty() (the worker's sleep target)
  // either sees it or has its node seen.
  void push(mpsc_node& n) noexcept {
    n.next.store(nullptr, std::memory_order_relaxed);
    mpsc_node* prev = head_.exchange(&n, std::memory_order_seq_cst);
    prev->next.store(&n, std::memory_order_release);
  }

  // The consumer only. Takes the oldest node into `out` (pop_status::item),
  // or says the queue is empty, or busy: a producer is between its two steps
  // and the node behind it cannot be reached yet.
  pop_status pop(mpsc_node*& out) noexcept {
    mpsc_node* tail = tail_;
    mpsc_node* next = tail->next.load(std::memory_order_acquire);
    if (tail == &stub_) {
      if (next == nullptr) return empty() ? pop_status::empty : pop_status::busy;
      tail_ = next;
      tail = next;
      next = next->next.load(std::memory_order_acquire);
    }
    if (next != nullptr) {
      tail_ = next;
      out = tail;
      return pop_status::item;
    }
    if (tail != head_.load(std::memory_order_acquire)) return pop_status::busy;
    // `tail` is the last node: put the stub behind it so that it can leave.
    push(stub_);
    next = tail->next.load(std::memory_order_acquire);
    if (next != nullptr) {
      tail_ = next;
      out = tail;
      return pop_status::item;
    }
    return pop_status::busy;
  }

  // The consumer only: whether pop() would give a node now rather than
  // say busy or empty (its tests, without its moves).
  bool ready() const noexcept {
    const mpsc_node* tail = tail_;
    const mpsc_node* next = tail->next.load(std::memory_order_acquire);
    if (tail == &stub_) {
      if (next == nullptr) return false;
      tail = next;
      next = next->next.load(std::memory_order_acquire);
    }
    return next != nullptr || tail == head_.load(std::memory_order_acquire);
  }

  // The consumer only: whether no node has been pushed since the last one
  // popped. Sequentially consistent (see push).
  bool empty() const noexcept {
    // tail_ is the next node to hand out unless it is the stub; the stub
    // alone, first and last, is an empty queue.
    return tail_ == &stub_ && head_.load(std::memory_order_seq_cst) == &stub_;
  }

 private:
  alignas(64) std::atomic<mpsc_node*> head_;  // producers' end
  alignas(64) mpsc_node* tail_;               // the consumer's end
  mpsc_node stub_;
};

}  // namespace detail
}  // namespace timerwheel::inline TIMERWHEEL_ABI
