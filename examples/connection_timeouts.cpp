// Idle timeouts for connections: the intrusive wheel, with a hook embedded in
// each connection, rescheduled on activity and fired in exact order.
#include <timerwheel/wheel.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

struct connection {
  int fd = -1;
  timerwheel::timer_hook idle_timer;  // 24 bytes; no allocation per timer
};

constexpr std::uint64_t idle_ticks = 30'000;  // one tick is one millisecond here

}  // namespace

int main() {
  timerwheel::wheel<> wheel;  // now() == 0
  std::vector<connection> connections(4);
  for (int i = 0; i < 4; ++i) {
    connections[i].fd = 10 + i;
    wheel.schedule(connections[i].idle_timer, wheel.now() + idle_ticks);
  }

  // Activity on fd 11 at t = 20 s pushes its timeout back (a reschedule).
  wheel.advance(20'000, [](timerwheel::timer_hook&) {});
  wheel.schedule(connections[1].idle_timer, wheel.now() + idle_ticks);

  // fd 13 closes cleanly: cancel its timer.
  wheel.cancel(connections[3].idle_timer);

  // The poller sleeps exactly until the next deadline.
  std::printf("sleep %llu ms\n", static_cast<unsigned long long>(wheel.time_until_next()));

  // One advance, however long the sleep, fires everything due, in order.
  // While a callback runs, now() is that timer's deadline.
  std::vector<int> closed;
  const auto fired = wheel.advance(60'000, [&](timerwheel::timer_hook& hook) {
    // From the hook to the connection that embeds it: no search.
    const connection& c = timerwheel::owner_of<&connection::idle_timer>(hook);
    std::printf("closing idle fd %d at t = %llu ms\n", c.fd,
                static_cast<unsigned long long>(wheel.now()));
    closed.push_back(c.fd);
  });
  std::printf("%zu timers fired, %zu pending\n", fired, wheel.size());
  // fd 10 and 12 at 30 s (FIFO), fd 11 at 50 s.
  return fired == 3 && closed == std::vector<int>{10, 12, 11} && wheel.empty() ? 0 : 1;
}
