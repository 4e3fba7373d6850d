#include "peer/workload/poisson_model.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace gridpeer::workload {

namespace {

/// The next job of the stream: its gap after `clock`, size and run time.
Job next_job(const PoissonModelConfig& config, Duration& clock, std::size_t index, Rng& rng) {
  clock += seconds_ceil(rng.exponential(config.mean_interarrival_seconds));
  Job job;
  job.id = static_cast<JobId>(index);
  job.submit = TimePoint{clock};
  job.cpus = static_cast<int>(rng.uniform_int(config.min_cpus, config.max_cpus));
  job.run_time = std::max(seconds(1), seconds_ceil(rng.exponential(config.mean_service_seconds)));
  job.requested_time = job.run_time;
  return job;
}

}  // namespace

std::vector<Job> generate_poisson_jobs(const PoissonModelConfig& config, std::size_t count, Rng& rng) {
  assert(config.min_cpus >= 1 && config.min_cpus <= config.max_cpus);
  std::vector<Job> jobs;
  jobs.reserve(count);
  Duration clock{};
  for (std::size_t i = 0; i < count; ++i) jobs.push_back(next_job(config, clock, i, rng));
  return jobs;
}

std::vector<Job> generate_poisson_jobs_until(const PoissonModelConfig& config, TimePoint end, Rng& rng) {
  assert(config.min_cpus >= 1 && config.min_cpus <= config.max_cpus);
  assert(config.mean_interarrival_seconds > 0);
  std::vector<Job> jobs;
  Duration clock{};
  for (std::size_t i = 0;; ++i) {
    Job job = next_job(config, clock, i, rng);
    if (job.submit >= end) return jobs;
    jobs.push_back(job);
  }
}

}  // namespace gridpeer::workload
