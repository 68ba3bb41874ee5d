// A starvation-free job scheduler on aging_queue: interactive jobs are
// urgent (priority 1), a nightly report is not (priority 200), and a flood
// of interactive jobs arrives with every job run. Under a plain priority
// order the report would never run; here its priority ages, and it runs as
// soon as every job due before it has run.
#include <timerwheel/aging_queue.hpp>

#include <cstdint>
#include <cstdio>
#include <string>

int main() {
  timerwheel::aging_queue<std::string> jobs;
  jobs.push("nightly report", 200);  // due at count 200
  jobs.push("compact logs", 50);     // due at count 50

  int interactive = 0;
  bool report_ran = false;
  int ran = 0;
  while (!report_ran) {
    // Two interactive requests arrive for every job run: more work than
    // the scheduler can keep up with, forever.
    for (int i = 0; i < 2; ++i) jobs.push("request " + std::to_string(interactive++), 1);
    const std::uint64_t before = jobs.counter();
    const std::string job = *jobs.pop();
    ++ran;
    if (job == "nightly report") report_ran = true;
    if (job == "compact logs" || job == "nightly report")
      std::printf("%-15s ran as job %d (counter %llu)\n", job.c_str(), ran,
                  static_cast<unsigned long long>(before));
  }
  std::printf("%d interactive jobs arrived, %zu still waiting\n", interactive, jobs.size());

  // The report was due at count 200. The jobs that ran before it were due
  // before it: the one waiting when it was pushed, and the two requests of
  // each count it took the counter to reach 200. So it ran within that
  // bound, however long the flood goes on.
  const bool on_time = ran <= 1 + 2 * 200 + 1;
  // Every job still waiting arrived after the report was due.
  bool only_newer = true;
  jobs.for_each([&](timerwheel::aging_queue<std::string>::item_id id, const std::string&) {
    if (*jobs.due(id) < 200) only_newer = false;
  });
  return on_time && only_newer ? 0 : 1;
}
