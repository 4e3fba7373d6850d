#include "sim/driver/grouping_run.hpp"

#include <algorithm>
#include <deque>
#include <limits>
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

constexpr std::size_t kNotMeasured = std::numeric_limits<std::size_t>::max();

/// One transfer-run-return unit: a group of the measured user, or another
/// user's single job.
struct Unit {
  ServerIndex from = 0;
  std::size_t site = 0;
  double mi = 0;
  double in = 0;
  double out = 0;
  std::size_t group = kNotMeasured;  ///< index into the result's groups
};

/// A user's uplink: its units in sending order.
struct Sender {
  std::vector<std::size_t> units;
  std::size_t next = 0;
};

struct Flight {
  std::size_t unit = 0;
  bool input = true;
};

}  // namespace

GroupingRunResult run_grouping(network::NetworkModel& network, const std::vector<GroupingSite>& sites,
                               const std::vector<GroupingJob>& jobs, const GroupingRunSpec& spec, TimePoint start,
                               GroupingLoad* load) {
  if (sites.empty()) throw std::invalid_argument("job grouping needs a resource");
  GroupingRunResult result;
  std::vector<GroupingResource> resources;
  for (const GroupingSite& site : sites) {
    if (site.pes < 1 || !(site.mips_per_pe > 0)) {
      throw std::invalid_argument("a grouping resource needs a PE or more, of MIPS above 0");
    }
    const network::RouteView route = network.route(spec.user, site.host);
    const double bandwidth =
        spec.current_share ? network.flows().rate_for_new_flow(route) : network.routes().bottleneck(route);
    result.bandwidths.push_back(bandwidth);
    resources.push_back({spec.total_mips ? site.mips_per_pe * site.pes : site.mips_per_pe, bandwidth});
  }
  std::vector<double> mi;
  mi.reserve(jobs.size());
  for (const GroupingJob& job : jobs) mi.push_back(job.mi);
  const std::vector<JobGroup> groups = plan(spec, mi, resources);
  if (groups.empty()) return result;

  // Units: the measured user's groups first (sender 0), then each other user's jobs.
  std::vector<Unit> units;
  std::vector<Sender> senders(1);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    result.groups.push_back({groups[g].resource, groups[g].jobs.size(), groups[g].mi, {}, {}, {}, {}, {}});
    Unit unit{spec.user, groups[g].resource, groups[g].mi, 0, 0, g};
    for (const std::size_t j : groups[g].jobs) {
      unit.in += jobs[j].input_bytes;
      unit.out += jobs[j].output_bytes;
    }
    senders[0].units.push_back(units.size());
    units.push_back(unit);
  }
  if (load != nullptr) {
    for (const OtherUserJobs& other : load->others) {
      Sender& sender = senders.emplace_back();
      for (const auto& [site, job] : other.jobs) {
        if (site >= sites.size()) throw std::invalid_argument("another user's job names a resource that is not");
        sender.units.push_back(units.size());
        units.push_back({other.user, site, job.mi, job.input_bytes, job.output_bytes, kNotMeasured});
      }
    }
  }

  network.flows().advance(start);
  std::unordered_map<network::FlowId, Flight> flights;  // looked up, never iterated
  std::vector<int> free_pes(sites.size());
  for (std::size_t site = 0; site < sites.size(); ++site) free_pes[site] = sites[site].pes;
  std::vector<std::deque<std::size_t>> waiting(sites.size());  // units, in arrival order
  std::multimap<TimePoint, std::size_t> run_ends;              // ties: in the order they started
  std::size_t returned = 0;
  // Background flows in flight, and how many per (sender, destination) pair.
  std::unordered_map<network::FlowId, std::uint64_t> background_pair;  // looked up, never iterated
  std::unordered_map<std::uint64_t, int> in_flight;
  const auto pair_key = [](ServerIndex from, ServerIndex to) { return (std::uint64_t{from} << 32U) | to; };

  // A serialised port puts one transfer on the user's first link after
  // another, each at that link's capacity (GridSim's output port is a FIFO of
  // packets); past the first link the transfers overlap as any flows do.
  std::multimap<TimePoint, std::size_t> port_free;  // (when, sender); ties in the order sent
  const auto send_next = [&](std::size_t s, TimePoint now) {
    Sender& sender = senders[s];
    if (sender.next >= sender.units.size()) return;
    const std::size_t u = sender.units[sender.next++];
    if (units[u].group != kNotMeasured) result.groups[units[u].group].sent = now;
    const ServerIndex to = sites[units[u].site].host;
    flights[network.start_transfer(units[u].from, to, units[u].in, now)] = {u, true};
    if (!spec.serial_uplink) return;
    const network::RouteView route = network.route(units[u].from, to);
    const Duration on_port =
        route.empty() ? Duration{} : seconds_ceil(units[u].in / network.graph().link(route.front()).bytes_per_second);
    port_free.emplace(now + on_port, s);
  };
  const auto run_next = [&](std::size_t site, TimePoint now) {
    while (free_pes[site] > 0 && !waiting[site].empty()) {
      const std::size_t u = waiting[site].front();
      waiting[site].pop_front();
      --free_pes[site];
      if (units[u].group != kNotMeasured) result.groups[units[u].group].started = now;
      run_ends.emplace(now + seconds_ceil(units[u].mi / sites[site].mips_per_pe), u);
    }
  };

  for (std::size_t s = 0; s < senders.size(); ++s) {
    if (spec.serial_uplink) {
      send_next(s, start);
    } else {
      while (senders[s].next < senders[s].units.size()) send_next(s, start);
    }
  }
  workload::BackgroundTraffic* traffic = load != nullptr ? load->traffic : nullptr;
  while (returned < groups.size()) {
    const TimePoint next = std::min({network.flows().next_event(), run_ends.empty() ? kNever : run_ends.begin()->first,
                                     port_free.empty() ? kNever : port_free.begin()->first,
                                     traffic != nullptr ? traffic->next_burst() : kNever});
    if (next == kNever) throw std::logic_error("job grouping: groups left with nothing under way");
    ++result.events;
    network.flows().advance(next);
    for (const auto& [id, when] : network.flows().take_completed()) {
      const auto it = flights.find(id);
      if (it == flights.end()) {
        const auto background = background_pair.find(id);
        if (background != background_pair.end()) {
          --in_flight[background->second];
          background_pair.erase(background);
        }
        continue;
      }
      const Flight flight = it->second;
      flights.erase(it);
      const Unit& unit = units[flight.unit];
      if (!flight.input) {
        if (unit.group == kNotMeasured) {
          ++load->other_jobs_done;
        } else {
          result.groups[unit.group].returned = when;
          ++returned;
        }
        continue;
      }
      if (unit.group != kNotMeasured) result.groups[unit.group].arrived = when;
      waiting[unit.site].push_back(flight.unit);
      run_next(unit.site, when);
    }
    while (!port_free.empty() && port_free.begin()->first <= next) {
      const auto [when, sender] = *port_free.begin();
      port_free.erase(port_free.begin());
      send_next(sender, when);
    }
    while (traffic != nullptr && traffic->next_burst() <= next) {
      const workload::TrafficBurst burst = traffic->pop();
      for (const ServerIndex to : load->destinations) {
        if (to == burst.from) continue;
        int& pending = in_flight[pair_key(burst.from, to)];
        if (pending >= load->max_in_flight_per_pair) {
          ++load->flows_dropped;
          continue;
        }
        ++pending;
        background_pair[network.start_transfer(burst.from, to, static_cast<double>(burst.bytes), burst.at)] =
            pair_key(burst.from, to);
        ++load->flows_started;
      }
    }
    result.peak_flows = std::max(result.peak_flows, network.flows().active_flows());
    while (!run_ends.empty() && run_ends.begin()->first <= next) {
      const auto [when, u] = *run_ends.begin();
      run_ends.erase(run_ends.begin());
      const Unit& unit = units[u];
      if (unit.group != kNotMeasured) result.groups[unit.group].finished = when;
      ++free_pes[unit.site];
      flights[network.start_transfer(sites[unit.site].host, unit.from, unit.out, when)] = {u, false};
      run_next(unit.site, when);
    }
  }
  TimePoint last = start;
  for (const GroupRecord& record : result.groups) last = std::max(last, record.returned);
  result.total = last - start;
  return result;
}

}  // namespace gridpeer::sim
