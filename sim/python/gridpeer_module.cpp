// The compiled half of `import gridpeer` (sim/python/gridpeer/__init__.py is
// the other): gridsim's run, compare, replay, sweep and the studies (coalloc, allocate,
// group, bag) in-process. Options
// come as the command line would carry them, so Python and the CLI share one
// parser, one validation and one set of defaults; results come back as the
// CLI's JSON and CSV text, which the Python half turns into dicts and pandas
// DataFrames.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cxxopts.hpp>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "peer/io/cli/parse.hpp"
#include "sim/studies/cli_support.hpp"
#include "sim/studies/grid_experiment.hpp"
#include "sim/studies/grid_options.hpp"
#include "sim/studies/replay_study.hpp"
#include "sim/studies/run_identity.hpp"
#include "sim/studies/study_definitions.hpp"
#include "sim/sweeps/experiment_file.hpp"
#include "sim/sweeps/sweep.hpp"

namespace py = pybind11;
using namespace gridpeer::sim;  // NOLINT: the module's one namespace

namespace {

/// Parses `arguments` ("--name", "value", ...) as the command `name` would.
cxxopts::ParseResult parse(cxxopts::Options& options, const std::string& name,
                           const std::vector<std::string>& arguments) {
  std::vector<const char*> argv = {name.c_str()};
  for (const auto& argument : arguments) argv.push_back(argument.c_str());
  try {
    return gridpeer::cli::parse_options(options, static_cast<int>(argv.size()), argv.data());
  } catch (const std::invalid_argument& error) {
    throw std::invalid_argument(name + ": " + error.what());
  }
}

std::shared_ptr<spdlog::logger> quiet_logger(bool verbose) {
  auto logger = std::make_shared<spdlog::logger>("gridpeer", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  logger->set_pattern("[%n] [%^%l%$] %v");
  logger->set_level(verbose ? spdlog::level::info : spdlog::level::warn);
  return logger;
}

/// (result JSON, jobs CSV, time series CSV) of one grid run.
using RunTexts = std::tuple<std::string, std::string, std::string>;

RunTexts run_texts(const ExperimentSpec& spec, const GridWorkload& workload) {
  const ExperimentResult result = run_experiment(spec, workload);
  return {experiment_json(spec, result, true).dump(), experiment_jobs_csv(result, workload),
          experiment_time_series(result, workload)};
}

RunTexts run(const std::vector<std::string>& arguments) {
  cxxopts::Options options("gridpeer.run");
  add_run_options(options);
  const auto args = parse(options, "gridpeer.run", arguments);
  const ExperimentSpec spec = run_spec_from_options(args);
  const py::gil_scoped_release unlocked;  // runs may be long; other Python threads go on
  const GridWorkload workload = load_grid_workload(load_grid(spec), spec.workload);
  return run_texts(spec, workload);
}

std::vector<RunTexts> compare(const std::vector<std::string>& arguments, bool data_blind, std::size_t threads) {
  cxxopts::Options options("gridpeer.compare");
  add_grid_options(options, "synthetic");  // as gridsim compare
  const auto args = parse(options, "gridpeer.compare", arguments);
  const ExperimentSpec base = grid_spec_from_options(args);
  const py::gil_scoped_release unlocked;
  const GridWorkload workload = load_grid_workload(load_grid(base), base.workload);
  const std::vector<ExperimentSpec> specs = compare_specs(base, data_blind);
  std::vector<RunTexts> results(specs.size());
  parallel_for(
      specs.size(), std::max<std::size_t>(1, threads),
      [&](std::size_t i) { results[i] = run_texts(specs[i], workload); },
      [&](std::size_t i) { return algorithm_label(specs[i].config); });
  return results;
}

/// Per policy: (result JSON, jobs CSV, time series CSV).
std::vector<RunTexts> replay(const std::vector<std::string>& arguments, bool verbose) {
  cxxopts::Options options("gridpeer.replay");
  add_replay_options(options);
  const auto args = parse(options, "gridpeer.replay", arguments);
  const py::gil_scoped_release unlocked;
  const auto logger = quiet_logger(verbose);
  const ReplayStudy study = replay_study_from_options(args, *logger);
  const std::vector<gridpeer::ServerSpec> servers{study.server};
  std::vector<RunTexts> results;
  for (const PolicyRun& policy_run : run_replay_study(study)) {
    const auto rows = replay_rows(study.workload, policy_run.replay);
    results.emplace_back(to_json(policy_run).dump(), gridpeer::report::batsim_jobs_csv(rows, servers),
                         gridpeer::report::time_series_csv(rows, servers));
  }
  return results;
}

/// (result JSON, per-row CSV) of one run of a study, as its gridsim command
/// (coalloc, allocate, group, bag) gives them with --out and its CSV option.
template <Study S>
std::tuple<std::string, std::string> study(const std::vector<std::string>& arguments) {
  const std::string name = "gridpeer." + std::string(S::command.substr(S::command.find(' ') + 1));
  cxxopts::Options options(name);
  S::add_options(options);
  const auto args = parse(options, name, arguments);
  const typename S::Spec spec = S::spec_from(args);
  FileHashes hashes;
  nlohmann::json identity = S::identity(spec, args, hashes);
  const py::gil_scoped_release unlocked;
  RunHooks hooks;
  hooks.keep_rows = true;
  const typename S::Result result = S::run(spec, S::load(spec), hooks);
  nlohmann::json json = S::json(spec, result, true);
  json["identity"] = std::move(identity);
  return {json.dump(), S::rows_csv(result)};
}

int sweep(const std::string& experiment, const std::string& out, const std::vector<std::string>& sets,
          const std::string& seeds, std::size_t threads, bool force, bool overwrite, bool verbose) {
  ExperimentFile file = load_experiment(experiment);
  if (!seeds.empty()) file.seeds = parse_seed_list(seeds);
  SweepOptions options;
  options.out = out;
  options.threads = std::max<std::size_t>(1, threads);
  options.force = force;
  options.overwrite = overwrite;
  for (const auto& assignment : sets) options.overrides.push_back(parse_run_option(assignment));
  options.command_line = "gridpeer.sweep(" + experiment + ")";
  const py::gil_scoped_release unlocked;
  const auto logger = quiet_logger(verbose);
  return run_sweep(file, options, *logger);
}

}  // namespace

PYBIND11_MODULE(_gridpeer, module) {
  module.doc() = "gridpeer's simulator in-process; use the gridpeer package, which wraps this module.";
  module.def("version", &gridpeer_version);
  module.def("builtin_experiments", &builtin_experiments);
  module.def("run", &run, py::arg("arguments"));
  module.def("compare", &compare, py::arg("arguments"), py::arg("data_blind"), py::arg("threads"));
  module.def("coalloc", &study<CoallocStudy>, py::arg("arguments"));
  module.def("allocate", &study<AllocationStudy>, py::arg("arguments"));
  module.def("group", &study<GroupingStudy>, py::arg("arguments"));
  module.def("bag", &study<BagStudy>, py::arg("arguments"));
  module.def("replay", &replay, py::arg("arguments"), py::arg("verbose"));
  module.def("sweep", &sweep, py::arg("experiment"), py::arg("out"), py::arg("sets"), py::arg("seeds"),
             py::arg("threads"), py::arg("force"), py::arg("overwrite"), py::arg("verbose"));
  py::register_exception<ExperimentError>(module, "ExperimentError", PyExc_ValueError);
}
