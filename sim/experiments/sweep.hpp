#pragma once
// `gridsim sweep --experiment shan2004`: 002's matrix of runs, in parallel,
// resumable and shardable, then results.{json,csv}, figures and report.md.
#include <spdlog/logger.h>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "sim/experiments/grid_experiment.hpp"

namespace gridpeer::sim {

struct SweepRun {
  std::string name;  ///< e.g. "si-blind_slow_large_12sites"; also its file name
  GridConfig config;
  std::string sites;
  std::string network;
  workload::DataSize data_size = workload::DataSize::medium;
};

/// 5 algorithms + data-blind S-I and Sy-I, x fast/slow, x small/medium/large, x 3/6/12 sites.
std::vector<SweepRun> shan2004_matrix(const GridConfig& base);

struct SweepOptions {
  std::filesystem::path out;
  std::size_t shard_index = 0;  ///< this shard runs the runs with index % count == index
  std::size_t shard_count = 1;
  std::size_t threads = 1;
  bool force = false;        ///< re-run runs whose result file exists
  bool report_only = false;  ///< only assemble what runs/ holds
  ExperimentSpec base;       ///< topology file, workload, seed, local policy, parameters
};

/// Returns the process exit code.
int run_sweep(const SweepOptions& options, spdlog::logger& logger);

/// Reads DIR/runs/*.json of the matrix and writes results.json, results.csv,
/// figures/ (gnuplot, when installed) and report.md. False if runs are missing.
bool assemble_sweep(const std::filesystem::path& out, const std::vector<SweepRun>& matrix, spdlog::logger& logger);

}  // namespace gridpeer::sim
