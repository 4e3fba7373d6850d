#pragma once
// The synthetic model of Jones et al. 2004 and Jones & Ligon 2006: Poisson arrivals, exponential
// service times, job sizes uniform over [min, max] nodes.
#include <cstddef>
#include <vector>

#include "peer/model/job.hpp"
#include "peer/model/rng.hpp"

namespace gridpeer::workload {

struct PoissonModelConfig {
  double mean_interarrival_seconds = 150;  ///< Jones et al. 2004: 150 s
  double mean_service_seconds = 450;       ///< Jones et al. 2004: 450 s
  int min_cpus = 10;                       ///< Jones et al. 2004: UNIF[10, 50]
  int max_cpus = 50;
};

/// `count` jobs in submit order; estimates equal run times (the model has none).
std::vector<Job> generate_poisson_jobs(const PoissonModelConfig& config, std::size_t count, Rng& rng);
/// The jobs that arrive before `end` (Jones & Ligon 2006: streams of different rates over
/// one span); the same draws as generate_poisson_jobs, cut by time.
std::vector<Job> generate_poisson_jobs_until(const PoissonModelConfig& config, TimePoint end, Rng& rng);

}  // namespace gridpeer::workload
