// gridsim run: one grid simulation (Shan et al. 2004, §3) and its metrics.
#include <fmt/format.h>
#include <cxxopts.hpp>
#include <iostream>

#include "sim/commands/commands.hpp"
#include "sim/studies/cli_support.hpp"
#include "sim/studies/grid_experiment.hpp"
#include "sim/studies/grid_options.hpp"
#include "sim/studies/run_identity.hpp"

#include "peer/io/cli/output_file.hpp"
#include "peer/io/cli/parse.hpp"

namespace gridpeer::sim {

int run_run_command(int argc, char** argv) {
  cxxopts::Options options(
      "gridsim run",
      "Simulate a grid of peers (Shan et al. 2004): each server's grid scheduler and local scheduler, "
      "the\nnetwork, and one of the grid algorithms; print and write the metrics.");
  add_run_options(options);
  options.add_options()("out", "write the result as JSON to this file", cxxopts::value<std::string>())(
      "jobs-csv",
      "write every job to this CSV file in Batsim's jobs.csv layout (evalys and pandas read it; "
      "docs/output-formats.md)",
      cxxopts::value<std::string>())(
      "swf", "write the simulated schedule to this file as SWF (submit, wait, run, processors, where it ran)",
      cxxopts::value<std::string>())(
      "series",
      "write each server's busy nodes, utilization, running and waiting jobs over time to this CSV file "
      "(a line at every change)",
      cxxopts::value<std::string>())(
      "no-timing", "write wall_seconds as 0, so the same seed gives byte-identical JSON")("h,help", "show this help");
  const auto command_line = cli::parse_or_help(options, argc, argv);
  if (!command_line) return 0;
  const cxxopts::ParseResult& args = *command_line;
  const auto logger = make_logger("gridsim", args.count("verbose") != 0U);
  const ExperimentSpec spec = run_spec_from_options(args);
  logger->info("seed {}", spec.workload.seed);
  Progress progress("run " + algorithm_label(spec.config), 0);
  const GridWorkload workload = load_grid_workload(load_grid(spec), spec.workload);
  for (const std::string& warning : workload.warnings) logger->warn("{}", warning);
  const ExperimentResult result = run_experiment(spec, workload, [&](std::size_t done, std::size_t total) {
    progress.set_total(total);
    progress.update(done);
  });
  const MetricsSummary& s = result.summary;
  if (result.run.unfinished > 0) {
    logger->warn("stopped ten simulated years after the last submission: {}; metrics cover the {} jobs that ended",
                 result.run.unfinished_detail, s.jobs);
  }
  std::cout << fmt::format(
      "{} on {} ({} sites, {} network), {} jobs ({}), data {}\n"
      "  avg response {:.1f} s   avg wait {:.1f} s   bounded slowdown {:.2f}{}\n"
      "  weighted utilization {:.3f} (over the arrival window {:.3f})   transferred {:.1f}%   in origin site {:.1f}%   "
      "data {:.2f} MB/job\n"
      "  {} events, {} messages, {:.2f} s wall ({:.0f} jobs/s)\n",
      algorithm_label(spec.config), result.grid.name, result.grid.split, result.grid.network_name, s.jobs,
      result.workload_description, workload::to_string(spec.workload.data_size), s.avg_response_s, s.avg_wait_s,
      s.avg_bounded_slowdown,
      result.run.unfinished > 0 ? fmt::format("   ({} jobs unfinished: not in these means)", result.run.unfinished)
                                : std::string(),
      s.weighted_utilization, s.weighted_utilization_arrivals, 100 * s.fraction_transferred,
      100 * s.fraction_in_origin_site, s.data_volume_mb_per_job, result.run.events, result.run.messages,
      result.wall_seconds, result.wall_seconds > 0 ? static_cast<double>(s.jobs) / result.wall_seconds : 0.0);
  std::cout << fmt::format("  {:<6} {:>5} {:>9} {:>9} {:>8} {:>12} {:>10}\n", "server", "site", "submitted", "executed",
                           "util", "avg resp (s)", "sent/recv");
  for (std::size_t i = 0; i < s.per_server.size(); ++i) {
    const auto& m = s.per_server[i];
    const auto& c = result.run.counters[i];
    std::cout << fmt::format("  {:<6} {:>5} {:>9} {:>9} {:>8.3f} {:>12.1f} {:>5}/{:<5}\n", m.name,
                             result.grid.servers[i].spec.site, m.jobs_originated, m.jobs_executed, m.utilization,
                             m.avg_response_s, c.jobs_sent, c.jobs_received);
  }
  std::cout << "seed " << spec.workload.seed << '\n';
  if (args.count("out") != 0U) {
    nlohmann::json json = experiment_json(spec, result, args.count("no-timing") == 0U);
    json["command_line"] = command_line_of(argc, argv);
    write_json_file(args["out"].as<std::string>(), json);
  }
  if (args.count("jobs-csv") != 0U) {
    cli::write_output_file(args["jobs-csv"].as<std::string>(), experiment_jobs_csv(result, workload));
  }
  if (args.count("series") != 0U) {
    cli::write_output_file(args["series"].as<std::string>(), experiment_time_series(result, workload));
  }
  if (args.count("swf") != 0U) {
    std::vector<std::string> header = {"Note: simulated by gridsim " + gridpeer_version() + ", " +
                                           algorithm_label(spec.config) + " on " + result.grid.name + ", seed " +
                                           std::to_string(spec.workload.seed),
                                       "Workload: " + result.workload_description};
    for (const auto& line : result.provenance) header.push_back("Source " + line);
    cli::write_output_file(args["swf"].as<std::string>(), experiment_schedule_swf(result, workload, header));
  }
  return 0;
}

}  // namespace gridpeer::sim
