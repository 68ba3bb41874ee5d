// Built twice, with TIMERWHEEL_CHECKED=1 and =0 and PROBE naming the copy
// (see probe.hpp and CMakeLists.txt).
#include "probe.hpp"

#include <timerwheel/timer_queue.hpp>
#include <timerwheel/wheel.hpp>

#include <typeinfo>

namespace timerwheel_test::PROBE {

std::string hook_type_name() { return typeid(timerwheel::timer_hook).name(); }

std::string wheel_type_name() { return typeid(timerwheel::wheel<>).name(); }

bool copy_a_pending_hook() {
  timerwheel::wheel<> wheel;
  timerwheel::timer_hook hook;
  wheel.schedule(hook, 10);
  const timerwheel::timer_hook copy(hook);  // aborts where the checks are on
  wheel.cancel(hook);
  return !copy.pending();
}

int fire_three() {
  timerwheel::wheel<> wheel;
  timerwheel::timer_hook hooks[3];
  for (int i = 0; i < 3; ++i) wheel.schedule(hooks[i], static_cast<std::uint64_t>(30 - 10 * i));
  int in_order = 0;
  timerwheel::timer_hook* expected = &hooks[2];
  wheel.advance(100, [&](timerwheel::timer_hook& h) {
    if (&h == expected) ++in_order;
    --expected;
  });
  timerwheel::timer_queue<int> queue;
  for (int i = 0; i < 3; ++i) (void)queue.schedule(static_cast<std::uint64_t>(i + 1), i);
  queue.advance(10, [&](timerwheel::timer_id, int&&) {});
  return queue.empty() ? in_order : -1;
}

}  // namespace timerwheel_test::PROBE
