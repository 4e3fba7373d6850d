// gridsim compare: the five grid algorithms side by side on one workload.
#include <fmt/format.h>
#include <cxxopts.hpp>
#include <iostream>
#include <mutex>
#include <thread>

#include "sim/commands/commands.hpp"
#include "sim/reports/origin_fairness.hpp"
#include "sim/studies/cli_support.hpp"
#include "sim/studies/grid_options.hpp"
#include "sim/studies/run_identity.hpp"

#include "peer/io/cli/output_file.hpp"
#include "peer/io/cli/parse.hpp"

namespace gridpeer::sim {

int run_compare_command(int argc, char** argv) {
  cxxopts::Options options("gridsim compare",
                           "Run Local, Centralized, S-I, R-I and Sy-I on the same grid and workload (by default a\n"
                           "seeded synthetic workload, not the topology's traces, on Shan et al.'s 12 servers)\n"
                           "and print the comparison, and per origin server who gains and who pays against\n"
                           "Local. With --fair, also Local, S-I, R-I and Sy-I under fair sharing.");
  add_grid_options(options, "synthetic");
  options.add_options()("data-blind", "also run the data-blind variants of S-I and Sy-I")(
      "fairness-csv",
      "write who gains and who pays -- each server's own jobs' turnaround against Local -- as CSV to this file "
      "(with --fair, the fair variants too; `gridsim plot fairness FILE --out DIR` draws it)",
      cxxopts::value<std::string>())("out", "write every run as JSON (an array) to this file",
                                     cxxopts::value<std::string>())(
      "threads", "runs in parallel (default: the number of cores)", cxxopts::value<std::size_t>())("h,help",
                                                                                                   "show this help");
  const auto command_line = cli::parse_or_help(options, argc, argv);
  if (!command_line) return 0;
  const cxxopts::ParseResult& args = *command_line;
  const auto logger = make_logger("gridsim", args.count("verbose") != 0U);
  ExperimentSpec base = grid_spec_from_options(args);
  logger->info("seed {}", base.workload.seed);
  const auto grid = load_grid(base);  // a topology, or synthetic:N
  const GridWorkload workload = load_grid_workload(grid, base.workload);
  logger->info("{} ({} jobs) on {} ({} sites, {} network)", workload.description, workload.jobs.size(), grid.name,
               grid.split, grid.network_name);
  for (const std::string& warning : workload.warnings) logger->warn("{}", warning);
  const std::vector<ExperimentSpec> specs = compare_specs(base, args.count("data-blind") != 0U);
  std::vector<ExperimentResult> results(specs.size());
  const std::size_t threads = args.count("threads") != 0U ? args["threads"].as<std::size_t>()
                                                          : std::max(1U, std::thread::hardware_concurrency());
  Progress progress("compare: runs", specs.size());
  std::mutex done_mutex;
  std::size_t done = 0;
  parallel_for(
      specs.size(), threads,
      [&](std::size_t i) {
        results[i] = run_experiment(specs[i], workload);
        const std::lock_guard lock(done_mutex);
        progress.update(++done);
      },
      [&](std::size_t i) { return algorithm_label(specs[i].config); });
  progress.finish();

  // w.util over the span (002's), then over the arrival window; unfinished
  // jobs are not in the means beside them.
  std::cout << fmt::format("{:<10} {:>14} {:>12} {:>8} {:>8} {:>8} {:>11} {:>11} {:>10} {:>10} {:>8}\n", "algorithm",
                           "avg resp (s)", "avg wait (s)", "bsld", "w.util", "(arr.)", "transferred", "data MB/job",
                           "unfinished", "messages", "wall (s)");
  nlohmann::json all = nlohmann::json::array();
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const MetricsSummary& s = results[i].summary;
    std::cout << fmt::format(
        "{:<10} {:>14.1f} {:>12.1f} {:>8.2f} {:>8.3f} {:>8.3f} {:>10.1f}% {:>11.1f} {:>10} {:>10} {:>8.2f}\n",
        algorithm_label(specs[i].config), s.avg_response_s, s.avg_wait_s, s.avg_bounded_slowdown,
        s.weighted_utilization, s.weighted_utilization_arrivals, 100 * s.fraction_transferred, s.data_volume_mb_per_job,
        results[i].run.unfinished, results[i].run.messages, results[i].wall_seconds);
    nlohmann::json json = experiment_json(specs[i], results[i], true);
    json["command_line"] = command_line_of(argc, argv);
    all.push_back(json);
  }
  if (base.has_churn()) {
    // Which jobs a grid accepts depends on when a leaving peer goes, so each
    // algorithm's means are over the jobs it accepted; these say how many.
    const ChurnConfig drawn = base.churn.value_or(ChurnConfig{});
    std::string given;
    if (drawn.joiners > 0) given += fmt::format(", {} servers joining at {} a day", drawn.joiners, drawn.joins_per_day);
    if (!base.churn_file.empty()) given += ", the events of " + base.churn_file;
    std::cout << fmt::format(
        "\nchurn: {} leaves a day, away up to {:.0f} s{} (the instant-knowledge reference has no "
        "peers to leave)\n",
        drawn.leaves_per_day, to_seconds(drawn.max_away), given);
    std::cout << fmt::format("{:<10} {:>7} {:>6} {:>6} {:>9} {:>6} {:>6}\n", "algorithm", "leaves", "gone", "joins",
                             "refused", "lost", "jobs");
    for (std::size_t i = 0; i < specs.size(); ++i) {
      const GridRunResult& run = results[i].run;
      std::cout << fmt::format("{:<10} {:>7} {:>6} {:>6} {:>9} {:>6} {:>6}\n", algorithm_label(specs[i].config),
                               run.leaves, run.gone, run.joins, run.refused.size(), run.lost.size(),
                               results[i].summary.jobs);
    }
  }
  if (const auto table = origin_fairness(specs, results)) {
    std::cout << '\n' << origin_fairness_text(*table);
    if (args.count("fairness-csv") != 0U)
      cli::write_output_file(args["fairness-csv"].as<std::string>(), origin_fairness_csv(*table));
  }
  std::cout << "seed " << base.workload.seed << '\n';
  if (args.count("out") != 0U) write_json_file(args["out"].as<std::string>(), all);
  return 0;
}

}  // namespace gridpeer::sim
