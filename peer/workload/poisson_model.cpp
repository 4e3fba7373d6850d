#include "peer/workload/poisson_model.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace gridpeer::workload {

std::vector<Job> generate_poisson_jobs(const PoissonModelConfig& config, std::size_t count, Rng& rng) {
  assert(config.min_cpus >= 1 && config.min_cpus <= config.max_cpus);
  std::vector<Job> jobs;
  jobs.reserve(count);
  Duration clock{};
  for (std::size_t i = 0; i < count; ++i) {
    clock += seconds_ceil(rng.exponential(config.mean_interarrival_seconds));
    Job job;
    job.id = static_cast<JobId>(i);
    job.submit = TimePoint{clock};
    job.cpus = static_cast<int>(rng.uniform_int(config.min_cpus, config.max_cpus));
    job.run_time = std::max(seconds(1), seconds_ceil(rng.exponential(config.mean_service_seconds)));
    job.requested_time = job.run_time;
    jobs.push_back(job);
  }
  return jobs;
}

}  // namespace gridpeer::workload
