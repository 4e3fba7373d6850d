#pragma once
// What a finished sweep turns into: results.json and results.csv (one row per
// run: its axes, seed and metrics), summary.json and summary.csv (one row per
// point of the axes: mean and 95% interval over seeds), report.md, and the
// paper's own report when the experiment names one.
#include <spdlog/logger.h>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "sim/studies/grid_experiment.hpp"
#include "sim/sweeps/experiment_file.hpp"

namespace gridpeer::sim {

struct SweepMeta {
  const ExperimentFile& experiment;
  std::string command_line;
  std::string version;
  std::vector<std::string> metrics;                          ///< summarised (the model's)
  std::vector<std::pair<std::string, std::string>> columns;  ///< shown in report.md: (metric, title)
};

/// Groups runs by their axes (every seed of a point together), in the order
/// the runs come: [{"axes": {...}, "n", "seeds": [...], "<metric>": {"mean",
/// "ci95", "min", "max"}}]. ci95 is null with one seed.
nlohmann::json summarize_runs(const nlohmann::json& results, const std::vector<std::string>& axes,
                              const std::vector<std::string>& metrics = grid_summary_metrics());

/// The work a sweep did, from its results: runs of equal identity (a
/// baseline on an axis it does not read) ran once, whatever names they
/// carry, so each identity counts once.
struct SweepWork {
  std::size_t runs = 0;        ///< distinct runs
  double run_seconds = 0;      ///< their own wall times, summed
  std::size_t jobs = 0;        ///< their jobs, summed
  std::uint64_t events = 0;    ///< their events, summed
  double slowest_seconds = 0;  ///< the slowest run's wall time
  std::string slowest_run;     ///< its first name
};
SweepWork sweep_work(const nlohmann::json& results);

std::string results_csv(const nlohmann::json& results, const std::vector<std::string>& axes,
                        const std::vector<std::string>& metrics);
std::string summary_csv(const nlohmann::json& summary, const std::vector<std::string>& axes,
                        const std::vector<std::string>& metrics);

/// Reads OUT/runs/NAME.json of every name and writes the files above; false
/// (writing nothing) if a run is missing.
bool assemble_sweep(const std::filesystem::path& out, const std::vector<std::string>& run_names, const SweepMeta& meta,
                    spdlog::logger& logger);

}  // namespace gridpeer::sim
