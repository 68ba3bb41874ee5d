// timerwheel: the whole library. The reference schemes and event lists have
// an umbrella of their own, <timerwheel/reference.hpp>; the epoll loop and
// the timerfd driver are included on Linux only.
#pragma once

#include "aging_queue.hpp"    // IWYU pragma: export
#include "clock.hpp"          // IWYU pragma: export
#include "concepts.hpp"       // IWYU pragma: export
#include "des.hpp"            // IWYU pragma: export
#include "levels.hpp"         // IWYU pragma: export
#include "timer_hook.hpp"     // IWYU pragma: export
#include "timer_queue.hpp"    // IWYU pragma: export
#include "timer_service.hpp"  // IWYU pragma: export
#include "timers.hpp"         // IWYU pragma: export
#include "timing_wheel.hpp"   // IWYU pragma: export
#include "wheel.hpp"          // IWYU pragma: export

#if defined(__linux__)
#include "event_loop.hpp"      // IWYU pragma: export
#include "timerfd_driver.hpp"  // IWYU pragma: export
#endif
