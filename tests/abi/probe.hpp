// One probe of the library, compiled twice into one program: once with the
// hook checks (TIMERWHEEL_CHECKED=1, as without NDEBUG) and once without
// (TIMERWHEEL_CHECKED=0, as with NDEBUG). PROBE names each copy's functions;
// abi_test.cpp includes this once for each.

#include <string>

namespace timerwheel_test::PROBE {

// The name of timer_hook's type in this translation unit.
std::string hook_type_name();

// The name of wheel<>'s type in this translation unit.
std::string wheel_type_name();

// Schedules a hook, copies it while it is pending, cancels it, and returns
// whether the copy came out idle. With the checks on, the copy aborts.
bool copy_a_pending_hook();

// Fires three timers in order through wheel<> and timer_queue; returns how
// many fired in order.
int fire_three();

}  // namespace timerwheel_test::PROBE
