// The M/M/1 queue on des::simulator, checked against theory: 20 independent
// replications give 99% confidence intervals for the mean number in the
// system (theory rho / (1 - rho)) and the mean time in it (1 / (mu -
// lambda)). Exits 1 when theory lies outside an interval.
#include <cstdio>
#include <vector>

#include "queueing.hpp"

int main() {
  des_models::queue_params p;
  p.lambda = 0.5;
  p.mu = 1.0;
  p.servers = 1;
  p.horizon = 10000;
  const int replications = 20;
  std::vector<double> number, time;
  for (int i = 0; i < replications; ++i) {
    const des_models::queue_result r = des_models::run_queue(p, 1000 + static_cast<unsigned>(i));
    number.push_back(r.mean_in_system);
    time.push_back(r.mean_time_in_system);
  }
  const double rho = p.lambda / p.mu;
  const double l_theory = rho / (1 - rho);
  const double w_theory = 1 / (p.mu - p.lambda);
  const auto l = des_models::confidence_99(number);
  const auto w = des_models::confidence_99(time);
  std::printf("M/M/1, lambda %.2f, mu %.2f, %d replications of %.0f units after %.0f of warm-up\n",
              p.lambda, p.mu, replications, p.horizon, p.warmup);
  std::printf("mean number in system  %.4f +- %.4f (99%%)   theory %.4f\n", l.mean, l.half_width,
              l_theory);
  std::printf("mean time in system    %.4f +- %.4f (99%%)   theory %.4f\n", w.mean, w.half_width,
              w_theory);
  const bool ok = l.covers(l_theory) && w.covers(w_theory);
  std::printf("%s\n", ok ? "theory inside both intervals" : "FAIL: theory outside an interval");
  return ok ? 0 : 1;
}
