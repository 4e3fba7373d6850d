#pragma once
// One run of Shih, Huang & Chung's processor allocation ("gridsim allocate",
// Shih, Huang & Chung 2010): a log's jobs on sites of different speeds under one global
// strict-FCFS queue, placed by one of the eight rules
// (peer/core/policy/processor_allocation.hpp). The run's knobs are the
// paper's axes: SH (speeds drawn by eqs. 18-19), SL (run times x SL) and RC
// (jobs cut to 128 x RC processors). Shared by the command and, later, the
// sweep.
#include <cstddef>
#include <cstdint>
#include <cxxopts.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "peer/core/policy/processor_allocation.hpp"
#include "peer/model/job.hpp"
#include "peer/model/job_record.hpp"
#include "peer/workload/feitelson96.hpp"

namespace gridpeer::sim {

/// Where the jobs come from: the log, or one of §5's two synthetic models.
enum class AllocationWorkload { trace, feitelson96, lublin99 };

struct AllocationSpec {
  std::vector<int> sites{8, 128, 128, 128, 50};  ///< processors per site (SDSC-SP2's queues)
  AllocationWorkload workload = AllocationWorkload::trace;
  std::string trace = "SDSC-SP2-1998-4.2-cln.swf.gz";
  std::optional<std::string> trace_dir;
  /// The models: how many jobs (the paper: 30,000), at most 128 processors
  /// each, and the arrival knob -- Feitelson96's ARR_FACTOR (the mean
  /// inter-arrival in seconds; Shih, Huang & Chung 2010: 600..300) or Lublin99's AARR (the shape of
  /// the log inter-arrival gamma, the model's own 10.23; Shih, Huang & Chung 2010: 10.5..8.5).
  std::size_t model_jobs = 30'000;
  double arrival = 0;
  /// Feitelson96 only: the mean inter-arrival is ARR_FACTOR x this (1: the
  /// model's knob as written; the first reading squeezed it to 0.44 to reach
  /// the paper's load with run times of its own).
  double arrival_scale = 1;
  /// Feitelson96 only: the long run-time branch's mean, in seconds (the fitted
  /// kFeitelson96FittedLongRunMean by default; docs/processor-allocation.md).
  double long_run_mean_s = workload::kFeitelson96FittedLongRunMean;
  double sh = 0;                 ///< speed heterogeneity of the drawn speeds
  std::uint64_t speed_draw = 0;  ///< which of the seed's speed vectors (the paper draws 10 per SH)
  std::vector<double> speeds;    ///< given speeds instead of a draw (one per site)
  double sl = 1;                 ///< run times are multiplied by SL
  double rc = 1;                 ///< jobs wider than 128 x RC processors are cut
  AllocationRuleConfig rule;
  std::uint64_t seed = 1;
};

/// --sites, --trace, --trace-dir, --sh, --speed-draw, --speeds, --sl, --rc,
/// --rule, --sht, --slt, --seed.
void add_allocation_options(cxxopts::Options& options);
/// Throws std::invalid_argument naming the option and what it accepts.
AllocationSpec allocation_spec_from_options(const cxxopts::ParseResult& args);

/// The log's jobs as Shih, Huang & Chung 2010 reads them: kept when run time (field 4) > 0 and
/// processors (field 5) > 0, whatever the status; submit order (stable), ids 1..N.
std::vector<Job> allocation_trace_jobs(const AllocationSpec& spec);
/// The run's jobs as logged or generated (SL and RC not applied): the trace,
/// or model_jobs jobs of the model from the seed's workload stream (the same
/// for every speed draw), run time > 0.
std::vector<Job> allocation_jobs(const AllocationSpec& spec);
/// "trace", "feitelson96", "lublin99".
std::string_view to_string(AllocationWorkload workload);
/// The arrival knob's default for a model (Feitelson96 400, Lublin99 10.2303).
double default_allocation_arrival(AllocationWorkload workload);
/// The run's speeds: given, or drawn for SH from the seed's stream speed_draw.
std::vector<double> allocation_speeds(const AllocationSpec& spec);

struct AllocationResult {
  std::size_t jobs = 0;  ///< after cutting
  double art_s = 0;      ///< eq. 1: mean of end - submit
  double mean_wait_s = 0;
  /// Jobs in the global queue, averaged over events (submissions and
  /// finishes, after each) and over time.
  double mean_queue_events = 0;
  double mean_queue_time = 0;
  double makespan_s = 0;
  std::vector<double> speeds;
  double heterogeneity = 0;  ///< eq. 3 of the speeds
  std::uint64_t events = 0;  ///< scheduler inputs (submissions and wake-ups)
  double wall_seconds = 0;
  /// With keep_records: every job's record (ids of the cut jobs, 1..n, in
  /// end order) and, by id - 1, the position (1-based) of the job it was cut
  /// from in the list given to run_allocation.
  std::vector<JobRecord> records;
  std::vector<std::size_t> cut_from;
};

/// Which engine plays a run: the same inputs and results either way.
enum class AllocationEngine {
  replay,          ///< allocation_replay.hpp: a queue, counters and a heap of finishes
  meta_scheduler,  ///< make_allocation_scheduler's MetaScheduler over local schedulers: the reference
};

/// Runs `jobs` (as logged: times are scaled by SL and cut by RC here).
AllocationResult run_allocation(const AllocationSpec& spec, const std::vector<Job>& jobs, bool keep_records = false,
                                AllocationEngine engine = AllocationEngine::replay);

/// One row per job, by id: job_id, source_job (its position in the log as
/// read, or in the model's draw), submit_s, processors, site (1-based), speed,
/// start_s, end_s, run_s (on that site), wait_s, response_s.
std::string allocation_jobs_csv(const AllocationResult& result);

/// One line: where the jobs come from, SL and RC.
std::string allocation_workload_text(const AllocationSpec& spec);
nlohmann::json allocation_json(const AllocationSpec& spec, const AllocationResult& result, bool include_timing);

/// The metrics a sweep of allocation runs summarises, as allocation_json names them.
const std::vector<std::string>& allocation_summary_metrics();

/// Eq. 23 (and eq. 22 with a mean for `reference`): (reference - art) / reference.
double npir(double reference, double art);

}  // namespace gridpeer::sim
