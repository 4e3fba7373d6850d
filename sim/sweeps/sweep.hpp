#pragma once
// `gridsim sweep EXPERIMENT`: every run of an experiment file, in parallel,
// sharded and resumable, then results.{json,csv}, summary.{json,csv} (means
// and 95% intervals over seeds), report.md and figures. A saved run is reused
// only when its identity (sim/studies/run_identity.hpp) matches exactly.
#include <spdlog/logger.h>
#include <cstddef>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "sim/sweeps/experiment_file.hpp"

namespace gridpeer::sim {

struct SweepOptions {
  std::filesystem::path out;
  std::size_t shard_index = 0;  ///< this shard runs the runs with index % count == index
  std::size_t shard_count = 1;
  std::size_t threads = 1;
  bool force = false;                ///< re-run every run of this shard, even identical ones
  bool overwrite = false;            ///< accept a folder holding another experiment; its runs are deleted
  bool report_only = false;          ///< only assemble what runs/ holds
  std::vector<RunOption> overrides;  ///< --set NAME=VALUE
  std::string command_line;          ///< recorded in every result
};

/// Returns the process exit code.
int run_sweep(const ExperimentFile& experiment, const SweepOptions& options, spdlog::logger& logger);

/// How far a sweep into options.out has come, read from its run files alone
/// (any node that sees the folder may ask, while shards run): the runs
/// saved with the planned identity, those saved otherwise, and, per shard
/// of `shards`, how many of its runs are in. True when every run is in.
bool sweep_status(const ExperimentFile& experiment, const SweepOptions& options, std::size_t shards, std::ostream& out);

}  // namespace gridpeer::sim
