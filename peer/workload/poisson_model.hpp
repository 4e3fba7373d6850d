#pragma once
// The synthetic model of seeds 000 and 001: Poisson arrivals, exponential
// service times, job sizes uniform over [min, max] nodes.
#include <cstddef>
#include <vector>

#include "peer/model/job.hpp"
#include "peer/model/rng.hpp"

namespace gridpeer::workload {

struct PoissonModelConfig {
  double mean_interarrival_seconds = 150;  ///< 000: 150 s
  double mean_service_seconds = 450;       ///< 000: 450 s
  int min_cpus = 10;                       ///< 000: UNIF[10, 50]
  int max_cpus = 50;
};

/// `count` jobs in submit order; estimates equal run times (the model has none).
std::vector<Job> generate_poisson_jobs(const PoissonModelConfig& config, std::size_t count, Rng& rng);
/// The jobs that arrive before `end` (001: streams of different rates over
/// one span); the same draws as generate_poisson_jobs, cut by time.
std::vector<Job> generate_poisson_jobs_until(const PoissonModelConfig& config, TimePoint end, Rng& rng);

}  // namespace gridpeer::workload
