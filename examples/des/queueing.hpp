// An M/M/c queue on des::simulator: Poisson arrivals at rate lambda, c
// servers with exponential service at rate mu each, one FIFO line. c = 1 is
// the M/M/1 queue. Time is in ticks, `ticks_per_unit` of them per unit of
// model time; delays are drawn as real numbers and turned into ticks by
// des::to_ticks, which keeps their means exact.
#pragma once

#include <timerwheel/des.hpp>

#include <cmath>
#include <cstdint>
#include <deque>
#include <stdexcept>

#include "model_support.hpp"

namespace des_models {

struct queue_params {
  double lambda = 0.5;  // arrivals per unit of time
  double mu = 1.0;      // services per unit of time, per server
  unsigned servers = 1;
  double warmup = 1000;    // units of time discarded at the start
  double horizon = 20000;  // units of time measured after the warm-up
  double ticks_per_unit = 1e6;
};

struct queue_result {
  double mean_in_system = 0;       // time average over [warm-up, end]
  double mean_time_in_system = 0;  // per customer arriving in [warm-up, end)
  double mean_wait = 0;            // in line, before service
  double fraction_waited = 0;      // customers who found every server busy
  std::uint64_t customers = 0;     // measured customers
  std::uint64_t events = 0;        // events run
  std::uint64_t trajectory = 0;    // a hash of every (time, event) run
};

// Erlang's C formula: the probability that an arrival waits in an M/M/c
// queue with offered load a = lambda / mu (a < c).
inline double erlang_c(unsigned c, double a) {
  if (!(a < c)) throw std::invalid_argument("erlang_c: the queue is unstable");
  double term = 1;  // a^k / k!
  double sum = 1;   // sum over k < c
  for (unsigned k = 1; k < c; ++k) {
    term *= a / k;
    sum += term;
  }
  const double last = term * a / c * c / (c - a);  // a^c / c! * c / (c - a)
  return last / (sum + last);
}

inline queue_result run_queue(const queue_params& p, std::uint64_t seed) {
  enum class kind : std::uint8_t { arrival, departure };
  struct event {
    kind what;
    std::uint64_t arrived;  // a departure's customer's arrival time (ticks)
    std::uint64_t started;  // and when its service began
  };
  timerwheel::des::simulator<event> sim;
  generator random(seed);
  const auto draw = [&](double rate) {
    return timerwheel::des::to_ticks(random.exponential(rate), p.ticks_per_unit, random);
  };
  const auto warmup = static_cast<std::uint64_t>(p.warmup * p.ticks_per_unit);
  const auto end = warmup + static_cast<std::uint64_t>(p.horizon * p.ticks_per_unit);

  std::deque<std::uint64_t> line;  // arrival times of the customers waiting
  unsigned busy = 0;
  std::uint64_t present = 0;
  std::uint64_t last_change = 0;
  double area = 0;  // customer-ticks after the warm-up
  double sojourn = 0;
  double waited = 0;
  std::uint64_t had_to_wait = 0;
  std::uint64_t measured_arrivals = 0;
  queue_result r;

  // The number present changes: add its area since the last change.
  const auto account = [&](std::uint64_t now) {
    const std::uint64_t from = last_change > warmup ? last_change : warmup;
    if (now > from) area += static_cast<double>(present) * static_cast<double>(now - from);
    last_change = now;
  };
  const auto start_service = [&](std::uint64_t arrived) {
    ++busy;
    sim.schedule_in(draw(p.mu), event{kind::departure, arrived, sim.now()});
  };

  // Arrivals stop at `end`; the customers present then are served to the
  // last, so that long sojourns near the end are not cut off (which would
  // bias the mean time in system down).
  const auto handler = [&](event& e) {
    const std::uint64_t now = sim.now();
    r.trajectory =
        (r.trajectory ^ (now * 2 + static_cast<std::uint64_t>(e.what))) * 0x100000001b3ULL;
    account(now);
    if (e.what == kind::arrival) {
      ++present;
      if (now >= warmup) {
        ++measured_arrivals;
        if (busy == p.servers) ++had_to_wait;
      }
      if (busy < p.servers)
        start_service(now);
      else
        line.push_back(now);
      if (now < end) sim.schedule_in(draw(p.lambda), event{kind::arrival, 0, 0});
    } else {
      --present;
      --busy;
      if (e.arrived >= warmup) {
        ++r.customers;
        sojourn += static_cast<double>(now - e.arrived);
        waited += static_cast<double>(e.started - e.arrived);
      }
      if (!line.empty()) {
        const std::uint64_t next = line.front();
        line.pop_front();
        start_service(next);
      }
    }
  };
  sim.schedule_in(draw(p.lambda), event{kind::arrival, 0, 0});
  sim.run_until(end, handler);
  account(end);
  const double measured_area = area;
  sim.run(~std::uint64_t{0}, handler);
  area = measured_area;
  r.events = sim.events_run();
  const double unit = p.ticks_per_unit;
  r.mean_in_system = area / static_cast<double>(end - warmup);
  if (r.customers > 0) {
    r.mean_time_in_system = sojourn / static_cast<double>(r.customers) / unit;
    r.mean_wait = waited / static_cast<double>(r.customers) / unit;
  }
  if (measured_arrivals > 0)
    r.fraction_waited = static_cast<double>(had_to_wait) / static_cast<double>(measured_arrivals);
  return r;
}

}  // namespace des_models
