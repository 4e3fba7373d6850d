#include "sim/studies/replay_study.hpp"

#include <chrono>
#include <stdexcept>

#include "peer/io/topology/topology.hpp"
#include "sim/studies/cli_support.hpp"

namespace gridpeer::sim {

void add_replay_options(cxxopts::Options& options) {
  add_shaping_options(options);
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
                                     "skip malformed SWF lines (counted) instead of stopping at the first");
}

ReplayStudy replay_study_from_options(const cxxopts::ParseResult& args, spdlog::logger& logger) {
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
  const WorkloadShaping shaping = shaping_from_options(args);
  request.load_factor = shaping.load_factor;
  request.arrival_factor = shaping.arrival_factor;
  request.estimates = shaping.estimates;
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

  logger.info("seed {}", request.seed);
  Workload workload = load_workload(request);
  if (!server_fixed && workload.max_procs && *workload.max_procs > 0) {
    server.nodes = static_cast<int>(*workload.max_procs);
    server.cpus_per_node = 1;
  }
  logger.info("workload: {}", workload.description);
  // What the log does not hold (no wait times, a window past its end, ...),
  // as gridsim run and sweep say it.
  for (const std::string& warning : workload.warnings) logger.warn("{}", warning);
  if (workload.skipped_lines > 0) logger.warn("{} malformed lines skipped", workload.skipped_lines);
  if (workload.conversion.dropped() > 0) {
    const auto& c = workload.conversion;
    logger.info("dropped: {} outside the window, {} without run time, {} with zero run time, {} without CPUs",
                c.outside_window, c.unknown_run_time, c.zero_run_time, c.unknown_processors);
  }
  logger.info("server: {} nodes x {} CPUs", server.nodes, server.cpus_per_node);

  return {server, policies, request, std::move(workload)};
}

std::vector<PolicyRun> run_replay_study(const ReplayStudy& study) {
  const std::vector<ServerSpec> servers{study.server};
  std::vector<PolicyRun> runs;
  for (const LocalPolicyConfig& policy : study.policies) {
    PolicyRun run;
    run.policy = policy;
    Progress progress("replay " + policy_label(policy), study.workload.jobs.size());
    const auto started = std::chrono::steady_clock::now();
    run.replay =
        replay_local(study.server, policy, study.workload.jobs, [&](std::size_t done) { progress.update(done); });
    run.wall_seconds = seconds_since(started);
    run.summary = summarize(run.replay.records, servers);
    runs.push_back(std::move(run));
  }

  return runs;
}

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

}  // namespace gridpeer::sim
