// timerwheel: the whole library.
#pragma once

#include "aging_queue.hpp"   // IWYU pragma: export
#include "clock.hpp"         // IWYU pragma: export
#include "concepts.hpp"      // IWYU pragma: export
#include "levels.hpp"        // IWYU pragma: export
#include "timer_hook.hpp"    // IWYU pragma: export
#include "timer_queue.hpp"   // IWYU pragma: export
#include "timers.hpp"        // IWYU pragma: export
#include "timing_wheel.hpp"  // IWYU pragma: export
#include "wheel.hpp"         // IWYU pragma: export
