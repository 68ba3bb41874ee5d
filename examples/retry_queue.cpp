// Retries with payloads: timer_queue owns a value per timer and names timers
// by ids that go stale when they fire or are cancelled. Shows the pull form.
#include <timerwheel/timer_queue.hpp>

#include <cstdio>
#include <string>
#include <utility>

int main() {
  timerwheel::timer_queue<std::string> retries;
  const timerwheel::timer_id a = retries.schedule(100, "GET /a");
  const timerwheel::timer_id b = retries.schedule(100, "GET /b");
  const timerwheel::timer_id c = retries.schedule(250, "GET /c");

  retries.cancel(b);                      // the response came: drop the retry
  const bool stale = !retries.cancel(b);  // a second cancel is refused

  // Deadlines are flexible within [200, 300]: pick the cheapest tick.
  const timerwheel::timer_id d = retries.schedule_in_range(200, 300, "GET /d");
  const bool cheapest = retries.deadline(d) == 256U;  // the most trailing zero bits

  // Pull form: queue what is due by 260, then take the timers one by one.
  const std::size_t due = retries.advance(260);
  int taken = 0;
  while (auto expired = retries.take_expired()) {
    std::printf("retry %s\n", expired->second.c_str());
    ++taken;
  }
  std::printf("%zu due, %d taken, %zu pending, id a stale: %s\n", due, taken, retries.size(),
              retries.pending(a) ? "no" : "yes");
  const bool all_stale = !retries.pending(a) && !retries.pending(c) && !retries.pending(d);

  // Callback form: the value comes as an rvalue, to keep or to drop.
  const timerwheel::timer_id e = retries.schedule(400, "GET /e");
  std::string last;
  const std::size_t fired =
      retries.advance(500, [&](timerwheel::timer_id id, std::string&& request) {
        std::printf("retry %s at %llu\n", request.c_str(),
                    static_cast<unsigned long long>(retries.now()));
        if (id == e) last = std::move(request);
      });
  const bool pulled = stale && cheapest && due == 3 && taken == 3 && all_stale;
  return pulled && fired == 1 && last == "GET /e" && retries.empty() ? 0 : 1;
}
