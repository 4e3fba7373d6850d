#pragma once
// The rigid workload model of Feitelson, "Packing schemes for gang scheduling"
// (JSSPP 1996), as Shih, Huang & Chung 2010 use it: sizes from a harmonic
// distribution of order 1.5, hand-tuned towards small sizes and powers of two;
// run times hyper-exponential, the probability of the long branch rising
// linearly with the job's size; each job run a Zipf(2.5)-distributed number of
// times, a re-run submitted when the run before it ends; Poisson arrivals
// whose mean inter-arrival is the model's ARR_FACTOR, in seconds. What the
// published description fixes is followed as written; what it leaves open
// (the power-of-two weight, the branches' means and probabilities) is ours,
// and the long branch's mean is fitted to Shih, Huang & Chung's queue lengths
// (docs/workloads.md lists every value and says which is which).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "peer/model/job.hpp"
#include "peer/model/rng.hpp"

namespace gridpeer::workload {

/// The long branch's mean run time fitted to Shih, Huang & Chung's queue lengths.
inline constexpr double kFeitelson96FittedLongRunMean = 25000;

struct Feitelson96Config {
  int max_nodes = 128;                     ///< Shih, Huang & Chung 2010: 128 processors
  double max_run_seconds = 64800;          ///< Shih, Huang & Chung 2010: 18 h
  double mean_interarrival_seconds = 400;  ///< ARR_FACTOR; Shih, Huang & Chung 2010 sweeps 300..600
  double size_exponent = 1.5;              ///< harmonic order (published)
  double power_of_two_weight = 4.0;        ///< weight multiplier of sizes 2^k (ours)
  double short_run_mean_seconds = 300;     ///< ours
  /// Fitted: Shih, Huang & Chung's mean queue lengths at ARR_FACTOR 600..300
  /// under BF at SH 0 (docs/processor-allocation.md, `shih2010-feitelson96-fit`).
  double long_run_mean_seconds = kFeitelson96FittedLongRunMean;
  double long_run_probability_min = 0.1;  ///< for serial jobs (ours)
  double long_run_probability_max = 0.7;  ///< for max_nodes jobs (ours); linear in size between (published)
  double repeat_exponent = 2.5;           ///< P(k runs) ~ k^-exponent (published)
  int max_repeats = 40;
};

class Feitelson96Generator {
 public:
  Feitelson96Generator(Feitelson96Config config, Rng rng);
  /// `count` jobs in submit order.
  std::vector<Job> generate(std::size_t count);

 private:
  int draw_size();
  double draw_run_seconds(int nodes);
  int draw_repeats();

  Feitelson96Config config_;
  Rng rng_;
  std::vector<double> size_cdf_;
  std::vector<double> repeat_cdf_;
};

}  // namespace gridpeer::workload
