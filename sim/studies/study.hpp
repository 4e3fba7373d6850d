#pragma once
// One shape for every kind of study (a grid of peers, co-allocation,
// processor allocation, job grouping, a bag in the P2P grid): a definition
// names its types and says, once, what its command (gridsim coalloc, ...),
// its sweep model (sim/sweeps/sweep_model.cpp) and the Python module need --
// its options, what identifies a run, the workload runs may share, running
// it, its JSON and table, its summary metrics. study_definitions.hpp holds
// the five.
#include <concepts>
#include <cstdint>
#include <cxxopts.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/studies/run_identity.hpp"

namespace gridpeer::sim {

/// What a caller may ask of a run besides its result.
struct RunHooks {
  bool keep_rows = false;  ///< per-job rows for a CSV (memory)
  std::function<void(std::size_t done, std::size_t total)> progress;
};

template <class S>
concept Study = requires(cxxopts::Options& options, const cxxopts::ParseResult& args, const typename S::Spec& spec,
                         const typename S::Workload& workload, const typename S::Result& result, FileHashes& hashes,
                         const RunHooks& hooks) {
  typename S::Spec;
  typename S::Workload;  ///< shared by runs of one workload key (std::monostate: each run draws its own)
  typename S::Result;
  { S::model } -> std::convertible_to<std::string_view>;    ///< the sweep model's name ("coalloc")
  { S::command } -> std::convertible_to<std::string_view>;  ///< "gridsim coalloc"
  {S::add_options(options)};
  { S::spec_from(args) } -> std::same_as<typename S::Spec>;
  { S::seed(spec) } -> std::same_as<std::uint64_t>;
  /// Every value the result depends on (run_identity.hpp), from the spec and
  /// the options it was read from.
  { S::identity(spec, args, hashes) } -> std::same_as<nlohmann::json>;
  /// Runs with equal keys share one workload, loaded once.
  { S::workload_key(spec) } -> std::same_as<std::string>;
  { S::load(spec) } -> std::same_as<typename S::Workload>;
  /// What the workload's sources do not say (a trace without waits), to print once.
  { S::warnings(workload) } -> std::same_as<std::vector<std::string>>;
  { S::run(spec, workload, hooks) } -> std::same_as<typename S::Result>;
  { S::json(spec, result, true) } -> std::same_as<nlohmann::json>;
  /// What the command prints: a few lines of the result's figures.
  { S::table(spec, result) } -> std::same_as<std::string>;
  /// The metrics a sweep's summary gives (mean and interval over seeds), and
  /// (metric, title) of the columns its report shows.
  { S::metrics() } -> std::same_as<const std::vector<std::string>&>;
  { S::columns() } -> std::same_as<std::vector<std::pair<std::string, std::string>>>;
};

}  // namespace gridpeer::sim
