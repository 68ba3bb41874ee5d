// A packet-level link with retransmission timeouts on des::simulator, where
// most timers are cancelled before they fire; checked against theory from
// 20 independent replications (99% confidence intervals): the fraction of
// timers cancelled, transmissions per packet, and the time from a packet's
// first transmission to its acknowledgement. Exits 1 when theory lies
// outside an interval.
#include "packet_link.hpp"

#include <cstdio>
#include <vector>

int main() {
  const des_models::link_params p;
  const int replications = 20;
  std::vector<double> cancelled, sends, completion;
  std::uint64_t events = 0;
  for (int i = 0; i < replications; ++i) {
    const des_models::link_result r = des_models::run_link(p, 3000 + static_cast<unsigned>(i));
    cancelled.push_back(r.fraction_cancelled);
    sends.push_back(r.transmissions_per_packet);
    completion.push_back(r.mean_completion);
    events += r.events;
  }
  const des_models::link_theory t = des_models::link_expected(p);
  const auto c = des_models::confidence_99(cancelled);
  const auto s = des_models::confidence_99(sends);
  const auto m = des_models::confidence_99(completion);
  std::printf(
      "packet link: %u stop-and-wait flows, loss %.2f / %.2f, RTO %.0f, %d replications, %llu "
      "events\n",
      p.flows, p.data_loss, p.ack_loss, p.rto, replications,
      static_cast<unsigned long long>(events));
  std::printf("timers cancelled         %.4f +- %.4f (99%%)   theory %.4f\n", c.mean, c.half_width,
              t.fraction_cancelled);
  std::printf("transmissions per packet %.4f +- %.4f (99%%)   theory %.4f\n", s.mean, s.half_width,
              t.transmissions_per_packet);
  std::printf("completion time          %.3f +- %.3f (99%%)   theory %.3f\n", m.mean, m.half_width,
              t.mean_completion);
  const bool ok = c.covers(t.fraction_cancelled) && s.covers(t.transmissions_per_packet) &&
                  m.covers(t.mean_completion);
  std::printf("%s\n", ok ? "theory inside every interval" : "FAIL: theory outside an interval");
  return ok ? 0 : 1;
}
