// The report after the runs: the table on stdout (medians, min, max, ratios to the heap and the
// floor, the goals read off it), the paper table, the CSV and the data of the plots.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "cases.hpp"

namespace timerwheel_bench {

struct figures {
  double median = NAN;
  double min = NAN;
  double max = NAN;
};

// Google Benchmark's console output, plus the aggregates kept by name.
class collecting_reporter : public benchmark::ConsoleReporter {
 public:
  explicit collecting_reporter(bool color)
      : ConsoleReporter(color ? OO_ColorTabular : OO_Tabular) {}
  void ReportRuns(const std::vector<Run>& runs) override;
  const figures* find(const std::string& name) const {
    const auto it = figures_.find(name);
    return it == figures_.end() ? nullptr : &it->second;
  }

 private:
  std::map<std::string, figures> figures_;
};

// Prints the tables and writes the CSV and the plots' data under o.out. Returns false if the
// CSV could not be written.
bool report(const options& o, const collecting_reporter& reporter);

}  // namespace timerwheel_bench
