// gridsim sweep: the papers' experiment matrices.
#include <cxxopts.hpp>
#include <iostream>
#include <thread>

#include "sim/commands/commands.hpp"
#include "sim/experiments/cli_support.hpp"
#include "sim/experiments/grid_options.hpp"
#include "sim/experiments/sweep.hpp"

#include "peer/io/cli/parse.hpp"

namespace gridpeer::sim {

int run_sweep_command(int argc, char** argv) {
  cxxopts::Options options(
      "gridsim sweep",
      "Run an experiment matrix in parallel and write results.json, results.csv, figures/ and report.md.\n"
      "shan2004 (002): local, central, si, ri, syi, si-blind, syi-blind x fast/slow network x small/medium/\n"
      "large data x 3/6/12 sites = 126 runs. Each run is saved as OUT/runs/NAME.json as soon as it ends, so a\n"
      "sweep resumes where it stopped; --shard I/N lets N machines (e.g. a Slurm job array with\n"
      "--shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT) share OUT. --sites, --network and --data-size\n"
      "are set by the matrix.");
  add_grid_options(options);
  options.add_options()("experiment", "the matrix: shan2004", cxxopts::value<std::string>()->default_value("shan2004"))(
      "out", "output directory (created)", cxxopts::value<std::string>())(
      "shard", "I/N: run only the runs whose index modulo N is I (0 <= I < N)",
      cxxopts::value<std::string>()->default_value("0/1"))("threads", "runs in parallel (default: the number of cores)",
                                                           cxxopts::value<std::size_t>())(
      "force", "re-run runs whose result file already exists")(
      "report-only", "run nothing; assemble results, figures and report from OUT/runs")("h,help", "show this help");
  const auto command_line = cli::parse_or_help(options, argc, argv);
  if (!command_line) return 0;
  const cxxopts::ParseResult& args = *command_line;
  if (args.count("out") == 0U) throw std::invalid_argument("--out DIR is required");
  const std::string experiment = args["experiment"].as<std::string>();
  if (experiment != "shan2004") throw std::invalid_argument("--experiment '" + experiment + "' is not shan2004");
  SweepOptions sweep;
  sweep.out = args["out"].as<std::string>();
  sweep.base = grid_spec_from_options(args);
  const std::string shard = args["shard"].as<std::string>();
  const auto slash = shard.find('/');
  try {
    if (slash == std::string::npos) throw std::invalid_argument("no slash");
    sweep.shard_index = std::stoul(shard.substr(0, slash));
    sweep.shard_count = std::stoul(shard.substr(slash + 1));
  } catch (const std::exception&) {
    throw std::invalid_argument("--shard '" + shard + "' is not I/N, e.g. 0/4");
  }
  if (sweep.shard_count == 0 || sweep.shard_index >= sweep.shard_count) {
    throw std::invalid_argument("--shard I/N needs 0 <= I < N");
  }
  sweep.threads = args.count("threads") != 0U ? args["threads"].as<std::size_t>()
                                              : std::max(1U, std::thread::hardware_concurrency());
  sweep.force = args.count("force") != 0U;
  sweep.report_only = args.count("report-only") != 0U;
  const auto logger = make_logger("gridsim", args.count("verbose") != 0U);
  return run_sweep(sweep, *logger);
}

}  // namespace gridpeer::sim
