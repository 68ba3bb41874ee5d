// Every public member of the wheel, in a configuration of each kind, built
// at -O2 without sanitizers (tests/headers/CMakeLists.txt): some of the
// compilers' warnings (GCC's -Wnull-dereference among them) come only from
// the flow analysis of a plain optimised build, which the tests' Debug and
// sanitized builds do not run. The functions are not called; they need only
// compile. A configuration of two 8-bit levels written by hand made GCC warn
// of a null dereference in the walk from the front, which it has none of.
#include <timerwheel/wheel.hpp>

#include <array>
#include <cstdint>

namespace {

// A configuration written by hand, as a user may: two levels of 8 bits (a
// far list, and no walk from the front).
struct own_config {
  using tick_type = std::uint64_t;
  static constexpr unsigned count = 2;
  static constexpr std::array<unsigned, count> bits{8, 8};
};

template <class Config>
void use_every_member() {
  using wheel = timerwheel::wheel<Config>;
  using hook = typename wheel::hook_type;
  wheel w;
  hook a;
  hook b;
  const auto fire = [](hook&) {};
  w.schedule(a, 5);
  w.schedule_in_range(b, 10, 4000);
  w.cancel(a);
  w.advance(100, fire);
  w.advance(200);
  while (w.take_expired() != nullptr) {
  }
  w.advance_to_next(fire);
  (void)w.next_deadline();
  (void)w.time_until_next();
  (void)w.size();
  (void)w.empty();
  w.for_each_pending([](const hook&) {});
  w.expire_all(fire);
  w.check_invariants();
  w.clear();
}

}  // namespace

// Referenced, so that the instantiations are compiled and analysed.
void timerwheel_optimised_wheels() {
  use_every_member<timerwheel::default_config>();
  use_every_member<timerwheel::counted<timerwheel::default_config>>();
  use_every_member<own_config>();
  use_every_member<timerwheel::counted<own_config>>();
  // Ticks that wrap.
  use_every_member<timerwheel::levels<std::uint32_t, 8, 8, 8, 8>>();
}
