// gridsim replay: one server, its local scheduler, a workload; metrics per policy.
#include <fmt/format.h>
#include <chrono>
#include <cxxopts.hpp>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "peer/core/local/local_policy.hpp"
#include "peer/core/metrics.hpp"
#include "peer/io/report/jobs_csv.hpp"
#include "peer/io/topology/topology.hpp"
#include "sim/commands/commands.hpp"
#include "sim/experiments/cli_support.hpp"
#include "sim/experiments/local_replay.hpp"
#include "sim/experiments/workloads.hpp"

#include "peer/io/cli/parse.hpp"

namespace gridpeer::sim {
namespace {

struct PolicyRun {
  LocalPolicyConfig policy;
  LocalReplayResult replay;
  MetricsSummary summary;
  double wall_seconds = 0;
};

std::string policy_label(const LocalPolicyConfig& policy) {
  std::string label(to_string(policy.policy));
  if (policy.policy == LocalPolicy::conservative && policy.reservation_depth > 0) {
    label += "(depth " + std::to_string(policy.reservation_depth) + ")";
  }
  return label;
}

nlohmann::json to_json(const PolicyRun& run) {
  const MetricsSummary& s = run.summary;
  return {{"policy", policy_label(run.policy)},
          {"reservation_depth", run.policy.reservation_depth},
          {"jobs", s.jobs},
          {"rejected", run.replay.rejected},
          {"avg_wait_s", s.avg_wait_s},
          {"avg_response_s", s.avg_response_s},
          {"avg_bounded_slowdown", s.avg_bounded_slowdown},
          {"max_wait_s", s.max_wait_s},
          {"utilization", s.per_server.empty() ? 0.0 : s.per_server.front().utilization},
          {"span_s", s.span_s},
          {"max_queue", run.replay.max_queue},
          {"events", run.replay.events},
          {"wall_seconds", run.wall_seconds},
          {"jobs_per_second", run.wall_seconds > 0 ? static_cast<double>(s.jobs) / run.wall_seconds : 0.0}};
}

/// Every job's row; a job without a record was wider than the server.
std::vector<report::JobRow> replay_rows(const Workload& workload, const LocalReplayResult& replay) {
  std::vector<bool> completed(workload.jobs.size(), false);
  for (const JobRecord& r : replay.records) completed.at(r.id) = true;
  std::vector<report::JobEnding> endings;
  for (std::size_t id = 0; id < completed.size(); ++id) {
    if (!completed[id])
      endings.push_back({static_cast<JobId>(id), report::RowState::rejected, "wider than the server"});
  }
  return report::rows_for_jobs(workload.jobs, workload.sources, replay.records, endings);
}

}  // namespace

int run_replay_command(int argc, char** argv) {
  cxxopts::Options options("gridsim replay",
                           "Replay a workload on one compute server through its local-scheduler emulator\n"
                           "(no grid) and report wait, response, bounded slowdown and utilization.");
  options.add_options()("workload",
                        "synthetic (= lublin), lublin, feitelson96, poisson, 'topology' (the --server's trace "
                        "window from --topology), or an SWF file (.swf or .swf.gz)",
                        cxxopts::value<std::string>()->default_value("synthetic"))(
      "jobs", "number of jobs of a synthetic workload", cxxopts::value<std::size_t>()->default_value("5000"))(
      "seed", "seed of the synthetic workload (printed; reuse it to reproduce a run)",
      cxxopts::value<std::uint64_t>()->default_value("1"))("policy", "local policy: fcfs, easy, conservative, or all",
                                                           cxxopts::value<std::string>()->default_value("all"))(
      "depth", "reservation depth of conservative backfilling (0 = every queued job)",
      cxxopts::value<int>()->default_value("0"))("nodes", "server nodes (default: the trace's MaxProcs, else 128)",
                                                 cxxopts::value<int>())("cpus-per-node", "CPUs per node",
                                                                        cxxopts::value<int>()->default_value("1"))(
      "mhz", "CPU clock (only scales weighted metrics here)", cxxopts::value<int>()->default_value("1000"))(
      "topology", "take the server from this topology file (with --server)", cxxopts::value<std::string>())(
      "server", "server name in --topology, e.g. S3", cxxopts::value<std::string>())(
      "window-start", "only jobs submitted from this date (YYYY-MM-DD, UTC), shifted to time 0",
      cxxopts::value<std::string>()->default_value(""))("window-days", "length of the window in days",
                                                        cxxopts::value<int>()->default_value("92"))(
      "trace-dir",
      "where trace files named without a path are found (default: $GRIDPEER_TRACE_DIR, "
      "then ../shared/traces)",
      cxxopts::value<std::string>())("skip-malformed",
                                     "skip malformed SWF lines (counted) instead of stopping at the first")(
      "out", "write the results as JSON to this file", cxxopts::value<std::string>())(
      "csv", "write one summary row per policy to this CSV file", cxxopts::value<std::string>())(
      "jobs-csv", "write every job to PREFIX-<policy>.csv in Batsim's jobs.csv layout (docs/output-formats.md)",
      cxxopts::value<std::string>())("swf", "write each policy's schedule to PREFIX-<policy>.swf as SWF",
                                     cxxopts::value<std::string>())(
      "series", "write each policy's busy nodes and queue over time to PREFIX-<policy>-series.csv",
      cxxopts::value<std::string>())("verbose", "more log output")("h,help", "show this help");
  const auto command_line = cli::parse_or_help(options, argc, argv);
  if (!command_line) return 0;
  const cxxopts::ParseResult& args = *command_line;
  const auto logger = make_logger("gridsim", args.count("verbose") != 0U);

  std::vector<LocalPolicyConfig> policies;
  const std::string policy_name = args["policy"].as<std::string>();
  const int depth = args["depth"].as<int>();
  if (depth < 0) throw std::invalid_argument("--depth must be >= 0");
  if (policy_name == "all") {
    policies = {{LocalPolicy::fcfs, 0}, {LocalPolicy::easy, 0}, {LocalPolicy::conservative, depth}};
  } else if (const auto policy = parse_local_policy(policy_name)) {
    policies = {{*policy, depth}};
  } else {
    throw std::invalid_argument("--policy '" + policy_name + "' is not fcfs, easy, conservative or all");
  }

  WorkloadRequest request;
  request.source = args["workload"].as<std::string>();
  request.synthetic_jobs = args["jobs"].as<std::size_t>();
  request.seed = args["seed"].as<std::uint64_t>();
  request.window = window_from_options(args["window-start"].as<std::string>(), args["window-days"].as<int>());
  request.skip_malformed = args.count("skip-malformed") != 0U;
  if (args.count("trace-dir") != 0U) request.trace_dir = args["trace-dir"].as<std::string>();

  ServerSpec server{"server", 128, args["cpus-per-node"].as<int>(), args["mhz"].as<int>(), 0};
  bool server_fixed = false;
  if (args.count("topology") != 0U) {
    if (args.count("server") == 0U) throw std::invalid_argument("--topology needs --server NAME");
    const auto grid = topology::load_topology(args["topology"].as<std::string>());
    const std::string name = args["server"].as<std::string>();
    const auto index = grid.find_server(name);
    if (!index) throw std::invalid_argument("server '" + name + "' is not in " + grid.source);
    server = grid.servers[*index].spec;
    server.site = 0;
    server_fixed = true;
    if (request.source == "topology") {
      const auto& trace = grid.servers[*index].trace;
      if (!trace) throw std::invalid_argument("server '" + name + "' has no trace window in " + grid.source);
      request.source = trace->file;
      request.window = trace->window();
    }
  } else if (request.source == "topology") {
    throw std::invalid_argument("--workload topology needs --topology FILE and --server NAME");
  }
  if (args.count("nodes") != 0U) {
    server.nodes = args["nodes"].as<int>();
    server_fixed = true;
  }
  validate(server);
  request.max_cpus = server.total_cpus();

  logger->info("seed {}", request.seed);
  Workload workload = load_workload(request);
  if (!server_fixed && workload.max_procs && *workload.max_procs > 0) {
    server.nodes = static_cast<int>(*workload.max_procs);
    server.cpus_per_node = 1;
  }
  logger->info("workload: {}", workload.description);
  if (workload.skipped_lines > 0) logger->warn("{} malformed lines skipped", workload.skipped_lines);
  if (workload.conversion.dropped() > 0) {
    const auto& c = workload.conversion;
    logger->info("dropped: {} outside the window, {} without run time, {} with zero run time, {} without CPUs",
                 c.outside_window, c.unknown_run_time, c.zero_run_time, c.unknown_processors);
  }
  logger->info("server: {} nodes x {} CPUs", server.nodes, server.cpus_per_node);

  std::vector<PolicyRun> runs;
  const std::vector<ServerSpec> servers{server};
  for (const LocalPolicyConfig& policy : policies) {
    PolicyRun run;
    run.policy = policy;
    Progress progress("replay " + policy_label(policy), workload.jobs.size());
    const auto started = std::chrono::steady_clock::now();
    run.replay = replay_local(server, policy, workload.jobs, [&](std::size_t done) { progress.update(done); });
    run.wall_seconds = seconds_since(started);
    run.summary = summarize(run.replay.records, servers);
    runs.push_back(std::move(run));
  }

  std::cout << fmt::format("{:<22} {:>8} {:>14} {:>16} {:>10} {:>8} {:>9} {:>9}\n", "policy", "jobs", "avg wait (s)",
                           "avg response (s)", "bsld", "util", "max queue", "wall (s)");
  for (const PolicyRun& run : runs) {
    const MetricsSummary& s = run.summary;
    std::cout << fmt::format("{:<22} {:>8} {:>14.1f} {:>16.1f} {:>10.2f} {:>8.3f} {:>9} {:>9.3f}\n",
                             policy_label(run.policy), s.jobs, s.avg_wait_s, s.avg_response_s, s.avg_bounded_slowdown,
                             s.per_server.front().utilization, run.replay.max_queue, run.wall_seconds);
  }
  std::cout << "seed " << request.seed << '\n';

  nlohmann::json results = nlohmann::json::array();
  for (const PolicyRun& run : runs) results.push_back(to_json(run));
  if (args.count("out") != 0U) {
    nlohmann::json document = {{"command", "replay"},
                               {"seed", request.seed},
                               {"workload",
                                {{"source", request.source},
                                 {"description", workload.description},
                                 {"jobs", workload.jobs.size()},
                                 {"provenance", workload.provenance}}},
                               {"server",
                                {{"name", server.name},
                                 {"nodes", server.nodes},
                                 {"cpus_per_node", server.cpus_per_node},
                                 {"mhz", server.mhz}}},
                               {"results", results}};
    write_json_file(args["out"].as<std::string>(), document);
  }
  if (args.count("csv") != 0U) {
    std::ostringstream csv;
    csv << "policy,jobs,avg_wait_s,avg_response_s,avg_bounded_slowdown,utilization,max_queue,wall_seconds\n";
    for (const auto& row : results) {
      csv << row["policy"].get<std::string>() << ',' << row["jobs"] << ',' << row["avg_wait_s"] << ','
          << row["avg_response_s"] << ',' << row["avg_bounded_slowdown"] << ',' << row["utilization"] << ','
          << row["max_queue"] << ',' << row["wall_seconds"] << '\n';
    }
    write_text_file(args["csv"].as<std::string>(), csv.str());
  }
  for (const PolicyRun& run : runs) {
    const std::string policy(to_string(run.policy.policy));
    if (args.count("jobs-csv") == 0U && args.count("swf") == 0U && args.count("series") == 0U) break;
    const auto rows = replay_rows(workload, run.replay);
    if (args.count("jobs-csv") != 0U) {
      write_text_file(args["jobs-csv"].as<std::string>() + "-" + policy + ".csv",
                      report::batsim_jobs_csv(rows, servers));
    }
    if (args.count("series") != 0U) {
      write_text_file(args["series"].as<std::string>() + "-" + policy + "-series.csv",
                      report::time_series_csv(rows, servers));
    }
    if (args.count("swf") != 0U) {
      std::vector<std::string> header = {"Note: " + policy_label(run.policy) + " schedule simulated by gridsim replay",
                                         "Workload: " + workload.description};
      write_text_file(args["swf"].as<std::string>() + "-" + policy + ".swf",
                      report::schedule_swf(rows, servers, header));
    }
  }
  return 0;
}

}  // namespace gridpeer::sim
