#include "sim/invariants.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace gridpeer::sim {

std::vector<std::string> check_invariants(const topology::Topology& grid, const std::vector<Job>& jobs,
                                          const GridRunResult& run) {
  std::vector<std::string> violations;
  const auto fail = [&](std::string what) {
    if (violations.size() < 20) violations.push_back(std::move(what));
  };
  std::map<JobId, const Job*> by_id;
  for (const Job& job : jobs) by_id[job.id] = &job;
  std::map<JobId, int> ended;
  for (const JobRecord& r : run.records) ++ended[r.id];
  for (const JobId id : run.rejected_ids) ++ended[id];
  for (const auto& [id, times] : ended) {
    if (by_id.count(id) == 0U) fail("job " + std::to_string(id) + " ended but was never submitted");
    if (times > 1) fail("job " + std::to_string(id) + " ended " + std::to_string(times) + " times");
  }
  std::size_t never = 0;
  for (const Job& job : jobs) never += ended.count(job.id) == 0U ? 1 : 0;
  if (never > 0) {
    fail(std::to_string(never) + " jobs never ended (" + run.unfinished_detail + ")");
  }

  std::map<JobId, TimePoint> input_at;
  for (const auto& [id, at] : run.input_arrivals) input_at.emplace(id, at);
  double moved_bytes = 0;
  std::vector<std::vector<std::pair<TimePoint, int>>> usage(grid.servers.size());
  for (const JobRecord& r : run.records) {
    const std::string job = "job " + std::to_string(r.id);
    const auto it = by_id.find(r.id);
    if (it == by_id.end()) continue;
    if (r.executed_on >= grid.servers.size()) {
      fail(job + " ran on unknown server " + std::to_string(r.executed_on));
      continue;
    }
    if (r.origin != it->second->origin) fail(job + " ended at the wrong origin");
    if (r.cpus != it->second->cpus) fail(job + " ran on " + std::to_string(r.cpus) + " CPUs, not its own count");
    if (!(r.submit <= r.start && r.start <= r.finish && r.finish <= r.end)) fail(job + " has its times out of order");
    usage[r.executed_on].emplace_back(r.start, r.cpus);
    usage[r.executed_on].emplace_back(r.finish, -r.cpus);
    if (r.executed_on != r.origin) {
      moved_bytes += static_cast<double>(r.input_bytes + r.output_bytes);
      const auto arrived = input_at.find(r.id);
      if (arrived == input_at.end()) {
        fail(job + " ran on " + grid.servers[r.executed_on].spec.name + " without its input arriving");
      } else if (arrived->second > r.start) {
        fail(job + " started before its input arrived");
      }
    }
  }
  for (std::size_t s = 0; s < usage.size(); ++s) {
    auto& events = usage[s];
    // Ends before starts at the same time: a CPU freed at t may be taken at t.
    std::sort(events.begin(), events.end());
    int busy = 0;
    int peak = 0;
    for (const auto& [at, delta] : events) peak = std::max(peak, busy += delta);
    if (peak > grid.servers[s].spec.total_cpus()) {
      fail(grid.servers[s].spec.name + " ran " + std::to_string(peak) + " CPUs at once; it has " +
           std::to_string(grid.servers[s].spec.total_cpus()));
    }
  }
  if (never == 0 && std::fabs(run.data_bytes - moved_bytes) > 1e-6 * std::max(1.0, moved_bytes) + 1) {
    fail("the network moved " + std::to_string(run.data_bytes) + " bytes, the moved jobs account for " +
         std::to_string(moved_bytes));
  }
  return violations;
}

}  // namespace gridpeer::sim
