#pragma once
// One run of Jones et al. 2004's cluster grid ("gridsim coalloc"): clusters of
// single-CPU nodes on a star of links, each fed by its own Poisson stream
// (exponential run times, UNIF node counts), placed by one co-allocating
// meta-scheduler (peer/core/meta/coallocation.hpp). Shared by the command,
// the sweep and the benchmark.
#include <cstddef>
#include <cstdint>
#include <cxxopts.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "peer/core/grid_config.hpp"
#include "peer/core/meta/coallocation.hpp"
#include "peer/model/job.hpp"
#include "peer/model/job_record.hpp"
#include "peer/workload/poisson_model.hpp"

namespace gridpeer::sim {

struct CoallocSpec {
  std::vector<int> nodes{100, 100, 100, 100};  ///< nodes per cluster
  double link_mbps = 1000;                     ///< every cluster's link to the central switch
  std::size_t jobs_per_cluster = 400'000;
  workload::PoissonModelConfig workload;  ///< Jones et al. 2004: gap 150 s, run 450 s, UNIF[10, 50] nodes
  /// Jones & Ligon 2006: each cluster's arrival rate, in jobs per week per 100 nodes (its
  /// mean gap is a week / (rate x nodes / 100)); every stream then covers
  /// `weeks` instead of a job count. Empty: every cluster has the workload's
  /// mean gap and jobs_per_cluster jobs (Jones et al. 2004).
  std::vector<double> rates_per_week;
  double weeks = 52;
  std::uint64_t seed = 1;
  CoallocationConfig config;
  /// One peer per cluster, splitting jobs among themselves from their
  /// partners' replies (docs/coallocation.md, "Among peers"), instead of one
  /// meta-scheduler with every cluster's state.
  bool peers = false;
  /// With peers: S-I (sender) or Sy-I (symmetric).
  GridAlgorithm peer_algorithm = GridAlgorithm::sender;
};

/// --clusters, --nodes, --link-mbps, --jobs-per-cluster, --mean-gap,
/// --rates, --weeks, --mean-run, --min-nodes, --max-nodes, --seed, --method,
/// --lslt, --bsbw, --chunk, --k, --allotment, --split-order, --sharing,
/// --local-policy, --reservation-depth.
void add_coalloc_options(cxxopts::Options& options);
/// Throws std::invalid_argument naming the option and what it accepts.
CoallocSpec coalloc_spec_from_options(const cxxopts::ParseResult& args);

/// What makes two runs the same: every value the run reads (a method that
/// does not read LSLT, BSBW or the chunk has them as null, so its runs at
/// other values are one run), and the version.
nlohmann::json coalloc_identity(const CoallocSpec& spec);
/// Identifies the job stream alone (shared by every method of a seed).
std::string coalloc_workload_key(const CoallocSpec& spec);

/// Every cluster's stream (cluster c draws from the seed's fork c, so its
/// jobs do not depend on the other clusters' rates), merged by submit time
/// (ties: cluster, then order). Ids are 1..N; origin is the cluster.
std::vector<Job> coalloc_workload(const CoallocSpec& spec);

/// A job as it ended, for the per-job CSV.
struct CoallocJobRow {
  JobRecord record;
  Duration run_time{};          ///< T_E: its run time on one cluster
  std::vector<SitePart> parts;  ///< empty: it ran whole on record.executed_on
  double lowest_slowdown = 1;
};

struct CoallocResult {
  std::size_t jobs = 0;
  double avg_turnaround_s = 0;
  double avg_wait_s = 0;
  double fraction_local = 0;
  double fraction_migrated = 0;
  double fraction_coallocated = 0;
  double mean_link_saturation = 0;  ///< time-weighted L_i, averaged over links
  double peak_link_saturation = 0;
  /// Over co-allocated jobs: the slowdown that, held all along, gives the
  /// run time they had ((1-K) T_E / (run - K T_E)), and run / T_E.
  double mean_coalloc_slowdown = 1;
  double mean_coalloc_stretch = 1;
  double lowest_slowdown = 1;
  double utilization = 0;  ///< node-seconds used / (nodes x (last end - first arrival))
  double offered_load = 0;
  double makespan_s = 0;
  std::uint64_t events = 0;  ///< scheduler inputs (submissions and wake-ups)
  std::uint64_t retimings = 0;
  double wall_seconds = 0;
  std::vector<CoallocJobRow> rows;  ///< with keep_rows, in the order jobs ended
  /// Per origin cluster (Jones & Ligon's fairness): jobs and their mean turnaround.
  std::vector<std::size_t> jobs_by_origin;
  std::vector<double> turnaround_by_origin_s;
  /// Jones & Ligon's curves: the last cluster is the fixed cluster FC; the others
  /// (OC) pooled over their jobs.
  double fixed_cluster_turnaround_s = 0;
  double other_clusters_turnaround_s = 0;
  /// Peers: messages the peers sent one another (the meta-scheduler sends none).
  std::uint64_t messages = 0;
  std::uint64_t split_aborts = 0;
};

/// Which engine plays a meta-scheduler's run: the same inputs and results either way.
enum class CoallocEngine : std::uint8_t {
  /// coalloc_replay.hpp (counters and the clusters' ends) where it plays the
  /// configuration (clusters shared fully), else the meta-scheduler.
  fastest,
  meta_scheduler,  ///< make_coallocation_scheduler's MetaScheduler over local schedulers: the reference
};

/// Runs the jobs (sorted by submit) through the meta-scheduler of `spec`.
/// `progress(done, total)` now and then.
CoallocResult run_coalloc(const CoallocSpec& spec, const std::vector<Job>& jobs, bool keep_rows,
                          const std::function<void(std::size_t, std::size_t)>& progress = {},
                          CoallocEngine engine = CoallocEngine::fastest);

/// The run's JSON: identity values, metrics, and (include_timing) wall time.
nlohmann::json coalloc_json(const CoallocSpec& spec, const CoallocResult& result, bool include_timing);
/// Mean gap of cluster c's arrivals (s): from its rate, or the workload's.
double coalloc_mean_gap(const CoallocSpec& spec, std::size_t cluster);

/// One line per job: id, origin, submit, nodes, T_E, start, end, wait,
/// turnaround, placement (local, migrated, split), parts, lowest sd.
std::string coalloc_jobs_csv(const CoallocResult& result);

/// The metrics a sweep of co-allocation runs summarises, as coalloc_json names them.
const std::vector<std::string>& coalloc_summary_metrics();

}  // namespace gridpeer::sim
