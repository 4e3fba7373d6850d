#pragma once
// One grid run from a description (topology, algorithm, workload, seed) to
// its metrics and JSON; shared by `gridsim run` and `gridsim sweep`.
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "peer/core/grid_config.hpp"
#include "peer/core/metrics.hpp"
#include "peer/io/topology/partners.hpp"
#include "peer/io/topology/topology.hpp"
#include "peer/network/control_traffic.hpp"
#include "peer/network/sharing_model.hpp"
#include "sim/driver/grid_sim.hpp"
#include "sim/studies/workloads.hpp"

namespace gridpeer::sim {

struct ExperimentSpec {
  std::string topology_file;
  topology::TopologySelection selection;
  GridConfig config;
  network::Sharing sharing = network::Sharing::equal_share;
  network::ControlTraffic control_traffic = network::ControlTraffic::bounded;
  GridWorkloadRequest workload;
  topology::PartnerRule partners;  ///< whom each peer asks (drawn from workload.seed)
  bool stagger_periods = false;    ///< R-I/Sy-I periods at random phases (drawn from workload.seed)
  /// Peers leave and join again during the run, and servers outside the
  /// grid join it (drawn from workload.seed; sim/driver/churn.hpp).
  std::optional<ChurnConfig> churn;
  /// Leaves and joins at given times (sim/studies/churn_file.hpp); empty: none.
  std::string churn_file;

  /// Whether peers come and go during the run (drawn or given).
  [[nodiscard]] bool has_churn() const { return churn.has_value() || !churn_file.empty(); }
};

struct ExperimentResult {
  topology::Topology grid;
  std::size_t jobs = 0;
  std::string workload_description;
  std::vector<std::string> provenance;
  std::vector<std::string> warnings;  ///< what the traces do not say (GridWorkload::warnings)
  GridRunResult run;
  MetricsSummary summary;
  double wall_seconds = 0;
};

/// The grid of a spec: a topology file, or "synthetic:N" (sim/synthetic_grid.hpp).
topology::Topology load_grid(const ExperimentSpec& spec);

/// Loads, runs and summarises. `progress` as in GridRunOptions.
ExperimentResult run_experiment(const ExperimentSpec& spec,
                                const std::function<void(std::size_t, std::size_t)>& progress = {});
/// The same on a workload already built (sweeps share one per data size).
ExperimentResult run_experiment(const ExperimentSpec& spec, const GridWorkload& workload,
                                const std::function<void(std::size_t, std::size_t)>& progress = {});

/// Every job of the run in Batsim's jobs.csv layout, and the schedule as SWF
/// (peer/io/report/jobs_csv.hpp).
std::string experiment_jobs_csv(const ExperimentResult& result, const GridWorkload& workload);
std::string experiment_schedule_swf(const ExperimentResult& result, const GridWorkload& workload,
                                    const std::vector<std::string>& header_lines);
/// Each server's busy nodes, running and waiting jobs over time (CSV).
std::string experiment_time_series(const ExperimentResult& result, const GridWorkload& workload);

/// The run's JSON (keys documented in docs/grid-algorithms.md). With
/// `include_timing` false, wall_seconds is 0 so equal seeds give equal bytes.
nlohmann::json experiment_json(const ExperimentSpec& spec, const ExperimentResult& result, bool include_timing);

/// The metrics a sweep of grid runs summarizes (mean and interval over seeds).
const std::vector<std::string>& grid_summary_metrics();

}  // namespace gridpeer::sim
