// A packet-level link with retransmission timeouts on des::simulator: `flows`
// senders, each stop-and-wait: it sends a packet and arms a retransmission
// timer (RTO); the packet crosses the link in a one-way delay uniform on
// [delay, delay + jitter], lost with probability `data_loss`; the receiver's
// acknowledgement comes back the same way, lost with probability `ack_loss`.
// An acknowledgement cancels the timer; a timer that fires resends the
// packet. After an acknowledged packet the sender thinks for an exponential
// time and sends the next. The RTO exceeds the longest round trip, so a
// timer fires exactly when the packet or its acknowledgement was lost: with
// s = (1 - data_loss)(1 - ack_loss) most timers are cancelled (a fraction s
// of them), a packet takes 1 / s transmissions on average, and from its
// first transmission to its acknowledgement (1 - s) / s * RTO + E[round
// trip] units of time. Time is in ticks, `ticks_per_unit` per unit.
#pragma once

#include <timerwheel/des.hpp>

#include <cstdint>
#include <vector>

#include "model_support.hpp"

namespace des_models {

struct link_params {
  unsigned flows = 100;
  double delay = 10;   // one-way, shortest (units of time: milliseconds, say)
  double jitter = 10;  // added uniformly to the one-way delay
  double rto = 50;     // retransmission timeout
  double think = 20;   // mean time between an acknowledgement and the next packet
  double data_loss = 0.05;
  double ack_loss = 0.05;
  double warmup = 500;
  double horizon = 5000;
  double ticks_per_unit = 1000;
};

struct link_result {
  double fraction_cancelled = 0;  // of the timers armed after the warm-up that ended
  double transmissions_per_packet = 0;
  double mean_completion = 0;  // first transmission to acknowledgement, units of time
  std::uint64_t packets = 0;   // acknowledged packets first sent after the warm-up
  std::uint64_t timers_cancelled = 0;
  std::uint64_t timers_fired = 0;
  std::uint64_t events = 0;
  std::uint64_t trajectory = 0;  // a hash of every (time, event) run
};

// The theory's figures for the parameters (see the opening comment).
struct link_theory {
  double fraction_cancelled;
  double transmissions_per_packet;
  double mean_completion;
};
inline link_theory link_expected(const link_params& p) {
  const double s = (1 - p.data_loss) * (1 - p.ack_loss);
  return {s, 1 / s, (1 - s) / s * p.rto + 2 * (p.delay + p.jitter / 2)};
}

// Runs one replication. When `increments` is given, every event's delay
// from the time it is scheduled (ticks) is appended to it: the hold
// benchmark replays them.
inline link_result run_link(const link_params& p, std::uint64_t seed,
                            std::vector<std::uint64_t>* increments = nullptr) {
  enum class kind : std::uint8_t { send, data, ack, timeout };
  struct event {
    kind what;
    std::uint32_t flow;
  };
  struct flow_state {
    std::uint64_t first_sent = 0;
    std::uint32_t transmissions = 0;
    timerwheel::des::event_id timer{};
  };
  timerwheel::des::simulator<event> sim;
  generator random(seed);
  const auto ticks = [&](double delay) {
    return timerwheel::des::to_ticks(delay, p.ticks_per_unit, random);
  };
  const auto warmup = static_cast<std::uint64_t>(p.warmup * p.ticks_per_unit);
  const auto end = warmup + static_cast<std::uint64_t>(p.horizon * p.ticks_per_unit);
  const std::uint64_t rto = ticks(p.rto);
  std::vector<flow_state> flows(p.flows);
  sim.reserve(4 * p.flows);
  link_result r;
  std::uint64_t transmissions = 0;
  double completion = 0;

  const auto schedule = [&](std::uint64_t delay, event e) {
    if (increments != nullptr) increments->push_back(delay);
    return sim.schedule_in(delay, e);
  };
  const auto one_way = [&] { return ticks(p.delay + p.jitter * random.uniform()); };
  const auto transmit = [&](std::uint32_t f) {
    ++flows[f].transmissions;
    flows[f].timer = schedule(rto, event{kind::timeout, f});
    if (!random.chance(p.data_loss)) schedule(one_way(), event{kind::data, f});
  };

  for (std::uint32_t f = 0; f < p.flows; ++f)
    schedule(ticks(random.exponential(1 / p.think)), event{kind::send, f});
  // Senders start no packet after `end`; the packets started before it run
  // to their acknowledgement, so that slow ones are not cut off (which would
  // bias the figures down).
  const auto handler = [&](event& e) {
    const std::uint64_t now = sim.now();
    r.trajectory =
        (r.trajectory ^ (now * 4 + static_cast<std::uint64_t>(e.what))) * 0x100000001b3ULL;
    flow_state& fl = flows[e.flow];
    switch (e.what) {
      case kind::send:
        if (now >= end) break;
        fl.first_sent = now;
        fl.transmissions = 0;
        transmit(e.flow);
        break;
      case kind::data:
        if (!random.chance(p.ack_loss)) schedule(one_way(), event{kind::ack, e.flow});
        break;
      case kind::ack:
        if (sim.cancel(fl.timer) && fl.first_sent >= warmup) ++r.timers_cancelled;
        if (fl.first_sent >= warmup) {
          ++r.packets;
          transmissions += fl.transmissions;
          completion += static_cast<double>(now - fl.first_sent);
        }
        schedule(ticks(random.exponential(1 / p.think)), event{kind::send, e.flow});
        break;
      case kind::timeout:
        if (fl.first_sent >= warmup) ++r.timers_fired;
        transmit(e.flow);
        break;
    }
  };
  sim.run_until(end, handler);
  sim.run(~std::uint64_t{0}, handler);
  r.events = sim.events_run();
  const std::uint64_t timers = r.timers_cancelled + r.timers_fired;
  if (timers > 0)
    r.fraction_cancelled = static_cast<double>(r.timers_cancelled) / static_cast<double>(timers);
  if (r.packets > 0) {
    r.transmissions_per_packet =
        static_cast<double>(transmissions) / static_cast<double>(r.packets);
    r.mean_completion = completion / static_cast<double>(r.packets) / p.ticks_per_unit;
  }
  return r;
}

}  // namespace des_models
