#pragma once
// The project's own PRNG and distributions. Results must not change across
// standard libraries, so nothing here uses <random>: xoshiro256** seeded by
// splitmix64, and distributions written out explicitly.
#include <array>
#include <cstdint>

namespace gridpeer {

class Rng {
 public:
  explicit Rng(std::uint64_t seed);

  std::uint64_t next_u64();
  /// Uniform in [0, 1) with 53 random bits.
  double uniform01();
  /// Uniform in (0, 1]: safe to take the logarithm of.
  double uniform_open0();
  double uniform(double low, double high);
  /// Uniform integer in [low, high], without modulo bias.
  std::int64_t uniform_int(std::int64_t low, std::int64_t high);
  bool bernoulli(double p);
  double exponential(double mean);
  double normal(double mean, double sd);
  /// Gamma with shape alpha and scale beta (mean alpha*beta).
  double gamma(double shape, double scale);
  /// A new independent stream, derived deterministically (e.g. one per server).
  Rng fork(std::uint64_t stream);

 private:
  std::array<std::uint64_t, 4> state_{};
  double spare_normal_ = 0.0;
  bool has_spare_normal_ = false;
};

/// Regularised lower incomplete gamma P(a, x) (the gamma CDF with scale 1).
double regularized_lower_gamma(double a, double x);

}  // namespace gridpeer
