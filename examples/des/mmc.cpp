// The M/M/c queue on des::simulator, checked against Erlang's C formula: 20
// independent replications give 99% confidence intervals for the fraction
// of customers who wait (theory C(c, lambda / mu)) and the mean wait in line
// (C / (c mu - lambda)). Exits 1 when theory lies outside an interval.
#include <cstdio>
#include <vector>

#include "queueing.hpp"

int main() {
  des_models::queue_params p;
  p.lambda = 2.4;
  p.mu = 1.0;
  p.servers = 3;
  p.horizon = 5000;
  const int replications = 20;
  std::vector<double> waited, wait;
  for (int i = 0; i < replications; ++i) {
    const des_models::queue_result r = des_models::run_queue(p, 2000 + static_cast<unsigned>(i));
    waited.push_back(r.fraction_waited);
    wait.push_back(r.mean_wait);
  }
  const double c = des_models::erlang_c(p.servers, p.lambda / p.mu);
  const double wq = c / (p.servers * p.mu - p.lambda);
  const auto pw = des_models::confidence_99(waited);
  const auto w = des_models::confidence_99(wait);
  std::printf("M/M/%u, lambda %.2f, mu %.2f, %d replications of %.0f units after %.0f of warm-up\n",
              p.servers, p.lambda, p.mu, replications, p.horizon, p.warmup);
  std::printf("fraction who wait  %.4f +- %.4f (99%%)   Erlang C %.4f\n", pw.mean, pw.half_width,
              c);
  std::printf("mean wait in line  %.4f +- %.4f (99%%)   theory   %.4f\n", w.mean, w.half_width, wq);
  const bool ok = pw.covers(c) && w.covers(wq);
  std::printf("%s\n", ok ? "theory inside both intervals" : "FAIL: theory outside an interval");
  return ok ? 0 : 1;
}
