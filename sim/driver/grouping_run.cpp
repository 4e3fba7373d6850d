#include "sim/driver/grouping_run.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <stdexcept>
#include <unordered_map>

namespace gridpeer::sim {
namespace {

/// The groups a scheduler makes, in the order it sends them.
std::vector<JobGroup> plan(const GroupingRunSpec& spec, std::span<const double> mi,
                           std::span<const GroupingResource> resources) {
  switch (spec.scheduler) {
    case GroupingScheduler::none:
      return one_job_each(mi, resources);
    case GroupingScheduler::blind:
      return group_jobs(mi, resources, in_order(resources), spec.granularity_s);
    case GroupingScheduler::bandwidth_aware: {
      std::vector<JobGroup> created = group_jobs(mi, resources, by_bandwidth(resources), spec.granularity_s);
      std::vector<JobGroup> sent;
      for (const std::size_t g : largest_first(created)) sent.push_back(std::move(created[g]));
      return sent;
    }
  }
  throw std::invalid_argument("unknown grouping scheduler");
}

struct Flight {
  std::size_t group = 0;
  bool input = true;
};

}  // namespace

GroupingRunResult run_grouping(network::NetworkModel& network, const std::vector<GroupingSite>& sites,
                               const std::vector<GroupingJob>& jobs, const GroupingRunSpec& spec, TimePoint start,
                               BackgroundLoad* background) {
  if (sites.empty()) throw std::invalid_argument("job grouping needs a resource");
  GroupingRunResult result;
  std::vector<GroupingResource> resources;
  for (const GroupingSite& site : sites) {
    if (site.pes < 1 || !(site.mips_per_pe > 0)) {
      throw std::invalid_argument("a grouping resource needs a PE or more, of MIPS above 0");
    }
    const network::Route& route = network.route(spec.user, site.host);
    const double bandwidth =
        spec.current_share ? network.flows().rate_for_new_flow(route) : network.routes().bottleneck(route);
    result.bandwidths.push_back(bandwidth);
    resources.push_back({spec.total_mips ? site.mips_per_pe * site.pes : site.mips_per_pe, bandwidth});
  }
  std::vector<double> mi;
  mi.reserve(jobs.size());
  for (const GroupingJob& job : jobs) mi.push_back(job.mi);
  const std::vector<JobGroup> groups = plan(spec, mi, resources);

  struct Bytes {
    double in = 0;
    double out = 0;
  };
  std::vector<Bytes> bytes(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    result.groups.push_back({groups[g].resource, groups[g].jobs.size(), groups[g].mi, {}, {}, {}, {}, {}});
    for (const std::size_t j : groups[g].jobs) {
      bytes[g].in += jobs[j].input_bytes;
      bytes[g].out += jobs[j].output_bytes;
    }
  }

  network.flows().advance(start);
  std::unordered_map<network::FlowId, Flight> flights;
  std::vector<int> free_pes(sites.size());
  for (std::size_t site = 0; site < sites.size(); ++site) free_pes[site] = sites[site].pes;
  std::vector<std::deque<std::size_t>> waiting(sites.size());
  std::multimap<TimePoint, std::size_t> run_ends;  // ties: in the order they started
  std::size_t next_to_send = 0;
  std::size_t returned = 0;

  const auto send = [&](TimePoint now) {
    const std::size_t g = next_to_send++;
    result.groups[g].sent = now;
    const ServerIndex host = sites[groups[g].resource].host;
    flights[network.start_transfer(spec.user, host, bytes[g].in, now)] = {g, true};
  };
  const auto run_next = [&](std::size_t site, TimePoint now) {
    while (free_pes[site] > 0 && !waiting[site].empty()) {
      const std::size_t g = waiting[site].front();
      waiting[site].pop_front();
      --free_pes[site];
      result.groups[g].started = now;
      run_ends.emplace(now + seconds_ceil(groups[g].mi / sites[site].mips_per_pe), g);
    }
  };

  if (groups.empty()) return result;
  if (spec.serial_uplink) {
    send(start);
  } else {
    while (next_to_send < groups.size()) send(start);
  }
  while (returned < groups.size()) {
    const TimePoint next = std::min({network.flows().next_event(), run_ends.empty() ? kNever : run_ends.begin()->first,
                                     background != nullptr ? background->traffic.next_burst() : kNever});
    if (next == kNever) throw std::logic_error("job grouping: groups left with nothing under way");
    network.flows().advance(next);
    for (const auto& [id, when] : network.flows().take_completed()) {
      const auto it = flights.find(id);
      if (it == flights.end()) continue;  // someone else's flow (background traffic)
      const Flight flight = it->second;
      flights.erase(it);
      GroupRecord& record = result.groups[flight.group];
      if (!flight.input) {
        record.returned = when;
        ++returned;
        continue;
      }
      record.arrived = when;
      waiting[record.site].push_back(flight.group);
      run_next(record.site, when);
      if (spec.serial_uplink && next_to_send < groups.size()) send(when);
    }
    while (background != nullptr && background->traffic.next_burst() <= next) {
      const workload::TrafficBurst burst = background->traffic.pop();
      for (const ServerIndex to : background->destinations) {
        if (to == burst.from) continue;
        network.start_transfer(burst.from, to, static_cast<double>(burst.bytes), burst.at);
        ++background->flows_started;
      }
    }
    while (!run_ends.empty() && run_ends.begin()->first <= next) {
      const auto [when, g] = *run_ends.begin();
      run_ends.erase(run_ends.begin());
      GroupRecord& record = result.groups[g];
      record.finished = when;
      ++free_pes[record.site];
      flights[network.start_transfer(sites[record.site].host, spec.user, bytes[g].out, when)] = {g, false};
      run_next(record.site, when);
    }
  }
  TimePoint last = start;
  for (const GroupRecord& record : result.groups) last = std::max(last, record.returned);
  result.total = last - start;
  return result;
}

}  // namespace gridpeer::sim
