#pragma once
// An experiment as a file (docs/experiments.md): a TOML file names fixed
// `gridsim run` options, axes to sweep (any option, or several together),
// and seeds; the runs are the product of the axes, once per seed.
#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gridpeer::sim {

/// One option of `gridsim run`, by its long name, with its value as the
/// command line would carry it ("true"/"false" for switches).
using RunOption = std::pair<std::string, std::string>;

struct AxisValue {
  std::string label;               ///< names the value in run names and reports
  std::vector<RunOption> options;  ///< what this value sets
};

struct Axis {
  std::string name;
  std::vector<AxisValue> values;
};

/// Reports drawn by the plotting script after a sweep: the experiment file's
/// `report`, the `gridsim plot` command that draws it, and the document it writes.
struct FigureReport {
  std::string_view name;
  std::string_view plot_command;
  std::string_view document;
};
inline constexpr std::array<FigureReport, 6> kFigureReports{{
    {"jones2004", "jones2004", "reproduction.md"},
    {"jones2006", "jones2006", "reproduction.md"},
    {"shih2010", "shih2010", "reproduction.md"},
    {"ang2007", "ang2007", "reproduction.md"},
    {"fairness", "fairness-sweep", "who_gains.md"},
    {"data-blind-map", "data-blind-map", "data_blind_map.md"},
}};
/// The figure report of that name, if there is one.
const FigureReport* find_figure_report(std::string_view name);

struct ExperimentFile {
  std::string name;
  std::string title;
  std::string source;  ///< the file, or "built-in NAME"
  std::string report;  ///< "" or a paper's own report (kFigureReports, or "shan2004")
  /// Which runs the options describe: "grid" (`gridsim run`, the peers of
  /// Shan et al.) or "coalloc" (`gridsim coalloc`, Jones et al.'s clusters).
  std::string model = "grid";
  std::vector<RunOption> fixed;
  std::vector<Axis> axes;
  std::vector<std::uint64_t> seeds;
  /// `compare = { axis = "algorithm", base = "si", metrics = [...] }`: the
  /// report adds each other value's paired gap to the base, seed by seed,
  /// with its 95% interval (a gap inside its interval is a tie).
  struct Compare {
    std::string axis;
    std::string base;  ///< a label of that axis
    std::vector<std::string> metrics{"avg_response_s"};
  };
  std::optional<Compare> compare;
  /// `[[skip]]` tables: a run whose labels match every axis an entry names
  /// (one label, or any of a list) is left out of the product -- a point
  /// that cannot run in reasonable time, or tells nothing new.
  struct Skip {
    std::map<std::string, std::set<std::string>> labels;  ///< axis name -> the labels skipped
  };
  std::vector<Skip> skips;
};

class ExperimentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Parses an experiment; paths in [fixed] (topology, workload files, trace-dir)
/// that are relative are taken from `base_dir` when a file is there. Throws
/// ExperimentError "source:line: what".
ExperimentFile parse_experiment(std::string_view text, const std::string& source,
                                const std::filesystem::path& base_dir = {});

/// A built-in experiment by name (shan2004), else the file at `name_or_path`.
ExperimentFile load_experiment(const std::string& name_or_path);
/// The names of the built-in experiments.
std::vector<std::string> builtin_experiments();

struct PlannedRun {
  std::string name;                           ///< labels joined by '_', then "seedN"
  std::vector<RunOption> options;             ///< fixed, then the axes' values, then the seed
  std::map<std::string, std::string> labels;  ///< axis name -> value label
  std::uint64_t seed = 0;
};

/// The runs, first axis outermost, seeds innermost, less the skipped ones. `overrides` replace fixed
/// options or add to them (`gridsim sweep --set`); an override of an axis's
/// option, or of the seed, is refused.
std::vector<PlannedRun> plan_runs(const ExperimentFile& experiment, const std::vector<RunOption>& overrides = {});

/// "1,2,5" or "1-10" (at most 10,000) into seeds; throws std::invalid_argument.
std::vector<std::uint64_t> parse_seed_list(const std::string& text);

/// "NAME=VALUE" into a RunOption; throws std::invalid_argument otherwise.
RunOption parse_run_option(const std::string& assignment);

}  // namespace gridpeer::sim
