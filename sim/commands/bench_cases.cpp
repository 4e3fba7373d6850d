// gridsim bench's cases (the speed figures and their targets).
#include "sim/commands/bench_cases.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "peer/io/topology/network_graph.hpp"
#include "peer/model/rng.hpp"
#include "peer/network/network_model.hpp"
#include "sim/studies/coalloc_study.hpp"
#include "sim/studies/grid_experiment.hpp"
#include "sim/studies/grid_options.hpp"
#include "sim/studies/local_replay.hpp"
#include "sim/studies/synthetic_grid.hpp"
#include "sim/studies/workloads.hpp"

namespace gridpeer::sim::bench {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

CaseResult run_replay_case(LocalPolicy policy, const std::optional<std::string>& trace_dir) {
  // Batsim's semantics: jobs with run time <= 0 dropped, estimate =
  // max(requested, run) (the SWF conversion's defaults).
  const auto loading = Clock::now();
  WorkloadRequest request;
  request.source = kReplayLog;
  request.trace_dir = trace_dir;
  const Workload workload = load_workload(request);
  const double load_seconds = since(loading);
  const ServerSpec server{"SDSC-SP2", 128, 1, 1000, 0};
  const auto start = Clock::now();
  const LocalReplayResult replay = replay_local(server, {policy, 0}, workload.jobs);
  CaseResult result{replay.records.size(), replay.events, since(start), {}};
  double wait = 0;
  double turnaround = 0;
  for (const JobRecord& r : replay.records) {
    wait += to_seconds(r.wait());
    turnaround += to_seconds(r.response());
  }
  const auto n = static_cast<double>(std::max<std::size_t>(1, replay.records.size()));
  result.extra = {{"mean_wait_s", wait / n}, {"mean_turnaround_s", turnaround / n}, {"load_seconds", load_seconds}};
  return result;
}

/// A simulation shorter than this is run again, on the same loaded workload,
/// until the runs add up to kRepeatFor, and the median run is reported. One
/// run of 12 peers takes about 3 ms, most of it its first touches of memory:
/// single runs of one build gave 2.72 to 3.65 us per job, and the growth
/// target divides by that figure.
constexpr double kRepeatBelow = 0.1;
constexpr double kRepeatFor = 1.0;
constexpr std::size_t kMostRepeats = 501;

CaseResult run_grid_case(const ExperimentSpec& spec) {
  const topology::Topology grid = load_grid(spec);
  const GridWorkload workload = load_grid_workload(grid, spec.workload);
  ExperimentResult run = run_experiment(spec, workload);
  std::vector<double> seconds{run.wall_seconds};
  double total = run.wall_seconds;
  while (run.wall_seconds < kRepeatBelow && total < kRepeatFor && seconds.size() < kMostRepeats) {
    const std::uint64_t events = run.run.events;
    run = run_experiment(spec, workload);
    if (run.run.events != events) throw std::logic_error("bench: a repeated run gave other events");
    seconds.push_back(run.wall_seconds);
    total += run.wall_seconds;
  }
  std::sort(seconds.begin(), seconds.end());
  CaseResult result{run.summary.jobs, run.run.events, seconds[seconds.size() / 2], {}};
  result.extra = {{"runs", seconds.size()},
                  {"avg_response_s", run.summary.avg_response_s},
                  {"messages", run.run.messages},
                  {"fraction_transferred", run.summary.fraction_transferred}};
  return result;
}

CaseResult run_network_case() {
  // 10,000 flows of 1-100 MB between random servers of a 100-server grid,
  // all started at t = 0, run until the last completes.
  const topology::Topology grid = synthetic_grid(100);
  network::NetworkModel network(topology::network_graph(grid), network::Sharing::equal_share,
                                topology::route_rule(grid));
  Rng rng(1);
  const auto start = Clock::now();
  const TimePoint zero{};
  constexpr std::size_t kFlows = 10'000;
  for (std::size_t i = 0; i < kFlows; ++i) {
    const auto from = static_cast<ServerIndex>(rng.uniform_int(0, 99));
    auto to = static_cast<ServerIndex>(rng.uniform_int(0, 98));
    if (to >= from) ++to;
    network.start_transfer(from, to, rng.uniform(1e6, 1e8), zero);
  }
  std::uint64_t events = 0;
  std::size_t completed = 0;
  for (TimePoint next = network.flows().next_event(); next != kNever; next = network.flows().next_event()) {
    network.flows().advance(next);
    completed += network.flows().take_completed().size();
    ++events;
  }
  CaseResult result{completed, events, since(start), {}};
  result.extra = {{"flows", kFlows}};
  return result;
}

ExperimentSpec synthetic_spec(std::size_t servers, std::size_t jobs_per_server) {
  ExperimentSpec spec;
  spec.topology_file = "synthetic:" + std::to_string(servers);
  spec.workload.source = "synthetic";
  spec.workload.synthetic_jobs_per_server = jobs_per_server;
  spec.config.algorithm = GridAlgorithm::sender;
  spec.partners = topology::parse_partner_rule("random:8");
  return spec;
}

CaseResult run_coalloc_case(CoallocationMethod method, bool quick) {
  CoallocSpec spec;  // 000's grid and workload
  spec.jobs_per_cluster = quick ? 40'000 : 400'000;
  spec.config.method = method;
  spec.config.traffic.bisection_mbps = 800;
  spec.config.lslt = 1.2;
  const std::vector<Job> jobs = coalloc_workload(spec);
  const auto start = Clock::now();
  const CoallocResult result = run_coalloc(spec, jobs, false);
  CaseResult r;
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.jobs = result.jobs;
  r.events = result.events;
  r.extra = {{"avg_turnaround_s", result.avg_turnaround_s}, {"retimings", result.retimings}};
  return r;
}

/// Jobs per server of the peer-growth cases: the same at every size, so
/// that microseconds per job compare across sizes.
constexpr std::size_t kJobsPerPeer = 100;
/// 100,000 peers get fewer: a million jobs, as at 10,000 peers.
constexpr std::size_t kJobsPer100kPeer = 10;

/// "peers-N" (or "ri-N", "syi-N"), or "peers-NxJ": N servers, J jobs each.
ExperimentSpec peers_spec(const std::string& name, std::size_t prefix) {
  const auto servers = static_cast<std::size_t>(std::stoull(name.substr(prefix)));
  const std::size_t times = name.find('x', prefix);
  const std::size_t jobs = times != std::string::npos ? static_cast<std::size_t>(std::stoull(name.substr(times + 1)))
                           : servers >= 100'000       ? kJobsPer100kPeer
                                                      : kJobsPerPeer;
  ExperimentSpec spec = synthetic_spec(servers, jobs);
  // 8,334 sites joined pair by pair would be 35 million WAN links before any
  // job runs: an access link per site instead (docs/performance.md).
  if (servers >= 100'000) spec.selection.wan = network::WanShape::per_site;
  return spec;
}

}  // namespace

std::vector<CaseSpec> all_cases(bool quick, bool every) {
  std::vector<CaseSpec> cases;
  for (const char* policy : {"fcfs", "easy", "conservative"}) {
    cases.push_back(
        {std::string("replay-") + policy,
         std::string("SDSC-SP2 (54,034 jobs) on one 128-CPU server, ") + policy + ", whole process with parsing",
         true});
    cases.push_back({std::string("yardstick-") + policy,
                     std::string("the same in a plain Python event loop (gridsim bench --print-yardstick), ") + policy,
                     true, CaseKind::yardstick, std::string(policy) == "conservative"});
  }
  cases.push_back({"parse-floor", "zcat | awk over the SDSC-SP2 log: the parsing floor", true, CaseKind::parse_floor});
  const std::string window = quick ? "first 30 days of each window" : "whole windows, 141,394 jobs";
  for (const char* algorithm : {"local", "central", "si", "ri", "syi"}) {
    cases.push_back({std::string("grid12-") + algorithm, std::string("Shan et al.'s 12 servers, ") + window, true});
  }
  cases.push_back({"network-10k", "10,000 concurrent flows on a 100-server grid, equal share", false});
  for (const char* n : {"12", "100", "1000", "10000", "100000"}) {
    const bool huge = std::string(n) == "100000";
    cases.push_back({std::string("peers-") + n,
                     std::string("synthetic:") + n + ", " + (huge ? "10" : "100") +
                         " Lublin jobs per server, S-I, random:8 partners" + (huge ? ", a WAN link per site" : ""),
                     false, CaseKind::in_process, std::string(n).size() >= 5});
  }
  cases.push_back({"peers-100000x100",
                   "synthetic:100000, 100 Lublin jobs per server (10 million jobs), S-I, random:8 partners, a WAN "
                   "link per site; about 5 minutes",
                   false, CaseKind::in_process, true, true});
  for (const char* name : {"ri-100", "ri-1000", "syi-1000"}) {
    const std::string n = std::string(name).substr(std::string(name).find('-') + 1);
    cases.push_back({name,
                     "synthetic:" + n + ", 100 Lublin jobs per server, " +
                         (name[0] == 'r' ? std::string("R-I") : std::string("Sy-I")) + ", random:8 partners",
                     false});
  }
  for (const char* jobs : {"100", "300", "1000"}) {
    cases.push_back({std::string("jobs-") + jobs,
                     std::string("synthetic:100, ") + jobs + " jobs per server, S-I, random:8 partners", false});
  }
  const std::string coalloc = quick ? "4 x 100 nodes, 160,000 jobs" : "4 x 100 nodes, 1.6 million jobs";
  cases.push_back({"coalloc-migration", "Jones et al. 2004, Migration Only, " + coalloc, false});
  cases.push_back(
      {"coalloc-a1", "Jones et al. 2004, A1 at BSBW 800, LSLT 120% (links over-saturate), " + coalloc, false});
  cases.push_back({"sweep-002", "gridsim sweep shan2004 --seeds 1: Shan et al.'s 126 runs, 2 threads", true,
                   CaseKind::sweep, true});
  cases.push_back({"sweep-002-heavy", "the same at three times the load (--set load-factor=3): a heavier grid; hours",
                   true, CaseKind::sweep, true, true});
  // The three big studies as a researcher runs them, each only when named.
  cases.push_back({"study-shan2004", "gridsim sweep shan2004 (five seeds): 630 runs, 2 threads", true, CaseKind::sweep,
                   true, true});
  cases.push_back({"study-jones2004", "gridsim sweep jones2004: 1,974 runs of 1.6 million jobs, 2 threads", false,
                   CaseKind::sweep, true, true});
  cases.push_back(
      {"study-shih2010", "gridsim sweep shih2010: Shih et al.'s runs, 2 threads", true, CaseKind::sweep, true, true});
  if (!every) std::erase_if(cases, [&](const CaseSpec& c) { return c.on_request || (quick && c.slow); });
  return cases;
}

CaseResult run_case(const std::string& name, bool quick, const std::optional<std::string>& trace_dir) {
  if (name == "replay-fcfs") return run_replay_case(LocalPolicy::fcfs, trace_dir);
  if (name == "replay-easy") return run_replay_case(LocalPolicy::easy, trace_dir);
  if (name == "replay-conservative") return run_replay_case(LocalPolicy::conservative, trace_dir);
  if (name.rfind("grid12-", 0) == 0) {
    ExperimentSpec spec;
    spec.topology_file = default_topology_file();
    spec.workload.trace_dir = trace_dir;
    spec.workload.limit_days = quick ? 30 : 0;
    const auto algorithm = parse_grid_algorithm(name.substr(7));
    if (!algorithm) throw std::invalid_argument("unknown case " + name);
    spec.config.algorithm = *algorithm;
    return run_grid_case(spec);
  }
  if (name == "network-10k") return run_network_case();
  if (name == "coalloc-migration") return run_coalloc_case(CoallocationMethod::migration_only, quick);
  if (name == "coalloc-a1") return run_coalloc_case(CoallocationMethod::a1, quick);
  if (name.rfind("peers-", 0) == 0) return run_grid_case(peers_spec(name, 6));
  if (name.rfind("ri-", 0) == 0 || name.rfind("syi-", 0) == 0) {
    const std::size_t dash = name.find('-');
    ExperimentSpec spec = peers_spec(name, dash + 1);
    spec.config.algorithm = name[0] == 'r' ? GridAlgorithm::receiver : GridAlgorithm::symmetric;
    return run_grid_case(spec);
  }
  if (name == "jobs-100") return run_grid_case(synthetic_spec(100, 100));
  if (name == "jobs-300") return run_grid_case(synthetic_spec(100, 300));
  if (name == "jobs-1000") return run_grid_case(synthetic_spec(100, 1000));
  throw std::invalid_argument("unknown case '" + name + "' (gridsim bench --list)");
}

}  // namespace gridpeer::sim::bench
