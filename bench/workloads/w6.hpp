// W6 hold, the classic event-list benchmark: keep N events; repeatedly take the earliest (the
// wheel's advance_to_next(); elsewhere its time t from next_deadline(), fired by advance(t)) and
// insert it again at t plus an increment.
// Increments (ticks, at least 1): exponential with mean 1000; uniform [1, 2000]; bimodal: 95%
// uniform [1, 100], 5% uniform [1, 18000] (mean ~500, a tail 180 times the common case).
// Events of equal time fire together, in FIFO order, each a hold. The figure: ns per hold.
#pragma once

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "check.hpp"
#include "rng.hpp"

namespace timerwheel_bench {

enum class w6_dist { exponential, uniform, bimodal };

inline const char* w6_dist_name(w6_dist d) {
  switch (d) {
    case w6_dist::exponential:
      return "exp";
    case w6_dist::uniform:
      return "unif";
    case w6_dist::bimodal:
      return "bimodal";
  }
  return "?";
}

struct w6_params {
  std::size_t timers;
  w6_dist dist;
  std::size_t holds;       // timed
  std::size_t warm_holds;  // before timing
};

struct w6_sequence {
  w6_params params;
  std::vector<std::uint32_t> initial;    // event i starts at initial[i]
  std::vector<std::uint32_t> increment;  // cyclic, power-of-two length
};

inline std::uint32_t w6_draw(xoshiro256ss& rng, w6_dist d) {
  switch (d) {
    case w6_dist::exponential: {
      const double u = (static_cast<double>(rng() >> 11) + 0.5) * 0x1p-53;
      const double x = std::ceil(-1000.0 * std::log(u));
      return static_cast<std::uint32_t>(std::clamp(x, 1.0, 1e6));
    }
    case w6_dist::uniform:
      return static_cast<std::uint32_t>(rng.uniform(1, 2000));
    case w6_dist::bimodal:
      return static_cast<std::uint32_t>(rng.uniform(0, 99) < 95 ? rng.uniform(1, 100)
                                                                : rng.uniform(1, 18000));
  }
  return 1;
}

inline w6_sequence make_w6_sequence(const w6_params& p, std::uint64_t seed) {
  xoshiro256ss rng(seed);
  w6_sequence s;
  s.params = p;
  s.initial.resize(p.timers);
  for (auto& t : s.initial) t = w6_draw(rng, p.dist);
  s.increment.resize(1u << 20);
  for (auto& t : s.increment) t = w6_draw(rng, p.dist);
  return s;
}

template <structure_adapter A>
run_result run_w6(const w6_sequence& s) {
  const w6_params& p = s.params;
  A a(p.timers);
  for (std::uint32_t i = 0; i < p.timers; ++i) a.schedule(i, s.initial[i]);
  fire_checker check;
  std::size_t k = 0;
  std::vector<std::uint32_t> fired;
  fired.reserve(1024);
  const std::size_t mask = s.increment.size() - 1;
  auto holds = [&](std::size_t count) {
    const std::size_t end = check.fired + count;
    while (check.fired < end) {
      fired.clear();
      std::uint64_t t = 0;
      const auto fire = [&](std::uint32_t i) {
        check.on_fire(a.payload(i), i, t);
        fired.push_back(i);
      };
      if constexpr (requires { a.advance_to_next([](std::uint32_t) {}); }) {
        // The wheel pops the earliest deadline without looking for it first.
        a.advance_to_next([&](std::uint32_t i) {
          t = a.now();
          fire(i);
        });
      } else {
        t = *a.next_deadline();
        a.advance(t, fire);
      }
      for (const std::uint32_t i : fired) a.schedule(i, t + s.increment[k++ & mask]);
    }
  };
  holds(p.warm_holds);
  const std::uint64_t before = check.fired;
  const auto t0 = region_clock::now();
  holds(p.holds);
  const auto t1 = region_clock::now();
  run_result r;
  r.seconds = std::chrono::duration<double>(t1 - t0).count();
  r.ops = check.fired - before;
  r.fired = check.fired;
  r.checksum = check.checksum;
  r.error = check.error();
  if (fired.empty()) r.error += "no event fired; ";
  if (a.size() != p.timers) r.error += "size " + std::to_string(a.size()) + " after run; ";
  try {
    a.check_invariants();
  } catch (const std::exception& ex) {
    r.error += std::string("check_invariants: ") + ex.what() + "; ";
  }
  return r;
}

}  // namespace timerwheel_bench
