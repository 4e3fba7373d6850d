#include "peer/workload/heterogeneous_grid.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gridpeer::workload {

std::optional<std::array<std::vector<double>, 2>> solve_last_two_speeds(std::span<const int> sizes,
                                                                        std::span<const double> first, double sh) {
  const std::size_t n = sizes.size();
  if (n < 3 || first.size() != n - 2) throw std::invalid_argument("speeds: give n - 2 speeds for n >= 3 sites");
  // With x = sp_{n-1} - 1 and y = sp_n - 1: a x + b y = r (eq. 18) and
  // x^2 + y^2 = q (eq. 19), a and b the last two sizes.
  double r = 0;
  double q = sh * static_cast<double>(n);
  for (std::size_t j = 0; j < n - 2; ++j) {
    r -= sizes[j] * (first[j] - 1);
    q -= (first[j] - 1) * (first[j] - 1);
  }
  const double a = sizes[n - 2];
  const double b = sizes[n - 1];
  if (q < 0) return std::nullopt;
  // (a^2 + b^2) x^2 - 2 a r x + (r^2 - b^2 q) = 0
  const double qa = a * a + b * b;
  const double qb = -2 * a * r;
  const double qc = r * r - b * b * q;
  const double discriminant = qb * qb - 4 * qa * qc;
  if (discriminant < 0) return std::nullopt;
  std::array<std::vector<double>, 2> roots;
  const double root = std::sqrt(discriminant);
  const std::array<double, 2> xs{(-qb - root) / (2 * qa), (-qb + root) / (2 * qa)};
  for (std::size_t k = 0; k < 2; ++k) {
    roots[k].assign(first.begin(), first.end());
    roots[k].push_back(1 + xs[k]);
    roots[k].push_back(1 + (r - a * xs[k]) / b);
  }
  return roots;
}

std::vector<double> draw_speeds(std::span<const int> sizes, double sh, Rng& rng) {
  if (sizes.size() < 3) throw std::invalid_argument("speeds: the generator needs three sites or more");
  if (!(sh >= 0)) throw std::invalid_argument("speeds: SH must not be negative");
  constexpr int kAttempts = 100'000;
  std::vector<double> first(sizes.size() - 2);
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    for (double& speed : first) speed = sh > 0 ? rng.normal(1.0, std::sqrt(sh)) : 1.0;
    const auto roots = solve_last_two_speeds(sizes, first, sh);
    if (!roots) continue;
    const std::vector<double>& picked = (*roots)[rng.bernoulli(0.5) ? 1 : 0];
    bool positive = true;
    for (const double speed : picked) positive = positive && speed > 0;
    if (positive) return picked;
  }
  throw std::invalid_argument("speeds: no valid draw for SH " + std::to_string(sh) + " in " +
                              std::to_string(kAttempts) + " attempts");
}

std::vector<Job> cut_jobs(std::span<const Job> jobs, int cap, JobId first_id, std::vector<std::size_t>* source) {
  if (cap < 1) throw std::invalid_argument("job cutting: the cap must be at least 1 processor");
  std::vector<Job> cut;
  cut.reserve(jobs.size());
  if (source != nullptr) source->clear();
  JobId id = first_id;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const Job& job = jobs[i];
    int left = job.cpus;
    do {
      Job piece = job;
      piece.id = id++;
      piece.cpus = std::min(left, cap);
      left -= piece.cpus;
      cut.push_back(piece);
      if (source != nullptr) source->push_back(i);
    } while (left > 0);
  }
  return cut;
}

}  // namespace gridpeer::workload
