// W6 hold, the classic event-list benchmark: keep N events; repeatedly take the earliest (the
// wheel's advance_to_next(); elsewhere its time t from next_deadline(), fired by advance(t)) and
// insert it again at t plus an increment.
// Increments (ticks, at least 1): exponential with mean 1000; uniform [1, 2000]; bimodal: 95%
// uniform [1, 100], 5% uniform [1, 18000] (mean ~500, a tail 180 times the common case);
// triangular on [1, 1999] with its mode at 1000 (the sum of two uniforms); and a trace: the
// delays of the events that the packet-link model of examples/des schedules (retransmission
// timers of 50,000 ticks, most of them cancelled in the model, one-way delays of 10,000 to
// 20,000, exponential think times of mean 20,000), replayed in the order it recorded them,
// since the hold model with drawn increments is known to mispredict real simulators.
// Events of equal time fire together, in FIFO order, each a hold. The figure: ns per hold.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../../examples/des/packet_link.hpp"
#include "check.hpp"
#include "rng.hpp"

namespace timerwheel_bench {

enum class w6_dist { exponential, uniform, bimodal, triangular, trace };

inline const char* w6_dist_name(w6_dist d) {
  switch (d) {
    case w6_dist::exponential:
      return "exp";
    case w6_dist::uniform:
      return "unif";
    case w6_dist::bimodal:
      return "bimodal";
    case w6_dist::triangular:
      return "tri";
    case w6_dist::trace:
      return "trace";
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
    case w6_dist::triangular:
      return static_cast<std::uint32_t>(rng.uniform(0, 999) + rng.uniform(1, 1000));
    case w6_dist::trace:
      break;  // not drawn: see w6_trace()
  }
  return 1;
}

// The packet-link model's delays (ticks, at least 1), recorded once per process from a
// fixed seed: at least 2^20 of them.
inline const std::vector<std::uint32_t>& w6_trace() {
  static const std::vector<std::uint32_t> trace = [] {
    des_models::link_params p;
    p.warmup = 0;
    p.horizon = 130'000;  // ~1.1e6 events scheduled by 100 flows
    std::vector<std::uint64_t> delays;
    delays.reserve(std::size_t{3} << 19);
    des_models::run_link(p, 20261124, &delays);
    std::vector<std::uint32_t> t;
    t.reserve(delays.size());
    for (const std::uint64_t d : delays)
      t.push_back(static_cast<std::uint32_t>(std::clamp<std::uint64_t>(d, 1, 1u << 30)));
    return t;
  }();
  return trace;
}

inline w6_sequence make_w6_sequence(const w6_params& p, std::uint64_t seed) {
  xoshiro256ss rng(seed);
  w6_sequence s;
  s.params = p;
  s.initial.resize(p.timers);
  s.increment.resize(1u << 20);
  if (p.dist == w6_dist::trace) {
    // The trace in its order (cycled if short); initial times from a random place in it.
    const std::vector<std::uint32_t>& trace = w6_trace();
    for (std::size_t i = 0; i < s.increment.size(); ++i) s.increment[i] = trace[i % trace.size()];
    for (auto& t : s.initial) t = trace[rng.uniform(0, trace.size() - 1)];
    return s;
  }
  for (auto& t : s.initial) t = w6_draw(rng, p.dist);
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
