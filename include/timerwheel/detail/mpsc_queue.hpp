// An intrusive multi-producer single-consumer queue: any thread pushes with
// one compare-and-swap on the head (a Treiber stack), no lock and no
// allocation; one thread pops, taking everything pushed so far with one
// exchange and reversing it into a private chain that it then hands out
// oldest first. timer_service's submissions travel on it.
//
// The reversal of a long batch (thousands of nodes, a cache miss each) is
// done a bounded number of nodes per pop: a pop that has not finished it
// says so (pop_status::ordering), so that the consumer can turn to other
// work (a timer_service's worker fires its due timers) and come back.
//
// Why not a queue whose producers exchange the head and then link the node
// they replaced (Vyukov's): between those two steps the chain is broken, and
// a producer preempted there holds up everything pushed after it until it
// runs again. On a machine with more runnable threads than cores that is a
// whole time slice (milliseconds) during which the consumer cannot take a
// single message, and a timer_service's worker was found waiting on it for
// a large share of its time (docs/perf/2026-11-26-timer-service.md). Here a
// node is linked before the CAS publishes it: a preempted producer delays
// only its own node, never the consumer.
//
// Order: the consumer hands nodes out in the order their pushes took effect
// (FIFO; one thread's pushes in program order). A node may be pushed again
// only after it was popped.
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

// item: a node was taken. empty: nothing is left. ordering: a batch is
// being put in order; nothing can be handed out until it is (call again).
enum class pop_status { item, empty, ordering };

class mpsc_queue {
 public:
  mpsc_queue() noexcept = default;
  mpsc_queue(const mpsc_queue&) = delete;
  mpsc_queue& operator=(const mpsc_queue&) = delete;

  // Any thread. O(1), lock-free: one CAS on the head, retried only when
  // another push (or the consumer's take) came between the read and the
  // CAS. The CAS is sequentially consistent: a producer that then reads a
  // word the consumer wrote before checking empty() (the worker's sleep
  // target) either sees it or has its node seen.
  void push(mpsc_node& n) noexcept {
    mpsc_node* head = head_.load(std::memory_order_relaxed);
    do {
      n.next.store(head, std::memory_order_relaxed);
    } while (!head_.compare_exchange_weak(head, &n, std::memory_order_seq_cst,
                                          std::memory_order_relaxed));
  }

  // Nodes a pop puts in order at most before it returns ordering.
  static constexpr int order_budget = 256;

  // The consumer only. Takes the oldest node into `out` (pop_status::item),
  // or says the queue is empty, or that a batch is half in order (ordering:
  // call again). O(1) amortized, at most order_budget steps a call: each
  // node is visited once when its batch is put in order and once when
  // handed out. The node's link is read before it is handed out, so the
  // caller may push it again at once.
  pop_status pop(mpsc_node*& out) noexcept {
    if (taken_ == nullptr) {
      if (rest_ == nullptr) {
        rest_ = head_.exchange(nullptr, std::memory_order_acquire);
        if (rest_ == nullptr) return pop_status::empty;
      }
      // Newest first on the stack: reverse into oldest first, onto what
      // earlier calls reversed of the same batch.
      for (int i = 0; rest_ != nullptr; ++i) {
        if (i == order_budget) return pop_status::ordering;
        mpsc_node* older = rest_->next.load(std::memory_order_relaxed);
        rest_->next.store(ordered_, std::memory_order_relaxed);
        ordered_ = rest_;
        rest_ = older;
      }
      taken_ = ordered_;
      ordered_ = nullptr;
    }
    out = taken_;
    taken_ = taken_->next.load(std::memory_order_relaxed);
    return pop_status::item;
  }

  // The consumer only: whether no node is left to pop, taken or pushed.
  // Sequentially consistent (see push).
  bool empty() const noexcept {
    return taken_ == nullptr && rest_ == nullptr &&
           head_.load(std::memory_order_seq_cst) == nullptr;
  }

 private:
  alignas(64) std::atomic<mpsc_node*> head_{nullptr};  // producers' end: the newest
  // The consumer's: the batch in order (oldest first), and the one being
  // put in order: its part still newest first, and its part reversed.
  alignas(64) mpsc_node* taken_ = nullptr;
  mpsc_node* rest_ = nullptr;
  mpsc_node* ordered_ = nullptr;
};

}  // namespace detail
}  // namespace timerwheel::inline TIMERWHEEL_ABI
