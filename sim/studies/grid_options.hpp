#pragma once
// Command-line options shared by `gridsim run` and `gridsim sweep`.
#include <cxxopts.hpp>
#include <optional>
#include <string>
#include <vector>

#include "peer/io/topology/topology.hpp"
#include "sim/studies/grid_experiment.hpp"

namespace gridpeer::sim {

/// `default_workload`: topology for run and sweep, synthetic for compare
/// (which runs anywhere, without traces).
void add_grid_options(cxxopts::Options& options, const std::string& default_workload = "topology");
/// Everything but the algorithm, from parsed options; throws on bad values.
ExperimentSpec grid_spec_from_options(const cxxopts::ParseResult& args);

/// --churn, --churn-away, --joiners, --joins-per-day (gridsim's grid commands and fuzz).
void add_churn_options(cxxopts::Options& options);
/// Nothing when no peer leaves and none joins; throws naming a bad option.
std::optional<ChurnConfig> churn_from_options(const cxxopts::ParseResult& args);

/// The grid options plus those that pick the algorithm (--algorithm,
/// --data-blind, --stagger-periods, --central-peer): everything that defines
/// one run. `gridsim run` and every run of an experiment file parse these.
void add_run_options(cxxopts::Options& options);
ExperimentSpec run_spec_from_options(const cxxopts::ParseResult& args);

/// gridsim compare's runs: Local, Centralized, S-I, R-I and Sy-I on `base`,
/// then (with `data_blind`) the data-blind S-I and Sy-I.
std::vector<ExperimentSpec> compare_specs(const ExperimentSpec& base, bool data_blind);

/// The options that do not change a run's result (where files are, logging);
/// left out of its identity.
bool option_changes_result(const std::string& name);
/// The default topology: topologies/shan2004.toml from the working directory,
/// else from the source tree.
std::string default_topology_file();

}  // namespace gridpeer::sim
