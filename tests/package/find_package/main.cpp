// Package test consumer: schedule one timer, advance past it, and succeed
// only if it fired exactly once.
#include <timerwheel/timerwheel.hpp>

#include <cstddef>
#include <cstdio>

int main() {
  timerwheel::timer_hook hook;
  timerwheel::wheel<> wheel;

  wheel.schedule(hook, 10);

  std::size_t callbacks = 0;
  std::size_t wrong_hook = 0;
  auto on_expire = [&](timerwheel::timer_hook& h) {
    ++callbacks;
    if (&h != &hook) ++wrong_hook;
  };

  const std::size_t fired = wheel.advance(10, on_expire);
  const std::size_t fired_later = wheel.advance(100, on_expire);  // must not fire again

  if (fired != 1 || fired_later != 0 || callbacks != 1 || wrong_hook != 0) {
    std::fprintf(stderr, "timer fired %zu+%zu times (callbacks=%zu, wrong hook=%zu); expected 1\n",
                 fired, fired_later, callbacks, wrong_hook);
    return 1;
  }
  std::puts("timerwheel package consumer: OK");
  return 0;
}
