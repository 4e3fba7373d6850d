#include "peer/model/rng.hpp"

#include <cassert>
#include <cmath>
#include <limits>

namespace gridpeer {
namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  x += 0x9e3779b97f4a7c15ULL;
  std::uint64_t z = x;
  z = (z ^ (z >> 30U)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27U)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31U);
}

constexpr std::uint64_t rotl(std::uint64_t x, unsigned k) {
  return (x << k) | (x >> (64U - k));
}

}  // namespace

Rng::Rng(std::uint64_t seed) {
  std::uint64_t sm = seed;
  for (auto& word : state_) word = splitmix64(sm);
}

std::uint64_t Rng::next_u64() {
  // xoshiro256** (Blackman & Vigna).
  const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
  const std::uint64_t t = state_[1] << 17U;
  state_[2] ^= state_[0];
  state_[3] ^= state_[1];
  state_[1] ^= state_[2];
  state_[0] ^= state_[3];
  state_[2] ^= t;
  state_[3] = rotl(state_[3], 45);
  return result;
}

double Rng::uniform01() {
  return static_cast<double>(next_u64() >> 11U) * 0x1.0p-53;
}

double Rng::uniform_open0() {
  return 1.0 - uniform01();
}

double Rng::uniform(double low, double high) {
  return low + (high - low) * uniform01();
}

std::int64_t Rng::uniform_int(std::int64_t low, std::int64_t high) {
  assert(low <= high);
  const auto range = static_cast<std::uint64_t>(high - low) + 1U;
  if (range == 0) return static_cast<std::int64_t>(next_u64());  // the full 64-bit range
  // Lemire's rejection on the top of the range keeps it unbiased.
  const std::uint64_t limit =
      std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % range;
  std::uint64_t draw = next_u64();
  while (draw >= limit) draw = next_u64();
  return low + static_cast<std::int64_t>(draw % range);
}

bool Rng::bernoulli(double p) {
  return uniform01() < p;
}

double Rng::exponential(double mean) {
  return -mean * std::log(uniform_open0());
}

double Rng::normal(double mean, double sd) {
  // Marsaglia's polar method; the second variate is kept for the next call.
  if (has_spare_normal_) {
    has_spare_normal_ = false;
    return mean + sd * spare_normal_;
  }
  double u = 0.0;
  double v = 0.0;
  double s = 0.0;
  do {
    u = uniform(-1.0, 1.0);
    v = uniform(-1.0, 1.0);
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double factor = std::sqrt(-2.0 * std::log(s) / s);
  spare_normal_ = v * factor;
  has_spare_normal_ = true;
  return mean + sd * u * factor;
}

double Rng::gamma(double shape, double scale) {
  assert(shape > 0.0 && scale > 0.0);
  if (shape < 1.0) {
    // Boost the shape by one, then scale back by U^(1/shape) (Marsaglia & Tsang).
    const double boosted = gamma(shape + 1.0, 1.0);
    return scale * boosted * std::pow(uniform_open0(), 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x = 0.0;
    double v = 0.0;
    do {
      x = normal(0.0, 1.0);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = uniform_open0();
    if (u < 1.0 - 0.0331 * x * x * x * x) return scale * d * v;
    if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return scale * d * v;
  }
}

Rng Rng::fork(std::uint64_t stream) {
  return Rng{next_u64() ^ (stream * 0xd1b54a32d192ed03ULL + 0x8cb92ba72f3d8dd7ULL)};
}

double regularized_lower_gamma(double a, double x) {
  assert(a > 0.0);
  if (x <= 0.0) return 0.0;
  constexpr int kMaxIterations = 1000;
  constexpr double kEpsilon = 1e-14;
  const double log_prefactor = -x + a * std::log(x) - std::lgamma(a);
  if (x < a + 1.0) {
    // Series expansion.
    double term = 1.0 / a;
    double sum = term;
    double denominator = a;
    for (int i = 0; i < kMaxIterations; ++i) {
      denominator += 1.0;
      term *= x / denominator;
      sum += term;
      if (std::fabs(term) < std::fabs(sum) * kEpsilon) break;
    }
    return sum * std::exp(log_prefactor);
  }
  // Continued fraction for the upper tail (modified Lentz).
  constexpr double kTiny = 1e-300;
  double b = x + 1.0 - a;
  double c = 1.0 / kTiny;
  double d = 1.0 / b;
  double h = d;
  for (int i = 1; i <= kMaxIterations; ++i) {
    const double an = -static_cast<double>(i) * (static_cast<double>(i) - a);
    b += 2.0;
    d = an * d + b;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1.0) < kEpsilon) break;
  }
  return 1.0 - std::exp(log_prefactor) * h;
}

}  // namespace gridpeer
