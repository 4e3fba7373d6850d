#pragma once
// A Feitelson96-style rigid workload (Feitelson, "Packing schemes for gang
// scheduling", JSSPP 1996), as used by Shih, Huang & Chung 2010: sizes from a harmonic
// distribution of order 1.5 with extra weight on powers of two; run times
// hyper-exponential with the long branch more likely for larger jobs; each job
// re-run a Zipf-distributed number of times; Poisson arrivals whose mean is
// the model's ARR_FACTOR knob. The structure follows the paper; the numeric
// values are ours (docs/workloads.md lists them) since the original
// generator's source is not among our references.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "peer/model/job.hpp"
#include "peer/model/rng.hpp"

namespace gridpeer::workload {

struct Feitelson96Config {
  int max_nodes = 128;                     ///< Shih, Huang & Chung 2010: 128 processors
  double max_run_seconds = 64800;          ///< Shih, Huang & Chung 2010: 18 h
  double mean_interarrival_seconds = 400;  ///< ARR_FACTOR; Shih, Huang & Chung 2010 sweeps 300..600
  double size_exponent = 1.5;              ///< harmonic order
  double power_of_two_weight = 4.0;        ///< weight multiplier of sizes 2^k
  double short_run_mean_seconds = 300;
  double long_run_mean_seconds = 7200;
  double long_run_probability_min = 0.1;  ///< for serial jobs
  double long_run_probability_max = 0.7;  ///< for max_nodes jobs
  double repeat_exponent = 2.5;           ///< P(k runs) ~ k^-exponent
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
