// W4 memory: bytes per pending timer at N timers, structure included: what the structure holds
// from operator new once N timers are scheduled (uniform [1, R]; the nodes themselves left out)
// plus its own object, divided by N, plus what it keeps inside each timer's object (the hook).
#pragma once

#include <timerwheel/timer_queue.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../alloc_count.hpp"
#include "check.hpp"

namespace timerwheel_bench {

struct memory_result {
  double bytes_per_timer = 0;
  // The structure's own bytes (fixed ones included), per timer.
  double structure_bytes_per_timer = 0;
  // What the structure keeps whatever its timers: its object.
  std::size_t fixed_bytes = 0;
  std::size_t hook_bytes = 0;
  std::string error;
};

template <structure_adapter A>
memory_result run_w4(const std::vector<std::uint64_t>& deadlines) {
  const std::size_t n = deadlines.size();
  using nodes = std::vector<typename A::node>;
  // What the timers' own objects take from the allocator, the rounding of one large block
  // included, measured on a vector like the adapter's: not the structure's.
  std::ptrdiff_t object_bytes = live_heap_bytes();
  {
    const nodes probe(n);
    object_bytes = live_heap_bytes() - object_bytes;
  }
  const std::ptrdiff_t before = live_heap_bytes();
  memory_result m;
  {
    A a(n);
    for (std::uint32_t i = 0; i < n; ++i) a.schedule(i, deadlines[i]);
    // The structure's object (a wheel's slots and bitmaps) counts too: the adapter less its
    // vector of nodes.
    m.fixed_bytes = sizeof(A) - sizeof(nodes);
    const std::ptrdiff_t held =
        live_heap_bytes() - before - object_bytes + static_cast<std::ptrdiff_t>(m.fixed_bytes);
    if (a.size() != n) m.error = "size " + std::to_string(a.size()) + " after scheduling; ";
    m.structure_bytes_per_timer = static_cast<double>(held) / static_cast<double>(n);
    m.hook_bytes = A::hook_bytes;
    m.bytes_per_timer = m.structure_bytes_per_timer + static_cast<double>(A::hook_bytes);
  }
  return m;
}

// The owning queue: everything it allocates (pool, generations, the queue object itself), per
// pending timer of a timer_queue<void*>.
inline memory_result run_w4_timer_queue(const std::vector<std::uint64_t>& deadlines) {
  const std::size_t n = deadlines.size();
  const std::ptrdiff_t before = live_heap_bytes();
  memory_result m;
  {
    auto q = std::make_unique<timerwheel::timer_queue<void*>>();
    for (const std::uint64_t d : deadlines) (void)q->schedule(d, nullptr);
    if (q->size() != n) m.error = "size " + std::to_string(q->size()) + " after scheduling; ";
    m.bytes_per_timer = static_cast<double>(live_heap_bytes() - before) / static_cast<double>(n);
    m.structure_bytes_per_timer = m.bytes_per_timer;
  }
  return m;
}

}  // namespace timerwheel_bench
