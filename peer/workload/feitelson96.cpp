#include "peer/workload/feitelson96.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <queue>

namespace gridpeer::workload {
namespace {

std::vector<double> cumulative(std::vector<double> weights) {
  double total = 0.0;
  for (double& w : weights) {
    total += w;
    w = total;
  }
  for (double& w : weights) w /= total;
  return weights;
}

std::size_t draw_index(const std::vector<double>& cdf, double u) {
  const auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
  return std::min(static_cast<std::size_t>(it - cdf.begin()), cdf.size() - 1);
}

bool is_power_of_two(int n) {
  return n > 0 && (n & (n - 1)) == 0;
}

}  // namespace

Feitelson96Generator::Feitelson96Generator(Feitelson96Config config, Rng rng) : config_(config), rng_(rng) {
  assert(config.max_nodes >= 1 && config.max_repeats >= 1);
  std::vector<double> size_weights;
  for (int n = 1; n <= config_.max_nodes; ++n) {
    double weight = std::pow(static_cast<double>(n), -config_.size_exponent);
    if (n > 1 && is_power_of_two(n)) weight *= config_.power_of_two_weight;
    size_weights.push_back(weight);
  }
  size_cdf_ = cumulative(std::move(size_weights));
  std::vector<double> repeat_weights;
  for (int k = 1; k <= config_.max_repeats; ++k) {
    repeat_weights.push_back(std::pow(static_cast<double>(k), -config_.repeat_exponent));
  }
  repeat_cdf_ = cumulative(std::move(repeat_weights));
}

int Feitelson96Generator::draw_size() {
  return static_cast<int>(draw_index(size_cdf_, rng_.uniform01())) + 1;
}

double Feitelson96Generator::draw_run_seconds(int nodes) {
  // Feitelson 1996: the probability of the long branch depends linearly on the size.
  const double size_share = config_.max_nodes > 1 ? static_cast<double>(nodes - 1) / (config_.max_nodes - 1) : 0.0;
  const double p_long = config_.long_run_probability_min +
                        (config_.long_run_probability_max - config_.long_run_probability_min) * size_share;
  const double mean = rng_.bernoulli(p_long) ? config_.long_run_mean_seconds : config_.short_run_mean_seconds;
  return std::clamp(std::ceil(rng_.exponential(mean)), 1.0, config_.max_run_seconds);
}

int Feitelson96Generator::draw_repeats() {
  return static_cast<int>(draw_index(repeat_cdf_, rng_.uniform01())) + 1;
}

std::vector<Job> Feitelson96Generator::generate(std::size_t count) {
  // Each new job starts a chain of identical runs; a re-run is submitted when
  // the previous run would have ended on a dedicated machine.
  struct Pending {
    double submit;
    std::uint64_t sequence;
    int cpus;
    double run_seconds;
    int runs_left;
    bool operator>(const Pending& other) const {
      return submit != other.submit ? submit > other.submit : sequence > other.sequence;
    }
  };
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending;
  std::uint64_t sequence = 0;
  double next_new_job = rng_.exponential(config_.mean_interarrival_seconds);
  std::vector<Job> jobs;
  jobs.reserve(count);
  while (jobs.size() < count) {
    if (pending.empty() || next_new_job <= pending.top().submit) {
      const int cpus = draw_size();
      pending.push({next_new_job, sequence++, cpus, draw_run_seconds(cpus), draw_repeats()});
      next_new_job += rng_.exponential(config_.mean_interarrival_seconds);
      continue;
    }
    Pending run = pending.top();
    pending.pop();
    Job job;
    job.id = static_cast<JobId>(jobs.size());
    job.submit = at_seconds(static_cast<std::int64_t>(run.submit));
    job.cpus = run.cpus;
    job.run_time = seconds(static_cast<std::int64_t>(run.run_seconds));
    job.requested_time = job.run_time;
    jobs.push_back(job);
    if (--run.runs_left > 0) {
      run.submit += run.run_seconds;
      run.sequence = sequence++;
      pending.push(run);
    }
  }
  return jobs;
}

}  // namespace gridpeer::workload
