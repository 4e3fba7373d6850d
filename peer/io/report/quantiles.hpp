#pragma once
// Median and 99th percentile of timing samples (benchmarks of gridsim and gridctl).
#include <algorithm>
#include <vector>

namespace gridpeer::report {

struct Quantiles {
  double median = 0;
  double p99 = 0;
};

/// Nearest-rank quantiles; empty samples give zeros.
inline Quantiles quantiles(std::vector<double> samples) {
  if (samples.empty()) return {};
  std::sort(samples.begin(), samples.end());
  const auto at = [&](double q) {
    return samples[std::min(samples.size() - 1, static_cast<std::size_t>(q * static_cast<double>(samples.size())))];
  };
  return {at(0.5), at(0.99)};
}

}  // namespace gridpeer::report
