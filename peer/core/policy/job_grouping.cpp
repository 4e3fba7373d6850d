#include "peer/core/policy/job_grouping.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace gridpeer {

std::vector<std::size_t> by_bandwidth(std::span<const GroupingResource> resources) {
  std::vector<std::size_t> order = in_order(resources);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return resources[a].bandwidth > resources[b].bandwidth; });
  return order;
}

std::vector<std::size_t> in_order(std::span<const GroupingResource> resources) {
  std::vector<std::size_t> order(resources.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  return order;
}

std::vector<JobGroup> group_jobs(std::span<const double> job_mi, std::span<const GroupingResource> resources,
                                 std::span<const std::size_t> order, double granularity_s) {
  if (order.empty()) throw std::invalid_argument("job grouping needs a resource");
  if (!(granularity_s > 0)) throw std::invalid_argument("job grouping needs a granularity above 0 s");
  for (const std::size_t r : order) {
    if (r >= resources.size() || !(resources[r].mips > 0)) {
      throw std::invalid_argument("job grouping needs resources of MIPS above 0");
    }
  }
  std::vector<JobGroup> groups;
  std::size_t next = 0;
  for (std::size_t visit = 0; next < job_mi.size(); visit = (visit + 1) % order.size()) {
    const std::size_t r = order[visit];
    const double rmi = resources[r].mips * granularity_s;
    JobGroup group{r, {next}, job_mi[next]};  // the first job always: a group is never empty
    for (++next; next < job_mi.size() && group.mi + job_mi[next] <= rmi; ++next) {
      group.jobs.push_back(next);
      group.mi += job_mi[next];
    }
    groups.push_back(std::move(group));
  }
  return groups;
}

std::vector<JobGroup> one_job_each(std::span<const double> job_mi, std::span<const GroupingResource> resources) {
  if (resources.empty()) throw std::invalid_argument("job grouping needs a resource");
  std::vector<JobGroup> groups;
  groups.reserve(job_mi.size());
  for (std::size_t i = 0; i < job_mi.size(); ++i) groups.push_back({i % resources.size(), {i}, job_mi[i]});
  return groups;
}

std::vector<std::size_t> largest_first(std::span<const JobGroup> groups) {
  std::vector<std::size_t> order(groups.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return groups[a].mi > groups[b].mi; });
  return order;
}

}  // namespace gridpeer
