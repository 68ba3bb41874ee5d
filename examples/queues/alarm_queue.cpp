// An alarm queue on timing_wheel, Jane Street's Timing_wheel as a priority
// queue: keys are times in microseconds, min_allowed_key() is now, and
// raising it fires the alarms whose time has come, in exact time order
// (Jane Street's wheel fires the alarms of one interval of alarm_precision
// in insertion order; here 10 fires before 1000 even when added after it).
#include <timerwheel/timing_wheel.hpp>

#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

int main() {
  timerwheel::timing_wheel<std::string> alarms;  // now (min_allowed_key) is 0
  const auto heartbeat = alarms.add(1000, "heartbeat");
  alarms.add(10, "flush");  // earlier, though added later
  const auto retry = alarms.add(500, "retry");
  const auto lease = alarms.add(2500, "lease expiry");
  alarms.add(1000, "stats");  // same time as heartbeat: after it

  alarms.change_key(retry, 1500);  // Jane Street's reschedule
  alarms.remove(lease);            // cancelled before it fires

  // The next alarm, exactly: what a loop sleeps until.
  std::printf("next alarm at %llu us: %s\n", static_cast<unsigned long long>(*alarms.min_key()),
              alarms.value(*alarms.min_elt())->c_str());

  std::vector<std::pair<std::uint64_t, std::string>> fired;
  auto fire = [&](timerwheel::timing_wheel<std::string>::elt, std::uint64_t at,
                  std::string&& what) {
    std::printf("  %5llu us  %s\n", static_cast<unsigned long long>(at), what.c_str());
    fired.emplace_back(at, std::move(what));
  };
  // The clock reads 1200 us: every alarm before 1201 fires, in time order.
  alarms.increase_min_allowed_key(1201, fire);
  const bool heartbeat_gone = !alarms.mem(heartbeat);  // its handle is stale, and safe
  // Then 5000 us.
  alarms.increase_min_allowed_key(5001, fire);

  const std::vector<std::pair<std::uint64_t, std::string>> expected{
      {10, "flush"}, {1000, "heartbeat"}, {1000, "stats"}, {1500, "retry"}};
  bool refused = false;
  try {
    alarms.add(4000, "in the past");  // below min_allowed_key: refused
  } catch (const std::out_of_range& e) {
    refused = true;
    std::printf("refused: %s\n", e.what());
  }
  return fired == expected && heartbeat_gone && refused && alarms.is_empty() ? 0 : 1;
}
