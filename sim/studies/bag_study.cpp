#include "sim/studies/bag_study.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>

#include "peer/io/topology/topology.hpp"
#include "peer/model/rng.hpp"
#include "sim/studies/cli_support.hpp"
#include "sim/studies/run_identity.hpp"

namespace gridpeer::sim {

namespace {

/// A job of `mi` on `server`: its run time there (its origin) at the server's MIPS.
Job job_of(JobId id, ServerIndex origin, const ServerSpec& server, const GroupingJob& drawn) {
  const auto run = microseconds(std::max<std::int64_t>(1, std::llround(drawn.mi / server.mhz * 1e6)));
  return Job{id,
             origin,
             1,
             TimePoint{},
             run,
             run,
             static_cast<std::uint64_t>(std::llround(drawn.input_bytes)),
             static_cast<std::uint64_t>(std::llround(drawn.output_bytes))};
}

}  // namespace

GridConfig bag_grid_config(const BagStudySpec& spec) {
  GridConfig config;
  config.algorithm = spec.algorithm;
  config.parameters.phi = spec.phi;
  if (spec.rule.scheduler != GroupingScheduler::none) {
    config.bag_grouping = {true, spec.rule.granularity_s, spec.rule.scheduler == GroupingScheduler::bandwidth_aware,
                           spec.rule.total_mips};
  }
  return config;
}

void add_bag_options(cxxopts::Options& options) {
  options.add_options("grid")("topology",
                              "the grid: its servers are the peers (mhz = MIPS of one CPU); built-in name or file "
                              "(default the BADG-like ang2007-badg)",
                              cxxopts::value<std::string>()->default_value("ang2007-badg"))(
      "origin", "the peer the bag is submitted to (a server of the topology)",
      cxxopts::value<std::string>()->default_value("R1"))(
      "algorithm", "si, ri or syi: how the peers place every job that is not grouped",
      cxxopts::value<std::string>()->default_value("si"))(
      "phi", "002's phi in seconds: a job whose local AWT is below it stays at its origin",
      cxxopts::value<double>()->default_value("60"))(
      "fixed-network",
      "keep the capacities the file draws with its own seed; by default each run re-draws the link classes with "
      "--seed")("seed", "seed of the jobs, files and (see --fixed-network) link capacities",
                cxxopts::value<std::uint64_t>()->default_value("1"));
  add_bag_workload_options(options);
  add_grouping_rule_options(options);
}

BagStudySpec bag_spec_from_options(const cxxopts::ParseResult& args) {
  BagStudySpec spec;
  spec.topology = args["topology"].as<std::string>();
  spec.origin = args["origin"].as<std::string>();
  const std::string algorithm = args["algorithm"].as<std::string>();
  const auto parsed = parse_grid_algorithm(algorithm);
  if (!parsed || *parsed == GridAlgorithm::local || *parsed == GridAlgorithm::central) {
    throw std::invalid_argument("--algorithm: '" + algorithm + "' is not si, ri or syi");
  }
  spec.algorithm = *parsed;
  const double phi = args["phi"].as<double>();
  if (!(phi >= 0)) throw std::invalid_argument("--phi: give 0 or more seconds");
  spec.phi = seconds_ceil(phi);
  spec.fixed_network = args.count("fixed-network") != 0U;
  spec.seed = args["seed"].as<std::uint64_t>();
  spec.bag = bag_workload_from_options(args);
  spec.rule = grouping_rule_from_options(args);
  return spec;
}

BagStudyResult run_bag_study(const BagStudySpec& spec) {
  const auto started = std::chrono::steady_clock::now();
  const topology::Topology grid = load_drawn_topology(spec.topology, spec.fixed_network, spec.seed);
  const auto origin = grid.find_host(spec.origin);
  if (!origin || *origin >= grid.servers.size()) {
    throw std::invalid_argument("--origin: '" + spec.origin + "' is not a server (peer) of " + grid.name);
  }
  BagStudyResult result;
  result.origin = *origin;
  for (const auto& server : grid.servers) result.servers.push_back(server.spec.name);

  Rng root(spec.seed);
  Rng bag = root.fork(kBagStream);
  std::vector<Job> jobs;
  const ServerSpec& home = grid.servers[*origin].spec;
  for (std::size_t j = 0; j < spec.bag.jobs; ++j) {
    jobs.push_back(job_of(static_cast<JobId>(j + 1), *origin, home, draw_bag_job(bag, spec.bag)));
    jobs.back().bag = 1;
  }
  result.bag_jobs = jobs.size();
  // Every other peer's own jobs, submitted with the bag [choice]: 003's other
  // users, each now a peer of the grid.
  Rng others = root.fork(kOthersStream);
  for (ServerIndex s = 0; s < grid.servers.size(); ++s) {
    if (s == *origin) continue;
    for (int j = 0; j < spec.bag.other_jobs; ++j) {
      jobs.push_back(
          job_of(static_cast<JobId>(jobs.size() + 1), s, grid.servers[s].spec, draw_bag_job(others, spec.bag)));
    }
  }
  GridRunOptions options;
  options.config = bag_grid_config(spec);
  options.sharing = grid.routed ? network::Sharing::max_min : network::Sharing::equal_share;
  result.run = run_grid(grid, jobs, options);
  result.wall_seconds = seconds_since(started);
  return result;
}

nlohmann::json bag_identity(const BagStudySpec& spec, const std::string& topology_hash) {
  const bool groups = spec.rule.scheduler != GroupingScheduler::none;
  const nlohmann::json null = nullptr;
  return {{"version", gridpeer_version()},
          {"model", "bag"},
          {"options",
           {{"topology", spec.topology},
            {"origin", spec.origin},
            {"algorithm", std::string(to_string(spec.algorithm))},
            {"phi_s", to_seconds(spec.phi)},
            {"jobs", spec.bag.jobs},
            {"mi", spec.bag.mean_mi},
            {"mi_spread", spec.bag.mi_spread},
            {"other_jobs", spec.bag.other_jobs},
            {"file_kb", {spec.bag.min_file_kb, spec.bag.max_file_kb}},
            {"scheduler", to_string(spec.rule.scheduler)},
            {"granularity_s", groups ? nlohmann::json(spec.rule.granularity_s) : null},
            {"total_mips", groups ? nlohmann::json(spec.rule.total_mips) : null},
            {"fixed_network", spec.fixed_network},
            {"seed", spec.seed}}},
          {"inputs", {{"topology", topology_hash}}}};
}

BagFigures bag_figures(const BagStudyResult& result) {
  BagFigures f;
  double response_sum = 0;
  double others_sum = 0;
  std::size_t others_ended = 0;
  double moved_bytes = 0;
  for (const JobRecord& r : result.run.records) {
    const double response = to_seconds(r.response());
    if (r.id > result.bag_jobs) {
      others_sum += response;
      ++others_ended;
      continue;
    }
    ++f.ended;
    f.makespan_s = std::max(f.makespan_s, to_seconds(r.end));
    response_sum += response;
    ++f.by_server[result.servers.at(r.executed_on)];
    if (r.transferred()) {
      ++f.moved;
      moved_bytes += static_cast<double>(r.input_bytes + r.output_bytes);
    }
  }
  const auto mean = [](double sum, std::size_t n) { return n > 0 ? sum / static_cast<double>(n) : 0.0; };
  f.mean_response_s = mean(response_sum, f.ended);
  f.moved_fraction = mean(static_cast<double>(f.moved), f.ended);
  f.moved_mb = moved_bytes / 1e6;
  f.others_mean_response_s = mean(others_sum, others_ended);
  return f;
}

nlohmann::json bag_json(const BagStudySpec& spec, const BagStudyResult& result, bool include_timing) {
  const GridRunResult& run = result.run;
  const BagFigures f = bag_figures(result);
  const SchedulerCounters& origin = run.counters.at(result.origin);
  return {{"model", "bag"},
          {"topology", spec.topology},
          {"workload", describe(spec.bag)},
          {"algorithm", algorithm_label(bag_grid_config(spec))},
          {"scheduler", to_string(spec.rule.scheduler)},
          {"origin", spec.origin},
          {"jobs", spec.bag.jobs},
          {"granularity_s", spec.rule.granularity_s},
          {"other_jobs_per_peer", spec.bag.other_jobs},
          {"phi_s", to_seconds(spec.phi)},
          {"seed", spec.seed},
          {"bag_ended", f.ended},
          {"bag_makespan_s", f.makespan_s},
          {"bag_mean_response_s", f.mean_response_s},
          {"bag_moved", f.moved},
          {"bag_moved_fraction", f.moved_fraction},
          {"bag_moved_mb", f.moved_mb},
          {"bag_by_server", f.by_server},
          {"groups", origin.bag_groups},
          {"handoffs", origin.jobs_sent},
          {"origin_queries", origin.queries_sent},
          {"messages", run.messages},
          {"message_bytes", run.message_bytes},
          {"others_mean_response_s", f.others_mean_response_s},
          {"rejected", run.rejected},
          {"lost", run.lost.size()},
          {"unfinished_jobs", run.unfinished},
          {"events", run.events},
          {"wall_seconds", include_timing ? result.wall_seconds : 0.0}};
}

std::string bag_jobs_csv(const BagStudyResult& result) {
  std::ostringstream csv;
  csv << "job,server,start_s,finish_s,end_s,input_bytes,output_bytes\n";
  for (const JobRecord& r : result.run.records) {
    if (r.id > result.bag_jobs) continue;
    csv << fmt::format("{},{},{:.6f},{:.6f},{:.6f},{},{}\n", r.id, result.servers.at(r.executed_on),
                       to_seconds(r.start), to_seconds(r.finish), to_seconds(r.end), r.input_bytes, r.output_bytes);
  }
  return csv.str();
}

const std::vector<std::string>& bag_summary_metrics() {
  static const std::vector<std::string> metrics = {
      "bag_makespan_s", "bag_mean_response_s", "bag_moved_fraction", "bag_moved_mb",          "groups",
      "handoffs",       "origin_queries",      "messages",           "others_mean_response_s"};
  return metrics;
}

}  // namespace gridpeer::sim
