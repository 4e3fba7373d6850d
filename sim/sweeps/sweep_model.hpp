#pragma once
// What a sweep needs of a kind of run: the options a run is described by (an
// experiment file's [fixed] and axes), what identifies a run, the workload
// runs share, running one, and the metrics its summary gives. One model per
// kind of study (sim/studies/study_definitions.hpp): grid, coalloc,
// allocation, grouping, bag, membership.
#include <cxxopts.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/studies/run_identity.hpp"

namespace gridpeer::sim {

/// A workload loaded once and shared by the runs of one workload key.
class SweepWorkload {
 public:
  virtual ~SweepWorkload() = default;
};

/// One run of a sweep, its options parsed.
class SweepRun {
 public:
  virtual ~SweepRun() = default;
  /// Every value the result depends on (run_identity.hpp).
  [[nodiscard]] virtual const nlohmann::json& identity() const = 0;
  /// Runs with equal keys share one workload, loaded once.
  [[nodiscard]] virtual std::string workload_key() const = 0;
  [[nodiscard]] virtual std::shared_ptr<const SweepWorkload> load_workload() const = 0;
  /// What a loaded workload's sources do not say (a trace without waits, a
  /// truncated window), to print once.
  [[nodiscard]] virtual std::vector<std::string> workload_warnings(const SweepWorkload& workload) const = 0;
  /// Runs on a workload load_workload() of an equal key made; returns the
  /// result's JSON (metrics named as the model's metrics()).
  [[nodiscard]] virtual nlohmann::json run(const SweepWorkload& workload) const = 0;
};

class SweepModel {
 public:
  virtual ~SweepModel() = default;
  /// The command whose options describe a run ("gridsim run").
  [[nodiscard]] virtual std::string_view command() const = 0;
  virtual void add_options(cxxopts::Options& options) const = 0;
  [[nodiscard]] virtual std::unique_ptr<SweepRun> resolve(const cxxopts::ParseResult& args,
                                                          FileHashes& hashes) const = 0;
  /// The metrics summaries give (mean and interval over seeds).
  [[nodiscard]] virtual const std::vector<std::string>& metrics() const = 0;
  /// (metric, title) of the columns report.md shows.
  [[nodiscard]] virtual std::vector<std::pair<std::string, std::string>> report_columns() const = 0;
};

/// The model of that name (grid, coalloc, allocation, grouping, bag,
/// membership); throws std::invalid_argument naming them otherwise.
std::unique_ptr<SweepModel> make_sweep_model(const std::string& name);
bool is_sweep_model(const std::string& name);
/// "grid (gridsim run), coalloc (gridsim coalloc), ...": every model, for messages.
std::string sweep_model_list();

}  // namespace gridpeer::sim
