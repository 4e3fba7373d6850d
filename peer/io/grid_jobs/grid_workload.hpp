#pragma once
// The jobs of a grid run: each server's trace window from the topology, a
// seeded synthetic workload per server, or one SWF file split across the
// servers; then Shan et al.'s data sizes, drawn per server from the run's seed.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "peer/io/topology/topology.hpp"
#include "peer/model/job.hpp"
#include "peer/model/job_source.hpp"
#include "peer/workload/data_sizes.hpp"
#include "peer/workload/shaping.hpp"

namespace gridpeer::grid_jobs {

enum class SplitRule { queue, round_robin };

/// What Shan et al.'s "b bytes per unit of work" counts: CPU-seconds (its words), or
/// node-seconds of the origin server (what its Table 2 shows for the one
/// machine it shares with our mapping, Blue Horizon).
enum class DataWork { cpus, nodes };

struct GridWorkloadRequest {
  std::string source = "topology";  ///< topology | synthetic | lublin | feitelson96 | poisson | an SWF file
  SplitRule split = SplitRule::queue;
  std::size_t synthetic_jobs_per_server = 1000;
  workload::DataSize data_size = workload::DataSize::medium;
  DataWork data_work = DataWork::cpus;
  std::uint64_t seed = 1;
  std::optional<std::string> trace_dir;
  /// Keep only jobs submitted in the first `limit_days` of every window (0 = all).
  double limit_days = 0;
  double load_factor = 1.0;     ///< inter-arrival times divided by this, across the grid
  double arrival_factor = 1.0;  ///< Lublin's arrival-gap shape multiplier (lublin only)
  /// Requested times of generated jobs, and of trace jobs whose log gives none.
  std::optional<workload::EstimateModel> estimates;
};

struct GridWorkload {
  std::vector<Job> jobs;           ///< all servers, sorted by submit, ids 0..n-1, origin set
  std::vector<JobSource> sources;  ///< sources[id]: the trace file and SWF job number
  std::vector<std::size_t> jobs_per_server;
  std::string description;
  std::vector<std::string> provenance;  ///< the traces' Acknowledge/Copyright lines
  /// What the traces do not say (no waits, truncated windows, made-up
  /// estimates: workload::check_swf_log / check_swf_window), each once.
  std::vector<std::string> warnings;
};

GridWorkload load_grid_workload(const topology::Topology& grid, const GridWorkloadRequest& request);

/// Every field of a request that changes the jobs, data sizes apart (they are
/// drawn per run), as text: two requests with the same key give the same jobs
/// on the same grid, so a sweep can load the jobs once. A field added to
/// GridWorkloadRequest must be added here (tests/workload checks each one).
std::string jobs_key(const GridWorkloadRequest& request);

/// (Re)draws every job's data sizes (Shan et al. 2004, §4.2): one stream per origin server,
/// derived from `seed`, consumed in submit order.
/// `cpus_per_node[origin]`, when given, counts work in the origin's nodes (DataWork::nodes).
void assign_grid_data_sizes(std::vector<Job>& jobs, std::size_t servers, workload::DataSize size, std::uint64_t seed,
                            std::span<const int> cpus_per_node = {});
/// Each server's CPUs per node when `work` is nodes, else empty.
std::vector<int> data_work_units(const topology::Topology& grid, DataWork work);

}  // namespace gridpeer::grid_jobs
