#include "sim/studies/grouping_study.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "peer/io/topology/network_graph.hpp"
#include "peer/io/topology/topology.hpp"
#include "peer/model/rng.hpp"
#include "peer/network/network_model.hpp"
#include "sim/studies/cli_support.hpp"
#include "sim/studies/run_identity.hpp"

namespace gridpeer::sim {

namespace {

// The background bursts' stream of the run's seed, after the bag's
// (bag_workload.hpp).
constexpr std::uint64_t kBurstStream = 3;

}  // namespace

void add_grouping_options(cxxopts::Options& options) {
  options.add_options("grid")(
      "topology",
      "a routed topology: its servers are the resources (mhz = MIPS per PE, CPUs = PEs), its hosts the users "
      "(built-in name or file; default the BADG-like ang2007-badg)",
      cxxopts::value<std::string>()->default_value("ang2007-badg"))(
      "user", "the measured user: a host of the topology", cxxopts::value<std::string>()->default_value("mel-u1"))(
      "fixed-network",
      "keep the capacities the file draws with its own seed; by default each run re-draws the link classes with "
      "--seed, so seeds vary the network too")("seed",
                                               "seed of the jobs, files, bursts and (see --fixed-network) "
                                               "link capacities",
                                               cxxopts::value<std::uint64_t>()->default_value("1"));
  add_bag_workload_options(options);
  options.add_options("workload")("no-background", "no background bursts")(
      "burst-buffer",
      "bursts of one sender to one destination that may be in flight at once; a burst beyond it is dropped, as junk "
      "packets at a full drop-tail buffer (keeps saturated links from piling up flows for ever)",
      cxxopts::value<int>()->default_value("1"))("burst-gap", "mean gap of a user's background bursts (s)",
                                                 cxxopts::value<double>()->default_value("16"));
  add_grouping_rule_options(options);
  options.add_options("scheduler")(
      "shared-uplink", "users send their transfers at once, sharing their link, instead of one after another")(
      "current-share", "order resources by the share a new flow would get now instead of static capacity")(
      "link-sharing",
      "how transfers share a link: first-come (FIFO link queues, as the GridSim packet network of Ang et al. 2007 "
      "forwards packets: a transfer sent first goes ahead of later ones on every link they share) or max-min (fluid "
      "fair shares)",
      cxxopts::value<std::string>()->default_value("first-come"));
}

GroupingStudySpec grouping_spec_from_options(const cxxopts::ParseResult& args) {
  GroupingStudySpec spec;
  spec.topology = args["topology"].as<std::string>();
  spec.user = args["user"].as<std::string>();
  spec.fixed_network = args.count("fixed-network") != 0U;
  spec.seed = args["seed"].as<std::uint64_t>();
  spec.bag = bag_workload_from_options(args);
  spec.background = args.count("no-background") == 0U;
  spec.burst_gap_s = args["burst-gap"].as<double>();
  if (!(spec.burst_gap_s > 0)) throw std::invalid_argument("--burst-gap: give a number of seconds above 0");
  spec.burst_buffer = args["burst-buffer"].as<int>();
  if (spec.burst_buffer < 1) throw std::invalid_argument("--burst-buffer: give 1 or more");
  spec.rule = grouping_rule_from_options(args);
  spec.serial_uplink = args.count("shared-uplink") == 0U;
  spec.current_share = args.count("current-share") != 0U;
  const std::string sharing = args["link-sharing"].as<std::string>();
  const auto parsed = network::parse_sharing(sharing);
  if (!parsed || *parsed == network::Sharing::equal_share) {
    throw std::invalid_argument("--link-sharing: '" + sharing + "' is not max-min or first-come");
  }
  spec.link_sharing = *parsed;
  return spec;
}

GroupingStudyResult run_grouping_study(const GroupingStudySpec& spec) {
  const auto started = std::chrono::steady_clock::now();
  const topology::Topology grid = load_drawn_topology(spec.topology, spec.fixed_network, spec.seed);
  if (!grid.routed) {
    throw std::invalid_argument("--topology: " + grid.name +
                                " has no [routed] network; job grouping runs on a routed grid (e.g. ang2007-badg)");
  }
  const auto user = grid.find_host(spec.user);
  if (!user) throw std::invalid_argument("--user: '" + spec.user + "' is not a host of " + grid.name);

  GroupingStudyResult result;
  std::vector<GroupingSite> sites;
  // A user that is a server (a SimGrid platform has only hosts) is not one
  // of its own resources.
  for (ServerIndex i = 0; i < grid.servers.size(); ++i) {
    if (i == *user) continue;
    const ServerSpec& server = grid.servers[i].spec;
    sites.push_back({i, server.total_cpus(), static_cast<double>(server.mhz)});
    result.resources.push_back(server.name);
  }
  network::NetworkModel network(topology::network_graph(grid), spec.link_sharing, topology::route_rule(grid));

  Rng root(spec.seed);
  Rng bag = root.fork(kBagStream);
  std::vector<GroupingJob> jobs;
  for (std::size_t j = 0; j < spec.bag.jobs; ++j) {
    jobs.push_back(draw_bag_job(bag, spec.bag));
    result.job_mi.push_back(jobs.back().mi);
  }
  // Every host but the measured user is another user: servers are resources,
  // the rest ([[routed.hosts]]) users. User k's j-th job goes to resource
  // (k + j) mod n, so the users do not all start on R1 [choice].
  const std::size_t hosts = grid.servers.size() + grid.routed->hosts.size();
  GroupingLoad load;
  Rng others = root.fork(kOthersStream);
  std::vector<ServerIndex> users;
  for (auto h = static_cast<ServerIndex>(grid.servers.size()); h < hosts; ++h) users.push_back(h);
  for (std::size_t k = 0; k < users.size(); ++k) {
    if (users[k] == *user) continue;
    OtherUserJobs other{users[k], {}};
    for (int j = 0; j < spec.bag.other_jobs; ++j) {
      other.jobs.emplace_back((k + static_cast<std::size_t>(j)) % sites.size(), draw_bag_job(others, spec.bag));
    }
    result.other_jobs += other.jobs.size();
    load.others.push_back(std::move(other));
  }
  std::unique_ptr<workload::BackgroundTraffic> traffic;
  if (spec.background) {
    workload::BackgroundTrafficConfig bursts;
    bursts.mean_gap_s = spec.burst_gap_s;
    traffic = std::make_unique<workload::BackgroundTraffic>(users, bursts, root.fork(kBurstStream), TimePoint{});
    load.traffic = traffic.get();
    load.max_in_flight_per_pair = spec.burst_buffer;
    for (ServerIndex h = 0; h < hosts; ++h) load.destinations.push_back(h);
  }

  GroupingRunSpec run;
  run.scheduler = spec.rule.scheduler;
  run.granularity_s = spec.rule.granularity_s;
  run.total_mips = spec.rule.total_mips;
  run.serial_uplink = spec.serial_uplink;
  run.current_share = spec.current_share;
  run.user = *user;
  result.run = run_grouping(network, sites, jobs, run, TimePoint{}, &load);
  result.background_flows = load.flows_started;
  result.background_dropped = load.flows_dropped;
  result.other_jobs_done = load.other_jobs_done;

  const double span = to_seconds(result.run.total);
  for (network::LinkId id = 0; id < network.graph().links().size(); ++id) {
    const network::Link& link = network.graph().link(id);
    const double capacity = link.bytes_per_second;
    result.links.push_back(
        {link.name, capacity * 8 / 1e6, span > 0 ? network.flows().link_bytes(id) / (capacity * span) : 0.0});
  }
  result.wall_seconds = seconds_since(started);
  return result;
}

nlohmann::json grouping_identity(const GroupingStudySpec& spec, const std::string& topology_hash) {
  // No grouping reads neither the granularity nor the RMI rule; only the
  // bandwidth-aware scheduler reads the bandwidth: their runs at other values
  // are one run.
  const bool groups = spec.rule.scheduler != GroupingScheduler::none;
  const bool reads_bandwidth = spec.rule.scheduler == GroupingScheduler::bandwidth_aware;
  const nlohmann::json null = nullptr;
  nlohmann::json identity = {
      {"version", gridpeer_version()},
      {"model", "grouping"},
      {"options",
       {{"topology", spec.topology},
        {"user", spec.user},
        {"jobs", spec.bag.jobs},
        {"mi", spec.bag.mean_mi},
        {"mi_spread", spec.bag.mi_spread},
        {"granularity_s", groups ? nlohmann::json(spec.rule.granularity_s) : null},
        {"other_jobs", spec.bag.other_jobs},
        {"file_kb", {spec.bag.min_file_kb, spec.bag.max_file_kb}},
        {"scheduler", to_string(spec.rule.scheduler)},
        {"total_mips", groups ? nlohmann::json(spec.rule.total_mips) : null},
        {"serial_uplink", spec.serial_uplink},
        {"current_share", reads_bandwidth ? nlohmann::json(spec.current_share) : null},
        {"background", spec.background},
        {"burst_gap_s", spec.background ? nlohmann::json(spec.burst_gap_s) : nlohmann::json(nullptr)},
        {"burst_buffer", spec.background ? nlohmann::json(spec.burst_buffer) : nlohmann::json(nullptr)},
        {"fixed_network", spec.fixed_network},
        {"seed", spec.seed}}},
      {"inputs", {{"topology", topology_hash}}}};
  identity["options"]["link_sharing"] = network::to_string(spec.link_sharing);
  return identity;
}

GroupingFigures grouping_figures(const GroupingStudySpec& spec, const GroupingStudyResult& result) {
  GroupingFigures f;
  double utilisation_sum = 0;
  for (const LinkUse& link : result.links) {
    utilisation_sum += link.utilisation;
    f.peak_link_utilisation = std::max(f.peak_link_utilisation, link.utilisation);
    if (link.utilisation >= 0.9) ++f.saturated_links;
  }
  f.mean_link_utilisation = result.links.empty() ? 0.0 : utilisation_sum / static_cast<double>(result.links.size());
  for (const GroupRecord& g : result.run.groups) f.bag_mi += g.mi;
  const auto group_count = static_cast<double>(result.run.groups.size());
  f.mean_group_jobs = group_count > 0 ? static_cast<double>(spec.bag.jobs) / group_count : 0.0;
  for (std::size_t r = 0; r < result.resources.size(); ++r) {
    f.path_mbps[result.resources[r]] = result.run.bandwidths.at(r) * 8 / 1e6;
  }
  return f;
}

nlohmann::json grouping_json(const GroupingStudySpec& spec, const GroupingStudyResult& result, bool include_timing) {
  const GroupingFigures f = grouping_figures(spec, result);
  nlohmann::json links = nlohmann::json::array();
  for (const LinkUse& link : result.links) {
    links.push_back({{"link", link.name}, {"mbps", link.mbps}, {"utilisation", link.utilisation}});
  }
  nlohmann::json groups = nlohmann::json::array();
  for (const GroupRecord& g : result.run.groups) {
    groups.push_back({{"resource", result.resources.at(g.site)},
                      {"jobs", g.jobs},
                      {"mi", g.mi},
                      {"sent_s", to_seconds(g.sent)},
                      {"arrived_s", to_seconds(g.arrived)},
                      {"started_s", to_seconds(g.started)},
                      {"finished_s", to_seconds(g.finished)},
                      {"returned_s", to_seconds(g.returned)}});
  }
  return {{"model", "grouping"},
          {"topology", spec.topology},
          {"workload",
           fmt::format("a bag of {} jobs of {:g} MI +- {:g}%, files {:g}-{:g} KB, {} jobs per other user{}",
                       spec.bag.jobs, spec.bag.mean_mi, spec.bag.mi_spread * 100, spec.bag.min_file_kb,
                       spec.bag.max_file_kb, spec.bag.other_jobs, spec.background ? ", background bursts" : "")},
          {"unfinished_jobs", 0},
          {"events", result.run.events},
          {"user", spec.user},
          {"link_sharing", network::to_string(spec.link_sharing)},
          {"scheduler", to_string(spec.rule.scheduler)},
          {"jobs", spec.bag.jobs},
          {"granularity_s", spec.rule.granularity_s},
          {"other_jobs_per_user", spec.bag.other_jobs},
          {"file_kb", {spec.bag.min_file_kb, spec.bag.max_file_kb}},
          {"seed", spec.seed},
          {"total_s", to_seconds(result.run.total)},
          {"groups", result.run.groups.size()},
          {"mean_group_jobs", f.mean_group_jobs},
          {"bag_mi", f.bag_mi},
          {"path_mbps", f.path_mbps},
          {"other_jobs", result.other_jobs},
          {"other_jobs_done", result.other_jobs_done},
          {"background_flows", result.background_flows},
          {"background_dropped", result.background_dropped},
          {"peak_flows", result.run.peak_flows},
          {"mean_link_utilisation", f.mean_link_utilisation},
          {"peak_link_utilisation", f.peak_link_utilisation},
          {"saturated_links", f.saturated_links},
          {"links", links},
          {"group_list", groups},
          {"wall_seconds", include_timing ? result.wall_seconds : 0.0}};
}

std::string grouping_groups_csv(const GroupingStudyResult& result) {
  std::ostringstream csv;
  csv << "order,resource,jobs,mi,sent_s,arrived_s,started_s,finished_s,returned_s\n";
  for (std::size_t i = 0; i < result.run.groups.size(); ++i) {
    const GroupRecord& g = result.run.groups[i];
    csv << fmt::format("{},{},{},{:.3f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f}\n", i + 1, result.resources.at(g.site),
                       g.jobs, g.mi, to_seconds(g.sent), to_seconds(g.arrived), to_seconds(g.started),
                       to_seconds(g.finished), to_seconds(g.returned));
  }
  return csv.str();
}

const std::vector<std::string>& grouping_summary_metrics() {
  static const std::vector<std::string> metrics = {"total_s",
                                                   "groups",
                                                   "mean_group_jobs",
                                                   "background_flows",
                                                   "peak_flows",
                                                   "mean_link_utilisation",
                                                   "peak_link_utilisation",
                                                   "other_jobs_done"};
  return metrics;
}

}  // namespace gridpeer::sim
