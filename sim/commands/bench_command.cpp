// gridsim bench: the speed figures of issue 7, each case in a process of its
// own so that its peak memory is its own (getrusage of the child).
#include <fmt/format.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cxxopts.hpp>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "peer/io/cli/parse.hpp"
#include "peer/io/topology/network_graph.hpp"
#include "peer/io/traces/trace_file.hpp"
#include "peer/model/rng.hpp"
#include "peer/network/network_model.hpp"
#include "sim/commands/commands.hpp"
#include "sim/experiments/coalloc_study.hpp"
#include "sim/experiments/grid_experiment.hpp"
#include "sim/experiments/grid_options.hpp"
#include "sim/experiments/local_replay.hpp"
#include "sim/experiments/synthetic_grid.hpp"
#include "sim/experiments/workloads.hpp"

extern char** environ;

namespace gridpeer::sim {
namespace {

using Clock = std::chrono::steady_clock;

/// What a case reports from inside its process.
struct CaseResult {
  std::size_t jobs = 0;
  std::uint64_t events = 0;
  double seconds = 0;  ///< simulation only, loading excluded
  nlohmann::json extra = nlohmann::json::object();
};

struct CaseSpec {
  std::string name;
  std::string what;
  bool needs_traces = false;
};

std::vector<CaseSpec> all_cases(bool quick) {
  std::vector<CaseSpec> cases{
      {"replay-fcfs", "SDSC-SP2 (54,034 jobs) on one 128-CPU server, FCFS", true},
      {"replay-easy", "the same, EASY backfilling", true},
      {"replay-conservative", "the same, conservative backfilling", true},
  };
  const std::string window = quick ? "first 30 days of each window" : "whole windows, 141,394 jobs";
  for (const char* algorithm : {"local", "central", "si", "ri", "syi"}) {
    cases.push_back({std::string("grid12-") + algorithm, std::string("Shan et al.'s 12 servers, ") + window, true});
  }
  cases.push_back({"network-10k", "10,000 concurrent flows on a 100-server grid, equal share", false});
  const std::string per = quick ? "100" : "1,000";
  for (const char* n : {"12", "100", "1000"}) {
    cases.push_back({std::string("scale-") + n,
                     std::string("synthetic:") + n + ", " + per + " Lublin jobs per server, S-I, random:8 partners",
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
  return cases;
}

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

CaseResult run_replay_case(LocalPolicy policy, const std::optional<std::string>& trace_dir) {
  // Batsim's semantics: jobs with run time <= 0 dropped, estimate =
  // max(requested, run) (the SWF conversion's defaults).
  WorkloadRequest request;
  request.source = "SDSC-SP2-1998-4.2-cln.swf.gz";
  request.trace_dir = trace_dir;
  const Workload workload = load_workload(request);
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
  result.extra = {{"mean_wait_s", wait / n}, {"mean_turnaround_s", turnaround / n}};
  return result;
}

CaseResult run_grid_case(const ExperimentSpec& spec) {
  const topology::Topology grid = load_grid(spec);
  const GridWorkload workload = load_grid_workload(grid, spec.workload);
  const ExperimentResult run = run_experiment(spec, workload);
  CaseResult result{run.summary.jobs, run.run.events, run.wall_seconds, {}};
  result.extra = {{"avg_response_s", run.summary.avg_response_s},
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
  const std::size_t per = quick ? 100 : 1000;
  if (name == "scale-12") return run_grid_case(synthetic_spec(12, per));
  if (name == "scale-100") return run_grid_case(synthetic_spec(100, per));
  if (name == "scale-1000") return run_grid_case(synthetic_spec(1000, per));
  if (name == "jobs-100") return run_grid_case(synthetic_spec(100, 100));
  if (name == "jobs-300") return run_grid_case(synthetic_spec(100, 300));
  if (name == "jobs-1000") return run_grid_case(synthetic_spec(100, 1000));
  throw std::invalid_argument("unknown case '" + name + "' (gridsim bench --list)");
}

struct Measured {
  CaseResult inside;
  double wall_seconds = 0;  ///< the whole child: loading, parsing, simulation
  double peak_rss_mb = 0;
};

/// Runs `gridsim bench --case NAME` as a child and reads its one JSON line.
Measured run_child(const std::string& name, bool quick, const std::optional<std::string>& trace_dir) {
  std::vector<std::string> args{"/proc/self/exe", "bench", "--case", name};
  if (quick) args.emplace_back("--quick");
  if (trace_dir) {
    args.emplace_back("--trace-dir");
    args.push_back(*trace_dir);
  }
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) throw std::runtime_error("bench: cannot make a pipe");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  pid_t pid = 0;
  const auto start = Clock::now();
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (spawned != 0) {
    close(pipe_fds[0]);
    throw std::runtime_error("bench: cannot start the case " + name);
  }
  std::string output;
  char buffer[4096];
  for (ssize_t got; (got = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) output.append(buffer, buffer + got);
  close(pipe_fds[0]);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  Measured m;
  m.wall_seconds = since(start);
  m.peak_rss_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB on Linux
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error("bench: case " + name + " failed (run gridsim bench --case " + name + " to see why)");
  }
  const auto json = nlohmann::json::parse(output);
  m.inside.jobs = json.at("jobs").get<std::size_t>();
  m.inside.events = json.at("events").get<std::uint64_t>();
  m.inside.seconds = json.at("seconds").get<double>();
  m.inside.extra = json.at("extra");
  return m;
}

}  // namespace

int run_bench_command(int argc, char** argv) {
  cxxopts::Options options(
      "gridsim bench",
      "Speed benchmarks: the SDSC-SP2 single-cluster replay (the Batsim comparison), Shan et al.'s 12-server grid per\n"
      "algorithm, the network model under 10,000 concurrent flows, and growth in peers (12, 100, 1,000) and in\n"
      "jobs per peer. Each case runs in a process of its own; reports wall seconds (loading included), simulation\n"
      "seconds, jobs/s, events/s, microseconds per job and peak RSS.");
  options.add_options()("quick", "smaller cases (30-day windows, 100 jobs per synthetic server): 10-30 s on 2 cores")(
      "out", "write the figures as JSON here", cxxopts::value<std::string>())(
      "cases", "only these cases (comma-separated; see --list)", cxxopts::value<std::vector<std::string>>())(
      "list", "list the cases and exit")("trace-dir", "where trace files are", cxxopts::value<std::string>())(
      "case", "run one case in this process and print its JSON line (what bench itself runs)",
      cxxopts::value<std::string>())("h,help", "show this help");
  const auto command_line = cli::parse_or_help(options, argc, argv);
  if (!command_line) return 0;
  const cxxopts::ParseResult& args = *command_line;
  const bool quick = args.count("quick") != 0U;
  const std::optional<std::string> trace_dir =
      args.count("trace-dir") != 0U ? std::optional(args["trace-dir"].as<std::string>()) : std::nullopt;
  if (args.count("case") != 0U) {
    const CaseResult r = run_case(args["case"].as<std::string>(), quick, trace_dir);
    std::cout << nlohmann::json{{"jobs", r.jobs}, {"events", r.events}, {"seconds", r.seconds}, {"extra", r.extra}}
              << '\n';
    return 0;
  }
  std::vector<CaseSpec> cases = all_cases(quick);
  if (args.count("list") != 0U) {
    for (const auto& c : cases) std::cout << fmt::format("{:<20} {}\n", c.name, c.what);
    return 0;
  }
  if (args.count("cases") != 0U) {
    const auto wanted = args["cases"].as<std::vector<std::string>>();
    std::vector<CaseSpec> chosen;
    for (const auto& name : wanted) {
      const auto it = std::find_if(cases.begin(), cases.end(), [&](const CaseSpec& c) { return c.name == name; });
      if (it == cases.end()) throw std::invalid_argument("unknown case '" + name + "' (gridsim bench --list)");
      chosen.push_back(*it);
    }
    cases = chosen;
  }
  bool traces = true;
  try {
    traces::resolve_trace_file("SDSC-SP2-1998-4.2-cln.swf.gz", traces::resolve_trace_dir(trace_dir));
  } catch (const std::exception&) {
    traces = false;
  }
  std::cout << fmt::format("{:<20} {:>9} {:>11} {:>8} {:>8} {:>10} {:>11} {:>8} {:>8}\n", "case", "jobs", "events",
                           "wall s", "sim s", "jobs/s", "events/s", "us/job", "RSS MB");
  nlohmann::json out = nlohmann::json::array();
  for (const CaseSpec& c : cases) {
    if (c.needs_traces && !traces) {
      std::cout << fmt::format("{:<20} skipped: no traces (set --trace-dir or GRIDPEER_TRACE_DIR)\n", c.name);
      continue;
    }
    const Measured m = run_child(c.name, quick, trace_dir);
    const double jobs = static_cast<double>(m.inside.jobs);
    const double per_second = m.inside.seconds > 0 ? jobs / m.inside.seconds : 0.0;
    const double events_per_second =
        m.inside.seconds > 0 ? static_cast<double>(m.inside.events) / m.inside.seconds : 0.0;
    const double us_per_job = jobs > 0 ? 1e6 * m.inside.seconds / jobs : 0.0;
    std::cout << fmt::format("{:<20} {:>9} {:>11} {:>8.2f} {:>8.2f} {:>10.0f} {:>11.0f} {:>8.2f} {:>8.1f}\n", c.name,
                             m.inside.jobs, m.inside.events, m.wall_seconds, m.inside.seconds, per_second,
                             events_per_second, us_per_job, m.peak_rss_mb)
              << std::flush;
    nlohmann::json row = {{"case", c.name},
                          {"what", c.what},
                          {"jobs", m.inside.jobs},
                          {"events", m.inside.events},
                          {"wall_seconds", m.wall_seconds},
                          {"simulation_seconds", m.inside.seconds},
                          {"jobs_per_second", per_second},
                          {"events_per_second", events_per_second},
                          {"us_per_job", us_per_job},
                          {"peak_rss_mb", m.peak_rss_mb}};
    row.update(m.inside.extra);
    out.push_back(row);
  }
  if (args.count("out") != 0U) {
    std::ofstream(args["out"].as<std::string>()) << nlohmann::json{{"quick", quick}, {"cases", out}}.dump(2) << '\n';
  }
  return 0;
}

}  // namespace gridpeer::sim
