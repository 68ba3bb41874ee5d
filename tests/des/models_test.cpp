// The example models against theory, each figure inside a 99% confidence
// interval from independent replications (fixed seeds, so the test is
// deterministic; with other seeds each check would fail about 1 time in
// 100), and the determinism of a trajectory: same seed, same trajectory.
// Replications are short so that the ASan Debug build stays within a few
// seconds; the examples in examples/des run longer ones.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "packet_link.hpp"
#include "queueing.hpp"

namespace {

constexpr int replications = 10;

TEST(DesModels, MM1AgainstTheory) {
  des_models::queue_params p;
  p.lambda = 0.5;
  p.mu = 1.0;
  p.warmup = 200;
  p.horizon = 4000;
  std::vector<double> number, time;
  for (int i = 0; i < replications; ++i) {
    const auto r = des_models::run_queue(p, 100 + static_cast<unsigned>(i));
    EXPECT_GT(r.customers, 1000U);
    number.push_back(r.mean_in_system);
    time.push_back(r.mean_time_in_system);
  }
  const auto l = des_models::confidence_99(number);
  const auto w = des_models::confidence_99(time);
  const double rho = p.lambda / p.mu;
  EXPECT_TRUE(l.covers(rho / (1 - rho))) << l.mean << " +- " << l.half_width;
  EXPECT_TRUE(w.covers(1 / (p.mu - p.lambda))) << w.mean << " +- " << w.half_width;
  // The intervals are tight enough to mean something.
  EXPECT_LT(l.half_width, 0.15);
  EXPECT_LT(w.half_width, 0.3);
}

TEST(DesModels, MMcAgainstErlangC) {
  des_models::queue_params p;
  p.lambda = 2.4;
  p.mu = 1.0;
  p.servers = 3;
  p.warmup = 200;
  p.horizon = 2000;
  std::vector<double> waited, wait;
  for (int i = 0; i < replications; ++i) {
    const auto r = des_models::run_queue(p, 200 + static_cast<unsigned>(i));
    waited.push_back(r.fraction_waited);
    wait.push_back(r.mean_wait);
  }
  const double c = des_models::erlang_c(3, 2.4);
  EXPECT_NEAR(c, 0.6472, 0.0001);  // Erlang C(3, 2.4), by hand
  const auto pw = des_models::confidence_99(waited);
  const auto w = des_models::confidence_99(wait);
  EXPECT_TRUE(pw.covers(c)) << pw.mean << " +- " << pw.half_width;
  EXPECT_TRUE(w.covers(c / (3 * p.mu - p.lambda))) << w.mean << " +- " << w.half_width;
  EXPECT_LT(pw.half_width, 0.1);
}

TEST(DesModels, PacketLinkAgainstTheory) {
  des_models::link_params p;
  p.flows = 50;
  p.warmup = 200;
  p.horizon = 2000;
  std::vector<double> cancelled, sends, completion;
  for (int i = 0; i < replications; ++i) {
    const auto r = des_models::run_link(p, 300 + static_cast<unsigned>(i));
    EXPECT_GT(r.timers_cancelled, r.timers_fired * 5);  // most timers are cancelled
    cancelled.push_back(r.fraction_cancelled);
    sends.push_back(r.transmissions_per_packet);
    completion.push_back(r.mean_completion);
  }
  const auto t = des_models::link_expected(p);
  const auto c = des_models::confidence_99(cancelled);
  const auto s = des_models::confidence_99(sends);
  const auto m = des_models::confidence_99(completion);
  EXPECT_TRUE(c.covers(t.fraction_cancelled)) << c.mean << " +- " << c.half_width;
  EXPECT_TRUE(s.covers(t.transmissions_per_packet)) << s.mean << " +- " << s.half_width;
  EXPECT_TRUE(m.covers(t.mean_completion)) << m.mean << " +- " << m.half_width;
}

TEST(DesModels, SameSeedSameTrajectory) {
  des_models::link_params p;
  p.flows = 20;
  p.horizon = 500;
  std::vector<std::uint64_t> first, second;
  const auto a = des_models::run_link(p, 77, &first);
  const auto b = des_models::run_link(p, 77, &second);
  const auto c = des_models::run_link(p, 78);
  EXPECT_EQ(a.trajectory, b.trajectory);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(first, second);
  EXPECT_NE(a.trajectory, c.trajectory);
  des_models::queue_params q;
  q.horizon = 500;
  EXPECT_EQ(des_models::run_queue(q, 5).trajectory, des_models::run_queue(q, 5).trajectory);
  EXPECT_NE(des_models::run_queue(q, 5).trajectory, des_models::run_queue(q, 6).trajectory);
}

}  // namespace
