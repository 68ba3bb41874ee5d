// timerwheel::reference: the seven timer schemes of Varghese & Lauck
// ("Hashed and Hierarchical Timing Wheels", SOSP 1987 / IEEE ToN 1997) behind
// the contract of timerwheel::wheel, for tests and benchmarks.
//
//   scheme | structure                  | START    | STOP     | PER_TICK
//   -------+----------------------------+----------+----------+-------------
//     1    | unordered_list             | O(1)     | O(1)     | O(n)
//     2    | ordered_list               | O(n)     | O(1)     | O(1)
//     3    | binary_heap                | O(log n) | O(log n) | O(1)
//     4    | basic_wheel                | O(1)     | O(1)     | O(1)
//     5    | hashed_wheel_sorted        | O(1) avg | O(1)     | O(1)
//     6    | hashed_wheel_unordered     | O(1)     | O(1)     | O(n/TableSize)
//     7    | hierarchical_arrays        | O(m)     | O(1)     | O(1) avg
//
// Beside them, the event lists that simulators use, under the same contract
// (amortized costs; the dequeue stands for PER_TICK_BOOKKEEPING):
//
//   calendar_queue  (Brown, CACM 1988)                O(1) avg  O(1)  O(1) avg
//   ladder_queue    (Tang, Goh, Thng, TOMACS 2005)    O(1) am.  O(1)  O(1) am.
//
// Each is a class template over the tick type (std::uint64_t by default)
// with the members of wheel and `hook_type` = reference::basic_hook<Tick>.
#pragma once

#include "reference/basic_wheel.hpp"             // IWYU pragma: export
#include "reference/binary_heap.hpp"             // IWYU pragma: export
#include "reference/calendar_queue.hpp"          // IWYU pragma: export
#include "reference/hashed_wheel_sorted.hpp"     // IWYU pragma: export
#include "reference/hashed_wheel_unordered.hpp"  // IWYU pragma: export
#include "reference/hierarchical_arrays.hpp"     // IWYU pragma: export
#include "reference/hook.hpp"                    // IWYU pragma: export
#include "reference/ladder_queue.hpp"            // IWYU pragma: export
#include "reference/ordered_list.hpp"            // IWYU pragma: export
#include "reference/unordered_list.hpp"          // IWYU pragma: export
