#pragma once
// Mean and 95% confidence interval of a metric over independent runs (seeds):
// Student's t with n - 1 degrees of freedom, as a sweep's report gives them.
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>

namespace gridpeer::report {

struct MeanInterval {
  double mean = std::numeric_limits<double>::quiet_NaN();
  double half_width = std::numeric_limits<double>::quiet_NaN();  ///< NaN with fewer than two values
  std::size_t n = 0;
};

/// Two-sided 97.5% quantile of Student's t; the table to 30 degrees of
/// freedom, then the first two terms of the Cornish-Fisher expansion around
/// the normal's 1.96 (within 0.0002 of the exact value beyond 30).
inline double t_quantile_975(std::size_t dof) {
  static constexpr double kTable[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof == 0) return std::numeric_limits<double>::quiet_NaN();
  if (dof <= 30) return kTable[dof - 1];
  const double z = 1.959964;
  const double n = static_cast<double>(dof);
  const double z3 = z * z * z;
  return z + (z3 + z) / (4.0 * n) + (5.0 * z3 * z * z + 16.0 * z3 + 3.0 * z) / (96.0 * n * n);
}

inline MeanInterval mean_interval(std::span<const double> values) {
  MeanInterval result;
  result.n = values.size();
  if (values.empty()) return result;
  double sum = 0;
  for (const double v : values) sum += v;
  result.mean = sum / static_cast<double>(values.size());
  if (values.size() < 2) return result;
  double squares = 0;
  for (const double v : values) squares += (v - result.mean) * (v - result.mean);
  const double stddev = std::sqrt(squares / static_cast<double>(values.size() - 1));
  result.half_width = t_quantile_975(values.size() - 1) * stddev / std::sqrt(static_cast<double>(values.size()));
  return result;
}

}  // namespace gridpeer::report
