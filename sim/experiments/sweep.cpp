#include "sim/experiments/sweep.hpp"

#include <fmt/format.h>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "sim/experiments/cli_support.hpp"
#include "sim/experiments/sweep_report.hpp"

namespace gridpeer::sim {

std::vector<SweepRun> shan2004_matrix(const GridConfig& base) {
  struct Variant {
    GridAlgorithm algorithm;
    bool blind;
  };
  const Variant variants[] = {{GridAlgorithm::local, false},     {GridAlgorithm::central, false},
                              {GridAlgorithm::sender, false},    {GridAlgorithm::receiver, false},
                              {GridAlgorithm::symmetric, false}, {GridAlgorithm::sender, true},
                              {GridAlgorithm::symmetric, true}};
  std::vector<SweepRun> runs;
  for (const char* network : {"fast", "slow"}) {
    for (const auto data : {workload::DataSize::small, workload::DataSize::medium, workload::DataSize::large}) {
      for (const char* sites : {"3", "6", "12"}) {
        for (const Variant& variant : variants) {
          SweepRun run;
          run.config = base;
          run.config.algorithm = variant.algorithm;
          run.config.parameters.data_blind = variant.blind;
          run.network = network;
          run.data_size = data;
          run.sites = sites;
          run.name =
              fmt::format("{}_{}_{}_{}sites", algorithm_label(run.config), network, workload::to_string(data), sites);
          runs.push_back(run);
        }
      }
    }
  }
  return runs;
}

namespace {

std::filesystem::path run_file(const std::filesystem::path& out, const SweepRun& run) {
  return out / "runs" / (run.name + ".json");
}

}  // namespace

int run_sweep(const SweepOptions& options, spdlog::logger& logger) {
  const std::vector<SweepRun> matrix = shan2004_matrix(options.base.config);
  std::filesystem::create_directories(options.out / "runs");
  if (!options.report_only) {
    std::vector<const SweepRun*> todo;
    for (std::size_t i = 0; i < matrix.size(); ++i) {
      if (i % options.shard_count != options.shard_index) continue;
      if (!options.force && std::filesystem::exists(run_file(options.out, matrix[i]))) continue;
      todo.push_back(&matrix[i]);
    }
    logger.info("shard {}/{}: {} of {} runs to do (seed {}, {} threads)", options.shard_index, options.shard_count,
                todo.size(), matrix.size(), options.base.workload.seed, options.threads);
    // One workload per data size: the jobs do not depend on the split or network.
    const auto started = std::chrono::steady_clock::now();
    std::map<workload::DataSize, GridWorkload> workloads;
    if (!todo.empty()) {
      const auto grid = topology::load_topology_file(options.base.topology_file, options.base.selection);
      GridWorkloadRequest request = options.base.workload;
      request.data_size = workload::DataSize::none;
      const GridWorkload plain = load_grid_workload(grid, request);
      for (const SweepRun* run : todo) {
        if (workloads.count(run->data_size) != 0U) continue;
        GridWorkload sized = plain;
        assign_grid_data_sizes(sized.jobs, grid.servers.size(), run->data_size, request.seed);
        workloads.emplace(run->data_size, std::move(sized));
      }
      logger.info("workload: {} ({} jobs), ready in {:.1f} s", plain.description, plain.jobs.size(),
                  seconds_since(started));
    }
    std::mutex report;
    std::size_t done = 0;
    Progress progress("sweep", todo.size());
    try {
      parallel_for(
          todo.size(), options.threads,
          [&](std::size_t i) {
            const SweepRun& run = *todo[i];
            ExperimentSpec spec = options.base;
            spec.config = run.config;
            spec.selection.split = run.sites;
            spec.selection.network = run.network;
            spec.workload.data_size = run.data_size;
            const ExperimentResult result = run_experiment(spec, workloads.at(run.data_size));
            nlohmann::json json = experiment_json(spec, result, true);
            json["run"] = run.name;
            write_json_file(run_file(options.out, run).string(), json);
            const std::lock_guard lock(report);
            progress.update(++done);
          },
          [&](std::size_t i) { return todo[i]->name; });
    } catch (const std::exception& error) {
      logger.error("run failed: {} (the runs that ended are saved; run the sweep again to resume)", error.what());
      return 1;
    }
    logger.info("{} runs in {:.1f} s", todo.size(), seconds_since(started));
  }
  if (!assemble_sweep(options.out, matrix, logger)) {
    logger.info(
        "some runs of the matrix are not in {} yet (other shards?); when all are, run "
        "`gridsim sweep --experiment shan2004 --out {} --report-only`",
        (options.out / "runs").string(), options.out.string());
  }
  return 0;
}

bool assemble_sweep(const std::filesystem::path& out, const std::vector<SweepRun>& matrix, spdlog::logger& logger) {
  nlohmann::json results = nlohmann::json::array();
  for (const SweepRun& run : matrix) {
    const auto path = run_file(out, run);
    if (!std::filesystem::exists(path)) return false;
    std::ifstream in(path);
    results.push_back(nlohmann::json::parse(in));
  }
  write_json_file((out / "results.json").string(), results);
  write_text_file((out / "results.csv").string(), results_csv(results));
  const bool plotted = write_figures(out / "figures", results, logger);
  write_text_file((out / "report.md").string(), sweep_report(results, plotted));
  logger.info("wrote {}/results.json, results.csv, report.md{}", out.string(), plotted ? " and figures/" : "");
  return true;
}

}  // namespace gridpeer::sim
