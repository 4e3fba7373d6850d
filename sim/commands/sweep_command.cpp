// gridsim sweep: an experiment file's runs, sharded, resumable and honest.
#include <cxxopts.hpp>
#include <filesystem>
#include <iostream>
#include <thread>

#include "sim/commands/commands.hpp"
#include "sim/studies/cli_support.hpp"
#include "sim/studies/run_identity.hpp"
#include "sim/sweeps/experiment_file.hpp"
#include "sim/sweeps/slurm_array.hpp"
#include "sim/sweeps/sweep.hpp"

#include "peer/io/cli/output_file.hpp"
#include "peer/io/cli/parse.hpp"

namespace gridpeer::sim {

namespace {

/// gridsim sweep --slurm FILE: the array script, and the folder its logs go to.
void write_slurm_array(const cxxopts::ParseResult& args, const ExperimentFile& experiment,
                       const std::filesystem::path& out, std::size_t shards) {
  SlurmArray array;
  array.gridsim = std::filesystem::canonical("/proc/self/exe");
  const std::string name = args["experiment"].as<std::string>();
  array.experiment = std::filesystem::exists(name) ? std::filesystem::absolute(name).string() : name;
  array.out = std::filesystem::absolute(out);
  if (args.count("seeds") != 0U) array.arguments.push_back("--seeds=" + args["seeds"].as<std::string>());
  if (args.count("set") != 0U) {
    for (const auto& assignment : args["set"].as<std::vector<std::string>>())
      array.arguments.push_back("--set=" + assignment);
  }
  array.tasks = shards;
  array.cpus_per_task = args.count("threads") != 0U ? args["threads"].as<std::size_t>() : 1;
  if (args.count("slurm-option") != 0U) array.sbatch_options = args["slurm-option"].as<std::vector<std::string>>();
  array.job_name = "gridsim-" + experiment.name;
  const std::string file = args["slurm"].as<std::string>();
  std::filesystem::create_directories(array.out / "slurm");  // sbatch writes the tasks' logs there, and makes no folder
  cli::write_output_file(file, slurm_array_script(array));
  std::filesystem::permissions(file, std::filesystem::perms::owner_exec, std::filesystem::perm_options::add);
  std::cout << "wrote " << file << ": " << shards << " array tasks of " << array.cpus_per_task << " CPU(s) into "
            << array.out.string() << "\nsubmit: sbatch " << file << "\nprogress: " << array.gridsim.string()
            << " sweep " << array.experiment << " --out " << array.out.string() << " --status --shards " << shards
            << '\n';
}

}  // namespace

int run_sweep_command(int argc, char** argv) {
  // The built-in experiments are listed from the one registry --list prints.
  std::string builtins;
  for (const auto& name : builtin_experiments()) builtins += "  " + name + ": " + load_experiment(name).title + "\n";
  cxxopts::Options options(
      "gridsim sweep",
      "Run every run of an experiment in parallel and write results.{json,csv}, summary.{json,csv} (mean and 95%\n"
      "confidence interval over seeds), report.md and figures. EXPERIMENT is a TOML experiment file\n"
      "(docs/experiments.md: fixed `gridsim run` options, axes to sweep, seeds) or one of the built-in ones:\n" +
          builtins +
          "Each run is saved as OUT/runs/NAME.json as soon as it ends, with its identity: every option, the hash of\n"
          "every input file and the code's version. A re-run reuses a saved run only if its identity is the same,\n"
          "and refuses a folder holding runs of other options or code unless --overwrite. --shard I/N lets N\n"
          "machines (e.g. a Slurm array: --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT) share OUT.");
  options.positional_help("EXPERIMENT").show_positional_help();
  options.add_options()("experiment", "the experiment file, or a built-in name (also the first positional argument)",
                        cxxopts::value<std::string>())("out", "output directory (created)",
                                                       cxxopts::value<std::string>())(
      "set", "NAME=VALUE: set a `gridsim run` option for every run (repeatable), e.g. --set limit-days=7",
      cxxopts::value<std::vector<std::string>>())(
      "seeds", "replace the experiment's seeds: a list (1,2,5) or a range (1-10)", cxxopts::value<std::string>())(
      "shard", "I/N: run only the runs whose index modulo N is I (0 <= I < N)",
      cxxopts::value<std::string>()->default_value("0/1"))("threads", "runs in parallel (default: the number of cores)",
                                                           cxxopts::value<std::size_t>())(
      "force", "run again even the runs whose saved identity is the same")(
      "overwrite", "accept an OUT holding other runs: delete them, and re-run those made differently")(
      "report-only",
      "run nothing; assemble results and report from OUT/runs (runs of an older build are accepted when their options "
      "and inputs are the ones planned and all come from one build, which the report names)")(
      "status",
      "run nothing; say how many runs OUT holds with the planned identity, per shard of --shards, and which are "
      "missing: from any node that sees OUT, while shards run")(
      "slurm",
      "run nothing; write FILE, an sbatch script that runs this sweep as a Slurm job array of --shards tasks "
      "(task I: --shard I/N) into OUT, which every node must see; each task takes --threads CPUs (default 1). "
      "Then: sbatch FILE",
      cxxopts::value<std::string>())("shards", "with --slurm or --status: how many array tasks (shards)",
                                     cxxopts::value<std::size_t>()->default_value("8"))(
      "slurm-option", "with --slurm: one more sbatch option for the script, e.g. --partition=long (repeatable)",
      cxxopts::value<std::vector<std::string>>())("list", "print the built-in experiments and exit")(
      "verbose", "more log output")("h,help", "show this help");
  options.parse_positional({"experiment"});
  const auto command_line = cli::parse_or_help(options, argc, argv);
  if (!command_line) return 0;
  const cxxopts::ParseResult& args = *command_line;
  if (args.count("list") != 0U) {
    for (const auto& name : builtin_experiments()) {
      std::cout << name << ": " << load_experiment(name).title << '\n';
    }
    return 0;
  }
  if (args.count("experiment") == 0U) {
    throw std::invalid_argument("name an experiment: a file or a built-in (gridsim sweep --list)");
  }
  if (args.count("out") == 0U) throw std::invalid_argument("--out DIR is required");
  ExperimentFile experiment = load_experiment(args["experiment"].as<std::string>());
  if (args.count("seeds") != 0U) experiment.seeds = parse_seed_list(args["seeds"].as<std::string>());
  SweepOptions sweep;
  sweep.out = args["out"].as<std::string>();
  sweep.command_line = command_line_of(argc, argv);
  if (args.count("set") != 0U) {
    for (const auto& assignment : args["set"].as<std::vector<std::string>>()) {
      sweep.overrides.push_back(parse_run_option(assignment));
    }
  }
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
  const std::size_t shards = args["shards"].as<std::size_t>();
  if (shards == 0) throw std::invalid_argument("--shards must be at least 1");
  if (args.count("status") != 0U) {
    sweep_status(experiment, sweep, shards, std::cout);
    return 0;
  }
  if (args.count("slurm") != 0U) {
    write_slurm_array(args, experiment, sweep.out, shards);
    return 0;
  }
  sweep.threads = args.count("threads") != 0U ? args["threads"].as<std::size_t>()
                                              : std::max(1U, std::thread::hardware_concurrency());
  if (sweep.threads == 0) throw std::invalid_argument("--threads must be at least 1");
  sweep.force = args.count("force") != 0U;
  sweep.overwrite = args.count("overwrite") != 0U;
  sweep.report_only = args.count("report-only") != 0U;
  const auto logger = make_logger("gridsim", args.count("verbose") != 0U);
  return run_sweep(experiment, sweep, *logger);
}

}  // namespace gridpeer::sim
